"""Zone maps: games of a zone system get one (their own or a small default), tokens stand in zones,
moves follow adjacency (and in a fight the rules' allowance), attacks count zone steps and the
target zone's cover."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, command as send, new_game, state
from webapp import create_app

PORT = {"zones": [
    {"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]},
    {"id": "bay", "name": "Cargo Bay", "adjacent": ["tower"], "cover": "good"},
    {"id": "tower", "name": "Control Tower"},
    {"id": "moon", "name": "Far moon"},
]}


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "3"}).test_client()


def zone_of(client, g, tid):
    return next(t["zone"] for t in state(client, g)["tokens"] if t["id"] == tid)


def port_game(client):
    g = new_game(client, "atomic_tomorrow", PORT, name="Port")
    ids = {}
    for name, zone, kind in [("Nova", "pad", "pc"), ("Raider", "bay", "npc")]:
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "zone": zone, "kind": kind}, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    return g, ids


def test_a_zone_game_gets_a_default_zone_map_or_its_own(client):
    g = client.post("/api/games", json={"name": "Plain", "system": "atomic_tomorrow"}).json
    assert len(state(client, g)["zones"]) >= 3
    g, _ = port_game(client)
    zones = {z["id"]: z for z in state(client, g)["zones"]}
    assert zones["bay"]["adjacent"] == ["pad", "tower"] and zones["bay"]["cover"] == "good"  # links go both ways


@pytest.mark.parametrize("bad, why", [
    ({"zones": []}, "map.zones"),
    ({"zones": [{"id": "a", "name": "A", "adjacent": ["b"]}]}, "map.zones.0.adjacent: no zone 'b'"),
    ({"zones": [{"id": "a", "name": "A"}, {"id": "a", "name": "B"}]}, "two zones have the id 'a'"),
    ({"width": 10, "height": 10}, "map: this game system plays on zone maps"),
])
def test_a_bad_zone_map_is_a_400_naming_what_is_wrong(client, bad, why):
    r = client.post("/api/games", json={"name": "Bad", "system": "atomic_tomorrow", "map": bad})
    assert r.status_code == 400 and why in r.json["error"], r.json


def test_a_grid_system_refuses_a_zone_map(client):
    r = client.post("/api/games", json={"name": "Bad", "system": "savage_worlds", "map": PORT})
    assert r.status_code == 400 and "square grid" in r.json["error"]


def test_tokens_move_between_zones_along_the_links_only(client):
    g, ids = port_game(client)
    assert zone_of(client, g, ids["Nova"]) == "pad"
    assert send(client, g, {"type": "move_token", "token_id": ids["Nova"], "zone": "tower"}).status_code == 200
    assert zone_of(client, g, ids["Nova"]) == "tower"
    assert state(client, g)["log"][-1]["text"] == "Nova moved to Control Tower"
    r = send(client, g, {"type": "move_token", "token_id": ids["Nova"], "zone": "moon"})
    assert r.status_code == 422 and "no way from Control Tower to Far moon" in r.json["error"]
    r = send(client, g, {"type": "move_token", "token_id": ids["Nova"], "x": 0, "y": 0})
    assert r.status_code == 422 and "not in a zone" in r.json["error"]


def test_in_a_fight_a_move_is_one_zone_step_as_the_rules_say(client):
    g, ids = port_game(client)
    send(client, g, {"type": "start_combat", "token_ids": [ids["Nova"], ids["Raider"]]})
    current = state(client, g)["combat"]["current"]
    r = send(client, g, {"type": "move_token", "token_id": current, "zone": "tower" if current == ids["Nova"] else "pad"})
    if current == ids["Nova"]:  # pad -> tower is two steps
        assert r.status_code == 422, r.json
        assert send(client, g, {"type": "move_token", "token_id": current, "zone": "bay"}).status_code == 200
    else:  # bay -> pad is one step
        assert r.status_code == 200, r.json
    reach = send(client, g, {"type": "reach", "token_id": current}).json
    assert reach["left"] == 0


def test_an_attack_across_zones_counts_steps_and_the_target_zones_cover(client):
    g, ids = port_game(client)
    r = send(client, g, {"type": "preview_attack", "attacker": ids["Nova"], "target": ids["Raider"], "weapon": "Blast pistol"})
    if r.status_code == 422:  # the sample character's weapon list: use the first that reaches
        pytest.fail(r.json)
    view = r.json["preview"]
    assert view["distance"] == 1 and view["zones"] == ["pad", "bay"] and view["cover"]["level"] == "good"
    assert abs(sum(o["p"] for o in view["odds"]["outcomes"]) - 1) < 1e-9
    r = send(client, g, {"type": "attack", "attacker": ids["Nova"], "target": ids["Raider"], "weapon": "Blast pistol"})
    assert r.status_code == 200, r.json
    assert state(client, g)["log"][-1]["detail"]["attack"]["summary"]


def test_the_atomic_tomorrow_demo_is_ready_on_the_first_start(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "d"), "TESTING": True, "SECRET_KEY": "t"})
    hub = app.extensions["tacmap"]
    demo = next(r for r in hub.store.games() if r.system == "atomic_tomorrow")
    game = hub.game(demo.id)
    assert game.zones and len(game.tokens) == 4 and len(game.characters) == 4
    page = app.test_client().get(f"/games/{demo.id}/gm?key={demo.gm_key}", follow_redirects=True).get_data(as_text=True)
    assert 'data-board="zones"' in page and "Landing Pad" in page
