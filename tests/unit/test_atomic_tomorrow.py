"""Atomic Tomorrow Adventures: every rule of the document, with scripted dice."""

from __future__ import annotations

from collections import Counter
from types import SimpleNamespace

import pytest

from rules import atomic_tomorrow as at
from rules.dice import DiceExhausted, ScriptedDice
from rules.atomic_tomorrow.sheet import normalise_weapon
from rules.system import AttackRequest, Combatant, CoverEffect, RuleError, RuleSystem

SYSTEM = at.SYSTEM


def sheet(**over):
    s = SYSTEM.default_sheet()
    s.update(over)
    return s


def hero(**over):
    return Combatant("h", "Hero", sheet(**over))


def foe(**over):
    return Combatant("f", "Foe", sheet(**over))


def request(attacker=None, target=None, weapon="Blast pistol", distance=1, cover=None, **options):
    return AttackRequest(
        attacker=attacker or hero(),
        target=target or foe(),
        weapon=weapon,
        distance=distance,
        cover=cover,
        options=options,
    )


# ---------------------------------------------------------------- the system object


def test_system_is_a_zone_rule_system():
    assert isinstance(SYSTEM, RuleSystem)
    assert SYSTEM.id == "atomic_tomorrow"
    assert SYSTEM.board == "zones"
    assert SYSTEM.sheet_template == "sheets/_atomic_tomorrow.html"
    assert SYSTEM.help_template == "help/atomic_tomorrow.html"


def test_default_sheet_is_valid_and_complete():
    s = SYSTEM.default_sheet()
    assert at.validate_sheet(s)["weapons"][0]["name"] == "Blast pistol"
    assert set(at.ATTRIBUTES) <= set(s)
    assert set(SYSTEM.default_settings()) == set(at.DEFAULT_SETTINGS)


@pytest.mark.parametrize(
    "bad",
    [
        {"grit": "x"},
        {"wounds": 6},
        {"armour": "plate"},
        {"weapons": [{"name": "Big gun", "skill": "ranged", "wound_rating": 5, "ranges": ["far"]}]},
        {"weapons": [{"name": "Gun", "skill": "ranged", "wound_rating": 2}]},
        {"weapons": [{"name": "Gun", "skill": "ranged", "wound_rating": 2, "ranges": ["orbit"]}]},
    ],
)
def test_validate_sheet_refuses_bad_values(bad):
    with pytest.raises(RuleError):
        at.validate_sheet(sheet(**bad))


def test_derived_character_sheet_reference_values():
    d = SYSTEM.derived(sheet(grit=12, reflex=13, nerve=11, melee=40, unarmed=30, shield=True))
    assert d["soak"] == 60 and d["initiative"] == 65 and d["last_stand"] == 55
    assert d["incapacitated_check"] == 12
    assert d["dodge"] == 13 * 2 + 10
    assert d["parry"] == 40  # the melee skill, since the sheet carries a melee weapon
    assert d["block"] == 60
    assert d["wound_state"] == "fighting"


def test_parry_falls_back_to_unarmed_without_melee_weapon():
    s = sheet(melee=60, unarmed=25, weapons=[])
    assert at.parry_skill(s) == 25
    assert at.parry_skill({**s, "parry": 50}) == 50


def test_settings_are_checked():
    with pytest.raises(RuleError):
        at.settings_with_defaults({"nonsense": 1})
    with pytest.raises(RuleError):
        at.settings_with_defaults({"modifier_rule": "sum"})
    with pytest.raises(RuleError):
        at.settings_with_defaults({"cover_thresholds": [0.5, 0.25, 0.75]})
    assert at.settings_with_defaults({"cover_thresholds": [0.1, 0.2, 0.3]})["cover_thresholds"] == [0.1, 0.2, 0.3]


# ---------------------------------------------------------------- success and failure types


@pytest.mark.parametrize(
    "roll, skill, quality",
    [
        (37, 50, "ordinary"),
        (50, 50, "special"),  # equal to the skill succeeds
        (35, 50, "special"),
        (11, 50, "critical"),
        (44, 50, "critical"),
        (51, 50, "failure"),
        (60, 50, "special_failure"),
        (66, 50, "critical_failure"),
        (55, 50, "critical_failure"),
        (55, 60, "critical"),  # doubles and ending in 5: critical
        (3, 0, "ordinary"),  # automatic success
        (5, 0, "special"),  # automatic success, ends in 5
        (96, 150, "failure"),  # automatic failure
        (95, 150, "special"),
        (99, 150, "critical_failure"),
        (100, 150, "critical_failure"),  # 00: doubles, always fails
    ],
)
def test_success_quality(roll, skill, quality):
    assert at.success_quality(roll, skill) == quality


