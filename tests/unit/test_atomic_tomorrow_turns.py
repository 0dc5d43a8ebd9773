"""Atomic Tomorrow: the fight lifecycle (begin_fight, next_turn, actions, act), with scripted dice.

Every expectation comes from *Atomic Tomorrow Combat*: "INITIATIVE AND TURN
SEQUENCE" (percentile dice against INIT = REFLEX x 5; successes first,
highest roll first; failures after, highest first; ties to the higher
REFLEX), "ACTION ECONOMY" (each round one significant action, a move within
the zone or to an adjacent zone, one quick action), "DEFENSE LIMITATIONS",
"INCAPACITATION" (a GRIT x 1 roll for each action at 4 wounds) and
"LAST STAND" (NERVE x 5 at 5 wounds for one final act).
"""

from __future__ import annotations

import json

import pytest

from rules import atomic_tomorrow as at
from rules.dice import DiceExhausted, ScriptedDice
from rules.system import AttackRequest, Combatant, RuleError, RuleNotImplemented

SYSTEM = at.SYSTEM


def make(cid, name, **over):
    return Combatant(cid, name, {**SYSTEM.default_sheet(), **over})


def crew():
    return [
        make("ace", "Ace", reflex=10),  # INIT 50%
        make("bo", "Bo", reflex=14, wounds=4, grit=12),  # INIT 70%, incapacitated
        make("cy", "Cy", reflex=12, wounds=5, nerve=11),  # INIT 60%, dying, Last Stand 55%
        make("dee", "Dee", reflex=16),  # INIT 80%, Dodge 42%
    ]


def options(state, actor):
    return {o.key: o for o in SYSTEM.actions(state, actor)}


def with_state(combatant, state):
    return Combatant(combatant.id, combatant.name, combatant.sheet, state=state["combatants"][combatant.id])


