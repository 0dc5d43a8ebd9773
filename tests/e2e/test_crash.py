"""A server killed mid-game loses nothing it acknowledged and invents nothing (real processes; no browser).

Several clients send moves as fast as the server answers; the server is
killed with SIGKILL in the middle, started again on the same data, and the log
on disk must hold every acknowledged move, at its seq, with what was sent,
and nothing that was not sent. Five times over, on the same data.
"""

from __future__ import annotations

import random
import re
import threading
import time

import socketio

from conftest import LiveServer
from test_flood_live import connect, logged_moves, table_with_players

TOKEN = re.compile(r'data-token-id="([^"]+)" data-x="(\d+)" data-y="(\d+)"')


def test_killed_five_times_mid_stream_the_log_holds_every_acknowledged_move_and_nothing_else(tmp_path):
    server = LiveServer(tmp_path / "data").start()
    names = ["Ann", "Bo", "Cy", "Di"]
    game = table_with_players(server, names)
    sent: dict[tuple[str, int, int], int] = {}  # (token, x, y) -> times sent
    acked: dict[int, tuple[str, int, int]] = {}  # seq -> (token, x, y)
    rng = random.Random(7)
    try:
        for round_ in range(5):
            clients = {n: connect(server, game["id"], game["seats"][n]["key"]) for n in names}
            stop = threading.Event()
            lock = threading.Lock()

            def play(name: str, offset: int):
                seat, sio = game["seats"][name], clients[name]
                window = threading.Semaphore(4)  # a few in flight at once, as a quick player's page has
                step = 0
                while not stop.is_set():
                    if not window.acquire(timeout=0.5):
                        continue  # answers are slow, or the server is gone (then stop is set)
                    # a walk over this player's own columns; every target differs from the one before
                    x, y = seat["column"] * 6 + (step + offset) % 5, 1 + ((step + offset) // 5) % 12
                    move = (seat["token_id"], x, y)
                    with lock:
                        sent[move] = sent.get(move, 0) + 1

                    def answered(ack=None, move=move):
                        if ack and ack.get("ok"):
                            with lock:
                                acked[ack["seq"]] = move
                        window.release()

                    try:
                        sio.emit("command", {"type": "move_token", "token_id": move[0], "x": x, "y": y},
                                 callback=answered)
                    except Exception:
                        return
                    step += 1

            threads = [threading.Thread(target=play, args=(n, round_ * 7)) for n in names]
            at_start = len(acked)
            for t in threads:
                t.start()
            deadline = time.monotonic() + 30  # a loaded machine answers slower: wait for answers, not a clock
            while len(acked) - at_start < 40 and time.monotonic() < deadline:
                time.sleep(0.02)
            time.sleep(rng.random() * 0.5)
            before = len(acked) - at_start
            server.kill()  # SIGKILL, mid-stream: moves are in flight
            stop.set()
            for t in threads:
                t.join(10)
            for sio in clients.values():
                try:
                    sio.disconnect()
                except Exception:
                    pass
            assert before >= 40, "the clients were not sending"

            moves = {seq: (d["token_id"], d["x"], d["y"]) for seq, d in logged_moves(server.data_dir, game["id"])}
            for seq, move in acked.items():
                assert moves.get(seq) == move, f"round {round_}: acknowledged seq {seq} {move} is {moves.get(seq)}"
            counted: dict[tuple[str, int, int], int] = {}
            for move in moves.values():
                counted[move] = counted.get(move, 0) + 1
            invented = {m: n for m, n in counted.items() if n > sent.get(m, 0)}
            assert not invented, f"round {round_}: in the log but never sent (that often): {invented}"
            server.start()  # the same data

        # the restarted server's state is the log's: each token where its last move put it
        status, state = server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])
        assert status == 200
        last = {}
        for _seq, d in logged_moves(server.data_dir, game["id"]):
            last[d["token_id"]] = (d["x"], d["y"])
        assert {t["id"]: (t["x"], t["y"]) for t in state["tokens"] if t["id"] in last} == last
        assert len(acked) >= 200 and sum(sent.values()) > len(acked)  # some were in flight at each kill
    finally:
        server.kill()


