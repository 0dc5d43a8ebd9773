"""phase_tn: ranged attacks, called shots and wounds, with scripted dice."""

import pytest

from rules import phase_tn as pt
from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant, RuleError, RuleNotImplemented

NO_TRAUMA = {"trauma_check": False}


def shooter(**extra):
    s = pt.SYSTEM.default_sheet()  # Reflexes 5, handguns 3: +8 to the d10
    s["weapons"].append({"name": "SMG", "skill": "handguns", "damage": "2d6", "mode": "auto"})
    s["weapons"].append({"name": "Knife", "skill": "brawling", "damage": "d6", "melee": True})
    s.update(extra)
    return s


def request(weapon=None, state=None, **options):
    a = Combatant("a", "A", shooter(), state=state or {})
    b = Combatant("b", "B", pt.SYSTEM.default_sheet())
    return AttackRequest(a, b, weapon=weapon, options=options)


def labels(result):
    return {m.label: m.value for m in result.modifiers}


def test_targeted_shot_hits_rolls_location_damage_and_trauma():
    # to hit 5 + 8 = 13; location 1 = head; damage 3 + 4 = 7;
    # trauma check: d10 3 + Constitution 5 = 8 against 7 + 2 (head) = 9, failed
    result = pt.SYSTEM.attack(request(targeted=True), ScriptedDice([5, 1, 3, 4, 3]))
    assert result.hit and result.details["total"] == 13 and result.details["locations"] == ["head"]
    assert "wild shot" not in labels(result)
    kinds = [(e.kind, e.data.get("amount"), e.data.get("location")) for e in result.effects]
    assert kinds == [("flesh", 7, "head"), ("trauma", None, "head")]
    assert result.details["hits"][0]["trauma_check"] == {"tn": 9, "total": 8}
    sheet = pt.SYSTEM.apply(pt.SYSTEM.default_sheet(), result)
    assert sheet["flesh"] == 7 and sheet["trauma"] == {"head": 1}
    derived = pt.SYSTEM.derived(sheet)
    assert derived["roll_penalty"] == -2 and "unconscious" in derived["conditions"]


def test_trauma_check_passed_gives_flesh_wound_only():
    result = pt.SYSTEM.attack(request(targeted=True), ScriptedDice([5, 2, 1, 1, 1]))
    assert result.details["locations"] == ["chest"]
    assert [e.kind for e in result.effects] == ["flesh"]


def test_wild_shot_is_minus_two_and_can_miss_because_of_it():
    result = pt.SYSTEM.attack(request(targeted=False), ScriptedDice([1]))
    assert labels(result)["wild shot"] == -2
    assert not result.hit and result.details["total"] == 7
    assert pt.wild_shot_modifier(False) == -2 and pt.wild_shot_modifier(True) == 0


def test_targeting_comes_from_the_shooters_state():
    state = {"targeting": {"a": {"target": "b", "acquired_phase": 1}}}
    result = pt.SYSTEM.attack(request(state=state, tn=20), ScriptedDice([1]))
    assert "wild shot" not in labels(result) and result.details["targeted"]
    other = {"targeting": {"a": {"target": "c", "acquired_phase": 1}}}
    result = pt.SYSTEM.attack(request(state=other, tn=20), ScriptedDice([1]))
    assert labels(result)["wild shot"] == -2


def test_wild_shots_cannot_be_called_or_aimed():
    with pytest.raises(RuleError, match="wild shot"):
        pt.SYSTEM.attack(request(targeted=False, called="head"), ScriptedDice([9]))
    with pytest.raises(RuleError, match="wild shot"):
        pt.SYSTEM.attack(request(targeted=False, aim=1), ScriptedDice([9]))


def test_called_shot_full_success_hits_the_called_area():
    # head adds 4: called TN 12; 9 + 8 = 17
    result = pt.SYSTEM.attack(request(targeted=True, called="head"), ScriptedDice([9, 1, 1]), NO_TRAUMA)
    assert result.details["locations"] == ["head"] and result.details["drift"] == 0


def test_called_shot_partial_success_drifts_one_area_per_point():
    # 2 + 8 = 10: hits TN 8 but is 2 short of the called TN 12: head -> chest -> right arm
    result = pt.SYSTEM.attack(request(targeted=True, called="head"), ScriptedDice([2, 1, 1]), NO_TRAUMA)
    assert result.hit and result.details["drift"] == 2
    assert result.details["locations"] == ["right arm"] and "partial" in result.summary
    left = pt.SYSTEM.attack(
        request(targeted=True, called="head"), ScriptedDice([2, 1, 1]), {**NO_TRAUMA, "drift_first_arm": "left"}
    )
    assert left.details["locations"] == ["left arm"]


def test_impossible_locations_are_skipped_along_the_drift_order():
    # location 7 = right leg; both legs behind a wall: right leg -> left leg -> abdomen
    req = request(targeted=True, impossible_locations=["right leg", "left leg"])
    result = pt.SYSTEM.attack(req, ScriptedDice([5, 7, 2, 2]), NO_TRAUMA)
    assert result.details["locations"] == ["abdomen"]


