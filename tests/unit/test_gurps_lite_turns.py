"""gurps_lite: the fight lifecycle (begin_fight, next_turn, actions, act), from *3d6 Combat*."""

import json

import pytest

from rules import gurps_lite as g
from rules.dice import SeededDice
from rules.system import AttackRequest, Combatant, RuleError, RuleNotImplemented

from test_gurps_lite_combat import rolls, sheet

NO_VITALS = {"torso_vitals_roll": False}


def fighter(cid, side, leader=False, surprise=None, **over):
    s = sheet(**over)
    s["weapons"] = {k: v for k, v in s["weapons"].items() if k in ("Sword", "Club")}
    state = {"leader": leader}
    if surprise:
        state["surprise"] = surprise
    return Combatant(cid, cid.capitalize(), s, side=side, state=state)


def at(update, c, sheet_=None):
    """The combatant as the app hands it to the rules: its sheet and its fight state."""
    return Combatant(c.id, c.name, sheet_ or c.sheet, side=c.side, state=update.state["combatants"][c.id])


def options(actions, kind=None):
    return {a.key: a for a in actions if kind is None or a.kind == kind}


def test_a_scripted_two_round_fight():
    """"each party will choose a member amongst them to roll against Tactics in a quick contest ...
    If a side is considered a leaderless group then they roll at -2"; one maneuver a turn with the
    movement of the table; shock penalises the victim's next turn; "you can't parry any more attacks
    in the round with the limbs you just used"; an All-Out Attack leaves no defense until the next turn."""
    ann = fighter("ann", "red", leader=True, skills={"Broadsword": 14, "Tactics": 12})
    bob = fighter("bob", "blue", skills={"Broadsword": 12, "Tactics": 12})
    fight = [ann, bob]
    # Ann leads red: Tactics 12 rolls 9 (made by 3); blue is leaderless: 12 - 2 = 10 rolls 12 (failed)
    u = g.SYSTEM.begin_fight(fight, rolls(9, 12))
    assert u.order == ["ann", "bob"] and u.current == "ann" and u.round == 1
    assert [r.total for r in u.rolls] == [9, 12]
    assert u.log[:2] == ["Turn order: red (Ann, Tactics 12) rolls 9: success, margin +3",
                         "Turn order: blue (Bob, Tactics 10) rolls 12: failure, margin -2"]
    assert "Round 1" in u.log
    json.dumps(u.state)

    # Ann's turn: every maneuver of the table, with the movement it allows
    acts = options(g.SYSTEM.actions(u.state, at(u, ann)), "turn")
    assert acts["attack"].available and acts["attack"].data["allowance"] == 1          # a step
    assert acts["move"].data["allowance"] == 5 and acts["all_out_attack"].data["allowance"] == 3
    assert not acts["aim"].available and acts["aim"].reason == "no ready ranged weapon"
    bob_acts = options(g.SYSTEM.actions(u.state, at(u, bob)))
    assert not bob_acts["attack"].available and bob_acts["attack"].reason == "not Bob's turn"
    assert bob_acts["parry:Sword"].available and bob_acts["parry:Sword"].data["level"] == 9
    with pytest.raises(RuleError, match="not Bob's turn"):
        g.SYSTEM.act(u.state, at(u, bob), "attack", fight, rolls())

    u = g.SYSTEM.act(u.state, at(u, ann), "attack", fight, rolls())
    acts = options(g.SYSTEM.actions(u.state, at(u, ann)))
    assert not acts["move_and_attack"].available and "one maneuver a turn" in acts["move_and_attack"].reason
    assert acts["attack:attack"].kind == "attack" and acts["attack:attack"].available
    assert acts["move:attack"].data["allowance"] == 1
    with pytest.raises(RuleError, match="allows 1 yards"):
        g.SYSTEM.move(u.state, at(u, ann), [], 2, fight, None, rolls())
    with pytest.raises(RuleError, match="one maneuver a turn"):
        g.SYSTEM.act(u.state, at(u, ann), "move", fight, rolls())

    # Ann (14) rolls 10 and hits; Bob's parry (9) rolls 12; 1d cut rolls 2: 3 injury, 3 shock
    r = g.SYSTEM.attack(AttackRequest(at(u, ann), at(u, bob), "Sword", distance=1,
                                      options={"defense": {"type": "parry", "weapon": "Sword"}, "settings": NO_VITALS}),
                        rolls(10, 12, [2]))
    assert r.details["injury"] == 3
    bob = Combatant("bob", "Bob", g.SYSTEM.apply(bob.sheet, r), side="blue")
    fight = [ann, bob]
    assert bob.sheet["shock"] == 3
    u = g.SYSTEM.act(u.state, at(u, ann), "record_attack", fight, rolls(), options={"result": r.to_dict()})
    assert u.state["combatants"]["bob"]["parries"] == 1

    # Bob's turn: his attack carries the shock (-3); Ann cross-parries with Sword and Club
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    assert u.current == "bob" and u.round == 1 and u.sheet_changes == {}
    u = g.SYSTEM.act(u.state, at(u, bob), "attack", fight, rolls())
    cross = {"type": "parry", "weapon": "Sword", "cross": "Club"}
    r = g.SYSTEM.attack(AttackRequest(at(u, bob), at(u, ann), "Sword", distance=1, options={"defense": cross}),
                        rolls(8, 11))
    attack = r.details["attacks"][0]
    assert attack["check"]["effective"] == 9 and {"label": "shock", "value": -3, "source": "Injury"} in \
        attack["check"]["modifiers"]
    assert attack["defense"]["success"] and attack["defense"]["checks"][0]["effective"] == 12   # 10 + 2 cross
    u = g.SYSTEM.act(u.state, at(u, bob), "record_attack", fight, rolls(), options={"result": r})
    ann_defs = options(g.SYSTEM.actions(u.state, at(u, ann)), "defense")
    assert not ann_defs["parry:Sword"].available and not ann_defs["parry:Club"].available
    assert "cannot parry again" in ann_defs["parry:Sword"].reason and ann_defs["dodge"].available

    # end of Bob's turn: his shock clears; round 2 begins and Ann's limbs are free again
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    assert u.sheet_changes == {"bob": {"shock": 0}}
    assert u.round == 2 and u.current == "ann" and "Round 2" in u.log
    bob = Combatant("bob", "Bob", {**bob.sheet, **u.sheet_changes["bob"]}, side="blue")
    fight = [ann, bob]
    assert u.state["combatants"]["ann"]["limbs_used"] == [] and u.state["combatants"]["ann"]["parries"] == 0
    assert options(g.SYSTEM.actions(u.state, at(u, ann)), "defense")["parry:Sword"].available

    # round 2: Ann goes All-Out (Determined): +4, and no defense until her next turn
    with pytest.raises(RuleError, match="no 'double_defense'"):
        g.SYSTEM.act(u.state, at(u, ann), "all_out_attack", fight, rolls(), options={"variant": "double_defense"})
    u = g.SYSTEM.act(u.state, at(u, ann), "all_out_attack", fight, rolls(), options={"variant": "determined"})
    r = g.SYSTEM.attack(AttackRequest(at(u, ann), at(u, bob), "Sword", distance=1, options={"defense": "none"}),
                        rolls(17))
    assert r.details["attacks"][0]["check"]["effective"] == 18
    assert {"label": "All-Out Attack (Determined)", "value": 4, "source": "Maneuvers"} in \
        r.details["attacks"][0]["check"]["modifiers"]
    u = g.SYSTEM.act(u.state, at(u, ann), "record_attack", fight, rolls(), options={"result": r})
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    assert u.current == "bob" and u.round == 2
    assert all(not a.available for a in options(g.SYSTEM.actions(u.state, at(u, ann)), "defense").values())
    u = g.SYSTEM.act(u.state, at(u, bob), "attack", fight, rolls())
    r = g.SYSTEM.attack(AttackRequest(at(u, bob), at(u, ann), "Sword", distance=1, options={"settings": NO_VITALS}),
                        rolls(9, [1]))
    assert r.details["attacks"][0]["defense"]["note"] == "no defense available"
    json.dumps(u.to_dict())


