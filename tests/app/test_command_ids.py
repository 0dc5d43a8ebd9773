"""Every command exactly once (#35): a command sent again with its id is answered with its first answer."""

from __future__ import annotations

import json

from webapp.storage.store import Store


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def setup(client):
    g = client.post("/api/games", json={"name": "Once", "system": "plain_grid"}).json
    player = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1,
                        "owner": player["player_id"]}, headers=bearer(g["gm_token"])).json["id"]
    return g, player, token


def state(client, g):
    return client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json


def test_a_repeat_through_the_api_gets_the_first_answer_and_changes_nothing(client):
    g, player, _token = setup(client)
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    first = client.post(url, json={"type": "roll", "expr": "1d20+3", "cid": "dev1-1"}, headers=who)
    assert first.status_code == 200, first.json
    before = state(client, g)
    again = client.post(url, json={"type": "roll", "expr": "1d20+3", "cid": "dev1-1"}, headers=who)
    assert again.status_code == 200
    assert again.json == {**first.json, "repeat": True}  # the same dice, the same seq: not rolled again
    assert state(client, g)["seq"] == before["seq"] and state(client, g)["log"] == before["log"]
    # another id is another command; the same id from another seat is that seat's own
    assert client.post(url, json={"type": "roll", "expr": "1d20+3", "cid": "dev1-2"}, headers=who).json["seq"] == first.json["seq"] + 1
    gm = client.post(url, json={"type": "roll", "expr": "1d4", "cid": "dev1-1"}, headers=bearer(g["gm_token"])).json
    assert "repeat" not in gm and gm["seq"] == first.json["seq"] + 2


def test_a_repeated_move_over_the_socket_is_not_done_twice(app, client):
    g, player, token = setup(client)
    socketio = app.extensions["tacmap_socketio"]
    phone = socketio.test_client(app, auth={"game": g["id"], "token": player["player_token"]})
    first = phone.emit("command", {"type": "move_token", "token_id": token, "x": 2, "y": 1, "cid": "ph-7"}, callback=True)
    assert first["ok"], first
    # the GM moves it on meanwhile; the phone's move, sent again after a reconnect, must not move it back
    client.post(f"/api/games/{g['id']}/commands", json={"type": "move_token", "token_id": token, "x": 5, "y": 5},
                headers=bearer(g["gm_token"]))
    seq = state(client, g)["seq"]
    again = socketio.test_client(app, auth={"game": g["id"], "token": player["player_token"]})
    second = again.emit("command", {"type": "move_token", "token_id": token, "x": 2, "y": 1, "cid": "ph-7"}, callback=True)
    assert second == {**first, "repeat": True}
    now = state(client, g)
    assert now["seq"] == seq and [(t["x"], t["y"]) for t in now["tokens"]] == [(5, 5)]


def test_a_refused_command_is_decided_again(client):
    g, player, token = setup(client)
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    off = {"type": "move_token", "token_id": token, "x": 99, "y": 1, "cid": "r-1"}
    first = client.post(url, json=off, headers=who)
    assert first.status_code == 422
    assert client.post(url, json=off, headers=who).json == first.json  # nothing was stored: refused alike


def test_bad_command_ids_are_refused_and_change_nothing(client):
    g, player, token = setup(client)
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    seq = state(client, g)["seq"]
    for bad in ["", "x" * 65, 7, None, ["a"], "tab\there", "é"]:
        r = client.post(url, json={"type": "move_token", "token_id": token, "x": 2, "y": 2, "cid": bad}, headers=who)
        assert r.status_code == 422 and "cid" in r.json["error"], (bad, r.json)
    assert state(client, g)["seq"] == seq


def test_ids_are_stored_with_the_events_and_forgotten_after_an_hour(app, client, hub, monkeypatch):
    g, player, token = setup(client)
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    first = client.post(url, json={"type": "move_token", "token_id": token, "x": 3, "y": 1, "cid": "h-1"}, headers=who).json
    # the id is in the log's database, with the seq of its event: a new process reading it agrees
    other = Store(hub.store.path)
    try:
        assert other.applied(g["id"], f"player:{player['player_id']}", "h-1") == (first["seq"], {})
    finally:
        other.close()
    import webapp.storage.store as store_module
    real = store_module.time.time
    monkeypatch.setattr(store_module.time, "time", lambda: real() + 3601)
    assert hub.store.applied(g["id"], f"player:{player['player_id']}", "h-1") is None
    # the next command stored drops the old ids from the table
    client.post(url, json={"type": "move_token", "token_id": token, "x": 4, "y": 1, "cid": "h-2"}, headers=who)
    rows = hub.store._db.execute("SELECT cid FROM commands WHERE game_id = ?", (g["id"],)).fetchall()
    assert rows == [("h-2",)]
