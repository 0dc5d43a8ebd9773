"""Tesseris (ADS), issue #23: every choice the rules offer, from the table: the attack actions and
what each asks, the defenses each action allows, Spray 'n Pray at several opponents, the surprise
round, the end of a fight and Hunker Down, each test quoting *Tesseris Combat*.

Scripted dT: faces 6-8 are one success each, 1-5 none (9 and 10 would explode).
"""

import copy
import math
import re
from pathlib import Path

import pytest

from dataclasses import replace

from rules import board as board_mod, los
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant, RuleError
from rules.tesseris_ads import SYSTEM, cover
from rules.tesseris_ads.odds import outcome_label
from test_tesseris_ads_fidelity import fighter as base_fighter


WEAPONS = {
    "rifle": {"name": "Assault rifle", "kind": "ranged", "skill": "rifles", "damage": 6, "range": 30, "ap": 1,
              "rof": [1, 3, 8], "jams": True, "ammo": 30},
    "pistol": {"name": "Pistol", "kind": "ranged", "skill": "pistols", "damage": 4, "range": 12, "rof": [1, 0, 0]},
    "knife": {"name": "Knife", "kind": "melee", "skill": "melee", "damage": 2, "light": True},
}


def fighter(id_, pos, side="npc", state=None, **over):
    """The fidelity tests' character, with a loaded rifle, a pistol without bursts and a knife."""
    return base_fighter(id_, pos, side, state, **{"weapons": copy.deepcopy(WEAPONS), **over})


def request(att, tgt, weapon, others=(), **options):
    options.setdefault("into_melee", False)
    return AttackRequest(att, tgt, weapon, options=options, others=list(others))


def by_key(options):
    return {o["key"]: o for o in options}


# -- the attack actions, from the rules --------------------------------------------------------

def test_the_actions_offered_follow_the_weapon_range_and_grapple_with_the_rules_reason():
    """"Ranged Attack Actions" for a rifle (Straight Shot, Burst Fire, Full-Auto, Called Shot,
    Spray 'n Pray...); the maneuvers (Trip, Disarm, Grapple) need the opponent in reach; Pin and
    Choke Out are "(Grapple)" actions; each refused one names why."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (5, 0))
    action = by_key(SYSTEM.attack_options(request(a, t, "rifle")))["action"]
    offered = {v["key"]: v for v in action["values"]}
    assert {"straight_shot", "burst_fire", "full_auto", "called_shot", "distracting_shot", "spray_n_pray"} <= set(offered)
    assert offered["spray_n_pray"]["targets"] == 8  # no more opponents than the Full Auto's bullets
    assert action["default"] == "straight_shot" and action["available"]
    assert "trip" not in offered and "Trip: the target is 5 squares away" in action["help"]
    assert "Pin needs the attacker and the target grappled (Grapple first)" in action["help"]
    # in reach, the maneuvers open; Pin still waits for a grapple
    near = fighter("t", (1, 0))
    melee = by_key(SYSTEM.attack_options(request(a, near, "knife")))["action"]
    keys = {v["key"] for v in melee["values"]}
    assert {"melee_strike", "trip", "disarm", "grapple", "all_out_attack"} <= keys and "pin" not in keys
    # grappled, both: Pin and Choke Out are there, a plain strike is not ("Grappled": grappling actions only)
    g = [{"name": "Grappled", "rounds": None}]
    ga, gt = fighter("a", (0, 0), "pc", statuses=g), fighter("t", (1, 0), statuses=g)
    grappled = by_key(SYSTEM.attack_options(request(ga, gt, "knife")))["action"]
    keys = {v["key"] for v in grappled["values"]}
    assert {"pin", "choke_out", "grapple_strike"} <= keys and "melee_strike" not in keys and grappled["default"] != "melee_strike"
    assert "a grappled character may only take grappling actions" in grappled["help"]


def test_a_pistol_without_full_auto_offers_no_burst_nor_spray_and_says_why():
    """"Rate of Fire (RoF)": a weapon fires only the rates it lists."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (3, 0))
    action = by_key(SYSTEM.attack_options(request(a, t, "pistol")))["action"]
    keys = {v["key"] for v in action["values"]}
    assert "straight_shot" in keys and not keys & {"burst_fire", "full_auto", "spray_n_pray"}
    assert "Spray 'n Pray: Pistol has no auto fire mode" in action["help"]


