"""gurps_lite: maneuvers, attacks, defenses, injury and odds, with scripted dice."""

import copy

import pytest
from hypothesis import given, settings, strategies as st

from rules import gurps_lite as g
from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant, RuleError

NO_VITALS = {"torso_vitals_roll": False}


def d3(total):
    """Three d6 faces summing to ``total``."""
    a = min(6, total - 2)
    b = min(6, total - a - 1)
    return [a, b, total - a - b]


def rolls(*items):
    """Script: ints 3..18 are 3d6 totals; lists are raw faces."""
    faces = []
    for it in items:
        faces += list(it) if isinstance(it, (list, tuple)) else d3(it)
    return ScriptedDice(faces)


def sheet(**over):
    s = {
        "name": "T", "ST": 10, "DX": 10, "IQ": 10, "HT": 10, "HP": 10, "FP": 10, "Will": 10, "Per": 10,
        "basic_speed": 5.0, "basic_move": 5, "encumbrance": 0,
        "skills": {"Broadsword": 12, "Guns": 12, "Shield": 12},
        "traits": {}, "dr": {}, "flexible": {},
        "weapons": {
            "Sword": {"skill": "Broadsword", "damage": "1d", "type": "cut", "reach": "1", "kind": "melee"},
            "Club": {"skill": "Broadsword", "damage": "1d", "type": "cr", "reach": "1", "kind": "melee"},
            "Spear": {"skill": "Broadsword", "damage": "1d", "type": "imp", "reach": "1", "kind": "melee",
                      "attack": "thrust"},
            "Gun": {"skill": "Guns", "damage": "1d", "type": "pi", "kind": "ranged", "acc": 2, "rof": 10,
                    "rcl": 2, "bulk": -3, "half_d": 100, "max": 1000},
        },
    }
    s.update(over)
    return s


def req(weapon="Sword", attacker=None, target=None, distance=1, **options):
    a = Combatant("a", "Att", attacker or sheet(), side="x")
    t = Combatant("t", "Tgt", target or sheet(), side="y")
    options.setdefault("defense", "none")
    return AttackRequest(a, t, weapon, distance=distance, options=options)


# --- maneuvers -------------------------------------------------------------

def test_every_maneuver_of_the_table_is_data():
    for key in ["aim", "all_out_attack", "all_out_attack_ranged", "all_out_defense", "committed_attack",
                "defensive_attack", "evaluate", "feint", "move_and_attack", "move", "concentrate", "ready",
                "wait", "do_nothing", "attack"]:
        assert key in g.MANEUVERS
    assert set(g.MANEUVERS["all_out_attack"].variants) == {"determined", "double", "long", "strong", "feint"}
    assert set(g.MANEUVERS["all_out_attack_ranged"].variants) == {"determined", "suppression_fire"}
    assert g.MANEUVERS["all_out_attack"].no_defense and g.MANEUVERS["do_nothing"].no_defense
    assert g.MANEUVERS["committed_attack"].defense_mod == -2
    assert g.MANEUVERS["defensive_attack"].defense_mod == 1


def test_maneuver_movement():
    s = sheet(basic_move=6)
    mv = g.maneuver_movement
    assert mv(s, "move") == 6 and mv(s, "move_and_attack") == 6
    assert mv(s, "all_out_attack") == 3 and mv(s, "all_out_attack_ranged") == 3
    assert mv(s, "attack") == 1 and mv(s, "aim") == 1 and mv(s, "ready") == 1
    assert mv(s, "committed_attack") == 2
    assert mv(s, "all_out_defense") == 1 and mv(s, "all_out_defense", "enhanced_dodge") == 3
    assert mv(s, "wait") == 0 and mv(s, "do_nothing") == 0
    assert g.SYSTEM.move_allowance(s, "all_out_defense:enhanced_dodge") == 3
    assert mv(sheet(basic_move=6, encumbrance=2), "move") == 3     # x0.6
    assert mv(sheet(basic_move=6, hp_current=3), "move") == 3       # reeling halves


def test_allowed_maneuvers_by_situation():
    def keys(**kw):
        return [m["key"] for m in g.allowed_maneuvers(**kw)]
    s = sheet()
    assert set(keys(sheet=s)) == set(g.MANEUVERS)
    # moved 3 yards: only maneuvers that let it move that far
    assert set(keys(sheet=s, moved=3)) == {"all_out_attack", "all_out_attack_ranged", "all_out_defense",
                                           "move_and_attack", "move"}
    aod = next(m for m in g.allowed_maneuvers(s, moved=3) if m["key"] == "all_out_defense")
    assert aod["variants"] == ["enhanced_dodge"]
    assert set(keys(sheet=s, moved=5)) == {"move_and_attack", "move"}
    assert keys(sheet=s, state={"conditions": ["stunned"]}) == ["do_nothing"]
    assert keys(sheet=s, state={"unconscious": True}) == []
    # no ready weapon: no attacks, no aim
    none_ready = keys(sheet=s, state={"unready": ["Sword", "Club", "Spear", "Gun"]})
    assert not {"attack", "aim", "all_out_attack", "move_and_attack", "committed_attack"} & set(none_ready)
    assert "ready" in none_ready and "move" in none_ready
    # melee only: no aim or ranged All-Out Attack
    melee = keys(sheet=s, state={"unready": ["Gun"]})
    assert "aim" not in melee and "all_out_attack_ranged" not in melee and "all_out_attack" in melee
    # suppression fire needs RoF 5+
    slow = sheet(weapons={"Bow": {"skill": "Bow", "damage": "1d", "type": "imp", "kind": "ranged", "rof": 1,
                                  "max": 100}})
    m = next(x for x in g.allowed_maneuvers(slow) if x["key"] == "all_out_attack_ranged")
    assert m["variants"] == ["determined"]


