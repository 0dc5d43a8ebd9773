"""3d6 through the JSON API (#23): the attack options the rules list in the preview, one picked of each kind
with the odds following and matching the rolled frequencies; Rapid Strike at two targets; surprise at the
start of a fight and the end of one; shots spent, an empty weapon refused, a reload; a laid sphere."""

from __future__ import annotations

import math

import pytest

import rules
from tests.helpers import bearer, command as send, new_game, state
from webapp import create_app
from webapp.live.server import throttle

S = rules.get("gurps_lite")
OPEN = {"width": 24, "height": 12}
SMG = {"skill": "Guns (Pistol)", "damage": "2d", "type": "pi", "kind": "ranged", "rof": 10, "rcl": 2, "max": 200,
       "shots": 30}
GRENADE = {"skill": "Throwing", "damage": "3d", "type": "cr", "kind": "thrown", "area": 2, "max": 30}


@pytest.fixture
def client(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                      "DICE_SEED": "23"})
    # 150 attacks in a row to count hits: past a person's rate (test_network tests the limit itself)
    app.extensions["tacmap"].seats = throttle.Seats(rate=1000.0, burst=1000)
    return app.test_client()


def table(client, *spots):
    """A 3d6 game with the GM's Ann (with an SMG and a grenade) and foes at ``spots``."""
    g = new_game(client, "gurps_lite", OPEN, name="Choices")
    ids = {}
    for name, (x, y) in [("Ann", (2, 2)), *((f"Foe {i}", s) for i, s in enumerate(spots))]:
        body = {"name": name, "x": x, "y": y, "kind": "pc" if name == "Ann" else "npc"}
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    sheet = S.default_sheet()
    sheet["weapons"] = {**sheet["weapons"], "SMG": dict(SMG), "Grenade": dict(GRENADE)}
    r = send(client, g, {"type": "add_character", "name": "Ann", "token_id": ids["Ann"], "sheet": sheet})
    assert r.status_code == 200, r.json
    return g, ids


def preview(client, g, ids, **body):
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe 0"], **body})
    assert r.status_code == 200, r.json
    return r.json["preview"]