def test_total_surprise_stuns_for_1d_seconds_then_iq_rolls_get_easier():
    """"the attackers go first in initiative and the defenders will be mentally stunned for 1d
    seconds. After this period has elapsed the defenders are still stunned but may roll against IQ
    to break free of it, the difficulty goes down by 1 each second after." """
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue", leader=True, surprise="total", IQ=10)
    fight = [ann, bob]
    # blue is surprised: the attackers go first, no Tactics contest (nothing for it to order); 1d = 2 seconds
    u = g.SYSTEM.begin_fight(fight, rolls([2]))
    assert u.order == ["ann", "bob"]
    assert u.state["combatants"]["bob"]["stun_seconds"] == 2
    script = [[], [], [11], [11]]   # two seconds, then IQ 10 (roll 11 fails), IQ 10 + 1 (roll 11 succeeds)
    for round_, faces in enumerate(script, start=1):
        u = g.SYSTEM.next_turn(u.state, fight, rolls())            # Bob's turn
        assert u.current == "bob" and u.round == round_
        acts = options(g.SYSTEM.actions(u.state, at(u, bob)), "turn")
        assert [k for k, a in acts.items() if a.available] == ["do_nothing"]
        assert acts["attack"].reason == "stunned: Do Nothing only"
        with pytest.raises(RuleError, match="stunned"):
            g.SYSTEM.act(u.state, at(u, bob), "attack", fight, rolls())
        u = g.SYSTEM.act(u.state, at(u, bob), "do_nothing", fight, rolls())
        # stunned, he still defends, at -4 (Dodge 8 - 4)
        assert options(g.SYSTEM.actions(u.state, at(u, bob)), "defense")["dodge"].data["level"] == 4
        u = g.SYSTEM.next_turn(u.state, fight, rolls(*faces))      # end of Bob's turn, Ann's next
        assert [r.total for r in u.rolls] == faces
    assert u.state["combatants"]["bob"]["stunned"] is False
    assert any("shakes off" in line for line in u.log)
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    assert options(g.SYSTEM.actions(u.state, at(u, bob)), "turn")["attack"].available


