"""Lights from the map (#27): the ambient light, light sources, a token's own light, dark vision, and the
fog of war that follows them (a player's state, their page, the live updates, the table screen)."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path

import pytest

import rules
from rules import lighting as rules_lighting
from tests.helpers import bearer, command as run, connect, join, new_game, state
from webapp.game.board import uvtt


SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "dungeondraft-sample.dd2vtt"

# a hall (x 0..9) and a room (x 10..15) with a wide opening in the wall between them at y 2..5
HALL = {"width": 16, "height": 7, "walls": [{"a": [10, 0], "b": [10, 2]}, {"a": [10, 5], "b": [10, 7]}]}
LAMP = {"x": 13.5, "y": 3.5, "range": 3}  # in the room: it lights the squares within 3 of (13, 3) it sees


def seen(client, g, token):
    return {tuple(c) for c in state(client, g, token)["fog"]["visible"]}


def lit_game(client, system="plain_grid", board=HALL, players=("Ada",)):
    """A game on ``board`` (the HALL; None: the system's default map) that ``players`` joined, each as
    ``game[name]``."""
    g = new_game(client, system, board, name="Lights")
    for name in players:
        g[name] = join(client, g, name)
    return g


def add_token(client, g, name, x, y, owner=None, **extra):
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, "kind": "pc",
                                                          **({"owner": owner} if owner else {}), **extra},
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 201, r.json
    return r.json["id"]


@pytest.fixture
def hall(client):
    g = lit_game(client)
    g["hero"] = add_token(client, g, "Hero", 1, 3, owner=g["Ada"]["player_id"])
    assert run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"]).status_code == 200
    assert run(client, g, {"type": "add_light", **LAMP}, g["gm_token"]).status_code == 200
    return g


def near(cell, centre, radius):
    return math.hypot(cell[0] - centre[0], cell[1] - centre[1]) <= radius


# --- set_lighting: who and what --------------------------------------------------------------------


def test_set_lighting_is_the_gms_alone(client, hall):
    seq = state(client, hall)["seq"]
    for token in (hall["Ada"]["player_token"], hall["screen_token"]):
        r = run(client, hall, {"type": "set_lighting", "ambient": "dark"}, token)
        assert r.status_code == 422 and ("only the GM" in r.json["error"] or "table screen" in r.json["error"])
    for kind, extra in (("add_light", LAMP), ("remove_light", {"light_id": "light-x"}),
                        ("update_light", {"light_id": "light-x", "range": 2})):
        r = run(client, hall, {"type": kind, **extra}, hall["Ada"]["player_token"])
        assert r.status_code == 422
    assert state(client, hall)["seq"] == seq and state(client, hall)["lighting"]["ambient"] == "bright"
    assert run(client, hall, {"type": "set_lighting", "ambient": "dark"}, hall["gm_token"]).status_code == 200
    assert state(client, hall, hall["Ada"]["player_token"])["lighting"]["ambient"] == "dark"


@pytest.mark.parametrize("payload, message", [
    ({"ambient": "pitch"}, "ambient"),
    ({}, "ambient"),
    ({"ambient": 3}, "ambient"),
    ({"ambient": "dark", "map_id": "map-nowhere"}, "no map"),
    ({"ambient": "dark", "extra": 1}, "extra"),
    ({"ambient": "bright"}, "bright light already"),
])
def test_bad_set_lighting_is_refused_and_changes_nothing(client, hall, payload, message):
    before = state(client, hall)
    r = run(client, hall, {"type": "set_lighting", **payload}, hall["gm_token"])
    assert r.status_code == 422 and message in r.json["error"]
    after = state(client, hall)
    assert after["seq"] == before["seq"] and after["lighting"] == before["lighting"]


@pytest.mark.parametrize("payload, message", [
    ({"type": "add_light", "x": 40, "y": 3, "range": 2}, "off the map"),
    ({"type": "add_light", "x": 3, "y": 3, "range": 0}, "range"),
    ({"type": "add_light", "x": 3, "y": 3, "range": 2, "color": "red"}, "color"),
    ({"type": "add_light", "x": float("nan"), "y": 3}, ""),
    ({"type": "update_light", "light_id": "light-none", "range": 2}, "no light"),
    ({"type": "remove_light", "light_id": "light-none"}, "no light"),
])
def test_bad_light_commands_are_refused(client, hall, payload, message):
    seq = state(client, hall)["seq"]
    body = json.dumps(payload).replace("NaN", "1e999")
    r = client.post(f"/api/games/{hall['id']}/commands", data=body, content_type="application/json",
                    headers=bearer(hall["gm_token"]))
    assert r.status_code in (400, 422) and message in r.json.get("error", "")
    assert state(client, hall)["seq"] == seq


def test_the_gm_moves_recolours_and_removes_a_light(client, hall):
    light = state(client, hall)["lighting"]["lights"][0]
    assert light | {"id": "-"} == {"id": "-", "x": 13.5, "y": 3.5, "range": 3, "intensity": 1,
                                   "color": "ffffd27f", "shadows": True}
    r = run(client, hall, {"type": "update_light", "light_id": light["id"], "range": 5,
                                               "color": "#FF0000"}, hall["gm_token"])
    assert r.status_code == 200
    assert state(client, hall)["lighting"]["lights"][0] | {"id": "-"} == {
        "id": "-", "x": 13.5, "y": 3.5, "range": 5, "intensity": 1, "color": "ffff0000", "shadows": True}
    assert run(client, hall, {"type": "remove_light", "light_id": light["id"]}, hall["gm_token"]).status_code == 200
    assert state(client, hall)["lighting"]["lights"] == []
    # undo puts it back
    assert run(client, hall, {"type": "undo"}, hall["gm_token"]).status_code == 200
    assert [lt["id"] for lt in state(client, hall)["lighting"]["lights"]] == [light["id"]]


def test_a_zone_map_is_always_lit(client):
    g = lit_game(client, system="atomic_tomorrow", board=None)
    r = run(client, g, {"type": "set_lighting", "ambient": "dark"}, g["gm_token"])
    assert r.status_code == 422 and "zone map" in r.json["error"]


# --- what a token sees in the dark -------------------------------------------------------------------


def test_in_the_dark_a_token_sees_the_lit_room_across_the_dark_hall_but_not_the_dark_beside_it(client, hall):
    ada = hall["Ada"]["player_token"]
    bright = seen(client, hall, ada)
    assert {(5, 3), (9, 3), (12, 3)} <= bright  # in bright light the whole hall and room, as before
    assert run(client, hall, {"type": "set_lighting", "ambient": "dark"}, hall["gm_token"]).status_code == 200
    dark = seen(client, hall, ada)
    assert (1, 3) in dark  # where it stands
    assert {(10, 3), (12, 3), (13, 3), (15, 3)} <= dark  # the lit room, across the hall
    assert (9, 3) not in dark and (10, 0) not in dark  # the dark squares beside the lit ones
    assert not any(x < 10 and (x, y) != (1, 3) for x, y in dark)  # nothing of the dark hall
    assert all(near(c, (13, 3), 3) for c in dark - {(1, 3)})  # only what the lamp lights
    # the player's map and the table screen draw it: the hall is in the fog, the lit room is not
    screen = {tuple(c) for c in state(client, hall, hall["screen_token"])["fog"]["visible"]}
    assert screen == dark
    page = client.get(f"/games/{hall['id']}/play?key={ada}", follow_redirects=True).text
    assert 'id="layer-lighting"' in page and 'data-ambient="dark"' in page and 'class="light-source"' in page
    # dim light: sight as in bright light
    assert run(client, hall, {"type": "set_lighting", "ambient": "dim"}, hall["gm_token"]).status_code == 200
    assert seen(client, hall, ada) == bright


def test_a_tokens_own_light_and_what_it_lights_for_others(client, hall):
    bob = client.post(f"/api/games/{hall['id']}/players", json={"join_code": hall["join_code"], "name": "Bob"}).json
    add_token(client, hall, "Lookout", 1, 6, owner=bob["player_id"])
    run(client, hall, {"type": "set_lighting", "ambient": "dark"}, hall["gm_token"])
    ada = hall["Ada"]["player_token"]
    assert (3, 3) not in seen(client, hall, ada)
    r = run(client, hall, {"type": "update_token", "token_id": hall["hero"], "light": 2}, hall["gm_token"])
    assert r.status_code == 200
    mine = seen(client, hall, ada)
    assert {(3, 3), (1, 1), (0, 3)} <= mine and (4, 3) not in mine and (1, 0) not in mine
    # the torch lights those squares for everyone who can see them
    assert {(1, 3), (3, 3)} <= seen(client, hall, bob["player_token"])
    # a hidden token's light is the GM's secret: it lights nothing
    ghost = add_token(client, hall, "Ghost", 6, 5, hidden=True)
    run(client, hall, {"type": "update_token", "token_id": ghost, "light": 3}, hall["gm_token"])
    assert (6, 4) not in seen(client, hall, ada)
    # bad values for the light are refused
    for bad in (-1, 61, "2", 1.5):
        r = run(client, hall, {"type": "update_token", "token_id": hall["hero"], "light": bad}, hall["gm_token"])
        assert r.status_code == 422 and "light" in r.json["error"]


def test_dark_vision_sees_without_light(client, hall, monkeypatch):
    """The code path for a system whose rules give dark vision (none of the five does; see the next test)."""
    monkeypatch.setitem(rules_lighting.DARK_VISION, "plain_grid",
                        rules_lighting.DarkVision(2, "two squares (a test reading)", "as bright"))
    run(client, hall, {"type": "set_lighting", "ambient": "dark"}, hall["gm_token"])
    dark = seen(client, hall, hall["Ada"]["player_token"])
    assert {(3, 3), (2, 4), (0, 3)} <= dark and (4, 3) not in dark
    assert state(client, hall)["lighting"]["dark_vision"]["squares"] == 2


GRID_SYSTEMS = [s.id for s in rules.systems() if s.board == "grid" and s.id != "plain_grid"]


@pytest.mark.parametrize("system_id", GRID_SYSTEMS)
def test_each_systems_dark_vision_is_read_from_its_document(client, system_id):
    """None of the five rule documents gives dark vision: a token without light sees only lit squares."""
    dv = rules_lighting.dark_vision(system_id)
    assert system_id in rules_lighting.DARK_VISION and dv.squares == 0 and dv.dark.startswith("none: ")
    g = lit_game(client, system=system_id)
    add_token(client, g, "Hero", 1, 3, owner=g["Ada"]["player_id"])
    run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"])
    run(client, g, {"type": "set_lighting", "ambient": "dark"}, g["gm_token"])
    assert seen(client, g, g["Ada"]["player_token"]) == {(1, 3)}
    st = state(client, g, g["Ada"]["player_token"])
    assert st["lighting"]["dark_vision"] == {"squares": 0, "dark": dv.dark, "dim": dv.dim}
    # the app shows the reading: the GM's lighting panel and the system's help page
    gm_page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).text
    assert 'id="dark-vision-note"' in gm_page and "Dark vision" in gm_page
    assert dv.dark.split(":")[0] in gm_page
    help_page = client.get(f"/help/{system_id}").text
    assert "Dark vision" in help_page


def test_the_zone_system_says_its_dark_vision_too():
    dv = rules_lighting.dark_vision("atomic_tomorrow")
    assert dv.squares == 0 and "Atomic Tomorrow Combat" in dv.dark


# --- live: the fog closes as the GM darkens the map -------------------------------------------------


def test_darkness_reaches_the_player_and_the_screen_live(app, client, hall):
    player = connect(app, hall["id"], hall["Ada"]["player_token"])
    screen = connect(app, hall["id"], hall["screen_token"])
    player.get_received(), screen.get_received()
    run(client, hall, {"type": "set_lighting", "ambient": "dark"}, hall["gm_token"])
    for who in (player, screen):
        html = "".join(m["args"][0]["html"] for m in who.get_received() if m["name"] == "update")
        assert 'id="layer-fog"' in html and 'id="layer-lighting"' in html and 'data-ambient="dark"' in html
    # a torch lit: the fog opens around the hero, live
    run(client, hall, {"type": "update_token", "token_id": hall["hero"], "light": 2}, hall["gm_token"])
    html = "".join(m["args"][0]["html"] for m in player.get_received() if m["name"] == "update")
    assert 'id="layer-fog"' in html


def test_a_light_in_the_fog_is_not_told_to_players(client):
    closed = {"width": 16, "height": 7, "walls": [{"a": [10, 0], "b": [10, 7]}]}  # no way into the room
    g = lit_game(client, board=closed)
    add_token(client, g, "Hero", 1, 3, owner=g["Ada"]["player_id"])
    run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"])
    run(client, g, {"type": "add_light", **LAMP}, g["gm_token"])
    run(client, g, {"type": "add_light", "x": 2.5, "y": 1.5, "range": 1}, g["gm_token"])
    run(client, g, {"type": "set_lighting", "ambient": "dark"}, g["gm_token"])
    ada = g["Ada"]["player_token"]
    assert [(lt["x"], lt["y"]) for lt in state(client, g, ada)["lighting"]["lights"]] == [(2.5, 1.5)]
    assert len(state(client, g)["lighting"]["lights"]) == 2
    page = client.get(f"/games/{g['id']}/play?key={ada}", follow_redirects=True).text
    assert page.count('class="light-source"') == 1 and 'cx="13.5"' not in page


# --- Universal VTT lights ---------------------------------------------------------------------------


def upload(client, g, data: bytes, filename="cave.dd2vtt"):
    return client.post(f"/api/games/{g['id']}/maps", data={"file": (io.BytesIO(data), filename)},
                       headers=bearer(g["gm_token"]), content_type="multipart/form-data")


def test_an_imported_map_keeps_its_lights_and_its_dark_follows_them(client):
    g = lit_game(client)
    r = upload(client, g, SAMPLE.read_bytes())
    assert r.status_code == 201 and r.json["lights"] == 1 and r.json["ambient"] == "bright"
    lights = state(client, g)["lighting"]["lights"]
    assert lights == [{"id": "light-1", "x": 6.125, "y": 7.21875, "range": 9.900001, "intensity": 1,
                       "color": "ffeccd8b", "shadows": True}]
    # a player's token in the lamp's room, fog on (as an import starts), then darkness
    hero = add_token(client, g, "Hero", 6, 7, owner=g["Ada"]["player_id"])
    ada = g["Ada"]["player_token"]
    bright = seen(client, g, ada)
    assert run(client, g, {"type": "set_lighting", "ambient": "dark"}, g["gm_token"]).status_code == 200
    dark = seen(client, g, ada)
    assert (6, 7) in dark and dark <= bright
    assert all(near(c, (6, 7), 9.900001) for c in dark)  # every square seen is one the lamp lights
    assert state(client, g, ada)["lighting"]["lights"][0]["id"] == "light-1"  # its square is in view
    # the GM removes the imported light: nothing is lit, the hero sees only where it stands
    assert run(client, g, {"type": "remove_light", "light_id": "light-1"}, g["gm_token"]).status_code == 200
    assert seen(client, g, ada) == {(6, 7)}
    assert hero


def _uvtt(ambient=None, lights=()):
    d = {"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 8, "y": 6},
                                       "pixels_per_grid": 64},
         "line_of_sight": [], "portals": [], "lights": list(lights)}
    if ambient is not None:
        d["environment"] = {"baked_lighting": False, "ambient_light": ambient}
    return json.dumps(d).encode()


@pytest.mark.parametrize("ambient, expected", [
    (None, "bright"), ("ffffffff", "bright"), ("ff808080", "dim"), ("ff101010", "dark"), ("00ffffff", "dark"),
    ("not a colour", "bright"),
])
def test_the_files_ambient_light_gives_the_maps(ambient, expected):
    assert uvtt.parse(_uvtt(ambient)).ambient == expected


def test_an_import_in_the_dark_starts_dark(client):
    g = lit_game(client)
    lamp = {"position": {"x": 2.5, "y": 2.5}, "range": 2, "intensity": 1, "color": "ffff8800", "shadows": True}
    r = upload(client, g, _uvtt("ff000000", [lamp]), "crypt.uvtt")
    assert r.status_code == 201 and r.json["ambient"] == "dark"
    st = state(client, g)
    assert st["lighting"]["ambient"] == "dark" and st["lighting"]["lights"][0]["color"] == "ffff8800"
    crypt = next(m for m in st["maps"] if m["name"] == "crypt")
    assert crypt["ambient"] == "dark" and crypt["lights"] == 1


def test_a_new_wall_stops_a_lights_reach_without_fog_too(hub, client):
    """The table screen's darkness (fog off) is drawn from what the lights reach on the board as it is now."""
    from webapp.game.bridge import fog

    g = lit_game(client)
    run(client, g, {"type": "add_light", **LAMP}, g["gm_token"])
    run(client, g, {"type": "set_lighting", "ambient": "dark"}, g["gm_token"])
    assert (12, 3) in fog.lit_squares(hub.game(g["id"]))
    assert run(client, g, {"type": "add_wall", "a": [13, 0], "b": [13, 7]}, g["gm_token"]).status_code == 200
    lit = fog.lit_squares(hub.game(g["id"]))
    assert (12, 3) not in lit and (14, 3) in lit
    page = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).text
    assert 'class="light-shade"' in page and 'class="fog-dark"' not in page  # no fog: only shaded


