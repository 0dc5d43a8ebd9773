"""The drag ruler in the reader's language, with the map's unit (issue #58): a token picked up on a hex map counts
hexes, in English and in German, where it said "2 squares" in English on every page. Real Chromium, a real server."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from hexmap import drag_between, hex_centre, hex_game
from rules.grid import Grid


@pytest.mark.parametrize(("locale", "words"), [("en-GB", "2 hexes"), ("de-DE", "2 Hexfelder")])
def test_the_drag_ruler_counts_hexes_in_the_readers_language(server, new_page, locale, words):
    game = hex_game(server, "pointy", width=10, height=8, name="Ruler")
    status, token = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Mira", "x": 2, "y": 2},
                               game["gm_token"])
    assert status == 201, token
    gm = new_page(locale=locale)
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    expect(gm.locator(f"#token-{token['id']}")).to_be_attached()
    grid = Grid("hex", "pointy")
    assert grid.steps((2, 2), (4, 2)) == 2
    drag_between(gm, hex_centre(gm, grid, 2, 2), hex_centre(gm, grid, 4, 2), release=False)
    expect(gm.locator("#reach-ruler")).to_have_text(words)
    gm.mouse.up()