def test_attack_beyond_the_maneuvers_movement_is_refused():
    with pytest.raises(RuleError):
        g.attack(req(maneuver="attack", moved=3), rolls())
    with pytest.raises(RuleError):
        g.attack(req("Gun", maneuver="all_out_attack"), rolls())  # melee AOA with a gun


# --- attacks: modifiers ----------------------------------------------------

def mods_of(result):
    return {m.label: m.value for m in result.modifiers}


def test_plain_attack_hit_and_damage_breakdown():
    r = g.attack(req("Club", settings=NO_VITALS), rolls(10, [4]))
    assert r.hit and r.details["injury"] == 4
    assert [x.purpose for x in r.rolls][0].startswith("attack")
    assert r.rolls[0].expr == "3d6"
    eff = [e for e in r.effects if e.kind == "injury"]
    assert eff and eff[0].data["injury"] == 4 and eff[0].target == "t"


def test_miss():
    r = g.attack(req(), rolls(13))
    assert not r.hit and r.details["attacks"][0]["check"]["result"] == "failure"


def test_all_out_attack_determined_and_strong():
    r = g.attack(req("Club", maneuver="all_out_attack", variant="determined", settings=NO_VITALS), rolls(16, [3]))
    assert mods_of(r)["All-Out Attack (Determined)"] == 4 and r.hit
    r = g.attack(req("Club", maneuver="all_out_attack", variant="strong", settings=NO_VITALS), rolls(10, [3]))
    assert r.details["injury"] == 5  # 3 + 2


def test_all_out_attack_double_is_two_attacks():
    r = g.attack(req("Club", maneuver="all_out_attack", variant="double", settings=NO_VITALS),
                 rolls(10, [2], 10, [3]))
    assert len(r.details["attacks"]) == 2 and r.details["injury"] == 5


def chosen(turn_variant="", **options):
    """An attack under the turn's All-Out Attack, chosen as the turn's maneuver (the fight's books), with
    its option picked on the attack card (only ``variant`` in the options, as the card sends it)."""
    a = Combatant("a", "Att", sheet(), side="x", state={"maneuver": "all_out_attack", "variant": turn_variant,
                                                         "moved": 0, "attacks": 0})
    t = Combatant("t", "Tgt", sheet(), side="y")
    return AttackRequest(a, t, "Club", distance=1, options={"defense": "none", "settings": NO_VITALS, **options})


def test_the_card_s_all_out_option_counts_under_the_turn_s_maneuver():
    """"Maneuvers", All Out Attack (Melee): Determined +4 to hit; Strong +2 damage (or +1 per die); Double
    two attacks. Picked on the card after the maneuver was chosen for the turn (issue #33: they did nothing)."""
    plain = g.SYSTEM.odds(chosen())["hit"]
    r = g.attack(chosen(variant="determined"), rolls(16, [3]))  # 16 vs 12 + 4
    assert mods_of(r)["All-Out Attack (Determined)"] == 4 and r.hit
    assert r.details["attacks"][0]["check"]["effective"] == 16
    assert g.SYSTEM.odds(chosen(variant="determined"))["hit"] > plain
    r = g.attack(chosen(variant="strong"), rolls(10, [3]))
    assert r.details["injury"] == 5  # 3 + 2
    r = g.attack(chosen(variant="double"), rolls(10, [2], 10, [3]))
    assert len(r.details["attacks"]) == 2 and r.details["injury"] == 5
    assert g.SYSTEM.odds(chosen(variant="double"))["hit"] > plain
    # an option chosen with the maneuver stands: the card may not pick another
    assert g.attack(chosen("strong"), rolls(10, [3])).details["injury"] == 5
    with pytest.raises(RuleError, match="the turn's option is strong"):
        g.attack(chosen("strong", variant="determined"), rolls(16, [3]))


def test_ranged_all_out_attack_determined():
    r = g.attack(req("Gun", distance=3, maneuver="all_out_attack_ranged", variant="determined",
                     settings=NO_VITALS), rolls(13, [1]))
    assert mods_of(r)["All-Out Attack (ranged, Determined)"] == 1 and r.hit


def test_committed_attack_two_steps():
    r = g.attack(req(maneuver="committed_attack", variant="determined", moved=2), rolls(12, [1]))
    m = mods_of(r)
    assert m["Committed Attack (Determined)"] == 2 and m["Committed Attack: two steps"] == -2


def test_committed_and_defensive_attack_damage():
    r = g.attack(req("Club", maneuver="committed_attack", variant="strong", settings=NO_VITALS), rolls(10, [3]))
    assert r.details["injury"] == 4  # +1
    r = g.attack(req("Club", maneuver="defensive_attack", settings=NO_VITALS), rolls(10, [3]))
    assert r.details["injury"] == 1  # -2


def test_move_and_attack_penalty_and_cap():
    a = sheet(skills={"Broadsword": 18, "Guns": 12})
    r = g.attack(req(attacker=a, maneuver="move_and_attack", moved=5), rolls(10))
    assert mods_of(r)["Move and Attack (melee)"] == -4
    assert r.details["attacks"][0]["check"]["effective"] == 9 and not r.hit  # 14 capped at 9
    r = g.attack(req(attacker=a, maneuver="move_and_attack", moved=5, slam=True), rolls(14, [1]))
    assert r.details["attacks"][0]["check"]["effective"] == 14
    r = g.attack(req("Gun", distance=3, maneuver="move_and_attack", settings=NO_VITALS), rolls(3, [1]))
    assert mods_of(r)["Move and Attack (ranged: -2 or Bulk)"] == -3


