"""The replay's fold is kept on disk (#36): a GM page's connection folds the log ahead in the background and
keeps its checkpoints in the data folder; a server started again on that folder takes them instead of folding
the whole log, and its replay shows the same moment with the same banner."""

from __future__ import annotations

import time

from tests.helpers import bearer
from webapp import create_app
from webapp.game.views import replay_view
from webapp.live import replaying
from webapp.storage import history as kept_folds


def new_app(folder):
    return create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False})


def test_a_gm_connection_folds_ahead_and_a_restarted_server_takes_the_kept_fold(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "WARM_FROM", 100)  # a log of 132 events is folded ahead too
    # a game played before the checkpoints were written as played (test_replay_live_checkpoints.py): none kept
    monkeypatch.setattr(replaying.Replays, "played", lambda self, game, before: None)
    app = new_app(tmp_path)
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Kept", "system": "plain_grid"}).json
    gm = bearer(g["gm_token"])
    aria = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1}, headers=gm).json["id"]
    for i in range(130):
        r = c.post(f"/api/games/{g['id']}/commands", json={"type": "move_token", "token_id": aria,
                                                              "x": 2 + i % 5, "y": 1}, headers=gm)
        assert r.status_code == 200, r.json
    hub = app.extensions["tacmap"]
    head = hub.store.last_seq(g["id"])
    assert head > 2 * replay_view.CHECKPOINT_EVERY
    assert kept_folds.load_checkpoints(tmp_path, g["id"]) is None

    # the GM's page connects: the log is folded ahead and kept, with no replay asked
    sio = app.extensions["tacmap_socketio"]
    gm_page = sio.test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    deadline = time.monotonic() + 20
    while kept_folds.load_checkpoints(tmp_path, g["id"]) is None and time.monotonic() < deadline:
        sio.sleep(0.05)  # the background task's turn (a greenlet, as under `tacmap serve`)
    kept = kept_folds.load_checkpoints(tmp_path, g["id"])
    assert kept is not None and kept["seq"] == head // replay_view.CHECKPOINT_EVERY * replay_view.CHECKPOINT_EVERY
    assert kept_folds.load_checkpoint_state(tmp_path, g["id"], kept["seq"])["seq"] == kept["seq"]
    assert hub.replays.history(g["id"]).folded == head

    # the game goes on while the GM is at the table: the fold follows it (``follow_once``, every 20 s), and keeps it
    for i in range(60):
        c.post(f"/api/games/{g['id']}/commands", json={"type": "move_token", "token_id": aria, "x": 2 + i % 5, "y": 2},
               headers=gm)
    head = hub.store.last_seq(g["id"])
    hub.replays.follow_once()
    deadline = time.monotonic() + 20
    while kept_folds.load_checkpoints(tmp_path, g["id"])["seq"] == kept["seq"] and time.monotonic() < deadline:
        sio.sleep(0.05)
    assert hub.replays.history(g["id"]).folded == head
    kept = kept_folds.load_checkpoints(tmp_path, g["id"])
    assert kept["seq"] == head // replay_view.CHECKPOINT_EVERY * replay_view.CHECKPOINT_EVERY
    at = head - 7
    first = c.post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": at}, headers=gm).json
    c.post(f"/api/games/{g['id']}/commands", json={"type": "replay_end"}, headers=gm)

    # the server starts again on the same folder: the kept checkpoints, not a fold from the first event
    again = new_app(tmp_path)
    hub2 = again.extensions["tacmap"]
    found = hub2.replays.history(g["id"])
    assert found.folded == kept["seq"], "taken from the kept fold"
    second = again.test_client().post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": at},
                                      headers=gm).json
    assert second["replay"] == first["replay"]
    assert found.state_at(at).to_dict() == hub.replays.history(g["id"]).state_at(at).to_dict()
    assert hub2.store.last_seq(g["id"]) == head, "a replay stores nothing"
    gm_page.disconnect()
