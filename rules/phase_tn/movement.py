"""Movement in *Phase/TN Combat Sequence*: the document gives no movement rates.

The reading (a game setting): moving is an action like any other
("Initiative and Actions"), a Move phase action of up to ``move_per_phase``
squares. A combatant who has not yet declared this phase declares the Move
by moving, in its turn to declare; one who declared a Move this phase may
use what is left of it until the phase ends. One who declared another
action, waits on a longer one, or is surprised does not move. A move that
takes the line of sight away ends Targeting along it ("Ranged Attacks").
The document has no free or reactive attacks: a move provokes none.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..copying import copied
from .. import los
from ..dice import DiceSource
from ..system import Combatant, MoveResult, RuleError
from ..text import say, say_n
from .data import resolve_settings
from .turns import _moving, _spent, _sync, _update, allowance_now, declare, next_declarer


def move_allowance(sheet: dict, action: str = "move", settings: dict | None = None) -> float:
    """Squares a Move phase action covers: the ``move_per_phase`` setting (the document gives no rates)."""
    return resolve_settings(settings)["move_per_phase"]


def movement_left(state: dict, mover: Combatant, settings: dict | None = None) -> float:
    """How far the mover may still go this phase (see the module's reading)."""
    return allowance_now(state["combat"], mover.id, resolve_settings(settings), state.get("names"))[0]


def _lines_lost(combat: dict, who: str, where: Any, combatants: list[Combatant], board: Any) -> list[tuple[str, str]]:
    """Targeting by or on the mover whose line of sight the move breaks."""
    if board is None or where is None:
        return []
    positions = {c.id: c.position for c in combatants}
    positions[who] = where
    lost = []
    for shooter, held in combat["targeting"].items():
        if who not in (shooter, held["target"]):
            continue
        a, b = positions.get(shooter), positions.get(held["target"])
        if a is None or b is None:
            continue
        if not los.line_of_fire(board, tuple(a), tuple(b)).clear:
            lost.append((shooter, held["target"]))
    return lost


def move(state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant], board: Any,
         dice: DiceSource, settings: dict | None = None) -> MoveResult:
    """Judge a move: refused beyond what is left of the Move, or when the mover may not
    move now; else the Move declared (if it was not), the squares spent, Targeting lost
    where the new position breaks the line of sight."""
    s = resolve_settings(settings)
    names = {**(state.get("names") or {}), **{c.id: c.name or c.id for c in combatants}}
    combat, log = _sync(state["combat"], combatants, s, names)
    who = mover.id
    name = names.get(who, who)
    left, why = allowance_now(combat, who, s, names)
    if why and not left:
        raise RuleError(say("{name} cannot move now: {why}", name=name, why=why))
    hexes = bool(getattr(getattr(board, "grid", None), "hex", False))  # a hex map's moves are counted in hexes (#58)
    if cost > left + 1e-9:
        raise RuleError(say_n("{name} can move {n} more hex this phase; that move costs {cost}",
                              "{name} can move {n} more hexes this phase; that move costs {cost}", 1 if left == 1 else 2, name=name,
                              n=f"{left:g}", cost=f"{cost:g}") if hexes else
                        say_n("{name} can move {n} more square this phase; that move costs {cost}",
                              "{name} can move {n} more squares this phase; that move costs {cost}", 1 if left == 1 else 2, name=name,
                              n=f"{left:g}", cost=f"{cost:g}"))
    declaring = not _moving(combat, who)
    if declaring:
        combat = declare(combat, who, [{"name": "move"}], s)
        log.append(say_n("{name} declares a Move (phase action, up to {n} hex).",
                         "{name} declares a Move (phase action, up to {n} hexes).", 1 if s["move_per_phase"] == 1 else 2, name=name,
                         n=f"{s['move_per_phase']:g}") if hexes else
                   say("{name} declares a Move (phase action, up to {n} squares).", name=name, n=f"{s['move_per_phase']:g}"))
    combat = copied(combat)
    spent = _spent(combat, who) + cost
    combat.setdefault("moves", {})[who] = {"phase": combat["phase"], "spent": spent}
    where = path[-1] if path else None
    for shooter, target in _lines_lost(combat, who, where, combatants, board):
        del combat["targeting"][shooter]
        log.append(say("{name} loses the Targeting on {target}: the line of sight is broken.",
                       name=names.get(shooter, shooter), target=names.get(target, target)))
    left_now = max(0, s["move_per_phase"] - spent)
    if left_now:
        log.append(say_n("{name} may move {n} more hex this phase.", "{name} may move {n} more hexes this phase.", 1 if left_now == 1 else 2,
                         name=name, n=f"{left_now:g}") if hexes else
                   say_n("{name} may move {n} more square this phase.", "{name} may move {n} more squares this phase.", 1 if left_now == 1 else 2,
                         name=name, n=f"{left_now:g}"))
    if declaring and next_declarer(combat) is None:
        log.append(say("Declarations are done: the phase resolves next."))
    update = _update(combat, s, names, [], list(log), state.get("shots", []), state.get("resolved", []),
                     state.get("struck"))
    # the move was the declaration: the next declarer is up ("X's turn to declare")
    turn = dataclasses.replace(update, log=update.log[len(log):]) if declaring else None
    return MoveResult(state=update.state, cost=cost, left=left_now, provokes=[], log=log, turn=turn)
