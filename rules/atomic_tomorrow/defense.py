"""The defender's choice in *Atomic Tomorrow Combat*: Parry, Block, Dodge ("DEFENSE OPTION", "DEFENSE LIMITATIONS")."""

from __future__ import annotations

from collections.abc import Mapping

from ..system import Modifier, RuleError
from ..text import say
from .data import BLOCK_BONUS, DEFENSE_WORDS, DEFENSES, DODGE_VS_MELEE, REPEAT_DEFENSE_PENALTY, TWO_FISTED
from .economy import round_state
from .sheet import dodge_skill, has_epithet, parry_skill


def defense_skill(
    sheet: Mapping, defense: str, attack_kind: str, state: Mapping | None = None
) -> tuple[int, list[Modifier], dict]:
    """The defender's skill for a defense, its modifiers and the round record after it.

    Sections "DEFENSE OPTION" and "DEFENSE LIMITATIONS". Parry only against
    melee and unarmed attacks; Block needs a shield, is Parry + 20, and
    against melee only once a turn; Dodge is -20 against melee. Each
    defense after the first in a turn is a cumulative -20. Readings: with
    Two-Fisted, one extra Parry or Block in the turn is free of the
    penalty, does not count towards later ones, and allows a second melee
    Block. The rule modifiers here add to the single largest situational
    modifier, which they are not part of.
    """
    if defense not in DEFENSES or defense == "none":
        raise RuleError(say("a defense is one of parry, block, dodge, not {value}", value=repr(defense)))
    if attack_kind not in ("melee", "ranged"):
        raise RuleError(say("an attack is melee or ranged, not {value}", value=repr(attack_kind)))
    rnd = round_state(state)
    two_fisted = has_epithet(sheet, TWO_FISTED) and defense in ("parry", "block")
    mods: list[Modifier] = []
    if defense == "parry":
        if attack_kind != "melee":
            raise RuleError(say("Parry works only against melee and unarmed attacks; Dodge or Block a ranged one"))
        base = parry_skill(sheet)
        if base <= 0:
            raise RuleError(say("Parry needs a melee weapon or the Unarmed skill"))
        label = DEFENSE_WORDS["parry"]
    elif defense == "block":
        if not sheet.get("shield"):
            raise RuleError(say("Block needs a shield"))
        limit = 2 if two_fisted and not rnd["two_fisted_used"] else 1
        if attack_kind == "melee" and rnd["melee_blocks"] >= limit:
            raise RuleError(say("a shield blocks only one melee attack a turn"))
        base = parry_skill(sheet)
        label = DEFENSE_WORDS["block"]
        mods.append(Modifier(say("shield block"), BLOCK_BONUS, "DEFENSE OPTION"))
    else:
        base = dodge_skill(sheet)
        label = DEFENSE_WORDS["dodge"]
        if attack_kind == "melee":
            mods.append(Modifier(say("dodging a melee attack"), DODGE_VS_MELEE, "DEFENSE OPTION"))
    made = rnd["defenses"]
    free_now = made >= 1 and two_fisted and not rnd["two_fisted_used"]
    if free_now:
        rnd["two_fisted_used"] = True
        mods.append(Modifier(say("Two-Fisted: extra defense without penalty"), 0, "DEFENSE LIMITATIONS"))
    elif made:
        counted = made - (1 if rnd["two_fisted_used"] else 0)
        if counted:
            mods.append(
                Modifier(say("defense no. {n} this turn", n=made + 1), REPEAT_DEFENSE_PENALTY * counted, "DEFENSE LIMITATIONS")
            )
    rnd["defenses"] = made + 1
    if defense == "block" and attack_kind == "melee":
        rnd["melee_blocks"] += 1
    skill = base + sum(int(m.value) for m in mods)
    return skill, [Modifier(label, base, "sheet"), *mods], rnd
