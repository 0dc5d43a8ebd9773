"""Savage Worlds with the table's own dice (#59): every roll a character makes is asked of whoever makes it (the
attacker's trait dice with the Wild Die as one roll, its damage, a Rapid Attack's dice, a stray shot's pick and
damage, a blast's deviation and each victim's damage, the running die; the defender's Soak; the Notice of a
surprised character; each side's Athletics when one interrupts from Hold), with what the dice must show in the
rule's words; a Rapid Attack, an area attack (deviating where it misses) and a run from entered faces are those of
the app's dice showing them (hypothesis draws the faces, aces included); faces no such roll shows change nothing."""

from __future__ import annotations

import copy
import re

import pytest
from hypothesis import given, settings, strategies as st

from rules.board import Board
from rules.dice import ScriptedDice, SeededDice
from webapp.game import table
from webapp.game.fight import table_dice
from webapp.game.core.model import GM, Rejected

from tabledice import MIRA, both_ways, made_once, play, seated, words

def heros_turn(tokens):
    """A Savage Worlds fight on a 12x8 map (the app's dice deal the cards), Mira's Hero (a Wild Card with the
    default sheet: Fighting d8, Shooting and Athletics d6, Vigor d8) to act."""
    def build():
        game, ids = seated("g-sw", "Brawl", "savage_worlds", Board(12, 8), tokens)
        play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(5))
        while game.combat["current"] != ids["Hero"]:
            play(game, {"type": "next_turn"}, dice=SeededDice(6))
        return game, ids
    return made_once(tokens, build)


#: Hero between two foes it can reach: the Goblin beside it, the Orc below it
MELEE = (("Hero", (2, 2), "p-mira"), ("Goblin", (3, 2), None), ("Orc", (2, 3), None))
#: Hero far off a knot of three foes: the Goblin, with the Orc and the Rat next to it
RANGED = (("Hero", (1, 1), "p-mira"), ("Goblin", (8, 2), None), ("Orc", (9, 2), None), ("Rat", (8, 3), None))


def melee():
    return heros_turn(MELEE)


def ranged():
    return heros_turn(RANGED)


def table_rolls(game):
    play(game, {"type": "set_dice", "mode": "table"})
    return game


def ask(events):
    """The roll the last of ``events`` asks: its dice, roller, purpose and needs in English, and its id."""
    assert events[-1].type == "roll_asked", events[-1].type
    d = events[-1].data
    return {"id": d["id"], "dice": d["roll"]["dice"], "roller": d["roll"]["roller"],
            "purpose": words(d["roll"]["purpose"]), "needs": words(d["roll"]["needs"])}


def enter(game, asked, faces, actor=MIRA):
    return play(game, {"type": "enter_dice", "roll_id": asked["id"], "faces": faces}, actor=actor)


def attack(ids, target="Goblin", weapon="Long sword", **more):
    return {"type": "attack", "attacker": ids["Hero"], "target": ids[target], "weapon": weapon, **more}


def blast(game, where=(8.5, 2.5)):
    """A Small Blast laid on the map at ``where``: its id."""
    events = play(game, {"type": "place_template", "shape": "circle", "x": where[0], "y": where[1], "size": 1})
    return events[0].data["template"]["id"]


# --- each roll asked of its roller, with what it must show ------------------------------------------------------


def test_an_attack_asks_the_attacker_for_the_trait_die_and_the_wild_die_at_once_then_the_damage_and_raise():
    game, ids = melee()
    first = ask(play(table_rolls(game), attack(ids), actor=MIRA))
    assert first["dice"] == "d8!+d6!" and first["roller"] == ids["Hero"] and first["purpose"] == "Fighting"
    assert first["needs"].startswith("roll the d8 and the Wild d6: the better counts; 6 or more succeeds, "
                                     "10 is a raise")  # the Goblin's Parry 6
    assert table_dice.pending_view(game, MIRA)["chooser"] and table_dice.pending_view(game, GM)["chooser"]
    damage = ask(enter(game, first, [8, 3, 2]))  # 11: a hit with a raise
    assert (damage["dice"], damage["roller"]) == ("d6!+d8!", ids["Hero"])
    # the Toughness the damage meets, as the attack's line says it when it lands (#70)
    assert damage["needs"] == "roll d6!+d8! for damage (the dice ace) vs Toughness 7"
    bonus = ask(enter(game, damage, [2, 3]))
    assert (bonus["dice"], bonus["roller"], bonus["purpose"]) == ("d6!", ids["Hero"], "raise: bonus damage")
    assert bonus["needs"] == "roll d6 more for the raise (it aces)"


