"""Direct websocket writes for Socket.IO in threading mode (python-engineio + simple-websocket).

Stock python-engineio gives every websocket a writer thread: each packet sent to a socket is put on
its queue (``Socket.send``), which wakes that thread (a futex wake and a GIL hand-over), which takes
the packet off (``poll``) and has simple-websocket/wsproto build the frame in pure Python before the
``send`` system call. A broadcast to a room of N sockets pays all of that N times: about 100 us per
connection. Here a packet is written to the socket from the thread that sends it, with one
non-blocking ``send`` of a frame built once per packet (server frames are not masked, so the same
bytes serve every connection the packet goes to). The writer thread stays, for what cannot be
written at once:

- one lock per socket decides every write: direct writes, the writer thread's, and simple-websocket's
  own (its close frame and its answers to the client's pings go through ``_Sock``), so frames never
  interleave;
- a write is direct only when nothing is waiting before it: nothing queued, nothing in the backlog,
  the writer not in the middle of a write. Otherwise it joins the backlog, in order, and the writer
  (woken by one marker on its queue) takes the backlog under the lock and writes it with a blocking
  send outside it (``sending`` keeps every other write off meanwhile), so the lock is never held
  across a send that can block;
- a direct write never blocks: ``MSG_DONTWAIT``; on ``EAGAIN`` or a partial write the rest goes to
  the backlog, and everything after it too, until the writer has written it all. A client that stops
  reading thus stalls only its own writer thread, as with stock engineio, never the sender;
- a socket's ``send`` is replaced only once its upgrade to a websocket has succeeded (the writer
  thread's first ``poll`` after it): until then, and for good when the websocket closes during the
  upgrade, packets go on the queue as stock and the long-polling transport keeps delivering them;
- direct writes start only once the writer has sent everything queued before the upgrade (the
  handshake's packets), so the order is the order of ``send`` calls throughout.

What is left stock: the long-polling transport (a socket is switched only when it upgrades to a
websocket), sockets on TLS or with a socket timeout, and anything unexpected at install time
(another async mode, library versions other than the tested ones in ``TESTED``, engineio's internals
not as expected, a platform whose ``socket`` has no ``MSG_DONTWAIT``, such as Windows): ``install``
then changes nothing and logs one line, and every write goes the stock way.

Bytes on the wire: a message of up to ``COMPRESS_OVER`` bytes goes out uncompressed, its frame shared by
the whole room (RFC 7692 lets a sender leave any message uncompressed); a larger one (a fresh copy of the
game after a reconnect, hundreds of KB) is compressed for each client that negotiated permessage-deflate,
by that connection's own compressor (simple-websocket's wsproto connection), under the pipe's lock so its
compressed messages keep their order and context.
"""

from __future__ import annotations

import collections
import functools
import logging
import socket
import ssl
import struct
import threading
from importlib import metadata

from engineio.exceptions import QueueEmpty

log = logging.getLogger(__name__)

#: The exact versions whose internals this module was written against and tested with (the suite's
#: tests/app/test_wire.py and tests/unit/test_wire_frames.py): engineio.socket.Socket (send, poll, queue,
#: _websocket_handler's writer thread), engineio.async_drivers._websocket_wsgi.SimpleWebSocketWSGI,
#: simple_websocket.Base (sock, connected). Any other version, newer included, gets stock writes: add a
#: version here only after the suite passes with it.
TESTED = {"python-engineio": ("4.15.0", "4.15.1"), "simple-websocket": ("1.1.0",)}

_DRAIN = object()  # what the writer's wake-up marker encodes to
#: messages longer than this are compressed for a client that negotiated permessage-deflate (moves and
#: previews, 0.5-2 KB, stay shared uncompressed frames; a resync, 100-300 KB, shrinks to a sixth or less)
COMPRESS_OVER = 8 * 1024


class _Marker:
    """Put on a socket's engine.io queue to wake its writer thread: the writer calls ``encode()`` and
    hands the result to ``WireWebSocket.send``, which then writes the socket's backlog."""

    packet_type = 6  # NOOP, should anything look at it

    def encode(self, b64=False):
        return _DRAIN


