"""The touch table (#27): the table screen moves tokens only while the GM lets it take touches, by the
same checks as the GM's moves (fog, walls, whose turn and the allowance in a fight), never a hidden token,
never forced; and a token's accessible name (webapp/game/bridge/describe.py)."""

from __future__ import annotations

import pytest

from rules.board import Board
from test_templates import send, state  # the same API calls
from tests.helpers import bearer, join, new_game
from webapp.game.bridge import describe
from webapp.game.core.model import Game, Player, Token

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")  # test_templates.py's app


def table(client, system="plain_grid"):
    g = new_game(client, system, {"width": 30, "height": 8}, name="Touch")
    p = join(client, g, "Bea")
    ids = {}
    for name, x, owner, hidden in (("Ann", 2, p["player_id"], False), ("Orc", 4, None, False),
                                   ("Lurker", 8, None, True)):
        ids[name] = client.post(f"/api/games/{g['id']}/tokens",
                                json={"name": name, "x": x, "y": 2, "owner": owner, "hidden": hidden,
                                      "kind": "pc" if owner else "npc"}, headers=bearer(g["gm_token"])).json["id"]
    return g, p, ids


def touch(client, g, enabled: bool):
    r = send(client, g, {"type": "set_screen_touch", "enabled": enabled}, g["gm_token"])
    assert r.status_code == 200, r.json


def test_the_screen_key_moves_nothing_while_touch_is_off(client):
    g, p, ids = table(client)
    assert state(client, g)["screen_touch"] is False  # off by default
    before = state(client, g)
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 2, "y": 4}, g["screen_token"])
    assert r.status_code == 422 and "not turned touch on" in r.json["error"], r.json
    assert state(client, g) == before


def test_with_touch_on_the_screen_moves_any_token_it_shows_and_off_again_it_cannot(client):
    g, p, ids = table(client)
    touch(client, g, True)
    assert state(client, g, g["screen_token"])["screen_touch"] is True
    for name, x in (("Ann", 3), ("Orc", 6)):  # a player's token and the GM's foe alike
        r = send(client, g, {"type": "move_token", "token_id": ids[name], "x": x, "y": 4}, g["screen_token"])
        assert r.status_code == 200, r.json
    where = {t["name"]: (t["x"], t["y"]) for t in state(client, g)["tokens"]}
    assert where["Ann"] == (3, 4) and where["Orc"] == (6, 4)
    touch(client, g, False)
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 3, "y": 5}, g["screen_token"])
    assert r.status_code == 422 and "not turned touch on" in r.json["error"]


def test_only_the_gm_switches_touch(client):
    g, p, ids = table(client)
    for key in (p["player_token"], g["screen_token"]):
        r = send(client, g, {"type": "set_screen_touch", "enabled": True}, key)
        assert r.status_code == 422, r.json
    assert state(client, g)["screen_touch"] is False
    for bad in ({"enabled": "yes"}, {}, {"enabled": True, "extra": 1}):
        assert send(client, g, {"type": "set_screen_touch", **bad}, g["gm_token"]).status_code == 422
    touch(client, g, True)
    r = send(client, g, {"type": "set_screen_touch", "enabled": True}, g["gm_token"])
    assert r.status_code == 422 and "already on" in r.json["error"]


def test_the_screen_cannot_touch_a_hidden_token_nor_force_a_move(client):
    g, p, ids = table(client)
    touch(client, g, True)
    assert "Lurker" not in {t["name"] for t in state(client, g, g["screen_token"])["tokens"]}
    before = state(client, g)
    r = send(client, g, {"type": "move_token", "token_id": ids["Lurker"], "x": 9, "y": 4}, g["screen_token"])
    assert r.status_code == 422 and r.json["error"] == f"no token {ids['Lurker']!r} in this game"
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 3, "y": 4,
                                            "force": True}, g["screen_token"])
    assert r.status_code == 422 and "only the GM can force" in r.json["error"]
    assert state(client, g) == before


