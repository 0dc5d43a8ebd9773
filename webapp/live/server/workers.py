"""Worker processes for pure-Python work that takes long, under ``tacmap serve``: the foes' plans (issue #72, "the
pool has the threads or processes the machine can give").

A reckoning on a native thread shares the GIL with the loop's thread: each time the loop wakes (another table's
move, a page) it waits for its turn at the GIL, and the reckoning takes it back every switch interval until it
next lets the loop go first (``fairness.Pacer``). Measured on 2 cores, another table's median move beside one big
fight's plans was 1.3-1.57 times its pace alone, however often the reckoning stepped aside; beside a process
that burns a core it was 1.0-1.08 times. So the plans are reckoned in processes of their own: the loop hands a
copy of the game over a pipe (pickled, half a millisecond for a 60-foe fight) and the asking greenlet waits for the
answer in a native thread of gevent's pool (blocked in a pipe's read: the GIL is free), while the loop serves
every table at its own pace.

- ``Pool`` starts ``count`` workers at its first use (``multiprocessing``'s "spawn": the same on Linux, macOS and
  Windows; a fresh interpreter that imports what the work needs, a second or so, never a fork of the server's
  loop), each waiting for one piece of work at a time on its pipe. The caller bounds how many run at once
  (``fairness.Fair``): never more than ``count``.
- A worker that died (its pipe closed: killed, out of memory) answers that one piece of work with
  ``WorkerGone``, and is started anew for the next.
- Where no worker can be started (a build whose Python cannot spawn one), ``runner`` says so and the caller keeps
  its native threads.
- A worker ends with the server: it reads its pipe until the server's end closes (the server exits, or is killed).
"""

from __future__ import annotations

import importlib
import logging
import multiprocessing
import os
import sys
import threading
from typing import Callable

log = logging.getLogger(__name__)

#: seconds a new worker has to say it is ready (its imports done), else it is taken as unable to start
START_SECONDS = 60.0


_IN_WORKER: list = []  # [True] in a worker process


def in_worker() -> bool:
    """Whether this process is one of the server's workers (``serve``)."""
    return bool(_IN_WORKER)


class WorkerGone(RuntimeError):
    """The worker process ended before it answered (it is started anew for the next piece of work)."""


def idle_class() -> bool:
    """Whether a worker that steps back (``step_back``) runs only on a core nobody else wants: Linux's idle class
    (``SCHED_IDLE``: the kernel gives it the CPU only when no other process of the machine is ready to run). Elsewhere
    a lower priority only (a share of the CPU still taken from the others)."""
    return sys.platform.startswith("linux") and hasattr(os, "sched_setscheduler") and hasattr(os, "SCHED_IDLE")


def step_back() -> None:
    """This process behind the others at the CPU: in Linux's idle class (``idle_class``), else nice 10 where the system
    has it (macOS), a below-normal priority class on Windows; where none can be set, as it is."""
    try:
        if idle_class():
            try:
                os.sched_setscheduler(0, os.SCHED_IDLE, os.sched_param(0))
                return
            except OSError:  # (a container that refuses it: nice, as elsewhere)
                log.info("this worker could not take the idle class", exc_info=True)
        if hasattr(os, "nice"):
            os.nice(10)
        elif sys.platform == "win32":
            import ctypes

            kernel = ctypes.windll.kernel32  # type: ignore[attr-defined]
            kernel.SetPriorityClass(kernel.GetCurrentProcess(), 0x00004000)  # BELOW_NORMAL_PRIORITY_CLASS
    except (OSError, AttributeError):
        log.info("this worker's priority could not be lowered", exc_info=True)


def serve(requests, answers, preload: tuple[str, ...] = (), behind: bool = False) -> None:
    """A worker's life: ``behind``, its priority lowered first (``step_back``: work nobody waits on at the table, a
    forecast); the modules ``preload`` imported (what its work needs: its first piece of work does not wait for them),
    ready, then each ``(work, args)`` read from ``requests`` answered on ``answers`` with ``(True, work(*args))`` or
    ``(False, what it raised)``, until the server's end of the pipe closes."""
    _IN_WORKER[:] = [True]
    if behind:
        step_back()
    for name in preload:
        importlib.import_module(name)
    answers.send((True, "ready"))
    while True:
        try:
            work, args = requests.recv()
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 (what could not be read is answered as an error)
            _answer(answers, exc)
            continue
        try:
            value = work(*args)
        except Exception as exc:  # noqa: BLE001 (raised again in the server)
            _answer(answers, exc)
            continue
        try:
            answers.send((True, value))
        except (EOFError, OSError):
            return
        except Exception as exc:  # noqa: BLE001 (an answer that cannot be sent is an error of its own)
            _answer(answers, exc)


