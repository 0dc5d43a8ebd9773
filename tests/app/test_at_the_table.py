"""At a real table: walls stop moves, big tokens, the GM's panel commands, players coming back,
honest pages. Flask and Flask-SocketIO test clients against the app."""

from __future__ import annotations

import json

import pytest

import rules
from tests.helpers import bearer, connect
from webapp.cli import server_links
from webapp.demo import demo_board
from webapp.game.core.model import Event
from webapp.game.board.tokens import token_added

GRID_SYSTEMS = [s.id for s in rules.systems() if s.board == "grid"]


def command(client, game_id, key, **payload):
    return client.post(f"/api/games/{game_id}/commands", json=payload, headers=bearer(key))


def state(client, game_id, key):
    return client.get(f"/api/games/{game_id}/state", headers=bearer(key)).json


def walled_game(hub, system="plain_grid"):
    """The demo's board (a guard room whose east door is closed) with Aria inside it at (4, 4)."""
    record = hub.create_game("Walls", system, demo_board())
    hub.commit(record.id, lambda game: [token_added(game, "Aria", 4, 4, kind="pc")])
    return record


def token_id(hub, game_id, name):
    """A token's id by its name (ids are random)."""
    return next(t.id for t in hub.game(game_id).tokens.values() if t.name == name)


def join(client, record, name):
    r = client.post(f"/api/games/{record['id'] if isinstance(record, dict) else record.id}/players",
                    json={"join_code": record["join_code"] if isinstance(record, dict) else record.join_code,
                          "name": name})
    return r


# --- 1. walls and closed doors stop a move --------------------------------------


@pytest.mark.parametrize("system_id", GRID_SYSTEMS)
def test_a_move_through_a_closed_door_is_refused_and_allowed_once_it_is_open(client, hub, system_id):
    g = walled_game(hub, system_id)
    t1 = token_id(hub, g.id, "Aria")
    # (12, 5) is just outside the room's east door: a straight line, but the door is shut
    r = command(client, g.id, g.gm_key, type="move_token", token_id=t1, x=12, y=5)
    assert r.status_code == 422 and "no way through" in r.json["error"]
    assert state(client, g.id, g.gm_key)["tokens"][0]["x"] == 4
    assert command(client, g.id, g.gm_key, type="set_door", door_id="door-1", closed=False).status_code == 200
    assert command(client, g.id, g.gm_key, type="move_token", token_id=t1, x=12, y=5).status_code == 200
    aria = state(client, g.id, g.gm_key)["tokens"][0]
    assert (aria["x"], aria["y"]) == (12, 5)


def test_the_gm_may_force_a_move_and_the_log_says_it_was_a_ruling(app, client, hub):
    g = walled_game(hub)
    t1 = token_id(hub, g.id, "Aria")
    gm = connect(app, g.id, g.gm_key)
    ack = gm.emit("command", {"type": "move_token", "token_id": t1, "x": 12, "y": 5}, callback=True)
    assert ack["ok"] is False and ack["code"] == "no_way"
    ack = gm.emit("command", {"type": "move_token", "token_id": t1, "x": 12, "y": 5, "force": True}, callback=True)
    assert ack["ok"] is True
    assert hub.game(g.id).log[-1].text == "GM ruling: Aria moved to (12, 5)"


def test_a_player_cannot_force_a_move(client, hub):
    g = walled_game(hub)
    t1 = token_id(hub, g.id, "Aria")
    player = join(client, g, "Mira").json
    command(client, g.id, g.gm_key, type="update_token", token_id=t1, owner=player["player_id"])
    r = command(client, g.id, player["player_token"], type="move_token", token_id=t1, x=12, y=5, force=True)
    assert r.status_code == 422 and r.json["error"] == "only the GM can force a move"
    r = command(client, g.id, player["player_token"], type="move_token", token_id=t1, x=12, y=5)
    assert "no way through" in r.json["error"]
    # inside the room the player's move goes
    assert command(client, g.id, player["player_token"], type="move_token", token_id=t1, x=8, y=8).status_code == 200


