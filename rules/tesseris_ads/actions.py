"""Movement, reactive attacks, swordpoint, attacking cover directly and the
social actions' tick costs and statuses ("Movement Actions", "Moving",
"Diagonals", "Reaction Strike", "Swordpoint & Gunpoint", "Destroying Cover",
"Social Combat Actions", "Miscellaneous Actions").
"""

from __future__ import annotations

from typing import Any

from ..dice import DiceSource
from ..system import AttackResult, Combatant, Effect, Modifier, RuleError, RuleNotImplemented
from . import core
from . import cover as cover_mod
from .data import ACTIONS
from .sheet import char, num, skill, speed, weapon as sheet_weapon
from .status import effect_of, escalate, names as status_names, reduce_status
from .ticks import can_react, state_of


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
    return core.diagonal_cost(len(steps) - diag, diag)


def sprint_turns(path: list) -> list[int]:
    """Indexes of the steps where a path changes direction."""
    steps = _steps(path)
    return [i for i in range(1, len(steps)) if steps[i] != steps[i - 1]]


def check_move(sheet: dict, action: str, path: list, state: dict | None = None) -> dict:
    """Whether a path fits an action ("Movement Actions"): its squares within the
    allowance; a Sprint turns once at most, by 90 degrees or less; a Charge moves at
    least 2 squares. Terrain costs are the board's (``rules.movement``)."""
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
    s = state_of(state or {})
    if action == "quick_step" and s.get("moved"):
        raise RuleError("no Quick Step in a turn with another move")
    if action in ("move", "run", "sprint") and s.get("quick_step"):
        raise RuleError("no move, run or sprint in a turn with a Quick Step")
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


def can_initiate_swordpoint(initiator: Combatant, defender: Combatant, conditions: list[str], weapon_key: str | None = None) -> bool:
    """Whether sword- or gunpoint may begin ("Initiating Swordpoint or Gunpoint"): next to
    the defender, threatening with a weapon (not unarmed), and one condition met:
    unaware, helpless, unable to resist, distracted, or unarmed without Martial Artist."""
    if initiator.position is not None and defender.position is not None and not _adjacent(tuple(initiator.position), tuple(defender.position)):
        raise RuleError("the initiator must be next to the defender")
    w = sheet_weapon(initiator.sheet, weapon_key)
    if w.get("name", "").lower() == "unarmed":
        raise RuleError("sword- or gunpoint needs a weapon (unarmed martial artists do not count)")
    allowed = {"unaware", "helpless", "unable_to_resist", "distracted", "unarmed"}
    given = set(conditions) & allowed
    if "unarmed" in given:
        has_weapon = bool(defender.sheet.get("weapons"))
        martial = any("martial artist" in str(f).lower() for f in defender.sheet.get("feats") or [])
        if has_weapon or martial:
            given.discard("unarmed")
    if not given:
        raise RuleError("the defender is ready to fight: none of the conditions for sword- or gunpoint is met")
    return True


def attack_cover_piece(
    attacker: Combatant,
    weapon_key: str | None,
    piece_id: str,
    material: str,
    distance: int,
    dice: DiceSource,
    taken_before: int = 0,
    modifiers: list[Modifier] | None = None,
) -> AttackResult:
    """Shoot or strike a cover section directly, like an unattended object ("Destroying
    Cover"). Reading: an object does not defend, so every success is net; damage past
    the section's Armour Points (less Armour Penetration) goes to its Structure Points."""
    w = sheet_weapon(attacker.sheet, weapon_key)
    melee = w.get("kind", "melee") == "melee"
    mods = [Modifier(f"{(w.get('skill') or 'melee').title()} rank", skill(attacker.sheet, w.get("skill") or "melee"), "Attacking")]
    if not melee:
        rm = core.range_modifier(distance, num(w.get("range")) or 1)
        if rm is None:
            raise RuleError("the cover is beyond 3x the weapon's listed range")
        if rm:
            mods.append(Modifier("Range", rm, "Common Physical Combat Modifiers"))
    elif distance > (num(w.get("reach"), 1) or 1):
        raise RuleError("the cover is out of reach")
    mods += list(modifiers or [])
    rec = dice.roll(f"{max(0, char(attacker.sheet, 'agility' if melee else 'perception'))}dT", f"{attacker.name}: attack {piece_id}")
    total = rec.total + sum(m.value for m in mods)
    hit = total >= 1
    effects: list[Effect] = []
    dmg = 0
    if hit:
        raw = num(w.get("damage")) + (char(attacker.sheet, "strength") if melee or w.get("kind") == "thrown" else 0) + (total // 2 if w.get("impact") else total)
        dmg = cover_mod.excess_over_ap(raw, material, num(w.get("ap")))
        effects = cover_mod.damage_section(piece_id, material, dmg, taken_before, reason="targeted directly")
    summary = f"{attacker.name} attacks {piece_id}: {total}, " + (f"{dmg} structure damage" if hit else "miss")
    return AttackResult(hit=hit, summary=summary, rolls=[rec], modifiers=mods, effects=effects, details={"attack_total": total, "structure_damage": dmg, "piece": piece_id})


# -- social actions: tick costs and the statuses they move ("Social Combat Actions") --

SOCIAL_CHAINS = {k: a.extra["status_chain"] for k, a in ACTIONS.items() if "status_chain" in a.extra}


def social_status(statuses: list | None, action: str, source: str | None = None) -> tuple[list[dict], str]:
    """A successful Charm or Intimidate: the next status of its chain (Attracted, Enticed,
    Enthralled; Frightened, Terrified, Fleeing). Whether it succeeds is social combat,
    which this chapter does not give: the GM decides and the app applies the status."""
    if action not in SOCIAL_CHAINS:
        raise RuleNotImplemented(f"Tesseris: the status {ACTIONS[action].name if action in ACTIONS else action} applies is the GM's choice")
    return escalate(statuses, SOCIAL_CHAINS[action], source)


def rally(statuses: list | None, name: str) -> list[dict]:
    """Rally lowers one status of an ally by a level ("Social Combat Actions")."""
    return reduce_status(statuses, name)


def per_three(successes: int) -> int:
    """+1 per 3 successes: Ego from Motivate and Psych Up, re-rolls from Aid Ally,
    bonus successes from Grapple Assist ("Social Combat Actions", "Miscellaneous Actions")."""
    return max(0, successes) // 3


def social_combat(*_args, **_kwargs):
    """Social combat rolls are in another chapter of the rules."""
    raise RuleNotImplemented("Tesseris: social combat rolls are not in the combat chapter; the GM resolves them")
