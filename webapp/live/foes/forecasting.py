"""The GM's forecast of a fight (#68), on the live side: started, watched, stopped; played off the loop.

``POST /api/games/<id>/forecast`` starts one (the GM's alone); the runs are played in batches (``forecast.batch``)
by a background task of this process: in worker processes of their own under ``tacmap serve`` (``workers.runner``:
the loop's thread never shares the GIL with them, and they step back for the tables, so a table's move goes first at
the CPU too), one per core (Linux: in the idle class) or per core but one (``LANES`` at most), with a batch in
flight on each (``_lanes``: the runs still added to the figures in their order, so the figures are the same as one
worker's, batch by batch); where none can start, in a native thread of gevent's pool, and without gevent (the app
tests, the command-line tools) in the task's own thread (one batch at a time, both). A batch is sized to take about
``BATCH_SECONDS`` (the first of each lane is one run: a first estimate comes at once), and the figures fill in after
each. One forecast per game: a second replaces the first (it stops at its next batch), ``DELETE`` stops it. Nothing
of it is a command: no event, no log line, nothing sent to a phone or the table screen; the GM's page asks for the
figures. A forecast lives in the process that started it (with several processes, its figures are asked there).
"""

from __future__ import annotations

import logging
import os
import secrets
import threading
import time
from dataclasses import dataclass, field

from ...game import table
from ...game.core.model import Rejected
from ...game.core.text import N_
from ...game.planning import forecast, suggestions
from ..server import geometry, workers

log = logging.getLogger(__name__)

BATCH_SECONDS = 0.5  #: what a batch of runs should take (the figures fill in after each)
MOST_BATCH = 100  #: runs in a batch at most
KEPT = 64  #: games whose last forecast is kept (the oldest finished one goes first)
#: batches in flight at once, each in a worker process of its own: one per core where the workers run in Linux's idle
#: class (``workers.idle_class``: a core only when the tables leave it), else one per core but one (the loop's); up to
#: this. A forecast's runs are independent, so a 2-core Linux machine plays two at once, a 4-core laptop elsewhere
#: three. With two at nice 10 on 2 cores another table's moves took 1.75 times as long (tests/app/
#: test_forecast_beside.py allows 1.5): nice lowers a share of the CPU, the idle class gives the core up at once
LANES = 4
_POOL: list = []  # [(run(work, *args) or None, lanes)], made at first use
_MAKING = threading.Lock()


def batch(start: forecast.Start, seed: int, first: int, count: int, key: tuple | None = None) -> list[forecast.Run]:
    """``forecast.batch`` judged by the table (what a worker runs); ``key``: the forecast's and the fight's (the
    board's geometry kept in the worker from the fight's batches before)."""
    return forecast.batch(start, seed, first, count, table.settle, key=key)


def lanes_here() -> int:
    """The lanes this machine plays a forecast on with worker processes (``LANES``' rule)."""
    cores = os.cpu_count() or 1
    return max(1, min(LANES, cores if workers.idle_class() else cores - 1))


def _pool():
    """Where batches run, and how many at once: ``(run, lanes)``, a worker process per core (in the idle class; else
    per core but one; at least one, ``LANES`` at most) under ``tacmap serve``, else gevent's native threads (one
    lane: they share the interpreter with the loop), else ``(None, 1)`` (here, in the task's thread)."""
    if not _POOL:
        with _MAKING:
            if not _POOL:
                lanes = lanes_here()
                run = workers.runner(lanes, preload=(__name__,), behind=True)  # behind the loop at the CPU
                _POOL.append((run, lanes) if run is not None else (geometry.runner(1), 1))
    return _POOL[0]


