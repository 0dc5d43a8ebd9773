"""The table's own dice (#59), through the app as the GM's page and the phones send them: with the table rolling,
a 3d6 (gurps_lite) attack waits for the roll of whoever makes it (the GM for a foe, the player for their token),
each audience sees what it may of the wait, faces no such die shows are refused with nothing changed, the turn
does not move on while a roll waits, and the fight plays on from the faces entered."""

from __future__ import annotations

import pytest

from tests.helpers import command, state

from test_defense_waiting import a_defense, duel

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")


def send(client, g, key, body):
    return command(client, g, body, key)


def pending(client, g, key=None):
    return state(client, g, key)["pending_roll"]


def test_a_foes_attack_waits_for_the_gms_roll_then_the_players_defense_then_the_gms_damage(client):
    g, p, ids = duel(client, "gurps_lite")
    assert state(client, g)["dice"] == {"mode": "app", "app_rolls_for": [], "foes": "table"}
    r = command(client, g, {"type": "set_dice", "mode": "table"})
    assert r.status_code == 200, r.json
    assert state(client, g)["dice"]["mode"] == "table"

    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"})
    assert r.status_code == 200, r.json
    assert "pending_roll" not in r.json  # the 3d6 system rolls once the defense is chosen
    s = state(client, g)
    defense = a_defense(s["pending_defense"])

    # Mira picks the defense on her phone: the attack is rolled now, Brute's first: the GM's dice
    r = send(client, g, p["player_token"], {"type": "choose_defense", "defense": defense,
                                            "attack": s["pending_defense"]["id"]})
    assert r.status_code == 200, r.json
    ask = r.json["pending_roll"]
    assert set(ask) == {"id"}  # Mira's answer: Brute's dice and odds are the GM's (#72)
    gm_view = pending(client, g)
    assert gm_view["id"] == ask["id"]
    assert gm_view["chooser"] is True and gm_view["dice"] == "3d6" and gm_view["roller"] == "Brute"
    assert "or less" in gm_view["needs"]
    mira_view = pending(client, g, p["player_token"])
    assert mira_view["chooser"] is False and "dice" not in mira_view and mira_view["roller"] == "Brute"
    before = state(client, g)["seq"]

    # refused: the turn moving on, a face no d6 shows, too few dice, a player entering the GM's roll
    for body, key, words in (({"type": "next_turn"}, g["gm_token"], "Brute is rolling"),
                             ({"type": "enter_dice", "roll_id": ask["id"], "faces": [7, 1, 1]}, g["gm_token"],
                              "a d6 cannot show 7"),
                             ({"type": "enter_dice", "roll_id": ask["id"], "faces": [3, 4]}, g["gm_token"],
                              "3d6 needs 3 dice; 2 entered"),
                             ({"type": "enter_dice", "roll_id": ask["id"], "faces": [3, 4, 1]}, p["player_token"],
                              "not yours to enter")):
        r = send(client, g, key, body)
        assert r.status_code in (400, 403, 409, 422), (body, r.json)
        assert words in r.json["error"], r.json
        assert state(client, g)["seq"] == before

    # the GM enters a 7 on 3d6: Brute's Broadsword hits; Hero's defense is Mira's roll
    r = command(client, g, {"type": "enter_dice", "roll_id": ask["id"], "faces": [2, 3, 2]})
    assert r.status_code == 200, r.json
    ask = r.json["pending_roll"]
    assert ask["roller_id"] == ids["Hero"]
    mine = pending(client, g, p["player_token"])
    assert mine["chooser"] is True and mine["dice"] == "3d6"
    # she rolls an 18: the defense fails; the Broadsword's damage is the GM's roll next
    r = send(client, g, p["player_token"], {"type": "enter_dice", "roll_id": ask["id"], "faces": [6, 6, 6]})
    assert r.status_code == 200, r.json
    assert set(r.json["pending_roll"]) == {"id"}  # Brute's: the GM's to see (#72)
    ask = pending(client, g)
    assert ask["id"] == r.json["pending_roll"]["id"] and ask["roller_id"] == ids["Brute"] and "d" in ask["dice"]
    n = int(ask["dice"].split("d")[0] or 1)
    r = command(client, g, {"type": "enter_dice", "roll_id": ask["id"], "faces": [4] * n})
    assert r.status_code == 200, r.json
    s = state(client, g)
    assert s["pending_roll"] is None and s["pending_defense"] is None
    lines = " ".join(e["text"] for e in s["log"])
    assert "Broadsword: 7 vs" in lines and "dodge fails" in lines, lines  # the GM's 7, Mira's 18
    r = command(client, g, {"type": "next_turn"})
    assert r.status_code == 200, r.json


