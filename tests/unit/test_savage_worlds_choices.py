"""Savage Worlds choices from the table (#23): the attack options, Surprise, a session's Bennies, the
Soak roll, Gang Up's setting, the end of a fight; each against the rule it encodes."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings, strategies as st

from rules import savage_worlds as sw
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, AttackResult, Combatant, Effect, RuleError

from test_savage_worlds_attacks import ann, sheet  # Ann's sheet: Shooting d6, Fighting d8, a Colt, a Long sword

S = sw.SYSTEM


def bob(pos=(1, 0), **kw):
    return Combatant("bob", "Bob", sheet(name="Bob", **kw), pos, "npc")


def req(weapon="Long sword", target=None, **options):
    return AttackRequest(ann(), target or bob(), weapon, distance=1, options=options)


def listed(request):
    return {o["key"]: o for o in S.attack_options(request)}


def test_every_option_the_attack_reads_is_listed_with_a_kind_and_a_reason_when_not_offered():
    for weapon in ("Long sword", "Colt Peacemaker", None):
        opts = listed(req(weapon))
        assert {"called", "wild_attack", "aim", "rapid_attack", "unarmed_defender", "nonlethal", "rof",
                "two_weapons", "both_barrels", "actions", "running", "joker", "mounted", "charge", "object",
                "launched", "modifier"} <= set(opts)
        for o in opts.values():
            assert o["kind"] in ("choice", "bool", "int") and o["label"]
            assert o["available"] or o["reason"], o
            if o["kind"] == "choice":
                assert o["default"] in [v["key"] for v in o["values"]]
            if o["kind"] == "int":
                assert o["min"] <= o["default"] <= o["max"]
    sword, gun = listed(req("Long sword")), listed(req("Colt Peacemaker"))
    assert sword["wild_attack"]["available"] and not gun["wild_attack"]["available"]
    assert "Wild Attack" in gun["wild_attack"]["reason"]
    assert gun["aim"]["available"] and not sword["aim"]["available"]
    assert sword["rapid_attack"]["max"] == 3 and gun["rapid_attack"]["max"] == 6


def test_unarmed_defender_defaults_from_the_target_and_the_gm_may_say_otherwise():
    """"Unarmed Defender: Armed attacker gets +2 to Fighting if target has no weapon/shield"."""
    unarmed = bob(weapons={})
    assert listed(req(target=unarmed))["unarmed_defender"]["default"] is True
    assert listed(req())["unarmed_defender"]["default"] is False
    plain = S.odds(req(target=unarmed))
    told = S.odds(req(target=unarmed, unarmed_defender=False))
    assert any(m["label"] == "Unarmed defender" for m in plain["modifiers"])
    assert told["hit"] < plain["hit"]
    with pytest.raises(RuleError, match="Unarmed Defender"):
        S.odds(AttackRequest(ann(), unarmed, None, distance=1, options={"unarmed_defender": True}))


@pytest.mark.parametrize("weapon, options, effect", [
    ("Long sword", {"called": "head"}, -4),  # choice: Called Shot, head -4 (+4 damage)
    ("Long sword", {"called": "limb"}, -2),
    ("Long sword", {"wild_attack": True}, +2),  # bool: Wild Attack +2
    ("Colt Peacemaker", {"aim": True}, +2),  # bool: Aim +2
])
def test_each_pick_moves_the_odds_by_its_modifier(weapon, options, effect):
    base = S.odds(req(weapon))
    picked = S.odds(req(weapon, **options))
    assert picked["modifier"] - base["modifier"] == effect
    assert (picked["hit"] > base["hit"]) == (effect > 0)
    assert math.isclose(sum(o["p"] for o in picked["outcomes"]), 1, abs_tol=1e-9)


def test_a_called_head_shot_adds_four_damage_and_wild_attack_two_and_leaves_the_attacker_vulnerable():
    head = S.odds(req(called="head"))
    assert {"label": "Called Shot: Head (damage)", "value": 4, "source": "Called Shot"} in head["modifiers"]
    assert {"label": "Called Shot: Head", "value": -4, "source": "Called Shot"} in head["modifiers"]  # to hit
    # Fighting d8 7, Wild Die 1 -> 7 + 2 (Wild Attack) = 9 vs Parry 6: a hit; damage Str d6 3 + sword 4 + 2
    r = S.attack(req(wild_attack=True), ScriptedDice([7, 1, 3, 4]))
    assert r.hit and ("vulnerable", "ann") in [(e.kind, e.target) for e in r.effects]
    assert r.details["damage"][0]["damage"] == 9


def test_rapid_attack_rolls_one_die_per_attack_at_minus_four_and_is_refused_past_the_rule():
    """Rapid Attack: up to three Fighting attacks (six shots) at -4 each, one Wild Die."""
    # Fighting d8 5, 3 and 2, Wild Die 4 (replaces the 2); each -4: 1, -1 and 0 against Parry 6
    r = S.attack(req(rapid_attack=3), ScriptedDice([5, 3, 2, 4]))
    assert [s["total"] for s in r.details["shots"]] == [1, -1, 0] and not r.hit
    one = S.odds(req())
    three = S.odds(req(rapid_attack=3))
    assert three["rof"] == 3 and three["modifier"] == one["modifier"] - 4
    with pytest.raises(RuleError, match="Rapid Attack: 1 to 3"):
        S.odds(req(rapid_attack=4))
    with pytest.raises(RuleError, match="Wild Attack: melee attacks only"):
        S.odds(req("Colt Peacemaker", wild_attack=True))


@pytest.mark.parametrize("weapon, options", [
    ("Long sword", {"called": "vitals"}), ("Long sword", {"wild_attack": True}),
    ("Long sword", {"rapid_attack": 2}), ("Colt Peacemaker", {"aim": True, "called": "hand"})])
def test_the_chance_to_hit_with_each_option_matches_what_attack_rolls(weapon, options):
    """The odds-against-attack contract, option by option: four standard errors and a hair."""
    n, dice = 1500, SeededDice(23)
    hits = sum(S.attack(req(weapon, **options), dice).hit for _ in range(n))
    p = S.odds(req(weapon, **options))["hit"]
    assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.01, (hits / n, p)


def test_gang_up_counting_the_attacker_is_a_setting():
    """"Gang Up: Each adjacent enemy (not Stunned) gives +1 to Fighting (max +4)": by default the attacker
    counts only the other foes next to the target; ``gang_up_counts_attacker`` counts the attacker too."""
    friend = Combatant("cat", "Cat", sheet(), (1, 1), "pc")
    request = AttackRequest(ann(), bob(), "Long sword", distance=1, others=[friend])
    mods = {m["label"]: m["value"] for m in S.odds(request)["modifiers"]}
    assert mods["Gang up (1 foe, 0 allies)"] == 1
    request.options = {"settings": {"gang_up_counts_attacker": True}}
    mods = {m["label"]: m["value"] for m in S.odds(request)["modifiers"]}
    assert mods["Gang up (2 foes, 0 allies)"] == 2
    assert S.default_settings()["gang_up_counts_attacker"] is False


def test_surprise_puts_the_attackers_on_hold_and_the_victims_roll_notice():
    """"Surprise: Attackers are on Hold. Victims must make a Notice check: Success: get Action Card
    normally; Failure: no card, cannot act in first round"."""
    a = ann()
    b = Combatant("bob", "Bob", sheet(), (3, 0), "npc", state={"surprised": True})
    c = Combatant("cal", "Cal", sheet(), (4, 0), "npc", state={"surprised": True})
    # the deck's shuffle takes its dice first; then Bob's Notice d6 1 and Wild Die 1 (fails), Cal's 5 and 2
    for seed in range(40):
        update = S.begin_fight([a, b, c], SeededDice(seed))
        per = update.state["combatants"]
        assert per["ann"]["on_hold"] and "ann" in update.order  # on Hold, and still in the fight
        assert any("caught unaware" in line and "Bob, Cal" in line for line in update.log)
        for who in ("bob", "cal"):
            if per[who]["surprised"]:  # failed Notice: no card, no action this round
                assert per[who]["card"] is None and who in update.order and per[who]["acted"]
                assert any(line.startswith(("Bob: Surprised", "Cal: Surprised")) for line in update.log)
            else:
                assert per[who]["card"] and who in update.order
    assert any(S.begin_fight([a, b, c], SeededDice(s)).state["combatants"]["bob"]["surprised"] for s in range(40))
    assert not all(S.begin_fight([a, b, c], SeededDice(s)).state["combatants"]["bob"]["surprised"]
                   for s in range(40))


