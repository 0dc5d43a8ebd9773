"""The GM's foes (#60): a foe's plans asked off its turn ("or the GM opens it at any time"), in the 3d6 system and
in Savage Worlds: reckoned as if its turn began now, on a copy (the game is left as it was), marked ``now`` False;
they are the plans it gets once its turn does come (nothing else changed meanwhile: its turn's books start afresh,
whatever it did on its last turn), and their steps are then accepted as the GM's own."""

from __future__ import annotations

import copy

import pytest

from rules.board import Board
from rules.dice import SeededDice
from webapp.game.planning import suggestions
from webapp.game.core.model import Rejected

from tabledice import play
from test_suggestions import SYSTEMS, _weapons, checked, fight


def _mine(found: dict) -> list:
    return [(str(p["summary"]), p["steps"], p["hit"], p["effect"], str(p["why"])) for p in found["plans"]]


@pytest.mark.parametrize("system", SYSTEMS)
def test_off_its_turn_a_foe_gets_the_plans_of_its_coming_turn_and_the_game_is_left_as_it_was(system):
    board = Board(16, 10)
    sword = "Broadsword" if system == "gurps_lite" else "Long sword"
    game, ids = fight(system, board, (9, 4), [("Ann", 5, 4), ("Bob", 4, 7)], foe_sheet={"weapons": _weapons(system, sword)})
    if system == "gurps_lite":  # its turn spent on a Move (no attack left this turn)...
        play(game, {"type": "act", "token_id": ids["Orc"], "action": "move", "options": {}})
    play(game, {"type": "move_token", "token_id": ids["Orc"], "x": 10, "y": 4})  # ... and a step away
    play(game, {"type": "next_turn"}, dice=SeededDice(5))  # the Orc's turn is over: a hero's now
    assert game.combat["current"] != ids["Orc"]
    before = copy.deepcopy((game.combat, game.tokens))
    off = suggestions.reckon(game, ids["Orc"])
    assert off["now"] is False and off["plans"]
    assert copy.deepcopy((game.combat, game.tokens)) == before  # reckoned on a copy
    for seed in range(40):  # on to the Orc's next turn, no one doing anything meanwhile
        if game.combat["current"] == ids["Orc"]:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    on = suggestions.reckon(game, ids["Orc"])
    assert on["now"] is True
    assert _mine(off) == _mine(on)
    checked(game, ids, off)  # the off-turn plans' steps, sent on its turn: accepted, odds as the preview's


def test_a_token_not_in_the_fight_has_no_plans():
    board = Board(16, 10)
    game, ids = fight("gurps_lite", board, (9, 4), [("Ann", 5, 4)])
    play(game, {"type": "add_token", "name": "Troll", "x": 12, "y": 8})
    troll = next(t.id for t in game.tokens.values() if t.name == "Troll")
    with pytest.raises(Rejected, match="not in it"):
        suggestions.reckon(game, troll)
