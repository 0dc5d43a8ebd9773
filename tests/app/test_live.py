"""The Socket.IO protocol with Flask-SocketIO's test client."""

from __future__ import annotations

import pytest

from tests.helpers import connect, new_game
from webapp import create_app


@pytest.fixture
def game(client):
    g = new_game(client, "plain_grid", name="Live")
    t = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Scout", "x": 1, "y": 1},
                    headers={"Authorization": f"Bearer {g['gm_token']}"}).json
    return g | {"token_id": t["id"]}


def test_a_bad_key_is_refused(app, game):
    assert not connect(app, game["id"], "forged").is_connected()
    socketio = app.extensions["tacmap_socketio"]
    assert not socketio.test_client(app, auth=None).is_connected()
    assert not socketio.test_client(app, auth={"game": 5, "token": []}).is_connected()


def test_a_move_is_acknowledged_with_its_seq_and_reaches_the_screen(app, game):
    gm = connect(app, game["id"], game["gm_token"])
    screen = connect(app, game["id"], game["screen_token"])
    screen.get_received()
    ack = gm.emit("command", {"type": "move_token", "token_id": game["token_id"], "x": 4, "y": 2}, callback=True)
    assert ack["ok"] is True
    updates = [m for m in screen.get_received() if m["name"] == "update"]
    assert updates and updates[-1]["args"][0]["seq"] == ack["seq"]
    html = updates[-1]["args"][0]["html"]
    assert 'id="token-%s"' % game["token_id"] in html and 'data-x="4"' in html and "hx-swap-oob" in html
    assert html.count("<template><svg>") == 1


def test_malformed_events_get_an_error_and_change_nothing(app, game, hub):
    gm = connect(app, game["id"], game["gm_token"])
    seq = hub.game(game["id"]).seq
    for payload in [None, "move", 42, [], {"type": "move_token"}, {"type": "move_token", "token_id": game["token_id"],
                    "x": 1e9, "y": 0}, {"type": "add_token", "name": "x" * 500, "x": 0, "y": 0}]:
        ack = gm.emit("command", payload, callback=True)
        assert ack["ok"] is False and ack["error"], payload
    assert hub.game(game["id"]).seq == seq
    assert gm.is_connected()


def test_the_screen_cannot_command(app, game):
    screen = connect(app, game["id"], game["screen_token"])
    ack = screen.emit("command", {"type": "move_token", "token_id": game["token_id"], "x": 2, "y": 2}, callback=True)
    # a move only while the GM lets the screen take touches (#27)
    assert ack == {"ok": False, "error": "the table screen only shows the map: the GM has not turned touch on for it"}


def test_previews_go_to_others_and_are_not_stored(app, game, hub):
    gm = connect(app, game["id"], game["gm_token"])
    screen = connect(app, game["id"], game["screen_token"])
    screen.get_received()
    seq = hub.game(game["id"]).seq
    assert gm.emit("preview", {"token_id": game["token_id"], "x": 3, "y": 3}, callback=True) == {"ok": True}
    previews = [m["args"][0] for m in screen.get_received() if m["name"] == "preview"]
    assert previews == [{"token_id": game["token_id"], "x": 3, "y": 3, "done": False}]
    assert not [m for m in gm.get_received() if m["name"] == "preview"]
    assert hub.game(game["id"]).seq == seq


def test_hidden_tokens_never_reach_players_over_the_socket(app, game, client, hub):
    g = game
    player = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    p = connect(app, g["id"], player["player_token"])
    gm = connect(app, g["id"], g["gm_token"])
    p.get_received()
    gm.emit("command", {"type": "add_token", "name": "Lurker", "x": 5, "y": 5, "hidden": True}, callback=True)
    lurker = next(t.id for t in hub.game(g["id"]).tokens.values() if t.name == "Lurker")
    gm.emit("command", {"type": "move_token", "token_id": lurker, "x": 6, "y": 5}, callback=True)
    gm.emit("preview", {"token_id": lurker, "x": 7, "y": 5}, callback=True)
    received = str(p.get_received())
    assert "Lurker" not in received and lurker not in received.replace(f"token-{lurker}", "")  # nothing at all
    assert f"token-{lurker}" not in received


def test_a_client_that_missed_updates_gets_a_fresh_copy(app, game):
    gm = connect(app, game["id"], game["gm_token"])
    gm.emit("command", {"type": "move_token", "token_id": game["token_id"], "x": 5, "y": 5}, callback=True)
    late = connect(app, game["id"], game["screen_token"], since=1)
    updates = [m["args"][0] for m in late.get_received() if m["name"] == "update"]
    assert updates and updates[0]["from_seq"] is None
    assert 'data-x="5"' in updates[0]["html"]


def test_the_log_survives_a_restart(tmp_path):
    config = {"DATA_DIR": str(tmp_path), "TESTING": True, "SECRET_KEY": "t"}
    app = create_app(config)
    hub = app.extensions["tacmap"]
    demo = hub.store.games()[0]
    token = next(iter(hub.game(demo.id).tokens.values()))
    gm = connect(app, demo.id, demo.gm_key)
    assert gm.emit("command", {"type": "move_token", "token_id": token.id, "x": 8, "y": 8}, callback=True)["ok"]
    demos = len(hub.store.games())  # the outpost, and each system's sample fight
    again = create_app(config).extensions["tacmap"]
    assert len(again.store.games()) == demos  # no second set of demos
    moved = again.game(demo.id).tokens[token.id]
    assert (moved.x, moved.y) == (8, 8)
