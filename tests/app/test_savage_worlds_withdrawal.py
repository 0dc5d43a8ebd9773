"""Savage Worlds, Withdrawing from Melee (#58): a token that moves away from adjacent foes gives each a free
attack, offered to the foe's controller (the GM for an NPC, the player for their PC), rolled at the square the
token left with the foe's ready melee weapon, or waived; either way the withdrawing token's turn goes on, and
nothing of it is left over in the turns and rounds after."""

from __future__ import annotations

import pytest

import rules
from tests.helpers import command, connect, state, game_with

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="3")

#: the Orc's sheet: a pistol first (a free attack is a melee one: it is not what the Orc swings) and an axe
ORC = {**rules.get("savage_worlds").default_sheet(), "name": "Orc", "wild_card": False,
       "skills": {"fighting": "d12", "notice": "d6", "shooting": "d6"}, "attributes": {
           "agility": "d8", "smarts": "d4", "spirit": "d6", "strength": "d12", "vigor": "d8"},
       "weapons": {"Pistol": {"damage": "2d6", "range": "12/24/48"}, "Axe": {"damage": "Str+d8"}}}


def hero_and_orc(client):
    """Mira's Hero (the default sheet: a Long sword) and the GM's Orc side by side, in a fight."""
    return game_with(client, "savage_worlds", {"width": 16, "height": 8}, [("Hero", (2, 2), True), ("Orc", (3, 2), False)],
                     name="Withdraw", sheets={"Hero": rules.get("savage_worlds").default_sheet(), "Orc": ORC}, start=True)


def turn_of(client, g, token_id: str) -> None:
    for _ in range(12):
        if state(client, g)["combat"]["current"] == token_id:
            return
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    raise AssertionError("never that token's turn")


def as_the_form_sends(due: dict) -> dict:
    """The attack command the "Roll" button of a due attack sends (templates/_due_roll.html)."""
    return {"type": "attack", "attacker": due["attacker"], "target": due["target"],
            **({"weapon": due["weapon"]} if due.get("weapon") else {}), **({"options": due["options"]} if due.get("options") else {})}


def sheet_of(client, g, token_id: str) -> dict:
    return next(c for c in state(client, g)["characters"] if c.get("token_id") == token_id)["sheet"]


def last_attack(hub, g) -> dict:
    return [e for e in hub.store.events(g["id"]) if e.type == "attack_resolved"][-1].data


def three_rounds_leave_nothing(client, g) -> None:
    start = state(client, g)["combat"]["round"]
    while state(client, g)["combat"]["round"] < start + 3:
        assert command(client, g, {"type": "next_turn"}).status_code == 200
        fight_now = state(client, g)["combat"]
        assert fight_now["due"] == [], fight_now["due"]
        assert state(client, g).get("pending_defense") is None


def test_a_free_attack_on_a_withdrawing_pc_is_rolled_at_the_square_it_left_with_the_foes_weapon(client, hub):
    g, p, ids = hero_and_orc(client)
    turn_of(client, g, ids["Hero"])
    r = command(client, g, {"type": "move_token", "token_id": ids["Hero"], "x": 0, "y": 2}, p["player_token"])
    assert r.status_code == 200, r.json
    due = state(client, g)["combat"]["due"]
    assert len(due) == 1 and due[0]["attacker"] == ids["Orc"] and due[0]["target"] == ids["Hero"], due
    # the player sees it offered to the GM's Orc, and cannot roll it
    assert state(client, g, p["player_token"])["combat"]["due"] == due
    assert command(client, g, as_the_form_sends(due[0]), p["player_token"]).status_code in (403, 422)
    before = sheet_of(client, g, ids["Hero"])
    r = command(client, g, as_the_form_sends(due[0]))  # the GM's "Roll", as offered
    assert r.status_code == 200, r.json
    assert due[0]["weapon"] == "Axe" and due[0]["from"] == [2, 2], due
    done = last_attack(hub, g)
    assert done["weapon"] == "Axe" and done["to"] == [2, 2] and done["distance"] == 1, done
    assert done["result"]["hit"], done["result"]["summary"]  # the seed's roll: a hit that tells on the sheet
    after = sheet_of(client, g, ids["Hero"])
    assert (after["wounds"], after["shaken"]) != (before["wounds"], before["shaken"])
    assert done["result"]["summary"] in [e["text"] for e in state(client, g, p["player_token"])["log"]]
    # the Hero's turn goes on: no action of the Orc's nor of the Hero's was spent, nothing is due any more
    now = state(client, g)["combat"]
    assert now["current"] == ids["Hero"] and now["due"] == []
    assert command(client, g, {"type": "reach", "token_id": ids["Hero"]}, p["player_token"]).json["left"] == 4
    assert command(client, g, as_the_form_sends(due[0])).status_code == 422  # rolled once
    three_rounds_leave_nothing(client, g)