def test_a_rapid_attack_is_one_roll_of_its_trait_dice_and_the_wild_die():
    game, ids = melee()
    asked = ask(play(table_rolls(game), attack(ids, options={"rapid_attack": 3}), actor=MIRA))
    assert (asked["dice"], asked["roller"], asked["purpose"]) == ("3d8!+d6!", ids["Hero"], "Fighting")
    assert asked["needs"].startswith("roll 3 d8 and the Wild d6, one trait die an attack, the Wild Die in place of "
                                     "the worst: each 10 or more hits, 14 is a raise")  # Parry 6, Rapid Attack -4


def test_a_rapid_attack_split_among_targets_says_which_dice_go_at_whom():
    game, ids = melee()
    asked = ask(play(table_rolls(game), attack(ids, options={"rapid_attack": 3}, targets=[ids["Orc"]]), actor=MIRA))
    assert (asked["dice"], asked["roller"]) == ("3d8!+d6!", ids["Hero"])
    assert asked["needs"] == ("roll 3 d8 and the Wild d6 (it replaces the worst die at Goblin), the dice in this "
                              "order: 2 dice at Goblin: 10 or more hits, 14 is a raise; 1 die at Orc: 10 or more "
                              "hits, 14 is a raise (a top face aces: roll that die again and add)")


def test_the_running_die_is_the_runners():
    game, ids = melee()
    asked = ask(play(table_rolls(game), {"type": "act", "token_id": ids["Hero"], "action": "run"}, actor=MIRA))
    assert (asked["dice"], asked["roller"], asked["purpose"]) == ("d6", ids["Hero"], "running die")
    assert asked["needs"] == "roll the d6 and add it to Pace 6 (it does not ace)"
    events = enter(game, asked, [5])
    assert events[-1].type == "roll_settled"
    assert game.combat["state"]["combatants"][ids["Hero"]]["run_allowance"] == 11


def test_a_stray_shots_pick_and_damage_are_the_shooters():
    game, ids = ranged()
    shot = ask(play(table_rolls(game), attack(ids, weapon="Colt Peacemaker"), actor=MIRA))
    assert (shot["dice"], shot["roller"], shot["purpose"]) == ("d6!+d6!", ids["Hero"], "Shooting")
    pick = ask(enter(game, shot, [1, 1]))  # both 1s: the shot goes astray, at one of the tokens by the Goblin
    assert (pick["dice"], pick["roller"], pick["purpose"]) == ("d2", ids["Hero"], "random target")
    assert pick["needs"] == "roll a d2: it picks who is hit instead, 1: Orc, 2: Rat"
    damage = ask(enter(game, pick, [2]))
    assert (damage["dice"], damage["roller"]) == ("2d6!+1", ids["Hero"])
    assert damage["needs"] == "roll 2d6!+1 for damage to Rat (the dice ace) vs Toughness 6"


def test_a_missed_blast_deviates_by_the_throwers_dice():
    game, ids = ranged()
    template = blast(game)
    thrown = ask(play(table_rolls(game), attack(ids, weapon="Throwing knife", template=template), actor=MIRA))
    assert (thrown["dice"], thrown["roller"], thrown["purpose"]) == ("d6!+d6!", ids["Hero"], "Athletics")
    assert thrown["needs"].startswith("roll the d6 and the Wild d6: the better counts; 8 or more succeeds")  # Long -4
    far = ask(enter(game, thrown, [1, 2]))
    assert (far["dice"], far["roller"], far["purpose"]) == ("d6", ids["Hero"], "deviation distance")
    assert far["needs"] == 'roll d6: the blast deviates that many inches, times 3 at this range, 3.5" at most'
    clock = ask(enter(game, far, [3]))
    assert (clock["dice"], clock["roller"], clock["purpose"]) == ("d12", ids["Hero"], "deviation direction")
    assert clock["needs"].startswith("roll a d12: the hour on a clock face the blast deviates toward")


