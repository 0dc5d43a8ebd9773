"""Benchmark of the rules core (board geometry, movement, dice odds).

Run: ``python3 bench/bench_rules.py`` (from the repository root). Prints
median times against the targets of issue 3 and, where the ``tcod``
package has the same operation, its time measured in the same run and the
ratio (#69: field of view within 10x of tcod's, whole-board ``reachable``
within 3x of its Dijkstra, ``shortest_path`` within 2x), on the 100 x 100
board and on a 300 x 300 one with 9,000 walls (:func:`measure_big`, with
the hex field of view on its hex twin beside the squares'). Fixed seeds:
the same boards every run. Not part of the test run.
"""

from __future__ import annotations

import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from rules import los, movement, odds  # noqa: E402
from rules.board import Board  # noqa: E402

WIDTH = HEIGHT = 100
N_WALLS = 1000
N_TOKENS = 30
SEED = 20240603


def make_board(seed: int = SEED, width: int = WIDTH, height: int = HEIGHT, n_walls: int = N_WALLS,
               n_tokens: int = N_TOKENS):
    """A 100 x 100 board with 1,000 wall segments (four in five snapped to
    the grid, one in five at arbitrary float points), 60 pillars, 30 pieces
    of cover, 20 doors (half closed), some difficult terrain, and 30 tokens
    on free cells (``n_tokens``: more; the first 30 stay where they were)."""
    rnd = random.Random(seed)
    board = Board(width, height)
    for i in range(n_walls):
        if i % 5:
            x, y = rnd.randrange(width), rnd.randrange(height)
            length = rnd.randint(1, 4)
            if rnd.random() < 0.5:
                b = (min(width, x + length), y)
            else:
                b = (x, min(height, y + length))
            if b == (x, y):
                b = (x - 1, y)
            board.add_wall((x, y), b)
        else:
            x, y = rnd.uniform(0, width), rnd.uniform(0, height)
            dx, dy = rnd.uniform(-3, 3), rnd.uniform(-3, 3)
            board.add_wall((x, y), (x + dx, y + dy))
    for i in range(20):
        x, y = rnd.randrange(1, width - 1), rnd.randrange(1, height - 1)
        board.add_door((x, y), (x + 1, y), closed=i % 2 == 0)
    return board, _furnish(board, rnd, n_tokens)


def _furnish(board: Board, rnd: random.Random, n_tokens: int) -> list[tuple[int, int]]:
    """60 blocking cells, 200 of difficult terrain, 30 pieces of cover, then ``n_tokens`` tokens on free
    cells (their places, in order)."""
    width, height = board.width, board.height
    for _ in range(60):
        board.block((rnd.randrange(width), rnd.randrange(height)))
    for _ in range(200):
        board.set_terrain((rnd.randrange(width), rnd.randrange(height)), 2)
    for _ in range(30):
        board.add_cover((rnd.randrange(width), rnd.randrange(height)), "crate")
    tokens: list[tuple[int, int]] = []
    while len(tokens) < n_tokens:
        c = (rnd.randrange(width), rnd.randrange(height))
        if c not in tokens and not board.is_blocked(c):
            tokens.append(c)
    return tokens


def median_ms(fn, repeat: int = 15) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def per_call_ms(fn, args, rounds: int = 3) -> list[float]:
    times = []
    for _ in range(rounds):
        for a in args:
            t0 = time.perf_counter()
            fn(a)
            times.append((time.perf_counter() - t0) * 1000)
    return times


