"""Movement (*3d6 Combat*, "Maneuvers" Movement column): how far each maneuver lets a token move,
and the distance between two squares.
"""

from __future__ import annotations

import math
from typing import Any

from ..grid import cell_steps, grid_of
from ..system import RuleError
from .data import MANEUVERS
from .sheet import current_move, step_length
from ..text import say


def maneuver_movement(sheet: dict, maneuver: str, variant: str | None = None, move: int | None = None) -> int:
    """Yards a maneuver lets the token move ("Maneuvers" table, Movement column). ``move``: the sheet's
    ``current_move``, where the caller has it."""
    m = MANEUVERS.get(maneuver)
    if m is None:
        raise RuleError(say("unknown maneuver {value}", value=repr(maneuver)))
    if move is None:
        move = current_move(sheet)
    if m.movement == "move":
        return move
    if m.movement == "half" or (maneuver == "all_out_defense" and variant == "enhanced_dodge"):
        return math.ceil(move / 2)
    if m.movement == "step2":
        return 2 * step_length(sheet, move)
    if m.movement == "step":
        return step_length(sheet, move)
    return 0


def distance_yards(a: Any, b: Any) -> float:
    """Yards between two squares for range and reach: the larger of the two offsets (on hexes, one yard
    a hex: the hexes between them, ``rules.grid.cell_steps``)."""
    return float(cell_steps(a, b))


#: the least angle at a defender between an attacker and that attacker's ally beside it that flanks it ("Flanking" in
#: the readings): on squares the square opposite the ally and the two beside that one; on hexes the opposite hex only
FLANK_DEGREES = 135


def flanks(defender: Any, attacker: Any, ally: Any) -> bool:
    """Whether ``attacker`` stands on the far side of ``defender`` from ``ally`` (the readings' "Flanking": the
    document keeps no facing): the angle at the defender between the two ``FLANK_DEGREES`` or more, measured between
    the cells' centres; on hexes on a regular hex lattice (its cube coordinates), where only the hex opposite the
    ally's is that far round among the six beside it."""
    g = grid_of(defender, attacker, ally)

    def at(cell) -> tuple[float, float]:
        if not g.hex:
            return float(cell[0]), float(cell[1])
        q, r, _s = g.cube(tuple(cell))
        return q + r / 2, r * math.sqrt(3) / 2

    (dx, dy), (ax, ay), (bx, by) = at(defender), at(attacker), at(ally)
    u, v = (ax - dx, ay - dy), (bx - dx, by - dy)
    lengths = math.hypot(*u) * math.hypot(*v)
    if not lengths:
        return False
    return (u[0] * v[0] + u[1] * v[1]) / lengths <= math.cos(math.radians(FLANK_DEGREES)) + 1e-9


def move_allowance(sheet: dict, action: str = "move") -> float:
    """Yards the action lets the token move: ``"maneuver"`` or ``"maneuver:variant"``
    (e.g. ``"all_out_defense:enhanced_dodge"``)."""
    key, _, variant = action.partition(":")
    return float(maneuver_movement(sheet, key, variant or None))


def is_square(v) -> bool:
    """Whether ``v`` names a square: two finite numbers (an area template's centre)."""
    return (isinstance(v, (list, tuple)) and len(v) >= 2
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in v[:2]))
