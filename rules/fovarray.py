"""The field of view on a big board in arrays (numpy, #69): the same cells as ``rules.los``'s search, on squares
(:class:`rules.los._Fov`) and hexes (:class:`rules.los._HexFov`: true lengths, its walls joined in chains).

:class:`rules.los._Fov` takes the cells nearest first while two sets of directions grow from the walls and
blocking cells met so far: the *shadow* (directions in which something nearer than the cell certainly crosses
the sight line) and the *touched* directions (in which something nearer might touch it). A cell in the shadow
is hidden, a cell outside every touched direction is seen, the cells in between get the exact test. Each
obstacle adds to both sets by a rule that holds for every cell beyond a distance of its own, whatever the
order it is met in:

- a wall or blocking cell touches the directions of its angular span (widened by a small margin) for every
  cell at least as far as its nearest point: no sight line shorter than that reaches it;
- it shadows its span (narrowed by the margin) for every cell farther than its farthest point: such a cell's
  sight line crosses it (a long wall in pieces, each from its own far end).

So a cell at distance ``d`` in direction ``a`` is hidden when some obstacle's shadow holds ``a`` and begins
before ``d``, and seen when no obstacle's touched span holding ``a`` begins at or before ``d``: both are the
least distance, over the obstacles whose span holds ``a``, compared with ``d``. Here those least distances
are found for many cells at once: the offset table in rings of distance (kept per board size; a board's cells
are a window of it), each ring sorted by direction, each span a run of its cells, the least over the runs by
a sparse table of powers of two. The sets the search grows at a cell are those above, less the spans of
obstacles it leaves out for lying in the shadow already (which changes no cell: their cells are hidden), so
the cells seen, hidden and tested are the search's, and the exact test is its own (``test``). After each
ring, as the search does, only the gaps in the shadow that still lead onto the board are looked at in the
rings beyond; none left, the search ends. This pays on a big board (:func:`worth_it`): an open view on
300 x 300 squares in half the search's time; where walls close the view in, a millisecond more.

tests/unit/test_sight_speed.py holds it to the search on random boards, long and cut walls, doors, blocking
cells and radii; tests/unit/test_hex_rules.py on hexes, and both to line of fire. This module imports nothing
of ``rules.los`` (which hands it the exact test, and on hexes the chains).
"""

from __future__ import annotations

import math
from functools import lru_cache

import numpy as np

from .gridarrays import runs
from .hexgeom import parity
from .stepsearch import cells_of

#: radians: the margin between a decided direction and a doubtful one (``rules.los._EPS``)
EPS = 1e-9
#: the cells a search may look at from which the arrays pay (below it the search of ``rules.los`` is faster)
WORTH = 20_000
#: radians: a gap in the shadow this narrow holds at most exact directions (``rules.los._NARROW``)
NARROW = 1e-7
#: a wall longer than this casts its shadow in pieces (as ``rules.los._Fov._add_piece``)
LONG = 4


def worth_it(w: int, h: int, radius: float | None) -> bool:
    """Whether the arrays pay for a field of view on a ``w`` x ``h`` board within ``radius``."""
    cells = w * h if radius is None else min(w * h, math.pi * radius * radius)
    return cells >= WORTH


#: the rings of the offset table: the first reaches this far, each next one twice as far
RING = 8.0


