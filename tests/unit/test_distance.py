"""Range between two cells: straight-line squares by each diagonal policy."""

import pytest
from hypothesis import given, strategies as st

from rules.board import Board
from rules.movement import distance, shortest_path

cells = st.tuples(st.integers(0, 11), st.integers(0, 11))


@pytest.mark.parametrize("policy, expected", [("chebyshev", 4), ("alternating", 5), ("manhattan", 7), ("euclidean", 5.0)])
def test_three_across_and_four_down(policy, expected):
    assert distance((0, 0), (3, 4), policy) == expected


@given(cells, cells, st.sampled_from(["chebyshev", "alternating", "manhattan", "euclidean"]))
def test_distance_is_symmetric(a, b, policy):
    assert distance(a, b, policy) == distance(b, a, policy)


@given(cells, cells, st.sampled_from(["chebyshev", "alternating", "manhattan"]))
def test_on_an_open_board_range_equals_the_cheapest_walk(a, b, policy):
    """With nothing in the way, counting squares and walking them agree (the diagonal rule is the same)."""
    cost, _ = shortest_path(Board(12, 12), a, b, policy)
    assert cost == distance(a, b, policy)


@given(cells, cells)
def test_policies_order_chebyshev_alternating_manhattan(a, b):
    assert distance(a, b, "chebyshev") <= distance(a, b, "alternating") <= distance(a, b, "manhattan")
