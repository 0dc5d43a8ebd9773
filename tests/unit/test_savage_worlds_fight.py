"""Savage Worlds on the map: the fight's books after attacks (Actions Per Turn), moves within
Pace or a run, withdrawing from melee, badges, the sheet fields the rules set."""

import json

import pytest

from rules import savage_worlds as sw
from rules.dice import ScriptedDice, SeededDice
from rules.savage_worlds.turns import _fresh_state
from rules.system import AttackRequest, Combatant, RuleError

S = sw.SYSTEM


def tok(id, side, pos, **kw):
    s = S.default_sheet()
    s["edges"] = []
    s.update(kw)
    return Combatant(id, id.title(), s, pos, side)


def fight(current="ann", *ids):
    return {"round": 1, "order": list(ids) or [current], "index": 0, "current": current, "resume": [], "after": [],
            "combatants": {i: _fresh_state() for i in (list(ids) or [current])}}


def attack(state, attacker, target, weapon="Long sword", seed=1, **options):
    attacker.state = state["combatants"].get(attacker.id, {})
    target.state = state["combatants"].get(target.id, {})
    result = S.attack(AttackRequest(attacker, target, weapon, options=options), SeededDice(seed))
    return S.after_attack(state, result, S.default_settings())


# ---- Actions Per Turn: an attack is one of the declared actions


def test_an_attack_uses_the_single_action_and_a_second_is_refused():
    ann, bob = tok("ann", "pc", (0, 0)), tok("bob", "npc", (1, 0))
    state = fight("ann", "ann", "bob")
    after = attack(state, ann, bob)
    json.dumps(after)
    assert after["combatants"]["ann"]["used"] == 1 and state["combatants"]["ann"]["used"] == 0  # a new state
    with pytest.raises(RuleError, match="declared this turn"):
        attack(after, ann, bob)
    opts = {o.key: o for o in S.actions(after, ann) if o.kind == "attack"}
    assert not opts["attack"].available and "declared" in opts["attack"].reason
    # the count is set before the first action: the penalty is on every action of the turn
    with pytest.raises(RuleError, match="before the first"):
        S.act(after, ann, "multi_action", [ann, bob], ScriptedDice([]), options={"actions": 2})


def test_three_declared_attacks_and_the_fourth_is_refused_by_the_rules():
    ann, bob = tok("ann", "pc", (0, 0)), tok("bob", "npc", (1, 0))
    state = S.act(fight("ann", "ann", "bob"), ann, "multi_action", [ann, bob], ScriptedDice([]),
                  options={"actions": 3}).state
    for n in range(3):
        ann.state = state["combatants"]["ann"]
        odds = S.odds(AttackRequest(ann, bob, "Long sword"))
        assert {m["label"]: m["value"] for m in odds["modifiers"]}["Multi-action (3 actions)"] == -4
        state = attack(state, ann, bob, seed=n)
    assert state["combatants"]["ann"]["used"] == 3
    with pytest.raises(RuleError, match="3 actions declared"):
        attack(state, ann, bob)
    with pytest.raises(RuleError, match="3 actions declared"):
        S.odds(AttackRequest(ann, bob, "Long sword"))


def test_a_free_attack_or_one_off_turn_uses_no_action_and_a_new_turn_starts_afresh():
    ann, bob = tok("ann", "pc", (0, 0)), tok("bob", "npc", (1, 0))
    state = fight("ann", "ann", "bob")
    off_turn = attack(state, bob, ann, free_attack=True)
    assert off_turn["combatants"]["bob"]["used"] == 0
    state = attack(state, ann, bob)
    assert attack(state, ann, bob, free_attack=True)["combatants"]["ann"]["used"] == 1
    update = S.next_turn(state, [ann, bob], SeededDice(3))
    assert update.state["combatants"]["ann"]["used"] == 0


def test_another_action_counts_like_an_attack():
    ann, bob = tok("ann", "pc", (0, 0)), tok("bob", "npc", (1, 0))
    state = S.act(fight("ann", "ann", "bob"), ann, "multi_action", [ann, bob], ScriptedDice([]),
                  options={"actions": 2}).state
    state = S.act(state, ann, "other_action", [ann, bob], ScriptedDice([])).state
    state = attack(state, ann, bob)
    assert state["combatants"]["ann"]["used"] == 2
    with pytest.raises(RuleError):
        S.act(state, ann, "other_action", [ann, bob], ScriptedDice([]))


# ---- moves: Pace, the running die rolled once, standing up, withdrawing


def test_pace_is_spent_move_by_move_and_a_move_beyond_it_is_refused_with_the_reason():
    ann = tok("ann", "pc", (0, 0))
    state = fight("ann")
    ann.state = state["combatants"]["ann"]
    assert S.movement_left(state, ann) == 6
    moved = S.move(state, ann, [(0, 0), (1, 0), (2, 0)], 4, [ann], None, ScriptedDice([]))
    assert moved.cost == 4 and moved.left == 2 and moved.provokes == []
    assert S.movement_left(moved.state, ann) == 2 and S.movement_left(state, ann) == 6
    with pytest.raises(RuleError, match='2" of movement left.*running adds d6'):
        S.move(moved.state, ann, [], 3, [ann], None, ScriptedDice([]))
    move_opt = next(o for o in S.actions(moved.state, ann) if o.key == "move")
    assert move_opt.data["allowance"] == 2


