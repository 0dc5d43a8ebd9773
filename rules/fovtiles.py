"""The field of view's short cuts (:func:`rules.los.visible_cells`), shared by squares and hexes (#69).

The search of :class:`rules.los._Fov` takes the cells of an offset table nearest first and the walls and
blocking cells as it comes to them. Two short cuts, first taken on hexes (:class:`rules.los._HexFov`), now on
squares too (:class:`SquareTiles`):

- the offset table comes in bands of distance, each also sorted by direction, and once most of a band's
  directions are in the shadow only the cells outside it are looked at (found by bisection), not every
  cell of the band one by one (:class:`BandsAndTiles`);
- the obstacles come in tiles, each with a circle holding all of it: a tile is opened (its obstacles put
  in the search at their own distances) when the search comes to it, and a tile wholly in directions of
  the shadow by then is left out whole, so the walls far away or behind others are never looked at one by
  one (on a 300 x 300 board with 9,000 walls, measuring every wall's distance from the origin was most of
  a call's time).

Neither changes what is seen: the search still meets every obstacle at its own distance and runs its slow
path at exactly the distances the whole table's loop would (:meth:`rules.los._Fov.run` says why); an
obstacle or cell left out lies wholly in the shadow, which only grows. tests/unit/test_sight_speed.py holds
the squares to the search of before on random boards. This module imports nothing of ``rules.los``.
"""

from __future__ import annotations

import math
import threading
from bisect import bisect_left, bisect_right
from functools import lru_cache
from heapq import heappush

#: the width of a band of the squares' offset table (as ``rules.los._BAND``, the hexes')
BAND = 4.0
#: the side of a tile of the squares' obstacles, in cells (as ``rules.los._TILE``, the hexes')
TILE = 8.0
#: a square's corners lie sqrt(1/2) (0.7072) from its centre: the circle round a blocking cell in a tile
BLOCK_RADIUS = 0.71


@lru_cache(maxsize=8)
def offsets(w: int, h: int) -> tuple:
    """Cell offsets ``(distance, angle, dx, dy)`` from any cell of a w x h
    board, nearest first (a pure function of the board size, cached)."""
    out = []
    for dy in range(-h + 1, h):
        for dx in range(-w + 1, w):
            out.append((math.hypot(dx, dy), math.atan2(dy, dx), dx, dy))
    out.sort()
    return tuple(out)


@lru_cache(maxsize=8)
def hex_offsets(grid, w: int, h: int, p: int) -> tuple:
    """:func:`offsets` on hexes, from a cell of row (pointy) / column (flat) parity ``p``: the offset
    coordinates' differences ``(dx, dy)`` with the true distance and angle between the centres."""
    ux, uy = grid.unit
    o = (0, p) if grid.pointy else (p, 0)
    ox, oy = grid.centre(o)
    out = []
    for dy in range(-h + 1, h):
        for dx in range(-w + 1, w):
            x, y = grid.centre((o[0] + dx, o[1] + dy))
            ex, ey = (x - ox) * ux, (y - oy) * uy
            out.append((math.hypot(ex, ey), math.atan2(ey, ex), dx, dy))
    out.sort()
    return tuple(out)


def seg_distance(ax: float, ay: float, vx: float, vy: float) -> float:
    """Distance from the origin to the segment a + t v, t in 0..1."""
    vv = vx * vx + vy * vy
    t = -(ax * vx + ay * vy) / vv if vv > 0 else 0.0
    t = 0.0 if t < 0 else 1.0 if t > 1 else t
    return math.hypot(ax + t * vx, ay + t * vy)


def bands_of(table: tuple, band: float) -> tuple:
    """An offset table (nearest first) cut into bands of distance ``band`` wide, each also sorted by angle, so
    that the cells of a band whose directions lie outside the shadow are found by bisection.

    Returns ``(dists, bands)``: every entry's distance in table order, and for each band ``(start,
    stop, angles, by_angle)``: its slice of the table, its entries sorted by angle and their angles."""
    dists = [e[0] for e in table]
    bands = []
    start = 0
    while start < len(table):
        stop = bisect_left(dists, (math.floor(dists[start] / band) + 1) * band, start)
        by_angle = sorted(table[start:stop], key=lambda e: e[1])
        bands.append((start, stop, [e[1] for e in by_angle], by_angle))
        start = stop
    return dists, tuple(bands)


