"""The GM's foes (#60): a foe's plans asked off its turn in Tesseris, phase/TN and Atomic Tomorrow (zone maps), as in
the 3d6 system and Savage Worlds (test_suggestions_off_turn.py): reckoned as if its turn began now (its time to
declare in phase/TN), on a copy (the game is left as it was), marked ``now`` False; they are the plans it gets once
its turn does come (nothing else changed meanwhile: the ticks a new round gives, a new phase's declaration, a new
round's actions), and their steps are then accepted as the GM's own."""

from __future__ import annotations

import copy

from rules.board import Board
from rules.dice import SeededDice
from webapp.game.planning import suggestions

import test_suggestions_atomic as atomic
import test_suggestions_phase_tn as phase_tn
import test_suggestions_tesseris as tesseris
from tabledice import play
from test_suggestions import checked, fight
from test_suggestions_off_turn import _mine


def _off_then_on(game, orc: str) -> tuple[dict, dict]:
    """The Orc's plans off its turn (the game left as it was), then on its turn once it comes, no one doing
    anything meanwhile."""
    assert game.combat["current"] != orc
    before = copy.deepcopy((game.combat, game.tokens))
    off = suggestions.reckon(game, orc)
    assert off["now"] is False and off["plans"]
    assert copy.deepcopy((game.combat, game.tokens)) == before  # reckoned on a copy
    for seed in range(40):
        if game.combat["current"] == orc:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    on = suggestions.reckon(game, orc)
    assert on["now"] is True
    assert _mine(off) == _mine(on)
    return off, on


def test_tesseris_off_its_turn_the_plans_spend_the_ticks_a_new_round_gives():
    game, ids = fight(tesseris.SYSTEM, Board(30, 8), (2, 3), [("Ann", 15, 3), ("Bob", 29, 7), ("Cid", 29, 0)],
                      foe_sheet={"weapons": {"sword": tesseris.SWORD}})
    orc = ids["Orc"]
    play(game, {"type": "move_token", "token_id": orc, "x": 5, "y": 3})  # a Move of its ticks spent this round...
    ticks = game.combat["state"]["combatants"][orc]["ticks"]
    play(game, {"type": "next_turn"}, dice=SeededDice(5))  # ... and its turn over, Cid's to come this round
    assert orc in game.combat["state"]["acted"] and game.combat["state"]["combatants"][orc]["ticks"] == ticks
    off, _on = _off_then_on(game, orc)
    assert game.combat["state"]["combatants"][orc]["ticks"] > ticks  # the plans were for the new round's ticks
    best = off["plans"][0]  # beside Ann is 9 squares off: three Moves and a Melee Strike, the 5 ticks of a round
    assert best["target"] == ids["Ann"] and best["effect"] > 0 and tesseris._attack(best)
    checked(game, ids, off)  # the off-turn plans' steps, sent on its turn: accepted, odds as the preview's


def test_phase_tn_off_its_time_to_declare_the_plans_are_those_of_its_next_declaration():
    game, ids = fight(phase_tn.SYSTEM, Board(16, 8), (10, 3), [("Ann", 4, 3)],
                      foe_sheet=phase_tn._sheet())
    orc = ids["Orc"]
    play(game, {"type": "move_token", "token_id": orc, "x": 11, "y": 3})  # moving declares its Move this phase
    assert orc in game.combat["state"]["combat"]["declared"]
    for seed in range(10):  # on to another's time to declare, or the phase's end
        if game.combat["current"] != orc:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    off, _on = _off_then_on(game, orc)
    assert any(s["type"] == "act" and s["action"] == "declare:fire" for p in off["plans"] for s in p["steps"])
    phase_tn.played(game, ids, off)  # declared on its time to declare: accepted, each shot's odds as its preview's


def test_atomic_tomorrow_off_its_turn_the_plans_have_a_new_rounds_actions_on_the_zone_map():
    zones = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]}, {"id": "bay", "name": "Cargo Bay",
                                                                       "adjacent": ["depot"]},
             {"id": "depot", "name": "Fuel Depot"}]
    game, ids = atomic.fight(zones, "pad", [("Ann", "depot")], foe_sheet={"weapons": [atomic.PISTOL]})
    orc = ids["Orc"]
    play(game, {"type": "move_token", "token_id": orc, "zone": "bay"})  # its move of this round spent...
    play(game, {"type": "next_turn"}, dice=SeededDice(5))  # ... and its turn over
    off, _on = _off_then_on(game, orc)
    assert any(p["target"] == ids["Ann"] for p in off["plans"])
    assert any(p["steps"][0]["type"] == "move_token" for p in off["plans"])  # a move again: a new round's
    atomic.checked(game, ids, off)
