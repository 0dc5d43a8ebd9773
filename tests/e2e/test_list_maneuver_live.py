"""The 3d6 system's maneuver on a phone (#70; gurps_lite: each maneuver allows its own movement, and a move before
one is chosen is refused, "choose a maneuver first").

The list of the board offered every square up to the full Move before a maneuver was chosen, and no way to choose
one: it now offers the maneuver choice, as the map view's turn bar does, and once one is chosen only the squares
that maneuver allows, the keyboard then on those squares. And a maneuver chosen with the keyboard in the phone's
turn bar left the focus on the page's body: it goes to the turn bar's next control. Real Chromium, real server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_accessibility import axe_violations, readable, small_targets
from test_board_list_keyboard import tab_to
from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, state, turn_to
from tests.helpers import live_command as command


def a_3d6_fight(server, new_page, name):
    game = new_game(server, "gurps_lite", {"width": 16, "height": 8}, name=name)
    mira = join(server, game, "Mira")
    aria = add_token(server, game, "Aria", 1, 3, owner=mira["player_id"], kind="pc")
    orc = add_token(server, game, "Orc", 12, 3)
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": [aria, orc]})
    turn_to(server, game, aria)
    return game, phone, aria


def test_the_list_offers_the_maneuver_first_then_only_the_squares_it_allows(server, new_page, shot):
    game, phone, aria = a_3d6_fight(server, new_page, "List maneuver")
    phone.locator("[data-board-view=list]").tap()
    listed = phone.locator("#board-list")
    expect(listed).to_be_visible()
    expect(listed.locator(".board-me")).to_contain_text("Your turn (round 1).")

    # before a maneuver: the choice, no square (a move would be refused)
    choose = listed.locator("[data-board-choose]")
    expect(choose.first).to_be_visible()
    labels = [re.sub(r"\s+", " ", t).strip() for t in choose.all_inner_texts()]
    assert "Attack (1 yard)" in labels and any(t.startswith("Move (") for t in labels), labels
    expect(listed).to_contain_text("First choose what Aria does this turn")
    expect(listed.locator("#board-move-to")).to_have_count(0)
    shot(phone, "board-list-maneuver-first")
    violations = axe_violations(phone)
    assert not violations, readable("phone, the list's maneuver choice", violations)
    assert not small_targets(phone), small_targets(phone)

    # Attack chosen from the keyboard: a step, the squares one yard off, the keyboard on them
    tab_to(phone, "[data-board-choose]")
    while not phone.evaluate("document.activeElement.textContent.trim()").startswith("Attack ("):
        phone.keyboard.press("Tab")
    phone.keyboard.press("Enter")
    expect(phone.locator("#log")).to_contain_text("Aria: Attack")
    where = listed.locator("#board-move-to")
    expect(where).to_be_visible()
    expect(where).to_be_focused()
    options = where.locator("option").all_inner_texts()
    assert options and all(o.endswith("(1 yard)") for o in options), options
    expect(listed.locator("[data-board-choose]")).to_have_count(0)
    # a square it allows is taken
    where.select_option(index=0)
    listed.locator("#board-move-go").tap()
    expect(listed.locator(".board-me")).not_to_contain_text("you, at B4")
    assert next(t for t in state(server, game)["tokens"] if t["id"] == aria)["x"] in (0, 1, 2)


def test_a_maneuver_chosen_with_the_keyboard_in_the_turn_bar_leaves_the_focus_in_the_bar(server, new_page):
    game, phone, aria = a_3d6_fight(server, new_page, "Bar focus")
    bar = phone.locator("#turn-bar")
    expect(bar).to_be_visible()
    tab_to(phone, "#turn-bar form.bar-act button")
    while phone.evaluate("document.activeElement.textContent.trim()") != "Move":
        phone.keyboard.press("Tab")
    phone.keyboard.press("Enter")
    expect(phone.locator("#log")).to_contain_text("Aria: Move")
    expect(bar).to_have_class(re.compile(r"\bfolded\b"))
    phone.wait_for_timeout(300)  # the update and the answer both in
    focused = phone.evaluate("""() => { const a = document.activeElement;
        return {body: a === document.body, inBar: !!a.closest('#turn-bar'), cls: a.className, text: a.textContent.trim()}; }""")
    assert not focused["body"] and focused["inBar"], focused
    expect(phone.locator("#turn-bar .turn-bar-fold")).to_be_focused()
    # Enter on it opens the turn's actions again: the maneuver's move is there
    phone.keyboard.press("Enter")
    expect(bar).not_to_have_class(re.compile(r"\bfolded\b"))
    expect(bar.locator(".turn-bar-actions")).to_contain_text("Move")