def test_a_free_attack_waived_by_the_gm_is_no_longer_due_and_the_turn_goes_on(client, hub):
    g, p, ids = hero_and_orc(client)
    turn_of(client, g, ids["Hero"])
    assert command(client, g, {"type": "move_token", "token_id": ids["Hero"], "x": 0, "y": 2},
                   p["player_token"]).status_code == 200
    waive = {"type": "waive_attack", "attacker": ids["Orc"], "target": ids["Hero"]}
    assert command(client, g, waive, p["player_token"]).status_code in (403, 422)  # not hers to waive
    before = sheet_of(client, g, ids["Hero"])
    r = command(client, g, waive)
    assert r.status_code == 200, r.json
    now = state(client, g)["combat"]
    assert now["due"] == [] and now["current"] == ids["Hero"]
    assert "Orc lets Hero withdraw: no free attack" in [e["text"] for e in state(client, g, p["player_token"])["log"]]
    assert sheet_of(client, g, ids["Hero"]) == before
    assert not [e for e in hub.store.events(g["id"]) if e.type == "attack_resolved"]
    assert command(client, g, waive).status_code == 422  # nothing left to waive
    # the Hero moves on within what is left of its Pace
    assert command(client, g, {"type": "move_token", "token_id": ids["Hero"], "x": 0, "y": 5},
                   p["player_token"]).status_code == 200
    three_rounds_leave_nothing(client, g)


def test_a_players_token_rolls_its_free_attack_on_a_withdrawing_npc_from_the_phone(client, hub, app):
    g, p, ids = hero_and_orc(client)
    turn_of(client, g, ids["Orc"])
    r = command(client, g, {"type": "move_token", "token_id": ids["Orc"], "x": 6, "y": 2})
    assert r.status_code == 200, r.json
    due = state(client, g, p["player_token"])["combat"]["due"]
    assert len(due) == 1 and due[0]["attacker"] == ids["Hero"], due
    phone = connect(app, g["id"], p["player_token"])
    ack = phone.emit("command", as_the_form_sends(due[0]), callback=True)
    assert ack.get("ok") is True, ack
    assert due[0]["weapon"] == "Long sword" and due[0]["from"] == [3, 2], due
    done = last_attack(hub, g)
    assert done["attacker"] == ids["Hero"] and done["weapon"] == "Long sword" and done["to"] == [3, 2], done
    now = state(client, g)["combat"]
    assert now["current"] == ids["Orc"] and now["due"] == []
    # the Orc's turn goes on where the rules leave it (a hit may have Shaken it: then the GM's next turn)
    three_rounds_leave_nothing(client, g)


def test_a_player_waives_their_tokens_free_attack(client, hub, app):
    g, p, ids = hero_and_orc(client)
    turn_of(client, g, ids["Orc"])
    assert command(client, g, {"type": "move_token", "token_id": ids["Orc"], "x": 6, "y": 2}).status_code == 200
    phone = connect(app, g["id"], p["player_token"])
    ack = phone.emit("command", {"type": "waive_attack", "attacker": ids["Hero"], "target": ids["Orc"]}, callback=True)
    assert ack.get("ok") is True, ack
    assert state(client, g)["combat"]["due"] == []
    assert state(client, g)["combat"]["current"] == ids["Orc"]
