"""The native threads a big map's geometry runs on under ``tacmap serve`` (``webapp/game/bridge/heavy.py``, issue #57).

A field of view, a path or a board's index on the largest accepted map is tens to hundreds of milliseconds of
pure Python. It runs in a pool of its own (one thread: under the GIL a second would only take more of the loop's
turns; an idle thread ends after a few seconds) while the command's greenlet waits with its game's lock held:
the game's commands keep their order, and the loop's thread takes the GIL back every switch interval (0.5 ms, as
for the store's writer thread), so every other table goes on meanwhile. Back on the loop, the command goes on
once the loop is idle (``idle``): what the other tables have to do comes first. Without gevent (the app tests,
the command-line tools) there is no pool and the work runs where it is asked.
"""

from __future__ import annotations

import sys

from ...storage.durable import WRITER_SWITCH_INTERVAL

THREADS = 1
IDLE_SECONDS = 5.0  # an idle thread of the pool ends after this long (the process's thread count comes back)


def runner(threads: int = THREADS):
    """``run(work, *args)``, which runs ``work(*args)`` on a pool of ``threads`` and returns (or raises) what it did,
    when the process is gevent's (the standard library patched); else None."""
    try:
        from gevent import monkey
        from gevent.threadpool import ThreadPool
    except ImportError:
        return None
    if not monkey.is_module_patched("threading"):
        return None
    pools: list = []

    def run(work, *args):
        if not pools:  # made at first use, on the loop's thread
            pools.append(ThreadPool(threads, idle_task_timeout=IDLE_SECONDS))
            sys.setswitchinterval(min(sys.getswitchinterval(), WRITER_SWITCH_INTERVAL))
        value, error = pools[0].apply(_caught, (work, args))
        idle()  # what the other tables have to do meanwhile goes first
        if error is not None:
            raise error
        return value
    return run


def pause() -> None:
    """Between two slices of a big map's drawing: every other greenlet ready to run (another table's command, a
    page, a socket's writes) runs first, and this one goes on when the loop has nothing else to do (gevent's
    ``idle``); without gevent, nothing."""
    try:
        from gevent import monkey
    except ImportError:
        return
    if monkey.is_module_patched("threading"):
        idle()


def loop_pacer():
    """The pacer of a big map's data on the loop (``rules.pacing.set_pacer``, #69): ``pause`` when called on the
    loop's own thread (a board built from its data, written out, a map's text checked: pure Python that would
    hold every table), nothing in a native thread of a pool (where the GIL's switch interval shares the time
    already, and where gevent's ``idle`` would wait on a loop of that thread's own); None without gevent (the
    app tests, the command-line tools)."""
    try:
        from gevent import monkey
    except ImportError:
        return None
    if not monkey.is_module_patched("threading"):
        return None
    get_ident = monkey.get_original("_thread", "get_ident")
    loop_thread = get_ident()  # made on the loop's thread (the hub's parts are, at the server's start)

    def pacer() -> None:
        if get_ident() == loop_thread:
            idle()
    return pacer


def idle() -> None:
    """Wait until gevent's loop has nothing else to do."""
    import gevent

    gevent.idle()


def _caught(work, args) -> tuple:
    """(what ``work(*args)`` returned, None) or (None, what it raised), raised again in the waiting greenlet."""
    try:
        return work(*args), None
    except Exception as exc:  # noqa: BLE001 (raised again by the caller)
        return None, exc
