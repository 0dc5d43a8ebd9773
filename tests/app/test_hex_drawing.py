"""Hex maps as every screen draws them (#28): the map root says its grid, the board is hexes, tokens stand
at hex centres, walls/blocks/terrain/fog/templates are drawn on hexes; squares are drawn as before."""

from __future__ import annotations

import math
import re

import pytest

from rules.grid import HEX_FLAT, HEX_POINTY, Grid
from tests.helpers import bearer, command
from webapp.live.screens import drawing


def hex_game(client, orientation="pointy", **more):
    m = {"width": 8, "height": 6, "grid": "hex", "orientation": orientation} | more
    r = client.post("/api/games", json={"name": "Hexes", "system": "gurps_lite", "map": m})
    assert r.status_code == 201, r.json
    return r.json


def gm_page(client, g):
    r = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    return client.get(r.location).get_data(as_text=True)


def attr(html, element_id, name):
    tag = re.search(rf'<[^>]*\bid="{element_id}"[^>]*>', html, re.S).group(0)
    return re.search(rf'\b{name}="([^"]*)"', tag).group(1)


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_the_map_root_says_hex_and_its_orientation(client, orientation):
    page = gm_page(client, hex_game(client, orientation))
    assert attr(page, "map", "data-grid") == "hex"
    assert attr(page, "map", "data-orientation") == orientation
    assert 'id="hex-grid"' in page and "by 6 " + orientation + "-top hexes" in page
    # the view box holds the whole board in drawing units (a hex is 1 wide flat to flat)
    grid = Grid("hex", orientation)
    w, h = grid.extent(8, 6)
    ux, uy = grid.unit
    box = [float(v) for v in attr(page, "map", "viewBox").split()]
    assert box[2] == pytest.approx(w * ux + 1, abs=1e-3) and box[3] == pytest.approx(h * uy + 1, abs=1e-3)


def test_a_square_map_says_square(client):
    r = client.post("/api/games", json={"name": "Squares", "system": "gurps_lite"})
    page = gm_page(client, r.json)
    assert attr(page, "map", "data-grid") == "square"
    assert 'data-orientation' not in re.search(r'<svg id="map"[^>]*>', page, re.S).group(0)
    assert 'fill="url(#grid)"' in page and 'id="hex-grid"' not in page


@pytest.mark.parametrize("grid", [HEX_POINTY, HEX_FLAT])
def test_a_token_is_drawn_round_the_centre_of_its_hexes(client, grid):
    g = hex_game(client, grid.orientation)
    for name, x, y, size in (("One", 3, 2, 1), ("Big", 5, 3, 3), ("Mid", 1, 1, 2)):
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, "size": size},
                        headers=bearer(g["gm_token"]))
        assert r.status_code in (200, 201), r.json
    page = gm_page(client, g)
    d = drawing.of(grid)
    for name, x, y, size in (("One", 3, 2, 1), ("Big", 5, 3, 3), ("Mid", 1, 1, 2)):
        tag = re.search(rf'<g id="token-[^"]+"[^>]*data-name="{name}"[^>]*>', page, re.S).group(0)
        tx, ty = map(float, re.search(r'translate\(([-\d.]+) ([-\d.]+)\)', tag).groups())
        # the disc's centre, (size/2, size/2) in the box, is the centre of the hexes it covers
        cells = grid.footprint((x, y), size)
        mx = sum(grid.centre(c)[0] for c in cells) / len(cells) * grid.unit[0]
        my = sum(grid.centre(c)[1] for c in cells) / len(cells) * grid.unit[1]
        assert (tx + size / 2, ty + size / 2) == (pytest.approx(mx, abs=1e-3), pytest.approx(my, abs=1e-3))
        assert (tx, ty) == pytest.approx(d.box((x, y), size), abs=1e-3)


def test_blocks_terrain_and_walls_are_drawn_on_hexes(client):
    g = hex_game(client, "pointy", blocked=[[2, 2]], terrain=[[3, 1, 2]],
                 walls=[{"a": [1, 0.25], "b": [1, 0.75]}])
    page = gm_page(client, g)
    blocked = re.search(r'<polygon class="blocked" points="([^"]+)" data-cell="2,2"', page).group(1)
    pts = [tuple(map(float, p.split(","))) for p in blocked.split()]
    assert len(pts) == 6
    want = [(x * HEX_POINTY.unit[0], y * HEX_POINTY.unit[1]) for x, y in HEX_POINTY.corners((2, 2))]
    assert pts == [pytest.approx(p, abs=1e-3) for p in want]
    assert re.search(r'<polygon class="terrain" points="[^"]+" data-cell="3,1"', page)
    wall = re.search(r'<path class="wall" d="M([^ ]+) ([^L]+)L([^ ]+) ([^"M]+)"', page).groups()
    s = 2 / math.sqrt(3)
    assert [float(v) for v in wall] == [pytest.approx(v, abs=1e-3) for v in (1, 0.25 * s, 1, 0.75 * s)]


def test_the_board_outline_is_the_union_of_its_hexes():
    d = drawing.of(HEX_POINTY)
    path = d.board_path(3, 2)
    loops = path.count("M")
    assert loops == 1  # one ragged outline, no inner edges
    # 3 + 3 hexes in two rows, the second shifted right: 18 outline corners
    assert len(re.findall(r"[ML]", path)) == 18


def test_fog_runs_are_redrawn_as_hexes():
    d = drawing.of(HEX_FLAT)
    path = d.fog_path("M0 0h2v1h-2zM4 3h1v1h-1z")
    assert path.count("M") == 2  # (0,0)+(1,0) touch: one outline; (4,3) alone
    assert drawing.of(Grid()).fog_path("M0 0h2v1h-2z") == "M0 0h2v1h-2z"  # squares: unchanged


