"""How much one seat may make the game's log grow: a player cannot fill the GM's disk (#25).

Each seat (a player, the table screen; the GM is not limited: the log is theirs)
has an allowance of bytes of log, refilled steadily: ``BURST`` at once, then
``RATE`` bytes a second (1 MB every ten minutes, ~150 MB a day of a seat writing
without a pause, against the ~5 GB an hour a stream of sheet notes wrote). A
command whose events would overdraw it is refused, nothing stored; the sender
hears how long to wait. Counted in this process's memory (with several
processes, each counts its own).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Callable

from ..game.model import Actor, Event, Rejected
from ..game.text import N_

BURST = 1 << 20  # bytes a seat may write at once
RATE = BURST / 600  # bytes a second it gets back


def size_of(events: list[Event]) -> int:
    """What the events take in the log: their type and their data as stored (JSON), and the row around them."""
    return sum(len(e.type) + len(json.dumps(e.data)) + 32 for e in events)


class LogAllowance:
    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._left: dict[tuple[str, str], tuple[float, float]] = {}  # (game, audience) -> (bytes left, when)
        self._lock = threading.Lock()

    def charge(self, game_id: str, actor: Actor, events: list[Event]) -> None:
        """Count the events against the sender's seat; Rejected (nothing counted) when it has not enough left."""
        if actor.role == "gm" or not events:
            return
        cost = size_of(events)
        key = (game_id, actor.audience)
        with self._lock:
            now = self._clock()
            left, then = self._left.get(key, (BURST, now))
            left = min(BURST, left + (now - then) * RATE)
            if cost > left:
                self._left[key] = (left, now)
                wait = max(1, round((cost - left) / RATE))
                raise Rejected(N_("your seat has written %(kb)s kB to the game's log lately, the most a seat may in a "
                                  "short while: nothing was stored; try again in %(wait)s s"), code="busy",
                               kb=BURST // 1024, wait=wait)
            self._left[key] = (left - cost, now)
            if len(self._left) > 10_000:  # seats long quiet are full again: forget them
                self._left = {k: v for k, v in self._left.items() if v[0] + (now - v[1]) * RATE < BURST}