@lru_cache(maxsize=6)
def _rings(grid, w: int, h: int, p: int) -> tuple:
    """The offset table of a ``w`` x ``h`` board (as ``rules.fovtiles.offsets``, on hexes ``hex_offsets`` from a
    cell of parity ``p``: every ``(dx, dy)`` from a cell to another, the true distance and angle between their
    centres) in rings, the first to :data:`RING`, each next one twice as far: ``(reach, angle, distance, dx,
    dy)`` each, the arrays sorted by angle. Worked out in arrays (the search's table is Python's, built cell by
    cell: a second on 300 x 300 hexes); a distance may differ from the search's in its last bit, which the
    margins of every comparison but a radius's hold (:func:`_within` rounds as the search does)."""
    dx = np.arange(-w + 1, w, dtype=np.int64)
    dy = np.arange(-h + 1, h, dtype=np.int64)
    if grid.hex:
        ux, uy = grid.unit
        o = (0, p) if grid.pointy else (p, 0)
        ox, oy = grid.centre(o)
        # a hex's centre: pointy, its column plus its row's offset across, its row's height down; flat, the same
        # with columns and rows swapped (rules.grid.Grid.centre)
        if grid.pointy:
            across = np.array([grid.centre((0, o[1] + j))[0] for j in dy.tolist()])
            down = np.array([grid.centre((0, o[1] + j))[1] for j in dy.tolist()])
            ex = ((dx[None, :] + across[:, None]) - ox) * ux
            ey = np.broadcast_to((down[:, None] - oy) * uy, ex.shape)
        else:
            across = np.array([grid.centre((o[0] + i, 0))[0] for i in dx.tolist()])
            down = np.array([grid.centre((o[0] + i, 0))[1] for i in dx.tolist()])
            ey = ((dy[:, None] + down[None, :]) - oy) * uy
            ex = np.broadcast_to((across[None, :] - ox) * ux, ey.shape)
    else:
        ex = np.broadcast_to(dx[None, :].astype(np.float64), (len(dy), len(dx)))
        ey = np.broadcast_to(dy[:, None].astype(np.float64), (len(dy), len(dx)))
    dist, angle = np.hypot(ex, ey).ravel(), np.arctan2(ey, ex).ravel()
    cols = np.broadcast_to(dx[None, :], ex.shape).ravel().astype(np.int32)
    rows = np.broadcast_to(dy[:, None], ex.shape).ravel().astype(np.int32)
    rings, inner, reach = [], 0.0, RING
    top = dist.max()
    while inner < top:
        part = np.flatnonzero((dist > inner) & (dist <= reach))
        part = part[np.argsort(angle[part], kind="stable")]
        rings.append((reach, _Sorted(np.ascontiguousarray(angle[part])), dist[part], cols[part], rows[part]))
        inner, reach = reach, 2 * reach
    return tuple(rings)


def _within(dist, dx, dy, radius: float, grid, p: int):
    """Which of the offsets ``dx``, ``dy`` (their distances ``dist``) are within ``radius``, as the search tells
    it: numpy's hypot rounds otherwise than ``math.hypot`` in the last bit for about one offset in 200, so the
    few near the radius are worked out again as ``rules.fovtiles.offsets`` and ``hex_offsets`` do."""
    inside = dist <= radius
    near = np.flatnonzero(np.abs(dist - radius) <= 1e-9 * max(1.0, radius))
    if len(near):
        ux, uy = grid.unit
        o = (0, p) if grid.pointy else (p, 0)
        ox, oy = grid.centre(o)
        for k in near.tolist():
            if grid.hex:
                x, y = grid.centre((o[0] + int(dx[k]), o[1] + int(dy[k])))
                inside[k] = math.hypot((x - ox) * ux, (y - oy) * uy) <= radius
            else:
                inside[k] = math.hypot(int(dx[k]), int(dy[k])) <= radius
    return inside


class _Sorted:
    """Sorted angles, and ``np.searchsorted`` on them for many directions at once by a table of bins over their
    distinct values: each direction starts at its bin's first value and steps on (a bisection per direction,
    as ``searchsorted`` does, waits on memory at each step on a big array)."""

    def __init__(self, angle) -> None:
        self.angle = angle
        self.n = len(angle)
        fresh = np.ones(self.n, dtype=bool)
        fresh[1:] = angle[1:] != angle[:-1]
        self.values = angle[fresh]  # the distinct angles, and where each begins (then the end)
        self.begins = np.concatenate((np.flatnonzero(fresh), [self.n]))
        self.bins = bins = 1 << max(4, (4 * max(len(self.values), 1) - 1).bit_length())
        self.step = 2 * math.pi / bins
        self.first = np.searchsorted(self.values, -math.pi + self.step * np.arange(bins + 1), side="left").astype(
            np.int32)

    def find(self, q, side: str):
        """``np.searchsorted(self.angle, q, side)``."""
        b = np.clip(np.floor((q + math.pi) / self.step).astype(np.int64) - 1, 0, self.bins)
        at = self.first[b]  # (a bin early: at or before the place, whatever the rounding)
        values, n = self.values, len(self.values)
        todo = np.arange(len(q))
        while len(todo):
            here = at[todo]
            val = values[np.minimum(here, n - 1)]
            more = (here < n) & ((val < q[todo]) if side == "left" else (val <= q[todo]))
            todo = todo[more]
            at[todo] += 1
        return self.begins[at]