def test_evaluate_bonus():
    a = Combatant("a", "A", sheet(), state={"evaluate": {"target": "t", "turns": 5}})
    t = Combatant("t", "T", sheet())
    r = g.attack(AttackRequest(a, t, "Sword", options={"defense": "none"}), rolls(15, [1]))
    assert mods_of(r)["Evaluate"] == 3 and r.hit


def test_shock_penalises_the_attacker():
    r = g.attack(req(attacker=sheet(shock=3)), rolls(10, [1]))
    assert mods_of(r)["shock"] == -3 and not r.hit


def test_rapid_strike_and_masters():
    r = g.attack(req(rapid_strike=1), rolls(6, [1], 6, [1]))
    assert len(r.details["attacks"]) == 2
    assert r.details["attacks"][0]["check"]["effective"] == 6
    r = g.attack(req(rapid_strike=2), rolls(3, [1], 3, [1], 3, [1], 3, [1]))
    assert len(r.details["attacks"]) == 4 and r.details["attacks"][0]["check"]["effective"] == 0  # -12
    wm = sheet(traits={"weapon_master": True})
    r = g.attack(req(attacker=wm, rapid_strike=1), rolls(9, [1], 9, [1]))
    assert r.details["attacks"][0]["check"]["effective"] == 9  # -3
    with pytest.raises(RuleError):
        bow = sheet(weapons={"Bow": {"skill": "Bow", "damage": "1d", "type": "imp", "kind": "ranged", "rof": 1,
                                     "max": 100}})
        g.attack(req("Bow", attacker=bow, distance=3, rapid_strike=1), rolls())


def test_dual_weapon_attack():
    r = g.attack(req(dual_weapon="Club", settings=NO_VITALS), rolls(8, [1], 8, [2]))
    assert [a["weapon"] for a in r.details["attacks"]] == ["Sword", "Club"]
    assert all(a["check"]["effective"] == 8 for a in r.details["attacks"])
    with pytest.raises(RuleError):
        g.attack(req(dual_weapon="Sword"), rolls())


def test_tip_slash_converts_impaling_to_cutting():
    r = g.attack(req("Spear", tip_slash=True), rolls(10, [4], 10))
    assert r.details["attacks"][0]["damage"][0]["wound"]["wound_type"] == "cut"
    assert r.details["injury"] == 6
    with pytest.raises(RuleError):
        g.attack(req("Club", tip_slash=True), rolls(10, [4]))


# --- hit locations ---------------------------------------------------------

def test_location_penalties_and_shield_arm():
    r = g.attack(req(location="skull"), rolls(3, [1]))
    assert mods_of(r)["hit location: Skull"] == -7
    r = g.attack(req(location="skull", from_behind=True), rolls(3, [1]))
    assert mods_of(r)["hit location: Skull (from behind)"] == -5
    shielded = sheet(shield={"skill": "Shield"})
    r = g.attack(req(target=shielded, location="left_arm"), rolls(3, [1]))
    assert sum(m.value for m in r.modifiers) == -4       # -4 for the shield arm
    r = g.attack(req(target=shielded, location="left_hand"), rolls(3, [1]))
    assert sum(m.value for m in r.modifiers) == -8       # -8 for the shield hand
    r = g.attack(req(target=shielded, location="right_arm"), rolls(3, [1]))
    assert sum(m.value for m in r.modifiers) == -2


def test_only_some_types_may_target_eye_and_vitals():
    with pytest.raises(RuleError):
        g.attack(req("Sword", location="eye"), rolls(3))
    with pytest.raises(RuleError):
        g.attack(req("Sword", location="vitals"), rolls(3))


def test_miss_by_one_hits_the_torso():
    # skill 12 at the face (-5) is 7; a roll of 8 misses by 1 and hits the torso
    r = g.attack(req("Sword", location="face"), rolls(8, [3]))
    a = r.details["attacks"][0]
    assert r.hit and a["damage"][0]["location"] == "torso"
    r = g.attack(req("Sword", location="face"), rolls(9))
    assert not r.hit


def test_skull_dr_and_knockdown():
    # skull: +2 DR, x4; shock forces a knockdown roll, -10 on a major wound
    r = g.attack(req("Club", location="skull"), rolls(3, [5], 12))
    dmg = r.details["attacks"][0]["damage"][0]
    assert dmg["wound"]["dr"] == 2 and dmg["injury"] == 12
    kd = dmg["checks"][0]
    assert kd["purpose"].startswith("knockdown")
    assert {"label": "major wound to the skull", "value": -10, "source": "Hit Locations"} in kd["modifiers"]
    conds = [e.data["condition"] for e in r.effects if e.kind == "condition"]
    assert "prone" in conds and "dropped held items" in conds and "unconscious" in conds  # 12 vs 0


def test_eye_ignores_dr():
    t = sheet(dr={"skull": 5})
    r = g.attack(req("Spear", target=t, location="eye"), rolls(3, [1], 18))
    dmg = r.details["attacks"][0]["damage"][0]
    assert dmg["wound"]["dr"] == 0 and dmg["injury"] == 2  # crippled eye caps at HP/10 + 1


def test_random_location_hand_side_and_torso_vitals():
    r = g.attack(req("Spear", location="random"), rolls(10, 15, [5], [2]))
    assert r.details["attacks"][0]["damage"][0]["location"] == "left_hand"
    r = g.attack(req("Spear", location="random"), rolls(10, 9, [2], [1], 10))
    dmg = r.details["attacks"][0]["damage"][0]
    assert dmg["location"] == "vitals" and dmg["injury"] == 6  # 2 x3, major -> knockdown
    r = g.attack(req("Sword", location="random"), rolls(10, 9, [2]))   # cut: no vitals roll
    assert r.details["attacks"][0]["damage"][0]["location"] == "torso"


