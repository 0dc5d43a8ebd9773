"""One lane per Socket.IO connection: its commands run in the order sent.

python-socketio runs every event in a thread of its own (``async_handlers``):
a client's commands raced each other for the game's lock and ran out of the
order sent, and a client that sent two thousand moves at once started two
thousand threads that kept the server busy for minutes, the other players'
moves queued behind them and moves applied long after their sender had given
up waiting. A lane takes a connection's events as they come off the wire (in
order) and runs them on a worker of its own:

- a command runs until it has joined its game's commit queue (``Committing.commit``
  calls its ``Sending.queued``: its deadline and that callback come with it as
  one argument, which the socket handler asks the lane for, ``Lanes.sending``);
  then the next command may start on another worker, and queues behind it, so
  a client with several commands in flight has them decided in the order sent
  and stored in one transaction (at most ``IN_FLIGHT`` at once); anything
  else (a preview, a sync) starts once the commands before it are answered;

- at most ``MAX_COMMANDS`` commands wait; the next one is refused at once
  (``TOO_MANY``), so whatever is accepted is done long before the sender's
  timeout;
- a command that waited longer than ``STALE_AFTER`` (in the lane, or then for
  the game's lock: ``Sending.gives_up``) is refused, not applied: its
  sender is about to stop waiting (the page gives up after 10 s);
- previews (tokens', templates'), pings and syncs are coalesced: only the
  newest of each waits (an older preview's position is out of date; one
  fresh copy serves every sync asked).

Only this connection's worker waits on its backlog; another connection's
commands take their turn at the game's lock between two of the flooder's.

A lane's workers are threads of the process's ``Workers``: a worker whose lane has nothing more for it
waits a while (``IDLE_FOR``) for the next work of any lane, so a command does not start a thread of its
own (a thread started per command was ~5% of the server's time under sustained moves); at most ``KEEP_IDLE``
wait, and a worker that waited ``IDLE_FOR`` in vain ends (a closed connection leaves no thread behind for long).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from ... import seams
from ...game.core.text import N_
from ..committing import NO_DEADLINE, TOO_LATE, Sending
from .throttle import BUSY

log = logging.getLogger(__name__)

#: a drag's previews (token or template), pings, syncs, the table screen's box reports and a phone's reports of itself
#: are coalesced by name: only the newest waits
LANED = frozenset({"command", "preview", "template_preview", "map_ping", "sync", "screen_box", "device"})
MAX_COMMANDS = 16
#: commands of one connection started at once: each waits in its game's queue behind the one before it,
#: so they keep their order and can share one commit (``Committing.commit``)
IN_FLIGHT = 8
STALE_AFTER = 5.0
#: idle workers kept for the next work (of any lane), and how long one waits for it before it ends
KEEP_IDLE = 32
IDLE_FOR = 10.0
TOO_MANY = BUSY
FAILED = N_("the server could not do that (see its log)")


@dataclass
class Job:
    event: str
    run: Callable[[], None]  # runs the handler, which acknowledges
    answer: Callable[[dict], None]  # acknowledges now, without running
    arrived: float


class Lane:
    """The events of one connection, waiting their turn."""

    def __init__(self, start: Callable[[Callable[[], None]], None],
                 say: Callable[[str], str] = str) -> None:
        self._say = say  # a refusal (an N_-marked message) in the language of the connection's device
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._jobs: deque[Job] = deque()
        self._commands = 0  # commands waiting (not started)
        self._in_flight = 0  # commands started and not answered yet
        self._running = False  # a worker takes the next job
        self._start = start
        self.closed = False
        #: what comes with the command starting now (its deadline, whom to tell once it queued): one command at a
        #: time starts, and the next only once this one queued or was answered (``_work``)
        self._sending = NO_DEADLINE

    def offer(self, job: Job) -> None:
        answers: list[tuple[Job, dict]] = []
        with self._lock:
            if self.closed:
                return
            if job.event == "command":
                if self._commands >= MAX_COMMANDS:
                    answers.append((job, {"ok": False, "error": self._say(TOO_MANY), "code": "busy"}))
                    job = None
                else:
                    self._commands += 1
            else:
                for old in [j for j in self._jobs if j.event == job.event]:
                    self._jobs.remove(old)
                    answers.append((old, {"ok": True, "superseded": True}))
            start = False
            if job is not None:
                self._jobs.append(job)
                start, self._running = not self._running, True
        for old, reply in answers:
            old.answer(reply)
        if start:
            self._start(self._work)

    def close(self) -> None:
        """The connection is gone: what still waits is dropped (nobody is there to hear its answer)."""
        with self._lock:
            self.closed = True
            self._jobs.clear()
            self._commands = 0
            self._changed.notify_all()

    def waiting(self) -> int:
        with self._lock:
            return len(self._jobs)

    def sending(self) -> Sending:
        """What comes with the command this lane starts now, for its handler to hand to ``Hub.execute``: when its
        sender gives up (``STALE_AFTER`` after it arrived) and whom to tell once it joined its game's queue."""
        return self._sending

    def _next(self) -> Job | None:
        """The next job to start, once it may (None: nothing to do, the worker ends). A command may start
        while the ones before it wait for their commit (they joined the game's queue first: order kept),
        up to ``IN_FLIGHT``; anything else waits until the commands before it are answered."""
        with self._lock:
            while True:
                if not self._jobs or self.closed:
                    self._running = False
                    return None
                job = self._jobs[0]
                limit = IN_FLIGHT if job.event == "command" else 1
                if self._in_flight < limit:
                    self._jobs.popleft()
                    if job.event == "command":
                        self._commands -= 1
                        self._in_flight += 1
                    return job
                self._changed.wait(1.0)

    def _work(self) -> None:
        while True:
            job = self._next()
            if job is None:
                return
            if job.event == "command" and time.monotonic() - job.arrived > STALE_AFTER:
                self._answered()
                job.answer({"ok": False, "error": self._say(TOO_LATE), "code": "busy"})
                continue
            handed = []

            def queued() -> None:
                """The command joined its game's queue: the next job may start now, on another worker."""
                if handed:
                    return
                handed.append(True)
                with self._lock:
                    go = bool(self._jobs) and not self.closed
                    self._running = go
                if go:
                    self._start(self._work)

            if job.event == "command":  # the next command starts once this one queued: nothing else reads it meanwhile
                self._sending = Sending(gives_up=job.arrived + STALE_AFTER, queued=queued)
            try:
                job.run()
            except Exception:  # the handler failed before answering: answer for it
                log.exception("%s failed", job.event)
                job.answer({"ok": False, "error": self._say(FAILED)})
            finally:
                if job.event == "command":
                    self._answered()
            if handed:  # another worker goes on with the lane
                return

    def _answered(self) -> None:
        with self._lock:
            self._in_flight -= 1
            self._changed.notify_all()


