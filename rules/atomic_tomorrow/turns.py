"""Initiative, the turn sequence and the fight lifecycle of *Atomic Tomorrow Combat*.

Section "INITIATIVE AND TURN SEQUENCE": percentile dice against INIT
(REFLEX x 5); successes act first, highest roll first, then failures,
highest first; ties go to the higher REFLEX. The roll a wounded character
makes to act ("INCAPACITATION", "LAST STAND") is made at its turn.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..dice import DiceSource
from ..system import Combatant, RuleError
from .checks import is_success, roll_d100, success_quality
from .data import settings_with_defaults
from .health import incapacitated_check, last_stand_outcome, wound_state, wounds_of
from .sheet import with_defaults


def initiative_order(entries: list[tuple[str, int, int, int]]) -> list[str]:
    """Acting order from ``(name, roll, initiative_value, reflex)`` entries.

    Section "INITIATIVE AND TURN SEQUENCE": successful rolls act first,
    highest roll first; failed rolls after, highest first; ties go to the
    higher REFLEX. Reading: entries still tied keep the order given.
    """
    keyed = []
    for index, (name, roll, value, reflex) in enumerate(entries):
        keyed.append((not is_success(roll, value), -roll, -reflex, index, name))
    return [k[-1] for k in sorted(keyed)]


def initiative(combatants: list[Combatant], dice: DiceSource) -> list[dict]:
    """Section "INITIATIVE AND TURN SEQUENCE": d100 against REFLEX x 5, in acting order."""
    rows = {}
    entries = []
    for c in combatants:
        reflex = int(with_defaults(c.sheet)["reflex"])
        value = reflex * 5
        record = roll_d100(dice, f"initiative ({c.name})")
        entries.append((c.id, record.total, value, reflex))
        rows[c.id] = {
            "id": c.id,
            "name": c.name,
            "roll": record.to_dict(),
            "value": value,
            "reflex": reflex,
            "success": is_success(record.total, value),
            "quality": success_quality(record.total, value),
        }
    order = initiative_order(entries)
    return [{**rows[cid], "order": i + 1} for i, cid in enumerate(order)]


def act_check(combatant: Combatant, dice: DiceSource, settings: Mapping | None = None) -> dict:
    """The roll a wounded character makes to act: GRIT x 1 at 4 wounds,
    the Last Stand (NERVE x 5) at 5. Sections "INCAPACITATION", "LAST STAND"."""
    settings = settings_with_defaults(settings)
    s = with_defaults(combatant.sheet)
    state = wound_state(wounds_of(s))
    penalty = settings["wounded_action_penalty"]
    if state == "fighting":
        return {"check": None, "may_act": True, "penalty": 0, "rolls": []}
    if state == "incapacitated":
        rec = roll_d100(dice, f"{combatant.name}: GRIT x1 to act while incapacitated")
        return {**incapacitated_check(rec.total, int(s["grit"]), penalty), "rolls": [rec.to_dict()]}
    if (combatant.state.get("last_stand") or {}).get("check") == "last_stand":
        raise RuleError(f"{combatant.name} has already made the Last Stand")
    rec = roll_d100(dice, f"{combatant.name}: Last Stand (NERVE x5)")
    out = last_stand_outcome(rec.total, int(s["nerve"]), penalty)
    return {**out, "rolls": [rec.to_dict()]}
