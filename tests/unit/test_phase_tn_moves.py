"""phase_tn: moves in a fight. The document gives no movement rates: the reading (a game
setting, on the help page) is a Move phase action of up to ``move_per_phase`` squares,
declared like any action ("Initiative and Actions": one new action a phase, in
declaration order, not while waiting on one)."""

import pytest

from rules import phase_tn as pt
from rules.board import Board
from rules.dice import ScriptedDice
from rules.system import Combatant, RuleError

SYSTEM = pt.SYSTEM


def fight(surprised=()):
    """Ann (initiative 5 + 10) declares before Bob (9 + 10)."""
    cs = [Combatant(i, i.title(), SYSTEM.default_sheet(), pos, state={"surprised": i in surprised})
          for i, pos in (("ann", (1, 1)), ("bob", (6, 1)))]
    up = SYSTEM.begin_fight(cs, ScriptedDice([5, 9] if not surprised else [5]))
    return cs, up


def test_a_move_is_the_movers_action_of_the_phase_declared_in_turn():
    cs, up = fight()
    ann, bob = cs
    assert up.current == "ann"
    assert SYSTEM.movement_left(up.state, ann) == 3 and SYSTEM.movement_left(up.state, bob) == 0
    with pytest.raises(RuleError, match="Ann declares before Bob"):
        SYSTEM.move(up.state, bob, [(6, 1), (5, 1)], 1, cs, None, ScriptedDice([]))
    moved = SYSTEM.move(up.state, ann, [(1, 1), (2, 1), (3, 1)], 2, cs, None, ScriptedDice([]))
    assert moved.left == 1 and moved.provokes == []
    assert "Ann declares a Move (phase action, up to 3 squares)." in moved.log
    assert [(a["who"], a["name"], a["length"]) for a in moved.state["combat"]["pending"]] == [("ann", "move", "phase")]
    assert moved.state["stage"] == "declare" and moved.state["combat"]["declared"] == ["ann"]
    with pytest.raises(RuleError, match="1 more square"):
        SYSTEM.move(moved.state, ann, [], 2, cs, None, ScriptedDice([]))
    # Bob declares a shot: no move for him this phase; Ann may still use the rest of her Move
    up = SYSTEM.act(moved.state, bob, "declare:fire", cs, ScriptedDice([]), options={"target": "ann"})
    assert SYSTEM.movement_left(up.state, bob) == 0
    with pytest.raises(RuleError, match="one new action a phase"):
        SYSTEM.move(up.state, bob, [], 1, cs, None, ScriptedDice([]))
    again = SYSTEM.move(up.state, ann, [], 1, cs, None, ScriptedDice([]))
    assert again.left == 0 and SYSTEM.movement_left(again.state, ann) == 0
    # the next phase: a new Move, in turn again
    up = SYSTEM.next_turn(again.state, cs, ScriptedDice([1, 9]))
    assert up.current == "ann" and SYSTEM.movement_left(up.state, ann) == 3


def test_no_move_while_waiting_on_a_longer_action_or_surprised():
    cs, up = fight()
    ann, bob = cs
    up = SYSTEM.act(up.state, ann, "declare", cs, ScriptedDice([]),
                    options={"actions": [{"name": "first aid", "length": "round"}]})
    up = SYSTEM.act(up.state, bob, "wait", cs, ScriptedDice([]))
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([3]))
    assert SYSTEM.movement_left(up.state, ann) == 0
    with pytest.raises(RuleError, match="waiting for an action to resolve"):
        SYSTEM.move(up.state, ann, [], 1, cs, None, ScriptedDice([]))
    cs, up = fight(surprised=("bob",))
    with pytest.raises(RuleError, match="surprised"):
        SYSTEM.move(up.state, cs[1], [], 1, cs, None, ScriptedDice([]))


def test_the_move_per_phase_setting():
    cs, up = fight()
    settings = {"move_per_phase": 5}
    assert SYSTEM.movement_left(up.state, cs[0], settings) == 5
    assert SYSTEM.move(up.state, cs[0], [], 5, cs, None, ScriptedDice([]), settings).left == 0
    with pytest.raises(RuleError):
        SYSTEM.movement_left(up.state, cs[0], {"move_per_phase": "fast"})


def test_moving_out_of_sight_loses_the_targeting():
    """"Ranged Attacks": Targeting is good as long as nothing interferes with the line of sight."""
    cs, up = fight()
    ann, bob = cs
    up = SYSTEM.act(up.state, ann, "declare:target", cs, ScriptedDice([]), options={"target": "bob"})
    up = SYSTEM.act(up.state, bob, "wait", cs, ScriptedDice([]))
    up = SYSTEM.next_turn(up.state, cs, ScriptedDice([9, 1]))  # Bob declares first now
    assert up.state["combatants"]["ann"]["targeting_name"] == "Bob"
    board = Board(10, 6)
    board.add_wall((0, 2), (10, 2))  # a wall below row 1: Bob steps behind it
    moved = SYSTEM.move(up.state, bob, [(6, 1), (6, 2), (6, 3)], 2, cs, board, ScriptedDice([]))
    assert moved.state["combatants"]["ann"]["targeting"] == {}
    assert "Ann loses the Targeting on Bob: the line of sight is broken." in moved.log
