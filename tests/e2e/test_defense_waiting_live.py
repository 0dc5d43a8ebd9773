"""A defense left waiting, on the screens (issue 58): the GM's foe attacks Mira's token, her phone asks for the
defense; the GM's Next turn is refused on the GM's page, saying whose defense waits and naming "Call the attack
off"; the GM calls it off on the page's defense prompt, the phone's prompt goes away, and Next turn then moves the
turn on. Real Chromium, real server (3d6: gurps_lite)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, seeded_dice, state, turn_to  # noqa: F401  (a fixture)
from tests.helpers import live_command as command


def test_next_turn_is_refused_while_a_phone_is_asked_to_defend_until_the_gm_calls_it_off(
        seeded_dice, server, new_page, shot):
    game = new_game(server, "gurps_lite", {"width": 12, "height": 8}, name="Waiting defense")
    mira = join(server, game, "Mira")
    ann = add_token(server, game, "Ann", 3, 3, owner=mira["player_id"], kind="pc")
    brute = add_token(server, game, "Brute", 4, 3)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": [ann, brute]})
    turn_to(server, game, brute)

    command(server, game, {"type": "attack", "attacker": brute, "target": ann, "weapon": "Broadsword"})
    asked = phone.locator("#defense-prompt.asking")
    expect(asked).to_be_visible()
    expect(asked.locator("button[data-defense]").first).to_be_visible()

    gm.locator("form[data-command=next_turn] button").click()
    refusal = gm.locator("#flash.shown.error")
    expect(refusal).to_be_visible()
    expect(refusal).to_contain_text("Ann has not chosen a defense yet")
    expect(refusal).to_contain_text("Call the attack off")
    shot(gm, "gm-next-turn-refused-defense-waiting")
    assert state(server, game)["combat"]["current"] == brute  # the turn did not move on
    expect(asked).to_be_visible()

    gm.locator("#defense-prompt [data-defense-cancel]").click()
    expect(phone.locator("#defense-prompt")).to_be_hidden()
    expect(gm.locator("#defense-prompt")).to_be_hidden()
    assert state(server, game)["pending_defense"] is None
    expect(gm.locator("#log")).to_contain_text(re.compile("the GM called the attack off"))

    gm.locator("form[data-command=next_turn] button").click()
    expect(gm.locator("#combat")).to_be_visible()
    for _ in range(50):
        if state(server, game)["combat"]["current"] == ann:
            break
        gm.wait_for_timeout(100)
    assert state(server, game)["combat"]["current"] == ann


def test_a_defense_tapped_on_a_phone_is_taken_and_throws_no_error_in_the_page(seeded_dice, server, new_page):
    """Issue #70: the attack card's click handler took the defense prompt (its data-attack: the attack's id) for one
    of its own buttons, and every tap on a defense choice threw a TypeError in attack.js's payloadOf."""
    game = new_game(server, "gurps_lite", {"width": 12, "height": 8}, name="Tapped defense")
    mira = join(server, game, "Mira")
    ann = add_token(server, game, "Ann", 3, 3, owner=mira["player_id"], kind="pc")
    brute = add_token(server, game, "Brute", 4, 3)
    phone = open_phone(new_page, server, game, mira)
    errors = []
    phone.on("pageerror", lambda error: errors.append(str(error)))
    command(server, game, {"type": "start_combat", "token_ids": [ann, brute]})
    turn_to(server, game, brute)
    command(server, game, {"type": "attack", "attacker": brute, "target": ann, "weapon": "Broadsword"})

    choice = phone.locator("#defense-prompt.asking button[data-defense]:enabled").first
    picked = choice.get_attribute("data-defense")
    choice.tap()
    expect(phone.locator("#defense-prompt")).to_be_hidden()
    expect(phone.locator("#log li.attack").first).to_contain_text(re.compile(f"Brute attacks Ann: .*{picked}", re.I))
    assert state(server, game)["pending_defense"] is None
    assert errors == []
