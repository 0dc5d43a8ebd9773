"""A jump's restore and fold run with Python's cycle collector held off (``store.collector_paused``): restoring a
kept fold makes thousands of timeline lines again, none in a cycle, and with the collector on its full
collections walked the whole heap in the middle of a first jump (a server started again: 190 of 290 ms on the
5,000-event bench game). Afterwards the collector is on again, also when the jump is refused."""

from __future__ import annotations

import gc
import threading

import pytest

from webapp import create_app
from webapp.game.views import replay_view
from webapp.game.core.model import GM, Rejected


@pytest.fixture
def hub(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path), "TESTING": True, "SECRET_KEY": "test", "DEMO": False})
    return app.extensions["tacmap"]


def played(hub) -> str:
    game = hub.create_game("Jumped", "plain_grid")
    hub.execute(game.id, GM, {"type": "add_token", "name": "Aria", "x": 1, "y": 1})
    token_id = next(iter(hub.game(game.id).tokens))
    for i in range(12):
        hub.execute(game.id, GM, {"type": "move_token", "token_id": token_id, "x": 2 + i % 2, "y": 1, "force": True})
    return game.id


def test_a_jump_folds_and_restores_with_the_collector_held_off_and_on_again_after(hub, monkeypatch):
    gid = played(hub)
    seen = []
    jumper = threading.get_ident()
    for name in ("fold_to", "state_at", "restore"):
        real = getattr(replay_view.History, name)

        def spy(self, *args, _real=real, _name=name, **kwargs):
            if threading.get_ident() == jumper:  # the jump's own work (a GM's page folds ahead in the background)
                seen.append((_name, gc.isenabled()))
            return _real(self, *args, **kwargs)

        monkeypatch.setattr(replay_view.History, name, spy)
    assert gc.isenabled()
    hub.execute(gid, GM, {"type": "replay", "at": 5, "on": ["gm"]})
    assert {name for name, _on in seen} >= {"fold_to", "state_at"}
    assert all(on is False for _name, on in seen), seen
    assert gc.isenabled()


def test_a_refused_jump_leaves_the_collector_on(hub):
    gid = played(hub)
    with pytest.raises(Rejected):
        hub.execute(gid, GM, {"type": "replay", "at": 10_000, "on": ["gm"]})
    assert gc.isenabled()
