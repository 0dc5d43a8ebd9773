"""The replay's checkpoints of a game that was not played here (#36): ``tacmap import`` folds the imported game's
log and keeps its checkpoints in the data folder, so a server's first jump into it folds at most a checkpoint's
worth of events; a room's table copied from its template is folded in the background, and a jump that comes
before that fold is done is still the game as it was; at the server's start the long games with no kept fold (an
earlier version's) are folded in the background, and those kept already are left alone."""

from __future__ import annotations

import time

from tests.helpers import bearer, new_game
from webapp import create_app
from webapp.cli import main as tacmap
from webapp.game.views import replay_view
from webapp.live import replaying
from webapp.storage import history as kept_folds
from webapp.web.room.room import setup_link


def new_app(folder):
    return create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False})


def played(app, moves: int = 240) -> dict:
    """A game of a token that walks and another hidden (a fogged board), its log ``moves`` + a few events long."""
    c = app.test_client()
    g = new_game(c, "plain_grid", name="Imported")
    gm = bearer(g["gm_token"])
    aria = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1}, headers=gm).json["id"]
    c.post(f"/api/games/{g['id']}/tokens", json={"name": "Lurker", "x": 8, "y": 8, "hidden": True}, headers=gm)
    c.post(f"/api/games/{g['id']}/commands", json={"type": "set_fog", "enabled": True}, headers=gm)
    for i in range(moves):
        r = c.post(f"/api/games/{g['id']}/commands", json={"type": "move_token", "token_id": aria,
                                                              "x": 2 + i % 7, "y": 1 + i % 3}, headers=gm)
        assert r.status_code == 200, r.json
    return g


def folded_from_the_log(hub, game_id, at):
    """The state after ``at`` folded from the first event, with no checkpoint (the reference)."""
    return kept_folds.game_at(game_id, hub.store.events(game_id), at).to_dict()


def wait_for(check, app, timeout=30):
    sio = app.extensions["tacmap_socketio"]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = check()
        if found:
            return found
        sio.sleep(0.05)  # the background task's turn (a greenlet, as under `tacmap serve`)
    raise AssertionError("not done in time")


def test_tacmap_import_keeps_the_checkpoints_and_the_first_jump_is_the_game_then(tmp_path):
    there, here = tmp_path / "there", tmp_path / "here"
    first = new_app(there)
    g = played(first)
    head = first.extensions["tacmap"].store.last_seq(g["id"])
    assert head > 4 * replay_view.CHECKPOINT_EVERY
    game_file = tmp_path / "game.tacmap"
    assert tacmap(["export", g["id"], str(game_file), "--data-dir", str(there)]) == 0
    assert tacmap(["import", str(game_file), "--data-dir", str(here)]) == 0

    kept = kept_folds.load_checkpoints(here, g["id"])
    assert kept is not None, "the import kept no checkpoint"
    assert kept["seq"] == head // replay_view.CHECKPOINT_EVERY * replay_view.CHECKPOINT_EVERY
    assert [s for s, _e in kept["events"]] == list(range(replay_view.CHECKPOINT_EVERY, kept["seq"] + 1,
                                                         replay_view.CHECKPOINT_EVERY))
    assert kept_folds.load_checkpoint_state(here, g["id"], kept["seq"])["seq"] == kept["seq"]

    # a server on that folder: its first jump starts from the kept checkpoints, not from the first event
    app = new_app(here)
    hub = app.extensions["tacmap"]
    c = app.test_client()
    # the recap first: it reads the whole log (kept parsed), and leaves the kept fold for the jump to take
    assert c.get(f"/games/{g['id']}/recap", headers=bearer(g["gm_token"])).status_code == 200
    assert hub.replays.history(g["id"], restore=False).folded == 0
    found = hub.replays.history(g["id"])
    assert found.folded == kept["seq"], "the first jump would fold the whole log"
    for at in (head - 3, kept["seq"] - 1, 7):
        r = c.post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": at, "on": ["gm", "screen"]},
                   headers=bearer(g["gm_token"]))
        assert r.status_code == 200, r.json
        assert r.json["replay"]["at"] == at and r.json["replay"]["head"] == head
        assert found.state_at(at).to_dict() == folded_from_the_log(hub, g["id"], at)
    # the same moment, with the same banner, as on the server the game was played on
    theirs = first.test_client().post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": head - 3},
                                      headers=bearer(g["gm_token"])).json
    ours = c.post(f"/api/games/{g['id']}/commands", json={"type": "replay", "at": head - 3},
                  headers=bearer(g["gm_token"])).json
    assert ours["replay"] == theirs["replay"]
    assert hub.store.last_seq(g["id"]) == head, "a replay stores nothing"


