"""Where a token may go on the board outside a fight: a way that crosses no wall, no closed
door and no blocking square, for tokens of one square and bigger ones.

Pure, like ``table``: plain board in, yes or no out. Single squares ask ``rules.movement``
(the same search the rule systems use); a big token steps only where each square it covers can.
"""

from __future__ import annotations

from rules import movement
from rules.board import STEPS, Board


def way_exists(board: Board, start: tuple[int, int], goal: tuple[int, int], size: int = 1,
               diagonal: str = "chebyshev") -> bool:
    """A path on the board from ``start`` to ``goal`` that crosses no wall, no closed door and no
    blocking square, for a token covering ``size`` x ``size`` squares (its top-left square given).

    Outside a fight there is no allowance to count, and tokens do not block the way (a player
    must not learn where hidden tokens stand from a refused path).
    """
    if start == goal:
        return True
    if size == 1:
        if not board.in_bounds(start):
            return False
        return movement.shortest_path(board, start, goal, diagonal) is not None
    # A big token steps when every square it covers can make that step.
    w, h = board.width, board.height
    masks = board.step_masks()
    steps = [(1 << i, dx, dy) for i, (dx, dy) in enumerate(STEPS) if not (dx and dy and diagonal == "manhattan")]

    def fits(x: int, y: int) -> bool:
        return 0 <= x and 0 <= y and x + size <= w and y + size <= h

    if not fits(*start) or not fits(*goal):
        return False
    seen = {start}
    frontier = [start]
    while frontier:
        nxt = []
        for x, y in frontier:
            for bit, dx, dy in steps:
                t = (x + dx, y + dy)
                if t in seen or not fits(*t):
                    continue
                if any(masks[(y + j) * w + x + i] & bit for j in range(size) for i in range(size)):
                    continue
                if t == goal:
                    return True
                seen.add(t)
                nxt.append(t)
        frontier = nxt
    return False
