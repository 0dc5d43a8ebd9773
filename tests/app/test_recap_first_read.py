"""The first recap since the server started (issue #36: a recap of a 5,000-event game under 1 s): the log read
with a bound and parsed with orjson (what the stdlib's json wrote, read back the same), and the players' explored
memory kept only after the events that can change it, the same memory and the same story as the fold's own.
"""

from __future__ import annotations

import math
import time

import pytest

from tests.helpers import bearer, join, new_game
from webapp.game.bridge import fog
from webapp.game.views import recap
from webapp.game.core.model import Event
from webapp.storage.history import walk
from webapp.storage.store import DamagedLog, GameRecord, Store

from test_recap_story import page, send

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")  # test_recap_story.py's app


def test_the_log_is_read_up_to_an_event_and_what_json_dumps_wrote_reads_back_the_same(backend, tmp_path):
    store = Store(backend or tmp_path / "data" / "tacmap.sqlite3")
    try:
        store.create_game(GameRecord("abcd1234", "Cellar", "plain_grid", "gm", "screen", "JOIN01", time.time()),
                          [Event("game_created", {"name": "Cellar", "system": "plain_grid"})])
        odd = {"nan": math.nan, "inf": -math.inf, "big": 2 ** 70, "text": "é <b> \u2028", "list": [1.5, None, True]}
        store.append("abcd1234", 1, [Event("note", {"n": n}) for n in range(2, 9)] + [Event("note", odd)], [])
        assert [e.data["n"] for e in store.events("abcd1234", after=2, before=5)] == [3, 4, 5]
        assert [e.data.get("n") for e in store.events("abcd1234", after=6, before=99)] == [7, 8, None]
        assert store.events("abcd1234", after=3, before=3) == []
        last = store.events("abcd1234", after=8)[0].data  # NaN, Infinity, 2**70: orjson refuses them, json reads them
        assert math.isnan(last["nan"]) and last["inf"] == -math.inf and last["big"] == 2 ** 70
        assert {k: v for k, v in last.items() if k != "nan"} == {k: v for k, v in odd.items() if k != "nan"}
        whole = store.events("abcd1234")
        assert len(whole) == 9 and [e.type for e in whole[1:]] == ["note"] * 8
    finally:
        store.close()


def test_an_event_that_is_no_json_still_names_where_the_log_breaks(tmp_path):
    store = Store(tmp_path / "tacmap.sqlite3")
    try:
        store.create_game(GameRecord("abcd1234", "Cellar", "plain_grid", "gm", "screen", "JOIN01", time.time()),
                          [Event("game_created", {"name": "Cellar", "system": "plain_grid"})])
        store.append("abcd1234", 1, [Event("note", {"n": 2})], [])
        with store._lock:
            store._db.execute("UPDATE events SET data = '{\"n\": ' WHERE seq = 2")
            store._db.commit()
        try:
            store.events("abcd1234")
        except DamagedLog as exc:
            assert exc.seq == 2 and "JSON" in str(exc)
        else:
            raise AssertionError("a damaged event was read")
    finally:
        store.close()