def test_every_option_the_module_reads_from_a_client_is_listed_whatever_the_action():
    """The app refuses an option key the rules do not list, and the card sends what it showed before
    the action changed: every key ``plan_attack`` reads from the client is listed for every action,
    greyed with the reason where the action does not ask it."""
    read = set()
    for path in Path("rules/tesseris_ads").glob("*.py"):
        read |= set(re.findall(r'opts\.get\("([a-z_]+)"', path.read_text()))
    internal = {"settings", "defense", "dt_successes", "defense_roll", "cover_damage", "modifier_label", "free_attack"}
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (1, 0))
    for weapon, action in [("knife", None), ("knife", "disarm"), ("rifle", "called_shot"), ("rifle", "spray_n_pray")]:
        opts = {"action": action} if action else {}
        listed = by_key(SYSTEM.attack_options(AttackRequest(a, t, weapon, options=opts)))
        assert read - internal <= set(listed), (action, read - internal - set(listed))
        for o in listed.values():
            assert o["available"] or o["reason"], o
    plain = by_key(SYSTEM.attack_options(AttackRequest(a, t, "knife")))
    assert not plain["target_weapon"]["available"] and "only with a Disarm" in plain["target_weapon"]["reason"]
    # a Multi-Strike's secondary weapon left ticked means nothing to a plain strike: its ticks are paid
    r = SYSTEM.attack(request(a, t, "knife", secondary=True, defense="none"), ScriptedDice([1, 1, 1]))
    assert r.details["states"]["a"]["ticks"] == 5 - 2


def test_a_called_shot_aims_at_the_head_or_a_vital_area_only():
    """Called Shot: "Shoot an opponent in the head or similarly vital area"."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (5, 0))
    opts = by_key(SYSTEM.attack_options(request(a, t, "rifle", action="called_shot")))
    aim = opts["called_at"]
    assert aim["available"] and aim["default"] == "head" and [v["key"] for v in aim["values"]] == ["head", "torso"]
    assert not opts["location"]["available"]
    with pytest.raises(RuleError, match="Called Shot: at the head or a similarly vital area"):
        SYSTEM.odds(request(a, t, "rifle", action="called_shot", called_at="legs"))
    # a location left from the plain shot before does not move a Called Shot off the head
    r = SYSTEM.attack(request(a, t, "rifle", action="called_shot", location="legs", defense="none"), ScriptedDice([1, 1, 1]))
    assert r.details["location"] == "head"
    assert SYSTEM.odds(request(a, t, "rifle", action="called_shot", called_at="torso"))["hit"] > 0


def test_a_disarm_lists_the_weapons_the_target_holds():
    """Disarm: "Knock away an opponent's weapon"; the unarmed strike is no weapon to knock away."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (1, 0))
    opts = by_key(SYSTEM.attack_options(request(a, t, "knife", action="disarm")))
    assert [v["key"] for v in opts["target_weapon"]["values"]] == ["rifle", "pistol", "knife"]
    assert opts["take"]["default"] is True
    bare = fighter("t", (1, 0), weapons={})
    opts = by_key(SYSTEM.attack_options(request(a, bare, "knife", action="disarm")))
    assert not opts["target_weapon"]["available"] and "no weapon to knock away" in opts["target_weapon"]["reason"]


