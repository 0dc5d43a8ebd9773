"""Wounds in *Phase/TN Combat Sequence*, "Damage and Wounds".

The document names two kinds of wound and stops: flesh wounds, which
almost all damage causes (not stunning attacks), and traumatic wounds,
which only some hits cause and which can cripple or kill. Everything past
that is a setting: damage counts as flesh wounds up to Constitution x
``flesh_per_constitution``; after each damaging hit the target rolls
against the damage plus a location modifier, and a failure is a traumatic
wound with that location's effect and a penalty to every roll.
"""

from __future__ import annotations

import copy

from ..dice import DiceSource
from ..system import AttackResult
from .checks import attr, attribute_roll, wound_modifiers
from .data import resolve_settings

__all__ = ["apply", "badges", "flesh_capacity", "incapacitated", "trauma_check", "wound_state", "wound_modifiers"]

#: words in a ``trauma_effects`` entry that take the character out of the fight
OUT_OF_FIGHT = ("unconscious", "dying", "dead")


def flesh_capacity(sheet: dict, settings: dict | None = None) -> int:
    """How many flesh wounds put the character down: Constitution x ``flesh_per_constitution``."""
    s = resolve_settings(settings)
    return attr(sheet, "constitution") * s["flesh_per_constitution"]


def trauma_check(sheet: dict, location: str, damage: int, dice: DiceSource, settings: dict | None = None) -> dict:
    """The target's roll against trauma after a damaging hit (settings: the document stops short).

    The dice + ``trauma_attribute`` against the damage plus the location's
    ``trauma_location_modifier``; a failure is a traumatic wound there.
    """
    s = resolve_settings(settings)
    tn = damage + s["trauma_location_modifier"].get(location, 0)
    return attribute_roll(sheet, s["trauma_attribute"], tn, dice, s, purpose=f"trauma check ({location})")


def wound_state(sheet: dict, settings: dict | None = None) -> dict:
    """Flesh wounds against capacity, traumatic wounds, their roll penalty and the conditions they cause."""
    s = resolve_settings(settings)
    capacity = flesh_capacity(sheet, s)
    flesh = sheet.get("flesh", 0)
    trauma = {loc: n for loc, n in (sheet.get("trauma") or {}).items() if n}
    conditions = [s["trauma_effects"].get(loc, loc) for loc in trauma]
    if capacity and flesh >= capacity:
        conditions.insert(0, "down (flesh wounds at capacity)")
    return {
        "flesh_capacity": capacity,
        "flesh": flesh,
        "trauma_count": sum(trauma.values()),
        "roll_penalty": sum(m.value for m in wound_modifiers(sheet, s)),
        "conditions": conditions,
    }


def incapacitated(sheet: dict, settings: dict | None = None) -> str:
    """Why the character can no longer act ("" if it can): down from flesh wounds at
    capacity, or a traumatic wound whose effect is unconscious or dying (settings)."""
    s = resolve_settings(settings)
    for condition in wound_state(sheet, s)["conditions"]:
        if condition.startswith("down") or any(word in condition for word in OUT_OF_FIGHT):
            return condition
    return ""


def apply(sheet: dict, result: AttackResult, target_id: str | None = None) -> dict:
    """Add the flesh and traumatic wounds of a result to a sheet ("Damage and Wounds")."""
    new = copy.deepcopy(sheet)
    new.setdefault("flesh", 0)
    new.setdefault("trauma", {})
    for e in result.effects:
        if target_id is not None and e.target != target_id:
            continue
        if e.kind == "flesh":
            new["flesh"] += int(e.data.get("amount", 0))
        elif e.kind == "trauma":
            loc = e.data["location"]
            new["trauma"][loc] = new["trauma"].get(loc, 0) + 1
    return new


def badges(sheet: dict, state: dict | None = None, settings: dict | None = None) -> list[dict]:
    """What the token shows: flesh wounds, each traumatic wound and its effect, the roll
    penalty ("Damage and Wounds", with the settings' readings); from the fight's books
    (``Combatant.state``): surprised, waiting on an action, the Targeting held and on whom,
    aims, shots to roll now ("Combat Sequence", "Initiative and Actions", "Ranged Attacks")."""
    s = resolve_settings(settings)
    out: list[dict] = []
    flesh = int(sheet.get("flesh", 0) or 0)
    capacity = flesh_capacity(sheet, s)
    if flesh:
        count = f"{flesh}/{capacity}" if capacity else str(flesh)
        out.append({"label": f"{count} flesh wound{'s' if flesh != 1 else ''}", "kind": "wound"})
    for loc, n in (sheet.get("trauma") or {}).items():
        if n:
            out.append({"label": f"trauma: {loc}" + (f" x{n}" if n > 1 else ""), "kind": "wound"})
    state_of = wound_state(sheet, s)
    for condition in state_of["conditions"]:
        out.append({"label": "down" if condition.startswith("down") else condition, "kind": "condition"})
    if state_of["roll_penalty"]:
        out.append({"label": f"{state_of['roll_penalty']} to rolls", "kind": "condition"})
    state = state or {}
    if state.get("surprised"):
        out.append({"label": "surprised", "kind": "condition"})
    for what in state.get("waiting_on") or []:
        out.append({"label": f"waiting: {what}", "kind": "condition"})
    if state.get("targeting"):
        held = next(iter(state["targeting"].values()))
        out.append({"label": f"Targeting {state.get('targeting_name') or held['target']}", "kind": "resource"})
    if state.get("aims"):
        out.append({"label": f"aim x{state['aims']}", "kind": "resource"})
    if state.get("due"):
        n = len(state["due"])
        out.append({"label": f"{n} shot{'s' if n > 1 else ''} to roll", "kind": "resource"})
    return out
