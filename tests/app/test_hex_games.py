"""Hex maps through the API (#28): a 3d6 game (gurps_lite, a yard a hex) on pointy-top and flat-top
hexes: reach, range in the attack preview, line of fire across a wall on a hex edge, big tokens,
and a Universal VTT file refused in a hex game."""

from __future__ import annotations

import pytest

from rules.grid import Grid
from tests.helpers import bearer, command as gm, state
from webapp import create_app


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "9"}).test_client()


ORIENTATIONS = ["pointy", "flat"]


def hex_game(client, orientation, walls=(), system="gurps_lite", width=16, height=12):
    r = client.post("/api/games", json={"name": "Hexes", "system": system,
                                        "map": {"width": width, "height": height, "grid": "hex",
                                                "orientation": orientation, "walls": list(walls)}})
    assert r.status_code in (200, 201), r.json
    g = r.json

    def add(body):
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code in (200, 201), r.json
        return r.json["id"]
    return g, add


def along(orientation, start, n):
    """The cell ``n`` hexes from ``start`` along a straight row (pointy) / column (flat) of hexes."""
    x, y = start
    return (x + n, y) if orientation == "pointy" else (x, y + n)


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_the_state_says_the_map_is_hexes(client, orientation):
    g, _ = hex_game(client, orientation)
    board = state(client, g)["map"]
    assert board["grid"] == "hex" and board["orientation"] == orientation


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_reach_lists_six_hexes_at_cost_one_around_a_token(client, orientation):
    g, add = hex_game(client, orientation)
    tok = add({"name": "Hero", "x": 6, "y": 5})
    cells = gm(client, g, {"type": "reach", "token_id": tok}).json["cells"]
    at_one = {(x, y) for x, y, c in cells if c == 1}
    assert at_one == set(Grid("hex", orientation).neighbours((6, 5)))
    # no square diagonal: every cell's cost is its hex distance on an open map
    grid = Grid("hex", orientation)
    assert all(c == grid.steps((6, 5), (x, y)) for x, y, c in cells)


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_four_hexes_along_a_row_is_distance_four_in_the_attack_preview(client, orientation):
    g, add = hex_game(client, orientation)
    a = add({"name": "Archer", "x": 3, "y": 4})
    tx, ty = along(orientation, (3, 4), 4)
    t = add({"name": "Orc", "x": tx, "y": ty})
    r = gm(client, g, {"type": "preview_attack", "attacker": a, "target": t, "weapon": "Pistol"})
    assert r.status_code == 200, r.json
    view = r.json["preview"]
    assert view["distance"] == 4 and view["line"]["clear"]
    # a diagonal of hexes is counted in hexes too, not by a square's rule
    d = gm(client, g, {"type": "preview_attack", "attacker": a, "weapon": "Pistol",
                       "target": add({"name": "Rat", "x": 7, "y": 8})}).json["preview"]["distance"]
    assert d == Grid("hex", orientation).steps((3, 4), (7, 8))


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_a_wall_on_a_hex_edge_blocks_line_of_fire(client, orientation):
    grid = Grid("hex", orientation)
    a, b = (3, 4), along(orientation, (3, 4), 1)
    edge = sorted(set(grid.corners(a)) & set(grid.corners(b)))
    # the wall on the edge between the two hexes, and the same map without it
    g, add = hex_game(client, orientation, walls=[{"a": list(edge[0]), "b": list(edge[1])}])
    x = add({"name": "Archer", "x": a[0], "y": a[1]})
    far = along(orientation, (3, 4), 5)
    t = add({"name": "Orc", "x": far[0], "y": far[1]})
    r = gm(client, g, {"type": "preview_attack", "attacker": x, "target": t, "weapon": "Pistol"})
    assert r.status_code == 422 and "no line of fire" in r.json["error"], r.json
    # the wall also refuses the step across that edge: the way round costs more than 1
    cells = {(cx, cy): c for cx, cy, c in gm(client, g, {"type": "reach", "token_id": x}).json["cells"]}
    assert cells[b] == 2
    g2, add2 = hex_game(client, orientation)
    x2 = add2({"name": "Archer", "x": a[0], "y": a[1]})
    t2 = add2({"name": "Orc", "x": far[0], "y": far[1]})
    assert gm(client, g2, {"type": "preview_attack", "attacker": x2, "target": t2, "weapon": "Pistol"}).status_code == 200


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_a_big_token_covers_seven_hexes_and_range_counts_to_the_nearest(client, orientation):
    grid = Grid("hex", orientation)
    g, add = hex_game(client, orientation)
    ogre = add({"name": "Ogre", "x": 6, "y": 6, "size": 3})
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Imp", "x": 7, "y": 6},
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 422 and "taken by Ogre" in r.json["error"], r.json
    far = along(orientation, (6, 6), 5)
    archer = add({"name": "Archer", "x": far[0], "y": far[1]})
    view = gm(client, g, {"type": "preview_attack", "attacker": archer, "target": ogre, "weapon": "Pistol"}).json["preview"]
    assert view["distance"] == 4  # to the ogre's nearest hex, one ring out from its centre
    assert tuple(view["to"]) in grid.footprint((6, 6), 3)


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_a_fight_move_on_hexes_costs_one_inch_a_hex(client, orientation):
    g, add = hex_game(client, orientation, system="savage_worlds")
    hero = add({"name": "Hero", "x": 3, "y": 3})
    assert gm(client, g, {"type": "start_combat", "token_ids": [hero]}).status_code == 200
    before = gm(client, g, {"type": "reach", "token_id": hero}).json["left"]
    to = along(orientation, (3, 3), 2)
    r = gm(client, g, {"type": "move_token", "token_id": hero, "x": to[0], "y": to[1]})
    assert r.status_code == 200, r.json
    after = gm(client, g, {"type": "reach", "token_id": hero}).json["left"]
    assert before - after == 2


