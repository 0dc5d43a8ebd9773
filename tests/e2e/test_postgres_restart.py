"""PostgreSQL restarted in the middle of an evening (#38: a convention's database server, an administrator's
restart): while it is down every sender is told so in words, in its language, and nothing changes; once it is
back the same server process goes on, no restart of tacmap needed, and the log holds every acknowledged move
once. A real `tacmap serve --database` on a throwaway cluster of its own (bench/pgcluster.py), stopped with
``pg_ctl stop -m fast`` (its connections ended, as a restart ends them) and started again.
"""

from __future__ import annotations

import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import psycopg
import pytest
from playwright.sync_api import expect

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.live import Server  # noqa: E402
from bench.pgcluster import Cluster, binaries  # noqa: E402
from webapp.storage.sql import RETRY_AFTER_S  # noqa: E402
from test_scale_out import Screen, close_all, game_with_an_ogre, log_events, refused  # noqa: E402
from test_table_screens import PHONE, join, player_url  # noqa: E402

from conftest import OFFLINE, refused as refused_console  # noqa: E402

pytestmark = pytest.mark.skipif(binaries() is None, reason="PostgreSQL is not installed (scripts/test installs it)")

AWAY_EN = "The game's database does not answer (it may be restarting): nothing was changed. Try again in a moment."
AWAY_DE = ("Die Datenbank des Spiels antwortet nicht (vielleicht startet sie neu): Es wurde nichts geändert. "
           "Versuche es gleich noch einmal.")


@pytest.fixture
def restartable():
    """A cluster of this test's own (the others' stays up) and a tacmap server on a database of it."""
    cluster = Cluster()
    try:
        url = cluster.database()
        with tempfile.TemporaryDirectory(prefix="tacmap-pgrestart-") as folder, Server.tacmap(folder, url) as server:
            yield cluster, url, server
    finally:
        cluster.stop()


def page_status(url: str, language: str = "en") -> tuple[int, str]:
    request = urllib.request.Request(url, headers={"Accept-Language": language})
    try:
        with urllib.request.urlopen(request, timeout=15) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def test_while_postgresql_restarts_every_sender_is_told_and_the_table_goes_on_after(restartable):
    cluster, url, server = restartable
    screens: list[Screen] = []
    try:
        g, ogre = game_with_an_ogre(server, server, "restart", (1, 1))
        gm = Screen("gm", g["id"], g["gm_token"]).connect(server)
        tv = Screen("screen", g["id"], g["screen_token"]).connect(server)
        screens += [gm, tv]
        first = gm.call({"type": "move_token", "token_id": ogre, "x": 2, "y": 1})
        assert first.get("ok"), first
        assert tv.wait_seq(first["seq"])

        cluster.stop_server()
        # a phone's command over its open connection: refused in words, with a code the page can tell apart
        down = gm.call({"type": "move_token", "token_id": ogre, "x": 3, "y": 1})
        assert down == {"ok": False, "error": AWAY_EN, "code": "unavailable"}, down
        assert "postgresql://" not in str(down)  # the phones are not told where the database is
        # the JSON API, in English (docs/PROTOCOL.md)
        status, body = server.api("POST", f"/api/games/{g['id']}/commands",
                                  {"type": "move_token", "token_id": ogre, "x": 4, "y": 1}, g["gm_token"])
        assert (status, body) == (503, {"error": AWAY_EN})
        # a new game (its first write fails, not the disk): the same words, not the database's own
        status, body = server.api("POST", "/api/games", {"name": "made while away", "system": "plain_grid"})
        assert (status, body) == (503, {"error": AWAY_EN})
        # a page, in the reader's language, on the site's error page
        status, html = page_status(f"{server.url}/games/{g['id']}/play?key={g['screen_token']}", "de")
        assert status == 503 and AWAY_DE.replace("'", "&#39;") in html, (status, html[-600:])
        # a new connection is turned down, saying why
        assert refused(server, {"game": g["id"], "token": g["screen_token"]}) == AWAY_EN
        assert tv.seq == first["seq"]  # nothing was shown that is not stored

        cluster.start_server()
        time.sleep(RETRY_AFTER_S)  # a connection is tried again a second after the last that failed (sql.py)
        again = gm.call({"type": "move_token", "token_id": ogre, "x": 3, "y": 1})
        assert again == {"ok": True, "seq": first["seq"] + 1}, again
        assert tv.wait_seq(again["seq"])
        status, body = server.api("POST", f"/api/games/{g['id']}/commands",
                                  {"type": "move_token", "token_id": ogre, "x": 4, "y": 1}, g["gm_token"])
        assert status == 200 and body["seq"] == again["seq"] + 1, body
        status, html = page_status(f"{server.url}/games/{g['id']}/play?key={g['screen_token']}")
        assert status == 200
        with psycopg.connect(url) as db:  # the game refused while away was not made
            assert db.execute("SELECT name FROM games WHERE name = 'made while away'").fetchall() == []
        moves = [(seq, e["x"], e["y"]) for seq, kind, e in log_events(url, g["id"]) if kind == "token_moved"]
        # the acknowledged ones, once each; none of the refused
        assert moves == [(first["seq"], 2, 1), (again["seq"], 3, 1), (again["seq"] + 1, 4, 1)], moves
        log = server.log()
        assert "Traceback" not in log, log[-3000:]
        assert "the database does not answer" in log  # said in one line each, for whoever runs the server
    finally:
        close_all(screens)


@pytest.mark.console_errors(*OFFLINE, refused_console(400, r"/socket\.io/\?EIO=4&transport=polling[^ ]*"),
                            why="the phone loses the Wi-Fi (set_offline), and the server turns its socket down while "
                                "the database is away")
def test_a_phone_turned_down_while_the_database_is_away_connects_again_by_itself(restartable, new_page, shot):
    """Socket.IO does not try again after the server turned a connection down; the page does (static/js/live.js),
    so a phone that lost its Wi-Fi while PostgreSQL restarted is live again once it is back."""
    cluster, url, server = restartable
    status, g = server.api("POST", "/api/games", {"name": "wifi and restart", "system": "plain_grid"})
    assert status == 201, g
    mira = join(server, g, "Mira")
    phone = new_page(**PHONE)
    phone.goto(player_url(server, g, mira))
    conn = phone.locator("#conn")
    expect(conn).to_have_class("conn ok")

    cluster.stop_server()
    phone.context.set_offline(True)
    expect(conn).to_have_class("conn down")
    phone.context.set_offline(False)  # back on the Wi-Fi: the server turns the connection down, saying why
    expect(conn).to_have_attribute("title", AWAY_EN)
    expect(phone.locator("#flash")).to_have_text(AWAY_EN)  # said once, where the player looks
    phone.wait_for_timeout(4000)  # a try or two more, turned down as well
    expect(conn).to_have_attribute("title", AWAY_EN)
    shot(phone, "pg-restart-phone-waiting")

    cluster.start_server()
    expect(conn).to_have_class("conn ok", timeout=15000)  # live again, on its own
    status, token = server.api("POST", f"/api/games/{g['id']}/tokens", {"name": "Ogre", "x": 2, "y": 2}, g["gm_token"])
    assert status == 201, token
    expect(phone.locator(f'#token-{token["id"]}')).to_have_count(1)  # and hears the table again
    shot(phone, "pg-restart-phone-back")