def test_armour_chinks_and_gaps():
    t = sheet(dr={"torso": 6})
    r = g.attack(req("Spear", target=t, location="chinks_torso", settings=NO_VITALS), rolls(3, [5]))
    assert mods_of(r)["hit location: Armour chinks (torso)"] == -10
    assert r.details["attacks"][0]["damage"][0]["wound"]["dr"] == 3
    r = g.attack(req("Spear", target=t, location="armour_gap", settings=NO_VITALS), rolls(3, [5], 10))
    assert r.details["attacks"][0]["damage"][0]["wound"]["dr"] == 0


def test_groin_male_double_shock_and_knockdown():
    t = sheet(male=True)
    r = g.attack(req("Club", target=t, location="groin"), rolls(3, [6], 10))
    shock = next(e for e in r.effects if e.kind == "shock")
    assert shock.data["shock"] == 8
    kd = r.details["attacks"][0]["damage"][0]["checks"][0]
    assert kd["effective"] == 5  # HT 10 - 5


def test_limb_crippled():
    r = g.attack(req("Club", location="right_leg"), rolls(3, [6], 10))
    assert any(e.kind == "crippled" and e.data["location"] == "right_leg" for e in r.effects)
    assert r.details["injury"] == 6


def test_disarm():
    target = sheet()
    # hit the weapon (reach 1: -4, -2 more without a fencing weapon), then the contest
    r = g.attack(req(target=target, location="weapon", disarm=True, target_weapon="Sword"), rolls(6, 8, 12))
    assert mods_of(r)["target the weapon"] == -4 and mods_of(r)["disarm (not a fencing weapon)"] == -2
    assert r.details["attacks"][0]["disarm"]["outcome"] == "weapon flung 1 yard"
    assert any(e.kind == "disarmed" and e.target == "t" for e in r.effects)
    r = g.attack(req(target=target, location="weapon", disarm=True, target_weapon="Sword"), rolls(6, 10, 8))
    assert r.details["attacks"][0]["disarm"]["outcome"] == "weapon unreadied"   # lost by 2
    r = g.attack(req(target=target, location="weapon", disarm=True, target_weapon="Sword"), rolls(6, 12, 6))
    assert r.details["attacks"][0]["disarm"]["outcome"] == "no effect"           # lost by 6
    r = g.attack(req(target=target, location="weapon", disarm=True, target_weapon="Sword"), rolls(6, 18, 10))
    assert r.details["attacks"][0]["disarm"]["outcome"] == "attacker disarmed"


# --- ranged ----------------------------------------------------------------

def test_ranged_modifiers():
    t = sheet(sm=1)
    r = g.attack(req("Gun", target=t, distance=30, target_speed=5, aim_turns=3, braced=True,
                     settings=NO_VITALS), rolls(3, [1]))
    m = mods_of(r)
    assert m["range 30 yd + speed 5 yd/s"] == -7
    assert m["target size modifier"] == 1
    assert m["aimed (Acc 3)"] == 3 and m["aimed 3 seconds"] == 2
    r = g.attack(req("Gun", distance=1, settings=NO_VITALS), rolls(3, [1]))
    assert mods_of(r)["close quarters: Bulk"] == -3
    with pytest.raises(RuleError):
        g.attack(req("Gun", distance=2000), rolls())


def test_rapid_fire_hits_by_recoil():
    # 10 shots: +2; skill 12 + 2 = 14, roll 7 -> margin 7 -> 1 + 7 // 2 = 4 hits
    r = g.attack(req("Gun", distance=3, shots=10, settings=NO_VITALS), rolls(7, [1], [1], [1], [1]))
    a = r.details["attacks"][0]
    assert mods_of(r)["rapid fire (10 shots)"] == 2 and a["hits"] == 4 and a["landed"] == 4
    assert r.details["injury"] == 4
    with pytest.raises(RuleError):
        g.attack(req("Gun", distance=3, shots=11), rolls())


def test_defense_stops_one_hit_plus_margin():
    r = g.attack(req("Gun", distance=3, shots=10, defense={"type": "dodge"}, settings=NO_VITALS),
                 rolls(7, 6, [1], [1]))
    a = r.details["attacks"][0]
    # dodge 8, roll 6: margin 2 -> stops 3 of 4 hits
    assert a["hits"] == 4 and a["landed"] == 1


def test_shotgun():
    sg = sheet(weapons={"Shotgun": {"skill": "Guns", "damage": "1d", "type": "pi", "kind": "ranged", "rof": 2,
                                    "rcl": 1, "pellets": 9, "half_d": 50, "max": 150, "bulk": -5}})
    t = sheet(dr={"torso": 1})
    r = g.attack(req("Shotgun", attacker=sg, target=t, distance=5, settings=NO_VITALS), rolls(10, [3], 10))
    # within 10% of 1/2D: damage and DR x4
    assert r.details["injury"] == 8
    r = g.attack(req("Shotgun", attacker=sg, target=t, distance=20, shots=2, settings=NO_VITALS),
                 rolls(8, *[[3]] * 6))
    a = r.details["attacks"][0]
    # RoF 2 x 9 pellets: 18 shots, +4; range 20: -3; skill 13, roll 8: 1 + 5 // Rcl 1 = 6 hits of 3 - DR 1
    assert mods_of(r)["rapid fire (18 shots)"] == 4 and a["hits"] == 6 and r.details["injury"] == 12


def test_half_damage_range():
    r = g.attack(req("Gun", distance=150, settings=NO_VITALS), rolls(3, [5]))
    assert r.details["injury"] == 2


