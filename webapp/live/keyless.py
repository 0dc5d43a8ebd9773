"""The live link's limits at the transport: keyless connections and websocket messages.

A Socket.IO connection is an engine.io session (a long-poll or a websocket) that then connects to a game
with its key (webapp/live/sockets.py). Until it has, it is a stranger's, and costs the server a session:

- one that has not connected to a game within ``AUTH_TIMEOUT`` seconds of opening is closed;
- one client address may hold at most ``PER_ADDRESS`` of them at once: the next is refused (engine.io
  answers 401) until one of its others connects or goes. The address is the one the request came from,
  or, behind a trusted proxy (``--trusted-proxy``), the client's as the proxy says (webapp/web/network.py
  rewrites ``REMOTE_ADDR`` before engine.io sees the request).

A screen connects to its game within a second of opening, so players, the GM and new joiners never meet
either limit; a table of eight phones behind one Wi-Fi's NAT share an address only when the server sits
outside that network (then ``PER_ADDRESS`` is what the tables behind one address may open at the same moment).

Websocket messages: simple-websocket is given engine.io's limit (``max_message_size``) and so closes a
websocket as soon as a message grows past it, whether it came in one frame, in fragments that never end,
or compressed (it reads 4 KB at a time and inflates what it read: at most about 4 MB of a "deflate bomb"
exists before the connection is closed). engine.io has no option for it: that is a seam (webapp/seams.py),
checked at start; without it tacmap does not start.
"""

from __future__ import annotations

import logging
import time

from .. import seams


log = logging.getLogger(__name__)

AUTH_TIMEOUT = 5.0
PER_ADDRESS = 64
CHECK_EVERY = 1.0


def limit_socket_messages(socketio, max_message: int) -> None:
    """Have simple-websocket cut a websocket message at ``max_message`` bytes as it arrives (engine.io checks
    only a whole message, after buffering it, and has no option for it: ``seams.limit_websocket_messages``)."""
    seams.limit_websocket_messages(socketio.server.eio, max_message)


class Keyless:
    """The engine.io sessions not yet connected to a game: how many per address, and since when."""

    def __init__(self, socketio, timeout: float = AUTH_TIMEOUT, per_address: int = PER_ADDRESS) -> None:
        self.socketio = socketio
        self.timeout = timeout
        self.per_address = per_address
        self._waiting: dict[str, tuple[str, float]] = {}  # eio sid -> (address, deadline)
        self._count: dict[str, int] = {}
        self._watching = False
        self.closed = 0  # sessions closed for not connecting in time
        self.refused = 0  # sessions refused: too many from one address
        eio = socketio.server.eio
        connect, disconnect = eio.handlers.get("connect"), eio.handlers.get("disconnect")

        def on_connect(eio_sid, environ, *args):
            address = environ.get("REMOTE_ADDR") or "?"
            if self._count.get(address, 0) >= self.per_address:
                self.refused += 1
                return False
            self._add(eio_sid, address)
            result = connect(eio_sid, environ, *args) if connect else None
            if result is False:
                self._remove(eio_sid)
            return result

        def on_disconnect(eio_sid, *args):
            self._remove(eio_sid)
            return disconnect(eio_sid, *args) if disconnect else None

        eio.on("connect", on_connect)
        eio.on("disconnect", on_disconnect)

    def waiting(self) -> int:
        return len(self._waiting)

    def _add(self, eio_sid: str, address: str) -> None:
        self._waiting[eio_sid] = (address, time.monotonic() + self.timeout)
        self._count[address] = self._count.get(address, 0) + 1
        if not self._watching:
            self._watching = True
            self.socketio.start_background_task(self._watch)

    def _remove(self, eio_sid: str) -> None:
        entry = self._waiting.pop(eio_sid, None)
        if entry is not None:
            left = self._count.get(entry[0], 1) - 1
            if left > 0:
                self._count[entry[0]] = left
            else:
                self._count.pop(entry[0], None)

    def connected(self, sid: str, namespace: str = "/") -> None:
        """The Socket.IO connection ``sid`` connected to a game with a valid key: no longer keyless."""
        eio_sid = self.socketio.server.manager.eio_sid_from_sid(sid, namespace)
        if eio_sid is not None:
            self._remove(eio_sid)

    def _watch(self) -> None:
        """Close the sessions past their deadline; ends when none is left (the next keyless one starts it again)."""
        eio = self.socketio.server.eio
        while self._waiting:
            self.socketio.sleep(CHECK_EVERY)
            now = time.monotonic()
            for eio_sid, (_address, deadline) in list(self._waiting.items()):
                if deadline <= now and eio_sid in self._waiting:
                    self._remove(eio_sid)
                    self.closed += 1
                    try:
                        eio.disconnect(eio_sid)
                    except Exception:  # noqa: BLE001 (gone meanwhile)
                        log.debug("could not close keyless session %s", eio_sid, exc_info=True)
        self._watching = False
