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
- a new connection gets a thread only once its whole request head (line and headers) has arrived: the
  waiting room peeks at what came (``MSG_PEEK``: nothing is taken off the socket) and a connection whose
  head is still partial waits there, thread-less, until it is whole or its ``HEAD_TIMEOUT`` is over (then
  it is closed). A thousand connections sending a byte now and then (slowloris) thus hold no thread;
- at most ``max_connections`` connections are open at once (by default the process's file limit less
  ``SPARE_FILES`` for the database, the logs and the pages' own files; 500 where ``select`` is the
  selector, as on Windows): past it the longest silent one is closed, else the new one is. 1,100
  connections under the usual limit of 1,024 files leave the server able to open its files and answer;
- a request's line and headers must arrive within ``REQUEST_TIMEOUT`` (a slow sender is cut off); then
  its body and its answer must each move within ``READ_TIMEOUT`` (a body sent a byte a minute, an answer
  the client never reads: closed, not held for ever), except a websocket, whose socket is blocking with
  no timeout, as simple-websocket and the direct writes expect (engine.io's pings end a dead one); an idle
  keep-alive connection is closed after ``REQUEST_TIMEOUT`` too;
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
HEAD_TIMEOUT = 10.0  # seconds for a new connection's whole request head, once it said something
READ_TIMEOUT = 30.0  # seconds a request's body or answer may stall (more than a long-poll's 25 s wait)
MAX_HEAD = 64 * 1024  # a request head longer than this goes to the handler, which refuses it
SPARE_FILES = 128  # files kept free below the process's limit: the database, logs, pictures, pages
PEEK_EVERY = 0.25  # seconds between looks at the connections whose request head is not whole yet


def default_max_connections() -> int:
    """The process's open-file limit less ``SPARE_FILES`` (at least 64); 500 with ``select`` (Windows)."""
    if selectors.DefaultSelector is selectors.SelectSelector:
        return 500
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):
        return 500
    if soft == resource.RLIM_INFINITY:
        return 10_000
    return max(64, min(10_000, soft - SPARE_FILES))


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
        websocket = ok and (self.headers.get("Upgrade") or "").lower() == "websocket"
        # headers in: a websocket blocks as simple-websocket and the direct writes need; anything else
        # (a body, a long-poll's answer) must move within READ_TIMEOUT
        self.connection.settimeout(None if websocket else getattr(self.server, "read_timeout", READ_TIMEOUT))
        return ok

    def log_request(self, code="-", size="-") -> None:
        if getattr(self.server, "log_requests", True):
            super().log_request(code, size)


class TableServer(BaseWSGIServer):
    """A Werkzeug WSGI server with a waiting room for silent connections and a bounded pool of threads."""

    multithread = True
    daemon_threads = True

    def __init__(self, host: str, port: int, app, *, threads: int = THREADS, max_waiting: int = MAX_WAITING,
                 idle_timeout: float = IDLE_TIMEOUT, handler=NoDelayHandler, log_requests: bool = False,
                 max_connections: int | None = None, head_timeout: float = HEAD_TIMEOUT,
                 read_timeout: float = READ_TIMEOUT) -> None:
        super().__init__(host, port, app, handler=handler)
        self.log_requests = log_requests
        self.max_connections = max_connections or default_max_connections()
        self.head_timeout = head_timeout
        self.read_timeout = read_timeout
        self._open = 0  # connections accepted and not yet closed
        self._count_lock = threading.Lock()
        self._partial: dict = {}  # socket -> (address, deadline): said something, its head not whole yet
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
        self._next_peek = 0.0
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
            with self._count_lock:
                self._open += 1
            while self._waiting and (len(self._waiting) >= self.max_waiting or self._open > self.max_connections):
                oldest, _ = self._waiting.popitem(last=False)  # full: the longest silent one goes
                self._forget(oldest)
            if self._open > self.max_connections and self._partial:  # else the slowest sender of a head
                oldest = next(iter(self._partial))
                del self._partial[oldest]
                self.shutdown_request(oldest)
            if self._open > self.max_connections:  # every one is being served: the new one goes
                self.shutdown_request(request)
                return
            self._waiting[request] = (client_address, time.monotonic() + self.idle_timeout)
            self._selector.register(request, selectors.EVENT_READ)
        self._wake_w.send(b"\0")

    def _forget(self, sock) -> None:
        try:
            self._selector.unregister(sock)
        except (KeyError, ValueError):
            pass
        self.shutdown_request(sock)

    def shutdown_request(self, request) -> None:
        super().shutdown_request(request)
        with self._count_lock:
            self._open -= 1

    @staticmethod
    def _head_state(sock) -> str:
        """"whole" (the request head is in, or the peer closed, or it is too long: the handler answers),
        "partial" (some of it came), or "none" (nothing readable after all)."""
        try:
            seen = sock.recv(MAX_HEAD, socket.MSG_PEEK)
        except (BlockingIOError, InterruptedError):
            return "none"
        except OSError:
            return "whole"  # reset: the handler finds out and closes it
        if not seen or b"\r\n\r\n" in seen or len(seen) >= MAX_HEAD or not seen[:1].isalpha():
            return "whole"  # closed, a whole head, too long, or not HTTP at all (TLS): the handler answers
        return "partial"
    # ---- the waiting room ------------------------------------------------------------------------
    def _waiting_room(self) -> None:
        while True:
            try:
                events = self._selector.select(timeout=PEEK_EVERY if self._partial else 1.0)
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
                    if address is None:  # let go since select() answered (evicted by a newer connection):
                        continue  # it is unregistered and closed already
                    self._selector.unregister(sock)
                    state = self._head_state(sock)
                    if state == "partial":  # off the selector (its bytes stay unread): looked at again soon
                        self._partial[sock] = (address, now + self.head_timeout)
                    elif state == "none":
                        self._waiting[sock] = (address, _deadline)
                        self._selector.register(sock, selectors.EVENT_READ)
                    else:
                        sock.setblocking(True)
                        self._submit(sock, address)
                for sock, (_address, deadline) in list(self._waiting.items()):
                    if deadline > now:
                        break  # in the order they came: the rest are younger
                    del self._waiting[sock]
                    self._forget(sock)
                if self._partial and now >= self._next_peek:
                    self._next_peek = now + PEEK_EVERY
                    for sock, (address, deadline) in list(self._partial.items()):
                        state = self._head_state(sock)
                        if state == "whole":
                            del self._partial[sock]
                            sock.setblocking(True)
                            self._submit(sock, address)
                        elif deadline <= now:  # its head did not come whole in time
                            del self._partial[sock]
                            self.shutdown_request(sock)

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
            for sock in list(self._partial):
                self.shutdown_request(sock)
            self._partial.clear()

    def log_startup(self) -> None:  # tacmap serve prints its own addresses; no development-server banner
        pass
