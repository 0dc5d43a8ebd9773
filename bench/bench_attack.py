"""Benchmark of an attack preview as the table answers it: line of fire, cover, range band,
every modifier and the exact odds, for each grid system.

Run: ``python3 bench/bench_attack.py`` (from the repository root). The board is the fixed-seed
100 x 100 board of ``bench_rules.py`` (1,000 wall segments, 30 tokens); each token carries the
system's sample character. Prints, per system, the median time of ``preview_attack`` from one
token to each of the 29 others (odds included), its slowest pair, and the target (30 ms median).
Not part of the test run.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import rules  # noqa: E402
from bench.bench_rules import make_board  # noqa: E402
from webapp.game.fight import attacks  # noqa: E402
from webapp.game.core.model import GM, Game, Token  # noqa: E402

TARGET_MS = 30.0


def game_for(system_id: str) -> Game:
    board, cells = make_board()
    game = Game(id="bench", name="bench", system=system_id, board=board)
    for i, (x, y) in enumerate(cells):
        game.tokens[f"t{i}"] = Token(id=f"t{i}", name=f"T{i}", x=x, y=y, kind="pc" if i == 0 else "npc")
    return game


def measure(rounds: int = 3) -> list[dict]:
    """Per grid system: ``system``, ``weapon``, ``median_ms`` and ``slowest_ms`` of ``preview_attack``
    from token 0 to each of the 29 others (``rounds`` times over; every time in ``times``), and how many
    pairs got odds."""
    out = []
    for system in rules.systems():
        if system.board != "grid" or system.id == "plain_grid":
            continue
        game = game_for(system.id)
        weapons = system.weapons(system.default_sheet())
        ranged = [w for w in weapons if (w.get("data") or {}).get("range") or "range" in str(w.get("data"))]
        weapon = (ranged or weapons)[0]["key"]
        times, answered = [], 0
        for r in range(rounds):
            for i in range(1, 30):
                cmd = attacks.PreviewAttack(type="preview_attack", attacker="t0", target=f"t{i}", weapon=weapon,
                                            force=True)  # force: judge every pair, walls or not
                t0 = time.perf_counter()
                try:
                    view = attacks.preview(game, cmd, GM)
                    answered += r == 0 and view.get("odds") is not None
                except Exception:  # out of reach and the like: the rules' answer, timed all the same
                    pass
                times.append((time.perf_counter() - t0) * 1000)
        out.append({"system": system.id, "weapon": weapon, "median_ms": statistics.median(times),
                    "slowest_ms": max(times), "times": times, "answered": answered, "pairs": 29})
    return out


def main() -> None:
    print(f"{'system':<16} {'weapon':<22} {'median ms':>10} {'slowest ms':>11} {'target':>7}  answered")
    for f in measure():
        print(f"{f['system']:<16} {f['weapon'][:22]:<22} {f['median_ms']:>10.2f} {f['slowest_ms']:>11.2f} "
              f"{TARGET_MS:>7.0f}  {f['answered']}/{f['pairs']} with odds")


if __name__ == "__main__":
    main()
