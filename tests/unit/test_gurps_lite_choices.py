"""gurps_lite: every choice the rules offer (#23): the attacker's options, each defense combination, surprise,
the end of a fight, Rapid Strike at two targets, Spraying Fire, Suppression Fire areas, laid area attacks and
weapons that spend their shots. Each special case quotes the rule of *3d6 Combat* it tests."""

from __future__ import annotations

import math
import zlib
from collections import Counter

import pytest

import rules
from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant, RuleError

from test_gurps_lite_combat import rolls

S = rules.get("gurps_lite")

SMG = {"skill": "Guns (Pistol)", "damage": "2d", "type": "pi", "kind": "ranged", "rof": 10, "rcl": 2, "max": 200,
       "shots": 30}
GRENADE = {"skill": "Throwing", "damage": "3d", "type": "cr", "kind": "thrown", "area": 2, "max": 30}


def shooter(**weapons):
    sheet = S.default_sheet()
    sheet["weapons"] = {**sheet["weapons"], "SMG": dict(SMG), "Grenade": dict(GRENADE), **weapons}
    return sheet


def req(weapon="Broadsword", options=None, at=(2, 1), sheet=None, target_state=None, attacker_state=None, others=()):
    a = Combatant("a", "Ann", sheet or shooter(), (1, 1), "pc", True, state=dict(attacker_state or {}))
    b = Combatant("b", "Bob", S.default_sheet(), at, "npc", state=dict(target_state or {}))
    dist = max(abs(at[0] - 1), abs(at[1] - 1))
    return AttackRequest(a, b, weapon, dist, None, dict(options or {}), others=list(others))


def by_key(options):
    return {o["key"]: o for o in options}


# --- the attacker's options ---------------------------------------------------------------------

#: every key attack() and the odds read from a client's options
READ_KEYS = {"maneuver", "variant", "moved", "location", "from_behind", "rapid_strike", "dual_weapon", "tip_slash",
             "deceptive", "disarm", "target_weapon", "disarm_st_based", "defender_st_based", "slam", "aim_turns",
             "braced", "shots", "spraying_fire", "target_speed", "aim_at_ground", "modifier"}


def test_the_options_list_every_key_the_attack_reads_in_the_contracts_shape():
    opts = S.attack_options(req())
    assert {o["key"] for o in opts} == READ_KEYS
    for o in opts:
        assert o["kind"] in ("choice", "bool", "int") and "default" in o and "available" in o
        if o["kind"] == "choice":
            assert all({"key", "label"} <= set(v) for v in o["values"])
        if o["kind"] == "int":
            assert o["min"] <= o["max"]
        if not o["available"]:
            assert "3d6 Combat" in o["reason"], o  # the reason names the rule
    assert not {"settings", "defense", "template", "centre"} & {o["key"] for o in opts}


def test_hit_locations_carry_their_penalties_and_only_those_the_damage_type_may_target():
    """"Hit Locations": Eye -9, Skull -7(f)/-5(b), Face -5(f)/-7(b), Neck -5, Vitals -3... the eye and the
    vitals "can only be targeted by imp, pi ... attacks"."""
    sword = {v["key"]: v["label"] for v in by_key(S.attack_options(req()))["location"]["values"]}
    assert sword["skull"] == "Skull (-7)" and sword["face"] == "Face (-5)" and sword["neck"] == "Neck (-5)"
    assert sword["right_hand"] == "Right hand (-4)" and sword["groin"] == "Groin (-3)"
    assert "eye" not in sword and "vitals" not in sword  # a cutting sword
    gun = {v["key"]: v["label"] for v in by_key(S.attack_options(req("SMG", at=(5, 1))))["location"]["values"]}
    assert gun["eye"] == "Eye (-9)" and gun["vitals"] == "Vitals (-3)"
    behind = by_key(S.attack_options(req(options={"from_behind": True})))["location"]["values"]
    assert {"key": "skull", "label": "Skull (-5)"} in behind and {"key": "face", "label": "Face (-7)"} in behind


