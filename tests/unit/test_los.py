"""Line of fire, cover and visible cells: the named corner cases, and
properties on random boards (symmetry, fog = line of fire)."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.board import Board
from rules.los import COVER_SAMPLES, Cover, LineOfFire, can_see, cover, cover_fraction, line_of_fire, visible_cells


def lof(board, a, b):
    return line_of_fire(board, a, b)


class TestLineOfFire:
    def test_open_board(self):
        r = lof(Board(10, 10), (0, 0), (3, 1))
        assert r == LineOfFire(True, [(0, 0), (1, 0), (2, 0), (1, 1), (2, 1), (3, 1)], [])

    def test_same_cell(self):
        assert lof(Board(3, 3), (1, 1), (1, 1)) == LineOfFire(True, [(1, 1)], [])

    def test_a_crossing_wall_blocks(self):
        b = Board(10, 10)
        b.add_wall((2, 0), (2, 3))
        r = lof(b, (0, 1), (4, 1))
        assert not r.clear and r.blockers == ["wall-1"]

    def test_touching_a_wall_end_point_is_clear(self):
        b = Board(10, 10)
        b.add_wall((1, 1), (1, 3))  # its end (1, 1) is on the diagonal from (0, 0) to (2, 2)
        assert lof(b, (0, 0), (2, 2)).clear
        assert lof(b, (2, 2), (0, 0)).clear

    def test_running_along_a_wall_is_blocked(self):
        b = Board(10, 10)
        b.add_wall((1, 0.5), (2, 0.5))  # lies on the line between the centres of (0, 0) and (3, 0)
        r = lof(b, (0, 0), (3, 0))
        assert not r.clear and r.blockers == ["wall-1"]

    def test_walls_meeting_from_both_sides_of_the_line_block(self):
        b = Board(10, 10)
        b.add_wall((1, 1), (1, 2))  # down from the corner: left of the line
        b.add_wall((1, 1), (2, 1))  # right from the corner: right of the line
        r = lof(b, (0, 0), (2, 2))
        assert not r.clear and r.blockers == ["wall-1", "wall-2"]
        assert not lof(b, (2, 2), (0, 0)).clear

    def test_walls_meeting_on_one_side_of_the_line_do_not(self):
        b = Board(10, 10)
        b.add_wall((1, 1), (1, 0))
        b.add_wall((1, 1), (2, 1))  # both on the upper right of the diagonal
        assert lof(b, (0, 0), (2, 2)).clear

    def test_pillars_corner_to_corner_block_one_pillar_does_not(self):
        b = Board(10, 10)
        b.block((1, 0))
        assert lof(b, (0, 0), (1, 1)).clear
        b.block((0, 1))
        r = lof(b, (0, 0), (1, 1))
        assert not r.clear and r.blockers == ["cell-0-1", "cell-1-0"]

    def test_a_wall_and_a_pillar_meeting_at_a_corner_block(self):
        b = Board(10, 10)
        b.block((1, 0))
        b.add_wall((1, 1), (1, 2))
        assert lof(b, (0, 0), (1, 1)).blockers == ["cell-1-0", "wall-1"]

    def test_cells_include_both_cells_beside_an_exact_corner(self):
        r = lof(Board(10, 10), (0, 0), (2, 2))
        assert r.cells == [(0, 0), (1, 0), (0, 1), (1, 1), (2, 1), (1, 2), (2, 2)]
        r = lof(Board(10, 10), (3, 0), (0, 3))
        assert set(r.cells) == {(3, 0), (2, 0), (3, 1), (2, 1), (1, 1), (2, 2), (1, 2), (0, 2), (1, 3), (0, 3)}

    def test_a_pillar_in_the_way_blocks_and_the_ends_never_block(self):
        b = Board(10, 10)
        b.block((2, 0))
        b.block((0, 0))
        b.block((4, 0))
        r = lof(b, (0, 0), (4, 0))
        assert not r.clear and r.blockers == ["cell-2-0"]
        assert lof(b, (0, 0), (1, 0)).clear

    def test_doors_block_only_when_closed(self):
        b = Board(10, 10)
        d = b.add_door((2, 0), (2, 2))
        assert lof(b, (0, 0), (4, 1)).blockers == ["door-1"]
        b.set_door(d, False)
        assert lof(b, (0, 0), (4, 1)).clear

    def test_cover_pieces_never_block_line_of_fire(self):
        b = Board(10, 10)
        b.add_cover((2, 0), "crate")
        assert lof(b, (0, 0), (4, 0)).clear

    def test_walls_at_float_points(self):
        b = Board(10, 10)
        b.add_wall((2.3, -0.7), (2.9, 4.1))
        assert not lof(b, (0, 1), (5, 2)).clear
        assert lof(b, (0, 5), (5, 5)).clear

    def test_every_blocker_is_listed(self):
        b = Board(10, 10)
        b.add_wall((2, 0), (2, 1))
        b.add_wall((4, 0), (4, 1))
        b.block((6, 0))
        assert lof(b, (0, 0), (8, 0)).blockers == ["cell-6-0", "wall-1", "wall-2"]
        assert not can_see(b, (0, 0), (8, 0))

    def test_cells_off_the_board_are_refused(self):
        with pytest.raises(ValueError):
            lof(Board(3, 3), (0, 0), (3, 0))


class TestCover:
    def test_nothing_between(self):
        assert cover(Board(10, 10), (0, 0), (5, 3)) == Cover(0.0, [])

    def test_no_line_reaches(self):
        b = Board(10, 10)
        b.add_wall((3, -1), (3, 5))
        assert cover(b, (0, 0), (5, 0)) == Cover(1.0, ["wall-1"])

    def test_a_low_wall_covering_part_of_the_target(self):
        b = Board(10, 10)
        b.add_wall((3, 0), (3, 0.5))
        # the three lines to the top row of samples cross it; the middle row
        # only touches its end point; the bottom row passes below it
        assert cover(b, (0, 0), (4, 0)) == Cover(3 / 9, ["wall-1"])

    def test_a_cover_piece_between_counts(self):
        b = Board(10, 10)
        b.add_cover((2, 0), "sandbags")
        c = cover(b, (0, 0), (4, 0))
        assert c.fraction == 1.0 and c.blockers == ["cover-1"]
        assert lof(b, (0, 0), (4, 0)).clear

    def test_cover_in_the_attackers_or_targets_cell_does_not_count(self):
        b = Board(10, 10)
        b.add_cover((0, 0), "crate")
        b.add_cover((4, 0), "crate")
        assert cover(b, (0, 0), (4, 0)) == Cover(0.0, [])

    def test_partly_behind_a_pillar(self):
        b = Board(10, 10)
        b.block((2, 1))
        # six of the nine sample lines pass through it
        assert cover(b, (0, 0), (4, 1)) == Cover(6 / 9, ["cell-2-1"])
        assert cover(b, (0, 0), (4, 2)) == Cover(1.0, ["cell-2-1"])

    def test_the_lattice(self):
        assert len(COVER_SAMPLES) == 9 and (2, 2) in COVER_SAMPLES


# ---------------------------------------------------------------- random boards

coord = st.one_of(
    st.integers(0, 8),
    st.sampled_from([0.5, 1.5, 2.5, 3.25, 4.75, 1 / 3, 2 / 3, 7 / 3]),
    st.floats(0, 8, allow_nan=False),
)


@st.composite
def boards(draw, size=8):
    b = Board(size, size)
    for _ in range(draw(st.integers(0, 8))):
        a = (draw(coord), draw(coord))
        if draw(st.booleans()):  # snapped, along a grid line
            n = draw(st.integers(1, 3))
            x, y = draw(st.integers(0, size)), draw(st.integers(0, size))
            a, c = (x, y), ((x + n, y) if draw(st.booleans()) else (x, y + n))
        else:
            c = (draw(coord), draw(coord))
        if a != c:
            if draw(st.integers(0, 4)) == 0:
                b.add_door(a, c, closed=draw(st.booleans()))
            else:
                b.add_wall(a, c)
    for _ in range(draw(st.integers(0, 6))):
        b.block((draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))))
    for _ in range(draw(st.integers(0, 3))):
        b.add_cover((draw(st.integers(0, size - 1)), draw(st.integers(0, size - 1))), "crate")
    return b


cells = st.tuples(st.integers(0, 7), st.integers(0, 7))


@settings(max_examples=200, deadline=None)
@given(boards(), cells, cells)
def test_line_of_fire_is_symmetric(board, a, b):
    ab, ba = lof(board, a, b), lof(board, b, a)
    assert ab.clear == ba.clear
    assert ab.blockers == ba.blockers
    assert set(ab.cells) == set(ba.cells)
    assert ab.cells[0] == a and ab.cells[-1] == b
    assert can_see(board, a, b) == ab.clear
    assert cover_fraction(board, a, b) == cover(board, a, b).fraction


@settings(max_examples=150, deadline=None)
@given(boards(), cells, st.one_of(st.none(), st.floats(0, 6)))
def test_visible_cells_is_line_of_fire_to_every_cell(board, origin, radius):
    seen = visible_cells(board, origin, radius)
    expected = {
        (x, y)
        for x in range(8)
        for y in range(8)
        if (radius is None or (x - origin[0]) ** 2 + (y - origin[1]) ** 2 <= radius * radius)
        and lof(board, origin, (x, y)).clear
    }
    assert seen == expected


@settings(max_examples=200, deadline=None)
@given(boards(), cells, cells)
def test_cover_is_a_share_of_nine_lines(board, a, t):
    c = cover(board, a, t)
    assert c.fraction * 9 == round(c.fraction * 9) and 0 <= c.fraction <= 1
    assert (c.fraction == 0) == (not c.blockers)
    if a != t and not lof(board, a, t).clear:
        assert c.fraction > 0


def test_visible_cells_through_a_doorway():
    b = Board(9, 9)
    b.add_wall((0, 4), (4, 4))
    b.add_wall((5, 4), (9, 4))  # a wall across the board with a gap at x 4..5
    seen = visible_cells(b, (4, 0))
    assert (4, 8) in seen and (0, 8) not in seen and (8, 8) not in seen
    assert (0, 0) in seen and (8, 3) in seen
    assert visible_cells(b, (4, 0), radius=2) == {c for c in seen if (c[0] - 4) ** 2 + c[1] ** 2 <= 4}


def test_visible_cells_include_a_seen_pillar_not_what_is_behind():
    b = Board(5, 1)
    b.block((2, 0))
    assert visible_cells(b, (0, 0)) == {(0, 0), (1, 0), (2, 0)}


def test_visible_cells_on_a_large_open_board():
    assert len(visible_cells(Board(40, 30), (3, 4))) == 1200


def test_visible_cells_on_a_larger_random_board_match_line_of_fire():
    import random

    rnd = random.Random(7)
    b = Board(24, 24)
    for i in range(90):
        x, y = rnd.randrange(24), rnd.randrange(24)
        if i % 4:
            n = rnd.randint(1, 4)
            b.add_wall((x, y), (x + n, y) if rnd.random() < 0.5 else (x, y + n))
        else:
            b.add_wall((x + rnd.random(), y + rnd.random()), (x + rnd.uniform(-6, 6), y + rnd.uniform(-6, 6)))
    for _ in range(15):
        b.block((rnd.randrange(24), rnd.randrange(24)))
    for origin in [(3, 3), (12, 12), (23, 0), (7, 19)]:
        expected = {(x, y) for x in range(24) for y in range(24) if lof(b, origin, (x, y)).clear}
        assert visible_cells(b, origin) == expected
        assert visible_cells(b, origin, 5.5) == {c for c in expected if math.dist(c, origin) <= 5.5}


@pytest.mark.parametrize(
    "walls",
    [
        [((-(10**9), 5), (10**9, 5))],
        [((3, -(10**9)), (3, 10**9)), ((-5, -5), (10**6, 10**6 + 0.5))],
        [((-50.3, 7.7), (80.1, 2.2)), ((5.5, -1e12), (5.5000001, 1e12))],
    ],
)
def test_huge_walls_imported_from_a_map(walls):
    b = Board(10, 10)
    for a, c in walls:
        b.add_wall(a, c)
    for origin in [(0, 0), (5, 5), (2, 7), (4, 5)]:
        expected = {(x, y) for x in range(10) for y in range(10) if lof(b, origin, (x, y)).clear}
        assert visible_cells(b, origin) == expected