def test_spraying_and_suppression():
    assert g.spraying_fire(10, [3, 3], [2]) == {"wasted": 2, "left": 2, "shots": [3, 3]}
    assert g.spraying_fire(20, [5, 5], [2])["wasted"] == 4
    with pytest.raises(RuleError):
        g.spraying_fire(4, [2, 2], [0])
    with pytest.raises(RuleError):
        g.spraying_fire(10, [5, 5], [1])
    assert g.suppression_fire_skill(10) == 10
    assert g.suppression_area_width(5) == 2 and g.suppression_area_width(10) == 4
    # whoever enters the area: skill 8 + the rapid fire bonus of RoF 10 (+2); made by 4: 1 + 4 // Rcl 2 = 3 hits
    r = g.attack(req("Gun", distance=3, maneuver="all_out_attack_ranged", variant="suppression_fire",
                     defense="none", settings=NO_VITALS), rolls(6, [1], [1], [1]))
    attack = r.details["attacks"][0]
    assert attack["check"]["effective"] == 10 and attack["hits"] == 3 and attack["shots"] == 10


def test_area_attack_divides_damage_and_only_a_dive_defends():
    gren = sheet(weapons={"Grenade": {"skill": "Throwing", "damage": "4d", "type": "cr", "kind": "thrown",
                                      "area": 3, "max": 30}}, skills={"Throwing": 12})
    a = Combatant("a", "A", gren, position=(0, 0))
    t = Combatant("t", "T", sheet(), position=(5, 0))
    o = Combatant("o", "O", sheet(), position=(7, 0))
    far = Combatant("f", "F", sheet(), position=(20, 0))
    request = AttackRequest(a, t, "Grenade", options={"defense": "none", "aim_at_ground": True}, others=[o, far])
    r = g.attack(request, rolls(10, [3, 3, 3, 3], 10, [3, 3, 3, 3], 10))
    assert mods_of(r)["area attack aimed at the ground"] == 4
    by = {d["target"]: d for d in r.details["damage"]}
    assert by["t"]["injury"] == 12 and by["o"]["injury"] == 6 and "f" not in by
    # a dive: prone, and the centre veers by the dodge's margin
    request.options = {"defense": "dive"}
    r = g.attack(request, rolls(10, 9, [3], [3, 3, 3, 3], 10))   # dodge 8 + 3 dive, roll 9
    assert "t" not in {d["target"] for d in r.details["damage"]}
    assert r.details["scatter"] == 2 and r.details["centre"] == (7, 0)
    assert r.details["damage"][0]["target"] == "o"


# --- defenses --------------------------------------------------------------

def defend(defense, target=None, state=None, **kw):
    info = g.AttackInfo(**kw)
    t = target or sheet()
    base, mods, _ = g.defense_level(t, state or {}, defense, info)
    return g.effective_skill(base, mods), {m.label: m.value for m in mods}


def test_dodge():
    assert defend({"type": "dodge"})[0] == 8
    assert defend({"type": "dodge"}, state={"dodges": 2})[0] == 6
    assert defend({"type": "dodge"}, target=sheet(encumbrance=2))[0] == 6
    assert defend({"type": "dodge"}, target=sheet(hp_current=3))[0] == 4      # halved at HP/3
    assert defend({"type": "dodge", "retreat": True})[0] == 11
    assert defend({"type": "dodge", "dive": True}, ranged=True)[0] == 11
    with pytest.raises(RuleError):
        defend({"type": "dodge", "dive": True})                              # melee
    assert defend({"type": "dodge", "acrobatic": True, "acrobatic_result": "success"})[0] == 10
    assert defend({"type": "dodge", "acrobatic": True, "acrobatic_result": "failure"})[0] == 6


def test_parry():
    assert defend({"type": "parry", "weapon": "Sword"})[0] == 9
    assert defend({"type": "parry", "weapon": "Sword"}, state={"parries": 1})[0] == 5
    fen = sheet(weapons={"Rapier": {"skill": "Broadsword", "damage": "1d", "type": "imp", "fencing": True},
                         "Knife": {"skill": "Broadsword", "damage": "1d", "type": "cut"}})
    assert defend({"type": "parry", "weapon": "Rapier"}, target=fen, state={"parries": 1})[0] == 7
    fen_t = {**fen, "traits": {"trained_by_a_master": True}}
    assert defend({"type": "parry", "weapon": "Rapier"}, target=fen_t, state={"parries": 2})[0] == 7
    assert defend({"type": "parry", "weapon": "Knife"}, target=fen_t, state={"parries": 1})[0] == 7
    assert defend({"type": "parry", "weapon": "Rapier", "retreat": True}, target=fen)[0] == 12
    assert defend({"type": "parry", "weapon": "Knife", "retreat": True}, target=fen)[0] == 10
    assert defend({"type": "parry", "weapon": "Knife", "cross": "Rapier"}, target=fen)[0] == 11
    assert defend({"type": "parry", "weapon": "Knife", "supported": True}, target=fen)[0] == 11
    assert defend({"type": "parry", "weapon": "Sword"}, flail=True)[0] == 5
    with pytest.raises(RuleError):
        defend({"type": "parry", "weapon": "Rapier"}, target=fen, flail=True)
    with pytest.raises(RuleError):
        defend({"type": "parry", "weapon": "Sword"}, ranged=True, distance=5)
    assert defend({"type": "parry", "weapon": "Sword"}, ranged=True, thrown=True, distance=5)[0] == 9


