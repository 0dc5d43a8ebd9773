"""What the app relies on from every rule system, checked the same way for each one.

The app calls systems only through the ``RuleSystem`` interface: these are the
promises it builds the combat screens on (odds it can show, books it can keep,
badges it can draw), so a system added later is held to them too.
"""

from __future__ import annotations

import json
import math

import pytest

import rules
from rules import los
from rules.board import Board
from rules.dice import SeededDice
from rules.system import Combatant, MoveResult, RuleError, RuleNotImplemented, AttackRequest

SYSTEMS = [s.id for s in rules.systems() if s.id != "plain_grid"]
KINDS = {"wound", "condition", "resource"}


def pair(system, distance: int):
    sheet = system.default_sheet()
    if system.board == "grid":
        a = Combatant("a", "Ann", sheet, (1, 1), "pc", True)
        b = Combatant("b", "Bob", system.default_sheet(), (1 + distance, 1), "npc")
    else:
        a = Combatant("a", "Ann", sheet, "z0", "pc", True)
        b = Combatant("b", "Bob", system.default_sheet(), f"z{distance}", "npc")
    return a, b


def request(system, distance: int, weapon: str, state: dict | None = None):
    a, b = pair(system, distance)
    if state is not None:
        a.state = dict(state.get("combatants", {}).get("a", {}))
        b.state = dict(state.get("combatants", {}).get("b", {}))
    board = Board(12, 4) if system.board == "grid" else None
    cover = los.cover(board, a.position, b.position) if board else "none"
    return AttackRequest(attacker=a, target=b, weapon=weapon, distance=distance, cover=cover,
                         options={"settings": system.default_settings()}, board=board)


