"""Group commit (Hub.commit) and a lane's commands in flight (events/lanes.py): what they promise.

- An ack is sent only once its events are on disk: readable from a fresh SQLite connection to the
  data file at the moment the ack leaves, and the WAL fsynced after they were committed.
- Commands that wait for a game together are decided in the order queued, each on the state the one
  before it left, stored in one transaction, and shown in one update per audience.
- A batch whose write fails acknowledges none of its commands, shows nothing, and leaves the
  in-memory game equal to the log; a command refused in a batch does not hold up the others.
- A connection's command may start once the one before it has joined its game's queue (so they can
  share a commit), never earlier; anything else waits until the commands before it are answered.
"""

from __future__ import annotations

import sqlite3
import threading
import time

import pytest
from socketio import packet

from tests.helpers import connect, new_game
from webapp.live.server import lanes
from webapp.live.server.lanes import Job, Lane
from webapp.storage.durable import WalSync
from webapp.storage.store import DB_NAME, Store, WriteFailed
from webapp.game.core.model import GM, Rejected


@pytest.fixture
def game(client):
    g = new_game(client, "plain_grid", name="Batch")
    tokens = []
    for i in range(4):
        t = client.post(f"/api/games/{g['id']}/tokens", json={"name": f"T{i}", "x": 1, "y": 1 + 2 * i},
                        headers={"Authorization": f"Bearer {g['gm_token']}"}).json
        tokens.append(t["id"])
    return g | {"tokens": tokens}


def rows_on_disk(app, game_id: str) -> dict[int, str]:
    """The game's log as a fresh connection to the data file reads it (what survives a kill now)."""
    db = sqlite3.connect(f"{app.config['DATA_DIR']}/{DB_NAME}")
    try:
        return dict(db.execute("SELECT seq, data FROM events WHERE game_id = ?", (game_id,)).fetchall())
    finally:
        db.close()


def move(token_id: str, x: int, y: int) -> dict:
    return {"type": "move_token", "token_id": token_id, "x": x, "y": y}


def test_an_ack_leaves_only_once_its_event_is_readable_from_the_data_file_and_its_wal_fsynced(app, game, monkeypatch):
    gm = connect(app, game["id"], game["gm_token"])
    server = app.extensions["tacmap_socketio"].server
    sent = server._send_packet
    at_ack = []
    synced = []  # the seq on disk at each fsync of the WAL (synchronous=NORMAL leaves it out of the commit)
    real_sync = WalSync.__call__

    def sync(self):
        real_sync(self)
        synced.append(max(rows_on_disk(app, game["id"]), default=0))

    monkeypatch.setattr(WalSync, "__call__", sync)

    def send_packet(eio_sid, pkt):
        if pkt.packet_type == packet.ACK and pkt.data and pkt.data[0].get("ok"):
            seq = pkt.data[0]["seq"]
            at_ack.append((seq, seq in rows_on_disk(app, game["id"]), any(s >= seq for s in synced)))
        return sent(eio_sid, pkt)

    server._send_packet = send_packet
    for x in (3, 4, 5):
        assert gm.emit("command", move(game["tokens"][0], x, 1), callback=True)["ok"] is True
    assert len(at_ack) == 3 and all(on_disk and fsynced for _seq, on_disk, fsynced in at_ack), at_ack


class HeldGame:
    """Holds a game's lock while commands queue for it, as a long commit would; ``release`` lets them run."""

    def __init__(self, hub, game_id: str) -> None:
        self.hub, self.game_id = hub, game_id
        self.lock = hub.lock(game_id)
        self.lock.acquire()

    def wait_for(self, n: int) -> None:
        deadline = time.monotonic() + 5
        while self.hub.committing.waiting(self.game_id) < n:
            assert time.monotonic() < deadline, "the commands did not queue"
            time.sleep(0.005)

    def release(self) -> None:
        self.lock.release()


def run_in_threads(calls) -> list:
    results: list = [None] * len(calls)

    def run(i, call):
        try:
            results[i] = call()
        except Exception as exc:  # noqa: BLE001 - the test looks at it
            results[i] = exc

    threads = []
    for i, call in enumerate(calls):
        t = threading.Thread(target=run, args=(i, call))
        t.start()
        threads.append(t)
    return results, threads


