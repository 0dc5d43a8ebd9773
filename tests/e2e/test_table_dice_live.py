"""The table's own dice on the screens (#59): the GM sets the table rolling; the GM's foe attacks Mira's token; the
GM's page asks for the foe's attack roll on the pad, Mira's phone (at the LAN name: not a secure context) asks for
her defense roll, the table screen says who is rolling what, a face no die shows is refused, and the attack is
played from the faces tapped in. Real Chromium, real server (3d6: gurps_lite)."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import OFFLINE
from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, open_screen, seeded_dice, state, turn_to  # noqa: F401
from tests.helpers import live_command as command


def tap(page, faces):
    """The faces pressed on the page's pad: tapped with a finger on a phone (a touch context, #70), clicked on the
    GM's page."""
    touch = page.evaluate("navigator.maxTouchPoints") > 0
    for f in faces:
        face = page.locator("#roll-prompt .roll-faces button", has_text=re.compile(rf"^{f}$")).first
        face.tap() if touch else face.click()


def a_duel_on_every_screen(server, new_page, name: str):
    """A 3d6 game: Mira's Ann beside the GM's Brute, the GM page, Mira's phone (at the LAN name) and the table
    screen open: ``(game, mira, ann, brute, gm, phone, screen)``."""
    game = new_game(server, "gurps_lite", {"width": 12, "height": 8}, name=name)
    mira = join(server, game, "Mira")
    ann = add_token(server, game, "Ann", 3, 3, owner=mira["player_id"], kind="pc")
    brute = add_token(server, game, "Brute", 4, 3)
    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    return game, mira, ann, brute, gm, open_phone(new_page, server, game, mira), open_screen(new_page, game)


def test_a_foes_attack_is_played_from_the_faces_the_gm_and_a_phone_tap_in(seeded_dice, server, new_page, shot):
    game, mira, ann, brute, gm, phone, screen = a_duel_on_every_screen(server, new_page, "Table dice")
    command(server, game, {"type": "start_combat", "token_ids": [ann, brute]})
    turn_to(server, game, brute)

    # the GM sets the table rolling on the GM page
    gm.locator("form[data-command=set_dice] select[name=mode]").select_option("table")
    gm.locator("form[data-command=set_dice] button[type=submit]").click()
    expect(gm.locator("#log")).to_contain_text("The table rolls its own dice")
    expect(phone.locator("form[data-command=set_dice] input[name=app_rolls]")).to_be_attached()

    command(server, game, {"type": "attack", "attacker": brute, "target": ann, "weapon": "Broadsword"})
    phone.locator("#defense-prompt.asking button[data-defense]").first.tap()

    # the foe's attack roll: the GM's pad; the phone and the TV see who rolls
    pad = gm.locator("#roll-prompt.asking")
    expect(pad).to_be_visible()
    expect(pad).to_contain_text("Brute: roll")
    expect(pad).to_contain_text("3d6")
    expect(screen.locator("#roll-prompt")).to_contain_text("Brute rolls")
    expect(phone.locator("#roll-prompt")).to_contain_text("Brute rolls")
    shot(gm, "table-dice-gm-pad")
    tap(gm, [2, 3])
    expect(pad.locator("[data-roll-done]")).to_be_disabled()
    tap(gm, [2])
    expect(pad.locator("[data-roll-done]")).to_be_enabled()
    # a typed face no d6 shows is refused as it is typed, beside the field, and not counted (#70): Done stays grey
    # and a tap on the pad takes its place; nothing is sent (the server's own refusal: tests/app/test_table_dice.py)
    seq = state(server, game)["seq"]
    pad.locator("[data-roll-faces]").fill("7 1 1")
    expect(pad.locator("[data-roll-refused]")).to_have_text("A d6 shows 1 to 6: 7 is not counted")
    expect(pad.locator("[data-roll-faces]")).to_have_attribute("aria-invalid", "true")
    expect(pad.locator("[data-roll-done]")).to_be_disabled()
    expect(pad.locator(".roll-ask")).to_contain_text("Die 1 of 3: the d6")
    tap(gm, [2])
    expect(pad.locator("[data-roll-faces]")).to_have_value("2")
    expect(pad.locator("[data-roll-refused]")).to_be_hidden()
    assert state(server, game)["seq"] == seq
    pad.locator("[data-roll-faces]").fill("2 3 2")
    pad.locator("[data-roll-done]").click()

    # Mira's defense: her phone's pad
    mine = phone.locator("#roll-prompt.asking")
    expect(mine).to_be_visible()
    expect(mine).to_contain_text("Ann: roll")
    expect(screen.locator("#roll-prompt")).to_contain_text("Ann rolls")
    shot(phone, "table-dice-phone-pad")
    shot(screen, "table-dice-screen-rolling")
    # typed on the phone: the 7 is refused at once, said beside the field; the next die is not asked (#70)
    mine.locator("[data-roll-faces]").press_sequentially("6 7")
    expect(mine.locator("[data-roll-refused]")).to_have_text("A d6 shows 1 to 6: 7 is not counted")
    expect(mine.locator(".roll-ask")).to_contain_text("Die 2 of 3: the d6")
    expect(mine.locator("[data-roll-done]")).to_be_disabled()
    shot(phone, "table-dice-phone-refused")
    for face in (6, 6):
        mine.locator(".roll-faces button", has_text=re.compile(rf"^{face}$")).first.tap()
    expect(mine.locator("[data-roll-faces]")).to_have_value("6 6 6")
    expect(mine.locator("[data-roll-refused]")).to_be_hidden()
    mine.locator("[data-roll-done]").tap()

    # the damage: the GM's again; the GM lets the app roll it
    expect(gm.locator("#roll-prompt.asking")).to_contain_text("damage")
    gm.locator("#roll-prompt [data-roll-app]").click()
    expect(gm.locator("#roll-prompt")).to_be_hidden()
    expect(phone.locator("#roll-prompt")).to_be_hidden()
    expect(screen.locator("#roll-prompt")).to_be_hidden()
    expect(gm.locator("#log")).to_contain_text(re.compile(r"Broadsword: 7 vs \d+"))
    s = state(server, game)
    assert s["pending_roll"] is None and s["pending_defense"] is None
    shot(phone, "table-dice-phone-after")


