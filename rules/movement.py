"""Movement on a :class:`rules.board.Board`: step costs, diagonal policies,
the cells a token can reach and the cheapest path.

Diagonal policies (a system's ``diagonal``):

- ``"chebyshev"``: a diagonal step costs 1, like an orthogonal one;
- ``"alternating"``: diagonals cost 1, 2, 1, 2... over the whole path (the
  first diagonal costs 1, the second 2, and so on; orthogonal steps in
  between do not reset the count);
- ``"manhattan"``: no diagonal steps;
- ``"euclidean"``: a diagonal step costs the square root of 2.

A step's cost is its base cost times the terrain cost of the cell it
enters (difficult terrain: 2). Which steps are allowed is
:meth:`rules.board.Board.step_blocked` (walls, closed doors, blocking
cells, the board's edge, no cutting corners), plus: a token may not enter
an ``occupied`` cell (its own start cell is fine).

On a hex board (``board.grid.hex``) a step goes to one of the six neighbours and costs 1 times the
terrain cost, whatever the policy: hexes have no diagonals (the step rule: ``rules.hexgeom``).
"""

from __future__ import annotations

import math
from bisect import insort
from heapq import heappop, heappush

from .board import STEPS, Board
from .stepsearch import (cells_of, lower_bound, path_links, path_search, path_whole, reach_alternating,
                         reach_alternating_whole, reach_links, reach_links_whole, reach_one_state, reach_whole,
                         step_table)
from .text import say

POLICIES = ("chebyshev", "alternating", "manhattan", "euclidean")
SQRT2 = math.sqrt(2)


def _check_policy(diagonal: str) -> str:
    if diagonal not in POLICIES:
        raise ValueError(say("unknown diagonal policy {value}; one of {known}", value=repr(diagonal), known=", ".join(POLICIES)))
    return diagonal


def _terrain_list(board: Board) -> list:
    return board.cached("terrain", lambda: _make_terrain_list(board))


def _make_terrain_list(board: Board) -> list:
    w = board.width
    costs = [1] * (w * board.height)
    for (x, y), cost in board.terrain.items():
        costs[y * w + x] = cost
    return costs


def _cell(board: Board, cell) -> tuple[int, int]:
    try:
        x, y = cell
    except (TypeError, ValueError):
        raise ValueError(say("a cell is a pair (x, y), not {value}", value=repr(cell))) from None
    if not isinstance(x, int) or not isinstance(y, int) or not board.in_bounds((x, y)):
        raise ValueError(say("cell {cell} is not on the {width} x {height} board", cell=repr(cell), width=board.width,
                             height=board.height))
    return x, y


def _steps(board: Board, diagonal: str):
    """``(bit, flat offset, base cost, is diagonal)`` for each allowed step."""
    w = board.width
    out = []
    for i, (dx, dy) in enumerate(STEPS):
        diag = bool(dx and dy)
        if diag and diagonal == "manhattan":
            continue
        base = (SQRT2 if diagonal == "euclidean" else 1) if diag else 1
        out.append((1 << i, dy * w + dx, base, diag))
    return out


def distance(a, b, diagonal: str, grid=None) -> float:
    """Squares between two cells as the crow flies, counted by the system's diagonal policy
    (for range; a path around walls is ``shortest_path``). On a hex ``grid``: the hexes between them
    (``Grid.steps``), whatever the policy."""
    _check_policy(diagonal)
    if grid is not None and grid.hex:
        return grid.steps(a, b)
    dx, dy = abs(a[0] - b[0]), abs(a[1] - b[1])
    if diagonal == "chebyshev":
        return max(dx, dy)
    if diagonal == "alternating":  # every second diagonal counts double
        return max(dx, dy) + min(dx, dy) // 2
    if diagonal == "manhattan":
        return dx + dy
    return math.hypot(dx, dy)


