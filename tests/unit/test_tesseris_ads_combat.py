"""Tesseris (ADS): attacks, defenses, damage, jams, cover damage, scripted dice."""

from types import SimpleNamespace

import pytest
from hypothesis import given, settings, strategies as st

from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant, RuleError, RuleNotImplemented
from rules.tesseris_ads import SYSTEM
from rules.tesseris_ads.health import apply_result


def sheet(**over):
    base = {
        "strength": 3, "agility": 3, "perception": 3, "intelligence": 1, "willpower": 3, "charisma": 2, "speed": 3,
        "melee": 2, "rifles": 2, "pistols": 1, "athletics": 1, "acrobatics": 1, "resolve": 1, "awareness": 1,
        "stealth": 1, "scrutiny": 1, "wounds": 0, "ego": 10, "mayhem": 0, "fate_points": 1,
        "armour": {"name": "Coat", "ap": 2, "bulk": 0}, "cloak": {"name": "", "ap": 0, "bulk": 0},
        "weapons": {
            "rifle": {"name": "Assault rifle", "kind": "ranged", "skill": "rifles", "damage": 6, "range": 30, "ap": 1, "rof": [1, 3, 8], "jams": True},
            "sword": {"name": "Sword", "kind": "melee", "skill": "melee", "damage": 4, "ap": 0},
            "club": {"name": "Club", "kind": "melee", "skill": "melee", "damage": 3, "impact": True},
        },
        "statuses": [], "feats": [], "talents": [],
    }
    base.update(over)
    return base


def fighter(id_, pos, side, state=None, **over):
    return Combatant(id_, id_.title(), sheet(**over), pos, side, side == "pc", dict(state or {}))


def req(att, tgt, weapon, others=(), **options):
    options.setdefault("into_melee", False)
    return AttackRequest(att, tgt, weapon, options=options, others=list(others))


def test_jim_burst_worked_example_end_to_end():
    # Jim: Perception 4, Rifles 3; 4dT [6,6,6,1] = 3 successes; 3 + 3 - 1 (burst) = 5... make it 6:
    jim = fighter("jim", (0, 0), "pc", perception=5, rifles=3)
    foe = fighter("foe", (10, 0), "npc")
    # attack: 5dT -> [6,6,6,6,1] = 4; 4 + 3 - 1 = 6. Dodge: 3dT [6,7,1] = 2 + Acrobatics 1 = 3
    dice = ScriptedDice([6, 6, 6, 6, 1, 6, 7, 1])
    r = SYSTEM.attack(req(jim, foe, "rifle", action="burst_fire", defense="dodge"), dice)
    assert r.details["attack_total"] == 6
    assert r.details["bullet_totals"] == [6, 4, 2]
    assert r.details["defense_total"] == 3
    assert r.hit and r.details["hits"] == 2
    assert [h["net"] for h in r.details["hit_reports"]] == [3, 1]
    # damage 6 + net, armour 2 less AP 1 -> soak 1: 8 and 6
    assert [h["after_soak"] for h in r.details["hit_reports"]] == [8, 6]
    assert any(m.label == "Burst Fire" and m.value == -1 for m in r.modifiers)
    after = apply_result(foe.sheet, r)
    assert after["stamina"] == 19 - 14
    assert after["wounds"] == 2  # one per hit of 5+ Stamina
    assert after["ego"] == 8
    assert dice.remaining == []


def test_defense_reduces_net_and_ties_go_to_defender():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    # attack 3dT [6,6,1] = 2 + Melee 2 = 4; parry 3dT [6,6,1] = 2 + Melee 2 = 4 -> tie: miss
    r = SYSTEM.attack(req(a, t, "sword", defense="parry"), ScriptedDice([6, 6, 1, 6, 6, 1]))
    assert not r.hit and r.details["nets"] == [0]
    # attack [6,6,6] = 3 + 2 = 5 vs 4 -> net 1: damage 4 + Strength 3 + 1 - armour 2 = 6
    r = SYSTEM.attack(req(a, t, "sword", defense="parry"), ScriptedDice([6, 6, 6, 6, 6, 1]))
    assert r.hit and r.details["hit_reports"][0]["damage"] == 8
    assert r.details["hit_reports"][0]["after_soak"] == 6


def test_impact_weapon_halves_net_successes():
    a = fighter("a", (0, 0), "pc", melee=2)
    t = fighter("t", (1, 0), "npc")
    # 3 + 2 = 5 vs no defense 0 -> net 5 -> 2 from impact; club 3 + Strength 3 + 2 = 8
    r = SYSTEM.attack(req(a, t, "club", defense="none"), ScriptedDice([6, 6, 6]))
    assert r.details["hit_reports"][0]["damage"] == 8


def test_duck_rerolls_duds_up_to_intelligence_and_bulk_subtracts():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc", agility=2, perception=2, intelligence=1, armour={"name": "Plate", "ap": 5, "bulk": -1})
    # attack 3dT [1,1,1] = 0 + 2; duck 4dT [1,2,6,7] = 2 successes, 2 duds, 1 re-roll [9 -> 3] = 1
    dice = ScriptedDice([1, 1, 1, 1, 2, 6, 7, 9, 3])
    r = SYSTEM.attack(req(a, t, "sword", defense="duck"), dice)
    assert r.details["defense_total"] == 3 - 1
    assert len(r.rolls) == 3 and r.rolls[2].purpose.endswith("re-roll 1 dud")
    assert dice.remaining == []


def test_bulk_reading_setting_for_block():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc", armour={"name": "Plate", "ap": 5, "bulk": -2})
    faces = [1, 1, 1, 6, 6, 1]
    r = SYSTEM.attack(req(a, t, "sword", defense="block"), ScriptedDice(faces))
    assert r.details["defense_total"] == 2 + 1 - 2
    r = SYSTEM.attack(req(a, t, "sword", defense="block", settings={"bulk_applies_to": "duck_dodge"}), ScriptedDice(faces))
    assert r.details["defense_total"] == 2 + 1