_MARKER = _Marker()
_packet_names = ("OPEN", "CLOSE", "PING", "PONG", "MESSAGE", "UPGRADE", "NOOP")


def frame(encoded) -> bytes:
    """One unmasked, final websocket frame (server to client) for an encoded engine.io packet."""
    if isinstance(encoded, str):
        payload, first = encoded.encode("utf-8"), 0x81
    else:
        payload, first = bytes(encoded), 0x82
    n = len(payload)
    if n < 126:
        head = struct.pack("!BB", first, n)
    elif n < 65536:
        head = struct.pack("!BBH", first, 126, n)
    else:
        head = struct.pack("!BBQ", first, 127, n)
    return head + payload


def _frame_of(pkt) -> bytes:
    """The frame for a packet, built once: Socket.IO sends one packet object to every member of a room."""
    data = getattr(pkt, "_wire_frame", None)
    if data is None:
        data = frame(pkt.encode())
        try:
            pkt._wire_frame = data
        except AttributeError:  # pragma: no cover - a packet class with __slots__
            pass
    return data


class Pipe:
    """The write side of one websocket: the lock, the backlog, and who may write now."""

    def __init__(self, raw: socket.socket, queue, ws, deflate=None) -> None:
        self.raw = raw
        self.ws = ws  # the simple_websocket.Server, for ``connected``
        #: this connection's permessage-deflate framing (a message -> its compressed frame), or None when the
        #: client did not negotiate it; called with ``self.lock`` held, so compressed messages keep their order
        self.deflate = deflate
        self.compressed = 0  # messages sent compressed
        self.queue = queue  # the engine.io socket's: its writer thread waits on it
        self.lock = threading.Lock()
        self.backlog: collections.deque = collections.deque()
        self.sending = False  # the writer thread is writing backlog bytes (outside the lock)
        self.scheduled = False  # a marker is on the engine.io queue, the writer will drain
        self.direct = False  # the writer has sent all that was queued before: direct writes allowed
        self.dead = False  # a write failed or the websocket closed: nothing more is written
        self.direct_writes = 0  # frames written whole from the sending thread
        self.deferred = 0  # writes handed (in part) to the writer thread

    # ---- any thread, with ``self.lock`` held ----------------------------------------------------
    def write(self, data) -> None:
        """Write bytes in order without blocking; what cannot go now goes to the writer thread."""
        if not self.backlog and not self.sending:
            try:
                n = self.raw.send(data, socket.MSG_DONTWAIT)
            except (BlockingIOError, InterruptedError):
                n = 0
            except OSError:
                self.fail()
                return
            if n == len(data):
                self.direct_writes += 1
                return
            data = memoryview(data)[n:]
        self.deferred += 1
        self.backlog.append(data)
        self._schedule()

    def _schedule(self) -> None:
        if not self.scheduled and not self.sending:
            self.scheduled = True
            self.queue.put(_MARKER)

    def fail(self) -> None:
        """A write failed: write nothing more, and let the writer thread find out and end as stock."""
        self.dead = True
        self.backlog.clear()
        self._schedule()

    def send_of(self, eio_socket):
        """The ``send`` for this pipe's engine.io socket, set once its upgrade has succeeded."""
        return functools.partial(_send, eio_socket, self)

    # ---- the writer thread ---------------------------------------------------------------------
    def drain(self) -> None:
        """Write the backlog with blocking sends, outside the lock, until it is empty. Raises OSError
        (the stock writer's signal to stop) once the connection is dead."""
        with self.lock:
            self.scheduled = False
            if self.dead:
                raise OSError("websocket closed")
            self.sending = True
        try:
            while True:
                with self.lock:
                    if self.dead:
                        raise OSError("websocket closed")
                    if not self.backlog:
                        self.sending = False
                        return
                    chunk = b"".join(self.backlog) if len(self.backlog) > 1 else self.backlog[0]
                    self.backlog.clear()
                self.raw.sendall(chunk)
        except BaseException:
            with self.lock:
                self.dead = True
                self.sending = False
                self.backlog.clear()
            raise OSError("websocket write failed")


