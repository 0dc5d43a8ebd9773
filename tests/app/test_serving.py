"""How `tacmap serve` runs Werkzeug: TCP_NODELAY on every accepted socket (webapp/live/serving.py).

Without it a Socket.IO connection's second small frame in a row (a move's update, then its ack)
waits for the client's delayed TCP acknowledgement, about 40 ms on Linux."""

from __future__ import annotations

import socket
import threading

import pytest
import socketio
from werkzeug.serving import WSGIRequestHandler, make_server

from webapp import cli, create_app
from webapp.live.serving import NoDelayHandler


def test_serve_hands_werkzeug_the_no_delay_handler(tmp_path, monkeypatch):
    """Through the whole chain (Flask-SocketIO's run, Flask.run) down to werkzeug's run_simple."""
    import werkzeug.serving

    seen = {}
    monkeypatch.setattr(werkzeug.serving, "run_simple", lambda host, port, app, **options: seen.update(options))
    cli.main(["serve", "--data-dir", str(tmp_path / "d"), "--host", "127.0.0.1", "--port", "8125", "--no-demo"])
    assert seen["request_handler"] is NoDelayHandler
    assert seen["threaded"] is True


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
    server = make_server("127.0.0.1", 0, app, threaded=True, request_handler=handler)
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
