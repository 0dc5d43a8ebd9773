"""The GM's map editor: every edit is a command, checked, live on every screen and undoable."""

from __future__ import annotations


import pytest

from tests.helpers import bearer, command as run, connect, join, new_game


def board(client, game):
    return client.get(f"/api/games/{game['id']}/state", headers=bearer(game["gm_token"])).json["map"]


def refused(client, game, payload, token=None) -> str:
    r = run(client, game, payload, token)
    assert r.status_code == 422, (payload, r.status_code, r.get_data(as_text=True))
    return r.get_data(as_text=True)


@pytest.fixture
def game(client):
    g = new_game(client, "plain_grid", {"width": 10, "height": 8}, name="Edit")
    p = join(client, g, "Bo")
    t = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Scout", "x": 2, "y": 2},
                    headers=bearer(g["gm_token"])).json
    return g | {"player_token": p["player_token"], "token_id": t["id"]}


@pytest.fixture
def zones(client):
    g = new_game(client, "plain_grid", {"zones": [
        {"id": "yard", "name": "Yard", "adjacent": ["hall"]}, {"id": "hall", "name": "Hall"}]}, name="Zones")
    return g


def test_walls_are_drawn_and_erased(client, game):
    assert run(client, game, {"type": "add_wall", "a": [3, 0], "b": [3, 5]}).status_code == 200
    walls = board(client, game)["walls"]
    assert [(w["a"], w["b"]) for w in walls] == [([3, 0], [3, 5])]
    # free placement keeps points to an eighth of a square
    assert run(client, game, {"type": "add_wall", "a": [0.3, 0.51], "b": [1.99, 2]}).status_code == 200
    assert board(client, game)["walls"][1]["a"] == [0.25, 0.5]
    assert run(client, game, {"type": "remove_wall", "wall_id": walls[0]["id"]}).status_code == 200
    assert len(board(client, game)["walls"]) == 1


def test_a_wall_blocks_moves_at_once(client, game):
    run(client, game, {"type": "add_wall", "a": [4, 0], "b": [4, 8]})
    r = run(client, game, {"type": "move_token", "token_id": game["token_id"], "x": 6, "y": 2})
    assert r.status_code == 422 and "no way through" in r.get_data(as_text=True)


@pytest.mark.parametrize("payload, reason", [
    ({"type": "add_wall", "a": [3, 0], "b": [3, 0]}, "two different end points"),
    ({"type": "add_wall", "a": [3, 0], "b": [11, 0]}, "off the map"),
    ({"type": "add_wall", "a": [-0.5, 0], "b": [1, 0]}, "off the map"),
    ({"type": "add_wall", "a": [3, 0]}, "b"),
    ({"type": "add_wall", "a": [3, "x"], "b": [1, 0]}, "a"),
    ({"type": "add_door", "a": [1, 1], "b": [1, 1]}, "two different end points"),
    ({"type": "remove_wall", "wall_id": "wall-99"}, "no wall"),
    ({"type": "remove_door", "door_id": "door-99"}, "no door"),
    ({"type": "block_cell", "x": 10, "y": 0}, "off the map"),
    ({"type": "block_cell", "x": 2, "y": 2}, "a token stands on (2, 2)"),
    ({"type": "unblock_cell", "x": 5, "y": 5}, "not blocked"),
    ({"type": "set_terrain", "x": 1, "y": 1, "cost": 0}, "cost"),
    ({"type": "set_terrain", "x": 1, "y": 1, "cost": 1}, "has that terrain already"),
    ({"type": "add_cover", "x": 1, "y": 1, "material": "cheese"}, "unknown cover material"),
    ({"type": "add_cover", "x": 99, "y": 1, "material": "stone"}, "off the map"),
    ({"type": "remove_cover", "cover_id": "cover-7"}, "no cover piece"),
    ({"type": "resize_map", "width": 2, "height": 8}, "1 token would be off a 2 x 8 map"),
    ({"type": "resize_map", "width": 10, "height": 8}, "already"),
    ({"type": "resize_map", "width": 0, "height": 8}, "width"),
    ({"type": "resize_map", "width": 301, "height": 8}, "width"),
    ({"type": "add_zone", "name": "Yard", "box": [0, 0, 3, 3]}, "square-grid map"),
    ({"type": "add_wall", "a": [1, 0], "b": [1, 2], "map_id": "other"}, "no map 'other'"),
    ({"type": "add_wall", "a": [1, 0], "b": [1, 2], "colour": "red"}, "colour"),
])
def test_bad_edits_are_refused_with_the_reason_and_change_nothing(client, game, hub, payload, reason):
    seq = hub.game(game["id"]).seq
    assert reason in refused(client, game, payload)
    assert hub.game(game["id"]).seq == seq


