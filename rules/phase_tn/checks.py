"""The roll of *Phase/TN Combat Sequence*: the game's dice + attribute (+ skill) against a TN.

The document writes its checks as "<attribute> roll (TN n)" ("Combat
Sequence") and never names the dice: they are the ``roll_dice`` setting
(default d10). Traumatic wounds penalise every roll (a setting: the
document's "Damage and Wounds" stops short).
"""

from __future__ import annotations

from .. import odds as _odds
from ..dice import DiceSource, parse
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


def lowest_highest(expr: str) -> tuple[int | None, int | None]:
    """The lowest and highest totals a dice expression can show (None: none, for a die that explodes)."""
    def add(a, b):
        return None if a is None or b is None else a + b

    low: int | None = 0
    high: int | None = 0
    for term in parse(expr):
        if term.is_constant:
            low, high = add(low, term.sign * term.constant), add(high, term.sign * term.constant)
            continue
        kept = term.keep_count if term.keep else term.count
        least, most = (0 if term.dt else kept), (None if term.explode else kept * term.sides)
        if term.sign > 0:
            low, high = add(low, least), add(high, most)
        else:
            low, high = add(low, None if most is None else -most), add(high, -least)
    return low, high


def needed(expr: str, tn: int, modifier: int) -> int | None:
    """What the dice of a roll against a TN must show (the table's dice, #59): the TN less the modifiers
    (``modifier``: their sum), no less than the lowest roll; None where no roll of the dice reaches it."""
    low, high = lowest_highest(expr)
    need = tn - modifier
    if high is not None and need > high:
        return None
    return need if low is None else max(low, need)


def tn_needs(expr: str, tn: int, modifier: int) -> str:
    """:func:`needed` in words, with what the modifiers add (#70)."""
    need = needed(expr, tn, modifier)
    line = (say("roll {dice}: no roll reaches TN {tn}", dice=expr, tn=tn) if need is None else
            say("roll {dice}: {need} or more succeeds (TN {tn})", dice=expr, need=need, tn=tn))
    return say("{line}; {flat} is added", line=line, flat=f"{int(modifier):+d}") if modifier else line


def tn_chance(expr: str, tn: int, modifier: int) -> float:
    """The exact chance that ``expr`` plus ``modifier`` reaches ``tn`` (a total of at least the TN, "Combat
    Sequence"): said in the ask, and the roller's luck weighed against it (#59)."""
    return _odds.at_least(_odds.distribution(expr), tn - modifier)


def attribute_roll(
    sheet: dict,
    attribute: str,
    tn: int,
    dice: DiceSource,
    settings: dict | None = None,
    skill: str | None = None,
    modifiers: list[Modifier] | tuple = (),
    purpose: str = "",
    roller: str | None = None,
) -> dict:
    """A roll of the game's dice + attribute (+ skill) + modifiers against a TN.

    The document gives its checks as "<attribute> roll (TN n)" ("Combat
    Sequence"); the dice are the ``roll_dice`` setting. Success is a total
    of at least the TN; ``margin`` is the total minus the TN. ``roller``: whose dice (the table's own, #59).
    """
    s = resolve_settings(settings)
    if attribute not in ATTRIBUTES:
        raise RuleError(say("unknown attribute {name}", name=repr(attribute)))
    mods = [Modifier(attribute_words(attribute), attr(sheet, attribute), "sheet")]
    if skill:
        rank = (sheet.get("skills") or {}).get(skill, 0)
        mods.append(Modifier(say("skill {skill}", skill=skill), rank, "sheet"))
    mods += list(modifiers) + wound_modifiers(sheet, s)
    record = dice.roll(s["roll_dice"], purpose or say("{attribute} roll (TN {tn})", attribute=attribute_words(attribute), tn=tn),
                       roller=roller, needs=tn_needs(s["roll_dice"], tn, int(sum(m.value for m in mods))),
                       chance=tn_chance(s["roll_dice"], tn, int(sum(m.value for m in mods))))
    total = record.total + sum(m.value for m in mods)
    record.settle(total >= tn)
    return {
        "success": total >= tn,
        "total": total,
        "tn": tn,
        "margin": total - tn,
        "roll": record,
        "modifiers": mods,
    }
