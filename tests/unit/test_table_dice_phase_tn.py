"""The table's own dice (#59) in *Phase/TN Combat Sequence*: every roll of a shot, a surprise check, initiative
and a roll to make an action free is its roller's, with what the dice must show; a command decided from faces
entered at the table gives the very events the app's own dice give when scripted with the same faces
(hypothesis draws them), and faces no such die shows are refused with the state untouched.

Whose dice: the shooter's for the roll to hit, the hit location and the damage; the target's for its trauma
check; a character's own for its initiative, its Reflexes against surprise and its roll to make an action free.
Ann is Mira's, Bob the GM's (a foe)."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings, strategies as st

from rules.board import Board
from rules.dice import ScriptedDice, SeededDice
from webapp.game import table
from webapp.game.fight import table_dice
from webapp.game.core.model import GM, Event, Rejected

from tabledice import MIRA, enter_drawn, facts, made_once, play, seated





def shootout(surprised=False):
    """Mira's Ann and the GM's Bob, five squares apart, in a fight (Bob caught unaware with ``surprised``)."""
    game, ids = seated("g-ptn", "Shootout", "phase_tn", Board(10, 8), (("Ann", 2, "p-mira"), ("Bob", 7, None)))
    play(game, {"type": "start_combat", "token_ids": [ids["Ann"], ids["Bob"]],
                "surprised": [ids["Bob"]] if surprised else []}, dice=SeededDice(5))
    return game, ids


def declaring(surprised=False):
    """Phase 1, Ann's turn to declare (Bob declares nothing new before her, or is surprised)."""
    def build():
        game, ids = shootout(surprised)
        while game.combat["current"] != ids["Ann"]:
            play(game, {"type": "next_turn"}, dice=SeededDice(6))
        return game, ids
    return made_once(("declaring", surprised), build)


def shot_due():
    """Ann declared a shot at Bob in phase 1; the phase resolved: her shot is due."""
    def build():
        game, ids = declaring()
        play(game, {"type": "act", "token_id": ids["Ann"], "action": "declare:fire", "options": {"target": ids["Bob"]}},
             actor=MIRA, dice=ScriptedDice([]))
        play(game, {"type": "next_turn"}, dice=SeededDice(8))
        (due,) = game.combat["due"]
        return game, {**ids, "due": due}
    game, ids = made_once("shot_due", build)
    due = ids.pop("due")
    return game, ids, {"type": "attack", "attacker": due["attacker"], "target": due["target"], "weapon": due["weapon"],
                       "options": due["options"]}


def phase_ends_with_surprise():
    """Bob was caught unaware; the next ``next_turn`` ends phase 2 and opens phase 3, where he rolls Reflexes
    against surprise before everyone who may declare rolls initiative."""
    def build():
        game, ids = declaring(surprised=True)
        for _ in range(20):
            if game.combat["state"]["combat"]["phase"] == 2 and game.combat["current"] is None:
                break
            play(game, {"type": "next_turn"}, dice=SeededDice(9))
        else:
            raise AssertionError("never got to the end of phase 2")
        return game, ids
    return made_once("surprise", build)




def at_the_table(game, ids, payload, actor, data):
    """``payload`` sent with the table rolling, each roll's faces drawn and entered by the roller's player (the
    GM for Bob's): the events that settle it, every roll asked, and the faces entered in order."""
    play(game, {"type": "set_dice", "mode": "table"})
    events = play(game, payload, actor=actor)
    events, asked, entered = enter_drawn(game, events, data, ids["Ann"])
    return events, asked, entered


def same_as_the_apps(app_game, payload, actor, events, entered):
    """The settled command's events are those of the app's dice showing every face made (entered or the app's)."""
    assert events[-1].type == "roll_settled", events[-1].type
    settled = events[-1].data
    assert entered == [f for faces, by_table in zip(settled["made"], settled["entered"]) if by_table for f in faces]
    made = [f for faces in settled["made"] for f in faces]
    assert facts(events[:-1]) == facts(play(app_game, payload, actor=actor, dice=ScriptedDice(made)))