def test_a_refusal_never_names_a_hidden_token(client, hub):
    g = walled_game(hub)
    t1 = token_id(hub, g.id, "Aria")
    player = join(client, g, "Mira").json
    command(client, g.id, g.gm_key, type="update_token", token_id=t1, owner=player["player_id"])
    command(client, g.id, g.gm_key, type="add_token", name="Lurker", x=6, y=6, hidden=True)
    # the GM is refused, and told who is there
    r = command(client, g.id, g.gm_key, type="move_token", token_id=t1, x=6, y=6)
    assert r.json["error"] == "G7 is taken by Lurker"
    # for the player the square is free: a refusal would say where the hidden token stands
    r = command(client, g.id, player["player_token"], type="move_token", token_id=t1, x=6, y=6)
    assert r.status_code == 200
    assert [(t["name"], t["x"], t["y"]) for t in state(client, g.id, player["player_token"])["tokens"]] == [
        ("Aria", 6, 6)]


# --- 10. token size ---------------------------------------------------------------


def test_a_big_token_covers_all_its_squares(client):
    g = client.post("/api/games", json={"name": "Big", "system": "plain_grid"}).json
    gm = g["gm_token"]
    ogre = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Ogre", "x": 2, "y": 2, "size": 2},
                       headers=bearer(gm)).json["id"]
    assert state(client, g["id"], gm)["tokens"][0]["size"] == 2
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Imp", "x": 3, "y": 3}, headers=bearer(gm))
    assert r.status_code == 422 and "D4 is taken by Ogre" in r.json["error"]
    r = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Imp", "x": 23, "y": 0, "size": 3},
                    headers=bearer(gm))
    assert r.status_code == 422 and "off the map" in r.json["error"]
    imp = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Imp", "x": 4, "y": 2},
                      headers=bearer(gm)).json["id"]
    # growing into the imp's square is refused; elsewhere it is fine
    r = command(client, g["id"], gm, type="update_token", token_id=ogre, size=3)
    assert r.status_code == 422 and "taken by Imp" in r.json["error"]
    assert command(client, g["id"], gm, type="move_token", token_id=imp, x=9, y=9).status_code == 200
    assert command(client, g["id"], gm, type="update_token", token_id=ogre, size=3).status_code == 200
    assert command(client, g["id"], gm, type="update_token", token_id=ogre, size=4).status_code == 422


def test_a_big_token_does_not_fit_through_a_one_square_door(client, hub):
    record = hub.create_game("Walls", "plain_grid", demo_board())
    hub.commit(record.id, lambda game: [token_added(game, "Ogre", 4, 4, size=2),
                                        Event("door_set", {"door_id": "door-1", "closed": False})])
    t1 = token_id(hub, record.id, "Ogre")
    r = command(client, record.id, record.gm_key, type="move_token", token_id=t1, x=12, y=5)
    assert r.status_code == 422 and "no way through" in r.json["error"]
    assert command(client, record.id, record.gm_key, type="move_token", token_id=t1, x=7, y=6).status_code == 200


# --- 8. the GM's panel: duplicates, numbered names, the hidden switch ------------------


def test_duplicating_a_token_numbers_its_name_and_puts_it_next_to_it(client, hub, demo):
    goblin = next(t for t in hub.game(demo.id).tokens.values() if t.name == "Goblin")
    assert command(client, demo.id, demo.gm_key, type="duplicate_token", token_id=goblin.id).status_code == 200
    assert command(client, demo.id, demo.gm_key, type="duplicate_token", token_id=goblin.id).status_code == 200
    copies = [t for t in hub.game(demo.id).tokens.values()
              if t.name.startswith("Goblin ") and t.name != "Goblin archer"]
    assert [t.name for t in copies] == ["Goblin 2", "Goblin 3"]
    for t in copies:
        assert max(abs(t.x - goblin.x), abs(t.y - goblin.y)) <= 2 and t.kind == goblin.kind
    # adding a name that exists gets the next number too
    assert command(client, demo.id, demo.gm_key, type="add_token", name="goblin", x=0, y=0).status_code == 200
    assert "goblin 4" in [t.name for t in hub.game(demo.id).tokens.values()]


def test_saving_an_unchanged_row_is_a_quiet_no_op(client, hub, demo):
    t1 = token_id(hub, demo.id, "Aria")
    client.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    seq = hub.game(demo.id).seq
    form = {"type": "update_token", "token_id": t1, "name": "Aria", "color": "#2563eb", "owner": "",
            "size": "1", "hidden": "false"}
    r = client.post(f"/games/{demo.id}/commands", data=form, headers={"HX-Request": "true"})
    assert r.status_code == 200 and json.loads(r.headers["HX-Trigger"]) == {"tacmap:notice": "Nothing changed."}
    assert hub.game(demo.id).seq == seq
    r = client.post(f"/games/{demo.id}/commands?lang=de", data=form, headers={"HX-Request": "true"})  # (#37)
    assert r.status_code == 200 and json.loads(r.headers["HX-Trigger"]) == {"tacmap:notice": "Nichts geändert."}
    # the hidden switch alone, as the panel sends it
    r = client.post(f"/games/{demo.id}/commands", data={"type": "update_token", "token_id": t1, "hidden": "true"},
                    headers={"HX-Request": "true"})
    assert r.status_code == 204 and hub.game(demo.id).tokens[t1].hidden


