"""``python -m bench [--quick] [--only SECTIONS] [--output FILE]``: every benchmark, one table.

Runs the eight sections with fixed seeds (the board's seed, the dice seed, PYTHONHASHSEED in the
servers), prints one table with the machine it ran on, and writes the same to BENCHMARKS.md at the
repository root. Progress goes to stderr. A section that fails to run is shown as failed in the
table and the others still run (exit status 1 then); a figure off its target is not a failure.
``--quick`` runs its sections two at a time, in two processes (``QUICK_LANES``).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

from . import report
from .live import aiohttp_missing, exit_cleanly_on_sigterm, percentile, progress
from .report import Row, met, ms, ratio, size

REPO = Path(__file__).resolve().parent.parent
SECTIONS = ("propagation", "languages", "pages", "rules", "throughput", "load", "bigmaps", "hall", "replay", "history",
            "forecast", "postgresql")

FULL = {"propagation": {8: 1000, 50: 100}, "languages": {8: 1000, 50: 100}, "pages": {"repeat": 30, "moves": 60},
        "rules": {"repeat": 15, "rounds": 3}, "attack": {"rounds": 3},
        "throughput": {"batches": 3, "rounds": 3, "count": 300},
        "load": {"seconds": 60.0}, "bigmaps": {"repeat": 7, "arrivals": 3}, "hall": {"cap": 2000, "seconds": 30.0},
        "replay": {"jumps": 30}, "history": {"recap": {"repeat": 5}}, "forecast": {"runs": 3, "batches": 3, "served": 20},
        "postgresql": {"propagation": {8: 1000, 50: 100}, "throughput": {"batches": 3, "rounds": 3, "count": 300},
                       "load": {"seconds": 60.0}}}
# --quick: every section run to its end, with the full run's servers, clients and connections (50 screens where it
# has 50), but fewer samples, shorter runs, fewer games and smaller logs: the smoke run tests/e2e/test_bench_quick.py
# runs, not figures to quote (bench/README.md, "--quick"). Propagation at N = 50 only: N = 8 is the same path, which
# the languages and PostgreSQL sections run (a server start saved; most of the run's time is the servers' starts)
QUICK = {"propagation": {50: 5}, "languages": {8: 10}, "pages": {"repeat": 3, "moves": 5},
         "rules": {"repeat": 1, "rounds": 1}, "attack": {"rounds": 1},
         "throughput": {"batches": 1, "rounds": 1, "count": 40, "batch": 20, "warmup": 5},
         "load": {"seconds": 1.0, "games": 3}, "bigmaps": {"repeat": 1, "arrivals": 1},
         "hall": {"cap": 60, "games": 5, "seconds": 1.0, "processes": 2},
         "replay": {"jumps": 3, "n_events": 500}, "history": {"recap": {"repeat": 1, "n_events": 500}},
         "forecast": {"runs": 1, "batches": 1, "served": 1, "served_systems": ("savage_worlds",)},
         "postgresql": {"propagation": {8: 10},
                        "throughput": {"batches": 1, "rounds": 1, "count": 40, "batch": 20, "warmup": 5},
                        "load": {"seconds": 1.0, "games": 3}}}


def propagation_rows(plan, database=None, title="1. Move propagation", languages=()) -> list[Row]:
    """``database``: a callable giving a new PostgreSQL database's URL for each server (else SQLite);
    ``languages``: the clients' languages, dealt in turn (none: English)."""
    from . import bench_propagation as bp

    rows = [Row(f"{title}: a GM's move to every other client (live server, loopback)", section=True)]
    for n, moves in plan.items():
        f = bp.measure(n, moves, database=database() if database else None, languages=languages)
        t, b = f["tacmap"], f["bare"]
        tp, bpp = percentile(t, 99), percentile(b, 99)
        who = f"GM, table screen, {n - 2} players" + (f"; devices in {'/'.join(languages)}" if languages else "")
        rows.append(Row(f"N={n} ({who}): until each client has the update, {f['moves']} moves",
                        ms(statistics.median(t)), ms(tp),
                        f"bare broadcast ({size(f['size'])}): {ms(statistics.median(b))}, p99 {ms(bpp)}",
                        f"p99 {ratio(tp / bpp)} (median {ratio(statistics.median(t) / statistics.median(b))})",
                        "p99 <= 1.5x bare", met(tp <= bp.TARGET_RATIO * bpp)))
        (tf, tr), (bf, br) = bp.first_and_rest(f, "tacmap"), bp.first_and_rest(f, "bare")
        rows.append(Row(f"N={n}: each block's first move / its other moves, median (tacmap's samples at or above its "
                        f"p99 from first moves: {bp.tail_from_first(f, 'tacmap'):.0%}; bare's: "
                        f"{bp.tail_from_first(f, 'bare'):.0%})",
                        f"{ms(tf)} / {ms(tr)}", reference=f"bare: {ms(bf)} / {ms(br)}",
                        ratio=f"first {ratio(tf / bf)}, others {ratio(tr / br)}"))
        missed = f["missed"]
        rows.append(Row(f"N={n}: server CPU per move" + (f" (missed updates: {missed})" if any(missed.values()) else ""),
                        ms(f["cpu_ms"]["tacmap"]), reference=f"bare: {ms(f['cpu_ms']['bare'])}",
                        ratio=ratio(f["cpu_ms"]["tacmap"] / max(f["cpu_ms"]["bare"], 1e-9))))
    return rows


