"""Tesseris on a phone (#23): the attack card lists the rules' options, a fire mode picked changes the
odds on screen, Spray 'n Pray takes a second opponent, and the roll's result card names both.
Real Chromium, real server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_table_screens import add_token, join
from test_turns_on_phones import command, new_game, open_phone, open_screen, seeded_dice, state, turn_to  # noqa: F401 (a fixture)


def mira_as_aria(server, new_page, name: str, foes: dict) -> tuple:
    """A Tesseris game where Mira plays Aria at (3, 3) on her phone, with these foes: the game, the token
    ids (Aria's first) and the phone."""
    game = new_game(server, "tesseris_ads", {"width": 16, "height": 10}, name=name)
    mira = join(server, game, "Mira")
    ids = [add_token(server, game, "Aria", 3, 3, owner=mira["player_id"], kind="pc")]
    ids += [add_token(server, game, foe, x, y) for foe, (x, y) in foes.items()]
    return game, ids, open_phone(new_page, server, game, mira)


def test_a_player_picks_a_fire_mode_and_sprays_two_opponents_from_the_phone(seeded_dice, server, new_page, shot):
    # the Rat is 22 degrees off the line to the Ogre: inside the 45 degree arc
    game, (aria, ogre, rat), phone = mira_as_aria(server, new_page, "Tesseris choices", {"Ogre": (8, 3), "Rat": (8, 5)})
    screen = open_screen(new_page, game)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    command(server, game, {"type": "start_combat", "token_ids": [aria, ogre, rat]})
    turn_to(server, game, aria)

    phone.locator("#turn-bar a", has_text="Attack").click()
    form = phone.locator("#attack-form")
    form.locator("select[name=target]").select_option(ogre)
    index = form.locator("select[name=weapon]").evaluate(
        "(s, who) => [...s.options].findIndex((o) => o.dataset.attacker === who && o.value === 'rifle')", aria)
    form.locator("select[name=weapon]").select_option(index=index)
    form.locator("button[data-attack=preview_attack]").click()

    preview = phone.locator("#attack-preview .attack-preview")
    action = preview.locator("select[data-option=action]")
    expect(action).to_be_visible()
    offered = action.locator("option").evaluate_all("os => os.map(o => o.value)")
    assert {"straight_shot", "burst_fire", "full_auto", "called_shot", "spray_n_pray", "covering_fire"} <= set(offered)
    assert "trip" not in offered  # the Ogre is not adjacent: the card says why in the action's note
    expect(preview.locator(".attack-options")).to_contain_text("Trip: the target is 5 squares away, not adjacent")
    chance = preview.locator(".hit-chance")
    single = chance.inner_text()

    # a fire mode: Burst Fire's -1 and its three bullets change the odds shown
    action.select_option("burst_fire")
    expect(chance).not_to_have_text(single)
    expect(preview.locator(".mods")).to_contain_text("Burst Fire")
    expect(preview.locator(".outcomes")).to_contain_text("avoids")
    shot(phone, "phone-tesseris-burst")

    # Spray 'n Pray: a second opponent, each with its chances, and how many may be hit
    action.select_option("spray_n_pray")
    extra = preview.locator("select[data-extra-target]").first
    expect(extra).to_be_visible()
    extra.select_option(rat)
    under = preview.locator(".under-odds")
    expect(under).to_have_count(2)
    expect(under.nth(0)).to_contain_text("Ogre")
    expect(under.nth(1)).to_contain_text("Rat")
    expect(preview.locator(".outcomes").first).to_contain_text("of 2 hit")
    extra.scroll_into_view_if_needed()
    shot(phone, "phone-tesseris-spray-targets")
    under.nth(1).scroll_into_view_if_needed()
    shot(phone, "phone-tesseris-spray")
    # the GM sees the player's attack drawn before it is rolled, the options as picked, read-only
    echo = gm.locator("#attack-preview .attack-options")
    expect(echo.locator("select[data-option=action]")).to_have_value("spray_n_pray")
    expect(echo.locator("select[data-option=action]")).to_be_disabled()
    echo.scroll_into_view_if_needed()
    shot(gm, "gm-tesseris-spray-preview")

    form.locator("button[data-attack=attack]").click()
    card = phone.locator("#result-card.shown")
    expect(card).to_be_visible()
    expect(card.locator(".result-verdict")).to_have_text(re.compile(r"^(HIT [12] OF 2|MISS)$"))
    expect(card).to_contain_text("Ogre")
    expect(card).to_contain_text("Rat")
    expect(card).to_contain_text("8 rounds from the Assault rifle")
    phone.wait_for_timeout(500)  # the card's slide-in, for the picture
    shot(phone, "phone-tesseris-spray-result")
    told = screen.locator("#result-card.shown")
    expect(told).to_contain_text("Spray 'n Pray")
    screen.wait_for_timeout(500)
    shot(screen, "screen-tesseris-spray-result")
    entry = [e for e in state(server, game)["log"] if "Spray 'n Pray" in e["text"]]
    assert entry and "Ogre" in entry[-1]["text"] and "Rat" in entry[-1]["text"]


def test_a_shot_player_dodges_dropping_prone_from_the_phone(seeded_dice, server, new_page, shot):
    """Defending with a reaction first (Drop Prone: "+1 [the prone setting: +2] to Defensive rolls against
    Ranged attacks"): the phone offers each defense with its variants grouped under it, the chance to hit
    beside each; the player's pick is rolled and the token lies prone after."""
    game, (aria, ogre), phone = mira_as_aria(server, new_page, "Tesseris defense", {"Ogre": (9, 3)})
    command(server, game, {"type": "start_combat", "token_ids": [aria, ogre]})
    turn_to(server, game, ogre)
    command(server, game, {"type": "attack", "attacker": ogre, "target": aria, "weapon": "rifle"})
    prompt = phone.locator("#defense-prompt.asking")
    expect(prompt).to_be_visible()
    buttons = prompt.locator("button[data-defense]")
    keys = buttons.evaluate_all("bs => bs.map(b => b.dataset.defense)")
    assert keys[:3] == ["duck", "duck+prone", "dodge"] and "dodge+prone" in keys and keys[-1] == "none", keys
    prone = prompt.locator("button[data-defense='dodge+prone']")
    expect(prone).to_have_class(re.compile("with-modifier"))
    expect(prone).to_contain_text("Dodge, dropping prone first")
    expect(prone.locator(".p")).to_contain_text("they hit")
    assert "dodge+cover" not in keys  # no cover between Aria and the Ogre: nothing to take
    prompt.scroll_into_view_if_needed()
    shot(phone, "phone-tesseris-defense-prompt")
    prone.click()
    expect(phone.locator("#defense-prompt.asking")).to_have_count(0)
    last = [e for e in state(server, game)["log"] if "Ogre: Straight Shot at Aria" in e["text"]]
    assert last and "Dodge" in last[-1]["text"], last
    expect(phone.locator("#combat")).to_contain_text("Prone")  # the fight card's badges: Aria lies prone
