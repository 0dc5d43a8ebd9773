"""The board: cells, walls, doors, blocking cells, terrain, cover.

Squares unless the board's ``grid`` (``rules.grid``) says hexes; what follows is the square board, and
the hex board's step rule, wall buckets and sight test are in ``rules.hexgeom`` (the same geometry in
the hex map units: walls and doors are segments between points, steps and sight lines the segments
between centres).

Cells are ``(x, y)``: x to the right, y down; cell ``(x, y)`` spans
``[x, x+1] x [y, y+1]`` and its centre is ``(x + 0.5, y + 0.5)``. Walls and
doors are segments between any two points in grid units (the editor snaps
them to grid corners, imported maps put them anywhere). A closed door is a
wall; an open one is not.

Ids are strings: ``wall-1``, ``door-1``, ``cover-1``... unless the caller
gives one; a blocking cell's id is ``cell-x-y``.

The board keeps lazily built indexes (walls bucketed by the cells they
touch, the steps walls forbid); any change drops them, so a rule function
always sees the board as it is.

Movement's step rule (:meth:`Board.step_blocked`), the reading chosen for
"a step may not cross a wall or cut a corner":

- a step goes from a cell to one of its 8 neighbours, along the straight
  segment between the two centres;
- it is refused when the new cell is off the board or blocking, or when a
  wall or closed door meets that segment anywhere, its two end points
  included (a wall that merely ends on the segment still stops a token, and
  a wall drawn through a cell's centre keeps tokens out of that cell);
- a diagonal step passes through the corner the two cells share: it is
  refused when a wall or closed door touches that corner (the segment goes
  through it), and when either of the two cells beside it (the orthogonal
  neighbours both cells share) is blocking. So a token may not slip
  diagonally around the end of a wall or the corner of a pillar; it steps
  around it orthogonally, as on a physical grid.
"""

from __future__ import annotations

import copy as _copy
import math
import re
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Callable, Mapping, TypeVar

from .grid import SQUARE, Grid
from . import stepmasks, wallcells
from .pacing import paced
from .text import Plain, say
from .hexgeom import SHIFT, bucket_size, buckets_of_hex, hex_step_masks
from .segments import Segment, clip_span, is_dyadic, orient, segment_touches  # noqa: F401 (callers import them here)

T = TypeVar("T")

Cell = tuple[int, int]
Point = tuple[float, float]

_ID_NUMBER = re.compile(r"^(wall|door|cover)-(\d+)$")

# The eight steps; a step's bit in a cell's mask says the step is refused.
STEPS: tuple[tuple[int, int], ...] = ((1, 0), (0, 1), (-1, 0), (0, -1), (1, 1), (-1, 1), (-1, -1), (1, -1))
_STEP_BIT = {d: 1 << i for i, d in enumerate(STEPS)}


@dataclass(frozen=True)
class Wall:
    id: str
    a: Point
    b: Point


@dataclass(frozen=True)
class Door:
    id: str
    a: Point
    b: Point
    closed: bool = True


@dataclass(frozen=True)
class CoverPiece:
    id: str
    cell: Cell
    material: str


def _point(p) -> Point:
    try:
        x, y = p
    except (TypeError, ValueError):
        raise ValueError(say("a point is a pair (x, y), not {value}", value=repr(p))) from None
    if type(x) is int and type(y) is int:  # most points (a map's 40,000 walls' twice over): at once
        return (x, y)
    if type(x) is float and type(y) is float and x.is_integer() and y.is_integer() and abs(x) < 2**52 > abs(y):
        return (int(x), int(y))
    out = []
    for v in (x, y):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(say("a point's coordinates are numbers, not {value}", value=repr(p)))
        if not math.isfinite(v):
            raise ValueError(say("a point's coordinates must be finite, not {value}", value=repr(p)))
        out.append(int(v) if isinstance(v, float) and v.is_integer() and abs(v) < 2**52 else v)
    return (out[0], out[1])


