"""Where things are drawn on the map's SVG, on squares and on hexes (#28).

The map's SVG is drawn in *drawing units*: map units (``rules.grid``) stretched by the grid's
:attr:`Grid.unit`, so a drawing unit is one cell of true length both ways and a circle is round.
On squares nothing is stretched (a drawing unit is a square, the SVG is what it always was); on
pointy-top hexes y is stretched by 2/sqrt(3) (flat top: x), so a hex is 1 wide flat to flat.
static/js/grid.js is the same for the scripts (``toDraw``/``toMap``).

A token is drawn in a ``size`` x ``size`` box of drawing units whose centre is its footprint's centre:
on squares its top-left square, as before; on hexes the box sits round the 1, 3 or 7 hexes it covers.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np

from markupsafe import Markup, escape

from rules.pacing import paced
from rules.grid import SQUARE, Grid

from ...game.core.model import MAX_SEGMENTS
from .token_svg import DISC_INSET


#: the side of a tile of walls drawn as one path (``Drawing.wall_paths``), in map units
WALL_TILE = 32


def _n(v: float) -> str:
    """A number as short as the page wants it (4 decimals, no trailing zeros, no "-0")."""
    s = f"{v:.4f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


class Drawing:
    """The drawing of one grid: every helper the map's templates call."""

    def __init__(self, grid: Grid = SQUARE) -> None:
        self.grid = grid
        self.ux, self.uy = grid.unit
        self._pieces: dict[tuple, str] = {}  # (ax, ay, bx, by) -> its wall's piece of a path (``wall_paths``)
        self._drawn: dict[tuple, tuple] = {}  # (id of a walls list lately drawn, ids) -> (the list, its length, its drawing)

    @property
    def hex(self) -> bool:
        return self.grid.hex

    @property
    def kind(self) -> str:
        return self.grid.kind

    @property
    def orientation(self) -> str:
        return self.grid.orientation or ""

    # -------------------------------------------------------------- points

    def pt(self, x: float, y: float) -> tuple[float, float]:
        """A point in map units, in drawing units."""
        return (x * self.ux, y * self.uy)

    def dx(self, v: float):
        """An x in map units, in drawing units (on squares: itself, as the page always wrote it)."""
        return v if not self.hex else _n(v * self.ux)

    def dy(self, v: float):
        return v if not self.hex else _n(v * self.uy)

    def xy(self, point) -> str:
        """``"x y"`` of a point in map units, in drawing units (for path data)."""
        x, y = self.pt(*point)
        return f"{_n(x)} {_n(y)}"

    def extent(self, width: int, height: int) -> tuple[float, float]:
        """The board's size in drawing units."""
        w, h = self.grid.extent(width, height)
        return (w * self.ux, h * self.uy)

    def centre(self, cell, size: int = 1) -> tuple[float, float]:
        """The centre of the cells a token of ``size`` anchored at ``cell`` covers, in drawing units."""
        if not self.hex:
            return (cell[0] + size / 2, cell[1] + size / 2)
        cells = self.grid.footprint(tuple(cell), max(1, min(size, 3)))
        cs = [self.grid.centre(c) for c in cells]
        return self.pt(sum(c[0] for c in cs) / len(cs), sum(c[1] for c in cs) / len(cs))

    def box(self, cell, size: int = 1) -> tuple[float, float]:
        """The top-left corner of a token's ``size`` x ``size`` box (its SVG ``translate``)."""
        if not self.hex:
            return (cell[0], cell[1])
        cx, cy = self.centre(cell, size)
        return (round(cx - size / 2, 4), round(cy - size / 2, 4))

    def tokens_extent(self, tokens) -> tuple[float, float, float, float] | None:
        """The box round every token's disc (its box less ``token_svg.DISC_INSET`` all round), in drawing units:
        (left, top, right, bottom), or None for no token. A phone's map frame starts as tall as the view of
        them all (``_map.html``'s ``data-fight``, app.css, map.js ``startOnTheFight``)."""
        boxes = [(*self.box((t.x, t.y), t.size or 1), t.size or 1) for t in tokens]
        if not boxes:
            return None
        return (min(x for x, _y, _s in boxes) + DISC_INSET, min(y for _x, y, _s in boxes) + DISC_INSET,
                max(x + s for x, _y, s in boxes) - DISC_INSET, max(y + s for _x, y, s in boxes) - DISC_INSET)

    def token_translate(self, token) -> str:
        x, y = self.box((token.x, token.y), token.size or 1)
        return f"{_n(x)} {_n(y)}"

    # -------------------------------------------------------------- cells

    def cell_points(self, cell, inset: float = 0.0) -> str:
        """A cell's outline as polygon ``points`` in drawing units; ``inset``: shrunk towards its centre by
        that share (0.06: a mark inside the cell)."""
        cx, cy = self.grid.centre(tuple(cell))
        pts = []
        for x, y in self.grid.corners(tuple(cell)):
            x, y = x + (cx - x) * inset, y + (cy - y) * inset
            px, py = self.pt(x, y)
            pts.append(f"{_n(px)},{_n(py)}")
        return " ".join(pts)

    def cells_path(self, cells) -> str:
        """One path covering ``cells``: the outline of their union (holes included), drawn once."""
        return _outline(self.grid, frozenset(map(tuple, cells)))

    def footprint(self, token) -> list[tuple[int, int]]:
        if not self.hex:
            return token.cells()
        return self.grid.footprint((token.x, token.y), max(1, min(token.size or 1, 3)))

    # -------------------------------------------------------------- the board

    def board_path(self, width: int, height: int) -> str:
        """The board's outline (hexes: the ragged edge of its rows or columns)."""
        return _board_outline(self.grid, width, height)

    def grid_pattern(self) -> dict:
        """The repeating tile of hex grid lines: its size and path in drawing units (``patternUnits``
        user space, starting at the map's origin)."""
        g = self.grid
        if g.pointy:  # two rows repeat: 1 across, 1.5 map units down
            tile = (1.0, 1.5)
            cells = [(0, 0), (0, 1), (-1, 1), (0, 2), (-1, 0), (1, 0)]
        else:
            tile = (1.5, 1.0)
            cells = [(0, 0), (1, 0), (1, -1), (2, 0), (0, -1), (0, 1)]
        d = []
        for c in cells:
            corners = g.corners(c)
            d.append("M" + " L".join(self.xy(p) for p in corners) + "Z")
        w, h = self.pt(*tile)
        return {"width": _n(w), "height": _n(h), "d": "".join(d)}

    # -------------------------------------------------------------- templates

    def template(self, t: dict, width: int, height: int) -> dict:
        """A template laid on hexes as drawn: its outline in drawing units (where a circle is round) and
        the hexes it covers: the server's (``t["cells"]``) when it says, else those whose centre the
        drawn shape covers."""
        from rules.areas import Area

        drawn = Area(t["shape"], t["x"] * self.ux, t["y"] * self.uy, t["size"], t.get("direction", 0))
        cells = t.get("cells")
        if cells is None:  # the hexes round its point, as far as it reaches (a line: its width more)
            near = self.grid.within(self.grid.cell_at((t["x"], t["y"])), math.ceil(drawn.reach()) + 2)
            cells = sorted((x, y) for x, y in near if 0 <= x < width and 0 <= y < height
                           and drawn.covers(*self.pt(*self.grid.centre((x, y)))))
        return {"outline": drawn.outline(), "cells": [tuple(c) for c in cells]}

    def wall_paths(self, walls, ids: bool = False) -> Markup:
        """Every wall (``walls``: ``Board.to_dict``'s) drawn in a few ``<path class="wall">``: the walls that start
        in one tile of :data:`WALL_TILE` x :data:`WALL_TILE` map units in one path, a ``M ax ay L bx by`` each in
        its ``d``; with ``ids`` (the GM's page: its eraser picks a wall by them, editor.js) the path's
        ``data-walls`` names them in the same order. One element a tile, not one a wall (#69): a browser applies
        the biggest map's 40,000 walls 10-25x faster than as many ``<line>``s, from a fifth of the bytes, and redraws
        a zoom as fast or, on a slow CPU, 4-8x faster (it leaves the tiles out of view unpainted;
        ``bench/bench_walls_page.py``).
        Each wall's piece is kept by what it is drawn from (#57: a fog switch on the biggest map drew them all
        again for each audience), and the last lists' whole drawings by the list itself (the board's walls, shared
        read only by the audiences that know the whole map; an audience's known walls for a move:
        ``fog.board_view``, read only too). A thousand walls at a time on the server's loop, the other tables' work
        between them (``rules.pacing.paced``, #69)."""
        last = self._drawn.get((id(walls), ids))
        if last is not None and last[0] is walls and last[1] == len(walls):
            return last[2]
        if self.hex:
            dx, dy = self.dx, self.dy
        else:
            dx = dy = str
        pieces = self._pieces
        if len(pieces) > 2 * MAX_SEGMENTS:
            pieces.clear()
        tiles: dict[tuple, tuple[list, list]] = {}
        for w in paced(walls):
            (ax, ay), (bx, by) = w["a"], w["b"]
            key = (ax, ay, bx, by)
            piece = pieces.get(key)
            if piece is None:  # (the points are numbers: nothing in them to escape)
                piece = pieces[key] = f"M{dx(ax)} {dy(ay)}L{dx(bx)} {dy(by)}"
            where = (ax // WALL_TILE, ay // WALL_TILE)
            tile = tiles.get(where)
            if tile is None:
                tile = tiles[where] = ([], [])
            tile[0].append(piece)
            tile[1].append(w["id"])
        html = Markup("".join(
            f'<path class="wall" d="{"".join(d)}"'
            + (f' data-walls="{escape(" ".join(names))}"' if ids else "") + "/>" for d, names in tiles.values()))
        if len(self._drawn) >= 8:
            self._drawn.clear()
        self._drawn[(id(walls), ids)] = (walls, len(walls), html)  # (the list kept: its id is not another's meanwhile)
        return html

    # -------------------------------------------------------------- fog

    def fog_path(self, d: str) -> str:
        """A fog path written in squares' runs (``webapp.game.bridge.fog``: "M{x} {y}h{n}v{k}h-{n}z" per run)
        redrawn over the same cells as hexes; on squares, itself."""
        if not self.hex or not d:
            return d
        return _fog_hexes(self.grid, d)


SQUARES = Drawing(SQUARE)


@lru_cache(maxsize=8)
def of(grid: Grid) -> Drawing:
    return SQUARES if grid == SQUARE else Drawing(grid)


def _edges(grid: Grid, cells: frozenset) -> dict:
    """The directed edges of the union's outline, corner -> next corner (in quarters of a map unit,
    exact), each cell's clockwise; an edge two cells share is left out (the cell across it is in the
    union). On hexes three cells meet at a corner, so an outline passes a corner once: one edge leaves it
    (many hexes: in arrays, :func:`_hex_edges`)."""
    if grid.hex and len(cells) >= _MANY:
        return _hex_edges(grid, cells)
    if not grid.hex:
        edges = set()
        for cell in cells:
            cs = _quarters(grid, cell)
            edges.update(zip(cs, cs[1:] + cs[:1]))
        return {a: [b] for a, b in edges if (b, a) not in edges}
    sides = _sides(grid)
    pointy = grid.pointy
    out = {}
    for x, y in cells:
        cx4, cy4, across = sides[(y if pointy else x) & 1](x, y)
        for (ax, ay, bx, by), (nx, ny) in across:
            if (x + nx, y + ny) not in cells:
                out[(cx4 + ax, cy4 + ay)] = [(cx4 + bx, cy4 + by)]
    return out


#: hexes in a union from which its outline is found in arrays (a fog layer of a big hex map: tens of thousands)
_MANY = 2_000


def _hex_edges(grid: Grid, cells) -> dict:
    """:func:`_edges` of many hexes at once: a grid of the union's cells, each side whose neighbour across is not in
    it (the same edges; a dict in another order, which only moves where a loop starts)."""
    xy = np.array(list(cells), dtype=np.int64).reshape(-1, 2)
    x, y = xy[:, 0], xy[:, 1]
    x0, y0 = int(x.min()) - 1, int(y.min()) - 1
    inside = np.zeros((int(y.max()) - y0 + 2, int(x.max()) - x0 + 2), dtype=bool)
    inside[y - y0, x - x0] = True
    sides = _sides(grid)
    parity = (y if grid.pointy else x) & 1
    out = {}
    for p in (0, 1):
        mine = parity == p
        px, py = x[mine], y[mine]
        across = (sides[p](0, p) if grid.pointy else sides[p](p, 0))[2]  # (a cell of this parity: its sides)
        qx, qy = (4 * px + 2 + 2 * p, 2 + 3 * py) if grid.pointy else (2 + 3 * px, 4 * py + 2 + 2 * p)
        for (ax, ay, bx, by), (nx, ny) in across:
            edge = ~inside[py + ny - y0, px + nx - x0]
            out.update(zip(zip((qx[edge] + ax).tolist(), (qy[edge] + ay).tolist()),
                           ([b] for b in zip((qx[edge] + bx).tolist(), (qy[edge] + by).tolist()))))
    return out


def _quarters(grid: Grid, cell) -> list[tuple[int, int]]:
    return [(round(x * 4), round(y * 4)) for x, y in grid.corners(cell)]


@lru_cache(maxsize=8)
def _sides(grid: Grid) -> tuple:
    """For a cell of each parity (pointy: its row's, flat: its column's): a function giving its centre in
    quarters of a map unit and its edges, each as its two corners (from that centre, in quarters) and the
    offset of the neighbour across it. Worked out once from ``Grid.corners`` and ``Grid.neighbours``."""
    out = []
    for parity in (0, 1):
        cell = (2 + parity, 2 + parity)
        cs = _quarters(grid, cell)
        cx4, cy4 = (round(v * 4) for v in grid.centre(cell))
        across = []
        for a, b in zip(cs, cs[1:] + cs[:1]):
            for n in grid.neighbours(cell):
                ns = _quarters(grid, n)
                if (b, a) in zip(ns, ns[1:] + ns[:1]):  # the neighbour's edge runs the other way
                    across.append(((a[0] - cx4, a[1] - cy4, b[0] - cx4, b[1] - cy4), (n[0] - cell[0], n[1] - cell[1])))
                    break
        assert len(across) == len(cs), "every edge of a cell is a neighbour's"
        out.append(lambda x, y, across=tuple(across): (*(round(v * 4) for v in grid.centre((x, y))), across))
    return tuple(out)


def _loops(edges: dict) -> list[list]:
    loops = []
    while edges:
        start = next(iter(edges))
        loop = [start]
        at = start
        while True:
            nxt = edges[at].pop()
            if not edges[at]:
                del edges[at]
            if nxt == start:
                break
            loop.append(nxt)
            at = nxt
            if at not in edges:
                break
        loops.append(loop)
    return loops


def _path_of(grid: Grid, loops: list[list]) -> str:
    ux, uy = grid.unit
    out = []
    for loop in loops:
        out.append("M" + " L".join(f"{_n(x / 4 * ux)} {_n(y / 4 * uy)}" for x, y in loop) + "Z")
    return "".join(out)


@lru_cache(maxsize=256)
def _outline(grid: Grid, cells: frozenset) -> str:
    if not cells:
        return ""
    return _path_of(grid, _loops(_edges(grid, cells)))


@lru_cache(maxsize=32)
def _board_outline(grid: Grid, width: int, height: int) -> str:
    if not grid.hex:
        return f"M0 0H{width}V{height}H0Z"
    return _outline(grid, frozenset((x, y) for y in range(height) for x in range(width)))


_RUN = re.compile(r"M(-?\d+) (-?\d+)h(-?\d+)v(-?\d+)h-?\d+z")


@lru_cache(maxsize=256)
def _fog_hexes(grid: Grid, d: str) -> str:
    cells = set()
    for m in _RUN.finditer(d):
        x0, y0, w, h = map(int, m.groups())
        for y in range(y0, y0 + h):
            for x in range(x0, x0 + w):
                cells.add((x, y))
    return _outline(grid, frozenset(cells))
