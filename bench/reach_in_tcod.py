"""#69: how near tcod's Dijkstra a whole board's ``rules.movement.reachable`` can come, measured with tcod doing the
search itself. (A study, not the product's code: what it prints is why the product keeps its own search.)

``reachable`` answers a dictionary ``{cell: least cost}`` with its cells in the order its search first reaches them
(what reads it may break ties by that order). Here the same answer is built with tcod (C) doing the search: a graph
of rules per step of ``rules.board.STEPS``, each step's cost the terrain of the cell entered, 0 (tcod's "no way in")
where the board's step masks refuse it (walls on cell edges, closed doors, blocking cells) or the cell is occupied;
under ``"alternating"`` two layers, the parity of the diagonals so far. The order follows from the costs alone:
``reachable``'s search takes the states by ``(cost, state)`` and from each the steps its mask allows in the order of
``STEPS``, so a state is first reached by the first state taken with a step into it within the budget; numpy finds
that for every state at once. :func:`reach` gives exactly ``reachable``'s answer (tests/unit/test_reach_in_tcod.py
holds it to it on random boards, every policy it takes, with budgets, occupied cells, terrain and closed doors).

The same for ``shortest_path`` (:func:`path`): tcod's Dijkstra stopped at the goal, then the way back the rules' A*
keeps (its ties broken by its own order). It needs the least cost of every square a least-cost way may come
through, which tcod's Dijkstra gives and its A* does not promise (a square whose estimate equals the way's cost may
be left unsettled), so Dijkstra, against tcod's own path on the coarse grid, an A* (``SimpleGraph``'s heuristic).

What it prints, on the bench boards (100 x 100 with 1,000 walls, 300 x 300 with 9,000): tcod's ``dijkstra2d`` on
the coarse grid the rules bench compares with (walls as blocked cells), tcod's own search on the board's steps (its
cost arrays made once, as a product would keep them per board), the order and the dictionary built from it, the
whole and ``reachable``'s time, with the ratios to ``dijkstra2d``; then a path's. Run:
``python bench/reach_in_tcod.py``.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import movement  # noqa: E402
from rules.board import STEPS  # noqa: E402
from rules.stepsearch import cells_of  # noqa: E402

#: the policies whose steps cost a whole number times the terrain (tcod's costs are integers)
POLICIES = ("chebyshev", "manhattan", "alternating")


def _shift(dx: int, dy: int, w: int, h: int) -> tuple[slice, slice, slice, slice]:
    """The cells a step ``(dx, dy)`` enters and those it leaves, as slices of a ``(h, w)`` array."""
    return (slice(max(0, dy), h + min(0, dy)), slice(max(0, dx), w + min(0, dx)),
            slice(max(0, -dy), h + min(0, -dy)), slice(max(0, -dx), w + min(0, -dx)))


def _stable_order(values: np.ndarray) -> np.ndarray:
    """``np.argsort(values, kind="stable")`` for whole numbers from 0 below 2**32, 16 bits at a time (radix)."""
    if len(values) and int(values.max()) < 1 << 16:
        return np.argsort(values.astype(np.uint16), kind="stable")
    low = np.argsort((values & 0xFFFF).astype(np.uint16), kind="stable")
    return low[np.argsort((values[low] >> 16).astype(np.uint16), kind="stable")]


def costs_of(board, occupied, start, diagonal: str) -> dict[int, np.ndarray]:
    """For each step index of STEPS the policy takes, its cost at each cell entered (0: refused, or occupied)."""
    w, h = board.width, board.height
    masks = np.asarray(board.step_masks(), dtype=np.int32).reshape(h, w)
    cost = np.ones((h, w), dtype=np.int32)
    for (x, y), c in board.terrain.items():
        cost[y, x] = c
    for x, y in occupied:
        if 0 <= x < w and 0 <= y < h and (x, y) != tuple(start):
            cost[y, x] = 0
    out = {}
    for k, (dx, dy) in enumerate(STEPS):
        if diagonal == "manhattan" and dx and dy:
            continue
        ty, tx, fy, fx = _shift(dx, dy, w, h)
        into = np.zeros((h, w), dtype=np.int32)
        into[ty, tx] = (masks[fy, fx] & (1 << k)) == 0
        out[k] = cost * into
    return out


def _whole(board) -> bool:
    """Whether tcod's integer costs can stand for the board's: squares, every terrain cost an ``int``."""
    return not board.grid.hex and all(type(c) is int for c in board.terrain.values())


def _finder(board, start, diagonal: str, costs: dict):
    """tcod's pathfinder over the board's steps from ``start`` (not yet run) and the steps as ``(step, layer left,
    layer entered, its cost times the terrain)``: one layer, or under ``"alternating"`` two."""
    import tcod.path as tp

    w, h = board.width, board.height
    sx, sy = start
    if diagonal != "alternating":
        graph, edges = tp.CustomGraph((h, w)), []
        for k, c in costs.items():
            graph.add_edge((STEPS[k][1], STEPS[k][0]), 1, cost=c)
            edges.append((k, 0, 0, 1))
        root = (sy, sx)
    else:  # two layers: a diagonal from the even one costs the terrain, from the odd one twice it
        graph, edges = tp.CustomGraph((2, h, w)), []
        for k, c in costs.items():
            dx, dy = STEPS[k]
            both = np.stack([c, c])
            if dx and dy:  # (the same step from the other layer would leave the graph: tcod takes none)
                graph.add_edge((1, dy, dx), 1, cost=both)
                graph.add_edge((-1, dy, dx), 2, cost=both)
                edges += [(k, 0, 1, 1), (k, 1, 0, 2)]
            else:
                graph.add_edge((0, dy, dx), 1, cost=both)
                edges += [(k, 0, 0, 1), (k, 1, 1, 1)]
        root = (0, sy, sx)
    found = tp.Pathfinder(graph)
    found.add_root(root)
    return found, edges


def search(board, start, diagonal: str, costs: dict):
    """tcod's search of the board's steps from ``start``: each state's least cost, ``(layers, h, w)``, the value
    of a state not reached, and the steps (:func:`_finder`'s)."""
    found, edges = _finder(board, start, diagonal, costs)
    found.resolve()
    layers = 1 if diagonal != "alternating" else 2
    return (found.distance.reshape(layers, board.height, board.width), np.iinfo(found.distance.dtype).max, edges)


def order_of(start, budget, best, unreached, edges, costs) -> np.ndarray:
    """The states in the order ``reachable``'s search first reaches them (state ``layers * i + parity``)."""
    layers, h, w = best.shape
    limit = math.inf if budget is None else budget
    taken = (best != unreached) & (best <= limit)
    n = layers * h * w
    by_state = np.ascontiguousarray(best.transpose(1, 2, 0)).reshape(n)
    states = np.flatnonzero(np.ascontiguousarray(taken.transpose(1, 2, 0)).reshape(n))
    ranked = states[_stable_order(by_state[states])]  # taken by (cost, state)
    rank = np.empty(n, dtype=np.int32)
    rank[ranked] = np.arange(len(ranked), dtype=np.int32)
    rank = rank.reshape(h, w, layers).transpose(2, 0, 1)
    big = np.int32(n * 8)
    first = np.full((layers, h, w), big, dtype=np.int32)
    for k, left, entered, times in edges:  # each state: the first state taken with a step into it, and the step
        ty, tx, fy, fx = _shift(*STEPS[k], w, h)
        ok = taken[left, fy, fx] & (costs[k][ty, tx] > 0)
        if limit != math.inf:
            ok &= best[left, fy, fx] + times * costs[k][ty, tx] <= limit
        np.minimum(first[entered, ty, tx], np.where(ok, rank[left, fy, fx] * 8 + k, big), out=first[entered, ty, tx])
    keys = np.ascontiguousarray(first.transpose(1, 2, 0)).reshape(n)
    s0 = layers * (start[1] * w + start[0])
    reached = states[states != s0]
    return np.concatenate(([s0], reached[_stable_order(keys[reached])]))


def answer(best, unreached, budget, order) -> dict:
    """``reachable``'s dictionary from the states' order: each cell at its first state's place, its least cost."""
    layers, h, w = best.shape
    cells = order // layers if layers == 2 else order
    if layers == 2:
        _, place = np.unique(cells, return_index=True)
        cells = cells[np.sort(place)]
        limit = math.inf if budget is None else budget
        low = np.where((best != unreached) & (best <= limit), best, unreached).min(axis=0)
        costs = low.reshape(h * w)[cells]
    else:
        costs = best.reshape(h * w)[cells]
    grid = cells_of(w, h)
    return dict(zip([grid[i] for i in cells.tolist()], costs.tolist()))


def reach(board, start, budget, diagonal: str, occupied=()) -> dict:
    """``movement.reachable(board, start, budget, diagonal, occupied)`` with tcod doing the search (a square board,
    a policy of :data:`POLICIES`, every terrain cost an ``int``)."""
    if not _whole(board) or diagonal not in POLICIES:
        raise ValueError("tcod's integer costs: squares, a whole-number policy and whole terrain costs only")
    costs = costs_of(board, occupied, start, diagonal)
    best, unreached, edges = search(board, start, diagonal, costs)
    return answer(best, unreached, budget, order_of(start, budget, best, unreached, edges, costs))


def path(board, start, goal, diagonal: str, occupied=(), costs: dict | None = None):
    """``movement.shortest_path(board, start, goal, diagonal, occupied)`` with tcod doing the search (``"chebyshev"``
    or ``"manhattan"``, whole terrain costs): tcod's Dijkstra stopped at the goal gives the least costs of every
    square nearer than it, then the way back is the one ``shortest_path``'s A* keeps: from each square, the square
    before it is, of those a least-cost way comes through, the first its search takes (by ``(cost + h, cost,
    square)``, ``h`` the policy's distance to the goal: ``rules.stepsearch.path_whole``'s order). ``costs``:
    :func:`costs_of`'s, made already (as a product would keep them per board)."""
    if not _whole(board) or diagonal not in ("chebyshev", "manhattan"):
        raise ValueError("tcod's integer costs: squares, chebyshev or manhattan and whole terrain costs only")
    w, h = board.width, board.height
    costs = costs_of(board, occupied, start, diagonal) if costs is None else costs
    found, _ = _finder(board, start, diagonal, costs)
    found.resolve((goal[1], goal[0]))
    dist = found.distance
    unreached = np.iinfo(dist.dtype).max
    gx, gy = goal
    total = int(dist[gy, gx])
    if total == unreached:
        return None
    masks = board.step_masks()
    back = [(k, -dx, -dy) for k, (dx, dy) in enumerate(STEPS) if k in costs]
    way, (x, y) = [goal], goal
    while (x, y) != tuple(start):
        here, step = int(dist[y, x]), int(board.terrain.get((x, y), 1))
        best = None
        for k, bx, by in back:
            sx, sy = x + bx, y + by
            if not (0 <= sx < w and 0 <= sy < h) or masks[sy * w + sx] & (1 << k):
                continue
            g = int(dist[sy, sx])
            if g == unreached or g + step != here:
                continue
            ddx, ddy = abs(sx - gx), abs(sy - gy)
            key = (g + (ddx + ddy if diagonal == "manhattan" else max(ddx, ddy)), g, sy * w + sx)
            if best is None or key < best[0]:
                best = (key, (sx, sy))
        x, y = best[1]
        way.append((x, y))
    way.reverse()
    return total, way


def _ms(fn, repeat: int) -> float:
    """``bench_rules.median_ms`` after a first call (tcod's import, numpy's first use)."""
    from bench.bench_rules import median_ms

    fn()
    return median_ms(fn, repeat)


def _coarse(board, *free) -> np.ndarray:
    """The rules bench's coarse grid for tcod (``bench_rules.tcod_rows``): each cell's terrain, 0 (blocked) where a
    wall or closed door passes through it or it blocks; the cells ``free`` open."""
    w, h = board.width, board.height
    coarse = np.ones((h, w), dtype=np.int32)
    for (x, y), c in board.terrain.items():
        coarse[y, x] = max(1, round(c))
    for i, bucket in enumerate(board.segments().buckets):
        if bucket:
            coarse[divmod(i, w)] = 0
    for x, y in board.blocked:
        coarse[y, x] = 0
    for x, y in free:
        coarse[y, x] = 1
    return coarse


def measure(board, origin, diagonal: str = "chebyshev", repeat: int = 9) -> dict:
    """Median ms of each part of :func:`reach` and of ``reachable`` on ``board`` from ``origin``, with tcod's
    ``dijkstra2d`` on the rules bench's coarse grid (``bench_rules.tcod_rows``'s reference)."""
    import tcod.path as tp

    w, h = board.width, board.height
    coarse = _coarse(board)

    def dijkstra2d():
        dist = tp.maxarray((h, w), dtype=np.int32)
        dist[origin[1], origin[0]] = 0
        tp.dijkstra2d(dist, coarse, 1, 1, out=dist)

    costs = costs_of(board, (), origin, diagonal)  # (kept per board, as the product keeps its step masks)
    best, unreached, edges = search(board, origin, diagonal, costs)
    order = order_of(origin, None, best, unreached, edges, costs)
    assert answer(best, unreached, None, order) == movement.reachable(board, origin, None, diagonal)

    def whole():
        b, u, e = search(board, origin, diagonal, costs)
        return answer(b, u, None, order_of(origin, None, b, u, e, costs))

    return {
        "tcod dijkstra2d (coarse grid)": _ms(dijkstra2d, repeat),
        "tcod's search of the board's steps": _ms(lambda: search(board, origin, diagonal, costs), repeat),
        "the order reachable's search reaches them in": _ms(lambda: order_of(origin, None, best, unreached, edges, costs),
                                                                        repeat),
        "the dictionary reachable returns": _ms(lambda: answer(best, unreached, None, order), repeat),
        "reach with tcod, all of it": _ms(whole, repeat),
        "reachable (rules.movement)": _ms(lambda: movement.reachable(board, origin, None, diagonal), repeat),
    }


def measure_path(board, origin, goal, repeat: int = 9) -> dict:
    """Median ms of :func:`path` and ``shortest_path`` from ``origin`` to ``goal`` (chebyshev), with tcod's own path
    on the coarse grid (``bench_rules.tcod_rows``'s reference)."""
    import tcod.path as tp

    coarse = _coarse(board, origin, goal)

    def reference():
        found = tp.Pathfinder(tp.SimpleGraph(cost=coarse, cardinal=1, diagonal=1))
        found.add_root((origin[1], origin[0]))
        found.path_to((goal[1], goal[0]))

    costs = costs_of(board, (), origin, "chebyshev")  # (kept per board)
    assert path(board, origin, goal, "chebyshev", costs=costs) == movement.shortest_path(board, origin, goal, "chebyshev")
    return {
        "tcod's path (coarse grid)": _ms(reference, repeat),
        "shortest_path's answer with tcod": _ms(lambda: path(board, origin, goal, "chebyshev", costs=costs), repeat),
        "shortest_path (rules.movement)": _ms(lambda: movement.shortest_path(board, origin, goal, "chebyshev"), repeat),
    }


def main() -> None:
    from bench.bench_rules import BIG_SIDE, BIG_WALLS, make_board

    for label, (board, tokens) in (("100 x 100, 1,000 walls", make_board()),
                                   (f"{BIG_SIDE} x {BIG_SIDE}, {BIG_WALLS:,} walls",
                                    make_board(width=BIG_SIDE, height=BIG_SIDE, n_walls=BIG_WALLS))):
        movement.indexes(board)
        for diagonal in ("chebyshev", "alternating"):
            figures = measure(board, tokens[0], diagonal, 9 if board.width <= 100 else 5)
            ref = figures["tcod dijkstra2d (coarse grid)"]
            print(f"whole-board reach, {label}, {diagonal} (median ms; ratio to dijkstra2d)")
            for name, ms in figures.items():
                print(f"  {name:48s} {ms:9.2f} {ms / ref:6.1f}x")
        figures = measure_path(board, tokens[0], tokens[1], 9 if board.width <= 100 else 5)
        ref = figures["tcod's path (coarse grid)"]
        print(f"shortest_path token 1 to token 2, {label}, chebyshev (median ms; ratio to tcod's path)")
        for name, ms in figures.items():
            print(f"  {name:48s} {ms:9.2f} {ms / ref:6.1f}x")


if __name__ == "__main__":
    main()