def test_commands_waiting_together_share_one_transaction_in_the_order_queued(app, hub, game, monkeypatch):
    gm = connect(app, game["id"], game["gm_token"])
    screen = connect(app, game["id"], game["screen_token"])
    gm.get_received(), screen.get_received()
    appends, order = [], []
    real_append = Store._append  # the write itself (Store.append and Store.begin_append both run it)

    def append(store, game_id, last_seq, events, *applied):
        done = real_append(store, game_id, last_seq, events, *applied)
        appends.append((last_seq, [e.type for e in events]))
        order.append("stored")
        return done

    monkeypatch.setattr(Store, "_append", append)
    before = hub.game(game["id"]).seq
    held = HeldGame(hub, game["id"])
    calls = []
    for i, token in enumerate(game["tokens"]):
        def call(token=token, i=i):
            done = hub.execute(game["id"], GM, move(token, 5, 1 + 2 * i))
            order.append("answered")
            return done
        calls.append(call)
    results, threads = [], []
    for call in calls:  # one at a time, so the order queued is known
        r, t = run_in_threads([call])
        results.append(r)
        threads += t
        held.wait_for(len(threads))
    held.release()
    for t in threads:
        t.join(5)
    done = [r[0] for r in results]
    assert appends == [(before, ["token_moved"] * 4)]  # one transaction for the four
    assert order == ["stored"] + ["answered"] * 4  # nobody heard before it was stored
    assert [d.seq for d in done] == [before + 1, before + 2, before + 3, before + 4]  # the order queued
    assert [d.events[0].data["token_id"] for d in done] == game["tokens"]
    on_disk = rows_on_disk(app, game["id"])
    assert all(before + k in on_disk for k in (1, 2, 3, 4))
    updates = [m["args"][0] for m in screen.get_received() if m["name"] == "update"]
    assert [(u["from_seq"], u["seq"]) for u in updates] == [(before, before + 4)]  # one update for the lot
    assert all('data-x="5"' in updates[0]["html"] and f'id="token-{t}"' in updates[0]["html"] for t in game["tokens"])


def test_each_command_of_a_batch_is_decided_on_the_state_the_one_before_left(app, hub, game):
    token = game["tokens"][0]
    held = HeldGame(hub, game["id"])
    first, t1 = run_in_threads([lambda: hub.execute(game["id"], GM, move(token, 6, 1))])
    held.wait_for(1)
    second, t2 = run_in_threads([lambda: hub.execute(game["id"], GM, move(token, 6, 1))])  # already there, then
    held.wait_for(2)
    held.release()
    for t in t1 + t2:
        t.join(5)
    assert first[0].seq == hub.game(game["id"]).seq
    assert isinstance(second[0], Rejected) and "already at G2" in str(second[0])


def test_a_refused_command_in_a_batch_does_not_hold_up_the_others(app, hub, game):
    before = hub.game(game["id"]).seq
    held = HeldGame(hub, game["id"])
    threads, results = [], []
    for i, payload in enumerate([move(game["tokens"][0], 7, 1), move("no-such-token", 1, 1),
                                 move(game["tokens"][1], 7, 3)]):
        r, t = run_in_threads([lambda payload=payload: hub.execute(game["id"], GM, payload)])
        results.append(r)
        threads += t
        held.wait_for(i + 1)
    held.release()
    for t in threads:
        t.join(5)
    ok1, refused, ok2 = (r[0] for r in results)
    assert isinstance(refused, Rejected) and "no token" in str(refused)
    assert (ok1.seq, ok2.seq) == (before + 1, before + 2)
    assert hub.store.last_seq(game["id"]) == before + 2


