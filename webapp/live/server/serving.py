"""How ``tacmap serve`` serves: gevent's WSGI server (``gevent.pywsgi``) in one process, the standard library
monkey-patched (webapp/entry.py), Flask-SocketIO in ``async_mode="gevent"`` with its websockets through
simple-websocket.

A connection costs a greenlet (a few KB), not a thread: hundreds of screens, idle sockets and slow senders
hold no thread and starve nobody (docs/SERVING.md has the figures). What a stranger could still hold
is bounded here, as the data arrives:

- a request's line must come within ``HEAD_TIMEOUT`` of the connection (or, on a kept-alive connection,
  of the previous answer: an idle keep-alive is closed then), and its headers within ``HEAD_TIMEOUT``
  more; a connection that says nothing, or a byte now and then (slowloris), is closed;
- a request's whole body must arrive within ``BODY_TIMEOUT`` (one deadline for the body, not one per
  read): a body trickled a byte at a time gets a 408 and the connection is closed;
- two ``Content-Length`` headers that differ: 400 (which one would a proxy in front have believed?);
- ``Content-Length`` beside ``Transfer-Encoding``: 400 and the connection closed (RFC 9112, section 6.1), so the
  bytes after a chunked body's last chunk, which a proxy believing the length sent as this request's, are never
  read as a request of their own (CL.TE smuggling, issue 57);
- the connections hold at most ``max_files`` files at once (by default the process's open-file limit, raised
  at start to its hard limit where the system allows (``raise_file_limit``), less ``SPARE_FILES``), counted
  truly: a websocket holds two (simple-websocket reads a duplicate of the socket). Past it a connection is shed
  to make room for the new one (``make_room``): the one that has waited longest for its next request head (a
  silent one, a slow sender, an idle keep-alive), else the oldest keyless websocket, else the oldest websocket
  of the address holding the most (an address with a device or two is never shed); else the new one is closed.
  Shedding shuts the connection down, so both of a websocket's files go at once, whether or not its client
  reads. So a thousand silent sockets or idle websockets neither run the process out of files nor keep a page,
  a join or a reconnect from being answered (issue 57);
- ``TCP_NODELAY`` on every connection: a Socket.IO connection writes small frames in a row (a move's
  update, then its ack), which Nagle's algorithm would hold for the client's delayed acknowledgement.

Websocket messages are cut at the limit by simple-websocket as their frames arrive; Socket.IO connections are
bounded per address and per seat, and keyless ones in time and packets, by webapp/live/server/keyless.py (which marks
each websocket's ``Connection`` keyless or not, and sheds through it). The head and body deadlines rest on
gevent's internals: seams (webapp/seams.py), checked at start; without them tacmap does not start.
"""

from __future__ import annotations

import collections
import errno
import logging
import socket
import sys
import time

from gevent import Timeout
from gevent.pywsgi import WSGIHandler, WSGIServer
from werkzeug.exceptions import RequestTimeout

from ... import seams

log = logging.getLogger(__name__)

HEAD_TIMEOUT = 10.0  # seconds for a request's line (from the connection, or the previous answer), then its headers
BODY_TIMEOUT = 60.0  # seconds for a request's whole body (a 16 MB map upload needs 2.3 Mbit/s; Wi-Fi gives 20+)
SPARE_FILES = 128  # files kept free below the process's limit: the database, logs, pictures, pages
#: the protective headers of the server's own plain-text answers (a 408, a 503), answered before the app (and
#: webapp/web/network.py's door, which gives Socket.IO's answers the same) sees the request (#72)
PLAIN_HEADERS = [("X-Content-Type-Options", "nosniff"), ("X-Frame-Options", "DENY"),
                 ("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'"), ("Cache-Control", "no-store")]
REQUEST_TIMEOUT = (
    "408 Request Timeout", [("Content-Type", "text/plain; charset=utf-8"), ("Connection", "close"), *PLAIN_HEADERS],
    b"the request did not arrive in time")


MAX_FILES = 20_000  # files the connections may hold at most, however many the system allows (10,000 websockets)
FILE_LIMIT_WANTED = 65_536  # the soft open-file limit asked for at start (at most the hard limit)
MACOS_OPEN_MAX = 10_240  # macOS refuses a soft limit above OPEN_MAX even when the hard limit says "unlimited"
SHED_ABOVE = 2  # an address's websockets are shed for room only while it holds more than this many


def raise_file_limit() -> int | None:
    """Raise the process's soft open-file limit towards its hard limit (up to ``FILE_LIMIT_WANTED``) where the
    system allows: the soft limit after, or None where there is no such limit (Windows: no ``resource``)."""
    try:
        import resource
    except ImportError:
        return None
    try:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return None
    top = FILE_LIMIT_WANTED if hard == resource.RLIM_INFINITY else min(hard, FILE_LIMIT_WANTED)
    for wanted in (top, min(top, MACOS_OPEN_MAX)):
        if soft != resource.RLIM_INFINITY and wanted > soft:
            try:
                resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
                return wanted
            except (OSError, ValueError):
                continue
    return soft


