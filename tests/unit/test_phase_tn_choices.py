"""phase/TN choices from the table (#23): the shooter's options (Targeting, called shots, Aim, fire
mode, the GM's TN), shot results that name who shot whom, and surprise from start_combat."""

from __future__ import annotations

import math

import pytest

from rules import phase_tn as pt
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant, RuleError

S = pt.SYSTEM
NO_TRAUMA = {"trauma_check": False}


def shooter():
    s = S.default_sheet()  # Reflexes 5, handguns 3: +8 to the d10
    s["weapons"].append({"name": "SMG", "skill": "handguns", "damage": "2d6", "mode": "auto"})
    return s


def request(weapon=None, state=None, **options):
    a = Combatant("a", "Ann", shooter(), state=state or {})
    b = Combatant("b", "Bob", S.default_sheet())
    return AttackRequest(a, b, weapon=weapon, options={"settings": NO_TRAUMA, **options})


def listed(req):
    return {o["key"]: o for o in S.attack_options(req)}


def test_the_options_are_the_keys_the_shot_reads_with_the_rule_that_refuses():
    opts = listed(request())
    assert set(opts) == {"targeted", "called", "aim", "mode", "tn", "modifier"}
    assert [v["key"] for v in opts["called"]["values"]][:2] == ["none", "head"]
    assert opts["called"]["values"][1]["label"] == "Head (TN +4)"
    # "Wild shots cannot be 'called', cannot have the Aim action used to improve them"
    assert not opts["called"]["available"] and "wild shot" in opts["called"]["reason"]
    assert not opts["aim"]["available"] and opts["aim"]["max"] == 3
    assert not opts["mode"]["available"] and "not automatic" in opts["mode"]["reason"]
    aimed = listed(request(targeted=True))
    assert aimed["called"]["available"] and aimed["aim"]["available"]
    assert listed(request("SMG"))["mode"]["available"]
    # in a fight the books hold the Targeting: a shot may waive it, not claim it
    books = {"targeting": {}}
    assert not listed(request(state=books))["targeted"]["available"]
    held = {"targeting": {"a": {"target": "b", "acquired_phase": 1}}}
    assert listed(request(state=held))["targeted"] == {**listed(request(state=held))["targeted"], "default": True,
                                                       "available": True}


@pytest.mark.parametrize("options, hit_moves", [
    ({"targeted": True, "called": "head"}, 0),  # choice: the plain TN hits still, the head needs 4 more
    ({"targeted": True, "aim": 3}, +1),  # int: Aim +3
    ({"tn": 12}, -1),  # int: the GM's TN
    ({"targeted": True}, +1),  # bool: no wild shot -2
])
def test_each_pick_moves_the_odds_and_matches_what_the_shot_rolls(options, hit_moves):
    base, picked = S.odds(request()), S.odds(request(**options))
    assert math.isclose(sum(o["p"] for o in picked["outcomes"]), 1, abs_tol=1e-9)
    if hit_moves:
        assert (picked["hit"] - base["hit"]) * hit_moves > 0
    else:
        assert picked["outcomes"] != S.odds(request(targeted=True))["outcomes"]
    n, dice = 1500, SeededDice(7)
    hits = sum(S.attack(request(**options), dice).hit for _ in range(n))
    p = picked["hit"]
    assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (hits / n, p)


def test_refusals_name_the_rule():
    with pytest.raises(RuleError, match="wild shot"):
        S.odds(request(called="head"))
    with pytest.raises(RuleError, match="Aim: a bonus from 0 to 3"):
        S.odds(request(targeted=True, aim=4))
    with pytest.raises(RuleError, match="not an automatic weapon"):
        S.odds(request(mode="burst"))


def test_a_shot_names_who_shot_whom():
    hit = S.attack(request(targeted=True), ScriptedDice([5, 1, 3, 4]))
    assert hit.summary.startswith("Ann shoots Bob: hit (13 vs TN 8)")
    miss = S.attack(request(tn=20), ScriptedDice([1]))
    assert miss.summary == "Ann shoots Bob: miss (7 vs TN 20)"


def test_surprise_no_reaction_then_reflexes_each_phase():
    """"If the target is not aware, they can be surprised ...; they will be unable to react for at least
    one round. Following this, they may make a Reflexes roll (TN 8) at the beginning of each phase to be
    able to begin calling actions. Each phase that this is failed the character receives a +1"."""
    a = Combatant("a", "Ann", S.default_sheet(), (0, 0), "pc")
    b = Combatant("b", "Bob", S.default_sheet(), (3, 0), "npc", state={"surprised": True})
    update = S.begin_fight([a, b], SeededDice(3))
    assert any(line.startswith("Bob is surprised: cannot react for 1 round, then rolls Reflexes (TN 8")
               for line in update.log)
    assert "b" not in update.state["combat"]["order"]  # no declaration while surprised
    assert update.state["combat"]["surprise"]["b"]["from_phase"] == 3  # two phases a round


def test_a_shot_at_several_targets_is_refused_naming_the_rule():
    req = request(targeted=True)
    req.targets = [req, AttackRequest(req.attacker, Combatant("c", "Cal", S.default_sheet()))]
    with pytest.raises(RuleError, match="one target.*Ranged Attacks"):
        S.odds(req)
