"""Issue #25, the network side, each through the channel an attacker uses, against a real server (the
app served on a port by a threaded Werkzeug server in this process, Socket.IO in threading mode;
tests/app/test_gevent_serving.py tries `tacmap serve`'s own gevent server): a forwarding proxy in front of it, forged X-Forwarded-For headers, a
crafted Host header (DNS rebinding), parallel guesses from threads (docs/PROTOCOL.md "Security",
"Network, keys and floods")."""

from __future__ import annotations

import http.client
import http.server
import json
import threading
import time

import pytest
import socketio

from webapp import create_app
from webapp.game.tableside import keys
from werkzeug.serving import make_server


class Real:
    """tacmap on a threaded server in this process (its hub at hand), on a free port of 127.0.0.1."""

    def __init__(self, tmp_path, **config) -> None:
        self.app = create_app({"DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test", "ASYNC_MODE": "threading",
                               **config})
        self.hub = self.app.extensions["tacmap"]
        self.server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.port = self.server.server_port
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def request(self, method: str, path: str, body=None, headers: dict | None = None, port: int | None = None):
        conn = http.client.HTTPConnection("127.0.0.1", port or self.port, timeout=30)
        try:
            data = json.dumps(body).encode() if body is not None else None
            conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
            r = conn.getresponse()
            return r.status, dict(r.getheaders()), r.read().decode("utf-8", "replace")
        finally:
            conn.close()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(5)


