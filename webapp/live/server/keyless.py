"""The live link's limits at the transport: keyless connections and websocket messages.

A Socket.IO connection is an engine.io session (a long-poll or a websocket) that then connects to a game
with its key (webapp/live/server/sockets.py). Until it has, it is a stranger's, and costs the server a session:

- one that has not connected to a game within ``AUTH_TIMEOUT`` seconds of opening is closed;
- one client address may hold at most ``PER_ADDRESS`` of them at once: the next is refused (engine.io
  answers 401) until one of its others connects or goes. The address is the one the request came from,
  or, behind a trusted proxy (``--trusted-proxy``), the client's as the proxy says (webapp/web/network.py
  rewrites ``REMOTE_ADDR`` before engine.io sees the request);
- one that sends more than ``KEYLESS_PACKETS`` engine.io messages, or (a websocket) ``KEYLESS_BYTES`` of
  anything, before it connects to a game is closed there and then, the rest unread (a page sends one or two
  messages, a few hundred bytes: its connect, with its key).

Every websocket's reader takes turns with the rest of the loop and stops reading while ``BUFFERED`` of its
messages wait to be handled (``PacedReads``): a client that sends without pause waits, the tables do not.

A screen connects to its game within a second of opening, so players, the GM and new joiners never meet
either limit; a table of eight phones behind one Wi-Fi's NAT share an address only when the server sits
outside that network (then ``PER_ADDRESS`` is what the tables behind one address may open at the same moment).

Connected to a game, a connection counts against its seat and its address (issue 57):

- a seat (the GM, the table screen, one player, in one game) holds at most ``PER_SEAT`` connections in this
  process: the next is refused, with a word (#72: a script opened 150 on one player's key, each let in and the
  oldest closed, the player's own phone among them). A page refused tries again every few seconds
  (static/js/live.js), so a phone whose stale sockets fill its seat gets in once engine.io's ping timeout
  closes them; should two connect at once past the check, the seat's oldest is closed;
- one client address holds at most ``PER_ADDRESS_SEATED`` connected ones: the next is refused, with a word.

Every connection closed from here (and every one engine.io closes) is shut down after ``CLOSE_GRACE`` seconds
if its client has not closed it by then (webapp/live/server/serving.py's ``Connection``): a client that never answers
a websocket's close holds no file past that.

Websocket messages: simple-websocket is given engine.io's limit (``max_message_size``) and so closes a
websocket as soon as a message grows past it, whether it came in one frame, in fragments that never end,
or compressed (it reads 4 KB at a time and inflates what it read: at most about 4 MB of a "deflate bomb"
exists before the connection is closed). engine.io has no option for it: that is a seam (webapp/seams.py),
checked at start; without it tacmap does not start.
"""

from __future__ import annotations

import logging
import time

from ... import seams


log = logging.getLogger(__name__)

AUTH_TIMEOUT = 5.0
PER_ADDRESS = 64
KEYLESS_PACKETS = 16  # engine.io messages a connection may send before it connects to a game
PER_SEAT = 10  # connections of one seat in one process (a GM's laptop and tablet, a reloaded phone's stale socket)
PER_ADDRESS_SEATED = 256  # connected ones from one address (a hall of 32 tables of 8 behind one NAT)
CLOSE_GRACE = 2.0  # seconds a closed connection's client has to close it too before it is shut down
KEYLESS_BYTES = 2048  # what a websocket may send before it connects to a game (a page's connect: a few hundred)
BUFFERED = 64  # websocket messages read and not yet handled: past it, its reader waits
CHECK_EVERY = 1.0


def limit_socket_messages(socketio, max_message: int) -> None:
    """Have simple-websocket cut a websocket message at ``max_message`` bytes as it arrives (engine.io checks
    only a whole message, after buffering it, and has no option for it: ``seams.limit_websocket_messages``), and
    read through ``PacedReads``."""
    seams.limit_websocket_messages(socketio.server.eio, max_message, reading=paced_thread)