@pytest.mark.parametrize("roll", [0, 101, -5, 1.5, True])
def test_rolls_outside_d100_are_refused(roll):
    with pytest.raises(RuleError):
        at.success_quality(roll, 50)


def test_tens_digit_and_doubles_of_00():
    assert at.tens_digit(100) == 0 and at.is_doubles(100)
    assert at.tens_digit(7) == 0 and not at.is_doubles(7)
    assert [r for r in range(1, 101) if at.is_doubles(r)] == [11, 22, 33, 44, 55, 66, 77, 88, 99, 100]


# ---------------------------------------------------------------- opposed resolution


def test_failed_defense_loses():
    assert at.opposed_winner(40, 50, 70, 50) == "attacker"


def test_better_quality_wins():
    assert at.opposed_winner(22, 50, 45, 50) == "attacker"  # critical beats special
    assert at.opposed_winner(37, 50, 30, 50) == "defender"  # special beats ordinary


def test_same_quality_highest_roll_wins():
    assert at.opposed_winner(38, 50, 27, 50) == "attacker"
    assert at.opposed_winner(27, 50, 38, 50) == "defender"


def test_tie_goes_to_defender():
    assert at.opposed_winner(37, 50, 37, 60) == "defender"


def test_failed_attack_has_no_effect():
    assert at.opposed_winner(80, 50, 99, 50) == "defender"


# ---------------------------------------------------------------- wounds


@pytest.mark.parametrize("roll, bonus", [(22, 1), (55, 2), (88, 4), (11, 0), (37, 0)])
def test_critical_bonus_examples(roll, bonus):
    # WOUND DETERMINATION example: rolling 22 adds 1, 55 adds 2, 88 adds 4
    assert at.critical_bonus(roll) == bonus


def test_critical_examples_added_to_wound_rating():
    assert at.attack_wounds(2, 22, 90) == 3
    assert at.attack_wounds(2, 88, 90) == 6
    # 55 is a critical special success: both bonuses stack (2 + 1) ...
    assert at.attack_wounds(2, 55, 90) == 5
    # ... unless the GM reads the example as the whole bonus
    assert at.attack_wounds(2, 55, 90, critical_special_stacks=False) == 4


def test_special_adds_one_ordinary_adds_none_failure_deals_none():
    assert at.attack_wounds(2, 35, 50) == 3
    assert at.attack_wounds(2, 37, 50) == 2
    assert at.attack_wounds(4, 51, 50) == 0
    assert at.attack_wounds(4, 99, 200) == 0


@pytest.mark.parametrize("cover, wounds", [("none", 3), ("partial", 2), ("good", 1), ("excellent", 0)])
def test_cover_reduces_wound_rating(cover, wounds):
    assert at.attack_wounds(3, 37, 50, cover) == wounds


def test_cover_applies_before_the_quality_bonus():
    # Wound Rating 1 behind excellent cover is 0, then +1 for the special
    assert at.attack_wounds(1, 35, 50, "excellent") == 1
    assert at.attack_wounds(1, 88, 90, "excellent") == 4


def test_bad_wound_rating_or_cover_is_refused():
    with pytest.raises(RuleError):
        at.attack_wounds(5, 37, 50)
    with pytest.raises(RuleError):
        at.attack_wounds(2, 37, 50, "total")


@pytest.mark.parametrize(
    "armour, ap, cut", [("none", 0, 0), ("light", 0, 1), ("medium", 0, 2), ("heavy", 0, 3), ("heavy", 1, 2), ("light", 3, 0)]
)
def test_armour_reduction(armour, ap, cut):
    assert at.armour_reduction(armour, ap) == cut


@pytest.mark.parametrize("roll, cut", [(11, 3), (35, 2), (37, 1), (60, 2), (61, 0), (65, 0), (66, 0), (3, 1), (96, 0)])
def test_soak_against_grit_times_five(roll, cut):
    assert at.soak_reduction(roll, 12) == cut  # GRIT 12: soak 60%


