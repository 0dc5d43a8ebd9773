"""The grid abstraction (rules/grid.py): squares and hexes of both orientations."""

import math

import pytest
from hypothesis import given, strategies as st

from rules.grid import HEX_FLAT, HEX_POINTY, SQUARE, Grid

HEXES = [HEX_POINTY, HEX_FLAT]
cells = st.tuples(st.integers(-40, 40), st.integers(-40, 40))


@pytest.mark.parametrize("grid", HEXES, ids=["pointy", "flat"])
@given(a=cells)
def test_cube_coordinates_go_there_and_back(grid, a):
    q, r, s = grid.cube(a)
    assert q + r + s == 0
    assert grid.from_cube((q, r, s)) == a


@pytest.mark.parametrize("grid", HEXES, ids=["pointy", "flat"])
@given(a=cells, b=cells, c=cells)
def test_hex_distance_is_a_metric(grid, a, b, c):
    assert grid.steps(a, a) == 0
    assert grid.steps(a, b) == grid.steps(b, a)
    assert (grid.steps(a, b) == 0) == (a == b)
    assert grid.steps(a, c) <= grid.steps(a, b) + grid.steps(b, c)


@pytest.mark.parametrize("grid", HEXES, ids=["pointy", "flat"])
@given(a=cells)
def test_six_neighbours_one_step_and_one_true_length_away(grid, a):
    near = grid.neighbours(a)
    assert len(set(near)) == 6
    ax, ay = grid.centre(a)
    for n in near:
        assert grid.steps(a, n) == 1
        nx, ny = grid.centre(n)
        assert grid.length(nx - ax, ny - ay) == pytest.approx(1.0)


@pytest.mark.parametrize("grid", HEXES, ids=["pointy", "flat"])
@given(a=cells, b=cells)
def test_lines_between_centres_are_contiguous(grid, a, b):
    line = grid.line(a, b)
    assert line[0] == a and line[-1] == b
    assert len(line) == grid.steps(a, b) + 1
    assert all(grid.steps(p, q) == 1 for p, q in zip(line, line[1:]))


@pytest.mark.parametrize("grid", [SQUARE, *HEXES], ids=["square", "pointy", "flat"])
@given(a=cells, fx=st.floats(0.02, 0.98), fy=st.floats(0.02, 0.98))
def test_a_point_inside_a_cell_is_found_in_it(grid, a, fx, fy):
    cx, cy = grid.centre(a)
    # a point a little way from the centre towards a corner, well inside the cell
    corner = grid.corners(a)[int(fx * len(grid.corners(a)))]
    t = 0.9 * fy
    p = (cx + (corner[0] - cx) * t, cy + (corner[1] - cy) * t)
    assert grid.cell_at(p) == a


@pytest.mark.parametrize("grid", HEXES, ids=["pointy", "flat"])
@given(a=cells)
def test_hex_corners_are_exact_quarters_and_shared_with_neighbours(grid, a):
    mine = set(grid.corners(a))
    assert len(mine) == 6
    assert all((v * 4) == int(v * 4) for p in mine for v in p)
    for n in grid.neighbours(a):
        assert len(mine & set(grid.corners(n))) == 2  # one shared edge


@pytest.mark.parametrize("grid", HEXES, ids=["pointy", "flat"])
def test_rings_and_areas_count_hexes(grid):
    assert len(grid.ring((5, 5), 1)) == 6
    assert len(grid.ring((5, 5), 3)) == 18
    assert len(set(grid.within((5, 5), 2))) == 19  # 1 + 6 + 12
    assert all(grid.steps((5, 5), c) == 3 for c in grid.ring((5, 5), 3))


def test_four_hexes_along_a_row_are_four_steps():
    assert HEX_POINTY.steps((2, 3), (6, 3)) == 4
    assert HEX_FLAT.steps((3, 2), (3, 6)) == 4


def test_offset_rows_and_columns_shift_the_odd_ones():
    # pointy top: odd rows shifted right by half a hex
    assert HEX_POINTY.centre((0, 0)) == (0.5, 0.5)
    assert HEX_POINTY.centre((0, 1)) == (1.0, 1.25)
    # flat top: odd columns shifted down by half a hex
    assert HEX_FLAT.centre((0, 0)) == (0.5, 0.5)
    assert HEX_FLAT.centre((1, 0)) == (1.25, 1.0)
    assert HEX_POINTY.extent(10, 8) == (10.5, 6.25)
    assert HEX_FLAT.extent(10, 8) == (7.75, 8.5)


def test_true_lengths_stretch_the_hex_height():
    assert HEX_POINTY.length(0, 1) == pytest.approx(2 / math.sqrt(3))
    assert HEX_FLAT.length(1, 0) == pytest.approx(2 / math.sqrt(3))
    assert SQUARE.length(3, 4) == 5


def test_grids_read_and_write_their_names():
    assert Grid.from_dict(None) is SQUARE and Grid.from_dict(SQUARE.to_dict()) == SQUARE
    assert Grid.from_dict({"grid": "hex", "orientation": "flat"}) == HEX_FLAT
    assert Grid.from_dict(HEX_POINTY.to_dict()) == HEX_POINTY
    for bad in ({"grid": "octagon"}, {"grid": "hex", "orientation": "sideways"}, {"grid": "square", "orientation": "flat"}):
        with pytest.raises(ValueError):
            Grid.from_dict(bad)


@pytest.mark.parametrize("grid", HEXES, ids=["pointy", "flat"])
@given(a=cells)
def test_big_tokens_cover_one_three_or_seven_touching_hexes(grid, a):
    for size, count in ((1, 1), (2, 3), (3, 7)):
        cover = grid.footprint(a, size)
        assert len(set(cover)) == count and cover[0] == a
        assert all(grid.steps(p, q) <= 2 for p in cover for q in cover)
    assert all(grid.steps(p, q) == 1 for p in grid.footprint(a, 2) for q in grid.footprint(a, 2) if p != q)
    with pytest.raises(ValueError):
        grid.footprint(a, 4)


def test_square_footprints_are_blocks():
    assert sorted(SQUARE.footprint((2, 3), 2)) == [(2, 3), (2, 4), (3, 3), (3, 4)]


def test_a_board_keeps_its_grid():
    from rules.board import Board
    b = Board(6, 5, HEX_FLAT)
    b.add_wall((1.25, 0.5), (1.5, 1.0))
    again = Board.from_dict(b.to_dict())
    assert again.grid == HEX_FLAT and again == b
    assert Board.from_dict({"width": 3, "height": 3}).grid == SQUARE
    assert b.to_dict()["grid"] == "hex" and b.to_dict()["orientation"] == "flat"
