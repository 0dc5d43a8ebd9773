"""How ``tacmap serve`` serves: Werkzeug's request handling on a server whose threads are bounded.

Werkzeug's own threaded server (``run_simple``, what ``socketio.run`` starts) is a development server: it
says so in red at every start, and it starts one thread per accepted connection, so 200 connections that
open and say nothing pin 200 threads, and a thousand slow ones reach the process's file limit. The
:class:`TableServer` here keeps Werkzeug's request handler (so websockets, simple-websocket's
``werkzeug.socket`` and ``webapp/live/wire.py`` work as before), and:

- a connection gets a thread only once it has something to say: accepted connections wait in one
  selector thread (the waiting room) until they are readable, and one that says nothing within
  ``IDLE_TIMEOUT`` is closed; at most ``MAX_WAITING`` wait (the oldest is closed first);
- at most ``THREADS`` requests are handled at once, by a pool of daemon threads started as needed; a
  websocket or a long-poll holds its thread as long as it is open, as before;
- a request's line and headers must arrive within ``REQUEST_TIMEOUT`` (a slow sender is cut off), then
  the socket is blocking again with no timeout, as the app, simple-websocket and the direct writes expect;
  an idle keep-alive connection is closed after ``REQUEST_TIMEOUT`` too;
- ``TCP_NODELAY`` on every connection: Werkzeug leaves Nagle's algorithm on, and a Socket.IO connection
  writes small frames in a row (a move's ``update`` to the sender, then its ack); with Nagle the second
  waits until the client acknowledges the first, which Linux delays by up to ~40 ms.

Everything here is the standard library and Werkzeug's public classes, the same on Linux, macOS and
Windows (``selectors`` picks the platform's own; Windows' select takes up to 512 sockets, hence the cap).
"""

from __future__ import annotations

import collections
import logging
import queue
import selectors
import socket
import threading
import time

from werkzeug.serving import BaseWSGIServer, WSGIRequestHandler

log = logging.getLogger(__name__)

THREADS = 96  # requests handled at once: a table's screens (a websocket each), their page loads and polls
MAX_WAITING = 500  # connections waiting for their first bytes
IDLE_TIMEOUT = 20.0  # seconds a new connection may stay silent
REQUEST_TIMEOUT = 10.0  # seconds for a request's line and headers, and for a keep-alive's next request


class NoDelayHandler(WSGIRequestHandler):
    """Werkzeug's handler with ``TCP_NODELAY`` on the connection (socketserver's own switch), a deadline for
    each request's line and headers, and request lines logged only when the server says so."""

    disable_nagle_algorithm = True
    timeout = REQUEST_TIMEOUT  # StreamRequestHandler.setup sets it on the socket: reading the first request

    def handle_one_request(self):
        if self.timeout is not None:
            self.connection.settimeout(self.timeout)  # the next request (keep-alive) must come in time too
        return super().handle_one_request()

    def parse_request(self) -> bool:
        ok = super().parse_request()
        self.connection.settimeout(None)  # headers in: the app, a long-poll and a websocket block as they need
        return ok

    def log_request(self, code="-", size="-") -> None:
        if getattr(self.server, "log_requests", True):
            super().log_request(code, size)


class TableServer(BaseWSGIServer):
    """A Werkzeug WSGI server with a waiting room for silent connections and a bounded pool of threads."""

    multithread = True
    daemon_threads = True

    def __init__(self, host: str, port: int, app, *, threads: int = THREADS, max_waiting: int = MAX_WAITING,
                 idle_timeout: float = IDLE_TIMEOUT, handler=NoDelayHandler, log_requests: bool = False) -> None:
        super().__init__(host, port, app, handler=handler)
        self.log_requests = log_requests
        self.threads = threads
        self.max_waiting = max_waiting
        self.idle_timeout = idle_timeout
        self._work: queue.SimpleQueue = queue.SimpleQueue()
        self._pool_lock = threading.Lock()
        self._workers = 0
        self._idle = 0  # workers waiting for work
        self._queued = 0  # work not yet taken
        self._selector = selectors.DefaultSelector()
        self._waiting: collections.OrderedDict = collections.OrderedDict()  # socket -> (address, deadline)
        self._waiting_lock = threading.Lock()
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._selector.register(self._wake_r, selectors.EVENT_READ)
        self._room = threading.Thread(target=self._waiting_room, name="tacmap-waiting-room", daemon=True)
        self._room.start()

    # ---- the acceptor (socketserver's serve_forever) ---------------------------------------------
    def process_request(self, request, client_address) -> None:
        """An accepted connection waits, with no thread of its own, until it says something."""
        request.setblocking(False)
        with self._waiting_lock:
            while len(self._waiting) >= self.max_waiting:  # full: the longest silent one goes
                oldest, _ = self._waiting.popitem(last=False)
                self._forget(oldest)
            self._waiting[request] = (client_address, time.monotonic() + self.idle_timeout)
            self._selector.register(request, selectors.EVENT_READ)
        self._wake_w.send(b"\0")

    def _forget(self, sock) -> None:
        try:
            self._selector.unregister(sock)
        except (KeyError, ValueError):
            pass
        self.shutdown_request(sock)

    # ---- the waiting room ------------------------------------------------------------------------
    def _waiting_room(self) -> None:
        while True:
            try:
                events = self._selector.select(timeout=1.0)
            except (OSError, ValueError):  # a socket closed under us: look again
                time.sleep(0.01)
                continue
            now = time.monotonic()
            with self._waiting_lock:
                for key, _mask in events:
                    sock = key.fileobj
                    if sock is self._wake_r:
                        try:
                            while self._wake_r.recv(4096):
                                pass
                        except BlockingIOError:
                            pass
                        continue
                    address, _deadline = self._waiting.pop(sock, (None, 0))
                    self._selector.unregister(sock)
                    if address is not None:
                        sock.setblocking(True)
                        self._submit(sock, address)
                for sock, (_address, deadline) in list(self._waiting.items()):
                    if deadline > now:
                        break  # in the order they came: the rest are younger
                    del self._waiting[sock]
                    self._forget(sock)

    # ---- the pool ---------------------------------------------------------------------------------
    def _submit(self, sock, address) -> None:
        with self._pool_lock:
            self._queued += 1
            self._work.put((sock, address))
            if self._queued > self._idle and self._workers < self.threads:
                self._workers += 1
                threading.Thread(target=self._worker, name=f"tacmap-request-{self._workers}", daemon=True).start()

    def _worker(self) -> None:
        while True:
            with self._pool_lock:
                self._idle += 1
            sock, address = self._work.get()
            with self._pool_lock:
                self._idle -= 1
                self._queued -= 1
            try:
                self.finish_request(sock, address)
            except Exception:  # socketserver's way: say it, close, go on
                self.handle_error(sock, address)
            finally:
                self.shutdown_request(sock)

    def server_close(self) -> None:
        super().server_close()
        with self._waiting_lock:
            for sock in list(self._waiting):
                self._forget(sock)
            self._waiting.clear()

    def log_startup(self) -> None:  # tacmap serve prints its own addresses; no development-server banner
        pass