@pytest.mark.parametrize("wounds, state", [(0, "fighting"), (3, "fighting"), (4, "incapacitated"), (5, "dying")])
def test_wound_state(wounds, state):
    assert at.wound_state(wounds) == state


def test_wound_state_out_of_range():
    with pytest.raises(RuleError):
        at.wound_state(6)
    with pytest.raises(RuleError):
        at.wound_state(-1)


def test_incapacitated_check():
    assert at.incapacitated_check(11, 12)["penalty"] == 0  # critical: no penalty
    ok = at.incapacitated_check(7, 12)
    assert ok["may_act"] and ok["penalty"] == -20
    assert not at.incapacitated_check(13, 12)["may_act"]


def test_last_stand_outcomes():
    crit = at.last_stand_outcome(44, 11)  # NERVE 11: 55%
    assert crit["may_act"] and crit["penalty"] == 0 and crit["stabilise_at"] == 4
    special = at.last_stand_outcome(35, 11)
    assert special["may_act"] and special["conscious_rounds"] == 3 and special["stabilise_at"] is None
    assert at.last_stand_outcome(5, 11)["conscious_rounds"] == 10  # tens die 0 reads 10
    plain = at.last_stand_outcome(37, 11)
    assert plain["may_act"] and plain["conscious_rounds"] == 0 and plain["penalty"] == -20
    assert not at.last_stand_outcome(56, 11)["may_act"]


# ---------------------------------------------------------------- initiative and actions


def test_initiative_order_successes_then_failures_highest_first():
    entries = [
        ("low-success", 10, 50, 10),
        ("fail-high", 90, 50, 10),
        ("high-success", 45, 50, 10),
        ("fail-low", 60, 50, 10),
    ]
    assert at.initiative_order(entries) == ["high-success", "low-success", "fail-high", "fail-low"]


def test_initiative_ties_go_to_higher_reflex():
    assert at.initiative_order([("a", 30, 50, 10), ("b", 30, 60, 14)]) == ["b", "a"]
    assert at.initiative_order([("a", 70, 50, 10), ("b", 70, 60, 14)]) == ["b", "a"]


def test_initiative_rolls_against_reflex_times_five():
    a = Combatant("a", "Ace", sheet(reflex=10))  # 50%
    b = Combatant("b", "Bo", sheet(reflex=14))  # 70%
    rows = SYSTEM.initiative([a, b], ScriptedDice([60, 65]))
    assert [r["id"] for r in rows] == ["b", "a"]  # 65 succeeds for Bo, 60 fails for Ace
    assert rows[0]["success"] and not rows[1]["success"]
    assert rows[0]["roll"]["purpose"].startswith("initiative")


def test_action_economy_spend_and_reset():
    r = at.new_round()
    r = at.spend_action(r, "significant")
    r = at.spend_action(r, "move")
    r = at.spend_action(r, "quick")
    for action in at.ACTIONS:
        with pytest.raises(RuleError, match="already spent"):
            at.spend_action(r, action)
    assert at.reset_round(r) == at.new_round()
    with pytest.raises(RuleError):
        at.spend_action(at.new_round(), "bonus")


def test_spend_action_does_not_change_its_input():
    r = at.new_round()
    at.spend_action(r, "move")
    assert r == at.new_round()


def test_move_reaches_same_or_adjacent_zone():
    at.check_move(0)
    at.check_move(1)
    with pytest.raises(RuleError):
        at.check_move(2)
    assert SYSTEM.move_allowance(sheet()) == 1


# ---------------------------------------------------------------- range


@pytest.mark.parametrize(
    "distance, engaged, band", [(0, True, "engaged"), (0, False, "near"), (1, False, "far"), (2, False, "distant"), (7, False, "distant")]
)
def test_zone_range(distance, engaged, band):
    assert at.zone_range(distance, engaged) == band


def test_engaged_needs_the_same_zone():
    with pytest.raises(RuleError):
        at.zone_range(1, engaged=True)


def test_range_between_uses_the_zone_map():
    zone_map = SimpleNamespace(zone_distance=lambda a, b: {"bar": 0, "street": 1, "roof": 3}[b])
    assert at.range_between(zone_map, "bar", "bar", engaged=True) == "engaged"
    assert at.range_between(zone_map, "bar", "street") == "far"
    assert at.range_between(zone_map, "bar", "roof") == "distant"


