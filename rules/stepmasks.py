"""The steps the walls of a big board refuse, for every wall at once in numpy arrays (#69): the same bits as the
wall-by-wall loops of ``rules.board._step_masks`` (squares) and ``rules.hexgeom.hex_step_masks`` (hexes), which
stay the definition and serve the small boards.

A wall refuses a step when it meets the segment between the two centres anywhere (``rules.segments
.segment_touches``). Here that test runs on arrays of (wall, step) pairs: the walls' and centres' coordinates as
floats, the same sums and products as the scalar test. Where the scalar test is exact in floats (a wall between
points on eighths of a cell, ``Segment.exact``: every product exact) the arrays give its very signs; elsewhere the
scalar test's float filter (``orient``: a sign is sure when it exceeds a bound) is applied the same way, and a pair
whose sign it cannot tell, or a collinear pair of such a wall, is handed to the scalar test itself (exact
fractions). The pairs looked at are the loops' own: on squares the steps from or beside the cells a wall is
bucketed in (``SegmentIndex.buckets``); on hexes the steps from the hexes a wall may hold a point of and their
neighbours (``hexes_near_segment``'s samples, a quarter apart along the wall's part on the board).

Pure: numpy's own loops (which leave the GIL while they run) and a few Python ones per wall at most.
"""

from __future__ import annotations

import math

import numpy as np

from .gridarrays import distinct, hex_at, hex_centres, neighbour_steps, runs
from .segments import segment_touches

#: walls on a board from which the arrays take the place of the wall-by-wall loops (a few milliseconds of numpy's
#: own cost a call: the loops are quicker below)
WORTH = 300
#: (wall, step) pairs judged at once (bounds the arrays' memory: a few tens of MB)
CHUNK = 200_000


def _walls(segs: list) -> tuple:
    """The walls' end points and whether each is exact (``Segment.exact``), as arrays indexed by ``Segment.n``."""
    ends = np.array([(s.ax, s.ay, s.bx, s.by) for s in segs], dtype=np.float64).reshape(-1, 4)
    return ends, np.array([s.exact for s in segs], dtype=bool)


def _orient(px, py, qx, qy, rx, ry, exact):
    """``rules.segments.orient`` (p -> q -> r), elementwise: the sign, and where the float filter cannot tell it
    (only where the points are not exact: there the sums are exact and the sign is sure)."""
    t1 = (qx - px) * (ry - py)
    t2 = (qy - py) * (rx - px)
    d = t1 - t2
    bound = np.where(exact, 0.0, 1e-12 * (np.abs(t1) + np.abs(t2)))
    sign = (d > bound).astype(np.int8) - (d < -bound).astype(np.int8)
    return sign, ~exact & (np.abs(d) <= bound)


def touching(segs: list, arrays: tuple, n, px, py, qx, qy):
    """For each pair ``i``: whether wall ``segs[n[i]]`` meets the closed segment p-q (``segment_touches``)."""
    ends, exacts = arrays
    ax, ay, bx, by = (ends[n, k] for k in range(4))
    exact = exacts[n]
    o1, u1 = _orient(px, py, qx, qy, ax, ay, exact)
    o2, u2 = _orient(px, py, qx, qy, bx, by, exact)
    apart = (o1 != 0) & (o1 == o2)  # both ends on one side of the step
    collinear = (o1 == 0) & (o2 == 0)
    o3, u3 = _orient(ax, ay, bx, by, px, py, exact)
    o4, u4 = _orient(ax, ay, bx, by, qx, qy, exact)
    out = ~((o3 != 0) & (o3 == o4))
    ux, uy = qx - px, qy - py  # collinear: do the extents overlap (or touch)?
    ta = (ax - px) * ux + (ay - py) * uy
    tb = (bx - px) * ux + (by - py) * uy
    overlap = (np.maximum(ta, tb) >= 0) & (np.minimum(ta, tb) <= ux * ux + uy * uy)
    out = np.where(collinear, overlap, out) & ~apart
    unsure = u1 | u2 | (~apart & ((collinear & ~exact) | (~collinear & (u3 | u4))))
    for i in np.flatnonzero(unsure).tolist():  # the scalar test, exact fractions
        out[i] = segment_touches(segs[int(n[i])], float(px[i]), float(py[i]), float(qx[i]), float(qy[i]))
    return out