def test_parry_only_against_melee():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (5, 0), "npc")
    with pytest.raises(RuleError):
        SYSTEM.attack(req(a, t, "rifle", defense="parry"), ScriptedDice([6] * 10))


def test_best_defense_is_chosen_when_none_is_given():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc", melee=6)
    plan_odds = SYSTEM.odds(req(a, t, "sword"))
    assert plan_odds["defense_kind"] == "parry"


def test_jams_on_an_even_miss_and_quick_recover():
    a = fighter("a", (0, 0), "pc", rifles=0)
    t = fighter("t", (10, 0), "npc")
    # attack [1,1,6] = 1 + 0 = 1: odd miss: no jam
    r = SYSTEM.attack(req(a, t, "rifle", defense="dodge"), ScriptedDice([1, 1, 6, 6, 6, 1]))
    assert not r.hit and "jam" not in r.details
    # attack [1,1,1] = 0: even miss: jam; quick-recover d10 shows 3: stays jammed
    r = SYSTEM.attack(req(a, t, "rifle", defense="dodge"), ScriptedDice([1, 1, 1, 6, 6, 1, 3]))
    assert r.details["jam"] == {"recovered": False}
    assert "rifle" in r.details["states"]["a"]["jammed"]
    jammed = Combatant("a", "A", a.sheet, (0, 0), "pc", True, r.details["states"]["a"])
    with pytest.raises(RuleError):
        SYSTEM.attack(req(jammed, t, "rifle"), ScriptedDice([6] * 10))
    # a 9 on the recovery die is a success and does not explode
    dice = ScriptedDice([1, 1, 1, 6, 6, 1, 9])
    r = SYSTEM.attack(req(a, t, "rifle", defense="dodge"), dice)
    assert r.details["jam"] == {"recovered": True} and dice.remaining == []


def test_reliable_and_unreliable_weapons():
    t = fighter("t", (10, 0), "npc")
    rel = fighter("a", (0, 0), "pc", rifles=0)
    rel.sheet["weapons"]["rifle"]["reliability"] = "reliable"
    r = SYSTEM.attack(req(rel, t, "rifle", defense="dodge"), ScriptedDice([1, 1, 1, 6, 6, 1, 2, 8]))
    assert r.details["jam"]["recovered"] is True
    unrel = fighter("a", (0, 0), "pc", rifles=0)
    unrel.sheet["weapons"]["rifle"]["reliability"] = "unreliable"
    dice = ScriptedDice([1, 1, 1, 6, 6, 1])
    r = SYSTEM.attack(req(unrel, t, "rifle", defense="dodge"), dice)
    assert r.details["jam"]["recovered"] is False and dice.remaining == []


def test_melee_weapons_do_not_jam():
    a = fighter("a", (0, 0), "pc", melee=0)
    t = fighter("t", (1, 0), "npc")
    r = SYSTEM.attack(req(a, t, "sword", defense="parry"), ScriptedDice([1, 1, 1, 6, 6, 1]))
    assert not r.hit and "jam" not in r.details


def test_range_modifier_applied_and_beyond_three_times_refused():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    r = SYSTEM.attack(AttackRequest(a, t, "rifle", distance=2, options={"defense": "none", "into_melee": False}), ScriptedDice([1, 1, 1]))
    assert r.details["attack_total"] == 0 + 2 + 2  # point blank
    with pytest.raises(RuleError):
        SYSTEM.attack(AttackRequest(a, t, "rifle", distance=91), ScriptedDice([6] * 10))


def test_melee_needs_reach():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (3, 0), "npc")
    with pytest.raises(RuleError):
        SYSTEM.attack(req(a, t, "sword"), ScriptedDice([6] * 10))


def test_common_modifiers_from_state_and_options():
    a = fighter("a", (0, 0), "pc", state={"attacks": 2, "aim": 1, "ticks": 5})
    t = fighter("t", (1, 0), "npc", state={"defenses": 4, "prone": True})
    r = SYSTEM.attack(req(a, t, "sword", defense="parry", unaware=True, higher_ground=True, modifier=1, settings={"critical_hit": "flag_only"}), ScriptedDice([1, 1, 1, 1, 1, 1]))
    labels = {m.label: m.value for m in r.modifiers}
    assert labels["Attack action no. 3 this round"] == -2
    assert labels["Aim or Focus"] == 1
    assert labels["Attacking an unaware opponent"] == 2
    assert labels["Higher ground"] == 1
    dm = {m["label"]: m["value"] for m in r.details["defense_modifiers"]}
    assert dm["Defense no. 5 this round"] == -2
    assert dm["Prone"] == -2  # against melee
    assert r.details["states"]["a"]["aim"] == 0