def test_a_scripted_two_round_fight():
    ace, bo, cy, dee = fighters = crew()
    by = {c.id: c for c in fighters}
    # Ace 45 (<= 50, success), Bo 80 (> 70, failure), Cy 30 and Dee 30 (both successes, tied)
    dice = ScriptedDice([45, 80, 30, 30])
    up = SYSTEM.begin_fight(fighters, dice)
    # successes by highest roll, the tie at 30 to the higher REFLEX (Dee 16 over Cy 12), the failure last
    assert up.order == ["ace", "dee", "cy", "bo"] and up.current == "ace" and up.round == 1
    assert [r.total for r in up.rolls] == [45, 80, 30, 30] and all(r.expr == "d100" for r in up.rolls)
    json.dumps(up.to_dict())

    # Ace's turn: a move reaches the same or an adjacent zone, once a round
    opts = options(up.state, ace)
    assert opts["move"].available and opts["move"].data["zones"] == 1
    assert opts["attack:Blast pistol"].available and opts["quick"].available
    assert not options(up.state, bo)["move"].available
    assert options(up.state, bo)["move"].reason == "it is not Bo's turn"
    with pytest.raises(RuleError, match="not Bo's turn"):
        SYSTEM.move(up.state, bo, [], 1, fighters, None, dice)
    with pytest.raises(RuleError, match="adjacent"):
        SYSTEM.move(up.state, ace, [], 2, fighters, None, dice)
    up = SYSTEM.move(up.state, ace, [], 1, fighters, None, dice)
    assert not options(up.state, ace)["move"].available
    with pytest.raises(RuleError, match="spent"):
        SYSTEM.move(up.state, ace, [], 0, fighters, None, dice)

    # the attack is the significant action; Dee dodges (42%): 30 is a special, beating Ace's ordinary 37
    req = AttackRequest(with_state(ace, up.state), with_state(dee, up.state), "Blast pistol", 1,
                        options={"defense": "dodge"})
    result = SYSTEM.attack(req, ScriptedDice([37, 30]))
    assert not result.hit
    state = SYSTEM.after_attack(up.state, result)
    assert options(state, ace)["attack:Blast pistol"].reason == "the significant action of this round is spent"
    assert options(state, ace)["quick"].available
    # "Each successive Defense in a turn incurs a -20% penalty"
    assert options(state, dee)["dodge"].data["skill_vs_ranged"] == 42 - 20

    # Dee's turn passes; Cy is dying: only the Last Stand opens an action
    up = SYSTEM.next_turn(state, fighters, dice)
    assert up.current == "dee"
    up = SYSTEM.next_turn(up.state, fighters, dice)
    assert up.current == "cy" and any("Last Stand" in line for line in up.log)
    opts = options(up.state, cy)
    assert opts["last_stand"].available and opts["last_stand"].data["target"] == 55
    assert opts["move"].reason == "dying: a Last Stand success is needed to act"
    up = SYSTEM.act(up.state, cy, "last_stand", fighters, ScriptedDice([35]))  # 35: special, tens die 3
    assert [r.total for r in up.rolls] == [35]
    assert options(up.state, cy)["quick"].available
    up = SYSTEM.act(up.state, cy, "quick", fighters, dice, options={"what": "fire a flare"})
    assert options(up.state, cy)["move"].reason == "the Last Stand's one final action is spent"

    # Cy's turn ends: a special keeps Cy conscious 3 more rounds; Bo (4 wounds) must roll GRIT x 1 per action
    up = SYSTEM.next_turn(up.state, fighters, dice)
    assert up.current == "bo" and any("conscious for 3" in line for line in up.log)
    assert any("GRIT x1" in line for line in up.log)
    opts = options(up.state, bo)
    assert opts["move"].reason == "incapacitated: roll GRIT x1 for this action first"
    assert opts["grit_check"].available and opts["grit_check"].data["target"] == 12
    up = SYSTEM.act(up.state, bo, "grit_check", fighters, ScriptedDice([7]), options={"for": "move"})
    assert options(up.state, bo)["move"].available and not options(up.state, bo)["quick"].available
    up = SYSTEM.move(up.state, bo, [], 1, fighters, None, dice)
    # a failed GRIT roll loses the action it was rolled for
    up = SYSTEM.act(up.state, bo, "grit_check", fighters, ScriptedDice([50]), options={"for": "quick"})
    assert options(up.state, bo)["quick"].reason == "the quick action of this round is spent"
    with pytest.raises(RuleError, match="spent"):
        SYSTEM.act(up.state, bo, "grit_check", fighters, ScriptedDice([7]), options={"for": "move"})

    # Round 2: initiative is rolled again (Cy, conscious but spent, no longer takes turns)
    dice = ScriptedDice([90, 10, 60])  # Ace fails, Bo 10 and Dee 60 succeed
    up = SYSTEM.next_turn(up.state, fighters, dice)
    assert up.round == 2 and up.order == ["dee", "bo", "ace"] and up.current == "dee"
    assert [r.purpose for r in up.rolls] == ["initiative (Ace)", "initiative (Bo)", "initiative (Dee)"]
    assert up.state["combatants"]["cy"]["conscious_rounds"] == 2
    # a new round: every action and the defense count start afresh
    assert options(up.state, dee)["dodge"].data["skill_vs_ranged"] == 42
    up = SYSTEM.next_turn(up.state, fighters, dice)
    assert up.current == "bo" and options(up.state, bo)["grit_check"].available
    up = SYSTEM.next_turn(up.state, fighters, dice)
    assert up.current == "ace" and options(up.state, ace)["move"].available
    json.dumps(up.to_dict())
    assert set(by) == set(up.state["combatants"])


def test_initiative_kept_for_the_fight_when_the_setting_says_so():
    ace, dee = make("ace", "Ace", reflex=10), make("dee", "Dee", reflex=16)
    settings = {"initiative_each_round": False}
    dice = ScriptedDice([45, 70])
    up = SYSTEM.begin_fight([ace, dee], dice, settings)
    assert up.order == ["dee", "ace"]  # 70 and 45 both succeed, the higher roll first
    up = SYSTEM.next_turn(up.state, [ace, dee], dice, settings)
    up = SYSTEM.next_turn(up.state, [ace, dee], dice, settings)  # no roll left: none is made
    assert up.round == 2 and up.order == ["dee", "ace"] and up.rolls == []
    # a newcomer rolls at the next round and joins the kept order
    cy = make("cy", "Cy", reflex=12)
    for _ in range(2):
        up = SYSTEM.next_turn(up.state, [ace, dee, cy], ScriptedDice([59]), settings)
    assert up.round == 3 and up.order == ["dee", "cy", "ace"]


