"""Atomic Tomorrow: the exact odds agree with ``attack()`` itself, by enumeration and by Monte Carlo.

Every d100 is 1/100 (01-00), so the odds of an attack can be counted
exactly by scripting each roll through the real ``attack()``; where a
sequence has three or more rolls a seeded Monte Carlo checks the whole
distribution, with a tolerance (4 standard errors) that a wrong rule would
exceed.
"""

from __future__ import annotations

import math
from collections import Counter

import pytest

from rules import atomic_tomorrow as at
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant

SYSTEM = at.SYSTEM
NO_SOAK = 100  # 00 always fails, so the soak takes nothing off


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


def _monte_carlo(req, n, seed):
    dice = SeededDice(seed)
    counts: Counter = Counter()
    for _ in range(n):
        counts[SYSTEM.attack(req, dice).details.get("wounds_taken", 0)] += 1
    return {w: c / n for w, c in counts.items()}


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
    req = AttackRequest(combatant("h", **attacker), combatant("f", **target), weapon, distance, None, options)
    n = 20_000
    seen = _monte_carlo(req, n, seed=2024)
    odds = SYSTEM.odds(req)
    exact = odds["wounds"]
    assert set(seen) <= set(exact)
    for w, p in exact.items():
        tolerance = 4 * math.sqrt(p * (1 - p) / n) + 1e-3
        assert abs(seen.get(w, 0.0) - p) <= tolerance, (w, seen.get(w, 0.0), p)
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
    """An incapacitated attacker (GRIT x 1 first) against a dodge: every line within 4 standard errors."""
    req = AttackRequest(combatant("h", wounds=4, grit=15, ranged=80), combatant("f", reflex=12),
                        "Blast pistol", 1, None, {"defense": "dodge"})
    n = 12_000
    dice = SeededDice(77)
    seen = Counter(at.odds.result_label(SYSTEM.attack(req, dice)) for _ in range(n))
    lines = {line["label"]: line["p"] for line in SYSTEM.odds(req)["outcomes"]}
    assert set(seen) <= set(lines) and "cannot act (GRIT x1 failed)" in lines and "dodged: no hit" in lines
    for label, p in lines.items():
        assert abs(seen[label] / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 1e-3, (label, seen[label] / n, p)
