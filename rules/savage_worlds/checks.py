"""The Savage Worlds roll: a trait die (and a Wild Card's Wild Die) that ace,
a success on 4 or more, a raise for each full 4 over, opposed rolls, and
damage rolls (acing dice, no Wild Die).

Sources: the Savage Worlds core facts; *Savage Worlds Combat System
Reference*, "Damage Resolution" and "Hold".
"""

from __future__ import annotations

import functools

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable

from .. import odds as _core_odds
from ..dice import DiceSource, RollRecord, kept, rolled_from
from ..system import Modifier, RuleError
from .data import DIE_SIDES, RAISE, TN, WILD_DIE
from ..text import say

WILD_DIE_SIDES = int(WILD_DIE.lstrip("d"))  # the Wild Die's sides, for its exact odds

_DIE = re.compile(r"^\s*d(4|6|8|10|12)\s*(?:([+-])\s*(\d+))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Die:
    """A trait or damage die as written on a sheet: ``d8``, ``d12+1``."""

    sides: int
    bonus: int = 0

    @property
    def text(self) -> str:
        if self.bonus:
            return f"d{self.sides}{self.bonus:+d}"
        return f"d{self.sides}"

    @property
    def step(self) -> int:
        """d4 is step 0, d12 step 4; the +n above d12 counts on."""
        return DIE_SIDES.index(self.sides) + max(0, self.bonus if self.sides == 12 else 0)


def parse_die(text: Any) -> Die:
    """Read ``d4``-``d12`` with an optional ``+n``/``-n``; RuleError otherwise."""
    if isinstance(text, Die):
        return text
    m = _DIE.match(str(text or ""))
    if not m:
        raise RuleError(say("not a Savage Worlds die: {value} (write d4, d6, d8, d10, d12 or d12+1)", value=repr(text)))
    bonus = int(m.group(3) or 0) * (-1 if m.group(2) == "-" else 1)
    return Die(int(m.group(1)), bonus)


def half_die(die: Die) -> int:
    """Half the die type plus half of any bonus, rounded down (Parry, Toughness)."""
    return die.sides // 2 + (die.bonus // 2 if die.bonus > 0 else -((-die.bonus + 1) // 2))


def trait_result(total: int, tn: int = 4) -> tuple[bool, int]:
    """Core facts: success on ``tn`` or more; each full 4 over ``tn`` is a raise."""
    if total < tn:
        return False, 0
    return True, (total - tn) // RAISE


@dataclass
class TraitRoll:
    """One trait roll (or one die of a RoF attack) with its breakdown."""

    die: str
    trait: RollRecord
    wild: RollRecord | None
    modifiers: list[Modifier]
    tn: int
    used_wild: bool = False

    @property
    def modifier(self) -> int:
        return int(sum(m.value for m in self.modifiers))

    @property
    def kept(self) -> int:
        if self.wild is not None and self.wild.total > self.trait.total:
            return self.wild.total
        return self.trait.total

    @property
    def total(self) -> int:
        return self.kept + self.modifier

    @property
    def critical_failure(self) -> bool:
        return self.wild is not None and self.trait.first_faces[0] == 1 and self.wild.first_faces[0] == 1

    @property
    def success(self) -> bool:
        return not self.critical_failure and trait_result(self.total, self.tn)[0]

    @property
    def raises(self) -> int:
        return 0 if self.critical_failure else trait_result(self.total, self.tn)[1]

    def to_dict(self) -> dict:
        return {
            "die": self.die,
            "total": self.total,
            "tn": self.tn,
            "success": self.success,
            "raises": self.raises,
            "critical_failure": self.critical_failure,
            "trait": self.trait.to_dict(),
            "wild": self.wild.to_dict() if self.wild else None,
            "modifiers": [m.to_dict() for m in self.modifiers],
        }


def trait_die_modifiers(die: Die, name: str) -> list[Modifier]:
    return [Modifier(say("{trait} {die}", trait=name, die=die.text), die.bonus, "sheet")] if die.bonus else []


def trait_needs(tn: int, modifier: int, wild_card: bool, sides: int, count: int = 1) -> str:
    """What a trait roll's dice must show, in words (the table's dice, #59): "roll the d8 and the Wild d6: the
    better counts; 4 or more succeeds, 8 is a raise", the modifiers taken off the target number. ``count``: the
    trait dice rolled at once (Rate of Fire, a Rapid Attack), each against the target number; a Wild Card's Wild
    Die then replaces the worst of them."""
    need = max(1, tn - modifier)
    if count > 1:
        if wild_card:
            return say("roll {n} d{sides} and the Wild d6, one trait die an attack, the Wild Die in place of the "
                       "worst: each {need} or more hits, {raise_} is a raise (a top face aces: roll that die again "
                       "and add)", n=count, sides=sides, need=need, raise_=need + RAISE)
        return say("roll {n} d{sides}, one an attack: each {need} or more hits, {raise_} is a raise (a top face "
                   "aces: roll that die again and add)", n=count, sides=sides, need=need, raise_=need + RAISE)
    if wild_card:
        return say("roll the d{sides} and the Wild d6: the better counts; {need} or more succeeds, {raise_} is a "
                   "raise (a top face aces: roll that die again and add)", sides=sides, need=need,
                   raise_=need + RAISE)
    return say("roll the d{sides}: {need} or more succeeds, {raise_} is a raise (a top face aces: roll it again "
               "and add)", sides=sides, need=need, raise_=need + RAISE)


def trait_dice(dice: DiceSource, sides: int, purposes: list, wild_card: bool, *, purpose, roller: str | None,
               needs: str, chance: float | None = None) -> tuple[list[RollRecord], RollRecord | None]:
    """Core facts, "Wild Dice": the trait dice (one per purpose: one, or one a shot of a Rate of Fire or a Rapid
    Attack) and a Wild Card's Wild Die are rolled together, so they are one roll asked at the table (#59): "d8!+d6!",
    "3d8!+d6!" with ``purpose`` (the trait) and ``needs``. The roll is parted again into one record a die, each with
    its own purpose ("Fighting die 2", "Wild Die"), the very records separate rolls of those faces make, each with
    the roll's roller and ``chance`` (the caller settles the first one's outcome: the roll's luck, counted once)."""
    count = len(purposes)
    expr = (f"{count}d{sides}!" if count > 1 else f"d{sides}!") + (f"+{WILD_DIE}!" if wild_card else "")
    record = dice.roll(expr, purpose, roller=roller, needs=needs, chance=chance)
    rolled = iter(record.dice)
    trait = [kept(rolled_from(f"d{sides}!", next(rolled).rolls, p), roller, chance) for p in purposes]
    wild = kept(rolled_from(f"{WILD_DIE}!", next(rolled).rolls, say("Wild Die")), roller, chance) if wild_card else None
    return trait, wild


def trait_roll(
    die: str | Die,
    dice: DiceSource,
    *,
    wild_card: bool = True,
    modifiers: Iterable[Modifier] = (),
    tn: int = TN,
    name: str = "trait",
    roller: str | None = None,
) -> TraitRoll:
    """Core facts: roll the trait die (acing) and, for a Wild Card, the Wild Die
    d6 (acing); keep the better, add modifiers; double 1s are a critical failure. ``roller``: whose dice (the
    table's own, #59)."""
    d = parse_die(die)
    mods = trait_die_modifiers(d, name) + list(modifiers)
    needs = trait_needs(tn, int(sum(m.value for m in mods)), wild_card, d.sides)
    chance = trait_chance(d.sides, wild_card, int(sum(m.value for m in mods)), tn, 1)
    (trait,), wild = trait_dice(dice, d.sides, [say("{skill} die", skill=name)], wild_card, purpose=name,
                                roller=roller, needs=needs, chance=chance)
    out = TraitRoll(d.text, trait, wild, mods, tn)
    trait.settle(out.success)  # the roll's luck is the trait die's record's (the Wild Die's only shows the chance)
    return out


@functools.lru_cache(maxsize=1024)
def trait_chance(sides: int, wild_card: bool, modifier: int, tn: int = TN, rof: int = 1) -> float:
    """The exact chance that a trait roll succeeds at least once (#59: said in the ask, the roller's luck weighed
    against it): ``rof`` acing trait dice and, for a Wild Card, the acing Wild Die replacing the worst of them
    (so the best total is the best of all the dice), a critical failure (a Wild Die 1 with half or more of the
    trait dice 1) failing them all. The attack card's odds (``odds.attack_odds``' "hit") count the same event; a
    test holds the two equal."""
    need = tn - modifier  # the die total that succeeds
    q = _core_odds.at_least(_core_odds.die_distribution(sides, explode=True), need)  # one trait die succeeds
    wild = _core_odds.at_least(_core_odds.die_distribution(WILD_DIE_SIDES, explode=True), need) if wild_card else 0.0
    none = (1 - q) ** rof * (1 - wild)  # no die reaches it
    if not wild_card:
        return 1 - none
    one = 1 / sides  # a trait die's 1 (its first face: a 1 never aces)
    crit_hits = 0.0  # a critical failure where some die would have succeeded: the Wild Die's 1 and j trait 1s
    for j in range(math.ceil(rof / 2), rof + 1):
        ones = math.comb(rof, j) * one ** j
        if need <= 1:  # every die succeeds: a critical failure is the only failure
            crit_hits += ones * (1 - one) ** (rof - j)
        else:  # a 1 never succeeds: some of the other trait dice do
            crit_hits += ones * ((1 - one) ** (rof - j) - max(0.0, 1 - one - q) ** (rof - j))
    return max(0.0, 1 - none - crit_hits / WILD_DIE_SIDES)


def opposed_roll(
    a_die: str, b_die: str, dice: DiceSource, *, a_wild: bool = True, b_wild: bool = True,
    a_modifiers: Iterable[Modifier] = (), b_modifiers: Iterable[Modifier] = (), name: str = "Athletics",
    a_roller: str | None = None, b_roller: str | None = None,
) -> dict:
    """Hold: an interrupt is an opposed Athletics roll. The higher total acts
    first; equal totals act at the same time (reading: the document is silent). Each side rolls its own dice
    (``a_roller``, ``b_roller``: the table's own, #59)."""
    a = trait_roll(a_die, dice, wild_card=a_wild, modifiers=a_modifiers, name=name, roller=a_roller)
    b = trait_roll(b_die, dice, wild_card=b_wild, modifiers=b_modifiers, name=name, roller=b_roller)
    ta = -math.inf if a.critical_failure else a.total
    tb = -math.inf if b.critical_failure else b.total
    winner = "a" if ta > tb else "b" if tb > ta else "tie"
    return {"winner": winner, "a": a.to_dict(), "b": b.to_dict(), "rolls": [a.trait, a.wild, b.trait, b.wild]}


def interrupt(holder_athletics: str, actor_athletics: str, dice: DiceSource, *,
              holder_wild: bool = True, actor_wild: bool = True, holder: str | None = None,
              actor: str | None = None) -> dict:
    """Hold: the character on Hold tries to act before another. Returns
    ``first``: "holder", "actor" or "simultaneous"; a loser acts right after. ``holder``, ``actor``: their
    tokens, each rolling its own Athletics at a table rolling its own dice (#59)."""
    out = opposed_roll(holder_athletics, actor_athletics, dice, a_wild=holder_wild, b_wild=actor_wild,
                       a_roller=holder, b_roller=actor)
    out["first"] = {"a": "holder", "b": "actor", "tie": "simultaneous"}[out["winner"]]
    return out


_DAMAGE_TERM = re.compile(r"([+-]?)\s*(str|\d*d\d+|\d+)\s*", re.IGNORECASE)


def damage_expression(damage: str, strength: str | Die | None, *, explode: bool = True) -> tuple[str, int]:
    """Turn ``Str+d6``, ``2d6+1`` into a dice expression with acing dice.

    Damage Resolution: melee damage is the Strength die plus the weapon's die;
    every damage die aces (``explode=False`` for objects). Returns the
    expression and the flat part (for the breakdown).
    """
    text = str(damage or "").strip()
    if not text:
        raise RuleError(say("the weapon has no damage"))
    pos, parts, flat = 0, [], 0
    bang = "!" if explode else ""
    while pos < len(text):
        m = _DAMAGE_TERM.match(text, pos)
        if not m or m.end() == pos:
            raise RuleError(say("cannot read damage {damage}", damage=repr(damage)))
        sign = m.group(1) or ("+" if parts else "")
        tok = m.group(2).lower()
        if parts and not m.group(1):
            raise RuleError(say("cannot read damage {damage}", damage=repr(damage)))
        if tok == "str":
            if strength is None:
                raise RuleError(say("damage uses Strength but the attacker has none"))
            s = parse_die(strength)
            parts.append(f"{sign}d{s.sides}{bang}")
            if s.bonus:
                parts.append(f"{s.bonus:+d}")
                flat += s.bonus
        elif "d" in tok:
            count, sides = tok.split("d")
            if int(sides) not in DIE_SIDES:  # #33: "Str+d7" was taken
                raise RuleError(say("cannot read damage {damage}: a damage die is a d4, d6, d8, d10 or d12, not a d{sides}",
                                    damage=repr(damage), sides=sides))
            parts.append(f"{sign}{count if count not in ('', '1') else ''}d{sides}{bang}")
        else:
            parts.append(f"{sign}{tok}")
            flat += int(tok) * (-1 if sign == "-" else 1)
        pos = m.end()
    expr = "".join(parts).lstrip("+")
    return expr, flat