def pages_rows(plan) -> list[Row]:
    from . import bench_pages as bpg

    f = bpg.measure(**plan)
    rows = [Row("2. Pages and one move's fragments: 100 x 100 map, 1,000 walls, 50 tokens (Flask test client)",
                section=True)]
    for name, times, n in f["pages"]:
        m = statistics.median(times)
        rows.append(Row(f"{name}: server time", ms(m), ms(percentile(times, 99)), target="<= 100 ms",
                        met=met(m <= bpg.PAGE_MS)))
        rows.append(Row(f"{name}: bytes", size(n), target="<= 1 MB", met=met(n <= bpg.PAGE_BYTES)))
    for name, times, n in f["fragments"]:
        m = statistics.median(times)
        rows.append(Row(f"one move's fragments, {name}: render", ms(m), ms(percentile(times, 99)), target="<= 5 ms",
                        met=met(m <= bpg.FRAGMENT_MS)))
        rows.append(Row(f"one move's fragments, {name}: bytes", size(n), target="<= 4 KB",
                        met=met(n <= bpg.FRAGMENT_BYTES)))
    n, u = f["update"]
    rows.append(Row(f"one move's fragments for all {n} audiences (GM, screen, players), renders shared",
                    ms(statistics.median(u)), ms(percentile(u, 99))))
    j = f["join_info"]
    rows.append(Row("(Hub.join_info, QR code: read once per update, when a fragment shows it)", ms(statistics.median(j)),
                    ms(percentile(j, 99))))
    d = f["board_to_dict"]
    rows.append(Row("(Board.to_dict, 1,000 walls: once per version of the board)", ms(statistics.median(d)),
                    ms(percentile(d, 99))))
    return rows


