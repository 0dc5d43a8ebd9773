"""#69: ``rules.movement.reachable`` and ``shortest_path`` made faster give exactly the answers of before:
the same cells with the same costs (the same numbers of the same type, in the same order), the same path (not only
the same cost), on random boards with walls on cell edges and at float points, doors open and closed, blocking
cells, difficult terrain (whole and fractional costs), tokens in the way (``occupied``), budgets, and every diagonal
policy; on hexes too. The reference is the search of before, copied here from rules/movement.py as it stood
(``_search_before``, ``_hex_search_before``)."""

from __future__ import annotations

import math
import random
from heapq import heappop, heappush

import pytest

from rules import movement
from rules.board import Board
from rules.grid import Grid
from rules.hexgeom import hex_dirs, parity

POLICIES = ("chebyshev", "alternating", "manhattan", "euclidean")


# --- the search of before (rules/movement.py before #69), squares only --------------------------------------------


def _search_before(board: Board, start, diagonal: str, budget, occupied, goal=None):
    """``rules.movement._search`` as it stood, for a square board without ``needed``."""
    sx, sy = start
    w, h = board.width, board.height
    masks = board.step_masks()
    terr = [1] * (w * h)
    for (x, y), cost in board.terrain.items():
        terr[y * w + x] = cost
    steps = []
    for i, (dx, dy) in enumerate(movement.STEPS):
        diag = bool(dx and dy)
        if diag and diagonal == "manhattan":
            continue
        base = (movement.SQRT2 if diagonal == "euclidean" else 1) if diag else 1
        steps.append((1 << i, dy * w + dx, base, diag))
    occ = set()
    for cx, cy in occupied:
        if 0 <= cx < w and 0 <= cy < h and (cx, cy) != (sx, sy):
            occ.add(cy * w + cx)
    goal_i = None if goal is None else goal[1] * w + goal[0]
    alternating = diagonal == "alternating"
    s0 = (sy * w + sx) * 2
    dist = {s0: 0}
    prev: dict[int, int] = {}
    inf = math.inf
    limit = inf if budget is None else budget
    if goal_i is None:
        def lower_bound(i: int) -> float:
            return 0
    else:
        gy, gx = divmod(goal_i, w)
        cheapest = min(1, min(board.terrain.values(), default=1)) * (1 - 1e-9)

        def lower_bound(i: int) -> float:
            y, x = divmod(i, w)
            dx, dy = abs(x - gx), abs(y - gy)
            lo, hi = (dx, dy) if dx < dy else (dy, dx)
            if diagonal == "chebyshev":
                return cheapest * hi
            if diagonal == "manhattan":
                return cheapest * (hi + lo)
            if diagonal == "euclidean":
                return cheapest * (hi - lo + movement.SQRT2 * lo)
            return cheapest * (hi + lo // 2)

    heap = [(lower_bound(s0 >> 1), 0, s0)]
    while heap:
        _f, d, s = heappop(heap)
        if d > dist[s]:
            continue
        i = s >> 1
        if i == goal_i:
            return dist, prev, s
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
                prev[t] = s
                heappush(heap, (nd + lower_bound(j), nd, t))
    return dist, prev, None


def hex_links(board: Board) -> list[tuple[int, ...]]:
    """Each hex's neighbours a step may go to, as indexes (``rules.hexgeom`` kept them so before it kept offsets:
    ``hex_steps``), from the board's step masks."""
    w, h, grid, masks = board.width, board.height, board.grid, board.step_masks()
    return [tuple((y + dy) * w + x + dx for k, (dx, dy) in enumerate(hex_dirs(grid)[parity(grid, x, y)])
                  if not masks[y * w + x] >> k & 1) for y in range(h) for x in range(w)]


def _hex_search_before(board: Board, start, budget, occupied, goal=None):
    """``rules.movement._hex_search`` as it stood, without ``needed``."""
    sx, sy = start
    w, h = board.width, board.height
    grid = board.grid
    links = hex_links(board)
    terr = [1] * (w * h)
    for (x, y), cost in board.terrain.items():
        terr[y * w + x] = cost
    occ = {cy * w + cx for cx, cy in occupied if 0 <= cx < w and 0 <= cy < h and (cx, cy) != (sx, sy)}
    goal_i = None if goal is None else goal[1] * w + goal[0]
    if goal_i is not None:
        gq, gr, gs = grid.cube((goal_i % w, goal_i // w))
        cheapest = min(1, min(board.terrain.values(), default=1)) * (1 - 1e-9)
        cube = grid.cube

        def lower_bound(i: int) -> float:
            q, r, s = cube((i % w, i // w))
            return cheapest * max(abs(q - gq), abs(r - gr), abs(s - gs))
    else:
        def lower_bound(i: int) -> float:
            return 0
    s0 = (sy * w + sx) * 2
    dist = {s0: 0}
    prev: dict[int, int] = {}
    inf = math.inf
    limit = inf if budget is None else budget
    heap = [(lower_bound(s0 >> 1), 0, s0)]
    while heap:
        _f, d, s = heappop(heap)
        if d > dist[s]:
            continue
        i = s >> 1
        if i == goal_i:
            return dist, prev, s
        for j in links[i]:
            if j in occ:
                continue
            nd = d + terr[j]
            t = j * 2
            if nd <= limit and nd < dist.get(t, inf):
                dist[t] = nd
                prev[t] = s
                heappush(heap, (nd + lower_bound(j), nd, t))
    return dist, prev, None


def reachable_before(board: Board, start, budget, diagonal: str, occupied=()) -> dict:
    if board.grid.hex:
        dist, _prev, _ = _hex_search_before(board, start, budget, occupied)
    else:
        dist, _prev, _ = _search_before(board, start, diagonal, budget, occupied)
    w = board.width
    out: dict = {}
    for s, d in dist.items():
        i = s >> 1
        cell = (i % w, i // w)
        if d < out.get(cell, math.inf):
            out[cell] = d
    return out


def shortest_path_before(board: Board, start, goal, diagonal: str, occupied=()):
    if board.grid.hex:
        dist, prev, found = _hex_search_before(board, start, None, occupied, goal)
    else:
        dist, prev, found = _search_before(board, start, diagonal, None, occupied, goal)
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


# --- random boards --------------------------------------------------------------------------------------------------


def random_board(seed: int, hexes: str | None = None) -> tuple[Board, list]:
    """A board of 6 to 40 cells a side: walls along cell edges and at float points, doors (every other closed),
    blocking cells, terrain of costs 2, 3, 0.5 and 1.5, and a few tokens on it (its ``occupied``). ``hexes``
    (``"pointy"`` or ``"flat"``): a hex board, its walls and doors on hex edges (one to three a wall)."""
    rnd = random.Random(seed)
    w, h = rnd.randint(6, 40), rnd.randint(6, 40)
    b = Board(w, h, Grid("hex", hexes)) if hexes else Board(w, h)
    for i in range(rnd.randint(0, w * h // 6)):
        x, y = rnd.randrange(w), rnd.randrange(h)
        if hexes:
            corners, k = b.grid.corners((x, y)), rnd.randrange(6)
            for n in range(rnd.randint(1, 3)):
                if i % 7:
                    b.add_wall(corners[(k + n) % 6], corners[(k + n + 1) % 6])
                else:
                    b.add_door(corners[(k + n) % 6], corners[(k + n + 1) % 6], closed=i % 2 == 0)
        elif i % 4:
            n = rnd.randint(1, 4)
            b.add_wall((x, y), (min(w, x + n), y) if rnd.random() < 0.5 else (x, min(h, y + n)))
        else:
            b.add_wall((x + rnd.random(), y + rnd.random()), (x + rnd.uniform(-3, 3), y + rnd.uniform(-3, 3)))
    for i in range(0 if hexes else rnd.randint(0, 6)):
        x, y = rnd.randrange(w - 1), rnd.randrange(h - 1)
        b.add_door((x, y), (x + 1, y) if i % 2 else (x, y + 1), closed=i % 2 == 0)
    for _ in range(rnd.randint(0, w * h // 10)):
        b.block((rnd.randrange(w), rnd.randrange(h)))
    costs = rnd.choice([(2,), (2, 3), (2, 0.5), (1.5, 2)])
    for _ in range(rnd.randint(0, w * h // 4)):
        b.set_terrain((rnd.randrange(w), rnd.randrange(h)), rnd.choice(costs))
    tokens = [(rnd.randrange(w), rnd.randrange(h)) for _ in range(rnd.randint(0, 6))]
    return b, tokens


def typed(d: dict) -> list:
    """A reachable answer as its items in order, each cost with its type (1 and 1.0 told apart)."""
    return [(cell, type(cost).__name__, cost) for cell, cost in d.items()]


@pytest.mark.parametrize("seed", range(40))
def test_reachable_is_the_search_of_before(seed):
    board, tokens = random_board(seed)
    rnd = random.Random(seed)
    for diagonal in POLICIES:
        for _ in range(3):
            start = (rnd.randrange(board.width), rnd.randrange(board.height))
            budget = rnd.choice([None, 0, 1, 3, 6.5, 12, 10**9])
            occupied = rnd.choice([(), tokens])
            new = movement.reachable(board, start, budget, diagonal, occupied)
            assert typed(new) == typed(reachable_before(board, start, budget, diagonal, occupied)), (
                diagonal, start, budget, occupied)


@pytest.mark.parametrize("seed", range(24))
def test_on_hexes_reachable_and_paths_are_those_of_before(seed):
    board, tokens = random_board(200 + seed, "pointy" if seed % 2 else "flat")
    rnd = random.Random(seed)
    for _ in range(4):
        start = (rnd.randrange(board.width), rnd.randrange(board.height))
        goal = (rnd.randrange(board.width), rnd.randrange(board.height))
        budget = rnd.choice([None, 0, 2, 5.5, 10**9])
        occupied = rnd.choice([(), tokens])
        assert typed(movement.reachable(board, start, budget, "chebyshev", occupied)) == typed(
            reachable_before(board, start, budget, "chebyshev", occupied)), (start, budget, occupied)
        new = movement.shortest_path(board, start, goal, "alternating", occupied)
        old = shortest_path_before(board, start, goal, "alternating", occupied)
        assert new == old and (new is None or type(new[0]) is type(old[0])), (start, goal, occupied)


@pytest.mark.parametrize("seed", range(40))
def test_shortest_path_is_the_path_of_before(seed):
    board, tokens = random_board(100 + seed)
    rnd = random.Random(seed)
    for diagonal in POLICIES:
        for _ in range(4):
            start = (rnd.randrange(board.width), rnd.randrange(board.height))
            goal = (rnd.randrange(board.width), rnd.randrange(board.height))
            occupied = rnd.choice([(), tokens])
            new = movement.shortest_path(board, start, goal, diagonal, occupied)
            old = shortest_path_before(board, start, goal, diagonal, occupied)
            assert new == old and (new is None or type(new[0]) is type(old[0])), (diagonal, start, goal, occupied)


def test_the_bench_board_whole_and_a_path():
    from bench.bench_rules import make_board

    board, tokens = make_board()
    for diagonal in POLICIES:
        assert typed(movement.reachable(board, tokens[0], 10**9, diagonal, tokens[5:])) == typed(
            reachable_before(board, tokens[0], 10**9, diagonal, tokens[5:]))
        for goal in tokens[1:4]:
            assert movement.shortest_path(board, tokens[0], goal, diagonal) == shortest_path_before(
                board, tokens[0], goal, diagonal)
