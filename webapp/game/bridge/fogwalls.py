"""The squares each wall and door touches (``webapp.game.bridge.fog``: an audience knows the walls that touch a square
it has seen): pure functions of the segments, run off the loop on a big board."""

from __future__ import annotations

import numpy as np

from rules.grid import SQUARE, Grid
from rules.gridarrays import distinct, hex_at, hex_far, neighbour_steps, runs


def segment_cells(a, b, grid: Grid = SQUARE) -> frozenset:
    """The squares a wall or door touches (a point on a square's edge touches the squares on both sides;
    on hexes, a point on a hex's edge the hexes on both sides): the definition :func:`by_cell` works out for every
    segment at once (and its tests' reference)."""
    (ax, ay), (bx, by) = a, b
    if not grid.hex and (ax == bx or ay == by) and all(type(v) is int for v in (ax, ay, bx, by)):
        # a wall along a grid line, between grid corners (the editor's, most of an import's): the squares on both
        # sides of it, and past each end the two beside that corner, what the samples below find (each end is a
        # corner, and every square's side it runs along has samples inside it), at once: the worst map's 10,000
        # walls took a third of a second to sample
        (x0, x1), (y0, y1) = sorted((ax, bx)), sorted((ay, by))
        return frozenset((x, y) for x in range(x0 - 1, x1 + 1) for y in range(y0 - 1, y1 + 1))
    return sampled_cells(a, b, grid)


def sampled_cells(a, b, grid: Grid = SQUARE) -> frozenset:
    """:func:`segment_cells` by samples along the segment, a quarter of a square apart at most."""
    (ax, ay), (bx, by) = a, b
    steps = max(1, int(max(abs(bx - ax), abs(by - ay)) * 4) + 1)
    out = set()
    for i in range(steps + 1):
        px, py = ax + (bx - ax) * i / steps, ay + (by - ay) * i / steps
        if grid.hex:
            here = grid.cell_at((px, py))
            cx, cy = grid.centre(here)
            d = grid.length(px - cx, py - cy)
            out.add(here)
            if d < _INSIDE:  # nearer its hex's centre than any edge: no neighbour is as near (#32: fast)
                continue
            for n in grid.neighbours(here):
                nx, ny = grid.centre(n)
                if grid.length(px - nx, py - ny) <= d + 1e-9:
                    out.add(n)
            continue
        fx, fy = int(px // 1), int(py // 1)
        for x in ((fx, fx - 1) if px == fx else (fx,)):
            for y in ((fy, fy - 1) if py == fy else (fy,)):
                out.add((x, y))
    return frozenset(out)


#: a hex's inner radius (half the length between neighbouring centres) less a rounding margin
_INSIDE = 0.5 - 1e-9


def by_cell(board) -> dict:
    """Square -> the ids of the walls and doors touching it (:func:`segment_cells`), for every segment at once in
    arrays (:func:`_squares`, :func:`_hexes`): the 40,000 walls of a 300 x 300 map took most of a second one by one on
    squares, seconds on hexes."""
    segments = list(board.walls.values()) + list(board.doors.values())
    if not segments:
        return {}
    owner, px, py = _samples(segments)
    xs, ys, who = (_hexes if board.grid.hex else _squares)(owner, px, py, board.grid)
    return _grouped(xs, ys, who, [s.id for s in segments])


def _samples(segments: list) -> tuple:
    """The samples :func:`sampled_cells` takes along each segment, all at once (the same sums in the same order: the
    same points): the segment's index of each, and its point."""
    ends = np.array([(s.a[0], s.a[1], s.b[0], s.b[1]) for s in segments], dtype=np.float64)
    ax, ay, bx, by = ends.T
    steps = np.maximum(1, (np.maximum(np.abs(bx - ax), np.abs(by - ay)) * 4).astype(np.int64) + 1)
    owner, i = runs(np.zeros(len(steps), dtype=np.int64), steps)
    i = i.astype(np.float64)
    n = steps[owner].astype(np.float64)
    return owner, ax[owner] + (bx - ax)[owner] * i / n, ay[owner] + (by - ay)[owner] * i / n


def _squares(owner, px, py, _grid) -> tuple:
    """Each sample's square, and on a grid line the square on its other side too (px == fx: x - 1); a wall along a
    grid line between corners gets the squares ``segment_cells`` gives it at once, which are its samples' squares."""
    fx, fy = np.floor(px), np.floor(py)
    xs = np.concatenate((fx, fx - 1, fx, fx - 1))
    ys = np.concatenate((fy, fy, fy - 1, fy - 1))
    on = np.concatenate((np.ones(len(px), dtype=bool), px == fx, py == fy, (px == fx) & (py == fy)))
    return xs[on].astype(np.int64), ys[on].astype(np.int64), np.tile(owner, 4)[on]


def _hexes(owner, px, py, grid: Grid) -> tuple:
    """Each sample's hex (``Grid.cell_at``), and the neighbours whose centres are as near within 1e-9 where the
    sample lies off its hex's inside (``sampled_cells``); the same sums as theirs, elementwise."""
    hx, hy, d = hex_at(px, py, grid)  # (d: its true length to the hex's centre)
    xs, ys, who = [hx], [hy], [owner]
    edge = d >= _INSIDE  # nearer its hex's centre than any edge: no neighbour is as near
    ex, ey, ed, eo, epx, epy = hx[edge], hy[edge], d[edge], owner[edge], px[edge], py[edge]
    odd = ((ey if grid.pointy else ex) & 1).astype(bool)  # the neighbours' steps by the row's (column's) parity
    for (even_x, even_y), (odd_x, odd_y) in zip(*neighbour_steps(grid)):
        nx, ny = ex + np.where(odd, odd_x, even_x), ey + np.where(odd, odd_y, even_y)
        near = hex_far(epx, epy, nx, ny, grid) <= ed + 1e-9
        xs.append(nx[near]), ys.append(ny[near]), who.append(eo[near])
    return np.concatenate(xs), np.concatenate(ys), np.concatenate(who)


def _grouped(xs, ys, who, ids: list) -> dict:
    """Cell -> the ids of the segments touching it (each once, in the segments' order), from the cells' and their
    segments' indexes: one whole number a pair (row, column, segment), sorted."""
    x0, y0 = xs.min(), ys.min()
    span, count = int(xs.max() - x0) + 1, len(ids)
    keys = distinct(((ys - y0) * span + (xs - x0)) * count + who)
    cell, who = np.divmod(keys, count)
    starts = np.flatnonzero(np.concatenate(([True], cell[1:] != cell[:-1])))
    row, col = np.divmod(cell[starts], span)
    who = [ids[k] for k in who.tolist()]
    bounds = np.append(starts, len(keys)).tolist()
    return {(x, y): who[bounds[k]:bounds[k + 1]]
            for k, (x, y) in enumerate(zip((col + x0).tolist(), (row + y0).tolist()))}