def tcod_rows(board: Board, tokens, repeat: int = 15, rounds: int = 3):
    """The same operations in tcod (C), on grids built from the board:
    opaque / impassable cells are the blocking cells and every cell a wall or
    closed door passes through (tcod has no walls on cell edges, so its
    board is coarser: a reference for speed, not for results)."""
    try:
        import numpy as np
        import tcod
    except ImportError:
        return None
    w, h = board.width, board.height
    walls = np.zeros((h, w), dtype=bool)
    index = board.segments()
    for i, bucket in enumerate(index.buckets):
        if bucket:
            walls[divmod(i, w)] = True
    for x, y in board.blocked:
        walls[y, x] = True
    transparent = ~walls
    cost = np.ones((h, w), dtype=np.int32)
    for (x, y), c in board.terrain.items():
        cost[y, x] = max(1, round(c))
    cost[walls] = 0
    origin = tokens[0]
    for t in tokens:
        cost[t[1], t[0]] = 1
        transparent[t[1], t[0]] = True

    def fov(t):
        return tcod.map.compute_fov(transparent, (t[1], t[0]), algorithm=tcod.constants.FOV_SYMMETRIC_SHADOWCAST)

    def whole_board():
        dist = tcod.path.maxarray((h, w), dtype=np.int32)
        dist[origin[1], origin[0]] = 0
        tcod.path.dijkstra2d(dist, cost, 1, 1, out=dist)

    def path():
        graph = tcod.path.SimpleGraph(cost=cost, cardinal=1, diagonal=1)
        pf = tcod.path.Pathfinder(graph)
        pf.add_root((origin[1], origin[0]))
        pf.path_to((tokens[1][1], tokens[1][0]))

    return {
        "visible": statistics.median(per_call_ms(fov, tokens, rounds)),
        "seen": statistics.median(int(fov(t).sum()) for t in tokens),
        "whole": median_ms(whole_board, repeat),
        "path": median_ms(path, repeat),
        "version": tcod.__version__,
    }


def measure(repeat: int = 15, rounds: int = 3) -> dict:
    """Every figure of this benchmark: ``rows`` of (operation, target ms or None, median ms, tcod ms or
    None), plus ``seen`` (cells seen per token, median), ``tcod_seen`` and ``tcod`` (its version, or
    None when it is not installed). ``repeat`` and ``rounds``: how many timed runs make a median."""
    board, tokens = make_board()
    t0 = time.perf_counter()
    board.segments()
    t1 = time.perf_counter()
    board.step_masks()
    t2 = time.perf_counter()
    los.visible_cells(board, tokens[0])  # builds the cached table of cell offsets for this board size
    origin = tokens[0]
    others = tokens[1:]
    pairs = [(a, b) for i, a in enumerate(tokens) for b in tokens[i + 1 :]]
    vis = per_call_ms(lambda t: los.visible_cells(board, t), tokens, rounds)
    ref = tcod_rows(board, tokens, repeat, rounds)

    def med(fn):
        return median_ms(fn, repeat)

    rows = [
        ("visible_cells, one token (median of 30)", 10, statistics.median(vis), ref and ref["visible"]),
        ("visible_cells, slowest of the 30 tokens", 10, max(vis), None),
        ("cover, one token to the 29 others", 10, med(lambda: [los.cover(board, origin, t) for t in others]), None),
        (f"line_of_fire, all {len(pairs)} pairs", 20, med(lambda: [los.line_of_fire(board, a, b) for a, b in pairs]), None),
        ("reachable, budget 12", 2, med(lambda: movement.reachable(board, origin, 12, "chebyshev")), None),
        ("reachable, budget 12, alternating", 2, med(lambda: movement.reachable(board, origin, 12, "alternating")), None),
        ("reachable, whole board", 60, med(lambda: movement.reachable(board, origin, 10**9, "chebyshev")), ref and ref["whole"]),
        ("shortest_path, token 1 to token 2", None, med(lambda: movement.shortest_path(board, origin, tokens[1], "chebyshev")), ref and ref["path"]),
        ("(index: walls by cell, after an edit)", None, (t1 - t0) * 1000, None),
        ("(index: refused steps, after an edit)", None, (t2 - t1) * 1000, None),
        ("odds: distribution('4d6kh3')", None, med(lambda: odds.distribution("4d6kh3")), None),
    ]
    return {
        "rows": rows,
        "seen": statistics.median(len(los.visible_cells(board, t)) for t in tokens),
        "tcod_seen": ref and ref["seen"],
        "tcod": ref and ref["version"],
    }


