"""The table's phones as the GM sees them (#61): each player seat's device live, asleep, link down since when,
behind, or gone.

A player's page tells the server two things about itself, and only those (the ``device`` event, static/js/live.js):
whether it is shown (``visible``: the phone's screen off or another app in front hides it) and the seq of the last
update it applied. The server sees the rest itself: a connection opened or dropped, the updates it sent. None of it
is a fact of the game: it is kept here, in memory, never in the log (like a drag preview, webapp/live/relays.py), and
shown to the GM alone (the players card, the fight card's turn line: the parts "players" and "turn_device").

What the GM sees of a seat, from the best of its devices (``summary``):

- ``live``: a connection whose page is shown and has applied what it was sent;
- ``behind``: shown, but an update sent ``BEHIND_AFTER`` seconds ago or more is not applied yet (a link that died
  without the server noticing yet, a page stuck);
- ``asleep``: every page of the seat is hidden;
- ``down``: no connection; the last one dropped less than ``GONE_AFTER`` seconds ago (and when: "since 19:42");
- ``gone``: no connection for longer, or none since the server started (a seat with no entry in the summary).

A change is not drawn at once: ``tick``, every ``TICK`` seconds while anything is watched, draws the GM's players
card again for each game whose summary changed since it was last drawn. A page that reports often, or a link that
flaps, costs the GM one redraw of that card a second at most, and a seat whose link dropped turns "gone" on time.

With several processes (``--message-queue``), each process knows the devices connected to it and the updates it
sent itself: this is not shared through Redis. Who is connected is (webapp/live/presence.py): the players card
shows a seat connected to another process as live.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import Counter, deque
from dataclasses import dataclass
from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..game.core.model import Actor, Rejected
from ..game.core.text import N_
from .server import throttle

log = logging.getLogger(__name__)

LIVE, BEHIND, ASLEEP, DOWN, GONE = "live", "behind", "asleep", "down", "gone"
GONE_AFTER = 120.0  # seconds with no connection after which a seat's device is gone
BEHIND_AFTER = 6.0  # seconds an update sent may wait unapplied before its page counts as behind
TICK = 1.0  # seconds between two looks at the states (and at most one redraw of the GM's card per game)
REPORTS = (10, 5.0)  # a connection's reports, at most: a page reports on connecting, on being shown or hidden,
# and once a second at most after updates
KEPT_SENT = 64  # updates sent to a seat remembered (the oldest unapplied one is what counts)
MAX_SEQ = 2**53  # past what a page's JavaScript counts exactly

SHAPE = '{"visible": true or false, "seq"?: the last update applied}'


class Report(BaseModel):
    """What a player's page says of itself: shown or hidden, and the seq of the last update it applied."""

    model_config = ConfigDict(extra="forbid", strict=True)
    visible: bool
    seq: int | None = Field(None, ge=0, le=MAX_SEQ)


@dataclass
class Device:
    """One connection of a player's seat."""

    game_id: str
    player_id: str
    opened: float  # when it connected (updates sent before do not count against it)
    visible: bool = True  # until its page says otherwise
    applied: int | None = None  # the seq of the last update its page applied; None: not said yet


def seat_of_room(name: str) -> tuple[str, str] | None:
    """The (game, player id) of a player's room ("game:<id>:player:<player id>|<language>"); None for another's."""
    parts = name.partition("|")[0].split(":", 3)
    if len(parts) == 4 and parts[0] == "game" and parts[2] == "player":
        return parts[1], parts[3]
    return None


def clock(at: float) -> str:
    """``at`` as the server's (the GM's laptop's) local time of day, HH:MM."""
    return time.strftime("%H:%M", time.localtime(at))