def square_wall_bits(masks: list, index, other: list, steps: tuple, w: int, h: int) -> None:
    """``masks`` (a square board's refused steps) with the bits of the walls ``other[n]`` says (those not along
    grid lines, ``rules.board._any_wall``'s) set: each step from a cell the wall is bucketed in, or from the cell
    behind it (a diagonal's: the two beside), tested against the wall."""
    segs = index.segs
    cells, walls = [], []
    for b, found in enumerate(index.buckets):
        if found:
            for k in found:
                if other[k]:
                    cells.append(b)
                    walls.append(k)
    if not cells:
        return
    cells, walls = np.array(cells, dtype=np.int64), np.array(walls, dtype=np.int64)
    cy, cx = np.divmod(cells, w)
    arrays = _walls(segs)
    out = np.array(masks, dtype=np.int64)
    for bit, (dx, dy) in enumerate(steps):
        starts = [(0, 0), (-dx, -dy)] + ([(-dx, 0), (0, -dy)] if dx and dy else [])
        for sx, sy in starts:
            x, y = cx + sx, cy + sy
            on = (x >= 0) & (x < w) & (y >= 0) & (y < h)
            _touch_bits(out, segs, arrays, walls[on], x[on], y[on], dx, dy, 1 << bit, w, 0.5)
    masks[:] = out.tolist()


def grid_wall_bits(masks: list, segs: list, steps: tuple, w: int, h: int) -> list[bool]:
    """``masks`` (a square board's refused steps) with the bits of the walls along grid lines between grid corners
    set, as ``rules.board._grid_wall`` sets them wall by wall: the orthogonal steps across the edges a wall covers
    and the diagonal steps through every corner it touches (what lies off the board stops nothing). Each wall's
    corners and edges are marked at once along its row or column (a count that each wall adds one to from its
    first to past its last, summed along the line): a long wall costs no more than a short one. Which of ``segs``
    are not along grid lines (their bits left to ``square_wall_bits``): a list of booleans, ``_grid_wall``'s
    negation."""
    other = [True] * len(segs)
    rows: list[tuple] = []  # along a row (ay == by): (ay, x0, x1), clipped to the board
    cols: list[tuple] = []  # along a column: (ax, y0, y1)
    for k, seg in enumerate(segs):
        ax, ay, bx, by = seg.ax, seg.ay, seg.bx, seg.by
        if not (isinstance(ax, int) and isinstance(ay, int) and isinstance(bx, int) and isinstance(by, int)):
            continue
        if ay == by:
            other[k] = False
            if 0 <= ay <= h:
                rows.append((ay, max(min(ax, bx), 0), min(max(ax, bx), w)))
        elif ax == bx:
            other[k] = False
            if 0 <= ax <= w:
                cols.append((ax, max(min(ay, by), 0), min(max(ay, by), h)))
    corner, across = _along(rows, h, w)  # the corners (h + 1, w + 1), the edges under cell (x, y - 1) and over (x, y)
    turned, down = _along(cols, w, h)  # the same along the columns, turned: (x, y) as [x, y]
    corner, down = corner | turned.T, down.T  # down: the edges right of cell (x - 1, y) and left of (x, y)
    bit = {d: 1 << i for i, d in enumerate(steps)}
    out = np.array(masks, dtype=np.int64).reshape(h, w)
    for hit, d in ((corner[1:, 1:], (1, 1)), (corner[:-1, :-1], (-1, -1)), (corner[1:, :-1], (-1, 1)),
                   (corner[:-1, 1:], (1, -1)), (across[1:], (0, 1)), (across[:-1], (0, -1)),
                   (down[:, 1:], (1, 0)), (down[:, :-1], (-1, 0))):
        out[hit] |= bit[d]
    masks[:] = out.ravel().tolist()
    return other


