"""An update whose html is the same for several audiences is sent once to all their rooms (``Fanout.emit``):
every screen still gets exactly one update, its own view, and an audience with another view its own."""

from __future__ import annotations

import pytest

from tests.helpers import connect

pytestmark = pytest.mark.app_config(DEMO=False)


def test_players_who_see_the_same_share_one_message_each_gets_one_update(app, hub, monkeypatch):
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Rooms", "system": "plain_grid"}).json
    gm = {"Authorization": f"Bearer {g['gm_token']}"}
    players = [c.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": n}).json
               for n in ("Mira", "Olaf", "Pia", "Quinn")]
    aria = c.post(f"/api/games/{g['id']}/tokens", headers=gm,
                  json={"name": "Aria", "x": 1, "y": 1, "owner": players[0]["player_id"], "kind": "pc"}).json["id"]
    c.post(f"/api/games/{g['id']}/tokens", headers=gm, json={"name": "Ghost", "x": 5, "y": 5, "hidden": True})
    gm_live = connect(app, g["id"], g["gm_token"])
    screen = connect(app, g["id"], g["screen_token"])
    seats = [connect(app, g["id"], p["player_token"]) for p in players]
    for client in (gm_live, screen, *seats):
        client.get_received()
    sent = []
    real = hub.socketio.emit
    monkeypatch.setattr(hub.socketio, "emit", lambda event, data, to=None, **kw: (
        sent.append((event, to if isinstance(to, list) else [to])), real(event, data, to=to, **kw))[1])

    assert gm_live.emit("command", {"type": "move_token", "token_id": aria, "x": 2, "y": 1}, callback=True)["ok"]

    updates = [to for event, to in sent if event == "update"]
    # each seat's devices that read English (#37: updates go to an audience's devices by language)
    others = sorted(f"game:{g['id']}:player:{p['player_id']}|en" for p in players[1:])
    # GM, screen and Aria's owner see it each their own way; the three other players alike: one message
    assert sorted(len(to) for to in updates) == [1, 1, 1, 3]
    assert sorted(next(to for to in updates if len(to) == 3)) == others
    got = {}
    for name, client in (("gm", gm_live), ("screen", screen), *((p["player_id"], s) for p, s in zip(players, seats))):
        received = [m["args"][0] for m in client.get_received() if m["name"] == "update"]
        assert len(received) == 1, name  # one update each, none twice
        got[name] = received[0]["html"]
    assert len({got[p["player_id"]] for p in players[1:]}) == 1
    assert "movable" in got[players[0]["player_id"]] and "movable" not in got[players[1]["player_id"]]
    assert "Undo" in got["gm"] and "Undo" not in got[players[1]["player_id"]]
