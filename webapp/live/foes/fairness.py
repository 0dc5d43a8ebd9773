"""The foes' plans off the loop, fairly between tables and between GMs (issue #72, "one thread reckons every
table's plans").

Reckoning a foe's plans is pure Python, milliseconds on a small map, seconds for a big fight (150 x 150, 60 foes).
It ran on one native thread for the whole server, first come first served with no bound: a GM asking plans from
six tabs of a big fight queued every other table's plans behind theirs (a 0.01 s plan waited 1.8-12.6 s).

``Fair`` hands the work to a small pool (``THREADS`` at once: worker processes, ``server/workers.py``; where none
can start, gevent's native threads, ``geometry.runner``) through queues of two keys: the game the plans are of, and the GM who asks (``gm``). One GM is one client address: the
address the request comes from (the peer, or what a ``--trusted-proxy`` says it forwarded for), whatever games'
GM keys it holds (``suggesting.asker``; the runner that plays a game's foes asks as the address that turned it
on). It is what the server knows of who asks without believing the client: a browser session or a game's key is
the client's to drop or multiply (one device may make twenty games with an open lobby, or open each GM link in a
fresh session), and a game's maker is not who runs it (a room's organiser makes every table, for as many
volunteers). It is the same client the commands' and the pictures' shares count (``server/throttle.py``,
``storage/pictures.py``), and with the same exception: a loopback address is no one's (the server's own
machine, or a proxy on it that is not trusted: everyone would share it), so there each game is a GM of its own.

- at most one piece of a key's work runs at once, of a game and of a GM (one table, or one GM's many tables,
  cannot take the whole pool), so another GM's request starts as soon as a thread is free, at worst once the
  one running work of some other GM ends, whatever that GM has queued, over however many games;
- a free thread goes to the GMs in turn (round-robin: of the GMs waiting, the one last served longest ago, one
  never served first), and within a GM to its games in turn: a GM with twenty games has the share of one GM;
- a game holds at most ``PER_GAME`` requests, waiting and running, and a GM at most ``PER_GM`` over all its
  games; the next is refused at once with ``Busy`` (the routes: HTTP 429 and "busy, try again"), the game
  untouched.

Why two and not one per core: two are what keeps a short request from waiting behind a long one, and on two
cores the loop keeps one. On threads (no worker process), pure-Python work does not run in parallel under the
GIL and each thread that runs takes turns at the GIL with the loop's thread (the other tables' moves): there the
loop's thread goes first (``Pacer``), a reckoning thread letting the loop run whenever it woke, at the breaths
the reckoning takes (``heavy.breathe``). Without gevent (the app tests, the command-line tools) the work
runs in the caller's thread, the same queues and bounds kept.
"""

from __future__ import annotations

import sys
import threading
from collections import OrderedDict, deque
from typing import Callable, Hashable

from ...game.core.text import N_

#: native threads the plans are reckoned on (the loop's thread takes turns at the GIL with each one running)
THREADS = 2
#: requests of one game waiting or running at once; past it, ``Busy``
PER_GAME = 3
#: requests of one GM (one client address) waiting or running at once, over all its games; past it, ``Busy``
PER_GM = 6
BUSY = N_("the server is busy with this table's plans: try again in a moment")
BUSY_GM = N_("the server is busy with the plans this device asked for: try again in a moment")


class Busy(Exception):
    """A queue is full: nothing was started (``message`` says which, an N_-marked id: ``BUSY`` the game's,
    ``BUSY_GM`` the GM's)."""

    def __init__(self, message: str = BUSY) -> None:
        super().__init__(message)
        self.message = message


class _Ticket:
    __slots__ = ("granted", "key", "gm")

    def __init__(self, key, gm) -> None:
        self.key, self.gm = key, gm
        self.granted = threading.Event()  # gevent's under ``tacmap serve`` (every caller a greenlet of the loop)