def test_a_wild_card_without_a_count_is_dealt_a_sessions_bennies_and_the_sheet_reads_the_same():
    bare = sheet()
    del bare["bennies"]
    assert S.derived(bare)["bennies"] == 3 and {"label": "3 Bennies", "kind": "resource"} in S.badges(bare)
    update = S.begin_fight([Combatant("ann", "Ann", bare, (0, 0), "pc"), bob()], SeededDice(1))
    assert update.sheet_changes["ann"]["bennies"] >= 3 and "bob" not in update.sheet_changes or \
        update.sheet_changes["bob"].get("bennies", 3) >= 3
    assert "Ann is dealt 3 Bennies for the session" in update.log


def wounded(**kw):
    before = sheet(wounds=1, shaken=False, bennies=2, **kw)
    result = AttackResult(True, "", effects=[Effect("wounds", "bob", {"wounds": 2}), Effect("shaken", "bob")],
                          details={"target": "bob"})
    after = S.apply(before, result, "bob")
    return before, after, result


def test_a_soak_roll_takes_back_a_wound_per_success_and_raise_and_spends_a_benny():
    """Bennies, Soak rolls: spend a Benny, roll Vigor; a success soaks a Wound, each raise one more;
    every Wound soaked takes the attack's Shaken too."""
    before, after, result = wounded()
    offer = S.soak_offer(before, after, result, "bob")
    assert offer == {"wounds": 2, "before": {"wounds": 1, "shaken": False, "incapacitated": False}}
    # Vigor d8 8 (aces) + 4 = 12, Wild Die 2; -1 for the wound it had before: 11, a raise -> both soaked
    out = S.soak(after, offer, ScriptedDice([8, 4, 2]), "Bob")
    assert out["soaked"] == 2 and out["sheet"]["wounds"] == 1 and out["sheet"]["bennies"] == 1
    assert out["sheet"]["shaken"] is False and "soaks 2 of 2 Wounds" in out["log"]
    # Vigor 3, Wild Die 1, -1: 2, a failure -> nothing soaked, the Benny spent all the same
    out = S.soak(after, offer, ScriptedDice([3, 1]), "Bob")
    assert out["soaked"] == 0 and out["sheet"]["wounds"] == 3 and out["sheet"]["bennies"] == 1
    assert out["sheet"]["shaken"] is True
    # Vigor 5, Wild Die 1, -1: 4, a success -> one soaked
    out = S.soak(after, offer, ScriptedDice([5, 1]), "Bob")
    assert out["soaked"] == 1 and out["sheet"]["wounds"] == 2 and out["sheet"]["shaken"] is True


