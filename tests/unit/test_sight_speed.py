"""#69: the field of view on squares made faster (``rules.fovtiles``: the offset table in bands, the obstacles in
tiles) sees exactly what the search of before saw (``rules.los._Fov``, kept unchanged as the reference) and what
line of fire sees, on random boards big enough for its short cuts to be taken: walls on cell edges and at float
points, long walls, doors open and closed, blocking cells, with and without a radius. Each test also checks that
the short cut it is about was taken, so that it cannot pass by not being run. The same for a big board's field of
view in arrays (``rules.fovarray``), on any board here by making every board worth them."""

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


class Arrays:
    """Counts the fields of view ``rules.fovarray.visible`` gave (wrapped by monkeypatch), with every board made
    worth the arrays (``worth``: the cells from which they are), so that ``los.visible_cells`` takes them."""

    def __init__(self, monkeypatch, worth: int = 0) -> None:
        from rules import fovarray

        self.calls = 0
        visible = fovarray.visible

        def counted(*args, **kwargs):
            self.calls += 1
            return visible(*args, **kwargs)

        monkeypatch.setattr(fovarray, "visible", counted)
        monkeypatch.setattr(fovarray, "WORTH", worth)


def corner_band(size: int, n_walls: int, seed: int = 32) -> Board:
    """Short walls along cell edges and square diagonals, packed in a band along the west edge (as
    bench_big_maps' worst map): from inside it, the shadow leaves only exact directions between walls
    meeting at corners (narrow gaps)."""
    rnd = random.Random(seed)
    band = math.ceil(n_walls / (3 * size)) + 2
    spots = [((x, y), (x + dx, y + dy)) for x in range(band) for y in range(size - 1)
             for dx, dy in ((1, 0), (0, 1), (1, 1))]
    rnd.shuffle(spots)
    b = Board(size, size)
    for a, c in spots[:n_walls]:
        b.add_wall(a, c)
    return b


