"""Limits on what one client may ask of the server, whatever way it comes (HTTP, any number of sockets).

- ``Window``: at most N events per name in a sliding window, counted atomically (a check and its count are
  one step, so requests in parallel cannot all slip under the limit): games created per client address,
  wrong join codes per client address.
- ``Seats``: the commands of one seat (a key of a game: the GM, the screen, a player) and of one client
  address. A seat has at most ``SEAT_IN_FLIGHT`` commands in its game's queue at once, over the JSON API,
  the pages' forms and all its sockets together, so each batch of the game's group commit (``Hub.commit``)
  holds at most that many of any one seat's: the game's lock is shared fairly between the seats, and a
  seat that floods waits its turn behind the others instead of in front of them. A command waits up to
  ``WAIT`` seconds for its seat's turn, behind at most ``SEAT_WAITING`` others of the seat; more, or
  longer, is refused at once with ``Busy`` (HTTP 429; the socket's ack ``{"ok": false, "code": "busy"}``).
  A seat also has a rate: ``SEAT_BURST`` commands that change the game at once, then ``SEAT_RATE`` a
  second (a token bucket; a refused command, or one that changed nothing, is not counted): every change is
  an update every screen at the table must take in, so a seat that makes hundreds a second would stall
  the others' screens even with a fair share of the lock. A refusal is answered after
  ``REFUSAL_DELAY`` (a thread waits, no CPU is spent), so a flooder's own refusals do not become a flood.
  The GM's commands take their fair share but are not rated (the GM runs the table, and scripts it through
  the JSON API). A client address has the same limits, times ``ADDRESS_FACTOR`` (players behind one NAT), except a
  loopback address (the server's own machine, or a proxy on it that is not ``--trusted-proxy``: everyone
  would share it).

In memory, per process.
"""

from __future__ import annotations

import threading
import time
from collections import defaultdict, deque
from contextlib import contextmanager

from ...game.core.model import Rejected
from ...game.core.text import N_


def _loopback(address: str) -> bool:
    return address == "::1" or address.startswith("127.") or address == "localhost"


#: headers that say a request passed through a proxy (as webapp/web/network.py's)
FORWARDING = ("HTTP_X_FORWARDED_FOR", "HTTP_FORWARDED", "HTTP_X_REAL_IP", "HTTP_X_FORWARDED_HOST")


def from_this_machine(environ: dict) -> bool:
    """The request (or the socket's handshake) came from the server's own machine, straight to it: a loopback
    peer, not through a proxy (a trusted one, or any that says it forwarded: behind a proxy on this machine
    everyone comes from loopback). Under any Host name: a browser there may open tacmap at its LAN name."""
    if environ.get("tacmap.via_proxy") or any(environ.get(h) for h in FORWARDING):
        return False
    return _loopback(str(environ.get("tacmap.peer", environ.get("REMOTE_ADDR")) or ""))

NEW_GAMES = (10, 3600.0)  # games a client address (not the host's own browser) creates, per hour
JOIN_GUESSES = (10, 60.0)  # wrong join codes a client address sends, per minute
SEAT_IN_FLIGHT = 2
SEAT_WAITING = 4
ADDRESS_FACTOR = 4
WAIT = 2.0
SEAT_RATE = 5.0  # commands a second, sustained (a person drags a token a few times a second)
SEAT_BURST = 40  # commands at once (the GM's several steps in a row, a page's reconnect)
REFUSAL_DELAY = 0.5
BUSY = N_("too many commands at once; slow down")


class Busy(Rejected):
    def __init__(self, message: str = BUSY) -> None:
        super().__init__(message, code="busy")


class Window:
    """At most ``limit`` events per name in the last ``seconds``."""

    def __init__(self, limit: int, seconds: float) -> None:
        self.limit, self.seconds = limit, seconds
        self._times: dict[str, deque] = defaultdict(deque)
        self._lock = threading.Lock()

    def _trim(self, name: str, now: float) -> deque:
        times = self._times[name]
        while times and now - times[0] > self.seconds:
            times.popleft()
        return times

    def take(self, name: str) -> bool:
        """Count one event for the name, unless it is at its limit (then False, and nothing counted)."""
        with self._lock:
            now = time.monotonic()
            if len(self._times) > 10_000:  # many names: the quiet ones are forgotten
                for quiet in [n for n, t in self._times.items() if not t or now - t[-1] > self.seconds]:
                    del self._times[quiet]
            times = self._trim(name, now)
            if len(times) >= self.limit:
                return False
            times.append(now)
            return True

    def give_back(self, name: str) -> None:
        """The event was a good one after all (a right join code): it does not count."""
        with self._lock:
            times = self._times.get(name)
            if times:
                times.pop()

    def forget(self, name: str) -> None:
        """The name is gone for good (a closed connection): its count goes with it."""
        with self._lock:
            self._times.pop(name, None)

    def full(self, name: str) -> bool:
        with self._lock:
            return len(self._trim(name, time.monotonic())) >= self.limit