class Screen:
    """What a page shows of the tokens, kept up to date as static/js/live.js does it."""

    def __init__(self, server, game_id: str, key: str):
        self.seq = None
        self.tokens: dict[str, tuple[int, int]] = {}
        self.lock = threading.Lock()
        self.sio = socketio.Client(reconnection=False)
        self.sio.on("update", self.update)
        self.sio.connect(server.url, auth={"game": game_id, "token": key, "since": -1},
                         transports=["websocket"], wait_timeout=10)

    def update(self, msg):
        with self.lock:
            if msg["from_seq"] is not None and self.seq is not None:
                if msg["from_seq"] > self.seq:
                    self.sio.emit("sync", {"since": self.seq})
                    return
                if msg["from_seq"] < self.seq:
                    return
            for token_id, x, y in TOKEN.findall(msg["html"]):
                self.tokens[token_id] = (int(x), int(y))
            self.seq = msg["seq"]


def test_two_clients_moving_one_token_at_once_leave_every_screen_showing_the_last_move_in_the_log(tmp_path):
    server = LiveServer(tmp_path / "data").start()
    screens: dict[str, Screen] = {}
    try:
        game = table_with_players(server, ["Ann", "Bo"])
        ann = game["seats"]["Ann"]
        screens |= {"gm": Screen(server, game["id"], game["gm_token"]),
                   "Ann": Screen(server, game["id"], ann["key"]),
                   "Bo": Screen(server, game["id"], game["seats"]["Bo"]["key"]),
                   "screen": Screen(server, game["id"], game["screen_token"])}
        time.sleep(0.5)
        go = threading.Barrier(2)

        def drag(screen: Screen, xs):
            for i, x in enumerate(xs):
                go.wait(5)  # both drop the same token at the same moment, on different squares
                screen.sio.call("command", {"type": "move_token", "token_id": ann["token_id"], "x": x, "y": 3 + i % 2},
                                timeout=10)

        a = threading.Thread(target=drag, args=(screens["gm"], [2, 4, 6, 8, 10] * 3))
        b = threading.Thread(target=drag, args=(screens["Ann"], [3, 5, 7, 9, 11] * 3))
        a.start(), b.start()
        a.join(60), b.join(60)
        time.sleep(1.5)  # the last updates (and any sync they asked for) arrive

        moves = [d for _seq, d in logged_moves(server.data_dir, game["id"]) if d["token_id"] == ann["token_id"]]
        assert len(moves) >= 15
        last = (moves[-1]["x"], moves[-1]["y"])
        for name, screen in screens.items():
            with screen.lock:
                assert screen.tokens.get(ann["token_id"]) == last, name
    finally:
        server.kill()  # before the clients leave: a client's goodbye to a live server takes seconds
        for screen in screens.values():
            screen.sio.disconnect()


def test_tacmap_backup_beside_a_busy_server_copies_one_moment_of_the_log(tmp_path):
    """`tacmap backup` as its own process while players' moves stream into a live server: the copy opens, its
    log is whole and is the live log as it was at one moment (a prefix of what the server went on to write)."""
    import subprocess
    import sys
    from pathlib import Path

    from webapp.storage.store import load_game
    from webapp.storage.store import Store

    server = LiveServer(tmp_path / "data").start()
    clients: list[socketio.Client] = []
    try:
        game = table_with_players(server, ["Ann", "Bo"])
        stop = threading.Event()

        def play(name: str):
            seat = game["seats"][name]
            sio = connect(server, game["id"], seat["key"])
            clients.append(sio)
            step = 0
            while not stop.is_set():
                x, y = seat["column"] * 6 + step % 5, 1 + (step // 5) % 12
                sio.call("command", {"type": "move_token", "token_id": seat["token_id"], "x": x, "y": y}, timeout=10)
                step += 1

        threads = [threading.Thread(target=play, args=(n,)) for n in ("Ann", "Bo")]
        for t in threads:
            t.start()
        time.sleep(1)
        dest = tmp_path / "copy"
        done = subprocess.run([sys.executable, "-m", "webapp.cli", "backup", str(dest), "--data-dir",
                               str(server.data_dir)], capture_output=True, text=True, timeout=60,
                              cwd=Path(__file__).resolve().parents[2])
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join(10)
        assert done.returncode == 0, done.stderr
        assert "backed up" in done.stdout
    finally:
        server.kill()
        for sio in clients:
            sio.disconnect()

    copy, live = Store(dest / "tacmap.sqlite3"), Store(server.data_dir / "tacmap.sqlite3")
    try:
        copied, written = copy.events(game["id"]), live.events(game["id"])
        assert 20 < len(copied) < len(written)  # taken mid-stream: the server went on writing after it
        assert [(e.type, e.data) for e in copied] == [(e.type, e.data) for e in written[: len(copied)]]
        assert load_game(copy, game["id"]).seq == len(copied)
    finally:
        copy.close(), live.close()
    assert (dest / "secret_key").read_text() == (server.data_dir / "secret_key").read_text()
