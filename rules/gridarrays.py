"""Hex grid sums on numpy arrays, elementwise the very sums of ``rules.grid.Grid`` (the same floats): for the
work done on every wall of a big board at once (``rules.stepmasks``; the fog's walls,
``webapp.game.bridge.fogwalls``)."""

from __future__ import annotations

import numpy as np

from .grid import Grid


def hex_centres(x, y, grid: Grid) -> tuple:
    """``Grid.centre`` of hexes ``(x, y)``."""
    if grid.pointy:
        return x + 0.5 + 0.5 * (y & 1), 0.5 + 0.75 * y
    return 0.5 + 0.75 * x, y + 0.5 + 0.5 * (x & 1)


def hex_far(px, py, x, y, grid: Grid):
    """The true length from points to the centres of hexes ``(x, y)`` (``Grid.length`` of the step to
    ``Grid.centre``)."""
    ux, uy = grid.unit
    cx, cy = hex_centres(x, y, grid)
    return np.hypot((px - cx) * ux, (py - cy) * uy)


def runs(first, last) -> tuple:
    """For runs of whole numbers ``first[i]..last[i]`` (none where first > last): each member's run and the member
    (a segment's samples, a wall's columns)."""
    count = np.maximum(0, last - first + 1)
    owner = np.repeat(np.arange(len(first)), count)
    return owner, first[owner] + np.arange(len(owner)) - np.repeat(np.cumsum(count) - count, count)


def hex_at(px, py, grid: Grid) -> tuple:
    """``Grid.cell_at`` of points: the nearest centre of the nine around a first guess, the first of equals within
    1e-12 in its order; with each point's true length to that centre."""
    if grid.pointy:
        gy = np.floor((py - 0.5) / 0.75 + 0.5).astype(np.int64)
        gx = np.floor(px - 0.5 * (gy & 1)).astype(np.int64)
    else:
        gx = np.floor((px - 0.5) / 0.75 + 0.5).astype(np.int64)
        gy = np.floor(py - 0.5 * (gx & 1)).astype(np.int64)
    hx, hy, best = gx - 1, gy - 1, hex_far(px, py, gx - 1, gy - 1, grid)
    for dy in (-1, 0, 1):
        for dx in (-1, 0, 1):
            if dx == dy == -1:
                continue
            x, y = gx + dx, gy + dy
            d = hex_far(px, py, x, y, grid)
            nearer = d < best - 1e-12
            hx, hy, best = np.where(nearer, x, hx), np.where(nearer, y, hy), np.where(nearer, d, best)
    return hx, hy, best


def neighbour_steps(grid: Grid) -> tuple:
    """The offsets to a hex's neighbours in ``Grid.neighbours``' order, for a hex of even and of odd parity (its
    row's, pointy; its column's, flat)."""
    return tuple([(n[0] - c[0], n[1] - c[1]) for n in grid.neighbours(c)]
                 for c in ((0, 0), (0, 1) if grid.pointy else (1, 0)))


def distinct(keys):
    """The distinct values of an integer array, sorted (``np.unique``'s answer: numpy 2's hashing way of it took
    ten times a sort's time on the half a million keys of a big board's walls)."""
    keys = np.sort(keys)
    if len(keys) > 1:
        keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
    return keys
