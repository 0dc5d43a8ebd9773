"""Tesseris (ADS): the fight lifecycle (begin_fight, next_turn, actions, act), a scripted
fight read against *Tesseris Combat*'s "Combat Order", "Ticks", "Rounds", "Delaying"."""

import json

import pytest

from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant, RuleError, RuleNotImplemented
from rules.tesseris_ads import SYSTEM


def person(id_, pos, side, **over):
    sheet = SYSTEM.default_sheet()
    sheet.update(over)
    return Combatant(id_, id_.title(), sheet, pos, side, side == "pc", {})


def now(update, c):
    """The combatant as the app hands it to attack(): its state from the fight."""
    return Combatant(c.id, c.name, c.sheet, c.position, c.side, c.is_player, update.state["combatants"][c.id])


def option(options, key):
    return next(o for o in options if o.key == key)


def test_a_scripted_two_round_fight():
    ann = person("ann", (0, 0), "pc")
    bob = person("bob", (8, 0), "npc")
    fighters = [ann, bob]
    dice = ScriptedDice([
        9, 2,  # round 1 initiative: 1d10 + Agility 3 + Speed 3 -> Ann 15, Bob 8
        1, 1, 1,  # Ann's shot: 3dT, no success, + Rifles 2 = 2 (even)
        6, 6, 1,  # Bob's Dodge: 2 + Acrobatics 1 - Bulk 1 = 2: a miss (ties go to the defender)
        3,  # quick recovery from the jam: a d10 of 3 fails
        1, 8,  # round 2 initiative: Ann 7, Bob 14
        5, 4,  # round 3 initiative
    ])
    u = SYSTEM.begin_fight(fighters, dice)
    # "Roll Initiative ... Take Actions ... in order of the initiative"
    assert (u.round, u.order, u.current) == (1, ["ann", "bob"], "ann")
    assert u.state["combatants"]["ann"]["ticks"] == 5  # "All characters have five (5) ticks"
    json.dumps(u.to_dict())  # the state goes into the event log as JSON

    # Ann moves (1 tick, Speed 3 squares), shoots (2 ticks); the shot jams
    move = option(SYSTEM.actions(u.state, ann), "move")
    assert move.available and move.data["allowance"] == 3 and move.cost == "1 tick"
    assert SYSTEM.movement_left(u.state, ann) == 5 * 3  # a Move (1 tick, Speed 3 squares) per tick
    moved = SYSTEM.move(u.state, ann, [(0, 0), (1, 0), (2, 0), (3, 0)], 3, fighters, None, dice)
    assert moved.left == 4 * 3 and moved.provokes == [] and "1 tick" in moved.log[0]
    u.state = moved.state
    ann = Combatant("ann", "Ann", ann.sheet, (3, 0), "pc", True, {})
    fighters = [ann, bob]
    shot = SYSTEM.attack(AttackRequest(now(u, ann), now(u, bob), "rifle", options={"defense": "dodge", "into_melee": False}), dice)
    assert not shot.hit and shot.details["jam"] == {"recovered": False}
    u.state = SYSTEM.after_attack(u.state, shot)
    ann_state, bob_state = u.state["combatants"]["ann"], u.state["combatants"]["bob"]
    assert ann_state["ticks"] == 5 - 1 - 2 and ann_state["jammed"] == ["rifle"]
    # Bob's Dodge was his free Reaction: no tick spent ("one free Reaction, which does not take any ticks")
    assert bob_state["ticks"] == 5 and bob_state["free_reaction"] is False

    opts = SYSTEM.actions(u.state, ann)
    assert not option(opts, "total_defense").available  # "only ... if the character has not previously taken an attack action"
    assert option(opts, "clear_jam").available and option(opts, "clear_jam").cost == "2 ticks"
    u = SYSTEM.act(u.state, ann, "clear_jam", fighters, dice, options={"weapon": "rifle"})
    assert u.state["combatants"]["ann"]["jammed"] == [] and u.state["combatants"]["ann"]["ticks"] == 0
    strike = option(SYSTEM.actions(u.state, ann), "straight_shot")
    assert not strike.available and "0 left" in strike.reason

    # Bob's turn: Total Defense (3 ticks), then no attack actions this turn
    u = SYSTEM.next_turn(u.state, fighters, dice)
    assert (u.round, u.current) == (1, "bob")
    u = SYSTEM.act(u.state, bob, "total_defense", fighters, dice)
    melee = option(SYSTEM.actions(u.state, bob), "melee_strike")
    assert not melee.available and "Total Defense" in melee.reason
    # on Bob's turn Ann may only react: Dodge (her free Reaction), not a Move
    ann_opts = {o.key: o for o in SYSTEM.actions(u.state, ann)}
    assert ann_opts["dodge"].available and "move" not in ann_opts and ann_opts["end_turn"].available is False

    # "New Round ... starting with rolling initiative"; fresh ticks and the free Reaction back
    u = SYSTEM.next_turn(u.state, fighters, dice)
    assert (u.round, u.order, u.current) == (2, ["bob", "ann"], "bob")
    assert u.state["combatants"]["bob"]["ticks"] == 5 and u.state["combatants"]["ann"]["free_reaction"] is True
    # Total Defense lasted "until the start of your next turn"
    assert option(SYSTEM.actions(u.state, bob), "melee_strike").available

    # Bob delays: one less than the next character's initiative; Ann acts, then Bob
    u = SYSTEM.act(u.state, bob, "delay", fighters, dice)
    assert (u.order, u.current) == (["ann", "bob"], "ann")
    assert [r["total"] for r in u.state["initiative"]] == [7, 6]
    u = SYSTEM.act(u.state, ann, "take_cover", fighters, dice)  # free on her own turn: legs and torso
    assert sorted(u.state["combatants"]["ann"]["cover_locations"]) == ["legs", "torso"]
    assert u.state["combatants"]["ann"]["ticks"] == 5
    u = SYSTEM.next_turn(u.state, fighters, dice)
    assert (u.round, u.current) == (2, "bob") and "Bob acts after delaying" in u.log
    u = SYSTEM.next_turn(u.state, fighters, dice)
    assert u.round == 3 and dice.remaining == []