def _send(eio_socket, pipe: Pipe, pkt) -> None:
    """``Socket.send`` for a socket with a pipe (an instance attribute, shadowing the class's). As stock:
    the ping check first (it may close the socket, and closing sends: so never under the pipe's lock),
    then the packet goes out, here directly when it may, else on the queue as stock."""
    if not eio_socket.check_ping_timeout():
        return
    logger = eio_socket.server.logger
    if logger.isEnabledFor(logging.INFO):
        logger.info("%s: Sending packet %s data %s", eio_socket.sid, _packet_names[pkt.packet_type],
                    pkt.data if not isinstance(pkt.data, bytes) else "<binary>")
    data = _frame_of(pkt) if pipe.direct else None
    big = pipe.deflate is not None and data is not None and len(data) > COMPRESS_OVER
    with pipe.lock:
        if not pipe.direct:  # before the switch (the writer's poll makes it under this lock), or closed
            if not pipe.dead:
                eio_socket.queue.put(pkt)
            return
        if pipe.dead:
            return
        if not pipe.ws.connected:  # simple-websocket saw the close: as stock, the writer stops
            pipe.fail()
            return
        if big:
            pipe.compressed += 1
            data = pipe.deflate(pkt.encode())
        pipe.write(data if data is not None else _frame_of(pkt))


def _poll(eio_socket, pipe: Pipe, stock_poll):
    """``Socket.poll`` for a socket with a pipe; after the upgrade only its writer thread calls it, each
    time it has sent all it took before. The first time the queue is then empty, direct writes start."""
    if not pipe.direct and eio_socket.upgraded and not eio_socket.upgrading and not pipe.dead:
        with pipe.lock:
            # the upgrade succeeded (only the writer thread polls once it has): from now on this socket's
            # packets take the pipe's way, directly once everything queued before is sent
            if "send" not in eio_socket.__dict__:
                eio_socket.send = pipe.send_of(eio_socket)
            if eio_socket.queue.empty():
                pipe.direct = True
    while True:
        try:
            return stock_poll()
        except QueueEmpty:
            # Stock poll gives up after ping_interval + ping_timeout with nothing queued, and the writer then
            # closes the websocket: with stock writes every ping goes through the queue, so an empty queue
            # that long meant a dead socket. Here pings and everything else are written directly and the
            # queue may stay empty for as long as the game is quiet; a dead client is still found out by
            # engine.io's ping check (``check_ping_timeout``, which closes the socket and so ends this wait).
            if not pipe.direct or pipe.dead or eio_socket.closed or eio_socket.closing:
                raise


class _Sock:
    """simple-websocket's view of the socket: its own writes (close frame, pong) in order with ours."""

    def __init__(self, raw: socket.socket, pipe: Pipe) -> None:
        self._raw = raw
        self._pipe = pipe

    def send(self, data, *flags):
        pipe = self._pipe
        with pipe.lock:
            if pipe.direct and not pipe.dead:
                pipe.write(bytes(data))
                return len(data)
        return self._raw.send(data, *flags)

    def close(self) -> None:
        """simple-websocket's reader closes the socket when the connection ends: never under a direct write."""
        with self._pipe.lock:
            self._pipe.dead = True
            self._raw.close()

    def __getattr__(self, name):
        return getattr(self._raw, name)


def _versions_ok() -> str | None:
    for dist, versions in TESTED.items():
        try:
            version = metadata.version(dist)
        except metadata.PackageNotFoundError:
            return f"{dist} not installed"
        if version not in versions:
            return f"{dist} {version} is not a tested version ({', '.join(versions)})"
    return None


def _platform_ok() -> str | None:
    """What this module needs of the platform: non-blocking sends by flag (Windows' socket has none)."""
    if not hasattr(socket, "MSG_DONTWAIT"):
        return "this platform's socket module has no MSG_DONTWAIT"
    return None


