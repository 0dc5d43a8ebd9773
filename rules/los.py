"""Line of fire, cover and visible cells on a :class:`rules.board.Board`.

The sight rule (used by all three):

- A sight line is the straight segment between two points; for
  ``line_of_fire`` and ``visible_cells`` those are the two cell centres.
- It is blocked by a wall or closed door that crosses it, or that runs
  along it for any length; it is blocked by a blocking cell whose inside
  it passes through (the two end cells never block their own line).
- A line that only touches a wall's end point, or the corner of a blocking
  cell, is clear; but where walls, doors or blocking cells meet at a point
  on the line from both sides of it (the line squeezes through a corner
  where they join), it is blocked, and all of them are its blockers.
- What touches the line exactly at one of its two end points is ignored
  (a wall drawn through a cell's centre does not hide that cell).
- The rule is the same read from either end, so line of fire is symmetric:
  orientation tests are exact (integers on the quarter grid, exact
  fractions for walls at arbitrary float points).

Cover samples 9 sight lines, from the attacker's cell centre to the points
at 1/4, 1/2 and 3/4 of the target cell's width and height (a 3 x 3
lattice, its middle point being the target's centre). A line is
obstructed by what blocks sight and also by a piece of cover whose cell it
passes through, or whose cell's corner it grazes where something else
meets that corner from the other side of the line (cover pieces in the
attacker's or target's own cell do not count: they do not stand between
the two). ``fraction`` is the share of
the 9 lines obstructed; 1.0 means none reaches the target.
"""

from __future__ import annotations

import math
from bisect import bisect_left, bisect_right
from functools import lru_cache
from heapq import heappop, heappush
from itertools import chain
from dataclasses import dataclass, field

import numpy as np

from . import fovarray
from .board import Board, SegmentIndex, cell_id, orient
from .cellmask import CellMask
from .fovtiles import (BandsAndTiles, SquareTiles, bands_of, hex_offsets as _hex_offsets, offsets as _offsets,
                       seg_distance as _seg_distance, tile_circles)
from .hexgeom import hex_contact, parity
from .text import say

#: the 3 x 3 lattice of cover sample points, in quarters of a cell
COVER_SAMPLES: tuple[tuple[int, int], ...] = tuple((sx, sy) for sy in (1, 2, 3) for sx in (1, 2, 3))


@dataclass(frozen=True)
class LineOfFire:
    clear: bool
    cells: list = field(default_factory=list)
    blockers: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"clear": self.clear, "cells": [list(c) for c in self.cells], "blockers": list(self.blockers)}


class _HexLineOfFire(LineOfFire):
    """A :class:`LineOfFire` on hexes whose ``cells`` (``Grid.line``) are worked out when first read:
    most callers ask only whether the line is clear and what blocks it."""

    def __init__(self, clear: bool, blockers: list, grid, a, b) -> None:
        object.__setattr__(self, "clear", clear)
        object.__setattr__(self, "blockers", blockers)
        object.__setattr__(self, "_line", (grid, a, b))

    @property
    def cells(self) -> list:
        found = self.__dict__.get("_cells")
        if found is None:
            grid, a, b = self._line
            found = grid.line(a, b)
            object.__setattr__(self, "_cells", found)
        return found

    def __eq__(self, other) -> bool:
        return isinstance(other, LineOfFire) and (self.clear, self.cells, self.blockers) == (
            other.clear, other.cells, other.blockers)

    __hash__ = None


@dataclass(frozen=True)
class Cover:
    fraction: float
    blockers: list = field(default_factory=list)

    def to_dict(self) -> dict:
        return {"fraction": self.fraction, "blockers": list(self.blockers)}


# --------------------------------------------------------------------------
# walking the grid


def _walk(X0: int, Y0: int, X1: int, Y1: int, w: int, k: int = 2):
    """Cells a segment passes through, in quarter-cell integer coordinates
    (``k``: in 2**k-ths of a cell; the hex boards' buckets walk in eighths).

    Both end points lie strictly inside cells. Returns ``(path, corners)``:
    the indexes (``y * w + x``) of the cells whose inside the segment
    crosses, in order, and for each exact corner crossing
    ``(corner_x, corner_y, side_cell_1, side_cell_2)``.
    """
    u = 1 << k
    cx, cy = X0 >> k, Y0 >> k
    ex, ey = X1 >> k, Y1 >> k
    DX, DY = X1 - X0, Y1 - Y0
    if DX > 0:
        sx, nx, ADX = 1, u * (cx + 1) - X0, DX
    elif DX < 0:
        sx, nx, ADX = -1, X0 - u * cx, -DX
    else:
        sx, nx, ADX = 0, 1, 0
    if DY > 0:
        sy, ny, ADY = 1, u * (cy + 1) - Y0, DY
    elif DY < 0:
        sy, ny, ADY = -1, Y0 - u * cy, -DY
    else:
        sy, ny, ADY = 0, 1, 0
    path = [cy * w + cx]
    corners = []
    append = path.append
    while cx != ex or cy != ey:
        a = nx * ADY
        b = ny * ADX
        if a < b:
            cx += sx
            nx += u
        elif b < a:
            cy += sy
            ny += u
        else:
            corners.append((cx + (sx > 0), cy + (sy > 0), cy * w + cx + sx, (cy + sy) * w + cx))
            cx += sx
            cy += sy
            nx += u
            ny += u
        append(cy * w + cx)
    return path, corners


# --------------------------------------------------------------------------
# one segment against one sight line

_NONE = 0
_BLOCK = 1


def _contact(s, px, py, qx, qy):
    """How wall ``s`` meets the sight line p-q: ``_NONE``, ``_BLOCK``, or
    ``(point, side)`` when one of its end points touches the open line and
    the rest of it lies on ``side`` (+1 / -1)."""
    ax, ay, bx, by = s.ax, s.ay, s.bx, s.by
    if s.exact:
        ux, uy = qx - px, qy - py
        d1 = ux * (ay - py) - uy * (ax - px)
        d2 = ux * (by - py) - uy * (bx - px)
        if (d1 > 0 and d2 > 0) or (d1 < 0 and d2 < 0):
            return _NONE
        o1 = (d1 > 0) - (d1 < 0)
        o2 = (d2 > 0) - (d2 < 0)
    else:
        o1 = orient(px, py, qx, qy, ax, ay)
        o2 = orient(px, py, qx, qy, bx, by)
        if o1 and o1 == o2:
            return _NONE
    if not o1 and not o2:
        return _BLOCK if _overlap(s, px, py, qx, qy) else _NONE
    if s.exact:
        vx, vy = bx - ax, by - ay
        d3 = vx * (py - ay) - vy * (px - ax)
        d4 = vx * (qy - ay) - vy * (qx - ax)
        o3 = (d3 > 0) - (d3 < 0)
        o4 = (d4 > 0) - (d4 < 0)
    else:
        o3 = orient(ax, ay, bx, by, px, py)
        o4 = orient(ax, ay, bx, by, qx, qy)
    if not o3 or not o4 or o3 == o4:
        return _NONE  # no contact, or contact at an end of the sight line
    if o1 and o2:
        return _BLOCK
    return ((ax, ay), o2) if not o1 else ((bx, by), o1)