def test_borrowed_ticks_come_off_the_next_round():
    """"When a round starts, all characters get a fresh set of ticks ..., less any they overspent."""
    ann, bob = person("ann", (0, 0), "pc"), person("bob", (1, 0), "npc")
    u = SYSTEM.begin_fight([ann, bob], ScriptedDice([9, 1]))
    u.state["combatants"]["bob"]["ticks"] = -2
    u = SYSTEM.next_turn(u.state, [ann, bob], ScriptedDice([]))
    u = SYSTEM.next_turn(u.state, [ann, bob], ScriptedDice([1, 9]))
    assert u.round == 2 and u.state["combatants"]["bob"]["ticks"] == 3


def test_surprise_round_the_unaware_only_react():
    """"If they fail the Awareness test they may only take reactions during the surprise
    round, up to three ticks worth." Then initiative, and the next round they act."""
    hider = Combatant("h", "Hider", {**SYSTEM.default_sheet(), "stealth": 3}, (0, 0), "pc", True, {"hidden": True})
    victim = Combatant("v", "Victim", {**SYSTEM.default_sheet(), "awareness": 0}, (1, 0), "npc", False, {"unaware": True})
    # Stealth 3dT [6,6,1] + 3 = 5; Awareness [1,1,1] + 0 = 0: surprised; initiative 1 and 9 (the victim would go first)
    dice = ScriptedDice([6, 6, 1, 1, 1, 1, 1, 9])
    u = SYSTEM.begin_fight([hider, victim], dice)
    assert u.phase == "surprise" and u.current == "h"
    assert u.state["combatants"]["v"]["surprised"] and u.state["combatants"]["v"]["ticks"] == 3
    assert "reactions only" in " ".join(u.log)
    options = {o.key: o for o in SYSTEM.actions(u.state, victim)}
    assert options["dodge"].available and "move" not in options
    u = SYSTEM.next_turn(u.state, [hider, victim], ScriptedDice([5, 5]))
    assert u.round == 2 and u.phase == "" and u.current == "h"  # ties: Agility equal, players first
    assert u.state["combatants"]["v"]["ticks"] == 5 and not u.state["combatants"]["v"]["surprised"]


def test_out_of_stamina_resolve_at_the_start_of_the_turn():
    """"Each round a character spends without Stamina, they will be required to take a
    Resolve test at the start of their turn with a difficulty equal to their current
    number of Wounds. Failing this Resolve test means that they fall immediately unconscious."""
    hurt = person("hurt", (0, 0), "pc", stamina=0, wounds=4, willpower=3, resolve=1)
    foe = person("foe", (1, 0), "npc")
    # initiative 9 (hurt first) and 1; Resolve 3dT [6,1,1] + 1 = 2 < 4
    u = SYSTEM.begin_fight([hurt, foe], ScriptedDice([9, 1, 6, 1, 1]))
    assert u.current == "foe"
    assert "Unconscious" in [s["name"] for s in u.sheet_changes["hurt"]["statuses"]] and u.sheet_changes["hurt"]["dying"]


