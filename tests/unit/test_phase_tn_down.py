"""Phase/TN: a shot's chance to put its target down (#67: ``attack_effect``'s ``down``), against a Monte Carlo of the
shot itself (*Phase/TN Combat Sequence*, "Ranged Attacks", "Special Ranged Attacks", "Damage and Wounds"): the result
applied to the target's sheet, then whether the rules take it out of the fight (flesh wounds at capacity, or a
traumatic wound that makes it unconscious, dying or dead). A single shot, a called head shot and a burst."""

from __future__ import annotations

import math

import pytest

import rules
from rules.dice import SeededDice
from rules.phase_tn.suggest import attack_effect
from rules.system import AttackRequest, Combatant

SYSTEM = rules.get("phase_tn")
RIFLE = {"name": "Rifle", "skill": "rifles", "damage": "2d6", "mode": "auto"}


def _request(flesh: int, options: dict) -> AttackRequest:
    shooter = Combatant("a", "Ann", {**SYSTEM.default_sheet(), "weapons": [RIFLE]}, (1, 1), "npc", True)
    hero = Combatant("b", "Bob", {**SYSTEM.default_sheet(), "flesh": flesh}, (4, 1), "pc")
    return AttackRequest(attacker=shooter, target=hero, weapon="Rifle", distance=3, cover="none",
                         options={"targeted": True, **options})


@pytest.mark.parametrize("flesh, options", [(10, {}), (0, {"called": "head"}), (8, {"mode": "burst"})])
def test_down_is_what_the_shot_does(flesh, options):
    request = _request(flesh, options)
    p = attack_effect(request, SYSTEM.odds(request))["down"]
    dice = SeededDice(67)
    n = 2000
    seen = 0
    for _ in range(n):
        result = SYSTEM.attack(request, dice)
        seen += SYSTEM.out_of_fight(SYSTEM.apply(request.target.sheet, result, "b"))
    assert 0 < p < 1
    assert abs(seen / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (seen / n, p)