def step_cost(board: Board, a, b, diagonal: str, diagonals_so_far: int = 0):
    """The cost of one step from ``a`` to the adjacent ``b``, or None when
    the step is not allowed. ``diagonals_so_far`` is the number of diagonal
    steps already taken on the path (for ``"alternating"``)."""
    _check_policy(diagonal)
    ax, ay = _cell(board, a)
    bx, by = b
    if board.grid.hex:
        if board.grid.steps((ax, ay), (bx, by)) != 1 or board.step_blocked((ax, ay), (bx, by)):
            return None
        return board.terrain_cost((bx, by))
    dx, dy = bx - ax, by - ay
    if max(abs(dx), abs(dy)) != 1:
        return None
    diag = bool(dx and dy)
    if diag and diagonal == "manhattan":
        return None
    if board.step_blocked((ax, ay), (bx, by)):
        return None
    if not diag:
        base = 1
    elif diagonal == "euclidean":
        base = SQRT2
    elif diagonal == "alternating":
        base = 1 + diagonals_so_far % 2
    else:
        base = 1
    return base * board.terrain_cost((bx, by))


def path_cost(board: Board, path, diagonal: str, occupied=()):
    """The cost of moving along ``path`` (a list of cells, the start first),
    or None when a step is not allowed (not adjacent, blocked, into an
    occupied cell). A path of one cell costs 0."""
    _check_policy(diagonal)
    path = [tuple(c) for c in path]
    if not path:
        raise ValueError(say("a path has at least its start cell"))
    try:
        _cell(board, path[0])
    except ValueError:
        return None
    occupied = {tuple(c) for c in occupied}
    total = 0
    diagonals = 0
    for a, b in zip(path, path[1:]):
        if b in occupied and b != path[0]:
            return None
        try:
            cost = step_cost(board, a, b, diagonal, diagonals)
        except ValueError:
            return None
        if cost is None:
            return None
        if a[0] != b[0] and a[1] != b[1]:
            diagonals += 1
        total += cost
    return total


def _occupied_and_goal(board: Board, start, occupied, goal):
    """The indexes of the occupied cells (not the start) and of the goal (None without one)."""
    w, h = board.width, board.height
    occ = set()
    for c in occupied:
        cx, cy = c
        if 0 <= cx < w and 0 <= cy < h and (cx, cy) != start:
            occ.add(cy * w + cx)
    goal_i = None
    if goal is not None:
        gx, gy = _cell(board, goal)
        goal_i = gy * w + gx
    return occ, goal_i


def _search(board: Board, start, diagonal: str, budget, occupied, needed=None):
    """Dijkstra over (cell, parity of diagonals so far); parity only matters
    for ``"alternating"``. Returns ``dist``, the least cost of each state
    ``cell_index * 2 + parity``. ``needed`` (a :class:`_Needed` or
    :class:`_Nearest`, told of each cell as it comes off the heap, its least
    cost then known): the search stops once it says so, and ``dist`` keeps only
    the states that came off it (see :func:`_settled`). A way to one goal is
    :func:`_path_search`'s (rules/stepsearch.py)."""
    _check_policy(diagonal)
    if board.grid.hex:
        return _hex_search(board, start, budget, occupied, needed)
    sx, sy = _cell(board, start)
    w = board.width
    masks = board.step_masks()
    terr = _terrain_list(board)
    steps = _steps(board, diagonal)
    occ, _ = _occupied_and_goal(board, (sx, sy), occupied, None)
    alternating = diagonal == "alternating"
    s0 = (sy * w + sx) * 2
    dist = {s0: 0}
    inf = math.inf
    limit = inf if budget is None else budget
    heap = [(0, s0)]
    popped: list[int] = []
    while heap:
        d, s = heappop(heap)
        if d > dist[s]:
            continue
        i = s >> 1
        if needed is not None:
            popped.append(s)
            if needed.settle(i, d):
                return _settled(dist, popped)
        parity = s & 1
        m = masks[i]
        for bit, off, base, diag in steps:
            if m & bit:
                continue
            j = i + off
            if j in occ:
                continue
            if diag and alternating:
                nd = d + (1 + parity) * terr[j]
                t = j * 2 + (1 - parity)
            else:
                nd = d + base * terr[j]
                t = j * 2 + parity
            if nd <= limit and nd < dist.get(t, inf):
                dist[t] = nd
                heappush(heap, (nd, t))
    return dist