def test_one_bandit_surprised_puts_the_attackers_first_with_no_contest_for_three_rounds():
    """"Turn Order": "If one managed to Totally Suprise a group of defenders ... the attackers go first in
    initiative". One bandit of two ticked: his side is the group caught off guard, so the heroes act first
    without a Tactics contest (issue #33: the contest ran and the bandits' side could go first); the order
    holds each round."""
    ann, cal = fighter("ann", "pc"), fighter("cal", "pc")
    b1, b2 = fighter("b1", "npc", surprise="total"), fighter("b2", "npc")
    fight = [b1, b2, ann, cal]
    dice = rolls([3])  # only the 1d seconds of stun: no Tactics roll
    u = g.SYSTEM.begin_fight(fight, dice)
    assert dice.remaining == []
    assert u.order[:2] == ["ann", "cal"] or u.order[:2] == ["cal", "ann"]
    assert set(u.order[2:]) == {"b1", "b2"} and u.current in ("ann", "cal")
    assert "Surprise: the attackers (pc) go first, then the side caught off guard (npc); no Tactics contest" in u.log
    assert not any(line.startswith("Turn order:") for line in u.log)
    seen = []
    while u.round <= 3:
        seen.append((u.round, u.current))
        if u.current == "b1":  # stunned by the surprise: Do Nothing, IQ rolls after the 3 seconds
            u = g.SYSTEM.act(u.state, at(u, b1), "do_nothing", fight, rolls())
        u = g.SYSTEM.next_turn(u.state, fight, rolls(*([10] * 3)))
    for rnd in (1, 2, 3):
        assert [c for r, c in seen if r == rnd] == u.order  # the same order every round, attackers first


