"""The same rules from the table's faces (#59): a command decided from faces entered at the table, roll by roll,
gives the very events the app's own dice give when scripted with the same faces (the 3d6 system's attack, its
defense and damage; hypothesis draws the faces), and faces no such die shows are refused with the state and the
log untouched."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings, strategies as st

from rules.board import Board
from rules.dice import ScriptedDice, SeededDice
from webapp.game import table
from webapp.game.fight import table_dice
from webapp.game.core.model import GM, Actor, Rejected

from tabledice import MIRA, facts, play, seated



def duel():
    """A fresh copy of :func:`new_duel`'s game, made once."""
    global _DUEL
    if _DUEL is None:
        _DUEL = new_duel()
    return copy.deepcopy(_DUEL)


_DUEL = None


def new_duel():
    """Mira's Hero and the GM's Brute, side by side, Brute's attack on Hero waiting for Hero's defense."""
    game, ids = seated("g-1", "Duel", "gurps_lite", Board(10, 8), (("Hero", 2, "p-mira"), ("Brute", 3, None)))
    mira = MIRA
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=ScriptedDice([3, 3, 3, 4, 4, 4]))
    while game.combat["current"] != ids["Brute"]:
        play(game, {"type": "next_turn"}, dice=ScriptedDice([]))
    play(game, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"},
         dice=ScriptedDice([]))
    pending = game.pending_defense
    defense = next(c["key"] for c in pending["choices"] if c["available"] and c["key"] != "none")
    choice = {"type": "choose_defense", "defense": defense, "attack": pending["id"]}
    return game, ids, mira, choice



three_d6 = st.lists(st.integers(1, 6), min_size=3, max_size=3)


@settings(max_examples=25, deadline=None)
@given(attack=three_d6, defense=three_d6, damage=st.lists(st.integers(1, 6), min_size=6, max_size=6),
       extra=st.lists(st.integers(1, 6), min_size=12, max_size=12))
def test_an_attack_from_entered_faces_is_the_attack_of_the_apps_dice_showing_them(attack, defense, damage, extra):
    game, ids, mira, choice = duel()
    app_game = copy.deepcopy(game)

    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, choice, actor=mira)
    entered = []
    pool = [attack, defense, damage, extra[:3], extra[3:6], extra[6:9], extra[9:]]
    for faces in pool:
        if events[-1].type != "roll_asked":
            break
        ask = events[-1].data
        n = sum(int(t.split("d")[0] or 1) for t in ask["roll"]["dice"].replace("-", "+").split("+") if "d" in t)
        faces = (faces * 3)[:n]
        entered += faces
        who = GM if ask["roll"]["roller"] == ids["Brute"] else mira
        events = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": faces}, actor=who)
    else:
        pytest.fail("more rolls asked than any 3d6 attack makes")
    assert events[-1].type == "roll_settled"

    settled = events[-1].data
    assert entered == [f for faces, by_table in zip(settled["made"], settled["entered"]) if by_table for f in faces]
    made = [f for faces in settled["made"] for f in faces]  # entered, and the app's own for rolls nobody is asked
    app_events = play(app_game, choice, actor=mira, dice=ScriptedDice(made))
    assert facts(events[:-1]) == facts(app_events)


def test_a_face_no_die_shows_changes_nothing():
    game, ids, mira, choice = duel()
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, choice, actor=mira)[-1].data
    before = (game.seq, copy.deepcopy(game.to_dict()))
    for faces in ([0, 3, 3], [7, 1, 1], [3, 3], [3, 3, 3, 3]):
        with pytest.raises(Rejected):
            table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": faces}), GM)
        assert (game.seq, game.to_dict()) == before


def sw_fight():
    """Savage Worlds: Mira's Hero (a Wild Card) beside the GM's Goblin, Hero to act; made once, copied."""
    global _SW
    if _SW is None:
        game, ids = seated("g-2", "Brawl", "savage_worlds", Board(10, 8), (("Hero", 2, "p-mira"), ("Goblin", 3, None)))
        play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(5))  # the cards
        while game.combat["current"] != ids["Hero"]:
            play(game, {"type": "next_turn"}, dice=SeededDice(6))
        _SW = (game, ids)
    return copy.deepcopy(_SW[0]), dict(_SW[1])


_SW = None


def aced(sides: int):
    """One die's faces as the table rolls it: a top face is followed by another roll of the same die."""
    return st.lists(st.just(sides), max_size=2).flatmap(
        lambda tops: st.integers(1, sides - 1).map(lambda last: tops + [last]))


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_a_savage_worlds_attack_from_entered_faces_with_aces_is_the_attack_of_the_apps_dice(data):
    game, ids = sw_fight()
    app_game = copy.deepcopy(game)
    mira = Actor("player", "p-mira")
    attack = {"type": "attack", "attacker": ids["Hero"], "target": ids["Goblin"], "weapon": "Long sword"}
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, attack, actor=mira)
    entered = []
    for _ in range(12):
        if events[-1].type != "roll_asked":
            break
        ask = events[-1].data
        assert ask["roll"]["roller"] == ids["Hero"]  # the foe's dice are the GM's, but a Goblin rolls none here
        faces = []
        for die in table_dice.pad(ask["roll"]["dice"]):
            faces += data.draw(aced(die["sides"]) if die["again"] else st.integers(1, die["sides"]).map(lambda f: [f]))
        entered += faces
        events = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": faces}, actor=mira)
    assert events[-1].type == "roll_settled", events[-1].type
    settled = events[-1].data
    assert entered == [f for faces, by_table in zip(settled["made"], settled["entered"]) if by_table for f in faces]
    made = [f for faces in settled["made"] for f in faces]
    assert facts(events[:-1]) == facts(play(app_game, attack, actor=mira, dice=ScriptedDice(made)))


def test_an_ace_chain_that_stops_on_a_top_face_is_refused():
    game, ids = sw_fight()
    mira = Actor("player", "p-mira")
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, {"type": "attack", "attacker": ids["Hero"], "target": ids["Goblin"], "weapon": "Long sword"},
               actor=mira)[-1].data
    sides = table_dice.pad(ask["roll"]["dice"])[0]["sides"]
    before = game.to_dict()
    with pytest.raises(Rejected, match="explodes: enter the next roll of that die too"):
        table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": [sides]}), mira)
    with pytest.raises(Rejected, match=f"a d{sides} cannot show {sides + 1}"):
        table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": [sides + 1]}),
                     mira)
    # the trait die and the Wild Die are one roll: the chain of the first, then the second
    assert ask["roll"]["dice"] == f"d{sides}!+d6!"
    with pytest.raises(Rejected, match="a die is missing"):
        table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": [sides, sides, 2]}),
                     mira)
    assert game.to_dict() == before
    events = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": [sides, sides, 2, 1]}, actor=mira)
    assert events[-1].type in ("roll_asked", "roll_settled")
    assert events[-1].data["made"][0] == [sides, sides, 2, 1]