def test_a_blasts_damage_to_each_victim_and_its_raise_are_the_throwers():
    game, ids = ranged()
    template = blast(game)
    thrown = ask(play(table_rolls(game), attack(ids, weapon="Throwing knife", template=template), actor=MIRA))
    asked = [ask(enter(game, thrown, [6, 6, 1, 2]))]  # 13: a hit with a raise on every token under the blast
    while asked[-1]["purpose"] != "raise: bonus damage to Rat":
        asked.append(ask(enter(game, asked[-1], [1] * len(table_dice.pad(asked[-1]["dice"])))))
    assert {a["roller"] for a in asked} == {ids["Hero"]}
    assert [(a["dice"], a["purpose"]) for a in asked] == [
        ("d6!+d4!", "damage to Goblin"), ("d6!", "raise: bonus damage to Goblin"),
        ("d6!+d4!", "damage to Orc"), ("d6!", "raise: bonus damage to Orc"),
        ("d6!+d4!", "damage to Rat"), ("d6!", "raise: bonus damage to Rat")]
    assert asked[0]["needs"] == "roll d6!+d4! for damage to Goblin (the dice ace) vs Toughness 7"
    assert asked[-1]["needs"] == "roll d6 more for the raise to Rat (it aces)"


def test_a_surprised_characters_notice_is_its_own_and_the_cards_stay_the_apps_deck():
    game, ids = seated("g-sw", "Ambush", "savage_worlds", Board(12, 8), MELEE)
    table_rolls(game)
    start = {"type": "start_combat", "token_ids": list(ids.values())}
    unaware = copy.deepcopy(game)
    assert play(game, start, dice=SeededDice(5))[-1].type != "roll_asked"  # the action cards: the app's deck
    notice = ask(play(unaware, {**start, "surprised": [ids["Hero"]]}, dice=SeededDice(5)))
    assert (notice["dice"], notice["roller"], notice["purpose"]) == ("d6!+d6!", ids["Hero"], "Notice")
    assert notice["needs"].startswith("roll the d6 and the Wild d6: the better counts; 4 or more succeeds")


def test_a_soak_is_the_defenders_roll():
    game, ids = melee()
    # the Goblin's blow (the GM's, on the app's dice): 13 with a raise, 12 + 5 damage, three Wounds on the Hero
    play(game, {"type": "attack", "attacker": ids["Goblin"], "target": ids["Hero"], "weapon": "Long sword",
                "force": True}, dice=ScriptedDice([8, 5, 1, 5, 7, 5]))
    soak = ask(play(table_rolls(game), {"type": "soak", "accept": True}, actor=MIRA))
    assert (soak["dice"], soak["roller"], soak["purpose"]) == ("d8!+d6!", ids["Hero"], "Vigor (Soak)")
    assert soak["needs"].startswith("roll the d8 and the Wild d6: the better counts; 4 or more succeeds")


def test_a_benny_reroll_is_the_attackers_roll_again():
    game, ids = melee()
    missed = enter(game, ask(play(table_rolls(game), attack(ids), actor=MIRA)), [2, 3])
    assert missed[-1].type == "roll_settled" and game.pending_reroll["attacker"] == ids["Hero"]
    again = ask(play(game, {"type": "benny_reroll", "accept": True}, actor=MIRA))
    assert (again["dice"], again["roller"], again["purpose"]) == ("d8!+d6!", ids["Hero"], "Fighting")


def test_an_interrupt_from_hold_is_each_sides_athletics():
    game, ids = seated("g-sw", "Brawl", "savage_worlds", Board(12, 8), MELEE)
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(11))  # Hero, Goblin, Orc
    assert game.combat["state"]["order"] == [ids["Hero"], ids["Goblin"], ids["Orc"]]
    play(game, {"type": "act", "token_id": ids["Hero"], "action": "hold"}, actor=MIRA, dice=SeededDice(1))
    assert game.combat["current"] == ids["Goblin"]
    mine = ask(play(table_rolls(game), {"type": "act", "token_id": ids["Hero"], "action": "interrupt"}, actor=MIRA))
    assert (mine["dice"], mine["roller"], mine["purpose"]) == ("d6!+d6!", ids["Hero"], "Athletics")
    theirs = ask(enter(game, mine, [3, 2]))
    assert (theirs["dice"], theirs["roller"], theirs["purpose"]) == ("d6!+d6!", ids["Goblin"], "Athletics")
    assert table_dice.pending_view(game, GM)["chooser"] and not table_dice.pending_view(game, MIRA)["chooser"]
    with pytest.raises(Rejected, match="not yours to enter"):
        enter(game, theirs, [1, 1])
    assert enter(game, theirs, [1, 2], actor=GM)[-1].type == "roll_settled"