def test_partial_surprise_and_combat_reflexes():
    """"Partial Suprise ... similar to Total Suprise but without the 1d seconds of initial stun. Those
    with Combat Reflexes cannot be Totally Suprised ... they are Partially Suprised." """
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue", surprise="total", traits={"combat_reflexes": True})
    u = g.SYSTEM.begin_fight([ann, bob], rolls(10, 10))            # no 1d roll for Bob
    assert u.state["combatants"]["bob"]["surprise"] == "partial" and u.state["combatants"]["bob"]["stun_seconds"] == 0
    u = g.SYSTEM.next_turn(u.state, [ann, bob], rolls())
    u = g.SYSTEM.act(u.state, at(u, bob), "do_nothing", [ann, bob], rolls())
    u = g.SYSTEM.next_turn(u.state, [ann, bob], rolls(9))          # IQ roll at the end of his first turn
    assert u.state["combatants"]["bob"]["stunned"] is False


def test_stun_recovery_at_the_start_of_the_turn_setting():
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue", surprise="partial")
    st = {"stun_recovery_roll": "start_of_turn"}
    u = g.SYSTEM.begin_fight([ann, bob], rolls(10, 10), st)
    u = g.SYSTEM.next_turn(u.state, [ann, bob], rolls(9), st)      # Bob's turn starts: IQ roll, acts at once
    assert u.current == "bob" and options(g.SYSTEM.actions(u.state, at(u, bob)), "turn")["attack"].available


def test_a_failed_collapse_roll_ends_the_turn_unconscious():
    """"Below 0 HP you are at risk of collapse, at the start of your turn roll HT on a failure you fall
    unconscious"; Do Nothing: "You won't fall unconscious due to low HP as well." """
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue", hp_current=-2, HT=10)
    fight = [ann, bob]
    u = g.SYSTEM.begin_fight(fight, rolls(10, 12))
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    assert u.current == "bob" and any("collapse" in line for line in u.log)
    quiet = g.SYSTEM.act(u.state, at(u, bob), "do_nothing", fight, rolls())
    assert quiet.rolls == [] and quiet.sheet_changes == {}
    # a chosen Do Nothing has no defense ("Do Nothing | None | None")
    assert not options(g.SYSTEM.actions(quiet.state, at(quiet, bob)), "defense")["dodge"].available
    fell = g.SYSTEM.act(u.state, at(u, bob), "attack", fight, rolls(11))
    assert fell.sheet_changes == {"bob": {"conditions": ["unconscious"]}}
    assert not options(g.SYSTEM.actions(fell.state, at(fell, bob)), "turn")["attack"].available
    bob_out = Combatant("bob", "Bob", {**bob.sheet, "conditions": ["unconscious"]}, side="blue")
    u = g.SYSTEM.next_turn(fell.state, [ann, bob_out], rolls())
    assert u.current == "ann" and u.round == 2
    u = g.SYSTEM.next_turn(u.state, [ann], rolls())                # Bob removed from the fight
    assert u.current == "ann" and u.round == 3 and u.order == ["ann"]


def test_evaluate_aim_wait_and_all_out_defense_bookkeeping():
    """Evaluate: "+1...3 to attack the evaluated enemy on your next turn you can repeat this maneuver
    to get the higher bonus"; All-Out Defense: "Get a +2 bonus to one type of active defense"."""
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue")
    fight = [ann, bob]
    u = g.SYSTEM.begin_fight(fight, rolls(10, 12))
    u = g.SYSTEM.act(u.state, at(u, ann), "evaluate", fight, rolls(), options={"target": "bob"})
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    with pytest.raises(RuleError, match="All-Out Defense: choose"):
        g.SYSTEM.act(u.state, at(u, bob), "all_out_defense", fight, rolls())
    u = g.SYSTEM.act(u.state, at(u, bob), "all_out_defense", fight, rolls(), options={"variant": "enhanced_dodge"})
    assert options(g.SYSTEM.actions(u.state, at(u, bob)), "move")["move:all_out_defense"].data["allowance"] == 3
    assert options(g.SYSTEM.actions(u.state, at(u, bob)), "defense")["dodge"].data["level"] == 10
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    u = g.SYSTEM.act(u.state, at(u, ann), "evaluate", fight, rolls(), options={"target": "bob"})
    assert u.state["combatants"]["ann"]["evaluate"] == {"target": "bob", "turns": 2}
    # Bob's All-Out Defense lasts through Ann's turn, to the start of his next
    assert options(g.SYSTEM.actions(u.state, at(u, bob)), "defense")["dodge"].data["level"] == 10
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    u = g.SYSTEM.act(u.state, at(u, bob), "wait", fight, rolls(), options={"trigger": "Ann steps closer"})
    assert u.state["combatants"]["bob"]["wait"] == {"trigger": "Ann steps closer"}
    assert options(g.SYSTEM.actions(u.state, at(u, bob)), "defense")["dodge"].data["level"] == 8
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    u = g.SYSTEM.act(u.state, at(u, ann), "attack", fight, rolls())
    r = g.SYSTEM.attack(AttackRequest(at(u, ann), at(u, bob), "Sword", distance=1, options={"defense": "none"}),
                        rolls(18))
    assert {"label": "Evaluate", "value": 2, "source": "Maneuvers"} in r.details["attacks"][0]["check"]["modifiers"]
    with pytest.raises(RuleNotImplemented):
        g.SYSTEM.act(u.state, at(u, ann), "grapple", fight, rolls())


