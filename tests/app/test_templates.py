"""Area templates on the map (place, move, remove, undo, who is under, refusals), area attacks with a
template resolved for each token under it, and the table screen's result card."""

from __future__ import annotations

import pytest

import rules

from rules.dice import ScriptedDice
from tests.helpers import bearer, command as send, connect, join, new_game, state
from webapp import create_app

OPEN = {"width": 12, "height": 8}
GRENADE = {"damage": "3d6", "range": "5/10/20", "thrown": True}


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def setup(client, system="savage_worlds", board=OPEN):
    g = new_game(client, system, board, name="Blast")
    p = join(client, g, "Mira")
    ids = {}
    for name, (x, y), owner in [("Hero", (2, 2), p["player_id"]), ("Orc 1", (6, 2), None), ("Orc 2", (7, 2), None),
                                ("Elf", (10, 6), None)]:
        body = {"name": name, "x": x, "y": y, **({"owner": owner, "kind": "pc"} if owner else {})}
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        ids[name] = r.json["id"]
    return g, p, ids


def templates_of(client, g, token=None):
    return state(client, g, token)["templates"]


def place(client, g, token, **body):
    return send(client, g, {"type": "place_template", **body}, token)


def test_a_player_lays_a_circle_and_everyone_sees_who_is_under_it(client):
    g, p, ids = setup(client)
    r = place(client, g, p["player_token"], shape="circle", x=6.5, y=2.5, size=1, label="Grenade")
    assert r.status_code == 200, r.json
    for token in (g["gm_token"], p["player_token"], g["screen_token"]):
        [t] = templates_of(client, g, token)
        assert t["shape"] == "circle" and t["label"] == "Grenade" and t["size"] == 1
        assert sorted(t["under"]) == sorted([ids["Orc 1"], ids["Orc 2"]])
    log = state(client, g)["log"]
    assert "Mira laid a circle template ‘Grenade’" in log[-1]["text"]
    screen = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'class="area-template circle"' in screen and "Grenade: Orc 1, Orc 2" in screen
    assert "movable" not in screen[screen.index('id="layer-templates"'):screen.index('id="layer-preview"')]


def test_a_template_moves_and_the_list_under_it_follows_then_it_goes(client):
    g, p, ids = setup(client)
    place(client, g, p["player_token"], shape="line", x=2.5, y=2.5, size=6, direction=0)
    [t] = templates_of(client, g)
    assert sorted(t["under"]) == sorted([ids["Hero"], ids["Orc 1"], ids["Orc 2"]])
    r = send(client, g, {"type": "move_template", "template_id": t["id"], "x": 5, "y": 6.5}, p["player_token"])
    assert r.status_code == 200, r.json
    [t] = templates_of(client, g)
    assert (t["x"], t["y"]) == (5, 6.5) and t["under"] == [ids["Elf"]]
    # a token that walks in is under it too
    send(client, g, {"type": "move_token", "token_id": ids["Orc 1"], "x": 6, "y": 6}, g["gm_token"])
    assert sorted(templates_of(client, g)[0]["under"]) == sorted([ids["Orc 1"], ids["Elf"]])
    r = send(client, g, {"type": "remove_template", "template_id": t["id"]}, p["player_token"])
    assert r.status_code == 200 and templates_of(client, g) == []


def test_a_cone_points_its_way(client):
    g, p, ids = setup(client)
    place(client, g, g["gm_token"], shape="cone", x=2.5, y=2.5, size=5, direction=0)
    assert sorted(templates_of(client, g)[0]["under"]) == sorted([ids["Hero"], ids["Orc 1"], ids["Orc 2"]])
    place(client, g, g["gm_token"], shape="cone", x=2.5, y=2.5, size=5, direction=180)
    assert templates_of(client, g)[1]["under"] == [ids["Hero"]]