def test_weapon_out_of_range_is_refused_with_reason():
    with pytest.raises(RuleError, match="Blast pistol reaches Near, Far; the target is at Distant"):
        SYSTEM.attack(request(distance=2), ScriptedDice([1]))
    with pytest.raises(RuleError, match="Engaged"):  # the GM says the two are not engaged
        SYSTEM.attack(request(weapon="Vibro-knife", distance=0, engaged=False), ScriptedDice([1]))


def test_range_band_method():
    pistol = {"name": "p", "skill": "ranged", "ranges": ["near", "far"]}
    assert SYSTEM.range_band(1, pistol) == "far"
    assert SYSTEM.range_band(3, pistol) is None


# ---------------------------------------------------------------- cover levels


@pytest.mark.parametrize(
    "fraction, level", [(0.0, "none"), (0.2, "none"), (0.25, "partial"), (0.6, "good"), (0.8, "excellent"), (1.0, "total")]
)
def test_cover_from_grid_fraction(fraction, level):
    assert at.cover_level_from_fraction(fraction) == level
    assert SYSTEM.cover_effect(SimpleNamespace(fraction=fraction, blockers=[])).level == level


def test_cover_effect_modifier():
    assert SYSTEM.cover_effect("good") == CoverEffect("good", -2, "good cover")


def test_cover_from_zone_tags():
    assert at.cover_from_tags({"cover": "good"}) == "good"
    assert at.cover_from_tags(["lit", "cover:partial"]) == "partial"
    assert at.cover_from_tags(["excellent cover"]) == "excellent"
    assert at.cover_from_tags(None) == "none"


# ---------------------------------------------------------------- situational modifiers


def test_only_the_single_largest_modifier_applies():
    assert at.situational_modifier([20, 40])[0] == 40
    assert at.situational_modifier([-20, -60, 20])[0] == -60
    assert at.situational_modifier([40, -20])[0] == 40


def test_equal_bonus_and_penalty_cancel():
    total, chosen = at.situational_modifier([20, -20])
    assert total == 0 and chosen == []


def test_largest_each_reading():
    assert at.situational_modifier([40, 20, -20, -60], rule="largest_each")[0] == -20


@pytest.mark.parametrize("bad", [10, 60, -100, "20", 2.0])
def test_modifiers_must_be_steps_of_20(bad):
    with pytest.raises(RuleError):
        at.situational_modifier([bad])


def test_labelled_modifiers_keep_their_label():
    _, chosen = at.situational_modifier([{"label": "aiming", "value": 20}, {"label": "smoke", "value": -40}])
    assert chosen[0].label == "smoke"


# ---------------------------------------------------------------- defenses


def test_parry_only_against_melee():
    with pytest.raises(RuleError, match="Parry"):
        at.defense_skill(sheet(), "parry", "ranged")


def test_block_needs_a_shield():
    with pytest.raises(RuleError, match="shield"):
        at.defense_skill(sheet(shield=False), "block", "melee")


def test_block_adds_twenty_and_only_once_against_melee():
    s = sheet(shield=True, melee=40)
    skill, mods, rnd = at.defense_skill(s, "block", "melee")
    assert skill == 60
    with pytest.raises(RuleError, match="one melee attack"):
        at.defense_skill(s, "block", "melee", rnd)
    # missiles: as many as needed (each later one at the cumulative penalty)
    skill2, _, rnd2 = at.defense_skill(s, "block", "ranged", rnd)
    skill3, _, _ = at.defense_skill(s, "block", "ranged", rnd2)
    assert (skill2, skill3) == (40, 20)


def test_dodge_is_minus_twenty_against_melee():
    s = sheet(reflex=13)
    assert at.defense_skill(s, "dodge", "melee")[0] == 16
    assert at.defense_skill(s, "dodge", "ranged")[0] == 36


def test_each_further_defense_is_cumulative_minus_twenty():
    s = sheet(reflex=15)  # dodge 40
    rnd = None
    skills = []
    for _ in range(3):
        skill, _, rnd = at.defense_skill(s, "dodge", "ranged", rnd)
        skills.append(skill)
    assert skills == [40, 20, 0]