@pytest.mark.parametrize("seed", range(6))
def test_the_arrays_field_of_view_is_the_search_of_before(seed, monkeypatch):
    rnd = random.Random(2000 + seed)
    size = rnd.choice([40, 64, 90])
    board = random_board(seed, size, n_walls=size * size // rnd.choice([9, 40, 200]), long_walls=6)
    arrays = Arrays(monkeypatch)
    for _ in range(12):
        origin = (rnd.randrange(size), rnd.randrange(size))
        radius = rnd.choice([None, None, 4.5, 12.0, 30.2, 5.0, math.hypot(5, 5)])  # (some on a cell's distance)
        assert los.visible_cells(board, origin, radius) == search_of_before(board, origin, radius), (origin, radius)
    assert arrays.calls


def test_the_arrays_field_of_view_through_exact_directions_between_walls(monkeypatch):
    from rules import fovarray

    board = corner_band(60, 900)
    index = board.segments()
    arrays = Arrays(monkeypatch)
    narrow = []  # the narrow gaps found: the cells beyond in them walked
    open_gaps = fovarray._open_gaps
    monkeypatch.setattr(fovarray, "_open_gaps", lambda *a: narrow.append(open_gaps(*a)) or narrow[-1])
    for origin in [(2, 2), (5, 5), (9, 30), (30, 30), (59, 59), (0, 59)]:
        expected = {(x, y) for x in range(60) for y in range(60) if los.line_of_fire(board, origin, (x, y)).clear}
        assert search_of_before(board, origin) == expected, origin
        assert los.visible_cells(board, origin) == expected, origin
        assert fovarray.visible(index, *origin, None, los.square_sight(index, *origin)) == expected, origin
    assert arrays.calls == 6 * 2
    assert any(g[2] and len(g[0]) for g in narrow)  # the cells beyond in exact directions alone, walked
    # from inside the band: the diagonal's doubtful cells, in one direction, bisected
    tested = []
    sight = los.square_sight(index, 5, 5)
    assert fovarray.visible(index, 5, 5, None, lambda x, y: tested.append((x, y)) or sight(x, y)) == {(5, 5)}
    diagonal = [c for c in tested if c[0] - 5 == c[1] - 5 and c[0] > 5]
    assert 1 <= len(diagonal) <= 6 and len(tested) < 20  # (54 cells on the diagonal; 66 doubtful in all)
    assert los.visible_cells(board, (5, 5)) == {(5, 5)}


def test_the_arrays_field_of_view_of_blocking_cells_and_walls_through_its_centre(monkeypatch):
    b = Board(30, 30)
    b.block((5, 5))
    b.block((9, 9))
    b.add_wall((6, 4), (6, 8))
    b.add_wall((2.5, 2.5), (3.5, 7.25))
    b.add_wall((7.5, 12.5), (7.5, 20))  # through the centre of (7, 12)
    b.add_wall((-5, 3), (40, 3.25))  # cut to the board
    arrays = Arrays(monkeypatch)
    for origin in [(5, 5), (4, 5), (7, 6), (7, 12), (0, 0), (29, 29)]:
        for radius in (None, 6.0, 8.5):
            expected = {(x, y) for x in range(30) for y in range(30)
                        if (radius is None or math.dist((x, y), origin) <= radius)
                        and los.line_of_fire(b, origin, (x, y)).clear}
            assert los.visible_cells(b, origin, radius) == expected, (origin, radius)
    assert arrays.calls == 18


def test_the_arrays_take_a_board_of_20000_cells_or_more(monkeypatch):
    from rules import fovarray

    assert fovarray.WORTH == 20_000
    assert not fovarray.worth_it(141, 141, None) and fovarray.worth_it(142, 142, None)
    assert not fovarray.worth_it(300, 300, 79.7) and fovarray.worth_it(300, 300, 79.8)  # (pi r**2 cells)
    board = corner_band(150, 2000)
    calls = []
    visible = fovarray.visible
    monkeypatch.setattr(fovarray, "visible", lambda *a, **k: calls.append(a[1:3]) or visible(*a, **k))
    assert los.visible_cells(board, (100, 75)) == search_of_before(board, (100, 75))
    assert los.visible_cells(board, (3, 3), 12.0) == search_of_before(board, (3, 3), 12.0)
    assert len(los.visible_cells(Board(100, 100), (50, 50))) == 100 * 100
    assert calls == [(100, 75)]  # the big board without a radius; not within 12 cells, not on 100 x 100


def test_the_fogs_mask_of_a_view_holds_the_cells_of_visible_cells_on_squares_and_hexes_big_and_small():
    # what the fog keeps of a view (webapp/game/bridge/fog.py's _sight): the arrays mark a big board's straight in
    # the mask's grid, a small board's search is read into one; either way the same cells as visible_cells
    from rules.cellmask import CellMask

    for board in (corner_band(150, 2000), corner_band(40, 300)):
        for origin, radius in [((100, 75), None), ((5, 5), None), ((3, 3), 12.0), ((20, 20), None)]:
            if not board.in_bounds(origin):
                continue
            mask = los.visible_mask(board, origin, radius)
            assert isinstance(mask, CellMask) and mask.grid.shape == (board.height, board.width)
            assert set(mask) == los.visible_cells(board, origin, radius), (board.width, origin, radius)
    from rules.grid import HEX_FLAT, HEX_POINTY

    for grid in (HEX_POINTY, HEX_FLAT):
        hexes = Board(150, 150, grid)
        for i in range(300):  # hex edges in a block west of the middle
            corners = grid.corners((40 + i % 20, 60 + i // 20))
            hexes.add_wall(corners[i % 6], corners[(i + 1) % 6])
        for origin in [(75, 75), (50, 70), (0, 0)]:
            assert set(los.visible_mask(hexes, origin)) == los.visible_cells(hexes, origin), (grid, origin)


def test_a_big_boards_view_is_made_of_the_board_sizes_own_cells():
    # a view read out of a big board's arrays, or of a fog's mask (rules.cellmask), is these cells, made once
    from rules.stepsearch import cells_of

    board = corner_band(150, 2000)
    table = cells_of(150, 150)
    for origin in [(100, 75), (5, 5), (149, 0)]:
        seen = los.visible_cells(board, origin)
        assert seen and all(c is table[c[1] * 150 + c[0]] for c in seen)


def test_a_radius_cuts_the_arrays_cells_as_the_search_does():
    # numpy's hypot rounds otherwise than math.hypot (the search's) for some offsets: a radius on such a
    # distance must keep the same cells
    import numpy as np

    from rules import fovarray

    from rules.grid import SQUARE

    dx, dy = (a.ravel() for a in np.meshgrid(np.arange(120), np.arange(120)))
    ours = np.hypot(dx, dy)
    theirs = [math.hypot(x, y) for x, y in zip(dx.tolist(), dy.tolist())]
    odd = [k for k, (a, b) in enumerate(zip(ours.tolist(), theirs)) if a != b]
    assert odd  # (else this test tests nothing)
    for k in odd[:40]:
        radius = theirs[k]
        inside = fovarray._within(ours, dx, dy, radius, SQUARE, 0)
        assert inside.tolist() == [d <= radius for d in theirs]


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_a_radius_cuts_the_arrays_hexes_as_the_search_does(orientation):
    import numpy as np

    from rules import fovarray, fovtiles
    from rules.grid import Grid

    grid = Grid("hex", orientation)
    for p in (0, 1):
        rings = fovarray._rings(grid, 40, 40, p)
        dist, dx, dy = (np.concatenate([r[k] for r in rings]) for k in (2, 3, 4))
        theirs = {(x, y): d for d, _a, x, y in fovtiles.hex_offsets(grid, 40, 40, p)}
        theirs = [theirs[x, y] for x, y in zip(dx.tolist(), dy.tolist())]
        odd = [k for k, (a, b) in enumerate(zip(dist.tolist(), theirs)) if a != b]
        assert odd  # (else this test tests nothing)
        for k in odd[:20]:
            radius = theirs[k]
            assert fovarray._within(dist, dx, dy, radius, grid, p).tolist() == [d <= radius for d in theirs]
