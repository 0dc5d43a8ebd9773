"""The same rules from the table's faces (#59): a command decided from faces entered at the table, roll by roll,
gives the very events the app's own dice give when scripted with the same faces (the 3d6 system's attack, its
defense and damage; hypothesis draws the faces), and faces no such die shows are refused with the state and the
log untouched."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings, strategies as st

from rules.board import Board
from rules.dice import ScriptedDice
from rules.text import plain
from webapp.game import table
from webapp.game.model import GM, Actor, Event, Rejected


def play(game, payload, actor=GM, dice=None):
    events = table.decide(game, table.parse_command(payload), actor, dice)
    for event in events:
        table.evolve(game, event)
    return events


def duel():
    """A fresh copy of :func:`new_duel`'s game, made once."""
    global _DUEL
    if _DUEL is None:
        _DUEL = new_duel()
    return copy.deepcopy(_DUEL)


_DUEL = None


def new_duel():
    """Mira's Hero and the GM's Brute, side by side, Brute's attack on Hero waiting for Hero's defense."""
    game = table.empty_game("g-1")
    for event in table.new_game_events("Duel", "gurps_lite", Board(10, 8)):
        table.evolve(game, event)
    table.evolve(game, Event("player_joined", {"player_id": "p-mira", "name": "Mira", "key_hash": "x" * 64}))
    mira = Actor("player", "p-mira")
    ids = {}
    for name, x, owner in (("Hero", 2, "p-mira"), ("Brute", 3, None)):
        ev = play(game, {"type": "add_token", "name": name, "x": x, "y": 2,
                         **({"owner": owner, "kind": "pc"} if owner else {})})
        ids[name] = ev[0].data["token"]["id"]
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=ScriptedDice([3, 3, 3, 4, 4, 4]))
    while game.combat["current"] != ids["Brute"]:
        play(game, {"type": "next_turn"}, dice=ScriptedDice([]))
    play(game, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"},
         dice=ScriptedDice([]))
    pending = game.pending_defense
    defense = next(c["key"] for c in pending["choices"] if c["available"] and c["key"] != "none")
    choice = {"type": "choose_defense", "defense": defense, "attack": pending["id"]}
    return game, ids, mira, choice


def facts(events):
    """What the events say, less the ids drawn afresh each time a command is decided."""
    out = []
    for e in events:
        data = plain(e.data)
        data.pop("id", None)
        out.append((e.type, data))
    return out


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