@pytest.mark.parametrize("body, why", [
    ({"shape": "square", "x": 1, "y": 1}, "shape"),
    ({"shape": "circle", "x": 13, "y": 1}, "off the map"),
    ({"shape": "circle", "x": -1, "y": 1}, "off the map"),
    ({"shape": "circle", "y": 1}, "x and y"),
    ({"shape": "circle", "x": 1, "y": 1, "size": 0}, "size"),
    ({"shape": "circle", "x": 1, "y": 1, "size": 40}, "bigger than the map"),
    ({"shape": "circle", "x": 1, "y": 1, "label": "x" * 41}, "label"),
    ({"shape": "circle", "x": "a", "y": 1}, "x"),
    ({"shape": "circle", "x": "2", "y": 1}, "x"),
    ({"shape": "circle", "x": 1, "y": 1, "direction": "90"}, "direction"),
])
def test_bad_templates_are_refused_and_change_nothing(client, body, why):
    g, p, _ = setup(client)
    before = state(client, g)
    r = place(client, g, p["player_token"], **body)
    assert r.status_code == 422 and why in r.json["error"], r.json
    assert state(client, g) == before


def test_the_table_screen_cannot_lay_move_or_remove_a_template(client):
    g, p, _ = setup(client)
    r = place(client, g, g["screen_token"], shape="circle", x=1, y=1)
    assert r.status_code == 422 and "screen" in r.json["error"]
    place(client, g, p["player_token"], shape="circle", x=1, y=1)
    tid = templates_of(client, g)[0]["id"]
    for body in ({"type": "move_template", "template_id": tid, "x": 3, "y": 3},
                 {"type": "remove_template", "template_id": tid}):
        r = send(client, g, body, g["screen_token"])
        assert r.status_code == 422 and "screen" in r.json["error"]


def test_a_player_moves_only_their_own_templates_and_the_gm_any(client):
    g, p, _ = setup(client)
    other = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Ollie"}).json
    place(client, g, p["player_token"], shape="circle", x=1, y=1)
    tid = templates_of(client, g)[0]["id"]
    r = send(client, g, {"type": "remove_template", "template_id": tid}, other["player_token"])
    assert r.status_code == 422 and "not yours" in r.json["error"]
    r = send(client, g, {"type": "move_template", "template_id": tid, "x": 4, "y": 4}, g["gm_token"])
    assert r.status_code == 200
    r = send(client, g, {"type": "remove_template", "template_id": "nope"}, p["player_token"])
    assert r.status_code == 422 and "no template" in r.json["error"]


def test_a_hidden_token_under_a_template_is_named_to_the_gm_only(client):
    g, p, ids = setup(client)
    lurker = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Lurker", "x": 6, "y": 3, "hidden": True},
                         headers=bearer(g["gm_token"])).json["id"]
    place(client, g, p["player_token"], shape="circle", x=6.5, y=2.5, size=1, label="Boom")
    assert sorted(templates_of(client, g)[0]["under"]) == sorted([ids["Orc 1"], ids["Orc 2"], lurker])
    gm = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert "Boom: Orc 1, Orc 2, Lurker" in gm
    for token, page in ((p["player_token"], "play"), (g["screen_token"], "screen")):
        assert templates_of(client, g, token)[0]["under"] == [ids["Orc 1"], ids["Orc 2"]]
        html = client.get(f"/games/{g['id']}/{page}?key={token}", follow_redirects=True).get_data(as_text=True)
        assert "Lurker" not in html and lurker not in html
        assert "Boom: Orc 1, Orc 2" in html


def test_undo_takes_a_template_back(client):
    g, p, _ = setup(client)
    place(client, g, p["player_token"], shape="circle", x=1, y=1)
    assert send(client, g, {"type": "undo"}, g["gm_token"]).status_code == 200
    assert templates_of(client, g) == []


def test_a_template_survives_a_restart_of_the_server(app, tmp_path):
    client = app.test_client()
    g, p, _ = setup(client)
    place(client, g, p["player_token"], shape="cone", x=3, y=3, size=3, direction=90)
    again = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    [t] = templates_of(again.test_client(), g)
    assert (t["shape"], t["x"], t["y"], t["direction"]) == ("cone", 3, 3, 90)


def test_on_a_zone_map_a_template_covers_a_zone(client):
    g = client.post("/api/games", json={"name": "Zones", "system": "atomic_tomorrow"}).json
    zones = state(client, g)["zones"]
    zone = zones[0]
    x, y = zone["box"][0] + 1, zone["box"][1] + 3
    tid = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Raygunner", "x": x, "y": y},
                      headers=bearer(g["gm_token"])).json["id"]
    r = place(client, g, g["gm_token"], shape="circle", zone=zone["id"])
    assert r.status_code == 200, r.json
    [t] = templates_of(client, g)
    assert t["zone"] == zone["id"] and t["under"] == [tid]
    r = place(client, g, g["gm_token"], shape="circle", zone="nowhere")
    assert r.status_code == 422 and "no zone" in r.json["error"]


