"""The GM's map editor on hexes in real Chromium (#28): a wall dragged near two hex corners lands exactly
on them (map units, as the server keeps them), a click blocks or roughens the hex under it, and "New
blank map" makes a hex map of the orientation chosen."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from hexmap import hex_centre, hex_game, page_point
from rules.grid import Grid
from test_editor_fog import expect_walls
from test_table_screens import state


def corner_on_page(page, grid: Grid, point) -> tuple[float, float]:
    return page_point(page, point[0] * grid.unit[0], point[1] * grid.unit[1])


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_walls_snap_to_hex_corners_and_cells_are_hexes(server, new_page, shot, orientation):
    grid = Grid("hex", orientation)
    game = hex_game(server, orientation, width=10, height=8)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()

    # a wall along an edge of hex (3, 3), from one corner to the next, started and ended a few pixels
    # off the corners (the editor snaps)
    cs = grid.corners((3, 3))
    gm.click('#editor [data-tool="wall"]')
    a, b = corner_on_page(gm, grid, cs[0]), corner_on_page(gm, grid, cs[1])
    gm.mouse.move(a[0] + 3, a[1] + 2)
    gm.mouse.down()
    gm.mouse.move((a[0] + b[0]) / 2, (a[1] + b[1]) / 2, steps=4)
    gm.mouse.move(b[0] - 2, b[1] + 3, steps=4)
    gm.mouse.up()
    expect_walls(gm, 1)
    wall = state(server, game)["map"]["walls"][0]
    assert (tuple(wall["a"]), tuple(wall["b"])) == (cs[0], cs[1])

    # a click near the edge of hex (5, 2), inside it, blocks that hex; terrain on (6, 4)
    gm.click('#editor [data-tool="block"]')
    # the editor speaks of hexes on a hex map, not squares
    expect(gm.locator("#editor-hint")).to_have_text("Click or drag over hexes to block them. Esc: back to play.")
    assert "square" not in " ".join(gm.locator("#editor [title]").evaluate_all("els => els.map(e => e.title)"))
    c5 = grid.centre((5, 2))
    k = grid.corners((5, 2))[3]
    inside = corner_on_page(gm, grid, (c5[0] + (k[0] - c5[0]) * 0.75, c5[1] + (k[1] - c5[1]) * 0.75))
    gm.mouse.click(*inside)
    expect(gm.locator('#layer-walls polygon.blocked[data-cell="5,2"]')).to_have_count(1)
    gm.click('#editor [data-tool="terrain"]')
    gm.mouse.click(*hex_centre(gm, grid, 6, 4))
    expect(gm.locator('#layer-walls polygon.terrain[data-cell="6,4"]')).to_have_count(1)
    board = state(server, game)["map"]
    assert board["blocked"] == [[5, 2]] and [t[:2] for t in board["terrain"]] == [[6, 4]]
    # the blocked hex is drawn over the hex: its box on the page is the hex's
    box = gm.locator('#layer-walls polygon.blocked[data-cell="5,2"]').bounding_box()
    hx, hy = hex_centre(gm, grid, 5, 2)
    assert abs(box["x"] + box["width"] / 2 - hx) < 1.5 and abs(box["y"] + box["height"] / 2 - hy) < 1.5
    gm.keyboard.press("Escape")
    shot(gm, f"hex-{orientation}-editor")


def test_new_blank_map_offers_hexes_and_their_orientation(server, new_page):
    status, game = server.api("POST", "/api/games", {"name": "Squares first", "system": "gurps_lite"})
    assert status == 201, game
    gm = new_page(viewport={"width": 1280, "height": 900})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    expect(gm.locator("#map")).to_have_attribute("data-grid", "square")
    gm.click(".map-new summary")
    form = gm.locator(".map-new form")
    expect(form.locator("select[name=orientation]")).to_be_disabled()
    form.locator("input[name=name]").fill("Caves")
    form.locator("select[name=grid]").select_option("hex")
    expect(form.locator("select[name=orientation]")).to_be_enabled()
    form.locator("select[name=orientation]").select_option("flat")
    form.locator("button[type=submit]").click()
    row = gm.locator(".map-row", has_text="Caves")
    expect(row).to_contain_text("flat-top hexes")
    maps = {m["name"]: m for m in state(server, game)["maps"]}
    assert (maps["Caves"]["grid"], maps["Caves"]["orientation"]) == ("hex", "flat")
    # prepared, it is drawn in hexes on the GM's screen
    row.locator("[data-view]").click()
    expect(gm.locator("#map")).to_have_attribute("data-grid", "hex")
    expect(gm.locator("#map")).to_have_attribute("data-orientation", "flat")
    # the form is ready for another square map: squares again, the orientation not asked
    gm.click(".map-new summary") if not gm.locator(".map-new[open]").count() else None
    expect(gm.locator(".map-new select[name=orientation]")).to_be_disabled()