def words(packed) -> str:
    return str(table_dice.words(packed))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_due_shot_from_entered_faces_is_the_shot_of_the_apps_dice_showing_them(data):
    game, ids, shot = shot_due()
    app_game = copy.deepcopy(game)
    events, asked, entered = at_the_table(game, ids, shot, MIRA, data)
    same_as_the_apps(app_game, shot, MIRA, events, entered)
    # to hit, then for a hit its location and damage (the shooter's), then the target's trauma check
    assert words(asked[0]["purpose"]) == "Sidearm to hit" and asked[0]["roller"] == ids["Ann"]
    for roll in asked[1:]:
        purpose = words(roll["purpose"])
        if purpose.startswith("trauma check"):
            assert roll["roller"] == ids["Bob"] and "or more succeeds" in words(roll["needs"]) \
                or "no roll reaches" in words(roll["needs"])
        else:
            assert purpose == "hit location" or purpose.startswith("damage ("), purpose
            assert roll["roller"] == ids["Ann"]
    result = events[0].data["result"]
    assert len(asked) == 1 + (3 * len(result["details"].get("hits", [])) - sum(
        "trauma_check" not in h for h in result["details"].get("hits", [])))


def test_what_each_roll_of_a_shot_must_show_is_said_in_the_rules_terms():
    game, ids, shot = shot_due()
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, shot, actor=MIRA)[-1].data
    assert ask["roll"]["dice"] == "d10" and ask["roll"]["roller"] == ids["Ann"]
    # TN 8 less Ann's Reflexes and skill, 2 more for a wild shot (no Targeting held)
    result = play(copy.deepcopy(game), {"type": "enter_dice", "roll_id": ask["id"], "faces": [1]},
                  actor=MIRA)[0].data["result"]
    need = 8 - sum(m["value"] for m in result["modifiers"])
    assert [m["label"] for m in result["modifiers"]] == ["Reflexes", "skill handguns", "wild shot"]
    assert 1 < need <= 10 and not result["hit"]
    # what is added to the die said too (#70), so "a 2 hits TN 8" adds up
    assert words(ask["roll"]["needs"]) == f"roll d10: {need} or more hits (TN 8); +{8 - need} is added"
    # a hit: where it lands (the table in words), then the damage, both Ann's
    ask = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": [10]}, actor=MIRA)[-1].data
    assert ask["roll"]["roller"] == ids["Ann"] and words(ask["roll"]["purpose"]) == "hit location"
    assert words(ask["roll"]["needs"]) == ("roll d10 for the hit location: 1 head, 2-3 chest, 4 abdomen, 5 right arm, "
                                           "6 left arm, 7-8 right leg, 9-10 left leg")
    ask = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": [2]}, actor=MIRA)[-1].data
    assert ask["roll"]["roller"] == ids["Ann"] and words(ask["roll"]["purpose"]) == "damage (chest)"
    assert words(ask["roll"]["needs"]) == f"roll {ask['roll']['dice']} for damage"
    damage = [6] * len(table_dice.pad(ask["roll"]["dice"]))
    ask = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": damage}, actor=MIRA)[-1].data
    # the trauma check is Bob's: the GM enters it (Bob is a foe), not Mira
    assert ask["roll"]["roller"] == ids["Bob"] and words(ask["roll"]["purpose"]) == "trauma check (chest)"
    assert words(ask["roll"]["needs"]).startswith("roll d10: ")
    with pytest.raises(Rejected, match="not yours to enter"):
        table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": [5]}), MIRA)
    assert play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": [5]})[-1].type == "roll_settled"


@settings(max_examples=20, deadline=None)
@given(data=st.data(), called=st.sampled_from(["head", "chest", "left leg"]), aim=st.integers(0, 3),
       tn=st.integers(4, 14))
