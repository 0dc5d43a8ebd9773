"""The cells a big board buckets its walls in (``rules.board.SegmentIndex.buckets``), every wall at once in numpy
arrays (#69): the very buckets of the wall-by-wall loop, which stays the definition and serves the small boards.

On squares a wall goes in the cells whose closed square covers part of it (``_cells_of_segment``): along a grid
line or any axis, the cells of its bounding box; any other way, column by column, the rows between the wall's
heights at the column's sides. Those heights are fractions ``N / D`` (``D`` the wall's run across): the loop works
them out in exact fractions; here ``N`` and ``D`` are floats, exact for a wall whose points are on 64ths of a
square within 2^16 of the board (the editor keeps points to eighths, an import to 64ths: every map's walls), and
so is the floor of their quotient (``_floor_div``); any other wall goes through the loop's own function. On
hexes (the buckets: unit squares of map units shifted by an eighth) a short wall goes in the buckets its bounding
box meets (``_box_buckets``), a longer one as on squares.
"""

from __future__ import annotations

import numpy as np

from .gridarrays import distinct, hex_centres, runs
from .hexgeom import SHIFT

_FINE = 64  #: a wall's points on 64ths of a square: the sums below are exact
_NEAR = 2.0 ** 16  #: ... and within this of the board's origin


def buckets(segs: list, width: int, height: int, shift: float, box_most: float | None, each) -> list:
    """``SegmentIndex.buckets``: for each cell (``y * width + x``) of a ``width`` x ``height`` bucket grid, the
    ``Segment.n`` of the walls in it (a tuple, in the walls' order) or None. ``shift``: added to every point (hexes:
    the buckets' eighth); ``box_most``: walls whose run across plus run down is at most this go in their bounding
    box's cells (hexes: 2), None: the squares' rule; ``each(seg)``: the loop's cells of a wall the arrays leave to
    it (``SegmentIndex._cells``: shifted there on hexes)."""
    if not segs:
        return [None] * (width * height)
    ends = np.array([(s.ax, s.ay, s.bx, s.by) for s in segs], dtype=np.float64).reshape(-1, 4) + shift
    swap = ends[:, 0] > ends[:, 2]  # west end first, as the loop turns it
    ends[swap] = ends[swap][:, [2, 3, 0, 1]]
    ax, ay, bx, by = ends.T
    fine = np.all((np.abs(ends) < _NEAR) & (ends * _FINE == np.floor(ends * _FINE)), axis=1)
    box = (ax == bx) | (ay == by)  # across or down: the loop's cells are its bounding box's
    if box_most is not None:
        box |= np.abs(bx - ax) + np.abs(by - ay) <= box_most
    slant = ~box & fine
    left = np.flatnonzero(~box & ~fine)
    cells, walls = [], []
    n = np.arange(len(segs))
    _boxed(cells, walls, n[box], ax[box], np.minimum(ay, by)[box], bx[box], np.maximum(ay, by)[box], width, height)
    _slanted(cells, walls, n[slant], ax[slant], ay[slant], bx[slant], by[slant], width, height)
    for k in left.tolist():  # points the floats cannot hold exactly: the loop's exact fractions
        found = list(each(segs[k]))
        cells.append(np.array(found, dtype=np.int64))
        walls.append(np.full(len(found), k, dtype=np.int64))
    return _grouped(np.concatenate(cells), np.concatenate(walls), len(segs), width * height)


def _span(lo, hi, size: int) -> tuple:
    """``rules.board._span`` elementwise: the first and last cells along an axis whose closed extent covers
    [lo, hi] (none where first > last)."""
    first = np.floor(lo)
    last = np.maximum(first, np.ceil(hi) - 1)
    return np.maximum(0, first).astype(np.int64), np.minimum(size - 1, last).astype(np.int64)


def _boxed(cells: list, walls: list, n, x0, y0, x1, y1, width: int, height: int) -> None:
    """The cells of each wall's bounding box ``[x0, x1] x [y0, y1]``."""
    c0, c1 = _span(x0, x1, width)
    r0, r1 = _span(y0, y1, height)
    k, col = runs(c0, c1)
    j, row = runs(r0[k], r1[k])
    cells.append(row * width + col[j])
    walls.append(n[k][j])