def warm(hub) -> None:
    """The forecasts' worker started now, in the background, if it is not yet (the GM opened the card: by the time
    Forecast is pressed its first fight need not wait for a Python to start)."""
    if not _POOL:
        hub.socketio.start_background_task(_pool)


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
    asked: dict = field(default_factory=dict)  # the request, for the page to say what this forecast assumed
    stopped: bool = False
    done: bool = False
    error: str | None = None
    begun: float = field(default_factory=time.monotonic)  #: when it was asked for (``time.monotonic``)

    @property
    def figures(self) -> forecast.Figures:
        return self.variants[0].figures

    def left(self, now: float | None = None) -> float | None:
        """The seconds it will take yet at its pace so far (the time since it was asked for, over the runs done of
        every variant it plays); None before its first run is in, and once it is done or stopped."""
        done = sum(len(v.figures.done) for v in self.variants)
        total = self.figures.runs * len(self.variants)
        if self.done or self.stopped or not done or done >= total:
            return None
        return ((time.monotonic() if now is None else now) - self.begun) * (total - done) / done

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
        self._before: dict[str, Job] = {}  # game id -> the forecast the last one replaced, to set beside it (what if)
        self._guard = threading.Lock()

    def start(self, starts: list[tuple[str | None, forecast.Start]], game_id: str, runs: int, seed: int,
              asked: dict | None = None) -> Job:
        """A forecast of ``starts`` (the whole fight first, then the fight without each foe asked), ``runs`` runs each,
        seeded ``seed``, replacing the game's last one; ``asked``: the request, kept to say what it assumed."""
        job = Job(secrets.token_hex(6), game_id, [Variant(w, s, forecast.Figures(seed, runs)) for w, s in starts],
                  dict(asked or {}))
        with self._guard:
            old = self._jobs.pop(game_id, None)
            if old is not None:
                old.stopped = True  # a second replaces the first
                if old.figures.done:
                    self._before[game_id] = old
            self._jobs[game_id] = job
            while len(self._jobs) > KEPT:
                oldest = next(iter(self._jobs))
                self._jobs.pop(oldest).stopped = True
                self._before.pop(oldest, None)
        self.hub.socketio.start_background_task(self._run, job)
        return job

    def before(self, game_id: str) -> Job | None:
        """The forecast the game's last one replaced (it had runs): what the page sets beside it."""
        with self._guard:
            return self._before.get(game_id)

    def get(self, game_id: str, job_id: str) -> Job | None:
        with self._guard:
            job = self._jobs.get(game_id)
        return job if job is not None and job.id == job_id else None

    def stop(self, game_id: str, job_id: str) -> Job | None:
        job = self.get(game_id, job_id)
        if job is not None:
            job.stopped = True
        return job

    def stop_all(self) -> None:
        """Every forecast of this process stopped at its next batch (one not begun yet never plays): the app let go.
        Without gevent's patch (the app tests) a forecast's task is a greenlet that plays only when something yields
        to gevent's loop; without this, one an app left behind would play on in whatever test yields next."""
        with self._guard:
            for job in self._jobs.values():
                job.stopped = True

    def _run(self, job: Job) -> None:
        """The job's batches (``_lanes``) until every variant has its runs or the job is stopped."""
        pool, lanes = _pool()
        try:
            _lanes(job, pool, lanes, self.hub.socketio.start_background_task, self.hub.socketio.sleep)
            job.done = all(len(v.figures.done) >= job.figures.runs for v in job.variants)
        except Exception as exc:  # noqa: BLE001 (a forecast that fails says so to the GM; the table goes on)
            log.exception("the forecast %s of game %s failed", job.id, job.game_id)
            job.error = str(exc) or type(exc).__name__
        finally:
            if job.done or job.error:
                job.stopped = True