def test_mayhem_is_offered_up_to_the_points_held():
    """Mayhem Points: "spend their Mayhem Points ... to gain a bonus on their next roll equal to the
    number of Mayhem Points they spend"."""
    a, t = fighter("a", (0, 0), "pc", mayhem=2), fighter("t", (1, 0))
    m = by_key(SYSTEM.attack_options(request(a, t, "knife")))["mayhem"]
    assert (m["kind"], m["min"], m["max"], m["available"]) == ("int", 0, 2, True)
    plain, spent = SYSTEM.odds(request(a, t, "knife")), SYSTEM.odds(request(a, t, "knife", mayhem=2))
    assert spent["hit"] > plain["hit"]
    none = by_key(SYSTEM.attack_options(request(fighter("b", (0, 0), "pc"), t, "knife")))["mayhem"]
    assert not none["available"] and "Mayhem Points" in none["reason"]


# -- the defenses each action allows -------------------------------------------------------------

def test_each_action_is_resisted_the_way_the_document_says():
    """Trip and Disarm: "resist ... with a successful Duck, Dodge, or Athletics test"; Grapple: "Duck
    or Dodge"; Distracting Shot: "opposed by opponent's Scrutiny"; Parry is "melee only"."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (1, 0))
    def keys(**o):
        return [d["key"] for d in SYSTEM.defenses(request(a, t, "knife", **o))]
    assert keys(action="trip") == ["duck", "dodge", "athletics", "none"]
    assert keys(action="disarm") == ["duck", "dodge", "athletics", "none"]
    assert keys(action="grapple") == ["duck", "dodge", "none"]
    far = fighter("t", (6, 0))
    shot = SYSTEM.defenses(request(a, far, "rifle", action="distracting_shot"))
    assert [d["key"] for d in shot] == ["scrutiny", "none"]
    rifle = {d["key"]: d for d in SYSTEM.defenses(request(a, far, "rifle"))}
    assert not rifle["parry"]["available"] and "Parry only defends against melee attacks" in rifle["parry"]["reason"]


def test_dropping_prone_before_a_dodge_against_a_shot_is_a_choice_of_its_own():
    """Drop Prone: "1 Tick (Reaction)", "+1 [the prone setting: +2] to Defensive rolls against Ranged
    attacks"; as its own choice in the Dodge group, paid with the Dodge, and the target is prone after."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (6, 0))
    choices = {d["key"]: d for d in SYSTEM.defenses(request(a, t, "rifle"))}
    assert choices["dodge+prone"]["group"] == "dodge" and choices["dodge+prone"]["available"]
    assert "dodge+cover" not in choices  # no cover between them: nothing to take
    with pytest.raises(RuleError, match="Take Cover: no cover between the target and this attacker"):
        SYSTEM.odds(request(a, t, "rifle", defense="dodge+cover"))
    b = board_mod.Board(10, 3)
    b.add_cover((5, 0), "sandbag", "s1")
    behind = AttackRequest(a, t, "rifle", cover=los.cover(b, (0, 0), (6, 0)), board=b,
                           options={"into_melee": False})
    covered = {d["key"]: d for d in SYSTEM.defenses(behind)}
    assert covered["dodge+cover"]["available"] and covered["dodge+cover"]["group"] == "dodge"
    assert SYSTEM.odds(replace(behind, options={**behind.options, "defense": "dodge+cover"}))["hit"] < \
        SYSTEM.odds(replace(behind, options={**behind.options, "defense": "dodge"}))["hit"]
    plain = SYSTEM.odds(request(a, t, "rifle", defense="dodge"))
    prone = SYSTEM.odds(request(a, t, "rifle", defense="dodge+prone"))
    assert prone["hit"] < plain["hit"]
    assert [m["value"] for m in prone["modifiers"] if m["label"] == "T's Dodge: Prone"] == [2]
    # attack 3dT [6,6,6] + 2 = 5; Dodge 3dT [6,6,1] + 1 + 2 prone = 5: avoided, and the target lies prone
    r = SYSTEM.attack(request(a, t, "rifle", defense="dodge+prone"), ScriptedDice([6, 6, 6, 6, 6, 1]))
    assert not r.hit and r.details["defense_total"] == 5
    after = r.details["states"]["t"]
    assert after["prone"] is True and after["ticks"] == 5 - 1  # the free Reaction pays Drop Prone's tick
    with pytest.raises(RuleError, match="Drop Prone and Take Cover answer ranged attacks"):
        SYSTEM.odds(request(a, fighter("t", (1, 0)), "knife", defense="dodge+prone"))
    # prone 1 or 2: the document says both ("Drop Prone" +1, "Prone" +2): a setting
    one = SYSTEM.odds(request(a, t, "rifle", defense="dodge+prone", settings={"prone_modifier": 1}))
    assert plain["hit"] > one["hit"] > prone["hit"]


