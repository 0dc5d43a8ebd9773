"""#69: a big board's refused steps worked out for every wall at once in arrays (``rules.stepmasks``) are the very
bits of the wall-by-wall loops (``rules.board._step_masks``, ``rules.hexgeom.hex_step_masks``), and its walls'
buckets (``rules.wallcells``) the loop's (``SegmentIndex``), on squares and on pointy and flat hexes: walls along
grid lines and hex edges (long ones too, off the board at one end or both), diagonals, walls between any points (on 64ths of a square, as an import puts them, and
anywhere: the scalar test's exact fractions for the pairs the floats cannot tell), long walls reaching far off the
board, doors, blocking cells. And the hex sums on arrays are ``Grid``'s."""

from __future__ import annotations

import random

import numpy as np
import pytest

from rules import stepmasks
from rules.board import Board
from rules.grid import Grid
from rules.gridarrays import distinct, hex_at

GRIDS = {"square": Grid(), "pointy": Grid("hex", "pointy"), "flat": Grid("hex", "flat")}


def random_board(seed: int, grid: Grid) -> Board:
    rnd = random.Random(seed)
    size = rnd.choice([6, 20, 45])
    b = Board(size, size, grid=grid)
    for _ in range(rnd.randint(1, size * 6)):
        x, y, k = rnd.randrange(-2, size + 2), rnd.randrange(-2, size + 2), rnd.random()
        try:
            if k < 0.15 and grid.hex:  # a hex's edge, corner to corner
                corners = grid.corners((rnd.randrange(size), rnd.randrange(size)))
                i = rnd.randrange(6)
                b.add_wall(corners[i], corners[(i + 1) % 6])
            elif k < 0.27:  # along a grid line
                b.add_wall((x, y), (x + rnd.choice([1, 2, 5]), y) if rnd.random() < .5 else (x, y + rnd.choice([1, 3])))
            elif k < 0.3:  # along a grid line, long: across the board, off it at one end or both, or wholly off it
                far = rnd.choice([-3 * size, -1, 2 * size])
                b.add_wall((x, y), (far, y) if rnd.random() < .5 else (x, far))
            elif k < 0.45:  # diagonals
                b.add_wall((x, y), (x + rnd.choice([-1, 1]), y + rnd.choice([-1, 1, 2])))
            elif k < 0.55:  # through centres, on halves
                b.add_wall((x + 0.5, y + 0.5), (x + rnd.choice([-1.5, 1, 0.5]), y + rnd.choice([0.5, 1.5])))
            elif k < 0.68:  # anywhere
                b.add_wall((x + rnd.random(), y + rnd.random() * rnd.choice([0, 1])),
                           (x + rnd.uniform(-4, 4), y + rnd.choice([0, 0.5, rnd.uniform(-4, 4)])))
            elif k < 0.76:  # on 64ths (an import's points)
                b.add_wall((x + rnd.randrange(64) / 64, y + rnd.randrange(64) / 64),
                           (x + rnd.randrange(-128, 128) / 64, y + rnd.randrange(-128, 128) / 64))
            elif k < 0.78:  # ending a hair's breadth beside a step, off it: floats cannot tell, fractions can
                c = (rnd.randrange(size), rnd.randrange(size))
                (cx, cy), (nx, ny) = grid.centre(c), grid.centre(rnd.choice(grid.neighbours(c)))
                side = rnd.choice([-1, 1])
                ux, uy = (nx - cx) / 3, (ny - cy) / 3
                r = (cx + ux - side * uy * 1e-12, cy + uy + side * ux * 1e-12)
                b.add_wall(r, (r[0] - side * uy - ux / 3, r[1] + side * ux - uy / 3))
            elif k < 0.8:  # long, far off the board on one side or both
                b.add_wall((rnd.uniform(-3 * size, size), y + rnd.random()),
                           (rnd.uniform(0, 4 * size), rnd.uniform(-size, 2 * size)))
            elif k < 0.9:
                b.add_door((x, y), (x + 1, y), closed=rnd.random() < 0.5)
            else:
                b.block((rnd.randrange(size), rnd.randrange(size)))
        except ValueError:  # the same wall twice, a point twice: the board refuses it
            pass
    return b


@pytest.mark.parametrize("name", list(GRIDS))
def test_the_arrays_refuse_the_very_steps_the_loops_refuse(name, monkeypatch):
    grid = GRIDS[name]
    for seed in range(60):
        monkeypatch.setattr(stepmasks, "WORTH", 10**9)
        loops = random_board(seed, grid).step_masks()
        monkeypatch.setattr(stepmasks, "WORTH", 0)
        arrays = random_board(seed, grid).step_masks()
        assert arrays == loops, (name, seed, sum(a != b for a, b in zip(arrays, loops)))
        assert any(loops), seed  # (the boards refuse steps: the check compares something)