def test_the_app_rolls_for_a_player_who_ticks_it_and_the_gm_may_let_it_roll_the_foes(client):
    g, p, ids = duel(client, "gurps_lite")
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    r = send(client, g, p["player_token"], {"type": "set_dice", "player_id": p["player_id"], "app_rolls": True})
    assert r.status_code == 200, r.json
    assert state(client, g)["dice"]["app_rolls_for"] == [p["player_id"]]
    r = send(client, g, p["player_token"], {"type": "set_dice", "mode": "app"})
    assert r.status_code in (403, 422), r.json
    assert command(client, g, {"type": "set_dice", "foes": "app"}).status_code == 200
    # nobody at the table rolls now: the attack goes through at once
    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"})
    assert r.status_code == 200, r.json
    d = state(client, g)["pending_defense"]
    r = send(client, g, p["player_token"], {"type": "choose_defense", "defense": a_defense(d), "attack": d["id"]})
    assert r.status_code == 200, r.json
    assert "pending_roll" not in r.json
    assert pending(client, g) is None


def test_the_gm_lets_the_app_roll_a_waiting_roll_or_calls_it_off(client):
    g, p, ids = duel(client, "gurps_lite")
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    ask = waiting_attack(client, g, p, ids)
    before = state(client, g)
    r = command(client, g, {"type": "call_off_roll", "roll_id": ask["id"]})
    assert r.status_code == 200, r.json
    after = state(client, g)
    # the defense's choice that waited for the roll is called off: the attack waits for a defense again (its
    # prompt was put away while the dice were rolled)
    assert before["pending_defense"] is None
    assert after["pending_roll"] is None and after["pending_defense"]["chooser"] is True
    assert after["combat"] == before["combat"] and after["tokens"] == before["tokens"]
    r = command(client, g, {"type": "enter_dice", "roll_id": ask["id"], "faces": [1, 1, 1]})
    assert r.status_code in (409, 422), r.json
    assert "no longer waiting" in r.json["error"]
    d = after["pending_defense"]
    r = send(client, g, p["player_token"], {"type": "choose_defense", "defense": a_defense(d), "attack": d["id"]})
    ask = r.json["pending_roll"]
    r = command(client, g, {"type": "enter_dice", "roll_id": ask["id"], "app": True})
    assert r.status_code == 200, r.json
    # the app rolled Brute's attack: the fight goes on to the next roll asked (Hero's defense, if it hit) or is done
    nxt = r.json.get("pending_roll")
    assert nxt is None or nxt["roller_id"] == ids["Hero"]


def waiting_attack(client, g, p, ids) -> dict:
    """Brute attacks Hero, Mira chooses a defense: the attack roll waits for the GM's dice."""
    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"})
    assert r.status_code == 200, r.json
    d = state(client, g)["pending_defense"]
    r = send(client, g, p["player_token"], {"type": "choose_defense", "defense": a_defense(d), "attack": d["id"]})
    assert r.status_code == 200, r.json
    return r.json["pending_roll"]


def test_a_soak_taken_gives_way_to_its_vigor_roll_and_comes_back_if_the_roll_is_called_off(client):
    """Savage Worlds: Mira takes the Soak offer on her phone; while its Vigor roll waits for her dice the offer is
    answered (the roll's pad asks; on a phone both prompts sit at the bottom, one over the other), for her and the
    GM; the GM calling the roll off brings the offer back, and the Vigor faces she enters soak the Wound."""
    g, p, ids = duel(client, "savage_worlds")
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Long sword"})
    assert r.status_code == 200, r.json
    # the GM's faces: Fighting 6 and a Wild Die of 1 (one roll) against Parry 6 hit; 5 + 7 = 12 against Toughness 7:
    # a Wound
    for faces in ([6, 1], [5, 7]):
        ask = pending(client, g)
        assert ask["roller_id"] == ids["Brute"], ask
        r = command(client, g, {"type": "enter_dice", "roll_id": ask["id"], "faces": faces})
        assert r.status_code == 200, r.json
    assert pending(client, g) is None
    offer = state(client, g, p["player_token"])["pending_soak"]
    assert [o["target_id"] for o in offer["offers"]] == [ids["Hero"]]

    r = send(client, g, p["player_token"], {"type": "soak", "accept": True, "token_id": ids["Hero"]})
    assert r.status_code == 200, r.json
    ask = r.json["pending_roll"]
    assert ask["roller_id"] == ids["Hero"]
    for key in (p["player_token"], g["gm_token"]):
        s = state(client, g, key)
        assert s["pending_soak"] is None and s["pending_roll"]["id"] == ask["id"]

    r = command(client, g, {"type": "call_off_roll", "roll_id": ask["id"]})
    assert r.status_code == 200, r.json
    assert state(client, g, p["player_token"])["pending_soak"]["offers"][0]["target_id"] == ids["Hero"]

    r = send(client, g, p["player_token"], {"type": "soak", "accept": True, "token_id": ids["Hero"]})
    ask = r.json["pending_roll"]
    assert state(client, g, p["player_token"])["pending_soak"] is None
    # Vigor 5 and the Wild Die's 2, one roll: a success soaks the Wound
    assert ask["dice"].count("d") == 2, ask
    r = send(client, g, p["player_token"], {"type": "enter_dice", "roll_id": ask["id"], "faces": [5, 2]})
    assert r.status_code == 200, r.json
    s = state(client, g)
    assert s["pending_roll"] is None and s["pending_soak"] is None
    hero = next(t for t in s["tokens"] if t["id"] == ids["Hero"])
    assert hero["sheet"]["wounds"] == 0, hero["sheet"]


