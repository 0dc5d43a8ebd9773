"""Rolls made together (#70): with the table rolling its own dice, a Tesseris fight's initiative asks every roller at
once: Mira's and Ned's phones (at the LAN name: not a secure context, tapped with a finger) each show their own
roll's pad at the same time, the GM's page its two foes on one card, a row and a pad each (the players' rolls
listed as theirs), the table screen names every roller; the faces go in in the reverse order (the GM's foes, Ned,
then Mira) and the round goes on from them. Real Chromium, real server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, open_screen, seeded_dice, state  # noqa: F401  (a fixture)
from tests.helpers import live_command as command


def enter(page, row, face: int) -> None:
    """One face pressed on a row's pad and Done: tapped with a finger on a phone, clicked on the GM's page."""
    touch = page.evaluate("navigator.maxTouchPoints") > 0
    for target in (row.locator(".roll-faces button", has_text=re.compile(rf"^{face}$")).first,
                   row.locator("[data-roll-done]")):
        target.tap() if touch else target.click()


def test_a_rounds_initiative_asks_every_phone_and_the_gms_foes_at_once(seeded_dice, server, new_page, shot):
    game = new_game(server, "tesseris_ads", {"width": 12, "height": 8}, name="Together")
    mira, ned = join(server, game, "Mira"), join(server, game, "Ned")
    ids = {"Ann": add_token(server, game, "Ann", 2, 2, owner=mira["player_id"], kind="pc"),
           "Bo": add_token(server, game, "Bo", 2, 4, owner=ned["player_id"], kind="pc"),
           "Ogre": add_token(server, game, "Ogre", 5, 2), "Grunt": add_token(server, game, "Grunt", 5, 4)}
    for name, token in ids.items():
        command(server, game, {"type": "add_character", "name": name, "token_id": token})
    command(server, game, {"type": "set_dice", "mode": "table"})
    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    phones = {"Ann": open_phone(new_page, server, game, mira), "Bo": open_phone(new_page, server, game, ned)}
    screen = open_screen(new_page, game)

    command(server, game, {"type": "start_combat", "token_ids": list(ids.values())})

    # both phones ask at once, each for its own roll (before #70 Ned's waited for Mira's Done); each sees the
    # other's roll being made
    for name in ("Ann", "Bo"):
        expect(phones[name].locator("#roll-prompt.asking h2").first).to_have_text(f"Roll {name}: initiative")
    for name, other in (("Ann", "Bo"), ("Bo", "Ann")):
        mine = phones[name].locator("#roll-prompt.asking [data-roll-row]:has([data-roll-pad])")
        expect(mine).to_have_count(1)
        expect(mine).to_contain_text(f"{name}: initiative")
        expect(mine.locator(".roll-faces button")).to_have_count(10)  # a d10
        expect(phones[name].locator("#roll-prompt p.waiting", has_text=f"{other}: initiative")).to_be_visible()
    # the GM: the foes on one card, a row and a pad each; the players' rolls listed as theirs
    rows = gm.locator("#roll-prompt.asking [data-roll-row]")
    expect(rows).to_have_count(4)
    for foe in ("Ogre", "Grunt"):
        expect(rows.filter(has_text=f"{foe}: initiative").locator("[data-roll-pad] .roll-faces")).to_be_visible()
    expect(rows.filter(has_text="Ann: initiative").locator("[data-roll-owner]")).to_contain_text("Mira")
    expect(rows.filter(has_text="Bo: initiative").locator("[data-roll-owner]")).to_contain_text("Ned")
    for name in ids:
        expect(screen.locator("#roll-prompt")).to_contain_text(f"{name}: initiative")
    shot(phones["Bo"], "rolls-together-phone")
    shot(gm, "rolls-together-gm")
    shot(screen, "rolls-together-screen")

    # the reverse order: the GM's foes, then Ned's phone; Mira's pad still there all along
    enter(gm, rows.filter(has_text="Grunt: initiative"), 1)
    expect(rows).to_have_count(3)
    enter(gm, rows.filter(has_text="Ogre: initiative"), 2)
    expect(rows).to_have_count(2)
    bo = phones["Bo"].locator("#roll-prompt.asking [data-roll-row]", has_text="Bo: initiative")
    enter(phones["Bo"], bo, 3)
    expect(phones["Bo"].locator("#roll-prompt.asking")).to_have_count(0)
    expect(phones["Bo"].locator("#roll-prompt p.waiting", has_text="Ann: initiative")).to_be_visible()
    assert state(server, game)["combat"] is None  # nothing decided till every roll is in
    ann = phones["Ann"].locator("#roll-prompt.asking [data-roll-row]", has_text="Ann: initiative")
    expect(ann).to_be_visible()
    enter(phones["Ann"], ann, 10)

    # the round goes on from the faces entered: Ann's 10 first, Grunt's 1 last (the same sample sheet for all)
    for page in (gm, *phones.values(), screen):
        expect(page.locator("#roll-prompt")).to_be_hidden()
    s = state(server, game)
    assert s["pending_roll"] is None and s["combat"]["current"] == ids["Ann"], s["combat"]
    assert s["combat"]["order"] == [ids["Ann"], ids["Bo"], ids["Ogre"], ids["Grunt"]], s["combat"]["order"]
