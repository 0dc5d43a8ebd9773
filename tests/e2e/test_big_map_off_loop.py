"""Issue #69: making a game on the biggest map and importing a Universal VTT file of that size leave the other
tables playing.

Against a real ``tacmap serve``: a small table's GM moves an NPC again and again (each move waits for its ack)
while a 300 x 300 map with 20,000 short walls comes in, made through ``POST /api/games`` (squares, then hexes) or
imported as a ``.dd2vtt`` into a game. Before #69 the whole request held the server's one loop: the text check of
every string, the validation, the board built twice, its data written out and settled, all pure Python in one
piece (the other table's move waited the whole request: 0.4-0.5 s here). Now each of those runs in slices with the
other tables' work between them (``rules.board.paced``; webapp/live/server/geometry.py ``loop_pacer``), so a move
waits a slice or two at most. The other table is timed first with the server otherwise idle (the baseline, in the
same test); beside the big map its slowest move must stay within ``SLOWEST_ABOVE`` of the baseline's slowest and its
median within ``MEDIAN_ABOVE`` of the baseline's median (differences, not ratios: a 10 ms baseline times a ratio
would leave no room for one slice on a loaded machine). The big request still takes its share of the one CPU the
loop runs on; the whole request in one piece (the pacer off) fails the bounds.

No page of the importing game is connected: with the GM's page and the table screen there, the new map's first
drawing under fog (an imported map starts with fog on) builds the fog's indexes on the #57 geometry thread, which
shares the GIL with the loop (the other table's slowest move 135-260 ms beside it, the loop itself never held more
than 30 ms: gevent's blocking monitor). That is the fog's part of #69, not this one's.
"""

from __future__ import annotations

import statistics

import pytest

from bench.bench_big_maps import OtherTable, upload, uvtt_file, worst_map
from test_stranger_attacks import open_table
from webapp.game.core.model import MAX_BOARD

pytestmark = [pytest.mark.serial,  # loads the server on purpose and times the answers: run alone
              # a server of its own: on the worker's shared one, after test_heavy_commands.py's big fog game, one
              # move in two runs of three waited 190-245 ms, once whatever this test did (cause not found; not
              # seen in six runs on a server of its own), a stall this test does not measure
              pytest.mark.own_server]

WALLS = 20_000
BASELINE_MOVES = 20
#: the other table's moves beside the big map, above their baseline (seconds). Measured on two shared cores
#: (baseline median 6-10 ms, slowest 14 ms): in slices, the slowest move beside the big map 42-75 ms; in one piece
#: (the pacer off) 400-540 ms beside a game made, 134 ms beside an import (its file was read on a thread before
#: #69 already). Room for a loaded machine, not for a held loop.
MEDIAN_ABOVE, SLOWEST_ABOVE = 0.050, 0.100


class Table(OtherTable):
    """The other table: a small game of its own, its GM moving its NPC between two squares from a process of its
    own (``bench_big_maps.OtherTable``: another device; each move waits for its ack)."""

    def __init__(self, server) -> None:
        game = open_table(server)
        super().__init__(server.url, game["id"], game["gm_token"], game["npc"])

    def baseline(self, moves: int = BASELINE_MOVES) -> list[float]:
        """``BASELINE_MOVES`` moves' round trips, timed as ``beside`` times them, with nothing else going on."""
        return super().baseline(moves)


def summary(what: str, took: float, baseline: list[float], times: list[float]) -> str:
    def ms(v: float) -> str:
        return f"{v * 1000:.0f} ms"
    return (f"{what} in {ms(took)}; the other table's moves: baseline {len(baseline)}, median "
            f"{ms(statistics.median(baseline))}, slowest {ms(max(baseline))}; beside it {len(times)}, median "
            f"{ms(statistics.median(times))}, slowest {ms(max(times))}")


def check(what: str, took: float, baseline: list[float], times: list[float],
          slowest_above: float = SLOWEST_ABOVE) -> None:
    said = summary(what, took, baseline, times)
    print(said)
    assert len(times) >= 3, said  # the request took long enough for the other table to move beside it
    assert statistics.median(times) < statistics.median(baseline) + MEDIAN_ABOVE, said
    assert max(times) < max(baseline) + slowest_above, said


@pytest.mark.parametrize("grid", ["square", "hex"])
def test_a_game_made_on_the_biggest_map_leaves_another_table_playing(server, grid):
    other = Table(server)
    try:
        baseline = other.baseline()
        m = worst_map(grid, side=MAX_BOARD, walls=WALLS)
        (status, g), took, times = other.beside(lambda: server.api(
            "POST", "/api/games", {"name": "Big", "system": "plain_grid", "map": m}))
        assert status == 201, g
        status, state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
        assert status == 200 and state["map"]["width"] == MAX_BOARD and len(state["map"]["walls"]) == WALLS
        check(f"a {MAX_BOARD} x {MAX_BOARD} {grid} game with {WALLS:,} walls made", took, baseline, times)
    finally:
        other.close()


def test_a_dd2vtt_of_the_biggest_size_imported_leaves_another_table_playing(server):
    other = Table(server)
    status, g = server.api("POST", "/api/games", {"name": "Import", "system": "plain_grid"})
    assert status == 201, g
    data = uvtt_file(MAX_BOARD, WALLS)
    try:
        baseline = other.baseline()
        (status, done), took, times = other.beside(lambda: upload(
            server.url, f"/api/games/{g['id']}/maps", g["gm_token"], data))
        assert status == 201 and done["walls"] == WALLS, done
        check(f"a {MAX_BOARD} x {MAX_BOARD} .dd2vtt with {WALLS:,} walls imported", took, baseline, times)
    finally:
        other.close()
