"""The table's own dice (#59) in Atomic Tomorrow Adventures, on a zone map: each d100 is its roller's (a token's
initiative; the attacker's attack and, at 4 wounds, their GRIT x1 roll; the defender's defense and soak; the
wounded character's GRIT x1 check and Last Stand), asked with what it must show; decided from the faces entered at
the table, a command gives the very events of the app's dice scripted with the same faces (hypothesis draws them,
doubles and the 01-05 and 96-00 ends included); faces no d100 shows are refused with the state untouched."""

from __future__ import annotations

import copy

import pytest
from hypothesis import given, settings, strategies as st

import rules
from rules.dice import ScriptedDice, SeededDice
from webapp.game.board import mapdata
from webapp.game import table
from webapp.game.fight import table_dice
from webapp.game.core.model import GM, Rejected

from tabledice import MIRA, facts, made_once, play, seated

ZONES = [{"id": "west", "name": "Hangar", "adjacent": ["east"]},
         {"id": "east", "name": "Launch pad", "adjacent": ["west"]}]
DOUBLES = [11 * n for n in range(1, 10)] + [100]
#: a d100 face as the table enters it (1-100, 100 the 00): any, or often a double (a critical) or an end of the dice
d100 = st.one_of(st.integers(1, 100), st.sampled_from(DOUBLES + [1, 5, 95, 96, 100]))




def zone_game(wounds: int = 0):
    """Mira's Ann (a player character, ``wounds`` on her sheet) in the Hangar and the GM's Bob on the Launch pad,
    the next zone; no fight yet. Made once for each ``wounds``, copied."""
    def build():
        board, zones = mapdata.zone_map({"zones": ZONES})
        game, ids = seated("g-at", "Launch", "atomic_tomorrow", board, (("Ann", "west", "p-mira"), ("Bob", "east", None)),
                           zones)
        sheet = {**rules.get("atomic_tomorrow").default_sheet(), "wounds": wounds}
        play(game, {"type": "add_character", "name": "Ann", "token_id": ids["Ann"], "owner": "p-mira",
                    "sheet": sheet})
        return game, ids
    return made_once(wounds, build)


def fight(wounds: int = 0, turn: str = "Ann"):
    """:func:`zone_game` with the fight started by the app's dice, at ``turn``'s turn."""
    game, ids = zone_game(wounds)
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(3))
    seed = 4
    while game.combat["current"] != ids[turn]:
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
        seed += 1
    return game, ids


def roll_at_the_table(game, command, sender, data, rollers):
    """Send ``command`` with the table rolling, enter faces drawn by hypothesis for each roll asked (as the GM for
    the foe's dice, as Mira for Ann's) and check each ask is the expected roller's (``rollers``: a function of the
    ask's number and the ask); the events of the command, the faces entered and all the faces made."""
    events = play(game, command, actor=sender)
    entered, n = [], 0
    for _ in range(12):
        if events[-1].type != "roll_asked":
            break
        ask = events[-1].data
        rolls = table_dice.batch(ask)  # made together (#70: initiative): asked at once, entered here last first
        got = {}
        for roll in reversed(rolls):
            assert roll["dice"] == "d100" and table_dice.pad("d100") == [{"sides": 100, "again": None, "dt": False}]
            assert roll["roller"] == rollers(n + rolls.index(roll), ask), (n, roll)
            assert table_dice.words(roll["needs"]).startswith("roll d100, ")
            got[roll["at"]] = [data.draw(d100)]
            owner = game.tokens[roll["roller"]].owner
            who = MIRA if owner == "p-mira" else GM
            events = play(game, {"type": "enter_dice", "roll_id": ask["id"], "faces": got[roll["at"]],
                                 "at": roll["at"]}, actor=who)
        n += len(rolls)
        entered += [f for at in sorted(got) for f in got[at]]
    else:
        pytest.fail("more rolls asked than the command makes")
    assert events[-1].type == "roll_settled", events[-1].type
    settled = events[-1].data
    assert entered == [f for faces, by_table in zip(settled["made"], settled["entered"]) if by_table for f in faces]
    return events[:-1], entered, [f for faces in settled["made"] for f in faces]


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_each_token_rolls_its_own_initiative(data):
    game, ids = zone_game()
    app_game = copy.deepcopy(game)
    play(game, {"type": "set_dice", "mode": "table"})
    start = {"type": "start_combat", "token_ids": [ids["Ann"], ids["Bob"]]}
    order = [ids["Ann"], ids["Bob"]]
    events, entered, made = roll_at_the_table(game, start, GM, data, lambda n, ask: order[n])
    assert len(entered) == 2
    assert facts(events) == facts(play(app_game, start, dice=ScriptedDice(made)))
    assert game.combat["order"] == app_game.combat["order"]


