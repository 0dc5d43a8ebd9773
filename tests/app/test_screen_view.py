"""The GM drives the table screen (#27): ``set_screen_view`` (fit, center + zoom, follow, true-scale squares,
the calibration aid) is the GM's; players and the screen key are refused with a clear error; a bad value is
refused and changes nothing; the state carries ``screen_view``; the table screen's calibration aid sets the
TV's width only while the GM has it open."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, join, new_game, state
from webapp.live.screens.screenbox import RELAY_EVERY

PORT = {"zones": [
    {"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]},
    {"id": "bay", "name": "Cargo Bay"},
]}


pytestmark = pytest.mark.app_config(DEMO=False)


@pytest.fixture
def table(client):
    g = new_game(client, "plain_grid", name="Screen")
    ann = join(client, g, "Ann")
    ids = {}
    for name, x, extra in (("Ann", 2, {"owner": ann["player_id"], "kind": "pc"}), ("Ghost", 6, {"hidden": True}),
                           ("Orc", 9, {})):
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 3, **extra},
                        headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    return g | {"ann": ann, "ids": ids}


def send(client, g, body, token=None):
    return client.post(f"/api/games/{g['id']}/commands", json={"type": "set_screen_view", **body},
                       headers=bearer(token or g["gm_token"]))


def test_the_state_starts_on_the_whole_map(client, table):
    view = state(client, table)["screen_view"]
    assert view["mode"] == "fit" and view["zoom"] == 1.0 and view["follow"] is None and view["center"] is None
    assert view["true_scale"] is False and view["calibrating"] is False and view["board"] == "grid"


def test_the_gm_centres_zooms_follows_and_fits(client, table):
    assert send(client, table, {"center": [4.5, 3], "zoom": 2.5}).status_code == 200
    view = state(client, table)["screen_view"]
    assert (view["mode"], view["center"], view["zoom"]) == ("center", [4.5, 3], 2.5)
    for token in (table["screen_token"], table["ann"]["player_token"]):  # every audience's state carries it
        assert state(client, table, token)["screen_view"]["center"] == [4.5, 3]
    assert send(client, table, {"zoom": 1.5}).status_code == 200  # the zoom alone keeps the centre
    assert state(client, table)["screen_view"]["center"] == [4.5, 3]
    assert send(client, table, {"follow": table["ids"]["Orc"]}).status_code == 200
    view = state(client, table)["screen_view"]
    assert (view["mode"], view["follow"], view["center"], view["zoom"]) == ("follow", table["ids"]["Orc"], None, 1.5)
    assert send(client, table, {"fit": True}).status_code == 200
    view = state(client, table)["screen_view"]
    assert (view["mode"], view["follow"], view["zoom"]) == ("fit", None, 1.0)


def test_true_scale_locks_the_zoom(client, table):
    assert send(client, table, {"square_mm": 25.4, "screen_width_mm": 1200}).status_code == 200
    view = state(client, table, table["screen_token"])["screen_view"]
    assert view["true_scale"] is True and (view["square_mm"], view["screen_width_mm"]) == (25.4, 1200)
    r = send(client, table, {"zoom": 2})
    assert r.status_code == 422 and "zoom is locked" in r.json["error"], r.json
    assert send(client, table, {"center": [3, 3]}).status_code == 200  # panning is not zooming
    assert send(client, table, {"square_mm": None}).status_code == 200
    assert state(client, table)["screen_view"]["true_scale"] is False
    assert send(client, table, {"zoom": 2}).status_code == 200


@pytest.mark.parametrize("who", ["player", "screen"])
def test_players_and_the_screen_key_are_refused(client, table, who):
    token = table["ann"]["player_token"] if who == "player" else table["screen_token"]
    before = state(client, table)
    r = send(client, table, {"fit": True, "square_mm": 25}, token=token)
    assert r.status_code == 422
    assert r.json["error"] == ("only the GM can do that" if who == "player" else "the table screen only shows the map")
    after = state(client, table)
    assert after["seq"] == before["seq"] and after["screen_view"] == before["screen_view"]


@pytest.mark.parametrize("body, says", [
    ({}, "needs one of"),
    ({"center": [40, 2]}, "off the map"),
    ({"center": [-1, 2]}, "off the map"),
    ({"center": [1]}, "center"),
    ({"center": ["a", 2]}, "center"),
    ({"center": None}, "a value is needed"),
    ({"zoom": 0}, "zoom"),
    ({"zoom": 50}, "zoom"),
    ({"zoom": "2"}, "zoom"),
    ({"zoom": float("nan")}, "zoom"),
    ({"fit": False}, "send true"),
    ({"fit": True, "zoom": 2}, "leave zoom out"),
    ({"fit": True, "center": [1, 1]}, "choose one of"),
    ({"center": [1, 1], "follow": "x"}, "choose one of"),
    ({"follow": "t-nobody"}, "no token"),
    ({"follow": 3}, "follow"),
    ({"square_mm": 1}, "square_mm"),
    ({"square_mm": 2000}, "square_mm"),
    ({"screen_width_mm": 10}, "screen_width_mm"),
    ({"screen_width_mm": "wide"}, "screen_width_mm"),
    ({"calibrate": "yes"}, "calibrate"),
    ({"tilt": 3}, "tilt"),
])
def test_bad_values_are_refused_and_change_nothing(client, table, body, says):
    before = state(client, table)
    r = client.post(f"/api/games/{table['id']}/commands", json={"type": "set_screen_view", **body},
                    headers=bearer(table["gm_token"]))  # json=: NaN goes out as NaN, which the server refuses too
    assert r.status_code in (400, 422), r.json
    assert says in r.json["error"], r.json
    after = state(client, table)
    assert after["seq"] == before["seq"] and after["screen_view"] == before["screen_view"]


def test_a_hidden_token_is_not_followed_nor_named_to_the_screen(client, table):
    r = send(client, table, {"follow": table["ids"]["Ghost"]})
    assert r.status_code == 422 and "hidden" in r.json["error"]
    assert send(client, table, {"follow": table["ids"]["Orc"]}).status_code == 200
    gm = bearer(table["gm_token"])
    client.post(f"/api/games/{table['id']}/commands", json={"type": "update_token", "token_id": table["ids"]["Orc"],
                                                           "hidden": True}, headers=gm)
    assert state(client, table)["screen_view"]["follow"] == table["ids"]["Orc"]  # the GM's choice stands
    screen = state(client, table, table["screen_token"])
    assert screen["screen_view"]["follow"] is None and table["ids"]["Orc"] not in str(screen)


def test_the_same_view_again_records_nothing_and_undo_leaves_it(client, table):
    assert send(client, table, {"center": [2, 2]}).status_code == 200
    seq = state(client, table)["seq"]
    assert send(client, table, {"center": [2, 2]}).status_code == 200
    assert state(client, table)["seq"] == seq
    gm = bearer(table["gm_token"])
    client.post(f"/api/games/{table['id']}/commands", json={"type": "move_token", "token_id": table["ids"]["Orc"],
                                                           "x": 10, "y": 3}, headers=gm)
    assert send(client, table, {"zoom": 3}).status_code == 200
    assert client.post(f"/api/games/{table['id']}/commands", json={"type": "undo"}, headers=gm).status_code == 200
    after = state(client, table)
    assert after["screen_view"]["zoom"] == 3  # undo takes back the move, not where the TV looks
    assert next(t for t in after["tokens"] if t["id"] == table["ids"]["Orc"])["x"] == 9


def test_the_calibration_aid_sets_the_width_only_while_open(client, table):
    def calibrate(body, token):
        return client.post(f"/api/games/{table['id']}/commands", json={"type": "calibrate_screen", **body},
                           headers=bearer(token))
    r = calibrate({"screen_width_mm": 1100}, table["screen_token"])
    assert r.status_code == 422 and "calibration aid is closed" in r.json["error"]
    assert send(client, table, {"calibrate": True}).status_code == 200
    assert state(client, table, table["screen_token"])["screen_view"]["calibrating"] is True
    r = calibrate({"screen_width_mm": 1100}, table["ann"]["player_token"])
    assert r.status_code == 422 and r.json["error"] == "only the GM can do that"
    assert calibrate({"screen_width_mm": 5}, table["screen_token"]).status_code == 422
    assert calibrate({"screen_width_mm": 1105.5}, table["screen_token"]).status_code == 200
    view = state(client, table)["screen_view"]
    assert view["screen_width_mm"] == 1105.5 and view["calibrating"] is True
    assert calibrate({"screen_width_mm": 1107, "done": True}, table["screen_token"]).status_code == 200
    view = state(client, table)["screen_view"]
    assert view["screen_width_mm"] == 1107 and view["calibrating"] is False


def test_a_zone_map_refuses_true_scale_and_takes_the_rest(client):
    g = client.post("/api/games", json={"name": "Port", "system": "atomic_tomorrow", "map": PORT}).json
    r = send(client, g, {"square_mm": 25.4, "screen_width_mm": 1200})
    assert r.status_code == 422 and "zone map" in r.json["error"], r.json
    assert state(client, g)["screen_view"]["square_mm"] is None
    assert send(client, g, {"screen_width_mm": 1200}).status_code == 200  # the TV's width is the TV's
    assert send(client, g, {"center": [1, 1], "zoom": 2}).status_code == 200
    view = state(client, g)["screen_view"]
    assert view["board"] == "zones" and view["true_scale"] is False and view["zoom"] == 2


def test_the_screen_and_the_gm_get_the_view_live_and_the_page_carries_it(app, client, table):
    socketio = app.extensions["tacmap_socketio"]
    screen = socketio.test_client(app, auth={"game": table["id"], "token": table["screen_token"]})
    player = socketio.test_client(app, auth={"game": table["id"], "token": table["ann"]["player_token"]})
    screen.get_received()
    player.get_received()
    assert send(client, table, {"center": [5, 2], "zoom": 2}).status_code == 200
    html = "".join(m["args"][0]["html"] for m in screen.get_received() if m["name"] == "update")
    assert 'id="screen-view-state"' in html and "&#34;zoom&#34;: 2.0" in html
    assert not [m for m in player.get_received() if m["name"] == "update"]  # a phone shows no TV
    page = client.get(f"/games/{table['id']}/screen?key={table['screen_token']}", follow_redirects=True)
    assert page.status_code == 200 and 'id="screen-view-state"' in page.text and "&#34;zoom&#34;: 2.0" in page.text
    gm = client.get(f"/games/{table['id']}/gm?key={table['gm_token']}", follow_redirects=True)
    assert gm.status_code == 200 and 'id="screen-panel"' in gm.text and 'id="screen-view-state"' in gm.text


def test_the_screen_box_goes_to_the_gm_only_and_a_bad_one_is_refused(app, table):
    socketio = app.extensions["tacmap_socketio"]
    clients = {who: socketio.test_client(app, auth={"game": table["id"], "token": token})
               for who, token in (("gm", table["gm_token"]), ("screen", table["screen_token"]),
                                  ("ann", table["ann"]["player_token"]))}
    for c in clients.values():
        c.get_received()
    report = {"x": 1, "y": 2, "width": 10, "height": 5.625, "frame_w": 1920, "frame_h": 1080, "screen_w": 1920}
    assert clients["screen"].emit("screen_box", report, callback=True) == {"ok": True}
    got = [m["args"][0] for m in clients["gm"].get_received() if m["name"] == "screen_box"]
    assert got == [{k: float(v) for k, v in report.items()} | {"tokens": []}]
    assert clients["screen"].emit("screen_box", {**report, "tokens": [table["ids"]["Ann"]]}, callback=True)["ok"]
    socketio.sleep(RELAY_EVERY + 0.1)  # the GM gets a report a quarter of a second at most (#72)
    assert [m["args"][0]["tokens"] for m in clients["gm"].get_received()] == [[table["ids"]["Ann"]]]
    assert not [m for m in clients["ann"].get_received() if m["name"] == "screen_box"]
    assert clients["gm"].emit("screen_box", {"ask": True}, callback=True) == {"ok": True}
    assert [m["name"] for m in clients["screen"].get_received()] == ["screen_box_ask"]
    for bad in ({**report, "x": "left"}, {**report, "width": float("inf")}, {"x": 1}, {**report, "extra": 1},
                {**report, "tokens": "all"}, {**report, "tokens": [3]}, {**report, "tokens": ["t"] * 2001}):
        ack = clients["screen"].emit("screen_box", bad, callback=True)
        assert ack["ok"] is False and ack["error"], bad
    ack = clients["ann"].emit("screen_box", report, callback=True)
    assert ack == {"ok": False, "error": "only the table screen reports what it shows"}
    assert not [m for m in clients["gm"].get_received() if m["name"] == "screen_box"]


def test_a_screens_reports_are_bounded_as_they_come_and_paced_to_the_gm(app, table):
    """#72 (T9: a screen's key sent 2,000 token ids in each report, relayed to the GM 215 times in 3 s): a report
    naming more ids than the game has tokens is refused with a word, nothing relayed; ids of no token are left out
    and one drawn twice is named once; a burst of 60 reports reaches the GM as at most two, the newest last."""
    socketio = app.extensions["tacmap_socketio"]
    gm = socketio.test_client(app, auth={"game": table["id"], "token": table["gm_token"]})
    screen = socketio.test_client(app, auth={"game": table["id"], "token": table["screen_token"]})
    socketio.sleep(RELAY_EVERY + 0.1)
    gm.get_received()
    report = {"x": 1, "y": 2, "width": 10, "height": 5.625, "frame_w": 1920, "frame_h": 1080, "screen_w": 1920}
    ids = list(table["ids"].values())
    ack = screen.emit("screen_box", {**report, "tokens": [*ids, "t-00000000"]}, callback=True)
    assert ack["ok"] is False and "at most the game's 3 tokens; it named 4" in ack["error"], ack
    ack = screen.emit("screen_box", {**report, "tokens": [f"t-{i:08x}" for i in range(2000)]}, callback=True)
    assert ack["ok"] is False and "at most the game's 3 tokens" in ack["error"], ack
    socketio.sleep(RELAY_EVERY + 0.1)
    assert not [m for m in gm.get_received() if m["name"] == "screen_box"]

    for i in range(60):
        tokens = [ids[0], "t-nothing", ids[0]]
        assert screen.emit("screen_box", {**report, "x": i, "tokens": tokens}, callback=True)["ok"]
    socketio.sleep(RELAY_EVERY + 0.1)
    got = [m["args"][0] for m in gm.get_received() if m["name"] == "screen_box"]
    assert 1 <= len(got) <= 2, [g["x"] for g in got]
    assert got[-1]["x"] == 59 and all(g["tokens"] == [ids[0]] for g in got), got
