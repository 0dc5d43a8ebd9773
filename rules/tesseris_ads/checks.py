"""The dT roll of Tesseris: how a test is rolled and read.

A test rolls as many dT as a characteristic and adds the skill rank and
modifiers (the core dT facts *Tesseris Combat* assumes: faces 6-10 are a
success, 9 and 10 roll one more dT, 1-5 are duds and are re-rolled first).
Also here: Duck's re-rolled duds, the exact odds of a pool, the quick
recovery roll of a jam, and the wound penalty every skill test takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .. import odds as odds_mod
from ..text import say, say_n
from ..dice import DT_SUCCESS, DiceSource, RollRecord
from ..system import Modifier
from .data import WOUNDS_PER_PENALTY


@dataclass
class TestRoll:
    """One rolled test: its total, the dice and the modifiers."""

    total: int
    records: list[RollRecord]
    modifiers: list[Modifier] = field(default_factory=list)

    @property
    def successes(self) -> int:
        return sum(r.total for r in self.records)


def dt_successes(faces: list[int]) -> int:
    """Successes among rolled dT faces, explosion dice included (the core dT facts).

    Every face of 6-10 is one success; a 9 or 10 also brought another die,
    whose face is in the list too.
    """
    for f in faces:
        if not 1 <= int(f) <= 10:
            raise ValueError(f"a dT cannot show {f}")
    return sum(1 for f in faces if f >= DT_SUCCESS)


def dt_needs(pool: int, flat: int = 0, goal: str | None = None) -> str:
    """What a dT pool's dice must show, in words (the table's own dice, #59): "roll 4 dT: 6+ is a success, 9 and
    10 roll again", the flat modifiers added (``flat``), and what the successes are for (``goal``)."""
    line = say("roll {n} dT: 6+ is a success, 9 and 10 roll again", n=max(0, pool))
    if flat:
        line = say("{line}; {flat} is added", line=line, flat=f"{flat:+g}")
    if goal:
        line = say("{line}; {goal}", line=line, goal=goal)
    return line


def successes_to(reach: int, flat: int = 0) -> int:
    """The successes a pool needs for a total of ``reach`` with ``flat`` added (none when the flat does it)."""
    return max(0, int(reach) - int(flat))


def pool_roller(pool: int, roller: str | None) -> str | None:
    """Whose dice a pool of ``pool`` dT is: nobody rolls an empty pool at the table (the app's 0dT shows nothing)."""
    return roller if pool > 0 else None


def roll_test(dice: DiceSource, pool: int, modifiers: list[Modifier], purpose: str, roller: str | None = None,
              needs: str | None = None, reach: int | None = None) -> TestRoll:
    """Roll ``pool`` dT and add the flat modifiers (skill rank and the rest). ``roller``: whose dice (the table's
    own, #59); ``needs``: what they must show, in words (else the pool and the flat modifiers); ``reach``: the
    total the test must reach, when the rule knows it: the roll then carries its exact chance and whether it
    made it (#59)."""
    flat = sum(m.value for m in modifiers)
    chance = None if reach is None else odds_mod.at_least(pool_distribution(pool), successes_to(reach, flat))
    record = dice.roll(f"{max(0, pool)}dT", purpose, roller=pool_roller(pool, roller),
                       needs=needs or dt_needs(pool, flat), chance=chance)
    if reach is not None:
        record.settle(record.total + flat >= reach)
    return TestRoll(record.total + flat, [record], list(modifiers))


def stop_goal(need: int, attack: int, more: bool = False) -> str:
    """A defense's goal in words: the successes that stop an attack total of ``attack`` (a tie is the defender's);
    ``more``: those the re-rolled duds must add to the successes already rolled."""
    if more and need <= 0:
        return say("the attack of {attack} is stopped already: the re-rolled duds only add", attack=attack)
    if more:
        return say_n("{n} more success stops an attack of {attack} (a tie goes to the defender)",
                     "{n} more successes stop an attack of {attack} (a tie goes to the defender)", need, attack=attack)
    return say_n("{n} success stops an attack of {attack} (a tie goes to the defender)",
                 "{n} successes stop an attack of {attack} (a tie goes to the defender)", need, attack=attack)