def _overlap(s, px, py, qx, qy) -> bool:
    """A wall collinear with the sight line: do they share a stretch?"""
    from fractions import Fraction

    F = float if s.exact else Fraction  # an exact wall's and a sight line's sums and products are exact floats
    ux, uy = F(qx) - F(px), F(qy) - F(py)
    ta = (F(s.ax) - F(px)) * ux + (F(s.ay) - F(py)) * uy
    tb = (F(s.bx) - F(px)) * ux + (F(s.by) - F(py)) * uy
    lo, hi = max(min(ta, tb), 0), min(max(ta, tb), ux * ux + uy * uy)
    return hi > lo


def _side(px, py, qx, qy, cell: int, w: int) -> int:
    y, x = divmod(cell, w)
    d = (qx - px) * (y + 0.5 - py) - (qy - py) * (x + 0.5 - px)
    return 1 if d > 0 else -1


def _sight(index: SegmentIndex, X0, Y0, X1, Y1, ends, with_cover: bool, first: bool):
    """Evaluate one sight line given in quarter-cell coordinates.

    Returns ``(blocked, blockers, path, corners)``; with ``first`` it stops
    at the first thing found to block and ``blockers`` may be partial.
    """
    w = index.width
    path, corners = _walk(X0, Y0, X1, Y1, w)
    px, py, qx, qy = X0 / 4, Y0 / 4, X1 / 4, Y1 / 4
    blockers: set[str] = set()
    blocked_idx = index.blocked_idx
    cover = index.cover if with_cover else None
    for i in path:
        if i in blocked_idx and i not in ends:
            blockers.add(cell_id(divmod(i, w)[::-1]))
            if first:
                return True, blockers, path, corners
        if cover and i in cover and i not in ends:
            blockers.update(cover[i])
            if first:
                return True, blockers, path, corners
    buckets = index.buckets
    cand: set[int] = set()
    for i in path:
        b = buckets[i]
        if b:
            cand.update(b)
    for _cx, _cy, s1, s2 in corners:
        b = buckets[s1]
        if b:
            cand.update(b)
        b = buckets[s2]
        if b:
            cand.update(b)
    stop, touches = _walls_met(index.segs, cand, px, py, qx, qy, blockers, first)
    if stop:
        return True, blockers, path, corners
    for cx, cy, s1, s2 in corners:
        for sc in (s1, s2):
            ids = None
            if sc in blocked_idx:
                ids = [cell_id(divmod(sc, w)[::-1])]
            if cover and sc in cover:
                ids = (ids or []) + list(cover[sc])
            if ids:
                if touches is None:
                    touches = {}
                t = touches.setdefault((cx, cy), [0, []])
                t[0] |= 1 if _side(px, py, qx, qy, sc, w) > 0 else 2
                t[1].extend(ids)
    if touches and _squeezed(touches, blockers, first) and first:
        return True, blockers, path, corners
    return bool(blockers), blockers, path, corners


def _squeezed(touches: dict, blockers: set, first: bool) -> bool:
    """Where things touch the line at one point from both of its sides, they block it: into
    ``blockers``; True when one did (with ``first``, at the first found)."""
    found = False
    for mask, ids in touches.values():
        if mask == 3:
            blockers.update(ids)
            found = True
            if first:
                return True
    return found


def _check_cell(board: Board, cell) -> tuple[int, int]:
    try:
        x, y = cell
    except (TypeError, ValueError):
        raise ValueError(say("a cell is a pair (x, y), not {value}", value=repr(cell))) from None
    if not isinstance(x, int) or not isinstance(y, int) or not board.in_bounds((x, y)):
        raise ValueError(say("cell {cell} is not on the {width} x {height} board", cell=repr(cell), width=board.width,
                             height=board.height))
    return x, y