def test_burst_hits_once_plus_per_margin_up_to_three():
    # 10 + 8 = 18, 10 over TN 8: 1 + 10 // 3 = 4, capped at 3 bullets
    faces = [10] + [2, 1, 1] * 3
    result = pt.SYSTEM.attack(request("SMG", targeted=True, mode="burst"), ScriptedDice(faces), NO_TRAUMA)
    assert len(result.details["locations"]) == 3
    # 2 + 8 = 10, 2 over: one hit
    result = pt.SYSTEM.attack(request("SMG", targeted=True, mode="burst"), ScriptedDice([2, 2, 1, 1]), NO_TRAUMA)
    assert len(result.details["locations"]) == 1
    more = pt.SYSTEM.attack(
        request("SMG", targeted=True, mode="burst"),
        ScriptedDice([2] + [2, 1, 1] * 3),
        {**NO_TRAUMA, "burst_margin_per_extra_hit": 1},
    )
    assert len(more.details["locations"]) == 3


def test_full_auto_bullets_cap_the_hits():
    # 10 over the TN would be 4 hits; only 2 bullets fired
    dice = ScriptedDice([10] + [2, 1, 1] * 4)
    result = pt.SYSTEM.attack(
        request("SMG", targeted=True, mode="full_auto"), dice, {**NO_TRAUMA, "full_auto_bullets": 2}
    )
    assert len(result.details["locations"]) == 2 and len(dice.remaining) == 6


def test_burst_needs_an_automatic_weapon_and_is_not_called():
    with pytest.raises(RuleError, match="automatic"):
        pt.SYSTEM.attack(request(targeted=True, mode="burst"), ScriptedDice([9]))
    with pytest.raises(RuleError):
        pt.SYSTEM.attack(request("SMG", targeted=True, mode="full_auto", called="head"), ScriptedDice([9]))


def test_melee_and_suppressive_fire_are_not_automated():
    with pytest.raises(RuleNotImplemented):
        pt.SYSTEM.attack(request("Knife", targeted=True), ScriptedDice([9]))
    with pytest.raises(RuleNotImplemented):
        pt.SYSTEM.attack(request("SMG", targeted=True, mode="suppressive"), ScriptedDice([9]))


def test_traumatic_wounds_penalise_the_shooter():
    req = request(targeted=True)
    req.attacker.sheet["trauma"] = {"chest": 1}
    result = pt.SYSTEM.attack(req, ScriptedDice([1]))
    assert labels(result)["traumatic wounds x1"] == -2 and result.details["total"] == 7
    result = pt.SYSTEM.attack(req, ScriptedDice([1, 1, 1, 1, 9]), {"trauma_roll_penalty": 0})
    assert result.details["total"] == 9


def test_ranged_tn_setting_and_option():
    assert not pt.SYSTEM.attack(request(targeted=True), ScriptedDice([1]), {"ranged_tn": 10}).hit
    assert not pt.SYSTEM.attack(request(targeted=True, tn=10), ScriptedDice([1])).hit


def test_odds_match_counting_the_d10():
    out = pt.SYSTEM.odds(request(targeted=True, tn=12))
    assert out["hit"] == pytest.approx(sum(1 for f in range(1, 11) if f + 8 >= 12) / 10)
    called = pt.SYSTEM.odds(request(targeted=True, called="head", tn=12))
    assert called["called_location"] == pytest.approx(0.3)
    assert called["partial"] == pytest.approx(0.4)
    wild = pt.SYSTEM.odds(request(targeted=False))
    assert wild["hit"] == pytest.approx(0.9)  # d10 + 8 - 2 >= 8


def test_hit_location_table_is_a_setting():
    loc, rec = pt.hit_location(ScriptedDice([1]))
    assert loc == "head" and rec.total == 1
    table = [[1, 6, "chest"], [7, 10, "head"]]
    assert pt.hit_location(ScriptedDice([1]), {"hit_location_table": table})[0] == "chest"
    with pytest.raises(RuleError):
        pt.hit_location(ScriptedDice([9]), {"hit_location_table": [[1, 1, "head"]]})


def test_stun_weapons_cause_no_flesh_wounds():
    req = request(targeted=True)
    req.attacker.sheet["weapons"][0]["stun"] = True
    result = pt.SYSTEM.attack(req, ScriptedDice([5, 2, 3, 3]))
    assert [(e.kind, e.data["amount"]) for e in result.effects] == [("flesh", 0)]


def test_flesh_capacity_puts_a_character_down():
    s = pt.SYSTEM.default_sheet()
    s["flesh"] = 15
    assert pt.SYSTEM.derived(s)["conditions"][0].startswith("down")
    assert pt.SYSTEM.derived(s, {"flesh_per_constitution": 4})["conditions"] == []