def test_a_batch_that_cannot_be_written_is_refused_whole_and_shown_to_nobody(app, hub, game, monkeypatch):
    screen = connect(app, game["id"], game["screen_token"])
    screen.get_received()
    before = hub.game(game["id"]).seq
    where = {t.id: (t.x, t.y) for t in hub.game(game["id"]).tokens.values()}

    def full_disk(store, game_id, last_seq, events, *applied):
        raise WriteFailed("the server's disk is full: nothing was stored")

    monkeypatch.setattr(Store, "_append", full_disk)
    held = HeldGame(hub, game["id"])
    threads, results = [], []
    for i in range(3):
        r, t = run_in_threads([lambda i=i: hub.execute(game["id"], GM, move(game["tokens"][i], 8, 1 + 2 * i))])
        results.append(r)
        threads += t
        held.wait_for(i + 1)
    held.release()
    for t in threads:
        t.join(5)
    for r in results:
        assert isinstance(r[0], Rejected) and r[0].code == "not_stored", r
    # no change is announced: only a fresh copy of what the log holds (a page rendered meanwhile drops
    # what it may have shown of the batch), with the log's seq
    updates = [m["args"][0] for m in screen.get_received() if m["name"] == "update"]
    assert [(u["from_seq"], u["seq"]) for u in updates] == [(None, before)]
    assert 'data-x="8"' not in updates[0]["html"]
    assert f'data-token-id="{game["tokens"][0]}" data-x="1" data-y="1"' in updates[0]["html"]
    monkeypatch.undo()
    game_now = hub.game(game["id"])
    assert game_now.seq == before == hub.store.last_seq(game["id"])  # memory never ran ahead of the log
    assert {t.id: (t.x, t.y) for t in game_now.tokens.values()} == where
    assert hub.execute(game["id"], GM, move(game["tokens"][0], 8, 1)).seq == before + 1  # and it goes on


def test_undo_after_queued_moves_sees_them_stored(app, hub, game):
    """Undo reads the log: it runs in a batch of its own, after the moves queued before it are stored."""
    token = game["tokens"][0]
    held = HeldGame(hub, game["id"])
    r1, t1 = run_in_threads([lambda: hub.execute(game["id"], GM, move(token, 9, 1))])
    held.wait_for(1)
    r2, t2 = run_in_threads([lambda: hub.execute(game["id"], GM, {"type": "undo"})])
    held.wait_for(2)
    held.release()
    for t in t1 + t2:
        t.join(5)
    assert r1[0].seq + 1 == r2[0].seq
    assert r2[0].events[0].data["seq"] == r1[0].seq  # it undid the move queued before it
    assert (hub.game(game["id"]).tokens[token].x, hub.game(game["id"]).tokens[token].y) == (1, 1)


# --- a lane's commands in flight -------------------------------------------------------------------


class Recorder:
    def __init__(self):
        self.ran: list[str] = []
        self.answers: dict[str, dict] = {}
        self.gates: dict[str, threading.Event] = {}
        self.workers: list[threading.Thread] = []
        self.lane: Lane | None = None  # the lane its jobs run in (they ask it for their ``Sending``)

    def start(self, work):
        t = threading.Thread(target=work)
        self.workers.append(t)
        t.start()

    def job(self, event: str, name: str, queue: bool = True) -> Job:
        """A command that joins its game's queue (calls its lane's ``Sending.queued``, as Committing.commit does),
        then waits for its gate; with ``queue=False`` it waits without having queued."""
        gate = self.gates[name] = threading.Event()

        def run():
            self.ran.append(name)
            queued = self.lane.sending().queued
            if queue and queued is not None:
                queued()
            gate.wait(5)
            self.answers[name] = {"ok": True}

        return Job(event, run, lambda reply: self.answers.__setitem__(name, reply), time.monotonic())

    def settle(self):
        time.sleep(0.1)

    def finish(self):
        for gate in self.gates.values():
            gate.set()
        for t in list(self.workers):
            t.join(5)


def test_a_command_that_joined_its_games_queue_lets_the_next_one_start():
    rec = Recorder()
    lane = rec.lane = Lane(rec.start)
    for name in ("c0", "c1", "c2"):
        lane.offer(rec.job("command", name))
    rec.settle()
    assert rec.ran == ["c0", "c1", "c2"]  # all three wait for their commit together, in the order sent
    rec.finish()
    assert set(rec.answers) == {"c0", "c1", "c2"}


def test_a_command_that_has_not_queued_holds_the_next_one_back():
    rec = Recorder()
    lane = rec.lane = Lane(rec.start)
    lane.offer(rec.job("command", "c0", queue=False))
    lane.offer(rec.job("command", "c1"))
    rec.settle()
    assert rec.ran == ["c0"]
    rec.gates["c0"].set()
    rec.settle()
    assert rec.ran == ["c0", "c1"]
    rec.finish()


