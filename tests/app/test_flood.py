"""A connection's lane (webapp/live/server/lanes.py): order, a bounded backlog, coalesced previews and syncs.

The whole path, with a real server and real clients, is tests/e2e/test_flood.py."""

from __future__ import annotations

import threading
import time

import pytest

from webapp.live.server import lanes
from webapp.live.server.lanes import Job, Lane


class Recorder:
    def __init__(self):
        self.ran: list[str] = []
        self.answers: dict[str, dict] = {}
        self.gate = threading.Event()
        self.workers: list[threading.Thread] = []

    def start(self, work):
        t = threading.Thread(target=work)
        self.workers.append(t)
        t.start()

    def job(self, event: str, name: str, block: bool = False, arrived: float | None = None) -> Job:
        def run():
            if block:
                self.gate.wait(5)
            self.ran.append(name)
            self.answers[name] = {"ok": True}

        return Job(event, run, lambda reply: self.answers.__setitem__(name, reply),
                   time.monotonic() if arrived is None else arrived)

    def finish(self):
        self.gate.set()
        for t in self.workers:
            t.join(5)


def test_commands_run_in_the_order_sent_and_the_excess_is_refused_at_once():
    rec = Recorder()
    lane = Lane(rec.start)
    lane.offer(rec.job("command", "c0", block=True))  # the worker is busy with this one
    time.sleep(0.05)
    for i in range(1, lanes.MAX_COMMANDS + 5):
        lane.offer(rec.job("command", f"c{i}"))
    refused = [n for n, a in rec.answers.items() if not a["ok"]]
    assert len(refused) == 4  # answered before anything else ran
    assert all(rec.answers[n] == {"ok": False, "error": "too many commands at once; slow down", "code": "busy"}
               for n in refused)
    rec.finish()
    assert rec.ran == [f"c{i}" for i in range(lanes.MAX_COMMANDS + 1)]


def test_only_the_newest_preview_and_sync_wait():
    rec = Recorder()
    lane = Lane(rec.start)
    lane.offer(rec.job("command", "c0", block=True))
    time.sleep(0.05)
    for name in ("p1", "s1", "p2", "c1", "p3", "s2"):
        lane.offer(rec.job("preview" if name[0] == "p" else "sync" if name[0] == "s" else "command", name))
    assert rec.answers == {"p1": {"ok": True, "superseded": True}, "p2": {"ok": True, "superseded": True},
                           "s1": {"ok": True, "superseded": True}}
    rec.finish()
    assert rec.ran == ["c0", "c1", "p3", "s2"]


def test_a_command_that_waited_past_its_senders_patience_is_refused_not_run():
    rec = Recorder()
    lane = Lane(rec.start)
    lane.offer(rec.job("command", "old", arrived=time.monotonic() - lanes.STALE_AFTER - 1))
    rec.finish()
    assert rec.ran == [] and rec.answers["old"]["ok"] is False
    assert "too busy" in rec.answers["old"]["error"]


def test_a_closed_lane_drops_what_waits():
    rec = Recorder()
    lane = Lane(rec.start)
    lane.offer(rec.job("command", "c0", block=True))
    time.sleep(0.05)
    lane.offer(rec.job("command", "c1"))
    lane.close()
    lane.offer(rec.job("command", "c2"))
    rec.finish()
    assert rec.ran == ["c0"]


def test_a_command_with_two_arguments_or_none_gets_an_error(app):
    client = app.test_client()
    g = client.post("/api/games", json={"name": "Arity", "system": "plain_grid"}).json
    sio = app.extensions["tacmap_socketio"].test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    for args in [({"type": "roll", "expr": "d6"}, {"type": "roll", "expr": "d6"}), (), ("a", "b", "c")]:
        ack = sio.emit("command", *args, callback=True)
        assert ack == {"ok": False, "error": 'command takes one JSON object: {"type": ..., ...}'}, args
    assert sio.emit("preview", 1, 2, callback=True)["ok"] is False
    assert sio.emit("sync", 1, 2, callback=True)["ok"] is False
    assert sio.emit("sync", callback=True) == {"ok": True}
    assert sio.emit("command", {"type": "roll", "expr": "d6"}, callback=True)["ok"] is True


def test_a_command_whose_sender_gave_up_while_it_waited_for_the_game_is_not_done(app, hub):
    import time as clock

    from webapp.live.committing import Sending
    from webapp.game.core.model import GM, Rejected

    g = app.test_client().post("/api/games", json={"name": "Late", "system": "plain_grid"}).json
    seq = hub.game(g["id"]).seq
    with pytest.raises(Rejected, match="too busy to do that in time"):
        hub.execute(g["id"], GM, {"type": "roll", "expr": "d6"}, Sending(gives_up=clock.monotonic() - 0.1))
    assert hub.game(g["id"]).seq == seq == hub.store.last_seq(g["id"])
    assert hub.execute(g["id"], GM, {"type": "roll", "expr": "d6"}).seq == seq + 1