def test_the_preview_lists_the_options_and_each_kind_picked_changes_the_odds_as_rolled(client):
    g, ids = table(client, (3, 2), (3, 3))
    view = preview(client, g, ids, weapon="Broadsword")
    options = {o["key"]: o for o in view["options"]}
    assert {"location", "maneuver", "variant", "rapid_strike", "deceptive", "dual_weapon"} <= set(options)
    assert {"key": "skull", "label": "Skull (-7)"} in options["location"]["values"]
    assert options["rapid_strike"]["kind"] == "bool" and options["rapid_strike"]["targets"] == 2
    assert options["deceptive"]["kind"] == "int" and options["deceptive"]["max"] == 1  # Broadsword 13
    plain = view["odds"]["hit"]
    # a choice (the skull, -7), a bool (Rapid Strike, -6 each) and an int (Deceptive Attack, -2): each lowers it
    skull = preview(client, g, ids, weapon="Broadsword", options={"location": "skull"})
    rapid = preview(client, g, ids, weapon="Broadsword", options={"rapid_strike": True})
    deceptive = preview(client, g, ids, weapon="Broadsword", options={"deceptive": 1})
    assert skull["odds"]["hit"] < plain and deceptive["odds"]["hit"] != plain and rapid["odds"]["hit"] != plain
    assert {"label": "hit location: Skull", "value": -7, "source": "Hit Locations"} in skull["odds"]["modifiers"]
    assert skull["picked"] == {"location": "skull"}
    # a key the rules do not list, or a value they do not allow, is refused and nothing is stored
    before = state(client, g)
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe 0"],
                         "weapon": "Broadsword", "options": {"called_shot": "head"}})
    assert r.status_code == 422 and "no attack option 'called_shot'" in r.json["error"]
    r = send(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe 0"], "weapon": "Broadsword",
                         "options": {"tip_slash": True}})
    assert r.status_code == 422 and "Tip Slash" in r.json["error"]
    assert state(client, g) == before
    # the skull's odds against what the server rolls, Foe 1 taking no defense: the chance a hit lands
    p = {c["key"]: c for c in preview(client, g, ids, weapon="Broadsword", options={"location": "skull"},
                                      target=ids["Foe 1"])["defenses"]}["none"]["hit"]
    n, results = 150, []
    for _ in range(n):
        r = send(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe 1"], "weapon": "Broadsword",
                             "options": {"location": "skull"}, "defense": "none"})
        assert r.status_code == 200, r.json
        results.append(next(e["detail"]["attack"] for e in reversed(state(client, g)["log"])
                            if (e.get("detail") or {}).get("attack")))
    assert all(r["details"]["attacks"][0]["check"]["effective"] == 6 for r in results)  # DX-based 13 - 7
    hits = sum(r["hit"] for r in results)
    assert abs(hits / n - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.02, (hits / n, p)


def character(client, g, token_id):
    return next(c for c in state(client, g)["characters"] if c["token_id"] == token_id)


def sheet_of(client, g, token_id):
    return character(client, g, token_id)["sheet"]


def set_sheet(client, g, token_id, changes):
    r = send(client, g, {"type": "update_sheet", "character_id": character(client, g, token_id)["id"], "changes": changes})
    assert r.status_code == 200, r.json


def last_attack(client, g):
    return next(e for e in reversed(state(client, g)["log"]) if (e.get("detail") or {}).get("attack"))


def test_a_rapid_strike_at_two_foes_previews_and_rolls_each(client):
    """"Rapid Strike: turn any attack into two attacks that at -6 ... You split your rate of fire among the
    different targets (like different hit locations or a nearby enemy)"."""
    g, ids = table(client, (3, 2), (3, 3))
    two = [ids["Foe 0"], ids["Foe 1"]]
    view = preview(client, g, ids, weapon="Broadsword", options={"rapid_strike": True}, targets=two)
    assert [t["id"] for t in view["odds"]["targets"]] == two and view["targets"] == two
    assert all(0 < t["hit"] < 1 for t in view["odds"]["targets"])
    assert math.isclose(sum(o["p"] for o in view["odds"]["outcomes"]), 1)
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe 0"],
                         "weapon": "Broadsword", "targets": two})
    assert r.status_code == 422 and "several targets take a Rapid Strike" in r.json["error"]
    r = send(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe 0"], "weapon": "Broadsword",
                         "options": {"rapid_strike": True}, "targets": two})
    assert r.status_code == 200, r.json
    entry = last_attack(client, g)
    per = entry["detail"]["attack"]["details"]["targets"]
    assert [t["target"] for t in per] == two and all(len(t["attacks"]) == 1 for t in per)
    assert "Foe 0" in entry["text"] and "Foe 1" in entry["text"]
    assert [t["name"] for t in entry["detail"]["card"]["targets"]][:2] == ["Foe 0", "Foe 1"]


def test_surprise_then_the_end_of_the_fight(client):
    """"Turn Order": "the attackers go first in initiative and the defenders will be mentally stunned for 1d
    seconds"; the document says nothing of the end of a fight: only shock, a next-turn penalty, clears."""
    g, ids = table(client, (3, 2))
    r = send(client, g, {"type": "start_combat", "token_ids": [ids["Ann"], ids["Foe 0"]], "surprised": [ids["Foe 0"]]})
    assert r.status_code == 200, r.json
    s = state(client, g)
    assert s["combat"]["order"] == [ids["Ann"], ids["Foe 0"]]
    texts = [e["text"] for e in s["log"]]
    assert any(t.startswith("Foe 0 is totally surprised and acts after the attackers: mentally stunned for") for t in texts)
    assert send(client, g, {"type": "add_character", "name": "Foe 0", "token_id": ids["Foe 0"],
                            "sheet": {**S.default_sheet(), "shock": 2}}).status_code == 200
    assert send(client, g, {"type": "end_combat"}).status_code == 200
    s = state(client, g)
    assert sheet_of(client, g, ids["Foe 0"])["shock"] == 0
    assert any("Foe 0's shock clears: the fight is over" == e["text"] for e in s["log"])


def test_the_smg_spends_its_shots_is_refused_empty_and_reloads_as_a_ready_maneuver(client):
    g, ids = table(client, (8, 2))
    r = send(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe 0"], "weapon": "SMG",
                         "options": {"shots": 10}, "defense": "none"})
    assert r.status_code == 200, r.json
    def ann():
        return sheet_of(client, g, ids["Ann"])

    assert ann()["weapons"]["SMG"]["loaded"] == 20
    weapons = ann()["weapons"]
    set_sheet(client, g, ids["Ann"], {"weapons": {**weapons, "SMG": {**weapons["SMG"], "loaded": 0}}})
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe 0"], "weapon": "SMG"})
    assert r.status_code == 422 and "SMG is out of shots: reload it first" in r.json["error"]
    assert send(client, g, {"type": "start_combat", "token_ids": [ids["Ann"], ids["Foe 0"]],
                            "surprised": [ids["Foe 0"]]}).status_code == 200
    r = send(client, g, {"type": "act", "token_id": ids["Ann"], "action": "reload:SMG"})
    assert r.status_code == 200, r.json
    assert ann()["weapons"]["SMG"]["loaded"] == 30
    assert any(e["text"] == "Ann reloads SMG: 30 shot(s)" for e in state(client, g)["log"])


