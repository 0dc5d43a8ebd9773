"""A token the players never saw is never named in their logs: not when it is added, not when it is
removed, not after the GM turns the fog off (issue #33: "Ghoul was removed" reached the players)."""

from __future__ import annotations

import json

import pytest

from tests.helpers import bearer


pytestmark = pytest.mark.app_config(DEMO=False)


def test_a_fogged_token_added_and_removed_is_never_named_to_players_even_once_the_fog_is_off(app):
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Crypt", "system": "plain_grid", "map": {"width": 20, "height": 8}}).json
    p = c.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json

    def command(body):
        r = c.post(f"/api/games/{g['id']}/commands", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 200, r.json

    def add(name, x):
        body = {"name": name, "x": x, "y": 1} | ({"owner": p["player_id"], "kind": "pc"} if name == "Hero" else {})
        r = c.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        return r.json["id"]

    add("Hero", 1)
    orc = add("Orc", 3)  # seen by everyone: fog is still off
    command({"type": "remove_token", "token_id": orc})
    command({"type": "add_wall", "a": [5, 0], "b": [5, 8]})  # the crypt beyond the wall
    command({"type": "set_fog", "enabled": True})
    phone = app.extensions["tacmap_socketio"].test_client(app, auth={"game": g["id"], "token": p["player_token"]})
    phone.get_received()
    ghoul = add("Ghoul", 10)
    command({"type": "remove_token", "token_id": ghoul})
    pushed = json.dumps([m["args"] for m in phone.get_received()])
    command({"type": "set_fog", "enabled": False})

    for key in (p["player_token"], g["screen_token"]):
        lines = [e["text"] for e in c.get(f"/api/games/{g['id']}/state", headers=bearer(key)).json["log"]]
        assert "Orc was removed" in lines  # a removal the players saw is theirs to read
        assert "fog of war off" in lines
        assert not [line for line in lines if "Ghoul" in line], lines
    assert "Ghoul" not in pushed  # nor in what the phone was sent live
    page = c.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
    assert "Orc was removed" in page and "Ghoul" not in page
    gm_lines = [e["text"] for e in c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["log"]]
    assert "Ghoul was added" in gm_lines and "Ghoul was removed" in gm_lines  # the GM's log keeps it all