class Fair:
    """Fair shares of a pool of ``threads`` between GMs and between games (module docstring). ``runner(work,
    *args)`` runs the work off the loop and returns what it returned (``geometry.runner``); None: in the caller's
    thread. ``per_key``: a game's bound, ``per_gm``: a GM's."""

    def __init__(self, runner: Callable | None, threads: int = THREADS, per_key: int = PER_GAME,
                 per_gm: int = PER_GM) -> None:
        self.runner = runner
        self.threads = threads
        self.per_key = per_key
        self.per_gm = per_gm
        self._lock = threading.Lock()
        # GM -> its games -> their tickets, each by first come
        self._waiting: OrderedDict[Hashable, OrderedDict[Hashable, deque[_Ticket]]] = OrderedDict()
        self._load: dict[Hashable, int] = {}  # requests waiting or running, by game and by GM (``_gm``)
        self._running: dict[Hashable, int] = {}  # by game and by GM
        self._served: dict[Hashable, int] = {}  # when each game or GM busy now was last given a thread (``_clock``)
        self._clock = 0
        self._free = threads

    @staticmethod
    def _gm(key: Hashable, gm: Hashable | None) -> tuple:
        """A GM's name among the games' (a game whose asker is no one's is a GM of its own)."""
        return ("gm", gm) if gm is not None else ("gm of", key)

    def run(self, key: Hashable, work: Callable, *args, gm: Hashable | None = None):
        """``work(*args)`` on the pool in ``key``'s turn, among ``gm``'s games in ``gm``'s turn (None: the game is
        its GM's only one); what it returned (or raised). ``Busy`` at once when ``key`` has ``per_key`` requests
        already, or ``gm`` ``per_gm``."""
        ticket = self._enter(key, self._gm(key, gm))
        try:
            ticket.granted.wait()
        except BaseException:  # the asker went away while it waited (its greenlet killed): its place is freed
            if not self._forget(ticket):
                self._leave(ticket)
            raise
        try:
            return self.runner(work, *args) if self.runner is not None else work(*args)
        finally:
            self._leave(ticket)

    def load(self, key: Hashable) -> int:
        """``key``'s requests waiting or running now."""
        with self._lock:
            return self._load.get(key, 0)

    def load_gm(self, gm: Hashable) -> int:
        """``gm``'s requests waiting or running now, over all its games."""
        with self._lock:
            return self._load.get(self._gm(None, gm), 0)

    def _enter(self, key, gm) -> _Ticket:
        with self._lock:
            if self._load.get(key, 0) >= self.per_key:
                raise Busy(BUSY)
            if self._load.get(gm, 0) >= self.per_gm:
                raise Busy(BUSY_GM)
            ticket = _Ticket(key, gm)
            self._waiting.setdefault(gm, OrderedDict()).setdefault(key, deque()).append(ticket)
            for k in (key, gm):
                self._load[k] = self._load.get(k, 0) + 1
            self._grant()
        return ticket

    def _unload(self, ticket: _Ticket) -> None:
        """One request of the ticket's game and GM fewer (the lock held); a game or GM with none is forgotten (it
        comes back as new)."""
        for k in (ticket.key, ticket.gm):
            self._load[k] -= 1
            if not self._load[k]:
                del self._load[k]
                self._served.pop(k, None)

    def _forget(self, ticket: _Ticket) -> bool:
        """A waiting ticket taken out of its queue; False when it was granted meanwhile (its place is held)."""
        with self._lock:
            games = self._waiting.get(ticket.gm)
            queue = games.get(ticket.key) if games is not None else None
            if queue is None or ticket not in queue:
                return False
            queue.remove(ticket)
            if not queue:
                del games[ticket.key]
                if not games:
                    del self._waiting[ticket.gm]
            self._unload(ticket)
            return True

    def _leave(self, ticket: _Ticket) -> None:
        with self._lock:
            for k in (ticket.key, ticket.gm):
                self._running[k] -= 1
                if not self._running[k]:
                    del self._running[k]
            self._unload(ticket)
            self._free += 1
            self._grant()

    def _grant(self) -> None:
        """Free threads to the waiting GMs in turn, and within a GM to its games in turn, one running per GM and
        per game (the lock held)."""
        while self._free > 0:
            chosen = None  # (GM, its games that may start)
            for gm, games in self._waiting.items():  # by first come: of the never served, the first
                if self._running.get(gm):
                    continue
                ready = [k for k in games if not self._running.get(k)]
                if ready and (chosen is None or self._served.get(gm, -1) < self._served.get(chosen[0], -1)):
                    chosen = (gm, ready)
            if chosen is None:
                return
            gm, ready = chosen
            key = min(ready, key=lambda k: self._served.get(k, -1))  # stable: of the never served, the first come
            games = self._waiting[gm]
            ticket = games[key].popleft()
            if not games[key]:
                del games[key]
                if not games:
                    del self._waiting[gm]
            self._clock += 1
            for k in (key, gm):
                self._served[k] = self._clock
                self._running[k] = self._running.get(k, 0) + 1
            self._free -= 1
            ticket.granted.set()


