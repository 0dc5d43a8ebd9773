"""Every command exactly once (#35): a command sent again with its id is answered with its first answer."""

from __future__ import annotations


from tests.helpers import bearer, join, new_game, state
from webapp.storage.store import Store


def setup(client):
    g = new_game(client, "plain_grid", name="Once")
    player = join(client, g, "Mira")
    token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1,
                        "owner": player["player_id"]}, headers=bearer(g["gm_token"])).json["id"]
    return g, player, token


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
    import webapp.storage.games as games_module
    real = games_module.time.time
    monkeypatch.setattr(games_module.time, "time", lambda: real() + 3601)
    assert hub.store.applied(g["id"], f"player:{player['player_id']}", "h-1") is None
    # the next command stored drops the old ids from the table
    client.post(url, json={"type": "move_token", "token_id": token, "x": 4, "y": 1, "cid": "h-2"}, headers=who)
    rows = hub.store._db.execute("SELECT cid FROM commands WHERE game_id = ?", (g["id"],)).fetchall()
    assert rows == [("h-2",)]


def test_the_same_id_sent_twice_at_once_is_done_once(app, client, hub, monkeypatch):
    import threading
    import time

    from webapp.game.core.model import GM, Actor
    from webapp.storage.store import Store as StoreClass

    g, player, token = setup(client)
    slow = StoreClass._append

    def slow_append(self, *args):  # a slow disk: the other sendings queue while the first is written
        time.sleep(0.2)
        return slow(self, *args)

    monkeypatch.setattr(StoreClass, "_append", slow_append)
    actor = Actor("player", player["player_id"])
    seq = state(client, g)["seq"]
    answers = []

    def send():
        answers.append(hub.execute(g["id"], actor, {"type": "roll", "expr": "1d100", "cid": "twice"}))

    # the GM's command is being written; meanwhile the phone's command and its repeat queue together
    gm = threading.Thread(target=hub.execute, args=(g["id"], GM, {"type": "roll", "expr": "1d6"}))
    gm.start()
    time.sleep(0.05)
    threads = [threading.Thread(target=send) for _ in range(3)]
    for t in threads:
        t.start()
    gm.join(10)
    for t in threads:
        t.join(10)
    seq += 1  # the GM's roll
    assert state(client, g)["seq"] == seq + 1
    assert len(answers) == 3 and {a.seq for a in answers} == {seq + 1}
    assert sum(bool(a.events) for a in answers) == 1  # one did it; three heard its answer
    first = next(a for a in answers if a.events).reply
    assert all(a.reply == {**first, "repeat": True} for a in answers if not a.events)


def test_another_process_on_the_same_log_answers_a_repeat(tmp_path, client, app):
    from webapp import create_app

    g, player, token = setup(client)
    other = create_app({"DATA_DIR": app.config["DATA_DIR"], "TESTING": True, "SECRET_KEY": "test"})
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    move = {"type": "move_token", "token_id": token, "x": 6, "y": 6, "cid": "p-1"}
    first = client.post(url, json=move, headers=who).json
    again = other.test_client().post(url, json=move, headers=who).json
    assert again == {**first, "repeat": True}
    assert state(client, g)["seq"] == first["seq"]


def test_a_repeat_through_the_htmx_form_endpoint_gets_the_first_answer_and_changes_nothing(client):
    """The GM page's htmx forms post to ``/games/<id>/commands`` with the command's id in ``X-Command-Id``
    (static/js/live.js): sent again after a dropped answer, the form's command is not done twice."""
    g, _player, token = setup(client)
    client.get(g["urls"]["gm"])  # this browser holds the GM key now (a page's session)
    url = f"/games/{g['id']}/commands"
    form = {"type": "duplicate_token", "token_id": token}
    htmx = {"HX-Request": "true", "X-Command-Id": "gm-laptop.p1.7"}
    first = client.post(url, data=form, headers=htmx)
    assert first.status_code == 204, first.get_data(as_text=True)
    before = state(client, g)
    assert len(before["tokens"]) == 2
    again = client.post(url, data=form, headers=htmx)
    assert again.status_code == 204 and again.headers["X-Command-Repeat"] == "true"  # the first answer
    assert "HX-Trigger" not in again.headers  # not "Nothing changed": it was done, once
    after = state(client, g)
    assert after["seq"] == before["seq"] and after["log"] == before["log"] and len(after["tokens"]) == 2
    # a plain form post (no htmx) with the id as a field is the same command
    plain = client.post(url, data={**form, "cid": "gm-laptop.p1.7"})
    assert plain.status_code == 204 and state(client, g)["seq"] == before["seq"]
    # another id is another command
    assert client.post(url, data=form, headers={**htmx, "X-Command-Id": "gm-laptop.p1.8"}).status_code == 204
    assert len(state(client, g)["tokens"]) == 3
    # a malformed id is refused with the reason, and nothing is done
    seq = state(client, g)["seq"]
    bad = client.post(url, data=form, headers={**htmx, "X-Command-Id": "x" * 65})
    assert bad.status_code == 200 and "a command id is 1 to 64" in bad.headers["HX-Trigger"]
    assert state(client, g)["seq"] == seq

