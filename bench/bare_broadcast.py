"""The reference for move propagation: a bare Flask-SocketIO app set up as tacmap's server is
(async_mode "threading", simple-websocket, the Werkzeug server with TCP_NODELAY on its sockets) that
only rebroadcasts.

A client connects (any auth) and joins the one room; a ``command`` ``{"size": n}`` is broadcast to
the room as ``update`` ``{"seq", "from_seq", "html"}`` with n characters of html, then acknowledged
``{"ok": true, "seq"}``, in the same order as tacmap (emit, then ack). No rules, no store, no
rendering: what is left is the transport's own cost.

Run: ``python3 bench/bare_broadcast.py --port 5050`` (``python -m bench`` starts it itself).
"""

from __future__ import annotations

import argparse
import threading

from flask import Flask
from flask_socketio import SocketIO, join_room
from werkzeug.serving import WSGIRequestHandler

ROOM = "table"


class NoDelayHandler(WSGIRequestHandler):
    """TCP_NODELAY on every accepted socket, as ``tacmap serve`` runs Werkzeug (webapp/live/serving.py)."""

    disable_nagle_algorithm = True


def create_app():
    app = Flask(__name__)
    socketio = SocketIO(app, async_mode="threading", max_http_buffer_size=1024 * 1024,
                        logger=False, engineio_logger=False)
    lock = threading.Lock()
    state = {"seq": 0}
    bodies: dict[int, str] = {}

    @app.get("/")
    def ready():
        return "ok"

    @socketio.on("connect")
    def connect(auth=None):
        join_room(ROOM)

    @socketio.on("command")
    def command(payload=None):
        size = int((payload or {}).get("size", 0))
        with lock:
            state["seq"] += 1
            seq = state["seq"]
            html = bodies.setdefault(size, "x" * size)
            socketio.emit("update", {"seq": seq, "from_seq": seq - 1, "html": html}, to=ROOM)
        return {"ok": True, "seq": seq}

    return app, socketio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=5050)
    args = parser.parse_args()
    app, socketio = create_app()
    socketio.run(app, host=args.host, port=args.port, allow_unsafe_werkzeug=True, use_reloader=False,
                 log_output=False, request_handler=NoDelayHandler)


if __name__ == "__main__":
    main()
