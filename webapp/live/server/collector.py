"""Python's cycle collector, run when the server has nothing else to do rather than in the middle of a move.

CPython starts a collection of its young objects once 700 more have been made than freed, wherever that happens:
in a move, that is while the update is being drawn or sent (about a fifth of the bench's moves met one), and every
tenth of those collections walks the middle generation too (0.6-0.8 ms, about one move in thirty-five). Each is
a pause every screen of the table sees as a later update.

``QuietCollector`` (started by ``tacmap serve``, after the start's ``gc.freeze()``) raises the automatic
threshold to ``BACKSTOP`` and, at the end of each request or Socket.IO event (Flask's ``teardown_request``: an
event's handler runs in a request context of its own), when as many objects are due as CPython's own threshold
says, has gevent's loop collect them as soon as it is idle: after the answer and the updates of that event are
written, before the next event is read. The generation collected follows CPython's own rule: the middle one when
ten young collections were made since its last; the oldest when ten of those were and the objects moved into it
since its last collection are over a quarter of those it held then (counted here with ``gc.get_objects``, as
CPython counts them inside: ``held``, within one C call, issue #72). On Python 3.14's incremental collector (no third threshold) each is the young
generation and an increment of the old, as its automatic collections are.

A flood that never lets the loop idle still has its objects collected: past ``BACKSTOP`` new objects CPython
collects by itself, as before, only less often. Nothing here reaches into a library's internals: the idle
watcher is gevent's public loop API (``loop.idle()``, libev's and libuv's alike)."""

from __future__ import annotations

import gc
import logging
import threading

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


#: the young generation's automatic threshold while the collector runs at idle moments: ten times CPython's
#: default, so a flood of events with no idle moment between them still collects (a pause of about 1 ms)
BACKSTOP = 7000


class QuietCollector:
    """The cycle collector at the loop's idle moments (module docstring). Inert until ``start``."""

    def __init__(self) -> None:
        self._loop = None  # gevent's loop of the thread that started it
        self._thread: int | None = None
        self._idle = None  # the idle watcher waiting to collect, if any
        self._thresholds: tuple[int, ...] = gc.get_threshold()
        # CPython's rule for the oldest generation: the objects it held after its last collection, and those the
        # middle generation's collections moved into it since
        self._long_lived = self._pending = 0
        self.collections = 0  # made at idle moments (tests and benchmarks read it)

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
        self._long_lived, self._pending = held(2), 0
        self._loop, self._thread = loop, _thread_id()
        gc.set_threshold(max(BACKSTOP, thresholds[0]), *thresholds[1:])
        return True

    def stop(self) -> None:
        """CPython's own timing again (its thresholds as they were at ``start``)."""
        if self._loop is None:
            return
        self._drop_idle()
        gc.set_threshold(*self._thresholds)
        self._loop = self._thread = None

    def after_work(self, *_args) -> None:
        """A request or event is done: when enough new objects are due, collect them once the loop is idle.
        (Flask's ``teardown_request`` hands it the request's exception, if any: not needed.)"""
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

    def _collect(self) -> None:
        self._drop_idle()
        generation = self.generation_due()
        if generation == 2:
            gc.collect(2)
            self._long_lived, self._pending = held(2), 0
        elif generation == 1 and self._thresholds[2]:
            before = held(0, 1)
            self._pending += max(0, before - gc.collect(1))  # the survivors are the oldest generation's now
        else:
            gc.collect(generation)
        self.collections += 1

    def generation_due(self) -> int:
        """The oldest generation CPython would collect now, by its counts, thresholds and long-lived objects
        (module docstring)."""
        _young, middle, oldest = self._thresholds
        if not oldest:  # Python 3.14's incremental collector: the young generation and an increment of the old
            return 1
        counts = gc.get_count()
        if counts[2] >= oldest and self._pending > self._long_lived // 4:
            return 2
        return 1 if counts[1] >= middle else 0


#: the process's one collector (``tacmap serve`` starts it)
COLLECTOR = QuietCollector()


def init_app(app) -> None:
    """Every request and Socket.IO event, once done, may have the collector run at the next idle moment."""
    app.teardown_request(COLLECTOR.after_work)