def test_maneuver_variants_follow_the_maneuver_picked():
    """"Maneuvers": All Out Attack (Melee): Determined +4, Double, Long, Strong, Feint; (Ranged):
    Determined +1, Suppression Fire with RoF 5+."""
    plain = by_key(S.attack_options(req()))
    assert not plain["variant"]["available"] and "Attack has no options" in plain["variant"]["reason"]
    aoa = by_key(S.attack_options(req(options={"maneuver": "all_out_attack"})))["variant"]
    assert [v["key"] for v in aoa["values"]] == ["", "determined", "double", "long", "strong", "feint"]
    assert {"key": "determined", "label": "Determined (+4 to hit)"} in aoa["values"]
    ranged = by_key(S.attack_options(req("SMG", {"maneuver": "all_out_attack_ranged"}, at=(5, 1))))["variant"]
    assert [v["key"] for v in ranged["values"]] == ["", "determined", "suppression_fire"]
    pistol = by_key(S.attack_options(req("Pistol", {"maneuver": "all_out_attack_ranged"}, at=(5, 1))))["variant"]
    assert "suppression_fire" not in [v["key"] for v in pistol["values"]]  # RoF 3
    move_and_attack = by_key(S.attack_options(req("SMG", at=(5, 1))))["maneuver"]["values"]
    assert [v["key"] for v in move_and_attack] == ["attack", "move_and_attack", "all_out_attack_ranged"]


def test_options_the_rules_do_not_offer_now_say_why_and_are_refused():
    sword = by_key(S.attack_options(req()))
    assert sword["tip_slash"]["reason"] == "needs a thrusting impaling weapon (3d6 Combat, 'Attacking', 'Tip Slash')"
    assert not sword["spraying_fire"]["available"] and "RoF 5" in sword["spraying_fire"]["reason"]
    with pytest.raises(RuleError, match="Tip Slash"):
        S.odds(req(options={"tip_slash": True}))
    with pytest.raises(RuleError, match="Rapid Strike with a ranged weapon needs RoF above 1"):
        S.attack(req("Rifle", {"rapid_strike": True}, sheet=shooter(Rifle={"kind": "ranged", "damage": "5d", "type": "pi"}),
                     at=(5, 1)), SeededDice(1))
    with pytest.raises(RuleError, match="'belly' is not one of"):
        S.odds(req(options={"location": "belly"}))
    with pytest.raises(RuleError, match="yes or no"):
        S.odds(req(options={"from_behind": "maybe"}))
    with pytest.raises(RuleError, match="is not from 0 to"):
        S.odds(req(options={"deceptive": 5}))


def test_in_a_fight_aim_is_what_the_aim_maneuver_gave():
    """"Maneuvers", Aim: "Add the Acc bonus of the ranged weapon to the next attack roll": only after Aim."""
    fresh = {"attacks": 0, "aim_turns": 0, "maneuver": None}
    o = by_key(S.attack_options(req("SMG", at=(5, 1), attacker_state=fresh)))["aim_turns"]
    assert not o["available"] and "take the Aim maneuver first" in o["reason"]
    with pytest.raises(RuleError, match="Aim maneuver"):
        S.odds(req("SMG", {"aim_turns": 2}, at=(5, 1), attacker_state=fresh))
    aimed = by_key(S.attack_options(req("SMG", at=(5, 1), attacker_state={**fresh, "aim_turns": 2})))["aim_turns"]
    assert aimed["available"] and aimed["default"] == 2 and aimed["max"] == 2


def test_each_kind_of_option_changes_the_odds_as_its_rule_says():
    base = S.odds(req(options={"defense": "none"}))
    skull = S.odds(req(options={"defense": "none", "location": "skull"}))  # choice: -7
    assert skull["skill"] == base["skill"] - 7
    aoa = S.odds(req(options={"defense": "none", "maneuver": "all_out_attack", "variant": "determined"}))
    assert aoa["skill"] == base["skill"] + 4
    deceptive = S.odds(req(options={"deceptive": 1}))  # int: -2 to hit, -1 to the defense
    plain = S.odds(req())
    assert deceptive["skill"] == plain["skill"] - 2 and deceptive["defense_level"] == plain["defense_level"] - 1
    rapid = S.odds(req(options={"rapid_strike": True, "defense": "none"}))  # bool: two attacks at -6
    assert rapid["skill"] == base["skill"] - 6 and rapid["attacks"] == 2