def _answer(answers, exc: Exception) -> None:
    """``exc`` sent back as it is, or as a RuntimeError with its words when it cannot be pickled."""
    try:
        answers.send((False, exc))
    except (EOFError, OSError):
        raise SystemExit(0) from None
    except Exception:  # noqa: BLE001 (an exception that does not pickle: its words travel)
        answers.send((False, RuntimeError(f"{type(exc).__name__}: {exc}")))


class _Worker:
    """One worker process and the server's ends of its two pipes."""

    def __init__(self, context, preload: tuple[str, ...] = (), behind: bool = False) -> None:
        requests_in, self.requests = context.Pipe(duplex=False)
        self.answers, answers_out = context.Pipe(duplex=False)
        self.process = context.Process(target=serve, args=(requests_in, answers_out, preload, behind), daemon=True,
                                       name="tacmap-worker")
        self.process.start()
        requests_in.close()  # the worker's ends: its own now (closed here, its end of file is the server's)
        answers_out.close()
        self.alive = True

    def ready(self) -> bool:
        """Whether the worker said it is ready within ``START_SECONDS`` (blocking: in a native thread)."""
        try:
            if not self.answers.poll(START_SECONDS):
                return False
            return self.answers.recv() == (True, "ready")
        except (EOFError, OSError):
            return False

    def call(self, work: Callable, args: tuple):
        """``work(*args)`` in the worker (blocking: in a native thread); what it returned, or what it raised."""
        try:
            self.requests.send((work, args))
            ok, value = self.answers.recv()
        except (EOFError, OSError, BrokenPipeError) as exc:
            self.alive = False
            raise WorkerGone(f"a worker process ended before it answered ({exc!r})") from None
        if not ok:
            raise value
        return value

    def close(self) -> None:
        self.alive = False
        for end in (self.requests, self.answers):
            try:
                end.close()
            except OSError:
                pass


class Pool:
    """``count`` worker processes, each with the modules ``preload`` imported before it says it is ready;
    ``threads(work, *args)`` runs blocking work in a native thread while the calling greenlet waits
    (``geometry.runner``)."""

    def __init__(self, count: int, threads: Callable, preload: tuple[str, ...] = (), behind: bool = False) -> None:
        self.count = count
        self.preload = tuple(preload)
        self.behind = behind
        self._threads = threads
        self._free: list[_Worker] = []
        self._lock = threading.Lock()  # gevent's under ``tacmap serve``: every caller a greenlet of the loop
        self._context = multiprocessing.get_context("spawn")

    def start(self) -> bool:
        """All ``count`` workers started and ready (they start side by side); False, each stopped, when one could
        not be."""
        made = self._threads(self._spawn, self.count)
        if made is None:
            return False
        self._free += made
        return True

    def _spawn(self, count: int) -> list[_Worker] | None:
        """``count`` new workers, ready; None when one could not start (blocking: in a native thread)."""
        made: list[_Worker] = []
        try:
            for _ in range(count):
                made.append(_Worker(self._context, self.preload, self.behind))
        except Exception:  # noqa: BLE001 (a Python that cannot spawn: the caller keeps its threads)
            log.exception("a worker process could not be started")
        if len(made) == count and all(w.ready() for w in made):
            return made
        if len(made) == count:
            log.error("a worker process did not say it is ready within %s s", START_SECONDS)
        for w in made:
            w.close()
        return None

    def run(self, work: Callable, *args):
        """``work(*args)`` in a free worker, the calling greenlet waiting; what it returned, or what it raised
        (``WorkerGone`` when the worker died meanwhile: a new one takes its place). The caller never runs more
        than ``count`` at once."""
        with self._lock:
            worker = self._free.pop() if self._free else None
        if worker is None or not worker.alive:
            made = self._threads(self._spawn, 1)
            if made is None:
                raise WorkerGone("no worker process could be started")
            worker = made[0]
        try:
            return self._threads(worker.call, work, args)
        except Exception:
            raise
        except BaseException:  # the waiting greenlet killed: its answer may still come, so the worker goes too
            worker.alive = False
            raise
        finally:
            if worker.alive:
                with self._lock:
                    self._free.append(worker)
            else:
                worker.close()
                log.warning("a worker process ended; a new one is started for the next piece of work")


def runner(count: int, preload: tuple[str, ...] = (), behind: bool = False) -> Callable | None:
    """``run(work, *args)`` on ``count`` worker processes under ``tacmap serve`` (gevent's; the workers started
    now, ``preload`` imported in each, ``behind``: at a lower priority, ``step_back``), else None: without gevent, or
    where no worker process can be started (the caller keeps its threads)."""
    from . import geometry

    threads = geometry.runner(count)
    if threads is None:
        return None
    pool = Pool(count, threads, preload, behind)
    if not pool.start():
        log.warning("no worker process could be started: the foes' plans are reckoned on the server's threads")
        return None
    return pool.run