def test_a_called_shot_outside_a_fight_from_entered_faces_is_the_apps(data, called, aim, tn):
    game, ids = made_once("outside", lambda: _outside())
    app_game = copy.deepcopy(game)
    shot = {"type": "attack", "attacker": ids["Ann"], "target": ids["Bob"],
            "options": {"targeted": True, "called": called, "aim": aim, "tn": tn}}
    events, asked, entered = at_the_table(game, ids, shot, GM, data)
    same_as_the_apps(app_game, shot, GM, events, entered)
    needs = words(asked[0]["needs"])
    assert asked[0]["roller"] == ids["Ann"]
    assert f"called TN {tn + {'head': 4, 'chest': 1, 'left leg': 2}[called]}" in needs or "no roll reaches" in needs
    assert all(r["roller"] == ids["Ann"] for r in asked if not words(r["purpose"]).startswith("trauma check"))
    assert all(words(r["purpose"]) != "hit location" for r in asked)  # a called shot lands where it was called


def _outside():
    game = table.empty_game("g-ptn-2")
    for event in table.new_game_events("Range", "phase_tn", Board(10, 8)):
        table.evolve(game, event)
    table.evolve(game, Event("player_joined", {"player_id": "p-mira", "name": "Mira", "key_hash": "x" * 64}))
    ids = {}
    for name, x, owner in (("Ann", 2, "p-mira"), ("Bob", 7, None)):
        ev = play(game, {"type": "add_token", "name": name, "x": x, "y": 2,
                         **({"owner": owner, "kind": "pc"} if owner else {})})
        ids[name] = ev[0].data["token"]["id"]
    return game, ids


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_the_surprise_check_and_initiative_of_a_new_phase_are_each_characters_own(data):
    game, ids = phase_ends_with_surprise()
    app_game = copy.deepcopy(game)
    events, asked, entered = at_the_table(game, ids, {"type": "next_turn"}, GM, data)
    same_as_the_apps(app_game, {"type": "next_turn"}, GM, events, entered)
    first = asked[0]
    assert first["roller"] == ids["Bob"] and words(first["purpose"]) == "surprise: Reflexes roll"
    assert words(first["needs"]).startswith("roll d10: ") and "(TN 8)" in words(first["needs"])
    rest = asked[1:]
    assert all(words(r["purpose"]) == "initiative" for r in rest)
    for r in rest:
        assert words(r["needs"]).startswith("roll d10 for initiative, ")
        assert words(r["needs"]).endswith(" added: the lowest total declares first")
    # who may declare rolls initiative, each their own: Ann, and Bob once he shook off the surprise
    shaken_off = ids["Bob"] not in game.combat["state"]["combat"]["surprise"]
    assert [r["roller"] for r in rest] == ([ids["Ann"], ids["Bob"]] if shaken_off else [ids["Ann"]])


@settings(max_examples=20, deadline=None)
@given(data=st.data(), tn=st.integers(3, 15))
def test_a_roll_to_make_an_action_free_is_the_declarers(data, tn):
    game, ids = declaring()
    app_game = copy.deepcopy(game)
    declare = {"type": "act", "token_id": ids["Ann"], "action": "declare:fire",
               "options": {"target": ids["Bob"], "free_roll": {"skill": "handguns", "tn": tn}}}
    events, asked, entered = at_the_table(game, ids, declare, MIRA, data)
    same_as_the_apps(app_game, declare, MIRA, events, entered)
    (roll,) = asked
    assert roll["roller"] == ids["Ann"] and words(roll["purpose"]) == "handguns to make fire free"
    assert f"(TN {tn})" in words(roll["needs"])


def test_a_face_no_d10_shows_changes_nothing():
    game, ids, shot = shot_due()
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, shot, actor=MIRA)[-1].data
    before = (game.seq, copy.deepcopy(game.to_dict()))
    for faces in ([0], [11], [], [5, 5], [-1]):
        with pytest.raises(Rejected):
            table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": faces}), MIRA)
        assert (game.seq, game.to_dict()) == before