def default_max_connections() -> int:
    """The files the connections may hold: the process's open-file limit less ``SPARE_FILES`` (at least 64, at
    most ``MAX_FILES``); 500 where there is no such limit to read (Windows)."""
    try:
        import resource
    except ImportError:
        return 500
    try:
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (OSError, ValueError):
        return 500
    if soft == resource.RLIM_INFINITY:
        return MAX_FILES
    return max(64, min(MAX_FILES, soft - SPARE_FILES))


class Connection:
    """One accepted connection: its socket, its client's address (engine.io's, once a proxy's word is taken:
    webapp/live/server/keyless.py sets it), when it came, the files it holds (a websocket: two), and for a websocket
    whether it is keyless (not yet connected to a game with a key)."""

    __slots__ = ("server", "sock", "address", "opened", "files", "websocket", "keyless", "shed", "accepted")

    def __init__(self, server: "TableServer", sock, address) -> None:
        self.server = server
        self.sock = sock
        self.address = address[0] if isinstance(address, tuple) and address else str(address)
        self.opened = time.monotonic()
        self.files = 1
        self.websocket = False
        self.keyless = False  # set while a websocket's engine.io session has not connected to a game
        self.shed = False
        self.accepted = False  # its websocket was answered 101 (keyless.PacedReads marks it): no HTTP answer after

    def shut(self) -> None:
        """End this connection now: shut down, its readers (simple-websocket's on the duplicate too) see the end
        and close their files, whether or not the client reads what is sent."""
        if self.shed:
            return
        self.shed = True
        self.server.freeing += self.files
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class BodyTooSlow(RequestTimeout):
    """The request's body did not arrive within ``BODY_TIMEOUT``: a 408 wherever it is raised. Not an OSError:
    Werkzeug turns an OSError met while reading a body into "400 client disconnected"; an HTTPException goes
    through the app's error pages as a 408, and outside the app ``TableHandler.run_application`` answers it."""


#: gevent's request body with one deadline for the whole of it (every read waits at most for what is left): its
#: private reads are a seam (webapp/seams.py, checked at start; without them tacmap does not start)
DeadlineInput = seams.deadline_input(BodyTooSlow)


class TableHandler(WSGIHandler):
    """gevent's handler with deadlines for a request's head and body, and one answer to conflicting lengths."""

    def _timed_read(self, read, *args):
        """``read(*args)`` within ``head_timeout``, or None when it did not come in time. Meanwhile the
        connection is one the server may close to make room (``TableServer.make_room``)."""
        waiting = self.server.waiting
        waiting[self] = self.socket
        timer = Timeout(self.server.head_timeout)
        timer.start()
        try:
            return read(*args)
        except Timeout as exc:
            if exc is not timer:
                raise
            return None
        finally:
            timer.close()
            waiting.pop(self, None)

    def read_requestline(self):
        line = self._timed_read(super().read_requestline)
        return "" if line is None else line  # nothing in time: the connection is closed

    def MessageClass(self, *args):  # noqa: N802 (gevent's name): the headers, before gevent drops the length
        headers = super().MessageClass(*args)
        if headers.get("content-length") is not None and headers.get("transfer-encoding") is not None:
            # gevent would drop the length and keep the connection: its 400 for a ValueError closes it
            raise ValueError("Content-Length with Transfer-Encoding")
        return headers

    def read_request(self, raw_requestline):
        done = self._timed_read(super().read_request, raw_requestline)
        if done is None:
            self.close_connection = True
            raise ValueError("the request's headers did not arrive in time")
        lengths = {value.strip() for value in self.headers.get_all("content-length") or ()}
        if len(lengths) > 1:
            raise ValueError(f"conflicting Content-Length headers: {sorted(lengths)}")
        return done

    def get_environ(self):
        env = super().get_environ()
        env["tacmap.connection"] = self.server.connections.get(self.socket)  # keyless.py marks and sheds through it
        if env.get("wsgi.input") is self.wsgi_input:  # a request that may have a body (not a websocket upgrade)
            self.wsgi_input = env["wsgi.input"] = DeadlineInput.around(
                self.wsgi_input, deadline=time.monotonic() + self.server.body_timeout)
        return env

    def run_application(self):
        conn = self.server.connections.get(self.socket)
        websocket = conn is not None and seams.upgrade_requested(self)
        if websocket and not self.server.opens_websocket(conn):  # no file for its duplicate: 503, closed
            self.close_connection = True
            self.start_response("503 Service Unavailable", [("Content-Type", "text/plain; charset=utf-8"),
                                                            ("Connection", "close"), *PLAIN_HEADERS])
            self.write(b"the server holds as many connections as it can")
            return
        try:
            self._run_application()
        finally:
            if websocket:
                self.server.websocket_closed(conn)

    def _run_application(self):
        try:
            super().run_application()
        except BodyTooSlow:  # read by engine.io or a route that did not catch it: 408, and the connection closes
            self.close_connection = True
            if not self.headers_sent:
                status, headers, body = REQUEST_TIMEOUT
                self.start_response(status, headers[:])
                self.write(body)
        if isinstance(self.wsgi_input, DeadlineInput) and self.wsgi_input.expired:
            self.close_connection = True
        if seams.upgrade_requested(self):  # a websocket ended: its bytes are not a next request
            self.close_connection = True

    def process_result(self):
        conn = self.environ.get("tacmap.connection")
        if conn is not None and conn.accepted:
            # the websocket ended: engine.io's answer after it is no HTTP answer. It answers the end of a websocket
            # upgraded from a long-poll session as a long-poll, an empty "200 OK" (``Server.handle_request`` takes the
            # websocket handler's ``[]`` for a packet list: python-engineio 4.15.1), whose bytes would follow the close
            # frame, read by the browser as a frame ("Invalid frame header", #70); the connection closes
            # (_run_application)
            self.close_connection = True
            return
        super().process_result()

    def log_request(self) -> None:
        if self.server.log_requests:
            super().log_request()


