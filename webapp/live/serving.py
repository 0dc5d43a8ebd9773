"""How ``tacmap serve`` runs Werkzeug: the request handler of every accepted connection.

Werkzeug's server leaves Nagle's algorithm on. A Socket.IO connection writes small
frames in a row (a move's ``update`` to the sender, then its ack), and with Nagle the
second waits until the client acknowledges the first, which Linux delays by up to
~40 ms: one command took ~48 ms until its ack for ~10 ms of work. ``TCP_NODELAY`` on
each accepted socket sends every frame at once. The websocket (simple-websocket) runs
over the same accepted socket (``environ["werkzeug.socket"]``), so it gets it too.
"""

from __future__ import annotations

from werkzeug.serving import WSGIRequestHandler


class NoDelayHandler(WSGIRequestHandler):
    """Werkzeug's handler with ``TCP_NODELAY`` set on the connection's socket (socketserver's own switch:
    ``StreamRequestHandler.setup`` sets it when ``disable_nagle_algorithm`` is true)."""

    disable_nagle_algorithm = True
