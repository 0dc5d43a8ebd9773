"""Tesseris on the map (wave 2): the odds the app shows, the fight's books after an
attack, moves against the ticks and Speed, badges and the sheet fields the GM sets."""

from __future__ import annotations

import json
import math

import pytest

from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant
from rules.tesseris_ads import SYSTEM
from rules.tesseris_ads.odds import outcome_label


def sheet(**kw):
    s = SYSTEM.default_sheet()
    s.update(kw)
    return s


def req(a, t, weapon, distance=1, **options):
    return AttackRequest(attacker=a, target=t, weapon=weapon, distance=distance, options=options)


SCENARIOS = {
    "knife": dict(weapon="knife", distance=1),
    "club, impact": dict(weapon="club", distance=1),
    "rifle burst": dict(weapon="rifle", distance=5, action="burst_fire", defense="dodge"),
    "pistol, tired target": dict(weapon="pistol", distance=3, target=dict(stamina=3, wounds=2)),
    "criticals on the total": dict(weapon="knife", distance=1, settings={"critical_basis": "total"}, attacker=dict(agility=6)),
    "no defense": dict(weapon="pistol", distance=2, defense="none"),
}


def build(spec):
    spec = dict(spec)
    a = Combatant("a", "Ann", sheet(**spec.pop("attacker", {})), (0, 0), "pc", True)
    t = Combatant("t", "Tom", sheet(**spec.pop("target", {})), (spec["distance"], 0), "npc")
    weapon, distance = spec.pop("weapon"), spec.pop("distance")
    return req(a, t, weapon, distance, **spec)


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_each_outcome_line_matches_a_monte_carlo_of_attack(name):
    """Outcome by outcome, the exact odds against what ``attack()`` rolls and ``outcome_label``
    reads back: four standard errors and a hair, every line, and no outcome the odds miss."""
    spec = SCENARIOS[name]
    odds = SYSTEM.odds(build(spec))
    json.dumps(odds)
    exact = {o["label"]: o["p"] for o in odds["outcomes"]}
    assert math.isclose(sum(exact.values()), 1, abs_tol=1e-9)
    n = 3000
    dice = SeededDice(77)
    seen: dict[str, int] = {}
    hits = 0
    for _ in range(n):
        result = SYSTEM.attack(build(spec), dice)
        hits += result.hit
        label = outcome_label(result)
        seen[label] = seen.get(label, 0) + 1
    assert set(seen) <= set(exact), (set(seen) - set(exact), exact)
    for label, p in exact.items():
        freq = seen.get(label, 0) / n
        assert abs(freq - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (label, freq, p)
    assert abs(hits / n - odds["hit"]) <= 4 * math.sqrt(odds["hit"] * (1 - odds["hit"]) / n) + 0.01


def test_outcomes_are_in_tesseris_words_and_the_modifiers_name_both_sides():
    odds = SYSTEM.odds(build(SCENARIOS["rifle burst"]))
    labels = [o["label"] for o in odds["outcomes"]]
    assert all(lbl in ("miss", "Dodge avoids") or lbl.split(": ")[0] in ("hit", "critical") for lbl in labels)
    assert "Dodge avoids" in labels
    mods = {m["label"]: m["value"] for m in odds["modifiers"]}
    assert mods["Burst Fire"] == -1
    assert any(k.startswith("Tom's Dodge") for k in mods)
    assert math.isclose(odds["hit"], sum(o["p"] for o in odds["outcomes"] if o["label"].startswith(("hit", "critical"))))
