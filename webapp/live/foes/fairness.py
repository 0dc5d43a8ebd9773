"""The foes' plans off the loop, fairly between tables (issue #72, "one thread reckons every table's plans").

Reckoning a foe's plans is pure Python, milliseconds on a small map, seconds for a big fight (150 x 150, 60 foes).
It ran on one native thread for the whole server, first come first served with no bound: a GM asking plans from
six tabs of a big fight queued every other table's plans behind theirs (a 0.01 s plan waited 1.8-12.6 s).

``Fair`` hands the work to a small pool of native threads (``THREADS``, gevent's pool: ``geometry.runner``) through
one queue per key, a key being a game (a game's GM is its one key holder, so per game is per GM):

- at most one piece of a key's work runs at once (a game's plans one after another: one table cannot take the
  whole pool), so another table's request starts as soon as a thread is free, at worst once the one running work
  of some other table ends, whatever that table has queued;
- a free thread goes to the keys in turn (round-robin: of the keys waiting, the one last served longest ago,
  one never served first), never to the key that asked most;
- a key holds at most ``PER_GAME`` requests, waiting and running; the next is refused at once with ``Busy`` (the
  routes: HTTP 429 and "busy, try again"), the game untouched.

Why two threads and not one per core: under the GIL pure-Python work on threads does not run in parallel, and
each thread that runs takes turns at the GIL with the loop's thread (the other tables' moves); two are what keeps
a short request from waiting behind a long one. And the loop's thread goes first (``Pacer``): a reckoning thread
lets the loop run whenever it woke, at the breaths the reckoning takes (``heavy.breathe``). Without gevent (the app tests, the command-line tools) the work
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
#: requests of one game (one GM) waiting or running at once; past it, ``Busy``
PER_GAME = 3
BUSY = N_("the server is busy with this table's plans: try again in a moment")


class Busy(Exception):
    """The key's queue is full: nothing was started (``message`` says so, an N_-marked id)."""

    message = BUSY

    def __init__(self) -> None:
        super().__init__(BUSY)


class _Ticket:
    __slots__ = ("granted", "key")

    def __init__(self, key) -> None:
        self.key = key
        self.granted = threading.Event()  # gevent's under ``tacmap serve`` (every caller a greenlet of the loop)


class Fair:
    """Fair shares of a pool of ``threads`` between keys (module docstring). ``runner(work, *args)`` runs the work
    off the loop and returns what it returned (``geometry.runner``); None: in the caller's thread."""

    def __init__(self, runner: Callable | None, threads: int = THREADS, per_key: int = PER_GAME) -> None:
        self.runner = runner
        self.threads = threads
        self.per_key = per_key
        self._lock = threading.Lock()
        self._waiting: OrderedDict[Hashable, deque[_Ticket]] = OrderedDict()  # by first come
        self._running: dict[Hashable, int] = {}
        self._served: dict[Hashable, int] = {}  # when each key busy now was last given a thread (``_clock``)
        self._clock = 0
        self._free = threads

    def run(self, key: Hashable, work: Callable, *args):
        """``work(*args)`` on the pool in ``key``'s turn; what it returned (or raised). ``Busy`` at once when
        ``key`` has ``per_key`` requests already."""
        ticket = self._enter(key)
        try:
            ticket.granted.wait()
        except BaseException:  # the asker went away while it waited (its greenlet killed): its place is freed
            if not self._forget(ticket):
                self._leave(key)
            raise
        try:
            return self.runner(work, *args) if self.runner is not None else work(*args)
        finally:
            self._leave(key)

    def load(self, key: Hashable) -> int:
        """``key``'s requests waiting or running now."""
        with self._lock:
            return len(self._waiting.get(key, ())) + self._running.get(key, 0)

    def _enter(self, key) -> _Ticket:
        with self._lock:
            queue = self._waiting.get(key)
            if (len(queue) if queue else 0) + self._running.get(key, 0) >= self.per_key:
                raise Busy()
            ticket = _Ticket(key)
            if queue is None:
                queue = self._waiting[key] = deque()
            queue.append(ticket)
            self._grant()
        return ticket

    def _forget(self, ticket: _Ticket) -> bool:
        """A waiting ticket taken out of its queue; False when it was granted meanwhile (its place is held)."""
        with self._lock:
            queue = self._waiting.get(ticket.key)
            if queue is None or ticket not in queue:
                return False
            queue.remove(ticket)
            if not queue:
                del self._waiting[ticket.key]
                if not self._running.get(ticket.key):
                    self._served.pop(ticket.key, None)
            return True

    def _leave(self, key) -> None:
        with self._lock:
            self._running[key] -= 1
            if not self._running[key]:
                del self._running[key]
                if key not in self._waiting:  # nothing more of it: forgotten (it comes back as new)
                    self._served.pop(key, None)
            self._free += 1
            self._grant()

    def _grant(self) -> None:
        """Free threads to the waiting keys in turn, one running per key (the lock held)."""
        while self._free > 0:
            ready = [k for k in self._waiting if not self._running.get(k)]
            if not ready:
                return
            key = min(ready, key=lambda k: self._served.get(k, -1))  # stable: of the never served, the first come
            queue = self._waiting[key]
            ticket = queue.popleft()
            if not queue:
                del self._waiting[key]
            self._clock += 1
            self._served[key] = self._clock
            self._running[key] = self._running.get(key, 0) + 1
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