def test_only_the_gm_edits(client, game):
    for token in (game["player_token"], game["screen_token"]):
        text = refused(client, game, {"type": "add_wall", "a": [1, 0], "b": [1, 2]}, token)
        assert "GM" in text or "table screen" in text


def test_a_wall_on_top_of_another_is_refused_and_the_map_holds_40000_segments(client, game, hub):
    run(client, game, {"type": "add_wall", "a": [1, 0], "b": [1, 2]})
    assert "already" in refused(client, game, {"type": "add_wall", "a": [1, 2], "b": [1, 0]})
    g = hub.game(game["id"])
    for i in range(39_999):
        g.board.add_wall((0.125 * (i % 70), 0), (0.125 * (i % 70), 1 + (i // 70) * 0.001))
    assert "40,000" in refused(client, game, {"type": "add_wall", "a": [5, 5], "b": [6, 5]})


def test_doors_blocking_terrain_and_cover(client, game):
    assert run(client, game, {"type": "add_door", "a": [5, 2], "b": [5, 3], "closed": False}).status_code == 200
    assert run(client, game, {"type": "block_cell", "x": 7, "y": 7}).status_code == 200
    assert run(client, game, {"type": "set_terrain", "x": 1, "y": 6, "cost": 2}).status_code == 200
    assert run(client, game, {"type": "add_cover", "x": 4, "y": 4, "material": "stone"}).status_code == 200
    assert "already" in refused(client, game, {"type": "add_cover", "x": 4, "y": 4, "material": "wood"})
    assert "blocked already" in refused(client, game, {"type": "block_cell", "x": 7, "y": 7})
    m = board(client, game)
    assert m["doors"][0]["closed"] is False and m["blocked"] == [[7, 7]] and m["terrain"] == [[1, 6, 2]]
    assert m["cover"][0]["cell"] == [4, 4] and m["cover"][0]["material"] == "stone"
    assert run(client, game, {"type": "remove_door", "door_id": m["doors"][0]["id"]}).status_code == 200
    assert run(client, game, {"type": "unblock_cell", "x": 7, "y": 7}).status_code == 200
    assert run(client, game, {"type": "set_terrain", "x": 1, "y": 6, "cost": 1}).status_code == 200
    assert run(client, game, {"type": "remove_cover", "cover_id": m["cover"][0]["id"]}).status_code == 200
    m = board(client, game)
    assert not m["doors"] and not m["blocked"] and not m["terrain"] and not m["cover"]


def test_cover_takes_the_systems_material_table(client):
    g = client.post("/api/games", json={"name": "Ads", "system": "tesseris_ads"}).json
    assert run(client, g, {"type": "add_cover", "x": 1, "y": 1, "material": "sandbag"}).status_code == 200
    assert "sandbag" in refused(client, g, {"type": "add_cover", "x": 2, "y": 1, "material": "cheese"})
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).text
    assert '<option value="wood_reinforced">' in page


def test_resize_cuts_what_lies_off_the_new_edge(client, game):
    run(client, game, {"type": "add_wall", "a": [8, 0], "b": [8, 4]})
    run(client, game, {"type": "add_wall", "a": [1, 0], "b": [1, 4]})
    run(client, game, {"type": "block_cell", "x": 9, "y": 7})
    assert run(client, game, {"type": "resize_map", "width": 6, "height": 6}).status_code == 200
    m = board(client, game)
    assert (m["width"], m["height"]) == (6, 6) and len(m["walls"]) == 1 and m["blocked"] == []
    assert run(client, game, {"type": "resize_map", "width": 30, "height": 20}).status_code == 200
    assert (board(client, game)["width"], board(client, game)["height"]) == (30, 20)


def test_an_edit_is_undone_with_undo(client, game):
    run(client, game, {"type": "add_wall", "a": [3, 0], "b": [3, 5]})
    run(client, game, {"type": "resize_map", "width": 12, "height": 9})
    assert run(client, game, {"type": "undo"}).status_code == 200
    assert (board(client, game)["width"], board(client, game)["height"]) == (10, 8)
    assert run(client, game, {"type": "undo"}).status_code == 200
    assert board(client, game)["walls"] == []
    run(client, game, {"type": "set_fog", "enabled": True})
    run(client, game, {"type": "reveal_cells", "x": 0, "y": 0, "w": 2, "h": 2})
    run(client, game, {"type": "undo"})
    run(client, game, {"type": "undo"})
    s = client.get(f"/api/games/{game['id']}/state", headers=bearer(game["gm_token"])).json
    assert s["fog"] == {"enabled": False}


def test_an_edit_reaches_every_screen_at_once(app, client, game):
    player = connect(app, game["id"], game["player_token"])
    screen = connect(app, game["id"], game["screen_token"])
    player.get_received(), screen.get_received()
    run(client, game, {"type": "add_wall", "a": [3, 0], "b": [3, 5]})
    for c in (player, screen):
        html = [m["args"][0]["html"] for m in c.get_received() if m["name"] == "update"][-1]
        assert 'id="layer-walls"' in html and "M3 0L3 5" in html
    run(client, game, {"type": "resize_map", "width": 14, "height": 9})
    html = [m["args"][0]["html"] for m in player.get_received() if m["name"] == "update"][-1]
    assert '<svg id="map"' in html and 'hx-swap-oob="true"' in html.split('<svg id="map"')[1][:300] and 'viewBox="-0.5 -0.5 15 10"' in html
    # the map's own layers come inside it, not swapped a second time
    assert 'id="layer-tokens"' in html and 'id="layer-tokens" hx-swap-oob' not in html


def test_zones_are_drawn_named_linked_and_removed(client, zones):
    z = zones
    assert "does not fit" in refused(client, z, {"type": "add_zone", "name": "Roof top", "box": [0, 20, 5, 4]})
    s = client.get(f"/api/games/{z['id']}/state", headers=bearer(z["gm_token"])).json
    w, h = s["map"]["width"], s["map"]["height"]
    assert run(client, z, {"type": "resize_map", "width": w, "height": h + 8}).status_code == 200
    assert run(client, z, {"type": "add_zone", "name": "Roof top", "box": [1, h + 1, 5, 4], "cover": "partial"}).status_code == 200
    zs = client.get(f"/api/games/{z['id']}/state", headers=bearer(z["gm_token"])).json["zones"]
    roof = next(x for x in zs if x["name"] == "Roof top")
    assert roof["id"] == "roof-top" and roof["cover"] == "partial" and roof["adjacent"] == []
    assert "overlap" in refused(client, z, {"type": "add_zone", "name": "Shed", "box": [2, h + 2, 3, 3]})
    assert "at least" in refused(client, z, {"type": "add_zone", "name": "Tiny", "box": [8, h + 1, 1, 1]})
    assert run(client, z, {"type": "link_zones", "a": "roof-top", "b": "yard"}).status_code == 200
    assert "linked already" in refused(client, z, {"type": "link_zones", "a": "yard", "b": "roof-top"})
    assert run(client, z, {"type": "update_zone", "zone_id": "roof-top", "name": "Roof", "cover": "good"}).status_code == 200
    zs = {x["id"]: x for x in client.get(f"/api/games/{z['id']}/state", headers=bearer(z["gm_token"])).json["zones"]}
    assert zs["roof-top"]["name"] == "Roof" and zs["roof-top"]["cover"] == "good"
    assert "roof-top" in zs["yard"]["adjacent"] and "yard" in zs["roof-top"]["adjacent"]
    # a token may now walk from the yard to the roof
    t = client.post(f"/api/games/{z['id']}/tokens", json={"name": "Cat", "zone": "yard"}, headers=bearer(z["gm_token"])).json
    assert run(client, z, {"type": "move_token", "token_id": t["id"], "zone": "roof-top"}).status_code == 200
    assert "tokens stand in" in refused(client, z, {"type": "remove_zone", "zone_id": "roof-top"})
    assert run(client, z, {"type": "link_zones", "a": "yard", "b": "roof-top", "linked": False}).status_code == 200
    assert run(client, z, {"type": "remove_zone", "zone_id": "hall"}).status_code == 200
    zs = {x["id"]: x for x in client.get(f"/api/games/{z['id']}/state", headers=bearer(z["gm_token"])).json["zones"]}
    assert "hall" not in zs and zs["yard"]["adjacent"] == []
    assert "no zone" in refused(client, z, {"type": "update_zone", "zone_id": "nowhere", "name": "X"})
    assert "zone map" in refused(client, z, {"type": "add_wall", "a": [0, 0], "b": [1, 0]})
    assert run(client, z, {"type": "undo"}).status_code == 200
    assert "hall" in {x["id"] for x in client.get(f"/api/games/{z['id']}/state", headers=bearer(z["gm_token"])).json["zones"]}


def test_the_gm_page_has_the_editor_and_players_do_not(client, game):
    gm = client.get(f"/games/{game['id']}/gm?key={game['gm_token']}", follow_redirects=True).text
    assert 'id="editor"' in gm and 'data-tool="wall"' in gm and "js/editor.js" in gm and 'id="editor-snap"' in gm
    play = client.get(f"/games/{game['id']}/play?key={game['player_token']}", follow_redirects=True).text
    assert 'id="editor"' not in play and "editor.js" not in play