# --- area attacks with a template -------------------------------------------------------------


def grenadier(client, g, ids):
    sheet = rules.get("savage_worlds").default_sheet()
    sheet["weapons"] = {**sheet["weapons"], "Grenade": GRENADE}
    r = send(client, g, {"type": "add_character", "name": "Hero", "token_id": ids["Hero"],
                                        "sheet": sheet}, g["gm_token"])
    assert r.status_code == 200, r.json


def test_a_medium_blast_is_resolved_for_each_token_under_it(app, client):
    g, p, ids = setup(client)
    grenadier(client, g, ids)
    place(client, g, p["player_token"], shape="circle", x=6.5, y=2.5, size=2, label="Grenade")
    tid = templates_of(client, g)[0]["id"]
    # Athletics d6 shows 5, the Wild Die 2: a success, no raise; then 3d6 damage for each token under
    # the blast (3+3+2 = 8 against Toughness 7: Shaken), Orc 1 first (the target), then Orc 2
    hub = app.extensions["tacmap"]
    hub.dice = lambda game: ScriptedDice([5, 2, 3, 3, 2, 3, 3, 2])
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Orc 1"],
                                            "weapon": "Grenade", "template": tid}, p["player_token"])
    assert r.status_code == 200, r.json
    s = state(client, g)
    entry = s["log"][-1]
    result = entry["detail"]["attack"]
    assert result["hit"] is True and result["details"]["template"] == "medium"
    assert {t["target"] for t in result["details"]["targets"]} == {ids["Orc 1"], ids["Orc 2"]}
    sheets = {t["id"]: t.get("sheet") or {} for t in s["tokens"]}
    assert sheets[ids["Orc 1"]].get("shaken") is True and sheets[ids["Orc 2"]].get("shaken") is True
    assert not sheets[ids["Elf"]].get("shaken")
    card = entry["detail"]["card"]
    assert card["attacker"] == "Hero" and card["hit"] is True
    assert [t["name"] for t in card["targets"]] == ["Orc 1", "Orc 2"]
    screen = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    card_html = screen[screen.index('id="result-card"'):]
    assert "HIT" in card_html and "Orc 1" in card_html and "Orc 2" in card_html and "Shaken" in card_html
    # the log's breakdown has a line per target
    gm = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert "<strong>Orc 1</strong>: shaken (roll 8, damage 8, toughness 7, wounds 0)" in gm
    assert "<strong>Orc 2</strong>: shaken (roll 8, damage 8, toughness 7, wounds 0)" in gm


def test_a_missed_blast_deviates_and_hits_what_it_lands_on(app, client):
    g, p, ids = setup(client)
    grenadier(client, g, ids)
    place(client, g, g["gm_token"], shape="circle", x=6.5, y=2.5, size=1)
    tid = templates_of(client, g)[0]["id"]
    hub = app.extensions["tacmap"]
    # a miss (2 and 1), deviation d6 = 1" at 12 o'clock (d12 = 12): straight on, one square further
    hub.dice = lambda game: ScriptedDice([2, 1, 1, 12] + [2] * 12)
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Orc 1"],
                                        "weapon": "Grenade", "template": tid}, g["gm_token"])
    assert r.status_code == 200, r.json
    details = state(client, g)["log"][-1]["detail"]["attack"]["details"]
    assert details["deviation"]["cell"] == [7, 2]
    assert ids["Orc 2"] in {t["target"] for t in details["targets"]}


def test_a_template_the_system_has_no_match_for_is_refused(client):
    g, p, ids = setup(client)
    grenadier(client, g, ids)
    place(client, g, g["gm_token"], shape="circle", x=6.5, y=2.5, size=5)
    tid = templates_of(client, g)[0]["id"]
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Orc 1"],
                                        "weapon": "Grenade", "template": tid}, g["gm_token"])
    assert r.status_code == 422 and "no circle template of 5" in r.json["error"] and "Medium Blast" in r.json["error"]
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Orc 1"],
                                        "weapon": "Grenade", "template": "gone"}, g["gm_token"])
    assert r.status_code == 422 and "no template" in r.json["error"]