def test_initiative_is_rolled_each_round_by_default():
    ace = make("ace", "Ace")
    up = SYSTEM.begin_fight([ace], ScriptedDice([10]))
    with pytest.raises(DiceExhausted):
        SYSTEM.next_turn(up.state, [ace], ScriptedDice([]))


def test_a_critical_last_stand_stabilises_at_four_wounds_after_the_action():
    """LAST STAND: "Critical success allows the action at no penalty and stabilizes at 4 Wounds"."""
    cy, ace = make("cy", "Cy", reflex=12, wounds=5, nerve=11), make("ace", "Ace", reflex=10)
    up = SYSTEM.begin_fight([cy, ace], ScriptedDice([20, 90]))
    assert up.current == "cy"
    up = SYSTEM.act(up.state, cy, "last_stand", [cy, ace], ScriptedDice([44]))  # doubles under 55
    stand = up.state["combatants"]["cy"]["last_stand"]
    assert stand["quality"] == "critical" and stand["penalty"] == 0
    # the final act is an attack, at no penalty (Ranged 46 stays 46)
    req = AttackRequest(with_state(cy, up.state), ace, "Blast pistol", 1)
    result = SYSTEM.attack(req, ScriptedDice([37, 99]))
    assert result.details["attack_skill"] == 46
    state = SYSTEM.after_attack(up.state, result)
    up = SYSTEM.next_turn(state, [cy, ace], ScriptedDice([]))
    assert up.sheet_changes == {"cy": {"wounds": 4}} and up.current == "ace"


def test_an_ordinary_last_stand_collapses_after_the_turn_and_a_failed_one_at_once():
    """LAST STAND: "Success allows one final action before collapsing"; a failure gives no action."""
    cy, dan, ace = (make("cy", "Cy", wounds=5, nerve=11), make("dan", "Dan", wounds=5, nerve=11),
                    make("ace", "Ace"))
    fighters = [cy, dan, ace]
    up = SYSTEM.begin_fight(fighters, ScriptedDice([10, 20, 30]))
    assert up.order == ["ace", "dan", "cy"]
    up = SYSTEM.next_turn(up.state, fighters, ScriptedDice([]))
    up = SYSTEM.act(up.state, dan, "last_stand", fighters, ScriptedDice([80]))  # over 55: failure
    assert up.state["combatants"]["dan"]["status"] == "collapsed"
    assert not options(up.state, dan)["move"].available
    up = SYSTEM.next_turn(up.state, fighters, ScriptedDice([]))
    up = SYSTEM.act(up.state, cy, "last_stand", fighters, ScriptedDice([37]))  # ordinary
    with pytest.raises(RuleError, match="already made"):
        SYSTEM.act(up.state, cy, "last_stand", fighters, ScriptedDice([37]))
    up = SYSTEM.next_turn(up.state, fighters, ScriptedDice([50]))  # only Ace rolls for round 2
    assert any(line == "Cy collapses" for line in up.log)
    assert up.round == 2 and up.order == ["ace"]


def test_a_grit_check_rolled_before_the_attack_is_used_by_it():
    """INCAPACITATION: one GRIT x 1 roll per action attempted: the attack does not roll a second."""
    bo, ace = make("bo", "Bo", wounds=4, grit=12), make("ace", "Ace")
    up = SYSTEM.begin_fight([bo, ace], ScriptedDice([10, 90]))
    up = SYSTEM.act(up.state, bo, "grit_check", [bo, ace], ScriptedDice([11]), options={"for": "significant"})
    check = up.state["combatants"]["bo"]["act_check"]
    assert check["quality"] == "critical" and check["penalty"] == 0  # "with no penalties"
    req = AttackRequest(with_state(bo, up.state), ace, "Blast pistol", 1)
    assert SYSTEM.odds(req)["p_act"] == 1.0
    dice = ScriptedDice([37, 99])  # the attack and the soak: no GRIT roll
    result = SYSTEM.attack(req, dice)
    assert result.hit and result.details["attack_skill"] == 46 and dice.remaining == []
    state = SYSTEM.after_attack(up.state, result)
    assert state["combatants"]["bo"]["act_check"]["used"]
    assert not options(state, bo)["significant"].available


