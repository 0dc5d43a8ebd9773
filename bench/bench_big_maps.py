"""Benchmark of the biggest map the server accepts (#32): a move's ack and fog turned on, squares and hexes.

Run: ``python -m bench.bench_big_maps [--quick] [--arrivals]`` (from the repository root; ``--arrivals``: #69's
figures alone, ``measure_arrivals``). A live ``tacmap serve``
(bench/live.py) gets a game made through ``POST /api/games`` on the worst map its limits let in: the
largest board (squares, then hexes) with the most wall segments a map may hold, short walls packed in
a band along the west edge so the rest of the board lies open (every token sees tens of thousands of
cells past hundreds of walls: the costliest sight there is), four players with a token each, and the
GM, the table screen and the four players connected. Timed, each a median over several tries:

- a GM's move with fog off: the command's ack (first move after the game was made counted apart: the board's
  indexes are built ahead from the game's first load, ``heavy.warm``, and the bench's first move, sent as soon as the
  screens are connected, waits for what is left of them);
- fog turned on: from the GM's command until every screen has its update;
- a player's move under fog: the ack, and until every screen has the update;
- a player's state through the JSON API under fog (``GET /api/games/<id>/state``: tens of thousands of squares seen
  in it): the server's CPU.

#69's figures first (``measure_arrivals``): a 300 x 300 map with 20,000 short walls made through ``POST /api/games``
and imported as a ``.dd2vtt`` (target: under 1 s each), then fog turned on in it (the ack), each while another
table's GM moves an NPC again and again: that table's moves beside it (p50, p99) and alone.

Targets (#32): a move's ack under 250 ms, fog on under 2 s. The server's CPU time for fog on and a move
under fog is shown too: on a shared machine the wall-clock figures stretch with the load, the CPU less.
"""

from __future__ import annotations

import json
import math
import random
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.live import Arrivals, Client, Server, close_all, connect_all, progress  # noqa: E402
from webapp.game.core.model import MAX_BOARD  # noqa: E402
from webapp.game.board.mapdata import MAX_WALLS  # noqa: E402

ACK_MS = 250
FOG_MS = 2000
PLAYERS = 4
#: the map #57 took the fog's geometry off the loop on (the limits then): its tests and bench_pace keep it
FOG_MAP = {"side": 150, "walls": 10_000}
WAIT = 120  # seconds an answer may take (the limits before #32 took tens of seconds)


def worst_map(grid: str, seed: int = 32, side: int = MAX_BOARD, walls: int = MAX_WALLS) -> dict:
    """The largest board the limits allow, square or near-square, with every wall segment it may hold; or a
    ``side`` x ``side`` one with ``walls`` segments (#57's 150 x 150 with 10,000: ``FOG_MAP``)."""
    rnd = random.Random(seed)
    band = math.ceil(walls / (3 * side)) + 2  # columns from the west edge: room for every segment
    candidates = [((x, y), (x + dx, y + dy)) for x in range(band) for y in range(side - 1)
                  for dx, dy in ((1, 0), (0, 1), (1, 1))]
    rnd.shuffle(candidates)
    walls = [{"a": list(a), "b": list(b)} for a, b in candidates[:walls]]
    return {"width": side, "height": side, "walls": walls} | ({"grid": "hex"} if grid == "hex" else {})


def uvtt_file(side: int, walls: int, seed: int = 69) -> bytes:
    """A Universal VTT file (no picture) of ``side`` x ``side`` cells with ``walls`` short segments (one a
    polyline), laid as ``worst_map`` lays them."""
    m = worst_map("square", seed, side, walls)
    lines = [[{"x": w["a"][0], "y": w["a"][1]}, {"x": w["b"][0], "y": w["b"][1]}] for w in m["walls"]]
    return json.dumps({"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": side, "y": side},
                                                     "pixels_per_grid": 64},
                       "line_of_sight": lines, "portals": [], "lights": []}).encode()