def test_dazed_loses_a_tick_each_round_and_wears_off():
    """Dazed: "Lose 1 Tick per round for the next 2 rounds ... Remove Dazed effect afterwards." """
    dazed = person("d", (0, 0), "pc", statuses=[{"name": "Dazed", "rounds": 2}])
    other = person("o", (5, 0), "npc")
    u = SYSTEM.begin_fight([dazed, other], ScriptedDice([9, 1]))
    u = SYSTEM.next_turn(u.state, [dazed, other], ScriptedDice([]))
    u = SYSTEM.next_turn(u.state, [dazed, other], ScriptedDice([9, 1]))
    assert u.state["combatants"]["d"]["ticks"] == 4
    assert [(x["name"], x["rounds"]) for x in u.sheet_changes["d"]["statuses"]] == [("Dazed", 1)]
    dazed = Combatant("d", "D", {**dazed.sheet, **u.sheet_changes["d"]}, (0, 0), "pc", True, {})
    u = SYSTEM.next_turn(u.state, [dazed, other], ScriptedDice([]))
    u = SYSTEM.next_turn(u.state, [dazed, other], ScriptedDice([9, 1]))
    assert u.round == 3 and u.state["combatants"]["d"]["ticks"] == 4 and u.sheet_changes["d"]["statuses"] == []
    dazed = Combatant("d", "D", {**dazed.sheet, **u.sheet_changes["d"]}, (0, 0), "pc", True, {})
    u = SYSTEM.next_turn(u.state, [dazed, other], ScriptedDice([]))
    u = SYSTEM.next_turn(u.state, [dazed, other], ScriptedDice([9, 1]))
    assert u.round == 4 and u.state["combatants"]["d"]["ticks"] == 5


def test_two_characters_who_keep_delaying_forfeit_the_round():
    """"if this happens, both characters forfeit their remaining actions (to reactions) and
    the next round starts ... after both characters have delayed twice is a good rule of thumb." """
    a, b = person("a", (0, 0), "pc"), person("b", (5, 0), "npc")
    fighters = [a, b]
    u = SYSTEM.begin_fight(fighters, ScriptedDice([9, 1]))
    u = SYSTEM.act(u.state, a, "delay", fighters, ScriptedDice([]))
    u = SYSTEM.act(u.state, b, "delay", fighters, ScriptedDice([]))
    u = SYSTEM.act(u.state, a, "delay", fighters, ScriptedDice([]))
    assert u.round == 1 and u.current == "b"
    u = SYSTEM.act(u.state, b, "delay", fighters, ScriptedDice([4, 4]))
    assert u.round == 2 and "forfeit" in " ".join(u.log)
    assert u.state["combatants"]["a"]["ticks"] == 5


def test_act_refuses_what_it_does_not_do():
    a, b = person("a", (0, 0), "pc"), person("b", (1, 0), "npc")
    u = SYSTEM.begin_fight([a, b], ScriptedDice([9, 1]))
    with pytest.raises(RuleError, match="attack"):
        SYSTEM.act(u.state, a, "melee_strike", [a, b], ScriptedDice([]))
    with pytest.raises(RuleNotImplemented):
        SYSTEM.act(u.state, a, "cast_offensive_spell", [a, b], ScriptedDice([]))
    with pytest.raises(RuleNotImplemented):
        SYSTEM.act(u.state, a, "charm", [a, b], ScriptedDice([]))
    with pytest.raises(RuleError, match="turn"):
        SYSTEM.act(u.state, b, "delay", [a, b], ScriptedDice([]))
    with pytest.raises(RuleError, match="reaction"):
        SYSTEM.act(u.state, b, "hunker_down", [a, b], ScriptedDice([]))  # not b's turn: no reaction
    # a move beyond what the ticks buy is refused and costs nothing (5 ticks, Speed 3: 15 squares)
    with pytest.raises(RuleError, match="15 squares at most"):
        SYSTEM.move(u.state, a, [], 16, [a, b], None, ScriptedDice([]))
    assert u.state["combatants"]["a"]["ticks"] == 5
    with pytest.raises(RuleError, match="turn"):
        SYSTEM.move(u.state, b, [], 1, [a, b], None, ScriptedDice([]))


def test_moving_away_provokes_and_quick_step_rules_hold():
    a, b = person("a", (0, 0), "pc"), person("b", (1, 0), "npc")
    u = SYSTEM.begin_fight([a, b], ScriptedDice([9, 1]))
    moved = SYSTEM.move(u.state, a, [(0, 0), (0, 1), (0, 2)], 2, [a, b], None, ScriptedDice([]))
    assert moved.provokes == ["b"]  # "Provokes a Reactive Attack from foes adjacent to you or squares you move through"
    assert moved.state["combatants"]["a"]["provoked"] == ["b"]
    stepped = SYSTEM.act(u.state, a, "quick_step", [a, b], ScriptedDice([]))
    assert stepped.state["combatants"]["a"]["move_left"] == 1
    away = SYSTEM.move(stepped.state, a, [(0, 0), (0, 1)], 1, [a, b], None, ScriptedDice([]))
    assert away.provokes == [] and away.state["combatants"]["a"]["ticks"] == 5  # Quick Step: free, no asterisk
    blocked = option(SYSTEM.actions(away.state, a), "move")
    assert not blocked.available and "Quick Step" in blocked.reason
    assert away.left == 0  # "May not also move, run, or sprint in the same turn"


