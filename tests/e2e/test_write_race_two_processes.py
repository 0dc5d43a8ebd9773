"""Two `tacmap serve` processes writing moves to one game at once, as fast as their clients can (issue #38).

Both processes append to one log (a shared data folder's SQLite file, or one PostgreSQL database with a data
folder per process, as on two machines) and tell each other through a real redis-server. The one that loses
the write race (the log's unique (game, seq)) catches up with the other's events and decides again: no move is
refused as "busy", every acknowledged move is in the log once at its seq, and both processes end with the
same state. Each client moves a token of its own between two free squares, so no move has a reason to be
refused.
"""

from __future__ import annotations

import threading
import time
import pytest

from test_scale_out import DEADLINE, Cluster, Screen, log_events
from test_scale_out_postgres import PostgresCluster

SECONDS = 4.0  # of moves from every client at once...
MOVES_EACH = 7  # ...and on until each client has made this many (a loaded machine's 4 s made 18-19 a process)
MOST_SECONDS = 30.0  # but no longer than this
CLIENTS_PER_PROCESS = 3


@pytest.fixture(params=["sqlite", "postgresql"])
def race_cluster(request):
    c = Cluster() if request.param == "sqlite" else PostgresCluster(request.getfixturevalue("pg_url"))
    try:
        yield c
    finally:
        c.close()


def test_two_processes_moving_at_full_speed_refuse_nothing_and_agree(race_cluster):
    cluster = race_cluster
    a, b = cluster.start("A"), cluster.start("B")
    status, g = a.api("POST", "/api/games", {"name": "race", "system": "plain_grid"})
    assert status == 201, g
    game, gm_key = g["id"], g["gm_token"]

    # a token per client, each in a column of its own: it moves between (x, 2) and (x, 3), never in another's way
    movers = []
    for i in range(2 * CLIENTS_PER_PROCESS):
        server = (a, b)[i % 2]
        status, t = server.api("POST", f"/api/games/{game}/tokens", {"name": f"Runner {i}", "x": 1 + 2 * i, "y": 2},
                               gm_key)
        assert status == 201, t
        screen = Screen(f"gm{i}@{server.name}", game, gm_key).connect(server)
        cluster.screens.append(screen)
        movers.append((screen, t["id"], 1 + 2 * i))

    acked: list[tuple[int, str, int, int]] = []  # (seq, token, x, y)
    refused: list[tuple[str, dict]] = []
    lock = threading.Lock()
    go = threading.Barrier(len(movers), timeout=DEADLINE)

    def run(screen: Screen, token: str, x: int) -> None:
        y, made = 2, 0
        go.wait()
        start = time.monotonic()
        while (time.monotonic() < start + SECONDS or made < MOVES_EACH) and time.monotonic() < start + MOST_SECONDS:
            made += 1
            y = 5 - y  # 2, 3, 2, 3...
            ack = screen.call({"type": "move_token", "token_id": token, "x": x, "y": y})
            with lock:
                if ack.get("ok"):
                    acked.append((ack["seq"], token, x, y))
                else:
                    refused.append((screen.name, ack))
                    y = 5 - y  # it stayed where it was

    threads = [threading.Thread(target=run, args=m) for m in movers]
    for t in threads:
        t.start()
    for t in threads:
        t.join(MOST_SECONDS + DEADLINE * 2)
    assert not any(t.is_alive() for t in threads), "a client never heard back"
    assert not refused, f"{len(refused)} moves refused, e.g. {refused[:3]}; A said {a.log()[-3000:]}; B said {b.log()[-3000:]}"
    per_process = {s: sum(1 for _q, tok, *_ in acked if tok in {t for sc, t, _x in movers if sc.name.endswith(s)})
                   for s in ("@A", "@B")}
    print(f"moves acknowledged through each process: {per_process}")
    assert min(per_process.values()) >= 20, f"too few moves to race: {per_process}"

    # every acknowledged move is in the log once, at its seq, as acknowledged; nothing else was written
    events = log_events(cluster.data_dir, game)
    seqs = [seq for seq, *_ in events]
    assert seqs == list(range(1, len(seqs) + 1))
    acked.sort()
    first = acked[0][0]
    assert [s for s, *_ in acked] == list(range(first, seqs[-1] + 1)), "an acknowledged seq is doubled or missing"
    moves = {seq: data for seq, kind, data in events if kind == "token_moved"}
    for seq, token, x, y in acked:
        assert seq in moves, f"seq {seq} was acknowledged as a move, the log has something else"
        assert (moves[seq]["token_id"], moves[seq]["x"], moves[seq]["y"]) == (token, x, y), (seq, moves[seq])

    # both processes end with the same state: the log's head, every token where its last acknowledged move put it
    head = seqs[-1]
    last = {token: (x, y) for _s, token, x, y in acked}
    states = {}
    for server in (a, b):
        status, state = server.api("GET", f"/api/games/{game}/state", token=gm_key)
        assert status == 200, state
        states[server.name] = state
        assert state["seq"] == head, (server.name, state["seq"], head)
        where = {t["id"]: (t["x"], t["y"]) for t in state["tokens"]}
        assert {tok: where[tok] for tok in last} == last, server.name
    assert states["A"] == states["B"]
    for screen, _token, _x in movers:  # and every client was told of every move, whichever process stored it
        assert screen.wait_seq(head), f"{screen.name} at {screen.seq}, log at {head}"
