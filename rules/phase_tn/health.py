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

from ..copying import copied
from ..dice import DiceSource
from ..system import AttackResult
from ..text import say, say_n
from .checks import attr, attribute_roll, wound_modifiers
from .data import LOCATION_WORDS, resolve_settings

__all__ = ["apply", "badges", "flesh_capacity", "incapacitated", "trauma_check", "wound_state", "wound_modifiers"]

#: words in a ``trauma_effects`` entry that take the character out of the fight
OUT_OF_FIGHT = ("unconscious", "dying", "dead")


def flesh_capacity(sheet: dict, settings: dict | None = None) -> int:
    """How many flesh wounds put the character down: Constitution x ``flesh_per_constitution``."""
    s = resolve_settings(settings)
    return attr(sheet, "constitution") * s["flesh_per_constitution"]


def trauma_check(sheet: dict, location: str, damage: int, dice: DiceSource, settings: dict | None = None,
                 roller: str | None = None) -> dict:
    """The target's roll against trauma after a damaging hit (settings: the document stops short).

    The dice + ``trauma_attribute`` against the damage plus the location's
    ``trauma_location_modifier``; a failure is a traumatic wound there. ``roller``: whose dice, the target's (the
    table's own, #59).
    """
    s = resolve_settings(settings)
    tn = damage + s["trauma_location_modifier"].get(location, 0)
    return attribute_roll(sheet, s["trauma_attribute"], tn, dice, s, purpose=say("trauma check ({location})", location=LOCATION_WORDS.get(location, location)),
                          roller=roller)


def wound_state(sheet: dict, settings: dict | None = None) -> dict:
    """Flesh wounds against capacity, traumatic wounds, their roll penalty and the conditions they cause."""
    s = resolve_settings(settings)
    capacity = flesh_capacity(sheet, s)
    flesh = sheet.get("flesh", 0)
    trauma = {loc: n for loc, n in (sheet.get("trauma") or {}).items() if n}
    effects = [s["trauma_effects"].get(loc, loc) for loc in trauma]
    conditions = [WORDS.get(e, e) if isinstance(e, str) else e for e in effects]  # the default effects in words
    if capacity and flesh >= capacity:
        conditions.insert(0, say("down (flesh wounds at capacity)"))
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
    new = copied(sheet)
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


#: the words of the default hit locations and traumatic wounds' effects on a token (a game's own setting for
#: them is shown as written there)
WORDS = {"head": say("head"), "chest": say("chest"), "abdomen": say("abdomen"), "left arm": say("left arm"),
         "right arm": say("right arm"), "left leg": say("left leg"), "right leg": say("right leg"),
         "unconscious": say("unconscious"), "dying": say("dying"), "dead": say("dead"),
         "left arm useless": say("left arm useless"), "right arm useless": say("right arm useless"),
         "left leg useless, falls prone": say("left leg useless, falls prone"),
         "right leg useless, falls prone": say("right leg useless, falls prone")}


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
        label = (say_n("{n}/{capacity} flesh wound", "{n}/{capacity} flesh wounds", flesh, capacity=capacity)
                 if capacity and flesh <= capacity else
                 say_n("{n} flesh wound (capacity {capacity})", "{n} flesh wounds (capacity {capacity})", flesh,
                       capacity=capacity) if capacity else say_n("{n} flesh wound", "{n} flesh wounds", flesh))
        out.append({"label": label, "kind": "wound"})
    for loc, n in (sheet.get("trauma") or {}).items():
        if n:
            where = WORDS.get(loc, loc)
            label = say("trauma: {location} x{n}", location=where, n=n) if n > 1 else say("trauma: {location}", location=where)
            out.append({"label": label, "kind": "wound"})
    state_of = wound_state(sheet, s)
    for condition in state_of["conditions"]:
        out.append({"label": say("down") if condition.startswith("down") else WORDS.get(condition, condition),
                    "kind": "condition"})
    if state_of["roll_penalty"]:
        out.append({"label": say("{penalty} to rolls", penalty=state_of["roll_penalty"]), "kind": "condition"})
    state = state or {}
    if state.get("surprised"):
        out.append({"label": say("surprised"), "kind": "condition"})
    for what in state.get("waiting_on") or []:
        out.append({"label": say("waiting: {action}", action=what), "kind": "condition"})
    if state.get("targeting"):
        held = next(iter(state["targeting"].values()))
        out.append({"label": say("Targeting {target}", target=state.get("targeting_name") or held["target"]),
                    "kind": "resource"})
    if state.get("aims"):
        out.append({"label": say("aim x{aims}", aims=state["aims"]), "kind": "resource"})
    if state.get("due"):
        out.append({"label": say_n("{n} shot to roll", "{n} shots to roll", len(state["due"])), "kind": "resource"})
    return out