def _hex_search(board: Board, start, budget, occupied, needed=None):
    """:func:`_search` on hexes: every step costs 1 times the terrain of the hex entered; states are
    ``cell_index * 2`` (no parity to keep)."""
    from .hexgeom import hex_steps

    sx, sy = _cell(board, start)
    w = board.width
    steps = hex_steps(board)
    terr = _terrain_list(board)
    occ, _ = _occupied_and_goal(board, (sx, sy), occupied, None)
    s0 = (sy * w + sx) * 2
    dist = {s0: 0}
    inf = math.inf
    limit = inf if budget is None else budget
    heap = [(0, s0)]
    popped: list[int] = []
    while heap:
        d, s = heappop(heap)
        if d > dist[s]:
            continue
        i = s >> 1
        if needed is not None:
            popped.append(s)
            if needed.settle(i, d):
                return _settled(dist, popped)
        for o in steps[i]:
            j = i + o
            if j in occ:
                continue
            nd = d + terr[j]
            t = j * 2
            if nd <= limit and nd < dist.get(t, inf):
                dist[t] = nd
                heappush(heap, (nd, t))
    return dist


def _hex_bound(board: Board, goal_i: int):
    """:func:`_path_search`'s lower bound on hexes of the cost from hex ``i`` to hex ``goal_i``, as a function of
    ``i``."""
    w, cube = board.width, board.grid.cube
    gq, gr, gs = cube((goal_i % w, goal_i // w))
    cheapest = min(1, min(board.terrain.values(), default=1)) * (1 - 1e-9)

    def lower_bound(i: int) -> float:
        q, r, s = cube((i % w, i // w))
        return cheapest * max(abs(q - gq), abs(r - gr), abs(s - gs))

    return lower_bound


class _Needed:
    """The cells (indexes) a search must know: it stops once each has come off the heap."""

    def __init__(self, cells: set) -> None:
        self.cells = cells

    def settle(self, i: int, d: float) -> bool:
        self.cells.discard(i)
        return not self.cells


class _Nearest:
    """The cells a search from a goal must know to tell, of each group of cells, the ``most`` nearest by the way
    back to the goal (ties included; all of them with ``most`` None) and none as far as ``below`` or beyond. A
    cell's way back is its cost from the goal less its own terrain (``terr``), the way :func:`ways_back` counts
    it; as the search pops cells in the order of their cost, none to come can be nearer by the way back than the
    cost now less the dearest terrain (``worst``): a group is known once it has ``most`` cells nearer than that."""

    def __init__(self, groups, most, below: float, terr: list, worst: float) -> None:
        self.groups = [(g, []) for g in groups if g]  # each group's cells, and the ways back of those popped
        self.most, self.below, self.terr, self.worst = most, below, terr, worst
        self.popped: set[int] = set()  # cells popped: a cell comes off the heap once a parity (alternating diagonals)

    def settle(self, i: int, d: float) -> bool:
        floor = d - self.worst  # no cell to come is nearer by the way back than this
        if floor >= self.below:
            return True
        first = i not in self.popped  # its first pop is its least cost; a later one (its other parity) is no new cell
        self.popped.add(i)
        back = d - self.terr[i]
        left = []
        for cells, seen in self.groups:
            if self.most is not None and len(seen) >= self.most and floor > seen[self.most - 1]:
                continue  # its nearest known, with their ties
            if first and i in cells:
                insort(seen, back)
            left.append((cells, seen))
        self.groups = left
        return not left


def ways_back(board: Board, goal, diagonal: str, groups, most=None, below: float = math.inf) -> dict:
    """The cost of the way to ``goal`` from the cells of each of ``groups`` (sets of cells) that are the ``most``
    nearest to it by the way (with their ties; all with ``most`` None), each nearer than ``below``: one search
    from ``goal``, stopped as soon as those are known; each cell's cost back by the same steps (the terrain of the
    cells entered on the way to ``goal``), as :func:`way_back` counts it. Other cells it came by are kept with
    their costs (never one not yet the least); a cell of a group not nearer than the others is left out.
    (#67: a foe closing in on a far hero needs only the squares of its move that get it nearest; every cell's, the
    whole board's search, is :func:`reachable`'s from ``goal``, each cell's cost less its terrain plus the goal's.)"""
    gx, gy = _cell(board, goal)
    w, h = board.width, board.height
    terr = _terrain_list(board)
    end = terr[gy * w + gx]
    wanted = [{y * w + x for x, y in g if 0 <= x < w and 0 <= y < h} for g in groups]
    worst = max(1, max(board.terrain.values(), default=1))
    stop = _Nearest(wanted, most, below - end, terr, worst)
    if not stop.groups:
        return {}
    dist = _search(board, (gx, gy), diagonal, None, (), needed=stop)
    out: dict = {}
    for s, d in dist.items():
        i = s >> 1
        cell = (i % w, i // w)
        k = d - terr[i] + end if i != gy * w + gx else 0.0
        if k < out.get(cell, math.inf):
            out[cell] = k
    return out


def way_back(board: Board, start, goal, diagonal: str):
    """The cost of the way from ``start`` to ``goal`` as :func:`ways_back` counts it (searched from ``goal``; an
    A* toward ``start``), or None when none leads there."""
    found = shortest_path(board, goal, start, diagonal)
    if found is None:
        return None
    return found[0] - board.terrain_cost(start) + board.terrain_cost(goal)


def _settled(dist: dict, popped: list[int]) -> dict:
    """``dist`` cut to the states that came off the heap (their costs final): a search stopped before its end
    holds others whose costs are not yet the least."""
    return {s: dist[s] for s in popped}


def reachable(board: Board, start, budget, diagonal: str, occupied=(), needed=None) -> dict:
    """Every cell reachable from ``start`` for at most ``budget`` (None: no
    limit), with its least cost (the start cell costs 0). ``needed`` (cells):
    only as far as the search must go to know each of them (the costs the
    same, the cells beyond left out): the cells nearer than the farthest of
    them, and they themselves where reachable."""
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float)) or budget < 0):
        raise ValueError(say("a movement budget is a number of at least 0, not {value}", value=repr(budget)))
    if needed is None:  # the same answer as below, faster (rules/stepsearch.py)
        _check_policy(diagonal)
        sx, sy = _cell(board, start)
        occ, _ = _occupied_and_goal(board, (sx, sy), occupied, None)
        limit, i0, terr = math.inf if budget is None else budget, sy * board.width + sx, _terrain_list(board)
        w = board.width
        whole = all(type(c) is int for c in board.terrain.values())  # every step's cost a whole number
        if board.grid.hex:  # one state a hex, a step 1 times the terrain entered (:func:`_hex_search`)
            from .hexgeom import hex_steps

            best, order = (reach_links_whole if whole else reach_links)(hex_steps(board), terr, i0, limit, occ)
            cells = cells_of(w, board.height)
            return {cells[i]: best[i] for i in order}
        masks, (orth, diag) = board.step_masks(), step_table(w)
        if diagonal in ("chebyshev", "manhattan") and whole:
            best, order = reach_whole(masks, orth, None if diagonal == "manhattan" else diag, terr, i0, limit, occ)
        elif diagonal != "alternating":  # one state a cell
            best, order = reach_one_state(masks, orth, None if diagonal == "manhattan" else diag, terr,
                                          SQRT2 if diagonal == "euclidean" else 1, i0, limit, occ)
        if diagonal != "alternating":
            cells = cells_of(w, board.height)
            return {cells[i]: best[i] for i in order}
        best, order = (reach_alternating_whole if whole else reach_alternating)(masks, orth, diag, terr, 2 * i0,
                                                                                limit, occ)
        out = {}
        for s in order:
            cell, d = ((s >> 1) % w, (s >> 1) // w), best[s]
            if d < out.get(cell, math.inf):
                out[cell] = d
        return out
    if needed is not None:
        w, h = board.width, board.height
        needed = _Needed({y * w + x for x, y in needed if 0 <= x < w and 0 <= y < h})
    dist = _search(board, start, diagonal, budget, occupied, needed=needed)
    w = board.width
    out: dict = {}
    for s, d in dist.items():
        i = s >> 1
        cell = (i % w, i // w)
        if d < out.get(cell, math.inf):
            out[cell] = d
    return out


def shortest_path(board: Board, start, goal, diagonal: str, occupied=()):
    """The cheapest way from ``start`` to ``goal``: ``(cost, path)`` with the
    path's cells from start to goal, or None when the goal cannot be
    reached. Ties between equally cheap paths are broken the same way every
    time. (The search runs as rules/stepsearch.py's ``path_search``.)"""
    dist, prev, found = _path_search(board, start, goal, diagonal, occupied)
    if found is None:
        return None
    w = board.width
    path = []
    s = found
    while True:
        i = s >> 1
        path.append((i % w, i // w))
        if s not in prev:
            break
        s = prev[s]
    path.reverse()
    return dist[found], path


def _path_search(board: Board, start, goal, diagonal: str, occupied):
    """The cheapest way from ``start`` to ``goal`` as an A* over :func:`_search`'s states (rules/stepsearch.py): its
    lower bound the cheapest terrain times the policy's distance on an empty board (on hexes: :func:`_hex_bound`);
    ``(dist, prev, found state or None)``."""
    _check_policy(diagonal)
    sx, sy = _cell(board, start)
    occ, goal_i = _occupied_and_goal(board, (sx, sy), occupied, goal)
    s0 = (sy * board.width + sx) * 2
    if board.grid.hex:  # :func:`_hex_search`: one state a hex, a step 1 times the terrain entered
        from .hexgeom import hex_steps

        return path_links(hex_steps(board), _terrain_list(board), s0, goal_i, _hex_bound(board, goal_i), occ)
    w = board.width
    (orth, diag), cheapest = step_table(w), min(1, min(board.terrain.values(), default=1)) * (1 - 1e-9)
    if (diagonal in ("chebyshev", "manhattan") and all(type(c) is int for c in board.terrain.values())
            and w * board.height * max(board.terrain.values(), default=1) < 2**20):
        return path_whole(board.step_masks(), orth, None if diagonal == "manhattan" else diag, _terrain_list(board), w,
                          s0 // 2, goal_i, occ)
    return path_search(board.step_masks(), orth, None if diagonal == "manhattan" else diag, _terrain_list(board),
                       SQRT2 if diagonal == "euclidean" else 1, diagonal == "alternating", s0, goal_i,
                       lower_bound(diagonal, cheapest, (goal_i % w, goal_i // w), w), occ)


def indexes(board: Board) -> None:
    """The board's indexes a move's search reads built now, kept on it (``Board.cached``): its walls' index, its
    step masks and on hexes the steps they allow (``rules.hexgeom.hex_steps``); the live side builds a big map's
    ahead of its first move (``webapp.game.bridge.heavy.warm``)."""
    board.segments()
    board.step_masks()
    if board.grid.hex:
        from .hexgeom import hex_steps

        hex_steps(board)


# --- tokens bigger than one square, and a way outside a fight ------------------------------


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
        return shortest_path(board, start, goal, diagonal) is not None
    if board.grid.hex:
        return footprint_search(board, start, size, diagonal, goal=goal)[1] is not None
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

    On hexes the token covers ``board.grid.footprint(cell, size)`` (1, 3 or 7 hexes, anchored at
    ``cell``); a step moves every hex it covers one hex the same way and costs 1 times the dearest
    terrain it newly covers.
    """
    if board.grid.hex:
        return _hex_footprint_search(board, tuple(start), size, budget, None if goal is None else tuple(goal))
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


def _hex_footprint_search(board: Board, start, size: int, budget, goal):
    """:func:`footprint_search` on hexes."""
    from .hexgeom import hex_dirs, parity

    grid = board.grid
    w, h = board.width, board.height
    masks = board.step_masks()
    dirs = hex_dirs(grid)

    def cover(c):
        return grid.footprint(c, size)

    def fits(c) -> bool:
        return all(0 <= x < w and 0 <= y < h for x, y in cover(c))

    if not fits(start):
        return {}, None
    limit = math.inf if budget is None else budget
    dist = {start: 0.0}
    prev: dict = {}
    heap = [(0.0, start)]
    found = None
    while heap:
        d, at = heappop(heap)
        if d > dist.get(at, math.inf):
            continue
        if at == goal:
            found = at
            break
        here = cover(at)
        for k in range(6):
            bit = 1 << k
            dx, dy = dirs[parity(grid, *at)][k]
            nxt = (at[0] + dx, at[1] + dy)
            there = cover(nxt)
            if not all(0 <= x < w and 0 <= y < h for x, y in there):
                continue
            if any(masks[y * w + x] & bit for x, y in here):
                continue
            entered = set(there) - set(here)
            nd = d + max(board.terrain_cost(c) for c in entered)
            if nd <= limit + 1e-9 and nd < dist.get(nxt, math.inf):
                dist[nxt] = nd
                prev[nxt] = at
                heappush(heap, (nd, nxt))
    path = None
    if found is not None:
        path, at = [], found
        while True:
            path.append(at)
            if at not in prev:
                break
            at = prev[at]
        path.reverse()
    return dict(dist), path
