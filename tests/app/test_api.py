"""The JSON API as a script or bot would use it."""

from __future__ import annotations

from tests.helpers import bearer, new_game


def test_create_game_returns_keys_and_links(client):
    g = new_game(client, name="Skirmish")
    assert set(g) >= {"id", "gm_token", "join_code", "screen_token", "urls"}
    assert g["urls"]["gm"].endswith(f"/games/{g['id']}/gm?key={g['gm_token']}")
    assert g["join_code"] in g["urls"]["join"]


def test_players_join_with_the_code_and_see_their_state(client):
    g = new_game(client, name="Skirmish")
    r = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"})
    assert r.status_code == 201
    player = r.json
    state = client.get(f"/api/games/{g['id']}/state", headers=bearer(player["player_token"])).json
    assert state["you"] == {"role": "player", "player_id": player["player_id"]}
    assert state["players"] == [{"id": player["player_id"], "name": "Mira"}]
    assert "key_hash" not in str(state)


def test_wrong_join_code_is_refused(client):
    g = new_game(client, name="Skirmish")
    r = client.post(f"/api/games/{g['id']}/players", json={"join_code": "NOPE", "name": "Mira"})
    assert r.status_code == 403 and "join_code" in r.json["error"]


def test_hidden_tokens_reach_the_gm_only(client):
    g = new_game(client, name="Skirmish")
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "Ambusher", "x": 3, "y": 3, "hidden": True},
                headers=bearer(g["gm_token"]))
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "Guard", "x": 4, "y": 3},
                headers=bearer(g["gm_token"]))
    gm = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    screen = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["screen_token"])).json
    assert [t["name"] for t in gm["tokens"]] == ["Ambusher", "Guard"]
    assert [t["name"] for t in screen["tokens"]] == ["Guard"]
    assert "Ambusher" not in str(screen)


def test_authentication_errors(client):
    g = new_game(client, name="Skirmish")
    url = f"/api/games/{g['id']}/state"
    assert client.get(url).status_code == 401
    assert "Bearer" in client.get(url).json["error"]
    assert client.get(url, headers=bearer("forged")).status_code == 401
    assert client.get("/api/games/nosuch/state", headers=bearer(g["gm_token"])).status_code == 404
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": "X", "x": 1, "y": 1},
                    headers=bearer(g["screen_token"]))
    assert r.status_code == 403 and r.json["error"] == "only the GM can add tokens"


def test_malformed_json_is_a_400_with_a_message(client):
    g = new_game(client, name="Skirmish")
    r = client.post(f"/api/games/{g['id']}/commands", data="{not json", content_type="application/json",
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 400 and "JSON" in r.json["error"]
    r = client.post("/api/games", json=["a list"])
    assert r.status_code == 400


def test_refused_moves_leave_the_state_untouched(client):
    g = new_game(client, name="Skirmish")
    gm = bearer(g["gm_token"])
    tid = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Scout", "x": 1, "y": 1}, headers=gm).json["id"]
    before = client.get(f"/api/games/{g['id']}/state", headers=gm).json
    for bad, message in [
        ({"type": "move_token", "token_id": tid, "x": 99, "y": 1}, "off the map"),
        ({"type": "move_token", "token_id": "t999", "x": 2, "y": 1}, "no token"),
        ({"type": "move_token", "token_id": tid, "x": "left", "y": 1}, "x:"),
        ({"type": "teleport"}, "unknown command type"),
        ({"type": "move_token", "token_id": tid, "x": 2, "y": 1, "extra": 1}, "extra"),
    ]:
        r = client.post(f"/api/games/{g['id']}/commands", json=bad, headers=gm)
        assert r.status_code == 422, bad
        assert message in r.json["error"], r.json
    assert client.get(f"/api/games/{g['id']}/state", headers=gm).json == before


def test_html_in_a_name_is_shown_as_text(client, hub):
    g = new_game(client, name="Skirmish")
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "<img src=x onerror=alert(1)>", "x": 1, "y": 1},
                headers=bearer(g["gm_token"]))
    page = client.get(g["urls"]["gm"], follow_redirects=True).get_data(as_text=True)
    assert "<img src=x" not in page
    assert "&lt;img src=x onerror=alert(1)&gt;" in page


def test_an_unknown_system_is_refused_with_a_reason_and_a_zone_system_gets_zones(client):
    r = client.post("/api/games", json={"name": "X", "system": "chess"})
    assert r.status_code == 400 and "unknown rule system" in r.json["error"]
    r = client.post("/api/games", json={"name": "X", "system": "atomic_tomorrow"})
    assert r.status_code == 201