def test_outnumbering_in_melee():
    a = fighter("a", (0, 0), "pc")
    b = fighter("b", (2, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    r = SYSTEM.attack(req(a, t, "sword", others=[b, t], defense="none"), ScriptedDice([1, 1, 1]))
    assert any(m.label == "Outnumbering the opponent" for m in r.modifiers)
    r = SYSTEM.attack(req(a, t, "sword", others=[t], defense="none"), ScriptedDice([1, 1, 1]))
    assert not any(m.label == "Outnumbering the opponent" for m in r.modifiers)


def test_firing_into_melee_and_the_stray_shot():
    shooter = fighter("s", (0, 0), "pc")
    ally = fighter("ally", (11, 0), "pc")
    t = fighter("t", (10, 0), "npc")
    # attack [6,6,1] = 2 + 2 - 2 (into melee) = 2; no defense roll: 0 + ... defense "none" -> 0: hits anyway
    # use a dodge of 2: [6,1,1] = 1 + 1 = 2 -> miss by 0, would hit without the -2: stray to the ally
    dice = ScriptedDice([6, 6, 1, 6, 1, 1, 7])  # the even miss also jams: quick-recover 7
    r = SYSTEM.attack(AttackRequest(shooter, t, "rifle", options={"defense": "dodge"}, others=[ally, t]), dice)
    assert any(m.label == "Firing into melee" for m in r.modifiers)
    assert not r.hit and r.details["stray_to"] == "ally"
    stray = [e for e in r.effects if e.kind == "stray_attack"][0]
    assert stray.target == "ally" and stray.data["dt_successes"] == 2
    # the app resolves the stray shot with the same roll
    r2 = SYSTEM.attack(AttackRequest(shooter, ally, "rifle", options={"defense": "none", "dt_successes": 2, "into_melee": True}, others=[t]), ScriptedDice([]))
    assert r2.details["attack_reused"] and r2.details["attack_total"] == 2


def test_knockout_blow_chain_and_no_wounds():
    a = fighter("a", (0, 0), "pc", melee=2)
    t = fighter("t", (1, 0), "npc", stamina=4)
    # attack [6,6,6] = 3 + 2 - 2 = 3; no defense; damage 4 + 3 + 3 - 2 = 8; Resolve [1,1,1] + 1 < 8 fails
    r = SYSTEM.attack(req(a, t, "sword", action="knockout_blow", defense="none"), ScriptedDice([6, 6, 6, 1, 1, 1]))
    rep = r.details["hit_reports"][0]
    assert rep["wounds"] == 0 and rep["stamina_lost"] == 4
    st = [e.data["add"] for e in r.effects if e.kind == "status"]
    assert "Dazed" in st and "Bloodied" in st
    t2 = fighter("t", (1, 0), "npc", statuses=[{"name": "Dazed", "rounds": 2}])
    r = SYSTEM.attack(req(a, t2, "sword", action="knockout_blow", defense="none"), ScriptedDice([6, 6, 6, 1, 1, 1]))
    assert "Stunned" in [e.data["add"] for e in r.effects if e.kind == "status"]  # Staggered, read as Stunned
    after = apply_result(t2.sheet, r)
    assert {s["name"] for s in after["statuses"]} == {"Stunned"}
    t3 = fighter("t", (1, 0), "npc", statuses=[{"name": "Stunned", "rounds": 2}])
    r = SYSTEM.attack(req(a, t3, "sword", action="knockout_blow", defense="none"), ScriptedDice([6, 6, 6, 1, 1, 1]))
    assert "Unconscious" in [e.data["add"] for e in r.effects if e.kind == "status"]


def test_resolve_passed_means_no_status():
    a = fighter("a", (0, 0), "pc", melee=0)
    t = fighter("t", (1, 0), "npc", resolve=20)
    r = SYSTEM.attack(req(a, t, "sword", action="pressure_point_strike", defense="none"), ScriptedDice([6, 6, 6, 1, 1, 1]))
    assert r.details["resolve"]["passed"]
    assert not [e for e in r.effects if e.kind == "status" and e.data.get("add") in ("Dazed", "Slowed")]


def test_called_shot_damage_ap_wound_and_head():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (10, 0), "npc", armour={"name": "Coat", "ap": 2, "bulk": 0}, cloak={"name": "Duster", "ap": 3, "bulk": 0}, resolve=20)
    # attack [6,6,6] = 3 + 2 - 3 = 2, no defense: net 2; damage 6 + 2 + 3 = 11; head: armour 2 only (no cloak), AP 1+2 -> 0
    r = SYSTEM.attack(req(a, t, "rifle", action="called_shot", defense="none"), ScriptedDice([6, 6, 6, 1, 1, 1]))
    rep = r.details["hit_reports"][0]
    assert r.details["location"] == "head"
    assert rep["damage"] == 11 and rep["soak"] == 0 and rep["after_soak"] == 11
    assert rep["wounds"] == 11 // 5 + 1


def test_cloak_covers_the_torso():
    a = fighter("a", (0, 0), "pc", rifles=0)
    t = fighter("t", (10, 0), "npc", cloak={"name": "Duster", "ap": 3, "bulk": 0})
    r = SYSTEM.attack(req(a, t, "rifle", defense="none"), ScriptedDice([6, 1, 1]))
    assert r.details["hit_reports"][0]["soak"] == 2 + 3 - 1


def test_critical_hit_on_six_net_successes():
    a = fighter("a", (0, 0), "pc", melee=6)
    t = fighter("t", (1, 0), "npc")
    # 0 + 6 = 6 net with no defense: critical, +1d10 [7]
    r = SYSTEM.attack(req(a, t, "sword", defense="none"), ScriptedDice([1, 1, 1, 7]))
    rep = r.details["hit_reports"][0]
    assert rep["critical"] and rep["damage"] == 4 + 3 + 6 + 7
    r = SYSTEM.attack(req(a, t, "sword", defense="none", settings={"critical_hit": "flag_only"}), ScriptedDice([1, 1, 1]))
    assert r.details["hit_reports"][0]["critical"] and r.details["hit_reports"][0]["damage"] == 13
    a5 = fighter("a", (0, 0), "pc", melee=5)
    r = SYSTEM.attack(req(a5, t, "sword", defense="none"), ScriptedDice([1, 1, 1]))
    assert not r.details["hit_reports"][0]["critical"]


def test_swordpoint_attack():
    a = fighter("a", (0, 0), "pc", melee=0)
    t = fighter("t", (1, 0), "npc", armour={"name": "Plate", "ap": 9, "bulk": 0})
    # [6,1,1] = 1 + 0 + 2 = 3 vs none: net 3; 4 + 3 + 3 + 1d10 [5] = 15, armour bypassed
    r = SYSTEM.attack(req(a, t, "sword", defense="none", swordpoint=True), ScriptedDice([6, 1, 1, 5]))
    rep = r.details["hit_reports"][0]
    assert rep["critical"] and rep["damage"] == 15 and rep["soak"] == 0
    assert r.details["location"] == "head"


def test_mayhem_points_add_and_are_spent():
    a = fighter("a", (0, 0), "pc", mayhem=2)
    t = fighter("t", (1, 0), "npc")
    r = SYSTEM.attack(req(a, t, "sword", defense="none", mayhem=2), ScriptedDice([1, 1, 1]))
    assert r.details["attack_total"] == 4
    assert apply_result(a.sheet, r, "a")["mayhem"] == 0
    with pytest.raises(RuleError):
        SYSTEM.attack(req(a, t, "sword", mayhem=3), ScriptedDice([1] * 9))


def test_status_modifiers_on_rolls():
    a = fighter("a", (0, 0), "pc", statuses=[{"name": "Terrified"}, {"name": "Bloodied"}])
    t = fighter("t", (1, 0), "npc", statuses=[{"name": "Slowed"}])
    r = SYSTEM.attack(req(a, t, "sword", defense="parry"), ScriptedDice([1] * 6))
    labels = {m.label: m.value for m in r.modifiers}
    assert labels["Terrified"] == -3 and labels["Bloodied"] == -1
    assert {m["label"]: m["value"] for m in r.details["defense_modifiers"]}["Slowed"] == -1


def test_wound_penalty_applies_to_attacks_when_out_of_stamina():
    a = fighter("a", (0, 0), "pc", stamina=0, wounds=6)
    t = fighter("t", (1, 0), "npc")
    r = SYSTEM.attack(req(a, t, "sword", defense="none"), ScriptedDice([1, 1, 1]))
    assert {m.label: m.value for m in r.modifiers}["Wounds, out of Stamina"] == -2


def test_stances_all_out_guarded_sprint_total_defense():
    a = fighter("a", (0, 0), "pc")
    for stance, kind, expected in (("all_out", "parry", -2), ("guarded", "dodge", 1), ("sprint", "parry", -3), ("total_defense", "parry", 2)):
        t = fighter("t", (1, 0), "npc", state={"stances": [stance]})
        r = SYSTEM.attack(req(a, t, "sword", defense=kind), ScriptedDice([1] * 6))
        assert sum(m["value"] for m in r.details["defense_modifiers"] if m["source"] != "Defending") == expected
    r = SYSTEM.attack(req(a, fighter("t", (1, 0), "npc"), "sword", action="all_out_attack", defense="none"), ScriptedDice([1] * 3))
    assert "all_out" in r.details["states"]["a"]["stances"]


def test_ticks_are_paid_by_attacker_and_defender():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    r = SYSTEM.attack(req(a, t, "sword", action="precision_strike", defense="parry"), ScriptedDice([1] * 6))
    sa, st_ = r.details["states"]["a"], r.details["states"]["t"]
    assert sa["ticks"] == 2 and sa["attacks"] == 1
    assert st_["free_reaction"] is False and st_["ticks"] == 5 and st_["defenses"] == 1
    broke = fighter("a", (0, 0), "pc", state={"ticks": 1})
    with pytest.raises(RuleError):
        SYSTEM.attack(req(broke, t, "sword"), ScriptedDice([1] * 6))


def test_surprised_defender_without_ticks_only_ducks():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc", state={"surprised": True, "ticks": 0, "free_reaction": False})
    r = SYSTEM.attack(req(a, t, "sword"), ScriptedDice([1] * 9 + [1] * 6))
    assert r.details["defense"] == "duck"


def test_pummel_extra_hits():
    a = fighter("a", (0, 0), "pc", statuses=[{"name": "Grappled"}])
    t = fighter("t", (1, 0), "npc", statuses=[{"name": "Pinned"}, {"name": "Grappled"}])
    a.sheet["weapons"]["fist"] = {"name": "Unarmed", "kind": "melee", "damage": 0}
    # pinned: grapple defense. attack [6,6,6] = 3 + 2 + 3 + 1 (grappled vs grappled) = 9;
    # defense: Melee 2 >= Athletics... Agility pool [1,1,1] + 2 - 3? no: both grappled, no -3
    r = SYSTEM.attack(req(a, t, "fist", action="pummel", settings={"critical_hit": "flag_only"}), ScriptedDice([6, 6, 6, 1, 1, 1]))
    assert r.details["defense"] == "grapple_defense"
    net = r.details["nets"][0]
    assert net == 9 - 2
    assert r.details["hits"] == 1 + (net - 1) // 2


def test_not_automated_actions_raise():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    with pytest.raises(RuleNotImplemented):
        SYSTEM.attack(req(a, t, "sword", action="cast_offensive_spell"), ScriptedDice([]))
    with pytest.raises(RuleError):
        SYSTEM.attack(req(a, t, "sword", action="move"), ScriptedDice([]))
    with pytest.raises(RuleError):
        SYSTEM.attack(req(a, t, "sword", action="multi_strike"), ScriptedDice([]))


def test_multi_strike_secondary_reuses_the_roll():
    a = fighter("a", (0, 0), "pc", feats=["Multi-Weapon Fighting (Melee)"])
    t = fighter("t", (1, 0), "npc")
    r1 = SYSTEM.attack(req(a, t, "sword", action="multi_strike", defense="none"), ScriptedDice([6, 6, 1]))
    a2 = Combatant("a", "A", a.sheet, (0, 0), "pc", True, r1.details["states"]["a"])
    r2 = SYSTEM.attack(req(a2, t, "club", action="multi_strike", defense="none", secondary=True, dt_successes=r1.details["attack_successes"]), ScriptedDice([]))
    assert r1.details["attack_total"] == 2 + 2 - 1
    assert r2.details["attack_total"] == 2 + 2 - 3


# -- cover ----------------------------------------------------------------------------

def board_with(material="wood_thin", cell=(9, 0)):
    return SimpleNamespace(cover_pieces={"c1": SimpleNamespace(id="c1", cell=cell, material=material)})


def covered_target(**state):
    base = {"in_cover": True, "cover_locations": ["legs", "torso"]}
    base.update(state)
    return fighter("t", (10, 0), "npc", state=base)


def test_cover_bonus_and_miss_damages_the_cover():
    a = fighter("a", (0, 0), "pc")
    t = covered_target()
    cov = SimpleNamespace(fraction=0.6, blockers=["c1"])
    # attack [6,6,1] = 2 + 2 = 4; dodge [6,1,1] = 1 + 1 + 2 (cover) = 4: miss, but by the cover
    r = SYSTEM.attack(AttackRequest(a, t, "rifle", cover=cov, board=board_with(), options={"defense": "dodge", "into_melee": False, "cover_damage": {"c1": 5}}), ScriptedDice([6, 6, 1, 6, 1, 1, 7]))
    assert not r.hit
    dm = [e for e in r.effects if e.kind == "cover_damage"]
    # damage without the cover bonus: 6 + net 2 = 8; wood AP 2 less AP 1 = 1 -> 7 to the section
    assert dm and dm[0].target == "c1" and dm[0].data["damage"] == 7 and dm[0].data["total_damage"] == 12
    assert [e.target for e in r.effects if e.kind == "cover_destroyed"] == ["c1"]
    assert [e for e in r.effects if e.kind == "cover_destroyed"][0].data["terrain"] == "difficult"


def test_hit_behind_cover_adds_cover_ap_and_cover_takes_half():
    a = fighter("a", (0, 0), "pc", rifles=5)
    t = covered_target()
    cov = SimpleNamespace(fraction=0.6, blockers=["c1"])
    # attack [6,6,6] = 3 + 5 = 8; dodge [1,1,1] = 0 + 1 + 2 = 3 -> net 5; damage 11
    r = SYSTEM.attack(AttackRequest(a, t, "rifle", cover=cov, board=board_with("stone"), options={"defense": "dodge", "into_melee": False}), ScriptedDice([6, 6, 6, 1, 1, 1]))
    rep = r.details["hit_reports"][0]
    assert rep["damage"] == 11
    assert rep["soak"] == 2 + 8 - 1  # armour + stone, less AP 1
    assert rep["after_soak"] == 2
    dm = [e for e in r.effects if e.kind == "cover_damage"][0]
    assert dm.data["damage"] == (11 - (8 - 1)) // 2


def test_cover_is_directional_and_hunkering_doubles_it():
    a = fighter("a", (0, 0), "pc")
    open_side = SimpleNamespace(fraction=0.0, blockers=[])
    r = SYSTEM.attack(AttackRequest(a, covered_target(), "rifle", cover=open_side, options={"defense": "dodge", "into_melee": False}), ScriptedDice([1] * 7))
    assert not any(m["source"] == "Cover Bonuses" for m in r.details["defense_modifiers"])
    cov = SimpleNamespace(fraction=0.8, blockers=[])
    r = SYSTEM.attack(AttackRequest(a, covered_target(stances=["hunkered"]), "rifle", cover=cov, options={"defense": "dodge", "into_melee": False}), ScriptedDice([1] * 7))
    assert [m["value"] for m in r.details["defense_modifiers"] if m["source"] == "Cover Bonuses"] == [4]
    # a hunkered target seen from its open side counts as prone (+2 against ranged)
    r = SYSTEM.attack(AttackRequest(a, covered_target(stances=["hunkered"]), "rifle", cover=open_side, options={"defense": "dodge", "into_melee": False}), ScriptedDice([1] * 7))
    assert {m["label"]: m["value"] for m in r.details["defense_modifiers"]}["Prone"] == 2


def test_arms_not_in_cover_when_taken_on_own_turn():
    a = fighter("a", (0, 0), "pc", rifles=5)
    cov = SimpleNamespace(fraction=0.6, blockers=["c1"])
    r = SYSTEM.attack(AttackRequest(a, covered_target(), "rifle", cover=cov, board=board_with("stone"), options={"defense": "dodge", "into_melee": False, "location": "arms"}), ScriptedDice([6, 6, 6, 1, 1, 1]))
    assert r.details["hit_reports"][0]["soak"] == 2 - 1
    assert not [e for e in r.effects if e.kind == "cover_damage"]


def test_attacking_a_cover_piece_directly():
    a = fighter("a", (0, 0), "pc")
    # [6,6,1] = 2 + 2 = 4; damage 6 + 4 = 10; wood thick AP 3 less AP 1 = 2 -> 8
    r = SYSTEM.attack(AttackRequest(a, a, "rifle", distance=5, options={"target_cover": {"id": "c1", "material": "wood_thick", "damage_taken": 10}}), ScriptedDice([6, 6, 1]))
    kinds = [(e.kind, e.target) for e in r.effects]
    assert ("cover_damage", "c1") in kinds and ("cover_destroyed", "c1") in kinds
    assert r.details["structure_damage"] == 8


def test_cover_effect_mapping():
    assert SYSTEM.cover_effect(SimpleNamespace(fraction=0.5, blockers=[])).modifier == 2
    assert SYSTEM.cover_effect(SimpleNamespace(fraction=0.2, blockers=[])).level == "none"
    assert SYSTEM.cover_effect(SimpleNamespace(fraction=1.0, blockers=["c1"])).level == "cover"


# -- invariants -----------------------------------------------------------------------

@settings(max_examples=100, deadline=None)
@given(st.integers(0, 10_000), st.sampled_from(["straight_shot", "burst_fire", "full_auto"]), st.integers(0, 5), st.integers(1, 60))
def test_random_attacks_are_consistent(seed, action, skill_rank, distance):
    a = fighter("a", (0, 0), "pc", rifles=skill_rank)
    t = fighter("t", (distance, 0), "npc")
    r = SYSTEM.attack(AttackRequest(a, t, "rifle", distance=distance, options={"action": action, "into_melee": False}), SeededDice(seed))
    assert r.hit == any(n >= 1 for n in r.details["nets"])
    assert r.details["hits"] <= r.details["bullets"]
    assert r.details["hits"] == sum(1 for n in r.details["nets"] if n >= 1)
    lost = sum(h["stamina_lost"] for h in r.details["hit_reports"])
    assert lost <= 19
    assert all(h["after_soak"] >= 0 for h in r.details["hit_reports"])
    o = SYSTEM.odds(AttackRequest(a, t, "rifle", distance=distance, options={"action": action, "into_melee": False, "defense": r.details["defense"]}))
    assert 0 <= o["hit"] <= 1 and sum(o["hits"].values()) == pytest.approx(1, abs=1e-9)


def test_with_the_real_board_and_line_of_fire():
    board_mod = pytest.importorskip("rules.board")
    los = pytest.importorskip("rules.los")
    b = board_mod.Board(12, 5)
    pid = b.add_cover((5, 2), "wood_thin")
    a = fighter("a", (0, 2), "pc")
    from rules.tesseris_ads import cover as cover_mod

    t = fighter("t", (6, 2), "npc", state=cover_mod.take_cover({}, b, (6, 2)))
    cov = los.cover(b, (0, 2), (6, 2))
    assert pid in cov.blockers
    # attack [6,6,1] = 4; dodge [6,1,1] = 1 + 1 + 2 (cover) = 4: the cover made it miss; even miss jams: recover 7
    r = SYSTEM.attack(AttackRequest(a, t, "rifle", cover=cov, board=b, options={"defense": "dodge", "into_melee": False}), ScriptedDice([6, 6, 1, 6, 1, 1, 7]))
    assert not r.hit
    assert [e.target for e in r.effects if e.kind == "cover_damage"] == [pid]


def test_trip_knocks_the_target_prone_when_the_melee_test_beats_its_resistance():
    """*Tesseris Combat*, "Melee Attack Actions", Trip: "3 Ticks -2 to attack roll. Trip an
    opponent with a successful Melee test. Opponent may resist [...] with a successful Duck,
    Dodge, or Athletics test. If the opponent fails their roll, they immediately fall Prone."
    No damage; ties go to the defender ("Defending")."""
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    # Melee test 3dT [6, 6, 6] = 3 + Melee 2 - Trip 2 = 3; Athletics: Strength 3dT [6, 1, 1] = 1 + Athletics 1 = 2
    r = SYSTEM.attack(req(a, t, "sword", action="trip", defense="athletics"), ScriptedDice([6, 6, 6, 6, 1, 1]))
    assert r.hit and r.details["attack_total"] == 3 and r.details["defense_total"] == 2
    assert any(m.label == "Trip" and m.value == -2 for m in r.modifiers)
    assert r.details["states"]["t"]["prone"] is True and r.effects == []  # no damage, Prone in the books
    assert r.summary == "A trips T: Prone (3 vs Athletics 2)"
    assert r.details["states"]["a"]["last_cost"] == 3  # the action's 3 ticks
    assert any(b["label"] == "Prone" for b in SYSTEM.badges(t.sheet, r.details["states"]["t"]))
    # a tie is the defender's: [6, 6, 1] = 2 + 2 - 2 = 2 vs Dodge 3dT [6, 1, 1] = 1 + Acrobatics 1 = 2
    r = SYSTEM.attack(req(a, t, "sword", action="trip", defense="dodge"), ScriptedDice([6, 6, 1, 6, 1, 1]))
    assert not r.hit and not r.details["states"]["t"].get("prone")
    # Parry and Block do not resist a Trip; an Athletics test resists nothing but a Trip or a Disarm
    with pytest.raises(RuleError, match="Duck or Dodge or Athletics"):
        SYSTEM.attack(req(a, t, "sword", action="trip", defense="parry"), ScriptedDice([]))
    with pytest.raises(RuleError, match="Athletics test resists a Trip"):
        SYSTEM.attack(req(a, t, "sword", defense="athletics"), ScriptedDice([]))


def test_trip_odds_match_its_rolls():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    odds = SYSTEM.odds(req(a, t, "sword", action="trip", defense="dodge"))
    labels = {o["label"]: o["p"] for o in odds["outcomes"]}
    assert set(labels) <= {"miss", "Dodge avoids", "hit: Prone"} and abs(sum(labels.values()) - 1) < 1e-9
    dice = SeededDice("trip")
    n, prone = 4000, 0
    for _ in range(n):
        prone += SYSTEM.attack(req(a, t, "sword", action="trip", defense="dodge"), dice).hit
    assert abs(prone / n - labels["hit: Prone"]) < 0.03


def test_disarm_knocks_the_weapon_away_and_a_margin_of_three_takes_it():
    """*Tesseris Combat*, "Melee Attack Actions", Disarm: "3 Ticks -1 to attack roll. Knock away an
    opponent's weapon with a Melee test. Opponent may resist [...] with a successful Duck, Dodge, or
    Athletics test. If the attacker beats the opponent's roll by 3 more more success, they may take
    immediate possession of the weapon." No damage; ties go to the defender."""
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    # Melee test 3dT [6, 6, 1] = 2 + Melee 2 - Disarm 1 = 3; Athletics 3dT [6, 1, 1] = 1 + 1 = 2: knocked away
    r = SYSTEM.attack(req(a, t, "sword", action="disarm", defense="athletics", target_weapon="sword"),
                      ScriptedDice([6, 6, 1, 6, 1, 1]))
    assert r.hit and not r.details["taken"] and r.details["weapon_lost"] == "sword"
    assert any(m.label == "Disarm" and m.value == -1 for m in r.modifiers)
    assert r.summary == "A knocks T's Sword away (3 vs Athletics 2)"
    assert "sword" not in SYSTEM.apply(t.sheet, r)["weapons"] and "rifle" in SYSTEM.apply(t.sheet, r)["weapons"]
    # [6, 6, 6] = 3 + 2 - 1 = 4 against Athletics [1, 1, 1] = 0 + 1 = 1: beaten by 3, the attacker takes it
    r = SYSTEM.attack(req(a, t, "sword", action="disarm", defense="athletics", target_weapon="club"),
                      ScriptedDice([6, 6, 6, 1, 1, 1]))
    assert r.details["taken"] and r.summary.startswith("A disarms T and takes the Club")
    mine = [e for e in r.effects if e.target == "a"]
    gained = SYSTEM.apply(a.sheet, AttackResult_only(r, "a"))
    assert mine and gained["weapons"]["club_taken"]["name"] == "Club"  # a's own club stays a's
    # a tie is the defender's; an empty hand cannot be disarmed
    r = SYSTEM.attack(req(a, t, "sword", action="disarm", defense="athletics"), ScriptedDice([6, 1, 1, 6, 6, 1]))
    assert not r.hit and r.effects == []
    bare = fighter("bare", (1, 0), "npc", weapons={})
    with pytest.raises(RuleError, match="no weapon to knock away"):
        SYSTEM.attack(req(a, bare, "sword", action="disarm"), ScriptedDice([]))


def AttackResult_only(result, who):
    from rules.system import AttackResult

    return AttackResult(result.hit, result.summary, result.rolls, result.modifiers,
                        [e for e in result.effects if e.target == who], result.details)


def test_disarm_odds_match_its_rolls():
    a = fighter("a", (0, 0), "pc")
    t = fighter("t", (1, 0), "npc")
    odds = {o["label"]: o["p"] for o in SYSTEM.odds(req(a, t, "sword", action="disarm", defense="dodge"))["outcomes"]}
    assert set(odds) <= {"miss", "Dodge avoids", "hit: disarmed", "hit: weapon taken"}
    dice, n = SeededDice("disarm"), 4000
    seen = {"hit: disarmed": 0, "hit: weapon taken": 0}
    for _ in range(n):
        r = SYSTEM.attack(req(a, t, "sword", action="disarm", defense="dodge"), dice)
        if r.hit:
            seen["hit: weapon taken" if r.details["taken"] else "hit: disarmed"] += 1
    for label, count in seen.items():
        assert abs(count / n - odds.get(label, 0)) < 0.03, label


def test_pin_pins_a_grappled_opponent_who_fails_its_grapple_defense():
    """*Tesseris Combat*, "Melee Attack Actions", Pin (Grapple): "3 Ticks. Pin a grappled opponent
    with a successful opposed Melee or Athletics test. Opponent may oppose with either Melee or
    Athletics." "Pinned": only Break Pin and Grapple Defense."""
    grappled = [{"name": "Grappled"}]
    a = fighter("a", (0, 0), "pc", statuses=grappled)
    t = fighter("t", (1, 0), "npc", statuses=grappled, melee=1, athletics=2)
    # Melee 3dT [6, 6, 6] = 3 + Melee 2 + 1 (grappled, against a grappled opponent) = 6;
    # Grapple Defense: Athletics (Strength 3 + 2 beats Agility 3 + 1): 3dT [6, 1, 1] = 1 + 2 = 3
    r = SYSTEM.attack(req(a, t, "sword", action="pin"), ScriptedDice([6, 6, 6, 6, 1, 1]))
    assert r.hit and r.details["defense"] == "grapple_defense" and r.details["defense_total"] == 3
    assert r.summary == "A pins T (6 vs Grapple Defense 3)"
    assert "Pinned" in [s["name"] for s in SYSTEM.apply(t.sheet, r)["statuses"]]
    # beaten, the defender holds: [6, 1, 1] = 1 + 2 + 1 = 4 vs [6, 6, 6] = 3 + 2 = 5
    r = SYSTEM.attack(req(a, t, "sword", action="pin"), ScriptedDice([6, 1, 1, 6, 6, 6]))
    assert not r.hit and r.effects == []
    free = fighter("free", (1, 0), "npc")
    with pytest.raises(RuleError, match="Grapple first"):
        SYSTEM.attack(req(a, free, "sword", action="pin"), ScriptedDice([]))
    odds = {o["label"] for o in SYSTEM.odds(req(a, t, "sword", action="pin"))["outcomes"]}
    assert odds <= {"miss", "Grapple Defense avoids", "hit: Pinned"} and "hit: Pinned" in odds


def test_choke_out_puts_a_grappled_opponent_who_loses_the_athletics_contest_unconscious():
    """*Tesseris Combat*, "Melee Attack Actions", Choke Out (Grapple): "4 Ticks. Take an opposed
    Athletics to choke out an opponent. If opponent fails their Athletics test (free), they
    immediately fall Unconscious." """
    grappled = [{"name": "Grappled"}]
    a = fighter("a", (0, 0), "pc", statuses=grappled, athletics=2)
    t = fighter("t", (1, 0), "npc", statuses=[{"name": "Pinned"}, {"name": "Grappled"}])
    # Athletics: Strength 3dT [6, 6, 6] = 3 + Athletics 2 + 1 (grappled, against a grappled opponent) = 6;
    # the opponent's Athletics 3dT [6, 1, 1] = 1 + 1 = 2, free
    r = SYSTEM.attack(req(a, t, "sword", action="choke_out"), ScriptedDice([6, 6, 6, 6, 1, 1]))
    assert r.hit and r.details["defense"] == "athletics" and r.details["defense_total"] == 2
    assert any(m.label == "Athletics rank" and m.value == 2 for m in r.modifiers)
    assert "Unconscious" in [s["name"] for s in SYSTEM.apply(t.sheet, r)["statuses"]]
    fresh = SYSTEM.attack(req(a, t, "sword", action="choke_out", defense="none"), ScriptedDice([1, 1, 1])).details["states"]["t"]
    assert r.details["states"]["t"]["ticks"] == fresh["ticks"]  # the test is free: no tick,
    assert r.details["states"]["t"]["free_reaction"] == fresh["free_reaction"]  # no reaction spent
    assert r.details["states"]["a"]["last_cost"] == 4
    r = SYSTEM.attack(req(a, t, "sword", action="choke_out"), ScriptedDice([6, 1, 1, 6, 6, 6]))
    assert not r.hit and r.effects == []
    with pytest.raises(RuleError, match="Grapple first"):
        SYSTEM.attack(req(a, fighter("free", (1, 0), "npc"), "sword", action="choke_out"), ScriptedDice([]))
    odds = {o["label"] for o in SYSTEM.odds(req(a, t, "sword", action="choke_out"))["outcomes"]}
    assert "hit: Unconscious" in odds and odds <= {"miss", "Athletics avoids", "hit: Unconscious"}


def test_a_distracting_shot_costs_the_opponent_two_ticks_of_its_next_round():
    """*Tesseris Combat*, "Ranged Attack Actions", Distracting Shot: "3 Ticks -2 Penalty. Fire a
    single shot past an opponent's head [...]. Roll a Melee skill test at a -2 penalty opposed by
    opponent's Scrutiny. If the opponent fails, they lose 2 Ticks on their next turn." """
    from rules.tesseris_ads.ticks import ticks_per_round
    from rules.tesseris_ads.turns import new_round

    a = fighter("a", (0, 0), "pc")
    a.sheet["weapons"]["rifle"]["ammo"] = 10
    t = fighter("t", (5, 0), "npc", state={"in_cover": True})
    # Perception 3dT [6, 6, 6] = 3 + Melee 2 - 2 = 3 (range 5 of the rifle's 30: no range modifier);
    # Scrutiny: Perception 3dT [6, 1, 1] = 1 + Scrutiny 1 = 2, free, and cover does not help it
    r = SYSTEM.attack(req(a, t, "rifle", action="distracting_shot"), ScriptedDice([6, 6, 6, 6, 1, 1]))
    assert r.hit and r.details["defense"] == "scrutiny" and (r.details["attack_total"], r.details["defense_total"]) == (3, 2)
    assert [(e.kind, e.data["spent"]) for e in r.effects] == [("ammo", 1)]  # the single shot's bullet
    books = r.details["states"]["t"]
    assert books["distracted"] == 2
    assert new_round(books, t.sheet)["ticks"] == ticks_per_round(t.sheet) - 2
    assert new_round(new_round(books, t.sheet), t.sheet)["ticks"] == ticks_per_round(t.sheet)  # once
    # a tie is the opponent's: nothing lost
    r = SYSTEM.attack(req(a, t, "rifle", action="distracting_shot"), ScriptedDice([6, 6, 1, 6, 6, 1]))
    assert not r.hit and not r.details["states"]["t"].get("distracted")
    odds = {o["label"] for o in SYSTEM.odds(req(a, t, "rifle", action="distracting_shot"))["outcomes"]}
    assert "hit: 2 ticks lost" in odds and odds <= {"miss", "Scrutiny avoids", "hit: 2 ticks lost"}


def test_break_pin_frees_the_pinned_one_when_it_wins_the_opposed_test():
    """*Tesseris Combat*, "Melee Attack Actions", Break Pin (Grapple): "4 Ticks. Break an opponent's
    Pin against yourself or an ally in the same Grapple with an opposed Melee or Acrobatics test." """
    a = fighter("a", (0, 0), "pc", statuses=[{"name": "Pinned"}, {"name": "Grappled"}], acrobatics=3)
    t = fighter("t", (1, 0), "npc", statuses=[{"name": "Grappled"}], melee=1, acrobatics=0)
    # Agility 3dT [6, 6, 6] = 3 + Acrobatics 3 (better than Melee 2) + 1 (grappled vs grappled) = 7
    # (less what Pinned takes); the opponent: Agility 3dT [6, 1, 1] = 1 + Melee 1 = 2
    r = SYSTEM.attack(req(a, t, "sword", action="break_pin"), ScriptedDice([6, 6, 6, 6, 1, 1]))
    assert r.hit and r.details["freed"] == "a" and r.details["defense_total"] == 2
    assert any(m.label == "Acrobatics rank" and m.value == 3 for m in r.modifiers)
    after = [s["name"] for s in SYSTEM.apply(a.sheet, AttackResult_only(r, "a"))["statuses"]]
    assert "Pinned" not in after and "Grappled" in after
    assert r.summary.startswith("A breaks the pin")
    # an ally in the grapple frees another: options free
    ally = fighter("b", (0, 1), "pc", statuses=[{"name": "Pinned"}, {"name": "Grappled"}])
    helper = fighter("h", (1, 1), "pc", statuses=[{"name": "Grappled"}])
    r = SYSTEM.attack(req(helper, t, "sword", others=[ally], action="break_pin", free="b"),
                      ScriptedDice([6, 6, 6, 1, 1, 1]))
    assert r.hit and [e.target for e in r.effects] == ["b"] and "T's pin on B" in r.summary
    with pytest.raises(RuleError, match="frees a Pinned character"):
        SYSTEM.attack(req(helper, t, "sword", action="break_pin"), ScriptedDice([]))
    odds = {o["label"] for o in SYSTEM.odds(req(a, t, "sword", action="break_pin"))["outcomes"]}
    assert "hit: pin broken" in odds