#: seconds a thread off the loop works between two waits for the loop (``Pacer``), and the longest it waits for the
#: loop to be idle (a loop that never idles still leaves the plans a share)
SLICE = 0.005
MOST_WAIT = 0.005
SWITCH_INTERVAL = 0.0001


class Pacer:
    """The loop's thread first: a thread off the loop that has worked ``SLICE`` seconds since its last breath, or
    that sees the loop woke since, waits, at its next ``breathe`` (``webapp/game/bridge/heavy.py``: the plans' reckoning calls it between the attacks it
    judges), until gevent's loop has nothing else to do, at most ``MOST_WAIT``. Under the GIL a thread that runs
    takes turns with the loop's thread every switch interval, and each time the loop wakes for a socket it waits
    for its turn again: another table's move took 6 ms alone and 50 ms beside one table's plans. Made on the
    loop's thread (it knows its loop); ``breathe`` there does nothing."""

    def __init__(self) -> None:
        from gevent import get_hub
        from gevent.monkey import get_original

        self._loop = get_hub().loop
        # a wake of the loop (a socket, the store's writer done) while a reckoning thread holds the GIL waits for
        # the switch interval before it may run: shorter than the store's 0.5 ms, as the pacer keeps the threads
        # from taking turns with the loop otherwise (a switch costs only where two threads want the GIL)
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        self._ident = get_original("_thread", "get_ident")
        self._new_lock = get_original("_thread", "allocate_lock")
        self._loop_thread = self._ident()
        self._since: dict[int, float] = {}  # a thread's last breath (perf_counter), by native thread id
        self.breaths = 0  # waits for the loop (tests read it)
        # the loop woke (a socket, a timer, a thread's answer): a thread off the loop lets it run at its next breath,
        # not only once its slice is over (set by a check watcher, run as the loop wakes; cleared once it is idle)
        self.woke = False
        self._waking = self._loop.check(ref=False)
        self._waking.start(self._woken)

    def _woken(self) -> None:
        self.woke = True

    def breathe(self) -> None:
        me = self._ident()
        if me == self._loop_thread:
            return
        now = _clock()
        last = self._since.get(me)
        if last is None or now - last > 1.0:  # the first breath of a new work: it starts its slice now
            self._since[me] = now
            return
        if now - last < SLICE and not self.woke:
            return
        lock = self._new_lock()
        lock.acquire()
        self._loop.run_callback_threadsafe(self._when_idle, lock)
        lock.acquire(timeout=MOST_WAIT)
        self.breaths += 1
        if len(self._since) > 64:  # ids of the pool's threads that ended (an idle thread ends after seconds)
            self._since.clear()
        self._since[me] = _clock()

    def _when_idle(self, lock) -> None:
        """On the loop: ``lock`` released once the loop has nothing else to do."""
        watcher = self._loop.idle()

        def idle() -> None:
            watcher.stop()
            watcher.close()
            self.woke = False
            lock.release()

        watcher.start(idle)


def _clock() -> float:
    import time

    return time.perf_counter()