# --- the defender's choices ----------------------------------------------------------------------

def test_each_defense_combination_is_a_choice_of_its_own_with_its_group():
    melee = by_key(S.defenses(req()))
    assert {"dodge", "dodge+retreat", "dodge+dive", "dodge+acrobatic", "parry:Broadsword",
            "parry:Broadsword+retreat", "parry:Broadsword+riposte2", "block", "block+retreat", "none"} <= set(melee)
    assert melee["dodge+retreat"]["group"] == "Dodge" and melee["parry:Broadsword+retreat"]["group"] == "Parry (Broadsword)"
    # "Retreat: Against melee attacks, gives +3 to dodge"
    assert melee["dodge"]["label"] == "Dodge (7)" and melee["dodge+retreat"]["label"] == "Dodge and retreat (10)"
    # "Acrobatic Dodge: ... if you succeed gain +2 to dodge if you fail take a -2"
    assert melee["dodge+acrobatic"]["label"] == "Acrobatic Dodge (9 or 5)"
    # "Riposte: Take a reduction in your parry skill (cannot reduce it past 8)": Parry 9 cannot lose 2
    assert not melee["parry:Broadsword+riposte2"]["available"]
    assert "cannot take the parry below 8" in melee["parry:Broadsword+riposte2"]["reason"]
    # "Supported: Use a readied weapon and a free hand": the shield hand is not free
    assert "shield hand is not free" in melee["parry:Broadsword+supported"]["reason"]
    sheet = S.default_sheet()
    del sheet["shield"]
    sheet["skills"]["Broadsword"] = 18
    sheet["weapons"]["Knife"] = {"skill": "Broadsword", "damage": "thr", "type": "imp", "reach": "C", "kind": "melee"}
    b = Combatant("b", "Bob", sheet, (2, 1), "npc")
    mine = by_key(S.defenses(AttackRequest(req().attacker, b, "Broadsword", 1)))
    assert mine["parry:Broadsword+riposte2"]["label"] == "Parry with Broadsword, Riposte -2 (attacker -1) (10)"
    assert mine["parry:Broadsword+cross:Knife"]["label"] == "Cross parry with Broadsword and Knife (+2) (14)"
    assert mine["parry:Broadsword+supported"]["label"] == "Supported parry with Broadsword (+2) (14)"
    assert "block" not in mine  # no shield


def test_a_diving_dodge_against_gunfire_is_plus_3_and_leaves_the_defender_prone():
    """"Dive: Against ranged attacks take a +3 to your dodge and go prone." """
    melee = by_key(S.defenses(req()))["dodge+dive"]
    assert not melee["available"] and melee["reason"] == "Dive only against ranged attacks (3d6 Combat, 'Defending', 'Dive')"
    shot = req("SMG", {"defense": "none"}, at=(5, 1))
    dive = by_key(S.defenses(shot))["dodge+dive"]
    assert dive["available"] and dive["label"] == "Dodge with a dive (+3, prone) (10)"
    assert by_key(S.defenses(shot))["dodge"]["label"] == "Dodge (7)"
    # the SMG hits (9 vs 12 - 3 range), Bob dives: Dodge 7 + 3, rolls 10: the shot misses, Bob is prone
    shot.options = {"defense": dive["value"]}
    r = S.attack(shot, rolls(9, 10))
    assert not r.hit
    assert any(e.kind == "condition" and e.target == "b" and e.data == {"condition": "prone", "says": "prone (dived)"}
               for e in r.effects)
    assert "prone" in S.apply(S.default_sheet(), r, "b")["conditions"]
    with pytest.raises(RuleError, match="Dive only against ranged attacks"):
        melee_req = req(options={"defense": {"type": "dodge", "dive": True}})
        S.attack(melee_req, rolls(9, 10))


