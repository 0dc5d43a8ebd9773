"""#69: fog on, a player's moves under fog, lights and a fogged picture's paint-out on a 300 x 300 map with 20,000
walls leave another table playing.

Against a real ``tacmap serve``: the big game's GM, the table screen and two players are connected over Socket.IO
(each audience's fog drawn for each update), and each step is timed beside another table whose GM moves an NPC again
and again from a process of its own (``bench_big_maps.OtherTable``: another device; in the test's own process its
answers waited behind the big game's megabytes of JSON being decoded, up to 150 ms a move), against that table's
baseline taken in the same test: the median within 50 ms of the baseline's (as in ``test_big_map_off_loop``), the
slowest within 150 ms of its slowest (``SLOWEST_ABOVE``), wider than #69's target (p99 under 100 ms): the loop is
never held 30 ms by these steps' own code (gevent's blocking monitor, set to 20 ms, reported none in them once the
templates were compiled at the start: ``templating.precompile``), but the cycle collector's first walk of the new
fog sets (20-54 ms, ``collector.QuietCollector``) and the geometry thread's share of the GIL and of this machine's
two cores remain, and the other table's slowest move per step came to 36-122 ms in four runs. The steps, in the
order a GM meets them: fog turned on (each token's field of view, every audience's fog layer and known walls), three
moves of a player's token under fog to squares never seen from, three lights added (each light's field of view), the
map's picture uploaded (decoded on a picture thread) and fetched by a player, painted out where they never saw."""

from __future__ import annotations

import io
import statistics
import time
import urllib.request

import pytest
from PIL import Image

from bench.bench_big_maps import upload, worst_map
import test_big_map_off_loop as off_loop
from test_big_map_off_loop import Table
from test_stranger_attacks import sio_connect
from webapp.game.core.model import MAX_BOARD

pytestmark = [pytest.mark.serial, pytest.mark.own_server]  # loads the server on purpose and times the answers

WALLS = 20_000
SLOWEST_ABOVE = 0.150  #: the other table's slowest move beside a step, above its baseline's slowest (seconds)
PICTURE_PX = 4_800  #: the map picture's side: 16 px a square on 300 (23 megapixels, under the 32 allowed)


class BigGame:
    """The big map's game: two players with a token each in the open, the GM, the screen and both connected."""

    def __init__(self, server) -> None:
        self.server = server
        status, g = server.api("POST", "/api/games", {"name": "Big", "system": "plain_grid",
                                                      "map": worst_map("square", side=MAX_BOARD, walls=WALLS)})
        assert status == 201, g
        self.game, self.id, self.gm_key = g, g["id"], g["gm_token"]
        self.players = []
        for i in range(2):
            status, p = server.api("POST", f"/api/games/{self.id}/players",
                                   {"join_code": g["join_code"], "name": f"P{i}"})
            assert status == 201, p
            status, t = server.api("POST", f"/api/games/{self.id}/tokens", {
                "name": f"Hero {i}", "x": MAX_BOARD // 2 + 4 * i, "y": MAX_BOARD // 2, "owner": p["player_id"]},
                self.gm_key)
            assert status == 201, t
            self.players.append((p["player_token"], t["id"]))
        self.sockets = [sio_connect(self.server, self.id, key, timeout=30)
                        for key in (self.gm_key, g["screen_token"], *(k for k, _ in self.players))]
        self.gm, self.phone = self.sockets[0], self.sockets[2]

    def command(self, sio, payload: dict) -> dict:
        ack = sio.call("command", payload, timeout=120)
        assert isinstance(ack, dict) and ack.get("ok"), ack
        return ack

    def close(self) -> None:
        for s in self.sockets:
            s.disconnect()


def check(what: str, took: float, baseline: list[float], times: list[float]) -> None:
    off_loop.check(what, took, baseline, times, SLOWEST_ABOVE)


def test_fog_moves_lights_and_a_paint_out_on_a_300_square_map_leave_another_table_playing(server):
    other = Table(server)
    big = BigGame(server)
    try:
        big.command(big.gm, {"type": "move_token", "token_id": big.players[0][1], "x": MAX_BOARD // 2,
                             "y": MAX_BOARD // 2 + 1})  # the board's indexes built (the first move's), as in play
        baseline = other.baseline()

        _, took, times = other.beside(lambda: big.command(big.gm, {"type": "set_fog", "enabled": True}))
        check("fog on (GM, screen, 2 players connected)", took, baseline, times)

        hero = big.players[0][1]

        def moves():
            for n in range(3):  # westward, toward the walls: squares never seen from
                big.command(big.phone, {"type": "move_token", "token_id": hero, "x": MAX_BOARD // 2 - 2 - 3 * n,
                                        "y": MAX_BOARD // 2 + 1})
        _, took, times = other.beside(moves)
        check("three moves under fog", took, baseline, times)

        def lights():
            for n in range(3):
                big.command(big.gm, {"type": "add_light", "x": MAX_BOARD // 2 + 10 * n + 0.5,
                                     "y": MAX_BOARD // 2 - 5.5, "range": 40})
        _, took, times = other.beside(lights)
        check("three lights added", took, baseline, times)

        out = io.BytesIO()
        Image.new("RGB", (PICTURE_PX, PICTURE_PX), (90, 120, 60)).save(out, "PNG")
        (status, answer), took, times = other.beside(lambda: upload(
            server.url, f"/api/games/{big.id}/maps/active/picture", big.gm_key, out.getvalue(), "map.png"))
        assert status == 200, answer
        check(f"a {PICTURE_PX} x {PICTURE_PX} map picture uploaded", took, baseline, times)

        status, st = server.api("GET", f"/api/games/{big.id}/state", token=big.players[0][0])
        assert status == 200 and st["picture"], st.get("picture")
        url = server.url + st["picture"]["url"]

        def fetch() -> bytes:
            req = urllib.request.Request(url, headers={"Authorization": f"Bearer {big.players[0][0]}"})
            with urllib.request.urlopen(req, timeout=120) as r:
                return r.read()
        data, took, times = other.beside(fetch)
        check("the fogged picture painted out for a player", took, baseline, times)
        with Image.open(io.BytesIO(data)) as img:
            rgb = img.convert("RGB")
            px = PICTURE_PX // MAX_BOARD
            assert rgb.getpixel((hero_px := (MAX_BOARD // 2) * px + px // 2, hero_px)) == (90, 120, 60)  # seen
            assert rgb.getpixel((px // 2, PICTURE_PX - px // 2)) == (0, 0, 0)  # behind the walls: never seen
        print("baseline median", f"{statistics.median(baseline) * 1000:.0f} ms", time.strftime("%X"))
    finally:
        big.close()
        other.close()