@lru_cache(maxsize=8)
def square_bands(w: int, h: int) -> tuple:
    """:func:`bands_of` the squares' offset table of a w x h board (cached), its bands cut as a search first comes
    to them (:class:`Bands`): a search ends within a few of them, and sorting all of a 300 x 300 board's by
    angle took a third of a second."""
    table = offsets(w, h)
    return [e[0] for e in table], Bands(table, BAND)


def tile_circles(tiles: dict) -> tuple:
    """Each tile's obstacles ``(number, x, y, radius)`` as one circle holding them all: ``(centre x, centre y,
    radius, numbers)``, the centre their mean, the radius the farthest one's reach (and a hair)."""
    found = []
    for members in tiles.values():
        mx = sum(c[1] for c in members) / len(members)
        my = sum(c[2] for c in members) / len(members)
        rad = max(math.hypot(x - mx, y - my) + r for _m, x, y, r in members) + 1e-6
        found.append((mx, my, rad, tuple(c[0] for c in members)))
    return tuple(found)

class Bands:
    """The bands of :func:`bands_of`, iterated in order, each cut (and kept) when an iteration first comes to it;
    iterations in several threads at once each see every band, cut once."""

    def __init__(self, table: tuple, band: float) -> None:
        self.table, self.band = table, band
        self.cut: list = []  # the bands cut so far, in order
        self.lock = threading.Lock()

    def __iter__(self):
        k = 0
        while True:
            if k == len(self.cut) and not self._cut_next():
                return
            yield self.cut[k]
            k += 1

    def _cut_next(self) -> bool:
        """Cuts the next band (unless another thread just did); False once the table is all cut."""
        with self.lock:
            table, cut = self.table, self.cut
            start = cut[-1][1] if cut else 0
            if start >= len(table):
                return False
            edge = (math.floor(table[start][0] / self.band) + 1) * self.band
            stop = bisect_left(table, (edge,), start)
            by_angle = sorted(table[start:stop], key=lambda e: e[1])
            cut.append((start, stop, [e[1] for e in by_angle], by_angle))
            return True


class BandsAndTiles:
    """The two short cuts, over a search class (:class:`rules.los._Fov`) that gives ``_offset_table`` and
    ``_bands`` (its table and :func:`bands_of` it), ``_tiles`` (``((mx, my, rad, members), ...)``, apart)
    and ``_obstacle_key``."""

    #: a band's cells are looked at one by one while more than this share of them lies outside the shadow;
    #: below it, only those found outside it by bisection
    _PICK_BELOW = 0.5

    def _open_tile(self, k: int, heap: list) -> None:
        """Tile ``k`` reached: its obstacles go into ``heap`` (:meth:`run`'s opened tiles') at their own
        distances, unless the tile is at least 5 away and all its directions are in the shadow already.
        Then every one of them would be left out when it came (:meth:`_add_segment`, :meth:`_add_block`:
        the shadow only grows, and theirs lie within the tile's directions), so they are left out now.
        (Nearer, a chain's pieces are taken one by one, and one over the origin touches every direction.)"""
        mx, my, rad, members = self._tiles()[0][k]
        ex, ey = mx - self.cx, my - self.cy
        dist = math.hypot(ex, ey)
        if dist - rad >= 5:
            a, half = math.atan2(ey, ex), math.asin(rad / dist) + 1e-7
            if self._hidden(a - half, a + half):
                return
        key = self._obstacle_key
        origin = -1 - self.ends_origin
        for m in members:
            if m != origin:
                heappush(heap, (key(m), 0, m))

    def _entries(self):
        """The offset table's entries (:func:`bands_of` it) to look at, a band at a time, each band's
        taken when the search comes to it: the whole band, or, when less than :attr:`_PICK_BELOW` of it
        lies outside the shadow, those entries only, in table order. Last, an entry off the board at
        the table's last distance: the events the left-out entries would have run are run before it."""
        table = self._offset_table()
        dists, bands = self._bands()
        starts = self.shadow.starts
        for start, stop, angles, by_angle in bands:
            if starts:
                picks, n = self._outside_shadow(angles)
                if n <= self._PICK_BELOW * (stop - start):
                    yield sorted([e for a, b in picks for e in by_angle[a:b]])
                    continue
            yield table[start:stop]
        yield ((dists[-1], 0.0, self.index.width, 0),)

    def _outside_shadow(self, angles: list) -> tuple:
        """The runs ``(a, b)`` of ``angles`` (sorted) outside the shadow, and how many angles they hold."""
        picks = []
        n = 0
        a = 0
        for lo, hi in zip(self.shadow.starts, self.shadow.ends):
            b = bisect_left(angles, lo, a)
            if b > a:
                picks.append((a, b))
                n += b - a
            a = bisect_right(angles, hi, b)
        if a < len(angles):
            picks.append((a, len(angles)))
            n += len(angles) - a
        return picks, n


