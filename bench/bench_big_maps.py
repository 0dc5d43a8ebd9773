"""Benchmark of the biggest map the server accepts (#32): a move's ack and fog turned on, squares and hexes.

Run: ``python -m bench.bench_big_maps [--quick]`` (from the repository root). A live ``tacmap serve``
(bench/live.py) gets a game made through ``POST /api/games`` on the worst map its limits let in: the
largest board (squares, then hexes) with the most wall segments a map may hold, short walls packed in
a band along the west edge so the rest of the board lies open (every token sees tens of thousands of
cells past hundreds of walls: the costliest sight there is), four players with a token each, and the
GM, the table screen and the four players connected. Timed, each a median over several tries:

- a GM's move with fog off: the command's ack (first move after the game was made counted apart:
  it builds the board's indexes);
- fog turned on: from the GM's command until every screen has its update;
- a player's move under fog: the ack, and until every screen has the update.

Targets (#32): a move's ack under 250 ms, fog on under 2 s. The server's CPU time for fog on and a move
under fog is shown too: on a shared machine the wall-clock figures stretch with the load, the CPU less.
"""

from __future__ import annotations

import math
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.live import Arrivals, Client, Server, close_all, connect_all, progress  # noqa: E402
from webapp.game.core.model import MAX_BOARD  # noqa: E402
from webapp.game.board.mapdata import MAX_WALLS  # noqa: E402

ACK_MS = 250
FOG_MS = 2000
PLAYERS = 4
WAIT = 120  # seconds an answer may take (the limits before #32 took tens of seconds)


def worst_map(grid: str, seed: int = 32) -> dict:
    """The largest board the limits allow, square or near-square, with every wall segment it may hold."""
    side = MAX_BOARD
    rnd = random.Random(seed)
    band = math.ceil(MAX_WALLS / (3 * side)) + 2  # columns from the west edge: room for every segment
    candidates = [((x, y), (x + dx, y + dy)) for x in range(band) for y in range(side - 1)
                  for dx, dy in ((1, 0), (0, 1), (1, 1))]
    rnd.shuffle(candidates)
    walls = [{"a": list(a), "b": list(b)} for a, b in candidates[:MAX_WALLS]]
    return {"width": side, "height": side, "walls": walls} | ({"grid": "hex"} if grid == "hex" else {})


def _wait(arrivals: Arrivals, clients, seq: int) -> float:
    """When the last screen had the update of ``seq`` (perf_counter)."""
    if not arrivals.wait(clients, seq, timeout=WAIT):
        raise RuntimeError(f"not every screen had seq {seq}")
    return max(c.seen[seq][0] for c in clients)