def test_a_system_without_area_templates_says_so(client):
    g, p, ids = setup(client, system="plain_grid")
    place(client, g, g["gm_token"], shape="circle", x=6.5, y=2.5, size=1)
    tid = templates_of(client, g)[0]["id"]
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Orc 1"],
                                        "template": tid}, g["gm_token"])
    assert r.status_code == 422 and "no area templates" in r.json["error"]


def test_an_area_preview_lists_each_token_under_it_with_odds_and_never_a_hidden_one(client):
    g, p, ids = setup(client)
    grenadier(client, g, ids)
    lurker = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Lurker", "x": 7, "y": 3, "hidden": True},
                         headers=bearer(g["gm_token"])).json["id"]
    place(client, g, p["player_token"], shape="circle", x=6.5, y=2.5, size=2)
    tid = templates_of(client, g)[0]["id"]
    body = {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Orc 1"], "weapon": "Grenade",
            "template": tid}
    before = state(client, g)
    r = send(client, g, body, g["gm_token"])
    assert r.status_code == 200, r.json
    odds = r.json["preview"]["odds"]
    assert {t["id"] for t in odds["targets"]} == {ids["Orc 1"], ids["Orc 2"], lurker}
    assert all(abs(sum(o["p"] for o in t["outcomes"]) - 1) < 1e-9 for t in odds["targets"])
    assert [6, 2] in r.json["preview"]["template"]["cells"]
    r = send(client, g, body, p["player_token"])
    assert {t["id"] for t in r.json["preview"]["odds"]["targets"]} == {ids["Orc 1"], ids["Orc 2"]}
    assert "Lurker" not in r.json["html"] and "Orc 2" in r.json["html"]
    assert state(client, g) == before


def test_a_blast_that_catches_a_hidden_token_tells_the_table_only_who_it_can_see(app, client):
    g, p, ids = setup(client)
    grenadier(client, g, ids)
    lurker = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Lurker", "x": 7, "y": 3, "hidden": True},
                         headers=bearer(g["gm_token"])).json["id"]
    place(client, g, p["player_token"], shape="circle", x=6.5, y=2.5, size=2)
    tid = templates_of(client, g)[0]["id"]
    app.extensions["tacmap"].dice = lambda game: ScriptedDice([5, 2] + [3, 3, 2] * 3)
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Orc 1"],
                                            "weapon": "Grenade", "template": tid}, p["player_token"])
    assert r.status_code == 200, r.json
    gm_entry = state(client, g)["log"][-2]
    assert lurker in {t["id"] for t in gm_entry["detail"]["card"]["targets"]}
    told = state(client, g, p["player_token"])["log"][-1]
    assert told["text"] == "Hero's area attack hits: Orc 1, Orc 2"
    assert lurker not in str(told) and "Lurker" not in str(told)
    screen = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    assert "Lurker" not in screen and "Orc 2" in screen[screen.index('id="result-card"'):]


# --- the defender's choice --------------------------------------------------------------------


def duel(client, system="gurps_lite"):
    """The GM's Brute next to Mira's Hero in a system where the defender chooses."""
    g = new_game(client, system, OPEN, name="Duel")
    p = join(client, g, "Mira")
    ids = {}
    for name, (x, y), owner in [("Hero", (2, 2), p["player_id"]), ("Brute", (3, 2), None)]:
        body = {"name": name, "x": x, "y": y, **({"owner": owner, "kind": "pc"} if owner else {})}
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    return g, p, ids


def test_the_preview_shows_each_defense_with_the_chance_to_hit_against_it(client):
    g, p, ids = duel(client)
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Brute"], "target": ids["Hero"],
                                        "weapon": "Broadsword"}, g["gm_token"])
    assert r.status_code == 200, r.json
    choices = {c["key"]: c for c in r.json["preview"]["defenses"]}
    assert {"dodge", "none"} <= set(choices) and any(k.startswith("parry:") for k in choices)
    assert choices["none"]["hit"] > choices["dodge"]["hit"] > 0  # a defense makes a hit less likely
    html = r.json["html"]
    assert "s choice</h3>" in html and "Dodge" in html and "No defense" in html
    assert 'name="defense-choice" value="dodge"' in html  # the GM may tick the defense to roll with
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Brute"],
                                            "weapon": "Broadsword"}, p["player_token"])
    assert "Dodge" in r.json["html"] and "defense-choice" not in r.json["html"]  # not the foe's player


