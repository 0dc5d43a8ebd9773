"""Rolls made together (#70): with the table rolling its own dice, a fight's initiative in Tesseris asks every
roller at once (``state.pending_roll.rows``: one a roll), each player's for their phone and the foes' for the GM;
the faces come in any order, each checked against who may enter that roll; the command is decided once all are in;
the GM may call the whole command off, undo takes it back once it is done, and a hidden foe's roll is told to a
player only as "for the GM's side", once, however many hidden foes roll."""

from __future__ import annotations

import json

import pytest

from tests.helpers import command, join, new_game, put_token, state

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")

HIDDEN = "ZqShade"


def table(client):
    """Mira's Hero, Ned's Ace, the seen Ogre and two hidden foes (ZqShade, ZqWisp) in a Tesseris game rolling its
    own dice."""
    g = new_game(client, "tesseris_ads", {"width": 12, "height": 8}, name="Ambush")
    mira, ned = join(client, g, "Mira"), join(client, g, "Ned")
    ids = {}
    for name, at, owner, hidden in (("Hero", (2, 2), mira["player_id"], False), ("Ace", (2, 4), ned["player_id"], False),
                                    ("Ogre", (4, 2), None, False), (HIDDEN, (9, 7), None, True),
                                    ("ZqWisp", (9, 6), None, True)):
        ids[name] = put_token(client, g, name, at, owner, hidden=hidden)
        r = command(client, g, {"type": "add_character", "name": name, "token_id": ids[name]})
        assert r.status_code == 200, r.json
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    keys = {"Mira": mira["player_token"], "Ned": ned["player_token"], "screen": g["screen_token"],
            "ned_id": ned["player_id"]}
    return g, keys, ids


def start(client, g, ids) -> dict:
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    return r.json["pending_roll"]


def enter(client, g, key, roll_id, at, faces):
    return command(client, g, {"type": "enter_dice", "roll_id": roll_id, "at": at, "faces": faces}, key)


def test_a_fights_initiative_asks_every_roller_at_once_and_goes_on_once_all_are_in_in_any_order(client):
    g, keys, ids = table(client)
    ask = start(client, g, ids)
    assert ask["dice"] == "1d10"  # the GM's answer: the first roll of the batch, its numbers the GM's
    gm = state(client, g)["pending_roll"]
    rows = {r["roller"]: r for r in gm["rows"]}
    assert set(rows) == {"Hero", "Ace", "Ogre", HIDDEN, "ZqWisp"}  # all five asked at once
    assert all(r["chooser"] and r["dice"] == "1d10" and r["id"] == ask["id"] for r in rows.values())
    assert rows["Hero"]["player"] == "Mira" and rows["Ace"]["player"] == "Ned" and rows["Ogre"]["player"] is None
    assert len({r["at"] for r in rows.values()}) == 5

    # each phone: its own roll's pad (the top of its view), the other player's roll and the seen foe's told without
    # a foe's numbers, the hidden foes once, unnamed
    for who, mine, other in (("Mira", "Hero", "Ace"), ("Ned", "Ace", "Hero")):
        view = state(client, g, keys[who])["pending_roll"]
        assert view["roller"] == mine and view["chooser"] is True and view["pad"] and view["at"] == rows[mine]["at"]
        told = {r["roller"]: r for r in view["rows"]}
        assert set(told) == {mine, other, "Ogre", None}
        assert told[other]["chooser"] is False and "pad" not in told[other] and told[other]["needs"]
        assert told["Ogre"]["needs"] == "" and told["Ogre"]["chance"] is None and "dice" not in told["Ogre"]
        assert str(told[None]["purpose"]) == "for the GM's side"
        assert HIDDEN not in json.dumps(state(client, g, keys[who])) and ids[HIDDEN] not in json.dumps(view)
    screen = state(client, g, keys["screen"])["pending_roll"]
    assert {r["roller"] for r in screen["rows"]} == {"Hero", "Ace", "Ogre", None}
    assert not any(r["chooser"] for r in screen["rows"]) and HIDDEN not in json.dumps(screen)

    seq = state(client, g)["seq"]
    for key, at, words in ((keys["Ned"], rows["Hero"]["at"], "not yours to enter"),  # Mira's roll, not Ned's
                           (keys["Mira"], rows["Ogre"]["at"], "not yours to enter"),  # a foe's: the GM's
                           (keys["Mira"], rows["Hero"]["at"], "a d10 cannot show 11")):
        r = enter(client, g, key, ask["id"], at, [11] if "d10" in words else [5])
        assert r.status_code in (400, 403, 409, 422) and words in r.json["error"], r.json
    r = command(client, g, {"type": "next_turn"})
    assert r.status_code == 422 and "rolling" in r.json["error"], r.json  # held while the batch waits
    assert state(client, g)["seq"] == seq

    # in any order: the last asked first; each entry is kept, nothing decided until every roll is in
    faces = {"Hero": 9, "Ace": 2, "Ogre": 5, HIDDEN: 1, "ZqWisp": 1}
    for name, key in (("ZqWisp", None), ("Ace", keys["Ned"]), (HIDDEN, None), ("Ogre", None)):
        r = enter(client, g, key, ask["id"], rows[name]["at"], [faces[name]])
        assert r.status_code == 200, r.json
        s = state(client, g)
        assert s["combat"] is None and name not in {x["roller"] for x in s["pending_roll"]["rows"]}
    r = enter(client, g, keys["Ned"], ask["id"], rows["Ace"]["at"], [3])
    assert r.status_code >= 400 and "no longer waiting" in r.json["error"], r.json  # entered once
    assert [x["roller"] for x in state(client, g, keys["Mira"])["pending_roll"]["rows"]] == ["Hero"]
    r = command(client, g, {"type": "enter_dice", "roll_id": ask["id"], "faces": [faces["Hero"]]}, keys["Mira"])
    assert r.status_code == 200, r.json  # no ``at``: the sender's own roll (a page from before #70)
    s = state(client, g)
    assert s["pending_roll"] is None and s["combat"]
    # the same sample sheet for all: the faces entered, each its roller's, alone order them
    assert s["combat"]["order"][:3] == [ids["Hero"], ids["Ogre"], ids["Ace"]], s["combat"]["order"]
    assert s["combat"]["current"] == ids["Hero"]

    # undo takes the whole start back, as one command
    r = command(client, g, {"type": "undo"})
    assert r.status_code == 200, r.json
    after = state(client, g)
    assert (after["combat"], after["pending_roll"]) == (None, None), (after["combat"], after["pending_roll"])