def _along(walls: list, count: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """For ``walls`` along the grid lines ``0..count`` of one way (each ``(line, first, last)``, clipped to
    ``0..size``): the grid corners they touch, ``[line, 0..size]``, and the cell edges they cover,
    ``[line, 0..size - 1]``, as booleans. Each wall adds one to a count from its first corner (edge) to past its last,
    and the counts are summed along each line at once."""
    corners = np.zeros((count + 1, size + 2), dtype=np.int64)
    edges = np.zeros((count + 1, size + 1), dtype=np.int64)
    if walls:
        line, lo, hi = np.array(walls, dtype=np.int64).T
        on = hi >= lo
        np.add.at(corners, (line[on], lo[on]), 1)
        np.add.at(corners, (line[on], hi[on] + 1), -1)
        on = hi > lo
        np.add.at(edges, (line[on], lo[on]), 1)
        np.add.at(edges, (line[on], hi[on]), -1)
    return np.cumsum(corners, axis=1)[:, :size + 1] > 0, np.cumsum(edges, axis=1)[:, :size] > 0


def _touch_bits(out, segs, arrays, n, x, y, dx, dy, bit, w, half) -> None:
    """``out[y * w + x] |= bit`` where wall ``n`` meets the step from the centre of cell (x, y) by (dx, dy)."""
    i = y * w + x
    keep = (out[i] & bit) == 0  # refused already (the loops skip it too)
    n, x, y, i = n[keep], x[keep], y[keep], i[keep]
    for lo in range(0, len(n), CHUNK):
        part = slice(lo, lo + CHUNK)
        px, py = x[part] + half, y[part] + half
        hit = touching(segs, arrays, n[part], px, py, px + dx, py + dy)
        np.bitwise_or.at(out, i[part][hit], bit)


def hex_wall_bits(masks: list, index, grid, w: int, h: int) -> None:
    """``masks`` (a hex board's refused steps) with the bits of every wall set: each step between two hexes on the
    board from a hex the wall may hold a point of, or a neighbour of one, tested against the wall; a step a wall
    meets is refused both ways."""
    segs = index.segs
    if not segs:
        return
    ex, ey = grid.extent(w, h)
    arrays = _walls(segs)
    near_n, near_x, near_y = _near_hexes(arrays[0], grid, math.ceil(ex), math.ceil(ey), w, h)
    out = np.array(masks, dtype=np.int64)
    par = (near_y if grid.pointy else near_x) & 1
    for k, ((even_x, even_y), (odd_x, odd_y)) in enumerate(zip(*neighbour_steps(grid))):
        nx = near_x + np.where(par == 1, odd_x, even_x)
        ny = near_y + np.where(par == 1, odd_y, even_y)
        on = (nx >= 0) & (nx < w) & (ny >= 0) & (ny < h)
        n, x, y, nx, ny = near_n[on], near_x[on], near_y[on], nx[on], ny[on]
        i, j = y * w + x, ny * w + nx
        bit, back = 1 << k, 1 << ((k + 3) % 6)
        keep = ((out[i] & bit) == 0) | ((out[j] & back) == 0)  # refused both ways already: the loop skips it
        n, x, y, nx, ny, i, j = n[keep], x[keep], y[keep], nx[keep], ny[keep], i[keep], j[keep]
        for lo in range(0, len(n), CHUNK):
            part = slice(lo, lo + CHUNK)
            px, py = hex_centres(x[part], y[part], grid)
            qx, qy = hex_centres(nx[part], ny[part], grid)
            hit = touching(segs, arrays, n[part], px, py, qx, qy)
            np.bitwise_or.at(out, i[part][hit], bit)
            np.bitwise_or.at(out, j[part][hit], back)
    masks[:] = out.tolist()


def _clipped(ax, ay, vx, vy, width: int, height: int) -> tuple:
    """``clip_span`` of every wall (Liang-Barsky, the same sums): ``t0``, ``t1`` and whether any part is left."""
    t0, t1 = np.zeros(len(ax)), np.ones(len(ax))
    beside = np.zeros(len(ax), dtype=bool)
    for p, q in ((-vx, ax + 1), (vx, width + 1 - ax), (-vy, ay + 1), (vy, height + 1 - ay)):
        flat = p == 0
        beside |= flat & (q < 0)
        r = q / np.where(flat, 1.0, p)
        t0 = np.where(~flat & (p < 0), np.maximum(t0, r), t0)
        t1 = np.where(~flat & (p > 0), np.minimum(t1, r), t1)
    return t0, t1, ~beside & (t0 <= t1)


def _near_hexes(ends, grid, cw: int, ch: int, w: int, h: int) -> tuple:
    """``hexes_near_segment`` of every wall (``ends``: ``_walls``') at once: (wall, hex) pairs, each once, on the
    board. The walls' parts within the board's extent and a margin (``_clipped``), sampled a quarter apart along
    them."""
    ax, ay, bx, by = ends.T
    vx, vy = bx - ax, by - ay
    t0, t1, ok = _clipped(ax, ay, vx, vy, cw, ch)
    count = np.maximum(1, np.ceil(np.maximum(np.abs(vx), np.abs(vy)) * (t1 - t0) * 4)).astype(np.int64)
    count = np.where(ok, count, -1)  # no sample of a wall off the board
    owner, i = runs(np.zeros(len(count), dtype=np.int64), count)
    i = i.astype(np.float64)
    n = count[owner].astype(np.float64)
    s0 = t0[owner]
    at = s0 + (t1[owner] - s0) * i / n
    hx, hy, _d = hex_at(ax[owner] + at * vx[owner], ay[owner] + at * vy[owner], grid)
    new = np.ones(len(owner), dtype=bool)  # a sample in the hex of the one before it adds no hex
    new[1:] = (owner[1:] != owner[:-1]) | (hx[1:] != hx[:-1]) | (hy[1:] != hy[:-1])
    hx, hy, owner = hx[new], hy[new], owner[new]
    xs, ys, who = [hx], [hy], [owner]
    par = (hy if grid.pointy else hx) & 1
    for (even_x, even_y), (odd_x, odd_y) in zip(*neighbour_steps(grid)):
        xs.append(hx + np.where(par == 1, odd_x, even_x))
        ys.append(hy + np.where(par == 1, odd_y, even_y))
        who.append(owner)
    xs, ys, who = np.concatenate(xs), np.concatenate(ys), np.concatenate(who)
    on = (xs >= 0) & (xs < w) & (ys >= 0) & (ys < h)
    key = distinct((who[on] * h + ys[on]) * w + xs[on])
    who, rest = np.divmod(key, w * h)
    y, x = np.divmod(rest, w)
    return who, x, y


def _blocked_grid(blocked, w: int, h: int):
    """The blocking cells as booleans, with a margin of one cell all round (off the board: not blocking)."""
    grid = np.zeros((h + 2, w + 2), dtype=bool)
    xy = np.array(list(blocked), dtype=np.int64).reshape(-1, 2)
    grid[xy[:, 1] + 1, xy[:, 0] + 1] = True
    return grid


def blocked_square_bits(masks: list, blocked, steps: tuple, w: int, h: int) -> None:
    """``masks`` (a square board's) with the bits the blocking cells refuse (``_step_masks``' loop): no step into
    one, and no diagonal step past one (beside either of the two squares it passes between)."""
    grid = _blocked_grid(blocked, w, h)

    def at(dx, dy):  # for each cell, whether the cell (dx, dy) from it blocks
        return grid[1 + dy:h + 1 + dy, 1 + dx:w + 1 + dx]
    out = np.array(masks, dtype=np.int64).reshape(h, w)
    for bit, (dx, dy) in enumerate(steps):
        hit = at(dx, dy) | (at(dx, 0) | at(0, dy) if dx and dy else False)
        out[hit] |= 1 << bit
    masks[:] = out.ravel().tolist()


def blocked_hex_bits(masks: list, blocked, grid, w: int, h: int) -> None:
    """``masks`` (a hex board's) with the bits the blocking hexes refuse (``hex_step_masks``' loop): no step into
    one from a hex beside it."""
    cells = _blocked_grid(blocked, w, h)
    y, x = np.mgrid[0:h, 0:w]
    odd = ((y if grid.pointy else x) & 1) == 1
    out = np.array(masks, dtype=np.int64).reshape(h, w)
    for k, ((even_x, even_y), (odd_x, odd_y)) in enumerate(zip(*neighbour_steps(grid))):
        nx, ny = x + np.where(odd, odd_x, even_x), y + np.where(odd, odd_y, even_y)
        out[cells[ny + 1, nx + 1]] |= 1 << k
    masks[:] = out.ravel().tolist()