def test_lighting_survives_a_snapshot_round_trip_and_a_replay(hub, client, hall):
    from webapp.game.core.model import Game
    from webapp.game.table import replay

    run(client, hall, {"type": "set_lighting", "ambient": "dark"}, hall["gm_token"])
    run(client, hall, {"type": "update_token", "token_id": hall["hero"], "light": 2}, hall["gm_token"])
    game = hub.game(hall["id"])
    again = Game.from_dict(game.to_dict())
    replayed = replay(hall["id"], hub.store.events(hall["id"]))
    for other in (again, replayed):
        m, o = game.maps[game.active_map], other.maps[other.active_map]
        assert (o.ambient, o.lights) == (m.ambient, m.lights) == ("dark", m.lights) and len(m.lights) == 1
        assert other.tokens[hall["hero"]].light == 2


def test_lights_kept_before_they_had_ids_get_them():
    """A log or snapshot written before lights had ids (the import kept them "for later")."""
    from webapp.game.core.model import GameMap

    old = {"id": "map-1", "name": "Cave", "board": None, "align": {"cell_px": 64, "offset_x": 0, "offset_y": 0},
           "lights": [{"x": 1, "y": 2, "range": 3, "intensity": 1, "color": "ffffffff", "shadows": True}] * 2}
    m = GameMap.from_dict(old)
    assert [lt["id"] for lt in m.lights] == ["light-1", "light-2"] and m.ambient == "bright"
