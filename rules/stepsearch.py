"""The searches of ``rules.movement`` over a board's steps, made faster and the same (#69).

``rules.movement._search`` is a Dijkstra (an A* with a goal) over states ``cell_index * 2 + parity`` (the
parity of the diagonals so far, which only ``"alternating"`` needs), each step checked against the board's
step masks and the occupied cells as it is tried, its costs in dictionaries (``_hex_search`` on hexes: a
step to one of the hex's links, one state a hex). Here the same search runs on lists: the steps each cell
allows, built once per version of the board (:func:`neighbours` on squares, ``rules.hexgeom.hex_links`` on
hexes); the costs by state in a list, an occupied cell's at -1 so that no step improves on it (none enters
it) without looking at the occupied cells for each step; and the states in the order the dictionary would
have first held them. The answers are the same: the same costs, summed the same way (``d + base *
terrain``, with ``1 * terrain`` written ``terrain``: the same number of the same type), the heap's entries
popped in the same order (``(cost, state)`` sorts as ``(cost + 0, cost, state)`` does), so the same cells in
the same order and the same paths.
tests/unit/test_sight_speed_movement.py holds them to the search of before on random boards.
"""

from __future__ import annotations

import math
from heapq import heappop, heappush

from .board import STEPS, Board


def neighbours(board: Board) -> tuple:
    """For each cell (index ``y * width + x``) of a square board, the cells one orthogonal step away and those
    one diagonal step away that the step rule allows (:meth:`rules.board.Board.step_masks`: walls, closed doors,
    blocking cells, the edge, no cutting corners), each in the order of ``STEPS``; and each cell as ``(x, y)``.
    Built once per version of the board (cached)."""
    return board.cached("neighbours", lambda: _make_neighbours(board))