def test_unarmed_parry():
    fist = sheet(weapons={"Punch": {"damage": "1d-2", "type": "cr", "unarmed": True, "reach": "C"}},
                 skills={"Brawling": 12})
    assert defend({"type": "parry", "weapon": "Punch"}, target=fist)[0] == 6          # -3 vs weapons
    assert defend({"type": "parry", "weapon": "Punch"}, target=fist, thrust=True)[0] == 9
    assert defend({"type": "parry", "weapon": "Punch"}, target=fist, armed=False)[0] == 9
    judo = {**fist, "skills": {"Judo": 12}}
    assert defend({"type": "parry", "weapon": "Punch"}, target=judo)[0] == 9
    assert defend({"type": "parry", "weapon": "Punch", "retreat": True}, target=judo)[0] == 12
    dx_only = sheet(weapons={"Punch": {"damage": "1d-2", "type": "cr", "unarmed": True}}, skills={}, DX=12)
    assert defend({"type": "parry", "weapon": "Punch"}, target=dx_only, armed=False)[0] == 9  # DX/2+3


def test_block():
    s = sheet(shield={"skill": "Shield"})
    assert defend({"type": "block"}, target=s)[0] == 9
    assert defend({"type": "block", "retreat": True}, target=s)[0] == 10
    with pytest.raises(RuleError):
        defend({"type": "block"}, target=s, ranged=True, bullet=True)
    with pytest.raises(RuleError):
        defend({"type": "block"}, target=s, state={"blocked": True})
    with pytest.raises(RuleError):
        defend({"type": "block"})


def test_riposte():
    s = sheet(skills={"Broadsword": 16})   # parry 11
    assert defend({"type": "parry", "weapon": "Sword", "riposte": 3}, target=s)[0] == 8
    with pytest.raises(RuleError):
        defend({"type": "parry", "weapon": "Sword", "riposte": 4}, target=s)
    # the attacker takes half the riposte on defending against the defender's next attack
    r = g.attack(req(target=s, defense={"type": "parry", "weapon": "Sword", "riposte": 2}), rolls(10, 5))
    pen = next(e for e in r.effects if e.kind == "defense_penalty")
    assert pen.target == "a" and {k: pen.data[k] for k in ("against", "value")} == {"against": "t", "value": 1}
    assert defend({"type": "dodge"}, state={"defense_penalty": {"t": 1}}, attacker_id="t")[0] == 7


def test_defender_maneuver_limits():
    assert defend({"type": "dodge"}, state={"maneuver": "committed_attack"})[0] == 6
    with pytest.raises(RuleError):
        defend({"type": "dodge", "retreat": True}, state={"maneuver": "committed_attack"})
    with pytest.raises(RuleError):
        defend({"type": "parry", "weapon": "Sword"}, state={"maneuver": "committed_attack", "attacked_with": "Sword"})
    with pytest.raises(RuleError):
        defend({"type": "parry", "weapon": "Sword"}, state={"maneuver": "move_and_attack", "attacked_with": "Sword"})
    assert defend({"type": "dodge"}, state={"maneuver": "defensive_attack"})[0] == 9
    unbal = sheet(weapons={"Axe": {"skill": "Broadsword", "damage": "1d", "type": "cut", "unbalanced": True}})
    assert defend({"type": "parry", "weapon": "Axe"}, target=unbal, state={"maneuver": "defensive_attack"})[0] == 9
    with pytest.raises(RuleError):
        defend({"type": "dodge"}, state={"maneuver": "all_out_attack"})
    with pytest.raises(RuleError):
        defend({"type": "dodge"}, state={"maneuver": "do_nothing"})
    assert defend({"type": "dodge"}, state={"maneuver": "all_out_defense", "variant": "enhanced_dodge"})[0] == 10
    assert defend({"type": "dodge"}, state={"conditions": ["stunned"]})[0] == 4
    assert defend({"type": "dodge"}, state={"feint_penalty": 3})[0] == 5
    assert defend({"type": "parry", "weapon": "Sword"}, state={"feint_penalty": 3})[0] == 9   # dodge only


def test_area_attack_allows_only_dive():
    with pytest.raises(RuleError):
        defend({"type": "dodge"}, area=True, ranged=True)
    assert defend({"type": "dodge", "dive": True}, area=True, ranged=True)[0] == 11


def test_double_defense_and_best_default():
    t = Combatant("t", "T", sheet(), state={"maneuver": "all_out_defense", "variant": "double"})
    a = Combatant("a", "A", sheet())
    request = AttackRequest(a, t, "Sword", options={"defense": "dodge",
                                                    "second_defense": {"type": "parry", "weapon": "Sword"}})
    r = g.attack(request, rolls(10, 12, 9))
    assert not r.hit and r.details["attacks"][0]["defense"]["defense"]["type"] == "parry"
    request.options = {}   # best defense: parry 9 beats dodge 8
    r = g.attack(request, rolls(10, 9))
    assert r.details["attacks"][0]["defense"]["defense"]["type"] == "parry"


def test_critical_hit_allows_no_defense():
    r = g.attack(req("Club", defense="best", settings=NO_VITALS), rolls(3, [2]))
    assert r.hit and r.details["attacks"][0]["defense"]["note"] == "critical hit: no defense"


def test_concentrate_will_roll_when_defending():
    t = Combatant("t", "T", sheet(), state={"maneuver": "concentrate"})
    r = g.attack(AttackRequest(Combatant("a", "A", sheet()), t, "Sword", options={"defense": "dodge"}),
                 rolls(10, 5, 9))
    assert any(e.kind == "concentration_lost" for e in r.effects)   # 9 vs Will 10 - 3


def test_multiple_attacks_count_defenses():
    r = g.attack(req(rapid_strike=1, defense="dodge"), rolls(5, 8, 5, 8, [1]))
    checks = [a["defense"]["checks"][0] for a in r.details["attacks"]]
    assert checks[0]["effective"] == 8 and checks[1]["effective"] == 7


# --- injury consequences ---------------------------------------------------

