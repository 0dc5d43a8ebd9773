"""The replay (#36) with two `tacmap serve --message-queue` processes on one data folder and a real
redis-server: the GM's page on A replays on the table screen, whose page is on B; the screen shows the past,
a reload of the screen (it connects to B again) is shown the replay again, and "Back to the table" sent
through A brings it back to the present. Who replays is kept in Redis, not only in A's memory."""

from __future__ import annotations

from playwright.sync_api import expect

from test_scale_out import cluster, game_with_an_ogre  # noqa: F401  (the fixture)

import pytest

from test_scale_out import REDIS

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (scripts/test installs it)")


def test_a_replay_started_on_one_process_holds_on_a_screen_of_the_other(cluster, new_page, shot):  # noqa: F811
    a, b = cluster.start("A"), cluster.start("B")
    g, ogre = game_with_an_ogre(a, b, "replay across", (3, 3))
    game, gm_key = g["id"], g["gm_token"]
    status, moved = a.api("POST", f"/api/games/{game}/commands", {"type": "move_token", "token_id": ogre, "x": 4, "y": 3},
                          gm_key)
    assert status == 200, moved
    then = moved["seq"]
    status, moved = b.api("POST", f"/api/games/{game}/commands", {"type": "move_token", "token_id": ogre, "x": 8, "y": 3},
                          gm_key)
    assert status == 200, moved

    gm = new_page()  # the GM's page on A
    gm.goto(f"{a.url}/games/{game}/gm?key={gm_key}")
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})  # the table screen on B
    screen.goto(f"{b.url}/games/{game}/screen?key={g['screen_token']}")
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator(f"#token-{ogre}")).to_have_attribute("data-x", "8")

    reply = gm.evaluate("(at) => tacmap.command({type: 'replay', at: at, on: ['gm', 'screen']})", then)
    assert reply["ok"], reply
    expect(screen.locator("body.replaying")).to_be_attached()
    expect(screen.locator(f"#token-{ogre}")).to_have_attribute("data-x", "4")

    # the screen reloads: B, which did not start the replay, shows it the replay again
    screen.reload()
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator("body.replaying")).to_be_attached()
    expect(screen.locator("#replay-banner")).to_contain_text(f"event {then} of")
    expect(screen.locator(f"#token-{ogre}")).to_have_attribute("data-x", "4")
    shot(screen, "replay-scale-out-screen-on-B")

    # back to the table from A: the screen on B shows the present again
    ended = gm.evaluate("tacmap.command({type: 'replay_end'})")
    assert ended["ok"] and "screen" in ended["ended"], ended
    expect(screen.locator("body.replaying")).to_have_count(0)
    expect(screen.locator(f"#token-{ogre}")).to_have_attribute("data-x", "8")
    screen.reload()
    expect(screen.locator("#conn.ok")).to_be_attached()
    screen.wait_for_timeout(1000)
    expect(screen.locator("body.replaying")).to_have_count(0)
