"""Benchmark of the GM's suggestions (#60, #67): the plans for one foe with six reachable targets on the 100 x 100
bench board (``bench_rules.make_board``: 1,000 wall segments, doors, pillars, cover) and on its hex twin
(``bench_rules.make_hex_board``, pointy hexes), in the 3d6 system, in Savage Worlds, in Tesseris, in phase/TN (at
the foe's time to declare) and in Atomic Tomorrow on a 49-zone map (:func:`build_zones`: six targets in and about
its zone; the first run pays for the defended odds, kept after), as ``GET /api/games/<id>/suggestions/<token>``
reckons them (the copy of the game taken on the loop, then the reckoning, which the server runs off the loop).
"in reach": the six targets 3 to 7 squares (hexes) away, in the foe's line of fire; "closing in" (#67: the look a
turn ahead): a foe with its sample sheet's melee weapons alone and the six targets 15 to 25 away, so no attack
reaches this turn and the plans are the ways to each (the 3d6 system, Savage Worlds and Tesseris: the systems whose
foes strike in melee; phase/TN's gunmen and Atomic Tomorrow's zones are measured in reach). Prints the median and
p99 per row (wall clock), and the median CPU time (this process's: what the reckoning itself costs on a busy
machine), against the issue's goal (100 ms median). Fixed seed: the same boards every run. Not part of the test
run.

Run: ``python3 -m bench.suggestions [runs]`` from the repository root.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import los, movement  # noqa: E402
from rules.dice import SeededDice  # noqa: E402
from webapp.game.planning import foe_sandbox, suggestions
from webapp.game import table  # noqa: E402
from webapp.game.core.model import GM, Event  # noqa: E402

from bench.bench_rules import make_board, make_hex_board  # noqa: E402

GOAL_MS = 100
N_TARGETS = 6


def _play(game, payload, dice=None):
    for event in table.decide(game, table.parse_command(payload), GM, dice):
        table.evolve(game, event)


#: the sample sheets' melee weapons, the closing-in foe's alone (the systems whose foes strike in melee)
MELEE = {"gurps_lite": ("Broadsword", "Broadsword thrust"), "savage_worlds": ("Long sword",),
         "tesseris_ads": ("knife", "club")}
NEAR, FAR = (3, 7), (15, 25)  #: the targets' distance from the foe, in squares (hexes): in reach, closing in


def _spot(board, taken, near=NEAR):
    """A free square for the foe with six free squares ``near`` away (its grid's steps), reachable: where the
    targets stand, in its line of fire when they are in reach."""
    lo, hi = near
    for y in range(10, board.height - 10):
        for x in range(10, board.width - 10):
            if (x, y) in taken or board.is_blocked((x, y)):
                continue
            ring = [(x + dx, y + dy) for dx in range(-hi, hi + 1) for dy in range(-hi, hi + 1)
                    if 0 <= x + dx < board.width and 0 <= y + dy < board.height
                    and lo <= board.grid.steps((x, y), (x + dx, y + dy)) <= hi and (x + dx, y + dy) not in taken
                    and not board.is_blocked((x + dx, y + dy))]
            around = [c for c in ring[::3]
                      if (hi > NEAR[1] or los.line_of_fire(board, (x, y), c).clear)
                      and movement.shortest_path(board, (x, y), c, "chebyshev") is not None][:4 * N_TARGETS]
            if len(around) >= 4 * N_TARGETS:
                return (x, y), around[::4][:N_TARGETS]
    raise RuntimeError("no spot on the bench board")


def build(system: str, layout: str = "square", closing: bool = False):
    board, cells = make_hex_board("pointy") if layout == "hex" else make_board()
    (fx, fy), targets = _spot(board, set(cells), FAR if closing else NEAR)
    game = table.empty_game("bench-foes")
    for event in table.new_game_events("bench", system, board, None):
        table.evolve(game, event)
    table.evolve(game, Event("player_joined", {"player_id": "p-1", "name": "P", "key_hash": "x" * 64}))
    ids = []
    for i, (x, y) in enumerate([(fx, fy), *targets]):
        extra = {"owner": "p-1", "kind": "pc"} if i else {}
        before = set(game.tokens)
        _play(game, {"type": "add_token", "name": f"T{i}", "x": x, "y": y, **extra})
        ids.append(next(iter(set(game.tokens) - before)))
    if closing:  # the foe with its melee weapons alone: no attack reaches this turn
        import rules

        sheet = rules.get(system).default_sheet()
        weapons = sheet["weapons"]
        sheet["weapons"] = ({k: w for k, w in weapons.items() if k in MELEE[system]} if isinstance(weapons, dict)
                            else [w for w in weapons if w.get("name") in MELEE[system]])
        _play(game, {"type": "add_character", "name": "T0", "token_id": ids[0], "sheet": {**sheet, "name": "T0"}})
    return _fight_to_its_turn(game, ids)


def _fight_to_its_turn(game, ids: list[str]):
    """The fight started among ``ids``, played on to the first one's turn: ``(game, its id)``."""
    _play(game, {"type": "start_combat", "token_ids": ids}, SeededDice(1))
    for seed in range(40):
        if game.combat["current"] == ids[0]:
            break
        _play(game, {"type": "next_turn"}, SeededDice(seed))
    return game, ids[0]


ZONE_SIDE = 7  #: the zone bench map: 7 x 7 = 49 zones (the API takes 60 at most), each linked to its neighbours


def build_zones(system: str = "atomic_tomorrow"):
    """A large zone map (``ZONE_SIDE`` x ``ZONE_SIDE`` zones in a lattice, every third with good cover, a few links
    cut) and one foe in the middle with six targets in its zone and the zones about it (blast pistols, knives)."""
    import rules
    from webapp.game.board import mapdata

    def zid(x, y):
        return f"z{x}_{y}"

    zones = []
    for y in range(ZONE_SIDE):
        for x in range(ZONE_SIDE):
            links = [zid(x + 1, y)] if x + 1 < ZONE_SIDE and (x + y) % 5 else []
            links += [zid(x, y + 1)] if y + 1 < ZONE_SIDE else []
            zones.append({"id": zid(x, y), "name": f"Zone {x}-{y}", "adjacent": links,
                          **({"cover": "good"} if (x * ZONE_SIDE + y) % 3 == 0 else {})})
    board, laid = mapdata.zone_map({"zones": zones})
    game = table.empty_game("bench-zone-foes")
    for event in table.new_game_events("bench", system, board, laid):
        table.evolve(game, event)
    table.evolve(game, Event("player_joined", {"player_id": "p-1", "name": "P", "key_hash": "x" * 64}))
    mid = ZONE_SIDE // 2
    where = [(mid, mid), (mid, mid), (mid + 1, mid), (mid, mid + 1), (mid - 1, mid), (mid, mid - 1), (mid + 1, mid + 1)]
    ids = []
    for i, (x, y) in enumerate(where):
        extra = {"owner": "p-1", "kind": "pc"} if i else {}
        before = set(game.tokens)
        _play(game, {"type": "add_token", "name": f"T{i}", "zone": zid(x, y), **extra})
        ids.append(next(iter(set(game.tokens) - before)))
        _play(game, {"type": "add_character", "name": f"T{i}", "token_id": ids[-1],
                     "sheet": {**rules.get(system).default_sheet(), "name": f"T{i}", "reflex": 8 + i}})
    return _fight_to_its_turn(game, ids)


def measure(system: str, runs: int, layout: str = "square", closing: bool = False) -> dict:
    game, foe = build_zones(system) if layout == "zones" else build(system, layout, closing)
    game.board.step_masks(), game.board.segments()  # the board's indexes, built once as a served game has them
    times, cpu, plans = [], [], None
    for _ in range(runs):
        t, c = time.perf_counter(), time.process_time()
        copy = foe_sandbox.frozen(game)
        plans = suggestions.reckon(copy, foe)
        times.append((time.perf_counter() - t) * 1000)
        cpu.append((time.process_time() - c) * 1000)
        game.board.adopt(copy.board)  # the indexes the reckoning built kept, as the server keeps them (suggesting)
    times.sort()
    kinds = sorted({p["kind"] for p in plans["plans"]})
    return {"system": system, "layout": layout, "case": "closing in" if closing else "in reach",
            "median": statistics.median(times), "p99": times[min(len(times) - 1, int(0.99 * len(times)))],
            "cpu": statistics.median(cpu), "plans": len(plans["plans"]), "kinds": ",".join(kinds)}


#: the rows: (system, map, closing in); Atomic Tomorrow on the zone bench map
ROWS = [(s, layout, closing) for s in ("gurps_lite", "savage_worlds", "tesseris_ads", "phase_tn")
        for layout in ("square", "hex") for closing in ((False, True) if s in MELEE else (False,))]
ROWS.append(("atomic_tomorrow", "zones", False))


def main(argv: list[str]) -> None:
    runs = int(argv[1]) if len(argv) > 1 else 30
    print(f"suggestions for one foe, {N_TARGETS} targets, 100 x 100 bench board, {runs} runs (goal: {GOAL_MS} ms median)")
    print(f"{'system':<16}{'map':<8}{'case':<12}{'median ms':>10}{'p99 ms':>9}{'CPU median ms':>15}{'plans':>7}  kinds")
    for system, layout, closing in ROWS:
        r = measure(system, runs, layout, closing)
        print(f"{r['system']:<16}{r['layout']:<8}{r['case']:<12}{r['median']:>10.1f}{r['p99']:>9.1f}{r['cpu']:>15.1f}"
              f"{r['plans']:>7}  {r['kinds']}", flush=True)

if __name__ == "__main__":
    main(sys.argv)