def _cell(c) -> Cell:
    try:
        x, y = c
    except (TypeError, ValueError):
        raise ValueError(say("a cell is a pair (x, y) of integers, not {value}", value=repr(c))) from None
    if isinstance(x, bool) or isinstance(y, bool) or not isinstance(x, int) or not isinstance(y, int):
        if isinstance(x, float) and isinstance(y, float) and x.is_integer() and y.is_integer():
            return (int(x), int(y))
        raise ValueError(say("a cell is a pair (x, y) of integers, not {value}", value=repr(c)))
    return (x, y)


class Board:
    """A rectangular grid of cells with walls, doors, blocking cells,
    terrain costs and pieces of cover."""

    #: how many changes the board has had (``snapshot``, ``adopt``); a class default for boards pickled before it
    _version = 0

    def __init__(self, width: int, height: int, grid: Grid = SQUARE) -> None:
        if isinstance(width, bool) or isinstance(height, bool) or not isinstance(width, int) or not isinstance(height, int):
            raise ValueError(say("board width and height are whole numbers of cells"))
        if width < 1 or height < 1 or width * height > 4_000_000:
            raise ValueError(say("a board is 1 to 4,000,000 cells, not {width} x {height}", width=width, height=height))
        if not isinstance(grid, Grid):
            raise ValueError(say("a board's grid is a rules.grid.Grid"))
        self.width = width
        self.height = height
        self.grid = grid  # squares or hexes (rules/grid.py): the shape of a cell
        self._walls: dict[str, Wall] = {}
        self._doors: dict[str, Door] = {}
        self._blocked: set[Cell] = set()
        self._terrain: dict[Cell, float] = {}
        self._cover: dict[str, CoverPiece] = {}
        self._cache: dict = {}
        self._next_number: dict[str, int] = {}

    # ---------------------------------------------------------------- queries

    def in_bounds(self, cell) -> bool:
        x, y = cell
        return 0 <= x < self.width and 0 <= y < self.height

    def is_blocked(self, cell) -> bool:
        return tuple(cell) in self._blocked

    def terrain_cost(self, cell) -> float:
        """The multiplier of a step into ``cell`` (1 for normal ground)."""
        return self._terrain.get(tuple(cell), 1)

    @property
    def walls(self) -> Mapping[str, Wall]:
        return MappingProxyType(self._walls)

    @property
    def doors(self) -> Mapping[str, Door]:
        return MappingProxyType(self._doors)

    @property
    def cover_pieces(self) -> Mapping[str, CoverPiece]:
        return MappingProxyType(self._cover)

    @property
    def blocked(self) -> frozenset:
        return frozenset(self._blocked)

    @property
    def terrain(self) -> Mapping[Cell, float]:
        return MappingProxyType(self._terrain)

    def cover_at(self, cell) -> list[CoverPiece]:
        cell = tuple(cell)
        return [c for c in self._cover.values() if c.cell == cell]

    # -------------------------------------------------------------- changes

    def _changed(self) -> None:
        self._cache.clear()
        self._version += 1

    def snapshot(self, indexes: bool = True) -> "Board":
        """A copy of the board as it is now that shares nothing it may change: its walls, doors, blocking cells,
        terrain and cover in containers of its own (their values are frozen), and the indexes built so far
        (never changed once built; none with ``indexes`` False: a copy sent to another process, lighter to
        send). Cheap (no index is built again), so a rule may run on it in another thread while this board
        changes; ``adopt`` then keeps what that rule built here, if the board is unchanged."""
        copy = Board.__new__(Board)
        copy.width, copy.height, copy.grid = self.width, self.height, self.grid
        copy._walls, copy._doors, copy._cover = dict(self._walls), dict(self._doors), dict(self._cover)
        copy._blocked, copy._terrain = set(self._blocked), dict(self._terrain)
        copy._next_number = dict(self._next_number)
        copy._cache = dict(self._cache) if indexes else {}
        copy._version = self._version
        return copy

    def adopt(self, snapshot: "Board") -> None:
        """The indexes ``snapshot`` (this board's ``snapshot()``) built, kept in this board's cache when the
        board has not changed since the snapshot was taken; else nothing (they describe another board)."""
        if snapshot._version == self._version:
            for key, value in snapshot._cache.items():
                self._cache.setdefault(key, value)

    def _new_id(self, kind: str, taken) -> str:
        # the number after the highest ever used on this board, so an id is
        # not handed out again (ids given by the caller count too)
        n = self._next_number.get(kind, 0) + 1
        while f"{kind}-{n}" in taken:
            n += 1
        self._next_number[kind] = n
        return f"{kind}-{n}"

    def _check_free_id(self, id: str) -> str:
        if not isinstance(id, str) or not id:
            raise ValueError(say("an id is a non-empty string, not {value}", value=repr(id)))
        if id in self._walls or id in self._doors or id in self._cover or id.startswith("cell-"):
            raise ValueError(say("id {id} is taken (or reserved for blocking cells)", id=repr(id)))
        m = _ID_NUMBER.match(id)
        if m:
            kind, n = m.group(1), int(m.group(2))
            self._next_number[kind] = max(self._next_number.get(kind, 0), n)
        return id

    def _segment(self, a, b) -> tuple[Point, Point]:
        a, b = _point(a), _point(b)
        if a == b:
            raise ValueError(say("a wall or door needs two different end points, not {point} twice", point=str(a)))
        return a, b

    def add_wall(self, a, b, id: str | None = None) -> str:
        """Add a wall segment from point ``a`` to point ``b``; returns its id."""
        a, b = self._segment(a, b)
        id = self._new_id("wall", self._walls) if id is None else self._check_free_id(id)
        self._walls[id] = Wall(id, a, b)
        self._changed()
        return id

    def remove_wall(self, id: str) -> None:
        if id not in self._walls:
            raise KeyError(f"no wall {id!r}")
        del self._walls[id]
        self._changed()

    def add_door(self, a, b, closed: bool = True, id: str | None = None) -> str:
        """Add a door from ``a`` to ``b``; closed, it is a wall."""
        a, b = self._segment(a, b)
        id = self._new_id("door", self._doors) if id is None else self._check_free_id(id)
        self._doors[id] = Door(id, a, b, bool(closed))
        self._changed()
        return id

    def set_door(self, id: str, closed: bool) -> None:
        door = self._doors.get(id)
        if door is None:
            raise KeyError(f"no door {id!r}")
        if door.closed != bool(closed):
            self._doors[id] = Door(id, door.a, door.b, bool(closed))
            self._changed()

    def remove_door(self, id: str) -> None:
        if id not in self._doors:
            raise KeyError(f"no door {id!r}")
        del self._doors[id]
        self._changed()

    def _check_cell(self, cell) -> Cell:
        cell = _cell(cell)
        if not self.in_bounds(cell):
            raise ValueError(say("cell {cell} is off the {width} x {height} board", cell=str(cell), width=self.width,
                                 height=self.height))
        return cell

    def block(self, cell) -> str:
        """Make ``cell`` impassable and opaque (a pillar); returns ``cell-x-y``."""
        cell = self._check_cell(cell)
        if cell not in self._blocked:
            self._blocked.add(cell)
            self._changed()
        return cell_id(cell)

    def block_many(self, cells) -> None:
        """``block`` of each of ``cells``, one change of the board for them all (a player's known board: every
        square never seen, tens of thousands on a big map)."""
        new = [self._check_cell(c) for c in cells]
        if new:
            self._blocked.update(new)
            self._changed()

    def unblock(self, cell) -> None:
        cell = _cell(cell)
        if cell in self._blocked:
            self._blocked.discard(cell)
            self._changed()

    def set_terrain(self, cell, cost: float) -> None:
        """A step into ``cell`` costs ``cost`` times normal (difficult terrain: 2)."""
        cell = self._check_cell(cell)
        if isinstance(cost, bool) or not isinstance(cost, (int, float)) or not math.isfinite(cost) or cost <= 0:
            raise ValueError(say("a terrain cost is a positive number, not {value}", value=repr(cost)))
        if cost == 1:
            self._terrain.pop(cell, None)
        else:
            self._terrain[cell] = cost
        self._changed()

    def add_cover(self, cell, material: str, id: str | None = None) -> str:
        """Put a piece of cover (crate, sandbags...) in ``cell``; returns its id."""
        cell = self._check_cell(cell)
        if not isinstance(material, str):
            raise ValueError(say("a cover material is a name, not {value}", value=repr(material)))
        id = self._new_id("cover", self._cover) if id is None else self._check_free_id(id)
        self._cover[id] = CoverPiece(id, cell, material)
        self._changed()
        return id

    def remove_cover(self, id: str) -> None:
        if id not in self._cover:
            raise KeyError(f"no cover piece {id!r}")
        del self._cover[id]
        self._changed()

    # ---------------------------------------------------------- persistence

    def to_dict(self) -> dict:
        """Plain JSON-able data; ``Board.from_dict`` gives the board back."""
        return {
            "width": self.width,
            "height": self.height,
            "grid": self.grid.kind,
            "orientation": self.grid.orientation,
            # Plain: lists of numbers and ids, not walked for words when the data goes into an event. Paced over a
            # copy of the walls taken at once (list()): between two slices a command may change the board
            "walls": Plain({"id": w.id, "a": list(w.a), "b": list(w.b)} for w in paced(list(self._walls.values()))),
            "doors": Plain(
                {"id": d.id, "a": list(d.a), "b": list(d.b), "closed": d.closed}
                for d in paced(list(self._doors.values()))
            ),
            "blocked": Plain(list(c) for c in sorted(self._blocked)),
            "terrain": Plain([x, y, cost] for (x, y), cost in sorted(self._terrain.items())),
            "cover": Plain(
                {"id": c.id, "cell": list(c.cell), "material": c.material} for c in self._cover.values()
            ),
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Board":
        try:
            board = cls(d["width"], d["height"], Grid.from_dict(d))
            for w in paced(d.get("walls", ())):
                board.add_wall(w["a"], w["b"], id=w["id"])
            for door in paced(d.get("doors", ())):
                board.add_door(door["a"], door["b"], closed=door.get("closed", True), id=door["id"])
            board.block_many(d.get("blocked", ()))
            for x, y, cost in d.get("terrain", ()):
                board.set_terrain((x, y), cost)
            for c in d.get("cover", ()):
                board.add_cover(c["cell"], c["material"], id=c["id"])
        except (KeyError, TypeError) as e:
            raise ValueError(say("not a board: {error}", error=repr(e))) from None
        return board

    def copy(self) -> "Board":
        return Board.from_dict(self.to_dict())

    def __eq__(self, other) -> bool:
        return isinstance(other, Board) and self.to_dict() == other.to_dict()

    def __repr__(self) -> str:
        return (
            f"Board({self.width}x{self.height}{' ' + self.grid.orientation + ' hex' if self.grid.hex else ''}, {len(self._walls)} walls, {len(self._doors)} doors, "
            f"{len(self._blocked)} blocked, {len(self._cover)} cover)"
        )

    # -------------------------------------------------------------- indexes

    @property
    def version(self) -> int:
        """A number that changes with every change to the board (its indexes are for one version)."""
        return self._version

    def indexed(self, name: str) -> bool:
        """Whether the index ``name`` ("segments", "steps") is built for the board as it is."""
        return name in self._cache

    def cached(self, name: str, make: Callable[[], T]) -> T:
        """The value kept as ``name`` for the board as it is, else ``make()`` made now and kept: any index or
        table a module derives from the board (emptied by every change to the board, copied by ``snapshot``)."""
        found = self._cache.get(name)
        if found is None:
            found = self._cache[name] = make()
        return found

    def bare(self) -> "Board":
        """A shallow copy of the board without what it keeps (``cached``): the state alone, to be pickled. The
        board itself is not touched (its walls, doors, cells and terrain are shared with the copy)."""
        copy = _copy.copy(self)
        copy._cache = {}
        return copy

    def share_in(self, memo: dict) -> None:
        """Prepares a ``copy.deepcopy`` memo so the deep copy of this board shares what is never changed in place
        (its walls', doors' and cover's frozen values) and starts without what it keeps (``cached``)."""
        memo[id(self._cache)] = {}
        for part in (self._walls, self._doors, self._cover):
            for value in part.values():
                memo[id(value)] = value

    def segments(self) -> "SegmentIndex":
        """Walls and closed doors, bucketed by the cells they touch (cached)."""
        return self.cached("segments", lambda: SegmentIndex(self))

    def step_masks(self) -> list[int]:
        """For each cell (index ``y * width + x``), a bit mask of the refused steps."""
        return self.cached("steps", lambda: hex_step_masks(self) if self.grid.hex else _step_masks(self))

    def step_blocked(self, a, b) -> bool:
        """True when a token may not step from cell ``a`` to the adjacent cell
        ``b`` (diagonals included): see the module docstring for the rule."""
        ax, ay = a
        bx, by = b
        if self.grid.hex:
            try:
                k = self.grid.neighbours((ax, ay)).index((bx, by))
            except ValueError:
                raise ValueError(say("cells {a} and {b} are not adjacent", a=str(tuple(a)), b=str(tuple(b)))) from None
            if not (0 <= ax < self.width and 0 <= ay < self.height):
                return True
            return bool(self.step_masks()[ay * self.width + ax] & (1 << k))
        d = (bx - ax, by - ay)
        bit = _STEP_BIT.get(d)
        if bit is None:
            raise ValueError(say("cells {a} and {b} are not adjacent", a=str(tuple(a)), b=str(tuple(b))))
        if not (0 <= ax < self.width and 0 <= ay < self.height):
            return True
        return bool(self.step_masks()[ay * self.width + ax] & bit)


def cell_id(cell) -> str:
    return f"cell-{cell[0]}-{cell[1]}"


# --------------------------------------------------------------------------
# exact geometry helpers


class SegmentIndex:
    """Walls and closed doors, each bucketed in the cells whose closed square
    covers part of it, so that every point of a wall lies in the square of at
    least one cell it is bucketed in. A ray then only looks at the walls in
    the cells it passes through."""

    def __init__(self, board: Board) -> None:
        self.width, self.height = board.width, board.height
        self.grid = grid = board.grid
        # the bucket grid: the cells on squares; unit squares of map units over a hex board's extent
        if grid.hex:
            self.bw, self.bh = bucket_size(grid, self.width, self.height)
        else:
            self.bw, self.bh = self.width, self.height
        segs: list[Segment] = []
        for w in board.walls.values():
            segs.append(Segment(len(segs), w.id, w.a, w.b))
        for d in board.doors.values():
            if d.closed:
                segs.append(Segment(len(segs), d.id, d.a, d.b))
        self.segs = segs
        # hexes: the buckets are unit squares shifted by an eighth (rules.hexgeom.SHIFT); a short wall (a hex
        # edge) goes in every bucket its bounding box meets. A big board's walls at once, in arrays: the same buckets
        if len(segs) >= stepmasks.WORTH:
            self.buckets = wallcells.buckets(segs, self.bw, self.bh, SHIFT if grid.hex else 0.0,
                                             2 if grid.hex else None, self._cells)
        else:
            buckets: list = [None] * (self.bw * self.bh)
            for s in segs:
                for i in self._cells(s):
                    b = buckets[i]
                    if b is None:
                        buckets[i] = [s.n]
                    else:
                        b.append(s.n)
            self.buckets = [tuple(b) if b else None for b in buckets]
        # the wall end points, to tell "walls meeting at a corner" apart
        self.blocked = frozenset(board.blocked)
        cover: dict[int, list[str]] = {}
        for c in board.cover_pieces.values():
            cover.setdefault(c.cell[1] * self.width + c.cell[0], []).append(c.id)
        self.cover = {k: tuple(sorted(v)) for k, v in cover.items()}
        w = self.width
        self.blocked_idx = frozenset(y * w + x for x, y in self.blocked)
        self._visible: dict[int, tuple | None] = {}
        if grid.hex:  # the blocking hexes and those with cover, bucketed like the walls
            cells = self.blocked_idx | set(self.cover)
            if len(cells) >= stepmasks.WORTH:  # many (a known board's unseen hexes): in arrays, the same buckets
                self.cell_buckets = wallcells.hex_cell_buckets(sorted(cells), grid, w, self.bw, self.bh)
            else:
                cb: list = [None] * (self.bw * self.bh)
                for i in cells:
                    for b in buckets_of_hex(grid, (i % w, i // w), self.bw, self.bh):
                        if cb[b] is None:
                            cb[b] = [i]
                        else:
                            cb[b].append(i)
                self.cell_buckets = cb

    def _cells(self, s: Segment):
        """The buckets of wall ``s`` (the loop's)."""
        if not self.grid.hex:
            return _cells_of_segment(s, self.bw, self.bh)
        b = Segment(s.n, s.id, (s.ax + SHIFT, s.ay + SHIFT), (s.bx + SHIFT, s.by + SHIFT))
        return _box_buckets(b, self.bw, self.bh) if abs(b.bx - b.ax) + abs(b.by - b.ay) <= 2 else \
            _cells_of_segment(b, self.bw, self.bh)

    def visible_part(self, n: int):
        """Segment ``n`` cut to the board and a margin of one cell around it:
        ``(x0, y0, x1, y1, err)`` with ``err`` a bound on how far the cut end
        points may lie off the true wall (0 when nothing was cut), or None
        when no part of it comes near the board."""
        if n in self._visible:
            return self._visible[n]
        s = self.segs[n]
        vx, vy = s.bx - s.ax, s.by - s.ay
        out = None
        span = clip_span(s.ax, s.ay, s.bx, s.by, self.bw, self.bh)
        if span is not None:
            t0, t1 = span
            if t0 < t1:
                if t0 == 0.0 and t1 == 1.0:
                    out = (s.ax, s.ay, s.bx, s.by, 0.0)
                else:
                    scale = abs(s.ax) + abs(s.ay) + abs(vx) + abs(vy)
                    out = (s.ax + t0 * vx, s.ay + t0 * vy, s.ax + t1 * vx, s.ay + t1 * vy, 1e-14 * scale)
        self._visible[n] = out
        return out


def _cells_of_segment(s: Segment, width: int, height: int):
    """Indexes of on-board cells covering segment ``s``: every point of the
    segment inside the board lies in the closed square of one of them."""
    ax, ay, bx, by = s.ax, s.ay, s.bx, s.by
    out: set[int] = set()
    if ax > bx:
        ax, ay, bx, by = bx, by, ax, ay
    if ax == bx:
        col = math.floor(ax)
        if 0 <= col < width:
            lo, hi = min(ay, by), max(ay, by)
            for row in _span(lo, hi, height):
                out.add(row * width + col)
        return out
    if ay == by:
        row = math.floor(ay)
        if 0 <= row < height:
            for col in _span(ax, bx, width):
                out.add(row * width + col)
        return out
    # any other direction: exact, column by column
    F = Fraction
    fax, fay, fbx, fby = F(ax), F(ay), F(bx), F(by)
    slope = (fby - fay) / (fbx - fax)
    for col in _span(fax, fbx, width):
        x_lo = max(fax, F(col))
        x_hi = min(fbx, F(col + 1))
        y1 = fay + (x_lo - fax) * slope
        y2 = fay + (x_hi - fax) * slope
        for row in _span(min(y1, y2), max(y1, y2), height):
            out.add(row * width + col)
    return out


def _box_buckets(s: Segment, width: int, height: int) -> list[int]:
    """The on-board cells whose closed square meets the segment's bounding box (a few more than the
    segment's own cells: for a short wall)."""
    cols = _span(min(s.ax, s.bx), max(s.ax, s.bx), width)
    return [row * width + col for row in _span(min(s.ay, s.by), max(s.ay, s.by), height) for col in cols]


def _span(lo, hi, size: int) -> range:
    """The cells along one axis whose closed extent covers [lo, hi]."""
    first = math.floor(lo)
    last = max(first, math.ceil(hi) - 1)
    return range(max(0, first), min(size - 1, last) + 1)


def _step_masks(board: Board) -> list[int]:
    w, h = board.width, board.height
    index = board.segments()
    buckets, segs = index.buckets, index.segs
    blocked = board._blocked
    masks = [0] * (w * h)
    bits = [(dx, dy, 1 << i) for i, (dx, dy) in enumerate(STEPS)]
    # the board's edge
    for y in range(h):
        for x in (0, w - 1):
            masks[y * w + x] |= _edge_bits(x, y, w, h, bits)
    for x in range(w):
        for y in (0, h - 1):
            masks[y * w + x] |= _edge_bits(x, y, w, h, bits)
    # blocking cells: no step into one, no diagonal past one (many: in arrays, the same bits)
    if len(blocked) >= stepmasks.WORTH:
        stepmasks.blocked_square_bits(masks, blocked, STEPS, w, h)
        blocked = ()
    for bx, by in blocked:
        for dx, dy, bit in bits:
            x, y = bx - dx, by - dy
            if 0 <= x < w and 0 <= y < h:
                masks[y * w + x] |= bit
        for dx, dy, bit in bits:
            if dx and dy:
                for x, y in ((bx - dx, by), (bx, by - dy)):
                    if 0 <= x < w and 0 <= y < h:
                        masks[y * w + x] |= bit
    # walls and closed doors (those along grid lines at once; on a big board every wall in arrays: the same bits)
    if len(segs) >= stepmasks.WORTH:
        stepmasks.square_wall_bits(masks, index, stepmasks.grid_wall_bits(masks, segs, STEPS, w, h), STEPS, w, h)
        return masks
    other = [not _grid_wall(seg, masks, w, h) for seg in segs]
    for seg, any_wall in zip(segs, other):
        if any_wall:
            _any_wall(seg, masks, buckets, w, h)
    return masks


def _mark(masks: list, w: int, h: int, x: int, y: int, dx: int, dy: int) -> None:
    if 0 <= x < w and 0 <= y < h:
        masks[y * w + x] |= _STEP_BIT[(dx, dy)]


def _block_corner(masks: list, w: int, h: int, cx: int, cy: int) -> None:
    """No diagonal step through the grid corner (cx, cy)."""
    _mark(masks, w, h, cx - 1, cy - 1, 1, 1)
    _mark(masks, w, h, cx, cy, -1, -1)
    _mark(masks, w, h, cx, cy - 1, -1, 1)
    _mark(masks, w, h, cx - 1, cy, 1, -1)


def _grid_wall(seg: "Segment", masks: list, w: int, h: int) -> bool:
    """A wall along a grid line between grid corners (the editor's walls):
    it stops the orthogonal steps across the edges it covers and the
    diagonal steps through every corner it touches. False for other walls."""
    ax, ay, bx, by = seg.ax, seg.ay, seg.bx, seg.by
    if not all(isinstance(v, int) for v in (ax, ay, bx, by)):
        return False
    if ay == by:
        if not 0 <= ay <= h:
            return True
        x0, x1 = max(min(ax, bx), 0), min(max(ax, bx), w)  # what lies off the board stops nothing
        for x in range(x0, x1 + 1):
            _block_corner(masks, w, h, x, ay)
        for x in range(x0, x1):
            _mark(masks, w, h, x, ay - 1, 0, 1)
            _mark(masks, w, h, x, ay, 0, -1)
        return True
    if ax == bx:
        if not 0 <= ax <= w:
            return True
        y0, y1 = max(min(ay, by), 0), min(max(ay, by), h)
        for y in range(y0, y1 + 1):
            _block_corner(masks, w, h, ax, y)
        for y in range(y0, y1):
            _mark(masks, w, h, ax - 1, y, 1, 0)
            _mark(masks, w, h, ax, y, -1, 0)
        return True
    return False


def _any_wall(seg: "Segment", masks: list, buckets: list, w: int, h: int) -> None:
    """Any other wall: test the steps that could meet it, i.e. those with
    one of its bucket cells as either end or, for a diagonal, beside it."""
    cells = _cells_of_segment(seg, w, h)
    tried: set[tuple[int, int]] = set()
    for b in cells:
        by, bx = divmod(b, w)
        for dx, dy in STEPS:
            starts = [(bx, by), (bx - dx, by - dy)]
            if dx and dy:
                starts += [(bx - dx, by), (bx, by - dy)]
            for x, y in starts:
                if not (0 <= x < w and 0 <= y < h):
                    continue
                i = y * w + x
                bit = _STEP_BIT[(dx, dy)]
                if masks[i] & bit or (i, bit) in tried:
                    continue
                tried.add((i, bit))
                if segment_touches(seg, x + 0.5, y + 0.5, x + dx + 0.5, y + dy + 0.5):
                    masks[i] |= bit


def _edge_bits(x: int, y: int, w: int, h: int, bits) -> int:
    m = 0
    for dx, dy, bit in bits:
        if not (0 <= x + dx < w and 0 <= y + dy < h):
            m |= bit
    return m
