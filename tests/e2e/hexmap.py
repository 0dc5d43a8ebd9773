"""Helpers for the hex map browser tests (#28): where on the page a hex's centre is, from rules/grid.py
(not from the page's own script, so the page's grid.js is checked against the rules)."""

from __future__ import annotations

from rules.grid import Grid


def hex_game(server, orientation: str = "pointy", system: str = "plain_grid", width: int = 10, height: int = 8,
             name: str = "Hex test", **more) -> dict:
    m = {"width": width, "height": height, "grid": "hex", "orientation": orientation} | more
    status, body = server.api("POST", "/api/games", {"name": name, "system": system, "map": m})
    assert status == 201, body
    return body


def page_point(page, x: float, y: float) -> tuple[float, float]:
    """Where on the page the point (x, y) of the map's drawing (SVG user units) is."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById('map');
            const pt = svg.createSVGPoint(); pt.x = x; pt.y = y;
            const p = pt.matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def hex_centre(page, grid: Grid, x: int, y: int) -> tuple[float, float]:
    """Where on the page the centre of hex (x, y) is: its centre in map units, stretched to drawing units."""
    cx, cy = grid.centre((x, y))
    ux, uy = grid.unit
    return page_point(page, cx * ux, cy * uy)


def drawn_centre(page, selector: str) -> tuple[float, float]:
    """The centre on the page of an element's bounding box."""
    box = page.locator(selector).bounding_box()
    return (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)


def drag_between(page, start, end, release: bool = True) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=4)
    page.mouse.move(*end, steps=4)
    if release:
        page.mouse.up()