def test_running_adds_the_die_rolled_once_and_standing_costs_two():
    ann = tok("ann", "pc", (0, 0), prone=True)
    state = fight("ann")
    with pytest.raises(RuleError, match="prone: stand up first"):
        S.move(state, ann, [], 1, [ann], None, ScriptedDice([]))
    up = S.act(state, ann, "stand", [ann], ScriptedDice([]))
    ann.sheet.update(up.sheet_changes["ann"])
    assert S.movement_left(up.state, ann) == 4
    ran = S.act(up.state, ann, "run", [ann], ScriptedDice([5]))
    assert S.movement_left(ran.state, ann) == 6 + 5 - 2
    moved = S.move(ran.state, ann, [], 9, [ann], None, ScriptedDice([]))
    assert moved.left == 0 and not [o for o in S.actions(moved.state, ann) if o.key == "run" and o.available]
    move_opt = next(o for o in S.actions(moved.state, ann) if o.key == "move")
    assert not move_opt.available and move_opt.reason == "no movement left this turn"


def test_only_the_actor_moves_on_its_turn_and_not_when_stunned():
    ann, bob = tok("ann", "pc", (0, 0)), tok("bob", "npc", (3, 0))
    state = fight("ann", "ann", "bob")
    assert S.movement_left(state, bob) == 0
    with pytest.raises(RuleError, match="not Bob's turn"):
        S.move(state, bob, [], 1, [ann, bob], None, ScriptedDice([]))
    ann.sheet["stunned"] = True
    assert S.movement_left(state, ann) == 0
    with pytest.raises(RuleError, match="Stunned"):
        S.move(state, ann, [], 1, [ann, bob], None, ScriptedDice([]))


def test_withdrawing_gives_a_free_attack_to_each_adjacent_foe_it_leaves_not_shaken_nor_stunned():
    ann = tok("ann", "pc", (5, 5))
    foes = [tok("orc", "npc", (6, 5)), tok("gob", "npc", (4, 5)), tok("shaky", "npc", (5, 6), shaken=True),
            tok("dazed", "npc", (4, 6), stunned=True), tok("far", "npc", (9, 9))]
    pal = tok("pal", "pc", (6, 6))
    everyone = [ann, pal, *foes]
    state = fight("ann")
    moved = S.move(state, ann, [(5, 5), (5, 4), (5, 3)], 2, everyone, None, ScriptedDice([]))
    assert sorted(moved.provokes) == ["gob", "orc"]
    assert any("withdraws from melee" in line for line in moved.log)
    # staying next to the orc is not leaving it
    moved = S.move(state, ann, [(5, 5), (6, 4)], 1, everyone, None, ScriptedDice([]))
    assert moved.provokes == ["gob"]
    # the free attacks count no action of the orc's
    orc = foes[0]
    ann.position = (5, 4)
    after = attack(moved.state, orc, ann, free_attack=True)
    assert after["combatants"].get("orc", {}).get("used", 0) == 0


# ---- badges, sheets


def test_badges_show_wounds_conditions_and_resources():
    sheet = S.default_sheet()
    assert S.badges(sheet) == [{"label": "3 Bennies", "kind": "resource"}]
    sheet.update(wounds=2, shaken=True, prone=True, fatigue=1, bennies=1)
    per = {"joker": True, "on_hold": True}
    assert S.badges(sheet, per) == [
        {"label": "2 wounds", "kind": "wound"}, {"label": "Shaken", "kind": "condition"},
        {"label": "Prone", "kind": "condition"}, {"label": "On Hold", "kind": "condition"},
        {"label": "Fatigued", "kind": "resource"}, {"label": "1 Benny", "kind": "resource"},
        {"label": "Joker (+2)", "kind": "resource"}]
    extra = dict(S.default_sheet(), wild_card=False, wounds=1, incapacitated=True, stunned=True)
    assert S.badges(extra) == [{"label": "Incapacitated", "kind": "condition"}, {"label": "1 wound", "kind": "wound"},
                               {"label": "Stunned", "kind": "condition"}]


def test_the_fields_the_rules_set_are_the_gms():
    assert {"wounds", "shaken", "stunned", "incapacitated", "fatigue", "prone"} <= set(S.gm_only_fields)
    assert "bennies" not in S.gm_only_fields  # players spend them on rerolls and soaks


@pytest.mark.parametrize("change, field", [
    ({"wounds": 4}, "wounds"), ({"wounds": "two"}, "wounds"), ({"fatigue": -1}, "fatigue"), ({"pace": 2.5}, "pace"),
    ({"shaken": "yes"}, "shaken"), ({"attributes": {"vigor": "d7"}}, "attributes.vigor"),
    ({"skills": {"fighting": "8"}}, "skills.fighting"), ({"edges": "Quick"}, "edges"),
    ({"weapons": {"Colt": {"damage": "2d6", "range": "12/24", "rof": 1}}}, "weapons.Colt"),
    ({"weapons": {"Colt": {"damage": "2d6", "rof": 0}}}, "weapons.Colt.rof"),
    ({"weapons": {"Axe": {"damage": "Str+x"}}}, "weapons.Axe"), ({"weapons": ["sword"]}, "weapons"),
])
def test_a_bad_sheet_value_is_refused_naming_the_field(change, field):
    sheet = dict(S.default_sheet(), **change)
    with pytest.raises(RuleError) as err:
        S.validate_sheet(sheet)
    assert str(err.value).startswith(field), str(err.value)


def test_the_sample_sheet_is_valid():
    S.validate_sheet(S.default_sheet())
    S.validate_sheet(dict(S.default_sheet(), wounds="2", size=-1))