def test_major_wound_knockdown_stun():
    t = sheet(HP=10)
    r = g.attack(req("Club", target=t, settings=NO_VITALS), rolls(10, [6], 12))
    conds = [e.data["condition"] for e in r.effects if e.kind == "condition"]
    assert "stunned" in conds and "prone" in conds and "unconscious" not in conds
    r = g.attack(req("Club", target=t, settings=NO_VITALS), rolls(10, [6], 15))  # fails by 5
    conds = [e.data["condition"] for e in r.effects if e.kind == "condition"]
    assert "unconscious" in conds


def test_reeling_death_checks_and_death():
    t = sheet(HP=10, hp_current=5)
    r = g.attack(req("Spear", target=t, settings=NO_VITALS, location="torso"), rolls(10, [6], 10))
    # 12 injury: 5 -> -7; major wound (knockdown roll 10 vs HT 10 holds), reeling
    conds = [e.data["condition"] for e in r.effects if e.kind == "condition"]
    assert "reeling" in conds and r.details["hp_after"] == -7
    t = sheet(HP=5, hp_current=1)
    # 12 injury: 1 -> -11 passes -5 and -10: two death checks; fail the second by 2: mortally wounded
    r = g.attack(req("Spear", target=t, settings=NO_VITALS), rolls(10, [6], 10, 10, 12))
    conds = [e.data["condition"] for e in r.effects if e.kind == "condition"]
    assert "mortally wounded" in conds and "unconscious" in conds
    r = g.attack(req("Spear", target=t, settings=NO_VITALS), rolls(10, [6], 10, 13))
    assert "dead" in [e.data["condition"] for e in r.effects if e.kind == "condition"]
    t = sheet(HP=2, hp_current=1)
    r = g.attack(req("Spear", target=t, settings=NO_VITALS), rolls(10, [6], 10))  # 12: to -11 <= -5 x HP
    assert "dead" in [e.data["condition"] for e in r.effects if e.kind == "condition"]
    t = sheet(HP=1, hp_current=1)
    r = g.attack(req("Spear", target=t, settings=NO_VITALS), rolls(10, [6], 10))  # -11 <= -10 x HP
    assert "destroyed" in [e.data["condition"] for e in r.effects if e.kind == "condition"]


def test_hp_loss_checks_thresholds():
    s = sheet(HP=10, HT=10)
    checks, conds = g.hp_loss_checks(s, 0, -25, rolls(10, 10))
    assert [c.purpose for c in checks] == ["death check at -10 HP (HT)", "death check at -20 HP (HT)"]
    assert conds == []
    checks, conds = g.hp_loss_checks(s, -10, -15, rolls())
    assert checks == [] and conds == []


def test_collapse_and_do_nothing():
    assert g.collapse_check(sheet(hp_current=0), rolls()) is None
    assert g.collapse_check(sheet(hp_current=-1), rolls(), maneuver="do_nothing") is None
    c = g.collapse_check(sheet(hp_current=-1), rolls(11))
    assert not c.success


def test_mortal_wound_and_surgery():
    assert g.mortal_wound_check(sheet(), rolls(4))["outcome"] == "healed"
    assert g.mortal_wound_check(sheet(), rolls(9))["outcome"] == "holds"
    assert g.mortal_wound_check(sheet(), rolls(12))["outcome"] == "dead"
    assert g.mortal_wound_check(sheet(), rolls(12, 8), physician_skill=12)["outcome"] == "holds"
    mods = g.surgery_modifiers(-35, 10, attempt=1)
    assert [m.value for m in mods] == [-2, -2]
    assert [m.value for m in g.surgery_modifiers(-45, 10)] == [-4]
    assert g.stabilize(14, -45, 10, rolls(10), attempt=2).effective == 6


def test_fatigue_corrosion_and_face():
    r = g.attack(req("Drain", attacker=sheet(weapons={"Drain": {"skill": "Broadsword", "damage": "1d",
                                                                 "type": "fat"}})), rolls(10, [4]))
    assert [e.kind for e in r.effects if e.target == "t"] == ["fatigue"]
    acid = sheet(weapons={"Acid": {"skill": "Broadsword", "damage": "2d", "type": "cor"}})
    t = sheet(dr={"torso": 2})
    r = g.attack(req("Acid", attacker=acid, target=t, settings=NO_VITALS), rolls(10, [5, 6], 10))
    dr = next(e for e in r.effects if e.kind == "dr_reduced")
    assert dr.data == {"location": "torso", "by": 2, "says": "DR -2 (torso)"}
    r = g.attack(req("Acid", attacker=acid, location="face"), rolls(3, [5, 6], 3))
    assert "blinded (both eyes)" in [e.data["condition"] for e in r.effects if e.kind == "condition"]


def test_apply_result():
    t = sheet(HP=10, dr={"torso": 2})
    r = g.attack(req("Club", target=t, settings=NO_VITALS), rolls(10, [6], 10))
    new = g.SYSTEM.apply(t, r)
    assert new["hp_current"] == 6 and new["shock"] == 4
    assert t.get("hp_current") is None   # the input is untouched


# --- turn order and surprise -----------------------------------------------

def test_initiative_quick_contest_and_leaderless():
    a1 = Combatant("a1", "Ann", sheet(skills={"Tactics": 12}, basic_speed=5), side="red", state={"leader": True})
    a2 = Combatant("a2", "Abe", sheet(basic_speed=6), side="red")
    b1 = Combatant("b1", "Bob", sheet(skills={"Tactics": 14}), side="blue")
    order = g.initiative([a1, a2, b1], rolls(10, 10))
    # red (leader Ann 12, roll 10: +2) beats blue (leaderless 14 - 2 = 12, roll 10: +2)? tie -> higher skill,
    # equal -> name: blue first
    assert [o["id"] for o in order] == ["b1", "a2", "a1"]
    order = g.initiative([a1, a2, b1], rolls(8, 10))
    assert [o["id"] for o in order] == ["a2", "a1", "b1"]    # within a side by Basic Speed
    assert order[-1]["check"]["modifiers"][0]["value"] == -2