def roll_defense_pool(dice: DiceSource, pool: int, rerolls: int, purpose: str, roller: str | None = None,
                      flat: int = 0, attack: int | None = None) -> tuple[int, list[RollRecord]]:
    """Roll a defense pool; Duck re-rolls up to ``rerolls`` duds (faces 1-5) (*Tesseris Combat*, "Defending").
    ``roller``: the defender (the table's own dice, #59); ``flat`` and ``attack``: the defense's modifiers and the
    attack total it meets, for what the dice must show."""
    goal = stop_goal(successes_to(attack, flat), attack) if attack is not None else None
    # the exact chance that the defense stops the attack, Duck's re-rolls counted (#59: said in the ask, and
    # the defender's luck is weighed against it)
    chance = None if attack is None else sum(p for v, p in defense_distribution(pool, max(0, rerolls))
                                             if v >= successes_to(attack, flat))
    needs = dt_needs(pool, flat, goal)
    if rerolls > 0 and pool > 0:  # Duck: the ask says its duds come again (#70)
        needs = say_n("{line}; then up to {n} dud (1-5) is re-rolled", "{line}; then up to {n} duds (1-5) are re-rolled",
                      rerolls, line=needs)
    first = dice.roll(f"{pool}dT", purpose, roller=pool_roller(pool, roller), needs=needs, chance=chance)
    records = [first]
    successes = first.total
    duds = sum(1 for f in first.faces if f < DT_SUCCESS)
    n = min(rerolls, duds)
    if n:
        # the successes the re-rolled duds must add to the first roll's (#70: "4 successes" read as 4 in all)
        goal = stop_goal(successes_to(attack, flat + successes), attack, more=True) if attack is not None else None
        left = None if attack is None else odds_mod.at_least(pool_distribution(n), successes_to(attack, flat + successes))
        again = dice.roll(f"{n}dT", say_n("{purpose}: re-roll {n} dud", "{purpose}: re-roll {n} duds", n, purpose=purpose),
                          roller=roller, needs=dt_needs(n, 0, goal), chance=left)
        records.append(again)
        successes += again.total
    if attack is not None:  # the defense's luck is the first roll's record's (the re-roll's only shows its chance)
        first.settle(successes + flat >= attack)
    return successes, records


def quick_recover_roll(dice: DiceSource, dice_count: int, purpose: str,
                       roller: str | None = None) -> tuple[bool, RollRecord]:
    """The quick recovery roll of a jam (*Tesseris Combat*, "Weapon Jams"): ``dice_count`` dT,
    any success clears it, explosions ignored, so a plain d10 of 6+ per die. ``roller``: whose weapon (#59)."""
    rec = dice.roll(f"{dice_count}d10", say("{purpose} (dT, explosions ignored)", purpose=purpose), roller=roller,
                    needs=say_n("roll {n} d10: a 6 or more clears the jam (a 9 or 10 does not roll again)",
                                "roll {n} d10: any 6 or more clears the jam (a 9 or 10 does not roll again)",
                                dice_count))
    return any(f >= DT_SUCCESS for f in rec.faces), rec


def pool_distribution(dice: int) -> dict[int, float]:
    """Successes of ``dice`` dT, explosions included (exact up to the 1e-12 cut-off). A fresh dict each call, of
    the one reckoned once per pool (``_pool_items``: the foes' plans ask the odds of many attacks, #60)."""
    return dict(_pool_items(dice))


@lru_cache(maxsize=64)
def _pool_items(dice: int) -> tuple[tuple[int, float], ...]:
    if dice <= 0:
        return ((0, 1.0),)
    return tuple(odds_mod.distribution(f"{dice}dT").items())


@lru_cache(maxsize=512)
def defense_distribution(pool: int, rerolls: int) -> tuple[tuple[int, float], ...]:
    """Exact successes of a defense pool with up to ``rerolls`` duds re-rolled (*Tesseris Combat*, "Defending", Duck)."""
    if rerolls <= 0:
        return tuple(pool_distribution(pool).items())
    # per die: k explosions then a dud (k successes, 1 dud) or a plain success (k+1, 0 duds)
    per: dict[tuple[int, int], float] = {}
    reach, k = 1.0, 0
    while reach >= odds_mod.PRECISION:
        per[(k, 1)] = per.get((k, 1), 0) + reach * 0.5
        per[(k + 1, 0)] = per.get((k + 1, 0), 0) + reach * 0.3
        reach *= 0.2
        k += 1
    joint: dict[tuple[int, int], float] = {(0, 0): 1.0}
    for _ in range(pool):
        nxt: dict[tuple[int, int], float] = {}
        for (s1, d1), p1 in joint.items():
            for (s2, d2), p2 in per.items():
                key = (s1 + s2, d1 + d2)
                nxt[key] = nxt.get(key, 0) + p1 * p2
        joint = {k_: v for k_, v in nxt.items() if v >= odds_mod.PRECISION * 1e-3}
    out: dict[int, float] = {}
    for (s, d), p in joint.items():
        n = min(rerolls, d)
        extra = pool_distribution(n) if n else {0: 1.0}
        for v, q in extra.items():
            out[s + v] = out.get(s + v, 0) + p * q
    return tuple(sorted(out.items()))


def mean_successes(pool: int, rerolls: int = 0) -> float:
    return sum(v * p for v, p in defense_distribution(pool, rerolls))


def wound_penalty(wounds: int, stamina: int) -> int:
    """Penalty to skill tests from Wounds (*Tesseris Combat*, "Effects of Wounds").

    None while the character has Stamina; out of Stamina, -1 per 3 Wounds,
    at least -1 (1-5 Wounds -1, 6-8 -2, 9-11 -3). Not applied to the
    Resolve test to stay conscious.
    """
    if stamina > 0:
        return 0
    return -max(1, max(0, wounds) // WOUNDS_PER_PENALTY)