def rules_rows(plan, attack_plan) -> list[Row]:
    from . import bench_attack, bench_rules

    f = bench_rules.measure(**plan)
    tcod = f"tcod {f['tcod']}" if f["tcod"] else "tcod not installed"
    rows = [Row(f"3. Rules core: bench_rules.py (100 x 100, 1,000 walls, 30 tokens; reference: {tcod})",
                section=True)]
    for name, target, m, ref in f["rows"]:
        rows.append(Row(name, ms(m), reference=f"tcod: {ms(ref)}" if ref else "-",
                        ratio=ratio(m / ref) if ref else "-", target=f"<= {target} ms" if target else "-",
                        met=met(None if target is None else m <= target)))
    rows.append(Row("Hex maps (#28): bench_rules.measure_hex (100 x 100 hexes, 1,000 walls of 1 to 4 hex edges, "
                    "30 tokens; reference: the same operation on the square board above)", section=True))
    for name, square, pointy, flat in bench_rules.measure_hex(**plan):
        for kind, m in (("pointy", pointy), ("flat", flat)):
            rows.append(Row(f"hexes ({kind}): {name}", ms(m), reference=f"squares: {ms(square)}",
                            ratio=ratio(m / square), target=f"<= {bench_rules.HEX_TARGET}x squares",
                            met=met(m <= bench_rules.HEX_TARGET * square)))
    rows.append(Row("Attack preview with odds: bench_attack.py (token 0 to the 29 others)", section=True))
    for a in bench_attack.measure(**attack_plan):
        rows.append(Row(f"preview_attack, {a['system']} ({a['weapon']}; {a['answered']}/{a['pairs']} with odds)",
                        ms(a["median_ms"]), ms(percentile(a["times"], 99)), target=f"<= {bench_attack.TARGET_MS:.0f} ms",
                        met=met(a["median_ms"] <= bench_attack.TARGET_MS)))
    from . import bench_fog

    fog = bench_fog.measure(repeat=max(8, plan["repeat"]))
    rows.append(Row("Fog of war: bench_fog.py (the same board, 6 player tokens, one moves)", section=True))
    for name, med, worst, target in bench_fog.rows(fog):
        rows.append(Row(name, ms(med), ms(worst), target=f"<= {target} ms" if target else "-",
                        met=met(None if target is None else med <= target)))
    return rows


def throughput_rows(plan, database=None, title="4. Throughput") -> list[Row]:
    from . import bench_throughput as bt

    f = bt.measure(**plan, database=database() if database else None)
    rows = [Row(f"{title}: GM moves over Socket.IO, one game (live server, loopback)", section=True)]
    runs = f["runs"]
    rate = statistics.median(r["rate"] for r in runs)
    cpu = statistics.median(r["cpu_ms"] for r in runs)
    acks = [x for r in runs for x in r["ack_ms"]]
    rows.append(Row(f"commands/s, 10 open screens (GM page, table screen, 8 players), {f['window']} in flight",
                    f"{rate:,.1f}/s", target=f">= {bt.TARGET_RATE}/s", met=met(rate >= bt.TARGET_RATE)))
    rows.append(Row(f"  same run: ack time / server CPU {ms(cpu)} per command / updates per command and screen "
                    f"{statistics.median(r['updates_per_command'] for r in runs):.2f} (group commit) / benchmark "
                    f"process {statistics.median(r['bench_cpu_share'] for r in runs):.0%} of a core",
                    ms(statistics.median(acks)), ms(percentile(acks, 99))))
    base = bt.SEATS  # one screen a seat: every audience has one (its render); beyond it, connections only
    one_each = statistics.median(f["sweep"][base]["cpu_ms"])
    for n, s in f["sweep"].items():
        lat = s["latency_ms"]
        until = "the ack" if n == 0 else "the last screen has it"
        who = (f"{n} screens ({bt.SEATS} seats: the table screen, {bt.SEATS - 1} players; {n // bt.SEATS} a seat)"
               if n else "0 screens")
        rows.append(Row(f"one command, {who}: until {until}", ms(statistics.median(lat)), ms(percentile(lat, 99))))
        c = statistics.median(s["cpu_ms"])
        bare = statistics.median(f["bare_sweep"][n]["cpu_ms"])
        grows = n > base
        rows.append(Row(f"one command, {n} screens: server CPU (bare Flask-SocketIO, {f['size']} B to {n}: "
                        f"{ms(bare)})", ms(c),
                        reference=f"{base} screens: {ms(one_each)}" if grows else "-",
                        ratio=ratio(c / one_each) if grows else "-",
                        target=f"flat: <= 1.25x of {base} screens" if grows else "-",
                        met=met(c <= 1.25 * one_each) if grows else "-"))
    app, wire = bt.per_screen(f["sweep"]), bt.per_screen(f["bare_sweep"])
    rows.append(Row(f"each screen beyond one a seat ({base} -> {bt.SCREENS[-1]}): server CPU per command",
                    f"{app * 1000:.0f} us", reference=f"bare Flask-SocketIO: {wire * 1000:.0f} us per message",
                    ratio=ratio(app / wire) if wire > 0 else "-", target="<= the bare transport's",
                    met=met(app <= wire)))
    return rows


