"""The replay (#36) when the GM leaves: the table screen does not stay in the past with nobody to bring it
back. A reload of the GM page (back within the grace) keeps the replay on; the GM page closed ends it on the
screen after ``LEFT_GRACE`` seconds, and the screen shows the present and takes live updates again.
Real Chromium against a real ``tacmap serve``."""

from __future__ import annotations

import time

import pytest
from playwright.sync_api import expect

from test_replay_live import TV, command, positions
from test_table_screens import add_token, state
from webapp.live.replaying import LEFT_GRACE


pytestmark = pytest.mark.long  # tens of seconds: run first (tests/conftest.py)

def test_the_table_screen_leaves_the_replay_when_the_gm_who_started_it_is_gone(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Gone GM", "system": "plain_grid"})
    assert status == 201, game
    aria = add_token(server, game, "Aria", 2, 2, kind="pc")
    command(server, game, {"type": "move_token", "token_id": aria, "x": 3, "y": 2})
    then = state(server, game)["seq"]
    command(server, game, {"type": "move_token", "token_id": aria, "x": 6, "y": 2})

    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(**TV)
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    reply = gm.evaluate("(at) => window.tacmap.command({type: 'replay', at: at, on: ['gm', 'screen']})", then)
    assert reply["ok"], reply
    expect(screen.locator("body.replaying")).to_be_attached()
    expect(screen.locator(f"#token-{aria}")).to_have_attribute("data-x", "3")

    # the GM reloads the page: back within the grace, the replay goes on (the page is shown it again)
    gm.reload()
    expect(gm.locator("#conn.ok")).to_be_visible()
    expect(gm.locator("body.replaying")).to_be_attached()
    screen.wait_for_timeout((LEFT_GRACE + 2) * 1000)
    expect(screen.locator("body.replaying")).to_be_attached()
    expect(screen.locator(f"#token-{aria}")).to_have_attribute("data-x", "3")

    # the GM closes the page: after the grace the screen shows the present again, with no one's click
    gm.close()
    closed = time.monotonic()
    expect(screen.locator("body.replaying")).to_have_count(0, timeout=(LEFT_GRACE + 15) * 1000)
    assert time.monotonic() - closed >= LEFT_GRACE - 0.5, "ended before the grace was over"
    expect(screen.locator("#replay-banner")).to_be_hidden()
    expect(screen.locator(f"#token-{aria}")).to_have_attribute("data-x", "6")
    shot(screen, "replay-screen-after-gm-left")
    assert state(server, game)["seq"] == then + 1, "the replay stored nothing"
    # live updates reach the screen again
    command(server, game, {"type": "move_token", "token_id": aria, "x": 7, "y": 2})
    expect(screen.locator(f"#token-{aria}")).to_have_attribute("data-x", "7")
    assert positions(server, game)[aria] == (7, 2)