def cell_list(board: Board) -> list:
    """Each cell (index ``y * width + x``) as ``(x, y)`` (cached)."""
    w = board.width
    return board.cached("cell_list", lambda: [(i % w, i // w) for i in range(w * board.height)])


def _make_neighbours(board: Board) -> tuple:
    w = board.width
    masks = board.step_masks()
    index = list(range(len(masks)))  # the same int objects shared by every list (a 300 x 300 board's lists stay small)
    straight = [(1 << k, dy * w + dx) for k, (dx, dy) in enumerate(STEPS) if not (dx and dy)]
    slanted = [(1 << k, dy * w + dx) for k, (dx, dy) in enumerate(STEPS) if dx and dy]
    orth = [tuple([index[i + off] for bit, off in straight if not m & bit]) for i, m in enumerate(masks)]
    diag = [tuple([index[i + off] for bit, off in slanted if not m & bit]) for i, m in enumerate(masks)]
    return orth, diag, cell_list(board)


def reach_one_state(orth: list, diag: list | None, terr: list, slant: float, i0: int, limit, occ) -> tuple[list, list]:
    """``_search`` from cell ``i0`` without a goal or ``needed`` where a cell has one state (every policy but
    ``"alternating"``): ``orth`` and ``diag`` (None under ``"manhattan"``) from :func:`neighbours` (on hexes
    ``orth`` the links of ``rules.hexgeom.hex_links`` and ``diag`` None), ``terr`` each
    cell's terrain cost, ``slant`` a diagonal step's base cost (1, or the square root of 2 under ``"euclidean"``),
    ``limit`` the budget (``inf``: none), ``occ`` the occupied cells' indexes. Returns ``(best, order)`` by cell:
    each cell's least cost (``inf``: not reached) and the cells in the order ``_search`` first put their states
    in ``dist`` (the heap's ``(cost, i)`` pop in the order of its ``(cost + 0, cost, 2 * i)``)."""
    inf = math.inf
    best = [inf] * len(orth)
    for j in occ:
        best[j] = -1
    best[i0] = 0
    order = [i0]
    heap = [(0, i0)]
    while heap:
        d, i = heappop(heap)
        if d > best[i]:
            continue
        for j in orth[i]:
            nd = d + terr[j]
            if nd < best[j] and nd <= limit:
                if best[j] == inf:
                    order.append(j)
                best[j] = nd
                heappush(heap, (nd, j))
        if diag is None:
            continue
        for j in diag[i]:
            nd = d + terr[j] if slant == 1 else d + slant * terr[j]
            if nd < best[j] and nd <= limit:
                if best[j] == inf:
                    order.append(j)
                best[j] = nd
                heappush(heap, (nd, j))
    return best, order


def reach_alternating(orth: list, diag: list, terr: list, s0: int, limit, occ) -> tuple[list, list]:
    """:func:`reach_one_state` under ``"alternating"``, from state ``s0``: diagonals cost 1, 2, 1, 2... so a cell
    has two states (``2 * i + parity``). Returns ``(best, order)`` by state, as ``_search``'s ``dist``."""
    inf = math.inf
    best = [inf] * (2 * len(orth))
    for j in occ:
        best[2 * j] = best[2 * j + 1] = -1
    best[s0] = 0
    order = [s0]
    heap = [(0, s0)]
    while heap:
        d, s = heappop(heap)
        if d > best[s]:
            continue
        i = s >> 1
        parity = s & 1
        for j in orth[i]:
            nd = d + terr[j]
            t = 2 * j + parity
            if nd < best[t] and nd <= limit:
                if best[t] == inf:
                    order.append(t)
                best[t] = nd
                heappush(heap, (nd, t))
        for j in diag[i]:
            nd = d + (1 + parity) * terr[j]
            t = 2 * j + 1 - parity
            if nd < best[t] and nd <= limit:
                if best[t] == inf:
                    order.append(t)
                best[t] = nd
                heappush(heap, (nd, t))
    return best, order


def lower_bound(diagonal: str, cheapest: float, goal: tuple[int, int], cells: list):
    """``_search``'s lower bound of the cost from cell ``j`` to ``goal`` (``cheapest`` times the policy's
    distance on an empty board), as a function of ``j``: the same numbers, the cell's ``(x, y)`` read from
    ``cells`` (:func:`neighbours`) rather than worked out, and the policy chosen once rather than at each call."""
    gx, gy = goal
    root2 = math.sqrt(2)

    def chebyshev(j: int) -> float:
        x, y = cells[j]
        dx, dy = abs(x - gx), abs(y - gy)
        return cheapest * (dy if dx < dy else dx)

    def manhattan(j: int) -> float:
        x, y = cells[j]
        return cheapest * (abs(x - gx) + abs(y - gy))

    def euclidean(j: int) -> float:
        x, y = cells[j]
        dx, dy = abs(x - gx), abs(y - gy)
        lo, hi = (dx, dy) if dx < dy else (dy, dx)
        return cheapest * (hi - lo + root2 * lo)

    def alternating(j: int) -> float:
        x, y = cells[j]
        dx, dy = abs(x - gx), abs(y - gy)
        lo, hi = (dx, dy) if dx < dy else (dy, dx)
        return cheapest * (hi + lo // 2)

    return {"chebyshev": chebyshev, "manhattan": manhattan, "euclidean": euclidean}.get(diagonal, alternating)


def path_search(orth: list, diag: list | None, terr: list, slant: float, alternating: bool, s0: int, goal_i: int,
                bound, occ) -> tuple[dict, dict, int | None]:
    """``_search`` with a goal and no budget (its A*, for ``shortest_path``): from state ``s0`` to cell
    ``goal_i``, ``bound`` its lower bound (:func:`lower_bound`), the other arguments as :func:`reach_one_state`'s
    (``alternating``: the diagonals cost 1, 2, 1, 2...). Returns ``(dist, prev, found state or None)`` as
    ``_search`` does, with the same entries popped in the same order (``(cost + bound, cost, state)``), so the
    same path; ``dist`` also holds the occupied cells' states at -1 (a way never improves on them)."""
    inf = math.inf
    dist = {s0: 0}
    for j in occ:
        dist[2 * j] = dist[2 * j + 1] = -1
    prev: dict[int, int] = {}
    get = dist.get
    heap = [(bound(s0 >> 1), 0, s0)]
    while heap:
        _f, d, s = heappop(heap)
        if d > dist[s]:
            continue
        i = s >> 1
        if i == goal_i:
            return dist, prev, s
        parity = s & 1
        for j in orth[i]:
            nd = d + terr[j]
            t = 2 * j + parity
            if nd < get(t, inf):
                dist[t] = nd
                prev[t] = s
                heappush(heap, (nd + bound(j), nd, t))
        if diag is None:
            continue
        for j in diag[i]:
            if alternating:
                nd = d + (1 + parity) * terr[j]
                t = 2 * j + 1 - parity
            else:
                nd = d + terr[j] if slant == 1 else d + slant * terr[j]
                t = 2 * j + parity
            if nd < get(t, inf):
                dist[t] = nd
                prev[t] = s
                heappush(heap, (nd + bound(j), nd, t))
    return dist, prev, None