def test_a_rooms_tables_are_folded_in_the_background_and_a_jump_before_that_is_the_game_then(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "WARM_FROM", 100)  # a log of ~250 events is folded ahead too
    folder = tmp_path / "data"
    app = create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False, "ROOM": True})
    hub = app.extensions["tacmap"]
    template = played(app)
    head = hub.store.last_seq(template["id"])
    link = setup_link(app, "http://localhost")
    room = app.test_client()
    token = link.split("token=")[1]
    assert room.post("/room/setup", data={"token": token, "password": "lantern-42",
                                          "confirm": "lantern-42"}).status_code == 302
    r = room.post("/room/tables", data={"template": template["id"], "count": "2", "prefix": "Table"})
    assert r.status_code == 302
    tables = [t["current_game"] for t in hub.store.room_tables()]
    assert len(tables) == 2 and template["id"] not in tables
    c = app.test_client()
    for copy in tables:
        assert hub.store.last_seq(copy) == head
        # a jump right away, before the background fold had its turn: the game as it was then
        at = head - 5
        r = c.post(f"/api/games/{copy}/commands", json={"type": "replay", "at": at},
                   headers=bearer(hub.store.game(copy).gm_key))
        assert r.status_code == 200, r.json
        assert hub.replays.history(copy).state_at(at).to_dict() == folded_from_the_log(hub, copy, at)
    for copy in tables:
        kept = wait_for(lambda copy=copy: kept_folds.load_checkpoints(folder, copy), app)
        assert kept["game_id"] == copy
        assert kept["seq"] == head // replay_view.CHECKPOINT_EVERY * replay_view.CHECKPOINT_EVERY
        # the copy's checkpoints are its own: a server started again takes them, and jumps to the same moment
        again = new_app(folder)
        assert again.extensions["tacmap"].replays.history(copy).folded == kept["seq"]
        at = head - 5
        state = again.extensions["tacmap"].replays.history(copy).state_at(at).to_dict()
        assert state == folded_from_the_log(hub, copy, at)
    assert hub.store.last_seq(template["id"]) == head


def test_at_the_start_long_games_with_no_kept_fold_are_folded_in_the_background(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "WARM_FROM", 100)
    monkeypatch.setattr(replaying, "FOLD_OLD_AFTER", 0.1)
    # games played before the checkpoints were written as played: none kept
    monkeypatch.setattr(replaying.Replays, "played", lambda self, game, before: None)
    first = new_app(tmp_path)
    old = played(first)
    short = played(first, moves=20)  # under WARM_FROM: folded in a moment when a jump asks
    head = first.extensions["tacmap"].store.last_seq(old["id"])
    assert kept_folds.load_checkpoints(tmp_path, old["id"]) is None

    app = new_app(tmp_path)  # the server starts again
    hub = app.extensions["tacmap"]
    hub.replays.fold_old()
    kept = wait_for(lambda: kept_folds.load_checkpoints(tmp_path, old["id"]), app)
    assert kept["seq"] == head // replay_view.CHECKPOINT_EVERY * replay_view.CHECKPOINT_EVERY
    wait_for(lambda: not hub.replays._warming, app)
    assert kept_folds.load_checkpoints(tmp_path, short["id"]) is None
    at = head - 2
    assert hub.replays.history(old["id"]).state_at(at).to_dict() == folded_from_the_log(hub, old["id"], at)

    # started again: the kept fold is taken, not folded anew (its files are not written again)
    index = tmp_path / kept_folds.CHECKPOINTS_DIR / old["id"] / "index.json"
    written = index.stat().st_mtime_ns
    third = new_app(tmp_path)
    third.extensions["tacmap"].replays.fold_old()
    sio = third.extensions["tacmap_socketio"]
    for _ in range(20):
        sio.sleep(0.05)
    assert not third.extensions["tacmap"].replays._histories, "a game with its fold kept was folded again"
    assert index.stat().st_mtime_ns == written
