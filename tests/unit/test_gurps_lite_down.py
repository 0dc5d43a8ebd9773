"""The 3d6 system's chance an attack puts its target out of the fight (#67: the odds' ``down``), against a Monte Carlo of
the attack itself (*3d6 Combat*, "Injury"): the result applied to the target's sheet, then, left below 0 HP and still
fighting, its HT roll against collapse at its next turn. Knockdown rolls, death checks and the collapse roll all
weigh: a pistol aimed at the vitals of a hero with a low HT."""

from __future__ import annotations

import math

import pytest

import rules
from rules.board import Board
from rules.dice import SeededDice
from rules.gurps_lite.health import collapse
from rules.system import AttackRequest, Combatant

SYSTEM = rules.get("gurps_lite")


def _request(hp_current: int, ht: int, location: str) -> AttackRequest:
    shooter = Combatant("a", "Ann", SYSTEM.default_sheet(), (1, 1), "npc", True)
    hero = Combatant("b", "Bob", {**SYSTEM.default_sheet(), "HT": ht, "hp_current": hp_current}, (4, 1), "pc")
    return AttackRequest(attacker=shooter, target=hero, weapon="Pistol", distance=3, cover="none",
                         options={"settings": SYSTEM.default_settings(), "location": location, "defense": "none"},
                         board=Board(12, 4))


def _down(request: AttackRequest, dice) -> bool:
    result = SYSTEM.attack(request, dice)
    sheet = SYSTEM.apply(request.target.sheet, result, "b")
    if SYSTEM.out_of_fight(sheet):
        return True
    return bool(collapse(sheet, dice)["conditions"])  # below 0 HP: the roll at its next turn (none at 0 HP or more)


@pytest.mark.parametrize("hp_current, ht, location", [(11, 8, "vitals"), (2, 10, "torso"), (-5, 11, "torso")])
def test_down_is_what_the_attack_and_the_next_collapse_roll_do(hp_current, ht, location):
    request = _request(hp_current, ht, location)
    p = SYSTEM.odds(request)["down"]
    dice = SeededDice(67)
    n = 2000
    seen = sum(_down(request, dice) for _ in range(n))
    if hp_current < 0:  # already below 0: what the attack adds to the collapse roll it owes anyway
        anyway = sum(bool(collapse(request.target.sheet, dice)["conditions"]) for _ in range(n))
        seen -= anyway
    assert 0 < p < 1
    assert abs(seen / n - p) <= 4 * math.sqrt(max(p * (1 - p), 0.05) / n) * (2 if hp_current < 0 else 1) + 0.01, \
        (seen / n, p)
