"""Savage Worlds surprise through the protocol (#33), from the *Savage Worlds (SWADE) combat reference*,
Surprise: "Attackers are on Hold. Victims must make a Notice check: Success: get Action Card normally;
Failure: no card, cannot act in first round". The attackers act from Hold in round 1 (a player's own
token from the player's seat, the GM's from the GM's), and from round 2 every token is dealt in: nobody
leaves the fight's order."""

from __future__ import annotations

import re

import pytest

from tests.helpers import command as send, game_with, state
from webapp import create_app

GRID = {"width": 12, "height": 8}


@pytest.fixture
def client(tmp_path):
    # seed 13 (with the game named "Ambush"): the Bandit's Notice roll fails (checked below, from the log)
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "13"}).test_client()


def hero_pal_bandit(client):
    """Mira's Hero between the GM's Pal and Bandit, in a row; no fight yet."""
    return game_with(client, "savage_worlds", GRID, [("Hero", (2, 2), True), ("Pal", (1, 2), False),
                                                      ("Bandit", (3, 2), False)], name="Ambush")


def texts(client, g, since=0):
    return [e["text"] for e in state(client, g)["log"]][since:]


def test_a_surprised_victim_three_rounds_attackers_act_from_hold_everyone_dealt_in_from_round_two(client):
    g, p, ids = hero_pal_bandit(client)
    everyone = sorted(ids.values())
    r = send(client, g, {"type": "start_combat", "token_ids": list(ids.values()), "surprised": [ids["Bandit"]]})
    assert r.status_code == 200, r.json
    log = texts(client, g)
    assert "Bandit: Surprised (failed Notice), no action card this round" in log
    combat = state(client, g)["combat"]
    # round 1: no card acts; the attackers are on Hold, and all three are still in the fight
    assert combat["round"] == 1 and combat["current"] is None and sorted(combat["order"]) == everyone
    assert sorted(state(client, g, p["player_token"])["combat"]["order"]) == everyone
    # the victim may not act, nor may a player act for the GM's token
    r = send(client, g, {"type": "act", "token_id": ids["Bandit"], "action": "act_now"})
    assert r.status_code == 422
    r = send(client, g, {"type": "act", "token_id": ids["Pal"], "action": "act_now"}, p["player_token"])
    assert r.status_code == 422
    # the player's attacker acts from Hold from the player's seat, attacks, and ends its turn
    r = send(client, g, {"type": "act", "token_id": ids["Hero"], "action": "act_now"}, p["player_token"])
    assert r.status_code == 200, r.json
    assert state(client, g)["combat"]["current"] == ids["Hero"]
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"]}, p["player_token"])
    assert r.status_code == 200, r.json
    assert send(client, g, {"type": "next_turn"}, p["player_token"]).status_code == 200
    # the round waits on Pal's Hold: the GM acts from Hold for it
    assert state(client, g)["combat"]["current"] is None
    r = send(client, g, {"type": "act", "token_id": ids["Pal"], "action": "act_now"})
    assert r.status_code == 200, r.json
    assert state(client, g)["combat"]["current"] == ids["Pal"]
    for rnd in (2, 3):
        since = len(texts(client, g))
        seen = []
        while True:
            assert send(client, g, {"type": "next_turn"}).status_code == 200
            combat = state(client, g)["combat"]
            if combat["round"] > rnd:
                break
            assert combat["round"] == rnd and sorted(combat["order"]) == everyone
            assert combat["current"] is not None  # nobody on Hold: a card acts
            seen.append(combat["current"])
            if len(seen) == 3:
                break
        dealt = [t for t in texts(client, g, since) if re.match(r"(Hero|Pal|Bandit) is dealt \w+", t)]
        assert sorted(t.split()[0] for t in dealt) == ["Bandit", "Hero", "Pal"], dealt
        assert sorted(seen) == everyone  # each of the three acts on its card
    assert state(client, g)["combat"]["round"] == 3
