"""Issue #57: a GM's heavy but legal commands on a big map (the largest accepted then) leave the other tables playing.

On a 150 x 150 map with 10,000 wall segments (``bench.bench_big_maps.worst_map`` with ``FOG_MAP``, the worst the
limits let in before #69 raised them to 300 x 300 and 40,000), a
fog switch or a move from one corner of the open board to the other costs hundreds of milliseconds of geometry
(field of view, the path) and drawing (10,000 walls). Against a real ``tacmap serve``: the GM of that game, with
a player's phone and the table screen connected, alternates fog on, a corner-to-corner move of the player's token,
fog off and the move back (each move to squares not seen from before, so no view is found computed), while
another table's GM moves an NPC and times each round trip (``TablePlays`` of test_stranger_attacks.py). The same
table is timed first with the big game idle (the baseline, in the same test). Such work must not hold the loop
for more than a few tens of milliseconds at a time: the other table's moves stay near their baseline.
"""

from __future__ import annotations

import statistics
import threading
import time

import pytest

from bench.bench_big_maps import FOG_MAP, worst_map
from test_stranger_attacks import TablePlays, open_table, sio_connect

pytestmark = pytest.mark.serial  # loads the server on purpose and times the answers: run alone

SECONDS = 12.0  # the heavy commands run this long (bounded in count too: HEAVY_MAX)
HEAVY_MAX = 120
#: the other table's moves beside the heavy commands, above their baseline. Two shared cores, loaded by other work:
#: with the geometry off the loop the other table still shares the process's CPU with the heavy commands (p50 30-60
#: ms, p95 170-450 ms at a load of 5-8, baseline p50 8-17 ms); before, the loop was held 0.3-1 s at a time (p50
#: 190-310 ms, p95 700-3,000 ms at the same load)
P50_ABOVE, P95_ABOVE, MAX_ABOVE = 0.100, 0.500, 0.750


def stats(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[max(0, -(-95 * len(ordered) // 100) - 1)]
    return (f"{len(times)} moves, p50 {statistics.median(times) * 1000:.0f} ms, p95 {p95 * 1000:.0f} ms, "
            f"max {max(times) * 1000:.0f} ms")


def p95(times: list[float]) -> float:
    ordered = sorted(times)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]


class BigGame:
    """The worst accepted map, a player's token on it and the GM, the phone and the table screen connected."""

    def __init__(self, server) -> None:
        self.server = server
        status, g = server.api("POST", "/api/games", {"name": "Big", "system": "plain_grid",
                                                      "map": worst_map("square", **FOG_MAP)})
        assert status == 201, g
        self.game = g
        status, seat = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
        assert status == 201, seat
        status, tok = server.api("POST", f"/api/games/{g['id']}/tokens",
                                 {"name": "Aria", "x": 149, "y": 0, "owner": seat["player_id"]}, token=g["gm_token"])
        assert status == 201, tok
        self.hero = tok["id"]
        self.clients = [sio_connect(server, g["id"], key) for key in (g["gm_token"], seat["player_token"],
                                                                       g["screen_token"])]
        self.gm = self.clients[0]
        self.done: list[tuple[str, float]] = []
        self.failures: list[str] = []

    def command(self, payload: dict) -> None:
        t0 = time.monotonic()
        try:
            ack = self.gm.call("command", payload, timeout=60)
        except Exception as exc:  # noqa: BLE001 (a timeout: noted, the test says so)
            self.failures.append(f"{payload['type']}: {type(exc).__name__} {exc}")
            return
        if not (isinstance(ack, dict) and ack.get("ok")):
            self.failures.append(f"{payload}: {ack}")
        self.done.append((payload["type"], time.monotonic() - t0))

    def alternate(self, stop: threading.Event) -> None:
        """Fog on, the token to the far corner, fog off, back: each time a little further along the edges (open
        squares east of the walls' band), so the views and the path are new each time."""
        ends = time.monotonic() + SECONDS
        i = 0
        while time.monotonic() < ends and not stop.is_set() and i < HEAVY_MAX:
            j = (i // 4) % 20
            step = i % 4
            if step in (0, 2):
                self.command({"type": "set_fog", "enabled": step == 0})
            else:
                x, y = (26 + j, 149) if step == 1 else (149, j)
                self.command({"type": "move_token", "token_id": self.hero, "x": x, "y": y})
            i += 1

    def close(self) -> None:
        for c in self.clients:
            c.disconnect()


def test_a_gm_alternating_fog_switches_and_corner_moves_on_the_largest_map_leaves_other_tables_playing(server):
    quiet, other = open_table(server), open_table(server)  # alike (each plays once: its newcomer joins once)
    big = BigGame(server)
    try:
        big.command({"type": "move_token", "token_id": big.hero, "x": 148, "y": 0})  # the board's indexes built
        with TablePlays(server, quiet) as baseline:
            time.sleep(SECONDS / 2)
        stop = threading.Event()
        with TablePlays(server, other) as play:
            heavy = threading.Thread(target=big.alternate, args=(stop,), daemon=True)
            heavy.start()
            heavy.join(SECONDS + 120)
            stop.set()
    finally:
        big.close()
    fogs = [t for kind, t in big.done if kind == "set_fog"]
    moves = [t for kind, t in big.done if kind == "move_token"]
    summary = (f"baseline: {stats(baseline.moves)}; beside the heavy commands: {stats(play.moves)}; "
               f"{len(fogs)} fog switches (median {statistics.median(fogs or [0]) * 1000:.0f} ms), "
               f"{len(moves)} corner moves (median {statistics.median(moves or [0]) * 1000:.0f} ms)")
    print(summary)
    assert not big.failures, f"{summary}; {big.failures[:3]}"
    assert not play.failures and not baseline.failures, f"{summary}; {(play.failures + baseline.failures)[:3]}"
    assert len(fogs) >= 4 and len(moves) >= 4, summary
    assert statistics.median(play.moves) < statistics.median(baseline.moves) + P50_ABOVE, summary
    assert p95(play.moves) < p95(baseline.moves) + P95_ABOVE, summary
    assert max(play.moves) < max(baseline.moves) + MAX_ABOVE, summary
