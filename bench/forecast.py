"""Benchmark of the forecast of a fight (#68, ``webapp/game/planning/forecast.py``): whole fights a second, played
headless in this process as the GM's forecast plays them (both sides by the foes' planner, every command judged by
the table's ``settle``, the rules' seeded dice), in each of the five systems.

The encounter (:func:`build`): four players' characters against six of the GM's foes, each with its system's sample
sheet (so both sides shoot and strike as the sample character does), on a 30 x 30 square map with walls
(:func:`make_board`: a fixed layout of wall runs, a door, two blocking squares and cover pieces between the sides),
the party along the west edge, the foes along the east edge; Atomic Tomorrow on a zone map of its own
(:func:`build_zones`: 3 x 3 zones, the party in one corner zone, the foes in the opposite one, some zones with
cover). The fight from its start (``forecast.prepared(game, from_start=True)``, *bold* players), the round cap 20.

What is measured, per system: three batches of ``runs`` fights each (runs ``b * runs`` to ``(b + 1) * runs - 1`` of
the forecast seeded ``SEED``, the token ids numbered: the same fights every time), each batch with a memo of its own
as the live forecast's worker gives it (``forecast_fast.Memo.of`` with the forecast's key: the plans of states met
again its own, the board's geometry kept from the batches before, the first batch's cold), each batch's wall clock; printed are the fights a second (the median of the three batches), the ms per fight (CPU time
of this process, median batch: steadier than the wall clock on a shared machine), the median rounds a fight lasted,
the players' share of wins and the runs capped over the three batches, and the turns whose plan the memo had kept
(met again, of those asked). Then where the time goes, from one more batch under ``cProfile`` (a profiler's
overhead inflates every call, so the shares are what to read, not the seconds): the planner (``suggestions.reckon``,
with what it spends on its copies, on the allies' plans and odds and on the rules' odds of the attacks it weighs
shown inside it), the table's ``decide`` and ``evolve`` (the commands the plans send, judged and applied), copying
(``foe_sandbox.frozen``: each run's copy of the game), the memo's keys, and the rest (the run's loop, the waits, the
badges); the words built (``rules.text.say``) are counted wherever they are built, inside the others.

Figures (bench/README.md has them): the planner is 81-93% of a fight, the rules' exact odds of each attack it weighs
the most of that; 1.1 to 3.2 s of CPU a fight, 19 to 53 times short of the goal.

The goal (#68): 500 fights within 30 seconds (about 17 fights a second), a first estimate within 2 s. Not part of
the test run (``tests/unit/test_bench_forecast_runs.py`` plays a fight per system through this code, so that it
cannot rot, with what the forecast keeps and with the planner alone: the same fight). ``python -m bench``'s
``forecast`` section prints the same table's fights a second.

Run: ``python3 -m bench.forecast [runs]`` from the repository root (``runs``: fights per batch, default 3).
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rules  # noqa: E402
from rules.board import Board  # noqa: E402
from webapp.game import table  # noqa: E402
from webapp.game.board import mapdata  # noqa: E402
from webapp.game.core.model import GM  # noqa: E402
from webapp.game.planning import forecast, forecast_fast  # noqa: E402

SYSTEMS = ("gurps_lite", "savage_worlds", "tesseris_ads", "phase_tn", "atomic_tomorrow")
SEED = 68  #: the forecast's seed: every batch's fights are the same every time
SIZE = 30  #: the square map's side
PARTY, FOES = 4, 6
CAP = forecast.ROUND_CAP
GOAL = (500, 30.0)  #: 500 fights within 30 seconds (#68)

#: the square map's walls (from, to: square corners), between the two sides: runs that leave gaps to go round
WALLS = [((8, 4), (8, 11)), ((8, 17), (8, 25)), ((14, 0), (14, 6)), ((14, 11), (14, 19)), ((14, 24), (14, 30)),
         ((20, 5), (20, 13)), ((20, 18), (20, 26)), ((10, 14), (13, 14)), ((15, 22), (19, 22)), ((21, 9), (25, 9))]
DOOR = ((14, 6), (14, 7))  #: a closed door in the middle wall
BLOCKED = [(11, 8), (17, 21)]
COVER = [(5, 6), (5, 15), (5, 23), (11, 18), (17, 3), (17, 15), (23, 12), (23, 20), (25, 27)]


def make_board() -> Board:
    """The 30 x 30 square map: :data:`WALLS`, :data:`DOOR` (closed), :data:`BLOCKED` squares, crates (:data:`COVER`)."""
    board = Board(SIZE, SIZE)
    for a, b in WALLS:
        board.add_wall(a, b)
    board.add_door(*DOOR, closed=True)
    for cell in BLOCKED:
        board.block(cell)
    for cell in COVER:
        board.add_cover(cell, "crate")
    return board


def _play(game, payload: dict) -> list:
    return table.settle(game, payload, GM)


def _numbered(game) -> None:
    """The game's new ids numbered in order (``t-00000001``...) instead of random ones (``Game.next_id``): the rules
    break some ties by id (phase/TN's order of shots), so random ids would make other fights of the same seed."""
    count = iter(range(1, 1 << 32))
    game.next_id = lambda prefix: f"{prefix}-{next(count):08x}"


def _fighters(game, system: str, places: list[dict]) -> list[str]:
    """The party (``pc``) then the foes (``npc``), each a token at its place with its system's sample sheet (the
    ids numbered: :func:`_numbered`)."""
    sample = rules.get(system).default_sheet()
    ids = []
    _numbered(game)
    for i, where in enumerate(places):
        kind, name = ("pc", f"Hero{i + 1}") if i < PARTY else ("npc", f"Foe{i - PARTY + 1}")
        token = _play(game, {"type": "add_token", "name": name, "kind": kind, **where})[0].data["token"]["id"]
        sheet = {**sample, **({"name": name} if "name" in sample else {})}
        _play(game, {"type": "add_character", "name": name, "token_id": token, "sheet": sheet})
        ids.append(token)
    del game.next_id  # (the class's again)
    return ids


def places(system: str) -> list[dict]:
    """Where the party then the foes stand (``add_token``'s place): the square map's west and east edges, or Atomic
    Tomorrow's two far corner zones."""
    if system == "atomic_tomorrow":
        return [{"zone": "z00"}] * PARTY + [{"zone": f"z{ZONES - 1}{ZONES - 1}"}] * FOES
    return [{"x": 1, "y": 9 + 4 * i} for i in range(PARTY)] + [{"x": 28, "y": 4 + 4 * i} for i in range(FOES)]


def build(system: str):
    """The encounter in ``system`` (a square-grid one) on :func:`make_board`: ``(game, token ids)``."""
    game = table.empty_game("bench-forecast")
    for event in table.new_game_events("bench", system, make_board(), None):
        table.evolve(game, event)
    return game, _fighters(game, system, places(system))


ZONES = 3  #: the zone map: 3 x 3 zones in a lattice, each linked to its neighbours


def zone_specs() -> list[dict]:
    """The zone map's zones as a map file (and ``POST /api/games``) gives them: 3 x 3 in a lattice, every other one
    with good cover."""
    zones = []
    for y in range(ZONES):
        for x in range(ZONES):
            links = ([f"z{x + 1}{y}"] if x + 1 < ZONES else []) + ([f"z{x}{y + 1}"] if y + 1 < ZONES else [])
            zones.append({"id": f"z{x}{y}", "name": f"Zone {x}-{y}", "adjacent": links,
                          **({"cover": "good"} if (x + y) % 2 else {})})
    return zones


def build_zones(system: str = "atomic_tomorrow"):
    """The encounter on a zone map: 3 x 3 zones (every other one with good cover), the party in the north-west
    zone, the foes in the south-east one: ``(game, token ids)``."""
    board, laid = mapdata.zone_map({"zones": zone_specs()})
    game = table.empty_game("bench-forecast-zones")
    for event in table.new_game_events("bench", system, board, laid):
        table.evolve(game, event)
    return game, _fighters(game, system, places(system))


def start_of(system: str) -> forecast.Start:
    """The forecast's start for the bench encounter in ``system``: the fight from its start, bold players."""
    game, _ids = build_zones(system) if system == "atomic_tomorrow" else build(system)
    return forecast.prepared(game, from_start=True)


def batch(start: forecast.Start, b: int, runs: int, memo: forecast_fast.Memo | None = None) -> list[forecast.Run]:
    """Batch ``b``: runs ``b * runs`` to ``(b + 1) * runs - 1`` of the forecast seeded :data:`SEED`, with ``memo``
    (else the batch's own, as ``forecast.batch`` plays it)."""
    return forecast.batch(start, SEED, b * runs, runs, table.settle, CAP, memo)


def measure(system: str, runs: int, batches: int = 3) -> dict:
    """``batches`` batches of ``runs`` fights: fights a second (median batch, wall clock), ms per fight (CPU, median
    batch), the median rounds and the players' share of wins over all of them, the turns whose plan the batch's memo
    had kept (``forecast_fast``: met again, of those asked), and the runs themselves."""
    start = start_of(system)
    walls, cpus, done, met, asked = [], [], [], 0, 0
    for b in range(batches):
        memo = forecast_fast.Memo.of(start, key(system))  # as the live side's worker keeps one (the geometry kept)
        t, c = time.perf_counter(), time.process_time()
        done += batch(start, b, runs, memo)
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
        met, asked = met + memo.met, asked + memo.asked
    return {"system": system, "map": "zones" if system == "atomic_tomorrow" else f"{SIZE}x{SIZE}",
            "per_s": runs / statistics.median(walls), "ms": 1000 * statistics.median(cpus) / runs,
            "rounds": statistics.median(r.rounds for r in done), "wins": sum(1 for r in done if r.won) / len(done),
            "capped": sum(1 for r in done if r.won is None), "met": met, "asked": asked, "runs": done}


#: where the time goes: (label, module path's tail, function name); the planner's parts are inside it
PARTS = [("planner (suggestions.reckon)", "planning/suggestions.py", "reckon"),
         ("  of which copies (foe_sandbox.sandbox)", "planning/foe_sandbox.py", "sandbox"),
         ("  of which the allies' plans (suggestions_side.claims)", "planning/suggestions_side.py", "claims"),
         ("  of which in an ally's way (suggestions_side.in_the_way)", "planning/suggestions_side.py", "in_the_way"),
         ("  of which the attacks' odds (foe_sandbox.weighed)", "planning/foe_sandbox.py", "weighed"),
         ("  of which heavy.breathe", "bridge/heavy.py", "breathe"),
         ("table: decide", "webapp/game/table.py", "decide"),
         ("table: evolve", "webapp/game/table.py", "evolve"),
         ("copying (foe_sandbox.frozen, each run's copy)", "planning/foe_sandbox.py", "frozen"),
         ("the memo's keys (forecast_fast.key_of)", "planning/forecast_fast.py", "key_of"),
         ("words built (rules.text.say, everywhere)", "rules/text.py", "say")]
#: the parts that add up to the whole (the others are inside the planner, or across everything)
TOP = ("planner (suggestions.reckon)", "table: decide", "table: evolve", "copying (foe_sandbox.frozen, each run's copy)",
       "the memo's keys (forecast_fast.key_of)")


def key(system: str) -> tuple:
    """The bench's forecast's key in ``system`` (``forecast_fast.Memo.of``: the board's geometry kept between its
    batches, as the live side's worker keeps a forecast's)."""
    return (f"bench-{system}", 0)


def profile(system: str, runs: int) -> list[tuple[str, float, float]]:
    """One batch of ``runs`` fights under cProfile: (part, seconds, share of the batch) for each of :data:`PARTS`,
    then the rest (``other``). A function that calls itself is counted once (cProfile's cumulative time)."""
    start = start_of(system)
    profiler = cProfile.Profile()
    profiler.enable()
    batch(start, 0, runs, forecast_fast.Memo.of(start, key(system)))  # (after measure: its geometry warm)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    total = max(ct for (_f, _l, name), (_cc, _nc, _tt, ct, _callers) in stats.items() if name == "batch")
    rows = []
    for label, path, name in PARTS:
        ct = sum(v[3] for (f, _l, n), v in stats.items() if n == name and f.replace("\\", "/").endswith(path))
        rows.append((label, ct, ct / total))
    top = sum(ct for label, ct, _s in rows if label in TOP)
    rows.append(("other (the run's loop, waits, badges, ...)", total - top, (total - top) / total))
    return rows


def main(argv: list[str]) -> None:
    runs = int(argv[1]) if len(argv) > 1 else 3
    fights, secs = GOAL
    print(f"forecast: {PARTY} players' characters v {FOES} foes, sample sheets, {SIZE} x {SIZE} map with walls "
          f"(Atomic Tomorrow: {ZONES} x {ZONES} zones), from the start, bold players, round cap {CAP}; 3 batches of "
          f"{runs} fights, seed {SEED} (goal: {fights} fights within {secs:.0f} s, {fights / secs:.1f} fights/s)")
    print(f"{'system':<16}{'map':<8}{'fights/s':>10}{'ms/fight':>10}{'rounds':>8}{'party_wins':>12}{'capped':>8}"
          f"{'plans met again':>17}")
    for system in SYSTEMS:
        r = measure(system, runs)
        print(f"{r['system']:<16}{r['map']:<8}{r['per_s']:>10.2f}{r['ms']:>10.0f}{r['rounds']:>8}"
              f"{r['wins']:>12.2f}{r['capped']:>8}{r['met']:>9} of {r['asked']:<5}", flush=True)
    print(f"\nwhere the time goes (cProfile, one batch of {runs} fights per system; shares of the batch)")
    for system in SYSTEMS:
        print(f"{system}:")
        for label, seconds, share in profile(system, runs):
            print(f"  {label:<58}{seconds:>8.2f} s{share:>7.0%}", flush=True)


if __name__ == "__main__":
    main(sys.argv)