class TableServer(WSGIServer):
    """gevent's WSGI server with tacmap's handler, ``TCP_NODELAY`` and a bound on open connections."""

    handler_class = TableHandler

    def __init__(self, host: str, port: int, app, *, log_requests: bool = False, max_connections: int | None = None,
                 head_timeout: float = HEAD_TIMEOUT, body_timeout: float = BODY_TIMEOUT) -> None:
        self.log_requests = log_requests
        self.head_timeout = head_timeout
        self.body_timeout = body_timeout
        raise_file_limit()  # where the system allows: more files for connections (before the default is read)
        self.max_files = max_connections or default_max_connections()
        self.open = 0  # connections accepted and not yet closed
        self.files = 0  # files they hold (a websocket: two)
        self.freeing = 0  # files of connections shut down (``Connection.shut``) and not yet closed
        self.connections: dict = {}  # socket -> Connection, oldest first
        self.waiting: collections.OrderedDict = collections.OrderedDict()  # handler -> socket, oldest first
        super().__init__((host, port), app,
                         log=logging.getLogger("tacmap.requests") if log_requests else None,
                         error_log=logging.getLogger("tacmap.serving"))
        self.init_socket()  # bind and listen now: a port in use is an OSError here, before anything is printed

    @property
    def server_port(self) -> int:
        return self.socket.getsockname()[1]

    @property
    def max_connections(self) -> int:  # the name before files were counted (a connection is one file or two)
        return self.max_files

    @max_connections.setter
    def max_connections(self, value: int) -> None:
        self.max_files = value

    def short_of_files(self) -> bool:
        return self.files - self.freeing > self.max_files

    def handle(self, sock, address):
        conn = Connection(self, sock, address)
        self.open += 1
        self.files += 1
        self.connections[sock] = conn
        try:
            if self.short_of_files() and not self.make_room(conn):
                sock.close()  # every open connection is busy with a request or a device's own: the new one goes
                return None
            try:
                sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            except OSError:  # not TCP (a test's socket pair): nothing to switch off
                pass
            return super().handle(sock, address)
        finally:
            self.open -= 1
            self.files -= conn.files
            if conn.shed:
                self.freeing -= conn.files
            self.connections.pop(sock, None)

    def opens_websocket(self, conn: Connection) -> bool:
        """``conn`` becomes a websocket: a second file (simple-websocket's duplicate), room made for it if need be;
        False when there is none."""
        conn.websocket = True
        conn.files += 1
        self.files += 1
        if conn.shed:
            self.freeing += 1
        return not self.short_of_files() or self.make_room(conn)

    def websocket_closed(self, conn: Connection) -> None:
        """Its duplicate is closed (simple-websocket's reader ends with the connection's end)."""
        conn.websocket = conn.keyless = False
        conn.files -= 1
        self.files -= 1
        if conn.shed:
            self.freeing -= 1

    def make_room(self, new: Connection | None = None) -> bool:
        """Shed one connection for ``new``: the one that has waited longest for a request head, else the oldest
        keyless websocket, else the oldest websocket of the address holding the most (more than ``SHED_ABOVE``);
        False when there is none to shed."""
        while self.waiting:
            _handler, sock = self.waiting.popitem(last=False)
            conn = self.connections.get(sock)
            if conn is None or conn.shed:
                continue
            conn.shut()  # its reader sees the end and its greenlet closes it
            return True
        sockets = [c for c in self.connections.values() if c.websocket and not c.shed and c is not new]
        keyless = [c for c in sockets if c.keyless]
        if keyless:
            keyless[0].shut()  # the dict keeps the order they came in: the first is the oldest
            return True
        held = collections.Counter(c.address for c in sockets)
        if not held:
            return False
        address, count = held.most_common(1)[0]
        if count <= SHED_ABOVE:
            return False
        next(c for c in sockets if c.address == address).shut()
        log.warning("out of files for connections: the oldest websocket of %s (which holds %d) was closed",
                    address, count)
        return True


def port_in_use(exc: OSError) -> bool:
    """The bind failed because another program listens on that port (Windows says it its own way)."""
    return exc.errno in (errno.EADDRINUSE, getattr(errno, "WSAEADDRINUSE", 10048)) or (
        sys.platform == "win32" and getattr(exc, "winerror", None) in (10048, 10013))
