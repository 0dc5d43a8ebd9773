"""gurps_lite on the map: the fight's books after an attack, moves within the maneuver's movement,
badges, GM-only fields and sheet validation (*3d6 Combat*, "Maneuvers", "Defending", "Injury")."""

from __future__ import annotations

import copy
import json

import pytest

import rules
from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant, RuleError

from test_gurps_lite_combat import rolls

S = rules.get("gurps_lite")


def two(distance=1):
    a = Combatant("a", "Ann", S.default_sheet(), (1, 1), "pc", True, state={"leader": True})
    b = Combatant("b", "Bob", S.default_sheet(), (1 + distance, 1), "npc")
    return a, b


def fight(distance=1):
    """A fight where Ann (leader) acts first: Tactics 10 rolls 3, Bob's leaderless side 8 rolls 18."""
    a, b = two(distance)
    u = S.begin_fight([a, b], rolls(3, 18))
    assert u.current == "a"
    return u, a, b


def at(state, c):
    return Combatant(c.id, c.name, c.sheet, c.position, c.side, c.is_player, state=dict(state["combatants"][c.id]))


def test_after_attack_books_the_defense_the_attack_and_the_maneuver_it_was_made_under():
    u, a, b = fight()
    before = copy.deepcopy(u.state)
    # Ann chose no maneuver: her attack is a plain Attack; 10 hits, Bob's parry (9) rolls 5
    r = S.attack(AttackRequest(at(u.state, a), at(u.state, b), "Broadsword", 1), rolls(10, 5))
    assert not r.hit and r.details["maneuver"] == "attack"
    after = S.after_attack(u.state, r, S.default_settings())
    json.dumps(after)
    assert u.state == before  # a new state, the app stores it
    assert after["combatants"]["b"]["parries"] == 1
    assert after["combatants"]["a"]["attacks"] == 1 and after["combatants"]["a"]["maneuver"] == "attack"
    assert S.movement_left(after, at(after, a)) == 1  # Attack allows a step
    with pytest.raises(RuleError, match="has made the attack of Attack"):
        S.attack(AttackRequest(at(after, a), at(after, b), "Broadsword", 1), SeededDice(1))
    with pytest.raises(RuleError, match="has made the attack of Attack"):
        S.odds(AttackRequest(at(after, a), at(after, b), "Broadsword", 1))
    # the wave-1 action is the same books
    assert S.act(u.state, at(u.state, a), "record_attack", [a, b], SeededDice(1),
                 options={"result": r.to_dict()}).state == after


def test_an_all_out_attack_named_in_the_options_leaves_the_attacker_without_defense():
    u, a, b = fight()
    r = S.attack(AttackRequest(at(u.state, a), at(u.state, b), "Broadsword", 1,
                               options={"maneuver": "all_out_attack", "variant": "determined", "defense": "none"}),
                 rolls(18))
    after = S.after_attack(u.state, r)
    assert after["combatants"]["a"]["maneuver"] == "all_out_attack"
    defenses = [o for o in S.actions(after, at(after, a)) if o.kind == "defense"]
    assert defenses and not any(o.available for o in defenses)
    assert {"label": "All-Out Attack: no defense", "kind": "condition"} in S.badges(a.sheet, after["combatants"]["a"])


def test_movement_left_is_the_maneuvers_movement_less_the_yards_moved():
    u, a, b = fight(3)
    # Basic Move 5, Light encumbrance: Move 4; before a maneuver, the most one allows (Move)
    assert S.movement_left(u.state, at(u.state, a)) == 4
    assert S.movement_left(u.state, at(u.state, b)) == 0  # not Bob's turn
    with pytest.raises(RuleError, match="choose a maneuver first"):
        S.move(u.state, at(u.state, a), [(1, 1), (2, 1)], 1, [a, b], None, SeededDice(1))
    aoa = S.act(u.state, at(u.state, a), "all_out_attack", [a, b], SeededDice(1), options={"variant": "strong"})
    assert S.movement_left(aoa.state, at(aoa.state, a)) == 2  # half Move
    u = S.act(u.state, at(u.state, a), "move", [a, b], SeededDice(1))
    moved = S.move(u.state, at(u.state, a), [(1, 1), (2, 1), (3, 1)], 2, [a, b], None, SeededDice(1))
    json.dumps(moved.to_dict())
    assert moved.left == 2 and moved.provokes == [] and moved.state["combatants"]["a"]["moved"] == 2
    assert S.movement_left(moved.state, at(moved.state, a)) == 2
    with pytest.raises(RuleError, match="Move allows 4 yards a turn; 2 moved, 2 left: 3 is too far"):
        S.move(moved.state, at(moved.state, a), [], 3, [a, b], None, SeededDice(1))
    with pytest.raises(RuleError, match="not Bob's turn"):
        S.move(moved.state, at(moved.state, b), [], 1, [a, b], None, SeededDice(1))
    # the yards moved are the target's speed next turn ("Ranged Attacks": range + speed)
    nxt = S.next_turn(moved.state, [a, b], SeededDice(2))
    assert nxt.state["combatants"]["a"]["last_move"] == 2


def test_a_step_for_attack_two_for_committed_attack_none_when_stunned():
    u, a, b = fight()
    att = S.act(u.state, at(u.state, a), "attack", [a, b], SeededDice(1))
    assert S.movement_left(att.state, at(att.state, a)) == 1
    ca = S.act(u.state, at(u.state, a), "committed_attack", [a, b], SeededDice(1))
    assert S.movement_left(ca.state, at(ca.state, a)) == 2
    stunned = Combatant("a", "Ann", {**a.sheet, "conditions": ["stunned"]}, (1, 1), "pc", state={})
    assert S.movement_left(u.state, stunned) == 0