def load_rows(plan) -> list[Row]:
    """Both modes (one process; two on Redis): a mode that cannot run here is a row saying why."""
    from . import load

    return load.section_rows(load.MODES, **plan)


def bigmaps_rows(plan) -> list[Row]:
    from . import bench_big_maps as bb

    rows = [Row(f"6. Big maps arrive (#69): {bb.ARRIVAL_SIDE} x {bb.ARRIVAL_SIDE} squares, {bb.ARRIVAL_WALLS:,} walls, "
                f"made, imported and fog on beside another table's moves (live server, loopback)", section=True)]
    with tempfile.TemporaryDirectory() as data, bb.Server.tacmap(data) as server:
        for name, med, worst, target, ok in bb.arrival_table(bb.measure_arrivals(server, plan["arrivals"])):
            rows.append(Row(name, ms(med * 1000), ms(worst * 1000), target=target, met=met(ok)))
    plan = {k: v for k, v in plan.items() if k != "arrivals"}
    for f in bb.measure(**plan):
        rows.append(Row(f"6. The biggest map accepted (#32): {f['side']} x {f['side']} {f['grid']}s, {f['walls']:,} "
                        f"walls, GM + table screen + {bb.PLAYERS} players (live server, loopback)", section=True))
        for name, med, worst, target in bb.rows(f):
            rows.append(Row(name, ms(med), ms(worst), target=f"< {target} ms" if target else "-",
                            met=met(None if target is None else med < target)))
    from . import bench_walls_page as bw

    found = bw.measure(3 if plan["repeat"] > 1 else 1)
    rows.append(Row(f"6. The biggest map's walls in Chromium (#69): {found['walls']:,} walls as the pages draw them (a "
                    f"32 x 32 tile to a path) against a <line> each (bench_walls_page.py)", section=True))
    for name, got, ref in bw.rows(found):
        rows.append(Row(name, ms(got), reference=f"lines: {ms(ref)}", ratio=ratio(got / ref)))
    return rows


def hall_rows(plan) -> list[Row]:
    """Screens held by one process, and 100 games x 6 clients at a move a second each (bench/hall.py)."""
    from . import hall

    return hall.section_rows(**plan)


def forecast_rows(plan) -> list[Row]:
    """The forecast of a fight (#68, bench/forecast.py): whole fights a second in each system, against the goal."""
    from . import forecast as bf

    fights, secs = bf.GOAL
    rows = [Row(f"Forecast of a fight (#68): bench/forecast.py ({bf.PARTY} players' characters v {bf.FOES} foes, "
                f"sample sheets, {bf.SIZE} x {bf.SIZE} map with walls; Atomic Tomorrow on {bf.ZONES} x {bf.ZONES} "
                f"zones; {plan['batches']} batches of {plan['runs']} fights, seed {bf.SEED}; headless, in this process)",
                section=True)]
    goal = fights / secs
    for system in bf.SYSTEMS:
        r = bf.measure(system, plan["runs"], plan["batches"])
        rows.append(Row(f"{system}: fights a second (median batch; {r['rounds']} rounds median, players win "
                        f"{r['wins']:.0%}, {r['capped']} capped)", f"{r['per_s']:.2f}/s",
                        reference=f"CPU {r['ms']:.0f} ms a fight", target=f">= {goal:.1f}/s ({fights} in {secs:.0f} s)",
                        met=met(r["per_s"] >= goal)))
    return rows + forecast_served_rows(plan, goal)


