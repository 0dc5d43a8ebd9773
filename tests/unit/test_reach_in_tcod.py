"""#69: ``bench/reach_in_tcod.py`` (the study of how near tcod a whole board's reach can come) builds exactly
``rules.movement.reachable``'s answer with tcod doing the search: the same cells, costs (of the same type) and order,
on random boards with walls on cell edges and at float points, closed doors, blocking cells, whole terrain costs,
occupied cells, budgets, and each policy whose costs are whole numbers. Its figures are only worth quoting if so."""

from __future__ import annotations

import random

import pytest

from bench import reach_in_tcod
from rules import movement
from tests.unit.test_sight_speed_movement import random_board, typed


@pytest.mark.parametrize("seed", range(30))
def test_tcods_search_gives_reachables_answer(seed):
    board, tokens = random_board(seed)
    for cell, cost in list(board.terrain.items()):  # tcod's costs are whole numbers
        if isinstance(cost, float):
            board.set_terrain(cell, 3)
    rnd = random.Random(seed)
    for diagonal in reach_in_tcod.POLICIES:
        for _ in range(3):
            start = (rnd.randrange(board.width), rnd.randrange(board.height))
            budget = rnd.choice([None, 0, 1, 3, 6.5, 12])
            occupied = rnd.choice([(), tokens])
            assert typed(reach_in_tcod.reach(board, start, budget, diagonal, occupied)) == typed(
                movement.reachable(board, start, budget, diagonal, occupied)), (diagonal, start, budget, occupied)


@pytest.mark.parametrize("seed", range(30))
def test_tcods_search_gives_shortest_paths_way(seed):
    board, tokens = random_board(100 + seed)
    for cell, cost in list(board.terrain.items()):
        if isinstance(cost, float):
            board.set_terrain(cell, 3)
    rnd = random.Random(seed)
    for diagonal in ("chebyshev", "manhattan"):
        for _ in range(4):
            start = (rnd.randrange(board.width), rnd.randrange(board.height))
            goal = (rnd.randrange(board.width), rnd.randrange(board.height))
            occupied = rnd.choice([(), tokens])
            assert reach_in_tcod.path(board, start, goal, diagonal, occupied) == movement.shortest_path(
                board, start, goal, diagonal, occupied), (diagonal, start, goal, occupied)


def test_the_bench_board_whole():
    from bench.bench_rules import make_board

    board, tokens = make_board()
    for diagonal in reach_in_tcod.POLICIES:
        assert typed(reach_in_tcod.reach(board, tokens[0], None, diagonal, tokens[5:])) == typed(
            movement.reachable(board, tokens[0], None, diagonal, tokens[5:]))
