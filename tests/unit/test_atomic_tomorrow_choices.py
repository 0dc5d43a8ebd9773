"""Atomic Tomorrow choices from the table (#23): its situational steps as options, Engaged and the
range band, Distant's penalty as a setting, surprise refused, area weapons hitting a whole zone."""

from __future__ import annotations

import math

import pytest

from rules import atomic_tomorrow as at
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, Combatant, RuleError

S = at.SYSTEM
LAUNCHER = {"name": "Grenade launcher", "skill": "ranged", "wound_rating": 3, "armour_piercing": 0,
            "ranges": ["far"], "area": True}


def who(cid, zone="z1", **over):
    return Combatant(cid, cid.capitalize(), {**S.default_sheet(), **over}, zone, "pc" if cid == "ann" else "npc")


def request(weapon="Blast pistol", distance=1, others=(), **options):
    return AttackRequest(who("ann", "z0"), who("bob"), weapon, distance, options=options, others=list(others))


def listed(req):
    return {o["key"]: o for o in S.attack_options(req)}


def test_the_options_are_the_documents_steps_and_every_key_the_attack_reads():
    opts = listed(request())
    assert set(opts) == {"bonus", "penalty", "defense_bonus", "defense_penalty", "engaged", "range"}
    assert [v["key"] for v in opts["penalty"]["values"]] == ["0", "-20", "-40", "-60", "-80"]
    assert [v["key"] for v in opts["bonus"]["values"]] == ["0", "20", "40"]
    assert not opts["engaged"]["available"] and "same zone" in opts["engaged"]["reason"]
    assert listed(request("Vibro-knife", 0))["engaged"] == {**listed(request("Vibro-knife", 0))["engaged"],
                                                            "available": True, "default": True}


@pytest.mark.parametrize("options, moves", [({"penalty": "-40"}, -1), ({"bonus": 20}, +1),
                                            ({"defense": "dodge", "defense_penalty": -20}, +1)])
def test_each_step_moves_the_odds_and_matches_what_attack_rolls(options, moves):
    """Core facts: situational modifiers come in steps of 20, +40 down to -80."""
    plain = {k: v for k, v in options.items() if k == "defense"}
    base, picked = S.odds(request(**plain)), S.odds(request(**options))
    assert (picked["hit"] - base["hit"]) * moves > 0
    n, dice = 1500, SeededDice(11)
    hits = sum(S.attack(request(**options), dice).hit for _ in range(n))
    p = picked["hit"]
    assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (hits / n, p)


def test_only_the_largest_situational_modifier_applies():
    both = S.odds(request(bonus=20, penalty=-40))
    assert both["hit"] == S.odds(request(penalty=-40))["hit"]
    with pytest.raises(RuleError, match="steps of 20"):
        S.odds(request(penalty=-30))


def test_distant_is_a_setting_between_no_modifier_and_a_difficult_shot():
    """POSITIONING: "Distant: Requires significant movement to reach (difficult shot)"; the core facts:
    the range bands carry no to-hit modifier. ``distant_penalty`` picks the reading (default 0)."""
    rifle = {"name": "Blast rifle", "skill": "ranged", "wound_rating": 3, "armour_piercing": 0,
             "ranges": ["far", "distant"], "area": False}
    a = who("ann", "z0", weapons=[rifle])
    base = S.odds(AttackRequest(a, who("bob", "z2"), "Blast rifle", 2, options={}))
    hard = S.odds(AttackRequest(a, who("bob", "z2"), "Blast rifle", 2,
                                options={"settings": {"distant_penalty": -20}}))
    assert S.default_settings()["distant_penalty"] == 0
    assert hard["hit"] < base["hit"]
    assert {"label": "Distant: a difficult shot", "value": -20, "source": "POSITIONING (setting distant_penalty)"} \
        in hard["modifiers"]
    with pytest.raises(RuleError, match="distant_penalty"):
        S.odds(AttackRequest(a, who("bob", "z2"), "Blast rifle", 2, options={"settings": {"distant_penalty": 20}}))


def test_surprise_is_refused_because_the_document_has_none():
    caught = who("bob")
    caught.state = {"surprised": True}
    with pytest.raises(RuleError, match="no surprise rule.*INITIATIVE AND TURN SEQUENCE.*Bob"):
        S.begin_fight([who("ann", "z0"), caught], SeededDice(1))


def test_an_area_weapon_hits_everyone_in_the_target_zone_on_one_roll():
    """Core facts: "a grenade launcher Far, hitting everyone in the target zone"."""
    ann = who("ann", "z0", weapons=[LAUNCHER])
    bob, cal, dee = who("bob"), who("cal"), who("dee", "z2")
    req = AttackRequest(ann, bob, "Grenade launcher", 1, others=[cal, dee])
    # the attack 12 (ordinary: Wound Rating 3), Bob's soak 100, Cal's soak 100: 3 - 1 light armour each
    r = S.attack(req, ScriptedDice([12, 100, 100]))
    assert r.hit and [t["target"] for t in r.details["targets"]] == ["bob", "cal"]
    assert {(e.target, e.data["wounds"]) for e in r.effects if e.kind == "wounds"} == {("bob", 2), ("cal", 2)}
    assert "it hits Bob, Cal" in r.summary
    odds = S.odds(req)
    assert [t["id"] for t in odds["targets"]] == ["bob", "cal"] and math.isclose(odds["targets"][1]["hit"],
                                                                                  odds["hit"])
