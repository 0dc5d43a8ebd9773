"""On PostgreSQL a move's transaction is sent without waiting for its answer, and the other screens' update is
drawn while the server commits it (#38, webapp/storage/sql.py ``PostgresDatabase.batch(later=True)``,
webapp/live/hub.py ``_first``). The promise stays: nobody is sent a change before the server said it committed.

Real `tacmap serve` processes on a real PostgreSQL (the ``pg_url`` fixture); the test holds the moves' INSERTs
with a server-side lock (``LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE`` on a session of its own: every INSERT
into the log waits for it, reads do not), checks that the tacmap sessions are waiting on it (their transactions
sent, their answers out), and lets go.
"""

from __future__ import annotations

import tempfile
import threading
import time
import urllib.request

import pytest

from bench.live import Server
from test_scale_out import DEADLINE, Screen, close_all, game_with_an_ogre, log_events, wait_for
from test_scale_out_postgres import PostgresCluster

HELD_S = 1.0  # how long the lock holds the moves (nothing may be heard meanwhile)


class Held:
    """The log's table locked against INSERTs by a session of the test's own, until ``release``."""

    def __init__(self, url: str) -> None:
        import psycopg

        self.url = url
        self.db = psycopg.connect(url, autocommit=True)
        self.db.execute("BEGIN")
        self.db.execute("LOCK TABLE events IN SHARE ROW EXCLUSIVE MODE")

    def waiting(self) -> int:
        """How many tacmap sessions wait on the lock (an INSERT of theirs sent, its answer not yet given)."""
        import psycopg

        with psycopg.connect(self.url, autocommit=True) as db:
            return db.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'tacmap' "
                              "AND datname = current_database() AND wait_event_type = 'Lock'").fetchone()[0]

    def release(self) -> None:
        if not self.db.closed:
            self.db.execute("ROLLBACK")
            self.db.close()


def call_later(screen: Screen, payload: dict, answers: list) -> threading.Thread:
    """``payload`` sent by ``screen`` on a thread of its own: (seconds after sending, answer) lands in ``answers``."""
    def run() -> None:
        sent = time.monotonic()
        answer = screen.call(payload)
        answers.append((time.monotonic() - sent, answer))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def token_at(screen: Screen, token: str, x: int, y: int) -> bool:
    """The screen was sent a change drawing ``token`` at (x, y) (the update's HTML places it by its square)."""
    drawn = f'data-token-id="{token}" data-x="{x}" data-y="{y}"'
    return any(drawn in html for _b, _s, html in screen.received)


@pytest.fixture
def single(pg_url):
    screens: list[Screen] = []
    with tempfile.TemporaryDirectory(prefix="tacmap-inflight-") as folder, Server.tacmap(folder, pg_url) as server:
        try:
            yield server, screens
        finally:
            close_all(screens)


def test_the_other_screens_hear_a_move_only_once_the_server_said_it_committed(single, pg_url):
    server, screens = single
    g, ogre = game_with_an_ogre(server, server, "held", (1, 1))
    gm = Screen("gm", g["id"], g["gm_token"]).connect(server)
    tv = Screen("screen", g["id"], g["screen_token"]).connect(server)
    screens += [gm, tv]
    ack = gm.call({"type": "move_token", "token_id": ogre, "x": 2, "y": 1})
    assert ack.get("ok") and tv.wait_seq(ack["seq"]), (ack, tv.seq)

    held = Held(pg_url)
    try:
        answers: list = []
        sender = call_later(gm, {"type": "move_token", "token_id": ogre, "x": 3, "y": 1}, answers)
        assert wait_for(lambda: held.waiting() == 1), "the move's INSERT never reached the server"
        time.sleep(HELD_S)  # the update was drawn long ago: it waits for the COMMIT's answer
        assert tv.seq == ack["seq"] and tv.received[-1][1] == ack["seq"], f"the screen heard {tv.received[-1][:2]}"
        assert answers == [], f"'ok' heard before the COMMIT: {answers}"
    finally:
        held.release()
    sender.join(DEADLINE)
    assert answers and answers[0][1].get("ok") and answers[0][1]["seq"] == ack["seq"] + 1, answers
    assert answers[0][0] >= HELD_S, answers  # answered after the lock was let go
    assert tv.wait_seq(ack["seq"] + 1), f"the screen at {tv.seq} after the COMMIT"
    assert token_at(tv, ogre, 3, 1)
    assert [s for s, _t, d in log_events(pg_url, g["id"]) if d.get("token_id") == ogre][-2:] == [ack["seq"], ack["seq"] + 1]
    again = gm.call({"type": "move_token", "token_id": ogre, "x": 4, "y": 1})  # and the connection goes on
    assert again.get("ok") and again["seq"] == ack["seq"] + 2 and tv.wait_seq(again["seq"]), again