def _walls(index) -> tuple:
    """Every wall's part over the board (``index.visible_part``) as arrays ``(x0, y0, x1, y1, err)``; kept on
    the index (once per board version)."""
    found = index.__dict__.get("_wall_arrays")
    if found is None:
        parts = [p for s in index.segs if (p := index.visible_part(s.n)) is not None]
        a = np.array(parts, dtype=np.float64).reshape(-1, 5)
        found = index.__dict__["_wall_arrays"] = tuple(np.ascontiguousarray(a[:, k]) for k in range(5))
    return found


def _span(xs: list, ys: list, cx: float, cy: float) -> tuple:
    """``rules.los._Fov._span`` for each row of points (``xs``, ``ys``: one array per point): the angular span
    ``(lo, hi)`` seen from ``(cx, cy)`` and the farthest distance."""
    base = np.arctan2(ys[0] - cy, xs[0] - cx)
    lo = np.zeros_like(base)
    hi = np.zeros_like(base)
    far = np.hypot(xs[0] - cx, ys[0] - cy)
    for x, y in zip(xs[1:], ys[1:]):
        d = np.arctan2(y - cy, x - cx) - base
        d = np.where(d > math.pi, d - 2 * math.pi, np.where(d <= -math.pi, d + 2 * math.pi, d))
        lo = np.minimum(lo, d)
        hi = np.maximum(hi, d)
        far = np.maximum(far, np.hypot(x - cx, y - cy))
    return base + lo, base + hi, far


def _unwrapped(lo, hi, at) -> tuple:
    """Intervals of direction as ``rules.los._Union.add`` files them: one reaching past -pi or pi in two."""
    under, over = lo < -math.pi, hi > math.pi
    plain = ~(under | over)
    parts_lo = [lo[plain], lo[under] + 2 * math.pi, np.full(int(under.sum()), -4.0), lo[over],
                np.full(int(over.sum()), -4.0)]
    parts_hi = [hi[plain], np.full(int(under.sum()), 4.0), hi[under], np.full(int(over.sum()), 4.0),
                hi[over] - 2 * math.pi]
    parts_at = [at[plain], at[under], at[under], at[over], at[over]]
    return np.concatenate(parts_lo), np.concatenate(parts_hi), np.concatenate(parts_at)


def _least(n: int, first, stop, at) -> np.ndarray:
    """For each of ``n`` angles (sorted), the least ``at`` of the runs ``first[i]:stop[i]`` of them that hold
    it (inf where none does; an interval of directions is such a run), by a sparse table of powers of two."""
    out = np.full(n, np.inf)
    keep = stop > first
    first, stop, at = first[keep], stop[keep], at[keep]
    if not len(at):
        return out
    length = stop - first
    level = np.floor(np.log2(length)).astype(np.int64)
    # (log2 of a power of two is exact, so each run's two blocks of 2**level cover it)
    top = int(level.max())
    table = [out] + [None] * top
    for k in range(top, -1, -1):
        mine = level == k
        row = np.full(n, np.inf) if k else out
        if mine.any():
            np.minimum.at(row, first[mine], at[mine])
            np.minimum.at(row, stop[mine] - (1 << k), at[mine])
        if k < top:  # the level above pushed down: a block of 2**(k+1) is two of 2**k
            above, half = table[k + 1], 1 << k
            np.minimum(row[: n - half], above[: n - half], out=row[: n - half])
            np.minimum(row[half:], above[: n - half], out=row[half:])
        table[k] = row
        if k + 1 <= top:
            table[k + 1] = None
    return table[0]


def _exit(ang, cx: float, cy: float, w: float, h: float):
    """The distance from ``(cx, cy)`` to the edge of a board ``w`` x ``h`` (true lengths) in each direction
    ``ang`` (``rules.los._Fov._exit``)."""
    c, s = np.cos(ang), np.sin(ang)
    with np.errstate(divide="ignore"):
        tx = np.where(c > 1e-15, (w - cx) / c, np.where(c < -1e-15, -cx / c, np.inf))
        ty = np.where(s > 1e-15, (h - cy) / s, np.where(s < -1e-15, -cy / s, np.inf))
    return np.minimum(tx, ty)