def test_no_soak_without_a_benny_or_for_an_extra_or_without_wounds():
    before, after, result = wounded()
    assert S.soak_offer(before, {**after, "bennies": 0}, result, "bob") is None
    assert S.soak_offer(before, {**after, "wild_card": False}, result, "bob") is None
    assert S.soak_offer(before, after, AttackResult(True, "", effects=[Effect("shaken", "bob")]), "bob") is None
    _, _, _ = before, after, result
    offer = S.soak_offer(before, after, result, "bob")
    with pytest.raises(RuleError, match="no Benny"):
        S.soak({**after, "bennies": 0}, offer, ScriptedDice([6, 6]), "Bob")


def test_a_soak_past_incapacitation_brings_the_wild_card_back():
    before = sheet(wounds=3, bennies=1)
    result = AttackResult(True, "", effects=[Effect("wounds", "bob", {"wounds": 1}),
                                             Effect("incapacitated", "bob")], details={"target": "bob"})
    after = S.apply(before, result, "bob")
    assert after["incapacitated"]
    offer = S.soak_offer(before, after, result, "bob")
    out = S.soak(after, offer, ScriptedDice([8, 2, 1]), "Bob")  # Vigor d8 8 + 2 - 3 = 7: a success
    assert out["soaked"] == 1 and not out["sheet"]["incapacitated"] and out["sheet"]["wounds"] == 3