class ForwardingProxy:
    """A reverse proxy as docs/HOSTING.md's nginx: passes the request on with Host kept and the client's address
    appended to X-Forwarded-For."""

    def __init__(self, upstream: int) -> None:
        class Handler(http.server.BaseHTTPRequestHandler):
            def _forward(self):
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "x-forwarded-for")}
                forwarded = self.headers.get("X-Forwarded-For")
                peer = self.client_address[0]
                headers["X-Forwarded-For"] = f"{forwarded}, {peer}" if forwarded else peer
                conn = http.client.HTTPConnection("127.0.0.1", upstream, timeout=30)
                conn.request(self.command, self.path, body=body or None, headers=headers)
                r = conn.getresponse()
                data = r.read()
                self.send_response(r.status)
                for k, v in r.getheaders():
                    if k.lower() not in ("transfer-encoding", "connection", "content-length"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            do_GET = do_POST = _forward

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_port
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def real(tmp_path):
    servers = []

    def start(**config) -> Real:
        servers.append(Real(tmp_path / str(len(servers)), **config))
        return servers[-1]

    yield start
    for s in servers:
        s.stop()


# --- 2. behind a reverse proxy the lobby hands out no GM key ------------------------------------------------


@pytest.mark.parametrize("trusted", [False, True])
def test_behind_a_forwarding_proxy_the_lobby_lists_no_gm_key(real, trusted):
    server = real(**({"TRUSTED_PROXIES": ["127.0.0.1"]} if trusted else {}))
    demo = server.hub.store.games()[0]
    proxy = ForwardingProxy(server.port)
    try:
        status, _headers, page = server.request("GET", "/", port=proxy.port)
        assert status == 200 and "Join a game" in page
        assert demo.gm_key not in page and f"/games/{demo.id}/gm" not in page
        # a forged X-Forwarded-For naming loopback changes nothing, through the proxy or straight
        forged = {"X-Forwarded-For": "127.0.0.1"}
        assert demo.gm_key not in server.request("GET", "/", headers=forged, port=proxy.port)[2]
        assert demo.gm_key not in server.request("GET", "/", headers=forged)[2]
    finally:
        proxy.stop()
    # the host's own browser, straight to the server on its machine, still sees every game; with a proxy on
    # loopback trusted, no loopback request can be told from the proxy's: none lists them
    assert (demo.gm_key in server.request("GET", "/", headers={"Host": f"localhost:{server.port}"})[2]) is not trusted


def test_forwarded_addresses_count_only_from_a_trusted_proxy(real):
    """Without --trusted-proxy a client cannot pose as others by X-Forwarded-For: its wrong GM passwords
    are counted against its own address, whatever the header says."""
    server = real()
    t = json.loads(server.request("POST", "/api/games", {"name": "Proxy"})[2])
    gm = {"Authorization": f"Bearer {t['gm_token']}"}
    server.request("POST", f"/api/games/{t['id']}/commands", {"type": "set_gm_password", "password": "swordfish"}, gm)
    answers = [server.request("GET", f"/api/games/{t['id']}/state",
                              headers=gm | {"X-Tacmap-Password": "guess", "X-Forwarded-For": f"10.0.0.{i}"})[0]
               for i in range(keys.MAX_WRONG + 2)]
    assert answers.count(401) == keys.MAX_WRONG and answers[-1] == 429


# --- 3. DNS rebinding: only the names it is served under -------------------------------------------------------


def test_a_host_name_it_is_not_served_under_gets_a_400_and_no_key(real):
    server = real(PUBLIC_URL="http://maps.example.org", ALLOWED_HOSTS=["gm-laptop.lan"])
    demo = server.hub.store.games()[0]
    games = len(server.hub.store.games())
    rebound = f"rebind.attacker.example:{server.port}"
    for path in ("/", "/api/games", f"/games/{demo.id}/gm?key={demo.gm_key}", "/socket.io/?EIO=4&transport=polling"):
        status, _headers, body = server.request("GET", path, headers={"Host": rebound, "Origin": f"http://{rebound}"})
        assert status == 400, (path, status)
        assert demo.gm_key not in body
    status, _h, body = server.request("POST", "/api/games", {"name": "x"}, headers={"Host": rebound})
    assert status == 400 and len(server.hub.store.games()) == games  # nothing made
    # the names it is served under answer
    for host in (f"localhost:{server.port}", f"127.0.0.1:{server.port}", "maps.example.org", "gm-laptop.lan:8000",
                 f"192.168.1.20:{server.port}"):
        assert server.request("GET", "/help/", headers={"Host": host})[0] == 200, host


def test_the_live_link_refuses_an_origin_that_merely_equals_the_host(real):
    server = real()
    demo = server.hub.store.games()[0]
    client = socketio.Client(reconnection=False)
    rebound = f"rebind.attacker.example:{server.port}"
    with pytest.raises(socketio.exceptions.ConnectionError):
        client.connect(server.url, auth={"game": demo.id, "token": demo.gm_key}, transports=["polling"],
                       headers={"Host": rebound, "Origin": f"http://{rebound}"}, wait_timeout=5)
    # the Origin check by itself, for a Host the door lets through: only names it is served under
    check = server.app.extensions["socketio"].server.eio.cors_allowed_origins
    assert check(f"http://127.0.0.1:{server.port}", {"HTTP_HOST": f"127.0.0.1:{server.port}"})
    assert not check(f"http://{rebound}", {"HTTP_HOST": rebound})
    ok = socketio.Client(reconnection=False)
    ok.connect(server.url, auth={"game": demo.id, "token": demo.gm_key}, transports=["polling"],
               headers={"Origin": server.url}, wait_timeout=5)
    assert ok.connected
    ok.disconnect()


# --- 4. the GM password's lockout holds against parallel guesses ----------------------------------------------


def test_forty_parallel_guesses_are_counted_before_they_are_checked(real, monkeypatch):
    server = real()
    t = json.loads(server.request("POST", "/api/games", {"name": "Lock"})[2])
    gm = {"Authorization": f"Bearer {t['gm_token']}"}
    server.request("POST", f"/api/games/{t['id']}/commands", {"type": "set_gm_password", "password": "swordfish"}, gm)
    checked = []
    verify = keys.verify

    def counting(stored, password):
        checked.append(password)
        return verify(stored, password)

    monkeypatch.setattr(keys, "verify", counting)
    start = threading.Barrier(40)
    answers = []

    def guess(i):
        start.wait()
        answers.append(server.request("GET", f"/api/games/{t['id']}/state",
                                      headers=gm | {"X-Tacmap-Password": f"guess-{i}"})[0])

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(40)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    assert len(answers) == 40
    assert len(checked) <= keys.MAX_WRONG, len(checked)
    assert answers.count(401) <= keys.MAX_WRONG and answers.count(429) >= 40 - keys.MAX_WRONG, sorted(answers)
    assert server.request("GET", f"/api/games/{t['id']}/state",
                          headers=gm | {"X-Tacmap-Password": "swordfish"})[0] == 429  # the rest of the minute
    assert len(checked) <= keys.MAX_WRONG


# --- 20. Socket.IO's own answers carry the protective headers ------------------------------------------------


#: the protective headers every page answers with (flask-talisman's), which Socket.IO's answers carry too
PAGE_HEADERS = ("X-Content-Type-Options", "X-Frame-Options", "Referrer-Policy", "Permissions-Policy")


def test_socketio_polling_answers_carry_the_pages_security_headers(real):
    """Every answer of the polling transport (issue #62): the handshake, a packet posted, a long poll answered, a
    refused session, the CORS preflight and a refused origin carry the pages' protective headers, and a
    Content-Security-Policy that lets them load nothing (plain text, never a page)."""
    server = real()
    _status, page, _body = server.request("GET", "/")
    status, headers, body = server.request("GET", "/socket.io/?EIO=4&transport=polling")
    assert status == 200 and body.startswith("0{")  # engine.io's handshake
    sid = json.loads(body[1:])["sid"]
    answers = {"handshake": (status, headers)}
    polling = f"/socket.io/?EIO=4&transport=polling&sid={sid}"
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=30)
    try:  # a packet posted (engine.io's text body), then the long poll that answers it
        conn.request("POST", polling, body=b"40", headers={"Content-Type": "text/plain;charset=UTF-8"})
        r = conn.getresponse()
        answers["packet posted"] = (r.status, dict(r.getheaders()))
        r.read()
    finally:
        conn.close()
    status, headers, body = server.request("GET", polling)
    assert "connect with auth" in body  # Socket.IO's answer to a connect without a key, sent on the long poll
    answers["long poll"] = (status, headers)
    answers["unknown session"] = server.request("GET", f"/socket.io/?EIO=4&transport=polling&sid=sid-{sid}")[:2]
    answers["preflight"] = server.request("OPTIONS", "/socket.io/?EIO=4&transport=polling",
                                          headers={"Origin": f"http://127.0.0.1:{server.port}"})[:2]
    answers["foreign origin"] = server.request("GET", "/socket.io/?EIO=4&transport=polling",
                                               headers={"Origin": "http://evil.example"})[:2]
    assert [answers[k][0] for k in answers] == [200, 200, 200, 400, 200, 400], answers
    for answer, (_status, headers) in answers.items():
        assert {n: headers.get(n) for n in PAGE_HEADERS} == {n: page[n] for n in PAGE_HEADERS}, answer
        policy = headers.get("Content-Security-Policy", "")
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy, (answer, headers)
        assert headers.get("Cache-Control") == "no-store", answer