def test_a_resized_hex_map_stays_hexes(client):
    g, _ = hex_game(client, "flat")
    assert gm(client, g, {"type": "resize_map", "width": 10, "height": 10}).status_code == 200
    board = state(client, g)["map"]
    assert (board["grid"], board["orientation"], board["width"]) == ("hex", "flat", 10)


def test_a_blank_hex_map_can_be_added(client):
    g, _ = hex_game(client, "pointy")
    r = gm(client, g, {"type": "add_map", "name": "Caves", "grid": "hex", "orientation": "flat"})
    assert r.status_code == 200, r.json
    maps = state(client, g).get("maps")
    assert maps is not None
    r = gm(client, g, {"type": "add_map", "name": "Bad", "grid": "square", "orientation": "flat"})
    assert r.status_code == 422 and "orientation" in r.json["error"]


def test_a_universal_vtt_file_is_refused_in_a_hex_game(client):
    from pathlib import Path
    import io

    sample = Path(__file__).resolve().parents[1] / "fixtures" / "dungeondraft-sample.dd2vtt"
    g, _ = hex_game(client, "pointy")
    before = state(client, g)
    r = client.post(f"/api/games/{g['id']}/maps", data={"file": (io.BytesIO(sample.read_bytes()), "cave.dd2vtt")},
                    headers=bearer(g["gm_token"]), content_type="multipart/form-data")
    assert r.status_code == 422 and "square grid" in r.json["error"] and "hexes" in r.json["error"], r.json
    assert state(client, g) == before


def test_a_drag_preview_of_a_seven_hex_token_is_checked_against_its_hexes(client):
    """A drag preview is bounded by the token's own footprint: a 7-hex token centred one hex in from the
    right edge fits, though a 3 x 3 block of squares there would not; one on the edge hex does not fit."""
    g, add = hex_game(client, "pointy", width=6, height=6)
    big = add({"name": "Ogre", "x": 2, "y": 2, "size": 3})
    app = client.application
    sock = app.extensions["tacmap_socketio"].test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    assert sock.emit("preview", {"token_id": big, "x": 4, "y": 2}, callback=True)["ok"]
    refused = sock.emit("preview", {"token_id": big, "x": 5, "y": 2}, callback=True)
    assert not refused["ok"] and "off the map" in refused["error"]


@pytest.mark.parametrize("orientation", ORIENTATIONS)
def test_a_fogged_hex_maps_picture_reaches_a_player_painted_out_by_hexes(client, orientation):
    """The picture a player is sent shows the hexes they know and nothing else: painted by the hexes'
    outlines, not by squares of the same numbers (which would hand out parts of hexes never seen)."""
    import io
    import re

    from PIL import Image

    g, _ = hex_game(client, orientation, system="plain_grid", width=12, height=8)
    grid = Grid("hex", orientation)
    p = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Ada"}).json
    assert gm(client, g, {"type": "set_fog", "enabled": True}).status_code == 200
    assert gm(client, g, {"type": "reveal_cells", "x": 5, "y": 3}).status_code == 200
    known = {tuple(c) for c in client.get(f"/api/games/{g['id']}/state",
                                           headers=bearer(p["player_token"])).json["fog"]["visible"]}
    assert known == {(5, 3)}
    # a picture as wide as the hexes are drawn, 20 px a hex across: the new picture covers the map's width
    (ew, eh), (ux, uy) = grid.extent(12, 8), grid.unit
    k = 20
    out = io.BytesIO()
    Image.new("RGB", (round(ew * ux * k), round(eh * uy * k) + 1), (200, 40, 40)).save(out, "PNG")
    r = client.post(f"/api/games/{g['id']}/maps/active/picture", headers=bearer(g["gm_token"]),
                    data={"file": (io.BytesIO(out.getvalue()), "m.png")}, content_type="multipart/form-data")
    assert r.status_code == 200, r.json
    assert abs(state(client, g)["maps"][0]["align"]["cell_px"] - k) < 0.05

    page = client.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).text
    url = re.search(r'<image id="map-picture"[^>]* href="([^"]+)"', page).group(1).replace("&amp;", "&")
    got = client.get(url, headers=bearer(p["player_token"]))
    assert got.status_code == 200
    img = Image.open(io.BytesIO(got.data)).convert("RGB")

    def at(point):  # the pixel under a point in map units
        return img.getpixel((int(point[0] * ux * k), int(point[1] * uy * k)))
    cx, cy = grid.centre((5, 3))
    assert at((cx, cy)) == (200, 40, 40)  # the known hex: there
    for c in grid.neighbours((5, 3)):
        assert at(grid.centre(c)) == (0, 0, 0)  # its neighbours: not in the bytes
    # inside the square the same numbers would paint, (5, 3) to (6, 4) in map units, but in another hex,
    # well inside it (0.4 of a hex from its centre: clear of the known hex's outline)
    def well_inside_another(pt):
        cell = grid.cell_at(pt)
        cx, cy = grid.centre(cell)
        return cell != (5, 3) and grid.length(pt[0] - cx, pt[1] - cy) < 0.4
    elsewhere = [pt for pt in ((5 + i / 8, 3 + j / 8) for i in range(1, 8) for j in range(1, 8)) if well_inside_another(pt)]
    assert elsewhere and all(at(pt) == (0, 0, 0) for pt in elsewhere), elsewhere
