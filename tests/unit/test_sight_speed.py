"""#69: the field of view on squares made faster (``rules.fovtiles``: the offset table in bands, the obstacles in
tiles) sees exactly what the search of before saw (``rules.los._Fov``, kept unchanged as the reference) and what
line of fire sees, on random boards big enough for its short cuts to be taken: walls on cell edges and at float
points, long walls, doors open and closed, blocking cells, with and without a radius. Each test also checks that
the short cut it is about was taken, so that it cannot pass by not being run."""

from __future__ import annotations

import math
import random

import pytest

from rules import los
from rules.board import Board


def random_board(seed: int, size: int, n_walls: int, n_blocks: int = 40, long_walls: int = 3) -> Board:
    """A ``size`` x ``size`` board: ``n_walls`` walls (four in five along cell edges, 1 to 4 long, the rest at float
    points), ``long_walls`` walls longer than a tile, 12 doors on cell edges (every other closed) and ``n_blocks``
    blocking cells."""
    rnd = random.Random(seed)
    b = Board(size, size)
    for i in range(n_walls):
        x, y = rnd.randrange(size), rnd.randrange(size)
        if i % 5:
            n = rnd.randint(1, 4)
            b.add_wall((x, y), (min(size, x + n), y) if rnd.random() < 0.5 else (x, min(size, y + n)))
        else:
            b.add_wall((x + rnd.random(), y + rnd.random()), (x + rnd.uniform(-3, 3), y + rnd.uniform(-3, 3)))
    for _ in range(long_walls):
        b.add_wall((rnd.uniform(0, size), rnd.uniform(0, size)), (rnd.uniform(0, size), rnd.uniform(0, size)))
    for i in range(12):
        x, y = rnd.randrange(1, size - 1), rnd.randrange(1, size - 1)
        b.add_door((x, y), (x + 1, y) if i % 3 else (x, y + 1), closed=i % 2 == 0)
    for _ in range(n_blocks):
        b.block((rnd.randrange(size), rnd.randrange(size)))
    return b


def search_of_before(board: Board, origin, radius=None) -> set:
    """Today's search before #69, as it still stands in rules/los.py: the whole offset table, every obstacle."""
    return los._Fov(board.segments(), origin[0], origin[1], radius).run()


class Watched:
    """Watches the short cuts of ``los._SquareFov`` (wrapped by monkeypatch): how many tiles were opened and
    how many of them were left out whole (nothing put in the search), and for each band how many of its cells
    were outside the shadow (``picks``: (outside, band size))."""

    def __init__(self, monkeypatch) -> None:
        self.opened = self.left_out = 0
        self.picks: list = []
        open_tile, outside = los._SquareFov._open_tile, los._SquareFov._outside_shadow

        def watch_open(fov, k, heap):
            n = len(heap)
            open_tile(fov, k, heap)
            self.opened += 1
            self.left_out += len(heap) == n

        def watch_outside(fov, angles):
            runs, n = outside(fov, angles)
            self.picks.append((n, len(angles)))
            return runs, n

        monkeypatch.setattr(los._SquareFov, "_open_tile", watch_open)
        monkeypatch.setattr(los._SquareFov, "_outside_shadow", watch_outside)

    def bands_picked(self) -> int:
        """The bands of which only the cells outside the shadow were looked at."""
        return sum(n <= los._SquareFov._PICK_BELOW * size for n, size in self.picks)


@pytest.mark.parametrize("seed", range(6))
def test_the_square_field_of_view_is_the_search_of_before(seed, monkeypatch):
    rnd = random.Random(1000 + seed)
    size = rnd.choice([60, 90, 120])
    board = random_board(seed, size, n_walls=size * size // 9)
    watched = Watched(monkeypatch)
    for _ in range(12):
        origin = (rnd.randrange(size), rnd.randrange(size))
        radius = rnd.choice([None, None, 4.5, 12.0, 30.2])
        assert los.visible_cells(board, origin, radius) == search_of_before(board, origin, radius), (origin, radius)
    assert watched.left_out and watched.bands_picked()


def test_the_square_field_of_view_is_line_of_fire_where_tiles_and_bands_are_left_out(monkeypatch):
    board = random_board(11, 48, n_walls=300, n_blocks=30)
    watched = Watched(monkeypatch)
    for origin in [(3, 4), (24, 24), (47, 0), (10, 40)]:
        for radius in (None, 17.5):
            expected = {(x, y) for x in range(48) for y in range(48)
                        if (radius is None or math.dist((x, y), origin) <= radius)
                        and los.line_of_fire(board, origin, (x, y)).clear}
            assert los.visible_cells(board, origin, radius) == expected, (origin, radius)
    assert watched.opened and watched.left_out and watched.bands_picked()


def test_a_blocking_cell_and_a_wall_in_the_origins_tile():
    b = Board(30, 30)
    b.block((5, 5))
    b.add_wall((6, 4), (6, 8))
    b.add_wall((2.5, 2.5), (3.5, 7.25))
    for origin in [(5, 5), (4, 5), (7, 6)]:
        assert los.visible_cells(b, origin) == search_of_before(b, origin)
        assert los.visible_cells(b, origin) == {
            (x, y) for x in range(30) for y in range(30) if los.line_of_fire(b, origin, (x, y)).clear}


def test_the_bands_cut_as_the_search_comes_are_those_of_the_whole_table():
    from rules import fovtiles

    table = fovtiles.offsets(23, 17)
    bands = fovtiles.Bands(table, fovtiles.BAND)
    half = [b for _, b in zip(range(3), bands)]  # a search that stopped early
    assert len(bands.cut) == 3
    assert half + [b for b in bands][3:] == list(fovtiles.bands_of(table, fovtiles.BAND)[1])
    assert len(bands.cut) == len(fovtiles.bands_of(table, fovtiles.BAND)[1])