def test_an_attack_on_a_players_token_waits_for_its_defense_then_rolls_with_it(client):
    g, p, ids = duel(client)
    body = {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"}
    r = send(client, g, body, g["gm_token"])
    assert r.status_code == 200, r.json
    s = state(client, g)
    assert not any((e.get("detail") or {}).get("attack") for e in s["log"])  # nothing rolled yet
    assert "waiting for Hero's defense" in s["log"][-1]["text"]
    mine = state(client, g, p["player_token"])["pending_defense"]
    assert mine["chooser"] and {c["key"] for c in mine["choices"]} >= {"dodge", "none"}
    table = state(client, g, g["screen_token"])["pending_defense"]  # the table screen waits, with no choices
    assert table["player"] == "Mira" and not table["chooser"] and table["choices"] == []
    page = client.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
    assert "Hero: defend!" in page and 'data-defense="dodge"' in page
    # another attack waits its turn; a choice the rules do not offer is refused
    r = send(client, g, body, g["gm_token"])
    assert r.status_code == 422 and "waiting for Hero's defense" in r.json["error"]
    r = send(client, g, {"type": "choose_defense", "defense": "fly"}, p["player_token"])
    assert r.status_code == 422 and "no defense 'fly'" in r.json["error"]
    r = send(client, g, {"type": "choose_defense", "defense": "dodge"}, g["screen_token"])
    assert r.status_code == 422 and "screen" in r.json["error"]
    r = send(client, g, {"type": "choose_defense", "defense": "dodge+retreat"}, p["player_token"])
    assert r.status_code == 200, r.json
    s = state(client, g)
    assert s["pending_defense"] is None
    [attack] = s["log"][-1]["detail"]["attack"]["details"]["attacks"]
    if attack["check"]["result"] in ("success", "critical success") and attack.get("defense"):
        assert attack["defense"]["defense"] == {"type": "dodge", "retreat": True}  # the player's choice, rolled
    else:
        assert attack["check"]["result"] in ("failure", "critical failure")  # missed: nothing to defend


def test_an_attack_whose_only_defense_is_none_is_rolled_without_asking(client):
    """An unconscious 3d6 defender has no active defense: "No defense" is the one choice left, so nobody is
    asked (no prompt for the player, the GM or the table) and the attack is rolled with it at once."""
    g, p, ids = duel(client)
    sheet = {**rules.get("gurps_lite").default_sheet(), "conditions": ["unconscious"]}
    r = send(client, g, {"type": "add_character", "name": "Hero", "token_id": ids["Hero"], "sheet": sheet}, g["gm_token"])
    assert r.status_code == 200, r.json
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Brute"], "target": ids["Hero"],
                                        "weapon": "Broadsword"}, g["gm_token"])
    open_ = [c["key"] for c in r.json["preview"]["defenses"] if c["available"]]
    assert open_ == ["none"], r.json["preview"]["defenses"]  # the rules leave nothing but "No defense"
    r = send(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"],
                                        "weapon": "Broadsword"}, g["gm_token"])
    assert r.status_code == 200, r.json
    s = state(client, g)
    assert s["pending_defense"] is None
    assert not any("waiting for" in e["text"] for e in s["log"])
    assert s["log"][-1]["detail"]["attack"]  # rolled
    for token in (p["player_token"], g["screen_token"]):
        assert state(client, g, token)["pending_defense"] is None
    page = client.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
    assert "defend!" not in page and "data-defense=" not in page
    # a conscious defender is still asked
    r = send(client, g, {"type": "update_sheet", "character_id": state(client, g)["characters"][0]["id"],
                                        "changes": {"conditions": []}}, g["gm_token"])
    assert r.status_code == 200, r.json
    send(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"], "weapon": "Broadsword"}, g["gm_token"])
    assert state(client, g)["pending_defense"]["target"] == "Hero"


def test_only_the_defenders_player_or_the_gm_chooses_and_the_gm_can_call_it_off(client):
    g, p, ids = duel(client)
    other = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Ollie"}).json
    send(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"],
                                    "weapon": "Broadsword"}, g["gm_token"])
    assert state(client, g, other["player_token"])["pending_defense"] is None
    r = send(client, g, {"type": "choose_defense", "defense": "dodge"}, other["player_token"])
    assert r.status_code == 422 and "defender's player or the GM" in r.json["error"]
    r = send(client, g, {"type": "choose_defense", "cancel": True}, p["player_token"])
    assert r.status_code == 422 and "only the GM" in r.json["error"]
    r = send(client, g, {"type": "choose_defense", "cancel": True}, g["gm_token"])
    assert r.status_code == 200 and state(client, g)["pending_defense"] is None
    r = send(client, g, {"type": "choose_defense", "defense": "dodge"}, g["gm_token"])
    assert r.status_code == 422 and "no attack is waiting" in r.json["error"]


