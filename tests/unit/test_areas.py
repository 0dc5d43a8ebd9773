"""The table's area templates: which squares and tokens a circle, a cone and a line cover."""

import math

import pytest
from hypothesis import given, settings, strategies as st

from rules.areas import Area, cells, under


def test_a_circle_of_radius_one_on_a_square_centre_is_a_plus():
    assert cells(Area("circle", 5.5, 5.5, 1)) == {(5, 5), (4, 5), (6, 5), (5, 4), (5, 6)}


def test_a_circle_of_radius_two_on_a_corner_covers_the_squares_whose_centres_are_within_two():
    got = cells(Area("circle", 5, 5, 2))
    assert (4, 4) in got and (5, 5) in got and (3, 4) in got  # centre (3.5, 4.5): 1.58 away
    assert (3, 3) not in got  # centre (3.5, 3.5): 2.12 away


def test_a_cone_points_its_way_and_opens_ninety_degrees():
    cone = Area("cone", 0.5, 5.5, 4, direction=0)  # from the centre of (0, 5), pointing right
    got = cells(cone)
    assert {(1, 5), (2, 5), (3, 5), (4, 5)} <= got
    assert (2, 6) in got and (2, 7) in got  # 45 degrees off, within reach
    assert (1, 7) not in got  # more than 45 degrees off
    assert not any(x < 0 for x, _ in got)  # nothing behind the apex
    assert (5, 5) not in got  # beyond its length


def test_a_line_is_one_square_wide_and_its_length_long():
    line = Area("line", 2.0, 3.5, 6, direction=0)
    assert cells(line) == {(x, 3) for x in range(2, 8)}
    down = Area("line", 4.5, 1.0, 3, direction=90)
    assert cells(down) == {(4, 1), (4, 2), (4, 3)}


def test_cells_stay_on_the_board():
    assert all(0 <= x < 3 and 0 <= y < 3 for x, y in cells(Area("circle", 0, 0, 5), 3, 3))


def test_a_big_token_is_under_when_any_of_its_squares_is():
    area = Area("circle", 2.5, 2.5, 1)
    tokens = [("ogre", [(3, 3), (4, 3), (3, 4), (4, 4)]), ("orc", [(3, 2)]), ("elf", [(6, 6)])]
    assert under(area, tokens) == ["orc"]
    assert under(Area("circle", 2.5, 2.5, 1.5), tokens) == ["ogre", "orc"]


def test_bad_templates_are_refused():
    for bad in (lambda: Area("square", 0, 0, 1), lambda: Area("circle", 0, 0, 0),
                lambda: Area("circle", 0, 0, -1), lambda: Area("line", math.nan, 0, 1)):
        with pytest.raises(ValueError):
            bad()


coords = st.integers(min_value=0, max_value=20)
sizes = st.floats(min_value=0.5, max_value=8, allow_nan=False)


@settings(max_examples=80, deadline=None)
@given(coords, coords, sizes)
def test_a_circle_on_a_square_centre_is_symmetric_in_both_axes_and_the_diagonal(cx, cy, r):
    got = cells(Area("circle", cx + 0.5, cy + 0.5, r))
    for x, y in got:
        dx, dy = x - cx, y - cy
        for sx, sy in ((-dx, dy), (dx, -dy), (dy, dx)):
            assert (cx + sx, cy + sy) in got


@settings(max_examples=80, deadline=None)
@given(coords, coords, sizes, st.floats(min_value=0, max_value=360, allow_nan=False))
def test_every_covered_square_is_within_reach_and_a_bigger_template_covers_more(cx, cy, size, direction):
    for shape in ("circle", "cone", "line"):
        small = cells(Area(shape, cx + 0.5, cy + 0.5, size, direction))
        big = cells(Area(shape, cx + 0.5, cy + 0.5, size + 1, direction))
        assert small <= big
        for x, y in small:
            assert math.hypot(x + 0.5 - cx - 0.5, y + 0.5 - cy - 0.5) <= size + 1 + 1e-6


@settings(max_examples=60, deadline=None)
@given(coords, coords, sizes, st.floats(min_value=0, max_value=360, allow_nan=False))
def test_a_cone_lies_inside_the_circle_of_its_length_and_mirrors_across_its_axis(cx, cy, size, direction):
    apex = (cx + 0.5, cy + 0.5)
    cone = Area("cone", *apex, size, direction)
    assert cells(cone) <= cells(Area("circle", *apex, size))
    # a cone pointing straight right is symmetric top to bottom about its axis
    right = cells(Area("cone", *apex, size, 0))
    assert right == {(x, 2 * cy - y) for x, y in right}
