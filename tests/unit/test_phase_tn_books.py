"""phase_tn: the fight's books after each shot (after_attack) against *Phase/TN Combat Sequence*.

"Initiative and Actions": actions resolve at the end of their time, shorter before
longer, the same length together. "Ranged Attacks": Targeting holds while the shooter
does not switch targets.
"""

import json

import pytest

from rules import phase_tn as pt
from rules.dice import ScriptedDice, SeededDice
from rules.system import AttackRequest, AttackResult, Combatant, Effect, RuleError

SYSTEM = pt.SYSTEM
SMG = {"name": "SMG", "skill": "handguns", "damage": "2d6", "mode": "auto"}


def fighters():
    sheet = SYSTEM.default_sheet()
    auto = {**SYSTEM.default_sheet(), "weapons": [dict(SMG)]}
    return [Combatant("ann", "Ann", sheet), Combatant("bob", "Bob", auto),
            Combatant("cy", "Cy", SYSTEM.default_sheet())]


def declare_all(up, cs, plan):
    """Everyone declares in initiative order what ``plan`` gives (nothing new if absent)."""
    while up.current is not None:
        who = next(c for c in cs if c.id == up.current)
        actions = plan.get(who.id)
        if actions:
            up = SYSTEM.act(up.state, who, "declare", cs, SeededDice(1), options={"actions": actions})
        else:
            up = SYSTEM.act(up.state, who, "wait", cs, SeededDice(1))
    return SYSTEM.next_turn(up.state, cs, SeededDice(2))


def shot(attacker, target, due=None, effects=()):
    details = {"attacker": attacker, "target": target}
    if due:
        details["due"] = due
    return AttackResult(bool(effects), "hit" if effects else "miss", effects=list(effects), details=details)


def out_cold(target):
    return [Effect("flesh", target, {"amount": 3, "location": "head"}),
            Effect("trauma", target, {"location": "head", "effect": "unconscious"})]


def phase_two(cs, phase_two_plan):
    """Phase 1: Ann targets Bob, Cy targets Ann, Bob opens full auto at Ann (a round
    action: it resolves at the end of phase 2). Phase 2: ``phase_two_plan``."""
    up = SYSTEM.begin_fight(cs, SeededDice(7))
    up = declare_all(up, cs, {"ann": [{"name": "target", "target": "bob"}],
                              "cy": [{"name": "target", "target": "ann"}],
                              "bob": [{"name": "full_auto", "target": "ann"}]})
    return declare_all(up, cs, phase_two_plan)


def test_shorter_actions_are_rolled_first_and_a_shooter_who_falls_to_them_does_not_fire():
    cs = fighters()
    up = phase_two(cs, {"ann": [{"name": "fire", "target": "bob"}], "cy": [{"name": "fire", "target": "ann"}]})
    # the phase actions are due now; Bob's full auto (a round action) waits for them
    assert sorted(d["attacker"] for d in up.due) == ["ann", "cy"]
    assert [d["length"] for d in up.state["shots"]] == ["phase", "phase", "round"]
    assert up.state["combatants"]["bob"]["due"] == {}
    ann_shot = next(d for d in up.due if d["attacker"] == "ann")
    state = SYSTEM.after_attack(up.state, shot("ann", "bob", ann_shot["options"]["due"], out_cold("bob")))
    json.dumps(state)
    cy_shot = next(d for d in up.due if d["attacker"] == "cy")
    state = SYSTEM.after_attack(state, shot("cy", "ann", cy_shot["options"]["due"]))
    assert state["shots"] == [] and state["due"] == []  # Bob went down before his full auto resolved
    bob = {**cs[1].sheet, "trauma": {"head": 1}}
    cs[1] = Combatant("bob", "Bob", bob)
    after = SYSTEM.next_turn(state, cs, SeededDice(3))
    assert "Bob does not fire at Ann: unconscious before the shot resolved." in after.log


def test_shots_of_one_length_are_simultaneous_a_shooter_hit_by_one_still_fires():
    cs = fighters()
    up = phase_two(cs, {"ann": [{"name": "fire", "target": "bob"}], "cy": [{"name": "fire", "target": "ann"}]})
    cy_shot = next(d for d in up.due if d["attacker"] == "cy")
    state = SYSTEM.after_attack(up.state, shot("cy", "ann", cy_shot["options"]["due"], out_cold("ann")))
    # Ann fell to a shot of the same length: her shot at Bob is still due
    assert [d["attacker"] for d in state["shots"] if d["length"] == "phase"] == ["ann"]
    assert list(state["combatants"]["ann"]["due"]) == [state["shots"][0]["id"]]
    state = SYSTEM.after_attack(state, shot("ann", "bob", state["shots"][0]["id"]))
    # the phase actions are done: Bob's full auto is due now
    assert [(d["attacker"], d["length"]) for d in state["shots"]] == [("bob", "round")]
    # state["due"] is always the app's list, as an attack command takes it
    assert state["due"] == [{"attacker": "bob", "target": "ann", "weapon": "SMG",
                             "options": {"mode": "full_auto", "targeted": False, "due": state["shots"][0]["id"]}}]
    assert list(state["combatants"]["bob"]["due"]) == [state["shots"][0]["id"]]


