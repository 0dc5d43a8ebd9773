"""Area templates on a square grid: a circle, a cone, a line, and which squares and tokens are under one.

The table's own templates (a GM or a player lays one on the map to see who is
under it), not any system's: a system with area attacks keeps its own shapes
(``rules.savage_worlds.templates``) and the attack uses those.

Geometry (docs/DESIGN.md "Geometry conventions"): points in grid units, x to the
right, y down; a square ``(x, y)`` has its centre at ``(x + 0.5, y + 0.5)``.
A square is under a template when its centre is; a token is under it when the
centre of any of its squares is. ``size`` is in squares (a system's unit is
``cell_size`` squares): the radius of a circle, the length of a cone or a line.
``direction`` is in degrees, 0 pointing right (east), 90 down (south): the
angle turns clockwise on the map because y grows downwards.

- circle: every point within ``size`` of the centre (straight-line distance);
- cone: from its apex, within ``size`` and within 45 degrees either side of
  ``direction`` (a quarter circle: a 90 degree cone);
- line: from its start along ``direction``, ``size`` long and one square wide.

On a hex board (``grid``) the template's place is a point in the hex map units of ``rules.grid`` and
its size is in hexes of true length (``Grid.unit``); ``direction`` is the angle as drawn (in true
lengths). A hex is under it when its centre is, as a square; a line one hex wide along a zigzag of
hexes takes the centres lying exactly on one of its two long edges (its left, looking along it), not
both.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Literal

from .grid import SQUARE, Grid
from .text import say

Shape = Literal["circle", "cone", "line"]
SHAPES: tuple[str, ...] = ("circle", "cone", "line")
CONE_ANGLE = 90.0  # degrees, the whole opening
LINE_WIDTH = 1.0  # squares
_EPS = 1e-9


@dataclass(frozen=True)
class Area:
    shape: Shape
    x: float
    y: float
    size: float
    direction: float = 0.0

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(say("a template is a {shapes}, not {value}", shapes=", ".join(SHAPES), value=repr(self.shape)))
        if not (self.size > 0) or not math.isfinite(self.size):
            raise ValueError(say("a template's size is a positive number of squares"))
        if not all(math.isfinite(v) for v in (self.x, self.y, self.direction)):
            raise ValueError(say("a template's place and direction are finite numbers"))

    def covers(self, px: float, py: float) -> bool:
        """Whether the point (px, py) lies under the template (its edge included)."""
        dx, dy = px - self.x, py - self.y
        if self.shape == "circle":
            return math.hypot(dx, dy) <= self.size + _EPS
        ux, uy = math.cos(math.radians(self.direction)), math.sin(math.radians(self.direction))
        along = dx * ux + dy * uy
        across = -dx * uy + dy * ux
        if self.shape == "line":
            return -_EPS <= along <= self.size + _EPS and abs(across) <= LINE_WIDTH / 2 + _EPS
        dist = math.hypot(dx, dy)
        if dist > self.size + _EPS:
            return False
        if dist < _EPS:
            return True  # the apex itself
        return along >= dist * math.cos(math.radians(CONE_ANGLE / 2)) - _EPS

    def reach(self) -> float:
        """How far from (x, y) any covered point can be."""
        return self.size + LINE_WIDTH if self.shape == "line" else self.size

    def outline(self) -> dict:
        """What a picture of it needs: the end points and corners in grid units."""
        if self.shape == "circle":
            return {"shape": "circle", "cx": self.x, "cy": self.y, "r": self.size}
        a = math.radians(self.direction)
        if self.shape == "line":
            ux, uy = math.cos(a), math.sin(a)
            px, py = -uy * LINE_WIDTH / 2, ux * LINE_WIDTH / 2
            ex, ey = self.x + ux * self.size, self.y + uy * self.size
            pts = [(self.x + px, self.y + py), (ex + px, ey + py), (ex - px, ey - py), (self.x - px, self.y - py)]
            return {"shape": "line", "points": pts}
        half = math.radians(CONE_ANGLE / 2)
        p1 = (self.x + self.size * math.cos(a - half), self.y + self.size * math.sin(a - half))
        p2 = (self.x + self.size * math.cos(a + half), self.y + self.size * math.sin(a + half))
        return {"shape": "cone", "apex": (self.x, self.y), "p1": p1, "p2": p2, "r": self.size}


def _covers_hex(area: Area, grid: Grid, cell) -> bool:
    """Whether the template covers the centre of a hex (in true lengths; see the module doc)."""
    (cx, cy), (ux, uy) = grid.centre(cell), grid.unit
    true = Area(area.shape, area.x * ux, area.y * uy, area.size, area.direction)
    px, py = cx * ux, cy * uy
    if not true.covers(px, py):
        return False
    if area.shape == "line":  # a centre on the strip's edge: in on one side only
        a = math.radians(area.direction)
        across = -(px - true.x) * math.sin(a) + (py - true.y) * math.cos(a)
        if abs(abs(across) - LINE_WIDTH / 2) <= 1e-6 and across < 0:
            return False
    return True


def cells(area: Area, width: int | None = None, height: int | None = None,
          grid: Grid = SQUARE) -> set[tuple[int, int]]:
    """The squares (hexes on a hex ``grid``) whose centres the template covers (only those on a
    ``width`` x ``height`` board, if given)."""
    if grid.hex:
        here = grid.cell_at((area.x, area.y))
        return {(x, y) for x, y in grid.within(here, math.ceil(area.reach()) + 2)
                if (width is None or 0 <= x < width) and (height is None or 0 <= y < height)
                and _covers_hex(area, grid, (x, y))}
    r = area.reach() + 1
    out = set()
    for y in range(math.floor(area.y - r), math.ceil(area.y + r) + 1):
        if height is not None and not 0 <= y < height:
            continue
        for x in range(math.floor(area.x - r), math.ceil(area.x + r) + 1):
            if width is not None and not 0 <= x < width:
                continue
            if area.covers(x + 0.5, y + 0.5):
                out.add((x, y))
    return out


def under(area: Area, tokens: Iterable[tuple[str, Iterable[tuple[int, int]]]], grid: Grid = SQUARE) -> list[str]:
    """The ids of the tokens under the template, in the order given: ``tokens`` is (id, its squares
    or hexes)."""
    if grid.hex:
        return [tid for tid, hexes in tokens if any(_covers_hex(area, grid, c) for c in hexes)]
    return [tid for tid, squares in tokens if any(area.covers(x + 0.5, y + 0.5) for x, y in squares)]
