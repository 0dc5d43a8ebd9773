"""The reference for move propagation: a bare Flask-SocketIO app set up as tacmap's server is
(async_mode "gevent", the standard library monkey-patched first, simple-websocket, gevent's WSGI server
with TCP_NODELAY on its sockets) that only rebroadcasts.

A client connects (any auth) and joins the one room; a ``command`` ``{"size": n}`` is broadcast to
the room as ``update`` ``{"seq", "from_seq", "html"}`` with n characters of html, then acknowledged
``{"ok": true, "seq"}``, in the same order as tacmap (emit, then ack). No rules, no store, no
rendering: what is left is the transport's own cost.

Run: ``python3 bench/bare_broadcast.py --port 5050`` (``python -m bench`` starts it itself).
"""

from __future__ import annotations

if __name__ == "__main__":  # as `tacmap serve` does first (webapp/entry.py)
    from gevent import monkey

    monkey.patch_all()

import argparse
import socket
import threading

from flask import Flask
from flask_socketio import SocketIO, join_room
from gevent.pywsgi import WSGIServer

ROOM = "table"


class NoDelayServer(WSGIServer):
    """TCP_NODELAY on every accepted socket, as ``tacmap serve``'s server does (webapp/live/server/serving.py)."""

    def handle(self, sock, address):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return super().handle(sock, address)


def create_app():
    app = Flask(__name__)
    socketio = SocketIO(app, async_mode="gevent", max_http_buffer_size=1024 * 1024,
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
    NoDelayServer((args.host, args.port), app, log=None).serve_forever()


if __name__ == "__main__":
    main()
