"""Movement (*3d6 Combat*, "Maneuvers" Movement column): how far each maneuver lets a token move,
and the distance between two squares.
"""

from __future__ import annotations

import math
from typing import Any

from ..grid import cell_steps
from ..system import RuleError
from .data import MANEUVERS
from .sheet import current_move, step_length
from ..text import say


def maneuver_movement(sheet: dict, maneuver: str, variant: str | None = None) -> int:
    """Yards a maneuver lets the token move ("Maneuvers" table, Movement column)."""
    m = MANEUVERS.get(maneuver)
    if m is None:
        raise RuleError(say("unknown maneuver {value}", value=repr(maneuver)))
    move = current_move(sheet)
    step = step_length(sheet)
    if m.movement == "move":
        return move
    if m.movement == "half" or (maneuver == "all_out_defense" and variant == "enhanced_dodge"):
        return math.ceil(move / 2)
    if m.movement == "step2":
        return 2 * step
    if m.movement == "step":
        return step
    return 0


def distance_yards(a: Any, b: Any) -> float:
    """Yards between two squares for range and reach: the larger of the two offsets (on hexes, one yard
    a hex: the hexes between them, ``rules.grid.cell_steps``)."""
    return float(cell_steps(a, b))


def move_allowance(sheet: dict, action: str = "move") -> float:
    """Yards the action lets the token move: ``"maneuver"`` or ``"maneuver:variant"``
    (e.g. ``"all_out_defense:enhanced_dodge"``)."""
    key, _, variant = action.partition(":")
    return float(maneuver_movement(sheet, key, variant or None))


def is_square(v) -> bool:
    """Whether ``v`` names a square: two finite numbers (an area template's centre)."""
    return (isinstance(v, (list, tuple)) and len(v) >= 2
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v[:2]))
