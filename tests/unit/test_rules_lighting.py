"""rules.lighting: what a light reaches and what a token sees in the dark; each system's dark vision."""

import math

from hypothesis import given, settings
from hypothesis import strategies as st

import rules
from rules import lighting
from rules.board import Board
from rules.los import visible_cells


def test_a_light_reaches_the_squares_it_sees_within_its_range():
    b = Board(12, 5)
    b.add_wall((6, 0), (6, 5))  # a wall across the board
    lit = lighting.lit_squares(b, [(3.5, 2.5, 2)])
    assert (3, 2) in lit and (5, 2) in lit and (3, 0) in lit
    assert (6, 2) not in lit  # behind the wall
    assert (4, 0) not in lit  # sqrt(5) > 2: beyond its range
    assert all(math.hypot(x - 3, y - 2) <= 2 for x, y in lit)


def test_a_light_shines_from_the_square_holding_its_point():
    b = Board(4, 4)
    assert lighting.light_cell(b, 2.0, 3.99) == (2, 3)
    assert lighting.light_cell(b, 4, 4) == (3, 3)  # on the far edge: the last square
    assert lighting.light_cell(b, 4.5, 1) is None
    assert lighting.lit_squares(b, [(9, 9, 3), (1.5, 1.5, 0)]) == frozenset()  # off the map, or no range


def test_a_light_inside_a_blocking_square_lights_that_square_alone():
    b = Board(5, 5)
    b.block((2, 2))
    assert lighting.reach(b, (2, 2), 3) == {(2, 2)}


def test_in_the_dark_a_token_sees_lit_squares_its_own_reach_and_where_it_stands():
    sight = {(0, 0), (1, 0), (2, 0), (3, 0), (4, 0)}
    lit = frozenset({(4, 0), (5, 0)})  # (5, 0) is lit but out of sight
    own = frozenset({(0, 0), (1, 0)})
    assert lighting.seen_in_dark(sight, own, lit, [(0, 0)]) == {(0, 0), (1, 0), (4, 0)}
    assert lighting.seen_in_dark(sight, frozenset(), frozenset(), [(0, 0)]) == {(0, 0)}


def test_every_system_has_a_reading_citing_its_document():
    for system in rules.systems():
        dv = lighting.dark_vision(system.id)
        assert dv.squares >= 0 and dv.dark and dv.dim
    for system_id in ("atomic_tomorrow", "tesseris_ads", "phase_tn", "gurps_lite", "savage_worlds"):
        assert system_id in lighting.DARK_VISION  # read from its own document, not the fallback
    assert "Combat System Reference" in lighting.DARK_VISION["savage_worlds"].dark
    assert "Blinded" in lighting.DARK_VISION["tesseris_ads"].dark


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 7), st.integers(0, 5), st.floats(0.5, 6), st.integers(0, 7), st.integers(0, 5),
       st.lists(st.tuples(st.integers(1, 7), st.integers(0, 5), st.integers(0, 5)), max_size=3))
def test_what_is_seen_in_the_dark_is_seen_in_bright_light_and_lit_or_near(x, y, r, lx, ly, walls):
    b = Board(8, 6)
    for wx, y0, y1 in walls:
        if y0 != y1:
            b.add_wall((wx, y0), (wx, y1))
    sight = visible_cells(b, (x, y))
    lit = lighting.lit_squares(b, [(lx + 0.5, ly + 0.5, 3)])
    own = lighting.reach(b, (x, y), r)
    dark = lighting.seen_in_dark(sight, own, lit, [(x, y)])
    assert dark <= sight  # the dark never shows more than bright light
    for c in dark:
        assert c == (x, y) or c in lit or math.hypot(c[0] - x, c[1] - y) <= r
    assert (lit & sight) <= dark and own <= dark