def test_two_fisted_allows_one_more_parry_without_penalty():
    s = sheet(melee=50, epithets=["Two-Fisted"])
    rnd = None
    skills = []
    for _ in range(3):
        skill, _, rnd = at.defense_skill(s, "parry", "melee", rnd)
        skills.append(skill)
    assert skills == [50, 50, 30]
    # without the epithet
    rnd = None
    plain = []
    for _ in range(3):
        skill, _, rnd = at.defense_skill(sheet(melee=50), "parry", "melee", rnd)
        plain.append(skill)
    assert plain == [50, 30, 10]


def test_two_fisted_does_not_help_dodge():
    s = sheet(reflex=15, epithets=["Two-Fisted"])
    _, _, rnd = at.defense_skill(s, "dodge", "ranged")
    assert at.defense_skill(s, "dodge", "ranged", rnd)[0] == 20


# ---------------------------------------------------------------- whole attacks with scripted dice


def test_ranged_attack_hits_through_armour_and_soak():
    # Ranged 46 rolls 37 (ordinary): WR 2, light armour -1, soak roll 80 fails against 60
    dice = ScriptedDice([37, 80])
    result = SYSTEM.attack(request(), dice)
    assert result.hit
    assert result.details["wounds_dealt"] == 2 and result.details["armour"] == 1 and result.details["soak"] == 0
    assert result.details["wounds_taken"] == 1
    wounds = [e for e in result.effects if e.kind == "wounds"]
    assert wounds[0].target == "f" and wounds[0].data["wounds"] == 1
    assert [r.total for r in result.rolls] == [37, 80]
    assert all(r.expr == "d100" for r in result.rolls)
    assert dice.remaining == []
    rounds = [e for e in result.effects if e.kind == "round"]
    assert rounds[0].target == "h" and rounds[0].data["round"]["significant"]


def test_failed_attack_rolls_nothing_more():
    dice = ScriptedDice([47])
    result = SYSTEM.attack(request(defense="dodge"), dice)
    assert not result.hit and "no effect" in result.summary


def test_soak_can_cancel_the_wound():
    result = SYSTEM.attack(request(), ScriptedDice([37, 22]))  # soak critical: -3
    assert result.hit and result.details["wounds_taken"] == 0


def test_no_soak_roll_when_armour_stops_everything():
    t = foe(armour="heavy")
    dice = ScriptedDice([37])
    result = SYSTEM.attack(request(target=t), dice)
    assert result.details["wounds_taken"] == 0 and "soak_roll" not in result.details


def test_critical_ignores_armour_by_default():
    t = foe(armour="heavy")
    result = SYSTEM.attack(request(target=t), ScriptedDice([22, 99]))
    assert result.details["armour"] == 0 and result.details["wounds_taken"] == 3
    off = SYSTEM.attack(
        request(target=t, settings={"critical_ignores_armour": False}), ScriptedDice([22, 99])
    )
    assert off.details["armour"] == 3 and off.details["wounds_taken"] == 0


def test_armour_piercing_weapon():
    a = hero(weapons=[{"name": "AM rifle", "skill": "ranged", "wound_rating": 4, "armour_piercing": 2,
                       "ranges": ["far", "distant"]}])
    result = SYSTEM.attack(request(attacker=a, target=foe(armour="heavy"), weapon="AM rifle"), ScriptedDice([37, 99]))
    assert result.details["armour"] == 1 and result.details["wounds_taken"] == 3


def test_dodge_wins_the_opposed_roll():
    # attack 37 ordinary vs dodge (REFLEX 13: 36%) 38? fails; 34 ordinary but lower: attacker wins
    lose = SYSTEM.attack(request(defense="dodge"), ScriptedDice([37, 34, 99]))
    assert lose.hit and lose.details["winner"] == "attacker"
    win = SYSTEM.attack(request(defense="dodge"), ScriptedDice([37, 30]))  # special beats ordinary
    assert not win.hit and win.details["winner"] == "defender"
    assert any(e.kind == "round" and e.target == "f" and e.data["round"]["defenses"] == 1 for e in win.effects)


def test_defense_count_comes_from_the_target_round_state():
    t = foe()
    t.state["round"] = {**at.new_round(), "defenses": 1}
    result = SYSTEM.attack(request(target=t, defense="dodge"), ScriptedDice([37, 30, 99]))
    assert result.details["defense_skill"] == 36 - 20
    assert result.hit  # 30 fails against 16