def measure_grid(server: Server, grid: str, repeat: int) -> dict:
    m = worst_map(grid)
    t0 = time.perf_counter()
    status, g = server.api("POST", "/api/games", {"name": f"Big {grid}", "system": "plain_grid", "map": m})
    made = (time.perf_counter() - t0) * 1000
    if status != 201:
        raise RuntimeError(f"the worst accepted map was refused: {g}")
    side = m["width"]
    gm_key, gid = g["gm_token"], g["id"]
    players = []
    for i in range(PLAYERS):
        _, p = server.api("POST", f"/api/games/{gid}/players", {"join_code": g["join_code"], "name": f"P{i}"})
        _, t = server.api("POST", f"/api/games/{gid}/tokens", {"name": f"Hero {i}", "x": side // 2 + 3 * i,
                                                                "y": side // 2, "owner": p["player_id"]}, gm_key)
        players.append((p["player_token"], t["id"]))
    arrivals = Arrivals()
    gm = Client(server.url, {"game": gid, "token": gm_key}, arrivals)
    screen = Client(server.url, {"game": gid, "token": g["screen_token"]}, arrivals)
    phones = [Client(server.url, {"game": gid, "token": key}, arrivals) for key, _ in players]
    clients = connect_all([gm, screen, *phones])
    try:
        first, acks = None, []
        hero = players[0][1]
        for n in range(repeat + 1):
            t0 = time.perf_counter()
            r = gm.call({"type": "move_token", "token_id": hero, "x": side // 2 + (n % 2), "y": side // 2 + 1},
                        timeout=WAIT)
            ms = (time.perf_counter() - t0) * 1000
            if not r.get("ok"):
                raise RuntimeError(f"move refused: {r}")
            _wait(arrivals, clients, r["seq"])
            if first is None:
                first = ms
            else:
                acks.append(ms)
        fog_on, fog_acks, fog_moves, fog_seen, fog_cpu, move_cpu = [], [], [], [], [], []
        for n in range(max(1, repeat // 2)):  # the costliest command: half as many tries (once with --quick)
            gm.call({"type": "set_fog", "enabled": False}, timeout=WAIT)
            c0, t0 = server.cpu_seconds(), time.perf_counter()
            r = gm.call({"type": "set_fog", "enabled": True}, timeout=WAIT)
            fog_acks.append((time.perf_counter() - t0) * 1000)
            fog_on.append((_wait(arrivals, clients, r["seq"]) - t0) * 1000)
            fog_cpu.append((server.cpu_seconds() - c0) * 1000)
        key, _ = players[0]
        phone = phones[0]
        for n in range(repeat):
            c0, t0 = server.cpu_seconds(), time.perf_counter()
            r = phone.call({"type": "move_token", "token_id": hero, "x": side // 2 - 1 - n, "y": side // 2 + 1},
                           timeout=WAIT)
            fog_moves.append((time.perf_counter() - t0) * 1000)
            if not r.get("ok"):
                raise RuntimeError(f"move under fog refused: {r}")
            fog_seen.append((_wait(arrivals, clients, r["seq"]) - t0) * 1000)
            move_cpu.append((server.cpu_seconds() - c0) * 1000)
    finally:
        close_all(clients)
    return {"grid": grid, "side": side, "walls": len(m["walls"]), "made": made, "first": first, "acks": acks,
            "fog_acks": fog_acks, "fog_on": fog_on, "fog_moves": fog_moves, "fog_seen": fog_seen,
            "fog_cpu": fog_cpu, "move_cpu": move_cpu}


def measure(repeat: int = 7, grids=("square", "hex")) -> list[dict]:
    out = []
    with tempfile.TemporaryDirectory() as data, Server.tacmap(data) as server:
        for grid in grids:
            progress(f"big maps: {grid}")
            out.append(measure_grid(server, grid, repeat))
    return out


def rows(f: dict) -> list[tuple[str, float, float, int | None]]:
    """(figure, median ms, slowest ms, target ms or None) of one grid."""
    med = statistics.median
    return [
        ("game made (POST /api/games)", f["made"], f["made"], None),
        ("first move after the game was made: ack", f["first"], f["first"], None),
        ("a GM's move, fog off: ack", med(f["acks"]), max(f["acks"]), ACK_MS),
        ("fog on: ack", med(f["fog_acks"]), max(f["fog_acks"]), None),
        ("fog on: until every screen has it", med(f["fog_on"]), max(f["fog_on"]), FOG_MS),
        ("fog on: server CPU (user + system; what a loaded machine stretches)", med(f["fog_cpu"]),
         max(f["fog_cpu"]), None),
        ("a player's move under fog: ack", med(f["fog_moves"]), max(f["fog_moves"]), ACK_MS),
        ("a player's move under fog: until every screen has it", med(f["fog_seen"]), max(f["fog_seen"]), None),
        ("a player's move under fog: server CPU", med(f["move_cpu"]), max(f["move_cpu"]), None),
    ]


def main() -> None:
    quick = "--quick" in sys.argv
    for f in (x for grid in ("square", "hex") for x in measure(repeat=2 if quick else 7, grids=(grid,))):
        print(f"{f['grid']}: {f['side']} x {f['side']}, {f['walls']:,} walls, GM + screen + {PLAYERS} players")
        for name, m, worst, target in rows(f):
            mark = "" if target is None else f"  (target < {target} ms: {'met' if m < target else 'NOT met'})"
            print(f"  {name:<58} median {m:8.1f} ms  slowest {worst:8.1f} ms{mark}")


if __name__ == "__main__":
    main()