class PacedReads:
    """A websocket's socket as simple-websocket sees it (through ``seams.limit_websocket_messages``): its reads
    paced, its writes whole (``send``).

    That reader reads, parses and buffers for as long as the client sends: a read that finds data does not wait,
    so a client that never pauses would hold the loop, every table waiting (issue 57). Here each read first lets
    the others run, waits while ``BUFFERED`` messages are read and not yet handled (so the client waits, not the
    server's memory), and a keyless connection that sent ``KEYLESS_BYTES`` before it connected to a game is shut
    down (pings, pongs and anything else engine.io does not count as messages)."""

    __slots__ = ("sock", "websocket", "conn", "read")

    def __init__(self, sock, websocket) -> None:
        self.sock = sock
        self.websocket = websocket
        self.conn = getattr(websocket, "environ", {}).get("tacmap.connection")  # webapp/live/server/serving.py's
        self.read = 0
        if self.conn is not None:  # made once the handshake's 101 went out: no HTTP answer after it (serving.py)
            self.conn.accepted = True

    def recv(self, size: int) -> bytes:
        websocket = self.websocket
        time.sleep(0)  # patched under tacmap serve: gevent's, a turn for every other greenlet
        while len(websocket.input_buffer) >= BUFFERED and websocket.connected:
            time.sleep(0.005)
        data = self.sock.recv(size)
        conn = self.conn
        if conn is not None and conn.keyless:
            self.read += len(data)
            if self.read > KEYLESS_BYTES:
                conn.shut()
                return b""  # the reader sees the end
        return data

    def send(self, data: bytes) -> int:
        """All of ``data``, however long the client takes to read it. simple-websocket writes a frame with one
        ``send`` and never reads what it returned; a gevent socket's ``send`` writes what the kernel's buffer takes
        now, which on a real network (1,448-byte segments: a buffer sized to tens of KiB) is less than an update
        of a big map or a long log. The rest of the frame was lost, the client read the next frame's bytes as this
        one's, and it heard nothing more, not even its command's answer. A client that never reads holds this
        write until engine.io's ping timeout ends its session and ``Keyless`` shuts the connection (the write fails)."""
        self.sock.sendall(data)
        return len(data)

    def __getattr__(self, name: str):
        return getattr(self.sock, name)


_paced: dict[type, type] = {}


def paced_thread(thread_class: type) -> type:
    """simple-websocket's ``thread_class`` whose target, its reader, reads through ``PacedReads``."""
    if thread_class not in _paced:
        class PacedThread(thread_class):
            def __init__(self, target, *args, **kwargs):
                websocket = getattr(target, "__self__", None)  # simple-websocket's Base: its handshake is done
                if websocket is not None and getattr(websocket, "sock", None) is not None:
                    websocket.sock = PacedReads(websocket.sock, websocket)
                super().__init__(target, *args, **kwargs)

        _paced[thread_class] = PacedThread
    return _paced[thread_class]