def test_initiative_surprised_side_last_and_primal():
    a = Combatant("a", "A", sheet(skills={"Survival": 14}, initiative_style="primal"), side="beasts")
    b = Combatant("b", "B", sheet(skills={"Tactics": 16}, leader=True), side="guards",
                  state={"surprise": "total"})
    order = g.initiative([a, b], rolls())  # the surprise orders them: no contest
    assert [o["id"] for o in order] == ["a", "b"] and order[0]["check"] is None
    c = Combatant("c", "C", sheet(skills={"Survival": 14}, initiative_style="primal"), side="beasts")
    order = g.initiative([c, Combatant("d", "D", sheet(skills={"Tactics": 16}, leader=True), side="guards")],
                         rolls(16, 3))
    assert [o["id"] for o in order] == ["d", "c"] and order[1]["check"]["base_label"] == "Survival"


def test_surprise():
    s = g.surprise(sheet(), "total", rolls([4]))
    assert s["level"] == "total" and s["stun_seconds"] == 4
    cr = g.surprise(sheet(traits={"combat_reflexes": True}), "total", rolls())
    assert cr["level"] == "partial" and cr["stun_seconds"] == 0
    assert g.surprise_recovery(sheet(), 0, rolls(11)).success is False
    assert g.surprise_recovery(sheet(), 1, rolls(11)).success is True


# --- odds ------------------------------------------------------------------

def test_odds_no_defense_no_armour():
    o = g.attack_odds(req("Club", settings=NO_VITALS))
    assert o["p_hit"] == pytest.approx(g.success_chance(12))
    assert o["injury"][0] == pytest.approx(1 - o["p_hit"])
    for k in range(1, 7):
        assert o["injury"][k] == pytest.approx(o["p_hit"] / 6)


def test_odds_with_defense_match_enumeration():
    o = g.attack_odds(req("Club", defense="dodge", settings=NO_VITALS))
    p_crit = g.result_chances(12)["critical success"]
    p_def = g.success_chance(8)
    assert o["p_defense"] == pytest.approx(p_def)
    assert o["p_damage"] == pytest.approx(p_crit + (o["p_hit"] - p_crit) * (1 - p_def))
    assert sum(o["injury"].values()) == pytest.approx(1)


def test_odds_rapid_fire_hits_distribution():
    o = g.attack_odds(req("Gun", distance=3, shots=10, settings=NO_VITALS))
    skill = 14
    expected = {}
    for r, p in g.THREE_D6.items():
        res = g.roll_result(r, skill)
        h = g.extra_hits(skill - r, 2, 10) if g.is_success(res) else 0
        expected[h] = expected.get(h, 0) + p
    for h, p in expected.items():
        assert o["hits"][h] == pytest.approx(p)
    assert o["mean_injury"] == pytest.approx(sum(h * p for h, p in expected.items()) * 3.5)


def test_odds_random_location_sums_to_one():
    o = g.attack_odds(req("Spear", location="random"))
    assert sum(o["injury_per_hit"].values()) == pytest.approx(1)
    assert max(o["injury_per_hit"]) == 18   # vitals: 6 x 3 (skull: (6 - 2) x 4 = 16)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 12), st.integers(0, 6))
def test_odds_more_dr_never_more_mean_injury(dr, more):
    lo = g.attack_odds(req("Spear", target=sheet(dr={"torso": dr}), settings=NO_VITALS))
    hi = g.attack_odds(req("Spear", target=sheet(dr={"torso": dr + more}), settings=NO_VITALS))
    assert hi["mean_injury"] <= lo["mean_injury"] + 1e-12


@settings(max_examples=60, deadline=None)
@given(st.integers(6, 16), st.integers(0, 4), st.lists(st.integers(1, 6), min_size=12, max_size=12))
def test_higher_skill_never_worse_attack_for_same_dice(skill, more, faces):
    def run(level):
        a = sheet(skills={"Broadsword": level})
        r = g.attack(req("Club", attacker=a, settings=NO_VITALS), ScriptedDice(list(faces)))
        return r.details["injury"]
    assert run(skill + more) >= run(skill)


def test_scripted_seed_sheets_are_not_mutated():
    a, t = sheet(), sheet()
    before = copy.deepcopy((a, t))
    request = req("Club", attacker=a, target=t, rapid_strike=1, defense="dodge")
    g.attack(request, rolls(5, 8, 5, 8, [1], [2]))
    assert (a, t) == before and request.target.state == {}


def test_melee_reach_and_long_all_out_attack():
    with pytest.raises(RuleError):
        g.attack(req(distance=2), rolls())
    r = g.attack(req(distance=2, maneuver="all_out_attack", variant="long"), rolls(12, [2]))
    assert r.hit


def test_bracing_and_moving():
    with pytest.raises(RuleError):
        g.attack(req("Gun", distance=10, aim_turns=1, braced=True, moved=1), rolls())


def test_feint_maneuver():
    # attacker skill 12 rolls 6 (margin 6), defender 12 rolls 10 (margin 2): -4 to the defense
    r = g.attack(req(maneuver="feint"), rolls(6, 10))
    assert not r.hit and r.effects[0].kind == "feint_penalty" and {k: r.effects[0].data[k] for k in ("against", "value")} == {"against": "a", "value": 4}
    assert defend({"type": "dodge"}, state={"feint_penalty": {"a": 4}}, attacker_id="a")[0] == 4
    assert defend({"type": "dodge"}, state={"feint_penalty": {"a": 4}}, attacker_id="b")[0] == 8
    r = g.attack(req(maneuver="feint"), rolls(12, 6))
    assert r.effects[0].data["value"] == 0
