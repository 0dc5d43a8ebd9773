"""Several maps per game, pictures, and Universal VTT import over HTTP and the command line."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from tests.helpers import bearer, command, state
from webapp import cli
from webapp.game.board import maps
from webapp.game.core.model import GM, Game

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "dungeondraft-sample.dd2vtt"


@pytest.fixture
def g(client):
    r = client.post("/api/games", json={"name": "Maps", "system": "plain_grid"})
    assert r.status_code == 201
    body = r.json
    join = client.post(f"/api/games/{body['id']}/players", json={"join_code": body["join_code"], "name": "Mira"})
    body["player_token"], body["player_id"] = join.json["player_token"], join.json["player_id"]
    return body


def map_named(client, g, name):
    return next(m for m in state(client, g)["maps"] if m["name"] == name)


def add_token(client, g, name, x, y, **extra):
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, **extra},
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 201, r.json
    return r.json["id"]


def token_named(st, name):
    return next((t for t in st["tokens"] if t["name"] == name), None)


def upload(client, g, data: bytes, filename="cave.dd2vtt", token=None, url=None):
    return client.post(url or f"/api/games/{g['id']}/maps", data={"file": (io.BytesIO(data), filename)},
                       headers=bearer(token or g["gm_token"]), content_type="multipart/form-data")


def picture_files(app, g):
    folder = Path(app.config["DATA_DIR"]) / "pictures" / g["id"]
    return sorted(p.name for p in folder.iterdir()) if folder.exists() else []


def png(w=40, h=20, fmt="PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), (10, 120, 60)).save(out, fmt)
    return out.getvalue()


# --- several maps, one active -------------------------------------------------


def test_a_new_game_has_one_active_map(client, g):
    st = state(client, g)
    assert [(m["name"], m["active"], m["width"], m["height"]) for m in st["maps"]] == [("Main map", True, 24, 16)]
    assert st["active_map"] == st["maps"][0]["id"]


def test_add_rename_and_remove_maps(client, g):
    assert command(client, g, {"type": "add_map", "name": "Cellar", "width": 12, "height": 10}).status_code == 200
    cellar = map_named(client, g, "Cellar")
    assert (cellar["width"], cellar["height"], cellar["active"], cellar["fog"]) == (12, 10, False, False)
    assert command(client, g, {"type": "rename_map", "map_id": cellar["id"], "name": "Wine cellar"}).status_code == 200
    assert map_named(client, g, "Wine cellar")["id"] == cellar["id"]
    r = command(client, g, {"type": "add_map", "name": "wine CELLAR"})
    assert r.status_code == 422 and "already called" in r.json["error"]
    active = state(client, g)["active_map"]
    r = command(client, g, {"type": "remove_map", "map_id": active})
    assert r.status_code == 422 and "show another map first" in r.json["error"]
    assert command(client, g, {"type": "remove_map", "map_id": cellar["id"]}).status_code == 200
    assert [m["name"] for m in state(client, g)["maps"]] == ["Main map"]
    r = command(client, g, {"type": "activate_map", "map_id": "map-nope"})
    assert r.status_code == 422 and "no map 'map-nope'" in r.json["error"]


@pytest.mark.parametrize("payload", [
    {"type": "add_map", "name": "X", "width": 0, "height": 5},
    {"type": "add_map", "name": "X", "width": 301, "height": 5},
    {"type": "add_map", "name": "", "width": 5, "height": 5},
    {"type": "add_map", "name": "X", "width": 5, "height": 5, "extra": 1},
])
def test_bad_map_commands_are_refused_and_change_nothing(client, g, payload):
    before = state(client, g)["seq"]
    assert command(client, g, payload).status_code == 422
    assert state(client, g)["seq"] == before


def test_only_the_gm_changes_maps(client, g):
    for payload in ({"type": "add_map", "name": "Mine"}, {"type": "activate_map", "map_id": maps.FIRST_MAP},
                    {"type": "view_map", "map_id": maps.FIRST_MAP}):
        for token in (g["player_token"], g["screen_token"]):
            assert command(client, g, payload, token).status_code == 422
    r = upload(client, g, SAMPLE.read_bytes(), token=g["player_token"])
    assert r.status_code == 403 and "only the gm" in r.json["error"].lower()


def test_switching_maps_keeps_each_maps_tokens_and_brings_the_party(client, g):
    hero = add_token(client, g, "Hero", 3, 3, kind="pc", owner=g["player_id"])
    goblin = add_token(client, g, "Goblin", 5, 5)
    command(client, g, {"type": "add_map", "name": "Cave", "width": 10, "height": 8})
    cave = map_named(client, g, "Cave")["id"]
    assert command(client, g, {"type": "activate_map", "map_id": cave}).status_code == 200
    st = state(client, g, g["player_token"])
    assert st["active_map"] == cave and (st["map"]["width"], st["map"]["height"]) == (10, 8)
    assert [t["name"] for t in st["tokens"]] == ["Hero"]  # the goblin stays on the main map
    assert (token_named(st, "Hero")["x"], token_named(st, "Hero")["y"]) == (3, 3)
    rat = add_token(client, g, "Rat", 1, 1)
    command(client, g, {"type": "activate_map", "map_id": maps.FIRST_MAP})
    st = state(client, g)
    assert sorted(t["name"] for t in st["tokens"]) == ["Goblin", "Hero"]
    assert {t["id"] for t in st["tokens"]} == {hero, goblin}
    command(client, g, {"type": "activate_map", "map_id": cave})
    assert sorted(t["name"] for t in state(client, g)["tokens"]) == ["Hero", "Rat"]
    assert rat in {t["id"] for t in state(client, g)["tokens"]}


def test_the_party_lands_on_the_nearest_free_square(client, g):
    add_token(client, g, "Hero", 20, 12, kind="pc")
    command(client, g, {"type": "add_map", "name": "Closet", "width": 4, "height": 3})
    closet = map_named(client, g, "Closet")["id"]
    command(client, g, {"type": "activate_map", "map_id": closet})
    hero = token_named(state(client, g), "Hero")
    assert (hero["x"], hero["y"]) == (3, 2)  # off the small map: its nearest square


def test_no_map_switch_during_a_fight(client, g):
    hero = add_token(client, g, "Hero", 3, 3, kind="pc")
    foe = add_token(client, g, "Foe", 6, 3)
    assert command(client, g, {"type": "start_combat", "token_ids": [hero, foe]}).status_code == 200
    command(client, g, {"type": "add_map", "name": "Cave"})
    r = command(client, g, {"type": "activate_map", "map_id": map_named(client, g, "Cave")["id"]})
    assert r.status_code == 422 and "end the fight" in r.json["error"]


def test_the_gm_prepares_a_map_players_do_not_see(client, g):
    command(client, g, {"type": "add_map", "name": "Secret lair", "width": 9, "height": 9})
    lair = map_named(client, g, "Secret lair")["id"]
    assert command(client, g, {"type": "view_map", "map_id": lair}).status_code == 200
    assert state(client, g)["gm_view"] == lair
    player = state(client, g, g["player_token"])
    assert "Secret lair" not in json.dumps(player) and "maps" not in player and lair not in json.dumps(player)
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    page = client.get(f"/games/{g['id']}/gm").get_data(as_text=True)
    assert f'data-map-id="{lair}"' in page and 'viewBox="-0.5 -0.5 10 10"' in page
    assert "You are preparing <b>Secret lair</b>" in page
    client.get(f"/games/{g['id']}/screen?key={g['screen_token']}")
    screen = client.get(f"/games/{g['id']}/screen").get_data(as_text=True)
    assert 'viewBox="-0.5 -0.5 25 17"' in screen and "Secret lair" not in screen
    # showing it to everyone brings the GM's screen back to the active map
    command(client, g, {"type": "activate_map", "map_id": lair})
    assert state(client, g)["gm_view"] is None


def test_map_board_resolves_the_active_or_a_named_map(hub, client, g):
    command(client, g, {"type": "add_map", "name": "Cave", "width": 7, "height": 5})
    game = hub.game(g["id"])
    cave = map_named(client, g, "Cave")["id"]
    assert maps.map_board(game, None) is game.board
    assert maps.map_board(game, game.active_map) is game.board
    assert maps.map_board(game, cave).width == 7
    with pytest.raises(maps.Rejected, match="no map"):
        maps.map_board(game, "map-unknown")


def test_a_switch_reaches_every_screen_live(app, client, g):
    socketio = app.extensions["tacmap_socketio"]
    screen = socketio.test_client(app, auth={"game": g["id"], "token": g["screen_token"]})
    player = socketio.test_client(app, auth={"game": g["id"], "token": g["player_token"]})
    command(client, g, {"type": "add_map", "name": "Cave", "width": 10, "height": 8})
    screen.get_received(), player.get_received()
    command(client, g, {"type": "activate_map", "map_id": map_named(client, g, "Cave")["id"]})
    for who in (screen, player):
        html = "".join(m["args"][0]["html"] for m in who.get_received() if m["name"] == "update")
        assert '<svg id="map"' in html and 'hx-swap-oob="true"' in html and 'viewBox="-0.5 -0.5 11 9"' in html


def test_state_survives_a_snapshot_round_trip(hub, client, g):
    add_token(client, g, "Hero", 3, 3, kind="pc")
    add_token(client, g, "Goblin", 5, 5)
    upload(client, g, SAMPLE.read_bytes())
    game = hub.game(g["id"])
    again = Game.from_dict(json.loads(json.dumps(game.to_dict())))
    assert again.to_dict() == game.to_dict()
    assert maps.map_board(again, maps.FIRST_MAP).width == 24
    assert [t.name for t in again.maps[maps.FIRST_MAP].tokens.values()] == ["Goblin"]


# --- Universal VTT import over HTTP -------------------------------------------


def test_import_the_sample_over_the_api(app, client, g):
    r = upload(client, g, SAMPLE.read_bytes())
    assert r.status_code == 201, r.json
    assert r.json["walls"] == 241 and r.json["doors"] == 3 and r.json["name"] == "cave"
    st = state(client, g, g["player_token"])
    assert st["active_map"] == r.json["map_id"]
    assert (st["map"]["width"], st["map"]["height"]) == (20, 20)
    # an imported map starts with fog on: a player with no token there has seen none of its walls yet
    assert st["fog"]["enabled"] is True and st["map"]["walls"] == [] and st["map"]["doors"] == []
    gm = state(client, g, g["gm_token"])
    assert len(gm["map"]["walls"]) == 241 and len(gm["map"]["doors"]) == 3
    assert st["picture"]["content_type"] == "image/png"
    assert map_named(client, g, "cave")["fog"] is True and map_named(client, g, "cave")["lights"] == 1
    assert picture_files(app, g) == [st["picture"]["name"]]


def test_after_import_the_rules_use_the_imported_walls(client, g):
    from rules import los
    from rules.board import Board

    add_token(client, g, "Hero", 8, 4, kind="pc")  # lands at (8, 4) on the cave map, north of a wall
    upload(client, g, SAMPLE.read_bytes())
    hero = token_named(state(client, g), "Hero")
    assert (hero["x"], hero["y"]) == (8, 4)
    r = command(client, g, {"type": "move_token", "token_id": hero["id"], "x": 8, "y": 6})
    assert r.status_code == 422 and "no way through" in r.json["error"]
    assert token_named(state(client, g), "Hero")["y"] == 4
    door = next(d["id"] for d in state(client, g)["map"]["doors"] if d["a"] == [11, 6])
    board = Board.from_dict(state(client, g)["map"])
    assert not los.line_of_fire(board, (11, 5), (11, 6)).clear
    assert command(client, g, {"type": "set_door", "door_id": door, "closed": False}).status_code == 200
    board = Board.from_dict(state(client, g)["map"])
    assert los.line_of_fire(board, (11, 5), (11, 6)).clear


@pytest.mark.parametrize("data, message", [
    (b"hello", "not valid JSON"),
    (b'{"format": 0.3}', "no resolution"),
    (b"", "empty"),
])
def test_bad_files_are_refused_and_nothing_half_imported(app, hub, client, g, data, message):
    before = hub.store.last_seq(g["id"])
    r = upload(client, g, data)
    assert r.status_code == 422 and message in r.json["error"]
    assert hub.store.last_seq(g["id"]) == before
    assert picture_files(app, g) == []


def test_a_truncated_sample_leaves_nothing(app, hub, client, g):
    raw = SAMPLE.read_bytes()
    before = hub.store.last_seq(g["id"])
    r = upload(client, g, raw[: len(raw) * 2 // 3])
    assert r.status_code == 422 and "truncated" in r.json["error"]
    assert hub.store.last_seq(g["id"]) == before and picture_files(app, g) == []


def test_a_refused_commit_removes_the_picture_it_wrote(app, hub, client, g):
    """The picture is written before the events; if the table refuses them, the file goes again."""
    hero = add_token(client, g, "Hero", 3, 3, kind="pc")
    foe = add_token(client, g, "Foe", 6, 3)
    command(client, g, {"type": "start_combat", "token_ids": [hero, foe]})
    before = hub.store.last_seq(g["id"])
    r = upload(client, g, SAMPLE.read_bytes())
    assert r.status_code == 422 and "end the fight" in r.json["error"]
    assert hub.store.last_seq(g["id"]) == before and picture_files(app, g) == []


def test_an_image_that_is_not_a_picture_is_refused(app, client, g):
    d = json.loads(SAMPLE.read_bytes())
    d["image"] = base64.b64encode(b"<svg onload='alert(1)'/>").decode()
    r = upload(client, g, json.dumps(d).encode())
    assert r.status_code == 422 and "image: not a PNG, JPEG or WebP picture" in r.json["error"]
    assert picture_files(app, g) == []


def test_an_upload_without_a_file_or_too_big_is_refused(client, g):
    r = client.post(f"/api/games/{g['id']}/maps", data={}, headers=bearer(g["gm_token"]),
                    content_type="multipart/form-data")
    assert r.status_code == 400 and "'file'" in r.json["error"]
    r = upload(client, g, b" " * (33 * 1024 * 1024))
    assert r.status_code == 413 and "32 MB" in r.json["error"]


def test_the_gm_page_imports_with_its_session(client, g):
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    r = client.post(f"/games/{g['id']}/maps", data={"file": (io.BytesIO(SAMPLE.read_bytes()), "keep.uvtt")},
                    content_type="multipart/form-data")
    assert r.status_code == 201 and r.json["walls"] == 241
    page = client.get(f"/games/{g['id']}/gm").get_data(as_text=True)
    assert 'class="map-picture"' in page and "everyone sees this" in page and ">keep<" in page


def test_the_page_upload_needs_the_gm(client, g):
    r = client.post(f"/games/{g['id']}/maps", data={"file": (io.BytesIO(SAMPLE.read_bytes()), "x.dd2vtt")},
                    content_type="multipart/form-data")
    assert r.status_code == 403 and "only the gm" in r.json["error"].lower()


# --- pictures -----------------------------------------------------------------


def test_a_picture_for_a_map_is_fitted_to_its_width_and_can_be_aligned(client, g):
    r = client.post(f"/api/games/{g['id']}/maps/active/picture",
                    data={"file": (io.BytesIO(png(480, 320)), "tricky-name.html")},
                    headers=bearer(g["gm_token"]), content_type="multipart/form-data")
    assert r.status_code == 200, r.json
    assert r.json["picture"]["content_type"] == "image/png" and r.json["align"]["cell_px"] == 20
    assert command(client, g, {"type": "align_picture", "cell_px": 40, "offset_x": 20, "offset_y": 0}).status_code == 200
    client.get(f"/games/{g['id']}/screen?key={g['screen_token']}")
    page = client.get(f"/games/{g['id']}/screen").get_data(as_text=True)
    assert 'x="-0.5" y="0.0"' in page and 'width="12.0" height="8.0"' in page
    r = command(client, g, {"type": "align_picture", "cells_across": 24})
    assert r.status_code == 200 and map_named(client, g, "Main map")["align"]["cell_px"] == 20
    assert command(client, g, {"type": "remove_picture"}).status_code == 200
    assert state(client, g)["picture"] is None


@pytest.mark.parametrize("data, message", [
    (b"GIF89a" + b"\x00" * 50, "not a PNG, JPEG or WebP"),
    (png()[:40], "damaged or truncated"),
    (b"<html></html>", "not a PNG, JPEG or WebP"),
])
def test_pictures_are_told_by_their_bytes(app, client, g, data, message):
    r = client.post(f"/api/games/{g['id']}/maps/active/picture", data={"file": (io.BytesIO(data), "map.png")},
                    headers=bearer(g["gm_token"]), content_type="multipart/form-data")
    assert r.status_code == 422 and message in r.json["error"]
    assert picture_files(app, g) == []


def test_pictures_are_served_with_their_type_to_the_games_seats_only(client, g):
    upload(client, g, SAMPLE.read_bytes())
    url = state(client, g)["picture"]["url"]
    for token in (g["gm_token"], g["player_token"], g["screen_token"]):
        r = client.get(url, headers=bearer(token))
        assert r.status_code == 200 and r.mimetype == "image/png" and r.data.startswith(b"\x89PNG")
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        assert r.headers["Cross-Origin-Resource-Policy"] == "same-origin"
    assert client.get(url).status_code == 403  # no key
    other = client.post("/api/games", json={"name": "Other"}).json
    assert client.get(url, headers=bearer(other["gm_token"])).status_code == 403
    assert client.get(url.replace(g["id"], other["id"]), headers=bearer(other["gm_token"])).status_code == 404
    bad = url.rsplit("/", 1)[0] + "/..%2F..%2Ftacmap.sqlite3"
    assert client.get(bad, headers=bearer(g["gm_token"])).status_code == 404
    # the page's session remembers the key: the browser's <image> request gets it
    client.get(f"/games/{g['id']}/screen?key={g['screen_token']}")
    assert client.get(url).status_code == 200


def test_a_prepared_maps_picture_is_the_gms_alone(client, g):
    command(client, g, {"type": "add_map", "name": "Lair"})
    lair = map_named(client, g, "Lair")["id"]
    r = client.post(f"/api/games/{g['id']}/maps/{lair}/picture", data={"file": (io.BytesIO(png()), "a.png")},
                    headers=bearer(g["gm_token"]), content_type="multipart/form-data")
    url = f"/games/{g['id']}/pictures/{r.json['picture']['name']}"
    assert client.get(url, headers=bearer(g["gm_token"])).status_code == 200
    assert client.get(url, headers=bearer(g["player_token"])).status_code == 404
    command(client, g, {"type": "activate_map", "map_id": lair})
    assert client.get(url, headers=bearer(g["player_token"])).status_code == 200


# --- the command line ---------------------------------------------------------


def test_tacmap_import_map_appends_to_the_log(app, hub, g, capsys):
    rc = cli.main(["import-map", g["id"], str(SAMPLE), "--data-dir", app.config["DATA_DIR"], "--name", "Crypt"])
    assert rc == 0
    assert "241 wall segments, 3 doors" in capsys.readouterr().out
    game = hub.games.load(g["id"])  # the running app's cache does not know yet: the log does
    assert game.maps[game.active_map].name == "Crypt" and len(game.board.walls) == 241
    # the running app's next write meets the newer log, reloads and goes on from there
    hub.execute(g["id"], GM, {"type": "add_map", "name": "After"})
    assert [m.name for m in hub.game(g["id"]).maps.values()] == ["Main map", "Crypt", "After"]


def test_tacmap_import_map_refuses_a_broken_file(app, hub, g, tmp_path, capsys):
    bad = tmp_path / "broken.uvtt"
    bad.write_bytes(SAMPLE.read_bytes()[:5000])
    before = hub.store.last_seq(g["id"])
    assert cli.main(["import-map", g["id"], str(bad), "--data-dir", app.config["DATA_DIR"]]) == 1
    assert "truncated" in capsys.readouterr().err
    assert hub.store.last_seq(g["id"]) == before
    assert cli.main(["import-map", "nosuchgame", str(SAMPLE), "--data-dir", app.config["DATA_DIR"]]) == 2


def test_preparing_a_map_sends_the_players_nothing_of_it(app, client, g):
    socketio = app.extensions["tacmap_socketio"]
    player = socketio.test_client(app, auth={"game": g["id"], "token": g["player_token"]})
    command(client, g, {"type": "add_map", "name": "Secret lair", "width": 9, "height": 9})
    lair = map_named(client, g, "Secret lair")["id"]
    add_token(client, g, "Ambusher", 2, 2)
    command(client, g, {"type": "view_map", "map_id": lair})
    traffic = json.dumps(player.get_received())
    assert "Secret lair" not in traffic and lair not in traffic


def test_a_zone_game_gets_zone_maps(client):
    g = client.post("/api/games", json={"name": "Rockets", "system": "atomic_tomorrow"}).json
    r = client.post(f"/api/games/{g['id']}/commands", json={"type": "add_map", "name": "Hangar"},
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 200
    hangar = next(m for m in state(client, g)["maps"] if m["name"] == "Hangar")
    assert hangar["zones"] is True
    client.post(f"/api/games/{g['id']}/commands", json={"type": "activate_map", "map_id": hangar["id"]},
                headers=bearer(g["gm_token"]))
    st = state(client, g)
    assert [z["id"] for z in st["zones"]] == ["west", "centre", "ridge", "east"]
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    assert 'data-board="zones"' in client.get(f"/games/{g['id']}/gm").get_data(as_text=True)


def test_a_door_on_a_prepared_map_is_that_maps_door(hub, client, g):
    """Door ids repeat from map to map: the GM's click on a prepared map's door names the map."""
    r = client.post("/api/games", json={"name": "Doors", "system": "plain_grid",
                                        "map": {"width": 6, "height": 6, "doors": [{"a": [3, 0], "b": [3, 1]}]}})
    g = r.json
    upload(client, g, SAMPLE.read_bytes())  # the cave is shown; the first map has its own door-1
    command(client, g, {"type": "view_map", "map_id": maps.FIRST_MAP})
    r = command(client, g, {"type": "set_door", "door_id": "door-1", "closed": False, "map_id": maps.FIRST_MAP})
    assert r.status_code == 200
    game = hub.game(g["id"])
    assert not maps.map_board(game, maps.FIRST_MAP).doors["door-1"].closed
    assert game.board.doors["door-1"].closed  # the cave's door-1 is untouched
    player = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Ann"}).json
    assert "a door was opened" not in json.dumps(state(client, g, player["player_token"])["log"])


def test_undo_does_not_reach_back_past_a_map_switch(client, g):
    hero = add_token(client, g, "Hero", 3, 3, kind="pc")
    command(client, g, {"type": "move_token", "token_id": hero, "x": 4, "y": 3})
    upload(client, g, SAMPLE.read_bytes())
    r = command(client, g, {"type": "undo"})
    assert r.status_code == 422 and "nothing to undo" in r.json["error"]
    assert (token_named(state(client, g), "Hero")["x"], token_named(state(client, g), "Hero")["y"]) == (4, 3)