def test_another_games_command_and_a_new_game_while_an_answer_is_out(single, pg_url):
    """One process, one store connection: while game 1's append is out, game 2's move (on the loop) and a new
    game (written on the writer thread) each read that answer first, then run; nobody is answered or shown
    anything before the COMMITs, and afterwards every screen shows its own game's move, once."""
    server, screens = single
    g1, ogre1 = game_with_an_ogre(server, server, "first", (1, 1))
    g2, ogre2 = game_with_an_ogre(server, server, "second", (5, 5))
    gm1, tv1 = Screen("gm1", g1["id"], g1["gm_token"]).connect(server), Screen("tv1", g1["id"], g1["screen_token"]).connect(server)
    gm2, tv2 = Screen("gm2", g2["id"], g2["gm_token"]).connect(server), Screen("tv2", g2["id"], g2["screen_token"]).connect(server)
    screens += [gm1, tv1, gm2, tv2]
    start1, start2 = tv1.seq, tv2.seq

    held = Held(pg_url)
    made: list = []
    try:
        answers1: list = []
        answers2: list = []
        first = call_later(gm1, {"type": "move_token", "token_id": ogre1, "x": 2, "y": 1}, answers1)
        assert wait_for(lambda: held.waiting() == 1), "game 1's INSERT never reached the server"
        second = call_later(gm2, {"type": "move_token", "token_id": ogre2, "x": 6, "y": 5}, answers2)
        maker = threading.Thread(target=lambda: made.append(server.api("POST", "/api/games",
                                                                       {"name": "third", "system": "plain_grid"})),
                                 daemon=True)
        maker.start()
        time.sleep(HELD_S)
        assert answers1 == [] and answers2 == [] and made == [], (answers1, answers2, made)
        assert (tv1.seq, tv2.seq) == (start1, start2)
        with urllib.request.urlopen(server.url + "/help/", timeout=DEADLINE) as page:  # the loop is not held
            assert page.status == 200
    finally:
        held.release()
    for thread in (first, second, maker):
        thread.join(DEADLINE)
    assert answers1 and answers1[0][1].get("ok") and answers1[0][1]["seq"] == start1 + 1, answers1
    assert answers2 and answers2[0][1].get("ok") and answers2[0][1]["seq"] == start2 + 1, answers2
    assert made and made[0][0] == 201, made
    assert tv1.wait_seq(start1 + 1) and tv2.wait_seq(start2 + 1), (tv1.seq, tv2.seq)
    assert token_at(tv1, ogre1, 2, 1) and token_at(tv2, ogre2, 6, 5)
    assert not any(ogre2 in html for _b, _s, html in tv1.received)  # each screen its own game's move
    assert not any(ogre1 in html for _b, _s, html in tv2.received)
    assert [s for _b, s, _h in tv1.received].count(start1 + 1) == 1
    for game, start in ((g1, start1), (g2, start2)):
        assert [s for s, _t, _d in log_events(pg_url, game["id"])][-1] == start + 1
    status, state = server.api("GET", f"/api/games/{made[0][1]['id']}/state", token=made[0][1]["gm_token"])
    assert status == 200 and state["name"] == "third", state


@pytest.fixture
def two(pg_url):
    c = PostgresCluster(pg_url)
    try:
        yield c
    finally:
        c.close()


def test_a_conflict_found_in_the_answer_is_decided_again(two, pg_url):
    """Two processes (two machines) each send a move for the same next seq while the lock holds both INSERTs:
    once it is let go, one commits and the other's answer is a unique violation (another process took the seq).
    That one catches up and decides its move again: both senders hear "ok" at seqs of their own, the log holds
    each move once, and the screens on both processes show both moves, each seq heard once."""
    a, b = two.start("A"), two.start("B")
    g, ogre = game_with_an_ogre(a, b, "race", (1, 1))
    status, t = b.api("POST", f"/api/games/{g['id']}/tokens", {"name": "Goblin", "x": 5, "y": 5}, g["gm_token"])
    assert status == 201, t
    goblin = t["id"]
    gm_a = Screen("gmA", g["id"], g["gm_token"]).connect(a)
    gm_b = Screen("gmB", g["id"], g["gm_token"]).connect(b)
    tv_a = Screen("tvA", g["id"], g["screen_token"]).connect(a)
    tv_b = Screen("tvB", g["id"], g["screen_token"]).connect(b)
    two.screens += [gm_a, gm_b, tv_a, tv_b]
    start = max(s for s, _t, _d in log_events(pg_url, g["id"]))
    assert wait_for(lambda: tv_a.seq == start and tv_b.seq == start), (tv_a.seq, tv_b.seq, start)

    held = Held(pg_url)
    try:
        answers_a: list = []
        answers_b: list = []
        on_a = call_later(gm_a, {"type": "move_token", "token_id": ogre, "x": 2, "y": 1}, answers_a)
        on_b = call_later(gm_b, {"type": "move_token", "token_id": goblin, "x": 6, "y": 5}, answers_b)
        # both transactions out, both for seq start + 1: whichever the lock lets in second finds it taken
        assert wait_for(lambda: held.waiting() == 2), "the two INSERTs did not both reach the server"
        time.sleep(0.3)
        assert answers_a == [] and answers_b == [] and (tv_a.seq, tv_b.seq) == (start, start)
    finally:
        held.release()
    on_a.join(DEADLINE)
    on_b.join(DEADLINE)
    assert answers_a and answers_a[0][1].get("ok"), answers_a
    assert answers_b and answers_b[0][1].get("ok"), answers_b
    assert sorted([answers_a[0][1]["seq"], answers_b[0][1]["seq"]]) == [start + 1, start + 2]
    log = [(s, d.get("token_id"), d.get("x"), d.get("y")) for s, _t, d in log_events(pg_url, g["id"]) if s > start]
    assert sorted(log) == sorted([(answers_a[0][1]["seq"], ogre, 2, 1), (answers_b[0][1]["seq"], goblin, 6, 5)]), log
    for tv in (tv_a, tv_b):
        assert tv.wait_seq(start + 2), f"{tv.name} at {tv.seq}"
        assert token_at(tv, ogre, 2, 1) and token_at(tv, goblin, 6, 5), tv.name
        heard = [s for _b, s, _h in tv.received if s > start]
        assert len(heard) == len(set(heard)), f"{tv.name} heard a seq twice: {heard}"