@pytest.mark.long
def test_the_odds_beside_each_defense_match_the_rolled_frequencies():
    """The contract: the chance to hit against each defense choice is what attack() rolls."""
    for key in ("dodge+retreat", "parry:Broadsword+retreat", "dodge+acrobatic", "block+retreat"):
        value = by_key(S.defenses(req()))[key]["value"]
        odds = S.odds(req(options={"defense": value}))
        dice, n, hits = SeededDice(zlib.crc32(key.encode())), 2500, 0
        for _ in range(n):
            hits += S.attack(req(options={"defense": value}), dice).hit
        p = odds["hit"]
        assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (key, hits / n, p)


# --- surprise and the end of a fight -------------------------------------------------------------

def test_surprised_tokens_act_after_the_attackers_and_are_mentally_stunned():
    """"Turn Order": "If one managed to Totally Suprise a group of defenders ... the attackers go first in
    initiative and the defenders will be mentally stunned for 1d seconds. After this period has elapsed
    the defenders are still stunned but may roll against IQ to break free of it"."""
    a = Combatant("a", "Ann", S.default_sheet(), (1, 1), "pc", True)
    b = Combatant("b", "Bob", S.default_sheet(), (3, 1), "npc", state={"surprised": True})
    # Bob's side is surprised: Ann acts first, with no Tactics contest; 1d = 2 seconds
    u = S.begin_fight([a, b], rolls([2]))
    assert u.order == ["a", "b"] and u.current == "a"
    bob = u.state["combatants"]["b"]
    assert bob["stunned"] and bob["surprise"] == "total" and bob["stun_seconds"] == 2
    assert any(line.startswith("Bob is totally surprised and acts after the attackers: mentally stunned for 2 second")
               and "IQ roll" in line for line in u.log)
    assert "stunned (surprise)" in [x["label"] for x in S.badges(b.sheet, bob)]
    # "Those with Combat Reflexes cannot be Totally Suprised in such situations they are Partially Suprised."
    cr = dict(S.default_sheet(), traits={"combat_reflexes": True})
    c = Combatant("c", "Cid", cr, (3, 2), "npc", state={"surprised": True})
    u = S.begin_fight([a, c], rolls())
    assert u.state["combatants"]["c"]["surprise"] == "partial" and u.state["combatants"]["c"]["stun_seconds"] == 0
    assert any("Cid is partially surprised (Combat Reflexes)" in line for line in u.log)
    # the setting reads the tick as Partial Surprise ("wary defenders")
    u = S.begin_fight([a, b], rolls(), {"surprise_kind": "partial"})
    assert u.state["combatants"]["b"]["surprise"] == "partial"


def test_the_end_of_a_fight_leaves_injury_and_clears_shock_only():
    """The document says nothing of the end of a fight; shock penalises "your next turn" ("Injury")."""
    hurt = dict(S.default_sheet(), hp_current=4, shock=3, conditions=["prone"])
    a = Combatant("a", "Ann", hurt, (1, 1), "pc", True)
    b = Combatant("b", "Bob", S.default_sheet(), (3, 1), "npc")
    end = S.end_fight({}, [a, b], SeededDice(1))
    assert end.sheet_changes == {"a": {"shock": 0}}
    assert "Ann's shock clears: the fight is over" in end.log
    assert any("says nothing of the end of a fight" in line for line in end.log)


# --- several targets -----------------------------------------------------------------------------

def multi(weapon, options, spots, sheet=None):
    a = Combatant("a", "Ann", sheet or shooter(), (1, 1), "pc", True)
    subs = []
    for i, spot in enumerate(spots):
        t = Combatant(f"t{i}", f"Foe {i}", S.default_sheet(), spot, "npc")
        subs.append(AttackRequest(a, t, weapon, max(abs(spot[0] - 1), abs(spot[1] - 1)), None, dict(options)))
    subs[0].targets = list(subs)
    return subs[0]