def test_a_preview_waits_until_the_commands_before_it_are_answered():
    rec = Recorder()
    lane = rec.lane = Lane(rec.start)
    lane.offer(rec.job("command", "c0"))
    lane.offer(rec.job("preview", "p0", queue=False))
    rec.gates["p0"].set()
    rec.settle()
    assert rec.ran == ["c0"]
    rec.gates["c0"].set()
    rec.settle()
    assert rec.ran == ["c0", "p0"]
    rec.finish()


def test_at_most_in_flight_commands_of_one_connection_wait_for_a_commit():
    rec = Recorder()
    lane = rec.lane = Lane(rec.start)
    names = [f"c{i}" for i in range(lanes.IN_FLIGHT + 2)]
    for name in names:
        lane.offer(rec.job("command", name))
    rec.settle()
    assert rec.ran == names[: lanes.IN_FLIGHT]
    rec.gates["c0"].set()
    rec.settle()
    assert rec.ran == names[: lanes.IN_FLIGHT + 1]
    rec.finish()
    assert rec.ran == names


def test_a_lanes_commands_in_flight_share_one_commit_in_the_order_sent(app, hub, game, monkeypatch):
    """The two together: a lane whose commands call Hub.execute, with the game busy meanwhile."""
    appends = []
    real_append = Store._append  # the write itself (Store.append and Store.begin_append both run it)
    monkeypatch.setattr(Store, "_append", lambda store, g, last, events, *applied: appends.append(len(events))
                        or real_append(store, g, last, events, *applied))
    answers: dict[int, object] = {}
    started = []

    def command(i):
        def run():
            with app.app_context():
                answers[i] = hub.execute(game["id"], GM, move(game["tokens"][i], 10, 1 + 2 * i), lane.sending())
        return Job("command", run, lambda reply: answers.__setitem__(i, reply), time.monotonic())

    before = hub.game(game["id"]).seq
    held = HeldGame(hub, game["id"])
    lane = Lane(lambda work: started.append(threading.Thread(target=work)) or started[-1].start())
    for i in range(4):
        lane.offer(command(i))
    held.wait_for(4)  # all four queued for the game while it was busy: the lane did not wait for each answer
    held.release()
    deadline = time.monotonic() + 5
    while len(answers) < 4 and time.monotonic() < deadline:
        time.sleep(0.01)
    for t in started:
        t.join(5)
    assert appends == [4]
    assert [answers[i].seq for i in range(4)] == [before + 1, before + 2, before + 3, before + 4]


# --- what queues while a batch is being stored joins its update ------------------------------------


def queue_during_first_append(hub, game, monkeypatch, payload, fail_second: bool = False):
    """The first append of the game lets ``payload`` queue (another thread) before it returns; with
    ``fail_second`` every later append fails as a full disk does. Returns the appends, the order of
    events and the late command's result holder and thread."""
    appends, order = [], []
    late: dict = {}
    real_append = Store._append  # the write itself (Store.append and Store.begin_append both run it)

    def append(store, game_id, last_seq, events, *applied):
        if appends and fail_second:
            appends.append(("failed", len(events)))
            raise WriteFailed("the server's disk is full: nothing was stored")
        done = real_append(store, game_id, last_seq, events, *applied)
        appends.append((last_seq, len(events)))
        order.append("stored")
        if len(appends) == 1:  # meanwhile, another command arrives and queues
            def run():
                try:
                    late["result"] = hub.execute(game["id"], GM, payload)
                except Exception as exc:  # noqa: BLE001 - the test looks at it
                    late["result"] = exc
                order.append("late answered")
            late["thread"] = threading.Thread(target=run)
            late["thread"].start()
            deadline = time.monotonic() + 5
            while not hub.committing.waiting(game["id"]):
                assert time.monotonic() < deadline
                time.sleep(0.005)
        return done

    monkeypatch.setattr(Store, "_append", append)
    return appends, order, late


