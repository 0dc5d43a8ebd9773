"""Movement in inches (one square is 1"): Pace, running, standing up, step
costs on the board, and who gets a free attack when a token withdraws.

Sources: the Savage Worlds core facts (Pace 6", running adds a d6,
difficult terrain costs double); *Savage Worlds Combat System Reference*,
"Actions Per Turn" (movement is not an action), "Prone Targets" (2" to
stand) and "Withdrawing from Melee".
"""

from __future__ import annotations

from .. import movement as grid_movement
from ..dice import DiceSource
from ..grid import cell_steps
from ..text import say
from ..system import Combatant, Modifier, RuleError
from .checks import parse_die
from .data import CORE, RUNNING_PENALTY, STAND_COST
from .health import active
from .sheet import derived_values, weapon_stats

DIAGONAL = "chebyshev"


def adjacent(a, b) -> bool:
    """Two squares touch (diagonals too); a square is not adjacent to itself."""
    if a is None or b is None:
        return False
    return cell_steps(a, b) <= 1 and tuple(a) != tuple(b)


def distance(a, b) -> int:
    """Inches between two squares, diagonals counting 1" (on hexes an inch a hex: ``cell_steps``)."""
    return cell_steps(a, b)


def move_allowance(sheet: dict, action: str = "move") -> float:
    """Pace in squares. ``"run"`` is the most a run can give without an ace
    of the running die (roll it with :func:`run`); ``"stand"`` is what is
    left after standing up from prone (2")."""
    d = derived_values(sheet)
    if action == "move":
        return float(d["pace"])
    if action == "run":
        return float(d["pace"] + parse_die(d["run_die"]).sides)
    if action == "stand":
        return float(max(0, d["pace"] - STAND_COST))
    raise RuleError(say("no movement action {action} (move, run or stand)", action=repr(action)))


def running_needs(run_die: str, pace: int) -> str:
    """What the running die is rolled for, in words (the table's dice, #59): it does not ace."""
    return say("roll the {die} and add it to Pace {pace} (it does not ace)", die=run_die, pace=pace)


def run(sheet: dict, dice: DiceSource, roller: str | None = None) -> dict:
    """Core facts: running adds the running die to Pace and is -2 to every
    action that turn (the running die does not ace: it is not a trait roll). ``roller``: the runner's token, who
    rolls it at a table rolling its own dice (#59)."""
    d = derived_values(sheet)
    r = dice.roll(d["run_die"], say("running die"), roller=roller, needs=running_needs(d["run_die"], d["pace"]))
    return {"allowance": d["pace"] + r.total, "roll": r.to_dict(),
            "modifier": Modifier(say("Running"), RUNNING_PENALTY, CORE).to_dict()}


def move_cost(board, path: list, prone: bool = False) -> float:
    """Step costs on the board (difficult terrain doubles them, diagonals
    count 1"), plus 2" to stand up first when prone."""
    cost = grid_movement.path_cost(board, path, DIAGONAL)
    if cost is None:
        raise RuleError(say("that path cannot be walked (blocked, occupied or not step by step)"))
    return float(cost) + (float(STAND_COST) if prone else 0.0)


def withdraw_attackers(mover: Combatant, others: list[Combatant]) -> list[str]:
    """Withdrawing from Melee: the ids of every adjacent foe that is not Shaken
    nor Stunned (nor Incapacitated); each gets one free attack."""
    out = []
    for o in others:
        if o.id == mover.id or o.side == mover.side or not active(o):
            continue
        s = o.sheet or {}
        if s.get("shaken") or s.get("stunned"):
            continue
        if adjacent(o.position, mover.position):
            out.append(o.id)
    return out


def free_attack_weapon(sheet: dict) -> str | None:
    """Withdrawing from Melee: the weapon an adjacent foe's free attack is made with, the first melee
    weapon its sheet has ready (a natural weapon too); None when it has none ready (Unarmed)."""
    for name, w in (sheet.get("weapons") or {}).items():
        try:
            stats = weapon_stats(w)
        except (RuleError, ValueError, TypeError):  # a sheet entry the rules refuse arms nobody
            continue
        if not stats["ranged"] and stats["ready"]:
            return name
    return None
