"""Several processes (#37): each knows the languages every process's connections read, so an update is drawn
once per audience and language read somewhere, not in every language there is."""

from __future__ import annotations

import json
import time

from webapp.live.server import shared

from test_shared_presence import redis_server, redis_url  # noqa: F401  (fixtures)


def test_the_languages_of_every_process_are_known(redis_url):  # noqa: F811
    a = shared.Shared(shared.connect(redis_url))
    b = shared.Shared(shared.connect(redis_url))
    try:
        a.opened("sid-1", "g1", "player:p1", "de")
        b.opened("sid-2", "g1", "player:p1", "es")
        b.opened("sid-3", "g1", "gm", "en")
        # a connection written by a process from before #37 has no language: it reads English
        old = json.dumps(["sid-4", "old-process", "screen", time.time()])
        a.redis.zadd(a._key("g1"), {old: time.time() + 60})
        assert a.languages("g1") == {"player:p1": {"de", "es"}, "gm": {"en"}, "screen": {"en"}}
        assert {s[0] for s in a.sessions("g1")} == {"sid-1", "sid-2", "sid-3", "sid-4"}
        assert a.audiences("g1")["player:p1"] == 2
        b.closed("sid-2")
        assert a.languages("g1")["player:p1"] == {"de"}
    finally:
        a.close()
        b.close()


def test_one_update_reads_the_shared_connections_once(app, client, demo, redis_url, monkeypatch):  # noqa: F811
    """Who is online and the languages to draw in come from one read of Redis per update (a read per part of
    it, the others' and the GM's drawn after, was four round trips on every command), and the update is still
    drawn in the language a connection on another process reads."""
    from webapp.game.core.model import GM
    from webapp.live.presence import language_room

    hub = app.extensions["tacmap"]
    here = shared.Shared(shared.connect(redis_url))
    there = shared.Shared(shared.connect(redis_url))
    joined = client.post(f"/api/games/{demo.id}/players", json={"join_code": demo.join_code, "name": "Ana"})
    assert joined.status_code == 201, joined.get_json()
    game = hub.game(demo.id)
    player = next(iter(game.players))
    token = next(iter(game.tokens.values()))
    reads, rooms = [], []
    real_members = here._members
    monkeypatch.setattr(here, "_members", lambda game_id: reads.append(game_id) or real_members(game_id))
    monkeypatch.setattr(hub.socketio, "emit", lambda event, data, to=None, **kw: rooms.extend(
        [to] if isinstance(to, str) else to or []) if event == "update" else None)
    before = hub.shared
    hub.shared = here
    try:
        there.opened("far-phone", demo.id, f"player:{player}", "de")
        with app.test_request_context():
            hub.execute(demo.id, GM, {"type": "move_token", "token_id": token.id, "x": token.x + 1, "y": token.y})
    finally:
        hub.shared = before
        here.close()
        there.close()
    assert reads == [demo.id]
    assert language_room(demo.id, f"player:{player}", "de") in rooms
