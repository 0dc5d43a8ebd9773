"""Movement: the squares each move action allows, counting diagonals, checking a
path against an action, and the foes a provoking action lets strike
(*Tesseris Combat*, "Movement Actions", "Moving", "Diagonals", "Reaction
Strike"). Terrain costs are the board's (``rules.movement``).
"""

from __future__ import annotations

from typing import Any

from ..system import Combatant, RuleError
from .data import ACTIONS
from .sheet import num, speed
from .status import effect_of, names as status_names
from .ticks import can_react, refusal, state_of


def diagonal_cost(straight: int, diagonal: int) -> int:
    """Squares of movement for a path of straight and diagonal steps (*Tesseris Combat*, "Moving", "Diagonals").

    Diagonal steps count 1, 2, 1, 2, ... (1.5x, rounded down over the path).
    """
    if straight < 0 or diagonal < 0:
        raise ValueError("step counts cannot be negative")
    return straight + diagonal + diagonal // 2


def grid_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Distance in squares between two cells on the 1.5x diagonal ("Diagonals")."""
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    return diagonal_cost(max(dx, dy) - min(dx, dy), min(dx, dy))


def move_allowance(sheet: dict, action: str = "move") -> int:
    """Squares one action moves ("Movement Actions"): Move = Speed (human 3), Run 4x,
    Sprint 6x, Charge and Hip Fire 2x, Quick Step and Follow Step 1, Dive for Cover 3.
    Slowed takes 1 from Speed."""
    spd = speed(sheet) + sum(effect_of(s["name"] if isinstance(s, dict) else s).speed for s in (sheet.get("statuses") or []))
    spd = max(0, spd)
    a = ACTIONS.get(action)
    if a is None:
        raise RuleError(f"unknown action {action!r}")
    if "squares" in a.extra:
        return a.extra["squares"]
    if "max_move" in a.extra:
        return a.extra["max_move"]
    if a.key == "take_cover":
        return spd
    if a.move_multiple:
        return int(spd * a.move_multiple)
    return 0


def _steps(path: list) -> list[tuple[int, int]]:
    out = []
    for a, b in zip(path, path[1:]):
        d = (b[0] - a[0], b[1] - a[1])
        if max(abs(d[0]), abs(d[1])) != 1:
            raise RuleError(f"path step {tuple(a)} -> {tuple(b)} is not to a neighbouring square")
        out.append(d)
    return out


def path_squares(path: list) -> int:
    """Squares a path counts on the alternating 1.5x diagonal ("Diagonals")."""
    steps = _steps(path)
    diag = sum(1 for d in steps if d[0] and d[1])
    return diagonal_cost(len(steps) - diag, diag)


def sprint_turns(path: list) -> list[int]:
    """Indexes of the steps where a path changes direction."""
    steps = _steps(path)
    return [i for i in range(1, len(steps)) if steps[i] != steps[i - 1]]


def check_move(sheet: dict, action: str, path: list, state: dict | None = None) -> dict:
    """Whether a path fits an action ("Movement Actions"): its squares within the
    allowance; a Sprint turns once at most, by 90 degrees or less; a Charge moves at
    least 2 squares; and the action allowed now (``ticks.refusal``: no Move, Run or
    Sprint in a turn with a Quick Step, nor a move while Grappled). Terrain costs are
    the board's (``rules.movement``)."""
    path = [tuple(p) for p in path]
    squares = path_squares(path)
    allowed = move_allowance(sheet, action)
    if squares > allowed:
        raise RuleError(f"{ACTIONS[action].name} moves {allowed} squares; this path counts {squares}")
    if action == "sprint":
        turns = sprint_turns(path)
        if len(turns) > 1:
            raise RuleError("a Sprint may only turn once")
        if turns:
            steps = _steps(path)
            a, b = steps[turns[0] - 1], steps[turns[0]]
            if a[0] * b[0] + a[1] * b[1] < 0:
                raise RuleError("a Sprint may only turn by 90 degrees or less")
    if action == "charge" and squares < ACTIONS["charge"].extra["min_move"]:
        raise RuleError("a Charge must move at least 2 squares before attacking")
    reason = refusal(state_of(state or {}), action, reaction=ACTIONS[action].ticks is None, statuses=sheet.get("statuses"))
    if reason:
        raise RuleError(reason)
    return {"squares": squares, "allowed": allowed, "provokes": ACTIONS[action].provokes}


def _adjacent(a, b) -> bool:
    return max(abs(a[0] - b[0]), abs(a[1] - b[1])) == 1


def _line_clear(board: Any, a, b) -> bool:
    if board is None:
        return True
    try:
        from .. import los  # the geometry helper's module; may not exist in every tree
    except ImportError:
        return True
    return los.line_of_fire(board, tuple(a), tuple(b)).clear


def reactive_attackers(
    action: str,
    mover: Combatant,
    others: list[Combatant],
    path: list | None = None,
    board: Any = None,
) -> list[str]:
    """Foes who may take a Reaction Strike (1 tick, melee reach) when ``mover`` takes an
    action that provokes one ("Movement Actions" *, Drop Prone, Stand Up, Dive for Cover,
    "Reaction Strike").

    Moving actions provoke from foes next to the starting square or any square moved
    through (reading: not the square the move ends in); Drop Prone and Stand Up from
    melee foes next to the character. A foe must be conscious, hold a melee weapon
    (or fight unarmed) and have a reaction to pay with; a wall between them blocks it.
    """
    a = ACTIONS.get(action)
    if a is None:
        raise RuleError(f"unknown action {action!r}")
    if not a.provokes:
        return []
    start = tuple(mover.position) if mover.position is not None else None
    if a.provokes == "path" and path:
        cells = [tuple(p) for p in path[:-1]] or [tuple(path[0])]
    else:
        cells = [start] if start is not None else []
    out = []
    for o in others:
        if o.id == mover.id or o.side == mover.side or o.position is None:
            continue
        if "Unconscious" in status_names(o.sheet.get("statuses")) or "Pinned" in status_names(o.sheet.get("statuses")):
            continue
        if not can_react(state_of(o), 1):
            continue
        pos = tuple(o.position)
        reach = 1
        weapons = o.sheet.get("weapons") or {}
        if isinstance(weapons, dict) and weapons:
            melee = [w for w in weapons.values() if w.get("kind", "melee") == "melee"]
            reach = max([num(w.get("reach"), 1) or 1 for w in melee] or [1])
        if any(c is not None and 0 < max(abs(c[0] - pos[0]), abs(c[1] - pos[1])) <= reach and _line_clear(board, pos, c) for c in cells):
            out.append(o.id)
    return sorted(out)