def test_the_apps_dice_roll_as_before():
    """With the app rolling (the default), no roll is asked and the same seed gives the same shot."""
    game, ids, shot = shot_due()
    again = copy.deepcopy(game)
    events = play(game, shot, actor=MIRA, dice=SeededDice(11))
    assert [e.type for e in events] == ["attack_resolved"]
    assert facts(events) == facts(play(again, shot, actor=MIRA, dice=SeededDice(11)))


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_the_first_initiative_of_a_fight_is_each_characters_own(data):
    game, ids = made_once("outside", lambda: _outside())
    app_game = copy.deepcopy(game)
    start = {"type": "start_combat", "token_ids": [ids["Ann"], ids["Bob"]]}
    events, asked, entered = at_the_table(game, ids, start, GM, data)
    same_as_the_apps(app_game, start, GM, events, entered)
    assert [(r["roller"], words(r["purpose"])) for r in asked] == [(ids["Ann"], "initiative"), (ids["Bob"], "initiative")]


@pytest.mark.parametrize("expr, low, high", [("d10", 1, 10), ("2d6+1", 3, 13), ("d10!", 1, None), ("3dT", 0, None),
                                             ("4d6kh3", 3, 18), ("10-d6", 4, 9), ("d6-d4!", None, 5)])
def test_the_lowest_and_highest_roll_of_the_games_dice(expr, low, high):
    from rules.phase_tn.checks import lowest_highest, tn_needs
    assert lowest_highest(expr) == (low, high)
    assert tn_needs("d10", 8, 3) == "roll d10: 5 or more succeeds (TN 8); +3 is added"
    assert tn_needs("d10", 8, 9) == "roll d10: 1 or more succeeds (TN 8); +9 is added"  # no roll misses
    assert tn_needs("d10", 20, 3) == "roll d10: no roll reaches TN 20; +3 is added"
    assert tn_needs("d10", 8, 0) == "roll d10: 8 or more succeeds (TN 8)"  # nothing added: nothing said


class Told(ScriptedDice):
    """The app's scripted dice that note each roll's roller and what it must show."""

    def __init__(self, faces):
        super().__init__(faces)
        self.told = []

    def roll(self, expr, purpose="", roller=None, needs=None, chance=None):
        self.told.append((roller, str(needs)))
        return super().roll(expr, purpose, roller, needs, chance)


def test_a_burst_says_its_extra_hits_and_a_called_shot_its_called_tn():
    from rules import phase_tn as pt
    from rules.system import AttackRequest, Combatant
    smg = {**pt.SYSTEM.default_sheet(), "weapons": [{"name": "SMG", "skill": "handguns", "damage": "2d6",
                                                      "mode": "auto"}]}
    ann, bob = Combatant("ann", "Ann", smg), Combatant("bob", "Bob", pt.SYSTEM.default_sheet())
    dice = Told([1] + [5] * 30)
    result = pt.SYSTEM.attack(AttackRequest(ann, bob, options={"mode": "burst", "targeted": True, "tn": 13}), dice)
    need = 13 - sum(m.value for m in result.modifiers)
    assert dice.told[0] == ("ann", f"roll d10: {need} or more hits, one hit more for every 3 over that (3 at most; TN 13)"
                                 f"; +{13 - need} is added")
    assert 1 < need < 10
    dice = Told([1] + [5] * 30)
    result = pt.SYSTEM.attack(AttackRequest(ann, bob, options={"called": "head", "targeted": True, "tn": 12}), dice)
    need = 12 - sum(m.value for m in result.modifiers)
    assert dice.told[0] == ("ann", f"roll d10: {need} or more hits, {need + 4} or more hits the head (TN 12, "
                                 f"called TN 16); +{12 - need} is added")
    assert 1 < need < need + 4 <= 10
    dice = Told([1] + [5] * 30)
    pt.SYSTEM.attack(AttackRequest(ann, bob, options={"called": "head", "targeted": True, "tn": 15}), dice)
    assert "drifting from the head (TN 15; no roll reaches the called TN 19); +" in dice.told[0][1]
