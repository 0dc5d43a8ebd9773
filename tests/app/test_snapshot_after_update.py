"""The snapshot the hub writes every ``SNAPSHOT_EVERY`` events (a shortcut for loading a game) is written once every
screen of the table has been sent the update of the move that crossed the multiple, the GM's included: on a big map
it costs a few milliseconds (the state made a dict, then JSON), and no screen waits for it. It is still the state
at its seq: a game loaded from it is the game the log gives."""

from __future__ import annotations

import json

import pytest

from tests.helpers import connect, join
from webapp import create_app
from webapp.game.table import replay
from webapp.live import committing
from webapp.live.server import throttle


EVERY = 4


@pytest.fixture
def table(tmp_path, monkeypatch):
    monkeypatch.setattr(committing, "SNAPSHOT_EVERY", EVERY)
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    hub = app.extensions["tacmap"]
    hub.seats = throttle.Seats(rate=1000.0, burst=1000)
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Snap", "map": {"width": 10, "height": 6}}).json
    p = join(c, g, "Mira")
    tid = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Cat", "x": 1, "y": 1, "kind": "npc"},
                 headers={"Authorization": f"Bearer {g['gm_token']}"}).json["id"]
    clients = [connect(app, g["id"], key) for key in (g["gm_token"], g["screen_token"], p["player_token"])]
    for client in clients:
        assert client.is_connected()
        client.get_received()
    return hub, g["id"], tid, clients


def test_the_snapshot_is_written_after_every_screen_was_sent_its_update(table, monkeypatch):
    hub, game_id, tid, (gm, screen, seat) = table
    said: list[tuple] = []  # in the order it happened: each update sent (its rooms, its seq) and each snapshot
    emit, save = hub.socketio.emit, hub.store.save_snapshot

    def emitted(event, data=None, *args, **kwargs):
        if event == "update":
            to = kwargs.get("to")
            said.append(("update", tuple(to) if isinstance(to, list) else (to,), data["seq"]))
        return emit(event, data, *args, **kwargs)

    def saved(gid, seq, state):
        said.append(("snapshot", seq, json.loads(json.dumps(state))))
        return save(gid, seq, state)

    monkeypatch.setattr(hub.socketio, "emit", emitted)
    monkeypatch.setattr(hub.store, "save_snapshot", saved)
    for i in range(3 * EVERY):  # three snapshots' worth of moves, one event each (after the game's first events)
        ack = gm.emit("command", {"type": "move_token", "token_id": tid, "x": 2 + i % 2, "y": 1}, callback=True)
        assert ack["ok"], ack
    snapshots = [(i, row) for i, row in enumerate(said) if row[0] == "snapshot"]
    assert [row[1] for _i, row in snapshots] == [EVERY, 2 * EVERY, 3 * EVERY]
    events = hub.store.events(game_id)
    for at, (_kind, seq, state) in snapshots:
        sent = {room.split(":", 2)[-1].partition("|")[0] for kind, rooms, s in said[:at] if kind == "update" and s == seq
                for room in rooms}
        assert {"gm", "screen"} <= sent and any(a.startswith("player") for a in sent), (seq, said[:at])
        assert state == json.loads(json.dumps(replay(game_id, events[:seq]).to_dict()))  # the state at its seq
    for client in (gm, screen, seat):  # and each screen did hear every move
        assert [m["args"][0]["seq"] for m in client.get_received() if m["name"] == "update"][-1] == len(events)