def test_a_significant_action_other_than_an_attack_needs_its_own_grit_check():
    bo = make("bo", "Bo", wounds=4, grit=12)
    up = SYSTEM.begin_fight([bo], ScriptedDice([10]))
    assert options(up.state, bo)["attack:Blast pistol"].available  # the attack rolls its check itself
    assert not options(up.state, bo)["significant"].available
    with pytest.raises(RuleError, match="GRIT"):
        SYSTEM.act(up.state, bo, "significant", [bo], ScriptedDice([]), options={"what": "use the radio"})


def test_combatants_who_left_are_skipped():
    a, b, c = make("a", "A", reflex=18), make("b", "B", reflex=14), make("c", "C", reflex=10)
    up = SYSTEM.begin_fight([a, b, c], ScriptedDice([60, 50, 40]))
    assert up.order == ["a", "b", "c"]
    up = SYSTEM.next_turn(up.state, [a, c], ScriptedDice([]))
    assert up.current == "c"
    up = SYSTEM.next_turn(up.state, [a, c], ScriptedDice([5, 6]))
    assert up.round == 2 and up.order == ["c", "a"]


def test_actions_outside_the_rules_or_not_automated():
    ace = make("ace", "Ace")
    up = SYSTEM.begin_fight([ace], ScriptedDice([10]))
    with pytest.raises(RuleNotImplemented):
        SYSTEM.act(up.state, ace, "hold", [ace], ScriptedDice([]))
    with pytest.raises(RuleNotImplemented, match="attack"):
        SYSTEM.act(up.state, ace, "attack:Blast pistol", [ace], ScriptedDice([]))
    with pytest.raises(RuleError, match="not incapacitated"):
        SYSTEM.act(up.state, ace, "grit_check", [ace], ScriptedDice([10]))
    with pytest.raises(RuleError, match="not dying"):
        SYSTEM.act(up.state, ace, "last_stand", [ace], ScriptedDice([10]))


def test_the_state_is_never_changed_in_place():
    ace = make("ace", "Ace")
    up = SYSTEM.begin_fight([ace], ScriptedDice([10]))
    before = json.dumps(up.state, sort_keys=True)
    SYSTEM.act(up.state, ace, "quick", [ace], ScriptedDice([]))
    SYSTEM.next_turn(up.state, [ace], ScriptedDice([20]))
    assert json.dumps(up.state, sort_keys=True) == before


def test_defense_options_follow_the_defense_rules():
    """DEFENSE OPTION: Parry needs a weapon or Unarmed skill and meets only melee; Block needs a shield."""
    dee = make("dee", "Dee", reflex=16, melee=50)
    up = SYSTEM.begin_fight([dee], ScriptedDice([10]))
    opts = options(up.state, dee)
    assert opts["parry"].available and opts["parry"].data["skill_vs_melee"] == 50
    assert opts["parry"].data["skill_vs_ranged"] is None
    assert not opts["block"].available and "shield" in opts["block"].reason
    assert opts["dodge"].data == {"skill_vs_melee": 42 - 20, "skill_vs_ranged": 42, "defenses_made": 0}


# ---- moves on the zone map and the books after an attack (the app's move/after_attack) ----


