"""A box the user opened or closed stays so through live updates: the "how" of an attack in the
log, opened to read the dice, and the lighting card, closed by a GM who has lit the map, are drawn
afresh by every update and used to snap back. Real Chromium against a real server."""

from __future__ import annotations

from playwright.sync_api import expect

from test_table_screens import add_token, new_game
from tests.helpers import live_command as command


def test_a_box_opened_or_closed_by_the_gm_stays_so_through_live_updates(server, new_page, shot):
    game = new_game(server, "savage_worlds", name="Kept boxes")
    orc = add_token(server, game, "Orc", 2, 2)
    ann = add_token(server, game, "Ann", 3, 2)
    # the second attack comes from Bo, whom nobody attacks: the dice are the game's own, and Ann,
    # hit by the first, may be Shaken, and the Shaken take no actions
    bo = add_token(server, game, "Bo", 5, 2)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()

    # an attack in the log: the GM opens its "how" to read the dice
    command(server, game, {"type": "attack", "attacker": orc, "target": ann, "force": True})
    how = gm.locator("#log li.attack details").first
    expect(how).to_be_attached()
    expect(how).not_to_have_attribute("open", "")
    how.locator("summary").click()
    expect(how).to_have_attribute("open", "")

    # the GM lights the map: the server draws the lighting card open; the GM closes it
    command(server, game, {"type": "add_light", "x": 6.5, "y": 4.5, "range": 3})
    lighting = gm.locator("#lighting-panel details").first
    expect(lighting).to_have_attribute("open", "")
    lighting.locator("summary").click()
    expect(lighting).not_to_have_attribute("open", "")

    # live updates draw both afresh (a move; another light, which redraws the lighting card)
    command(server, game, {"type": "move_token", "token_id": orc, "x": 4, "y": 2})
    expect(gm.locator(f'#token-{orc}[data-x="4"][data-y="2"]')).to_be_attached()
    command(server, game, {"type": "add_light", "x": 9.5, "y": 4.5, "range": 2})
    expect(gm.locator("#lighting-panel .light-row")).to_have_count(2)
    expect(how).to_have_attribute("open", "")
    expect(lighting).not_to_have_attribute("open", "")

    # a box the GM never touched keeps the server's say: a newer attack's "how" comes closed
    command(server, game, {"type": "attack", "attacker": bo, "target": orc, "force": True})
    expect(gm.locator("#log li.attack")).to_have_count(2)
    expect(gm.locator("#log li.attack details").first).not_to_have_attribute("open", "")
    expect(gm.locator("#log li.attack details").nth(1)).to_have_attribute("open", "")

    # and the GM's own click opens the lighting card again, which the next update leaves open
    lighting.locator("summary").click()
    command(server, game, {"type": "add_light", "x": 3.5, "y": 7.5, "range": 2})
    expect(gm.locator("#lighting-panel .light-row")).to_have_count(3)
    expect(lighting).to_have_attribute("open", "")
    shot(gm, "details-kept-gm")
