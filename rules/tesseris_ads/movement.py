"""Movement: the squares each move action allows, counting diagonals, checking a
path against an action, and the foes a provoking action lets strike
(*Tesseris Combat*, "Movement Actions", "Moving", "Diagonals", "Reaction
Strike"). Terrain costs are the board's (``rules.movement``).
"""

from __future__ import annotations

import math
from typing import Any

from ..grid import cell_steps, grid_of
from ..system import Combatant, RuleError
from ..text import say, say_n, whole
from .data import ACTIONS
from .health import is_dead
from .sheet import num, speed
from .status import effect_of, names as status_names
from .ticks import can_react, refusal, spend, state_of


def diagonal_cost(straight: int, diagonal: int) -> int:
    """Squares of movement for a path of straight and diagonal steps (*Tesseris Combat*, "Moving", "Diagonals").

    Diagonal steps count 1, 2, 1, 2, ... (1.5x, rounded down over the path).
    """
    if straight < 0 or diagonal < 0:
        raise ValueError("step counts cannot be negative")
    return straight + diagonal + diagonal // 2


def grid_distance(a: tuple[int, int], b: tuple[int, int]) -> int:
    """Distance in squares between two cells on the 1.5x diagonal ("Diagonals"); on hexes, the hexes
    between them (a hex is a square without diagonals: ``rules.grid.cell_steps``)."""
    if grid_of(a, b).hex:
        return cell_steps(a, b)
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
        raise RuleError(say("unknown action {value}", value=repr(action)))
    if "squares" in a.extra:
        return a.extra["squares"]
    if "max_move" in a.extra:
        return a.extra["max_move"]
    if a.key == "take_cover":
        return spd
    if a.move_multiple:
        return int(spd * a.move_multiple)
    return 0


def _steps(path: list, grid=None) -> list[tuple[int, ...]]:
    """The path's steps: ``(dx, dy)`` on squares; on a hex ``grid`` the cube step ``(dq, dr, ds)``
    (a straight line of hexes repeats one step, and the dot product of two steps is below 0 for a
    turn of more than 90 degrees on both)."""
    if grid is not None and grid.hex:
        out = []
        for a, b in zip(path, path[1:]):
            if grid.steps(a, b) != 1:
                raise RuleError(say("path step {start} -> {end} is not to a neighbouring hex", start=str(tuple(a)), end=str(tuple(b))))
            ca, cb = grid.cube(a), grid.cube(b)
            out.append((cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]))
        return out
    out = []
    for a, b in zip(path, path[1:]):
        d = (b[0] - a[0], b[1] - a[1])
        if max(abs(d[0]), abs(d[1])) != 1:
            raise RuleError(say("path step {start} -> {end} is not to a neighbouring square", start=str(tuple(a)), end=str(tuple(b))))
        out.append(d)
    return out


def path_squares(path: list) -> int:
    """Squares a path counts on the alternating 1.5x diagonal ("Diagonals")."""
    steps = _steps(path)
    diag = sum(1 for d in steps if d[0] and d[1])
    return diagonal_cost(len(steps) - diag, diag)


def sprint_turns(path: list, grid=None) -> list[int]:
    """Indexes of the steps where a path changes direction."""
    steps = _steps(path, grid)
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
        raise RuleError(say("{action} moves {allowed} squares; this path counts {squares}", action=ACTIONS[action].name,
                            allowed=allowed, squares=squares))
    if action == "sprint":
        turns = sprint_turns(path)
        if len(turns) > 1:
            raise RuleError(say("a Sprint may only turn once"))
        if turns:
            steps = _steps(path)
            a, b = steps[turns[0] - 1], steps[turns[0]]
            if a[0] * b[0] + a[1] * b[1] < 0:
                raise RuleError(say("a Sprint may only turn by 90 degrees or less"))
    if action == "charge" and squares < ACTIONS["charge"].extra["min_move"]:
        raise RuleError(say("a Charge must move at least 2 squares before attacking"))
    reason = refusal(state_of(state or {}), action, reaction=ACTIONS[action].ticks is None, statuses=sheet.get("statuses"))
    if reason:
        raise RuleError(reason)
    return {"squares": squares, "allowed": allowed, "provokes": ACTIONS[action].provokes}


