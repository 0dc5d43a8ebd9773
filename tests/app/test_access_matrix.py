"""The access matrix (webapp/game/access.py), table-driven: every command and every HTTP route x every role
gets the matrix's answer. Allowed: not refused for access reasons. Refused: the matrix's refusal (an
``access.Forbidden`` with its ack, or the route's status) and the state unchanged. A command type or a
route with no row, or no request here to try it with, fails."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, join, new_game
from webapp.game import access
from webapp.game.tableside import keys
from webapp.game.views import replay_view
from webapp.game.table import COMMAND_TYPES
from webapp.game.core.model import GM, SCREEN, Actor

ALL_COMMANDS = (*COMMAND_TYPES, *keys.COMMAND_TYPES, *replay_view.COMMAND_TYPES, "drag_preview")


@pytest.fixture(scope="module")
def app(module_app):
    return module_app  # one app for the module's many cases


@pytest.fixture(scope="module")
def hub(app):
    return app.extensions["tacmap"]


def make_table(app) -> dict:
    """A game in a fight: Aria (Mira's, whose turn it is, with a character), Bruno (Olaf's), an Ogre (the GM's)."""
    c = app.test_client()
    g = new_game(c, "plain_grid", name="Matrix")
    gm = bearer(g["gm_token"])
    mira = join(c, g, "Mira")
    olaf = join(c, g, "Olaf")
    ids = {}
    for name, x, owner in (("Aria", 1, mira["player_id"]), ("Bruno", 3, olaf["player_id"]), ("Ogre", 5, None)):
        ids[name] = c.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 1, "owner": owner,
                                                                  "kind": "pc" if owner else "npc"},
                           headers=gm).json["id"]
    c.post(f"/api/games/{g['id']}/commands", json={"type": "add_character", "name": "Aria", "token_id": ids["Aria"],
                                                  "owner": mira["player_id"]}, headers=gm)
    c.post(f"/api/games/{g['id']}/commands", json={"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]},
           headers=gm)
    other = new_game(c, "plain_grid", name="Elsewhere")
    state = c.get(f"/api/games/{g['id']}/state", headers=gm).json
    assert state["combat"]["current"] == ids["Aria"]
    character = next(ch["id"] for ch in state["characters"] if ch["token_id"] == ids["Aria"])
    return g | {"mira": mira, "olaf": olaf, "ids": ids, "character": character, "other": other}


def payload(kind: str, t: dict) -> dict:
    """A command of each type about Mira's Aria (what an owner-rule refers to)."""
    ids = t["ids"]
    examples = {
        "move_token": {"token_id": ids["Aria"], "x": 1, "y": 3},
        "add_token": {"name": "Imp", "x": 8, "y": 8},
        "update_token": {"token_id": ids["Aria"], "name": "Aria the Bold"},
        "duplicate_token": {"token_id": ids["Aria"]},
        "remove_token": {"token_id": ids["Aria"]},
        "set_door": {"door_id": "door-1", "closed": True},
        "show_join": {"show": False},
        "remove_player": {"player_id": t["olaf"]["player_id"]},
        "merge_players": {"player_id": t["olaf"]["player_id"], "into": t["mira"]["player_id"]},
        "allow_reclaim": {"allow": False},
        "answer_seat": {"request_id": "r-none", "allow": True},
        "undo": {},
        "roll": {"expr": "2d6"},
        "set_settings": {"settings": {}},
        "start_combat": {"token_ids": [ids["Aria"]]},
        "next_turn": {},
        "set_order": {"order": [ids["Ogre"], ids["Aria"]]},
        "end_combat": {},
        "act": {"token_id": ids["Aria"], "action": "hold"},
        "reach": {"token_id": ids["Aria"]},
        "preview_attack": {"attacker": ids["Aria"], "target": ids["Ogre"]},
        "attack": {"attacker": ids["Aria"], "target": ids["Ogre"]},
        "add_character": {"name": "Spare"},
        "update_sheet": {"character_id": t["character"], "changes": {"name": "Aria B"}},
        "set_gm_password": {"password": "swordfish"},
        "clear_gm_password": {},
        "rotate_join_code": {},
        "rotate_screen_key": {},
        "drag_preview": {"token_id": ids["Aria"], "x": 2, "y": 2},
        "choose_defense": {"defense": "dodge"},
        "waive_attack": {"attacker": ids["Ogre"], "target": ids["Aria"]},
        "soak": {"accept": True},
        "set_dice": {"mode": "table"},
        "enter_dice": {"roll_id": "roll-none", "faces": [3, 4, 5]},
        "call_off_roll": {"roll_id": "roll-none"},
        "benny_reroll": {"accept": True},
        "place_template": {"shape": "circle", "x": 3, "y": 3, "size": 1},
        "move_template": {"template_id": "tpl-none", "x": 2, "y": 2},
        "remove_template": {"template_id": "tpl-none"},
        "add_wall": {"a": [1, 1], "b": [1, 3]},
        "remove_wall": {"wall_id": "wall-none"},
        "add_door": {"a": [2, 1], "b": [2, 2]},
        "remove_door": {"door_id": "door-1"},
        "block_cell": {"x": 9, "y": 9},
        "unblock_cell": {"x": 9, "y": 9},
        "set_terrain": {"x": 9, "y": 9, "cost": 2},
        "add_cover": {"x": 9, "y": 8, "material": "wood"},
        "remove_cover": {"cover_id": "cover-none"},
        "resize_map": {"width": 20, "height": 14},
        "add_zone": {"name": "Yard", "box": [0, 0, 3, 3]},
        "update_zone": {"zone_id": "none", "name": "Hall"},
        "remove_zone": {"zone_id": "none"},
        "link_zones": {"a": "none", "b": "other"},
        "set_fog": {"enabled": True},
        "reveal_cells": {"x": 1, "y": 1},
        "hide_cells": {"x": 1, "y": 1},
        "set_lighting": {"ambient": "dark"},
        "add_light": {"x": 3, "y": 3, "range": 4},
        "update_light": {"light_id": "light-none", "range": 2},
        "remove_light": {"light_id": "light-none"},
        "add_map": {"name": "Cellar"},
        "rename_map": {"map_id": "map-1", "name": "Hall"},
        "remove_map": {"map_id": "map-none"},
        "activate_map": {"map_id": "map-none"},
        "view_map": {"map_id": "map-1"},
        "align_picture": {"cell_px": 50},
        "remove_picture": {},
        "set_screen_touch": {"enabled": True},
        "show_recap": {},
        "hide_recap": {},
        "set_screen_view": {"center": [2, 2], "zoom": 2},
        "calibrate_screen": {"screen_width_mm": 1200},
        "show_handout": {"handout_id": "h-none", "to": "everyone"},
        "hide_handout": {"handout_id": "h-none"},
        "remove_handout": {"handout_id": "h-none"},
        "replay": {"at": 1},
        "replay_end": {},
        "x_card": {},
        "resume_scene": {},
        "set_tactic": {"token_id": ids["Ogre"], "tactic": "careful"},  # the GM's foe (#60)
        "play_foes": {"on": False},  # the "play the foes" switch (#60)
        "set_morale": {"morale": "fall_back"},  # once most of the foes are down (#67)
        "surrender": {"token_id": ids["Ogre"]},  # a foe yields (#67)
    }
    assert kind in examples, f"add an example of {kind!r} to payload()"
    return {"type": kind, **examples[kind]} if kind != "drag_preview" else examples[kind]


def expected_allowed(rule, role: str) -> bool:
    if access.ANYONE in rule.who:
        return True
    return {"gm": access.GM in rule.who,
            "owner": bool({access.OWNER, access.PLAYER} & rule.who),
            "other_player": access.PLAYER in rule.who,
            "screen": access.SCREEN in rule.who}.get(role, access.ANYONE in rule.who)


def snapshot(hub, game_id: str):
    return hub.game(game_id).to_dict(), hub.store.game(game_id)


def test_every_command_has_a_row_and_every_row_a_command():
    assert not set(ALL_COMMANDS) - set(access.COMMANDS), "commands without a row in webapp/game/access.py COMMANDS"
    assert not set(access.COMMANDS) - set(ALL_COMMANDS) - access.AWAITED, "rows for commands that do not exist"


@pytest.mark.parametrize("kind", ALL_COMMANDS)
def test_each_command_by_each_role_gets_the_matrix_answer(app, hub, kind):
    """Each role sends the command to a table as ``make_table`` makes it: a new one, or the one the role before was
    refused at and left exactly as it was (checked below); never one a command went through on."""
    assert kind in access.COMMANDS, f"{kind!r} has no row in webapp/game/access.py COMMANDS"
    rule = access.COMMANDS[kind]
    t = None
    for role in access.ROLES:
        t = t or make_table(app)
        game_id = t["id"]
        sent = payload(kind, t)
        before = snapshot(hub, game_id)
        if role in ("none", "other_game"):
            # no credential of this game: the API says 401 and the socket will not connect; nothing changes
            if kind == "drag_preview":
                continue  # a Socket.IO event only: the connection itself is refused (test below)
            headers = bearer(t["other"]["gm_token"]) if role == "other_game" else {}
            r = app.test_client().post(f"/api/games/{game_id}/commands", json=sent, headers=headers)
            assert r.status_code == 401, (kind, role, r.json)
            assert snapshot(hub, game_id) == before, (kind, role)
            continue
        actor = {"gm": GM, "owner": Actor("player", t["mira"]["player_id"]),
                 "other_player": Actor("player", t["olaf"]["player_id"]), "screen": SCREEN}[role]
        try:
            if kind == "drag_preview":
                hub.relays.preview(game_id, actor, sent, sid="matrix-test")
            else:
                hub.execute(game_id, actor, sent)
            refusal = None
        except access.Forbidden as exc:
            refusal = exc
        except access.Rejected:
            refusal = None  # refused by the rules or the state (not your turn, nothing to undo...), not by access
        if expected_allowed(rule, role):
            assert refusal is None, f"{kind} by {role}: refused by access: {refusal}"
            t = None  # it may have changed the table: the next role gets a new one
        else:
            assert refusal is not None, f"{kind} by {role}: the matrix refuses it, the table did not"
            assert snapshot(hub, game_id) == before, (kind, role)


def test_a_refusal_reaches_the_sender_as_its_ack_and_an_unknown_command_is_nobodys(app, hub):
    t = make_table(app)
    socketio = app.extensions["tacmap_socketio"]
    olaf = socketio.test_client(app, auth={"game": t["id"], "token": t["olaf"]["player_token"]})
    ack = olaf.emit("command", payload("move_token", t), callback=True)
    assert ack == {"ok": False, "error": "Aria is not yours to move"}
    screen = socketio.test_client(app, auth={"game": t["id"], "token": t["screen_token"]})
    assert screen.emit("command", payload("roll", t), callback=True) == {
        "ok": False, "error": "the table screen only shows the map"}
    ack = olaf.emit("preview", payload("drag_preview", t), callback=True)
    assert ack == {"ok": False, "error": "Aria is not yours to move"}
    for key in ("forged", t["other"]["gm_token"]):
        assert not socketio.test_client(app, auth={"game": t["id"], "token": key}).is_connected()
    with pytest.raises(access.Forbidden, match="no access rule"):
        access.check_command(hub.game(t["id"]), {"type": "launch_missiles"}, GM)


# --- HTTP routes ----------------------------------------------------------------


def request_for(endpoint: str, t: dict):
    """(method, path, form or json) to try each endpoint with; Aria's sheet for the owner-rule pages."""
    g, aria = t["id"], t["ids"]["Aria"]
    requests = {
        "static": ("GET", "/static/css/app.css", None),
        "favicon": ("GET", "/favicon.ico", None),
        "i18n.script_catalog": ("GET", "/i18n/de.js", None),
        "device.manifest": ("GET", "/manifest.webmanifest", None),
        "device.resume": ("GET", "/resume", None),
        "help.index": ("GET", "/help/", None),
        "help.system": ("GET", "/help/plain_grid", None),
        "lobby.index": ("GET", "/", None),
        "lobby.create": ("POST", "/games", {"name": "Another", "system": "plain_grid"}),
        "game.join_form": ("GET", f"/join?code={t['join_code']}", None),
        "game.join": ("POST", "/join", {"code": t["join_code"], "name": "Newcomer"}),
        "game.gm": ("GET", f"/games/{g}/gm", None),
        "game.gm_password": ("GET", f"/games/{g}/gm/password", None),
        "game.security_panel": ("POST", f"/games/{g}/security", {"type": "rotate_join_code"}),
        "game.play": ("GET", f"/games/{g}/play", None),
        "game.screen": ("GET", f"/games/{g}/screen", None),
        "recap.page": ("GET", f"/games/{g}/recap", None),
        "game.command": ("POST", f"/games/{g}/commands", {"type": "roll", "expr": "d6"}),
        "game.timeline": ("GET", f"/games/{g}/timeline", None),
        "game.board_list": ("GET", f"/games/{g}/board-list", None),
        "game.sheet": ("GET", f"/games/{g}/tokens/{aria}/sheet", None),
        "game.edit_sheet": ("POST", f"/games/{g}/tokens/{aria}/sheet", {}),
        "api.create_game": ("POST", "/api/games", {"name": "Scripted"}),
        "api.add_player": ("POST", f"/api/games/{g}/players", {"join_code": t["join_code"], "name": "Bot"}),
        "api.add_token": ("POST", f"/api/games/{g}/tokens", {"name": "Imp", "x": 9, "y": 9}),
        "api.state": ("GET", f"/api/games/{g}/state", None),
        "api.suggestions": ("GET", f"/api/games/{g}/suggestions/{t['ids']['Ogre']}", None),  # #60
        "game.foe_plans": ("GET", f"/games/{g}/foe-plans/{t['ids']['Ogre']}", None),  # #60
        "api.start_forecast": ("POST", f"/api/games/{g}/forecast", {"runs": 1}),  # #68
        "game.forecast_form": ("GET", f"/games/{g}/forecast-form", None),
        "game.forecast_start": ("POST", f"/games/{g}/forecast", {"runs": "1"}),
        "game.forecast_show": ("GET", f"/games/{g}/forecast/none", None),
        "game.forecast_stop": ("POST", f"/games/{g}/forecast/none/stop", {}),
        "api.forecast_figures": ("GET", f"/api/games/{g}/forecast/none", None),
        "api.stop_forecast": ("DELETE", f"/api/games/{g}/forecast/none", None),
        "api.command": ("POST", f"/api/games/{g}/commands", {"type": "roll", "expr": "d6"}),
        "api.import_map": ("POST", f"/api/games/{g}/maps", {}),
        "api.map_picture": ("POST", f"/api/games/{g}/maps/active/picture", {}),
        "maps.page_import": ("POST", f"/games/{g}/maps", {}),
        "maps.page_picture": ("POST", f"/games/{g}/maps/picture", {}),
        "maps.picture": ("GET", f"/games/{g}/pictures/{'0' * 64}.png", None),
        "api.handout": ("POST", f"/api/games/{g}/handouts", {}),
        "api.token_picture": ("POST", f"/api/games/{g}/pictures", {}),
        "handouts.page_handout": ("POST", f"/games/{g}/handouts", {}),
        "handouts.page_picture": ("POST", f"/games/{g}/pictures", {}),
        # room mode (#38): off in this app, so each is 404 whoever asks; tests/app/test_room_mode.py plays them
        "room.index": ("GET", "/room", None),
        "room.tables": ("GET", "/room/tables", None),
        "room.setup_form": ("GET", "/room/setup?token=x", None),
        "room.setup": ("POST", "/room/setup", {"token": "x", "password": "abcd", "confirm": "abcd"}),
        "room.login": ("POST", "/room/login", {"password": "abcd"}),
        "room.logout": ("POST", "/room/logout", {}),
        "room.make_tables": ("POST", "/room/tables", {"template": g, "count": "1"}),
        "room.edit_table": ("POST", "/room/tables/abc", {"name": "x"}),
        "room.new_pin": ("POST", "/room/tables/abc/pin", {}),
        "room.new_code": ("POST", "/room/tables/abc/code", {}),
        "room.confirm_reset": ("GET", "/room/tables/abc/reset", None),
        "room.reset": ("POST", "/room/tables/abc/reset", {}),
        "room.close": ("POST", "/room/close", {}),
        "room.reopen": ("POST", "/room/reopen", {}),
        "room.download": ("GET", f"/room/games/{g}.tacmap", None),
        "room.sheets": ("GET", "/room/sheets", None),
        "room.sheet": ("GET", "/room/tables/abc/sheet", None),
        "room.door": ("GET", "/room/t/abc/gm?key=x", None),
        "room.pin": ("POST", "/pin", {"pin": "123456"}),
    }
    assert endpoint in requests, f"add a request to try {endpoint} with to request_for()"
    return requests[endpoint]


def client_as(app, t: dict, role: str, api: bool):
    """A test client holding the role's credential: a session cookie for pages, a Bearer header for the API."""
    client = app.test_client()
    key = {"gm": t["gm_token"], "owner": t["mira"]["player_token"], "other_player": t["olaf"]["player_token"],
           "screen": t["screen_token"], "none": None, "other_game": t["other"]["gm_token"]}[role]
    if api:
        return client, (bearer(key) if key else {})
    session_role = {"gm": "gm", "owner": "player", "other_player": "player", "screen": "screen",
                    "other_game": "gm"}.get(role)
    if session_role:
        with client.session_transaction() as s:
            s[session_role] = {t["id"]: key}  # another game's key, held as if it were this game's
            if role == "other_game":
                s["gm"] |= {t["other"]["id"]: key}
    return client, {}


def test_every_route_has_a_row(app):
    endpoints = {r.endpoint for r in app.url_map.iter_rules()}
    missing = sorted(endpoints - set(access.ROUTES))
    assert not missing, f"routes with no row in webapp/game/access.py ROUTES: {missing}"
    assert not sorted(set(access.ROUTES) - endpoints - access.AWAITED), "rows for routes that do not exist"


@pytest.mark.parametrize("endpoint", sorted(access.ROUTES))
def test_each_route_by_each_role_gets_the_matrix_answer(app, hub, endpoint):
    """Each role asks for the route at a table as ``make_table`` makes it: a new one, or the one the role before was
    refused at and left exactly as it was (checked below); never one a request went through on."""
    if endpoint not in {r.endpoint for r in app.url_map.iter_rules()}:
        assert endpoint in access.AWAITED
        pytest.skip(f"{endpoint}: its row waits for its route")
    rule = access.ROUTES[endpoint]
    api = endpoint.startswith("api.")
    t = None
    for role in access.ROLES:
        t = t or make_table(app)
        method, path, body = request_for(endpoint, t)
        client, headers = client_as(app, t, role, api)
        before = snapshot(hub, t["id"])
        if method in ("GET", "DELETE"):
            r = client.open(path, method=method, headers=headers)
        elif api:
            r = client.post(path, json=body, headers=headers)
        else:
            r = client.post(path, data=body, headers=headers)
        refused_with = rule.anonymous if role in ("none", "other_game") and rule.anonymous else rule.refused
        refused = r.status_code == refused_with
        if refused_with == 302:  # back to the lobby
            refused = r.status_code == 302 and r.location in ("/", "http://localhost/")
        if expected_allowed(rule, role):
            assert not refused and r.status_code not in (401, 403), (endpoint, role, r.status_code)
            t = None  # it may have changed the table: the next role gets a new one
        else:
            assert refused, (endpoint, role, r.status_code, r.get_data(as_text=True)[:200])
            assert snapshot(hub, t["id"]) == before, (endpoint, role)


def test_a_route_without_a_row_is_refused(app, monkeypatch):
    monkeypatch.delitem(access.ROUTES, "help.index")
    assert app.test_client().get("/help/").status_code == 403


# --- keys, the GM password, removing a player ------------------------------------


def received(client) -> list[dict]:
    """What a test client got, even after the server closed it (get_received refuses then)."""
    got, client.queue = list(client.queue), []
    return got


def socket_client(app, game_id, key, client=None, **auth):
    socketio = app.extensions["tacmap_socketio"]
    return socketio.test_client(app, auth={"game": game_id, "token": key, **auth}, flask_test_client=client)


def test_a_gm_password_guards_the_gm_page_the_live_link_and_the_api_once_per_browser_session(app, hub):
    t = make_table(app)
    g, gm = t["id"], bearer(t["gm_token"])
    before = socket_client(app, g, t["gm_token"])
    assert before.is_connected()
    r = app.test_client().post(f"/api/games/{g}/commands", json={"type": "set_gm_password", "password": "swordfish"},
                               headers=gm)
    assert r.status_code == 200
    # the GM connection opened without the password is ended (its page reloads and asks)
    ended = [m["args"][0] for m in received(before) if m["name"] == "ended"]
    assert ended and ended[0]["reload"] is True and not before.is_connected()
    # only a salted hash is kept: the password is nowhere in the log or the state
    stored = hub.game(g).gm_password
    assert stored and "swordfish" not in stored and stored.startswith("scrypt:")
    assert "swordfish" not in repr([e.data for e in hub.store.events(g)])
    for key in (t["mira"]["player_token"], t["screen_token"]):
        assert stored not in repr(app.test_client().get(f"/api/games/{g}/state", headers=bearer(key)).json)
    # the API: the GM key alone is not enough; with the password it is
    assert app.test_client().get(f"/api/games/{g}/state", headers=gm).status_code == 401
    assert app.test_client().get(f"/api/games/{g}/state",
                                 headers=gm | {"X-Tacmap-Password": "swordfish"}).status_code == 200
    # the GM link: remembered, then the password page
    browser = app.test_client()
    r = browser.get(f"/games/{g}/gm?key={t['gm_token']}")
    assert r.status_code == 302 and r.location.endswith(f"/games/{g}/gm")
    r = browser.get(f"/games/{g}/gm")
    assert r.status_code == 302 and r.location.endswith(f"/games/{g}/gm/password")
    assert browser.post(f"/games/{g}/commands", data={"type": "roll", "expr": "d6"}).status_code == 403
    assert not socket_client(app, g, t["gm_token"], client=browser).is_connected()
    r = browser.post(f"/games/{g}/gm/password", data={"password": "wrong"})
    assert r.status_code == 401 and "not the GM password" in r.get_data(as_text=True)
    r = browser.post(f"/games/{g}/gm/password", data={"password": "swordfish"})
    assert r.status_code == 302 and r.location.endswith(f"/games/{g}/gm")
    assert browser.get(f"/games/{g}/gm").status_code == 200
    assert browser.post(f"/games/{g}/commands", data={"type": "roll", "expr": "d6"}).status_code == 204
    assert socket_client(app, g, t["gm_token"], client=browser).is_connected()  # the same browser session
    assert not socket_client(app, g, t["gm_token"]).is_connected()  # another browser: not without it
    assert socket_client(app, g, t["gm_token"], password="swordfish").is_connected()
    # taken off: the GM key alone works again
    r = app.test_client().post(f"/api/games/{g}/commands", json={"type": "clear_gm_password"},
                               headers=gm | {"X-Tacmap-Password": "swordfish"})
    assert r.status_code == 200 and hub.game(g).gm_password is None
    assert app.test_client().get(f"/api/games/{g}/state", headers=gm).status_code == 200


def test_wrong_gm_passwords_are_limited_per_game(app, hub):
    t = make_table(app)
    g, gm = t["id"], bearer(t["gm_token"])
    app.test_client().post(f"/api/games/{g}/commands", json={"type": "set_gm_password", "password": "swordfish"},
                           headers=gm)
    for _ in range(keys.MAX_WRONG):
        assert app.test_client().get(f"/api/games/{g}/state",
                                     headers=gm | {"X-Tacmap-Password": "guess"}).status_code == 401
    # the limit is reached: even the right password is refused for the rest of the minute
    r = app.test_client().get(f"/api/games/{g}/state", headers=gm | {"X-Tacmap-Password": "swordfish-2"})
    assert r.status_code == 429
    browser = app.test_client()
    browser.get(f"/games/{g}/gm?key={t['gm_token']}")
    r = browser.post(f"/games/{g}/gm/password", data={"password": "swordfish"})
    assert r.status_code == 429 and "Too many wrong passwords" in r.get_data(as_text=True)
    other = make_table(app)  # another game is not locked by this one's guesses
    assert app.test_client().get(f"/api/games/{other['id']}/state",
                                 headers=bearer(other["gm_token"])).status_code == 200


def test_a_password_set_from_the_security_card_unlocks_the_gm_who_set_it(app, hub):
    t = make_table(app)
    browser = app.test_client()
    browser.get(f"/games/{t['id']}/gm?key={t['gm_token']}")
    page = browser.get(f"/games/{t['id']}/gm").get_data(as_text=True)
    assert 'id="security"' in page and "Put a password on the GM link" in page
    r = browser.post(f"/games/{t['id']}/security", data={"type": "set_gm_password", "password": "abcd",
                                                         "confirm": "abce"})
    assert "The two passwords differ" in r.get_data(as_text=True) and hub.game(t["id"]).gm_password is None
    elsewhere = socket_client(app, t["id"], t["gm_token"])  # another device with the GM link
    r = browser.post(f"/games/{t['id']}/security", data={"type": "set_gm_password", "password": "abcd",
                                                         "confirm": "abcd"})
    assert "now needs this password" in r.get_data(as_text=True) and hub.game(t["id"]).gm_password
    r.close()  # once the answer is sent, the GM connections opened without the password end
    assert [m for m in received(elsewhere) if m["name"] == "ended"] and not elsewhere.is_connected()
    assert "abcd" not in r.get_data(as_text=True)
    assert browser.get(f"/games/{t['id']}/gm").status_code == 200
    assert app.test_client().get(f"/games/{t['id']}/gm?key={t['gm_token']}", follow_redirects=True).request.path \
        == f"/games/{t['id']}/gm/password"


def test_a_new_join_code_ends_the_old_one_at_once_and_the_screen_shows_the_new_one(app, hub):
    t = make_table(app)
    g, old = t["id"], t["join_code"]
    screen = socket_client(app, g, t["screen_token"])
    screen.get_received()
    r = app.test_client().post(f"/api/games/{g}/commands", json={"type": "rotate_join_code"},
                               headers=bearer(t["gm_token"]))
    new = r.json["join_code"]
    assert r.status_code == 200 and new != old and hub.store.game(g).join_code == new
    banner = "".join(m["args"][0]["html"] for m in screen.get_received() if m["name"] == "update")
    assert f"code={new}" in banner and old not in banner
    r = app.test_client().post(f"/api/games/{g}/players", json={"join_code": old, "name": "Late"})
    assert r.status_code == 403
    r = app.test_client().post("/join", data={"code": old, "name": "Late"})
    assert r.status_code == 404
    assert app.test_client().post(f"/api/games/{g}/players", json={"join_code": new, "name": "Late"}).status_code == 201


def test_a_new_screen_key_disconnects_the_old_screen_with_a_message(app, hub):
    t = make_table(app)
    g, old = t["id"], t["screen_token"]
    browser = app.test_client()
    browser.get(f"/games/{g}/screen?key={old}")
    assert browser.get(f"/games/{g}/screen").status_code == 200
    screen = socket_client(app, g, old)
    gm_live = socket_client(app, g, t["gm_token"])
    gm_live.get_received()
    r = app.test_client().post(f"/api/games/{g}/commands", json={"type": "rotate_screen_key"},
                               headers=bearer(t["gm_token"]))
    new = r.json["screen_token"]
    assert new != old and hub.store.game(g).screen_key == new
    ended = [m["args"][0] for m in received(screen) if m["name"] == "ended"]
    assert ended and "new link" in ended[0]["message"] and not screen.is_connected()
    gm_html = "".join(m["args"][0]["html"] for m in gm_live.get_received() if m["name"] == "update")
    assert f"key={new}" in gm_html and "id=\"screen-link\"" in gm_html and "id=\"security\"" not in gm_html
    assert browser.get(f"/games/{g}/screen").status_code == 403
    assert app.test_client().get(f"/api/games/{g}/state", headers=bearer(old)).status_code == 401
    assert not socket_client(app, g, old).is_connected()
    assert socket_client(app, g, new).is_connected()


def test_a_removed_player_is_out_everywhere_at_once_and_their_character_stays(app, hub):
    t = make_table(app)
    g, key = t["id"], t["mira"]["player_token"]
    browser = app.test_client()
    app.test_client().post(f"/api/games/{g}/commands", json={"type": "allow_reclaim", "allow": True},
                           headers=bearer(t["gm_token"]))
    browser.post("/join", data={"code": t["join_code"], "name": "Mira"})  # a seat taken back in a browser...
    with browser.session_transaction() as s:
        mira_key = s["player"][g]
    live = socket_client(app, g, mira_key)
    app.test_client().post(f"/api/games/{g}/commands", json={"type": "remove_player",
                                                            "player_id": t["mira"]["player_id"]},
                           headers=bearer(t["gm_token"]))
    assert [m for m in received(live) if m["name"] == "ended"] and not live.is_connected()
    assert browser.get(f"/games/{g}/play").status_code == 302
    assert browser.get(f"/games/{g}/tokens/{t['ids']['Aria']}/sheet").status_code == 404
    assert browser.post(f"/games/{g}/commands", data={"type": "roll", "expr": "d6"}).status_code == 403
    for k in (key, mira_key):
        assert app.test_client().get(f"/api/games/{g}/state", headers=bearer(k)).status_code == 401
    assert t["character"] in hub.game(g).characters and hub.game(g).tokens[t["ids"]["Aria"]].owner is None


def test_a_gm_link_in_the_address_opens_only_the_gm_page_and_never_skips_the_password(app, hub):
    t = make_table(app)
    g, key = t["id"], t["gm_token"]
    app.test_client().post(f"/api/games/{g}/commands", json={"type": "set_gm_password", "password": "swordfish"},
                           headers=bearer(key))
    seq = hub.game(g).seq
    c = app.test_client()
    assert c.post(f"/games/{g}/security?key={key}", data={"type": "clear_gm_password"}).status_code == 403
    assert c.post(f"/games/{g}/commands?key={key}", data={"type": "roll", "expr": "d6"}).status_code == 403
    assert c.get(f"/games/{g}/tokens/{t['ids']['Ogre']}/sheet?key={key}").status_code == 404
    assert hub.game(g).seq == seq and hub.game(g).gm_password