def test_a_grenade_laid_as_a_sphere_catches_those_under_it(client):
    """"Area of Effects": "everyone in the effected area is effected"; "you can use a dive as a defense to move
    out of the way of the AoE"."""
    g, ids = table(client, (12, 2), (12, 3), (20, 10))
    r = send(client, g, {"type": "place_template", "shape": "circle", "x": 12.5, "y": 2.5, "size": 2})
    assert r.status_code == 200, r.json
    tid = state(client, g)["templates"][0]["id"]
    view = preview(client, g, ids, weapon="Grenade", template=tid)
    assert {t["id"] for t in view["odds"]["targets"]} == {ids["Foe 0"], ids["Foe 1"]}
    assert view["template"]["key"] == "sphere"
    r = send(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe 0"], "weapon": "Grenade",
                         "template": tid})
    assert r.status_code == 200, r.json
    details = last_attack(client, g)["detail"]["attack"]["details"]
    assert details["centre"] and {t["target"] for t in details["targets"]} <= {ids["Foe 0"], ids["Foe 1"], ids["Foe 2"]}


def test_a_suppression_fire_area_attacks_a_foe_who_walks_into_it(client):
    """"Supression Fire: Using a weapon with a ROF of 5+ you can choose a 2 yard wide area in your weapon range
    (4 yard wide if ROF is 10+) to spray into ... When anyone enters this area you attack them at a skill of
    8+your rapid fire bonus"."""
    g, ids = table(client, (10, 2), (10, 7))
    ann, foe, walker = ids["Ann"], ids["Foe 0"], ids["Foe 1"]
    assert send(client, g, {"type": "start_combat", "token_ids": [ann, foe, walker]}).status_code == 200
    for _ in range(3):  # to Ann's turn, then Ann first, the walker next
        if state(client, g)["combat"]["current"] == ann:
            break
        assert send(client, g, {"type": "next_turn"}).status_code == 200
    if state(client, g)["combat"]["order"] != [ann, walker, foe]:
        assert send(client, g, {"type": "set_order", "order": [ann, walker, foe]}).status_code == 200
    # from the attack card: an All-Out Attack (ranged), Suppression Fire on Foe 0: a 4 yard square on it
    r = send(client, g, {"type": "attack", "attacker": ann, "target": foe, "weapon": "SMG",
                         "options": {"maneuver": "all_out_attack_ranged", "variant": "suppression_fire"}})
    assert r.status_code == 200, r.json
    area = last_attack(client, g)["detail"]["attack"]["details"]["suppressing"]
    assert area["width"] == 4 and area["skill"] == 10 and [10, 4] in area["cells"]
    assert sheet_of(client, g, ann)["weapons"]["SMG"]["loaded"] == 20  # its RoF, spent laying the area
    assert send(client, g, {"type": "next_turn"}).status_code == 200
    assert state(client, g)["combat"]["current"] == walker
    assert send(client, g, {"type": "act", "token_id": walker, "action": "move"}).status_code == 200
    r = send(client, g, {"type": "move_token", "token_id": walker, "x": 10, "y": 4})
    assert r.status_code == 200, r.json
    s = state(client, g)
    assert {"attacker": ann, "target": walker, "options": {"free_attack": True}} in s["combat"]["due"]
    assert any("Foe 1 enters the area Ann keeps under Suppression Fire" in e["text"] for e in s["log"])
    # the owed attack, out of Ann's turn: the area's weapon at 8 + 2, no more shots spent
    assert 0 < preview(client, g, ids, target=walker)["odds"]["hit"] < 1
    r = send(client, g, {"type": "attack", "attacker": ann, "target": walker, "defense": "none"})
    assert r.status_code == 200, r.json
    [attack] = last_attack(client, g)["detail"]["attack"]["details"]["attacks"]
    assert attack["weapon"] == "SMG" and attack["check"]["effective"] == 10 and attack["check"]["base_label"] == \
        "Suppression Fire"
    assert sheet_of(client, g, ann)["weapons"]["SMG"]["loaded"] == 20
    assert state(client, g)["combat"]["due"] == []