class Devices:
    def __init__(self, socketio, now: Callable[[], float] = time.time) -> None:
        self.socketio = socketio
        self.now = now
        #: told a game id whose summary changed: the GM's players card is drawn again (``Fanout.devices_changed``)
        self.push: Callable[[str], None] = lambda game_id: None
        self._guard = threading.Lock()
        self._devices: dict[str, Device] = {}  # sid -> its device (players' connections only)
        self._in_game: dict[str, dict[str, Device]] = {}  # game -> sid -> its device (a look costs its game's only)
        self._connected: Counter[tuple[str, str]] = Counter()  # (game, player) -> its devices here
        self._dropped: dict[tuple[str, str], float] = {}  # (game, player) -> when its last connection dropped
        self._sent: dict[tuple[str, str], deque] = {}  # (game, player) -> (seq, when) of the updates sent to it
        self._drawn: dict[str, dict] = {}  # game -> the summary the GM's card was last drawn with
        self.reports = throttle.Window(*REPORTS)  # per connection
        self._watching = False

    # --- what the server sees ---------------------------------------------------

    def opened(self, sid: str, game_id: str, actor: Actor) -> None:
        """A connection to a game: a player's is one of its seat's devices (the GM's and the screen's are not)."""
        if actor.role != "player" or actor.player_id is None:
            return
        with self._guard:
            device = self._devices[sid] = Device(game_id, actor.player_id, self.now())
            self._in_game.setdefault(game_id, {})[sid] = device
            self._connected[(game_id, actor.player_id)] += 1
            self._dropped.pop((game_id, actor.player_id), None)
        self._watch()

    def closed(self, sid: str) -> None:
        """A connection dropped (or closed): its seat's link is down since now when it was the seat's last."""
        with self._guard:
            device = self._devices.pop(sid, None)
            if device is None:
                return
            here = self._in_game.get(device.game_id, {})
            here.pop(sid, None)
            if not here:
                self._in_game.pop(device.game_id, None)
            seat = (device.game_id, device.player_id)
            self._connected[seat] -= 1
            if self._connected[seat] <= 0:
                del self._connected[seat]
                self._dropped[seat] = self.now()
                self._sent.pop(seat, None)
        self._watch()

    def sent(self, seq: int, rooms) -> None:
        """An update (its ``seq``) went to these Socket.IO rooms (``presence.language_room``'s names): a page
        of a player's seat there has it to apply."""
        if isinstance(rooms, str):
            rooms = [rooms]
        at = self.now()
        with self._guard:
            if not self._devices:
                return
            for name in rooms:
                seat = seat_of_room(name)
                if seat is None or seat not in self._connected:
                    continue
                kept = self._sent.get(seat)
                if kept is None:
                    kept = self._sent[seat] = deque(maxlen=KEPT_SENT)
                kept.append((seq, at))

    # --- what the page says --------------------------------------------------------

    def report(self, game_id: str, actor: Actor, payload: Any, sid: str) -> None:
        """A player's page says whether it is shown and what it applied (the ``device`` event); anything else,
        from anyone else or too often, is refused and changes nothing."""
        if actor.role != "player":
            raise Rejected(N_("only a player's device reports its state"))
        if not isinstance(payload, dict):
            raise Rejected(N_("a device report is %(shape)s"), shape=SHAPE)
        try:
            said = Report.model_validate(payload)
        except ValidationError:
            raise Rejected(N_("a device report is %(shape)s"), shape=SHAPE) from None
        if not self.reports.take(sid):
            raise Rejected(N_("easy: a device reports a few times a second at most"))
        with self._guard:
            device = self._devices.get(sid)
            if device is None or device.game_id != game_id:
                return
            device.visible = said.visible
            if said.seq is not None:
                device.applied = said.seq

    # --- what the GM is shown ------------------------------------------------------

    def summary(self, game_id: str) -> dict[str, dict]:
        """Each seat of the game with a device here or a link down: player id -> {"state", "since", "at"} (a seat
        not in it is gone, or connected to another process). Noted as what the GM's card is drawn with."""
        now = self.now()
        out: dict[str, dict] = {}
        with self._guard:
            for device in self._in_game.get(game_id, {}).values():
                state = self._state(device, now)
                found = out.get(device.player_id)
                if found is None or RANK[state] < RANK[found["state"]]:
                    out[device.player_id] = {"state": state, "since": None, "at": None}
            for (g, player_id), at in self._dropped.items():
                if g == game_id and player_id not in out and now - at < GONE_AFTER:
                    out[player_id] = {"state": DOWN, "since": clock(at),
                                      "at": time.strftime("%Y-%m-%dT%H:%M", time.localtime(at))}
            self._drawn[game_id] = out
        return out

    def _state(self, device: Device, now: float) -> str:
        if not device.visible:
            return ASLEEP
        if device.applied is not None:
            for seq, at in self._sent.get((device.game_id, device.player_id), ()):
                if seq > device.applied and at >= device.opened:  # the oldest it has not applied
                    return BEHIND if now - at >= BEHIND_AFTER else LIVE
        return LIVE

    # --- looking again ---------------------------------------------------------------

    def tick(self) -> list[str]:
        """Each game whose summary changed since the GM's card was last drawn: drawn again (``push``). Links down
        for ``GONE_AFTER`` are forgotten (gone). Returns the games pushed."""
        now = self.now()
        with self._guard:
            for seat in [s for s, at in self._dropped.items() if now - at >= GONE_AFTER]:
                del self._dropped[seat]
            games = set(self._in_game) | {g for g, _p in self._dropped} | set(self._drawn)
            before = {g: self._drawn.get(g) for g in games}
        pushed = []
        for game_id in sorted(games):
            if self.summary(game_id) != (before[game_id] or {}):
                pushed.append(game_id)
                try:
                    self.push(game_id)
                except Exception:  # the next change draws it again
                    log.exception("game %s: the GM's players card was not drawn again", game_id)
        with self._guard:  # games with nothing left to show: not looked at again
            for game_id in games:
                if not self._drawn.get(game_id) and game_id not in self._in_game \
                        and not any(g == game_id for g, _p in self._dropped):
                    self._drawn.pop(game_id, None)
        return pushed

    def _watch(self) -> None:
        """Start looking every ``TICK`` seconds, unless already looking."""
        with self._guard:
            if self._watching:
                return
            self._watching = True
        self.socketio.start_background_task(self._looking)

    def _looking(self) -> None:
        while True:
            self.socketio.sleep(TICK)
            try:
                self.tick()
            except Exception:
                log.exception("the devices' states were not looked at")
            with self._guard:
                if not self._devices and not self._dropped and not self._drawn:
                    self._watching = False
                    return


#: the best of a seat's devices is its state
RANK = {LIVE: 0, BEHIND: 1, ASLEEP: 2, DOWN: 3, GONE: 4}