def make_hex_board(orientation: str = "pointy", seed: int = SEED, width: int = WIDTH, height: int = HEIGHT,
                   n_walls: int = N_WALLS, n_tokens: int = N_TOKENS):
    """The hex twin of :func:`make_board` (#28): 100 x 100 hexes with 1,000 walls: four in five on hex
    edges, each a run of one to four edges round a hex (as a square wall is one to four squares' edges;
    the editor draws a segment per edge, so some 2,600 segments), one in five a segment at arbitrary
    float points over the map's extent; 20 doors on hex edges (half closed), 60 blocking hexes, 200 hexes of difficult
    terrain, 30 pieces of cover and 30 tokens on free hexes."""
    from rules.grid import Grid

    grid = Grid("hex", orientation)
    rnd = random.Random(seed)
    board = Board(width, height, grid)
    ex, ey = grid.extent(width, height)
    for i in range(n_walls):
        if i % 5:
            c = (rnd.randrange(width), rnd.randrange(height))
            corners = grid.corners(c)
            k, n = rnd.randrange(6), rnd.randint(1, 4)
            for j in range(n):
                board.add_wall(corners[(k + j) % 6], corners[(k + j + 1) % 6])
        else:
            x, y = rnd.uniform(0, ex), rnd.uniform(0, ey)
            dx, dy = rnd.uniform(-3, 3), rnd.uniform(-3, 3)
            board.add_wall((x, y), (x + dx, y + dy))
    for i in range(20):
        c = (rnd.randrange(1, width - 1), rnd.randrange(1, height - 1))
        corners = grid.corners(c)
        k = rnd.randrange(6)
        board.add_door(corners[k], corners[(k + 1) % 6], closed=i % 2 == 0)
    return board, _furnish(board, rnd, n_tokens)


def _core_rows(board, tokens, repeat: int, rounds: int) -> dict:
    """The operations the issue compares between squares and hexes (#28), median ms each."""
    los.visible_cells(board, tokens[0])
    origin, others = tokens[0], tokens[1:]
    pairs = [(a, b) for i, a in enumerate(tokens) for b in tokens[i + 1:]]
    return {
        "visible_cells, one token (median of 30)": statistics.median(
            per_call_ms(lambda t: los.visible_cells(board, t), tokens, rounds)),
        "cover, one token to the 29 others": median_ms(lambda: [los.cover(board, origin, t) for t in others], repeat),
        f"line_of_fire, all {len(pairs)} pairs": median_ms(lambda: [los.line_of_fire(board, a, b) for a, b in pairs],
                                                          repeat),
        "reachable, budget 12": median_ms(lambda: movement.reachable(board, origin, 12, "chebyshev"), repeat),
        "reachable, whole board": median_ms(lambda: movement.reachable(board, origin, 10**9, "chebyshev"), repeat),
    }


HEX_TARGET = 1.5  # the bound: hexes cost no more than 1.5x the same on squares


def measure_hex(repeat: int = 15, rounds: int = 3) -> list[tuple[str, float, float, float]]:
    """Squares against hexes (#28): ``(operation, square ms, pointy hex ms, flat hex ms)`` medians on
    the 100 x 100 boards of :func:`make_board` and :func:`make_hex_board` (1,000 walls each)."""
    square = _core_rows(*make_board(), repeat, rounds)
    pointy = _core_rows(*make_hex_board("pointy"), repeat, rounds)
    flat = _core_rows(*make_hex_board("flat"), repeat, rounds)
    return [(name, square[name], pointy[name], flat[name]) for name in square]


BIG_SIDE = 300
BIG_WALLS = 9000
#: #69's bounds on our time over tcod's for the same operation on the same grid, measured in the same run
TCOD_BOUNDS = {"visible_cells": 10, "reachable": 3, "shortest_path": 2}


def tcod_bound(name: str) -> int | None:
    """The bound of #69 on a row's ratio to tcod (by the operation its name starts with), or None."""
    return TCOD_BOUNDS.get(name.split(",")[0])