class SquareTiles(BandsAndTiles):
    """The short cuts on squares: the bands of :func:`square_bands`, the walls over the board and the blocking
    cells in tiles of :data:`TILE` cells (the walls longer than a tile apart)."""

    def _bands(self) -> tuple:
        return square_bands(self.index.width, self.index.height)

    def _distances(self) -> list:
        return self._bands()[0]

    def _obstacle_key(self, m: int) -> float:
        """The distance the whole list of obstacles gives obstacle ``m`` (a wall ``>= 0``, a blocking cell
        ``-1 - i``; ``rules.los._Fov._obstacle_list``): no more than that of any point of it."""
        if m < 0:
            y, x = divmod(-1 - m, self.index.width)
            return self._block_distance(x, y) - 1e-6
        p0x, p0y, p1x, p1y, err = self._piece(m)
        return seg_distance(p0x - self.cx, p0y - self.cy, p1x - p0x, p1y - p0y) - err - 1e-6

    def _tiles(self) -> tuple:
        """The walls over the board and the blocking cells grouped by the tile of :data:`TILE` cells their
        middle lies in, each tile with a circle holding all of them: ``((mx, my, rad, members), ...)``, and
        apart the walls too long for a tile. Cached once per board version (on its index)."""
        index = self.index
        found = index.__dict__.get("_square_tiles")
        if found is not None:
            return found
        tiles: dict = {}
        apart = []
        for s in index.segs:
            piece = index.visible_part(s.n)
            if piece is None:
                continue
            p0x, p0y, p1x, p1y, err = piece
            mx, my = (p0x + p1x) / 2, (p0y + p1y) / 2
            rad = math.hypot(p1x - p0x, p1y - p0y) / 2 + err
            if rad > TILE / 2:
                apart.append(s.n)
            else:
                tiles.setdefault((math.floor(mx / TILE), math.floor(my / TILE)), []).append((s.n, mx, my, rad))
        w = index.width
        for i in index.blocked_idx:
            x, y = i % w + 0.5, i // w + 0.5
            tiles.setdefault((math.floor(x / TILE), math.floor(y / TILE)), []).append((-1 - i, x, y, BLOCK_RADIUS))
        found = (tile_circles(tiles), tuple(apart))
        index._square_tiles = found
        return found

    def _obstacle_list(self) -> list:
        """The obstacles as ``(distance, kind, number)``, nearest first: kind 1 a tile of :meth:`_tiles` at
        a distance no more than any of its obstacles', opened when the search comes to it
        (:meth:`BandsAndTiles._open_tile`), kind 0 a wall too long for a tile (:meth:`_obstacle_key`)."""
        cx, cy = self.cx, self.cy
        tiles, apart = self._tiles()
        out = [(math.hypot(mx - cx, my - cy) - rad - 1e-3, 1, k) for k, (mx, my, rad, _m) in enumerate(tiles)]
        key = self._obstacle_key
        out.extend((key(m), 0, m) for m in apart)
        out.sort()
        return out
