"""rules.knownboard (#69): a player's known board made from the board's own pieces gives the answers of the board
``Board.from_dict`` makes of the part they know (every unseen square blocked), as the fog made it before, to every
search from squares the player knows (where their tokens stand: a token's own squares are in its view). From an
unseen square the two may differ (rules/knownboard.py says how): not searched from here."""

from __future__ import annotations

import random

import pytest

from rules import los, movement
from rules.board import Board
from rules.cellmask import CellMask, grid_of
from rules.grid import HEX_FLAT, HEX_POINTY, SQUARE
from webapp.game.bridge.fog import _board_known, _seen_part
from webapp.game.bridge.fogwalls import by_cell


def random_board(rnd: random.Random, grid, size: int) -> Board:
    b = Board(size, size, grid)
    for _ in range(rnd.randrange(size * 3)):
        kind = rnd.random()
        if grid.hex:
            corners = grid.corners((rnd.randrange(size), rnd.randrange(size)))
            k = rnd.randrange(6)
            a, c = corners[k], corners[(k + 1) % 6]
        elif kind < 0.6:  # on grid lines, one to three squares long, across or down
            x, y, n = rnd.randrange(size), rnd.randrange(size), rnd.randint(1, 3)
            a, c = ((x, y), (x + n, y)) if rnd.random() < 0.5 else ((x, y), (x, y + n))
        elif kind < 0.8:  # square diagonals and corners
            x, y = rnd.randrange(size), rnd.randrange(size)
            a, c = (x, y), (x + 1, y + 1)
        else:  # anywhere, in eighths
            a = (rnd.randrange(8 * size) / 8, rnd.randrange(8 * size) / 8)
            c = (rnd.randrange(8 * size) / 8, rnd.randrange(8 * size) / 8)
            if a == c:
                continue
        if rnd.random() < 0.15:
            b.add_door(a, c, closed=rnd.random() < 0.7)
        else:
            b.add_wall(a, c)
    for _ in range(rnd.randrange(size)):
        cell = (rnd.randrange(size), rnd.randrange(size))
        kind = rnd.random()
        if kind < 0.4:
            b.block(cell)
        elif kind < 0.7:
            b.set_terrain(cell, rnd.choice((2, 3, 0.5)))
        else:
            b.add_cover(cell, "crate")
    return b


def known_cells(rnd: random.Random, board: Board) -> CellMask:
    """What a player may know: the views from a few squares and a patch the GM revealed."""
    size = board.width
    out: set = set()
    for _ in range(rnd.randint(1, 3)):
        origin = (rnd.randrange(size), rnd.randrange(size))
        out |= los.visible_cells(board, origin) if not board.is_blocked(origin) else {origin}
    x0, y0 = rnd.randrange(size), rnd.randrange(size)
    out |= {(x, y) for x in range(x0, min(size, x0 + 4)) for y in range(y0, min(size, y0 + 3))}
    return CellMask.of(out, size, size)


def from_dict(board: Board, cells) -> Board:
    """The known board as the fog made it before: ``Board.from_dict`` of the part seen, every unseen square blocked."""
    seen = _seen_part(board.to_dict(), by_cell(board), cells)
    unseen = [[x, y] for y in range(board.height) for x in range(board.width) if (x, y) not in cells]
    return Board.from_dict(seen | {"blocked": seen["blocked"] + unseen})


@pytest.mark.parametrize("grid", [SQUARE, HEX_POINTY, HEX_FLAT], ids=["squares", "pointy", "flat"])
@pytest.mark.parametrize("seed", range(40))
def test_the_known_board_from_the_boards_pieces_answers_as_the_one_made_again(grid, seed):
    rnd = random.Random(seed)
    board = random_board(rnd, grid, rnd.choice((9, 14, 20)))
    cells = known_cells(rnd, board)
    before = from_dict(board, cells)
    seen = _seen_part(board.to_dict(), by_cell(board), cells)
    now = _board_known(board, seen, cells)
    assert set(now.walls) == set(before.walls) and set(now.doors) == set(before.doors)
    assert {d: now.doors[d].closed for d in now.doors} == {d: before.doors[d].closed for d in before.doors}
    assert now._blocked == before._blocked and now.terrain == before.terrain
    assert now.cover_pieces == before.cover_pieces
    known = grid_of(cells, board.width, board.height).ravel().tolist()
    masks_now, masks_before = now.step_masks(), before.step_masks()
    assert [m for m, k in zip(masks_now, known) if k] == [m for m, k in zip(masks_before, known) if k]
    starts = [c for c in cells if not before.is_blocked(c)]
    rnd.shuffle(starts)
    policies = ("chebyshev", "alternating", "manhattan") if not grid.hex else ("chebyshev",)
    for start in starts[:6]:
        for policy in policies:
            assert movement.reachable(now, start, 6, policy) == movement.reachable(before, start, 6, policy)
            goal = rnd.choice(starts)
            assert movement.shortest_path(now, start, goal, policy) == movement.shortest_path(before, start, goal,
                                                                                                policy)
            assert movement.way_exists(now, start, goal, 1, policy) == movement.way_exists(before, start, goal, 1,
                                                                                            policy)
            if all(c in cells for c in grid.footprint(start, 2)):  # (a token's squares are in its view: known)
                assert movement.footprint_search(now, start, 2, policy, 5) == movement.footprint_search(
                    before, start, 2, policy, 5)


def test_the_known_board_shares_the_boards_walls_and_reads_its_steps_once_built():
    rnd = random.Random(69)
    board = random_board(rnd, SQUARE, 20)
    cells = known_cells(rnd, board)
    seen = _seen_part(board.to_dict(), by_cell(board), cells)
    now = _board_known(board, seen, cells)
    assert board.indexed("steps") and now.indexed("steps")  # (the board's built for it, once a version)
    assert all(now.walls[i] is board.walls[i] for i in now.walls)
    assert all((x, y) in now._blocked for y in range(20) for x in range(20) if (x, y) not in cells)
    board.add_wall((0, 0), (1, 0))  # a change to the board leaves a known board made before as it was
    assert set(now.walls) == {w["id"] for w in seen["walls"]}