def test_the_gm_chooses_for_anyone_in_the_attack_itself_and_a_player_never_for_a_foe(client):
    g, p, ids = duel(client, "tesseris_ads")
    r = send(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"],
                                        "weapon": "pistol", "defense": "duck"}, g["gm_token"])
    assert r.status_code == 200, r.json
    entry = state(client, g)["log"][-1]
    assert entry["detail"]["attack"]["details"]["defense"] == "duck"
    r = send(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"],
                                        "weapon": "pistol", "defense": "parry"}, g["gm_token"])
    assert r.status_code == 422 and "Parry only defends against melee" in r.json["error"]
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"],
                                            "weapon": "pistol", "defense": "none"}, p["player_token"])
    assert r.status_code == 422 and "Brute's player (or the GM)" in r.json["error"]


def test_undo_brings_the_waiting_attack_back(client):
    g, p, ids = duel(client)
    send(client, g, {"type": "attack", "attacker": ids["Brute"], "target": ids["Hero"],
                                    "weapon": "Broadsword"}, g["gm_token"])
    send(client, g, {"type": "choose_defense", "defense": "dodge"}, p["player_token"])
    assert state(client, g)["pending_defense"] is None
    send(client, g, {"type": "undo"}, g["gm_token"])
    assert state(client, g)["pending_defense"]["target"] == "Hero"


# --- pings ------------------------------------------------------------------------------------


def test_a_ping_flashes_on_every_screen_with_the_pingers_name_and_is_not_stored(app, client):
    g, p, _ = setup(client)
    hub = app.extensions["tacmap"]
    phone, gm, screen = (connect(app, g["id"], k) for k in (p["player_token"], g["gm_token"], g["screen_token"]))
    for c in (phone, gm, screen):
        c.get_received()
    seq = hub.game(g["id"]).seq
    ack = phone.emit("map_ping", {"x": 3.5, "y": 4.25}, callback=True)
    assert ack == {"ok": True}
    for c in (gm, screen, phone):
        pings = [m["args"][0] for m in c.get_received() if m["name"] == "map_ping"]
        assert pings == [{"x": 3.5, "y": 4.25, "by": "Mira"}]
    assert hub.game(g["id"]).seq == seq  # nothing in the log
    assert gm.emit("map_ping", {"x": 0, "y": 0}, callback=True) == {"ok": True}
    assert [m["args"][0]["by"] for m in screen.get_received() if m["name"] == "map_ping"] == ["GM"]


@pytest.mark.parametrize("payload, why", [({"x": 13, "y": 1}, "off the map"), ({"x": -0.5, "y": 1}, "off the map"),
                                          ({"x": "1", "y": 1}, "numbers"), ({"x": True, "y": 1}, "numbers"),
                                          ({"x": 1}, "numbers"), (None, "x and y"), ([], "x and y")])
def test_a_bad_ping_is_refused_and_reaches_nobody(app, client, payload, why):
    g, p, _ = setup(client)
    phone, screen = connect(app, g["id"], p["player_token"]), connect(app, g["id"], g["screen_token"])
    screen.get_received()
    ack = phone.emit("map_ping", payload, callback=True)
    assert ack["ok"] is False and why in ack["error"]
    assert not [m for m in screen.get_received() if m["name"] == "map_ping"]


def test_the_screen_cannot_ping_and_a_client_pings_a_few_times_a_second_at_most(app, client):
    g, p, _ = setup(client)
    screen, phone = connect(app, g["id"], g["screen_token"]), connect(app, g["id"], p["player_token"])
    ack = screen.emit("map_ping", {"x": 1, "y": 1}, callback=True)
    assert ack["ok"] is False and "screen" in ack["error"]
    acks = [phone.emit("map_ping", {"x": 1, "y": 1}, callback=True) for _ in range(5)]
    assert [a["ok"] for a in acks] == [True, True, True, False, False]
    assert "a few pings a second" in acks[-1]["error"]