class Keyless:
    """The engine.io sessions not yet connected to a game: how many per address, since when, how many packets;
    and the connected ones: how many per seat and per address."""

    def __init__(self, socketio, timeout: float = AUTH_TIMEOUT, per_address: int = PER_ADDRESS,
                 packets: int | None = None, per_seat: int | None = None, per_address_seated: int | None = None) -> None:
        self.socketio = socketio
        self.timeout = timeout
        self.per_address = per_address
        self.packets = KEYLESS_PACKETS if packets is None else packets  # the module's, when the app is made
        self.per_seat = PER_SEAT if per_seat is None else per_seat
        self.per_address_seated = PER_ADDRESS_SEATED if per_address_seated is None else per_address_seated
        self._waiting: dict[str, tuple[str, float]] = {}  # eio sid -> (address, deadline)
        self._count: dict[str, int] = {}
        self._sent: dict[str, int] = {}  # eio sid -> messages a keyless session sent
        self._address: dict[str, str] = {}  # eio sid -> its client's address
        self._conns: dict = {}  # eio sid -> its websocket's serving.Connection (under tacmap serve)
        self._seats: dict[tuple[str, str], list[str]] = {}  # (game, audience) -> eio sids, oldest first
        self._seat_of: dict[str, tuple[str, str]] = {}
        self._seated: dict[str, int] = {}  # address -> connected sessions
        self._watching = False
        self.closed = 0  # sessions closed for not connecting in time, or for their packets
        self.refused = 0  # sessions refused: too many from one address
        eio = socketio.server.eio
        connect, disconnect = eio.handlers.get("connect"), eio.handlers.get("disconnect")
        message = eio.handlers.get("message")

        def on_connect(eio_sid, environ, *args):
            address = environ.get("REMOTE_ADDR") or "?"
            if self._count.get(address, 0) >= self.per_address:
                self.refused += 1
                return False
            self._address[eio_sid] = address
            self._add(eio_sid, address)
            self._link(eio_sid, environ)
            result = connect(eio_sid, environ, *args) if connect else None
            if result is False:
                self._forget(eio_sid)
            return result

        def on_message(eio_sid, data):
            if eio_sid in self._waiting:
                sent = self._sent[eio_sid] = self._sent.get(eio_sid, 0) + 1
                if sent > self.packets:  # a keyless flood: closed now, its messages unread
                    if sent == self.packets + 1:
                        self.closed += 1
                        self._end(eio_sid, grace=0.0)
                    return None
            return message(eio_sid, data) if message else None

        def on_disconnect(eio_sid, *args):
            conn = self._forget(eio_sid)
            if conn is not None:  # a client that never reads or answers the close holds its files no longer
                self.socketio.start_background_task(self._shut_later, conn, CLOSE_GRACE)
            return disconnect(eio_sid, *args) if disconnect else None

        handle_request = eio.handle_request

        def on_request(environ, start_response):
            """A long-poll session upgraded to a websocket: that websocket's connection is the session's now."""
            conn = environ.get("tacmap.connection")
            if conn is not None and conn.websocket and "sid=" in (environ.get("QUERY_STRING") or ""):
                from urllib.parse import parse_qs

                sid = (parse_qs(environ.get("QUERY_STRING") or "").get("sid") or [None])[0]
                if sid in self._address:
                    conn.address = self._address[sid]
                    conn.keyless = sid in self._waiting
                    self._conns[sid] = conn
            return handle_request(environ, start_response)

        eio.on("connect", on_connect)
        eio.on("message", on_message)
        eio.on("disconnect", on_disconnect)
        eio.handle_request = on_request  # engine.io's WSGI app calls it on the server at each request

    def _link(self, eio_sid: str, environ: dict) -> None:
        """The websocket's connection (webapp/live/server/serving.py) this session opened on, marked keyless."""
        conn = environ.get("tacmap.connection")
        if conn is not None and conn.websocket:
            conn.address = self._address.get(eio_sid, conn.address)  # as the trusted proxy says, if any
            conn.keyless = True
            self._conns[eio_sid] = conn

    def _forget(self, eio_sid: str):
        """Everything about a session that ended; its connection, if known."""
        self._remove(eio_sid)
        self._unseat(eio_sid)
        self._address.pop(eio_sid, None)
        return self._conns.pop(eio_sid, None)

    def _shut_later(self, conn, grace: float) -> None:
        if grace:
            self.socketio.sleep(grace)
        if conn.server.connections.get(conn.sock) is conn:  # still open: its client did not close it
            conn.shut()

    def _end(self, eio_sid: str, grace: float = CLOSE_GRACE) -> None:
        """Close a session: engine.io's close (its client told), its connection shut down after ``grace``. Never
        waits: engine.io's close waits for its writer to send what is queued, which a client that does not read
        (or a long-poll that never polls again) would hold forever."""
        conn = self._conns.get(eio_sid)
        if conn is not None:
            if grace:
                self.socketio.start_background_task(self._shut_later, conn, grace)
            else:
                conn.shut()
        self.socketio.start_background_task(self._close, eio_sid)

    def _close(self, eio_sid: str) -> None:
        eio = self.socketio.server.eio
        try:
            if self.socketio.async_mode == "gevent":
                from gevent import Timeout

                with Timeout(CLOSE_GRACE + 1.0, False):  # its connection is shut by then: no more to wait for
                    eio.disconnect(eio_sid)
            else:
                eio.disconnect(eio_sid)
        except Exception:  # noqa: BLE001 (gone meanwhile)
            log.debug("could not close session %s", eio_sid, exc_info=True)

    def waiting(self) -> int:
        return len(self._waiting)

    def _add(self, eio_sid: str, address: str) -> None:
        self._waiting[eio_sid] = (address, time.monotonic() + self.timeout)
        self._count[address] = self._count.get(address, 0) + 1
        if not self._watching:
            self._watching = True
            self.socketio.start_background_task(self._watch)

    def _remove(self, eio_sid: str) -> None:
        self._sent.pop(eio_sid, None)
        conn = self._conns.get(eio_sid)
        if conn is not None:
            conn.keyless = False
        entry = self._waiting.pop(eio_sid, None)
        if entry is not None:
            left = self._count.get(entry[0], 1) - 1
            if left > 0:
                self._count[entry[0]] = left
            else:
                self._count.pop(entry[0], None)

    def admits(self, address: str) -> bool:
        """Whether one more connection from ``address`` may connect to a game (``PER_ADDRESS_SEATED``)."""
        return self._seated.get(address, 0) < self.per_address_seated

    def seat_full(self, seat: tuple[str, str]) -> bool:
        """Whether the seat (game, audience) holds ``PER_SEAT`` connections already: the next is refused."""
        return len(self._seats.get(seat, ())) >= self.per_seat

    def connected(self, sid: str, seat: tuple[str, str] | None = None, namespace: str = "/") -> None:
        """The Socket.IO connection ``sid`` connected to a game with a valid key: no longer keyless; it counts
        against its ``seat`` (game, audience) and its address; past ``PER_SEAT`` (two let in at once past
        ``seat_full``) the seat's oldest goes."""
        eio_sid = self.socketio.server.manager.eio_sid_from_sid(sid, namespace)
        if eio_sid is None:
            return
        self._remove(eio_sid)
        if seat is None or eio_sid in self._seat_of:
            return
        address = self._address.get(eio_sid, "?")
        self._seat_of[eio_sid] = seat
        self._seated[address] = self._seated.get(address, 0) + 1
        held = self._seats.setdefault(seat, [])
        held.append(eio_sid)
        while len(held) > self.per_seat:
            oldest = held[0]
            self._unseat(oldest)
            self._end(oldest)

    def _unseat(self, eio_sid: str) -> None:
        seat = self._seat_of.pop(eio_sid, None)
        if seat is None:
            return
        held = self._seats.get(seat, [])
        if eio_sid in held:
            held.remove(eio_sid)
        if not held:
            self._seats.pop(seat, None)
        address = self._address.get(eio_sid, "?")
        left = self._seated.get(address, 1) - 1
        if left > 0:
            self._seated[address] = left
        else:
            self._seated.pop(address, None)

    def seated(self, address: str) -> int:
        return self._seated.get(address, 0)

    def _watch(self) -> None:
        """Close the sessions past their deadline; ends when none is left (the next keyless one starts it again)."""
        while self._waiting:
            self.socketio.sleep(CHECK_EVERY)
            now = time.monotonic()
            for eio_sid, (_address, deadline) in list(self._waiting.items()):
                if deadline <= now and eio_sid in self._waiting:
                    self._remove(eio_sid)
                    self.closed += 1
                    self._end(eio_sid)
        self._watching = False