def _open_gaps(lo, hi, reach: float, cx: float, cy: float, w: float, h: float):
    """The gaps between the closed intervals ``[lo, hi]`` (as :func:`_unwrapped` files them) that lead onto the
    board (``w`` x ``h`` true lengths) farther than ``reach`` from ``(cx, cy)``, as ``rules.los._Fov._open_gaps``
    finds them (a gap's farthest point on the board is one of its ends or a corner of the board within it):
    ``(lo, hi, narrow)``, the gaps' ends as arrays and whether all of them are narrower than :data:`NARROW`
    (exact directions between two shadows, whose cells the search walks, each given the exact test)."""
    if len(lo):
        order = np.argsort(lo, kind="stable")
        lo, top = lo[order], np.maximum.accumulate(hi[order])
        gap = lo[1:] > top[:-1]
        g_lo = np.concatenate(([-math.pi], top[:-1][gap], [top[-1]]))
        g_hi = np.concatenate(([lo[0]], lo[1:][gap], [math.pi]))
        real = (g_lo < g_hi) & (g_lo < math.pi) & (g_hi > -math.pi)
        g_lo, g_hi = np.maximum(g_lo[real], -math.pi), np.minimum(g_hi[real], math.pi)
    else:
        g_lo, g_hi = np.array([-math.pi]), np.array([math.pi])
    beyond = reach - 1e-6
    on = (_exit(g_lo, cx, cy, w, h) > beyond) | (_exit(g_hi, cx, cy, w, h) > beyond)
    for x, y in ((0, 0), (w, 0), (0, h), (w, h)):
        a, r = math.atan2(y - cy, x - cx), math.hypot(x - cx, y - cy)
        if r > beyond:
            on |= (g_lo <= a) & (a <= g_hi)
    narrow = g_hi - g_lo < NARROW
    mid = (g_lo + g_hi) / 2
    wide = on & ~narrow
    lead = wide | (narrow & (_exit(mid, cx, cy, w, h) > beyond))
    return g_lo[lead], g_hi[lead], not wide.any()