class _Idle:
    """A worker waiting for work: ``wake`` is released once ``work`` is set."""

    __slots__ = ("wake", "work")

    def __init__(self) -> None:
        self.wake = threading.Lock()
        self.wake.acquire()
        self.work: Callable[[], None] | None = None


class Workers:
    """Threads that run one work after another: ``start(work)`` hands ``work`` to an idle thread (the one
    idle the shortest time) or, with none idle, starts one with ``spawn`` (the server's
    ``start_background_task``). A thread done with its work waits ``idle_for`` seconds for another, then
    ends; at most ``keep`` wait at once (the others end at once)."""

    def __init__(self, spawn: Callable[[Callable[[], None]], object], keep: int = KEEP_IDLE,
                 idle_for: float = IDLE_FOR) -> None:
        self._spawn = spawn
        self._lock = threading.Lock()
        self._idle: list[_Idle] = []
        self.keep = keep
        self.idle_for = idle_for

    def start(self, work: Callable[[], None]) -> None:
        with self._lock:
            idle = self._idle.pop() if self._idle else None
        if idle is None:
            self._spawn(lambda: self._run(work))
        else:
            idle.work = work
            idle.wake.release()

    def idle(self) -> int:
        """Threads waiting for work now."""
        with self._lock:
            return len(self._idle)

    def _run(self, work: Callable[[], None]) -> None:
        me = _Idle()
        while True:
            try:
                work()
            except Exception:  # a bug in the lane: this thread goes on serving the others
                log.exception("a lane's worker failed")
            work = None
            with self._lock:
                if len(self._idle) >= self.keep:
                    return
                self._idle.append(me)
            if not me.wake.acquire(timeout=self.idle_for):
                with self._lock:
                    if me in self._idle:  # nobody took it: it ends
                        self._idle.remove(me)
                        return
                me.wake.acquire()  # taken just now: its work is being handed over
            work, me.work = me.work, None


