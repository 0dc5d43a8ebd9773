"""#68: the most a planner that weighs an attack's exact odds "only where the choice is close" could save a forecast.

A forecast's turn plays the planner's best plan (``suggestions.reckon``'s first); the planner weighs every attack a
turn allows (each way, target, weapon and square worth judging: a move on a copy, the attack's request, the rules'
exact odds, what it is worth). Were an oracle to tell, before any of it, which attack will be the best, only that
one would be weighed. This plays ``bench/forecast.py``'s fights (its encounter and seeds) and times each attack
weighed, then tells of each system:

- the share of the fight's CPU spent weighing attacks at all;
- the share spent on attacks at another target or with another weapon than the plan chosen (what an oracle of the
  best target and weapon would skip), and on every attack but the one chosen (an oracle of the best attack);
- the speed-up that last share allows at most (``1 / (1 - share)``), against the 5-19x #68's goal needs.

Atomic Tomorrow's zone planner weighs its attacks by another path (``suggestions_zones``): not counted (its row says
so). Run: ``python bench/forecast_ceiling.py [fights per system]``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

SYSTEMS = ("gurps_lite", "savage_worlds", "tesseris_ads", "phase_tn", "atomic_tomorrow")


def measure(system: str, fights: int = 2) -> dict:
    """One system's figures over ``fights`` bench fights (the planner timed per attack weighed)."""
    from bench import forecast as bf
    from webapp.game.planning import forecast_fast, suggestions

    real_plan, real_reckon = suggestions._attack_plan, suggestions.reckon
    weighed: list[list] = []  # a list per reckoning under way (one reckons its allies' plans: Savage Worlds)
    out = {"turns": 0, "attacks": 0, "all": 0.0, "other_target_or_weapon": 0.0, "other_attack": 0.0}

    def plan(view, me, cell, cost, target, weapon, *rest):
        t0 = time.process_time()
        found = real_plan(view, me, cell, cost, target, weapon, *rest)
        weighed[-1].append((target.id, weapon["key"], tuple(cell), time.process_time() - t0))
        return found

    def reckon(game, token_id, *args, **kwargs):
        weighed.append([])
        try:
            found = real_reckon(game, token_id, *args, **kwargs)
        finally:
            mine = weighed.pop()
        plans = found.get("plans") or []
        best = plans[0] if plans and plans[0].get("kind") == "attack" else None
        out["turns"] += not weighed  # (an ally's plans reckoned for a turn are that turn's)
        for target, weapon, cell, spent in mine:
            out["attacks"] += 1
            out["all"] += spent
            if best is None or (target, weapon) != (best["target"], best["weapon"]):
                out["other_target_or_weapon"] += spent
            if best is None or (target, weapon, cell) != (best["target"], best["weapon"], tuple(best["to"])):
                out["other_attack"] += spent
        return found

    suggestions._attack_plan, suggestions.reckon = plan, reckon
    try:
        start = bf.start_of(system)
        memo = forecast_fast.Memo.of(start, bf.key(system))
        t0 = time.process_time()
        bf.batch(start, 0, fights, memo)
        out["cpu"] = time.process_time() - t0
    finally:
        suggestions._attack_plan, suggestions.reckon = real_plan, real_reckon
    return out


def main() -> None:
    fights = int(sys.argv[1]) if len(sys.argv) > 1 else 2
    print(f"#68: a forecast's CPU spent weighing attacks, {fights} bench fights a system (bench/forecast.py's)")
    print(f"{'system':16s} {'CPU/fight':>9s} {'attacks/turn':>12s} {'weighing':>9s} {'other t/w':>9s} "
          f"{'other att.':>10s} {'at most':>8s}")
    for system in SYSTEMS:
        f = measure(system, fights)
        if not f["attacks"]:
            print(f"{system:16s} {f['cpu'] / fights * 1000:7.0f}ms   (zones: its attacks are weighed by another path)")
            continue
        share = f["other_attack"] / f["cpu"]
        print(f"{system:16s} {f['cpu'] / fights * 1000:7.0f}ms {f['attacks'] / f['turns']:12.1f} "
              f"{f['all'] / f['cpu']:9.0%} {f['other_target_or_weapon'] / f['cpu']:9.0%} {share:10.0%} "
              f"{1 / (1 - share):7.2f}x")


if __name__ == "__main__":
    main()
