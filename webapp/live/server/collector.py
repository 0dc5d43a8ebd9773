"""Python's cycle collector, run when the server has nothing else to do rather than in the middle of a move.

CPython starts a collection of its young objects once 700 more have been made than freed, wherever that happens:
in a move, that is while the update is being drawn or sent (about a fifth of the bench's moves met one), and every
tenth of those collections walks the middle generation too (0.6-0.8 ms, about one move in thirty-five). Each is
a pause every screen of the table sees as a later update.

``QuietCollector`` (started by ``tacmap serve``, after the start's ``gc.freeze()``) raises the automatic
threshold to ``BACKSTOP`` and, at the end of each request or Socket.IO event (Flask's ``teardown_request``: an
event's handler runs in a request context of its own), when as many objects are due as CPython's own threshold
says, has gevent's loop collect them as soon as it is idle: after the answer and the updates of that event are
written, before the next event is read.

What it collects: every object made since its last collection (``gc.collect()`` with the rest frozen), and the
survivors are frozen in their turn (``gc.freeze()``: out of every later collection's walk). CPython's own way walks
a survivor again at each collection of the middle generation and each of the oldest, and on a big map those
survivors are the board's lists of 90,000 squares and the fog's sets of 80,000 (a set's walk reads every slot of
its table): each such collection held the loop 90-130 ms on a 2-core machine (#69, timed with ``gc.callbacks``:
every one of another table's moves over 100 ms beside a 300 x 300 map's fog, moves and picture sat on one). Frozen,
a survivor is walked once. What a frozen object's death by reference count frees is freed as ever; only a cycle
of them that is dropped later waits for the thaw: once a quarter more objects are frozen than after the last
thaw (CPython's own rule for its oldest generation), they are all thawed (``gc.unfreeze()``), everything is
collected and what lives is frozen again, at the first moment no request or event has ended for ``QUIET_FOR``
seconds: that collection walks the whole heap (100-150 ms with a big map), and held there every table that played
(a big map made or imported: another table's move 130-156 ms, against 64-77 before). A server that is never quiet
that long thaws at its next collection once ``THAW_AT_MOST`` more objects are frozen than after the last thaw
(or as many again, if that is more). On Python 3.14's incremental collector the same (``gc.freeze`` is
there too).

A flood that never lets the loop idle still has its objects collected: past ``BACKSTOP`` new objects CPython
collects by itself, as before, only less often (its collections walk only what is not frozen). Nothing here reaches
into a library's internals: the idle watcher is gevent's public loop API (``loop.idle()``, libev's and libuv's
alike), freezing and thawing are the ``gc`` module's."""

from __future__ import annotations

import gc
import logging
import threading
import time

log = logging.getLogger(__name__)


try:  # the native thread's id: gevent's patched ``threading.get_ident`` tells greenlets apart (every request runs
    # in a greenlet of its own, all of them in the loop's thread); its original, saved when it patched (or not yet
    # patched: the same function)
    from gevent.monkey import get_original

    _thread_id = get_original("_thread", "get_ident")
except ImportError:
    _thread_id = threading.get_ident

def held(*generations: int) -> int:
    """The objects the collector tracks in ``generations``, counted within one C call (``sum`` over ``map``): the
    list ``gc.get_objects`` returns is never seen by the interpreter's loop, so the GIL is never handed over while
    it exists. That list holds every young object of the process, another thread's half-built tuple too (issue
    #72): ``tuple(<generator>)`` resizes its tuple in place at the end, which CPython refuses once something
    else holds it (``SystemError: Objects/tupleobject.c: bad argument to internal function``), and the loop's
    thread may hand the GIL to the reckoning thread at the end of any call (``len(gc.get_objects(0))`` did, one
    plan request in 200 under load)."""
    return sum(map(len, map(gc.get_objects, generations)))


QUIET_FOR = 1.0  #: seconds with no request or event ended before a due thaw walks the whole heap
#: frozen objects past the last thaw's by this many (or as many again, if more): thawed at the next collection,
#: quiet or not. A big map made brings 100,000-200,000 (its walls, their segments, its board's indexes): no thaw
#: in the middle of its making for it
THAW_AT_MOST = 500_000

#: the young generation's automatic threshold while the collector runs at idle moments: ten times CPython's
#: default, so a flood of events with no idle moment between them still collects (a pause of about 1 ms)
BACKSTOP = 7000