def test_a_circle_template_on_hexes_shades_hexes(client):
    g = hex_game(client, "pointy")
    r = client.post(f"/api/games/{g['id']}/commands", json={"type": "place_template", "shape": "circle",
                                                               "size": 1, "x": 3.5, "y": 2},
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 200, r.json
    page = gm_page(client, g)
    # a radius of one hex round hex (3, 2)'s centre: that hex and its six neighbours (their centres one away)
    assert page.count('class="template-hex"') == 7


# --- making a hex map: the lobby's form and the editor's "New blank map" ------------------------------


@pytest.mark.parametrize("choice, grid", [("hex-pointy", HEX_POINTY), ("hex-flat", HEX_FLAT), ("square", Grid())])
def test_the_lobby_makes_a_game_on_squares_or_hexes(client, hub, choice, grid):
    page = client.get("/").get_data(as_text=True)
    assert 'name="grid"' in page and 'value="hex-flat"' in page
    r = client.post("/games", data={"name": "Hexes " + choice, "system": "gurps_lite", "grid": choice})
    assert r.status_code == 302
    game = hub.game(r.location.split("/games/")[1].split("/")[0])
    assert game.board.grid == grid and (game.board.width, game.board.height) == (24, 16)


def test_the_lobby_refuses_a_grid_it_does_not_know_and_hexes_for_a_zone_system(client, hub):
    before = len(hub.store.games())
    r = client.post("/games", data={"name": "Odd", "system": "gurps_lite", "grid": "triangles"})
    assert r.status_code == 400 and "squares or hexes" in r.get_data(as_text=True)
    zones = next(s.id for s in __import__("rules").systems() if s.board == "zones")
    r = client.post("/games", data={"name": "Zoned", "system": zones, "grid": "hex-flat"})
    assert r.status_code == 400 and "zone maps" in r.get_data(as_text=True)
    assert len(hub.store.games()) == before


def test_a_new_blank_map_may_be_hexes(client, hub):
    r = client.post("/api/games", json={"name": "Squares", "system": "gurps_lite"})
    g = r.json
    page = gm_page(client, g)
    assert 'data-grid-choice' in page and 'name="orientation" disabled' in page
    assert command(client, g, {"type": "add_map", "name": "Caves", "width": 12, "height": 9, "grid": "hex",
                               "orientation": "flat"}).status_code == 200
    assert command(client, g, {"type": "add_map", "name": "Hall", "grid": "hex"}).status_code == 200
    boards = {m.name: m.board for m in hub.game(g["id"]).maps.values()}
    assert boards["Caves"].grid == HEX_FLAT and (boards["Caves"].width, boards["Caves"].height) == (12, 9)
    assert boards["Hall"].grid == HEX_POINTY


@pytest.mark.parametrize("payload, why", [
    ({"grid": "square", "orientation": "flat"}, "only a hex grid has an orientation"),
    ({"grid": "hex", "orientation": "sideways"}, "orientation"),
    ({"grid": "octagons"}, "grid"),
])
def test_a_new_blank_map_with_a_bad_grid_is_refused(client, hub, payload, why):
    g = client.post("/api/games", json={"name": "Squares", "system": "gurps_lite"}).json
    before = len(hub.game(g["id"]).maps)
    r = command(client, g, {"type": "add_map", "name": "Bad"} | payload)
    assert r.status_code in (400, 422) and why in r.json["error"], r.json
    assert len(hub.game(g["id"]).maps) == before


def test_a_hex_map_resized_stays_hexes(client, hub):
    g = hex_game(client, "flat", walls=[{"a": [0.25, 0], "b": [0.75, 0]}])
    r = command(client, g, {"type": "resize_map", "width": 12, "height": 7})
    assert r.status_code == 200, r.json
    board = hub.game(g["id"]).board
    assert board.grid == HEX_FLAT and (board.width, board.height) == (12, 7) and len(board.walls) == 1
    assert attr(gm_page(client, g), "map", "data-orientation") == "flat"


@pytest.mark.parametrize("grid", [HEX_POINTY, HEX_FLAT])
def test_many_hexes_outline_is_found_in_arrays_with_the_very_edges(grid, monkeypatch):
    # drawing._hex_edges (a big hex map's fog layers and board outline, #69): the edges the cell-by-cell loop finds
    import random

    for seed in range(30):
        rnd = random.Random(seed)
        cells = frozenset((rnd.randrange(-3, 60), rnd.randrange(-3, 60)) for _ in range(rnd.choice([1, 40, 2500])))
        monkeypatch.setattr(drawing, "_MANY", 10**9)
        loop = drawing._edges(grid, cells)
        assert drawing._hex_edges(grid, cells) == loop, seed
    paths = []
    for many in (10**9, 2_000):  # a board of 2,400 hexes: its outline cell by cell, then in arrays
        monkeypatch.setattr(drawing, "_MANY", many)
        drawing._board_outline.cache_clear()
        drawing._outline.cache_clear()
        paths.append(drawing.of(grid).board_path(60, 40))
    assert [p.count("M") for p in paths] == [1, 1]  # one ragged outline, no inner edges
    corners = [set(re.findall(r"[ML]([-\d.]+ [-\d.]+)", p)) for p in paths]
    assert corners[0] == corners[1] and len(corners[0]) == len(re.findall(r"[ML]", paths[0]))  # (it may start elsewhere)