def test_a_refused_htmx_form_gets_an_answer_not_an_http_error(client, demo):
    client.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    r = client.post(f"/games/{demo.id}/commands", data={"type": "add_token", "name": "X", "x": "17", "y": "11"},
                    headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert json.loads(r.headers["HX-Trigger"]) == {"tacmap:refused": "R12 is blocked"}


def test_the_gm_panel_places_duplicates_and_sizes_tokens(client, demo):
    page = client.get(f"/games/{demo.id}/gm?key={demo.gm_key}", follow_redirects=True).get_data(as_text=True)
    assert 'id="place-token"' in page and "js/panel.js" in page and "css/panel.css" in page
    assert 'name="size"' in page and 'value="duplicate_token"' in page
    assert 'data-field="hidden"' in page


# --- 3. players coming back ----------------------------------------------------


def test_the_same_name_is_the_same_player_and_gets_a_new_key(client, hub):
    g = client.post("/api/games", json={"name": "Rejoin", "system": "plain_grid"}).json
    first = join(client, g, "Mira")
    assert first.status_code == 201
    assert command(client, g["id"], g["gm_token"], type="allow_reclaim", allow=True).status_code == 200
    again = join(client, g, "  mira ")
    assert again.status_code == 200 and again.json["reclaimed"] is True
    assert again.json["player_id"] == first.json["player_id"]
    assert [p["name"] for p in state(client, g["id"], g["gm_token"])["players"]] == ["Mira"]
    # the seat is on the new device now; the old key no longer opens it
    assert client.get(f"/api/games/{g['id']}/state", headers=bearer(first.json["player_token"])).status_code == 401
    assert client.get(f"/api/games/{g['id']}/state", headers=bearer(again.json["player_token"])).status_code == 200
    assert hub.game(g["id"]).log[-1].text == "Mira took their seat back on another device"


def test_a_seat_taken_by_name_waits_for_the_gms_answer(client, hub):
    """Issue #25, finding 11: the join code and a name are not a seat; the GM is asked (unless the GM turned
    taking a seat back on)."""
    g = client.post("/api/games", json={"name": "Rejoin", "system": "plain_grid"}).json
    mira = join(client, g, "Mira").json
    r = join(client, g, "Mira")
    assert r.status_code == 202 and r.json["waiting"] is True and r.json["player_id"] == mira["player_id"]
    asked = r.json["player_token"]
    assert client.get(f"/api/games/{g['id']}/state", headers=bearer(asked)).status_code == 401  # not yet
    assert client.get(f"/api/games/{g['id']}/state", headers=bearer(mira["player_token"])).status_code == 200
    refused = command(client, g["id"], g["gm_token"], type="answer_seat", request_id=r.json["request_id"], allow=False)
    assert refused.status_code == 200
    assert client.get(f"/api/games/{g['id']}/state", headers=bearer(asked)).status_code == 401
    assert len(state(client, g["id"], g["gm_token"])["players"]) == 1
    again = join(client, g, "Mira").json
    assert command(client, g["id"], g["gm_token"], type="answer_seat", request_id=again["request_id"],
                   allow=True).status_code == 200
    assert client.get(f"/api/games/{g['id']}/state", headers=bearer(again["player_token"])).status_code == 200
    assert client.get(f"/api/games/{g['id']}/state", headers=bearer(mira["player_token"])).status_code == 401
    # the player cannot answer for the GM
    more = join(client, g, "Mira").json
    r = command(client, g["id"], again["player_token"], type="answer_seat", request_id=more["request_id"], allow=True)
    assert r.status_code == 422 and more["request_id"] in hub.game(g["id"]).seat_requests


def test_a_returning_device_is_offered_to_continue_and_goes_back_in_without_a_new_seat(client, hub, demo):
    r = client.post("/join", data={"code": demo.join_code, "name": "Mira"})
    assert r.status_code == 302
    page = client.get(f"/join?code={demo.join_code}").get_data(as_text=True)
    assert "Continue as Mira" in page
    seq = hub.game(demo.id).seq
    r = client.post("/join", data={"code": demo.join_code, "name": "Mira"})
    assert r.status_code == 302 and hub.game(demo.id).seq == seq  # nothing new: the same seat
    # the logo's lobby lists the games this device sits in
    lobby = client.get("/").get_data(as_text=True)
    assert 'id="seats"' in lobby and f"/games/{demo.id}/play" in lobby


def test_a_reclaim_on_another_device_is_logged_and_ends_the_old_connection(app, client, hub, demo):
    assert command(client, demo.id, demo.gm_key, type="allow_reclaim", allow=True).status_code == 200
    phone = app.test_client()
    phone.post("/join", data={"code": demo.join_code, "name": "Mira"})
    with phone.session_transaction() as s:
        old_key = s["player"][demo.id]
    old = connect(app, demo.id, old_key)
    assert old.is_connected()
    private_tab = app.test_client()
    assert private_tab.post("/join", data={"code": demo.join_code, "name": "Mira"}).status_code == 302
    assert len(hub.game(demo.id).players) == 1
    assert "Mira took their seat back on another device" in [e.text for e in hub.game(demo.id).log]
    assert not old.is_connected()
    assert private_tab.get(f"/games/{demo.id}/play").status_code == 200


def test_removing_a_player_ends_their_sessions_and_keeps_their_tokens(app, client, hub, demo):
    mira = join(client, {"id": demo.id, "join_code": demo.join_code}, "Mira").json
    t1 = token_id(hub, demo.id, "Aria")
    command(client, demo.id, demo.gm_key, type="update_token", token_id=t1, owner=mira["player_id"])
    sock = connect(app, demo.id, mira["player_token"])
    sock.get_received()
    assert command(client, demo.id, demo.gm_key, type="remove_player", player_id=mira["player_id"]).status_code == 200
    assert not sock.is_connected()
    game = hub.game(demo.id)
    assert game.players == {} and game.tokens[t1].owner is None
    assert client.get(f"/api/games/{demo.id}/state", headers=bearer(mira["player_token"])).status_code == 401


def test_merging_two_players_moves_tokens_and_devices(app, client, hub, demo):
    code = {"id": demo.id, "join_code": demo.join_code}
    a = join(client, code, "Mira").json
    b = join(client, code, "Mira B").json
    t2 = token_id(hub, demo.id, "Brann")
    command(client, demo.id, demo.gm_key, type="update_token", token_id=t2, owner=b["player_id"])
    r = command(client, demo.id, demo.gm_key, type="merge_players", player_id=b["player_id"], into=a["player_id"])
    assert r.status_code == 200
    game = hub.game(demo.id)
    assert list(game.players) == [a["player_id"]] and game.tokens[t2].owner == a["player_id"]
    you = state(client, demo.id, b["player_token"])["you"]
    assert you == {"role": "player", "player_id": a["player_id"]}
    r = command(client, demo.id, demo.gm_key, type="merge_players", player_id=a["player_id"], into=a["player_id"])
    assert r.status_code == 422


# --- 7. pages that lead somewhere --------------------------------------------------


def test_error_pages_have_the_layout_and_a_way_back(client, demo):
    r = client.get("/games/nosuch/gm")
    page = r.get_data(as_text=True)
    assert r.status_code == 404 and 'class="topbar"' in page and 'href="/"' in page and "Back to the lobby" in page
    client.post("/join", data={"code": demo.join_code, "name": "Mira"})
    r = client.get(f"/games/{demo.id}/gm")
    page = r.get_data(as_text=True)
    assert r.status_code == 403 and f'href="/games/{demo.id}/play"' in page and "Back to your game" in page
    r = client.get(f"/games/{demo.id}/tokens/nosuch/sheet")
    assert r.status_code == 404 and "Back to your game" in r.get_data(as_text=True)


def test_the_favicon_is_served_and_linked(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    assert 'rel="icon"' in client.get("/").get_data(as_text=True)


# --- 4. the links `tacmap serve` prints --------------------------------------------


def test_serve_on_one_lan_address_prints_only_that_address():
    urls, gm_base, public = server_links("192.168.1.20", 5000, lan=["192.168.1.20", "10.0.0.5"])
    assert urls == ["http://192.168.1.20:5000"] and gm_base == "http://192.168.1.20:5000"
    assert public == "http://192.168.1.20:5000"
    assert not any("localhost" in u for u in urls + [gm_base])


def test_serve_on_every_address_prints_the_lan_ones_and_localhost():
    urls, gm_base, public = server_links("0.0.0.0", 5000, lan=["192.168.1.20"])
    assert urls == ["http://192.168.1.20:5000", "http://localhost:5000"]
    assert gm_base == public == "http://192.168.1.20:5000"
    urls, gm_base, public = server_links("0.0.0.0", 5000, lan=[])
    assert urls == ["http://localhost:5000"] and gm_base == "http://localhost:5000" and public is None


def test_serve_on_loopback_prints_loopback_and_a_public_url_wins():
    urls, gm_base, public = server_links("127.0.0.1", 8000, lan=["192.168.1.20"])
    assert urls == ["http://127.0.0.1:8000", "http://localhost:8000"] and public is None
    _urls, gm_base, public = server_links("192.168.1.20", 5000, [], public_url="http://table.lan:5000")
    assert gm_base == public == "http://table.lan:5000"
    assert server_links("fd00::2", 5000, [])[0] == ["http://[fd00::2]:5000"]


# --- 5 and 6. help and sheets say what is true --------------------------------------


@pytest.mark.parametrize("system_id", [s.id for s in rules.systems()])
def test_every_help_page_says_what_the_app_does_today(client, system_id):
    page = client.get(f"/help/{system_id}").get_data(as_text=True)
    assert page.count('id="app-status"') == 1
    status = page[page.index('id="app-status"'):page.index("</section>", page.index('id="app-status"'))]
    assert "What the app automates in every game" in status
    assert "no wall, no closed door" in status and "secret roll reaches only the GM" in status
    if system_id != "plain_grid":
        assert "exact odds of each outcome" in status and "sheet page" in status
    assert "not in the app yet" not in page.lower() and "to come" not in page
    # what the foes' planner weighs, every foe and this system's own (#67)
    planned = getattr(rules.get(system_id), "planner", None) is not None
    assert ("What every foe weighs" in status) == planned
    assert ("What the foes weigh in" in status) == planned, system_id


def test_a_savage_worlds_sheet_is_titled_with_the_tokens_name(client):
    g = client.post("/api/games", json={"name": "SW", "system": "savage_worlds"}).json
    tid = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Goblin", "x": 1, "y": 1},
                      headers=bearer(g["gm_token"])).json["id"]
    client.get(g["urls"]["gm"])
    page = client.get(f"/games/{g['id']}/tokens/{tid}/sheet").get_data(as_text=True)
    assert "<h2>Goblin" in page and "Hero" not in page


@pytest.mark.parametrize("payload", [
    {"type": "duplicate_token", "token_id": "ARIA"},
    {"type": "remove_player", "player_id": "MIRA"},
    {"type": "merge_players", "player_id": "MIRA", "into": "MIRA"},
    {"type": "allow_reclaim", "allow": False},
    {"type": "update_token", "token_id": "ARIA", "size": 2},
])
def test_only_the_gm_runs_the_panels_commands(client, hub, demo, payload):
    mira = join(client, {"id": demo.id, "join_code": demo.join_code}, "Mira").json
    ids = {"MIRA": mira["player_id"], "ARIA": token_id(hub, demo.id, "Aria")}
    payload = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in payload.items()}
    seq = hub.game(demo.id).seq
    r = command(client, demo.id, mira["player_token"], **payload)
    # update_token is a player's too, for the picture of their own token only (#27): Aria is not Mira's
    refusal = "Aria is not yours" if payload["type"] == "update_token" else "only the GM can do that"
    assert r.status_code == 422 and r.json["error"] == refusal
    r = command(client, demo.id, demo.screen_key, **payload)
    assert r.status_code == 422 and r.json["error"] == "the table screen only shows the map"
    assert hub.game(demo.id).seq == seq