class _Obstacles:
    """The obstacles' spans seen from ``(cx, cy)`` (see the module's docstring), taken in as the rings come to
    them (:meth:`upto`): the touched ones ``(lo, hi, from)`` and the shadows ``(lo, hi, beyond)``, each filed as
    :func:`_unwrapped` does. An obstacle's shadow begins beyond its nearest point, so those that hold within a
    distance are all of obstacles nearer than it. ``pieces``: walls (``x0, y0, x1, y1, err`` arrays), each a
    span of its own (``rules.los._Fov._add_piece``); ``spans``: obstacles whose span is found already (``lo,
    hi, farthest, nearest``: blocking cells, a hex board's chains of walls), within a margin of :data:`EPS`."""

    def __init__(self, cx: float, cy: float, pieces: tuple, spans: tuple) -> None:
        self.cx, self.cy = cx, cy
        x0, y0, x1, y1, err = pieces
        vx, vy = x1 - x0, y1 - y0
        ax, ay = x0 - cx, y0 - cy
        t = np.clip(-(ax * vx + ay * vy) / (vx * vx + vy * vy), 0.0, 1.0)
        near = np.hypot(ax + t * vx, ay + t * vy)  # rules.fovtiles.seg_distance
        self.pieces = (x0, y0, x1, y1, err, vx, vy, near)
        self.piece_from = near - err - 1e-6  # rules.los._Fov._obstacle_list
        self.spans = spans
        self.reach = -math.inf
        self.touched: list = []
        self.shadow: list = []
        self.kept = None

    def upto(self, reach: float) -> tuple:
        """Every obstacle that begins within ``reach``: ``(touched, shadows)`` as arrays ``(lo, hi, at)``."""
        if reach > self.reach:
            pieces = (self.piece_from > self.reach) & (self.piece_from <= reach)
            lo, hi, far, start = self.spans
            spans = (start > self.reach) & (start <= reach)
            self.reach = reach
            if pieces.any():
                self._pieces(*(a[pieces] for a in self.pieces), self.piece_from[pieces])
            if spans.any():
                lo, hi, far, start = lo[spans], hi[spans], far[spans], start[spans]
                self.touched.append(_unwrapped(lo - EPS, hi + EPS, start))
                self._shadow(lo + EPS, hi - EPS, far + 1e-9)
            if pieces.any() or spans.any() or self.kept is None:
                self.kept = tuple(tuple(np.concatenate(p) if p else np.zeros(0) for p in zip(*parts)) if parts
                                  else (np.zeros(0),) * 3 for parts in (self.touched, self.shadow))
        return self.kept

    def _pieces(self, x0, y0, x1, y1, err, vx, vy, near, starts) -> None:
        cx, cy = self.cx, self.cy
        through = near <= 1e-6 + 2 * err  # (nearly) through the origin's centre: every direction touched
        if through.any():
            s = starts[through]
            self.touched.append((np.full(len(s), -4.0), np.full(len(s), 4.0), s))
        keep = ~through
        x0, y0, x1, y1, err, vx, vy, near, starts = (a[keep] for a in (x0, y0, x1, y1, err, vx, vy, near, starts))
        margin = EPS + 4 * err / near
        lo, hi, far = _span([x0, x1], [y0, y1], cx, cy)
        self.touched.append(_unwrapped(lo - margin, hi + margin, starts))
        length = np.hypot(vx, vy)
        short = length <= LONG
        self._shadow(lo[short] + margin[short], hi[short] - margin[short], far[short] + err[short] + 1e-9)
        longs = ~short
        if longs.any():  # a long wall's shadow piece by piece, the pieces overlapping (rules.los._Fov._add_piece)
            k = np.minimum(400, np.ceil(length[longs] / 2)).astype(np.int64)
            owner, i = runs(np.zeros(len(k), dtype=np.int64), k - 1)
            kk = k[owner].astype(np.float64)
            t0 = np.maximum(0.0, (i - 0.25) / kk)
            t1 = np.minimum(1.0, (i + 1.25) / kk)
            px, py, pvx, pvy = x0[longs][owner], y0[longs][owner], vx[longs][owner], vy[longs][owner]
            plo, phi, pfar = _span([px + t0 * pvx, px + t1 * pvx], [py + t0 * pvy, py + t1 * pvy], cx, cy)
            m, e = margin[longs][owner], err[longs][owner]
            self._shadow(plo + m, phi - m, pfar + e + 1e-6)

    def _shadow(self, lo, hi, beyond) -> None:
        real = lo < hi  # (a span narrower than its margins shadows nothing)
        self.shadow.append(_unwrapped(lo[real], hi[real], beyond[real]))


def _blocked(index, ox: int, oy: int) -> tuple:
    """The blocking cells but the origin's own, as arrays of their columns and rows, and on hexes their centres
    and corners in map units (kept on the index: once per board version, not at every field of view)."""
    found = index.__dict__.get("_blocked_arrays")
    if found is None:
        w, grid = index.width, index.grid
        by, bx = np.divmod(np.array(sorted(index.blocked_idx), dtype=np.int64), w)
        cells = list(zip(bx.tolist(), by.tolist()))
        centres = np.array([grid.centre(c) for c in cells], dtype=np.float64).reshape(-1, 2) if grid.hex else None
        corners = np.array([grid.corners(c) for c in cells], dtype=np.float64).reshape(-1, 6, 2) if grid.hex else None
        found = index.__dict__["_blocked_arrays"] = (bx, by, centres, corners)
    bx, by, centres, corners = found
    other = (bx != ox) | (by != oy)
    return tuple(None if a is None else a[other] for a in (bx, by, centres, corners))


def _square_obstacles(index, ox: int, oy: int) -> _Obstacles:
    """The walls and blocking squares (their corners' span; nearest point, ``rules.los._Fov._block_distance``)."""
    cx, cy = ox + 0.5, oy + 0.5
    bx, by = (a.astype(np.float64) for a in _blocked(index, ox, oy)[:2])
    lo, hi, far = _span([bx, bx + 1, bx, bx + 1], [by, by, by + 1, by + 1], cx, cy)
    nx = np.maximum(np.maximum(bx - cx, 0.0), cx - bx - 1)
    ny = np.maximum(np.maximum(by - cy, 0.0), cy - by - 1)
    return _Obstacles(cx, cy, _walls(index), (lo, hi, far, np.hypot(nx, ny) - 1e-6))