def test_a_command_that_queued_while_a_batch_was_stored_joins_its_one_update(app, hub, game, monkeypatch):
    screen = connect(app, game["id"], game["screen_token"])
    screen.get_received()
    before = hub.game(game["id"]).seq
    appends, order, late = queue_during_first_append(hub, game, monkeypatch, move(game["tokens"][1], 11, 3))
    first = hub.execute(game["id"], GM, move(game["tokens"][0], 11, 1))
    order.append("first answered")
    late["thread"].join(5)
    assert appends == [(before, 1), (before + 1, 1)]  # its own transaction, committed before any answer
    assert order[:2] == ["stored", "stored"] and sorted(order[2:]) == ["first answered", "late answered"]
    assert (first.seq, late["result"].seq) == (before + 1, before + 2)
    updates = [m["args"][0] for m in screen.get_received() if m["name"] == "update"]
    assert [(u["from_seq"], u["seq"]) for u in updates] == [(before, before + 2)]
    assert 'data-x="11"' in updates[0]["html"] and f'id="token-{game["tokens"][1]}"' in updates[0]["html"]
    assert before + 2 in rows_on_disk(app, game["id"])


def test_a_joining_command_that_cannot_be_stored_is_not_shown_and_goes_back_to_wait(app, hub, game, monkeypatch):
    screen = connect(app, game["id"], game["screen_token"])
    screen.get_received()
    before = hub.game(game["id"]).seq
    appends, order, late = queue_during_first_append(hub, game, monkeypatch, move(game["tokens"][1], 12, 3),
                                                     fail_second=True)
    first = hub.execute(game["id"], GM, move(game["tokens"][0], 12, 1))
    late["thread"].join(5)
    assert first.seq == before + 1
    # it went back to wait, was decided again on the log's state and refused when its own write failed
    assert appends == [(before, 1), ("failed", 1), ("failed", 1)]
    assert isinstance(late["result"], Rejected) and late["result"].code == "not_stored"
    updates = [m["args"][0] for m in screen.get_received() if m["name"] == "update"]
    assert [(u["from_seq"], u["seq"]) for u in updates] == [(before, before + 1), (None, before + 1)]
    assert f'id="token-{game["tokens"][1]}"' not in updates[0]["html"]  # the unstored move is shown to nobody
    # then a fresh copy of what the log holds
    assert f'data-token-id="{game["tokens"][1]}" data-x="1" data-y="3"' in updates[1]["html"]
    monkeypatch.undo()
    state = hub.game(game["id"])
    assert state.seq == before + 1 == hub.store.last_seq(game["id"])
    assert (state.tokens[game["tokens"][1]].x, state.tokens[game["tokens"][1]].y) == (1, 3)


def test_an_event_that_cannot_be_applied_refuses_its_command_stores_nothing_of_it_and_spares_the_rest(
        app, hub, game, monkeypatch):
    import webapp.live.committing as committing

    bad = game["tokens"][0]
    real_evolve = committing.evolve

    def evolve(state, event):
        if event.type == "token_moved" and event.data["token_id"] == bad:
            state.tokens[bad].x = 99  # half applied, then it breaks: this state must not be kept
            raise KeyError("a bug in evolve")
        return real_evolve(state, event)

    monkeypatch.setattr(committing, "evolve", evolve)
    before = hub.game(game["id"]).seq
    held = HeldGame(hub, game["id"])
    r1, t1 = run_in_threads([lambda: hub.execute(game["id"], GM, move(game["tokens"][1], 13, 3))])
    held.wait_for(1)
    r2, t2 = run_in_threads([lambda: hub.execute(game["id"], GM, move(bad, 13, 1))])
    held.wait_for(2)
    r3, t3 = run_in_threads([lambda: hub.execute(game["id"], GM, move(game["tokens"][2], 13, 5))])
    held.wait_for(3)
    held.release()
    for t in t1 + t2 + t3:
        t.join(5)
    assert isinstance(r2[0], KeyError)
    assert (r1[0].seq, r3[0].seq) == (before + 1, before + 2)
    stored = rows_on_disk(app, game["id"])
    assert max(stored) == before + 2 and all(bad not in stored[s] for s in (before + 1, before + 2))
    state = hub.game(game["id"])
    assert state.seq == before + 2 and (state.tokens[bad].x, state.tokens[bad].y) == (1, 1)
    assert (state.tokens[game["tokens"][2]].x, state.tokens[game["tokens"][2]].y) == (13, 5)