def forecast_served_rows(plan, goal: float) -> list[Row]:
    """The same forecast as the GM gets it from ``tacmap serve`` (bench/forecast_served.py: its workers and lanes)."""
    from . import forecast_served as fs

    found = fs.measure(plan["served"], plan.get("served_systems") or fs.bf.SYSTEMS)
    rows = [Row(f"Forecast of a fight (#68), served: bench/forecast_served.py (the same encounter made over the API; "
                f"POST /api/games/<id>/forecast, {plan['served']} fights, its figures asked every 50 ms; tacmap serve's "
                f"worker processes, {found[0]['lanes']} lanes on this machine, started beforehand)", section=True)]
    for r in found:
        rows.append(Row(f"{r['system']}: fights a second, request to the last figure (players win {r['wins']:.0%})",
                        f"{r['per_s']:.2f}/s", target=f">= {goal:.1f}/s", met=met(r["per_s"] >= goal)))
        rows.append(Row(f"{r['system']}: the first estimate (the first fight in)", f"{r['first_s']:.2f} s",
                        target="<= 2 s", met=met(r["first_s"] <= 2.0)))
    return rows


def replay_rows(plan) -> list[Row]:
    """The replay's jump to an event on a 5,000-event game (#36, bench/bench_replay.py)."""
    from . import bench_replay as br

    f = br.measure(**plan)
    state, command = f["state_ms"], f["command_ms"]
    target = f"< {br.JUMP_MS:.0f} ms"
    return [Row(f"8. Replay: jump to an event of a {f['events']:,}-event game (in-process)", section=True),
            Row(f"a game played live (checkpoints written as played): the first jump, to event {f['first_at']:,}",
                ms(f["live_first_ms"]), target=target, met=met(f["live_first_ms"] < br.JUMP_MS)),
            Row("that game, a server started again: the first jump, to the newest event (checkpoints kept on disk)",
                ms(f["live_restart_ms"]), target=target, met=met(f["live_restart_ms"] < br.JUMP_MS)),
            Row(f"that game, a server started again: the first jump, to event {f['first_at']:,}",
                ms(f["live_restart_random_ms"]), target=target, met=met(f["live_restart_random_ms"] < br.JUMP_MS)),
            Row(f"that game exported and imported (tacmap import: its checkpoints folded at import, "
                f"{f['import_fold_ms'] / 1000:.1f} s after {f['import_ms'] / 1000:.1f} s of import): the first jump, "
                f"to event {f['first_at']:,}", ms(f["imported_first_ms"]), target=target,
                met=met(f["imported_first_ms"] < br.JUMP_MS)),
            Row("that imported game: the first jump to the newest event (a server that never served it)",
                ms(f["imported_head_ms"]), target=target, met=met(f["imported_head_ms"] < br.JUMP_MS)),
            Row(f"an old game (imported by an earlier version: never folded, no checkpoint): the cold first jump, to event {f['first_at']:,}",
                ms(f["first_ms"]),
                target=target, met=met(f["first_ms"] < br.JUMP_MS)),
            Row("that old game: the cold first jump to the newest event (from the server's latest snapshot, the "
                "timeline told without fog; a server folds such a game at its start, in the background)",
                ms(f["first_head_ms"]), target=target, met=met(f["first_head_ms"] < br.JUMP_MS)),
            Row("that game: the fold ahead a GM page's connection or the server's start runs (in the background, "
                "resting 10 ms between slices)", ms(f["fold_ahead_ms"])),
            Row("the first jump once that fold is done", ms(f["warm_first_ms"]), target=target,
                met=met(f["warm_first_ms"] < br.JUMP_MS)),
            Row("a server started again: the first jump, to the newest event, from the fold kept on disk",
                ms(f["restart_first_ms"]), target=target, met=met(f["restart_first_ms"] < br.JUMP_MS)),
            Row(f"later jumps: the state at an event (checkpoint + fold), {len(state)} random events", ms(statistics.median(state)),
                ms(max(state)), target=target, met=met(max(state) < br.JUMP_MS)),
            Row(f"later jumps: the replay command, state + the GM's and the table screen's fragments, {len(command)} jumps",
                ms(statistics.median(command)), ms(max(command)), target=target, met=met(statistics.median(command) < br.JUMP_MS))]


