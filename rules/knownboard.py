"""A player's known board (#69): the board as the fog lets them know it, made from the board itself.

The fog's answers to "how far can my token go, is there a way there" are worked out on the board as the player
knows it (``webapp.game.bridge.fog.known_board``): the walls, doors, cover and terrain of the squares they have
seen, every square never seen blocked. It was made with ``Board.from_dict`` of that part, each known wall added
again and the refused steps of every square built again: on the biggest map some 0.4 s for every move that brings
a square into view. :func:`known_board` makes the same board from the board's own pieces (the walls are frozen
values, shared), and reads its refused steps from the board's (built once per version of the board) with the
unseen squares' bits added.

Why the refused steps are the same on every square the player knows: a known board's steps are refused by the
board's edge, its blocking cells (the board's and every unseen square: no step into one, no diagonal past one)
and its walls and closed doors, those touching a known square. A wall refuses a step only where it meets the
step's line or, for a diagonal, the corner it passes: within the two squares of the step, or the four around that
corner. So at a known square, a wall of the board's that the known board lacks (one touching unseen squares only)
refuses only steps into an unseen square or past one, which the unseen squares' own bits refuse already. No search
enters an unseen square (blocked), and a token's own squares are in its player's view (the fog's ``_sight``), so
every search from where a player's token stands gets the same answers. Only a search from an unseen square (a
player's token the GM hid: its view is not its player's) may differ: there the steps the board's walls refuse are
refused, unseen walls too, where the board made before refused those of walls touching a known square alone.
tests/unit/test_known_board.py holds the two to the same refused steps on every known square and the same searches
(reach, paths, ways, a big token's footprint) on random squares and hex boards.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from . import stepmasks
from .board import STEPS, Board
from .stepsearch import cells_of


def known_board(board: Board, walls: Iterable[str], doors: Iterable[str], cover: Iterable[str],
                unseen: np.ndarray) -> Board:
    """``board`` with the walls, doors and cover pieces of these ids only, the terrain of the squares not
    ``unseen`` (a grid of booleans, a row of the board's width for each of its rows) and every unseen square
    blocked: the board ``Board.from_dict`` gives of that part (``webapp.game.bridge.fog``'s), its refused steps
    read from ``board``'s (built here when not yet)."""
    h, w = unseen.shape
    out = Board.__new__(Board)
    out.width, out.height, out.grid = board.width, board.height, board.grid
    out._walls = {i: board._walls[i] for i in walls}
    out._doors = {i: board._doors[i] for i in doors}
    out._cover = {i: board._cover[i] for i in cover}
    cells = set(map(cells_of(w, h).__getitem__, np.flatnonzero(unseen).tolist()))
    out._blocked = board._blocked | cells  # (the board's in squares seen, and every unseen one)
    out._terrain = {c: cost for c, cost in board._terrain.items() if not unseen[c[1], c[0]]}
    out._next_number = dict(board._next_number)
    out._cache = {}
    out._version = 1
    masks = list(board.step_masks())
    if cells:
        if board.grid.hex:
            stepmasks.blocked_hex_bits(masks, cells, board.grid, w, h)
        else:
            stepmasks.blocked_square_bits(masks, cells, STEPS, w, h)
    out._cache["steps"] = masks
    return out