def test_a_server_error_page_has_the_layout_and_a_way_back(app, monkeypatch):
    from webapp.game import access

    app.config["PROPAGATE_EXCEPTIONS"] = False
    monkeypatch.setitem(access.ROUTES, "boom", access.ROUTES["help.index"])  # every route has an access row

    @app.get("/boom")
    def boom():
        raise RuntimeError("a bug")

    r = app.test_client().get("/boom")
    page = r.get_data(as_text=True)
    assert r.status_code == 500 and 'class="topbar"' in page and "Back to the lobby" in page
    assert "a bug" not in page


def test_a_name_typed_on_another_device_takes_no_seat_until_the_gm_gives_it(app, client, hub, demo):
    """Issue #25, finding 11, through the pages and the live link: the seat's own device stays connected,
    the GM's page shows the request at once, and only the GM's answer gives the seat."""
    phone = app.test_client()
    phone.post("/join", data={"code": demo.join_code, "name": "Mira"})
    with phone.session_transaction() as s:
        mira_key = s["player"][demo.id]
    mira = connect(app, demo.id, mira_key)
    gm = connect(app, demo.id, demo.gm_key)
    gm.get_received()
    stranger = app.test_client()
    r = stranger.post("/join", data={"code": demo.join_code, "name": "mira"})
    assert r.status_code == 302 and r.location.endswith(f"/join?code={demo.join_code}")
    page = stranger.get(r.location).get_data(as_text=True)
    assert "Waiting for the GM to give you Mira&#39;s seat" in page and 'http-equiv="refresh"' in page
    assert stranger.get(f"/games/{demo.id}/play").status_code == 302  # no seat yet
    assert mira.is_connected()  # the seat's own device plays on
    shown = json.dumps([m["args"] for m in gm.get_received()])
    request_id = next(iter(hub.game(demo.id).seat_requests))
    assert f"seat-request-{request_id}" in shown and "asks for <strong>Mira</strong>" in shown
    # the GM refuses: the stranger is told, and holds nothing
    gm_browser = app.test_client()
    gm_browser.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    assert gm_browser.post(f"/games/{demo.id}/commands",
                           data={"type": "answer_seat", "request_id": request_id, "allow": "false"}).status_code == 204
    r = stranger.get(f"/join?code={demo.join_code}")
    assert r.status_code == 403 and "did not give you that seat" in r.get_data(as_text=True)
    assert mira.is_connected() and stranger.get(f"/games/{demo.id}/play").status_code == 302
    # asked again and given: the new device plays, the old one is out
    stranger.post("/join", data={"code": demo.join_code, "name": "Mira"})
    request_id = next(iter(hub.game(demo.id).seat_requests))
    gm_browser.post(f"/games/{demo.id}/commands", data={"type": "answer_seat", "request_id": request_id, "allow": "true"})
    r = stranger.get(f"/join?code={demo.join_code}")
    assert r.status_code == 302 and r.location.endswith(f"/games/{demo.id}/play")
    assert stranger.get(f"/games/{demo.id}/play").status_code == 200
    assert not mira.is_connected()