def history_rows(plan) -> list[Row]:
    """A 5,000-event game's past (#36, bench/bench_history.py): the recap (and the replay's jump, where added)."""
    from . import bench_history

    return bench_history.recap_rows(plan["recap"])


def postgresql_rows(plan) -> list[Row]:
    """Sections 1 and 4 again with the games in PostgreSQL (#38): a throwaway cluster (bench/pgcluster.py) with
    PostgreSQL's own defaults (every commit flushed to disk), a new database for each server."""
    from .pgcluster import Cluster, binaries

    if binaries() is None:
        return [Row("10. PostgreSQL: not measured (PostgreSQL is not installed: apt-get install postgresql)",
                    section=True)]
    from . import load

    cluster = Cluster(durable=True)
    try:
        rows = (propagation_rows(plan["propagation"], cluster.database, "10. PostgreSQL (--database): move propagation")
                + throughput_rows(plan["throughput"], cluster.database, "10. PostgreSQL (--database): throughput"))
    finally:
        cluster.stop()
    # section 5's load on two "machines" (each process its own data folder, one PostgreSQL, one Redis): a cluster
    # of its own, started and stopped by the run
    return rows + [dataclasses.replace(r, figure=r.figure.replace("5. Load,", "10. PostgreSQL: load,", 1))
                   for r in load.section_rows(("machines",), **plan["load"])]


#: the quick run's two lanes, each a process running its sections one after another (``_in_lanes``), split so that
#: each takes about half the run (a quiet 2-core machine, one section at a time: postgresql 15 s, forecast 12, load
#: 10, hall 9, bigmaps 8, propagation 7, throughput 5, rules 4, languages 4, replay 4, pages 3, history 2)
QUICK_LANES = (("postgresql", "forecast", "load", "replay", "history"),
               ("propagation", "hall", "bigmaps", "throughput", "rules", "languages", "pages"))


def _in_lanes(only: list[str]) -> tuple[dict[str, list[Row]], bool]:
    """The quick run's sections in two processes side by side (``QUICK_LANES``, each ``python -m bench --quick
    --only ...``): its check that every section runs takes half the time, its figures (not ones to quote) are
    those of a machine twice as busy. Each section's rows, and whether one failed. A lane that ends without its
    rows has each of its sections shown as failed."""
    lanes = [[n for n in lane if n in only] for lane in QUICK_LANES]
    lanes = [lane for lane in lanes if lane] + [[n for n in only if not any(n in lane for lane in QUICK_LANES)]]
    lanes = [lane for lane in lanes if lane]
    by_section: dict[str, list[Row]] = {}
    failed = False
    with tempfile.TemporaryDirectory(prefix="bench-lanes-") as folder:
        started = []
        try:
            for i, lane in enumerate(lanes):
                out = Path(folder) / f"lane{i}.pickle"
                progress(f"lane {i + 1}: {', '.join(lane)}")
                started.append((lane, out, subprocess.Popen(
                    [sys.executable, "-m", "bench", "--quick", "--only", ",".join(lane), "--output", "-",
                     "--rows", str(out)], cwd=REPO, stdout=subprocess.DEVNULL)))
            for lane, out, proc in started:
                status = proc.wait()
                got, lane_failed = pickle.loads(out.read_bytes()) if out.exists() else ({}, True)
                failed = failed or lane_failed or status != 0
                for name in lane:
                    by_section[name] = got.get(name) or [
                        Row(f"{name}: FAILED to run (its lane's process ended with status {status})", section=True)]
        finally:  # stopped (Ctrl-C, SIGTERM): the lanes stop too, each unwinding its servers
            for _lane, _out, proc in started:
                if proc.poll() is None:
                    proc.terminate()
            for _lane, _out, proc in started:
                try:
                    proc.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    proc.kill()
    return by_section, failed