def _deflate_of(environ, ws):
    """The connection's compressed framing when its client offered permessage-deflate (simple-websocket then
    always accepts it): wsproto's ``send`` of a message, which runs the connection's compressor."""
    connection = getattr(ws, "ws", None)  # simple-websocket's wsproto connection
    if "permessage-deflate" not in environ.get("HTTP_SEC_WEBSOCKET_EXTENSIONS", "") or connection is None:
        return None
    from wsproto.events import BytesMessage, TextMessage

    def deflate(encoded) -> bytes:
        message = TextMessage(data=encoded) if isinstance(encoded, str) else BytesMessage(data=bytes(encoded))
        return connection.send(message)

    return deflate


def _make_class():
    import simple_websocket
    from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI

    class WireWebSocket(SimpleWebSocketWSGI):
        """engineio's threading websocket wrapper, with a ``Pipe`` on each upgraded socket."""

        pipe: Pipe | None = None

        def __call__(self, environ, start_response):
            self.ws = simple_websocket.Server(environ, **self.server_args)
            eio_socket = getattr(self.app, "__self__", None)
            raw = getattr(self.ws, "sock", None)
            if (eio_socket is not None and isinstance(raw, socket.socket) and not isinstance(raw, ssl.SSLSocket)
                    and raw.gettimeout() is None and raw.type == socket.SOCK_STREAM):
                pipe = Pipe(raw, eio_socket.queue, self.ws, _deflate_of(environ, self.ws))
                self.pipe = pipe
                eio_socket.wire_pipe = pipe  # for tests and a debugger
                eio_socket.poll = functools.partial(_poll, eio_socket, pipe, type(eio_socket).poll.__get__(eio_socket))
                self.ws.sock = _Sock(raw, pipe)
            ret = self.app(self)
            if self.ws.mode == "gunicorn":
                raise StopIteration()
            elif self.ws.mode == "werkzeug":
                raise ConnectionError()
            return ret

        def send(self, message):
            pipe = self.pipe
            if message is _DRAIN:
                return pipe.drain()
            if pipe is not None and pipe.direct:  # not expected: direct mode queues only markers
                with pipe.lock:
                    pipe.backlog.append(frame(message))
                    pipe.scheduled = True
                return pipe.drain()
            return super().send(message)

        def close(self):
            """The writer thread's last act: no direct write after this, the close frame goes out after the
            last one, and the socket gets its class's send and poll back (no cycle through the pipe)."""
            pipe = self.pipe
            if pipe is not None:
                with pipe.lock:
                    pipe.dead = True
                    pipe.direct = False
                    pipe.backlog.clear()
                for name in ("send", "poll", "wire_pipe"):
                    self.app.__self__.__dict__.pop(name, None)
            return super().close()

    return WireWebSocket


def install(socketio) -> bool:
    """Switch a Flask-SocketIO ``SocketIO`` (its engine.io server) to direct writes; False and one log
    line, changing nothing, when this engine.io server is not the one this was written for."""
    try:
        eio = socketio.server.eio
        reason = _platform_ok() or _versions_ok()
        if reason is None and eio.async_mode != "threading":
            reason = f"async mode {eio.async_mode}"
        if reason is None:
            from engineio import socket as eio_socket_module
            from engineio.async_drivers._websocket_wsgi import SimpleWebSocketWSGI
            if eio._async.get("websocket") is not SimpleWebSocketWSGI:
                reason = "engineio's websocket driver is not SimpleWebSocketWSGI"
            elif not all(hasattr(eio_socket_module.Socket, a)
                         for a in ("send", "poll", "check_ping_timeout", "_websocket_handler")):
                reason = "engineio.socket.Socket lacks send/poll/_websocket_handler"
    except Exception as exc:  # noqa: BLE001 - any surprise means: stay stock
        reason = f"{type(exc).__name__}: {exc}"
    if reason is not None:
        log.warning("wire: stock Socket.IO writes (%s)", reason)
        return False
    eio._async = dict(eio._async, websocket=_make_class())  # this server only: _async is module-wide
    return True
