"""Lights on a hex map (issue #33): what is lit and what is dark is painted hex by hex (never squares that cut
hexes in half), on the GM's page and the table screen; the GM giving a token a light is in the log."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from hexmap import hex_game
from rules.grid import Grid

#: for each hex, whether its centre and six points just inside its corners are in the path's fill: a hex
#: painted whole gives seven equal answers
HEX_FILL = """([selector, hexes]) => {
  const path = document.querySelector(selector);
  const svg = path.ownerSVGElement;
  return hexes.map(([cell, points]) => [cell, points.map(([x, y]) => {
    const p = svg.createSVGPoint(); p.x = x; p.y = y; return path.isPointInFill(p);
  })]);
}"""


def probes(grid: Grid, width: int, height: int) -> list:
    ux, uy = grid.unit
    out = []
    for y in range(height):
        for x in range(width):
            cx, cy = grid.centre((x, y))
            points = [(cx, cy)] + [(cx + (px - cx) * 0.8, cy + (py - cy) * 0.8) for px, py in grid.corners((x, y))]
            out.append([[x, y], [[px * ux, py * uy] for px, py in points]])
    return out


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_lit_and_dark_hexes_are_painted_as_hexes_and_a_tokens_light_is_logged(server, new_page, shot, orientation):
    width, height = 12, 9
    g = hex_game(server, orientation, width=width, height=height, name=f"Crypt {orientation}")
    gid, gm_key = g["id"], g["gm_token"]
    status, torch = server.api("POST", f"/api/games/{gid}/tokens", {"name": "Torch-bearer", "x": 4, "y": 4}, gm_key)
    assert status == 201, torch
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(g["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    for body in ({"type": "set_lighting", "ambient": "dark"}, {"type": "add_light", "x": 9.5, "y": 2.5, "range": 2}):
        status, ack = server.api("POST", f"/api/games/{gid}/commands", body, gm_key)
        assert status == 200, ack

    # the GM gives the torch-bearer a light of 2 hexes in the token list: the log says so
    row = gm.locator(f"#row-{torch['id']}")
    row.locator("input[name=light]").fill("2")
    row.locator("button", has_text="Save").click()
    expect(gm.locator("#log")).to_contain_text("Torch-bearer carries a light (2 hexes)")

    grid = Grid("hex", orientation)
    hexes = probes(grid, width, height)
    for page, name in ((gm, "gm"), (screen, "screen")):
        expect(page.locator("#layer-lighting[data-ambient=dark] path.light-glow")).to_be_attached()
        lit = page.evaluate(HEX_FILL, ["#layer-lighting path.light-glow", hexes])
        dark = page.evaluate(HEX_FILL, ["#layer-lighting path.light-shade", hexes])
        halves = [cell for cell, inside in lit + dark if len(set(inside)) != 1]
        assert halves == [], f"{name}: hexes painted in part: {halves[:8]}"
        lit_cells = {tuple(cell) for cell, inside in lit if all(inside)}
        dark_cells = {tuple(cell) for cell, inside in dark if all(inside)}
        assert (4, 4) in lit_cells and (9, 2) in lit_cells, lit_cells  # round the torch and the lamp
        assert (0, 8) in dark_cells and not lit_cells & dark_cells
        assert lit_cells | dark_cells == {(x, y) for x in range(width) for y in range(height)}
        # the lamp is drawn on the hex it shines from (the hex holding its point, rules.lighting.light_cell)
        lamp = page.locator("#layer-lighting .light-source")
        cx, cy = float(lamp.get_attribute("cx")), float(lamp.get_attribute("cy"))
        hx, hy = grid.centre((9, 2))
        assert abs(cx - hx * grid.unit[0]) < 0.01 and abs(cy - hy * grid.unit[1]) < 0.01, (cx, cy)
        shot(page, f"hex-lights-{orientation}-{name}")