def _floor_div(num, den):
    """floor(num / den), den > 0, for ``num`` on 4096ths and ``den`` on 64ths below 2^17 (a wall on 64ths within
    2^16): exact. A quotient that is no whole number ``k`` lies 1 / (4096 den) > 2^-29 from it at least (``num - k
    den`` a nonzero multiple of 1/4096), and the division, rounded to the nearest float, errs by 2^-36 at most on
    heights below 2^17: it stays on the same side of ``k``."""
    return np.floor(num / den)


def _slanted(cells: list, walls: list, n, ax, ay, bx, by, width: int, height: int) -> None:
    """Walls neither across nor down (ax < bx), column by column: the rows between the wall's heights at the
    column's two sides (``_cells_of_segment``'s exact fractions: each height ``N / D``, ``D = bx - ax``)."""
    c0, c1 = _span(ax, bx, width)
    k, col = runs(c0, c1)
    ax, ay, bx, by = ax[k], ay[k], bx[k], by[k]
    d, rise = bx - ax, by - ay
    x_lo, x_hi = np.maximum(ax, col), np.minimum(bx, col + 1)
    n_lo, n_hi = ay * d + (x_lo - ax) * rise, ay * d + (x_hi - ax) * rise
    low, high = np.minimum(n_lo, n_hi), np.maximum(n_lo, n_hi)
    first = _floor_div(low, d)
    last = np.maximum(first, -_floor_div(-high, d) - 1)  # ceil(high / d) - 1
    r0, r1 = np.maximum(0, first).astype(np.int64), np.minimum(height - 1, last).astype(np.int64)
    j, row = runs(r0, r1)
    cells.append(row * width + col[j])
    walls.append(n[k][j])


def _grouped(cells, walls, count: int, size: int) -> list:
    """Cell -> the walls in it, in their order (a tuple), None for a cell with none; each pair once."""
    out: list = [None] * size
    if not len(cells):
        return out
    keys = distinct(cells * count + walls)
    cell, wall = np.divmod(keys, count)
    starts = np.flatnonzero(np.concatenate(([True], cell[1:] != cell[:-1])))
    bounds = np.append(starts, len(keys)).tolist()
    wall = wall.tolist()
    for k, c in enumerate(cell[starts].tolist()):
        out[c] = tuple(wall[bounds[k]:bounds[k + 1]])
    return out


def hex_cell_buckets(cells: list, grid, width: int, bw: int, bh: int) -> list:
    """``SegmentIndex.cell_buckets``: for each bucket, the hexes (``y * width + x``, of ``cells``) whose bounding box
    meets it (``buckets_of_hex``: the shifted unit squares within half a unit of its centre), a list, or None."""
    out: list = [None] * (bw * bh)
    if not cells:
        return out
    i = np.array(cells, dtype=np.int64)
    y, x = np.divmod(i, width)
    cx, cy = hex_centres(x, y, grid)
    cx, cy = cx + SHIFT, cy + SHIFT
    c0, c1 = np.maximum(0, np.floor(cx - 0.5)), np.minimum(bw - 1, np.floor(cx + 0.5))
    r0, r1 = np.maximum(0, np.floor(cy - 0.5)), np.minimum(bh - 1, np.floor(cy + 0.5))
    k, col = runs(c0.astype(np.int64), c1.astype(np.int64))
    j, row = runs(r0[k].astype(np.int64), r1[k].astype(np.int64))
    bucket, hexes = row * bw + col[j], i[k][j]
    order = np.lexsort((hexes, bucket))
    bucket, hexes = bucket[order], hexes[order]
    starts = np.flatnonzero(np.concatenate(([True], bucket[1:] != bucket[:-1])))
    bounds = np.append(starts, len(bucket)).tolist()
    hexes = hexes.tolist()
    for n, b in enumerate(bucket[starts].tolist()):
        out[b] = hexes[bounds[n]:bounds[n + 1]]
    return out
