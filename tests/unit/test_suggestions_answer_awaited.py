"""The GM's foes (#60): while the foe's attack waits for its answer (the player's defense, a Savage Worlds Soak roll,
the table's dice), the attack is not booked yet: its plans are none, and the answer says what it waits for
(``waiting``) instead of offering the same attack again; once it is answered the plans are those of the rest of its
turn (no second attack after the one the rules allow: the 3d6 maneuver's one, Savage Worlds' one action not
declared a multi-action), each step accepted."""

from __future__ import annotations

import copy

import pytest

from rules.board import Board
from rules.dice import SeededDice
from webapp.game.planning import suggestions
from webapp.game.core.model import Rejected

from tabledice import MIRA, play
from test_suggestions import _weapons, checked, fight


def _attack_of(found: dict) -> dict:
    """The best plan's steps played up to its attack (not sent): the attack command."""
    return next(s for s in found["plans"][0]["steps"] if s["type"] == "attack")


def _played_up_to_the_attack(game, found: dict) -> dict:
    """The best plan's steps sent as the GM's Do it: every step before the attack, then the attack."""
    *before, attack = found["plans"][0]["steps"]
    for step in before:
        play(game, step, dice=SeededDice(1))
    return attack


def test_while_an_attack_waits_for_the_players_defense_the_plans_wait_and_say_so():
    game, ids = fight("gurps_lite", Board(16, 10), (6, 4), [("Ann", 5, 4)],
                      foe_sheet={"weapons": _weapons("gurps_lite", "Broadsword")})
    attack = _played_up_to_the_attack(game, suggestions.reckon(game, ids["Orc"]))
    asked = play(game, attack, dice=SeededDice(2))
    assert [e.type for e in asked] == ["defense_asked"] and game.pending_defense
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == [] and found["now"] is True and found["token_id"] == ids["Orc"]
    assert str(found["waiting"]) == "Orc's attack waits for Ann's defense"
    play(game, {"type": "choose_defense", "defense": "dodge"}, actor=MIRA, dice=SeededDice(4))  # Ann's player answers
    assert not game.pending_defense
    after = suggestions.reckon(game, ids["Orc"])
    assert "waiting" not in after
    # the maneuver's one attack is booked: the same attack is not offered again (the rules would refuse it)
    assert all(p["target"] is None for p in after["plans"])
    if after["plans"]:
        checked(game, ids, after)


def test_while_a_soak_roll_waits_the_plans_wait_then_come_for_the_rest_of_the_turn():
    for seed in range(60):  # the Orc's blow wounds Ann, a Wild Card with Bennies: a Soak roll is offered
        game, ids = fight("savage_worlds", Board(16, 10), (6, 4), [("Ann", 5, 4)],
                          foe_sheet={"weapons": _weapons("savage_worlds", "Long sword")})
        attack = _attack_of(suggestions.reckon(game, ids["Orc"]))
        play(game, attack, dice=SeededDice(seed))
        if game.pending_soak:
            break
    assert game.pending_soak, "no seed gave a Soak roll"
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == [] and str(found["waiting"]) == "Ann's Soak roll waits for an answer"
    play(game, {"type": "soak", "accept": False}, actor=MIRA)  # she takes the Wounds
    after = suggestions.reckon(game, ids["Orc"])
    assert "waiting" not in after
    # its one action is taken (more are declared before the first: "Actions Per Turn"): the rules refuse the same
    # attack again, and no plan offers it
    with pytest.raises(Rejected, match="action"):
        play(copy.deepcopy(game), attack, dice=SeededDice(1))
    assert all(p["target"] is None for p in after["plans"])
    if after["plans"]:
        checked(game, ids, after)


def test_while_the_foes_attack_waits_for_the_tables_dice_the_plans_wait():
    game, ids = fight("gurps_lite", Board(16, 10), (6, 4), [("Ann", 5, 4)],
                      foe_sheet={"weapons": _weapons("gurps_lite", "Broadsword")})
    play(game, {"type": "set_dice", "mode": "table"})  # the GM rolls the foes' dice at the table
    attack = {**_played_up_to_the_attack(game, suggestions.reckon(game, ids["Orc"])), "defense": "none"}
    asked = play(game, attack)
    assert asked[-1].type == "roll_asked" and game.pending_roll
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == [] and str(found["waiting"]).startswith("Orc's roll waits for the table's dice: ")
    for seed in range(10):  # the app rolls what is asked of the table, roll after roll, until the attack is made
        if not game.pending_roll:
            break
        assert suggestions.reckon(game, ids["Orc"])["plans"] == []
        play(game, {"type": "enter_dice", "roll_id": game.pending_roll["id"], "app": True}, dice=SeededDice(seed))
    assert not game.pending_roll
    assert "waiting" not in suggestions.reckon(game, ids["Orc"])
