"""Attacks through the JSON API: the preview stores nothing and shows the odds; the attack rolls
on the server, writes the rule system's result to the sheets and the log; the table's refusals."""

from __future__ import annotations

import re

import pytest

import rules
from tests.helpers import bearer, command as send, join, new_game, state
from webapp import create_app

WALLED = {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 8]}]}


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "5"}).test_client()


def setup(client, system="savage_worlds"):
    g = new_game(client, system, WALLED, name="Duel")
    p = join(client, g, "Mira")
    ids = {}
    for name, (x, y), owner in [("Hero", (2, 2), p["player_id"]), ("Bandit", (3, 2), None), ("Sniper", (9, 2), None)]:
        body = {"name": name, "x": x, "y": y, **({"owner": owner, "kind": "pc"} if owner else {})}
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    return g, p, ids


def test_a_new_game_takes_its_map(client):
    g, _, _ = setup(client)
    assert state(client, g)["map"]["walls"][0]["a"] == [6, 0]


@pytest.mark.parametrize("bad, why", [({"width": 0, "height": 5}, "map.width"),
                                       ({"width": 5, "height": 5, "walls": [{"a": [1], "b": [2, 2]}]}, "map.walls.0.a"),
                                       ({"width": 5, "height": 5, "blocked": [[9, 9]]}, "map.blocked.0"),
                                       ({"width": 5, "height": 5, "doors": [{"a": [1, 1], "b": [1, 2], "closed": "yes"}]}, "map.doors.0.closed"),
                                       ("big", "map")])
def test_a_bad_map_is_a_400_naming_what_is_wrong(client, bad, why):
    r = client.post("/api/games", json={"name": "Bad", "system": "plain_grid", "map": bad})
    assert r.status_code == 400 and r.json["error"].startswith(why), r.json
    assert client.get("/").status_code == 200


def test_a_preview_answers_line_cover_range_and_odds_and_stores_nothing(client):
    g, p, ids = setup(client)
    before = state(client, g)
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"],
                                            "weapon": "Colt Peacemaker"}, p["player_token"])
    assert r.status_code == 200, r.json
    view = r.json["preview"]
    assert view["line"]["clear"] is True and view["distance"] == 1 and view["cover"]["fraction"] == 0
    assert view["band"]  # the system's range band for a pistol at 1"
    assert 0 < view["odds"]["hit"] < 1
    assert "Hero" in r.json["html"] and "Bandit" in r.json["html"]
    assert state(client, g) == before


def test_no_line_of_fire_through_a_wall_unless_the_gm_rules_it(client):
    g, p, ids = setup(client)
    body = {"type": "attack", "attacker": ids["Hero"], "target": ids["Sniper"], "weapon": "Colt Peacemaker"}
    before = state(client, g)
    r = send(client, g, body, p["player_token"])
    assert r.status_code == 422 and "no line of fire" in r.json["error"]
    assert state(client, g) == before
    assert "GM" in send(client, g, {**body, "force": True}, p["player_token"]).json["error"]
    r = send(client, g, {**body, "force": True}, g["gm_token"])
    assert r.status_code == 200, r.json
    assert state(client, g)["log"][-1]["text"].endswith("(GM ruling)")


def test_players_attack_with_their_own_token_on_its_turn(client):
    g, p, ids = setup(client)
    player = p["player_token"]
    r = send(client, g, {"type": "attack", "attacker": ids["Bandit"], "target": ids["Hero"]}, player)
    assert r.status_code == 422 and "not yours" in r.json["error"]
    send(client, g, {"type": "start_combat", "token_ids": [ids["Bandit"], ids["Hero"]]}, g["gm_token"])
    current = state(client, g)["combat"]["current"]
    if current == ids["Hero"]:
        send(client, g, {"type": "next_turn"}, g["gm_token"])
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"], "weapon": "Long sword"}, player)
    assert r.status_code == 422 and "not Hero's turn" in r.json["error"]


def test_an_unknown_weapon_or_a_hidden_target_is_refused(client):
    g, p, ids = setup(client)
    r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"], "weapon": "Bazooka"}, p["player_token"])
    assert r.status_code == 422 and r.json["error"] == "Hero has no weapon 'Bazooka'"
    send(client, g, {"type": "update_token", "token_id": ids["Bandit"], "hidden": True}, g["gm_token"])
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"]}, p["player_token"])
    assert r.status_code == 422 and "Bandit" not in r.json["error"]


def test_an_attack_rolls_on_the_server_and_writes_the_result_to_the_log_and_the_sheets(client):
    g, p, ids = setup(client)
    system = rules.get("savage_worlds")
    for _ in range(30):  # seeded dice: attack until one hits
        r = send(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"],
                                            "weapon": "Long sword", "force": False}, g["gm_token"])
        assert r.status_code == 200, r.json
        entry = state(client, g)["log"][-1]
        if entry["detail"]["attack"]["hit"]:
            break
    else:
        pytest.fail("thirty sword swings and no hit")
    result = entry["detail"]["attack"]
    assert result["rolls"] and all("text" in roll for roll in result["rolls"])
    bandit = next(t for t in state(client, g)["tokens"] if t["id"] == ids["Bandit"])
    if any(e["target"] == ids["Bandit"] for e in result["effects"]):
        assert bandit["sheet"] != system.default_sheet()  # the system's apply() wrote the wound or Shaken


def test_the_table_screen_cannot_attack(client):
    g, _, ids = setup(client)
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Hero"], "target": ids["Bandit"]}, g["screen_token"])
    assert r.status_code == 422 and "screen" in r.json["error"]


def test_the_attack_card_starts_on_the_acting_token_and_a_foe(client):
    g, p, ids = setup(client)
    send(client, g, {"type": "start_combat", "token_ids": [ids["Bandit"], ids["Hero"], ids["Sniper"]]}, g["gm_token"])
    current = state(client, g)["combat"]["current"]
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    card = page[page.index('id="attack-form"'):page.index('name="weapon"')]
    attacker = card[card.index('name="attacker"'):card.index('name="target"')]
    target = card[card.index('name="target"'):]
    assert re.search(rf'<option value="{current}"[^>]* selected>', attacker)
    acting_is_hero = current == ids["Hero"]
    foe = ids["Bandit"] if acting_is_hero else ids["Hero"]  # the nearest token of the other side
    assert re.search(rf'<option value="{foe}"[^>]* selected>', target)
