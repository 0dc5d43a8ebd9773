"""Issue #25, finding 6: the GM key no longer rides in the session cookie (a real server, Chromium).

Flask's signed session cookie could be read by anyone who saw it (signed, not encrypted), and a browser
sends it to every port of the host. The cookie now holds a random session id only, under a name of the
server's own port; the keys stay on the server (webapp/web/sessions.py)."""

from __future__ import annotations

import base64
import re
import zlib

import pytest

from conftest import SERVER_GONE


def readable(value: str) -> str:
    """What a Flask-signed cookie says in clear (its payload, zlib-inflated when it starts with '.')."""
    payload = value.lstrip(".").split(".")[0]
    raw = base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4))
    try:
        raw = zlib.decompress(raw)
    except zlib.error:
        pass
    return raw.decode("utf-8", "replace")


@pytest.mark.console_errors(*SERVER_GONE, why="the test restarts the server under the GM page")
def test_the_gm_cookie_holds_a_session_id_named_for_the_port_not_the_key(server, game, new_page):
    page = new_page()
    page.goto(f"{server.url}/games/{game['id']}/gm?key={game['gm_token']}")
    page.wait_for_selector("#map")
    cookies = page.context.cookies()
    assert [c["name"] for c in cookies] == [f"tacmap_{server.port}"], cookies
    value = cookies[0]["value"]
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", value), value  # 32 random bytes, nothing else
    assert game["gm_token"] not in value and game["gm_token"] not in readable(value)
    assert cookies[0]["httpOnly"] and cookies[0]["sameSite"] == "Lax"
    # the id alone opens the GM page again (the keys are kept on the server, and survive a restart)
    server.kill()
    server.start()
    page.goto(f"{server.url}/games/{game['id']}/gm")
    page.wait_for_selector("#map")
    assert page.context.cookies()[0]["value"] == value
    # and nothing readable of the session is in the data folder's session file either
    raw = (server.data_dir / "sessions.sqlite3").read_bytes()
    assert value.encode() not in raw