def _lanes(job: Job, pool, lanes: int, spawn, breathe) -> None:
    """Batches of runs on ``lanes`` lanes, each a batch in flight on ``pool`` (``run(work, *args)``; None: here, one
    lane), the variant with the fewest runs handed out first, until every variant's runs are handed out and played or
    the job is stopped (checked between batches). A batch's runs join the figures in their order: one that comes back
    before those handed out before it waits for them (the figures after each batch are those of its first runs, as
    one lane gives them). ``spawn(f)`` starts a lane beside this one (its ``join()`` waits for it); ``breathe()``
    lets the loop go first between two batches played here. A lane that fails stops the job and raises here."""
    runs, seed = job.figures.runs, job.figures.seed
    handed = [0] * len(job.variants)  # runs handed out, per variant
    back: list[dict[int, list]] = [{} for _ in job.variants]  # per variant: runs come back, by their first number
    failed: list[Exception] = []

    def lane() -> None:
        count = 1
        try:
            while not job.stopped:
                k = min((i for i in range(len(job.variants)) if handed[i] < runs), key=lambda i: handed[i],
                        default=None)
                if k is None:
                    return
                variant, first = job.variants[k], handed[k]
                n = min(count, runs - first)
                handed[k] += n
                began = time.monotonic()
                played = (pool or _here)(batch, variant.start, seed, first, n, (job.id, k))
                if job.stopped:
                    return
                back[k][first] = played
                while len(variant.figures.done) in back[k]:
                    for run in back[k].pop(len(variant.figures.done)):
                        variant.figures.add(run)
                each = (time.monotonic() - began) / n
                count = max(1, min(MOST_BATCH, int(BATCH_SECONDS / each) if each > 0 else MOST_BATCH))
                if pool is None:
                    breathe()  # (without gevent: the task's own thread; a breath all the same)
        except Exception as exc:  # noqa: BLE001 (the job stops; raised again below, in the job's task)
            job.stopped = True
            failed.append(exc)

    others = [spawn(lane) for _ in range(lanes - 1 if pool is not None else 0)]
    lane()
    for other in others:
        other.join()
    if failed:
        raise failed[0]


def _here(work, *args):
    """``work(*args)`` right here (no pool: one lane, in the task's own thread)."""
    return work(*args)


def _whole(body: dict, key: str, default: int, low: int, high: int) -> int:
    value = body.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise Rejected(N_("%(key)s: a whole number from %(low)s to %(high)s"), code="bad", key=key, low=low, high=high)
    return value


def _ids(body: dict, key: str) -> list[str]:
    value = body.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 100 or not all(isinstance(i, str) for i in value):
        raise Rejected(N_("%(key)s: a list of token ids (100 at most)"), code="bad", key=key)
    return value


FIELDS = frozenset({"runs", "seed", "from", "token_ids", "players", "without", "tactics", "extra", "bennies",
                    "most_dangerous", "map"})


def asked(game, body: dict) -> tuple[list[tuple[str | None, forecast.Start]], int, int]:
    """What a forecast request asks (docs/PROTOCOL.md, ``POST /api/games/<id>/forecast``; the GM page's form sends
    the same): the fights to play (the whole one, then without each foe when ``most_dangerous``), the runs, the seed.
    Rejected with code ``bad`` for a malformed request, without a code when the game cannot be forecast so."""
    unknown = set(body) - FIELDS
    if unknown:
        raise Rejected(N_("unknown field: %(name)s"), code="bad", name=sorted(unknown)[0])
    if body.get("map") is not None and not isinstance(body["map"], str):
        raise Rejected(N_("map: a map's id"), code="bad")
    game = forecast.on_map(game, body.get("map"))
    runs = _whole(body, "runs", 500, 1, 5000)
    seed = _whole(body, "seed", secrets.randbelow(2**31), 0, 2**31 - 1)
    where = body.get("from", "start")
    if where not in ("start", "now"):
        raise Rejected(N_("from: start or now"), code="bad")
    players = body.get("players", "bold")
    if players not in forecast.PLAYERS:
        raise Rejected(N_("players: bold or careful"), code="bad")
    tactics = body.get("tactics") or {}
    if (not isinstance(tactics, dict) or len(tactics) > 100
            or not all(isinstance(t, str) and t in suggestions.TACTICS for t in tactics.values())):
        raise Rejected(N_("tactics: a token id to one of %(tactics)s"), code="bad", tactics=", ".join(suggestions.TACTICS))
    bennies = _whole(body, "bennies", 0, 0, 5)
    dangerous = body.get("most_dangerous", False)
    if not isinstance(dangerous, bool):
        raise Rejected(N_("most_dangerous: true or false"), code="bad")
    token_ids = _ids(body, "token_ids") if body.get("token_ids") is not None else None
    without, extra = _ids(body, "without"), _ids(body, "extra")

    def start(left_out=()):
        return forecast.prepared(game, where == "start", token_ids, players, tactics, [*without, *left_out],
                                 indexes=False, extra=extra, bennies=bennies)
    whole = start()
    starts: list[tuple[str | None, forecast.Start]] = [(None, whole)]
    if dangerous:  # the fight without each foe in it, played as often (#68: the most dangerous foe)
        starts += [(i, start([i])) for i in whole.ids if i not in whole.side and i in game.tokens]
    return starts, runs, seed