def test_a_move_spends_the_round_move_reaches_one_zone_and_provokes_nobody():
    """ACTION ECONOMY: "Move within their zone or to an adjacent zone", once a round; no free attacks."""
    ace, dee = make("ace", "Ace", reflex=16), make("dee", "Dee", reflex=10)
    up = SYSTEM.begin_fight([ace, dee], ScriptedDice([10, 90]))
    assert up.current == "ace"
    assert SYSTEM.movement_left(up.state, ace) == 1 and SYSTEM.movement_left(up.state, dee) == 1
    with pytest.raises(RuleError, match="adjacent"):
        SYSTEM.move(up.state, ace, ["pad", "bay", "tower"], 2, [ace, dee], None, ScriptedDice([]))
    with pytest.raises(RuleError, match="whole number"):
        SYSTEM.move(up.state, ace, [], 0.5, [ace, dee], None, ScriptedDice([]))
    with pytest.raises(RuleError, match="not Dee's turn"):
        SYSTEM.move(up.state, dee, [], 1, [ace, dee], None, ScriptedDice([]))
    moved = SYSTEM.move(up.state, ace, ["pad", "bay"], 1.0, [ace, dee], None, ScriptedDice([]))
    assert moved.cost == 1 and moved.left == 0 and moved.provokes == [] and moved.log == ["Ace moves to the next zone (the round's move is spent; the significant action and the quick action left)"]
    json.dumps(moved.to_dict())
    assert SYSTEM.movement_left(moved.state, ace) == 0
    assert SYSTEM.movement_left(up.state, ace) == 1  # the state handed in is not changed
    with pytest.raises(RuleError, match="spent"):
        SYSTEM.move(moved.state, ace, ["bay"], 0, [ace, dee], None, ScriptedDice([]))
    assert options(moved.state, ace)["move"].data["left"] == 0
    with pytest.raises(RuleNotImplemented, match="move()"):
        SYSTEM.act(up.state, ace, "move", [ace, dee], ScriptedDice([]), options={"distance": 1})
    # the next round gives the move back
    up = SYSTEM.next_turn(moved.state, [ace, dee], ScriptedDice([]))
    up = SYSTEM.next_turn(up.state, [ace, dee], ScriptedDice([10, 90]))
    assert up.round == 2 and SYSTEM.movement_left(up.state, ace) == 1


def test_no_movement_left_after_collapse_or_a_failed_last_stand():
    cy = make("cy", "Cy", wounds=5, nerve=10)
    up = SYSTEM.begin_fight([cy], ScriptedDice([10]))
    assert SYSTEM.movement_left(up.state, cy) == 1  # a Last Stand may still open one final move
    with pytest.raises(RuleError, match="Last Stand"):
        SYSTEM.move(up.state, cy, [], 1, [cy], None, ScriptedDice([]))
    up = SYSTEM.act(up.state, cy, "last_stand", [cy], ScriptedDice([90]))
    assert SYSTEM.movement_left(up.state, cy) == 0


def test_after_attack_books_the_significant_action_and_the_defense():
    ace, dee = make("ace", "Ace", reflex=16), make("dee", "Dee", reflex=10)
    up = SYSTEM.begin_fight([ace, dee], ScriptedDice([10, 90]))
    req = AttackRequest(with_state(ace, up.state), with_state(dee, up.state), "Blast pistol", 1,
                        options={"defense": "dodge"})
    result = SYSTEM.attack(req, ScriptedDice([37, 80, 100]))
    after = SYSTEM.after_attack(up.state, result, SYSTEM.default_settings())
    json.dumps(after)
    assert after["combatants"]["ace"]["round"]["significant"] is True
    assert after["combatants"]["dee"]["round"]["defenses"] == 1
    assert up.state["combatants"]["ace"]["round"]["significant"] is False
    assert SYSTEM.record_attack(up.state, result) == after


# ---- badges, weapons, the sheet check ------------------------------------------------


