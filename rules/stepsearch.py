"""The searches of ``rules.movement`` over a board's steps, made faster and the same (#69).

``rules.movement._search`` is a Dijkstra (an A* with a goal) over states ``cell_index * 2 + parity`` (the
parity of the diagonals so far, which only ``"alternating"`` needs), each step checked against the board's
step masks and the occupied cells as it is tried, its costs in dictionaries (``_hex_search`` on hexes: a
step to one of the hex's links, one state a hex). Here the same search runs on lists: the steps a square
allows read from a table of each step mask's steps (:func:`step_table`: nothing more to build per board)
and a hex's from ``rules.hexgeom.hex_steps`` (offsets of its index); the costs by state in a list, an occupied cell's at -1 so that
no step improves on it (none enters it) without looking at the occupied cells for each step; and the
states in the order the dictionary would have first held them; where every step costs a whole number,
buckets by cost instead of the heap (:func:`reach_whole`). The answers are the same: the same costs,
summed the same way (``d + base * terrain``, with ``1 * terrain`` written ``terrain``: the same number of
the same type), the heap's entries popped in the same order (``(cost, state)`` sorts as ``(cost + 0, cost,
state)`` does), so the same cells in the same order and the same paths.
tests/unit/test_sight_speed_movement.py holds them to the search of before on random boards.
"""

from __future__ import annotations

import math
from functools import lru_cache
from heapq import heappop, heappush

from .board import STEPS


@lru_cache(maxsize=32)
def step_table(w: int) -> tuple:
    """For each step mask (``rules.board.Board.step_masks``: bit ``k`` set when step ``STEPS[k]`` is refused) on a
    board ``w`` cells wide, the index offsets of the orthogonal steps it allows and of the diagonal steps it
    allows, each in the order of ``STEPS``: ``(orth, diag)``, each a tuple of 256 tuples (cached)."""
    straight = [(1 << k, dy * w + dx) for k, (dx, dy) in enumerate(STEPS) if not (dx and dy)]
    slanted = [(1 << k, dy * w + dx) for k, (dx, dy) in enumerate(STEPS) if dx and dy]
    return (tuple(tuple(off for bit, off in straight if not m & bit) for m in range(256)),
            tuple(tuple(off for bit, off in slanted if not m & bit) for m in range(256)))


