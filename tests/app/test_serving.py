"""How `tacmap serve` serves (webapp/live/serving.py): TCP_NODELAY on every accepted socket, and threads
bounded however many connections open and say nothing.

Without TCP_NODELAY a Socket.IO connection's second small frame in a row (a move's update, then its ack)
waits for the client's delayed TCP acknowledgement, about 40 ms on Linux."""

from __future__ import annotations

import socket
import threading
import time
import urllib.request

import pytest
import socketio
from werkzeug.serving import WSGIRequestHandler, make_server

from webapp import cli, create_app
from webapp.live.serving import NoDelayHandler, TableServer


def test_serve_runs_the_table_server_not_werkzeugs_development_server(tmp_path, monkeypatch, capsys):
    import werkzeug.serving

    served = []
    monkeypatch.setattr(werkzeug.serving, "run_simple", lambda *a, **kw: served.append("run_simple"))
    monkeypatch.setattr(TableServer, "serve_forever", lambda self, *a, **kw: served.append(self))
    assert cli.main(["serve", "--data-dir", str(tmp_path / "d"), "--host", "127.0.0.1", "--port", "0",
                     "--no-demo"]) == 0
    assert len(served) == 1 and isinstance(served[0], TableServer)
    assert served[0].RequestHandlerClass is NoDelayHandler and served[0].multithread
    out = capsys.readouterr()
    assert "development server" not in out.out + out.err and "tacmap is serving" in out.out


def _nodelay_of_each_request(app, handler) -> tuple[list[tuple[str, int]], str, callable]:
    """The tacmap app served by a real Werkzeug server with ``handler``; each request notes the TCP_NODELAY
    of the socket it came on (the websocket upgrade included: the websocket runs on that socket)."""
    seen: list[tuple[str, int]] = []
    inner = app.wsgi_app

    def recording(environ, start_response):
        sock = environ.get("werkzeug.socket")
        seen.append((environ.get("QUERY_STRING", ""), sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)))
        return inner(environ, start_response)

    app.wsgi_app = recording
    server = (TableServer("127.0.0.1", 0, app) if handler is NoDelayHandler
              else make_server("127.0.0.1", 0, app, threaded=True, request_handler=handler))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        thread.join(5)

    return seen, f"http://127.0.0.1:{server.server_port}", stop


@pytest.mark.parametrize("handler, nodelay", [(NoDelayHandler, True), (WSGIRequestHandler, False)])
def test_a_live_connection_runs_on_a_socket_with_tcp_nodelay(tmp_path, handler, nodelay):
    """With Werkzeug's own handler the same check sees Nagle on: the check can fail."""
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "test"})
    game = app.extensions["tacmap"].store.games()[0]  # the demo game
    seen, url, stop = _nodelay_of_each_request(app, handler)
    client = socketio.Client(reconnection=False)
    try:
        client.connect(url, auth={"game": game.id, "token": game.gm_key}, transports=["websocket"], wait_timeout=10)
        assert client.call("command", {"type": "no_such_command"}, timeout=10)["ok"] is False
    finally:
        client.disconnect()
        stop()
    upgrades = [flag for query, flag in seen if "transport=websocket" in query]
    assert upgrades, seen
    assert all(bool(flag) is nodelay for flag in upgrades)


def _tacmap(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "test"})


def _serve(server):
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()

    def stop():
        server.shutdown()
        server.server_close()
        thread.join(5)

    return f"http://127.0.0.1:{server.server_port}", stop


