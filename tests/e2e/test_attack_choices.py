"""The rules' choices on the attack card, played from the users' screens (#23): a player's phone
lists the options the rules give this attack, a pick changes the odds at once, an option that takes
several targets offers them, the table screen's result card names each target once (never the
attacker), an undo takes the card and the screen's line away, and the GM's surprised tick reaches
the rules and every log. 3d6 here; each system's own choices have their own tests."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_fights import GRID, Table, seeded_dice  # noqa: F401  (a fixture)

# Mira stands between two foes (a sword's reach each), Theo further back
PLACES = {"Mira": (4, 3), "Theo": (1, 6), "Goon": (5, 3), "Brute": (5, 4)}
HIT = re.compile(r"Chance to hit: (\d+\.\d)%")


def hit_chance(page) -> float:
    return float(HIT.search(page.locator("#attack-preview .hit-chance").inner_text()).group(1))


def test_a_phone_picks_the_rules_options_and_strikes_two_foes(seeded_dice, server, new_page, shot):
    table = Table(server, new_page, "gurps_lite", GRID, PLACES)
    phone, gm, screen = table.phones["Mira"], table.gm, table.screen
    assert table.preview(phone, "Mira", "Goon", "Broadsword") is None
    options = phone.locator("#attack-preview fieldset.attack-options")
    expect(options.locator("[data-option=location]")).to_be_visible()
    # the GM's own modifier is not on a player's card; the GM is shown the player's picks, read-only
    expect(options.locator("[data-option=modifier]")).to_have_count(0)
    expect(gm.locator("#attack-preview fieldset.attack-options [data-option=location]")).to_be_disabled()
    torso = hit_chance(phone)

    # a choice: the skull is harder to hit, and the odds say so at once
    options.locator("select[data-option=location]").select_option("skull")
    expect(phone.locator("#attack-preview .attack-options select[data-option=location]")).to_have_value("skull")
    expect(phone.locator("#attack-preview .mods")).to_contain_text("Skull")
    assert hit_chance(phone) < torso
    options = phone.locator("#attack-preview fieldset.attack-options")
    options.locator("select[data-option=location]").select_option("torso")
    expect(phone.locator("#attack-preview .hit-chance")).to_have_text(f"Chance to hit: {torso:.1f}%")

    # a bool that takes two targets: Rapid Strike offers a second target; both are aimed at
    phone.locator("#attack-preview [data-option=rapid_strike]").check()
    second = phone.locator("#attack-preview .more-targets select[data-extra-target]")
    expect(second).to_have_count(1)
    second.select_option(table.ids["Brute"])
    expect(phone.locator("#attack-preview .attack-preview")).to_contain_text("Mira attacks Goon, Brute")
    expect(phone.locator("#layer-aim line.aim-line")).to_have_count(2)
    expect(phone.locator("#attack-preview .mods")).to_contain_text("Rapid Strike")
    shot(phone, "choices-phone-rapid-strike")
    shot(gm, "choices-gm-sees-the-players-picks")

    before_screen = screen.locator("#screen-feed").inner_text()
    table.roll_attack(phone)
    card = screen.locator("#result-card")
    expect(card.locator(".result-who")).to_have_text("Mira → Goon, Brute")
    expect(card.locator(".result-targets li")).to_have_count(2)
    expect(card.locator(".result-targets")).not_to_contain_text("Mira")
    expect(card.locator(".result-verdict")).to_have_text(re.compile(r"^(HIT [12] OF 2|MISS)$"))
    expect(screen.locator("#screen-feed li.attack").first).to_contain_text("Mira")
    shot(screen, "choices-screen-two-targets")

    gm.click("#log button:has-text('Undo')")
    expect(gm.locator("#log li").first).to_contain_text("the GM undid the last action (attack resolved)")
    expect(screen.locator("#result-card .result-body")).to_have_count(0)
    expect(screen.locator("#screen-feed")).to_have_text(before_screen)


def test_the_gms_surprised_tick_reaches_the_rules_and_every_log(seeded_dice, server, new_page, shot):
    table = Table(server, new_page, "gurps_lite", GRID, PLACES)
    fight = table.gm.locator("#combat form[data-command=start_combat]")
    fight.locator(f"input[name=surprised][value='{table.ids['Brute']}']").check()
    shot(table.gm, "choices-gm-surprised-tick")
    table.start_fight()
    for page in (table.gm, *table.phones.values()):
        expect(page.locator("#log")).to_contain_text("Caught by surprise: Brute")
        expect(page.locator("#log")).to_contain_text(re.compile(r"Brute is (totally|partially) surprised"))