def sides(game) -> tuple[list, list]:
    """The players' characters and the GM's foes a forecast from the start would have (``forecast.fighters``), each
    in the map's order."""
    side = forecast.party(game)
    fighting = [game.tokens[i] for i in forecast.fighters(game)]
    return [t for t in fighting if t.id in side], [t for t in fighting if t.id not in side]


def form_context(game) -> dict:
    """What the card's form shows, for the map the GM's screen shows (``forecast.on_map``): the heroes, the foes with
    their tactics, whether a fight is on, whether the heroes' sheets have Bennies."""
    game = forecast.on_map(game)
    side = forecast.party(game)
    bennies = any(isinstance(c.sheet.get("bennies"), int) for c in game.characters.values() if c.token_id in side)
    heroes, foes = sides(game)
    return {"heroes": heroes, "foes": foes, "tactics": suggestions.TACTICS, "tactic_of": lambda i: suggestions.tactic_of(game, i),
            "fight_on": bool(game.combat), "bennies": bennies, "reckoned": suggestions.reckoned(game)}


def from_form(game, form) -> dict:
    """The card's form as the API's request: ``from``, ``players``, ``runs``; a hero or a foe unticked is left out
    (``without``), a foe ticked twice comes twice (``extra``), its tactic sent when changed; Bennies more; the most
    dangerous foe. The fighters are those of the map the GM's screen shows."""
    game = forecast.on_map(game)
    body: dict = {"from": form.get("from") or "start", "players": form.get("players") or "bold"}
    runs = form.get("runs") or "500"
    body["runs"] = int(runs) if runs.isdigit() and len(runs) <= 5 else runs
    bennies = form.get("bennies") or "0"
    body["bennies"] = int(bennies) if bennies.isdigit() and len(bennies) <= 2 else bennies
    shown = set(form.getlist("listed"))  # the fighters the form showed: one added since is not left out unasked
    heroes, foes = sides(game)
    listed = [t.id for t in foes if t.id in shown]
    fighting = set(form.getlist("fights"))
    body["without"] = [i for i in [*(t.id for t in heroes if t.id in shown), *listed] if i not in fighting]
    body["extra"] = [i for i in form.getlist("twice") if i in fighting and i in listed]
    body["tactics"] = {i: form.get(f"tactic-{i}") for i in listed
                       if form.get(f"tactic-{i}") and form.get(f"tactic-{i}") != suggestions.tactic_of(game, i)}
    body["most_dangerous"] = form.get("most_dangerous") == "on"
    return body


def names(game):
    """A token's name for the figures (on any of the game's maps): a foe that came twice (``<id>+1``) by its own name
    and a mark."""
    tokens = {**{k: t for m in game.maps.values() for k, t in m.tokens.items()}, **game.tokens}

    def name(token_id: str) -> str:
        token = tokens.get(token_id)
        if token is not None:
            return token.name
        base, _, n = token_id.rpartition("+")
        token = tokens.get(base)
        return f"{token.name} +" if token is not None and n.isdigit() else token_id
    return name


def of(hub) -> Forecasts:
    """The hub's forecasts, made at first use."""
    found = getattr(hub, "_forecasts", None)
    if found is None:
        found = hub._forecasts = Forecasts(hub)
    return found
