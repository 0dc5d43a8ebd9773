"""A defense left waiting (issue 58): while a player's token is asked for its defense, the GM's Next turn and End
fight (and a player's End my turn) are refused, naming whose defense waits and the GM's way out ("Call the attack
off" on the defense prompt); once it is answered or called off the fight goes on for three rounds. An answer to an
attack that no longer waits (called off, or taken back by an Undo) is refused and changes nothing, even when
another attack on the same token waits by then.

Savage Worlds offers no defense to choose (the rules roll against Parry), so no defense ever waits there: the
systems that ask are the 3d6 system (gurps_lite) and Tesseris (tesseris_ads)."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, command, join, new_game, state

from test_i18n_reach_and_range_refusals import refused
from test_i18n_server_notices import connect

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")

WEAPON = {"gurps_lite": "Broadsword", "tesseris_ads": "pistol"}
WAITS = ("Hero has not chosen a defense yet: wait for it, or the GM calls the attack off (Call the attack off)")
GONE = "that attack no longer waits for a defense: it was called off or taken back"


def duel(client, system):
    """A fight between Mira's Hero and the GM's Brute, beside each other, with Brute to act."""
    g = new_game(client, system, {"width": 10, "height": 8}, name="Waiting")
    p = join(client, g, "Mira")
    ids = {}
    for name, x, owner in (("Hero", 2, p["player_id"]), ("Brute", 3, None)):
        body = {"name": name, "x": x, "y": 2, **({"owner": owner, "kind": "pc"} if owner else {})}
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    brute_to_act(client, g, ids)
    return g, p, ids


def brute_to_act(client, g, ids):
    for _ in range(4):
        if state(client, g)["combat"]["current"] == ids["Brute"]:
            return
        r = command(client, g, {"type": "next_turn"})
        assert r.status_code == 200, r.json
    raise AssertionError("Brute never gets a turn")


def brute_attacks(client, g, ids, system) -> dict:
    """The GM's Brute attacks Mira's Hero; the attack waits for Hero's defense (as Mira's phone has it)."""
    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": WEAPON[system]})
    assert r.status_code == 200, r.json
    return state(client, g)["pending_defense"]


def a_defense(pending: dict) -> str:
    return next(c["key"] for c in pending["choices"] if c["available"] and c["key"] != "none")


@pytest.mark.parametrize("system", ["gurps_lite", "tesseris_ads"])
def test_next_turn_waits_for_the_defense_then_the_fight_goes_on_and_an_old_answer_is_refused(app, system):
    client = app.test_client()
    g, p, ids = duel(client, system)
    mine = brute_attacks(client, g, ids, system)
    before = state(client, g)
    # the GM's Next turn and End fight are refused, saying whose defense waits and how to call it off
    for body in ({"type": "next_turn"}, {"type": "end_combat"}):
        r = command(client, g, body)
        assert r.status_code == 422 and r.json["error"] == WAITS, r.json
    de = connect(app, g["id"], g["gm_token"], "de")
    assert refused(de, {"type": "next_turn"}) == ("Hero hat noch keine Verteidigung gewählt: darauf warten, "
                                                  "oder die SL bläst den Angriff ab (Angriff abblasen)")
    after = state(client, g)
    assert after["combat"] == before["combat"] and after["log"] == before["log"]
    assert after["pending_defense"] == before["pending_defense"]
    phone = state(client, g, p["player_token"])["pending_defense"]  # the phone's prompt names the attack it answers
    assert phone["chooser"] and phone.get("id") and phone["id"] == mine["id"]
    # the GM calls it off; the turn moves on; three rounds go by, Hero's player answering each attack
    r = command(client, g, {"type": "choose_defense", "cancel": True, "attack": mine["id"]})
    assert r.status_code == 200, r.json
    assert state(client, g)["pending_defense"] is None
    assert state(client, g, p["player_token"])["pending_defense"] is None
    answered, turns = 0, 0
    while state(client, g)["combat"]["round"] <= 3:
        turns += 1
        assert turns < 30, "the fight does not advance"
        if state(client, g)["combat"]["current"] == ids["Brute"]:
            pending = brute_attacks(client, g, ids, system)
            assert command(client, g, {"type": "next_turn"}).json["error"] == WAITS
            r = command(client, g, {"type": "choose_defense", "defense": a_defense(pending), "attack": pending["id"]},
                        p["player_token"])
            assert r.status_code == 200, r.json
            assert state(client, g)["pending_defense"] is None
            assert state(client, g)["log"][-1]["detail"]["attack"]  # rolled with Hero's answer
            answered += 1
        r = command(client, g, {"type": "next_turn"})
        assert r.status_code == 200, r.json
    assert answered >= 3
    # the old answer to the attack called off is refused and changes nothing
    before = state(client, g)
    r = command(client, g, {"type": "choose_defense", "defense": a_defense(mine), "attack": mine["id"]},
                p["player_token"])
    assert r.status_code == 422 and r.json["error"] == GONE, r.json
    assert state(client, g) == before


@pytest.mark.parametrize("system", ["gurps_lite", "tesseris_ads"])
def test_an_answer_to_an_attack_an_undo_took_back_is_refused_even_when_another_waits(app, system):
    client = app.test_client()
    g, p, ids = duel(client, system)
    first = brute_attacks(client, g, ids, system)
    r = command(client, g, {"type": "undo"})
    assert r.status_code == 200, r.json
    assert state(client, g)["pending_defense"] is None
    answer = {"type": "choose_defense", "defense": a_defense(first), "attack": first.get("id")}
    before = state(client, g)
    r = command(client, g, answer, p["player_token"])
    assert r.status_code == 422 and r.json["error"] == GONE, r.json
    assert state(client, g) == before
    # the GM attacks again: the phone's old answer does not roll the new attack
    second = brute_attacks(client, g, ids, system)
    assert second.get("id") != first.get("id")
    before = state(client, g)
    r = command(client, g, answer, p["player_token"])
    assert r.status_code == 422 and r.json["error"] == GONE, r.json
    assert state(client, g) == before and state(client, g)["pending_defense"]["id"] == second["id"]
    r = command(client, g, {**answer, "attack": second["id"]}, p["player_token"])
    assert r.status_code == 200, r.json
    assert state(client, g)["pending_defense"] is None
    r = command(client, g, {"type": "next_turn"})
    assert r.status_code == 200, r.json