class QuietCollector:
    """The cycle collector at the loop's idle moments (module docstring). Inert until ``start``."""

    def __init__(self, quiet_for: float = QUIET_FOR) -> None:
        self.quiet_for = quiet_for
        self._last_work = 0.0  # when the last request or event ended (monotonic)
        self._waiting = None  # the timer of a thaw waiting for a quiet moment, if any
        self._loop = None  # gevent's loop of the thread that started it
        self._thread: int | None = None
        self._idle = None  # the idle watcher waiting to collect, if any
        self._thresholds: tuple[int, ...] = gc.get_threshold()
        self._long_lived = 0  # the frozen objects after the last thaw (or the start): ``thaw_due``
        self._frozen = 0  # the frozen objects now, or more (those freed since are not counted off)
        self._counted = 0  # the frozen objects at the last exact count (``_recount``)
        self._due = False  # a thaw is due (``thaw_due``), until it is made
        self.collections = 0  # made at idle moments (tests and benchmarks read it)
        self.thaws = 0  # of them, those that thawed the frozen objects first

    def start(self) -> bool:
        """From now on collect at the loop's idle moments; False (the collector left as CPython runs it) where
        there is no gevent loop or the collector is off (``gc.disable()``, a threshold of 0)."""
        if self._loop is not None:
            return True
        thresholds = gc.get_threshold()
        if not gc.isenabled() or thresholds[0] <= 0:
            return False
        try:
            from gevent import get_hub

            loop = get_hub().loop
            loop.idle  # noqa: B018 (gevent's loops have idle watchers; checked before the threshold changes)
        except Exception as exc:  # noqa: BLE001 (no gevent, or a loop without them: CPython's own timing)
            log.info("the cycle collector runs as CPython times it (%s)", exc)
            return False
        self._thresholds = thresholds
        self._long_lived = self._frozen = self._counted = gc.get_freeze_count()
        self._due = False
        self._loop, self._thread = loop, _thread_id()
        gc.set_threshold(max(BACKSTOP, thresholds[0]), *thresholds[1:])
        return True

    def stop(self) -> None:
        """CPython's own timing again (its thresholds as they were at ``start``; what it froze thawed)."""
        if self._loop is None:
            return
        self._drop_idle()
        self._drop_waiting()
        if self.collections:
            gc.unfreeze()
        gc.set_threshold(*self._thresholds)
        self._loop = self._thread = None

    def after_work(self, *_args) -> None:
        """A request or event is done: when enough new objects are due, collect them once the loop is idle.
        (Flask's ``teardown_request`` hands it the request's exception, if any: not needed.)"""
        self._last_work = time.monotonic()
        if (self._loop is None or self._idle is not None or _thread_id() != self._thread
                or gc.get_count()[0] < self._thresholds[0]):
            return
        self._idle = self._loop.idle()
        self._idle.start(self._collect)

    def _drop_idle(self) -> None:
        idle, self._idle = self._idle, None
        if idle is not None:
            idle.stop()
            idle.close()

    def _drop_waiting(self) -> None:
        waiting, self._waiting = self._waiting, None
        if waiting is not None:
            waiting.stop()
            waiting.close()

    def _collect(self, thaw: bool = False) -> None:
        self._drop_idle()
        if not thaw and self.thaw_due():
            thaw = self.quiet() or self._past_most()
            if not thaw:
                self._thaw_when_quiet()
        if thaw:
            self._drop_waiting()
            gc.unfreeze()
        gc.collect()  # what is not frozen: made since the last collection (or, thawed, everything)
        survivors = held(2)  # (a full collection leaves them all in the oldest generation)
        gc.freeze()
        if thaw:
            self._long_lived = self._frozen = self._counted = survivors
            self._due = False
            self.thaws += 1
        else:
            self._frozen += survivors
        self.collections += 1

    def quiet(self) -> bool:
        """Whether no request or event has ended for ``quiet_for`` seconds."""
        return time.monotonic() - self._last_work >= self.quiet_for

    def _thaw_when_quiet(self) -> None:
        """A thaw at the first quiet moment (``quiet``): looked for every ``quiet_for`` seconds."""
        if self._waiting is not None or self._loop is None:
            return
        self._waiting = self._loop.timer(self.quiet_for)
        self._waiting.start(self._look)

    def _look(self) -> None:
        self._drop_waiting()
        if self._loop is None or not self.thaw_due():
            return
        if self.quiet():
            self._collect(thaw=True)
        else:
            self._thaw_when_quiet()

    def thaw_due(self) -> bool:
        """Whether a quarter more objects are frozen than after the last thaw (CPython's rule for walking its
        oldest generation again: module docstring); once due, due until the thaw is made. Counted exactly only when
        the survivors frozen since say it may be (``_recount``)."""
        if not self._due and self._over(self._frozen):
            self._recount()
            self._due = self._over(self._frozen)
        return self._due

    def _past_most(self) -> bool:
        """Whether ``THAW_AT_MOST`` more objects are frozen than after the last thaw (or as many again, if more):
        a thaw then is made at once, quiet or not (``_recount``: exact enough)."""
        most = self._long_lived + max(THAW_AT_MOST, self._long_lived)
        if self._frozen > most:
            self._recount()
        return self._frozen > most

    def _recount(self) -> None:
        """The frozen objects counted exactly (``gc.get_freeze_count`` walks them: 2 ms for 240,000 on a small
        machine) when a sixteenth more of the long-lived ones were frozen since the last count; between, the
        count of survivors added up is taken (more than there are only by the frozen ones freed since). Counted at
        every collection, a thaw waiting for a quiet moment while another table played made each of its moves'
        collections walk them all: a big map's making took twice as long beside it (#69)."""
        if self._frozen - self._counted >= max(1000, self._long_lived // 16):
            self._frozen = self._counted = gc.get_freeze_count()

    def _over(self, frozen: int) -> bool:
        return frozen - self._long_lived > self._long_lived // 4


#: the process's one collector (``tacmap serve`` starts it)
COLLECTOR = QuietCollector()


def init_app(app) -> None:
    """Every request and Socket.IO event, once done, may have the collector run at the next idle moment."""
    app.teardown_request(COLLECTOR.after_work)
