"""Savage Worlds: a Rapid Attack divided among targets (#33). The core rules' Rapid Attack, which the
*Savage Worlds Combat System Reference* assumes: up to three Fighting attacks or six shots of a RoF 1
weapon, each at -4, one Wild Die, and the attacks may be divided among targets; each is resolved against
its own target (its Parry or range, its Toughness)."""

from __future__ import annotations

import math

import pytest

from rules import savage_worlds as sw
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant, RuleError

from test_savage_worlds_attacks import ann, sheet

S = sw.SYSTEM


def foe(fid, name, pos, **kw):
    return Combatant(fid, name, sheet(name=name, **kw), pos, "npc")


BOB = foe("bob", "Bob", (1, 0))  # Parry 6, Toughness 7 (1)
# Cy: Fighting d4 (Parry 4), Vigor d4 and no armour (Toughness 4), an Extra
CY = foe("cy", "Cy", (0, 1), skills={"fighting": "d4", "shooting": "d4", "athletics": "d4", "notice": "d4"},
         attributes={"agility": "d6", "smarts": "d6", "spirit": "d6", "strength": "d6", "vigor": "d4"}, armor=0,
         wild_card=False)


def split(weapon="Long sword", targets=(BOB, CY), **options):
    """One request per target, the first the attack's own, as the app builds them."""
    a = ann()
    subs = [AttackRequest(a, t, weapon, distance=1, options=dict(options)) for t in targets]
    first = subs[0]
    first.targets = subs
    first.others = list(targets)
    return first


def test_the_options_offer_one_target_more_per_attack_and_the_shares_by_name():
    opts = {o["key"]: o for o in S.attack_options(split(rapid_attack=3))}
    assert opts["rapid_attack"]["targets"] == "per_attack"
    share = opts["rapid_split"]
    assert share["available"] and share["default"] == "2-1"
    assert [v["label"] for v in share["values"]] == ["Bob 2, Cy 1", "Bob 1, Cy 2"]
    alone = {o["key"]: o for o in S.attack_options(split(targets=(BOB,), rapid_attack=3))}
    assert not alone["rapid_split"]["available"]


def test_each_attack_is_resolved_against_its_own_target_with_one_wild_die():
    # Fighting d8: 8 (aces: +3 = 11) and 2 at Bob, 5 at Cy; Wild Die 6 (aces: +1 = 7) replaces the 2 (Bob's)
    # each at -4: Bob 7 and 3 vs Parry 6 (a hit, a miss); Cy 1 vs Parry 4 (a miss)
    # damage at Bob: Str d6 4 + d8 5 = 9 vs Toughness 7: Shaken
    r = S.attack(split(rapid_attack=3, rapid_split="2-1"), ScriptedDice([8, 3, 2, 5, 6, 1, 4, 5]))
    per = {t["target"]: t for t in r.details["targets"]}
    assert [s["total"] for s in per["bob"]["shots"]] == [7, 3] and per["bob"]["hit"] and per["bob"]["tn"] == 6
    assert [s["total"] for s in per["cy"]["shots"]] == [1] and not per["cy"]["hit"] and per["cy"]["tn"] == 4
    assert per["bob"]["dice"] == 2 and per["cy"]["dice"] == 1 and r.details["rapid_split"] == [2, 1]
    assert {e.target for e in r.effects} == {"bob"} and any(e.kind == "shaken" for e in r.effects)
    assert r.hit and "Bob" in r.summary and "Cy" in r.summary
    assert sum(1 for x in r.rolls if x.purpose.startswith("Wild Die")) == 1
    assert [x.purpose for x in r.rolls[:3]] == ["Fighting die 1 (at Bob)", "Fighting die 2 (at Bob)",
                                             "Fighting die 3 (at Cy)"]
    # the other way round: one at Bob, two at Cy, who falls to a hit (an Extra: any Wound)
    # Fighting 3 at Bob; 8 (+4 = 12) and 1 at Cy; Wild Die 2 (replaces nothing: Bob's 3 is better)
    # Cy: 12-4 = 8 vs Parry 4, a raise; damage Str 6 (+2 = 8) + d8 3 + raise d6 4 = 15 vs Toughness 4: Wounds
    r = S.attack(split(rapid_attack=3, rapid_split="1-2"), ScriptedDice([3, 8, 4, 1, 2, 6, 2, 3, 4]))
    per = {t["target"]: t for t in r.details["targets"]}
    assert not per["bob"]["hit"] and per["cy"]["hit"] and per["cy"]["shots"][0]["raises"] == 1
    assert {e.target for e in r.effects} == {"cy"}


def test_a_split_the_rules_do_not_allow_is_refused_in_their_words():
    with pytest.raises(RuleError, match="each at least one"):
        S.attack(split(rapid_attack=3, rapid_split="3-0"), SeededDice(1))
    with pytest.raises(RuleError, match="reach at most 2 targets"):
        S.odds(split(targets=(BOB, CY, foe("dee", "Dee", (1, 1))), rapid_attack=2))
    with pytest.raises(RuleError, match="one target at a time but for a Rapid Attack"):
        S.attack(split(), SeededDice(1))


def test_the_split_odds_match_what_attack_rolls():
    """Each target's odds (the Wild Die with the first's dice) against 1500 rolled attacks."""
    n, dice = 1500, SeededDice(29)
    request = split("Colt Peacemaker", rapid_attack=5, rapid_split="3-2")
    odds = S.odds(request)
    assert [t["attacks"] for t in odds["targets"]] == [3, 2]
    counts = {"bob": 0, "cy": 0}
    for _ in range(n):
        for t in S.attack(request, dice).details["targets"]:
            counts[t["target"]] += t["hit"]
    for t in odds["targets"]:
        p = t["hit"]
        assert abs(counts[t["id"]] / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (t["name"], counts, p)
    assert "3 shots at Bob, 2 shots at Cy" in odds["note"]