def test_a_rapid_strike_at_two_targets_makes_one_attack_at_each():
    """"Rapid Strike: turn any attack into two attacks that at -6 ... You split your rate of fire among the
    different targets (like different hit locations or a nearby enemy)"."""
    r = multi("Broadsword", {"rapid_strike": True, "defense": "none"}, [(2, 1), (2, 2)])
    # Broadsword 13 - 6 = 7: Foe 0 is hit (5), Foe 1 is missed (12)
    res = S.attack(r, rolls(5, [3], 12))
    per = {t["target"]: t for t in res.details["targets"]}
    assert per["t0"]["hit"] and not per["t1"]["hit"] and res.hit
    assert [len(t["attacks"]) for t in res.details["targets"]] == [1, 1]
    assert per["t0"]["attacks"][0]["check"]["effective"] == 7 == per["t1"]["skill"]
    assert "Foe 0" in res.summary and "Foe 1" in res.summary and "Rapid Strike" in res.summary
    with pytest.raises(RuleError, match="at most 2 targets"):
        S.attack(multi("Broadsword", {"rapid_strike": True}, [(2, 1), (2, 2), (1, 2)]), SeededDice(1))
    with pytest.raises(RuleError, match="several targets take a Rapid Strike"):
        S.odds(multi("Broadsword", {}, [(2, 1), (2, 2)]))
    with pytest.raises(RuleError, match="reaches 1 yard"):
        S.attack(multi("Broadsword", {"rapid_strike": True}, [(2, 1), (5, 5)]), SeededDice(1))


def test_spraying_fire_splits_the_rof_across_a_30_degree_arc_and_wastes_shots_between_targets():
    """"Spraying Fire: With a weapon RoF 5+ you can attack multiple targets in a 30 degree arc. Split up the
    RoF amongst your targets ... If the targets are not adjacent to each other you waste some shots
    sweeping between them, 1 round per yard"."""
    r = multi("SMG", {"spraying_fire": True, "defense": "none"}, [(11, 1), (11, 3)])  # 1 yard between them
    odds = S.odds(r)
    assert odds["wasted"] == 1 and "1 shot wasted" in odds["note"]
    res = S.attack(r, SeededDice(7))
    shots = [t["attacks"][0]["shots"] for t in res.details["targets"]]
    assert shots == [5, 4]  # RoF 10 less 1 wasted, split, the first taking the odd shot
    assert {"kind": "shots_spent", "target": "a", "data": {"weapon": "SMG", "spent": 10, "says": "fires 10 shots of the SMG"}} \
        in [e.to_dict() for e in res.effects]
    with pytest.raises(RuleError, match=r"Foe 1 is outside the 30 degree arc of the Spraying Fire \(3d6 Combat"):
        S.odds(multi("SMG", {"spraying_fire": True}, [(11, 1), (1, 11)]))
    with pytest.raises(RuleError, match="RoF 5 or more"):
        S.odds(multi("Pistol", {"spraying_fire": True}, [(11, 1), (11, 2)]))
    # "Split up the RoF": the whole RoF, never a number of shots picked (the card's default 1 is no pick)
    with pytest.raises(RuleError, match="Spraying Fire splits the whole RoF"):
        S.odds(multi("SMG", {"spraying_fire": True, "shots": 6}, [(11, 1), (11, 3)]))
    assert S.odds(multi("SMG", {"spraying_fire": True, "shots": 1}, [(11, 1), (11, 3)]))["wasted"] == 1
    # a ranged Rapid Strike: the card's shots 1 (fewer than its two attacks) is one shot each
    assert S.attack(multi("SMG", {"rapid_strike": True, "shots": 1}, [(11, 1), (11, 3)]),
                    SeededDice(3)).details["targets"][1]["attacks"][0]["shots"] == 1


