"""The GM's forecast of a fight (#68), on the live side: started, watched, stopped; played off the loop.

``POST /api/games/<id>/forecast`` starts one (the GM's alone); the runs are played in batches (``forecast.batch``)
by a background task of this process: in a worker process of its own under ``tacmap serve`` (``workers.runner``: the
loop's thread never shares the GIL with it), where none can start in a native thread of gevent's pool, and without
gevent (the app tests, the command-line tools) in the task's own thread. A batch is sized to take about
``BATCH_SECONDS`` (the first is one run: a first estimate comes at once), and the figures fill in after each. One
forecast per game: a second replaces the first (it stops at its next batch), ``DELETE`` stops it. Nothing of it is a
command: no event, no log line, nothing sent to a phone or the table screen; the GM's page asks for the figures.
A forecast lives in the process that started it (with several processes, its figures are asked there).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from dataclasses import dataclass, field

from ...game import table
from ...game.planning import forecast
from ..server import geometry, workers

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.5  #: what a batch of runs should take (the figures fill in after each)
MOST_BATCH = 100  #: runs in a batch at most
KEPT = 64  #: games whose last forecast is kept (the oldest finished one goes first)
_POOL: list = []  # [run(work, *args) or None], made at first use
_MAKING = threading.Lock()


def batch(start: forecast.Start, seed: int, first: int, count: int) -> list[forecast.Run]:
    """``forecast.batch`` judged by the table (what a worker runs)."""
    return forecast.batch(start, seed, first, count, table.settle)


def _pool():
    """Where a batch runs: one worker process under ``tacmap serve``, else gevent's native threads, else None
    (here, in the task's thread)."""
    if not _POOL:
        with _MAKING:
            if not _POOL:
                run = workers.runner(1, preload=(__name__,))
                _POOL.append(run if run is not None else geometry.runner(1))
    return _POOL[0]


@dataclass
class Variant:
    """One fight a forecast plays: the whole one (``without`` None), or the same without one foe (the most dangerous
    foe, asked for: the one whose removal moves the players' chance most)."""

    without: str | None
    start: forecast.Start
    figures: forecast.Figures


@dataclass
class Job:
    """One forecast: its id, the fights it plays (``variants``, the whole one first), whether it is stopped or
    done."""

    id: str
    game_id: str
    variants: list[Variant]
    stopped: bool = False
    done: bool = False
    error: str | None = None
    started_at: float = field(default_factory=time.monotonic)

    @property
    def figures(self) -> forecast.Figures:
        return self.variants[0].figures

    def as_dict(self) -> dict:
        out = {"id": self.id, "done": self.done, "stopped": self.stopped and not self.done,
               **({"error": self.error} if self.error else {}), **self.figures.as_dict()}
        if len(self.variants) > 1:
            out["without"] = {v.without: {k: d[k] for k in ("party_wins", "interval", "runs_done")}
                              for v in self.variants[1:] for d in [v.figures.as_dict()]}
            whole = out["party_wins"]
            seen = {k: w["party_wins"] for k, w in out["without"].items() if w["party_wins"] is not None}
            out["most_dangerous"] = (max(seen, key=lambda k: (seen[k] - whole, k)) if whole is not None and seen
                                     and len(seen) == len(out["without"]) else None)
        return out


class Forecasts:
    """The forecasts of this process: the last one per game."""

    def __init__(self, hub) -> None:
        self.hub = hub
        self._jobs: dict[str, Job] = {}
        self._guard = threading.Lock()

    def start(self, starts: list[tuple[str | None, forecast.Start]], game_id: str, runs: int, seed: int) -> Job:
        """A forecast of ``starts`` (the whole fight first, then the fight without each foe asked), ``runs`` runs each,
        seeded ``seed``, replacing the game's last one."""
        job = Job(secrets.token_hex(6), game_id, [Variant(w, s, forecast.Figures(seed, runs)) for w, s in starts])
        with self._guard:
            old = self._jobs.pop(game_id, None)
            if old is not None:
                old.stopped = True  # a second replaces the first
            self._jobs[game_id] = job
            while len(self._jobs) > KEPT:
                oldest = next(iter(self._jobs))
                self._jobs.pop(oldest).stopped = True
        self.hub.socketio.start_background_task(self._run, job)
        return job

    def get(self, game_id: str, job_id: str) -> Job | None:
        with self._guard:
            job = self._jobs.get(game_id)
        return job if job is not None and job.id == job_id else None

    def stop(self, game_id: str, job_id: str) -> Job | None:
        job = self.get(game_id, job_id)
        if job is not None:
            job.stopped = True
        return job

    def _run(self, job: Job) -> None:
        """Batches of runs, the variant with the fewest done first, until every variant has its runs or the job is
        stopped (checked between batches)."""
        pool, count = _pool(), 1
        runs, seed = job.figures.runs, job.figures.seed
        try:
            while not job.stopped:
                variant = min(job.variants, key=lambda v: len(v.figures.done))
                first = len(variant.figures.done)
                if first >= runs:
                    break
                n = min(count, runs - first)
                began = time.monotonic()
                played = (pool(batch, variant.start, seed, first, n) if pool is not None
                          else batch(variant.start, seed, first, n))
                if job.stopped:
                    break
                for run in played:
                    variant.figures.add(run)
                each = (time.monotonic() - began) / n
                count = max(1, min(MOST_BATCH, int(BATCH_SECONDS / each) if each > 0 else MOST_BATCH))
                if pool is None:
                    self.hub.socketio.sleep(0)  # (without gevent: the task's own thread; a breath all the same)
            job.done = all(len(v.figures.done) >= runs for v in job.variants)
        except Exception as exc:  # noqa: BLE001 (a forecast that fails says so to the GM; the table goes on)
            log.exception("the forecast %s of game %s failed", job.id, job.game_id)
            job.error = str(exc) or type(exc).__name__
        finally:
            if job.done or job.error:
                job.stopped = True


def of(hub) -> Forecasts:
    """The hub's forecasts, made at first use."""
    found = getattr(hub, "_forecasts", None)
    if found is None:
        found = hub._forecasts = Forecasts(hub)
    return found