def test_badges_show_wounds_the_wound_state_the_last_stand_and_the_grit_roll():
    sheet = SYSTEM.default_sheet()
    assert SYSTEM.badges(sheet) == []
    assert SYSTEM.badges({**sheet, "wounds": 1}) == [{"label": "1 wound", "kind": "wound"}]
    four = {**sheet, "wounds": 4}
    assert SYSTEM.badges(four) == [{"label": "4 wounds", "kind": "wound"},
                                   {"label": "Incapacitated", "kind": "condition"},
                                   {"label": "GRIT x1 to act", "kind": "condition"}]
    passed = {"act_check": {"may_act": True, "used": False, "for": "move", "penalty": -20}}
    assert SYSTEM.badges(four, passed)[-1] == {"label": "GRIT passed: move", "kind": "resource"}
    five = {**sheet, "wounds": 5}
    assert [b["label"] for b in SYSTEM.badges(five)] == ["5 wounds", "Dying", "Last Stand to roll"]
    stand = {"last_stand": {"may_act": True, "used": False}}
    assert SYSTEM.badges(five, stand)[-1] == {"label": "Last Stand: final action", "kind": "resource"}
    assert [b["label"] for b in SYSTEM.badges(five, {"status": "collapsed"})] == ["5 wounds", "Collapsed"]
    assert SYSTEM.badges(five, {"status": "conscious", "conscious_rounds": 3})[-1]["label"] == \
        "Conscious 3 more rounds"
    # a fight's whole state, not one combatant's books: only what the sheet says
    assert SYSTEM.badges(four, {"order": [], "combatants": {}})[-1]["label"] == "GRIT x1 to act"


def test_the_books_of_a_fight_give_the_badges():
    cy = make("cy", "Cy", wounds=5, nerve=10)
    up = SYSTEM.begin_fight([cy], ScriptedDice([10]))
    up = SYSTEM.act(up.state, cy, "last_stand", [cy], ScriptedDice([90]))
    assert SYSTEM.badges(cy.sheet, up.state["combatants"]["cy"])[-1]["label"] == "Collapsed"


def test_weapons_are_bare_hands_and_the_sheet_weapons_with_unique_keys():
    sheet = {**SYSTEM.default_sheet(), "weapons": [
        {"name": "Blast pistol", "skill": "ranged", "wound_rating": 2, "ranges": ["near", "far"]},
        {"name": "Blast pistol", "skill": "ranged", "wound_rating": 2, "ranges": ["near", "far"]},
        {"name": "Broken", "wound_rating": 9}]}
    found = SYSTEM.weapons(sheet)
    assert [w["key"] for w in found] == ["Unarmed", "Blast pistol", "1"]
    assert [w["label"] for w in found] == ["Unarmed", "Blast pistol", "Blast pistol"]
    assert SYSTEM.range_band(1, found[1]["data"]) == "far" and SYSTEM.range_band(1, found[0]["data"]) is None
    assert SYSTEM.range_band(0, found[0]["data"]) == "engaged"  # a hand-to-hand attack engages
    assert SYSTEM.range_band(0, found[1]["data"]) == "near"


def test_the_sheet_check_names_the_field_and_wounds_are_the_gms():
    assert SYSTEM.gm_only_fields == ("wounds",)
    for bad, field in [({"wounds": 6}, "wounds"), ({"reflex": "x"}, "REFLEX"), ({"armour": "mithril"}, "armour"),
                       ({"weapons": [{"name": "Ray", "wound_rating": 9}]}, "weapons, entry 1"),
                       ({"ranged": -1}, "Ranged")]:
        with pytest.raises(RuleError, match=field):
            SYSTEM.validate_sheet({**SYSTEM.default_sheet(), **bad})
    with pytest.raises(RuleError, match="table"):
        SYSTEM.validate_sheet(["not", "a", "sheet"])


def test_a_hand_to_hand_attack_in_the_same_zone_is_engaged_unless_the_gm_says_not():
    ace, dee = make("ace", "Ace"), make("dee", "Dee")
    result = SYSTEM.attack(AttackRequest(ace, dee, "Vibro-knife", 0), ScriptedDice([20, 100]))
    assert result.details["range"] == "engaged"
    assert SYSTEM.attack(AttackRequest(ace, dee, "Blast pistol", 0), ScriptedDice([20, 100])).details["range"] == "near"
    with pytest.raises(RuleError, match="reaches Engaged; the target is at Near"):
        SYSTEM.attack(AttackRequest(ace, dee, "Vibro-knife", 0, options={"engaged": False}), ScriptedDice([20]))
