"""A room's table copied from its template (#36, room mode) takes the template's kept replay fold, its checkpoints
under the copy's id, instead of folding the copied log again: right after the tables are made, each has its kept
fold, each checkpoint the copy's log folded up to it, and its first jump starts from them."""

from __future__ import annotations

import json
import time

from tests.helpers import bearer
from webapp import create_app
from webapp.live import replaying
from webapp.storage import history as kept_folds
from webapp.web.room.room import setup_link

from test_replay_import_checkpoints import played


def plain(x):
    return json.loads(json.dumps(x))


def test_a_rooms_tables_take_their_templates_kept_fold(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "WARM_FROM", 100)  # a log of ~230 events is folded ahead too
    folder = tmp_path / "data"
    app = create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False, "ROOM": True})
    hub = app.extensions["tacmap"]
    c = app.test_client()
    g = played(app, moves=230)  # a token that walks on a fogged board, another hidden
    head = hub.store.last_seq(g["id"])
    # the template's fold, kept as it was played (its live checkpoints, in the background)
    sio = app.extensions["tacmap_socketio"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        template_kept = kept_folds.load_checkpoints(folder, g["id"])
        if template_kept and template_kept["seq"] == head // replaying.LIVE_EVERY * replaying.LIVE_EVERY:
            break
        sio.sleep(0.05)
    assert template_kept and template_kept["seq"] >= 2 * replaying.LIVE_EVERY

    folds = []  # every fold of a copy from the first event would pass here
    fold = replaying.Replays.folded
    monkeypatch.setattr(replaying.Replays, "folded", lambda self, game_id, upto=None, rest=0: (
        folds.append((game_id, self.history(game_id).folded)), fold(self, game_id, upto, rest))[1])
    room = app.test_client()
    token = setup_link(app, "http://localhost").split("token=")[1]
    assert room.post("/room/setup", data={"token": token, "password": "lantern-42",
                                          "confirm": "lantern-42"}).status_code == 302
    assert room.post("/room/tables", data={"template": g["id"], "count": "2", "prefix": "Table"}).status_code == 302
    tables = [t["current_game"] for t in hub.store.room_tables()]
    assert len(tables) == 2 and g["id"] not in tables
    for copy in tables:
        kept = kept_folds.load_checkpoints(folder, copy)  # there at once: copied, not folded
        assert kept is not None and kept["game_id"] == copy and kept["seq"] == template_kept["seq"]
        assert kept["moments"] == template_kept["moments"]
        events = hub.store.events(copy)
        for seq, _event in kept["events"]:
            assert kept_folds.load_checkpoint_state(folder, copy, seq) == plain(
                kept_folds.game_at(copy, events, seq).to_dict()), seq
    for _ in range(20):
        sio.sleep(0.05)  # the fold ahead's turn: it folds only what the kept fold lacks
    for copy in tables:
        theirs = [start for game_id, start in folds if game_id == copy]
        assert theirs and all(start == template_kept["seq"] for start in theirs), folds
        found = hub.replays.history(copy)
        assert found.folded == head
        at = head - 3
        r = c.post(f"/api/games/{copy}/commands", json={"type": "replay", "at": at},
                   headers=bearer(hub.store.game(copy).gm_key))
        assert r.status_code == 200, r.json
        assert plain(found.state_at(at).to_dict()) == plain(kept_folds.game_at(copy, hub.store.events(copy), at).to_dict())
    assert kept_folds.load_checkpoints(folder, g["id"]) == template_kept  # the template's own is left as it was