def test_a_feint_lasts_to_the_end_of_the_feinters_next_turn():
    """Feint: "subtract the margin of victory to the opponent's dodge against your attack the next round"."""
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue")
    fight = [ann, bob]
    u = g.SYSTEM.begin_fight(fight, rolls(10, 12))
    u = g.SYSTEM.act(u.state, at(u, ann), "feint", fight, rolls(), options={"target": "bob"})
    r = g.SYSTEM.attack(AttackRequest(at(u, ann), at(u, bob), "Sword", distance=1), rolls(6, 10))
    u = g.SYSTEM.act(u.state, at(u, ann), "record_attack", fight, rolls(), options={"result": r})
    assert u.state["combatants"]["bob"]["feint_penalty"] == {"ann": 4}
    u = g.SYSTEM.next_turn(u.state, fight, rolls())                 # Bob's turn: the penalty holds
    u = g.SYSTEM.next_turn(u.state, fight, rolls())                 # Ann's next turn
    assert u.state["combatants"]["bob"]["feint_penalty"] == {"ann": 4}
    u = g.SYSTEM.act(u.state, at(u, ann), "attack", fight, rolls())
    u = g.SYSTEM.next_turn(u.state, fight, rolls())                 # ... and ends with it
    assert u.state["combatants"]["bob"]["feint_penalty"] == {}


def test_knockdown_stun_recovers_on_a_ht_roll_at_the_end_of_the_turn():
    """A knockdown leaves the victim "prone and ... stunned"; the HT roll to recover is the published rule."""
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue", HT=10, conditions=["prone", "stunned"])
    fight = [ann, bob]
    u = g.SYSTEM.begin_fight(fight, rolls(10, 12))
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    assert [k for k, a in options(g.SYSTEM.actions(u.state, at(u, bob)), "turn").items() if a.available] == \
        ["do_nothing"]
    u = g.SYSTEM.act(u.state, at(u, bob), "do_nothing", fight, rolls())
    u = g.SYSTEM.next_turn(u.state, fight, rolls(10))
    assert u.sheet_changes == {"bob": {"conditions": ["prone"]}}


def test_a_disarmed_weapon_is_readied_with_the_ready_maneuver():
    """Disarm: "If the opponent won by a margin of 3 or less his weapon is unreadied"; Ready: "Prepare an item"."""
    ann = fighter("ann", "red", leader=True)
    bob = fighter("bob", "blue")
    fight = [ann, bob]
    u = g.SYSTEM.begin_fight(fight, rolls(10, 12))
    u = g.SYSTEM.act(u.state, at(u, ann), "attack", fight, rolls())
    # hit the weapon (12 - 4 - 2 = 6, roll 5); contest: Ann 12 rolls 10 (+2), Bob 12 rolls 9 (+3): unreadied
    r = g.SYSTEM.attack(AttackRequest(at(u, ann), at(u, bob), "Sword", distance=1,
                                      options={"location": "weapon", "disarm": True, "target_weapon": "Sword",
                                               "defense": "none"}), rolls(5, 10, 9))
    assert r.details["attacks"][0]["disarm"]["outcome"] == "weapon unreadied"
    u = g.SYSTEM.act(u.state, at(u, ann), "record_attack", fight, rolls(), options={"result": r})
    assert u.state["combatants"]["bob"]["unready"] == ["Sword"]
    u = g.SYSTEM.next_turn(u.state, fight, rolls())
    assert "parry:Sword" not in {k for k, a in options(g.SYSTEM.actions(u.state, at(u, bob)), "defense").items()
                                 if a.available}
    u = g.SYSTEM.act(u.state, at(u, bob), "ready", fight, rolls(), options={"weapon": "Sword"})
    assert options(g.SYSTEM.actions(u.state, at(u, bob)), "defense")["parry:Sword"].available


