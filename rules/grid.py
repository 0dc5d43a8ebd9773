"""The grid a board is cut into: squares or hexes, and the geometry both share.

One abstraction for every layer that needs to know the shape of a cell: the board, line of fire, cover,
movement, areas, fog, the map's drawing. A :class:`Grid` is a small frozen value; ``SQUARE`` is the
grid of every board that does not say otherwise.

**Map units.** Walls, doors, template centres and drawing use points in map units, as on squares:

- squares: cell ``(x, y)`` spans ``[x, x+1] x [y, y+1]``, its centre is ``(x + 0.5, y + 0.5)``;
- hexes, ``pointy`` top (rows, odd rows shifted right by half a hex): a hex is 1 unit wide and 1 unit
  tall; the centre of ``(x, y)`` is ``(x + 0.5 + 0.5 * (y odd), 0.5 + 0.75 * y)``; its six corners are
  ``(cx, cy - 0.5)``, ``(cx + 0.5, cy - 0.25)``, ``(cx + 0.5, cy + 0.25)``, ``(cx, cy + 0.5)``,
  ``(cx - 0.5, cy + 0.25)``, ``(cx - 0.5, cy - 0.25)``;
- hexes, ``flat`` top (columns, odd columns shifted down by half a hex): the same turned a quarter:
  centre ``(0.5 + 0.75 * x, y + 0.5 + 0.5 * (x odd))``.

On hexes a map unit is not the same length across and down: a pointy-top hex is 1 unit wide (the step
between two neighbours' centres, one hex of distance) and 1 unit tall, which is 2/sqrt(3) hexes of true
length (:attr:`Grid.unit`). The squeeze keeps every hex corner on a multiple of 1/4, so walls snapped to
corners stay exact numbers (``rules.board.is_dyadic``), and it changes nothing that line of fire asks:
whether a segment crosses another, and on which side a point lies, survive any such stretch. Lengths
(a template's radius, the ruler, a light's reach) are measured in true length: :meth:`Grid.length`.
To draw, multiply x by the hex's width in pixels and y by that width times ``unit[1]`` (pointy top).

**Hex coordinates.** Cells are offset coordinates ``(x, y)``, column and row, as on squares. For
distances and lines they are turned into cube coordinates ``(q, r, s)`` with ``q + r + s == 0``
(:meth:`Grid.cube`, :meth:`Grid.from_cube`); the distance between two hexes is the number of steps
between them, ``max(|dq|, |dr|, |ds|)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterator, Literal

from .text import say

Cell = tuple[int, int]
Point = tuple[float, float]
Kind = Literal["square", "hex"]
Orientation = Literal["pointy", "flat"]

KINDS = ("square", "hex")
ORIENTATIONS = ("pointy", "flat")
_STRETCH = 2 / math.sqrt(3)  # a hex's corner-to-corner height over its flat-to-flat width

# cube steps to the six neighbours, clockwise from east (pointy) / from south-east (flat)
_CUBE_STEPS = ((1, 0, -1), (0, 1, -1), (-1, 1, 0), (-1, 0, 1), (0, -1, 1), (1, -1, 0))
_SQUARE_STEPS = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))


@dataclass(frozen=True)
class Grid:
    kind: Kind = "square"
    orientation: Orientation | None = None  # hexes only

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(say("a grid is square or hex, not {value}", value=repr(self.kind)))
        if self.kind == "hex" and self.orientation not in ORIENTATIONS:
            raise ValueError(say("a hex grid's orientation is pointy or flat, not {value}", value=repr(self.orientation)))
        if self.kind == "square" and self.orientation is not None:
            raise ValueError(say("a square grid has no orientation"))

    # ------------------------------------------------------------------ naming

    @property
    def hex(self) -> bool:
        return self.kind == "hex"

    @property
    def pointy(self) -> bool:
        return self.orientation == "pointy"

    def to_dict(self) -> dict:
        return {"grid": self.kind, "orientation": self.orientation}

    @classmethod
    def from_dict(cls, d: dict | None) -> "Grid":
        """``{"grid": "hex", "orientation": "flat"}``; missing or ``{"grid": "square"}``: squares."""
        if not d or d.get("grid", "square") == "square":
            if d and d.get("orientation") is not None:
                raise ValueError(say("a square grid has no orientation"))
            return SQUARE
        if d.get("grid") != "hex":
            raise ValueError(say("a grid is square or hex, not {value}", value=repr(d.get("grid"))))
        return cls("hex", d.get("orientation", "pointy"))

    # ------------------------------------------------------------ map units

    @property
    def unit(self) -> tuple[float, float]:
        """The true length of one map unit across and down, in cells (squares: 1 and 1)."""
        if not self.hex:
            return (1.0, 1.0)
        return (1.0, _STRETCH) if self.pointy else (_STRETCH, 1.0)

    def length(self, dx: float, dy: float) -> float:
        """The true length, in cells, of a step of ``(dx, dy)`` map units."""
        ux, uy = self.unit
        return math.hypot(dx * ux, dy * uy)

    def extent(self, width: int, height: int) -> tuple[float, float]:
        """The size, in map units, of a board ``width`` cells across and ``height`` down."""
        if not self.hex:
            return (float(width), float(height))
        if self.pointy:
            return (width + (0.5 if height > 1 else 0.0), 0.75 * height + 0.25)
        return (0.75 * width + 0.25, height + (0.5 if width > 1 else 0.0))

    def centre(self, cell) -> Point:
        x, y = cell
        if not self.hex:
            return (x + 0.5, y + 0.5)
        if self.pointy:
            return (x + 0.5 + 0.5 * (y & 1), 0.5 + 0.75 * y)
        return (0.5 + 0.75 * x, y + 0.5 + 0.5 * (x & 1))

    def corners(self, cell) -> tuple[Point, ...]:
        """The cell's outline, clockwise (y down) from its top (pointy) / top-left (squares, flat)."""
        cx, cy = self.centre(cell)
        if not self.hex:
            return ((cx - 0.5, cy - 0.5), (cx + 0.5, cy - 0.5), (cx + 0.5, cy + 0.5), (cx - 0.5, cy + 0.5))
        if self.pointy:
            return ((cx, cy - 0.5), (cx + 0.5, cy - 0.25), (cx + 0.5, cy + 0.25), (cx, cy + 0.5),
                    (cx - 0.5, cy + 0.25), (cx - 0.5, cy - 0.25))
        return ((cx - 0.25, cy - 0.5), (cx + 0.25, cy - 0.5), (cx + 0.5, cy), (cx + 0.25, cy + 0.5),
                (cx - 0.25, cy + 0.5), (cx - 0.5, cy))

    def cell_at(self, point) -> Cell:
        """The cell a point in map units lies in (on an edge: one of the cells it bounds)."""
        px, py = point
        if not self.hex:
            return (math.floor(px), math.floor(py))
        # the nearest centre, by true length, among the cells around a first guess
        if self.pointy:
            gy = math.floor((py - 0.5) / 0.75 + 0.5)
            gx = math.floor(px - 0.5 * (gy & 1))
        else:
            gx = math.floor((px - 0.5) / 0.75 + 0.5)
            gy = math.floor(py - 0.5 * (gx & 1))
        # (centre and length inline, the same sums: line of fire's narrow gaps call this often)
        best, best_d = (gx, gy), math.inf
        pointy = self.pointy
        hypot = math.hypot
        for dy in (-1, 0, 1):
            y = gy + dy
            for dx in (-1, 0, 1):
                x = gx + dx
                if pointy:
                    d = hypot(px - (x + 0.5 + 0.5 * (y & 1)), (py - (0.5 + 0.75 * y)) * _STRETCH)
                else:
                    d = hypot((px - (0.5 + 0.75 * x)) * _STRETCH, py - (y + 0.5 + 0.5 * (x & 1)))
                if d < best_d - 1e-12:
                    best, best_d = (x, y), d
        return best

    # ------------------------------------------------------------ cube coordinates

    def cube(self, cell) -> tuple[int, int, int]:
        """A hex's cube coordinates (q, r, s), q + r + s == 0 (odd-r rows / odd-q columns)."""
        x, y = cell
        if self.pointy:
            q, r = x - (y - (y & 1)) // 2, y
        else:
            q, r = x, y - (x - (x & 1)) // 2
        return (q, r, -q - r)

    def from_cube(self, cube) -> Cell:
        q, r = cube[0], cube[1]
        if self.pointy:
            return (q + (r - (r & 1)) // 2, r)
        return (q, r + (q - (q & 1)) // 2)

    # ------------------------------------------------------------ steps and distances

    def neighbours(self, cell) -> list[Cell]:
        """The cells one step away: 8 on squares (diagonals included), 6 on hexes."""
        x, y = cell
        if not self.hex:
            return [(x + dx, y + dy) for dx, dy in _SQUARE_STEPS]
        q, r, s = self.cube(cell)
        return [self.from_cube((q + a, r + b, s + c)) for a, b, c in _CUBE_STEPS]

    def steps(self, a, b) -> int:
        """The number of single steps between two cells: hexes' distance; on squares, king's moves (a
        system's diagonal rule, ``rules.movement.distance``, is what squares count for the rules)."""
        if not self.hex:
            return max(abs(a[0] - b[0]), abs(a[1] - b[1]))
        qa, ra, sa = self.cube(a)
        qb, rb, sb = self.cube(b)
        return max(abs(qa - qb), abs(ra - rb), abs(sa - sb))

    def ring(self, cell, n: int) -> list[Cell]:
        """The hexes exactly ``n`` steps from ``cell`` (hexes only)."""
        if not self.hex:
            raise ValueError(say("rings are for hex grids"))
        if n == 0:
            return [tuple(cell)]
        q, r, s = self.cube(cell)
        a, b, c = _CUBE_STEPS[4]
        q, r, s = q + a * n, r + b * n, s + c * n
        out = []
        for step in _CUBE_STEPS:
            for _ in range(n):
                out.append(self.from_cube((q, r, s)))
                q, r, s = q + step[0], r + step[1], s + step[2]
        return out

    def within(self, cell, n: int) -> Iterator[Cell]:
        """Every cell at most ``n`` steps from ``cell``, itself included (not clipped to a board)."""
        for k in range(n + 1):
            if self.hex:
                yield from self.ring(cell, k)
            else:
                x, y = cell
                for dy in range(-k, k + 1):
                    for dx in range(-k, k + 1):
                        if max(abs(dx), abs(dy)) == k:
                            yield (x + dx, y + dy)

    def footprint(self, cell, size: int) -> list[Cell]:
        """The cells a token of ``size`` covers, anchored at ``cell``. Squares: the ``size`` x ``size``
        block whose top-left cell is ``cell``. Hexes: size 1 is the hex, size 2 three hexes (the anchor
        and its first two neighbours, :data:`_CUBE_STEPS` 0 and 1, all three touching), size 3 seven
        (the anchor, at the centre, and its ring); a bigger size is refused."""
        x, y = cell
        if not self.hex:
            return [(x + dx, y + dy) for dy in range(size) for dx in range(size)]
        if size == 1:
            return [(x, y)]
        if size == 2:
            return [(x, y), *self.neighbours(cell)[:2]]
        if size == 3:
            return [(x, y), *self.neighbours(cell)]
        raise ValueError(say("a token on hexes covers 1, 3 or 7 hexes (size 1 to 3), not size {size}", size=size))

    def line(self, a, b) -> list[Cell]:
        """The cells the straight line between two centres passes, ``a`` to ``b``, one step apart
        (hexes: cube interpolation, nudged by a tiny constant so a line running exactly along an edge
        takes one side). Line of fire does not use this list: it tests the geometric segment."""
        n = self.steps(a, b)
        if n == 0:
            return [tuple(a)]
        if not self.hex:
            return [(round(a[0] + (b[0] - a[0]) * i / n), round(a[1] + (b[1] - a[1]) * i / n)) for i in range(n + 1)]
        qa, ra, _ = self.cube(a)
        qb, rb, _ = self.cube(b)
        eps = 1e-6
        out = []
        append = out.append
        dq, dr = (qb - qa) / n, (rb - ra) / n
        pointy = self.pointy
        for i in range(n + 1):
            q = qa + dq * i + eps
            r = ra + dr * i + eps
            s = -q - r
            rq, rr, rs = round(q), round(r), round(s)  # _cube_round, inline: this loop is line of fire's
            fq, fr, fs = abs(rq - q), abs(rr - r), abs(rs - s)
            if fq > fr and fq > fs:
                rq = -rr - rs
            elif fr > fs:
                rr = -rq - rs
            if pointy:
                append((rq + (rr - (rr & 1)) // 2, rr))
            else:
                append((rq, rr + (rq - (rq & 1)) // 2))
        return out


class Place(tuple):
    """A cell ``(x, y)`` that knows its grid: where the rules see a token on a hex board (the webapp's
    ``position_of``). It is the pair everywhere a pair is used (indexing, unpacking, equality, hashing,
    JSON); :func:`cell_steps` reads its grid, so each system's range, reach and adjacency count hexes
    on a hex board without another argument. A plain pair is on squares."""

    grid: Grid

    def __new__(cls, cell=(0, 0), grid: "Grid | None" = None):
        self = super().__new__(cls, (cell[0], cell[1]))
        self.grid = SQUARE if grid is None else grid
        return self

    def __reduce__(self):
        return (Place, (tuple(self), self.grid))


def grid_of(*cells) -> "Grid":
    """The grid of the first :class:`Place` among ``cells``; squares when there is none."""
    for c in cells:
        g = getattr(c, "grid", None)
        if g is not None:
            return g
    return SQUARE


def cell_steps(a, b) -> int:
    """The steps between two cells on their grid (:func:`grid_of`): hexes on a hex board, king's moves
    (the larger offset) on squares."""
    g = grid_of(a, b)
    if not g.hex:
        return max(abs(a[0] - b[0]), abs(a[1] - b[1]))
    return g.steps(a, b)


def _cube_round(q: float, r: float, s: float) -> tuple[int, int, int]:
    rq, rr, rs = round(q), round(r), round(s)
    dq, dr, ds = abs(rq - q), abs(rr - r), abs(rs - s)
    if dq > dr and dq > ds:
        rq = -rr - rs
    elif dr > ds:
        rr = -rq - rs
    else:
        rs = -rq - rr
    return (rq, rr, rs)


SQUARE = Grid()
HEX_POINTY = Grid("hex", "pointy")
HEX_FLAT = Grid("hex", "flat")