@pytest.mark.parametrize("bounded", [True, False])
def test_two_hundred_half_open_connections_leave_a_page_answering_within_2_s(tmp_path, bounded):
    """Connections that open and never speak (a broken phone, a port scan, an attacker on the Wi-Fi) wait
    without a thread; a page still answers at once. Werkzeug's own threaded server (bounded=False) starts a
    thread for each of them: the same check fails there."""
    app = _tacmap(tmp_path)
    server = TableServer("127.0.0.1", 0, app) if bounded else make_server(
        "127.0.0.1", 0, app, threaded=True, request_handler=NoDelayHandler)
    url, stop = _serve(server)
    def handlers() -> int:  # Werkzeug's threads for connections (by their target's name: other tests' threads
        # ending meanwhile in the same process must not count); the bounded server's, every thread it starts
        if bounded:
            return threading.active_count()
        return sum("process_request_thread" in t.name for t in threading.enumerate())

    before = handlers()
    silent = []
    try:
        for _ in range(200):
            silent.append(socket.create_connection(("127.0.0.1", server.server_port), timeout=5))
        deadline = time.monotonic() + 10  # until every one is accepted (a loaded machine is slow to)
        while time.monotonic() < deadline and (len(server._waiting) < 200 if bounded else handlers() - before < 200):
            time.sleep(0.05)
        threads = handlers() - before
        t0 = time.monotonic()
        with urllib.request.urlopen(url + "/help/", timeout=10) as r:
            assert r.status == 200
        took = time.monotonic() - t0
        if bounded:
            assert threads < 150, threads
            assert took < 2.0, took
        else:
            assert threads >= 200  # one per silent connection
    finally:
        for sock in silent:
            sock.close()
        stop()


def test_a_silent_connection_and_a_slow_request_are_closed_after_their_timeouts(tmp_path):
    class QuickHandler(NoDelayHandler):
        timeout = 0.5

    app = _tacmap(tmp_path)
    server = TableServer("127.0.0.1", 0, app, idle_timeout=0.5, head_timeout=0.5, handler=QuickHandler)
    url, stop = _serve(server)
    try:
        silent = socket.create_connection(("127.0.0.1", server.server_port), timeout=5)
        slow = socket.create_connection(("127.0.0.1", server.server_port), timeout=5)
        slow.sendall(b"GET /help/ HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # and never the end of the headers
        for sock in (silent, slow):
            t0 = time.monotonic()
            while sock.recv(4096):  # until the server closes it (an error answer to the slow one is fine)
                pass
            assert time.monotonic() - t0 < 4
        with urllib.request.urlopen(url + "/help/", timeout=10) as r:  # and goes on serving
            assert r.status == 200
    finally:
        stop()


def test_at_most_threads_requests_run_at_once_and_the_rest_wait_their_turn(tmp_path):
    app = _tacmap(tmp_path)
    gate, running, peak = threading.Event(), [0], [0]
    lock = threading.Lock()
    inner = app.wsgi_app

    def slow(environ, start_response):
        if environ["PATH_INFO"] == "/slow":
            with lock:
                running[0] += 1
                peak[0] = max(peak[0], running[0])
            gate.wait(10)
            with lock:
                running[0] -= 1
            start_response("200 OK", [("Content-Type", "text/plain")])
            return [b"ok"]
        return inner(environ, start_response)

    app.wsgi_app = slow
    server = TableServer("127.0.0.1", 0, app, threads=4)
    url, stop = _serve(server)
    answers = []

    def get():
        with urllib.request.urlopen(url + "/slow", timeout=20) as r:
            answers.append(r.read())

    clients = [threading.Thread(target=get) for _ in range(10)]
    try:
        for c in clients:
            c.start()
        time.sleep(1.0)
        assert peak[0] == 4
        gate.set()
        for c in clients:
            c.join(20)
        assert answers == [b"ok"] * 10 and peak[0] == 4
    finally:
        gate.set()
        stop()


def test_the_data_folder_is_beside_tacmap_or_in_the_users_application_data_when_that_is_read_only(
        tmp_path, monkeypatch):
    from webapp import default_data_dir

    monkeypatch.delenv("TACMAP_DATA_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    assert default_data_dir(tmp_path) == tmp_path / "tacmap-data"
    read_only = lambda path, mode: False  # noqa: E731 (root may write anywhere: the check is handed in)
    for platform, expected in (("linux", tmp_path / "home" / ".local" / "share" / "tacmap"),
                               ("darwin", tmp_path / "home" / "Library" / "Application Support" / "tacmap"),
                               ("win32", tmp_path / "Roaming" / "tacmap")):
        monkeypatch.setattr("sys.platform", platform)
        monkeypatch.setenv("APPDATA", str(tmp_path / "Roaming"))
        assert default_data_dir(tmp_path, writable=read_only) == expected
    monkeypatch.setenv("TACMAP_DATA_DIR", str(tmp_path / "chosen"))
    assert default_data_dir(tmp_path, writable=read_only) == tmp_path / "chosen"