def test_situational_modifier_changes_the_attack_skill():
    # Ranged 46; 55 fails, with +20 (66) it is a critical
    assert not SYSTEM.attack(request(), ScriptedDice([55])).hit
    aimed = SYSTEM.attack(request(modifiers=[{"label": "aim", "value": 20}]), ScriptedDice([55, 99]))
    assert aimed.hit and aimed.details["attack_quality"] == "critical"
    assert aimed.details["wounds_dealt"] == 2 + 2 + 1


def test_cover_in_an_attack():
    result = SYSTEM.attack(request(cover="good"), ScriptedDice([37]))
    assert result.details["wounds_dealt"] == 0 and result.details["cover"] == "good"
    grid = SYSTEM.attack(request(cover=SimpleNamespace(fraction=0.3, blockers=["crate"])), ScriptedDice([37]))
    assert grid.details["cover"] == "partial"
    with pytest.raises(RuleError, match="no line of fire"):
        SYSTEM.attack(request(cover=SimpleNamespace(fraction=1.0, blockers=["wall"])), ScriptedDice([37]))


def test_melee_engaged_and_parry():
    result = SYSTEM.attack(
        request(weapon="Vibro-knife", distance=0, engaged=True, defense="parry"), ScriptedDice([20, 25])
    )
    assert not result.hit  # special 25 beats special 20 on the higher roll
    with pytest.raises(RuleError, match="Parry"):
        SYSTEM.attack(request(defense="parry"), ScriptedDice([20, 25]))


def test_unarmed_attack():
    result = SYSTEM.attack(request(weapon=None, distance=0, engaged=True), ScriptedDice([33, 99]))
    assert result.details["weapon"] == "Unarmed" and result.details["wounds_dealt"] == 1 + 1


def test_significant_action_already_spent():
    a = hero()
    a.state["round"] = at.spend_action(at.new_round(), "significant")
    with pytest.raises(RuleError, match="significant"):
        SYSTEM.attack(request(attacker=a), ScriptedDice([37]))


def test_incapacitated_attacker_rolls_grit_first():
    fail = SYSTEM.attack(request(attacker=hero(wounds=4, grit=12)), ScriptedDice([50]))
    assert not fail.hit and "GRIT" in fail.summary and len(fail.rolls) == 1
    # 7 succeeds (ordinary): the attack is at -20, so 37 against 26 fails
    weak = SYSTEM.attack(request(attacker=hero(wounds=4, grit=12)), ScriptedDice([7, 37]))
    assert not weak.hit and weak.details["attack_skill"] == 26
    # 11 is a critical: no penalty
    strong = SYSTEM.attack(request(attacker=hero(wounds=4, grit=12)), ScriptedDice([11, 37, 99]))
    assert strong.hit and strong.details["attack_skill"] == 46


def test_dying_attacker_needs_a_last_stand():
    dying = hero(wounds=5)
    with pytest.raises(RuleError, match="Last Stand"):
        SYSTEM.attack(request(attacker=dying), ScriptedDice([37]))
    check = SYSTEM.act_check(dying, ScriptedDice([44]))  # NERVE 11 -> 55%: 44 critical
    assert check["may_act"] and check["stabilise_at"] == 4
    dying.state["last_stand"] = check
    result = SYSTEM.attack(request(attacker=dying), ScriptedDice([37, 99]))
    assert result.hit
    used = [e for e in result.effects if e.kind == "last_stand"]
    assert used and used[0].data["last_stand"]["used"]
    assert SYSTEM.apply_last_stand(dying.sheet, check)["wounds"] == 4
    dying.state["last_stand"] = used[0].data["last_stand"]
    with pytest.raises(RuleError):
        SYSTEM.attack(request(attacker=dying), ScriptedDice([37]))


def test_act_check_of_an_incapacitated_character():
    out = SYSTEM.act_check(hero(wounds=4, grit=12), ScriptedDice([12]))
    assert out["check"] == "incapacitated" and out["may_act"]
    assert SYSTEM.act_check(hero(), ScriptedDice([]))["may_act"]


def test_apply_adds_wounds_up_to_five():
    result = SYSTEM.attack(request(attacker=hero(ranged=90), target=foe(wounds=4, armour="none")), ScriptedDice([88, 99]))
    assert result.details["wounds_taken"] == 6
    assert result.details["wounds_after"] == 5 and result.details["wound_state"] == "dying"
    assert SYSTEM.apply(sheet(wounds=4), result)["wounds"] == 5


