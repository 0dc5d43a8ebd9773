"""tacmap on a GM's laptop that is not Linux: a Python with no ``fcntl`` and no ``os.killpg`` (Windows) still
serves a live table over websockets on gevent's server. (gevent's own build for the platform brings the rest:
it has wheels for Linux, macOS and Windows.)"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import SERVER_GONE, LiveServer
from test_live_table import at, open_table

#: what a Windows Python lacks, taken away before tacmap is imported
NOT_WINDOWS = """
import os, sys
del os.killpg
sys.modules["fcntl"] = None  # import fcntl now fails, as on Windows
"""


@pytest.mark.console_errors(*SERVER_GONE, why="the test kills the server under the open pages")
def test_a_python_without_fcntl_or_killpg_serves_a_live_table(tmp_path, new_page):
    server = LiveServer(tmp_path / "data", prelude=NOT_WINDOWS).start()
    try:
        status, game = server.api("POST", "/api/games", {"name": "Laptop", "system": "plain_grid"})
        assert status == 201, game
        status, body = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Goblin", "x": 2, "y": 2},
                                  game["gm_token"])
        assert status == 201, body
        token = body["id"]
        gm, player, screen = open_table(server, game, new_page)
        for page in (gm, player, screen):  # on websockets, not only long-polling
            page.wait_for_function("() => window.tacmap.socket.io.engine.transport.name === 'websocket'")
        for x in (3, 4, 5):
            status, ack = server.api("POST", f"/api/games/{game['id']}/commands",
                                     {"type": "move_token", "token_id": token, "x": x, "y": 2}, game["gm_token"])
            assert status == 200, ack
            for page in (gm, player, screen):
                at(page, token, x, 2).to_be_visible()
        expect(gm.locator("#conn.ok")).to_be_visible()
        log = server.log.read_text()
        assert "Traceback" not in log
    finally:
        server.kill()
