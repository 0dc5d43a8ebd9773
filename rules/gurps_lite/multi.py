"""Attacks at several targets (*3d6 Combat*, "Attacking", Rapid Strike; "Ranged Attacks", Spraying Fire).

- A Rapid Strike turns one attack into two (four when split again), each at -6 (-12): "You split your
  rate of fire among the different targets (like different hit locations or a nearby enemy)": its
  attacks go to the targets in the order picked, as evenly as they go (two attacks, two targets: one
  each), a ranged one splitting its RoF among them.
- Spraying Fire: "With a weapon RoF 5+ you can attack multiple targets in a 30 degree arc. Split up the
  RoF amongst your targets and make the attacks for each target. If the targets are not adjacent to each
  other you waste some shots sweeping between them, 1 round per yard or 2 rounds per yard for a weapon
  at RoF 16+." The whole RoF, less the shots wasted, is split
  as evenly as they go, the earlier targets taking the odd shots; each attack has its own rapid fire
  bonus and extra hits.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ..grid import cell_steps
from ..system import AttackRequest, Modifier, RuleError
from .ranged import spraying_fire
from .sheet import int_of, weapon_kind
from ..text import say

ARC = 30.0  # degrees: Spraying Fire


def _bearing(a, b) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 360


def arc_of(origin, points: list) -> float:
    """The narrowest arc from ``origin`` (degrees) that holds every point: 360 less the widest gap
    between their bearings."""
    bearings = sorted(_bearing(origin, p) for p in points)
    if len(bearings) < 2:
        return 0.0
    gaps = [b - a for a, b in zip(bearings, bearings[1:])] + [bearings[0] + 360 - bearings[-1]]
    return 360 - max(gaps)


def _gap(a, b) -> int:
    """Yards swept between two targets: none when adjacent (the larger offset is 1), else the squares
    between them."""
    return max(0, int(cell_steps(a, b)) - 1)


def subrequests(request: AttackRequest) -> list[AttackRequest]:
    """One request per target, each with the attack's options; the defense picked is the first
    target's own (the others defend as best they can)."""
    opts = {k: v for k, v in (request.options or {}).items() if k != "defense"}
    out = []
    for i, sub in enumerate(request.targets):
        own = dict(sub.options or {})
        picked = {"defense": own["defense"]} if "defense" in own else {}
        if i == 0 and "defense" in (request.options or {}):
            picked = {"defense": request.options["defense"]}
        out.append(replace(sub, attacker=request.attacker, weapon=request.weapon, options={**opts, **picked}))
    return out


def multi_plan(request: AttackRequest, wname: str, weapon: dict, rapid_penalty) -> dict:
    """The attacks at each target of a multi-target request: ``{"mode", "per_target": [plan, ...],
    "fired", "wasted"}``, each plan a list of (weapon name, weapon, extra modifiers, shots or None).
    RuleError naming the rule when the rules give no attack at these targets."""
    opts = request.options or {}
    subs = request.targets
    n = len(subs)
    ids = [s.target.id for s in subs]
    if len(set(ids)) != n:
        raise RuleError(say("each target once"))
    if request.attacker.id in ids:
        raise RuleError(say("a token cannot attack itself"))
    ranged = weapon_kind(weapon) in ("ranged", "thrown")
    rof = int_of(weapon.get("rof"), 1)
    if opts.get("spraying_fire"):
        if not ranged or rof < 5:
            raise RuleError(say("Spraying Fire needs a weapon of RoF 5 or more (3d6 Combat, 'Ranged Attacks', 'Spraying Fire')"))
        if n > rof:
            raise RuleError(say("Spraying Fire splits RoF {rof}: at most {rof} targets (3d6 Combat, 'Ranged Attacks', "
                                    "'Spraying Fire')", rof=rof))
        origin = request.attacker.position
        spots = [s.target.position for s in subs]
        if origin is None or any(p is None for p in spots):
            raise RuleError(say("Spraying Fire needs the tokens' positions for its arc"))
        for k in range(2, n + 1):
            if arc_of(origin, spots[:k]) > ARC + 1e-6:
                raise RuleError(say("{name} is outside the {arc} degree arc of the Spraying Fire (3d6 Combat, "
                                    "'Ranged Attacks', 'Spraying Fire')", name=subs[k - 1].target.name, arc=f"{ARC:g}"))
        gaps = [_gap(a, b) for a, b in zip(spots, spots[1:])]
        total = rof  # "Split up the RoF amongst your targets"
        wasted = sum(g * (2 if rof >= 16 else 1) for g in gaps)
        left = total - wasted
        if left < n:
            raise RuleError(say("{shots} shots less {wasted} wasted sweeping between the targets leave fewer than one "
                                "shot each (3d6 Combat, 'Ranged Attacks', 'Spraying Fire')", shots=total, wasted=wasted))
        shots = [left // n + (1 if i < left % n else 0) for i in range(n)]
        spraying_fire(rof, shots, gaps)
        return {"mode": "spraying", "per_target": [[(wname, weapon, [], s)] for s in shots],
                "fired": total, "wasted": wasted}
    if opts.get("rapid_strike"):
        levels = max(1, int_of(opts["rapid_strike"]))
        attacks = 2 ** levels
        if n > attacks:
            raise RuleError(say("a Rapid Strike makes {n} attacks: at most {n} targets (3d6 Combat, 'Attacking', "
                                "'Rapid Strike')", n=attacks))
        from .ranged import rapid_strike_shots

        shots: list = [None] * attacks
        if ranged:
            shots = list(rapid_strike_shots(rof, attacks, opts.get("shots")))
        pen: list[Modifier] = rapid_penalty(request.attacker.sheet, levels, ranged)
        per: list[list] = [[] for _ in range(n)]
        for i in range(attacks):
            per[i * n // attacks].append((wname, weapon, list(pen), shots[i]))
        return {"mode": "rapid_strike", "per_target": per,
                "fired": sum(s for s in shots if s is not None) if ranged else 0, "wasted": 0}
    raise RuleError(say("several targets take a Rapid Strike (3d6 Combat, 'Attacking', 'Rapid Strike') or Spraying Fire "
                        "(3d6 Combat, 'Ranged Attacks', 'Spraying Fire')"))