def test_an_initiative_roll_says_what_it_needs():
    game, ids = zone_game()
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, {"type": "start_combat", "token_ids": [ids["Ann"], ids["Bob"]]})[-1].data
    assert ask["roll"]["roller"] == ids["Ann"]
    assert table_dice.words(ask["roll"]["needs"]) == ("roll d100, 65 or less (REFLEX x5): successes act first, the "
                                                      "highest roll first")  # REFLEX 13
    assert game.combat is None  # nothing started until every face is in


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_a_foes_attack_and_the_defense_from_entered_faces_are_the_apps_dice_showing_them(data):
    """Bob (the GM's) shoots Ann (Mira's), who dodges: the attack is Bob's dice, the dodge and the soak Ann's."""
    game, ids = fight(turn="Bob")
    play(game, {"type": "attack", "attacker": ids["Bob"], "target": ids["Ann"], "weapon": "Blast pistol"})
    pending = game.pending_defense
    assert pending and any(c["key"] == "dodge" and c["available"] for c in pending["choices"])
    choice = {"type": "choose_defense", "defense": "dodge", "attack": pending["id"]}
    app_game = copy.deepcopy(game)
    play(game, {"type": "set_dice", "mode": "table"})
    events, entered, made = roll_at_the_table(game, choice, MIRA, data,
                                              lambda n, ask: ids["Bob"] if n == 0 else ids["Ann"])
    assert facts(events) == facts(play(app_game, choice, actor=MIRA, dice=ScriptedDice(made)))
    assert made == entered  # every roll here is made at the table


@settings(max_examples=30, deadline=None)
@given(data=st.data(), wounds=st.sampled_from([0, 4]))
def test_a_players_attack_on_a_foe_from_entered_faces_is_the_apps_dice_showing_them(data, wounds):
    """Ann shoots Bob: her GRIT x1 roll at 4 wounds and her attack are Mira's to roll, Bob's soak the GM's."""
    game, ids = fight(wounds=wounds)
    app_game = copy.deepcopy(game)
    shot = {"type": "attack", "attacker": ids["Ann"], "target": ids["Bob"], "weapon": "Blast pistol"}
    play(game, {"type": "set_dice", "mode": "table"})

    def rollers(n, ask):
        purpose = table_dice.words(ask["roll"]["purpose"])
        return ids["Bob"] if "soak" in purpose else ids["Ann"]

    events, entered, made = roll_at_the_table(game, shot, MIRA, data, rollers)
    assert facts(events) == facts(play(app_game, shot, actor=MIRA, dice=ScriptedDice(made)))
    assert made == entered  # the foe's soak too: the GM rolls the foes' dice


def test_the_attack_the_dodge_and_the_soak_ask_whose_dice_and_what_they_need():
    """Bob's 33 hits (Ranged 46); Ann's dodge 80 fails; the hit (Wound Rating 2, a special: 3) gets past her light
    armour, and her soak is GRIT x5."""
    game, ids = fight(turn="Bob")
    play(game, {"type": "attack", "attacker": ids["Bob"], "target": ids["Ann"], "weapon": "Blast pistol"})
    choice = {"type": "choose_defense", "defense": "dodge", "attack": game.pending_defense["id"]}
    play(game, {"type": "set_dice", "mode": "table"})
    asks = [play(game, choice, actor=MIRA)[-1].data]
    for face, who in ((33, GM), (80, MIRA)):
        asks.append(play(game, {"type": "enter_dice", "roll_id": asks[-1]["id"], "faces": [face]}, actor=who)[-1].data)
    needs = [table_dice.words(a["roll"]["needs"]) for a in asks]
    assert [a["roll"]["roller"] for a in asks] == [ids["Bob"], ids["Ann"], ids["Ann"]]
    assert needs[0] == "roll d100, 46 or less hits; doubles are criticals, a 0 or 5 special"
    assert needs[1].startswith("roll d100, ") and "or less defends; the better success wins" in needs[1]
    assert needs[2] == "roll d100, 60 or less (GRIT x5) soaks a wound; a double soaks 3, a 0 or 5 soaks 2"
    events = play(game, {"type": "enter_dice", "roll_id": asks[-1]["id"], "faces": [22]}, actor=MIRA)
    assert [e.type for e in events] == ["attack_resolved", "roll_settled"]
    assert events[-1].data["made"] == [[33], [80], [22]]


