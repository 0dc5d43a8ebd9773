"""The roll of *Phase/TN Combat Sequence*: the game's dice + attribute (+ skill) against a TN.

The document writes its checks as "<attribute> roll (TN n)" ("Combat
Sequence") and never names the dice: they are the ``roll_dice`` setting
(default d10). Traumatic wounds penalise every roll (a setting: the
document's "Damage and Wounds" stops short).
"""

from __future__ import annotations

from ..dice import DiceSource
from ..system import Modifier, RuleError
from ..text import say
from .data import ATTRIBUTES, SRC_WOUNDS, attribute_words, resolve_settings


def attr(sheet: dict, name: str) -> int:
    """An attribute of a sheet (0 when missing), checked to be a whole number."""
    value = (sheet.get("attributes") or {}).get(name, 0)
    if not isinstance(value, int):
        raise RuleError(say("attribute {name} must be a whole number", name=attribute_words(name)))
    return value


def wound_modifiers(sheet: dict, settings: dict | None = None) -> list[Modifier]:
    """The roll penalty traumatic wounds give (a setting: the document stops short)."""
    s = resolve_settings(settings)
    count = sum((sheet.get("trauma") or {}).values())
    if count and s["trauma_roll_penalty"]:
        return [Modifier(say("traumatic wounds x{n}", n=count), -s["trauma_roll_penalty"] * count, SRC_WOUNDS)]
    return []


def attribute_roll(
    sheet: dict,
    attribute: str,
    tn: int,
    dice: DiceSource,
    settings: dict | None = None,
    skill: str | None = None,
    modifiers: list[Modifier] | tuple = (),
    purpose: str = "",
) -> dict:
    """A roll of the game's dice + attribute (+ skill) + modifiers against a TN.

    The document gives its checks as "<attribute> roll (TN n)" ("Combat
    Sequence"); the dice are the ``roll_dice`` setting. Success is a total
    of at least the TN; ``margin`` is the total minus the TN.
    """
    s = resolve_settings(settings)
    if attribute not in ATTRIBUTES:
        raise RuleError(say("unknown attribute {name}", name=repr(attribute)))
    mods = [Modifier(attribute_words(attribute), attr(sheet, attribute), "sheet")]
    if skill:
        rank = (sheet.get("skills") or {}).get(skill, 0)
        mods.append(Modifier(say("skill {skill}", skill=skill), rank, "sheet"))
    mods += list(modifiers) + wound_modifiers(sheet, s)
    record = dice.roll(s["roll_dice"], purpose or say("{attribute} roll (TN {tn})", attribute=attribute_words(attribute), tn=tn))
    total = record.total + sum(m.value for m in mods)
    return {
        "success": total >= tn,
        "total": total,
        "tn": tn,
        "margin": total - tn,
        "roll": record,
        "modifiers": mods,
    }