def test_entering_an_area_under_suppression_fire_provokes_the_shooter():
    """"When anyone enters this area you attack them at a skill of 8+your rapid fire bonus"."""
    a, b = two(6)
    smg = {"skill": "Guns (Pistol)", "damage": "2d", "type": "pi", "kind": "ranged", "rof": 10, "rcl": 2,
           "max": 200}
    b = Combatant("b", "Bob", {**b.sheet, "weapons": {"SMG": smg}}, b.position, b.side)
    u = S.begin_fight([a, b], rolls(18, 3))
    assert u.current == "b"
    vague = S.act(u.state, at(u.state, b), "all_out_attack_ranged", [a, b], SeededDice(1),
                  options={"variant": "suppression_fire"})
    assert "names no squares" in vague.log[-2] and vague.state["combatants"]["b"]["suppressing"]["cells"] == []
    pistol_only = Combatant("b", "Bob", S.default_sheet(), b.position, b.side)
    with pytest.raises(RuleError, match="no .suppression_fire. option here"):
        S.act(u.state, at(u.state, pistol_only), "all_out_attack_ranged", [a, b], SeededDice(1),
              options={"variant": "suppression_fire", "weapon": "Pistol"})
    u = S.act(u.state, at(u.state, b), "all_out_attack_ranged", [a, b], SeededDice(1),
              options={"variant": "suppression_fire", "weapon": "SMG", "cells": [[3, 1], [3, 2]]})
    assert u.state["combatants"]["b"]["suppressing"]["skill"] == 8 + 2  # RoF 10: +2
    u = S.next_turn(u.state, [a, b], SeededDice(2))
    assert u.current == "a"
    u = S.act(u.state, at(u.state, a), "move", [a, b], SeededDice(1))
    passing = S.move(u.state, at(u.state, a), [(1, 1), (2, 1), (3, 1), (4, 1)], 3, [a, b], None, SeededDice(1))
    assert passing.provokes == ["b"] and "Suppression Fire" in passing.log[-1]
    # the app rolls the provoked attack: skill 8 + 2, as often as tokens enter the area
    shot = S.attack(AttackRequest(at(passing.state, b), at(passing.state, a), "SMG", 2), SeededDice(3))
    assert shot.details["attacks"][0]["check"]["effective"] == 10
    after = S.after_attack(passing.state, shot)
    again = S.attack(AttackRequest(at(after, b), at(after, a), "SMG", 2), SeededDice(4))
    assert again.details["maneuver"] == "all_out_attack_ranged"
    around = S.move(u.state, at(u.state, a), [(1, 1), (2, 2), (2, 3)], 3, [a, b], None, SeededDice(1))
    assert around.provokes == []


def test_badges_show_hp_fp_shock_and_what_injury_left():
    sheet = S.default_sheet()
    assert S.badges(sheet) == [{"label": "HP 11/11", "kind": "resource"}]
    hurt = {**sheet, "hp_current": 3, "fp_current": 8, "shock": 4,
            "conditions": ["prone", "stunned", "major wound", "dropped held items"], "crippled": ["right_arm"]}
    labels = [(x["label"], x["kind"]) for x in S.badges(hurt)]
    assert labels == [("HP 3/11", "wound"), ("FP 8/11", "resource"), ("shock -4", "resource"),
                      ("stunned", "condition"), ("prone", "condition"), ("major wound", "wound"),
                      ("reeling", "condition"), ("dropped items", "condition"), ("crippled right arm", "wound")]
    down = {**sheet, "hp_current": -2, "conditions": ["unconscious"]}
    assert [x["label"] for x in S.badges(down)] == ["HP -2/11", "unconscious", "below 0 HP"]
    assert {"label": "stunned (surprise)", "kind": "condition"} in S.badges(sheet, {"stunned": True})


def test_a_major_wound_from_an_attack_shows_on_the_token():
    """"Major Wounds are any injury that deals more than 1/2 your HP"."""
    a, b = two()
    # 5 hits; no defense; sw+1 = 2d+1 for ST 11 rolls 6+6+1 = 13 cut, DR 4: 9 x 1.5 = 13 injury
    options = {"defense": "none", "settings": {"torso_vitals_roll": False}}
    r = S.attack(AttackRequest(a, b, "Broadsword", 1, options=options), rolls(5, [6, 6], 10, 10))
    sheet = S.apply(b.sheet, r)
    labels = [x["label"] for x in S.badges(sheet)]
    assert "major wound" in labels and labels[0] == f"HP {sheet['hp_current']}/11"


def test_gm_only_fields_and_sheet_validation_name_the_field():
    assert set(S.gm_only_fields) == {"hp_current", "fp_current", "shock", "conditions", "crippled"}
    S.validate_sheet(S.default_sheet())
    bad = [({"ST": "strong"}, "ST: a whole number"), ({"DX": 0}, "DX: 1 or more"), ({"encumbrance": 5}, "encumbrance"),
           ({"basic_speed": "fast"}, "basic_speed"), ({"skills": {"Broadsword": "x"}}, "skills.Broadsword"),
           ({"weapons": {"Axe": {"damage": "lots"}}}, "weapons.Axe.damage"),
           ({"weapons": {"Axe": {"damage": "2d", "type": "zap"}}}, "weapons.Axe.type"),
           ({"shock": 9}, "shock: 8 or less")]
    for change, message in bad:
        with pytest.raises(RuleError, match=message):
            S.validate_sheet({**S.default_sheet(), **change})
    keys = [w["key"] for w in S.weapons(S.default_sheet())]
    assert keys == ["Broadsword", "Broadsword thrust", "Pistol", "Punch"]