def _chain_arrays(index, chains: list) -> tuple:
    """A hex board's walls as ``rules.los._HexFov._chains`` joins them, in arrays (once per board version, kept on
    the index): the walls alone ``(x0, y0, x1, y1, err)``; the chains' circles ``(mx, my, rad)``, their points
    (each chain's first point repeated to the longest's count: the same span) and their pieces with the number
    of the chain each belongs to."""
    found = index.__dict__.get("_chain_arrays")
    if found is None:
        alone = [p for pieces, pts, *_ in chains if pts is None for p in pieces]
        joined = [c for c in chains if c[1] is not None]
        most = max((len(c[1]) for c in joined), default=1)
        circles = np.array([c[2:] for c in joined], dtype=np.float64).reshape(-1, 3)
        points = np.array([c[1] + [c[1][0]] * (most - len(c[1])) for c in joined], dtype=np.float64)
        points = points.reshape(len(joined), most, 2)
        pieces = np.array([p for c in joined for p in c[0]], dtype=np.float64).reshape(-1, 5)
        owner = np.repeat(np.arange(len(joined)), [len(c[0]) for c in joined]).astype(np.int64)
        found = index.__dict__["_chain_arrays"] = (
            np.array(alone, dtype=np.float64).reshape(-1, 5), circles, points, pieces, owner)
    return found


def _hex_obstacles(index, ox: int, oy: int, chains: list) -> _Obstacles:
    """The walls in chains as ``rules.los._HexFov._add_segment`` takes them (a chain near the origin piece by
    piece, one farther off by the span of its points) and the blocking hexes (their corners' span; nearest
    ``rules.los._HexFov._block_distance``), in true lengths."""
    grid = index.grid
    ux, uy = grid.unit
    px, py = grid.centre((ox, oy))
    cx, cy = px * ux, py * uy
    alone, circles, points, pieces, owner = _chain_arrays(index, chains)
    mx, my, rad = circles[:, 0], circles[:, 1], circles[:, 2]
    dist = np.hypot(mx - cx, my - cy)
    near = dist - rad < 5  # near the origin a chain may wrap round it: its pieces one by one
    walls = np.concatenate((alone, pieces[near[owner]]))
    far_ = ~near
    lo, hi, farthest = _span(list(points[far_, :, 0].T), list(points[far_, :, 1].T), cx, cy)
    spans = [(lo, hi, farthest, dist[far_] - rad[far_] - 1e-6)]
    bx, _by, centres, corners = _blocked(index, ox, oy)
    if len(bx):
        lo, hi, farthest = _span(list(corners[:, :, 0].T * ux), list(corners[:, :, 1].T * uy), cx, cy)
        spans.append((lo, hi, farthest, np.hypot(centres[:, 0] * ux - cx, centres[:, 1] * uy - cy) - 0.6 - 1e-6))
    return _Obstacles(cx, cy, tuple(walls[:, k] for k in range(5)), tuple(np.concatenate(p) for p in zip(*spans)))