def test_the_end_of_a_fight_ends_vulnerable():
    """Vulnerable lasts to the end of the character's next turn: a finished fight has none."""
    a = Combatant("ann", "Ann", sheet(vulnerable=True, shaken=True), (0, 0), "pc")
    out = S.end_fight({}, [a, bob()], SeededDice(1))
    assert out.sheet_changes == {"ann": {"vulnerable": False}}
    assert out.log == ["Ann is no longer Vulnerable: the fight is over"]


def test_a_deviating_blast_says_so_and_names_whom_it_hit():
    """"Failure with blast: Deviation": the missed blast lands elsewhere and hits who is there."""
    a = Combatant("ann", "Ann", sheet(weapons={"Grenade": {"damage": "3d6", "range": "5/10/20", "thrown": True}}),
                  (0, 0), "pc")
    b = Combatant("bob", "Bob", sheet(), (6, 0), "npc")
    c = Combatant("cal", "Cal", sheet(), (3, 0), "npc")
    # Athletics d6 1, Wild Die 2: a miss at Medium; deviation d6 3" (x2, at most half the way) toward the
    # thrower, on Cal
    r = S.attack(AttackRequest(a, b, "Grenade", distance=6, others=[c],
                               options={"template": "small", "centre": [6, 0]}),
                 ScriptedDice([1, 2, 3, 6, 1, 1, 1]))
    assert "deviates" in r.summary and "it hits Cal" in r.summary and "MISS" not in r.summary.upper().split()
    assert r.details["deviation"]["hit"] == ["cal"]


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 3), st.integers(1, 4), st.booleans(), st.integers(1, 5), st.integers(0, 10_000))
def test_a_soak_spends_one_benny_and_takes_back_at_most_the_attacks_wounds(had, taken, shaken, bennies, seed):
    before = sheet(wounds=had, shaken=shaken, bennies=bennies)
    result = AttackResult(True, "", effects=[Effect("wounds", "bob", {"wounds": taken})], details={"target": "bob"})
    after = S.apply(before, result, "bob")
    offer = S.soak_offer(before, after, result, "bob")
    out = S.soak(after, offer, SeededDice(seed), "Bob")
    assert 0 <= out["soaked"] <= taken and out["sheet"]["bennies"] == bennies - 1
    assert had <= out["sheet"]["wounds"] <= after["wounds"]
    assert out["sheet"]["incapacitated"] == (had + taken - out["soaked"] > 3)
    if out["soaked"] == taken:
        assert out["sheet"]["shaken"] == shaken


def test_in_a_fight_the_books_not_the_card_say_actions_running_and_the_joker():
    a = ann()
    a.state = {"card": "5H", "joker": False, "actions": 1, "used": 0, "ran": False}
    request = AttackRequest(a, bob(), "Long sword", distance=1)
    opts = listed(request)
    assert not opts["joker"]["available"] and "Joker" in opts["joker"]["reason"]
    request.options = {"joker": True}
    with pytest.raises(RuleError, match=r"Ann does not hold the Joker: the card dealt says so \(Initiative\)"):
        S.odds(request)
    request.options = {"joker": False, "actions": 1}
    assert S.odds(request)["hit"] > 0


def test_an_attack_at_a_list_of_targets_is_refused_naming_the_rule():
    r = req()
    r.targets = [r, AttackRequest(r.attacker, Combatant("cal", "Cal", sheet(), (1, 1), "npc"), "Long sword")]
    with pytest.raises(RuleError, match="Area Effect Attacks"):
        S.odds(r)


def test_an_option_not_open_is_never_shown_ticked():
    """#33: a disabled, ticked "Launched" box sat under "Not now" for a plain shot (only a blast deviates)."""
    for weapon in ("Long sword", "Colt Peacemaker", None):
        for o in listed(req(weapon)).values():
            if o["kind"] == "bool" and not o["available"]:
                assert o["default"] is False, o
