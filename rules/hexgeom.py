"""Hex boards: the step rule, the wall buckets and the sight test on a hex :class:`rules.board.Board`.

The geometry is the square board's, in the map units of :mod:`rules.grid` (a hex is 1 unit wide and
1 tall, its corners on exact quarters): walls and doors are segments between points, a step is the
segment between two neighbouring centres, a sight line the segment between two centres (or a centre
and a cover sample point). Only what depends on the cells' shape lives here:

- **Steps.** A step goes from a hex to one of its six neighbours (direction ``k`` of
  ``rules.grid._CUBE_STEPS``; bit ``1 << k`` of a cell's step mask refuses it). It is refused off the
  board, into a blocking hex, and when a wall or closed door touches the segment between the two
  centres anywhere, its end points included. There is no diagonal rule: neighbouring hexes share an
  edge, and the segment crosses that edge at its middle.
- **Buckets.** Walls are bucketed in unit squares of map units over the board's extent, shifted by an
  eighth (:data:`SHIFT`; a wall lies in the closed squares of its buckets), and so are the blocking hexes and the hexes holding cover (a
  hex lies in the closed squares of its buckets): a sight line looks only at what lies in the unit
  squares it passes through.
- **Sight.** A blocking hex (or, for cover, a hex with a piece of cover) obstructs a sight line that
  passes through its inside. One that the line only touches (at a corner, or along an edge) does not,
  unless something else meets the line at the same corner from its other side: the square board's
  rule of corners where walls and blocking cells join, with a hex's corners for a square's.
"""

from __future__ import annotations

import math

from . import stepmasks
from .grid import Grid
from .segments import clip_span, segment_touches

_E = 1e-9
#: a hex board's buckets are unit squares of map units shifted by an eighth: bucket (bx, by) covers
#: [bx - 1/8, bx + 7/8] x [by - 1/8, by + 7/8], so no point on a quarter (a centre, a corner, a cover
#: sample) lies on a bucket's edge, and a sight line is walked through them exactly, in eighths
SHIFT = 0.125


def hex_dirs(grid: Grid) -> tuple[tuple[tuple[int, int], ...], tuple[tuple[int, int], ...]]:
    """The offsets ``(dx, dy)`` of the six neighbours, in direction order, for an even and an odd row
    (pointy) or column (flat)."""
    out = []
    for p in (0, 1):
        c = (0, p) if grid.pointy else (p, 0)
        out.append(tuple((x - c[0], y - c[1]) for x, y in grid.neighbours(c)))
    return out[0], out[1]


def parity(grid: Grid, x: int, y: int) -> int:
    return (y & 1) if grid.pointy else (x & 1)


def bucket_size(grid: Grid, width: int, height: int) -> tuple[int, int]:
    ex, ey = grid.extent(width, height)
    return math.floor(ex + SHIFT) + 1, math.floor(ey + SHIFT) + 1


def buckets_of_hex(grid: Grid, cell, bw: int, bh: int) -> list[int]:
    """The (shifted) unit squares whose closed extent meets the hex's bounding box."""
    cx, cy = grid.centre(cell)
    cx, cy = cx + SHIFT, cy + SHIFT
    out = []
    for by in range(max(0, math.floor(cy - 0.5)), min(bh - 1, math.floor(cy + 0.5)) + 1):
        for bx in range(max(0, math.floor(cx - 0.5)), min(bw - 1, math.floor(cx + 0.5)) + 1):
            out.append(by * bw + bx)
    return out


def hexes_near_segment(grid: Grid, ax, ay, bx, by, w: int, h: int) -> set:
    """The hexes that may hold a point of segment a-b (those holding a point a quarter apart along it,
    and their neighbours: a point within a quarter of another lies in its hex or a neighbour), on a
    ``w`` x ``h`` board (a long wall is first cut to the board's extent and a margin)."""

    ex, ey = grid.extent(w, h)
    span = clip_span(ax, ay, bx, by, math.ceil(ex), math.ceil(ey))
    if span is None or span[0] > span[1]:
        return set()
    t0, t1 = span
    vx, vy = bx - ax, by - ay
    n = max(1, math.ceil(max(abs(vx), abs(vy)) * (t1 - t0) * 4))
    out: set = set()
    for i in range(n + 1):
        t = t0 + (t1 - t0) * i / n
        c = grid.cell_at((ax + t * vx, ay + t * vy))
        if c not in out:
            out.add(c)
            out.update(grid.neighbours(c))
    return {(x, y) for x, y in out if 0 <= x < w and 0 <= y < h}


