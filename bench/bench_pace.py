"""Another table's pace beside a GM's heavy requests (#72, "Done when": another table's moves stay within 1.5x of
their baseline, p99 under 100 ms, beside each heavy request of a GM's own game: recaps, replay jumps, big-map
commands; the plans from six connections are judged by tests/app/test_fair_plans.py).

Against a real `tacmap serve` on loopback: a long evening's game (a log of ``EVENTS`` events: four tokens moved,
dice rolled) and the biggest map the limits let in (150 x 150, 10,000 wall segments, a player's phone and the table
screen connected) beside table C, whose GM moves a token over Socket.IO as the page does and times each ack. The
heavy requests are made from a process of their own (``Beside``), as from other devices. Table C's moves are timed
alone and beside them in turns (``ROUNDS`` of each: the heavy work paused and resumed, so a drift of the machine's
own load falls on both alike). Printed per kind of request, for each of
``runs`` runs: table C's median and p99 alone and beside, their ratio, and how many heavy requests ended; then the
median of the runs' ratios and p99s against the goal. Not part of the test run.

Run: ``python3 -m bench.bench_pace [runs]`` from the repository root (quiet machine; about a minute a run).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import random
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import socketio  # noqa: E402

from bench.bench_big_maps import FOG_MAP, worst_map  # noqa: E402
from bench.live import Server, progress, sio_client, started  # noqa: E402

SLOWER = 1.5  #: the goal: table C's median move beside the heavy requests, at most this multiple of its median alone
P99 = 0.100  #: the goal: table C's slowest move in a hundred beside them, in seconds
MOVES = 60  #: table C's moves alone, and as many beside, in ``ROUNDS`` turns of each
ROUNDS = 6
EVENTS = 1200  #: the long evening's log


def connect(server: Server, game: dict, key: str | None = None) -> socketio.Client:
    link = sio_client()
    link.connect(server.url, auth={"game": game["id"], "token": key or game["gm_token"]}, transports=["websocket"],
                 wait_timeout=10)
    return link


def made(server: Server, name: str, **more) -> dict:
    status, game = server.api("POST", "/api/games", {"name": name, "system": "plain_grid", **more})
    assert status == 201, game
    return game


def token(server: Server, game: dict, name: str, x: int, y: int, **more) -> str:
    status, tok = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": name, "x": x, "y": y, **more},
                             token=game["gm_token"])
    assert status == 201, tok
    return tok["id"]


def said(ack) -> None:
    assert isinstance(ack, dict) and ack.get("ok"), ack


class Table:
    """Table C: its GM moves a guard back and forth, each round trip timed (the ack, as the page waits for it)."""

    def __init__(self, server: Server) -> None:
        self.game = made(server, "Table C", map={"width": 12, "height": 8})
        self.guard = token(server, self.game, "Guard", 1, 1)
        self.gm = connect(server, self.game)
        self.made = 0

    def moves(self, n: int) -> list[float]:
        out = []
        for _ in range(n):
            self.made += 1
            t0 = time.monotonic()
            said(self.gm.call("command", {"type": "move_token", "token_id": self.guard, "x": 1 + self.made % 2,
                                          "y": 1}, timeout=10))
            out.append(time.monotonic() - t0)
            time.sleep(0.05)
        return out


class Remote:
    """The server as a process of the heavy requests' own sees it: its address (``Server.api`` needs no more)."""

    def __init__(self, url: str) -> None:
        self.url = url

    api = Server.api


def _beside(what: str, url: str, game: dict, on, stop, idle, ready, done, errors) -> None:
    """The heavy requests' process: ``what``'s work (``KINDS``) made, then run again and again while ``on``."""
    links: list = []
    try:
        work = dict(KINDS)[what](Remote(url), game, links)
        ready.set()
        while not stop.is_set():
            if not on.wait(0.05):
                idle.set()
                continue
            idle.clear()
            try:
                work()
                with done.get_lock():
                    done.value += 1
            except Exception as exc:  # noqa: BLE001 (printed)
                errors.put(f"{type(exc).__name__}: {exc}")
                stop.wait(0.2)
    finally:
        for link in links:
            link.disconnect()


class Beside:
    """``what``'s heavy requests (``KINDS``) again and again while on, from a process of their own (spawned): the
    GM's laptop and the table screen are other devices than table C's, and clients in the bench's own process would
    take turns at its GIL with table C's (reading a replay's drawing beside table C's answer: 1.5x where the
    server's share is 1.1x). ``pause`` waits for the request under way."""

    def __init__(self, what: str, server: Server, game: dict) -> None:
        context = multiprocessing.get_context("spawn")
        self.on, self.stop, self.idle, self.ready = (context.Event() for _ in range(4))
        self._done = context.Value("i", 0)
        self._errors = context.SimpleQueue()
        self.process = context.Process(target=_beside, daemon=True, args=(
            what, server.url, game, self.on, self.stop, self.idle, self.ready, self._done, self._errors))

    @property
    def done(self) -> int:
        return self._done.value

    def errors(self) -> list[str]:
        out = []
        while not self._errors.empty():
            out.append(self._errors.get())
        return out

    def __enter__(self) -> "Beside":
        self.process.start()
        if not self.ready.wait(180):
            self.process.kill()
            raise RuntimeError("the heavy requests' process never got ready")
        return self

    def pause(self) -> None:
        self.on.clear()
        self.idle.clear()
        if not self.idle.wait(60):
            raise RuntimeError("the heavy request under way never ended")

    def resume(self) -> None:
        self.on.set()
        time.sleep(0.2)  # the heavy work under way again

    def __exit__(self, *exc) -> None:
        self.stop.set()
        self.on.set()
        self.process.join(60)
        if self.process.is_alive():
            self.process.kill()


