"""Issue #57: the connections' files counted truly, the open-file limit raised where the system allows, and the
caps per address and per seat (webapp/live/server/serving.py, webapp/live/server/keyless.py).

The server's file count and shedding are tried in this (unpatched) process on gevent's server with a WSGI app
that holds a "websocket" as simple-websocket does (a read on the connection until it ends); the caps per seat and
per address, and a keyless flood, on a real `tacmap serve` with small caps."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import gevent
import pytest
from gevent import socket as gsocket

from tests.helpers import free_port
from webapp.live.server import serving
from webapp.live.server.serving import TableServer

REPO = Path(__file__).resolve().parents[2]


def holds_websockets(environ, start_response):
    """An upgrade request is held as a websocket is (until its connection ends); ``/keyless`` marks it keyless;
    any other request is answered with the files the server counts."""
    conn = environ.get("tacmap.connection")
    if environ.get("HTTP_UPGRADE"):
        conn.keyless = environ["PATH_INFO"] == "/keyless"
        try:
            conn.sock.sendall(b"HTTP/1.1 101 Switching Protocols\r\n\r\n")  # as simple-websocket answers, itself
            while conn.sock.recv(1):  # the reader: ends when the connection is shut down
                pass
        except OSError:
            pass
        start_response("101 Switching Protocols", [])
        return []
    body = str(environ["tacmap.server"].files).encode()
    start_response("200 OK", [("Content-Length", str(len(body))), ("Connection", "close")])
    return [body]


@pytest.fixture
def ws_server():
    server = TableServer("127.0.0.1", 0, None, head_timeout=30.0, max_connections=7)

    def app(environ, start_response):
        environ["tacmap.server"] = server
        return holds_websockets(environ, start_response)

    server.application = app
    server.start()
    yield server
    server.stop(timeout=1)


def upgrade(server, path: str = "/", source: str = "127.0.0.1"):
    sock = gsocket.socket()
    sock.bind((source, 0))
    sock.connect(("127.0.0.1", server.server_port))
    sock.sendall(f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n".encode())
    got = b""
    while b"\r\n\r\n" not in got:
        got += sock.recv(4096)
    assert got.startswith(b"HTTP/1.1 101"), got
    return sock


def ended(sock, timeout: float = 2.0) -> bool:
    with gevent.Timeout(timeout, False):
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
        return True
    return False


def page(server) -> bytes:
    sock = gsocket.create_connection(("127.0.0.1", server.server_port))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    got = b""
    with gevent.Timeout(5, False):
        while chunk := sock.recv(4096):
            got += chunk
    return got


def test_a_websocket_counts_two_files_and_a_page_past_the_limit_sheds_the_heaviest_addresss_oldest(ws_server):
    sockets = [upgrade(ws_server) for _ in range(3)]
    gevent.sleep(0.1)
    assert ws_server.files == 6  # three websockets: two files each (simple-websocket's duplicate)
    assert page(ws_server).endswith(b"\r\n\r\n7")  # the page's own connection makes seven: within the cap
    other = upgrade(ws_server, source="127.0.0.2")  # eight files: one of 127.0.0.1's three goes, the oldest
    assert ended(sockets[0])
    assert not any(ended(s, 0.2) for s in (*sockets[1:], other))
    gevent.sleep(0.1)
    assert ws_server.files == 6


def test_a_keyless_websocket_is_shed_before_anyone_elses(ws_server):
    sockets = [upgrade(ws_server) for _ in range(2)]
    keyless = upgrade(ws_server, "/keyless", source="127.0.0.3")
    assert page(ws_server).startswith(b"HTTP/1.1 200")  # the seventh file: room enough
    upgrade(ws_server, source="127.0.0.2")
    assert ended(keyless)
    assert not any(ended(s, 0.2) for s in sockets)


def test_a_websocket_with_no_room_for_its_files_gets_503_and_is_closed(ws_server):
    ws_server.max_files = 5
    held = [upgrade(ws_server, source=f"127.0.0.{2 + i}") for i in range(2)]  # two addresses, a device each
    sock = gsocket.create_connection(("127.0.0.1", ws_server.server_port))
    sock.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n")
    got = b""
    with gevent.Timeout(5, False):
        while chunk := sock.recv(4096):
            got += chunk
    assert got.startswith(b"HTTP/1.1 503"), got
    head = got.split(b"\r\n\r\n")[0].lower()  # the server's own answer carries the pages' protection too (#72)
    assert b"x-content-type-options: nosniff" in head and b"content-security-policy: default-src 'none'" in head, got
    assert not any(ended(s, 0.2) for s in held)  # a device or two per address: never shed


def test_the_soft_file_limit_is_raised_to_the_hard_one_at_start():
    script = ("import resource\n"
              "resource.setrlimit(resource.RLIMIT_NOFILE, (256, 1024))\n"
              "from webapp.live.server.serving import raise_file_limit, default_max_connections\n"
              "print(raise_file_limit(), resource.getrlimit(resource.RLIMIT_NOFILE)[0], default_max_connections())\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["1024", "1024", str(1024 - serving.SPARE_FILES)], done.stderr


def test_where_there_is_no_file_limit_to_raise_the_server_still_starts(monkeypatch):
    monkeypatch.setitem(sys.modules, "resource", None)  # Windows: no resource module
    assert serving.raise_file_limit() is None
    assert serving.default_max_connections() == 500
    server = TableServer("127.0.0.1", 0, None)
    assert server.max_files == 500
    server.close()


# --- the caps on a real server -------------------------------------------------------------------------------

SMALL_CAPS = ("from webapp.patching import patch\n"
              "patch()\n"
              "from webapp.live.server import keyless\n"
              "keyless.PER_SEAT, keyless.PER_ADDRESS_SEATED = 2, 3\n"
              "import sys\n"
              "from webapp.entry import main\n"
              "sys.exit(main())\n")


class SmallCaps:
    def __init__(self, tmp_path: Path) -> None:
        self.port = free_port()
        self.log = tmp_path / "server.log"
        self.proc = subprocess.Popen([sys.executable, "-c", SMALL_CAPS, "serve", "--host", "127.0.0.1", "--port",
                                      str(self.port), "--data-dir", str(tmp_path / "data"), "--no-demo"], cwd=REPO,
                                     env=dict(os.environ, PYTHONUNBUFFERED="1"), stdout=self.log.open("w"),
                                     stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while "tacmap is serving" not in self.log.read_text():
            assert self.proc.poll() is None and time.monotonic() < deadline, self.log.read_text()
            time.sleep(0.1)

    def api(self, path: str, body: dict) -> dict:
        req = urllib.request.Request(self.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())


@pytest.fixture(scope="module")
def small_caps(tmp_path_factory):
    server = SmallCaps(tmp_path_factory.mktemp("caps"))
    yield server
    server.proc.kill()
    server.proc.wait(10)


def client(server, game: str, key: str):
    import socketio

    sio = socketio.Client(reconnection=False)
    sio.connect(server.url, auth={"game": game, "token": key}, transports=["websocket"], wait_timeout=10)
    return sio


def wait_until(check, seconds: float = 5.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return False


def test_one_address_past_its_cap_of_connected_pages_is_refused_with_a_word_until_one_goes(small_caps):
    import socketio

    game = small_caps.api("/api/games", {"name": "Address", "system": "plain_grid"})
    seats = [small_caps.api(f"/api/games/{game['id']}/players", {"join_code": game["join_code"], "name": f"P{i}"})
             for i in range(4)]
    held = [client(small_caps, game["id"], seat["player_token"]) for seat in seats[:3]]
    try:
        refused = socketio.Client(reconnection=False)
        said = []
        refused.on("connect_error", lambda data=None: said.append(data))
        with pytest.raises(socketio.exceptions.ConnectionError):
            refused.connect(small_caps.url, auth={"game": game["id"], "token": seats[3]["player_token"]},
                            transports=["websocket"], wait_timeout=10)
        assert said and "Too many pages are open from this network" in str(said[0]), said
        held.pop(0).disconnect()
        time.sleep(0.3)
        held.append(client(small_caps, game["id"], seats[3]["player_token"]))
        assert held[-1].call("command", {"type": "roll", "expr": "1d6"}, timeout=5)["ok"] is True
    finally:
        for sio in held:
            sio.disconnect()


def raw_keyless(port: int):
    import websocket

    ws = websocket.create_connection(f"ws://127.0.0.1:{port}/socket.io/?EIO=4&transport=websocket", timeout=5)
    assert ws.recv().startswith("0{")
    return ws


def closed(ws, seconds: float = 3.0) -> bool:
    import websocket

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        ws.settimeout(max(0.1, deadline - time.monotonic()))
        try:
            if ws.recv() in ("", None):
                return True
        except websocket.WebSocketTimeoutException:
            return False
        except (websocket.WebSocketConnectionClosedException, ConnectionError, OSError):
            return True
    return False


def test_a_keyless_connection_that_sends_too_many_messages_or_bytes_is_closed_at_once(small_caps):
    from webapp.live.server.keyless import KEYLESS_BYTES, KEYLESS_PACKETS

    messages = raw_keyless(small_caps.port)
    for _ in range(KEYLESS_PACKETS + 1):
        messages.send('42["command",{}]')
    assert closed(messages), "a keyless connection sent more messages than it may and is still open"
    pings = raw_keyless(small_caps.port)
    try:
        for _ in range(KEYLESS_BYTES // 7 + 50):  # a 1-byte frame is 7 bytes on the wire (head, mask, "2")
            pings.send("2")
    except (OSError, ConnectionError):
        pass
    assert closed(pings), "a keyless connection sent more bytes than it may and is still open"
    raw_keyless(small_caps.port).close()  # and the address may open another



def refused_with(server, game: str, key: str) -> str:
    """What the server said refusing a connection to ``game`` with ``key`` (it must refuse it)."""
    import socketio

    sio = socketio.Client(reconnection=False)
    said = []
    sio.on("connect_error", lambda data=None: said.append(data))
    with pytest.raises(socketio.exceptions.ConnectionError):
        sio.connect(server.url, auth={"game": game, "token": key}, transports=["websocket"], wait_timeout=10)
    return str(said[0]) if said else ""


@pytest.mark.long
def test_a_seat_past_its_cap_of_connections_is_refused_with_a_word_and_keeps_those_it_holds(small_caps):
    """#72 (round 2's L5: 150 sockets let in on one player's key, each closing the seat's oldest, the player's
    phone among them): the GM's key, a player's and the table screen's each hold at most PER_SEAT live connections
    (2 here; 10 served); the next is refused, saying so, and those held stay and are answered; once one goes, a
    new one gets in."""
    game = small_caps.api("/api/games", {"name": "Seats", "system": "plain_grid"})
    seat = small_caps.api(f"/api/games/{game['id']}/players", {"join_code": game["join_code"], "name": "Flood"})
    for key in (game["gm_token"], seat["player_token"], game["screen_token"]):
        held = [client(small_caps, game["id"], key), client(small_caps, game["id"], key)]
        try:
            for _ in range(3):
                said = refused_with(small_caps, game["id"], key)
                assert "Too many pages are open with this key (at most 2)" in said, said
            time.sleep(0.3)
            for sio in held:
                assert sio.connected
                answer = sio.call("command", {"type": "roll", "expr": "1d6"}, timeout=5)
                assert answer["ok"] is True if key != game["screen_token"] else "error" in answer, answer
            held.pop(0).disconnect()
            time.sleep(0.3)
            held.append(client(small_caps, game["id"], key))
            assert held[-1].call("command", {"type": "roll", "expr": "1d6"}, timeout=5) is not None
        finally:
            for sio in held:
                sio.disconnect()
