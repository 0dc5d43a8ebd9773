"""Wounds and what they do in *Atomic Tomorrow Combat*.

Sections "ARMOR PROTECTION", "DAMAGE SOAKING", "WOUND EFFECTS",
"INCAPACITATION" and "LAST STAND": armour and soak take wounds off,
4 wounds incapacitate (a GRIT x 1 roll for each action), 5 is dying (one
Last Stand). The wounds an attack deals are worked out in ``attack``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..copying import copied
from ..system import AttackResult, RuleError
from ..text import say
from .checks import success_quality, tens_digit
from .data import ARMOUR_LEVELS, MAX_WOUNDS, SOAK_BY_QUALITY, SUCCESSES, check_level


def armour_reduction(armour: str = "none", armour_piercing: int = 0) -> int:
    """Section "ARMOR PROTECTION": Light 1, Medium 2, Heavy 3, less the weapon's armour piercing."""
    level = ARMOUR_LEVELS[check_level(armour, ARMOUR_LEVELS, "armour")]
    if isinstance(armour_piercing, bool) or not isinstance(armour_piercing, int) or armour_piercing < 0:
        raise RuleError(say("armour piercing is a whole number of armour levels, 0 or more, not {value}",
                            value=repr(armour_piercing)))
    return max(0, level - armour_piercing)


def soak_reduction(roll: int, grit: int) -> int:
    """Section "DAMAGE SOAKING": against GRIT x 5, critical 3, special 2, ordinary 1, failure 0."""
    return SOAK_BY_QUALITY.get(success_quality(roll, grit * 5), 0)


def wounds_taken(dealt: int, armour: int = 0, soak: int = 0) -> int:
    """Wounds left after armour and soak take theirs off (never below 0)."""
    return max(0, dealt - armour - soak)


def wound_state(wounds: int) -> str:
    """Section "WOUND EFFECTS": 0-3 fighting, 4 incapacitated, 5 dying."""
    if isinstance(wounds, bool) or not isinstance(wounds, int) or not 0 <= wounds <= MAX_WOUNDS:
        raise RuleError(say("wounds are 0 to {most}, not {value}", most=MAX_WOUNDS, value=repr(wounds)))
    if wounds >= MAX_WOUNDS:
        return "dying"
    if wounds == MAX_WOUNDS - 1:
        return "incapacitated"
    return "fighting"


def incapacitated_check(roll: int, grit: int, penalty: int = -20) -> dict:
    """Section "INCAPACITATION": a GRIT x 1 roll for each action at 4 wounds.

    A success allows the action; a critical allows it with no penalty.
    Reading: the action on an ordinary or special success takes
    ``penalty`` (setting ``wounded_action_penalty``).
    """
    quality = success_quality(roll, grit)
    may_act = quality in SUCCESSES
    return {
        "check": "incapacitated",
        "target": grit,
        "roll": roll,
        "quality": quality,
        "may_act": may_act,
        "penalty": 0 if quality == "critical" or not may_act else penalty,
    }


def grit_needs(grit: int) -> str:
    """What the GRIT x 1 roll at 4 wounds must show, in words (the table's own dice, #59)."""
    return say("roll d100, {target} or less (GRIT x1) to act; doubles are criticals", target=grit)


def last_stand_needs(nerve: int) -> str:
    """What the Last Stand must show, in words (the table's own dice, #59)."""
    return say("roll d100, {target} or less (NERVE x5) for one final act; doubles are criticals, a 0 or 5 special",
               target=nerve * 5)


def last_stand_outcome(roll: int, nerve: int, penalty: int = -20) -> dict:
    """Section "LAST STAND": the dying character's NERVE x 5 check.

    Success: one final action, then collapse. Critical: the action with no
    penalty, and the character stabilises at 4 wounds. Special: the action,
    and conscious for the tens die more rounds. Readings: the tens die is
    the tens digit of this roll, a 0 counting 10 (as a d10 reads it); the
    ordinary and special action takes ``penalty``.
    """
    quality = success_quality(roll, nerve * 5)
    may_act = quality in SUCCESSES
    rounds = 0
    if quality == "special":
        rounds = tens_digit(roll) or 10
    return {
        "check": "last_stand",
        "target": nerve * 5,
        "roll": roll,
        "quality": quality,
        "may_act": may_act,
        "penalty": 0 if quality == "critical" or not may_act else penalty,
        "stabilise_at": MAX_WOUNDS - 1 if quality == "critical" else None,
        "conscious_rounds": rounds,
    }


def wounds_of(sheet: Mapping) -> int:
    """The sheet's wounds, held to 0-5."""
    return min(max(int(sheet.get("wounds", 0) or 0), 0), MAX_WOUNDS)


def apply_result(sheet: Mapping, result: AttackResult) -> dict:
    """The sheet after a result: the wounds it deals (never past 5)."""
    out = copied(dict(sheet))
    for effect in result.effects:
        if effect.kind == "wounds":
            out["wounds"] = min(MAX_WOUNDS, int(out.get("wounds", 0)) + int(effect.data["wounds"]))
    return out


def apply_last_stand(sheet: Mapping, outcome: Mapping) -> dict:
    """The sheet after a Last Stand: a critical stabilises at 4 wounds."""
    out = copied(dict(sheet))
    if outcome.get("stabilise_at") is not None:
        out["wounds"] = int(outcome["stabilise_at"])
    return out