def _adjacent(a, b) -> bool:
    return cell_steps(a, b) == 1


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
    melee foes next to the character. A foe must be conscious (not dead, dying nor Unconscious), hold a melee weapon
    (or fight unarmed) and have a reaction to pay with; a wall between them blocks it.
    """
    a = ACTIONS.get(action)
    if a is None:
        raise RuleError(say("unknown action {value}", value=repr(action)))
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
        pos = o.position if isinstance(o.position, tuple) else tuple(o.position)
        reach = 1
        weapons = o.sheet.get("weapons") or {}
        if isinstance(weapons, dict) and weapons:
            melee = [w for w in weapons.values() if w.get("kind", "melee") == "melee"]
            reach = max([num(w.get("reach"), 1) or 1 for w in melee] or [1])
        near = [c for c in cells if c is not None and 0 < cell_steps(pos, c) <= reach]
        if not near:  # (out of reach of every square: the foe's books need not be read, #60's trial moves)
            continue
        if is_dead(o.sheet) or o.sheet.get("dying") or {"Unconscious", "Pinned"} & set(status_names(o.sheet.get("statuses"))):
            continue  # out of the fight ("Unconsciousness, Crippling, and Death"), or Pinned
        if not can_react(state_of(o), 1):
            continue
        if any(_line_clear(board, pos, c) for c in near):
            out.append(o.id)
    return sorted(out)


# -- moves in a fight: the ticks pay for the squares ------------------------------------------

#: per-combatant keys of the squares bought this turn (cleared at the start of a turn and a round)
MOVE_KEYS = ("move_left", "move_action", "moved_squares", "sprint_turned", "move_hexes")
#: declared moves whose squares ``move`` spends: the action's allowance is granted when it is paid
DECLARED_MOVES = ("move", "run", "sprint", "quick_step", "dive_for_cover", "take_cover")


def grant(state: dict, sheet: dict, action: str, reaction: bool = False) -> dict:
    """A combatant's state after paying for a moving action (``act``): its squares are there
    to spend with ``move`` ("Movement Actions": Move Speed, Run 4x, Sprint 6x, Quick Step 1,
    Dive for Cover 3; "Taking Cover": off-turn, up to the normal Speed to reach cover)."""
    if action == "take_cover":
        squares = move_allowance(sheet, "move") if reaction else 0
    else:
        squares = move_allowance(sheet, action)
    if not squares:
        return state
    return {**state, "move_left": num(state.get("move_left")) + squares, "move_action": action}


def _fighter_state(state: dict, mover: Combatant) -> dict:
    stored = (state.get("combatants") or {}).get(mover.id)
    return state_of(mover.state if stored is None else stored, mover.sheet)


def _quick_step_possible(s: dict, statuses) -> bool:
    return refusal(s, "quick_step", statuses=statuses) is None


def movement_left(state: dict, mover: Combatant, settings: dict | None = None) -> float:
    """Squares the mover may still move this turn (*Tesseris Combat*, "Ticks", "Movement
    Actions"): what is left of the moving actions it paid for, and on its own turn one Move
    action (1 tick, Speed squares) for each tick left; no tick left and no move yet, the
    free Quick Step's 1 square. Off its turn only what a reaction paid for (Dive for Cover,
    Take Cover). A Run or Sprint declared with ``act`` adds its 4x or 6x Speed."""
    s = _fighter_state(state, mover)
    statuses = mover.sheet.get("statuses")
    left = max(0, num(s.get("move_left")))
    if state.get("current") != mover.id:
        return float(left)
    speed = move_allowance(mover.sheet, "move")
    if refusal(s, "move", statuses=statuses) is None and speed > 0:
        left += max(0, num(s["ticks"])) * speed
    if left < 1 and _quick_step_possible(s, statuses):
        left = 1
    return float(left)


def move(state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant], board: Any = None,
         settings: dict | None = None) -> dict:
    """Judge a move of ``cost`` squares along ``path`` (*Tesseris Combat*, "Movement Actions",
    "Moving", "Ticks", "Reaction Strike"): the squares left of a paid moving action first,
    then as many Move actions as the rest needs (1 tick, Speed squares each; ticks are not
    borrowed for a Move), or the free Quick Step for one square when no tick is left. A
    Sprint turns once at most. Refused with the reason beyond what is left.

    Returns ``{"state", "cost", "ticks", "moves", "action", "left", "provokes", "log"}``:
    ``provokes`` the foes a provoking move lets take a Reaction Strike (adjacent to the
    start or a square moved through)."""
    settings = settings or {}
    fight = state.get("combatants") or {}
    if mover.id not in fight:
        raise RuleError(say("{name} is not in this fight", name=mover.name))
    own = state.get("current") == mover.id
    s = _fighter_state(state, mover)
    statuses = mover.sheet.get("statuses")
    cost = float(cost)
    if cost < 0:
        raise RuleError(say("a move cannot cost less than nothing"))
    have = max(0, num(s.get("move_left")))
    action = s.get("move_action") or "move"
    moves = 0
    hexes = bool(getattr(getattr(board, "grid", None), "hex", False) or grid_of(mover.position).hex)  # hexes said so (#58)
    ticks_before = num(s["ticks"])
    if cost > have + 1e-9:
        need = cost - have
        if not own and hexes:  # a hex map's moves are hexes (#58)
            raise RuleError(say_n("not {name}'s turn: off-turn moves are Dive for Cover or Take Cover (reactions), "
                                  "{n} hex left", "not {name}'s turn: off-turn moves are Dive for Cover or Take Cover "
                                  "(reactions), {n} hexes left", have, name=mover.name)
                            if float(have).is_integer() else
                            say("not {name}'s turn: off-turn moves are Dive for Cover or Take Cover (reactions), "
                                "{squares} hexes left", name=mover.name, squares=have))
        if not own:
            raise RuleError(say_n("not {name}'s turn: off-turn moves are Dive for Cover or Take Cover (reactions), "
                                  "{n} square left", "not {name}'s turn: off-turn moves are Dive for Cover or Take Cover "
                                  "(reactions), {n} squares left", have, name=mover.name)
                            if float(have).is_integer() else
                            say("not {name}'s turn: off-turn moves are Dive for Cover or Take Cover (reactions), "
                                "{squares} squares left", name=mover.name, squares=have))
        speed = move_allowance(mover.sheet, "move")
        reason = refusal(s, "move", statuses=statuses)
        moves = math.ceil(need / speed - 1e-9) if speed > 0 else 0
        if reason is None and speed > 0 and moves <= max(0, num(s["ticks"])):
            for _ in range(moves):
                s = spend(s, "move", settings=settings, statuses=statuses)
            have += moves * speed
            action = "move"
        elif have == 0 and cost <= 1 and _quick_step_possible(s, statuses):
            s = spend(s, "quick_step", settings=settings, statuses=statuses)
            have, action, moves = 1, "quick_step", 0
        else:
            if reason is None and speed <= 0:
                reason = say("{name} has Speed 0", name=mover.name)
            most = movement_left(state, mover, settings)
            if reason is None and hexes:
                raise RuleError(say_n("{squares} hexes need {n} Move action ({n} tick) and {left} are left: {most} hexes at most",
                                      "{squares} hexes need {n} Move actions ({n} ticks) and {left} are left: {most} hexes at most",
                                      moves, squares=whole(cost), left=max(0, num(s["ticks"])), most=whole(float(most))))
            raise RuleError(reason or say_n("{squares} squares need {n} Move action ({n} tick) and {left} are left: "
                                            "{most} squares at most", "{squares} squares need {n} Move actions ({n} ticks) "
                                            "and {left} are left: {most} squares at most", moves, squares=whole(cost),
                                            left=max(0, num(s["ticks"])), most=whole(float(most))))
    cells = [tuple(p) for p in path if isinstance(p, (list, tuple)) and len(p) == 2]
    if action == "sprint" and len(cells) > 1:
        grid = getattr(board, "grid", None)
        turns = sprint_turns(cells, grid)
        if turns:
            steps = _steps(cells, grid)
            a, b = steps[turns[0] - 1], steps[turns[0]]
            if len(turns) > 1 or s.get("sprint_turned") or sum(p * q for p, q in zip(a, b)) < 0:
                raise RuleError(say("a Sprint may only turn once, by 90 degrees or less"))
            s = {**s, "sprint_turned": True}
    have -= cost
    s = {**s, "move_left": round(have, 6) if have > 1e-9 else 0, "move_action": action if have > 1e-9 else None,
         "moved_squares": num(s.get("moved_squares")) + cost, **({"move_hexes": True} if hexes else {})}
    for k in ("last_action", "last_cost"):
        s.pop(k, None)
    paid = ticks_before - num(s["ticks"])
    others = []
    for c in combatants:
        if c.id == mover.id:
            continue
        others.append(Combatant(c.id, c.name, c.sheet, c.position, c.side, c.is_player, fight.get(c.id, c.state)))
    start = Combatant(mover.id, mover.name, mover.sheet, cells[0] if cells else mover.position, mover.side, mover.is_player, s)
    foes = reactive_attackers(action, start, others, path=cells or None, board=board) if action != "quick_step" else []
    if foes:
        s["provoked"] = foes
    else:
        s.pop("provoked", None)
    new = {**state, "combatants": {**fight, mover.id: s}}
    what = {"move": say_n("{n} Move action", "{n} Move actions", moves), "quick_step": say("Quick Step")}.get(action, ACTIONS[action].name)
    bought = (say_n("{what}, {n} tick", "{what}, {n} ticks", paid, what=what) if (moves or action == "quick_step")
              else say("of the {what} already paid", what=what))
    line = (say_n("{name} moves {n} hex ({bought})", "{name} moves {n} hexes ({bought})", 1 if cost == 1 else 2,
                  name=mover.name, n=f"{cost:g}", bought=bought) if hexes else
            say_n("{name} moves {n} square ({bought})", "{name} moves {n} squares ({bought})", 1 if cost == 1 else 2,
                  name=mover.name, n=f"{cost:g}", bought=bought))
    if foes:
        names = {c.id: c.name for c in combatants}
        line = say("{line}; Reaction Strike possible for {names}", line=line, names=", ".join(names.get(f, f) for f in foes))
    left = movement_left(new, Combatant(mover.id, mover.name, mover.sheet, mover.position, mover.side, mover.is_player, s), settings)
    return {"state": new, "cost": cost, "ticks": paid, "moves": moves, "action": action, "left": left,
            "provokes": foes, "log": [line]}