def roam(client, steps=36):
    """A fogged game where the player's hero walks around a wall while the foes move and attack: what the player
    saw grows at some events and not at others (an attack, a foe's move, a turn)."""
    walls = [{"a": [6, 0], "b": [6, 6]}, {"a": [0, 6], "b": [4, 6]}]
    g = new_game(client, "savage_worlds", {"width": 14, "height": 10, "walls": walls}, name="Roam")
    p = join(client, g, "Mira")
    ids = {}
    for name, x, y, extra in [("Hero", 1, 1, {"owner": p["player_id"], "kind": "pc"}), ("Bandit", 3, 2, {}),
                              ("Lurker", 10, 3, {}), ("Torch", 12, 8, {"hidden": True})]:
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, **extra},
                                headers=bearer(g["gm_token"])).json["id"]
    assert send(client, g, {"type": "set_fog", "enabled": True}).status_code == 200
    path = [(2, 1), (3, 1), (4, 1), (5, 2), (5, 4), (5, 6), (5, 7), (7, 8), (9, 8), (11, 7), (12, 5), (8, 4)]
    for fight in range(2):
        assert send(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
        for step in range(steps // 2):
            st = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
            cur = st["combat"]["current"]
            if step % 2 == 0:  # the hero walks on every other step, whoever's turn it is
                x, y = path[(fight * steps // 4 + step // 2) % len(path)]
                send(client, g, {"type": "move_token", "token_id": ids["Hero"], "x": x, "y": y, "force": True})
            if cur not in (None, ids["Hero"]):
                send(client, g, {"type": "move_token", "token_id": cur, "x": 2 + step % 9, "y": 8 - step % 4,
                                 "force": True})
                send(client, g, {"type": "attack", "attacker": cur, "target": ids["Hero"]})
            send(client, g, {"type": "next_turn"})
        if fight == 0:  # the GM lights the torch-bearer: a token not the player's changes what they see in the dark
            send(client, g, {"type": "update_token", "token_id": ids["Torch"], "hidden": False})
        assert send(client, g, {"type": "end_combat"}).status_code == 200
    return g, p, ids


def test_the_memory_kept_only_where_it_can_change_is_the_folds_own_at_every_event(app):  # noqa: F811
    from webapp.web.recap import build

    client = app.test_client()
    g, p, ids = roam(client)
    hub = app.extensions["tacmap"]
    events, times = hub.store.events(g["id"]), hub.store.event_times(g["id"])
    full = [{pid: frozenset(cells) for pid, cells in game.explored.items()} for _s, _e, game in walk(g["id"], events)]
    grew = sum(1 for a, b in zip(full, full[1:]) if a != b)
    assert 5 < grew < len(full) / 2, f"the memory grew at {grew} of {len(full)} events: the test could not tell"
    with fog.without_memory():
        kept = [{pid: frozenset(cells) for pid, cells in game.explored.items()}
                for _s, _e, game in recap.remembering(walk(g["id"], events))]
    assert kept == full
    with fog.without_memory():  # without it the memory stays empty: the comparison above can fail
        assert not any(game.explored for _s, _e, game in walk(g["id"], events))
    player = hub.replays._actor(f"player:{p['player_id']}")
    screen = hub.replays._actor("screen")
    for actor in (player, screen):
        told = build(hub, g["id"], actor)
        assert told == recap.story(walk(g["id"], events), times, actor)
        assert told["sessions"][0]["fights"][0]["end_picture"] != told["sessions"][0]["fights"][0]["start_picture"]
    assert "Hero" in page(client, g, p["player_token"]).data.decode()


def test_a_jump_into_the_log_of_a_server_started_again_reads_no_event_after_it(app):  # noqa: F811
    from webapp import create_app

    client = app.test_client()
    g, p, ids = roam(client)
    head = app.extensions["tacmap"].store.last_seq(g["id"])
    again = create_app({**app.config, "SECRET_KEY": "t"})
    found = again.extensions["tacmap"].replays.history(g["id"])
    at = head // 2
    found.state_at(at)
    assert found.events[:at].count(None) == 0
    assert found.events[at:].count(None) == head - at, "the log after the jump was read"


def test_the_recap_takes_the_times_read_with_the_log_and_reads_no_other(app, monkeypatch):  # noqa: F811
    client = app.test_client()
    g, p, ids = roam(client, steps=8)
    hub = app.extensions["tacmap"]
    head = hub.store.last_seq(g["id"])
    with hub.store._lock:  # the second half written five hours later: two sessions, told from the times read
        hub.store._db.execute("UPDATE events SET created_at = created_at + 18000 WHERE seq > ?", (head // 2,))
        hub.store._db.commit()
    asked = []
    times = hub.store.event_times
    monkeypatch.setattr(hub.store, "event_times", lambda game_id, after=0: asked.append(after) or times(game_id, after))
    hub.replays._histories.clear()
    first = page(client, g, g["gm_token"]).data.decode()
    assert first.count('class="session"') == 2 and asked == []
    assert send(client, g, {"type": "move_token", "token_id": ids["Hero"], "x": 2, "y": 2}).status_code == 200
    assert page(client, g, g["gm_token"]).data.decode().count('class="session"') == 2 and asked == []
    hub.replays.history(g["id"], restore=False).times.pop(head + 1)  # one the log took without its time
    assert page(client, g, g["gm_token"]).status_code == 200 and asked == [head]


def test_a_long_log_is_parsed_with_the_cycle_collector_held_off_and_left_on_after(tmp_path):
    import gc

    store = Store(tmp_path / "tacmap.sqlite3")
    try:
        store.create_game(GameRecord("abcd1234", "Cellar", "plain_grid", "gm", "screen", "JOIN01", time.time()),
                          [Event("game_created", {"name": "Cellar", "system": "plain_grid"})])
        bulky = {"state": {f"t{i}": {"drawn": ["QS", "2H"], "flags": {"a": 1, "b": [1, 2]}} for i in range(20)}}
        store.append("abcd1234", 1, [Event("note", bulky) for _ in range(1500)], [])
        runs = []
        collect = lambda phase, info: phase == "start" and runs.append(info["generation"])  # noqa: E731
        gc.callbacks.append(collect)
        try:
            assert gc.isenabled()
            read = store.events("abcd1234")
            during = len(runs)  # (no new container before this: the first one after the parse starts a collection)
            assert during <= 1, f"{during} collections while the log was parsed (one is the one after it)"
            assert len(read) == 1501
            assert gc.isenabled()
            gc.disable()  # a caller that holds it off: left off
            store.events("abcd1234", after=1400)
            assert not gc.isenabled()
            gc.enable()
            [{"x": [i]} for i in range(20000)]  # the collector on again: it runs
            assert runs
        finally:
            gc.callbacks.remove(collect)
            gc.enable()
    finally:
        store.close()
