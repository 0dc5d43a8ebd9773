"""With several processes on one data folder (Redis, #36): the old games (long logs, no replay fold kept) are folded
at the start by one process, the one that claims each; the others take its kept fold. When the claimer died before
keeping it (its claim lapsed, nothing kept), another process folds the game."""

from __future__ import annotations

from webapp import create_app
from webapp.live import replaying
from webapp.storage import history as kept_folds

from test_replay_import_checkpoints import played, wait_for
from test_shared_presence import REDIS, redis_server, redis_url  # noqa: F401  (fixtures: a real redis-server)

import pytest

pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed (scripts/test installs it)")


def process(folder, url):
    return create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False,
                       "MESSAGE_QUEUE": url})


@pytest.fixture
def old_game(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "WARM_FROM", 100)
    monkeypatch.setattr(replaying, "FOLD_OLD_AFTER", 0.1)
    # a game played before the checkpoints were written as played: none kept
    monkeypatch.setattr(replaying.Replays, "played", lambda self, game, before: None)
    g = played(create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "SECRET_KEY": "test", "DEMO": False}))
    assert kept_folds.load_checkpoints(tmp_path, g["id"]) is None
    folds = []  # (process, game) of every fold at the start
    warm = replaying.Replays._warm
    monkeypatch.setattr(replaying.Replays, "_warm", lambda self, game_id: (folds.append((id(self), game_id)),
                                                                         warm(self, game_id))[1])
    return tmp_path, g, folds


@pytest.mark.long
def test_one_process_folds_an_old_game_and_the_others_take_its_fold(old_game, redis_url, monkeypatch):  # noqa: F811
    folder, g, folds = old_game
    old = replaying.Replays._old

    def looked(self, game_id):  # each process finds the game old before any has folded it (as processes run at once)
        found = old(self, game_id)
        self.hub.socketio.sleep(0.3)
        return found

    monkeypatch.setattr(replaying.Replays, "_old", looked)
    apps = [process(folder, redis_url) for _ in range(3)]
    for app in apps:
        app.extensions["tacmap"].replays.fold_old()
    kept = wait_for(lambda: kept_folds.load_checkpoints(folder, g["id"]), apps[0])
    for app in apps:
        sio = app.extensions["tacmap_socketio"]
        for _ in range(10):
            sio.sleep(0.05)  # every process's start task had its turn
    assert [game for _p, game in folds] == [g["id"]], folds  # one fold, by one process
    head = apps[0].extensions["tacmap"].store.last_seq(g["id"])
    assert kept["seq"] == head // 50 * 50
    for app in apps:  # the claimer folded the log to its head; each other takes the kept fold
        replays = app.extensions["tacmap"].replays
        assert replays.history(g["id"]).folded == (head if id(replays) == folds[0][0] else kept["seq"])


def test_when_the_claimer_died_another_process_folds_the_game(old_game, redis_url, monkeypatch):  # noqa: F811
    folder, g, folds = old_game
    monkeypatch.setattr(replaying, "FOLD_CLAIM", 1)
    app = process(folder, redis_url)
    replays = app.extensions["tacmap"].replays
    assert replays._claim_fold(g["id"])  # a process claimed the game, then died before folding it
    replays.fold_old()
    sio = app.extensions["tacmap_socketio"]
    for _ in range(10):
        sio.sleep(0.05)
    assert folds == [] and kept_folds.load_checkpoints(folder, g["id"]) is None  # claimed: not folded here yet
    kept = wait_for(lambda: kept_folds.load_checkpoints(folder, g["id"]), app)  # the claim lapsed: folded here
    assert [game for _p, game in folds] == [g["id"]] and kept["game_id"] == g["id"]