def visible(index, ox: int, oy: int, radius: float | None, test, chains: list | None = None,
            into: np.ndarray | None = None):
    """The cells a token in ``(ox, oy)`` sees on the board of ``index`` (a ``rules.board.SegmentIndex``), as
    ``rules.los.visible_cells`` gives them, each the board size's own tuple (``rules.stepsearch.cells_of``):
    ``test(x, y)`` the exact test of a doubtful cell (True: seen); on hexes, ``chains`` the walls as
    ``rules.los._HexFov._chains`` joins them. ``into``: a board's flat array of booleans (index ``y * w + x``) to
    mark the cells seen in, returned instead of a set (``rules.los.visible_mask``: no tuple made).

    Ring by ring of the offset table (:func:`_rings`), with the obstacles that may reach into it; once the
    shadows that hold for every cell beyond a ring cover every direction, the cells beyond are hidden."""
    w, h, grid = index.width, index.height, index.grid
    if grid.hex:
        ux, uy = grid.unit
        ex, ey = grid.extent(w, h)
        obstacles, ex, ey = _hex_obstacles(index, ox, oy, chains), ex * ux, ey * uy
        px, py = grid.centre((ox, oy))

        def place(x: int, y: int) -> tuple[int, int]:  # a centre's offset in quarters of map units: exact
            qx, qy = grid.centre((x, y))
            return round(4 * (qx - px)), round(4 * (qy - py))
    else:
        obstacles, ex, ey = _square_obstacles(index, ox, oy), w, h

        def place(x: int, y: int) -> tuple[int, int]:
            return x - ox, y - oy
    cx, cy = obstacles.cx, obstacles.cy
    table = cells_of(w, h)  # (the board size's own tuples: a view of thousands of cells makes none of its own)
    out = {table[oy * w + ox]} if into is None else None
    if into is not None:
        into[oy * w + ox] = True
    doubtful = []
    gaps = None  # the gaps in the shadow that lead on, after the first ring: the cells beyond in them alone
    p = parity(grid, ox, oy) if grid.hex else 0
    for reach, ring, dist, dx, dy in _rings(grid, w, h, p):
        x, y = dx + ox, dy + oy
        on = (x >= 0) & (x < w) & (y >= 0) & (y < h)
        if radius is not None:
            on &= _within(dist, dx, dy, radius, grid, p)
        if gaps is not None:
            g_lo, g_hi, narrow = gaps
            edges = np.zeros(ring.n + 1, dtype=np.int64)
            np.add.at(edges, ring.find(g_lo - EPS, "left"), 1)
            np.add.at(edges, ring.find(g_hi + EPS, "right"), -1)
            on &= np.cumsum(edges[:-1]) > 0
            if narrow:  # exact directions alone: each cell in them tested (rules.los._Fov._gap_walk)
                doubtful += map(table.__getitem__, (y[on] * w + x[on]).tolist())
                continue
        rank = np.concatenate(([0], np.cumsum(on)))  # a place in the ring -> among the cells looked at
        dist, x, y = dist[on], x[on], y[on]
        n = len(dist)
        (t_lo, t_hi, t_from), (s_lo, s_hi, s_beyond) = obstacles.upto(reach)
        if n:
            doubt = _least(n, rank[ring.find(t_lo, "left")], rank[ring.find(t_hi, "right")], t_from) <= dist
            cast = s_beyond < reach
            hidden = _least(n, rank[ring.find(s_lo[cast], "left")], rank[ring.find(s_hi[cast], "right")],
                            s_beyond[cast]) < dist
            doubt &= ~hidden
            seen = ~(hidden | doubt)
            if into is None:
                out.update(map(table.__getitem__, (y[seen] * w + x[seen]).tolist()))
            else:
                into[y[seen] * w + x[seen]] = True
            doubtful += map(table.__getitem__, (y[doubt] * w + x[doubt]).tolist())
        if radius is not None and reach >= radius:
            break
        cast = s_beyond < reach
        gaps = _open_gaps(s_lo[cast], s_hi[cast], reach, cx, cy, ex, ey)
        if not len(gaps[0]):  # every cell beyond is in the shadow
            break
    if into is None:
        out.update(_tested(doubtful, place, test))
        return out
    into[[cy * w + cx for cx, cy in _tested(doubtful, place, test)]] = True
    return into


def _tested(cells: list, place, test) -> list:
    """Of the doubtful ``cells``, those the exact test ``test`` sees, with fewer tests: in one direction from the
    origin a sight line once blocked stays blocked farther on (what blocks the nearer line lies inside the
    farther one, away from its ends: a wall crossing or running along it, walls meeting from both sides at a
    point of it, a blocking cell it passes through, which cannot be the farther end's cell), so of the cells
    in one direction those seen are the nearest ones, up to the first not seen: found by bisection.
    ``place(x, y)``: a cell's centre from the origin's in whole numbers of a unit (one direction: the same
    reduced pair)."""
    rays: dict = {}
    for cell in cells:
        dx, dy = place(*cell)
        k = math.gcd(dx, dy)
        rays.setdefault((dx // k, dy // k), []).append((k, cell))
    out = []
    for steps in rays.values():
        steps.sort()
        lo, hi = 0, len(steps)  # steps[:lo] seen, steps[hi:] not
        while lo < hi:
            mid = (lo + hi) // 2
            if test(*steps[mid][1]):
                lo = mid + 1
            else:
                hi = mid
        out += [cell for _k, cell in steps[:lo]]
    return out