def attacks(system):
    """Every (distance, weapon) of the sample character that the rules let it attack with."""
    found = []
    for w in system.weapons(system.default_sheet()):
        for distance in (1, 3):
            try:
                system.attack(request(system, distance, w["key"]), SeededDice(0))
            except (RuleError, RuleNotImplemented):
                continue
            found.append((distance, w["key"]))
    return found


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_the_sample_character_has_weapons_with_unique_keys_and_can_attack(system_id):
    system = rules.get(system_id)
    keys = [w["key"] for w in system.weapons(system.default_sheet())]
    assert keys and len(keys) == len(set(keys))
    assert attacks(system), "no weapon of the sample character can attack at 1 or 3"


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_odds_list_outcomes_that_sum_to_one_with_the_chance_to_hit_and_the_modifiers(system_id):
    system = rules.get(system_id)
    for distance, weapon in attacks(system):
        odds = system.odds(request(system, distance, weapon))
        json.dumps(odds)
        outcomes = odds["outcomes"]
        assert outcomes and all(set(o) >= {"label", "p"} and 0 <= o["p"] <= 1 for o in outcomes)
        assert math.isclose(sum(o["p"] for o in outcomes), 1, abs_tol=1e-9), (weapon, outcomes)
        assert 0 <= odds["hit"] <= 1
        assert all(set(m) >= {"label", "value"} for m in odds["modifiers"])


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_the_chance_to_hit_matches_what_attack_rolls(system_id):
    """A Monte Carlo of attack() against the exact odds: four standard errors and a hair."""
    system = rules.get(system_id)
    distance, weapon = attacks(system)[0]
    n = 1500
    dice = SeededDice(2024)
    hits = sum(system.attack(request(system, distance, weapon), dice).hit for _ in range(n))
    p = system.odds(request(system, distance, weapon))["hit"]
    assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (hits / n, p)


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_a_fight_keeps_its_books_as_plain_data(system_id):
    system = rules.get(system_id)
    a, b = pair(system, 1)
    update = system.begin_fight([a, b], SeededDice(3), system.default_settings())
    json.dumps(update.to_dict())
    assert set(update.order) <= {"a", "b"}
    distance, weapon = attacks(system)[0]
    result = system.attack(request(system, distance, weapon, update.state), SeededDice(4))
    after = system.after_attack(update.state, result, system.default_settings())
    json.dumps(after)
    assert isinstance(after, dict)


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_a_move_within_the_allowance_is_booked_and_one_beyond_it_refused(system_id):
    system = rules.get(system_id)
    a, b = pair(system, 3)
    settings = system.default_settings()
    update = system.begin_fight([a, b], SeededDice(5), settings)
    for _ in range(4):  # to the first turn that is somebody's
        if update.current is not None:
            break
        update = system.next_turn(update.state, [a, b], SeededDice(6), settings)
    mover = a if update.current == "a" else b
    mover.state = dict(update.state.get("combatants", {}).get(mover.id, {}))
    offered = [o for o in system.actions(update.state, mover, settings) if o.available]
    if not any(o.kind == "move" for o in offered):  # the turn's choice comes first (3d6: a maneuver)
        turn = [o for o in offered if o.kind == "turn" and (o.data or {}).get("allowance")]
        if turn:
            choice = max(turn, key=lambda o: o.data["allowance"])
            update = system.act(update.state, mover, choice.key, [a, b], SeededDice(8), settings)
            mover.state = dict(update.state.get("combatants", {}).get(mover.id, {}))
    left = system.movement_left(update.state, mover, settings)
    if left is None:
        pytest.skip(f"{system.name} sets no movement limit")  # said on its help page
    assert left >= 0
    board = Board(40, 4) if system.board == "grid" else None
    with pytest.raises(RuleError):
        system.move(update.state, mover, [], left + 1, [a, b], board, SeededDice(7), settings)
    if left >= 1:
        moved = system.move(update.state, mover, [], 1, [a, b], board, SeededDice(7), settings)
        assert isinstance(moved, MoveResult)
        json.dumps(moved.to_dict())
        mover.state = dict(moved.state.get("combatants", {}).get(mover.id, {}))
        assert system.movement_left(moved.state, mover, settings) <= left - 1 + 1e-9


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_badges_are_labelled_and_gm_only_fields_are_sheet_fields(system_id):
    system = rules.get(system_id)
    badges = system.badges(system.default_sheet())
    assert all(set(b) >= {"label", "kind"} and b["kind"] in KINDS for b in badges)
    tops = {f.key.split(".")[0] for f in system.sheet_fields()} | set(system.default_sheet())
    assert set(system.gm_only_fields) <= tops


def test_a_system_without_choices_offers_none():
    plain = rules.get("plain_grid")
    a, b = Combatant("a", "Ann", position=(0, 0)), Combatant("b", "Bob", position=(1, 0))
    assert plain.defenses(AttackRequest(a, b)) == [] and plain.area_templates() == []


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_defense_choices_are_labelled_and_each_available_one_is_what_attack_and_odds_take(system_id):
    system = rules.get(system_id)
    for distance, weapon in attacks(system):
        req = request(system, distance, weapon)
        choices = system.defenses(req)
        json.dumps(choices)
        keys = [c["key"] for c in choices]
        assert len(keys) == len(set(keys))
        for c in choices:
            assert set(c) >= {"key", "label", "value", "available", "reason"} and c["label"]
            assert c["available"] or c["reason"], c
            if c["available"]:
                options = {**req.options, "defense": c["value"]}
                odds = system.odds(AttackRequest(**{**req.__dict__, "options": options}))
                assert math.isclose(sum(o["p"] for o in odds["outcomes"]), 1, abs_tol=1e-9)
                system.attack(AttackRequest(**{**req.__dict__, "options": options}), SeededDice(3))


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_area_templates_have_a_table_shape(system_id):
    from rules.areas import SHAPES

    for t in rules.get(system_id).area_templates():
        assert set(t) >= {"key", "label", "shape", "size"} and t["shape"] in SHAPES
        assert t["size"] is None or t["size"] > 0