def test_the_foes_dice_left_to_the_app_ask_only_the_players():
    """The GM lets the app roll the foes: Bob's attack is the app's, and Ann's dodge is the first roll asked."""
    game, ids = fight(turn="Bob")
    play(game, {"type": "attack", "attacker": ids["Bob"], "target": ids["Ann"], "weapon": "Blast pistol"})
    choice = {"type": "choose_defense", "defense": "dodge", "attack": game.pending_defense["id"]}
    play(game, {"type": "set_dice", "mode": "table"})
    play(game, {"type": "set_dice", "foes": "app"})
    events = play(game, choice, actor=MIRA, dice=ScriptedDice([12]))  # the app's 12 hits
    ask = events[-1].data
    assert events[-1].type == "roll_asked" and ask["roll"]["roller"] == ids["Ann"] and ask["made"] == [[12]]
    assert ask["entered"] == [False]


@settings(max_examples=15, deadline=None)
@given(data=st.data(), wounds=st.sampled_from([4, 5]))
def test_the_grit_check_and_the_last_stand_are_the_wounded_characters(data, wounds):
    """At 4 wounds an action needs GRIT x1 (GRIT 12: 12 or less), at 5 the Last Stand is NERVE x5 (55)."""
    game, ids = fight(wounds=wounds)
    app_game = copy.deepcopy(game)
    act = ({"type": "act", "token_id": ids["Ann"], "action": "grit_check", "options": {"for": "significant"}}
           if wounds == 4 else {"type": "act", "token_id": ids["Ann"], "action": "last_stand"})
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, act, actor=MIRA)[-1].data
    assert table_dice.words(ask["roll"]["needs"]) == (
        "roll d100, 12 or less (GRIT x1) to act; doubles are criticals" if wounds == 4 else
        "roll d100, 55 or less (NERVE x5) for one final act; doubles are criticals, a 0 or 5 special")
    game = copy.deepcopy(app_game)
    play(game, {"type": "set_dice", "mode": "table"})
    events, entered, made = roll_at_the_table(game, act, MIRA, data, lambda n, ask: ids["Ann"])
    assert len(made) == 1 == len(entered)
    assert facts(events) == facts(play(app_game, act, actor=MIRA, dice=ScriptedDice(made)))


LAUNCHER = {"name": "Grenade launcher", "skill": "ranged", "wound_rating": 3, "armour_piercing": 0,
            "ranges": ["near", "far"], "area": True}


@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_an_area_attack_is_one_roll_of_the_attackers_and_a_soak_of_each_one_hit(data):
    """Core facts: a grenade launcher hits everyone in the target zone on one attack roll (Ann's, Mira's to roll);
    Bob and Cid, the GM's, each soak on their own."""
    game, ids = zone_game()
    ids["Cid"] = play(game, {"type": "add_token", "name": "Cid", "zone": "east"})[0].data["token"]["id"]
    ann = next(c for c in game.characters.values() if c.name == "Ann")
    play(game, {"type": "update_sheet", "character_id": ann.id,
                "changes": {"weapons": [*ann.sheet["weapons"], LAUNCHER]}})
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(3))
    while game.combat["current"] != ids["Ann"]:
        play(game, {"type": "next_turn"}, dice=SeededDice(4))
    app_game = copy.deepcopy(game)
    blast = {"type": "attack", "attacker": ids["Ann"], "target": ids["Bob"], "weapon": "Grenade launcher"}
    play(game, {"type": "set_dice", "mode": "table"})
    soakers = iter([ids["Bob"], ids["Cid"]])
    events, entered, made = roll_at_the_table(game, blast, MIRA, data,
                                              lambda n, ask: ids["Ann"] if n == 0 else next(soakers))
    assert made == entered
    assert facts(events) == facts(play(app_game, blast, actor=MIRA, dice=ScriptedDice(made)))
    hit = [t for t in events[0].data["result"]["details"]["targets"] if t["hit"]] if len(made) > 1 else []
    assert len(made) == 1 + len(hit)  # the attack, then a soak for each one hit


def test_a_face_no_d100_shows_changes_nothing():
    game, ids = fight(turn="Bob")
    play(game, {"type": "attack", "attacker": ids["Bob"], "target": ids["Ann"], "weapon": "Blast pistol"})
    choice = {"type": "choose_defense", "defense": "dodge", "attack": game.pending_defense["id"]}
    play(game, {"type": "set_dice", "mode": "table"})
    ask = play(game, choice, actor=MIRA)[-1].data
    before = (game.seq, copy.deepcopy(game.to_dict()))
    for faces, why in (([0], "a d100 cannot show 0"), ([101], "a d100 cannot show 101"),
                       ([], "d100 needs 1 die; 0 entered"), ([40, 4], "d100 shows 1 face here; 1 more entered")):
        with pytest.raises(Rejected, match=why):
            table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": faces}), GM)
        assert (game.seq, game.to_dict()) == before
    with pytest.raises(Rejected, match="this roll is not yours to enter"):  # Bob's attack roll is the GM's
        table.decide(game, table.parse_command({"type": "enter_dice", "roll_id": ask["id"], "faces": [40]}), MIRA)
    assert (game.seq, game.to_dict()) == before