def test_the_gm_calls_the_whole_batch_off_and_the_app_rolls_for_a_player_who_ticks_it(client):
    g, keys, ids = table(client)
    ask = start(client, g, ids)
    rows = {r["roller"]: r for r in state(client, g)["pending_roll"]["rows"]}
    r = command(client, g, {"type": "set_dice", "player_id": keys["ned_id"], "app_rolls": True}, keys["Ned"])
    assert r.status_code == 200, r.json
    left = {x["roller"] for x in state(client, g)["pending_roll"]["rows"]}
    assert "Ace" not in left and "Hero" in left  # Ned's rolled by the app at once; the rest still wait
    assert enter(client, g, keys["Mira"], ask["id"], rows["Hero"]["at"], [4]).status_code == 200
    r = command(client, g, {"type": "call_off_roll", "roll_id": ask["id"]}, keys["Mira"])
    assert r.status_code >= 400 and "only the GM" in r.json["error"], r.json
    assert command(client, g, {"type": "call_off_roll", "roll_id": ask["id"]}).status_code == 200
    s = state(client, g)
    assert s["pending_roll"] is None and s["combat"] is None  # nothing of the start happened
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200 and r.json["pending_roll"]["id"] != ask["id"], r.json  # asked afresh


def test_undo_after_a_roll_made_at_the_table_takes_the_command_back_and_asks_no_roll_again(client):
    """One roll (a Tesseris fight of Mira's Hero alone, its initiative hers): once it is in and the fight started,
    Undo takes the start back, not just the roll's settling, and no roll waits again."""
    g = new_game(client, "tesseris_ads", {"width": 12, "height": 8})
    mira = join(client, g, "Mira")
    hero = put_token(client, g, "Hero", (2, 2), mira["player_id"])
    assert command(client, g, {"type": "add_character", "name": "Hero", "token_id": hero}).status_code == 200
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    ask = start(client, g, {"Hero": hero})
    assert len(state(client, g)["pending_roll"]["rows"]) == 1
    r = command(client, g, {"type": "enter_dice", "roll_id": ask["id"], "faces": [6]}, mira["player_token"])
    assert r.status_code == 200 and state(client, g)["combat"], r.json
    assert command(client, g, {"type": "undo"}).status_code == 200
    after = state(client, g)
    assert (after["combat"], after["pending_roll"]) == (None, None), (after["combat"], after["pending_roll"])