def test_a_foes_attack_is_the_gms_roll_or_the_apps_when_it_rolls_the_foes():
    game, ids = melee()
    blow = {"type": "attack", "attacker": ids["Goblin"], "target": ids["Hero"], "weapon": "Long sword",
            "force": True}
    apps = copy.deepcopy(table_rolls(game))
    asked = ask(play(game, blow))
    assert (asked["dice"], asked["roller"]) == ("d8!+d6!", ids["Goblin"])
    assert "dice" not in table_dice.pending_view(game, MIRA) and table_dice.pending_view(game, GM)["chooser"]
    play(apps, {"type": "set_dice", "foes": "app"})
    assert play(apps, blow, dice=SeededDice(3))[0].type == "attack_resolved"


# --- the same rules from the table's faces ----------------------------------------------------------------------


@settings(max_examples=20, deadline=None)
@given(data=st.data(), split=st.booleans(), n=st.integers(2, 3))
def test_a_rapid_attack_from_entered_faces_is_the_app_dices(data, split, n):
    game, ids = melee()
    asked, table_facts, app_facts = both_ways(
        game, attack(ids, options={"rapid_attack": n}, **({"targets": [ids["Orc"]]} if split else {})), data,
        ids["Hero"])
    assert asked[0]["dice"] == f"{n}d8!+d6!"
    assert table_facts == app_facts


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_an_area_attack_from_entered_faces_deviating_or_not_is_the_app_dices(data):
    game, ids = ranged()
    template = blast(game, data.draw(st.sampled_from([(8.5, 2.5), (8.5, 3.5), (5.5, 5.5)])))
    asked, table_facts, app_facts = both_ways(game, attack(ids, weapon="Throwing knife", template=template), data,
                                              ids["Hero"])
    assert table_facts == app_facts
    kinds = [words(a["purpose"]) for a in asked]
    deviated = [e for t, e in table_facts if t == "attack_resolved"][0]["result"]["details"]["deviation"]
    assert ("deviation distance" in kinds) == (deviated is not None)


@settings(max_examples=10, deadline=None)
@given(data=st.data())
def test_a_run_from_the_entered_die_is_the_app_dices(data):
    game, ids = melee()
    asked, table_facts, app_facts = both_ways(game, {"type": "act", "token_id": ids["Hero"], "action": "run"}, data,
                                              ids["Hero"])
    assert [a["dice"] for a in asked] == ["d6"] and table_facts == app_facts


# --- refused faces change nothing -------------------------------------------------------------------------------


@pytest.mark.parametrize("faces, why", [
    ([3, 3, 4, 6], "6 explodes: enter the next roll of that die too"),  # the Wild Die's chain stops on its top
    ([3, 3, 8], "8 explodes: enter the next roll of that die too"),  # a trait die's chain stops on its top
    ([3, 8, 4, 2], "3d8!+d6!: a die is missing"),  # the second die aced to 12: the Wild Die is missing
    ([9, 1, 1, 1], "a d8 cannot show 9"),
    ([3, 3, 4], "3d8!+d6! needs 4 dice; 3 entered"),
    ([3, 3, 4, 2, 5], "3d8!+d6! shows 4 faces here; 1 more entered"),
    ([], "3d8!+d6! needs 4 dice; 0 entered"),
])
def test_faces_no_rapid_attack_shows_are_refused_and_change_nothing(faces, why):
    game, ids = melee()
    asked = ask(play(table_rolls(game), attack(ids, options={"rapid_attack": 3}), actor=MIRA))
    before = (game.seq, copy.deepcopy(game.to_dict()), [e.text for e in game.log])
    for actor in (MIRA, GM):
        with pytest.raises(Rejected, match=re.escape(why)):
            table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": asked["id"], "faces": faces}),
                         actor)
        assert (game.seq, game.to_dict(), [e.text for e in game.log]) == before