def test_a_cone_turns_in_place_and_the_list_under_it_follows(client):
    g, p, ids = setup(client)
    place(client, g, p["player_token"], shape="cone", x=2.5, y=2.5, size=5, direction=180)
    t = templates_of(client, g)[0]
    assert t["under"] == [ids["Hero"]]
    page = client.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
    assert f'data-template-turn="{t["id"]}" data-direction="135.0"' in page
    r = send(client, g, {"type": "move_template", "template_id": t["id"], "direction": 0}, p["player_token"])
    assert r.status_code == 200, r.json
    t = templates_of(client, g)[0]
    assert (t["x"], t["y"], t["direction"]) == (2.5, 2.5, 0)
    assert sorted(t["under"]) == sorted([ids["Hero"], ids["Orc 1"], ids["Orc 2"]])
    assert send(client, g, {"type": "move_template", "template_id": t["id"],
                                               "direction": 0}, p["player_token"]).json["seq"] == state(client, g)["seq"]


def test_a_template_being_dragged_is_shown_to_others_and_not_stored(app, client):
    g, p, _ = setup(client)
    hub = app.extensions["tacmap"]
    place(client, g, p["player_token"], shape="circle", x=3, y=3)
    tid = templates_of(client, g)[0]["id"]
    phone, gm, screen = (connect(app, g["id"], k) for k in (p["player_token"], g["gm_token"], g["screen_token"]))
    for c in (phone, gm, screen):
        c.get_received()
    seq = hub.game(g["id"]).seq
    assert phone.emit("template_preview", {"template_id": tid, "dx": 1.5, "dy": -2}, callback=True) == {"ok": True}
    for c in (gm, screen):
        assert [m["args"][0] for m in c.get_received() if m["name"] == "template_preview"] == [
            {"template_id": tid, "dx": 1.5, "dy": -2.0, "done": False}]
    assert not [m for m in phone.get_received() if m["name"] == "template_preview"]  # not back to the dragger
    assert hub.game(g["id"]).seq == seq
    other = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Ollie"}).json
    ollie = connect(app, g["id"], other["player_token"])
    for who, payload, why in [(ollie, {"template_id": tid, "dx": 1, "dy": 1}, "not yours"),
                              (screen, {"template_id": tid, "dx": 1, "dy": 1}, "screen"),
                              (phone, {"template_id": "nope", "dx": 1, "dy": 1}, "no template"),
                              (phone, {"template_id": tid, "dx": 1e9, "dy": 1}, "within the map"),
                              (phone, {"template_id": tid, "dx": "1", "dy": 1}, "dx and dy"),
                              (phone, [], "template_id")]:
        ack = who.emit("template_preview", payload, callback=True)
        assert ack["ok"] is False and why in ack["error"], (payload, ack)


def test_on_a_zone_map_a_template_moves_to_another_zone_and_a_point_picks_its_zone(client):
    g = client.post("/api/games", json={"name": "Zones", "system": "atomic_tomorrow"}).json
    zones = state(client, g)["zones"]
    a, b = zones[0], zones[1]
    r = place(client, g, g["gm_token"], shape="cone", x=a["box"][0] + 1.5, y=a["box"][1] + 2.5)
    assert r.status_code == 200, r.json
    tid = templates_of(client, g)[0]["id"]
    assert templates_of(client, g)[0]["zone"] == a["id"]
    r = send(client, g, {"type": "move_template", "template_id": tid, "zone": b["id"]}, g["gm_token"])
    assert r.status_code == 200 and templates_of(client, g)[0]["zone"] == b["id"]
    between = (a["box"][0] + a["box"][2] + 0.5, a["box"][1] + 0.5)  # the gap between two zones
    r = place(client, g, g["gm_token"], shape="circle", x=between[0], y=between[1])
    assert r.status_code == 422 and "not in a zone" in r.json["error"]
    r = place(client, g, g["gm_token"], shape="circle", zone=a["id"], label="Gas")
    screen = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'data-zone="%s"' % a["id"] in screen and ">Gas</text>" in screen


def test_a_map_holds_forty_templates_at_most(client):
    g, p, _ = setup(client)
    for i in range(40):
        assert place(client, g, g["gm_token"], shape="circle", x=1, y=1).status_code == 200
    r = place(client, g, p["player_token"], shape="circle", x=1, y=1)
    assert r.status_code == 422 and "40 templates at most" in r.json["error"]
