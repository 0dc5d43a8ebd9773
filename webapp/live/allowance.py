"""How much one seat may make the game's log grow: a player cannot fill the GM's disk (#25).

Each seat (a player, the table screen; the GM is not limited: the log is theirs)
has an allowance of bytes of log, refilled steadily: ``BURST`` at once, then
``RATE`` bytes a second (1 MB every ten minutes, ~150 MB a day of a seat writing
without a pause, against the ~5 GB an hour a stream of sheet notes wrote). A
command whose events would overdraw it is refused, nothing stored; the sender
hears how long to wait. Counted in this process's memory (with several
processes, each counts its own).

Each game as a whole, every seat together and the GM's commands too (#57: anyone may be the GM of a game of
their own, and a GM's commands were not counted at all), has a budget of events and of bytes a minute
(``GAME_EVENTS``, ``GAME_BYTES``: that much at once, then refilled at that much a minute), and a total
(``GAME_TOTAL_EVENTS``, ``GAME_TOTAL_BYTES``: the log is full, nothing more is stored). The commands sent from
the server's own machine (the host's browser, a script on it: ``local``) have their own budget per game,
``LOCAL_FACTOR`` times as large, not unbounded; the other devices share theirs. The server's own commands (the
demo, an import, a room's table copied) are not counted.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Callable

from ..game.core.model import Actor, Event, Rejected
from ..game.core.text import N_

BURST = 1 << 20  # bytes a seat may write at once
RATE = BURST / 600  # bytes a second it gets back
GAME_EVENTS = 600  # events a game's log may grow by in a minute, its other devices' seats together (10 a second)
GAME_BYTES = 2 << 20  # bytes the same: a 100d1000 roll writes 6.5 kB, so some 300 such rolls a minute
LOCAL_FACTOR = 10  # the server's own machine: ten times as much, per game
GAME_TOTAL_EVENTS = 250_000  # a game's log holds this many events at most (a long campaign writes a few thousand an evening)
GAME_TOTAL_BYTES = 64 << 20  # and this many bytes (some 100,000 moves)


def size_of(events: list[Event]) -> int:
    """What the events take in the log: their type and their data as stored (JSON), and the row around them."""
    return sum(len(e.type) + len(json.dumps(e.data)) + 32 for e in events)


GAME_FULL = N_("this game's log is full (%(events)s events, %(mb)s MB: the most one game may hold): nothing was "
                "stored; start a new game to play on")
GAME_BUSY_LOCAL = N_("this game has written %(events)s events or %(mb)s MB to its log in the last minute from the "
                     "server's own machine, the most it may: nothing was stored; try again in %(wait)s s")
GAME_BUSY_DEVICES = N_("this game has written %(events)s events or %(mb)s MB to its log in the last minute from its "
                       "players' and GM's devices, the most it may: nothing was stored; try again in %(wait)s s")


class LogAllowance:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._left: dict[tuple[str, str], tuple[float, float]] = {}  # (game, audience) -> (bytes left, when)
        # (game, local?) -> (events left, bytes left, when)
        self._game_left: dict[tuple[str, bool], tuple[float, float, float]] = {}
        self._total: dict[str, int] = {}  # game id -> the bytes of its log (read once, then counted)
        self._lock = threading.Lock()

    def charge(self, game_id: str, actor: Actor, events: list[Event], local: bool | None = None, seq: int = 0,
               log_size: Callable[[], int] | None = None) -> None:
        """Count the events against the game (``local``: sent from the server's own machine; None: the server's
        own command, not counted; ``seq``: the events its log holds; ``log_size``: reads its bytes) and the
        sender's seat (the GM's is not counted); Rejected (nothing counted) when either has not enough left."""
        if not events or (local is None and actor.role == "gm"):
            return
        cost = size_of(events)
        total = None
        if local is not None:
            with self._lock:
                total = self._total.get(game_id)
            if total is None:  # once per game and process: the log as stored (a read of the store, outside the lock)
                total = log_size() if log_size is not None else 0
        with self._lock:
            now = self._clock()
            game = self._game_check(game_id, local, len(events), cost, seq, total, now) if local is not None else None
            seat = self._seat_check(game_id, actor, cost, now) if actor.role != "gm" else None
            # both have enough: both are counted
            if game is not None:
                self._game_left[(game_id, local)], self._total[game_id] = game
            if seat is not None:
                self._left[(game_id, actor.audience)] = seat
            self._forget_quiet(now)

    def _seat_check(self, game_id: str, actor: Actor, cost: int, now: float) -> tuple[float, float]:
        key = (game_id, actor.audience)
        left, then = self._left.get(key, (BURST, now))
        left = min(BURST, left + (now - then) * RATE)
        if cost > left:
            self._left[key] = (left, now)
            wait = max(1, round((cost - left) / RATE))
            raise Rejected(N_("your seat has written %(kb)s kB to the game's log lately, the most a seat may in a "
                              "short while: nothing was stored; try again in %(wait)s s"), code="busy",
                           kb=BURST // 1024, wait=wait)
        return left - cost, now

    def _game_check(self, game_id: str, local: bool, count: int, cost: int, seq: int, total: int, now: float):
        total = self._total.setdefault(game_id, total)
        if seq + count > GAME_TOTAL_EVENTS or total + cost > GAME_TOTAL_BYTES:
            raise Rejected(GAME_FULL, code="full", events=GAME_TOTAL_EVENTS, mb=GAME_TOTAL_BYTES >> 20)
        events_most, bytes_most = _most(local)
        n, b, then = self._game_left.get((game_id, local), (events_most, bytes_most, now))
        n = min(events_most, n + (now - then) * events_most / 60)
        b = min(bytes_most, b + (now - then) * bytes_most / 60)
        # a command larger than the whole budget (a map of 10,000 walls drawn at once) goes when the budget is full,
        # and the game waits for it to refill
        if (count > n and n < events_most) or (cost > b and b < bytes_most):
            self._game_left[(game_id, local)] = (n, b, now)
            wait = max(1, round(max((count - n) / events_most, (cost - b) / bytes_most) * 60))
            raise Rejected(GAME_BUSY_LOCAL if local else GAME_BUSY_DEVICES, code="busy", events=events_most,
                           mb=bytes_most >> 20, wait=wait)
        return (n - count, b - cost, now), total + cost

    def _forget_quiet(self, now: float) -> None:
        """Seats and games long quiet are full again: forget them."""
        if len(self._left) > 10_000:
            self._left = {k: v for k, v in self._left.items() if v[0] + (now - v[1]) * RATE < BURST}
        if len(self._game_left) > 10_000:
            self._game_left = {k: v for k, v in self._game_left.items()
                               if v[0] + (now - v[2]) * _most(k[1])[0] / 60 < _most(k[1])[0]}
        if len(self._total) > 100_000:  # read again from the store when next needed
            self._total.clear()


def _most(local: bool) -> tuple[int, int]:
    """Events and bytes a game may write in a minute (and at once), from the server's machine or the others."""
    factor = LOCAL_FACTOR if local else 1
    return GAME_EVENTS * factor, GAME_BYTES * factor