def test_area_weapon_rolls_once_for_the_zone():
    a = hero(weapons=[{"name": "Grenade launcher", "skill": "ranged", "wound_rating": 3, "ranges": ["far"], "area": True}])
    targets = [Combatant("f1", "Foe 1", sheet(armour="none")), Combatant("f2", "Foe 2", sheet(armour="none"))]
    dice = ScriptedDice([37, 99, 30])  # attack, soak f1, dodge f2 (special beats ordinary)
    results = SYSTEM.attack_zone(request(attacker=a, weapon="Grenade launcher"), targets, dice, {"f2": "dodge"})
    assert [r.hit for r in results] == [True, False]
    assert results[1].details["attack_roll"] == 37 and results[1].details["shared_attack_roll"]
    assert dice.remaining == []
    with pytest.raises(RuleError, match="area"):
        SYSTEM.attack_zone(request(), targets, ScriptedDice([37]))


def test_scripted_dice_run_out_loudly():
    with pytest.raises(DiceExhausted):
        SYSTEM.attack(request(), ScriptedDice([37]))


# ---------------------------------------------------------------- odds


def test_odds_sum_to_one_and_match_the_quality_table():
    o = SYSTEM.odds(request())
    assert sum(o["wounds"].values()) == pytest.approx(1)
    assert sum(o["outcome_detail"].values()) == pytest.approx(1)
    success = sum(1 for r in range(1, 101) if at.is_success(r, 46)) / 100
    assert o["p_hit"] == pytest.approx(success)
    assert o["attack_quality"]["critical"] == pytest.approx(0.04)  # 11, 22, 33, 44


def test_odds_agree_with_every_scripted_attack_without_defense():
    req = request(target=foe(armour="light", grit=12))
    counts: Counter = Counter()
    for a in range(1, 101):
        for s in range(1, 101):
            counts[SYSTEM.attack(req, ScriptedDice([a, s])).details.get("wounds_taken", 0)] += 1
    o = SYSTEM.odds(req)
    assert {w: n / 10000 for w, n in counts.items()} == pytest.approx(o["wounds"])


def test_odds_agree_with_every_scripted_attack_with_defense():
    req = request(target=foe(armour="none"), defense="dodge")
    counts: Counter = Counter()
    hits: Counter = Counter()
    for a in range(1, 101):
        for d in range(1, 101):
            r = SYSTEM.attack(req, ScriptedDice([a, d, 100]))  # soak 00 always fails
            counts[r.details.get("wounds_taken", 0)] += 1
            hits[r.hit] += 1
    o = SYSTEM.odds(req)
    assert {w: n / 10000 for w, n in counts.items()} == pytest.approx(o["wounds_before_soak"])
    assert hits[True] / 10000 == pytest.approx(o["p_hit"])


def test_odds_of_an_incapacitated_attacker_include_the_grit_check():
    o = SYSTEM.odds(request(attacker=hero(wounds=4, grit=12)))
    assert o["p_act"] == pytest.approx(0.12)
    assert o["outcome_detail"]["cannot_act"] == pytest.approx(0.88)
    assert sum(o["wounds"].values()) == pytest.approx(1)


def test_odds_refuse_what_the_attack_refuses():
    with pytest.raises(RuleError):
        SYSTEM.odds(request(distance=2))


def test_cover_from_a_line_of_fire_cover_record():
    los = pytest.importorskip("rules.los")
    result = SYSTEM.attack(request(cover=los.Cover(0.5, ["crate-1"]), range="near"), ScriptedDice([37]))
    assert result.details["cover"] == "good" and result.details["range"] == "near"
    assert result.details["wounds_dealt"] == 0


@pytest.mark.parametrize("value, reason", [(4, "0 to 3, not 4"), (-1, "0 to 3, not -1"),
                                           (True, "a whole number, not True"), ("2", "a whole number, not '2'")])
def test_a_weapons_armour_piercing_is_refused_in_words_outside_0_to_3(value, reason):
    weapon = {"name": "Ray", "skill": "ranged", "ranges": ["near"], "armour_piercing": value}
    with pytest.raises(RuleError) as refused:
        normalise_weapon(weapon)
    assert str(refused.value) == f"Ray: armour piercing is {reason}"


def test_a_weapons_armour_piercing_from_0_to_3_is_kept():
    for value in range(4):
        assert normalise_weapon({"name": "Ray", "skill": "ranged", "ranges": ["near"],
                                 "armour_piercing": value})["armour_piercing"] == value
