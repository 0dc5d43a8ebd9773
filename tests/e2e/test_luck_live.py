"""Odds in the ask and luck, told, on the screens (#59): with the table rolling, Mira's phone asks for her
defense with its chance; after a short fight whose faces were entered (the foe's attack made, her defense
missed), the recap on the table screen (large, from across the room) and the GM's replay give each fighter's
rolls against their odds. Real Chromium, real server (3d6: gurps_lite)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_table_dice_live import a_duel_on_every_screen, tap
from test_turns_on_phones import seeded_dice, state, turn_to  # noqa: F401
from tests.helpers import live_command as command

ODDS = re.compile(r"\(\d+% to make it\)")


def test_the_ask_says_its_odds_and_the_recap_and_replay_tell_the_luck(seeded_dice, server, new_page, shot):
    game, mira, ann, brute, gm, phone, screen = a_duel_on_every_screen(server, new_page, "Luck")
    command(server, game, {"type": "start_combat", "token_ids": [ann, brute]})
    turn_to(server, game, brute)
    command(server, game, {"type": "set_dice", "mode": "table"})

    command(server, game, {"type": "attack", "attacker": brute, "target": ann, "weapon": "Broadsword"})
    phone.locator("#defense-prompt.asking button[data-defense]").first.click()
    # the foe's attack roll: the GM's pad with its chance; the TV's "who rolls" line says who and what for, never a
    # foe's chance (its sheet: #72)
    expect(gm.locator("#roll-prompt.asking .roll-odds")).to_have_text(ODDS)
    expect(screen.locator("#roll-prompt")).to_contain_text("Brute rolls")
    expect(screen.locator("#roll-prompt .roll-odds")).to_have_count(0)
    asked = state(server, game)["pending_roll"]
    command(server, game, {"type": "enter_dice", "roll_id": asked["id"], "faces": [2, 3, 2]})  # a 7: made

    # Mira's defense, on her phone: what to roll and what counts, with its exact chance
    mine = phone.locator("#roll-prompt.asking")
    expect(mine).to_contain_text("Ann: roll")
    defense = state(server, game)["pending_roll"]
    percent = round(defense["chance"] * 100)
    expect(mine.locator(".roll-odds")).to_have_text(f"({percent}% to make it)")
    shot(phone, "luck-ask-phone-390")
    tap(phone, [6, 6, 6])  # an 18: missed
    mine.locator("[data-roll-done]").click()
    expect(gm.locator("#roll-prompt.asking")).to_contain_text("damage")
    gm.locator("#roll-prompt [data-roll-app]").click()
    expect(gm.locator("#roll-prompt")).to_be_hidden()
    command(server, game, {"type": "end_combat"})

    # the recap on the table screen: each fighter's luck, large enough to read from the sofa
    gm.locator("#toggle-recap").click()
    luck = screen.locator("#recap-screen .recap .luck")
    expect(luck).to_be_visible()
    # each fighter's line: the fight's start (the Tactics contest, the app's seeded dice) and the attack or the
    # defense entered; the sums themselves are checked in tests/app/test_luck.py
    said = r"{name}: \d+ rolls?, (?:[\d.]+ (?:above|below)|just) what the odds promised"
    brute_said, ann_said = re.compile(said.format(name="Brute")), re.compile(said.format(name="Ann"))
    expect(luck).to_contain_text(brute_said)
    expect(luck).to_contain_text(ann_said)
    size = luck.locator("li").first.evaluate("e => parseFloat(getComputedStyle(e).fontSize)")
    assert size >= 32, f"the luck line is {size} px on the table screen"
    luck.scroll_into_view_if_needed()
    shot(screen, "luck-recap-table-screen-1920")
    gm.locator("#toggle-recap").click()
    expect(screen.locator("#recap-screen")).to_be_hidden()

    # the GM's replay of the attack: the banner gives the fight's luck up to that moment, on the GM page and the TV
    gm.locator("#replay-details > summary").click()
    entry = gm.locator("#replay-timeline li", has_text="Brute attacks Ann").last
    expect(entry).to_be_attached()
    gm.check("#replay-on-screen")
    entry.locator("button").click()
    expect(gm.locator("#replay-banner")).to_contain_text("Luck: ")
    expect(gm.locator("#replay-banner")).to_contain_text(brute_said)
    expect(gm.locator("#replay-banner")).to_contain_text(ann_said)
    # the table screen's banner names no foe: the players' characters' luck alone
    expect(screen.locator("#replay-banner")).to_contain_text("Luck: ")
    expect(screen.locator("#replay-banner")).to_contain_text(ann_said)
    expect(screen.locator("#replay-banner")).not_to_contain_text("Brute")
    shot(screen, "luck-replay-table-screen-1920")
    gm.click("#replay-end")
    expect(screen.locator("body.replaying")).to_have_count(0)