@pytest.mark.console_errors(*OFFLINE, why="a phone loses the Wi-Fi mid-entry (set_offline)")
def test_a_savage_worlds_attack_from_a_phone_with_an_ace_and_the_link_dropped_mid_entry(seeded_dice, server, new_page,
                                                                                         shot):
    game = new_game(server, "savage_worlds", {"width": 12, "height": 8}, name="Table dice SW")
    mira = join(server, game, "Mira")
    hero = add_token(server, game, "Hero", 3, 3, owner=mira["player_id"], kind="pc")
    goblin = add_token(server, game, "Goblin", 4, 3)
    phone = open_phone(new_page, server, game, mira)
    screen = open_screen(new_page, game)
    command(server, game, {"type": "start_combat", "token_ids": [hero, goblin]})
    turn_to(server, game, hero)
    command(server, game, {"type": "set_dice", "mode": "table"})

    # Mira attacks from her phone (as its attack card sends it): her phone asks for the Fighting die
    phone.evaluate("""(ids) => window.tacmap.command({type: "attack", attacker: ids[0], target: ids[1],
                                                      weapon: "Long sword"})""", [hero, goblin])
    pad = phone.locator("#roll-prompt.asking")
    expect(pad).to_contain_text("Hero: roll")
    expect(pad).to_contain_text("or more succeeds")
    expect(screen.locator("#roll-prompt")).to_contain_text("Hero rolls")
    sides = state(server, game)["pending_roll"]  # the GM's view: the dice asked
    assert sides["dice"].endswith("+d6!")  # the trait die and the Wild Die: one roll, one ask
    top = int(sides["dice"].split("+")[0].lstrip("d").rstrip("!"))
    tap(phone, [top])
    expect(pad.locator(".roll-ask")).to_contain_text(f"Ace! Roll the d{top} again")
    shot(phone, "table-dice-phone-ace")
    expect(pad.locator("[data-roll-done]")).to_be_disabled()

    # the Wi-Fi drops mid-entry: the pad and the faces tapped stay; once back, the chain is finished and sent
    phone.context.set_offline(True)
    tap(phone, [2])
    phone.context.set_offline(False)
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(pad.locator("[data-roll-faces]")).to_have_value(f"{top} 2")
    expect(pad.locator("[data-roll-done]")).to_be_disabled()

    # the Wild Die next, on the same pad: the same roll
    expect(pad.locator(".roll-ask")).to_contain_text("Die 2 of 2: the d6")
    tap(phone, [1])
    pad.locator("[data-roll-done]").tap()
    # the attack hit (the trait die showed more than a Goblin's Parry): the damage (and a raise's bonus die) are
    # Mira's to roll; the app rolls them for her
    expect(phone.locator("#roll-prompt.asking")).to_contain_text("damage")
    for _ in range(4):
        if state(server, game)["pending_roll"] is None:
            break
        asked = state(server, game)["pending_roll"]["id"]
        phone.locator(f"#roll-prompt[data-roll='{asked}'] [data-roll-app]").tap()
        for _ in range(50):
            now = state(server, game)["pending_roll"]
            if now is None or now["id"] != asked:
                break
            phone.wait_for_timeout(100)
    expect(phone.locator("#roll-prompt")).to_be_hidden()
    expect(screen.locator("#roll-prompt")).to_be_hidden()
    s = state(server, game)
    assert s["pending_roll"] is None
    assert any(re.match(r"Hero (hits|misses) Goblin", e["text"]) for e in s["log"]), s["log"][-3:]