def p99(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, -(-99 * len(ordered) // 100) - 1)]


def paced(table: Table, heavy: Beside, what: str) -> tuple[float, float, float, float]:
    """One run: table C's moves alone and beside ``heavy``'s requests in turns: (median alone, p99 alone, median
    beside, p99 beside), seconds."""
    alone: list[float] = []
    during: list[float] = []
    before = heavy.done
    for _ in range(ROUNDS):
        heavy.pause()
        alone += table.moves(MOVES // ROUNDS)
        heavy.resume()
        during += table.moves(MOVES // ROUNDS)
    heavy.pause()
    errors = heavy.errors()
    if errors:
        raise RuntimeError(f"{what}: {errors[:3]}")
    base, now = statistics.median(alone), statistics.median(during)
    print(f"  {what:<18} alone {base * 1000:6.1f} ms (p99 {p99(alone) * 1000:4.0f})   beside {now * 1000:6.1f} ms "
          f"(p99 {p99(during) * 1000:4.0f})   {now / base:4.2f}x   {heavy.done - before} done", flush=True)
    return base, p99(alone), now, p99(during)


def evening(server: Server) -> dict:
    """A long evening's game: four tokens moved and dice rolled, ``EVENTS`` events in its log."""
    game = made(server, "A long evening", map={"width": 30, "height": 20})
    ids = [token(server, game, name, 2 + 3 * i, 2) for i, name in enumerate(("Ann", "Bo", "Cy", "Orc"))]
    gm = connect(server, game)
    try:
        for i in range(EVENTS - 4):
            if i % 5 == 4:
                said(gm.call("command", {"type": "roll", "expr": "2d6+1"}, timeout=10))
            else:  # a square along each move
                said(gm.call("command", {"type": "move_token", "token_id": ids[i % 4], "x": 1 + (i // 4) % 26,
                                         "y": 3 + (i % 4) * 4}, timeout=10))
    finally:
        gm.disconnect()
    return game


def recaps(server: Server, game: dict, links: list):
    """The GM of the long evening reads its recap again and again (the whole log folded and drawn)."""

    def recap() -> None:
        asked = urllib.request.Request(f"{server.url}/games/{game['id']}/recap",
                                       headers={"Authorization": f"Bearer {game['gm_token']}"})
        with urllib.request.urlopen(asked, timeout=60) as answer:
            assert answer.status == 200 and "A long evening" in answer.read().decode()
    return recap


def jumps(server: Server, game: dict, links: list):
    """The GM of the long evening jumps about its replay (on the GM page and the table screen)."""
    gm = connect(server, game)
    links += [gm, connect(server, game, game["screen_token"])]
    chosen = random.Random(72)

    def jump() -> None:
        said(gm.call("command", {"type": "replay", "at": chosen.randrange(EVENTS), "on": ["gm", "screen"]},
                     timeout=60))
    return jump


def big_map(server: Server, _game: dict, links: list):
    """On the biggest map the limits let in, with a player's phone and the table screen connected, its GM switches
    the fog on and off and moves the player's token from corner to corner (new squares each time)."""
    game = made(server, "Big", map=worst_map("square", **FOG_MAP))
    status, seat = server.api("POST", f"/api/games/{game['id']}/players", {"join_code": game["join_code"],
                                                                          "name": "Mira"})
    assert status == 201, seat
    hero = token(server, game, "Aria", 149, 0, owner=seat["player_id"])
    mine = [connect(server, game, key) for key in (game["gm_token"], seat["player_token"], game["screen_token"])]
    links += mine
    step = [0]

    def heavy() -> None:
        i = step[0]
        step[0] += 1
        j, k = (i // 4) % 20, i % 4
        if k in (0, 2):
            payload = {"type": "set_fog", "enabled": k == 0}
        else:
            x, y = (26 + j, 149) if k == 1 else (149, j)
            payload = {"type": "move_token", "token_id": hero, "x": x, "y": y}
        said(mine[0].call("command", payload, timeout=60))
    return heavy


KINDS = (("recaps", recaps), ("replay jumps", jumps), ("big-map commands", big_map))


def main(argv: list[str]) -> None:
    runs = int(argv[1]) if len(argv) > 1 else 3
    print(f"another table's moves beside a GM's heavy requests ({MOVES} moves alone and beside, {runs} runs; goal: "
          f"median within {SLOWER}x of alone, p99 beside under {P99 * 1000:.0f} ms)")
    with contextlib.ExitStack() as stack, tempfile.TemporaryDirectory() as data:
        (server,) = started(stack, Server.tacmap(data))
        progress(f"the long evening: {EVENTS} events")
        game = evening(server)
        table = Table(server)
        table.moves(5)  # warm
        results = []
        for what, _make in KINDS:
            with Beside(what, server, game) as heavy:
                found = [paced(table, heavy, what) for _ in range(runs)]
            ratio = statistics.median(now / base for base, _, now, _ in found)
            tail = statistics.median(t for *_, t in found)
            results.append((what, ratio, tail))
        table.gm.disconnect()
    print(f"{'request':<18}{'ratio (median)':>16}{'p99 beside (median)':>22}  goal met")
    for what, ratio, tail in results:
        print(f"{what:<18}{ratio:>15.2f}x{tail * 1000:>19.0f} ms  {'yes' if ratio <= SLOWER and tail < P99 else 'no'}")


if __name__ == "__main__":
    main(sys.argv)