def test_the_screen_meets_walls_as_the_gm_does(client):
    g, p, ids = table(client)
    touch(client, g, True)
    # a wall from top to bottom between columns 2 and 3, with Ann on its left
    assert send(client, g, {"type": "add_wall", "a": [3, 0], "b": [3, 8]}, g["gm_token"]).status_code == 200
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 3, "y": 2}, g["screen_token"])
    assert r.status_code == 422 and "no way through" in r.json["error"], r.json
    gm = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 3, "y": 2}, g["gm_token"])
    assert gm.status_code == 422 and gm.json == r.json  # the same refusal the GM gets


def savage_fight(client):
    g, p, ids = table(client, "savage_worlds")
    send(client, g, {"type": "start_combat", "token_ids": [ids["Ann"], ids["Orc"]]}, g["gm_token"])
    while state(client, g)["combat"]["current"] != ids["Ann"]:
        send(client, g, {"type": "next_turn"}, g["gm_token"])
    touch(client, g, True)
    return g, p, ids


def test_in_a_fight_the_screen_moves_by_whose_turn_and_the_allowance(client):
    g, p, ids = savage_fight(client)
    before = state(client, g)
    # not the Orc's turn: refused, as the GM's move is (the GM may rule otherwise; the screen may not)
    r = send(client, g, {"type": "move_token", "token_id": ids["Orc"], "x": 5, "y": 2}, g["screen_token"])
    gm = send(client, g, {"type": "move_token", "token_id": ids["Orc"], "x": 5, "y": 2}, g["gm_token"])
    assert r.status_code == 422 and gm.status_code == 422 and r.json["error"] == gm.json["error"], (r.json, gm.json)
    # past Ann's Pace (6): refused with the rules' reason
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 2 + 9, "y": 2}, g["screen_token"])
    assert r.status_code == 422, r.json
    assert state(client, g) == before
    # within it: moved and counted against what is left
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 1, "y": 5}, g["screen_token"])
    assert r.status_code == 200, r.json
    left = send(client, g, {"type": "reach", "token_id": ids["Ann"]}, g["gm_token"]).json["left"]
    assert left < 6


def test_drag_previews_from_the_screen_follow_the_switch(app, client):
    g, p, ids = table(client)
    socketio = app.extensions["tacmap_socketio"]
    screen = socketio.test_client(app, auth={"game": g["id"], "token": g["screen_token"]})
    gm = socketio.test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    gm.get_received()
    ack = screen.emit("preview", {"token_id": ids["Ann"], "x": 3, "y": 3}, callback=True)
    assert ack["ok"] is False and "not turned touch on" in ack["error"]
    assert not [m for m in gm.get_received() if m["name"] == "preview"]
    ack = screen.emit("command", {"type": "move_token", "token_id": ids["Ann"], "x": 3, "y": 3}, callback=True)
    assert ack["ok"] is False and "not turned touch on" in ack["error"]
    touch(client, g, True)
    gm.get_received()
    assert screen.emit("preview", {"token_id": ids["Ann"], "x": 3, "y": 3}, callback=True) == {"ok": True}
    assert [m["args"][0] for m in gm.get_received() if m["name"] == "preview"] == [
        {"token_id": ids["Ann"], "x": 3, "y": 3, "done": False}]
    ack = screen.emit("preview", {"token_id": ids["Lurker"], "x": 9, "y": 3}, callback=True)
    assert ack["ok"] is False and "no token" in ack["error"]
    ack = screen.emit("command", {"type": "move_token", "token_id": ids["Ann"], "x": 3, "y": 3}, callback=True)
    assert ack["ok"] is True, ack


def test_the_switch_reaches_the_gm_page_and_the_screen(client):
    g, p, ids = table(client)
    gm_page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'id="toggle-touch"' in gm_page and "Turn touch on" in gm_page
    screen = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'id="screen-touch"' in screen and 'data-enabled="false"' in screen


# --- accessible names -----------------------------------------------------------------------------


def test_square_names_read_like_a_chess_board():
    assert [describe.column_name(x) for x in (0, 2, 25, 26, 27, 51, 52)] == ["A", "C", "Z", "AA", "AB", "AZ", "BA"]
    assert describe.square_name(2, 3) == "C4"