def test_a_tesseris_pad_says_its_own_words_for_a_die_that_rolls_again_and_a_d100_pad_says_tens_then_units(
        seeded_dice, server, new_page):
    """#70: Tesseris' dT pad said Savage Worlds' "Ace!"; the d100 pad never said which row is which die."""
    game = new_game(server, "tesseris_ads", {"width": 12, "height": 8}, name="Table dice dT")
    mira = join(server, game, "Mira")
    hero = add_token(server, game, "Hero", 3, 3, owner=mira["player_id"], kind="pc")
    brute = add_token(server, game, "Brute", 4, 3)
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": [hero, brute]})
    turn_to(server, game, hero)
    command(server, game, {"type": "set_dice", "mode": "table", "foes": "app"})
    phone.evaluate("""(ids) => window.tacmap.command({type: "attack", attacker: ids[0], target: ids[1],
                                                      weapon: "knife"})""", [hero, brute])
    pad = phone.locator("#roll-prompt.asking")
    expect(pad).to_contain_text("dT")
    pad.locator(".roll-faces button", has_text=re.compile(r"^9$")).first.tap()
    expect(pad.locator(".roll-ask")).to_have_text("9 and 10 roll again: roll one more dT")
    expect(pad).not_to_contain_text("Ace")

    zones = {"zones": [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]},
                       {"id": "bay", "name": "Cargo Bay", "adjacent": ["pad"]}]}
    game = new_game(server, "atomic_tomorrow", zones, name="Table dice d100")
    mira = join(server, game, "Mira")
    ids = []
    for body in ({"name": "Kai", "zone": "pad", "owner": mira["player_id"], "kind": "pc"}, {"name": "Ogre", "zone": "bay"}):
        status, made = server.api("POST", f"/api/games/{game['id']}/tokens", body, game["gm_token"])
        assert status == 201, made
        ids.append(made["id"])
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "set_dice", "mode": "table", "foes": "app"})
    command(server, game, {"type": "start_combat", "token_ids": ids})
    pad = phone.locator("#roll-prompt.asking")
    expect(pad.locator(".roll-ask")).to_have_text("Die 1 of 1: the d100, the tens die first, then the units die")
    expect(pad.get_by_role("group", name="The tens die")).to_be_visible()
    pad.get_by_role("group", name="The tens die").get_by_role("button", name="40").tap()
    pad.get_by_role("group", name="The units die").get_by_role("button", name="2").tap()
    expect(pad.locator("[data-roll-faces]")).to_have_value("42")