# -- Spray 'n Pray ---------------------------------------------------------------------------------

def spray_at(att, targets, **options):
    reqs = [request(att, t, "rifle", **{**options, "action": "spray_n_pray"}) for t in targets]
    first = reqs[0]
    first.targets = reqs
    return first


def test_spray_n_pray_at_two_opponents_one_roll_one_hit_each():
    """Spray 'n Pray: "Fire a weapon on Full Auto at a -3 penalty against all opponents in a 45
    degree arc out to half the weapon's listed ranged. Each opponent may only be hit once"; one
    attack roll ("Rate of Fire"), each opponent its own defense; the Full Auto's 8 bullets spent."""
    a = fighter("a", (0, 0), "pc")
    tom, rat = fighter("tom", (5, 0)), fighter("rat", (5, 2))
    req = spray_at(a, [tom, rat])
    req.targets[0].options["defense"] = "none"
    req.targets[1].options["defense"] = "dodge"
    # one roll 3dT [6,6,7] = 3 + Rifles 2 - 3 = 2; Tom takes no defense: hit once, net 2;
    # Rat dodges 3dT [6,6,1] = 2 + Acrobatics 1 = 3: avoided
    r = SYSTEM.attack(req, ScriptedDice([6, 6, 7, 6, 6, 1]))
    assert r.hit and r.details["action"] == "spray_n_pray"
    per = {p["target"]: p for p in r.details["targets"]}
    assert per["tom"]["hit"] and not per["rat"]["hit"]
    assert len(per["tom"]["hit_reports"]) == 1  # one bullet at most for each opponent
    assert per["tom"]["attack_total"] == per["rat"]["attack_total"] == 2
    damage = [e for e in r.effects if e.kind == "damage"]
    assert [e.target for e in damage] == ["tom"] and damage[0].data["after_soak"] == 6 + 2 - 1  # AP 2 less AP pen 1
    assert [(e.target, e.data["spent"]) for e in r.effects if e.kind == "ammo"] == [("a", 8)]
    assert r.details["states"]["a"]["ticks"] == 0  # 5 ticks
    assert r.details["states"]["rat"]["defenses"] == 1
    assert "Tom hit" in r.summary and "Rat avoids it (Dodge 3 against 2)" in r.summary
    assert outcome_label(r) == "1 of 2 hit"


def test_spray_n_pray_refusals_name_the_rule():
    a = fighter("a", (0, 0), "pc")
    with pytest.raises(RuleError, match="45 degree arc"):
        SYSTEM.attack(spray_at(a, [fighter("t", (5, 0)), fighter("u", (0, 5))]), ScriptedDice([6] * 10))
    with pytest.raises(RuleError, match="half the listed range"):
        SYSTEM.odds(spray_at(a, [fighter("t", (20, 0))]))
    short = fighter("a", (0, 0), "pc")
    short.sheet["weapons"]["rifle"]["ammo"] = 2
    with pytest.raises(RuleError, match="no more opponents than bullets"):
        SYSTEM.odds(spray_at(short, [fighter(i, (6, k)) for k, i in enumerate("tuv")]))
    with pytest.raises(RuleError, match="fires at opponents"):
        SYSTEM.odds(spray_at(a, [fighter("t", (5, 0)), fighter("u", (5, 1), "pc")]))
    one = request(a, fighter("t", (5, 0)), "rifle")
    one.targets = [one, request(a, fighter("u", (5, 1)), "rifle")]
    with pytest.raises(RuleError, match="Straight Shot attacks one opponent"):
        SYSTEM.odds(one)


