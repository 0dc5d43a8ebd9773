"""3d6: a whole fight of three rounds through the protocol after the All-Out fixes (#33): a player's Ann
against two foes, every turn a maneuver and an attack, Ann's defenses chosen on her player's side.

*3d6 Combat*, "Maneuvers": All-Out Attack leaves no active defense until the attacker's next turn
(so an attack on Ann then is rolled at once, "No defense", never asked); its options change the roll
(Determined +4), the damage (Strong) or the number of attacks (Double). After a plain Attack Ann
defends again: her player is asked and answers. The fight ends with the GM's End fight."""

from __future__ import annotations

from test_gurps_lite_table_choices import S, send, state  # noqa: F401
from test_gurps_lite_allout_flow import client, last_attack  # noqa: F401  (client: the fixture, seed 23)
from tests.helpers import bearer, join, new_game

PLAN = {1: ("all_out_attack", {"variant": "determined"}), 2: ("all_out_attack", {"variant": "double"}),
        3: ("attack", {})}
#: the foes: a plain Attack, then All-Out Attacks (Strong, then Double at a defending Ann)
FOES = {1: ("attack", {}), 2: ("all_out_attack", {"variant": "strong"}), 3: ("all_out_attack", {"variant": "double"})}


def fight_table(client):
    g = new_game(client, "gurps_lite", {"width": 12, "height": 8}, name="Three rounds")
    p = join(client, g, "Mira")
    ids = {}
    for name, (x, y), owner in (("Ann", (3, 3), p["player_id"]), ("Foe 0", (4, 3), None), ("Foe 1", (3, 4), None)):
        body = {"name": name, "x": x, "y": y, "kind": "pc" if owner else "npc"} | ({"owner": owner} if owner else {})
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    sheet = S.default_sheet()
    sheet["HP"] = sheet["hp_current"] = 40  # Ann lasts the three rounds whatever the dice
    r = send(client, g, {"type": "add_character", "name": "Ann", "token_id": ids["Ann"], "owner": p["player_id"],
                         "sheet": sheet})
    assert r.status_code == 200, r.json
    return g, p, ids


def test_a_three_round_fight_with_all_out_attacks_and_asked_defenses_plays_to_its_end(client):
    g, p, ids = fight_table(client)
    names = {v: k for k, v in ids.items()}
    r = send(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    turns, asked, unasked, ann_attacks = 0, 0, 0, 0
    all_out = False  # Ann's All-Out Attack holds from her turn to her next one
    while state(client, g)["combat"]["round"] <= 3:
        turns += 1
        assert turns < 20, "the fight does not advance"
        fight = state(client, g)["combat"]
        who, rnd = fight["current"], fight["round"]
        assert who in ids.values(), fight
        if who == ids["Ann"]:
            maneuver, options = PLAN[rnd]
            all_out = maneuver == "all_out_attack"
            r = send(client, g, {"type": "act", "token_id": who, "action": maneuver}, p["player_token"])
            assert r.status_code == 200, r.json
            foe = next(t for t in fight["order"] if t != who and names[t].startswith("Foe"))
            r = send(client, g, {"type": "preview_attack", "attacker": who, "target": foe, "weapon": "Broadsword"},
                     p["player_token"])
            assert r.status_code == 200, r.json
            plain = S.default_sheet()["skills"]["Broadsword"] + sum(m["value"] for m in r.json["preview"]["odds"]["modifiers"])
            r = send(client, g, {"type": "attack", "attacker": who, "target": foe, "weapon": "Broadsword",
                                 "options": options}, p["player_token"])
            assert r.status_code == 200, r.json
            entry = last_attack(client, g)
            attack = entry["detail"]["attack"]["details"]
            ann_attacks += 1
            effective = attack["attacks"][0]["check"]["effective"]
            assert f" vs {effective} " in entry["text"], entry["text"]
            if options.get("variant") == "determined":
                assert effective == plain + 4, (effective, plain)
            elif options.get("variant") == "double":
                assert len(attack["attacks"]) == 2, attack
            else:
                assert effective == plain and not attack.get("variant"), attack
            # after an All-Out Attack Ann shows it and has no defense until her next turn
            ann_state = state(client, g)["combat"]
            assert ann_state["current"] == who  # the attack does not end the turn
        else:
            maneuver, options = FOES[rnd]
            r = send(client, g, {"type": "act", "token_id": who, "action": maneuver})
            assert r.status_code == 200, r.json
            r = send(client, g, {"type": "attack", "attacker": who, "target": ids["Ann"], "weapon": "Broadsword",
                                 "options": options})
            assert r.status_code == 200, r.json
            pending = state(client, g).get("pending_defense")
            ann_all_out = all_out
            if pending:  # Ann's player chooses her defense on her phone
                assert not ann_all_out, "Ann has no defense after an All-Out Attack: she must not be asked"
                keys = [c["key"] for c in pending["choices"] if c["available"]]
                assert "none" in keys and len(keys) > 1, pending["choices"]
                choice = next(k for k in keys if k.startswith("dodge"))
                r = send(client, g, {"type": "choose_defense", "defense": choice}, p["player_token"])
                assert r.status_code == 200, r.json
                asked += 1
                assert state(client, g).get("pending_defense") is None
                done = last_attack(client, g)["detail"]["attack"]["details"]
                assert len(done["attacks"]) == (2 if options.get("variant") == "double" else 1), done
                assert (done.get("variant") or None) == options.get("variant"), done
            else:
                assert ann_all_out, "Ann may defend: her player must be asked"
                unasked += 1
                assert last_attack(client, g)["detail"]["attack"]["details"].get("defense") in (None, "none")
        r = send(client, g, {"type": "next_turn"})
        assert r.status_code == 200, r.json
    assert ann_attacks == 3 and asked >= 2 and unasked >= 2, (ann_attacks, asked, unasked)
    r = send(client, g, {"type": "end_combat"})
    assert r.status_code == 200, r.json
    end = state(client, g)
    assert end["combat"] is None
    texts = [e["text"] for e in end["log"]]
    assert "The fight is over" in texts and not any("Traceback" in t or "error" in t.lower() for t in texts)