def test_covering_fire_gives_allies_plus_one_until_the_next_turn():
    """Covering Fire: "Grants allies +1 to defense rolls until the start of character's next
    turn. May only be used with a weapon that has a Full Auto option and expends equivalent ammunition." """
    a, friend, foe = person("a", (0, 0), "pc"), person("f", (1, 1), "pc"), person("x", (6, 0), "npc")
    fighters = [a, friend, foe]
    u = SYSTEM.begin_fight(fighters, ScriptedDice([9, 2, 1]))
    with pytest.raises(RuleError, match="Full Auto"):
        SYSTEM.act(u.state, a, "covering_fire", fighters, ScriptedDice([]), options={"weapon": "pistol"})
    u = SYSTEM.act(u.state, a, "covering_fire", fighters, ScriptedDice([]), options={"weapon": "rifle"})
    assert "covered_by_fire" in u.state["combatants"]["f"]["stances"]
    assert u.sheet_changes["a"]["weapons"]["rifle"]["ammo"] == 30 - 8
    u = SYSTEM.next_turn(u.state, fighters, ScriptedDice([]))
    u = SYSTEM.next_turn(u.state, fighters, ScriptedDice([]))
    u = SYSTEM.next_turn(u.state, fighters, ScriptedDice([9, 2, 1]))  # round 2: a's turn starts
    assert u.current == "a" and "covered_by_fire" not in u.state["combatants"]["f"]["stances"]


def test_a_combatant_who_left_is_skipped():
    a, b, c = person("a", (0, 0), "pc"), person("b", (3, 0), "npc"), person("c", (5, 0), "npc")
    u = SYSTEM.begin_fight([a, b, c], ScriptedDice([9, 5, 1]))
    u = SYSTEM.next_turn(u.state, [a, c], ScriptedDice([]))
    assert u.current == "c"


def test_actions_say_why_not():
    """Grapple Strike is for the grappled; Multi-Strike "Requires Multi-Weapon Fighting"."""
    a, b = person("a", (0, 0), "pc"), person("b", (1, 0), "npc", statuses=[{"name": "Grappled"}])
    u = SYSTEM.begin_fight([a, b], ScriptedDice([9, 1]))
    opts = SYSTEM.actions(u.state, a)
    assert "Grappled" in option(opts, "grapple_strike").reason
    assert "Multi-Weapon" in option(opts, "multi_strike").reason
    assert option(opts, "cast_offensive_spell").data["automated"] is False
    assert "Grappled" in option(opts, "pin").reason  # Pin is automated now, for the grappled
    joined = SYSTEM.act(u.state, a, "join_grapple", [a, b], ScriptedDice([]), options={"target": "b"})
    assert [s["name"] for s in joined.sheet_changes["a"]["statuses"]] == ["Grappled"]
    grappled = Combatant("a", "A", {**a.sheet, **joined.sheet_changes["a"]}, (0, 0), "pc", True, {})
    opts = {o.key: o for o in SYSTEM.actions(joined.state, grappled)}
    assert not opts["move"].available and "grappl" in opts["move"].reason
    assert opts["grapple_strike"].available


@pytest.mark.parametrize("down", [{"wounds": 10}, {"dying": True}, {"statuses": [{"name": "Unconscious"}]}])
def test_a_foe_out_of_the_fight_takes_no_reaction_strike(down):
    """Reaction Strike: the foe striking must be conscious ("Reaction Strike", "Unconsciousness, Crippling, and
    Death"): a dead, dying or unconscious foe next to a mover lets it go (#67: a dead foe's strike kept the living
    from moving past its body)."""
    a, b = person("a", (0, 0), "pc"), person("b", (1, 0), "npc")
    u = SYSTEM.begin_fight([a, b], ScriptedDice([9, 1]))
    fallen = Combatant("b", "B", {**b.sheet, **down}, position=(1, 0), side="npc", state=b.state)
    moved = SYSTEM.move(u.state, a, [(0, 0), (0, 1), (0, 2)], 2, [a, fallen], None, ScriptedDice([]))
    assert moved.provokes == [] and "provoked" not in moved.state["combatants"]["a"]
