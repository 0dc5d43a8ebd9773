"""Targeting, wild and called shots, drift and hit location (*Phase/TN Combat Sequence*, "Ranged Attacks").

A Targeting action gives its shooter a target that holds while the target
stays in view, nothing breaks the line of sight and the shooter does not
switch targets; a shot without it is a wild shot. A called shot's partial
success drifts one area per point along the document's order; the same
order skips impossible locations. The random table is cut off after
"1 | Head" (a setting).

``targeting`` maps a shooter id to ``{"target", "acquired_phase"}``.
"""

from __future__ import annotations

from typing import Any

from ..copying import copied
from ..dice import DiceSource, RollRecord
from ..system import RuleError
from ..text import joined, say
from .data import LOCATION_WORDS, LOCATIONS, WILD_SHOT_MODIFIER, resolve_settings


def acquire_target(targeting: dict, shooter: str, target: str, phase: int) -> dict:
    """The shooter now holds ``target`` (a completed Targeting action)."""
    return {**copied(targeting), shooter: {"target": target, "acquired_phase": phase}}


def is_targeted(targeting: dict, shooter: str, target: str) -> bool:
    """Whether ``shooter`` holds ``target`` (its Targeting is good)."""
    held = targeting.get(shooter)
    return bool(held and held["target"] == target)


def lose_targeting(targeting: dict, shooter: str) -> dict:
    """Drop a shooter's targeting (a switch of target or a distracting event)."""
    new = copied(targeting)
    new.pop(shooter, None)
    return new


def check_targeting(
    targeting: dict,
    positions: dict[str, Any],
    board: Any = None,
    in_view: dict[str, set] | None = None,
) -> tuple[dict, list[dict]]:
    """Targeting that still holds, and what was lost with the reason.

    "Ranged Attacks": targeting holds while the target stays in view and
    nothing breaks the line. A target with no position (gone, hidden) or
    missing from ``in_view[shooter]`` (the ids the shooter can see) has
    left view; with a board, :func:`rules.los.line_of_fire` decides
    whether the line is broken.
    """
    kept: dict = {}
    lost: list[dict] = []
    los = None
    if board is not None:
        from .. import los  # imported only when a board is given
    for shooter, held in targeting.items():
        target = held["target"]
        reason = ""
        if positions.get(target) is None or (in_view is not None and target not in in_view.get(shooter, ())):
            reason = say("target left view")
        elif los is not None and positions.get(shooter) is not None:
            a, b = tuple(positions[shooter]), tuple(positions[target])
            if not los.line_of_fire(board, a, b).clear:
                reason = say("line of fire broken")
        if reason:
            lost.append({"shooter": shooter, "target": target, "reason": reason})
        else:
            kept[shooter] = dict(held)
    return kept, lost


def unknown_location(location) -> RuleError:
    """The refusal of a body area the document does not have, naming the ones it has (as a client sends them,
    like the range bands and settings' values of the other refusals)."""
    return RuleError(say("unknown location {location}; locations are {locations}", location=repr(location),
                         locations=", ".join(LOCATIONS)))


def wild_shot_modifier(targeted: bool) -> int:
    """-2 to hit for a wild shot, one without Targeting ("Ranged Attacks")."""
    return 0 if targeted else WILD_SHOT_MODIFIER


def _drift_pattern(location: str, first_arm: str = "right") -> list[str]:
    """The document's partial-success order from a called location ("Ranged Attacks").

    "One arm, then the other" starts with ``first_arm``; "near" means the
    same side; "arms" after abdomen is one arm then the other.
    """
    if location not in LOCATIONS:
        raise unknown_location(location)
    other = {"right": "left", "left": "right"}
    arm1, arm2 = f"{first_arm} arm", f"{other[first_arm]} arm"
    if location == "head":
        return ["chest", arm1, arm2, "abdomen"]
    if location == "chest":
        return ["abdomen", arm1, arm2, "head"]
    if location == "abdomen":
        return ["chest", f"{first_arm} leg", f"{other[first_arm]} leg", arm1, arm2]
    side, limb = location.split()
    if limb == "arm":
        return ["chest", "abdomen", f"{side} leg", f"{other[side]} arm", "head"]
    return [f"{other[side]} leg", "abdomen", f"{side} arm", f"{other[side]} arm", "chest"]


def called_shot_drift(location: str, steps: int) -> str:
    """Where a called shot lands ``steps`` points short of its TN ("Ranged Attacks").

    Zero steps is the called location; each point moves one area along
    the document's order; past the end of the order it stays on the last
    area (the document does not go further).
    """
    if steps < 0:
        raise RuleError(say("drift steps cannot be negative"))
    if steps == 0:
        if location not in LOCATIONS:
            raise unknown_location(location)
        return location
    pattern = _drift_pattern(location)
    return pattern[min(steps, len(pattern)) - 1]


def first_possible_location(location: str, impossible: set[str] | list[str], first_arm: str = "right") -> str | None:
    """Walk the drift order past locations that cannot be hit ("Ranged Attacks").

    None when every location in the order is impossible.
    """
    bad = set(impossible)
    for loc in [location] + _drift_pattern(location, first_arm):
        if loc not in bad:
            return loc
    return None


def location_needs(settings: dict) -> str:
    """The hit-location table in words, for whoever rolls it at the table (#59): "roll d10: 1 head, 2-3 chest..."."""
    rows = [say("{low} {location}", low=low, location=LOCATION_WORDS.get(loc, loc)) if low == high else
            say("{low}-{high} {location}", low=low, high=high, location=LOCATION_WORDS.get(loc, loc))
            for low, high, loc in settings["hit_location_table"]]
    return say("roll {dice} for the hit location: {table}", dice=settings["hit_location_dice"], table=joined(rows, ", "))


def hit_location(dice: DiceSource, settings: dict | None = None, roller: str | None = None) -> tuple[str, RollRecord]:
    """A random hit location from the game's table (a setting: the document's table
    is cut off after "1 | Head", which the default keeps). ``roller``: whose dice, the shooter's (the table's
    own, #59)."""
    s = resolve_settings(settings)
    record = dice.roll(s["hit_location_dice"], say("hit location"), roller=roller,
                       needs=location_needs(s))
    for low, high, loc in s["hit_location_table"]:
        if low <= record.total <= high:
            return loc, record
    raise RuleError(say("the hit-location table has no entry for {roll}", roll=record.total))


def called_shot_drift_with(location: str, steps: int, first_arm: str) -> str:
    """:func:`called_shot_drift` with the ``drift_first_arm`` setting."""
    if steps == 0:
        return called_shot_drift(location, 0)
    pattern = _drift_pattern(location, first_arm)
    return pattern[min(steps, len(pattern)) - 1]