def test_spray_n_pray_odds_match_the_rolled_spray():
    """The chance of each count of opponents hit (one shared roll) against the sprays rolled."""
    a = fighter("a", (0, 0), "pc", perception=4)
    def req():
        return spray_at(a, [fighter("tom", (5, 0)), fighter("rat", (6, 1))])
    odds = SYSTEM.odds(req())
    exact = {o["label"]: o["p"] for o in odds["outcomes"]}
    assert math.isclose(sum(exact.values()), 1) and set(exact) <= {"nobody hit", "1 of 2 hit", "2 of 2 hit"}
    assert [t["id"] for t in odds["targets"]] == ["tom", "rat"]
    for t in odds["targets"]:
        assert math.isclose(sum(o["p"] for o in t["outcomes"]), 1)
    n, dice, seen = 1500, SeededDice(5), {}
    for _ in range(n):
        label = outcome_label(SYSTEM.attack(req(), dice))
        seen[label] = seen.get(label, 0) + 1
    for label, p in exact.items():
        assert abs(seen.get(label, 0) / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (label, seen, exact)


# -- surprise ------------------------------------------------------------------------------------

def test_the_surprise_round_awareness_against_stealth():
    """Combat Order 1: "each unaware character rolls an Awareness against Stealth of their hidden
    foes. If the Awareness test is passed then that character gets all of their ticks ... If they
    fail the Awareness test they may only take reactions during the surprise round, up to three
    ticks worth." The log says who and what it cost."""
    ann = fighter("ann", (0, 0), "pc")
    bob = fighter("bob", (4, 0), state={"surprised": True})
    cid = fighter("cid", (5, 0), state={"surprised": True})
    # Ann's Stealth 3dT [6,6,1] + 1 = 3; Bob's Awareness [1,1,1] + 1 = 1 fails, Cid's [6,6,6] + 1 = 4 notices
    u = SYSTEM.begin_fight([ann, bob, cid], ScriptedDice([6, 6, 1, 1, 1, 1, 6, 6, 6, 9, 2, 3]))
    assert u.phase == "surprise"
    books = u.state["combatants"]
    assert books["bob"]["surprised"] and books["bob"]["ticks"] == 3 and not books["bob"]["free_reaction"]
    assert not books["cid"]["surprised"] and books["cid"]["ticks"] == 5
    text = "\n".join(u.log)
    assert "Bob is surprised (Awareness 1 against Stealth 3): no turn in the surprise round, reactions only, up to 3 ticks" in text
    assert "Cid notices the ambush (Awareness 4 against Stealth 3)" in text
    assert u.current != "bob"
    # attacking Bob unaware: +2 in melee, the first attack only ("Attacking Unaware Opponent")
    bob_now = Combatant("bob", "Bob", bob.sheet, (1, 0), "npc", False, books["bob"])
    mods = {m["label"] for m in SYSTEM.odds(request(ann, bob_now, "knife"))["modifiers"]}
    assert "Attacking an unaware opponent" in mods
    r = SYSTEM.attack(request(ann, bob_now, "knife", defense="none"), ScriptedDice([1, 1, 1]))
    again = Combatant("bob", "Bob", bob.sheet, (1, 0), "npc", False, r.details["states"]["bob"])
    assert "Attacking an unaware opponent" not in {m["label"] for m in SYSTEM.odds(request(ann, again, "knife"))["modifiers"]}


def test_surprise_with_nobody_hidden_from_them_costs_nothing_and_says_so():
    a = fighter("a", (0, 0), "pc", state={"surprised": True})
    b = fighter("b", (3, 0), "pc")
    u = SYSTEM.begin_fight([a, b], ScriptedDice([5, 5]))
    assert u.phase == "" and not u.state["combatants"]["a"]["surprised"]
    assert any("no foe is hidden from them" in line for line in u.log)


# -- the end of a fight ----------------------------------------------------------------------------

def test_the_end_of_a_fight_gives_stamina_back_loses_mayhem_and_ends_level_1_statuses():
    """"After each combat, assuming they are still conscious, a character will regain an amount of
    Stamina equal to their current maximum (Full Max - Wounds)"; "Unspent Mayhem Points at the end of
    a combat are lost"; "Level 1 status effects ... are typically removed after the current combat",
    "Level 2 ... reduced ... to an appropriate Level 1 effect"; the unconscious stay so."""
    hurt = fighter("ann", (0, 0), "pc", stamina=3, wounds=2, mayhem=2,
                   statuses=[{"name": "Dazed", "rounds": 1}, {"name": "Stunned", "rounds": 2}])
    out = fighter("bob", (1, 0), stamina=0, wounds=4,
                  statuses=[{"name": "Unconscious", "rounds": None}, {"name": "Bloodied", "rounds": None}])
    u = SYSTEM.end_fight({}, [hurt, out], ScriptedDice([]))
    ann = u.sheet_changes["ann"]
    assert ann["stamina"] == 10 + 2 * 3 + 3 - 2 and ann["mayhem"] == 0
    assert [s["name"] for s in ann["statuses"]] == ["Dazed"]  # Dazed ends, Stunned drops to Dazed
    assert "stamina" not in u.sheet_changes.get("bob", {})
    assert {s["name"] for s in u.sheet_changes.get("bob", {}).get("statuses", out.sheet["statuses"])} >= {"Unconscious"}
    text = "\n".join(u.log)
    assert "Ann: Stamina back to 17 (the current maximum, less 2 for Wounds); 2 unspent Mayhem points lost" in text
    assert "Bob: stays unconscious" in text


# -- Hunker Down -----------------------------------------------------------------------------------

def test_hunker_down_stops_attacks_across_the_cover_not_beside_it():
    """Hunker Down: "Hunkering down blocks line of sight with opponents on the opposite side of the
    cover they are behind. While hunkered down, a character may not make any offensive actions [on]
    those opponents without first standing up"; an opponent beside the cover is not across it."""
    b = board_mod.Board(10, 6)
    b.add_cover((3, 2), "stone", "c1")
    hunkered = {**cover.take_cover({}, b, (2, 2)), "stances": ["hunkered"]}
    a = fighter("a", (2, 2), "pc", state=hunkered)
    beside, across = fighter("t", (3, 3)), fighter("u", (4, 2))
    ok = AttackRequest(a, beside, "knife", board=b, options={"defense": "none"})
    assert SYSTEM.attack(ok, ScriptedDice([6, 6, 6])).hit
    no = AttackRequest(a, across, "rifle", board=b, options={"defense": "none", "into_melee": False})
    with pytest.raises(RuleError, match="Stand Up .* across the cover"):
        SYSTEM.attack(no, ScriptedDice([]))
    action = by_key(SYSTEM.attack_options(no))["action"]
    assert not action["available"] and "across the cover" in action["reason"] + action.get("help", "")


# -- every option against what attack() rolls -------------------------------------------------------

def _offered_picks():
    """One pick of every kind the card offers: each attack action allowed for a rifle at 5 squares and a
    knife at 1, a bool (higher ground), an int (Mayhem) and a choice (a Called Shot at the torso)."""
    a = fighter("a", (0, 0), "pc", mayhem=2)
    picks = []
    for weapon, where in (("rifle", (5, 0)), ("knife", (1, 0))):
        action = by_key(SYSTEM.attack_options(request(a, fighter("t", where), weapon)))["action"]
        picks += [(weapon, where, {"action": v["key"]}) for v in action["values"]]
    picks += [("knife", (1, 0), {"higher_ground": True}), ("knife", (1, 0), {"mayhem": 2}),
              ("rifle", (5, 0), {"action": "called_shot", "called_at": "torso"}),
              ("rifle", (5, 0), {"defense": "dodge+prone"}), ("knife", (1, 0), {"action": "trip", "defense": "athletics"})]
    return picks


@pytest.mark.parametrize("weapon,where,picked", _offered_picks(), ids=lambda v: str(v))
def test_each_option_the_card_offers_has_odds_that_match_the_rolls(weapon, where, picked):
    """The exact odds of each offered choice against a Monte Carlo of ``attack()`` read back with
    ``outcome_label``: every line within four standard errors and a hair, no outcome the odds miss."""
    def make():
        return request(fighter("a", (0, 0), "pc", mayhem=2), fighter("t", where), weapon, **picked)
    odds = SYSTEM.odds(make())
    exact = {o["label"]: o["p"] for o in odds["outcomes"]}
    assert math.isclose(sum(exact.values()), 1, abs_tol=1e-9)
    n, dice, seen = 700, SeededDice(11), {}
    for _ in range(n):
        label = outcome_label(SYSTEM.attack(make(), dice))
        seen[label] = seen.get(label, 0) + 1
    assert set(seen) <= set(exact), (set(seen) - set(exact))
    for label, p in exact.items():
        assert abs(seen.get(label, 0) / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.015, (label, seen, exact)


def test_covering_fire_from_the_attack_card_spends_the_full_auto_and_covers_the_allies():
    """Covering Fire: "Spray the area with indiscriminate fire ... Grants allies +1 to defense rolls
    until the start of character's next turn. May only be used with a weapon that has a Full Auto
    option and expends equivalent ammunition"."""
    a, t, ally = fighter("a", (0, 0), "pc"), fighter("t", (6, 0)), fighter("b", (1, 1), "pc")
    r = SYSTEM.attack(request(a, t, "rifle", [ally], action="covering_fire"), ScriptedDice([]))
    assert not r.hit and r.details["states"]["a"]["ticks"] == 5 - 3
    assert "covered_by_fire" in r.details["states"]["b"]["stances"]
    assert [(e.kind, e.data["spent"], e.data["says"]) for e in r.effects] == [("ammo", 8, "8 rounds from the Assault rifle")]
    assert r.summary == "A lays down Covering Fire at T with the Assault rifle (8 rounds): +1 to the defense rolls of B until A's next turn"
    covered = Combatant("b", "B", ally.sheet, (1, 1), "pc", True, r.details["states"]["b"])
    mods = SYSTEM.odds(request(t, covered, "rifle", defense="dodge"))["modifiers"]
    assert any(m["label"].endswith("Covering fire from an ally") and m["value"] == 1 for m in mods)
    with pytest.raises(RuleError, match="only with a weapon that has a Full Auto option"):
        SYSTEM.attack(request(a, t, "pistol", action="covering_fire"), ScriptedDice([]))


def test_results_read_in_the_games_words():
    """The summary and each effect say what happened, not the bookkeeping."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (5, 0))
    # Burst Fire: 3dT [6,6,6] + 2 - 1 = 4 against no defense: bullets at 4, 2, 0: 2 of 3 hit
    r = SYSTEM.attack(request(a, t, "rifle", action="burst_fire", defense="none"), ScriptedDice([6, 6, 6]))
    assert r.summary.startswith("A: Burst Fire at T with the Assault rifle, 4 with no defense: 2 of 3 bullets hit (torso)")
    words = [e.data["says"] for e in r.effects]
    assert "3 rounds from the Assault rifle" in words
    assert "9 damage to the torso: 9 Stamina, 1 Wound" in words  # 6 + net 4 - (AP 2 - pen 1)


def test_a_free_attack_a_move_provoked_is_a_reaction_strike():
    """Movement Actions: "Provokes an Reactive Attack from foes adjacent to you"; Reaction Strike:
    "1 Tick (Reaction)", "always Melee attacks": the due attack's default action."""
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (1, 0))
    action = by_key(SYSTEM.attack_options(request(a, t, "knife", free_attack=True)))["action"]
    assert action["default"] == "reaction_strike"
    r = SYSTEM.attack(request(a, t, "knife", free_attack=True, defense="none"), ScriptedDice([1, 1, 1]))
    assert r.details["action"] == "reaction_strike"
    assert r.details["states"]["a"]["ticks"] == 5 and r.details["states"]["a"]["free_reaction"] is False