def upload(url: str, path: str, token: str, data: bytes, filename: str = "big.dd2vtt", timeout: float = WAIT):
    """A file posted as multipart/form-data (field ``file``), as the GM page sends a map: (status, JSON answer)."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(url + path, data=body, method="POST", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"null")


PAUSE = 0.01  # seconds between two of the other table's moves (``beside``)


class OtherTable:
    """Another table's GM, on a device of its own, moving an NPC between two squares again and again (each move
    waits for its ack): a process of its own, as another table's phone or laptop is. In the process that also holds
    the big game's screens, the other table's answer waited for that interpreter to decode their big updates
    (a fog layer of a 300 x 300 map is megabytes of JSON, one piece of C holding the GIL each): up to 150 ms a
    move that the server had answered in 10 (#69). ``baseline(n)``: ``n`` moves with nothing else going on;
    ``beside(work)``: ``work()`` while it moves."""

    def __init__(self, url: str, game_id: str, gm_key: str, npc_id: str, pause: float = PAUSE) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")  # no fork of a process with the screens' threads running
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_other_table, args=(child, url, game_id, gm_key, npc_id, pause), daemon=True,
                                name="other table")
        self.proc.start()
        child.close()
        self._answer()  # connected, five moves made (the first pay for imports and caches)

    def _answer(self):
        if not self.conn.poll(WAIT):
            raise RuntimeError(f"the other table said nothing in {WAIT} s")
        kind, value = self.conn.recv()
        if kind == "error":
            raise RuntimeError(f"the other table: {value}")
        return value

    def baseline(self, moves: int) -> list[float]:
        """``moves`` moves' round trips (seconds), ``pause`` apart."""
        self.conn.send(("baseline", moves))
        return self._answer()

    def beside(self, work) -> tuple:
        """(what ``work()`` returned, its seconds, the round trip of each move that began before ``work`` ended)."""
        self.conn.send(("beside", None))
        self._answer()  # moving
        time.sleep(0.05)
        t0 = time.perf_counter()
        try:
            out = work()
        finally:
            took = time.perf_counter() - t0
            self.conn.send(("stop", None))
            times = self._answer()
        return out, took, times

    def close(self) -> None:
        try:
            self.conn.send(("close", None))
            self.proc.join(10)
        except OSError:
            pass
        finally:
            if self.proc.is_alive():
                self.proc.kill()
            self.conn.close()


def _other_table(conn, url: str, game_id: str, gm_key: str, npc_id: str, pause: float) -> None:
    """``OtherTable``'s process: answers each order on ``conn`` (a pipe) with ("times", [...]) or ("error", text)."""
    from bench.live import sio_client

    try:
        sio = sio_client()
        sio.connect(url, auth={"game": game_id, "token": gm_key}, transports=["websocket"], wait_timeout=30)
        steps = [0]

        def move() -> float:
            steps[0] += 1
            t0 = time.perf_counter()
            r = sio.call("command", {"type": "move_token", "token_id": npc_id, "x": 1 + steps[0] % 2, "y": 1},
                         timeout=WAIT)
            if not (isinstance(r, dict) and r.get("ok")):
                raise RuntimeError(f"the other table's move was refused: {r}")
            return time.perf_counter() - t0
        for _ in range(5):
            move()
        conn.send(("ready", None))
        while True:
            order, arg = conn.recv()
            if order == "close":
                break
            times = []
            if order == "baseline":
                for _ in range(arg):
                    times.append(move())
                    time.sleep(pause)
            else:  # "beside": until "stop" comes
                conn.send(("moving", None))
                while not conn.poll():
                    times.append(move())
                    conn.poll(pause)
                conn.recv()
            conn.send(("times", times))
        sio.disconnect()
    except Exception as exc:  # noqa: BLE001 (said to the test or the bench, which raises it)
        conn.send(("error", f"{type(exc).__name__}: {exc}"))


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, -(-99 * len(ordered) // 100) - 1)]


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
        fog_on, fog_acks, fog_moves, fog_seen, fog_cpu, move_cpu, fog_off = [], [], [], [], [], [], []
        for n in range(max(1, repeat // 2)):  # the costliest command: half as many tries (once with --quick)
            t0 = time.perf_counter()  # fog off first, every screen's update of it landed: fog on timed alone
            r = gm.call({"type": "set_fog", "enabled": False}, timeout=WAIT)
            if n:  # (the first: fog was off already)
                fog_off.append((_wait(arrivals, clients, r["seq"]) - t0) * 1000)
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
        state_cpu = []  # the JSON API's state for the player, its fog's squares (tens of thousands) in it
        for n in range(repeat):
            c0 = server.cpu_seconds()
            status, body = server.api("GET", f"/api/games/{gid}/state", token=key)
            if status != 200 or not body["fog"]["explored"]:
                raise RuntimeError(f"a player's state under fog: {status}")
            state_cpu.append((server.cpu_seconds() - c0) * 1000)
        seen = len(body["fog"]["explored"])
    finally:
        close_all(clients)
    return {"grid": grid, "side": side, "walls": len(m["walls"]), "made": made, "first": first, "acks": acks,
            "fog_acks": fog_acks, "fog_on": fog_on, "fog_moves": fog_moves, "fog_seen": fog_seen,
            "fog_cpu": fog_cpu, "move_cpu": move_cpu, "fog_off": fog_off, "state_cpu": state_cpu, "seen": seen}


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
        *([("fog off (after fog on): until every screen has it (every wall to every screen)", med(f["fog_off"]),
            max(f["fog_off"]), None)] if f["fog_off"] else []),
        ("fog on: ack", med(f["fog_acks"]), max(f["fog_acks"]), None),
        ("fog on: until every screen has it", med(f["fog_on"]), max(f["fog_on"]), FOG_MS),
        ("fog on: server CPU (user + system; what a loaded machine stretches)", med(f["fog_cpu"]),
         max(f["fog_cpu"]), None),
        ("a player's move under fog: ack", med(f["fog_moves"]), max(f["fog_moves"]), ACK_MS),
        ("a player's move under fog: until every screen has it", med(f["fog_seen"]), max(f["fog_seen"]), None),
        ("a player's move under fog: server CPU", med(f["move_cpu"]), max(f["move_cpu"]), None),
        (f"a player's GET /api/games/<id>/state under fog ({f['seen']:,} squares seen): server CPU",
         med(f["state_cpu"]), max(f["state_cpu"]), None),
    ]


ARRIVAL_SIDE, ARRIVAL_WALLS = MAX_BOARD, 20_000  # #69's figures: a 300 x 300 map with 20,000 short walls
MADE_MS = 1000  # #69's target: made or imported under 1 s


def measure_arrivals(server: Server, repeat: int = 3) -> dict:
    """#69: a big map made through ``POST /api/games`` and imported as a ``.dd2vtt`` (``repeat`` times each), then
    fog turned on in the made game (a player's token in the middle; the GM, the table screen and the player
    connected), each while another table's GM moves its NPC again and again (``OtherTable``): the seconds of each,
    and the other table's moves beside them and alone (the baseline)."""
    m = worst_map("square", side=ARRIVAL_SIDE, walls=ARRIVAL_WALLS)
    data = uvtt_file(ARRIVAL_SIDE, ARRIVAL_WALLS)
    _, small = server.api("POST", "/api/games", {"name": "Other", "system": "plain_grid",
                                                 "map": {"width": 12, "height": 8}})
    _, npc = server.api("POST", f"/api/games/{small['id']}/tokens", {"name": "Guard", "x": 1, "y": 1},
                        small["gm_token"])
    other = OtherTable(server.url, small["id"], small["gm_token"], npc["id"])
    out: dict = {"made": [], "made_moves": [], "imported": [], "imported_moves": [], "fog": [], "fog_moves": [],
                 "baseline": []}
    try:
        out["baseline"] = other.baseline(30)
        games = []
        for _ in range(repeat):
            (status, g), took, times = other.beside(lambda: server.api(
                "POST", "/api/games", {"name": "Big", "system": "plain_grid", "map": m}))
            if status != 201:
                raise RuntimeError(f"the big map was refused: {g}")
            games.append(g)
            out["made"].append(took)
            out["made_moves"] += times
        for _ in range(repeat):
            _, g = server.api("POST", "/api/games", {"name": "Import", "system": "plain_grid"})
            (status, done), took, times = other.beside(lambda: upload(server.url, f"/api/games/{g['id']}/maps",
                                                                  g["gm_token"], data))
            if status != 201:
                raise RuntimeError(f"the big .dd2vtt was refused: {done}")
            out["imported"].append(took)
            out["imported_moves"] += times
        g = games[0]
        _, p = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "P"})
        server.api("POST", f"/api/games/{g['id']}/tokens", {"name": "Hero", "x": ARRIVAL_SIDE // 2,
                                                             "y": ARRIVAL_SIDE // 2, "owner": p["player_id"]},
                   g["gm_token"])
        arrivals = Arrivals()
        gm = Client(server.url, {"game": g["id"], "token": g["gm_token"]}, arrivals)
        screens = connect_all([gm, Client(server.url, {"game": g["id"], "token": g["screen_token"]}, arrivals),
                               Client(server.url, {"game": g["id"], "token": p["player_token"]}, arrivals)])
        try:
            for n in range(repeat):
                r = gm.call({"type": "set_fog", "enabled": False}, timeout=WAIT)
                if n:  # fog off's update landed on every screen first (every wall to each): fog on timed alone
                    _wait(arrivals, screens, r["seq"])
                r, took, times = other.beside(lambda: gm.call({"type": "set_fog", "enabled": True}, timeout=WAIT))
                if not r.get("ok"):
                    raise RuntimeError(f"fog on refused: {r}")
                out["fog"].append(took)
                out["fog_moves"] += times
        finally:
            close_all(screens)
    finally:
        other.close()
    return out


def arrival_rows(f: dict) -> list[str]:
    med = statistics.median

    def ms(v: float) -> str:
        return f"{v * 1000:7.0f} ms"
    lines = [f"{ARRIVAL_SIDE} x {ARRIVAL_SIDE}, {ARRIVAL_WALLS:,} walls (#69); the other table's moves alone: "
             f"p50 {ms(med(f['baseline']))}, p99 {ms(p99(f['baseline']))}"]
    for key, name, target in (("made", "game made (POST /api/games)", MADE_MS),
                              ("imported", "a .dd2vtt imported", MADE_MS), ("fog", "fog on: ack", None)):
        moves = f[f"{key}_moves"] or [0.0]
        mark = "" if target is None else f"  (target < {target} ms: {'met' if med(f[key]) * 1000 < target else 'NOT met'})"
        lines.append(f"  {name:<30} median {ms(med(f[key]))}, slowest {ms(max(f[key]))}; the other table's "
                     f"{len(f[key + '_moves'])} moves beside it: p50 {ms(med(moves))}, p99 {ms(p99(moves))}{mark}")
    return lines


def arrival_table(f: dict) -> list[tuple[str, float, float, str, bool | None]]:
    """``measure_arrivals``' figures as the bench's table has them: (figure, median s, slowest or p99 s, target,
    met)."""
    med = statistics.median
    out = [("the other table's moves alone (median, p99)", med(f["baseline"]), p99(f["baseline"]), "-", None)]
    for key, name in (("made", "game made (POST /api/games)"), ("imported", "a .dd2vtt imported"),
                      ("fog", "fog on (GM, table screen, a player connected): ack")):
        out.append((f"{name} (median, slowest)", med(f[key]), max(f[key]), f"< {MADE_MS} ms",
                    med(f[key]) * 1000 < MADE_MS))
        moves = f[f"{key}_moves"] or [0.0]
        out.append((f"  the other table's {len(f[key + '_moves'])} moves beside it (median, p99)", med(moves),
                    p99(moves), "p50 < 50 ms, p99 < 100 ms", med(moves) < 0.05 and p99(moves) < 0.1))
    return out


def main() -> None:
    quick = "--quick" in sys.argv
    with tempfile.TemporaryDirectory() as data, Server.tacmap(data) as server:
        progress("big maps: made, imported, fog on beside another table")
        for line in arrival_rows(measure_arrivals(server, repeat=1 if quick else 3)):
            print(line)
    if "--arrivals" in sys.argv:
        return
    for f in (x for grid in ("square", "hex") for x in measure(repeat=2 if quick else 7, grids=(grid,))):
        print(f"{f['grid']}: {f['side']} x {f['side']}, {f['walls']:,} walls, GM + screen + {PLAYERS} players")
        for name, m, worst, target in rows(f):
            mark = "" if target is None else f"  (target < {target} ms: {'met' if m < target else 'NOT met'})"
            print(f"  {name:<58} median {m:8.1f} ms  slowest {worst:8.1f} ms{mark}")


if __name__ == "__main__":
    main()