def test_the_app_rolls_for_me_rolls_a_roll_of_mine_that_waits_at_once(client):
    """#70: ticking "the app rolls for me" while a roll of the player's waits rolls it then, as "Let the app roll it"
    would; the GM's "the app rolls the foes" the same for a foe's roll that waits."""
    g, p, ids = duel(client, "gurps_lite")
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    ask = waiting_attack(client, g, p, ids)  # Brute's attack roll: the GM's
    assert pending(client, g)["roller_id"] == ids["Brute"]
    r = command(client, g, {"type": "set_dice", "foes": "app"})
    assert r.status_code == 200, r.json
    after = pending(client, g)
    assert after is None or (after["id"] != ask["id"] and after["roller_id"] == ids["Hero"]), after
    if after is None:  # missed: Hero's turn, whose attack waits for Mira's dice
        assert command(client, g, {"type": "next_turn"}).status_code == 200
        r = send(client, g, p["player_token"], {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"],
                                                "weapon": "Broadsword"})
        assert r.status_code == 200, r.json
        after = pending(client, g)
    assert after["roller_id"] == ids["Hero"], after
    r = send(client, g, p["player_token"], {"type": "set_dice", "player_id": p["player_id"], "app_rolls": True})
    assert r.status_code == 200, r.json
    now = state(client, g)
    assert now["dice"]["app_rolls_for"] == [p["player_id"]]
    # Mira's roll is rolled: nothing of hers waits (a roll that waits now is Brute's defense, which the app rolls too)
    assert now["pending_roll"] is None, now["pending_roll"]
    assert any("Who the app rolls for: Mira" in e["text"] for e in now["log"])


def test_a_failed_soak_roll_is_offered_a_benny_reroll_and_the_better_roll_counts(client):
    """#70, Savage Worlds (Bennies: a Benny rerolls any Trait roll, the Soak roll among them): Mira's Soak roll fails;
    she (and the GM) is offered a reroll for another Benny, Next turn waiting for the answer; the reroll's faces soak
    the Wound (the better roll counts)."""
    g, p, ids = duel(client, "savage_worlds")
    assert command(client, g, {"type": "set_dice", "mode": "table"}).status_code == 200
    r = command(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Long sword"})
    assert r.status_code == 200, r.json
    for faces in ([6, 1], [5, 7]):  # a hit and a Wound (as above)
        r = command(client, g, {"type": "enter_dice", "roll_id": pending(client, g)["id"], "faces": faces})
        assert r.status_code == 200, r.json
    bennies = next(t for t in state(client, g)["tokens"] if t["id"] == ids["Hero"])["sheet"]["bennies"]
    r = send(client, g, p["player_token"], {"type": "soak", "accept": True, "token_id": ids["Hero"]})
    # Vigor 2 and the Wild Die's 3: a failure, the Wound stands
    r = send(client, g, p["player_token"], {"type": "enter_dice", "roll_id": r.json["pending_roll"]["id"],
                                            "faces": [2, 3]})
    assert r.status_code == 200, r.json
    s = state(client, g, p["player_token"])
    hero = next(t for t in s["tokens"] if t["id"] == ids["Hero"])
    assert hero["sheet"]["wounds"] == 1 and hero["sheet"]["bennies"] == bennies - 1, hero["sheet"]
    (offer,) = s["pending_soak"]["offers"]
    assert offer["target_id"] == ids["Hero"] and offer["soaked"] == 0 and offer["wounds"] == 1, offer
    assert state(client, g)["pending_soak"]["offers"][0]["soaked"] == 0  # the GM's page offers it too
    r = command(client, g, {"type": "next_turn"})  # the turn waits for the answer, as for the Soak offer
    assert r.status_code == 422 and "Soak" in r.json["error"], r.json

    r = send(client, g, p["player_token"], {"type": "soak", "accept": True, "token_id": ids["Hero"]})
    assert r.status_code == 200, r.json
    r = send(client, g, p["player_token"], {"type": "enter_dice", "roll_id": r.json["pending_roll"]["id"],
                                            "faces": [5, 2]})
    assert r.status_code == 200, r.json
    s = state(client, g, p["player_token"])
    hero = next(t for t in s["tokens"] if t["id"] == ids["Hero"])
    assert hero["sheet"]["wounds"] == 0 and hero["sheet"]["bennies"] == bennies - 2, hero["sheet"]
    assert s["pending_soak"] is None and s["pending_roll"] is None
    assert any("spends a Benny to reroll the Soak roll: Vigor 5; the better roll soaks 1 of 1 Wound" in e["text"]
               for e in s["log"]), [e["text"] for e in s["log"][-4:]]
    assert command(client, g, {"type": "next_turn"}).status_code == 200