def test_a_copied_foe_plays_a_copy_of_its_character_with_wounds_of_its_own(client, hub):
    """Issue #70: the GM's copy of a token with a character played the system's sample character."""
    g = client.post("/api/games", json={"name": "Copies", "system": "savage_worlds"}).json
    gm = g["gm_token"]
    orc = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Orc", "x": 2, "y": 2}, headers=bearer(gm)).json["id"]
    assert command(client, g["id"], gm, type="add_character", name="Orc", token_id=orc).status_code == 200
    made = next(c for c in hub.game(g["id"]).characters.values() if c.token_id == orc)
    r = command(client, g["id"], gm, type="update_sheet", character_id=made.id,
                changes={"attributes.strength": "d12", "skills.fighting": "d10", "wounds": 1})
    assert r.status_code == 200

    assert command(client, g["id"], gm, type="duplicate_token", token_id=orc).status_code == 200
    game = hub.game(g["id"])
    twin = next(t for t in game.tokens.values() if t.name == "Orc 2")
    its = next(c for c in game.characters.values() if c.token_id == twin.id)
    assert its.id != made.id and its.name == "Orc 2"
    assert its.sheet == {**made.sheet, "name": "Orc 2"}  # the orc as it is, the sample's Hero nowhere
    assert [c["name"] for c in state(client, g["id"], gm)["characters"]] == ["Orc", "Orc 2"]
    # its wounds from then on are its own
    assert command(client, g["id"], gm, type="update_sheet", character_id=its.id, changes={"wounds": 3}).status_code == 200
    assert game.characters[its.id].sheet["wounds"] == 3 and game.characters[made.id].sheet["wounds"] == 1
    assert game.characters[made.id].sheet["attributes"] is not game.characters[its.id].sheet["attributes"]
    # and the undo takes the copy back with its character
    assert command(client, g["id"], gm, type="undo").status_code == 200  # the wounds
    assert command(client, g["id"], gm, type="undo").status_code == 200  # the copy
    game = hub.game(g["id"])
    assert twin.id not in game.tokens and its.id not in game.characters and made.id in game.characters