def hex_step_masks(board) -> list[int]:
    """For each hex (index ``y * width + x``), the bit mask of its refused steps (see the module doc)."""

    grid = board.grid
    w, h = board.width, board.height
    dirs = hex_dirs(grid)
    masks = [0] * (w * h)

    def edge(x, y):
        m = 0
        for k, (dx, dy) in enumerate(dirs[parity(grid, x, y)]):
            if not (0 <= x + dx < w and 0 <= y + dy < h):
                m |= 1 << k
        masks[y * w + x] |= m

    for y in range(h):
        edge(0, y)
        if w > 1:
            edge(w - 1, y)
    for x in range(w):
        edge(x, 0)
        if h > 1:
            edge(x, h - 1)
    blocked = board.blocked
    if len(blocked) >= stepmasks.WORTH:  # many (a known board's unseen hexes): in arrays, the same bits
        stepmasks.blocked_hex_bits(masks, blocked, grid, w, h)
        blocked = ()
    for bx, by in blocked:
        for k, (dx, dy) in enumerate(dirs[parity(grid, bx, by)]):
            x, y = bx + dx, by + dy
            if 0 <= x < w and 0 <= y < h:
                masks[y * w + x] |= 1 << ((k + 3) % 6)
    index = board.segments()
    if len(index.segs) >= stepmasks.WORTH:  # a big board's walls at once, in arrays: the same bits
        stepmasks.hex_wall_bits(masks, index, grid, w, h)
        return masks
    centres = {}
    for seg in index.segs:
        for x, y in hexes_near_segment(grid, seg.ax, seg.ay, seg.bx, seg.by, w, h):
            if not (0 <= x < w and 0 <= y < h):
                continue
            i = y * w + x
            c = centres.get((x, y)) or centres.setdefault((x, y), grid.centre((x, y)))
            for k, (dx, dy) in enumerate(dirs[parity(grid, x, y)]):
                nx, ny = x + dx, y + dy
                if not (0 <= nx < w and 0 <= ny < h):
                    continue
                bit, back, j = 1 << k, 1 << ((k + 3) % 6), ny * w + nx
                # refused both ways already (a step into a blocking hex is refused one way only: out of it, a
                # wall across still refuses it)
                if masks[i] & bit and masks[j] & back:
                    continue
                n = centres.get((nx, ny)) or centres.setdefault((nx, ny), grid.centre((nx, ny)))
                if segment_touches(seg, c[0], c[1], n[0], n[1]):
                    masks[i] |= bit
                    masks[j] |= back
    return masks


def hex_steps(board) -> list[tuple[int, ...]]:
    """For each hex (index ``y * width + x``), the steps it allows as offsets of that index (``i + o`` for each
    ``o``: the neighbours a step may go to, in the order of ``hex_dirs``), cached on the board. The offsets of
    each parity and step mask are one tuple shared by every hex that has them, so the list is a reference per
    hex (a 300 x 300 board's in a few ms, where a tuple of indexes made for each hex took about 100)."""
    return board.cached("hex_steps", lambda: _hex_steps(board))


def _hex_steps(board) -> list[tuple[int, ...]]:
    grid, w, h = board.grid, board.width, board.height
    masks = board.step_masks()
    dirs = [[dy * w + dx for dx, dy in d] for d in hex_dirs(grid)]
    # for each parity and mask, the offsets of the steps it lets through
    table = [[tuple(offs[k] for k in range(6) if not m >> k & 1) for m in range(64)] for offs in dirs]
    out: list[tuple[int, ...]] = []
    if grid.pointy:  # the parity is the row's
        for y in range(h):
            out.extend(map(table[y & 1].__getitem__, masks[y * w:(y + 1) * w]))
        return out
    by_column = (table * (w // 2 + 1))[:w]  # the parity is the column's
    for y in range(h):
        out.extend([t[m] for t, m in zip(by_column, masks[y * w:(y + 1) * w])])
    return out


# --------------------------------------------------------------------------- sight


def hex_contact(corners, cx: float, cy: float, px: float, py: float, qx: float, qy: float):
    """How the closed hex with these corners and centre meets the sight line p-q (whose end points are
    inside cells, never on an edge): True when the line passes through its inside; else the list of
    ``(corner, side)`` where it touches the line (``side`` +1 / -1: the side the hex lies on)."""
    ux, uy = qx - px, qy - py
    ds = [ux * (vy - py) - uy * (vx - px) for vx, vy in corners]
    if min(ds) >= 0 or max(ds) <= 0:
        if min(ds) > 0 or max(ds) < 0:
            return []
        dc = ux * (cy - py) - uy * (cx - px)
        side = 1 if dc > 0 else -1
        uu = ux * ux + uy * uy
        out = []
        for (vx, vy), d in zip(corners, ds):
            if d == 0:
                t = (vx - px) * ux + (vy - py) * uy
                if 0 <= t <= uu:
                    out.append(((vx, vy), side))
        return out
    n = len(corners)
    for k in range(n):
        ax, ay = corners[k]
        bx, by = corners[(k + 1) % n]
        ex, ey = bx - ax, by - ay
        ec = ex * (cy - ay) - ey * (cx - ax)
        ep = ex * (py - ay) - ey * (px - ax)
        eq = ex * (qy - ay) - ey * (qx - ax)
        if ec > 0:
            if ep <= 0 and eq <= 0:
                return []
        elif ep >= 0 and eq >= 0:
            return []
    return True