def measure_big(repeat: int = 5, rounds: int = 1, hexes: bool = True) -> dict:
    """#69's figures on a 300 x 300 board with 9,000 walls (:func:`make_board`'s mix and its 30 tokens):
    ``rows`` as :func:`measure`'s (visible_cells, median and slowest of the tokens; whole-board reachable;
    shortest_path token 1 to token 2), each with tcod's time on the same grid in the same run where it has
    the operation; and ``hex``: the field of view on the hex twin (:func:`make_hex_board`, pointy hexes,
    the same size and number of walls), median ms over the same number of tokens (None without ``hexes``).
    The slowest token's figure holds what a process does once per board size: the field of view's bands of
    the offset table are cut as a search first needs them (``rules.fovtiles.Bands``), so the first token to
    search far pays for them."""
    board, tokens = make_board(width=BIG_SIDE, height=BIG_SIDE, n_walls=BIG_WALLS)
    origin = tokens[0]
    los.visible_cells(board, origin)  # the board's indexes and the offset table of this size
    movement.reachable(board, origin, 0, "chebyshev")
    ref = tcod_rows(board, tokens, repeat, rounds)
    vis = per_call_ms(lambda t: los.visible_cells(board, t), tokens, rounds)
    rows = [
        ("visible_cells, one token (median of 30)", None, statistics.median(vis), ref and ref["visible"]),
        ("visible_cells, slowest of the 30 tokens", None, max(vis), None),
        ("reachable, whole board", None, median_ms(lambda: movement.reachable(board, origin, 10**9, "chebyshev"),
                                                   repeat), ref and ref["whole"]),
        ("shortest_path, token 1 to token 2", None,
         median_ms(lambda: movement.shortest_path(board, origin, tokens[1], "chebyshev"), repeat), ref and ref["path"]),
    ]
    hex_ms = None
    if hexes:
        hboard, htokens = make_hex_board("pointy", width=BIG_SIDE, height=BIG_SIDE, n_walls=BIG_WALLS)
        los.visible_cells(hboard, htokens[0])
        hex_ms = statistics.median(per_call_ms(lambda t: los.visible_cells(hboard, t), htokens, rounds))
    return {"rows": rows, "hex": hex_ms, "seen": statistics.median(len(los.visible_cells(board, t)) for t in tokens),
            "tcod_seen": ref and ref["seen"], "tcod": ref and ref["version"]}


def print_rows(rows) -> None:
    """Each row: our median, its target, tcod's median in the same run and the ratio, against #69's bound."""
    print(f"{'operation':42s} {'median ms':>10s} {'target':>7s} {'ok':>3s} {'tcod ms':>9s} {'ratio':>7s} "
          f"{'bound':>6s} {'ok':>3s}")
    for name, target, ms, tcod_ms in rows:
        tgt = f"{target}" if target is not None else "-"
        ok = "-" if target is None else ("yes" if ms <= target else "NO")
        bound = tcod_bound(name)
        if tcod_ms:
            ref_s, ratio = f"{tcod_ms:9.3f}", f"{ms / tcod_ms:6.1f}x"
            b_s = f"{bound}x" if bound else "-"
            b_ok = "-" if not bound else ("yes" if ms <= bound * tcod_ms else "NO")
        else:
            ref_s, ratio, b_s, b_ok = f"{'-':>9s}", f"{'-':>7s}", "-", "-"
        print(f"{name:42s} {ms:10.2f} {tgt:>7s} {ok:>3s} {ref_s} {ratio} {b_s:>6s} {b_ok:>3s}")


def main() -> None:
    figures = measure()
    print(f"rules core, {WIDTH} x {HEIGHT} board, {N_WALLS} walls, {N_TOKENS} tokens, seed {SEED}")
    print(f"python {sys.version.split()[0]}; " + (f"tcod {figures['tcod']}" if figures["tcod"] else "tcod not installed"))
    print()
    print(f"cells seen per token (median): {figures['seen']:.0f}"
          + (f"; tcod, walls as opaque cells: {figures['tcod_seen']:.0f}" if figures["tcod"] else ""))
    print()
    print_rows(figures["rows"])
    print()
    big = measure_big()
    print(f"{BIG_SIDE} x {BIG_SIDE} board, {BIG_WALLS:,} walls, the same mix (#69)")
    print(f"cells seen per token (median): {big['seen']:.0f}"
          + (f"; tcod, walls as opaque cells: {big['tcod_seen']:.0f}" if big["tcod"] else ""))
    print_rows(big["rows"])
    square = big["rows"][0][2]
    print(f"{'visible_cells on the hex twin (pointy), median':42s} {big['hex']:10.2f}   "
          f"squares {square:.2f} ms: {big['hex'] / square:.2f}x")
    print()
    print(f"hexes against squares (#28; target <= {HEX_TARGET}x)")
    print(f"{'operation':42s} {'square':>8s} {'pointy':>8s} {'ratio':>6s} {'flat':>8s} {'ratio':>6s}")
    for name, sq, po, fl in measure_hex():
        print(f"{name:42s} {sq:8.2f} {po:8.2f} {po / sq:5.2f}x {fl:8.2f} {fl / sq:5.2f}x")


if __name__ == "__main__":
    main()
