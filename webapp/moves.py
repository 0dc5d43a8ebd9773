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


def footprint_search(board: Board, start: tuple[int, int], size: int, diagonal: str,
                     budget: float | None = None, goal: tuple[int, int] | None = None
                     ) -> tuple[dict[tuple[int, int], float], list[tuple[int, int]] | None]:
    """Where a token of ``size`` x ``size`` squares can go, counted like one square's moves:
    ``(cost of each top-left square reached, the path to ``goal`` or None)``.

    A step is allowed when each square the token covers can make it (no wall, closed door or
    blocking square in the way of any); it costs the step's base cost by the diagonal policy
    (every second diagonal double under "alternating") times the dearest terrain among the
    squares the token newly covers. ``budget`` None: no limit.
    """
    import math
    from heapq import heappop, heappush

    w, h = board.width, board.height
    masks = board.step_masks()
    if not (0 <= start[0] and 0 <= start[1] and start[0] + size <= w and start[1] + size <= h):
        return {}, None
    steps = [(1 << i, dx, dy) for i, (dx, dy) in enumerate(STEPS) if not (dx and dy and diagonal == "manhattan")]
    alternating = diagonal == "alternating"
    limit = math.inf if budget is None else budget
    s0 = (start, 0)
    dist = {s0: 0.0}
    prev: dict = {}
    heap = [(0.0, start, 0)]
    found = None
    while heap:
        d, (x, y), parity = heappop(heap)
        if d > dist.get(((x, y), parity), math.inf):
            continue
        if (x, y) == goal:
            found = ((x, y), parity)
            break
        for bit, dx, dy in steps:
            nx, ny = x + dx, y + dy
            if nx < 0 or ny < 0 or nx + size > w or ny + size > h:
                continue
            if any(masks[(y + j) * w + x + i] & bit for j in range(size) for i in range(size)):
                continue
            entered = [(nx + i, ny + j) for j in range(size) for i in range(size)
                       if not (x <= nx + i < x + size and y <= ny + j < y + size)]
            terrain = max(board.terrain_cost(c) for c in entered)
            diag = bool(dx and dy)
            if diag and alternating:
                nd, np_ = d + (1 + parity) * terrain, 1 - parity
            else:
                nd, np_ = d + (math.sqrt(2) if diag and diagonal == "euclidean" else 1) * terrain, parity
            key = ((nx, ny), np_)
            if nd <= limit + 1e-9 and nd < dist.get(key, math.inf):
                dist[key] = nd
                prev[key] = ((x, y), parity)
                heappush(heap, (nd, (nx, ny), np_))
    costs: dict[tuple[int, int], float] = {}
    for (cell, _p), d in dist.items():
        if d < costs.get(cell, math.inf):
            costs[cell] = d
    path = None
    if found is not None:
        path, at = [], found
        while True:
            path.append(at[0])
            if at not in prev:
                break
            at = prev[at]
        path.reverse()
    return costs, path
