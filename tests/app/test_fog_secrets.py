"""What the fog hides stays hidden (#25), asked through a player's own channels (the JSON API with their
key, their Socket.IO connection, the picture route): the squares a token can reach, the way a move is
refused, the log lines, the map's picture and the timing of updates tell nothing of what the player
has not seen."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image

from test_fog import run, state  # the same API calls as the other fog tests
from tests.helpers import bearer, connect, join, new_game

# a wall from the top down to y=5 at x=6: the east side's top is out of sight from (1, 1), but a token
# walks round the wall's end to it
ROOM = {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 5]}]}
FOE = "Orcmarker-q7z"
HIDDEN_SQUARE = (9, 1)  # east of the wall: never seen from (1, 1)


@pytest.fixture
def room(client):
    g = new_game(client, "plain_grid", ROOM, name="Fog")
    p = join(client, g, "Ada")
    gm = bearer(g["gm_token"])
    hero = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Hero", "x": 1, "y": 1, "owner": p["player_id"],
                                                              "kind": "pc"}, headers=gm).json
    g = g | {"player_token": p["player_token"], "player_id": p["player_id"], "hero": hero["id"]}
    assert run(client, g, {"type": "set_fog", "enabled": True}, g["gm_token"]).status_code == 200
    seen = {tuple(c) for c in state(client, g, g["player_token"])["fog"]["explored"]}
    assert HIDDEN_SQUARE not in seen and (1, 1) in seen
    return g


def reach(client, room):
    r = run(client, room, {"type": "reach", "token_id": room["hero"]}, room["player_token"])
    assert r.status_code == 200, r.json
    return sorted(map(tuple, r.json["cells"]))


def test_reach_maps_no_square_the_fog_hides(client, room):
    before = reach(client, room)
    known = {tuple(c) for c in state(client, room, room["player_token"])["fog"]["explored"]}
    assert {(x, y) for x, y, _ in before} <= known
    # the GM digs a hole, raises a wall and lays rubble in the fog: the player's ruler does not change
    gm = room["gm_token"]
    assert run(client, room, {"type": "block_cell", "x": 9, "y": 1}, gm).status_code == 200
    assert run(client, room, {"type": "add_wall", "a": [7, 0], "b": [7, 4]}, gm).status_code == 200
    assert run(client, room, {"type": "set_terrain", "x": 8, "y": 6, "cost": 3}, gm).status_code == 200
    assert reach(client, room) == before


@pytest.mark.parametrize("blocked", [False, True])
def test_a_move_into_the_fog_is_refused_the_same_whatever_is_there(client, room, blocked):
    if blocked:
        assert run(client, room, {"type": "block_cell", "x": 9, "y": 1}, room["gm_token"]).status_code == 200
    r = run(client, room, {"type": "move_token", "token_id": room["hero"], "x": 9, "y": 1}, room["player_token"])
    assert r.status_code == 422
    assert r.json["error"] == "J2 is in the fog: move onto squares your tokens have seen"
    # the GM still moves anything anywhere open
    if not blocked:
        assert run(client, room, {"type": "move_token", "token_id": room["hero"],
                                                     "x": 9, "y": 1}, room["gm_token"]).status_code == 200


def test_log_lines_name_no_removed_token_and_no_unknown_character(client, room):
    gm = room["gm_token"]
    foe = client.post(f"/api/games/{room['id']}/tokens", json={"name": FOE, "x": 10, "y": 1},
                      headers=bearer(gm)).json["id"]
    assert run(client, room, {"type": "add_character", "name": "Vexmarker-3k", "token_id": foe}, gm).status_code == 200
    assert run(client, room, {"type": "add_character", "name": "Offmap-9c"}, gm).status_code == 200
    s = state(client, room, room["player_token"])
    assert FOE not in json.dumps(s) and "Vexmarker-3k" not in json.dumps(s) and "Offmap-9c" not in json.dumps(s)
    assert run(client, room, {"type": "remove_token", "token_id": foe}, gm).status_code == 200
    s = state(client, room, room["player_token"])
    assert FOE not in json.dumps(s) and "Vexmarker-3k" not in json.dumps(s)
    page = client.get(f"/games/{room['id']}/play?key={room['player_token']}", follow_redirects=True).text
    assert FOE not in page and "Vexmarker-3k" not in page and "Offmap-9c" not in page
    assert FOE in json.dumps(state(client, room, gm)["log"])  # the GM reads every line


def test_a_token_in_view_when_removed_is_still_named_without_fog(client, room):
    gm = room["gm_token"]
    run(client, room, {"type": "set_fog", "enabled": False}, gm)
    foe = client.post(f"/api/games/{room['id']}/tokens", json={"name": FOE, "x": 3, "y": 1},
                      headers=bearer(gm)).json["id"]
    run(client, room, {"type": "remove_token", "token_id": foe}, gm)
    assert f"{FOE} was removed" in json.dumps(state(client, room, room["player_token"])["log"])


def picture_url(client, room, token) -> str:
    page = client.get(f"/games/{room['id']}/play?key={token}", follow_redirects=True).text
    import re
    return re.search(r'<image id="map-picture"[^>]* href="([^"]+)"', page).group(1).replace("&amp;", "&")


def pixel(data: bytes, cell) -> tuple:
    with Image.open(io.BytesIO(data)) as img:
        return img.convert("RGB").getpixel((cell[0] * 16 + 8, cell[1] * 16 + 8))


def test_a_fogged_maps_picture_reaches_a_player_painted_out_where_they_never_saw(app, client, room):
    out = io.BytesIO()
    Image.new("RGB", (12 * 16, 8 * 16), (200, 40, 40)).save(out, "PNG")
    r = client.post(f"/api/games/{room['id']}/maps/active/picture", headers=bearer(room["gm_token"]),
                    data={"file": (io.BytesIO(out.getvalue()), "m.png")}, content_type="multipart/form-data")
    assert r.status_code == 200, r.json
    gm_url = state(client, room, room["gm_token"])["picture"]["url"]
    gm_pic = client.get(gm_url, headers=bearer(room["gm_token"])).data
    assert pixel(gm_pic, HIDDEN_SQUARE) == (200, 40, 40)  # the GM's is whole
    for url in (gm_url, None):  # whatever address the player asks: the GM's, or the one on their page
        got = client.get(url or picture_url(client, room, room["player_token"]), headers=bearer(room["player_token"]))
        assert got.status_code == 200 and got.mimetype == "image/png"
        assert pixel(got.data, (1, 1)) == (200, 40, 40)  # seen: there
        assert pixel(got.data, HIDDEN_SQUARE) == (0, 0, 0)  # never seen: not in the bytes at all
    # the player sees more: their page is sent a new address for the picture, which shows the new squares
    before = picture_url(client, room, room["player_token"])
    player = connect(app, room["id"], room["player_token"])
    player.get_received()
    for x, y in ((3, 6), (7, 6), (8, 3)):
        assert run(client, room, {"type": "move_token", "token_id": room["hero"],
                                                         "x": x, "y": y}, room["player_token"]).status_code == 200
    html = "".join(m["args"][0]["html"] for m in player.get_received() if m["name"] == "update")
    assert 'id="map-picture"' in html
    after = picture_url(client, room, room["player_token"])
    assert after != before
    assert pixel(client.get(after, headers=bearer(room["player_token"])).data, HIDDEN_SQUARE) == (200, 40, 40)


def updates_of(client) -> list[dict]:
    return [m["args"][0] for m in client.get_received() if m["name"] == "update"]


def test_a_change_in_the_fog_sends_players_and_the_table_nothing_at_once(app, client, room):
    gm = room["gm_token"]
    foe = client.post(f"/api/games/{room['id']}/tokens", json={"name": FOE, "x": 10, "y": 1},
                      headers=bearer(gm)).json["id"]
    page = client.get(f"/games/{room['id']}/play?key={room['player_token']}", follow_redirects=True).text
    import re
    page_seq = int(re.search(r'id="live"[^>]*data-seq="(\d+)"', page).group(1))
    player = connect(app, room["id"], room["player_token"], since=page_seq)
    screen = connect(app, room["id"], room["screen_token"])
    gm_live = connect(app, room["id"], gm)
    for c in (player, screen, gm_live):
        c.get_received()
    # the GM moves the foe about in the fog, three times: the GM's screen follows, the others hear nothing
    for x in (11, 10, 11):
        assert run(client, room, {"type": "move_token", "token_id": foe, "x": x, "y": 2}, gm).status_code == 200
    assert len(updates_of(gm_live)) == 3
    assert updates_of(player) == [] and updates_of(screen) == []
    # a page opened now carries the seq its audience was last sent, and the next update starts there
    again = client.get(f"/games/{room['id']}/play?key={room['player_token']}", follow_redirects=True).text
    assert int(re.search(r'id="live"[^>]*data-seq="(\d+)"', again).group(1)) == page_seq
    # something the player sees: one update, from where their screen is, to now
    assert run(client, room, {"type": "move_token", "token_id": room["hero"],
                                                     "x": 2, "y": 1}, room["player_token"]).status_code == 200
    got = updates_of(player)
    assert len(got) == 1 and got[0]["from_seq"] == page_seq and got[0]["seq"] == page_seq + 4
    assert FOE not in got[0]["html"] and 'data-x="2"' in got[0]["html"]
    assert [u["from_seq"] for u in updates_of(screen)] == [page_seq]