def _cpu_seconds() -> float:
    """User + system CPU of this process and of its children that ended (its servers, once killed)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description="Run every tacmap benchmark; print one table.")
    parser.add_argument("--quick", action="store_true",
                        help="every section with fewer samples: the smoke run (bench/README.md, \"--quick\")")
    parser.add_argument("--only", default=",".join(SECTIONS),
                        help=f"comma-separated sections to run (default all: {','.join(SECTIONS)})")
    parser.add_argument("--output", default=str(REPO / "BENCHMARKS.md"),
                        help="where to write the table (default BENCHMARKS.md at the repository root; '-' for none)")
    parser.add_argument("--rows", help=argparse.SUPPRESS)  # a quick run's lane: where its sections' rows go
    args = parser.parse_args(argv)
    exit_cleanly_on_sigterm()
    only = [s.strip() for s in args.only.split(",") if s.strip()]
    unknown = set(only) - set(SECTIONS)
    if unknown:
        parser.error(f"unknown section(s): {', '.join(sorted(unknown))}; known: {', '.join(SECTIONS)}")
    missing = aiohttp_missing() if {"throughput", "postgresql"} & set(only) else None
    if missing:  # said now, not after the minutes the sections before them take
        parser.error(f"the throughput and postgresql sections: {missing}")
    plan = QUICK if args.quick else FULL
    started = datetime.datetime.now(datetime.timezone.utc)
    load = os.getloadavg()
    t0 = time.monotonic()
    runners = {
        "propagation": lambda: propagation_rows(plan["propagation"]),
        # three languages at the table (#37): each update drawn once per audience and language
        "languages": lambda: propagation_rows(plan["languages"], title="1b. Move propagation, devices in English, "
                                              "German and Spanish", languages=("en", "de", "es")),
        "pages": lambda: pages_rows(plan["pages"]),
        "rules": lambda: rules_rows(plan["rules"], plan["attack"]),
        "throughput": lambda: throughput_rows(plan["throughput"]),
        "load": lambda: load_rows(plan["load"]),
        "bigmaps": lambda: bigmaps_rows(plan["bigmaps"]),
        "hall": lambda: hall_rows(plan["hall"]),
        "replay": lambda: replay_rows(plan["replay"]),
        "history": lambda: history_rows(plan["history"]),
        "forecast": lambda: forecast_rows(plan["forecast"]),
        "postgresql": lambda: postgresql_rows(plan["postgresql"]),
    }
    if args.quick and args.rows is None and len(only) > 1:  # the smoke run: its sections two at a time
        by_section, failed = _in_lanes(only)
    else:
        by_section, failed = {}, False
    for name in SECTIONS:
        if name not in only or name in by_section:
            continue
        progress(f"{name} ...")
        t_section, cpu_section = time.monotonic(), _cpu_seconds()
        rows = by_section[name] = []
        try:
            rows += runners[name]()
        except Exception as exc:  # one broken section must not lose the others' figures
            failed = True
            traceback.print_exc()
            if getattr(exc, "rows", None):  # a section that failed part way (load: one mode) keeps what it measured
                rows += exc.rows
            else:
                rows.append(Row(f"{name}: FAILED to run ({type(exc).__name__}: {exc})"[:200], section=True))
        progress(f"{name}: {time.monotonic() - t_section:.1f} s (CPU {_cpu_seconds() - cpu_section:.1f} s: this "
                 f"process, its servers and client processes)")
    if args.rows is not None:  # a lane of a quick run: its sections' rows to the run that started it
        Path(args.rows).write_bytes(pickle.dumps((by_section, failed)))
    rows = [row for name in SECTIONS for row in by_section.get(name, [])]
    header = report.machine(started, load, time.monotonic() - t0, "quick" if args.quick else "full")
    text = report.document(rows, header)
    print(text)
    if args.output != "-":
        Path(args.output).write_text(text)
        progress(f"written to {args.output}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