def _cells(indexes, w: int) -> list:
    return [(i % w, i // w) for i in indexes]


# --------------------------------------------------------------------------
# hexes: the same rule, with the walls and cells met found by unit squares of map units


#: a hex's corners lie within 0.56 map units of its centre (sqrt(0.5**2 + 0.25**2)): one whose centre
#: lies further than 0.6 from a sight line's line, ``d**2 > _HEX_FAR * |q - p|**2`` with ``d`` the
#: cross product, lies wholly on one side of it and neither touches nor obstructs it
_HEX_FAR = 0.36


def _hex_buckets(index: SegmentIndex, px, py, qx, qy) -> list:
    """The buckets (unit squares shifted by an eighth, so no point on a quarter lies on their edges)
    whose closed square the segment p-q meets, walked in eighths: those it passes through and, where
    it crosses a corner exactly, the two beside it."""
    path, corners = _walk(int(8 * px) + 1, int(8 * py) + 1, int(8 * qx) + 1, int(8 * qy) + 1, index.bw, 3)
    for _cx, _cy, s1, s2 in corners:
        path.append(s1)
        path.append(s2)
    return path


def _hex_met(index: SegmentIndex, buckets) -> tuple[set, set]:
    """The walls and the blocking or cover hexes in these buckets (most hold nothing), gathered
    without a Python loop over them. A wall or hex that meets a segment is in one of its buckets."""
    return (set(chain.from_iterable(filter(None, map(index.buckets.__getitem__, buckets)))),
            set(chain.from_iterable(filter(None, map(index.cell_buckets.__getitem__, buckets)))))


def _hex_sight(index: SegmentIndex, px, py, qx, qy, ends, with_cover: bool, first: bool, met=None):
    """:func:`_sight` on a hex board, for the segment p-q in map units (exact quarters).

    Returns ``(blocked, blockers)``; with ``first`` it stops at the first thing that blocks. ``met``:
    walls and hexes gathered already by :func:`_hex_met` from buckets that include the segment's
    (the others in it meet nothing of it and change nothing)."""
    if first and met is None:
        return _hex_first_block(index, px, py, qx, qy, ends, with_cover)
    cand, cells = met if met is not None else _hex_met(index, _hex_buckets(index, px, py, qx, qy))
    blockers: set[str] = set()
    stop, touches = _walls_met(index.segs, cand, px, py, qx, qy, blockers, first, sided=True)
    if stop:
        return True, blockers
    stop, touches = _hex_cells_met(index, cells, ends, px, py, qx, qy, with_cover, blockers, first, touches)
    if stop:
        return True, blockers
    if touches:
        _squeezed(touches, blockers, first)
    return bool(blockers), blockers


def _walls_met(segs, cand, px, py, qx, qy, blockers: set, first: bool, touches: dict | None = None,
               sided: bool = False):
    """The walls (numbers ``cand``) against the sight line p-q: those that block it go into
    ``blockers``; those that touch it with an end point go into ``touches`` (point -> [sides mask,
    ids]; ``touches``: what was met before, added to). Returns ``(stop, touches)``, ``stop`` when
    ``first`` and one blocks.

    ``sided`` (hexes): the first step of :func:`_contact` is done inline. Most walls in a hex sight
    line's buckets (twice as many as in a square one's cells) lie wholly on one side of the line, which
    that step tells (for a wall at float points, when :func:`orient`'s float filter, the same sums,
    tells it for both ends) without a call; on squares most walls met meet the line, and the step
    would only be done twice."""
    ux, uy = qx - px, qy - py
    for n in cand:
        s = segs[n]
        if sided:
            if s.exact:
                d1 = ux * (s.ay - py) - uy * (s.ax - px)
                d2 = ux * (s.by - py) - uy * (s.bx - px)
                if (d1 > 0 and d2 > 0) or (d1 < 0 and d2 < 0):
                    continue
            else:
                t1, t2 = ux * (s.ay - py), uy * (s.ax - px)
                d1, e1 = t1 - t2, 1e-12 * (abs(t1) + abs(t2))
                t1, t2 = ux * (s.by - py), uy * (s.bx - px)
                d2, e2 = t1 - t2, 1e-12 * (abs(t1) + abs(t2))
                if (d1 > e1 and d2 > e2) or (d1 < -e1 and d2 < -e2):
                    continue
        c = _contact(s, px, py, qx, qy)
        if not c:
            continue
        if c == _BLOCK:
            blockers.add(s.id)
            if first:
                return True, touches
            continue
        if touches is None:
            touches = {}
        t = touches.setdefault(c[0], [0, []])
        t[0] |= 1 if c[1] > 0 else 2
        t[1].append(s.id)
    return False, touches


def _hex_cells_met(index: SegmentIndex, cells, ends, px, py, qx, qy, with_cover: bool, blockers: set,
                   first: bool, touches: dict | None):
    """The blocking (and, ``with_cover``, cover) hexes among ``cells`` against the line p-q, as
    :func:`_walls_met` does the walls: one that blocks goes into ``blockers`` (with ``first``, the
    answer is then ``(True, touches)`` at once), one that touches it adds its points to ``touches``."""
    grid = index.grid
    w = index.width
    blocked_idx, cover = index.blocked_idx, index.cover
    ux, uy = qx - px, qy - py
    far = _HEX_FAR * (ux * ux + uy * uy)
    for i in cells:
        if i in ends:
            continue
        ids = []
        if i in blocked_idx:
            ids.append(cell_id((i % w, i // w)))
        if with_cover and i in cover:
            ids.extend(cover[i])
        if not ids:
            continue
        cell = (i % w, i // w)
        cx, cy = grid.centre(cell)
        dc = ux * (cy - py) - uy * (cx - px)
        if dc * dc > far:
            continue  # wholly on one side of the line (:data:`_HEX_FAR`)
        c = hex_contact(grid.corners(cell), cx, cy, px, py, qx, qy)
        if c is True:
            blockers.update(ids)
            if first:
                return True, touches
            continue
        for point, side in c:
            if touches is None:
                touches = {}
            t = touches.setdefault(point, [0, []])
            t[0] |= 1 if side > 0 else 2
            t[1].extend(ids)
    return False, touches


def _hex_first_block(index: SegmentIndex, px, py, qx, qy, ends, with_cover: bool):
    """:func:`_hex_sight` with ``first``: the same walls and cells against the same line p-q, but looked
    at bucket by bucket as the walk comes to them, from q back to p, so that it stops at the first one
    that blocks without walking the rest (the walk meets the same buckets either way). The field of
    view's exact tests are of cells just beyond something met late, so what hides them lies near q."""
    walls_in, cells_in, segs = index.buckets, index.cell_buckets, index.segs
    met: set[int] = set()
    cells_met: set[int] = set()
    blockers: set[str] = set()
    touches: dict | None = None
    for b in _hex_buckets(index, qx, qy, px, py):
        c = walls_in[b]
        if c:
            new = [n for n in c if n not in met]
            if new:
                met.update(new)
                stop, touches = _walls_met(segs, new, px, py, qx, qy, blockers, True, touches, sided=True)
                if stop:
                    return True, blockers
        c = cells_in[b]
        if c:
            new = [i for i in c if i not in cells_met]
            if new:
                cells_met.update(new)
                stop, touches = _hex_cells_met(index, new, ends, px, py, qx, qy, with_cover, blockers, True,
                                               touches)
                if stop:
                    return True, blockers
    if touches:
        _squeezed(touches, blockers, True)
    return bool(blockers), blockers


def _hex_line(board: Board, a, b, first: bool):
    index = board.segments()
    w = index.width
    pa, pb = board.grid.centre(a), board.grid.centre(b)
    return _hex_sight(index, pa[0], pa[1], pb[0], pb[1], (a[1] * w + a[0], b[1] * w + b[0]), False, first)


#: the cover sample points in a hex, as offsets from its centre in map units (the square lattice's
#: 3 x 3 points at quarters, all inside the hex)
HEX_COVER_SAMPLES = tuple(((sx - 2) / 4, (sy - 2) / 4) for sx, sy in COVER_SAMPLES)


def _hex_fan(index: SegmentIndex, px, py, cx, cy) -> list:
    """Buckets that include those of every cover line from p to the samples around c: the buckets of
    the four lines to the samples' corners (c +- 1/4, +- 1/4). Four walks instead of nine.

    The nine lines lie in the hull of p and the samples' square, whose width across them is at most
    0.71, too narrow to hold a bucket: a bucket that meets the hull meets its edge, made of parts of
    those four lines and of the square; and one that meets the square (smaller than a bucket) holds
    one of its corners, where one of the four lines ends."""
    out = []
    for ox in (HEX_COVER_SAMPLES[0][0], HEX_COVER_SAMPLES[-1][0]):
        for oy in (HEX_COVER_SAMPLES[0][1], HEX_COVER_SAMPLES[-1][1]):
            out.extend(_hex_buckets(index, px, py, cx + ox, cy + oy))
    return out


def line_of_fire(board: Board, a, b) -> LineOfFire:
    """Line of fire from the centre of cell ``a`` to the centre of cell ``b``.

    ``cells`` are the cells the line passes through, in order from ``a``
    (where it crosses a corner exactly, both cells beside the corner);
    ``blockers`` the sorted ids of every wall, door and blocking cell that
    stops it. See the module docstring for the rule.
    """
    ax, ay = _check_cell(board, a)
    bx, by = _check_cell(board, b)
    if (ax, ay) == (bx, by):
        return LineOfFire(True, [(ax, ay)], [])
    if board.grid.hex:  # cells: the hexes the line passes (Grid.line)
        blocked, blockers = _hex_line(board, (ax, ay), (bx, by), False)
        return _HexLineOfFire(not blocked, sorted(blockers), board.grid, (ax, ay), (bx, by))
    index = board.segments()
    w = index.width
    ends = (ay * w + ax, by * w + bx)
    blocked, blockers, path, corners = _sight(
        index, 4 * ax + 2, 4 * ay + 2, 4 * bx + 2, 4 * by + 2, ends, False, False
    )
    if corners:
        # a diagonal move along the path is a corner crossing: the two
        # cells beside that corner come between its two path cells
        order = [path[0]]
        ci = 0
        for prev, i in zip(path, path[1:]):
            if abs(i - prev) not in (1, w):
                order.extend(corners[ci][2:])
                ci += 1
            order.append(i)
        cells = _cells(order, w)
    else:
        cells = _cells(path, w)
    return LineOfFire(not blocked, cells, sorted(blockers))


def cover(board: Board, attacker, target) -> Cover:
    """The share of the 9 sight lines from the attacker's cell centre to the
    3 x 3 lattice of points in the target's cell that something obstructs
    (walls, doors, blocking cells, pieces of cover), and the sorted ids of
    everything that obstructs at least one of them. 1.0: no line reaches."""
    share, blockers = _cover(board, attacker, target, False)
    return Cover(share, sorted(blockers))


def cover_fraction(board: Board, attacker, target) -> float:
    """``cover(board, attacker, target).fraction``, each sight line stopped at the first thing that obstructs it
    (the foes' planner reads the share alone)."""
    return _cover(board, attacker, target, True)[0]


def _cover(board: Board, attacker, target, first: bool) -> tuple[float, set]:
    """:func:`cover`'s share and blockers (with ``first``, some of them only)."""
    ax, ay = _check_cell(board, attacker)
    tx, ty = _check_cell(board, target)
    if (ax, ay) == (tx, ty):
        return 0.0, set()
    index = board.segments()
    w = index.width
    ends = (ay * w + ax, ty * w + tx)
    obstructed = 0
    blockers: set[str] = set()
    if board.grid.hex:
        (px, py), (cx, cy) = board.grid.centre((ax, ay)), board.grid.centre((tx, ty))
        met = _hex_met(index, _hex_fan(index, px, py, cx, cy))
        for ox, oy in HEX_COVER_SAMPLES:
            blocked, ids = _hex_sight(index, px, py, cx + ox, cy + oy, ends, True, first, met)
            if blocked:
                obstructed += 1
                blockers |= ids
        return obstructed / len(HEX_COVER_SAMPLES), blockers
    X0, Y0 = 4 * ax + 2, 4 * ay + 2
    for sx, sy in COVER_SAMPLES:
        blocked, ids, _p, _c = _sight(index, X0, Y0, 4 * tx + sx, 4 * ty + sy, ends, True, first)
        if blocked:
            obstructed += 1
            blockers |= ids
    return obstructed / len(COVER_SAMPLES), blockers


def can_see(board: Board, a, b) -> bool:
    """``line_of_fire(board, a, b).clear``, without gathering the details."""
    ax, ay = _check_cell(board, a)
    bx, by = _check_cell(board, b)
    if (ax, ay) == (bx, by):
        return True
    if board.grid.hex:
        return not _hex_line(board, (ax, ay), (bx, by), True)[0]
    index = board.segments()
    w = index.width
    ends = (ay * w + ax, by * w + bx)
    return not _sight(index, 4 * ax + 2, 4 * ay + 2, 4 * bx + 2, 4 * by + 2, ends, False, True)[0]


def visible_cells(board: Board, origin, radius: float | None = None) -> set:
    """The cells a token in ``origin`` sees (for fog of war): every cell
    whose centre has a clear line of fire from the origin's centre (the
    same rule as :func:`line_of_fire`), within ``radius`` cells (centre to
    centre, Euclidean) when one is given. Blocking cells that are seen are
    included (one sees the pillar, not what is behind it).

    How it stays fast: cells are taken in order of distance while two sets
    of directions grow, built from the walls and blocking cells met so far:
    the *shadow* (directions in which something nearer than the cell
    certainly crosses the sight line) and the *touched* directions (in which
    something nearer might touch it). A cell in the shadow is hidden, a cell
    outside every touched direction is seen, and only the cells in between
    get the exact test of :func:`line_of_fire`. Both sets are widened or
    narrowed by a small angle so that rounding can only send a cell to the
    exact test, never decide it wrongly. Once the shadow covers every
    direction that still leads onto the board, the search stops. Cells in
    the shadow are skipped a band at a time, obstacles come in tiles, one in
    the shadow left out whole (:mod:`rules.fovtiles`; :class:`_HexFov`).
    On a big board (:func:`rules.fovarray.worth_it`), squares or hexes, the
    same sets are found for many cells at once in arrays
    (:mod:`rules.fovarray`): the same cells, in half the time of an open view
    or less, a millisecond or two more where walls close the view in (#69).
    """
    return _visible(board, origin, radius, None)


def visible_mask(board: Board, origin, radius: float | None = None) -> CellMask:
    """:func:`visible_cells` as a :class:`rules.cellmask.CellMask` of the board (what the fog's views are, #69): on
    a big board marked by the arrays straight into the mask's grid, no ``(x, y)`` made for the tens of thousands of
    cells seen."""
    w, h = board.width, board.height
    if fovarray.worth_it(w, h, radius):
        flat = np.zeros(w * h, dtype=bool)
        return CellMask(_visible(board, origin, radius, flat).reshape(h, w))
    return CellMask.of(_visible(board, origin, radius, None), w, h)


def _visible(board: Board, origin, radius: float | None, into):
    """:func:`visible_cells`; on a big board, with ``into`` (a flat grid of booleans), marked in it instead."""
    ox, oy = _check_cell(board, origin)
    index = board.segments()
    big = fovarray.worth_it(index.width, index.height, radius)  # a big board: every cell at once (#69)
    if board.grid.hex:
        fov = _HexFov(index, ox, oy, radius)
        if big:
            return fovarray.visible(index, ox, oy, radius, hex_sight(index, ox, oy), fov._chains(), into=into)
        return fov.run()
    if big:
        return fovarray.visible(index, ox, oy, radius, square_sight(index, ox, oy), into=into)
    return _SquareFov(index, ox, oy, radius).run()


def hex_sight(index: SegmentIndex, ox: int, oy: int):
    """The exact test of :func:`_hex_sight` from hex ``(ox, oy)``: ``test(x, y)`` True where it sees ``(x, y)``."""
    w, grid = index.width, index.grid
    px, py = grid.centre((ox, oy))
    return lambda x, y: not _hex_sight(index, px, py, *grid.centre((x, y)), (oy * w + ox, y * w + x), False, True,
                                       None)[0]


def square_sight(index: SegmentIndex, ox: int, oy: int):
    """The exact test of :func:`_sight` from square ``(ox, oy)``: ``test(x, y)`` True where it sees ``(x, y)``."""
    w = index.width
    return lambda x, y: not _sight(index, 4 * ox + 2, 4 * oy + 2, 4 * x + 2, 4 * y + 2, (oy * w + ox, y * w + x), False,
                                   True)[0]


_EPS = 1e-9  # radians: the margin between a decided direction and a doubtful one
_NARROW = 1e-7  # a gap in the shadow this narrow holds at most exact directions
_TWO_PI = 2 * math.pi


class _Union:
    """A union of angle intervals in (-pi, pi], as sorted disjoint lists."""

    __slots__ = ("starts", "ends")

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.ends: list[float] = []

    def add(self, lo: float, hi: float) -> None:
        if lo < -math.pi:
            self._add(lo + _TWO_PI, 4.0)
            self._add(-4.0, hi)
        elif hi > math.pi:
            self._add(lo, 4.0)
            self._add(-4.0, hi - _TWO_PI)
        else:
            self._add(lo, hi)

    def _add(self, lo: float, hi: float) -> None:
        S, E = self.starts, self.ends
        k = bisect_left(E, lo)
        j = bisect_right(S, hi)
        if k < j:
            if S[k] < lo:
                lo = S[k]
            if E[j - 1] > hi:
                hi = E[j - 1]
            S[k:j] = [lo]
            E[k:j] = [hi]
        else:
            S.insert(k, lo)
            E.insert(k, hi)

    def __contains__(self, a: float) -> bool:
        k = bisect_right(self.starts, a) - 1
        return k >= 0 and a <= self.ends[k]

    def gaps(self):
        """The directions not in the union, as (lo, hi) pairs."""
        S, E = self.starts, self.ends
        if not S:
            return [(-math.pi, math.pi)]
        out = []
        if S[0] > -math.pi:
            out.append((-math.pi, S[0]))
        for k in range(len(S) - 1):
            out.append((E[k], S[k + 1]))
        if E[-1] < math.pi:
            out.append((E[-1], math.pi))
        return out


class _Touched(_Union):
    """The touched directions of :class:`_HexFov`, each interval added also filed under the obstacle
    adding it (``by``: a chain's number, ``-1 - i`` for blocking hex ``i``), in bins of direction: an
    obstacle that meets a sight line holds its direction in the interval it added (as the search
    itself assumes when it sees a cell outside every touched direction without a test), so the exact
    test of a cell need look only at the obstacles filed in the bin of its direction."""

    __slots__ = ("bins", "everywhere", "by")

    #: the number of bins round the circle
    N = 512

    def __init__(self) -> None:
        super().__init__()
        self.bins: list = [None] * self.N
        self.everywhere: list = []  # obstacles over (nearly) the origin: they touch every direction
        self.by = None

    def add(self, lo: float, hi: float) -> None:
        super().add(lo, hi)
        if hi - lo >= _TWO_PI:
            self.everywhere.append(self.by)
        elif lo < -math.pi:
            self._file(lo + _TWO_PI, math.pi)
            self._file(-math.pi, hi)
        elif hi > math.pi:
            self._file(lo, math.pi)
            self._file(-math.pi, hi - _TWO_PI)
        else:
            self._file(lo, hi)

    def _file(self, lo: float, hi: float) -> None:
        bins, by, k, last = self.bins, self.by, self.N / _TWO_PI, self.N - 1
        for b in range(max(0, int((lo + math.pi) * k)), min(last, int((hi + math.pi) * k)) + 1):
            if bins[b] is None:
                bins[b] = [by]
            else:
                bins[b].append(by)

    def filed(self, ang: float) -> list:
        """The obstacles whose touched interval may hold direction ``ang``."""
        found = self.bins[min(self.N - 1, int((ang + math.pi) * (self.N / _TWO_PI)))]
        if self.everywhere:
            return (found or []) + self.everywhere
        return found or []


class _Fov:
    def __init__(self, index: SegmentIndex, ox: int, oy: int, radius) -> None:
        self.index = index
        self.ox, self.oy = ox, oy
        self.cx, self.cy = ox + 0.5, oy + 0.5
        self.radius = radius
        self.shadow = _Union()
        self.touched = _Union()
        self.pending: list = []  # (activation distance, lo, hi): shadows not yet valid
        self.out = {(ox, oy)}
        w = index.width
        self.ends_origin = oy * w + ox
        corners = [(0, 0), (index.width, 0), (0, index.height), (index.width, index.height)]
        self.board_corners = [
            (math.atan2(y - self.cy, x - self.cx), math.hypot(x - self.cx, y - self.cy)) for x, y in corners
        ]

    # obstacles -------------------------------------------------------------

    def _span(self, points):
        """Angular span (lo, hi) of points seen from the origin, and the
        largest distance; None when the origin is in line with them all."""
        cx, cy = self.cx, self.cy
        base = None
        lo = hi = 0.0
        rmax = 0.0
        for x, y in points:
            ang = math.atan2(y - cy, x - cx)
            r = math.hypot(x - cx, y - cy)
            if r > rmax:
                rmax = r
            if base is None:
                base = ang
                continue
            d = ang - base
            if d > math.pi:
                d -= _TWO_PI
            elif d <= -math.pi:
                d += _TWO_PI
            if d < lo:
                lo = d
            if d > hi:
                hi = d
        return base + lo, base + hi, rmax

    def _hidden(self, lo: float, hi: float) -> bool:
        """True when the directions lo..hi are all in the shadow already: an
        obstacle there can change nothing (the shadow only grows, and holds
        for every cell still to come), so it is left out."""
        if lo < -math.pi:
            lo += _TWO_PI
            hi += _TWO_PI
        S, E = self.shadow.starts, self.shadow.ends
        k = bisect_right(S, lo) - 1
        if k < 0 or E[k] < min(hi, math.pi):
            return False
        if hi > math.pi:
            k = bisect_right(S, -math.pi) - 1
            return k >= 0 and E[k] >= hi - _TWO_PI
        return True

    def _add_segment(self, s, m: int | None = None) -> None:
        # (``m``: the obstacle's number in :meth:`_obstacle_list`, the wall's own here)
        # the part of the wall over the board (within a margin of one cell:
        # no sight line on the board can meet the rest), its end points
        # known to within ``err`` (exact when nothing was cut off)
        piece = self._piece(s.n)
        if piece is None:
            return
        self._add_piece(piece)

    def _add_piece(self, piece) -> None:
        p0x, p0y, p1x, p1y, err = piece
        cx, cy = self.cx, self.cy
        dmin = _seg_distance(p0x - cx, p0y - cy, p1x - p0x, p1y - p0y)
        if dmin <= 1e-6 + 2 * err:
            # (nearly) through the origin's centre: the exact test decides
            self.touched.add(-4.0, 4.0)
            return
        margin = _EPS + 4 * err / dmin
        lo, hi, rmax = self._span(((p0x, p0y), (p1x, p1y)))
        if self._hidden(lo - margin, hi + margin):
            return
        self.touched.add(lo - margin, hi + margin)
        length = math.hypot(p1x - p0x, p1y - p0y)
        if length <= 4:
            heappush(self.pending, (rmax + err + 1e-9, lo + margin, hi - margin))
            return
        # a long wall casts its shadow piece by piece, each piece from the
        # distance of its own far end; the pieces overlap, so no direction
        # between two of them is left out
        vx, vy = p1x - p0x, p1y - p0y
        k = min(400, math.ceil(length / 2))
        for i in range(k):
            t0 = max(0.0, (i - 0.25) / k)
            t1 = min(1.0, (i + 1.25) / k)
            plo, phi, prmax = self._span(((p0x + t0 * vx, p0y + t0 * vy), (p0x + t1 * vx, p0y + t1 * vy)))
            heappush(self.pending, (prmax + err + 1e-6, plo + margin, phi - margin))

    def _add_block(self, x: int, y: int) -> None:
        lo, hi, rmax = self._span(((x, y), (x + 1, y), (x, y + 1), (x + 1, y + 1)))
        if self._hidden(lo - _EPS, hi + _EPS):
            return
        self.touched.add(lo - _EPS, hi + _EPS)
        heappush(self.pending, (rmax + 1e-9, lo + _EPS, hi - _EPS))

    def _obstacle_list(self) -> list:
        """Every wall, closed door and blocking cell as ``(nearest distance
        from the origin, 0, number)``, nearest first; a blocking cell ``c`` is
        numbered ``-1 - c`` (the 0: not a tile of them, :meth:`run`)."""
        index = self.index
        cx, cy = self.cx, self.cy
        out = []
        for s in index.segs:
            piece = self._piece(s.n)
            if piece is None:
                continue
            p0x, p0y, p1x, p1y, err = piece
            out.append((_seg_distance(p0x - cx, p0y - cy, p1x - p0x, p1y - p0y) - err - 1e-6, 0, s.n))
        w = index.width
        for i in index.blocked_idx:
            if i == self.ends_origin:
                continue
            y, x = divmod(i, w)
            out.append((self._block_distance(x, y) - 1e-6, 0, -1 - i))
        out.sort()
        return out

    def _piece(self, n: int):
        return self.index.visible_part(n)

    def _items(self) -> list:
        """What :meth:`_obstacle_list` numbers (``>= 0``) and :meth:`_add_segment` takes: the walls."""
        return self.index.segs

    def _block_distance(self, x: int, y: int) -> float:
        """The distance from the origin's centre to the nearest point of cell (x, y)."""
        cx, cy = self.cx, self.cy
        return math.hypot(max(x - cx, 0.0, cx - x - 1), max(y - cy, 0.0, cy - y - 1))

    def _offset_table(self) -> tuple:
        return _offsets(self.index.width, self.index.height)

    # the end -----------------------------------------------------------------

    def _exit(self, ang: float) -> float:
        """Distance from the origin to the board's edge in direction ``ang``."""
        c, s = math.cos(ang), math.sin(ang)
        w, h = self.index.width, self.index.height
        tx = (w - self.cx) / c if c > 1e-15 else (-self.cx / c if c < -1e-15 else math.inf)
        ty = (h - self.cy) / s if s > 1e-15 else (-self.cy / s if s < -1e-15 else math.inf)
        return min(tx, ty)

    def _open_gaps(self, d: float):
        """The gaps in the shadow that still lead onto the board beyond
        distance ``d``; None when one of them is wide (keep searching)."""
        narrow = []
        for lo, hi in self.shadow.gaps():
            if hi - lo < _NARROW:
                if self._exit((lo + hi) / 2) > d - 1e-6:
                    narrow.append((lo, hi))
                continue
            if self._exit(lo) > d - 1e-6 or self._exit(hi) > d - 1e-6:
                return None
            for ang, r in self.board_corners:
                if lo <= ang <= hi and r > d - 1e-6:
                    return None
        return narrow

    # the search --------------------------------------------------------------

    def _test(self, x: int, y: int, ang: float | None = None) -> None:
        """The exact test of :func:`_sight` (``ang``, the cell's direction: not needed on squares)."""
        index = self.index
        w = index.width
        ox, oy = self.ox, self.oy
        blocked = _sight(
            index, 4 * ox + 2, 4 * oy + 2, 4 * x + 2, 4 * y + 2, (self.ends_origin, y * w + x), False, True
        )[0]
        if not blocked:
            self.out.add((x, y))

    def _distances(self) -> list | None:
        """Every entry's distance in the offset table's order, where :meth:`_entries` may leave some out
        (:meth:`run` finds where an event falls among them); None where it never does (this search
        alone, the whole table: the event falls on the entry come to)."""
        return None

    def _entries(self):
        """The offset table's entries to look at, in runs (:meth:`run`): here the whole table."""
        yield self._offset_table()

    def _open_tile(self, k: int, opened: list) -> None:
        """This search alone has no tiles of obstacles (:meth:`_obstacle_list`); :class:`_SquareFov` and
        :class:`_HexFov` do (:class:`rules.fovtiles.BandsAndTiles`)."""
        raise AssertionError("the search without tiles has no tiles")

    def run(self) -> set:
        """The search (:func:`visible_cells`): the offset table's entries nearest first (:meth:`_entries`),
        each cell outside the shadow either seen at once (outside every touched direction) or given
        the exact test; at each event (an obstacle or a pending shadow's distance reached, every cell
        of distance to see whether the search may end) the slow path grows the sets.

        On hexes and squares the entries come band by band and a band may leave out the cells already
        in the shadow, and obstacles may come in tiles (:class:`_HexFov`, :class:`_SquareFov`). The slow
        path still runs at exactly the distances where the whole table's loop would run it (the first
        entry at or beyond the next event, left-out cells included), so walls, blocking cells and
        shadows come in, and the search ends, as they would."""
        index = self.index
        w, h = index.width, index.height
        ox, oy = self.ox, self.oy
        dists = self._distances()
        radius = math.inf if self.radius is None else self.radius
        shadow, pending = self.shadow, self.pending
        s_starts, s_ends = shadow.starts, shadow.ends
        t_starts, t_ends = self.touched.starts, self.touched.ends
        segs = self._items()
        add_segment, add_block, test = self._add_segment, self._add_block, self._test
        out = self.out
        obstacles = self._obstacle_list()  # (distance, kind, number) nearest first: kind 1 a tile of them
        n_obs = len(obstacles)
        g = 0  # obstacles[:g] are come to
        opened: list = []  # a heap of the obstacles of the tiles opened, not yet come to (:meth:`_open_tile`)
        open_tile = self._open_tile
        next_check = 1.0
        inf = math.inf
        next_event = 0.0
        for entries in self._entries():
            for d, ang, dx, dy in entries:
                while d >= next_event:
                    # the slow path, at the first entry at or beyond the event (perhaps one left out)
                    e = d if dists is None else dists[bisect_left(dists, next_event)]
                    if e > radius:
                        return out
                    while True:  # the obstacles up to e, from the list and the opened tiles, in one order
                        if g < n_obs and (not opened or obstacles[g] < opened[0]):
                            r, kind, m = obstacles[g]
                            if r > e:
                                break
                            g += 1
                        elif opened and opened[0][0] <= e:
                            r, kind, m = heappop(opened)
                        else:
                            break
                        if kind:
                            open_tile(m, opened)
                        elif m >= 0:
                            add_segment(segs[m], m)
                        else:
                            y, x = divmod(-1 - m, w)
                            add_block(x, y)
                    while pending and pending[0][0] < e:
                        _r, lo, hi = heappop(pending)
                        if lo < hi:
                            shadow.add(lo, hi)
                    if e >= next_check:
                        next_check = e + 1.0
                        gaps = self._open_gaps(e)
                        if gaps is not None:
                            self._gap_walk(gaps, e, radius)
                            return out
                    next_event = min(
                        next_check,
                        radius,
                        obstacles[g][0] if g < n_obs else inf,
                        opened[0][0] if opened else inf,
                        pending[0][0] if pending else inf,
                    )
                    if next_event <= e:
                        next_event = math.nextafter(e, inf)
                if d == 0:
                    continue
                x = ox + dx
                if x < 0 or x >= w:
                    continue
                y = oy + dy
                if y < 0 or y >= h:
                    continue
                j = bisect_right(s_starts, ang) - 1
                if j >= 0 and ang <= s_ends[j]:
                    continue
                j = bisect_right(t_starts, ang) - 1
                if j < 0 or ang > t_ends[j]:
                    out.add((x, y))
                    continue
                test(x, y, ang)
        return out

    def _gap_walk(self, gaps, d: float, radius: float) -> None:
        """After the search stopped at distance ``d``, the cells further away
        whose direction lies in one of the narrow gaps left in the shadow."""
        w, h = self.index.width, self.index.height
        ox, oy = self.ox, self.oy
        for lo, hi in gaps:
            mid = (lo + hi) / 2
            c, s = math.cos(mid), math.sin(mid)
            lo -= _EPS
            hi += _EPS
            if abs(c) >= abs(s):
                step = 1 if c > 0 else -1
                for dx in range(step, (w if step > 0 else -w), step):
                    x = ox + dx
                    if not 0 <= x < w:
                        break
                    yc = dx * s / c
                    for dy in (math.floor(yc), math.floor(yc) + 1):
                        self._gap_cell(dx, dy, lo, hi, d, radius, w, h)
            else:
                step = 1 if s > 0 else -1
                for dy in range(step, (h if step > 0 else -h), step):
                    y = oy + dy
                    if not 0 <= y < h:
                        break
                    xc = dy * c / s
                    for dx in (math.floor(xc), math.floor(xc) + 1):
                        self._gap_cell(dx, dy, lo, hi, d, radius, w, h)

    def _gap_cell(self, dx, dy, lo, hi, d, radius, w, h) -> None:
        x, y = self.ox + dx, self.oy + dy
        if not (0 <= x < w and 0 <= y < h):
            return
        r = math.hypot(dx, dy)
        if r < d - 1e-6 or r > radius:
            return
        a = math.atan2(dy, dx)
        if lo <= a <= hi or lo <= a + _TWO_PI <= hi or lo <= a - _TWO_PI <= hi:
            self._test(x, y)


class _SquareFov(SquareTiles, _Fov):
    """:class:`_Fov` with the offset table in bands and the obstacles in tiles (:mod:`rules.fovtiles`, #69): what
    :func:`visible_cells` runs on squares; :class:`_Fov` alone is the search of before, the tests' reference."""


#: the width, in true lengths, of a band of :func:`_hex_bands`
_BAND = 4.0
#: the side, in true lengths, of a tile of obstacles (:meth:`_HexFov._tiles`)
_TILE = 8.0


@lru_cache(maxsize=8)
def _hex_bands(grid, w: int, h: int, p: int) -> tuple:
    """:func:`_hex_offsets` cut into bands of distance :data:`_BAND` wide, each also sorted by angle, so
    that the cells of a band whose directions lie outside the shadow are found by bisection.

    Returns ``(dists, bands)``: every entry's distance in table order, and for each band ``(start,
    stop, angles, by_angle)``: its slice of the table, its entries sorted by angle and their angles."""
    return bands_of(_hex_offsets(grid, w, h, p), _BAND)


class _HexFov(BandsAndTiles, _Fov):
    """:class:`_Fov` on a hex board: the same search in true lengths (map units stretched by
    ``Grid.unit``, which keeps the order of directions), hexes' corners for a blocking cell's, the
    exact test of :func:`_hex_sight`, and the narrow gaps left at the end found among the cells
    still to come rather than walked row by row.

    A hex board's walls are runs of short edges, so it sees further than a square board and its
    search passes more cells and meets more walls. Three things keep it as cheap: once most
    directions are in the shadow, only the cells outside it are looked at (:meth:`run`); walls and
    blocking hexes come in tiles, a hidden tile left out whole (:meth:`_obstacle_list`); and a
    doubtful cell is tested against the obstacles filed under its direction (:class:`_Touched`,
    :meth:`_test`). None of them changes what is seen."""

    def __init__(self, index: SegmentIndex, ox: int, oy: int, radius) -> None:
        super().__init__(index, ox, oy, radius)
        self.touched = _Touched()
        grid = self.grid = index.grid
        self.ux, self.uy = grid.unit
        px, py = grid.centre((ox, oy))
        self.px, self.py = px, py
        self.cx, self.cy = px * self.ux, py * self.uy
        ex, ey = grid.extent(index.width, index.height)
        self.ex, self.ey = ex * self.ux, ey * self.uy
        corners = [(0, 0), (self.ex, 0), (0, self.ey), (self.ex, self.ey)]
        self.board_corners = [
            (math.atan2(y - self.cy, x - self.cx), math.hypot(x - self.cx, y - self.cy)) for x, y in corners
        ]

    def _piece(self, n: int):
        index = self.index
        pieces = index.__dict__.get("_true_pieces")
        if pieces is None:  # once per board version: every wall's part over the board, in true lengths
            ux, uy = self.ux, self.uy
            pieces = []
            for s in index.segs:
                piece = index.visible_part(s.n)
                if piece is not None:
                    p0x, p0y, p1x, p1y, err = piece
                    piece = (p0x * ux, p0y * uy, p1x * ux, p1y * uy, err * max(ux, uy))
                pieces.append(piece)
            index._true_pieces = pieces
        return pieces[n]

    def _chains(self) -> list:
        """The walls over the board in true lengths, joined where they meet end to end into short
        chains (a run of hex edges, within 4 hexes): a connected chain's directions from the origin
        are one interval, every direction inside it meets the chain (properly, or where two of its
        pieces meet from both sides), so it casts one shadow. Cached once per board version."""
        index = self.index
        found = index.__dict__.get("_true_chains")
        if found is not None:
            return found
        pieces = [self._piece(s.n) for s in index.segs]
        parent = list(range(len(pieces)))

        def root(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        at: dict = {}
        for n, p in enumerate(pieces):
            if p is None or p[4]:
                continue  # cut at the board's margin: alone
            for pt in ((p[0], p[1]), (p[2], p[3])):
                if pt in at:
                    parent[root(n)] = root(at[pt])
                else:
                    at[pt] = n
        groups: dict = {}
        for n, p in enumerate(pieces):
            if p is not None:
                groups.setdefault(root(n), []).append(n)
        found = []
        walls = []
        for ns in groups.values():
            g = [pieces[n] for n in ns]
            xs = [v for p in g for v in (p[0], p[2])]
            ys = [v for p in g for v in (p[1], p[3])]
            if len(g) > 1 and max(xs) - min(xs) + max(ys) - min(ys) <= 4:
                # with the circle round it, for a quick lower bound of its distance
                mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
                rad = max(math.hypot(x - mx, y - my) for x, y in zip(xs, ys)) + 1e-9
                # its points once each (pieces meet end to end: most points are two pieces'), the
                # first one first: :meth:`_span` measures from it, and the span is the same
                found.append((tuple(g), list(dict.fromkeys(zip(xs, ys))), mx, my, rad))
                walls.append(tuple(ns))
            else:
                found.extend(((p,), None, 0.0, 0.0, 0.0) for p in g)
                walls.extend((n,) for n in ns)
        index._true_chains = found
        index._chain_walls = walls  # each chain's walls (their numbers in ``index.segs``)
        return found

    def _items(self) -> list:
        return self._chains()

    def _obstacle_key(self, m: int) -> float:
        """:meth:`_Fov._obstacle_list`'s distance for obstacle ``m`` (a chain ``>= 0``, a blocking hex
        ``-1 - i``): a chain at least as near as any of it (what matters is that none comes late)."""
        cx, cy = self.cx, self.cy
        if m < 0:
            y, x = divmod(-1 - m, self.index.width)
            return self._block_distance(x, y) - 1e-6
        pieces, pts, mx, my, rad = self._chains()[m]
        if pts is None:
            p = pieces[0]
            d = _seg_distance(p[0] - cx, p[1] - cy, p[2] - p[0], p[3] - p[1]) - p[4]
        else:
            d = math.hypot(mx - cx, my - cy) - rad
        return d - 1e-6

    def _tiles(self) -> tuple:
        """The obstacles (chains, blocking hexes) grouped by the tile of :data:`_TILE` true lengths
        their middle lies in, each tile with a circle holding all of them: ``((mx, my, rad, members),
        ...)``, and apart the chains too long for a tile. Cached once per board version."""
        index = self.index
        found = index.__dict__.get("_true_tiles")
        if found is not None:
            return found
        tiles: dict = {}
        apart = []
        for m, (pieces, pts, mx, my, rad) in enumerate(self._chains()):
            if pts is None:  # a piece: the circle on it, its cut ends' error included
                p = pieces[0]
                mx, my = (p[0] + p[2]) / 2, (p[1] + p[3]) / 2
                rad = math.hypot(p[2] - p[0], p[3] - p[1]) / 2 + p[4]
            if rad > _TILE / 2:
                apart.append(m)
            else:
                tiles.setdefault((math.floor(mx / _TILE), math.floor(my / _TILE)), []).append((m, mx, my, rad))
        w = index.width
        for i in index.blocked_idx:  # :meth:`_block_distance`: its corners within 0.6 of its centre
            x, y = self.grid.centre((i % w, i // w))
            x, y = x * self.ux, y * self.uy
            tiles.setdefault((math.floor(x / _TILE), math.floor(y / _TILE)), []).append((-1 - i, x, y, 0.6))
        found = (tile_circles(tiles), tuple(apart))
        index._true_tiles = found
        return found

    def _obstacle_list(self) -> list:
        """The obstacles as ``(distance, kind, number)``, nearest first: kind 0 an obstacle
        (:meth:`_obstacle_key`), kind 1 a tile of :meth:`_tiles` at a distance no more than any of its
        obstacles', to be opened when the search comes to it (:meth:`_open_tile`)."""
        cx, cy = self.cx, self.cy
        tiles, apart = self._tiles()
        out = [(math.hypot(mx - cx, my - cy) - rad - 1e-3, 1, k) for k, (mx, my, rad, _m) in enumerate(tiles)]
        key = self._obstacle_key
        out.extend((key(m), 0, m) for m in apart)
        out.sort()
        return out

    def _add_segment(self, chain, m: int) -> None:
        """Chain ``m`` come to: its directions in the touched set, filed under ``m``, its shadow pending."""
        self.touched.by = m
        pieces, pts, mx, my, rad = chain
        if pts is None:
            self._add_piece(pieces[0])
            return
        ex, ey = mx - self.cx, my - self.cy
        dist = math.hypot(ex, ey)
        if dist - rad < 5:
            # near the origin a chain may wrap round it: its pieces one by one
            for p in pieces:
                self._add_piece(p)
            return
        # most chains met lie in the shadow already: first the directions of the circle round it (one
        # atan2), which hold its span; when they are hidden so is the span, and nothing changes
        a, half = math.atan2(ey, ex), math.asin(rad / dist) + 1e-9
        if self._hidden(a - half - _EPS, a + half + _EPS):
            return
        lo, hi, rmax = self._span(pts)
        if self._hidden(lo - _EPS, hi + _EPS):
            return
        self.touched.add(lo - _EPS, hi + _EPS)
        heappush(self.pending, (rmax + 1e-9, lo + _EPS, hi - _EPS))

    def _block_distance(self, x: int, y: int) -> float:
        cx, cy = self.grid.centre((x, y))
        return math.hypot(cx * self.ux - self.cx, cy * self.uy - self.cy) - 0.6  # a hex's corners: 1/sqrt(3) away

    def _add_block(self, x: int, y: int) -> None:
        self.touched.by = -1 - (y * self.index.width + x)
        ux, uy = self.ux, self.uy
        lo, hi, rmax = self._span([(px * ux, py * uy) for px, py in self.grid.corners((x, y))])
        if self._hidden(lo - _EPS, hi + _EPS):
            return
        self.touched.add(lo - _EPS, hi + _EPS)
        heappush(self.pending, (rmax + 1e-9, lo + _EPS, hi - _EPS))

    def _offset_table(self) -> tuple:
        return _hex_offsets(self.grid, self.index.width, self.index.height, parity(self.grid, self.ox, self.oy))

    def _bands(self) -> tuple:
        """:func:`_hex_bands` of this origin's offset table."""
        return _hex_bands(self.grid, self.index.width, self.index.height, parity(self.grid, self.ox, self.oy))

    #: a band's cells are looked at one by one (as :class:`_Fov` does) while more than this share of them lies
    #: outside the shadow; below it, only those found outside it by bisection (the tests raise it to 2:
    #: always)
    _PICK_BELOW = 0.5

    def _distances(self) -> list:
        return self._bands()[0]

    def _exit(self, ang: float) -> float:
        c, s = math.cos(ang), math.sin(ang)
        tx = (self.ex - self.cx) / c if c > 1e-15 else (-self.cx / c if c < -1e-15 else math.inf)
        ty = (self.ey - self.cy) / s if s > 1e-15 else (-self.cy / s if s < -1e-15 else math.inf)
        return min(tx, ty)

    def _test(self, x: int, y: int, ang: float | None = None) -> None:
        """The exact test of :func:`_hex_sight`. With ``ang``, the direction of a cell the search
        found outside the shadow, against the walls and blocking hexes of the obstacles filed in the
        touched set under it (:class:`_Touched`) rather than those of the buckets its sight line
        passes: no other meets the line (one not yet come to lies further than the cell; one left out
        as hidden lies wholly in directions of the shadow, and the cell's is not). Without (the narrow
        gaps' cells, whose directions may lie just inside the shadow), against the buckets'."""
        index = self.index
        qx, qy = self.grid.centre((x, y))
        ends = (self.ends_origin, y * index.width + x)
        met = None
        if ang is not None:
            walls = index._chain_walls
            cand: set[int] = set()
            cells: set[int] = set()
            for m in self.touched.filed(ang):
                if m >= 0:
                    cand.update(walls[m])
                else:
                    cells.add(-1 - m)
            met = (cand, cells)
        if not _hex_sight(index, self.px, self.py, qx, qy, ends, False, True, met)[0]:
            self.out.add((x, y))

    def _gap_walk(self, gaps, d: float, radius: float) -> None:
        """Along each narrow gap's middle direction, a point every 0.9 hex: a hex whose centre lies in so
        narrow a gap lies across that ray for at least a hex's width (its inradius is half a hex), so
        one of the points falls in it."""
        w, h = self.index.width, self.index.height
        grid, ux, uy = self.grid, self.ux, self.uy
        cx, cy = self.cx, self.cy
        tried = set(self.out)
        end = math.hypot(self.ex, self.ey)
        for lo, hi in gaps:
            mid = (lo + hi) / 2
            c, s = math.cos(mid), math.sin(mid)
            lo -= _EPS
            hi += _EPS
            t = max(0.0, d - 1.0)
            while t <= end + 1.0:
                x, y = grid.cell_at(((cx + t * c) / ux, (cy + t * s) / uy))
                t += 0.9
                if (x, y) in tried or not (0 <= x < w and 0 <= y < h):
                    continue
                qx, qy = grid.centre((x, y))
                ex, ey = qx * ux - cx, qy * uy - cy
                r = math.hypot(ex, ey)
                if r < d - 1e-6 or r > radius:
                    continue
                a = math.atan2(ey, ex)
                if lo <= a <= hi or lo <= a + _TWO_PI <= hi or lo <= a - _TWO_PI <= hi:
                    # tried only once tested: a ray passes hexes whose centres lie outside its gap,
                    # perhaps in the next gap, whose walk must still test them
                    tried.add((x, y))
                    self._test(x, y)