@pytest.mark.parametrize("how", ["knocked down", "totally surprised"])
def test_a_stunned_fighter_who_chose_no_maneuver_is_refused_an_attack(how):
    """A stunned fighter may only Do Nothing ("Maneuvers"; stunned by a failed knockdown roll, "Injury", or by a
    Total Surprise, "Turn Order"): an attack sent with no maneuver chosen (a plain Attack by default) is refused
    with the reason, its odds too, and it may attack again once the stun is shaken off."""
    ann = fighter("ann", "red", leader=True)
    if how == "knocked down":
        bob = fighter("bob", "blue", HT=10, conditions=["prone", "stunned"])
        u = g.SYSTEM.begin_fight([ann, bob], rolls(10, 12))
    else:
        bob = fighter("bob", "blue", leader=True, surprise="total", IQ=10)
        u = g.SYSTEM.begin_fight([ann, bob], rolls([2]))
    u = g.SYSTEM.next_turn(u.state, [ann, bob], rolls())
    assert u.current == "bob" and not u.state["combatants"]["bob"]["maneuver"]
    for options_ in ({"settings": NO_VITALS}, {"settings": NO_VITALS, "maneuver": "attack"}):
        request = AttackRequest(at(u, bob), at(u, ann), "Sword", distance=1, options=options_)
        with pytest.raises(RuleError, match="Bob is stunned: Do Nothing only"):
            g.SYSTEM.attack(request, SeededDice(0))
        with pytest.raises(RuleError, match="Bob is stunned: Do Nothing only"):
            g.SYSTEM.odds(request)
    unstunned = Combatant("bob", "Bob", {**bob.sheet, "conditions": ["prone"]}, side="blue",
                          state={**u.state["combatants"]["bob"], "stunned": False})
    r = g.SYSTEM.attack(AttackRequest(unstunned, at(u, ann), "Sword", distance=1, options={"settings": NO_VITALS}),
                        SeededDice(0))
    assert r.details["attacker"] == "bob" and r.rolls


def test_a_maneuver_and_a_move_book_the_actors_books_and_leave_the_state_given_as_it_was():
    """``act`` and ``move`` copy only the actor's books (the rest of the new state is the one given: #68): the state
    handed in is the same after, to the last value; the actor's books in the new state changed; every other
    combatant's books equal to before."""
    import copy

    ann = fighter("ann", "red", leader=True, skills={"Broadsword": 14, "Tactics": 12})
    bob = fighter("bob", "blue", skills={"Broadsword": 12, "Tactics": 12})
    fight = [ann, bob]
    u = g.SYSTEM.begin_fight(fight, rolls(9, 12))
    given = copy.deepcopy(u.state)
    chose = g.SYSTEM.act(u.state, at(u, ann), "move", fight, rolls())
    assert u.state == given  # the state given untouched
    assert chose.state["combatants"]["ann"]["maneuver"] == "move" and not given["combatants"]["ann"].get("maneuver")
    assert chose.state["combatants"]["bob"] == given["combatants"]["bob"]
    after_choice = copy.deepcopy(chose.state)
    moved = g.SYSTEM.move(chose.state, at(chose, ann), [(0, 0), (1, 0), (2, 0)], 2, fight, None, rolls())
    assert chose.state == after_choice
    assert moved.state["combatants"]["ann"]["moved"] == 2 and after_choice["combatants"]["ann"]["moved"] == 0
    assert moved.state["combatants"]["bob"] == after_choice["combatants"]["bob"]
    assert moved.state["combatants"]["ann"] is not chose.state["combatants"]["ann"]