def test_a_rolled_shot_is_struck_off_and_cannot_be_rolled_twice():
    cs = fighters()
    up = phase_two(cs, {"ann": [{"name": "fire", "target": "bob"}]})
    (ann_shot,) = [d for d in up.due if d["attacker"] == "ann"]
    ann = Combatant("ann", "Ann", cs[0].sheet, state=dict(up.state["combatants"]["ann"]))
    bob = Combatant("bob", "Bob", cs[1].sheet, state=dict(up.state["combatants"]["bob"]))
    request = AttackRequest(ann, bob, weapon=ann_shot["weapon"], options=ann_shot["options"])
    result = SYSTEM.attack(request, SeededDice(0))
    assert result.details["due"] == ann_shot["options"]["due"]
    state = SYSTEM.after_attack(up.state, result)
    again = Combatant("ann", "Ann", cs[0].sheet, state=dict(state["combatants"]["ann"]))
    with pytest.raises(RuleError, match="not due now"):
        SYSTEM.attack(AttackRequest(again, bob, weapon=ann_shot["weapon"], options=ann_shot["options"]),
                      ScriptedDice([5]))


def test_targeting_holds_on_the_target_fired_at_and_is_lost_on_a_switch():
    """"Ranged Attacks": Targeting is good as long as the shooter does not switch targets."""
    cs = fighters()
    up = phase_two(cs, {"ann": [{"name": "fire", "target": "bob"}]})
    assert up.state["combatants"]["ann"]["targeting_name"] == "Bob"
    ann_shot = next(d for d in up.due if d["attacker"] == "ann")
    assert ann_shot["options"]["targeted"] is True
    state = SYSTEM.after_attack(up.state, shot("ann", "bob", ann_shot["options"]["due"]))
    assert state["combatants"]["ann"]["targeting"]["ann"]["target"] == "bob"
    # a shot at Cy (a GM's ruling, not a declared one) switches targets
    state = SYSTEM.after_attack(state, shot("ann", "cy"))
    assert state["combatants"]["ann"]["targeting"] == {} and state["combatants"]["ann"]["targeting_name"] is None


def test_a_due_shot_is_fired_as_the_books_say_and_a_request_cannot_claim_targeting():
    """The app sends what the player chose; the rules fire the declared shot: its target,
    weapon, and the Targeting as it stood when the shot resolved ("Ranged Attacks")."""
    cs = fighters()
    up = phase_two(cs, {"cy": [{"name": "fire", "target": "ann"}]})
    (cy_shot,) = [d for d in up.due if d["attacker"] == "cy"]
    cy = Combatant("cy", "Cy", cs[2].sheet, state=dict(up.state["combatants"]["cy"]))
    ann = Combatant("ann", "Ann", cs[0].sheet, state=dict(up.state["combatants"]["ann"]))
    bob = Combatant("bob", "Bob", cs[1].sheet, state=dict(up.state["combatants"]["bob"]))
    forged = {**cy_shot["options"], "targeted": False, "called": None}
    result = SYSTEM.attack(AttackRequest(cy, ann, weapon=cy_shot["weapon"], options=forged), SeededDice(5))
    assert result.details["targeted"] is True  # Cy targeted Ann in phase 1: the books say so
    with pytest.raises(RuleError, match="it was declared so"):
        SYSTEM.attack(AttackRequest(cy, bob, weapon=cy_shot["weapon"], options=cy_shot["options"]), SeededDice(5))
    # a shot the books do not owe: Bob holds no Targeting on Cy, a request cannot claim it
    result = SYSTEM.attack(AttackRequest(bob, cy, weapon="SMG", options={"targeted": True}), SeededDice(5))
    assert result.details["targeted"] is False
    assert any(m.label == "wild shot" for m in result.modifiers)


def test_a_declarer_taken_out_by_a_shot_is_skipped_in_the_order_and_never_current():
    """Phase 2's shots are rolled after phase 3's initiative: one who falls to them is out of the
    order at once, the next declarer is current, and the fallen is offered nothing."""
    cs = fighters()
    up = phase_two(cs, {"ann": [{"name": "fire", "target": "bob"}], "cy": [{"name": "fire", "target": "ann"}]})
    assert "bob" in up.state["combat"]["order"]
    ann_shot = next(d for d in up.due if d["attacker"] == "ann")
    state = SYSTEM.after_attack(up.state, shot("ann", "bob", ann_shot["options"]["due"], out_cold("bob")))
    turn = SYSTEM.turn_now(state)
    assert "bob" not in turn["order"] and "bob" not in state["combat"]["order"]
    assert turn["current"] is not None and turn["current"] != "bob"
    bob = Combatant("bob", "Bob", {**cs[1].sheet, "flesh": 3, "trauma": {"head": 1}})
    offered = SYSTEM.actions(state, bob)
    assert [a.available for a in offered] == [False] and offered[0].reason.startswith("not in the fight")
    # the fight goes on: the next declarer is offered Fire, and the phase plays out without Bob
    cs[1] = bob
    now = next(c for c in cs if c.id == turn["current"])
    assert any(a.key == "declare:fire" and a.available for a in SYSTEM.actions(state, now))
    after = SYSTEM.act(state, now, "wait", cs, SeededDice(4))
    assert after.current != "bob" and "bob" not in after.order


def test_base_system_names_no_turn_after_an_attack():
    from rules.savage_worlds import SYSTEM as SW
    assert SW.turn_now({"order": ["a"]}) is None