def test_a_big_board_takes_the_arrays(monkeypatch):
    # the switch: a board with WORTH walls or more goes through the arrays; the loops' test above covers both ways
    taken = []
    monkeypatch.setattr(stepmasks, "square_wall_bits", lambda *a: taken.append("squares"))
    monkeypatch.setattr(stepmasks, "hex_wall_bits", lambda *a: taken.append("hexes"))
    for grid in (Grid(), Grid("hex", "pointy")):
        b = Board(60, 60, grid=grid)
        for k in range(stepmasks.WORTH):
            b.add_wall((k % 50 + 0.5, k // 50), (k % 50 + 1, k // 50 + 1))
        b.step_masks()
        small = Board(60, 60, grid=grid)
        small.add_wall((1.5, 1), (2, 2))
        small.step_masks()
    assert taken == ["squares", "hexes"]


@pytest.mark.parametrize("name", ["pointy", "flat"])
def test_the_hexes_of_points_on_arrays_are_the_grids(name):
    grid = GRIDS[name]
    rnd = random.Random(7)
    points = [(rnd.uniform(-2, 40), rnd.uniform(-2, 40)) for _ in range(3000)]
    points += [c for x in range(8) for y in range(8) for c in grid.corners((x, y))]  # on edges: equal distances
    points += [((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for x in range(8) for y in range(8)
               for a, b in zip(grid.corners((x, y)), grid.corners((x, y))[1:])]
    px, py = np.array([p[0] for p in points]), np.array([p[1] for p in points])
    hx, hy, d = hex_at(px, py, grid)
    got = list(zip(hx.tolist(), hy.tolist()))
    assert got == [grid.cell_at(p) for p in points]
    want = [grid.length(p[0] - grid.centre(c)[0], p[1] - grid.centre(c)[1]) for p, c in zip(points, got)]
    assert np.allclose(d, want, rtol=0, atol=1e-12)


def test_distinct_is_numpys_unique():
    rnd = np.random.default_rng(3)
    for n in (0, 1, 2, 1000):
        keys = rnd.integers(-50, 50, n)
        assert distinct(keys).tolist() == np.unique(keys).tolist()


@pytest.mark.parametrize("name", list(GRIDS))
def test_the_arrays_bucket_each_wall_in_the_very_cells_of_the_loop(name, monkeypatch):
    # SegmentIndex.buckets (rules.wallcells): the same walls in the same cells, in the same order; walls whose points
    # the floats cannot hold exactly (thirds, anywhere) go through the loop's exact fractions
    grid = GRIDS[name]
    for seed in range(60):
        monkeypatch.setattr(stepmasks, "WORTH", 10**9)
        loops = random_board(seed, grid).segments().buckets
        monkeypatch.setattr(stepmasks, "WORTH", 0)
        arrays = random_board(seed, grid).segments().buckets
        assert arrays == loops, (name, seed, sum(a != b for a, b in zip(arrays, loops)))



@pytest.mark.parametrize("name", list(GRIDS))
def test_many_blocking_cells_refuse_the_very_steps_and_fill_the_very_buckets_of_the_loops(name, monkeypatch):
    # a player's known board blocks every square never seen (tens of thousands on a big map): their steps
    # (stepmasks.blocked_*_bits) and, on hexes, their buckets (wallcells.hex_cell_buckets) in arrays
    grid = GRIDS[name]
    for seed in range(10):
        rnd = random.Random(seed)
        data = random_board(seed, grid).to_dict()
        w, h = data["width"], data["height"]
        data["blocked"] = [[x, y] for y in range(h) for x in range(w) if rnd.random() < 0.4]
        found = []
        for worth in (10**9, 0):  # the loops, then the arrays (each board's indexes built while its switch is set)
            monkeypatch.setattr(stepmasks, "WORTH", worth)
            board = Board.from_dict(data)
            found.append((board.step_masks(), [sorted(b) if b else b for b in board.segments().cell_buckets]
                          if grid.hex else None))
        assert found[1] == found[0], (name, seed)


def test_blocking_many_cells_at_once_is_blocking_each():
    one, many = Board(9, 7), Board(9, 7)
    cells = [(x, y) for x in range(9) for y in range(7) if (x * y) % 3 == 1]
    for c in cells:
        one.block(c)
    many.block_many([list(c) for c in cells])
    assert many.blocked == one.blocked and many.to_dict() == one.to_dict()
    with pytest.raises(ValueError):
        many.block_many([(1, 1), (9, 0)])  # off the board: refused as block refuses it
