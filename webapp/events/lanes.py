"""One lane per Socket.IO connection: its commands run one at a time, in the order sent.

python-socketio runs every event in a thread of its own (``async_handlers``):
a client's commands raced each other for the game's lock and ran out of the
order sent, and a client that sent two thousand moves at once started two
thousand threads that kept the server busy for minutes, the other players'
moves queued behind them and moves applied long after their sender had given
up waiting. A lane takes a connection's events as they come off the wire (in
order) and runs them on one worker of its own:

- at most ``MAX_COMMANDS`` commands wait; the next one is refused at once
  (``TOO_MANY``), so whatever is accepted is done long before the sender's
  timeout;
- a command that waited longer than ``STALE_AFTER`` (in the lane, or then for
  the game's lock: ``hub.SENDER_GIVES_UP``) is refused, not applied: its
  sender is about to stop waiting (the page gives up after 10 s);
- previews and syncs are coalesced: only the newest of each waits (an older
  preview's position is out of date; one fresh copy serves every sync asked).

Only this connection's worker waits on its backlog; another connection's
commands take their turn at the game's lock between two of the flooder's.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Callable

from socketio import packet

from ..hub import SENDER_GIVES_UP, TOO_LATE

log = logging.getLogger(__name__)

LANED = frozenset({"command", "preview", "sync"})
MAX_COMMANDS = 16
STALE_AFTER = 5.0
TOO_MANY = "too many commands at once; slow down"
FAILED = "the server could not do that (see its log)"


@dataclass
class Job:
    event: str
    run: Callable[[], None]  # runs the handler, which acknowledges
    answer: Callable[[dict], None]  # acknowledges now, without running
    arrived: float


class Lane:
    """The events of one connection, waiting their turn."""

    def __init__(self, start: Callable[[Callable[[], None]], None]) -> None:
        self._lock = threading.Lock()
        self._jobs: deque[Job] = deque()
        self._commands = 0
        self._running = False
        self._start = start
        self.closed = False

    def offer(self, job: Job) -> None:
        answers: list[tuple[Job, dict]] = []
        with self._lock:
            if self.closed:
                return
            if job.event == "command":
                if self._commands >= MAX_COMMANDS:
                    answers.append((job, {"ok": False, "error": TOO_MANY, "code": "busy"}))
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

    def waiting(self) -> int:
        with self._lock:
            return len(self._jobs)

    def _work(self) -> None:
        while True:
            with self._lock:
                if not self._jobs or self.closed:
                    self._running = False
                    return
                job = self._jobs.popleft()
                if job.event == "command":
                    self._commands -= 1
            if job.event == "command" and time.monotonic() - job.arrived > STALE_AFTER:
                job.answer({"ok": False, "error": TOO_LATE, "code": "busy"})
                continue
            token = SENDER_GIVES_UP.set(job.arrived + STALE_AFTER if job.event == "command" else None)
            try:
                job.run()
            except Exception:  # the handler failed before answering: answer for it
                log.exception("%s failed", job.event)
                job.answer({"ok": False, "error": FAILED})
            finally:
                SENDER_GIVES_UP.reset(token)


class Lanes:
    """Puts itself between python-socketio and the handlers of ``LANED`` events."""

    def __init__(self, server) -> None:
        self.server = server
        self._lanes: dict[str, Lane] = {}
        self._guard = threading.Lock()
        # python-socketio has no public hook between reading an event and running its handler: these three
        # (stable through 5.x) are the seam; without them every event keeps its own thread, unordered
        if not all(hasattr(server, name) for name in ("_handle_event", "_handle_event_internal", "_send_packet")):
            log.warning("python-socketio %s: events are not run in lanes", getattr(server, "__version__", "?"))
            return
        original = server._handle_event

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
                run=lambda: server._handle_event_internal(server, sid, eio_sid, data, namespace, id),
                answer=lambda reply: self._ack(eio_sid, namespace, id, reply),
                arrived=time.monotonic(),
            ))
            return None

        server._handle_event = handle_event

    def lane(self, sid: str) -> Lane:
        with self._guard:
            lane = self._lanes.get(sid)
            if lane is None:
                lane = self._lanes[sid] = Lane(lambda work: self.server.start_background_task(work))
            return lane

    def close(self, sid: str) -> None:
        with self._guard:
            lane = self._lanes.pop(sid, None)
        if lane is not None:
            lane.close()

    def _ack(self, eio_sid: str, namespace: str, id, reply: dict) -> None:
        if id is None:
            return
        try:
            self.server._send_packet(eio_sid, self.server.packet_class(
                packet.ACK, namespace=namespace, id=id, data=[reply]))
        except Exception:  # the connection went away meanwhile
            log.debug("could not acknowledge on %s", eio_sid, exc_info=True)
