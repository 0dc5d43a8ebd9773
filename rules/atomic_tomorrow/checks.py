"""The percentile roll of *Atomic Tomorrow Combat*: d100 roll-under, read for quality.

Sections "SUCCESS AND FAILURE TYPES" and "OPPOSED RESOLUTION", and the core
facts' situational modifiers (steps of 20, only the single largest applies).
A d100 is read 01-00, where 00 is 100.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..dice import DiceSource, RollRecord
from ..system import Modifier, RuleError
from .data import (
    AUTO_FAILURE_MIN,
    AUTO_SUCCESS_MAX,
    MODIFIER_RULES,
    QUALITIES,
    QUALITY_LABELS,
    QUALITY_RANK,
    check_modifier_value,
    modifier_rule_refused,
)
from ..text import say


def check_roll(roll: int) -> int:
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 100:
        raise RuleError(say("a d100 roll is 1 to 100 (100 is the 00 roll), not {value}", value=repr(roll)))
    return roll


def tens_digit(roll: int) -> int:
    """The tens die of a d100 roll read 01-00 (00, i.e. 100, shows 0)."""
    return (check_roll(roll) // 10) % 10


def is_doubles(roll: int) -> bool:
    """11, 22, ... 99 and 00 (100): both dice show the same digit."""
    check_roll(roll)
    return roll == 100 or (roll % 11 == 0 and roll >= 11)


def ends_in_0_or_5(roll: int) -> bool:
    return check_roll(roll) % 5 == 0


def is_success(roll: int, skill: int) -> bool:
    """Success and failure types: 01-05 always succeed, 96-00 always fail."""
    check_roll(roll)
    if roll <= AUTO_SUCCESS_MAX:
        return True
    if roll >= AUTO_FAILURE_MIN:
        return False
    return roll <= skill


def success_quality(roll: int, skill: int) -> str:
    """Quality of a percentile roll against a skill.

    Section "SUCCESS AND FAILURE TYPES". Critical = doubles, special = ends
    in 0 or 5 (a 55 is a critical), on the success side when the roll is at
    most the skill, on the failure side otherwise. Reading: an automatic
    success (01-05) counts as under the skill and an automatic failure
    (96-00) as over it, so 05 is a special success and 99 and 00 are
    critical failures whatever the skill.
    """
    success = is_success(roll, skill)
    if is_doubles(roll):
        return "critical" if success else "critical_failure"
    if ends_in_0_or_5(roll):
        return "special" if success else "special_failure"
    return "ordinary" if success else "failure"


def quality_rank(quality: str) -> int:
    """3 critical, 2 special, 1 ordinary, 0 any failure."""
    if quality not in QUALITIES:
        raise RuleError(say("unknown quality {value}", value=repr(quality)))
    return QUALITY_RANK.get(quality, 0)


def opposed_winner(attack_roll: int, attack_skill: int, defense_roll: int, defense_skill: int) -> str:
    """Who wins a successful attack met by a defense.

    Section "OPPOSED RESOLUTION": a failed defense loses; otherwise the
    better quality wins, then the higher roll, and a tie goes to the
    defender. An attack that itself failed has no effect, so the defender
    "wins" it too.
    """
    attack = quality_rank(success_quality(attack_roll, attack_skill))
    defense = quality_rank(success_quality(defense_roll, defense_skill))
    if attack == 0:
        return "defender"
    if defense == 0:
        return "attacker"
    if attack != defense:
        return "attacker" if attack > defense else "defender"
    return "attacker" if attack_roll > defense_roll else "defender"


def as_modifier(item: Any) -> Modifier:
    if isinstance(item, Modifier):
        check_modifier_value(item.value)
        return item
    if isinstance(item, Mapping):
        value = check_modifier_value(item.get("value"))
        return Modifier(str(item.get("label") or f"{value:+d}"), value, str(item.get("source") or "situational"))
    value = check_modifier_value(item)
    return Modifier(f"{value:+d}", value, "situational")


def situational_modifier(modifiers: Iterable[Any], rule: str = "largest") -> tuple[int, list[Modifier]]:
    """The total of the situational modifiers that apply, and which apply.

    Core facts: modifiers are steps of 20 from +40 to -80
    and only the single largest applies. Reading (setting
    ``modifier_rule``): "largest" keeps the one of largest size; when the
    largest bonus and the largest penalty are the same size they cancel
    and neither applies. "largest_each" applies the largest bonus and the
    largest penalty together.
    """
    if rule not in MODIFIER_RULES:
        raise modifier_rule_refused()
    mods = [as_modifier(m) for m in modifiers]
    bonus = max((m for m in mods if m.value > 0), key=lambda m: m.value, default=None)
    penalty = min((m for m in mods if m.value < 0), key=lambda m: m.value, default=None)
    if rule == "largest_each":
        chosen = [m for m in (bonus, penalty) if m is not None]
    elif bonus is not None and penalty is not None and bonus.value == -penalty.value:
        chosen = []
    else:
        chosen = [m for m in (bonus, penalty) if m is not None]
        chosen = [max(chosen, key=lambda m: abs(m.value))] if chosen else []
    return sum(int(m.value) for m in chosen), chosen


def success_chance(skill: int) -> float:
    """The exact chance that a d100 roll succeeds against ``skill`` (:func:`is_success`: 01-05 always, 96-00
    never, else at most the skill)."""
    return sum(1 for r in range(1, 101) if is_success(r, skill)) / 100


def roll_d100(dice: DiceSource, purpose: str, roller: str | None = None, needs: str | None = None,
              skill: int | None = None) -> RollRecord:
    """The d100 roll; ``roller``: whose dice (the table's own, #59), ``needs``: what it must show, in words;
    ``skill``: the percentage it succeeds under, where the rule rolls against one: the roll then carries its exact
    chance (said in the ask) and whether it succeeded (the roller's luck, #59)."""
    record = dice.roll("d100", purpose, roller=roller, needs=needs,
                       chance=None if skill is None else success_chance(skill))
    check_roll(record.total)
    if skill is not None:
        record.settle(is_success(record.total, skill))
    return record


def quality_label(roll: int, skill: int) -> str:
    return QUALITY_LABELS[success_quality(roll, skill)]