@pytest.mark.long
def test_multi_target_odds_match_the_rolled_frequencies_per_target():
    for options, spots in (({"rapid_strike": True}, [(2, 1), (2, 2)]),
                           ({"spraying_fire": True}, [(8, 1), (8, 2), (8, 3)])):
        weapon = "SMG" if "spraying_fire" in options else "Broadsword"
        odds = S.odds(multi(weapon, options, spots))
        assert math.isclose(sum(o["p"] for o in odds["outcomes"]), 1)
        dice, n = SeededDice(zlib.crc32(repr(options).encode())), 1500
        seen: Counter = Counter()
        count: Counter = Counter()
        for _ in range(n):
            res = S.attack(multi(weapon, options, spots), dice)
            hit = [t["target"] for t in res.details["targets"] if t["hit"]]
            seen.update(hit)
            count[len(hit)] += 1
        for t in odds["targets"]:
            p = t["hit"]
            assert abs(seen[t["id"]] / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (options, t["id"])
        for line in odds["outcomes"]:
            k = 0 if line["label"] == "no target hit" else int(line["label"].split()[0])
            assert abs(count[k] / n - line["p"]) <= 4 * math.sqrt(line["p"] * (1 - line["p"]) / n) + 0.01


# --- Suppression Fire and area attacks ------------------------------------------------------------

def test_a_suppression_area_attacks_whoever_enters_at_8_plus_the_rapid_fire_bonus():
    """"Supression Fire: Using a weapon with a ROF of 5+ you can choose a 2 yard wide area in your weapon range
    (4 yard wide if ROF is 10+) ... When anyone enters this area you attack them at a skill of 8+your rapid fire
    bonus"."""
    a = Combatant("a", "Ann", shooter(), (1, 1), "pc", True, state={"leader": True})
    b = Combatant("b", "Bob", S.default_sheet(), (9, 5), "npc")
    c = Combatant("c", "Cat", S.default_sheet(), (9, 9), "npc")
    u = S.begin_fight([a, b, c], rolls(3, 18))
    assert u.current == "a"
    at = {k: Combatant(v.id, v.name, v.sheet, v.position, v.side, v.is_player, state=dict(u.state["combatants"][k]))
          for k, v in {"a": a, "b": b, "c": c}.items()}
    opts = {"maneuver": "all_out_attack_ranged", "variant": "suppression_fire", "defense": "none"}
    # from the attack card, at Bob: RoF 10 -> a 4 yard wide area on him; he is in it: 8 + 2, rolls 18
    first = S.attack(AttackRequest(at["a"], at["b"], "SMG", 8, None, opts), rolls(18))
    area = first.details["suppressing"]
    assert area["width"] == 4 and area["skill"] == 10 and [9, 5] in area["cells"] and len(area["cells"]) == 16
    assert first.details["attacks"][0]["check"]["effective"] == 10
    state = S.after_attack(u.state, first)
    assert state["combatants"]["a"]["suppressing"] == area
    assert {"weapon": "SMG", "spent": 10, "says": "fires 10 shots of the SMG"} in \
        [e.data for e in first.effects if e.kind == "shots_spent" and e.target == "a"]
    # Cat's turn comes; she walks into the area: Ann's fire attacks her
    state["current"], state["combatants"]["c"]["maneuver"] = "c", "move"
    moved = S.move(state, at["c"], [(9, 9), (9, 8), (9, 7), (9, 6)], 3, [a, b, c], None, SeededDice(1))
    assert moved.provokes == ["a"]
    assert any("Cat enters the area Ann keeps under Suppression Fire" in line for line in moved.log)
    # the owed attack names no weapon and no maneuver: the area's, at 8 + 2; 10 hits, Cat does not defend;
    # 2d = 6 against DR 4, the torso's 1d for the vitals rolls 4
    ann = Combatant("a", "Ann", a.sheet, a.position, "pc", True, state=dict(moved.state["combatants"]["a"]))
    cat = Combatant("c", "Cat", c.sheet, (9, 6), "npc", state=dict(moved.state["combatants"]["c"]))
    due = AttackRequest(ann, cat, None, 8, None, {"free_attack": True, "defense": "none"})
    assert S.odds(due)["skill"] == 10
    hit = S.attack(due, rolls(10, [3, 3], [4]))
    assert hit.hit and hit.details["attacks"][0]["weapon"] == "SMG"
    assert not any(e.kind == "shots_spent" for e in hit.effects)  # the RoF was spent laying the area


def test_an_area_weapon_laid_as_a_sphere_template_and_a_dive_out_of_it():
    """"Area of Effects": "everyone in the effected area is effected. Active defenses can't be used against
    them but you can use a dive as a defense to move out of the way of the AoE ... A spherical AoE can be
    aimed at the ground where the target is standing for a easier +4 to hit"."""
    assert S.area_templates() == [{"key": "sphere", "label": "Sphere (the weapon's area radius)", "shape": "circle",
                                   "size": None}]
    c = Combatant("c", "Cat", S.default_sheet(), (10, 3), "npc")
    far = Combatant("f", "Fay", S.default_sheet(), (20, 20), "npc")
    r = req("Grenade", {"template": "sphere", "centre": [10, 1]}, at=(10, 1), others=[c, far])
    odds = S.odds(r)
    assert {m["label"]: m["value"] for m in odds["modifiers"]}["area attack aimed at the ground"] == 4
    assert {t["id"] for t in odds["targets"]} == {"b", "c"}
    # DX 12 (no Throwing) - 3 (9 yards) + 4 = 13; rolls 9: on the square; Cat dives (Dodge 7 + 3 = 10, rolls 10)
    # clear, prone; Bob's dive rolls 12 and fails: 3d = 12 damage less the average DR 1, a major wound: HT 9
    res = S.attack(r, rolls(9, 10, 12, [4, 4, 4], [3, 3, 3]))
    per = {t["target"]: t for t in res.details["targets"]}
    assert per["b"]["hit"] and per["c"] == {"target": "c", "hit": False, "note": "dives clear"} and "f" not in per
    assert any(e.kind == "condition" and e.target == "c" and e.data["condition"] == "prone" for e in res.effects)
    assert "Cat dives clear (prone)" in res.summary
    # the odds against what is rolled
    dice, n = SeededDice(11), 1500
    caught: Counter = Counter()
    for _ in range(n):
        for t in S.attack(req("Grenade", {"template": "sphere", "centre": [10, 1]}, at=(10, 1), others=[c, far]),
                          dice).details["targets"]:
            caught[t["target"]] += t["hit"]
    for t in odds["targets"]:
        p = t["hit"]
        assert abs(caught[t["id"]] / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01


# --- shots ---------------------------------------------------------------------------------------

def test_weapons_spend_their_shots_and_an_empty_one_is_refused_until_reloaded():
    """Each shot fired comes out of the weapon's Shots; reloading is a Ready maneuver ("Maneuvers", Ready)."""
    sheet = shooter()
    r = S.attack(req("Pistol", {"shots": 3, "defense": "none"}, at=(5, 1), sheet=sheet), rolls(18))
    after = S.apply(sheet, r, "a")
    assert after["weapons"]["Pistol"]["loaded"] == 5  # 8 less 3
    empty = dict(sheet, weapons={**sheet["weapons"], "Pistol": {**sheet["weapons"]["Pistol"], "loaded": 0}})
    with pytest.raises(RuleError, match=r"Pistol is out of shots: reload it first \(a Ready maneuver; 3d6 Combat"):
        S.odds(req("Pistol", at=(5, 1), sheet=empty))
    two = dict(sheet, weapons={**sheet["weapons"], "Pistol": {**sheet["weapons"]["Pistol"], "loaded": 2}})
    with pytest.raises(RuleError, match="Pistol has 2 shots left, not the 3"):
        S.attack(req("Pistol", {"shots": 3}, at=(5, 1), sheet=two), SeededDice(1))
    # in a fight: reload is the turn's Ready maneuver, and fills the weapon
    a = Combatant("a", "Ann", empty, (1, 1), "pc", True, state={"leader": True})
    b = Combatant("b", "Bob", S.default_sheet(), (5, 1), "npc")
    u = S.begin_fight([a, b], rolls(3, 18))
    ann = Combatant("a", "Ann", empty, (1, 1), "pc", True, state=dict(u.state["combatants"]["a"]))
    offered = {o.key: o for o in S.actions(u.state, ann)}
    assert offered["reload:Pistol"].available and offered["reload:Pistol"].label == "Reload Pistol (0/8 shots)"
    done = S.act(u.state, ann, "reload", [a, b], SeededDice(1), options={"weapon": "Pistol"})
    assert done.sheet_changes["a"]["weapons"]["Pistol"]["loaded"] == 8
    assert done.state["combatants"]["a"]["maneuver"] == "ready" and "Ann reloads Pistol: 8 shot(s)" in done.log
    with pytest.raises(RuleError, match="one maneuver a turn"):
        S.act(done.state, ann, "reload:Pistol", [a, b], SeededDice(1))


def test_a_shot_is_offered_neither_dual_weapon_attack_nor_deceptive_attack():
    """#33: both were offered for a bow shot. Dual Weapon Attack ("Attacking": "two different (ready)
    weapons in one attack") and Deceptive Attack (named with the Riposte, "Defending") are read as melee
    options: offered for the sword, closed with the reason for a shot, and refused if sent anyway."""
    bow = dict(S.default_sheet()["weapons"]["Pistol"], skill="Bow", type="imp", rof=1, acc=2, bullet=False)
    archer = dict(shooter(), skills={**shooter()["skills"], "Bow": 16})
    archer["weapons"] = {**archer["weapons"], "Bow": bow}
    sword = by_key(S.attack_options(req(sheet=archer)))
    assert sword["dual_weapon"]["available"] and sword["deceptive"]["available"]
    shot_ = by_key(S.attack_options(req("Bow", sheet=archer, at=(6, 1))))
    for key in ("dual_weapon", "deceptive"):
        assert not shot_[key]["available"] and "melee" in shot_[key]["reason"], shot_[key]
    with pytest.raises(RuleError, match=r"Deceptive Attack .*: melee attacks only"):
        S.odds(req("Bow", {"deceptive": 1}, sheet=archer, at=(6, 1)))
    with pytest.raises(RuleError, match="Dual Weapon Attack"):
        S.odds(req("Bow", {"dual_weapon": "Broadsword"}, sheet=archer, at=(6, 1)))


def test_a_fighter_out_of_the_fight_makes_no_attack_as_it_makes_no_move():
    """*3d6 Combat*, "Injury": collapsed unconscious in its own maneuver (a failed HT roll below 0 HP), a fighter's
    attack is refused as its move is, in the rules' words; a fighter below 0 HP still standing attacks."""
    from rules.dice import SeededDice
    from rules.system import RuleError

    with pytest.raises(RuleError, match="Ann is out of the fight"):
        S.attack(req(attacker_state={"collapsed": True, "maneuver": "attack"}), SeededDice(1))
    sheet = shooter()
    sheet["conditions"] = ["unconscious"]
    with pytest.raises(RuleError, match="out of the fight"):
        S.attack(req(sheet=sheet), SeededDice(1))
    assert S.attack(req(), SeededDice(1)).summary


@pytest.mark.parametrize("reach, maneuver, most", [
    ("C", {}, 1), ("1", {}, 1), ("1,2", {}, 2), ("2,3", {}, 3),
    ("1", {"maneuver": "all_out_attack", "variant": "long"}, 2), ("C,1", {"maneuver": "all_out_attack",
                                                                         "variant": "determined"}, 1)])
def test_the_planners_reach_of_a_melee_weapon_is_where_the_rules_stop_refusing_it(reach, maneuver, most):
    """The foes' planner judges no square past a melee weapon's reach (``suggest.reach``, #68): from there the
    rules refuse the attack ("Maneuvers": All-Out Attack (Long) a yard more), from within it they do not for reach."""
    spear = {"skill": "Spear", "damage": "thr+2", "type": "imp", "reach": reach, "kind": "melee", "attack": "thrust"}
    state = {"maneuver": maneuver["maneuver"], "variant": maneuver["variant"]} if maneuver else {}
    assert S.planner.reach(spear, state, {}) == most
    for far in range(1, 6):
        r = req("Spear", {}, at=(1 + far, 1), sheet=shooter(Spear=spear), attacker_state=state)
        try:
            S.odds(r)
            refused = ""
        except RuleError as exc:
            refused = str(exc)
        assert ("reaches" in refused) == (far > most), (far, refused)
