"""The 3d6 roll-under check (3d6 core facts): how a roll is read (criticals, margin), quick
contests, and the exact chances of each outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import odds as _odds
from ..dice import DiceSource, RollRecord
from ..system import Modifier
from ..text import say

#: the outcomes of a roll, worst first
RESULTS = ("critical failure", "failure", "success", "critical success")
RESULT_RANK = {r: i for i, r in enumerate(RESULTS)}
#: the exact distribution of a 3d6 roll's total
THREE_D6 = _odds.distribution("3d6")


def roll_result(roll: int, skill: int) -> str:
    """Outcome of a 3d6 roll against an effective skill (3d6 core facts).

    Critical success on 3-4, on 5 at skill 15+, on 6 at skill 16+; critical
    failure on 18, on 17 at skill 15 or less, and 10 or more over skill;
    17 and 18 never succeed.
    """
    if roll <= 4 or (roll == 5 and skill >= 15) or (roll == 6 and skill >= 16):
        return "critical success"
    if roll >= 18 or (roll == 17 and skill <= 15) or roll - skill >= 10:
        return "critical failure"
    if roll <= skill and roll <= 16:
        return "success"
    return "failure"


def is_success(result: str) -> bool:
    """A success or a critical success."""
    return result in ("success", "critical success")


@dataclass
class Check:
    """One 3d6 roll against a skill, with its whole breakdown."""

    purpose: str
    base: int
    base_label: str
    modifiers: list[Modifier]
    effective: int
    roll: RollRecord | None
    result: str
    margin: int  # effective - roll (negative is a failure margin)

    @property
    def success(self) -> bool:
        return is_success(self.result)

    def to_dict(self) -> dict:
        return {
            "purpose": self.purpose,
            "base": self.base,
            "base_label": self.base_label,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "effective": self.effective,
            "roll": self.roll.total if self.roll else None,
            "result": self.result,
            "margin": self.margin,
        }


def effective_skill(base: int, modifiers: list[Modifier], cap: int | None = None) -> int:
    """The level rolled against: base plus modifiers, no higher than ``cap`` (Move and Attack's 9)."""
    value = base + int(sum(m.value for m in modifiers))
    return min(value, cap) if cap is not None else value


def check(dice: DiceSource, purpose: str, base: int, modifiers: list[Modifier] | None = None,
          base_label: str = "", cap: int | None = None, roller: str | None = None, then=None) -> Check:
    """Roll 3d6 against ``base`` plus ``modifiers`` (3d6 core facts).

    ``roller``: the token whose dice these are, so that the table rolls them when it rolls its own (#59);
    ``then``: what the roll decides, in the rule's words, said after the level to roll ("roll 3d6, 11 or less:
    a failure falls unconscious")."""
    mods = list(modifiers or [])
    eff = effective_skill(base, mods, cap)
    needs = (say("roll 3d6, {level} or less: {then}", level=eff, then=then) if then is not None
             else say("roll 3d6, {level} or less", level=eff))
    rec = dice.roll("3d6", purpose, roller=roller, needs=needs, chance=success_chance(eff))
    result = roll_result(rec.total, eff)
    rec.settle(is_success(result))  # its luck: a success against its exact chance (#59)
    return Check(purpose, base, base_label, mods, eff, rec, result, eff - rec.total)


def contest_key(c: Check) -> tuple[int, int]:
    """Order of a quick contest: a success beats a failure, then the margin."""
    return (1 if c.success else 0, c.margin)


def result_chances(skill: int) -> dict[str, float]:
    """Exact chance of each outcome of a 3d6 roll against ``skill``."""
    out = dict.fromkeys(RESULTS, 0.0)
    for r, p in THREE_D6.items():
        out[roll_result(r, skill)] += p
    return out


def success_chance(skill: int) -> float:
    """Exact chance that a 3d6 roll against ``skill`` succeeds (critical successes included)."""
    c = result_chances(skill)
    return c["success"] + c["critical success"]
