"""Ranged attacks (*3d6 Combat*, "Ranged Attacks" and "Maneuvers"): range and speed penalty, rapid
fire bonus and extra hits, Spraying Fire and Suppression Fire.
"""

from __future__ import annotations

import math
from typing import Any

from ..system import RuleError
from .data import RANGE_TABLE, RAPID_FIRE_TABLE
from ..text import say, say_p


def range_penalty(yards: float, speed: float = 0) -> int:
    """Range/speed penalty ("Ranged Attacks" table): range plus speed, speeds under 2 yd/s ignored."""
    if yards < 0 or speed < 0:
        raise RuleError(say("range and speed cannot be negative"))
    total = yards + (speed if speed >= 2 else 0)
    total = math.ceil(total - 1e-9)
    for bound, penalty, _band in RANGE_TABLE:
        if total <= bound:
            return penalty
    return RANGE_TABLE[-1][1]  # pragma: no cover


#: the bands of the "Ranged Attacks" table as the attack card names them (the reader's words: a range band's, apart
#: from a cover grade's "medium")
BAND_WORDS = {"close": say_p("range band", "close"), "short": say_p("range band", "short"),
              "medium": say_p("range band", "medium"), "long": say_p("range band", "long"),
              "far": say_p("range band", "far")}


def range_band_name(yards: float, speed: float = 0) -> str:
    """The band name of the "Ranged Attacks" table for range plus speed."""
    total = math.ceil(max(0.0, yards + (speed if speed >= 2 else 0)) - 1e-9)
    for bound, _penalty, band in RANGE_TABLE:
        if total <= bound:
            return band
    return "far"  # pragma: no cover


def rapid_fire_bonus(shots: int) -> int:
    """Rapid Fire bonus by shots fired ("Ranged Attacks", Rapid Fire table; +1 per doubling past 99)."""
    if shots < 1:
        raise RuleError(say("a rapid-fire attack fires at least one shot"))
    if shots < 100:
        bonus = 0
        for low, b in RAPID_FIRE_TABLE:
            if shots >= low:
                bonus = b
        return bonus
    bonus, limit = 7, 200
    while shots >= limit:
        bonus += 1
        limit *= 2
    return bonus


def extra_hits(margin: int, recoil: int, shots: int) -> int:
    """Total hits of a rapid-fire attack that succeeded by ``margin`` ("Ranged Attacks", Rapid Fire).

    One hit, plus the margin divided by Rcl (round down), never more than the shots fired.
    """
    if margin < 0 or shots < 1:
        return 0
    if recoil < 1:
        raise RuleError(say("Rcl is at least 1"))
    return min(shots, 1 + margin // recoil)


def spraying_fire(rof: int, shots: list[int], gaps: list[float]) -> dict:
    """Spraying Fire ("Ranged Attacks"): RoF 5+ split among targets; between non-adjacent targets one
    round per yard of gap (two at RoF 16+) is wasted. Returns the shots wasted and left."""
    if rof < 5:
        raise RuleError(say("Spraying Fire needs RoF 5+"))
    if len(gaps) != max(0, len(shots) - 1):
        raise RuleError(say("one gap between each pair of consecutive targets"))
    per_yard = 2 if rof >= 16 else 1
    wasted = int(sum(math.ceil(g) * per_yard for g in gaps if g > 0))
    used = sum(shots) + wasted
    if used > rof:
        raise RuleError(say("{shots} shots plus {wasted} wasted is more than RoF {rof}", shots=sum(shots), wasted=wasted, rof=rof))
    return {"wasted": wasted, "left": rof - used, "shots": list(shots)}


def suppression_fire_skill(shots: int) -> int:
    """Skill of a Suppression Fire attack on whoever enters the area ("Maneuvers": 8 + rapid fire bonus)."""
    return 8 + rapid_fire_bonus(shots)


def suppression_area_width(rof: int) -> int:
    """Width of the suppressed area ("Maneuvers": 2 yards, 4 at RoF 10+); RoF 5+ needed."""
    if rof < 5:
        raise RuleError(say("Suppression Fire needs RoF 5+"))
    return 4 if rof >= 10 else 2


def rapid_strike_shots(rof: int, attacks: int, shots: Any = None) -> list[int]:
    """Shots of each attack of a ranged Rapid Strike ("Attacking", Rapid Strike: "You split your
    rate of fire among the different targets"): never more shots in all than the RoF.

    ``shots`` is None or fewer than the attacks (one shot each), the total to split (as evenly as it goes, the earlier
    attacks taking the odd shots), or a list with each attack's shots.
    """
    if rof <= 1:
        raise RuleError(say("a Rapid Strike with a ranged weapon needs RoF above 1"))
    if isinstance(shots, (int, float)) and not isinstance(shots, bool) and shots < attacks:
        shots = None  # fewer than one each (the card's default of 1): one shot each
    if shots is None:
        split = [1] * attacks
    elif isinstance(shots, (list, tuple)):
        if len(shots) != attacks:
            raise RuleError(say("a Rapid Strike into {n} attacks splits its shots {n} ways", n=attacks))
        split = [int(s) for s in shots]
    else:
        total = int(shots)
        split = [total // attacks + (1 if i < total % attacks else 0) for i in range(attacks)]
    if min(split) < 1:
        raise RuleError(say("each of the {n} attacks fires at least one shot", n=attacks))
    if sum(split) > rof:
        raise RuleError(say("a Rapid Strike splits the RoF: {shots} shots in all is more than RoF {rof}", shots=sum(split), rof=rof))
    return split