# --- 5. a seat's commands take their turn, over HTTP and every socket ------------------------------------------


def test_a_seats_parallel_commands_are_queued_up_to_its_share_and_the_rest_refused(real):
    from webapp.live.server import throttle

    server = real()
    t = json.loads(server.request("POST", "/api/games", {"name": "Flood"})[2])
    join = {"join_code": t["join_code"], "name": "Flood"}
    seat = json.loads(server.request("POST", f"/api/games/{t['id']}/players", join)[2])
    player = {"Authorization": f"Bearer {seat['player_token']}"}
    start, answers, running, most = threading.Barrier(24), [], [0], [0]
    lock = threading.Lock()
    commit = server.hub.commit

    def slow_commit(game_id, decide, *args, **kwargs):  # hold each command a while: the seat's queue fills up
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        try:
            time.sleep(0.2)
            return commit(game_id, decide, *args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    server.hub.commit = slow_commit

    def roll():
        start.wait()
        answers.append(server.request("POST", f"/api/games/{t['id']}/commands", {"type": "roll", "expr": "d6"},
                                      player)[0])

    threads = [threading.Thread(target=roll) for _ in range(24)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(60)
    done = answers.count(200)
    assert most[0] <= throttle.SEAT_IN_FLIGHT  # never more of the seat's in the game's queue at once
    assert throttle.SEAT_IN_FLIGHT < done <= throttle.SEAT_IN_FLIGHT + throttle.SEAT_WAITING  # some waited
    assert answers.count(429) == 24 - done
    rolls = [e for e in server.hub.store.events(t["id"]) if e.type == "dice_rolled"]
    assert len(rolls) == done  # what was refused was not done


@pytest.mark.long
def test_a_seat_past_its_burst_is_refused_over_http_and_its_sockets_alike(real):
    from webapp.live.server import throttle

    server = real()
    t = json.loads(server.request("POST", "/api/games", {"name": "Burst"})[2])
    seat = json.loads(server.request("POST", f"/api/games/{t['id']}/players",
                                     {"join_code": t["join_code"], "name": "Burst"})[2])
    player = {"Authorization": f"Bearer {seat['player_token']}"}
    http_done = 0
    started = time.monotonic()
    while server.request("POST", f"/api/games/{t['id']}/commands", {"type": "roll", "expr": "d6"}, player)[0] == 200:
        http_done += 1  # one after another, each answered: only the rate stops them
    http_took = time.monotonic() - started
    sio = socketio.Client(reconnection=False)
    started = time.monotonic()
    sio.connect(server.url, auth={"game": t["id"], "token": seat["player_token"]}, transports=["websocket"],
                wait_timeout=10)  # a loaded machine may take more than the default second to connect
    socket_done = 0
    try:
        while (ack := sio.call("command", {"type": "roll", "expr": "d6"}, timeout=10)).get("ok"):
            socket_done += 1
    finally:
        socket_took = time.monotonic() - started
        sio.disconnect()
    # the burst, and what the rate refilled meanwhile (a loaded machine answers slower, so refills more)
    assert throttle.SEAT_BURST <= http_done <= throttle.SEAT_BURST + 1 + throttle.SEAT_RATE * http_took
    assert ack == {"ok": False, "error": throttle.BUSY, "code": "busy"}  # the same seat on a socket: its burst
    assert socket_done <= 1 + throttle.SEAT_RATE * socket_took < throttle.SEAT_BURST  # is spent, only refills left


# --- 13, 18. new games and join codes, per client address ------------------------------------------------------


@pytest.mark.app_config(OPEN_LOBBY=True)  # other devices may make games (tacmap serve --open-lobby), a few an hour
def test_games_from_one_address_are_limited_and_the_lobby_lists_none_of_the_others(app):
    from webapp.live.server import throttle

    lan = app.test_client()
    lan.environ_base["REMOTE_ADDR"] = "192.168.1.77"
    made = [lan.post("/api/games", json={"name": f"Spam {i}"}).status_code for i in range(throttle.NEW_GAMES[0] + 3)]
    assert made == [201] * throttle.NEW_GAMES[0] + [429] * 3
    assert lan.post("/games", data={"name": "More"}).status_code == 429  # the lobby's form too
    page = lan.get("/").get_data(as_text=True)
    assert "Spam 0" not in page and "gm?key=" not in page  # not the host: no list of games
    host = app.test_client()  # the host's own browser, on the server's machine: no limit, every game
    assert host.post("/api/games", json={"name": "Mine"}).status_code == 201
    assert "Spam 0" in host.get("/").get_data(as_text=True)


def test_join_codes_cannot_be_guessed_in_parallel(app, hub, demo):
    from webapp.live.server import throttle

    limit = throttle.JOIN_GUESSES[0]
    start, answers = threading.Barrier(30), []

    def guess(i):
        c = app.test_client()
        c.environ_base["REMOTE_ADDR"] = "192.168.1.66"
        start.wait()
        answers.append(c.post("/join", data={"code": f"ZZZZ{i:02d}", "name": f"G{i}"}).status_code)

    threads = [threading.Thread(target=guess, args=(i,)) for i in range(30)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert sorted(answers) == [404] * limit + [429] * (30 - limit)
    guesser = app.test_client()
    guesser.environ_base["REMOTE_ADDR"] = "192.168.1.66"
    assert guesser.post("/join", data={"code": demo.join_code, "name": "Lucky"}).status_code == 429  # even right
    r = guesser.post(f"/api/games/{demo.id}/players", json={"join_code": demo.join_code, "name": "Lucky"})
    assert r.status_code == 429
    other = app.test_client()  # another address joins as always
    other.environ_base["REMOTE_ADDR"] = "192.168.1.67"
    assert other.post("/join", data={"code": demo.join_code, "name": "Honest"}).status_code == 302
    assert "Lucky" not in [p.name for p in hub.game(demo.id).players.values()]