@lru_cache(maxsize=4)
def cells_of(w: int, h: int) -> list:
    """Each cell (index ``y * w + x``) of a ``w`` x ``h`` board as ``(x, y)``: a whole board's answer is read from
    it rather than worked out cell by cell (cached by size: a 300 x 300 board's is some 8 MB)."""
    return [(i % w, i // w) for i in range(w * h)]


def reach_one_state(masks: list, orth: tuple, diag: tuple | None, terr: list, slant: float, i0: int, limit,
                    occ) -> tuple[list, list]:
    """``_search`` from cell ``i0`` without a goal or ``needed`` where a cell has one state (every policy but
    ``"alternating"``), on squares: ``masks`` the board's step masks, ``orth`` and ``diag`` (None under
    ``"manhattan"``) from :func:`step_table`, ``terr`` each cell's terrain cost, ``slant`` a diagonal step's base
    cost (1, or the square root of 2 under ``"euclidean"``), ``limit`` the budget (``inf``: none), ``occ`` the
    occupied cells' indexes. Returns ``(best, order)`` by cell: each cell's least cost (``inf``: not reached)
    and the cells in the order ``_search`` first put their states in ``dist`` (the heap's ``(cost, i)`` pop in
    the order of its ``(cost + 0, cost, 2 * i)``)."""
    inf = math.inf
    best = [inf] * len(masks)
    for j in occ:
        best[j] = -1
    best[i0] = 0
    order = [i0]
    heap = [(0, i0)]
    while heap:
        d, i = heappop(heap)
        if d > best[i]:
            continue
        m = masks[i]
        for off in orth[m]:
            j = i + off
            nd = d + terr[j]
            if nd < best[j] and nd <= limit:
                if best[j] == inf:
                    order.append(j)
                best[j] = nd
                heappush(heap, (nd, j))
        if diag is None:
            continue
        for off in diag[m]:
            j = i + off
            nd = d + terr[j] if slant == 1 else d + slant * terr[j]
            if nd < best[j] and nd <= limit:
                if best[j] == inf:
                    order.append(j)
                best[j] = nd
                heappush(heap, (nd, j))
    return best, order


def reach_whole(masks: list, orth: tuple, diag: tuple | None, terr: list, i0: int, limit, occ) -> tuple[list, list]:
    """:func:`reach_one_state` where every step costs a whole number (``"chebyshev"`` or ``"manhattan"``, every
    terrain cost an ``int``), the same: the cells come in buckets by cost instead of off a heap, each bucket
    sorted by cell before it is taken, which is the heap's order (its ``(cost, i)``; a step costs at least 1,
    so no cell joins the bucket being taken, and none is in one twice)."""
    inf = math.inf
    best = [inf] * len(masks)
    for j in occ:
        best[j] = -1
    best[i0] = 0
    order = [i0]
    buckets = [[i0]]
    k = 0
    while k < len(buckets):
        bucket = buckets[k]
        bucket.sort()
        for i in bucket:
            if k > best[i]:
                continue
            m = masks[i]
            for off in orth[m]:
                j = i + off
                nd = k + terr[j]
                if nd < best[j] and nd <= limit:
                    if best[j] == inf:
                        order.append(j)
                    best[j] = nd
                    while len(buckets) <= nd:
                        buckets.append([])
                    buckets[nd].append(j)
            if diag is None:
                continue
            for off in diag[m]:
                j = i + off
                nd = k + terr[j]
                if nd < best[j] and nd <= limit:
                    if best[j] == inf:
                        order.append(j)
                    best[j] = nd
                    while len(buckets) <= nd:
                        buckets.append([])
                    buckets[nd].append(j)
        k += 1
    return best, order


def reach_links(steps: list, terr: list, i0: int, limit, occ) -> tuple[list, list]:
    """:func:`reach_one_state` on hexes (``_hex_search``): a step to ``i + o`` for each ``o`` of ``steps[i]``
    (``rules.hexgeom.hex_steps``) costs the terrain of the hex entered."""
    inf = math.inf
    best = [inf] * len(steps)
    for j in occ:
        best[j] = -1
    best[i0] = 0
    order = [i0]
    heap = [(0, i0)]
    while heap:
        d, i = heappop(heap)
        if d > best[i]:
            continue
        for o in steps[i]:
            j = i + o
            nd = d + terr[j]
            if nd < best[j] and nd <= limit:
                if best[j] == inf:
                    order.append(j)
                best[j] = nd
                heappush(heap, (nd, j))
    return best, order


def reach_links_whole(steps: list, terr: list, i0: int, limit, occ) -> tuple[list, list]:
    """:func:`reach_links` where every terrain cost is an ``int``, the same: buckets by cost, each sorted before it
    is taken, as :func:`reach_whole` does."""
    inf = math.inf
    best = [inf] * len(steps)
    for j in occ:
        best[j] = -1
    best[i0] = 0
    order = [i0]
    buckets = [[i0]]
    k = 0
    while k < len(buckets):
        bucket = buckets[k]
        bucket.sort()
        for i in bucket:
            if k > best[i]:
                continue
            for o in steps[i]:
                j = i + o
                nd = k + terr[j]
                if nd < best[j] and nd <= limit:
                    if best[j] == inf:
                        order.append(j)
                    best[j] = nd
                    while len(buckets) <= nd:
                        buckets.append([])
                    buckets[nd].append(j)
        k += 1
    return best, order


def reach_alternating(masks: list, orth: tuple, diag: tuple, terr: list, s0: int, limit, occ) -> tuple[list, list]:
    """:func:`reach_one_state` under ``"alternating"``, from state ``s0``: diagonals cost 1, 2, 1, 2... so a cell
    has two states (``2 * i + parity``). Returns ``(best, order)`` by state, as ``_search``'s ``dist``."""
    inf = math.inf
    best = [inf] * (2 * len(masks))
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
        m = masks[i]
        for off in orth[m]:
            j = i + off
            nd = d + terr[j]
            t = 2 * j + parity
            if nd < best[t] and nd <= limit:
                if best[t] == inf:
                    order.append(t)
                best[t] = nd
                heappush(heap, (nd, t))
        for off in diag[m]:
            j = i + off
            nd = d + (1 + parity) * terr[j]
            t = 2 * j + 1 - parity
            if nd < best[t] and nd <= limit:
                if best[t] == inf:
                    order.append(t)
                best[t] = nd
                heappush(heap, (nd, t))
    return best, order


def reach_alternating_whole(masks: list, orth: tuple, diag: tuple, terr: list, s0: int, limit,
                            occ) -> tuple[list, list]:
    """:func:`reach_alternating` where every terrain cost is an ``int``, the same: the states in buckets by cost,
    each sorted before it is taken (the heap's ``(cost, state)`` order), as :func:`reach_whole` does."""
    inf = math.inf
    best = [inf] * (2 * len(masks))
    for j in occ:
        best[2 * j] = best[2 * j + 1] = -1
    best[s0] = 0
    order = [s0]
    buckets = [[s0]]
    k = 0
    while k < len(buckets):
        bucket = buckets[k]
        bucket.sort()
        for s in bucket:
            if k > best[s]:
                continue
            i = s >> 1
            parity = s & 1
            m = masks[i]
            for off in orth[m]:
                j = i + off
                nd = k + terr[j]
                t = 2 * j + parity
                if nd < best[t] and nd <= limit:
                    if best[t] == inf:
                        order.append(t)
                    best[t] = nd
                    while len(buckets) <= nd:
                        buckets.append([])
                    buckets[nd].append(t)
            for off in diag[m]:
                j = i + off
                nd = k + (1 + parity) * terr[j]
                t = 2 * j + 1 - parity
                if nd < best[t] and nd <= limit:
                    if best[t] == inf:
                        order.append(t)
                    best[t] = nd
                    while len(buckets) <= nd:
                        buckets.append([])
                    buckets[nd].append(t)
        k += 1
    return best, order


def lower_bound(diagonal: str, cheapest: float, goal: tuple[int, int], w: int):
    """``_search``'s lower bound of the cost from cell ``j`` to ``goal`` on a board ``w`` cells wide
    (``cheapest`` times the policy's distance on an empty board), as a function of ``j``: the same numbers,
    the policy chosen once rather than at each call."""
    gx, gy = goal
    root2 = math.sqrt(2)

    def chebyshev(j: int) -> float:
        dx, dy = abs(j % w - gx), abs(j // w - gy)
        return cheapest * (dy if dx < dy else dx)

    def manhattan(j: int) -> float:
        return cheapest * (abs(j % w - gx) + abs(j // w - gy))

    def euclidean(j: int) -> float:
        dx, dy = abs(j % w - gx), abs(j // w - gy)
        lo, hi = (dx, dy) if dx < dy else (dy, dx)
        return cheapest * (hi - lo + root2 * lo)

    def alternating(j: int) -> float:
        dx, dy = abs(j % w - gx), abs(j // w - gy)
        lo, hi = (dx, dy) if dx < dy else (dy, dx)
        return cheapest * (hi + lo // 2)

    return {"chebyshev": chebyshev, "manhattan": manhattan, "euclidean": euclidean}.get(diagonal, alternating)


def path_search(masks: list, orth: tuple, diag: tuple | None, terr: list, slant: float, alternating: bool, s0: int,
                goal_i: int, bound, occ) -> tuple[dict, dict, int | None]:
    """``_search`` with a goal and no budget (its A*, for ``shortest_path``) on squares: from state ``s0`` to
    cell ``goal_i``, ``bound`` its lower bound (:func:`lower_bound`), the other arguments as
    :func:`reach_one_state`'s (``alternating``: the diagonals cost 1, 2, 1, 2...). Returns ``(dist, prev,
    found state or None)`` as ``_search`` does, with the same entries popped in the same order (``(cost +
    bound, cost, state)``), so the same path; ``dist`` also holds the occupied cells' states at -1 (a way never
    improves on them)."""
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
        m = masks[i]
        for off in orth[m]:
            j = i + off
            nd = d + terr[j]
            t = 2 * j + parity
            if nd < get(t, inf):
                dist[t] = nd
                prev[t] = s
                heappush(heap, (nd + bound(j), nd, t))
        if diag is None:
            continue
        for off in diag[m]:
            j = i + off
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


def path_whole(masks: list, orth: tuple, diag: tuple | None, terr: list, w: int, i0: int, goal_i: int,
               occ) -> tuple[dict, dict, int | None]:
    """:func:`path_search` under ``"chebyshev"`` (``"manhattan"``: ``diag`` None) where every terrain cost is an
    ``int`` and no cost reaches 2**20 (the caller sees to it), the same: the entries in buckets instead of the
    heap. There the bound is ``(1 - 1e-9)`` times ``h``, the policy's distance to the goal, a whole number, and an
    entry's key ``(cost + bound, cost, state)`` sorts as ``(cost + h, cost, state)`` (cost and ``h`` whole, the
    ``1e-9 * h`` below ``cost + h`` tells apart entries of the same ``cost + h`` by their ``h``, the larger first,
    well above the floats' rounding): buckets by ``cost + h``, in each by cost, each sorted by state. A step
    costs at least 1 and changes ``h`` by at most 1, so no entry goes to a bucket already taken (nor to the
    one of its own ``cost + h`` and cost)."""
    gx, gy = goal_i % w, goal_i // w
    s0 = 2 * i0
    dist = {s0: 0}
    for j in occ:
        dist[2 * j] = dist[2 * j + 1] = -1
    prev: dict[int, int] = {}
    get = dist.get
    inf = math.inf
    dx, dy = abs(i0 % w - gx), abs(i0 // w - gy)
    total = dx + dy if diag is None else max(dx, dy)
    levels = {total: {0: [s0]}}
    while levels:
        total = min(levels)
        level = levels.pop(total)
        while level:
            d = min(level)
            states = level.pop(d)
            states.sort()
            for s in states:
                if d > dist[s]:
                    continue
                i = s >> 1
                if i == goal_i:
                    return dist, prev, s
                m = masks[i]
                for steps in (orth[m], () if diag is None else diag[m]):
                    for off in steps:
                        j = i + off
                        nd = d + terr[j]
                        t = 2 * j
                        if nd < get(t, inf):
                            dist[t] = nd
                            prev[t] = s
                            dx, dy = abs(j % w - gx), abs(j // w - gy)
                            key = nd + (dx + dy if diag is None else (dy if dx < dy else dx))
                            into = level if key == total else levels.setdefault(key, {})
                            found = into.get(nd)
                            if found is None:
                                into[nd] = [t]
                            else:
                                found.append(t)
    return dist, prev, None


def path_links(steps: list, terr: list, s0: int, goal_i: int, bound, occ) -> tuple[dict, dict, int | None]:
    """:func:`path_search` on hexes (``_hex_search`` with a goal): a step to ``i + o`` for each ``o`` of
    ``steps[i]`` (``rules.hexgeom.hex_steps``) costs the terrain of the hex entered; states ``2 * i``."""
    inf = math.inf
    dist = {s0: 0}
    for j in occ:
        dist[2 * j] = -1
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
        for o in steps[i]:
            j = i + o
            nd = d + terr[j]
            t = 2 * j
            if nd < get(t, inf):
                dist[t] = nd
                prev[t] = s
                heappush(heap, (nd + bound(j), nd, t))
    return dist, prev, None
