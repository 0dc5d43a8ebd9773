"""Atomic Tomorrow: the exact odds agree with ``attack()`` itself, by enumeration and by Monte Carlo.

Every d100 is 1/100 (01-00), so the odds of an attack can be counted
exactly by scripting each roll through the real ``attack()``; where a
sequence has three or more rolls (100 x 100 x 100 ways and more) its first two
rolls are still counted face by face and only the rest are rolled by seeded
dice, a Monte Carlo with a tolerance (4 standard errors of that design, a
bound no wider than that of the Monte Carlo of whole attacks it replaced)
that a wrong rule would exceed (#71).
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from rules import atomic_tomorrow as at
from rules.dice import DiceSource, ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant

SYSTEM = at.SYSTEM
NO_SOAK = 100  # 00 always fails, so the soak takes nothing off
REPEATS = 2  # seeded runs of each way of the first two rolls that rolls more: the fewest whose standard errors are
# all at most those of the Monte Carlo of whole attacks they replace (with 1, some lines' are up to 1.4 times theirs;
# with 2, the rarest wounds lines' equal them: sqrt(run weight x 20,000) = 1)


def combatant(cid, **over):
    return Combatant(cid, cid.upper(), {**SYSTEM.default_sheet(), **over})


def test_incapacitated_attacker_odds_match_every_grit_and_attack_roll():
    """INCAPACITATION: at 4 wounds each action needs a GRIT x 1 roll; a critical acts with no penalty."""
    req = AttackRequest(combatant("h", wounds=4, grit=14, ranged=60), combatant("f", armour="light"),
                        "Blast pistol", 1)
    counts: Counter = Counter()
    cannot = hits = 0
    for g in range(1, 101):
        for a in range(1, 101):
            r = SYSTEM.attack(req, ScriptedDice([g, a, NO_SOAK]))
            counts[r.details.get("wounds_taken", 0)] += 1
            hits += r.hit
            cannot += not r.details.get("act_check", {}).get("may_act", True)
    o = SYSTEM.odds(req)
    assert {w: n / 10_000 for w, n in counts.items()} == pytest.approx(o["wounds_before_soak"])
    assert hits / 10_000 == pytest.approx(o["p_hit"])
    assert cannot / 10_000 == pytest.approx(o["outcome_detail"]["cannot_act"]) == pytest.approx(1 - o["p_act"])


def test_parry_cover_and_armour_odds_match_every_attack_and_defense_roll():
    """COVER before the bonus, ARMOR after it, a Parry won on quality then the higher roll."""
    settings = {"critical_ignores_armour": False}
    req = AttackRequest(combatant("h", melee=70), combatant("f", armour="medium", melee=55), "Vibro-knife", 0,
                        "partial", {"engaged": True, "defense": "parry", "settings": settings})
    counts: Counter = Counter()
    outcomes: Counter = Counter()
    for a in range(1, 101):
        for d in range(1, 101):
            r = SYSTEM.attack(req, ScriptedDice([a, d, NO_SOAK]))
            counts[r.details.get("wounds_taken", 0)] += 1
            if r.hit:
                outcomes[f"hit_{r.details['attack_quality']}"] += 1
            elif r.details["attack_quality"] in at.SUCCESSES:
                outcomes["defended"] += 1
            else:
                outcomes["miss"] += 1
    o = SYSTEM.odds(req)
    assert {w: n / 10_000 for w, n in counts.items()} == pytest.approx(o["wounds_before_soak"])
    assert {k: n / 10_000 for k, n in outcomes.items()} == pytest.approx(o["outcome_detail"])


class _FirstFacesThenSeeded(DiceSource):
    """The given faces first, then seeded dice; ``used``: how many of the given faces the attack rolled."""

    def __init__(self, faces, rest: SeededDice) -> None:
        self.faces, self.rest, self.used, self.seeded = list(faces), rest, 0, False

    def face(self, sides: int) -> int:
        if self.used < len(self.faces):
            self.used += 1
            return self.faces[self.used - 1]
        self.seeded = True
        return self.rest.face(sides)


class _FirstTwoFacesCounted:
    """Each way of the first two d100s through the real ``attack()`` (a roll the attack did not make is not branched
    on: an attack that stops after one roll is run once for its 1/100), any later roll by seeded dice (``repeats``
    runs of each way that rolls them, sharing its weight). ``seen``: the estimated chance of each ``label(result)``;
    ``exact``: the part of it from runs that rolled no seeded dice (counted exactly)."""

    def __init__(self, req, label, seed: int, repeats: int = 1) -> None:
        rest = SeededDice(seed)
        self.seen: Counter = Counter()
        self.exact: Counter = Counter()
        self.seeded_weight = 0.0
        self.run_weight = 1 / 10_000 / repeats  # each seeded run's (only a way with both faces rolls more)
        for first in range(1, 101):
            for second in range(1, 101):
                dice = _FirstFacesThenSeeded([first, second], rest)
                result = SYSTEM.attack(req, dice)
                weight = 1 / 100 if dice.used < 2 else 1 / 10_000  # the second face not rolled: one run for all 100
                if not dice.seeded:
                    self.seen[label(result)] += weight
                    self.exact[label(result)] += weight
                else:
                    results = [result] + [SYSTEM.attack(req, _FirstFacesThenSeeded([first, second], rest))
                                          for _ in range(repeats - 1)]
                    for r in results:
                        self.seen[label(r)] += self.run_weight
                    self.seeded_weight += weight
                if dice.used < 2:
                    break

    def standard_error(self, label, p: float) -> float:
        """A bound on the standard error of ``seen[label]`` if its chance is ``p``. Each seeded run (weight v, its
        unknown chance q of the label) adds v^2 q (1 - q) to the variance; their sum is at most v W Q (1 - Q) (W: the
        seeded runs' weight, Q = (p - exact) / W their mean chance; q (1 - q) is concave); exact runs add nothing."""
        q = min(1.0, max(0.0, (p - self.exact[label]) / self.seeded_weight)) if self.seeded_weight else 0.0
        return math.sqrt(self.run_weight * self.seeded_weight * q * (1 - q))


@pytest.mark.parametrize(
    "attacker, target, weapon, distance, options",
    [
        # a block with a shield against a blast, then the soak against GRIT x 5
        ({"ranged": 75}, {"shield": True, "melee": 40, "armour": "none", "grit": 9}, "Blast pistol", 1,
         {"defense": "block"}),
        # an incapacitated attacker (GRIT x 1 first) against a dodge, light armour and soak
        ({"wounds": 4, "grit": 16, "ranged": 80}, {"reflex": 12, "armour": "light"}, "Blast pistol", 1,
         {"defense": "dodge"}),
    ],
)
def test_odds_match_a_monte_carlo_of_the_whole_attack(attacker, target, weapon, distance, options):
    """The first two rolls face by face (attack and block; GRIT and attack), the rest (the soak; the dodge and the
    soak) seeded, REPEATS runs each: every wounds line within 4
    standard errors of that design (``_FirstTwoFacesCounted.standard_error``), none of them more than 20,000
    attacks rolled whole would have (sqrt(p (1 - p) / 20,000))."""
    req = AttackRequest(combatant("h", **attacker), combatant("f", **target), weapon, distance, None, options)
    counted = _FirstTwoFacesCounted(req, lambda r: r.details.get("wounds_taken", 0), seed=2024, repeats=REPEATS)
    seen = counted.seen
    odds = SYSTEM.odds(req)
    exact = odds["wounds"]
    assert set(seen) <= set(exact)
    for w, p in exact.items():
        se = counted.standard_error(w, p)
        assert se <= math.sqrt(p * (1 - p) / 20_000) * (1 + 1e-9), (w, se)  # no less power than the Monte Carlo it replaced
        assert abs(seen.get(w, 0.0) - p) <= 4 * se + 1e-3, (w, seen.get(w, 0.0), p)
    mean = sum(w * p for w, p in seen.items())
    assert mean == pytest.approx(odds["expected_wounds"], abs=0.05)


# ---- the outcome lines the app shows, line by line against attack() ---------------


def test_outcome_lines_match_every_scripted_attack_and_soak_roll():
    """Each line of ``outcomes`` (miss kinds, hits by wounds taken up to dying) counted over all 100 x 100
    attack and soak rolls of the real ``attack()``; the target already has 2 wounds."""
    req = AttackRequest(combatant("h", ranged=70), combatant("f", armour="light", grit=11, wounds=2),
                        "Blast pistol", 1)
    seen: Counter = Counter()
    hits = 0
    for a in range(1, 101):
        for s in range(1, 101):
            r = SYSTEM.attack(req, ScriptedDice([a, s]))
            seen[at.odds.result_label(r)] += 1
            hits += r.hit
    o = SYSTEM.odds(req)
    lines = {line["label"]: line["p"] for line in o["outcomes"]}
    assert len(lines) == len(o["outcomes"]) and sum(lines.values()) == pytest.approx(1)
    assert {k: n / 10_000 for k, n in seen.items()} == pytest.approx(lines)
    assert o["hit"] == pytest.approx(hits / 10_000) == pytest.approx(o["p_hit"])
    assert "hit: 3+ wounds (dying)" in lines and "hit: 2 wounds (incapacitated)" in lines
    assert "critical failure" in lines and "miss" in lines
    assert {m["label"] for m in o["modifiers"]} >= {"Wound Rating", "light armour"}
    assert "Ranged" not in {m["label"] for m in o["modifiers"]} and o["skill_line"].startswith("Ranged ")  # #33


def test_outcome_lines_match_a_monte_carlo_with_the_grit_check_and_a_dodge():
    """An incapacitated attacker (GRIT x 1 first) against a dodge: the GRIT and attack rolls face by face, the dodge
    and soak seeded (REPEATS runs each); every line within 4 standard errors of that design, none of them more than
    12,000 attacks rolled whole would have."""
    req = AttackRequest(combatant("h", wounds=4, grit=15, ranged=80), combatant("f", reflex=12),
                        "Blast pistol", 1, None, {"defense": "dodge"})
    counted = _FirstTwoFacesCounted(req, at.odds.result_label, seed=77, repeats=REPEATS)
    seen = counted.seen
    lines = {line["label"]: line["p"] for line in SYSTEM.odds(req)["outcomes"]}
    assert set(seen) <= set(lines) and "cannot act (GRIT x1 failed)" in lines and "dodged: no hit" in lines
    for label, p in lines.items():
        se = counted.standard_error(label, p)
        assert se <= math.sqrt(p * (1 - p) / 12_000) * (1 + 1e-9), (label, se)  # no less power than the 12,000 attacks it replaced
        assert abs(seen[label] - p) <= 4 * se + 1e-3, (label, seen[label], p)
