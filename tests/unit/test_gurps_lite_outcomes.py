"""The outcome lines of gurps_lite's odds against what attack() rolls, outcome by outcome."""

from __future__ import annotations

import math
import zlib
from collections import Counter

import pytest

import rules
from rules.dice import SeededDice
from rules.gurps_lite.checks import success_chance
from rules.gurps_lite.outcomes import outcome_label
from rules.system import AttackRequest, Combatant

S = rules.get("gurps_lite")


SMG = {"skill": "Guns (Pistol)", "damage": "2d", "type": "pi", "kind": "ranged", "rof": 10, "rcl": 2, "max": 200}


def request(weapon, distance=1, options=None, target_state=None, attacker_state=None, target_sheet=None):
    sheet = S.default_sheet()
    sheet["weapons"]["SMG"] = SMG
    a = Combatant("a", "Ann", sheet, (1, 1), "pc", True, state=dict(attacker_state or {}))
    b = Combatant("b", "Bob", target_sheet or S.default_sheet(), (1 + distance, 1), "npc",
                  state=dict(target_state or {}))
    return AttackRequest(a, b, weapon, distance, None, dict(options or {}))


def line(label: str) -> str:
    """The defended line names the defenses that may stop the attack; one roll names the one that did."""
    return "defended" if label.startswith("defended") else label


SCENARIOS = {
    "sword, best defense": ("Broadsword", 1, {}, {}, {}),
    "pistol, three shots (rapid fire, extra hits)": ("Pistol", 3, {"shots": 3}, {}, {}),
    "rapid strike: two attacks, the second parry at -4": ("Broadsword", 1, {"rapid_strike": 1}, {}, {}),
    "random location": ("Broadsword", 1, {"location": "random"}, {}, {}),
    "skull: a miss by 1 hits the torso": ("Broadsword", 1, {"location": "skull"}, {}, {}),
    "dual weapon attack": ("Broadsword", 1, {"dual_weapon": "Punch"}, {}, {}),
    "all-out attack (double), target without defense": (
        "Broadsword", 1, {"maneuver": "all_out_attack", "variant": "double"}, {"maneuver": "all_out_attack"}, {}),
    "all-out attack (feint)": ("Broadsword", 1, {"maneuver": "all_out_attack", "variant": "feint"}, {}, {}),
    "feint": ("Broadsword", 1, {"maneuver": "feint"}, {}, {}),
    "suppression fire on whoever enters the area": (
        "SMG", 4, {"maneuver": "all_out_attack_ranged", "variant": "suppression_fire"}, {}, {}),
    "deceptive attack: -2 to hit, -1 to the defense": ("Broadsword", 1, {"deceptive": 1}, {}, {}),
    "a diving dodge against gunfire": ("SMG", 4, {"shots": 5, "defense": {"type": "dodge", "dive": True}}, {}, {}),
    "an acrobatic dodge and a parry with a retreat": (
        "Broadsword", 1, {"rapid_strike": True, "defense": {"type": "dodge", "acrobatic": True}}, {}, {}),
    "the skull from behind, the target parrying with a retreat": (
        "Broadsword", 1, {"location": "skull", "from_behind": True,
                          "defense": {"type": "parry", "weapon": "Broadsword", "retreat": True}}, {}, {}),
    "a rapid strike against a block: the second attack meets the best defense left": (
        "Broadsword", 1, {"rapid_strike": True, "defense": {"type": "block"}}, {}, {}),
    "double defense": ("Broadsword", 1, {"second_defense": {"type": "dodge"}},
                       {"maneuver": "all_out_defense", "variant": "double"}, {}),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_each_outcome_matches_a_monte_carlo_of_attack(name):
    weapon, distance, options, target_state, attacker_state = SCENARIOS[name]
    odds = S.odds(request(weapon, distance, options, target_state, attacker_state))
    exact = Counter()
    for o in odds["outcomes"]:
        exact[line(o["label"])] += o["p"]
    assert math.isclose(sum(exact.values()), 1, abs_tol=1e-9)
    n = 2000
    dice = SeededDice(zlib.crc32(name.encode()))  # a fixed seed per scenario
    seen: Counter = Counter()
    hits = 0
    for _ in range(n):
        result = S.attack(request(weapon, distance, options, target_state, attacker_state), dice)
        seen[line(outcome_label(result, S.default_sheet()))] += 1
        hits += result.hit
    assert set(seen) <= set(exact), (set(seen) - set(exact), exact)
    for label, p in exact.items():
        tolerance = 4 * math.sqrt(p * (1 - p) / n) + 0.01
        assert abs(seen[label] / n - p) <= tolerance, (label, seen[label] / n, p)
    p = odds["hit"]
    assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01


def test_without_a_defense_the_chance_to_hit_is_the_roll_and_the_lines_are_the_readable_handful():
    odds = S.odds(request("Broadsword", 1, {"defense": "none"}))
    skill = odds["skill"]
    assert math.isclose(odds["hit"], success_chance(skill))
    labels = [o["label"] for o in odds["outcomes"]]
    assert labels[:2] == ["critical miss", "miss"] and not any(x.startswith("defended") for x in labels)
    assert all(x.startswith("hit: ") for x in labels[2:]) and len(labels) <= 8


def test_a_single_attack_hits_exactly_when_damage_lands_and_a_feint_never_hits():
    odds = S.odds(request("Broadsword", 1))
    assert math.isclose(odds["hit"], odds["p_damage"])
    assert any(o["label"] == "defended (parry)" for o in odds["outcomes"])
    feint = S.odds(request("Broadsword", 1, {"maneuver": "feint"}))
    assert feint["hit"] == 0 and all(o["label"].startswith("feint") for o in feint["outcomes"])


def test_a_major_wound_is_more_than_half_the_hp_from_one_hit():
    tough = {**S.default_sheet(), "HP": 40, "hp_current": 40}
    labels = {o["label"] for o in S.odds(request("Broadsword", 1, {"defense": "none"}, target_sheet=tough))["outcomes"]}
    assert "hit: major wound (knockdown roll)" not in labels
    frail = {**S.default_sheet(), "HP": 4, "hp_current": 4, "dr": {}}
    out = S.odds(request("Broadsword", 1, {"defense": "none"}, target_sheet=frail))["outcomes"]
    assert {o["label"] for o in out} >= {"hit: major wound (knockdown roll)"}