class Lanes:
    """Puts itself between python-socketio and the handlers of ``LANED`` events."""

    def __init__(self, server, say: Callable[[str, str], str] | None = None) -> None:
        """``say(sid, message)``: a refusal the lanes give themselves (too many, too late), in the language of the
        connection's device (the hub knows it); English without."""
        self.server = server
        self._say = say
        self._lanes: dict[str, Lane] = {}
        self._guard = threading.Lock()
        self.workers = Workers(server.start_background_task)
        # python-socketio has no public hook between reading an event and running its handler: a seam
        # (webapp/seams.py, checked at start). Without it, python-socketio's own ordered handling: each
        # connection's events run one after another on the thread that reads them (``async_handlers`` off),
        # in the order sent, as the lanes would; only the flood limits and coalescing are lost
        self._hook = hook = seams.event_hook(server)
        self.hooked = hook is not None
        if hook is None:
            server.async_handlers = False
            if seams.SOCKETIO_EVENTS.ok:  # (else the start's check said it already)
                log.warning("python-socketio %s: no lanes; events run in order on their connection's reading thread",
                            getattr(server, "__version__", "?"))
            return
        original, run = hook.original, hook.run

        def handle_event(eio_sid, namespace, id, data):
            # the test client makes every event synchronous (async_handlers False): nothing races then
            if not server.async_handlers or not data or data[0] not in LANED:
                return original(eio_sid, namespace, id, data)
            namespace = namespace or "/"
            sid = server.manager.sid_from_eio_sid(eio_sid, namespace)
            if sid is None or not server.manager.is_connected(sid, namespace):
                return None
            self.lane(sid).offer(Job(
                event=data[0],
                run=lambda: run(sid, eio_sid, data, namespace, id),
                answer=lambda reply: self._ack(eio_sid, namespace, id, reply),
                arrived=time.monotonic(),
            ))
            return None

        hook.install(handle_event)

    def lane(self, sid: str) -> Lane:
        with self._guard:
            lane = self._lanes.get(sid)
            if lane is None:
                say = (lambda message: self._say(sid, message)) if self._say else str
                lane = self._lanes[sid] = Lane(self.workers.start, say)
            return lane

    def sending(self, sid: str) -> Sending:
        """What comes with the command this connection's lane starts now (``Lane.sending``); without a lane (the
        test client, python-socketio without the seam), a command with no deadline."""
        lane = self._lanes.get(sid)
        return NO_DEADLINE if lane is None else lane.sending()

    def close(self, sid: str) -> None:
        with self._guard:
            lane = self._lanes.pop(sid, None)
        if lane is not None:
            lane.close()

    def _ack(self, eio_sid: str, namespace: str, id, reply: dict) -> None:
        if id is None or self._hook is None:
            return
        try:
            self._hook.ack(eio_sid, namespace, id, [reply])
        except Exception:  # the connection went away meanwhile
            log.debug("could not acknowledge on %s", eio_sid, exc_info=True)