class Bucket:
    """Token buckets per name: ``burst`` at once, refilled at ``rate`` a second. The caller holds its lock."""

    def __init__(self, rate: float, burst: float) -> None:
        self.rate, self.burst = rate, burst
        self._level: dict[str, tuple[float, float]] = {}  # name -> (tokens, when)

    def _now(self, name: str, now: float) -> float:
        tokens, then = self._level.get(name, (self.burst, now))
        return min(self.burst, tokens + (now - then) * self.rate)

    def ready(self, name: str, now: float) -> bool:
        return self._now(name, now) >= 1

    def spend(self, name: str, now: float) -> None:
        if len(self._level) > 10_000:  # many names: the full ones are forgotten
            self._level = {n: v for n, v in self._level.items() if self._now(n, now) < self.burst}
        self._level[name] = (self._now(name, now) - 1, now)


class Seats:
    """Commands in flight and waiting, per seat and per client address (see the module's doc)."""

    def __init__(self, in_flight: int = SEAT_IN_FLIGHT, waiting: int = SEAT_WAITING, factor: int = ADDRESS_FACTOR,
                 wait: float = WAIT, rate: float = SEAT_RATE, burst: int = SEAT_BURST,
                 refusal_delay: float = REFUSAL_DELAY) -> None:
        self.in_flight, self.waiting, self.factor, self.wait = in_flight, waiting, factor, wait
        self.refusal_delay = refusal_delay
        self._seat_rate = Bucket(rate, burst)
        self._address_rate = Bucket(rate * factor, burst * factor)
        self._running: dict[str, int] = defaultdict(int)
        self._queued: dict[str, int] = defaultdict(int)
        self._turn = threading.Condition()

    def _limits(self, seat: str, address: str | None) -> list[tuple[str, int, int]]:
        names = [(seat, self.in_flight, self.waiting)]
        if address and not _loopback(address):
            names.append((f"address:{address}", self.in_flight * self.factor, self.waiting * self.factor))
        return names

    def spent(self, seat: str, address: str | None = None) -> None:
        """A command of the seat changed the game (an update every screen takes in): it counts against the rate."""
        with self._turn:
            now = time.monotonic()
            for i, (n, _cap, _waiting) in enumerate(self._limits(seat, address)):
                (self._seat_rate if i == 0 else self._address_rate).spend(n, now)

    def _refuse(self):
        time.sleep(self.refusal_delay)  # outside the lock: a refusal costs the flooder time, the server none
        return Busy()

    @contextmanager
    def turn(self, seat: str, address: str | None = None):
        """Hold one of the seat's (and the address's) places in its game's queue while the command runs."""
        limits = self._limits(seat, address)
        with self._turn:
            now = time.monotonic()
            refused = any(self._queued[n] >= waiting for n, _cap, waiting in limits) or not all(
                (self._seat_rate if i == 0 else self._address_rate).ready(n, now) for i, (n, _c, _w) in enumerate(limits))
            if not refused:
                for n, _cap, _waiting in limits:
                    self._queued[n] += 1
        if refused:
            raise self._refuse()
        with self._turn:
            try:
                free = self._turn.wait_for(lambda: all(self._running[n] < cap for n, cap, _w in limits), self.wait)
            finally:
                for n, _cap, _waiting in limits:
                    self._queued[n] -= 1
            if free:
                for n, _cap, _waiting in limits:
                    self._running[n] += 1
        if not free:
            raise self._refuse()
        try:
            yield
        finally:
            with self._turn:
                for n, _cap, _waiting in limits:
                    self._running[n] -= 1
                    if not self._running[n]:
                        del self._running[n]
                    if not self._queued[n]:
                        del self._queued[n]
                self._turn.notify_all()