def test_a_token_reads_with_its_player_square_wounds_and_turn():
    game = Game(id="g", name="n", system="savage_worlds", board=Board(10, 10))
    game.players["p-1"] = Player(id="p-1", name="Bea", key_hash="x")
    ann = Token(id="t-1", name="Ann", x=2, y=3, owner="p-1", kind="pc")
    marks = [{"label": "2 wounds", "kind": "wound"}, {"label": "Shaken", "kind": "condition"},
             {"label": "3 Bennies", "kind": "resource"}]
    assert describe.token_name(game, ann, None, marks) == "Ann, Bea's character, at C4, 2 wounds, Shaken"
    game.combat = {"current": "t-1", "order": ["t-1"], "round": 1, "state": {}}
    ogre = Token(id="t-2", name="Ogre", x=0, y=0, size=2, hidden=True)
    assert describe.token_name(game, ogre, None) == "Ogre, non-player character, large, 2 by 2 squares, at A1, hidden from players"
    assert describe.token_name(game, ann, None).endswith("at C4, their turn")
    zones = [{"id": "ridge", "name": "Ridge", "box": [0, 0, 5, 5], "adjacent": []}]
    assert describe.where(ann, zones) == "in Ridge"


def test_the_token_on_the_page_carries_its_accessible_name(client):
    g, p, ids = table(client, "savage_worlds")
    send(client, g, {"type": "add_character", "name": "Ann", "token_id": ids["Ann"], "owner": p["player_id"]}, g["gm_token"])
    character = next(c["id"] for c in state(client, g)["characters"] if c["token_id"] == ids["Ann"])
    r = send(client, g, {"type": "update_sheet", "character_id": character, "changes": {"wounds": 2}}, g["gm_token"])
    assert r.status_code == 200, r.json
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'aria-label="An, Ann, Bea&#39;s character, at C3, 2 wounds"' in page  # "An" is on its disc
    assert 'data-where="at C3"' in page and 'tabindex="0" role="button"' in page


def test_with_fog_the_screen_touches_only_what_the_players_see(client):
    g, p, ids = table(client)
    gm = g["gm_token"]
    wolf = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Wolf", "x": 20, "y": 2},
                       headers=bearer(gm)).json["id"]
    assert send(client, g, {"type": "add_wall", "a": [10, 0], "b": [10, 8]}, gm).status_code == 200
    assert send(client, g, {"type": "set_fog", "enabled": True}, gm).status_code == 200
    touch(client, g, True)
    assert "Wolf" not in {t["name"] for t in state(client, g, g["screen_token"])["tokens"]}
    before = state(client, g)
    r = send(client, g, {"type": "move_token", "token_id": wolf, "x": 21, "y": 2}, g["screen_token"])
    assert r.status_code == 422 and r.json["error"] == f"no token {wolf!r} in this game"
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 15, "y": 2}, g["screen_token"])
    assert r.status_code == 422 and "in the fog" in r.json["error"], r.json
    assert state(client, g) == before


def test_on_a_zone_map_a_token_reads_its_zone_not_a_square(client):
    from test_zone_maps import PORT

    g = client.post("/api/games", json={"name": "Port", "system": "atomic_tomorrow", "map": PORT}).json
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Nova", "zone": "pad", "kind": "pc"},
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 201, r.json
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'aria-label="No, Nova, player character, in Landing Pad"' in page and 'data-where="in Landing Pad"' in page


def test_the_touch_table_names_squares_as_the_rest_of_the_app(client):
    """A drag refused on the TV names the square as the tokens' accessible names do ("E3", not "(4, 2)") (#58)."""
    g, p, ids = table(client)
    touch(client, g, True)
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 4, "y": 2}, g["screen_token"])
    assert r.status_code == 422 and r.json["error"] == "E3 is taken by Orc", r.json
    assert describe.square_name(4, 2) == "E3"
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 2, "y": 2}, g["screen_token"])
    assert r.status_code == 422 and r.json["error"] == "Ann is already at C3", r.json
