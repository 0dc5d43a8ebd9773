"""Helpers for the hex map browser tests (#28): where on the page a hex's centre is, from rules/grid.py
(not from the page's own script, so the page's grid.js is checked against the rules)."""

from __future__ import annotations

from rules.grid import Grid
from test_editor_fog import corner as page_point  # where on the page a point of the map's drawing is
from test_table_screens import mouse_drag as drag_between  # noqa: F401  (a mouse drag from one point to another)


def hex_game(server, orientation: str = "pointy", system: str = "plain_grid", width: int = 10, height: int = 8,
             name: str = "Hex test", **more) -> dict:
    m = {"width": width, "height": height, "grid": "hex", "orientation": orientation} | more
    status, body = server.api("POST", "/api/games", {"name": name, "system": system, "map": m})
    assert status == 201, body
    return body


def hex_centre(page, grid: Grid, x: int, y: int) -> tuple[float, float]:
    """Where on the page the centre of hex (x, y) is: its centre in map units, stretched to drawing units."""
    cx, cy = grid.centre((x, y))
    ux, uy = grid.unit
    return page_point(page, cx * ux, cy * uy)


def drawn_centre(page, selector: str) -> tuple[float, float]:
    """The centre on the page of an element's bounding box."""
    box = page.locator(selector).bounding_box()
    return (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
