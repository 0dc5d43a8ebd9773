"""The table probed as an attacker would (issue #13 "Trust"): bad Unicode, hidden tokens named or
placed by a refusal, ids that count, reflected markup, a forged Host header, unchecked drag
previews, deep JSON, lax parsing, and limits. Each test failed before its fix."""

from __future__ import annotations

import json
import re

import pytest

from tests import helpers
from tests.helpers import bearer, command as send, new_game, state
from webapp import MAX_BODY
from webapp.game.core.model import Event, key_hash
from webapp.live.gm_access import DEFAULT_BASE_URL

BAD_UNICODE = "Mira\ud800"  # a lone surrogate: what JSON's "\ud800" decodes to
BAD_NAMES = [BAD_UNICODE, "Ar\u202eia", "Ar\u2066ia", "Ar\x00ia", "Ar\x1bia", "Ar\nia", "Ar\x85ia", "Aria\u200b"]


pytestmark = pytest.mark.app_config(DEMO=False)


def make_app(tmp_path, **config):  # the app fixture's, again over the same folder (a restart)
    return helpers.make_app(tmp_path / "data", DEMO=False, **config)


def add_token(client, g, **fields):
    r = client.post(f"/api/games/{g['id']}/tokens", json=fields, headers=bearer(g["gm_token"]))
    assert r.status_code == 201, r.json
    return r.json["id"]


def join(client, g, name):
    return client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": name})


def connect(app, g, key):
    return app.extensions["tacmap_socketio"].test_client(app, auth={"game": g["id"], "token": key})


def table(client, system="savage_worlds"):
    """A game with Mira's token Aria at (1, 1), a visible goblin and a hidden one (Nightblade at (13, 6))."""
    g = new_game(client, system, name="Probe")
    mira = join(client, g, "Mira").json
    aria = add_token(client, g, name="Aria", x=1, y=1, kind="pc", owner=mira["player_id"])
    goblin = add_token(client, g, name="Goblin", x=3, y=1)
    hidden = add_token(client, g, name="Nightblade", x=13, y=6, hidden=True)
    return g, mira, aria, goblin, hidden


# --- 1. bad Unicode, control and direction characters ---------------------------------------


@pytest.mark.parametrize("name", BAD_NAMES)
def test_a_player_name_that_is_not_clean_text_is_refused_and_the_game_goes_on(app, name):
    client = app.test_client()
    g = new_game(client, name="Probe")
    r = join(client, g, name)
    assert r.status_code == 400 and r.json["error"].startswith("name:")
    assert state(client, g)["players"] == []
    client.get(g["urls"]["gm"])
    assert client.get(f"/games/{g['id']}/gm").status_code == 200


@pytest.mark.parametrize("name", BAD_NAMES)
def test_names_of_games_tokens_and_characters_refuse_bad_text_everywhere(app, name):
    client = app.test_client()
    assert client.post("/api/games", json={"name": name, "system": "plain_grid"}).status_code == 400
    if name != BAD_UNICODE:  # a form cannot carry a lone surrogate (its bytes decode to U+FFFD)
        r = client.post("/games", data={"name": name, "system": "plain_grid"})
        assert r.status_code == 400 and "may not hold" in r.get_data(as_text=True)
    g, mira, aria, _goblin, _hidden = table(client)
    before = state(client, g)
    for body in ({"type": "add_token", "name": name, "x": 5, "y": 5},
                 {"type": "update_token", "token_id": aria, "name": name},
                 {"type": "add_character", "name": name}):
        r = send(client, g, body, g["gm_token"])
        assert r.status_code in (400, 422) and "name" in r.json["error"], (body, r.json)
    assert state(client, g) == before


@pytest.mark.parametrize("body", [
    {"type": "roll", "expr": "1d6\ud800"},
    {"type": "roll", "expr": "1d6\u202e"},
    {"type": "move_token", "token_id": "\ud800", "x": 2, "y": 2},
    {"type": "\ud800"},
    {"type": "act", "token_id": "ARIA", "action": "aim\ud800"},
    {"type": "attack", "attacker": "ARIA", "target": "GOBLIN", "weapon": "\ud800"},
    {"type": "attack", "attacker": "ARIA", "target": "GOBLIN", "options": {"\ud800": 1}},
    {"type": "set_settings", "settings": {"x\u202e": True}},
    {"type": "update_sheet", "character_id": "CHAR", "changes": {"notes": "hello\ud800"}},
    {"type": "update_sheet", "character_id": "CHAR", "changes": {"notes": "a\x07b"}},
])
def test_every_command_string_refuses_bad_text_over_the_api_and_the_socket(app, body):
    client = app.test_client()
    g, _mira, aria, goblin, _hidden = table(client)
    cid = send(client, g, {"type": "add_character", "name": "Aria", "token_id": aria}, g["gm_token"]).json and \
        state(client, g)["characters"][0]["id"]
    ids = {"ARIA": aria, "GOBLIN": goblin, "CHAR": cid}
    body = {k: ids.get(v, v) if isinstance(v, str) else v for k, v in body.items()}
    before = state(client, g)
    r = send(client, g, body, g["gm_token"])
    said = re.compile(r"not valid Unicode|control, direction or invisible character U\+")
    assert r.status_code in (400, 422) and said.search(r.json["error"]), r.json
    ack = connect(app, g, g["gm_token"]).emit("command", body, callback=True)
    assert ack["ok"] is False and said.search(ack["error"]), ack
    assert state(client, g) == before


def test_form_fields_refuse_control_characters(app):
    client = app.test_client()
    g, _mira, aria, _goblin, _hidden = table(client)
    client.get(g["urls"]["gm"])
    r = client.post(f"/games/{g['id']}/commands", data={"type": "update_token", "token_id": aria, "name": "A\x1b[31m"})
    assert r.status_code == 422
    r = client.post("/join", data={"code": g["join_code"], "name": "Ol\u202eek"})
    assert r.status_code == 400 and [p["name"] for p in state(client, g)["players"]] == ["Mira"]


def test_pages_still_render_an_old_log_holding_bad_text(tmp_path):
    """A name written before these checks (a lone surrogate in the log): every page loads, also after a restart."""
    app = make_app(tmp_path)
    client = app.test_client()
    g = new_game(client, name="Probe")
    hub = app.extensions["tacmap"]
    key = "old-players-key"
    seq = hub.game(g["id"]).seq
    hub.store.append(g["id"], seq, [
        Event("player_joined", {"player_id": "p1", "name": BAD_UNICODE, "key_hash": key_hash(key)}),
        Event("token_added", {"token": {"id": "t1", "name": "Bad\ud800", "x": 2, "y": 2, "owner": "p1",
                                        "kind": "pc"}}),
    ])
    restarted = make_app(tmp_path)  # the bad name comes back from the log
    for c, url in ((restarted.test_client(), g["urls"]["gm"]),
                   (restarted.test_client(), f"/games/{g['id']}/play?key={key}"),
                   (restarted.test_client(), g["urls"]["screen"])):
        r = c.get(url, follow_redirects=True)
        assert r.status_code == 200 and 'data-name="Bad' in r.get_data(as_text=True)
    c = restarted.test_client()
    assert c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).status_code == 200
    sock = restarted.extensions["tacmap_socketio"].test_client(restarted, auth={"game": g["id"], "token": key})
    assert sock.emit("sync", {}, callback=True) == {"ok": True}


def test_a_key_that_is_not_ascii_is_no_key(app):
    client = app.test_client()
    g = new_game(client, name="Probe")
    assert client.get(f"/api/games/{g['id']}/state", headers={"Authorization": "Bearer é"}).status_code == 401
    sock = app.extensions["tacmap_socketio"].test_client(app, auth={"game": g["id"], "token": "\ud800é"})
    assert not sock.is_connected()
    sock = app.extensions["tacmap_socketio"].test_client(app, auth={"game": "\ud800", "token": g["gm_token"]})
    assert not sock.is_connected()
    sock = app.extensions["tacmap_socketio"].test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    assert sock.is_connected()


# --- 2. a refusal never names or places a hidden token -----------------------------------------


def test_a_players_move_onto_a_hidden_token_goes_through_and_says_nothing(app):
    client = app.test_client()
    g, mira, aria, _goblin, hidden = table(client, "plain_grid")
    r = send(client, g, {"type": "move_token", "token_id": aria, "x": 13, "y": 6}, mira["player_token"])
    assert r.status_code == 200, r.json
    assert "Nightblade" not in json.dumps(state(client, g, mira["player_token"]))
    gm = {t["name"]: (t["x"], t["y"]) for t in state(client, g)["tokens"]}
    assert gm["Aria"] == gm["Nightblade"] == (13, 6)  # they share the square; the GM sees both
    # the GM is told who is there
    r = send(client, g, {"type": "move_token", "token_id": hidden, "x": 3, "y": 1}, g["gm_token"])
    assert r.status_code == 422 and r.json["error"] == "D2 is taken by Goblin"


def test_a_hidden_token_reads_exactly_like_a_token_that_does_not_exist(app):
    client = app.test_client()
    g, mira, aria, goblin, hidden = table(client)
    sock = connect(app, g, mira["player_token"])
    ghost = "t-" + "0" * 8

    def answers(token_id):
        out = []
        for body in ({"type": "move_token", "token_id": token_id, "x": 5, "y": 5},
                     {"type": "reach", "token_id": token_id},
                     {"type": "act", "token_id": token_id, "action": "hold"},
                     {"type": "preview_attack", "attacker": aria, "target": token_id},
                     {"type": "attack", "attacker": aria, "target": token_id},
                     {"type": "preview_attack", "attacker": token_id, "target": goblin}):
            r = send(client, g, body, mira["player_token"])
            out.append((r.status_code, r.json["error"].replace(token_id, "ID")))
            ack = sock.emit("command", body, callback=True)
            out.append(ack["error"].replace(token_id, "ID"))
        ack = sock.emit("preview", {"token_id": token_id, "x": 5, "y": 5}, callback=True)
        out.append(ack["error"].replace(token_id, "ID"))
        return out

    assert answers(hidden) == answers(ghost)
    assert all("Nightblade" not in json.dumps(a) for a in answers(hidden))


def test_the_owner_of_a_hidden_token_cannot_open_or_edit_its_sheet(app):
    client = app.test_client()
    g, mira, aria, _goblin, _hidden = table(client)
    send(client, g, {"type": "add_character", "name": "Aria", "token_id": aria,
                                    "owner": mira["player_id"]}, g["gm_token"])
    cid = state(client, g)["characters"][0]["id"]
    client.get(f"/games/{g['id']}/play?key={mira['player_token']}")
    assert client.get(f"/games/{g['id']}/tokens/{aria}/sheet").status_code == 200
    send(client, g, {"type": "update_token", "token_id": aria, "hidden": True}, g["gm_token"])
    assert client.get(f"/games/{g['id']}/tokens/{aria}/sheet").status_code == 404
    assert client.post(f"/games/{g['id']}/tokens/{aria}/sheet", data={"notes": "x"}).status_code == 404
    r = send(client, g, {"type": "update_sheet", "character_id": cid,
                                               "changes": {"skills.fighting": "d12"}}, mira["player_token"])
    assert r.status_code == 422 and r.json["error"] == f"no character {cid!r} of yours in this game"


# --- 3. ids that do not count ---------------------------------------------------------------------


def test_ids_are_random_and_a_restart_gives_the_same_ones(tmp_path):
    app = make_app(tmp_path)
    client = app.test_client()
    g, mira, aria, goblin, hidden = table(client)
    send(client, g, {"type": "add_character", "name": "Aria", "token_id": aria}, g["gm_token"])
    ids = [aria, goblin, hidden]
    assert all(re.fullmatch(r"t-[0-9a-f]{8}", i) for i in ids) and len(set(ids)) == 3
    assert re.fullmatch(r"p-[0-9a-f]{8}", mira["player_id"])
    assert re.fullmatch(r"c-[0-9a-f]{8}", state(client, g)["characters"][0]["id"])
    before = state(client, g)
    after = state(make_app(tmp_path).test_client(), g)
    assert after == before


def test_an_old_log_with_numbered_ids_still_plays(tmp_path):
    app = make_app(tmp_path)
    hub = app.extensions["tacmap"]
    client = app.test_client()
    g = new_game(client, name="Probe")
    hub.store.append(g["id"], hub.game(g["id"]).seq, [
        Event("token_added", {"token": {"id": "t1", "name": "Old", "x": 1, "y": 1}}),
        Event("token_added", {"token": {"id": "t2", "name": "Older", "x": 2, "y": 1}}),
    ])
    client = make_app(tmp_path).test_client()
    assert send(client, g, {"type": "move_token", "token_id": "t1", "x": 5, "y": 5}, g["gm_token"]).status_code == 200
    new = client.post(f"/api/games/{g['id']}/tokens", json={"name": "New", "x": 6, "y": 6},
                      headers=bearer(g["gm_token"])).json["id"]
    assert new not in ("t1", "t2", "t3")
    assert {t["id"] for t in state(client, g)["tokens"]} == {"t1", "t2", new}


# --- 4. no markup comes back --------------------------------------------------------------------------

SCRIPT = "<script>alert(1)</script>"


def test_markup_in_any_field_never_comes_back_unescaped(app):
    client = app.test_client()
    g, mira, aria, _goblin, _hidden = table(client)
    send(client, g, {"type": "add_character", "name": "Aria", "token_id": aria}, g["gm_token"])
    answers = []
    # the lobby
    answers.append(client.post("/games", data={"name": "", "system": SCRIPT}))
    answers.append(client.post("/games", data={"name": SCRIPT * 2, "system": SCRIPT}))
    answers.append(client.post("/games", data={"name": "x", "system": SCRIPT}))
    answers.append(client.post("/join", data={"code": SCRIPT, "name": SCRIPT}))
    answers.append(client.post("/join", data={"code": g["join_code"], "name": SCRIPT * 2}))
    answers.append(client.get("/join", query_string={"code": SCRIPT}))
    answers.append(client.get(f"/help/{SCRIPT}"))
    answers.append(client.get(f"/games/{SCRIPT}/gm"))
    # the form endpoint, plain and from htmx
    client.get(g["urls"]["gm"])
    for form in ({"type": SCRIPT}, {"type": "move_token", "token_id": SCRIPT, "x": "1", "y": "1"},
                 {"type": "move_token", "token_id": aria, "x": SCRIPT, "y": "1"},
                 {"type": "update_token", "token_id": aria, "color": SCRIPT}, {"type": "roll", "expr": SCRIPT},
                 {"type": "add_token", "name": SCRIPT * 2, "x": "1", "y": "1"}, {SCRIPT: SCRIPT}):
        answers.append(client.post(f"/games/{g['id']}/commands", data=form))
        answers.append(client.post(f"/games/{g['id']}/commands", data=form, headers={"HX-Request": "true"}))
    # the sheet editor
    answers.append(client.post(f"/games/{g['id']}/tokens/{aria}/sheet", data={"attributes.agility": SCRIPT}))
    answers.append(client.get(f"/games/{g['id']}/tokens/{SCRIPT}/sheet"))
    # the JSON API
    answers.append(client.post("/api/games", json={"name": SCRIPT * 2, "system": SCRIPT}))
    answers.append(client.post("/api/games", json={"name": "x", "system": SCRIPT}))
    answers.append(client.post("/api/games", json={"name": "x", "map": {"width": SCRIPT}}))
    answers.append(client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": SCRIPT * 2}))
    answers.append(client.post(f"/api/games/{SCRIPT}/players", json={}))
    for body in ({"type": SCRIPT}, {"type": "move_token", "token_id": SCRIPT, "x": 1, "y": 1},
                 {"type": "roll", "expr": SCRIPT}, {"type": "set_settings", "settings": {SCRIPT: 1}},
                 {"type": "attack", "attacker": aria, "target": SCRIPT}, {SCRIPT: SCRIPT}):
        answers.append(send(client, g, body, g["gm_token"]))
    assert len(answers) > 30
    for r in answers:
        body = r.get_data(as_text=True) + json.dumps(dict(r.headers))
        assert "<script>alert" not in body.lower(), (r.request.path, r.status_code, body[:300])
    # the refusal of a plain form quotes the input escaped
    r = client.post(f"/games/{g['id']}/commands", data={"type": "roll", "expr": SCRIPT})
    assert r.status_code == 422 and "&lt;script&gt;alert(1)&lt;/script&gt;" in r.get_data(as_text=True)


# --- 5. the join link comes from the server, not the request -------------------------------------------


def test_a_forged_host_header_never_reaches_the_join_link_or_the_qr_code(app):
    client = app.test_client()
    g = new_game(client, name="Probe")
    games = len(app.extensions["tacmap"].store.games())
    r = client.post("/api/games", json={"name": "x"}, headers={"Host": "evil.example"})
    assert r.status_code == 400 and len(app.extensions["tacmap"].store.games()) == games  # a name it is not served as
    other = {"Host": "10.9.8.7:5000"}  # an address is answered (webapp/web/network.py), and never echoed either
    assert "10.9.8.7" not in json.dumps(client.post("/api/games", json={"name": "x"}, headers=other).json)
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", headers=other, follow_redirects=True).get_data(
        as_text=True)
    assert 'id="map"' in page
    assert "10.9.8.7" not in page and f"{DEFAULT_BASE_URL}/join?code={g['join_code']}" in page
    # nor a page the next visitor opens normally (it used to remember the last request's host)
    hub = app.extensions["tacmap"]
    assert hub.join_info(g["id"])["join_url"] == f"{DEFAULT_BASE_URL}/join?code={g['join_code']}"


def test_the_join_link_uses_the_address_serve_listens_on(tmp_path, monkeypatch):
    from webapp import cli

    seen = {}
    from webapp.live.server.serving import TableServer

    monkeypatch.setattr(TableServer, "serve_forever", lambda self, *a, **kw: seen.update(self.application.config))
    monkeypatch.setattr(cli, "lan_addresses", lambda: ["192.168.1.20"])
    monkeypatch.setattr(cli, "unpatched", lambda: [])  # in pytest's unpatched process: serve would stop at its check
    cli.main(["serve", "--data-dir", str(tmp_path / "d"), "--port", "8123", "--no-demo"])
    assert seen["LISTEN_URL"] == "http://192.168.1.20:8123"
    seen.clear()
    cli.main(["serve", "--data-dir", str(tmp_path / "d"), "--host", "127.0.0.1", "--port", "8124"])
    assert seen["LISTEN_URL"] == "http://127.0.0.1:8124"
    app = make_app(tmp_path, LISTEN_URL="http://10.0.0.5:7000")
    g = new_game(app.test_client(), name="Probe")
    hub = app.extensions["tacmap"]
    assert hub.join_info(g["id"])["join_url"].startswith("http://10.0.0.5:7000/join?code=")
    app = make_app(tmp_path, LISTEN_URL="http://10.0.0.5:7000", PUBLIC_URL="https://table.example/")
    assert app.extensions["tacmap"].join_info(g["id"])["join_url"].startswith("https://table.example/join?code=")


# --- 6. drag previews ----------------------------------------------------------------------------------


def test_previews_are_checked_like_moves(app):
    client = app.test_client()
    g, mira, aria, goblin, _hidden = table(client)
    screen, gm, player = (connect(app, g, k) for k in (g["screen_token"], g["gm_token"], mira["player_token"]))
    for c in (screen, gm):
        c.get_received()
    for sender, payload, why in [
        (screen, {"token_id": aria, "x": 2, "y": 2}, "the table screen only shows the map"),
        (player, {"token_id": aria, "x": 10 ** 18, "y": 2}, "at most"),
        (player, {"token_id": aria, "x": 10 ** 6, "y": 2}, "off the map"),
        (player, {"token_id": aria, "x": -1, "y": 2}, "off the map"),
        (gm, {"token_id": goblin, "x": 24, "y": 0}, "off the map"),
        (player, {"token_id": goblin, "x": 2, "y": 2}, "not yours to move"),
        (player, {"token_id": aria, "x": 2, "y": 2, "done": "yes"}, "done"),
        (player, {"token_id": aria, "x": 2, "y": 2, "html": "<b>"}, "only"),
    ]:
        ack = sender.emit("preview", payload, callback=True)
        assert ack["ok"] is False and why in ack["error"], (payload, ack)
    assert not [m for c in (screen, gm) for m in c.get_received() if m["name"] == "preview"]
    assert player.emit("preview", {"token_id": aria, "x": 23, "y": 15}, callback=True) == {"ok": True}
    assert [m["args"][0] for m in gm.get_received() if m["name"] == "preview"] == [
        {"token_id": aria, "x": 23, "y": 15, "done": False}]


# --- 7. deep JSON ------------------------------------------------------------------------------------------


def test_json_nested_a_thousand_deep_is_a_clear_400(app):
    client = app.test_client()
    g = new_game(client, name="Probe")
    deep = "[" * 1000 + "]" * 1000
    for url in ("/api/games", f"/api/games/{g['id']}/commands", f"/api/games/{g['id']}/players"):
        r = client.post(url, data='{"type": "roll", "x": ' + deep + "}", content_type="application/json",
                        headers=bearer(g["gm_token"]))
        assert r.status_code == 400 and "deep" in r.json["error"], (url, r.data[:200])


def test_socket_payloads_nested_deep_get_a_clear_error(app):
    client = app.test_client()
    g, _mira, aria, _goblin, _hidden = table(client)
    nested: object = 1
    for _ in range(60):
        nested = {"a": nested}
    sock = connect(app, g, g["gm_token"])
    ack = sock.emit("command", {"type": "set_settings", "settings": nested}, callback=True)
    assert ack["ok"] is False and "deep" in ack["error"]
    ack = sock.emit("preview", {"token_id": aria, "x": 2, "y": 2, "done": nested}, callback=True)
    assert ack["ok"] is False and "deep" in ack["error"]
    # a packet nested past what the JSON decoder can read (the test client cannot even encode it: sent raw)
    deep = "[" * 5000 + "]" * 5000
    for n, event in enumerate(("command", "preview"), start=1):
        sock.socketio.server._handle_eio_message(sock.eio_sid, f'2{n}["{event}",{deep}]')
        assert sock.acks["args"][0] == {"ok": False, "error": "the payload nests too deep (12 levels at most)"}
        sock.acks = None
    assert sock.emit("command", {"type": "roll", "expr": "1d6"}, callback=True)["ok"] is True


# --- 8. strict parsing -------------------------------------------------------------------------------------


@pytest.mark.parametrize("field,value", [("x", "2"), ("x", True), ("x", 2.0), ("hidden", "yes"), ("hidden", 1),
                                         ("name", 5), ("size", "1")])
def test_commands_parse_strictly(app, field, value):
    client = app.test_client()
    g = new_game(client, name="Probe")
    body = {"type": "add_token", "name": "Imp", "x": 2, "y": 2, field: value}
    r = send(client, g, body, g["gm_token"])
    assert r.status_code == 422 and field in r.json["error"], r.json
    assert connect(app, g, g["gm_token"]).emit("command", body, callback=True)["ok"] is False
    assert state(client, g)["tokens"] == []


def test_a_plain_form_still_sends_numbers_and_checkboxes(app):
    client = app.test_client()
    g = new_game(client, name="Probe")
    client.get(g["urls"]["gm"])
    r = client.post(f"/games/{g['id']}/commands", data={"type": "add_token", "name": "Imp", "x": "2", "y": "3",
                                                        "hidden": "true", "size": "2"})
    assert r.status_code == 204
    [imp] = state(client, g)["tokens"]
    assert (imp["x"], imp["y"], imp["hidden"], imp["size"]) == (2, 3, True, 2)
    r = client.post(f"/games/{g['id']}/commands", data={"type": "move_token", "token_id": imp["id"], "x": "two",
                                                        "y": "3"})
    assert r.status_code == 422 and "x" in r.get_data(as_text=True)


# --- 9. limits ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("expr", ["1000d6", "101d6", "60d6+41d6", "100d1000000", "1d6+" * 30 + "1",
                                  "1d6+99999999"])
def test_dice_expressions_have_limits(app, expr):
    client = app.test_client()
    g = new_game(client, name="Probe")
    r = send(client, g, {"type": "roll", "expr": expr}, g["gm_token"])
    assert r.status_code == 422 and r.json["error"].startswith("expr:"), r.json
    assert send(client, g, {"type": "roll", "expr": "100d6"}, g["gm_token"]).status_code == 200


def test_a_board_is_300_squares_or_hexes_a_side_at_most(app):
    client = app.test_client()
    r = client.post("/api/games", json={"name": "Big", "map": {"width": 301, "height": 10}})
    assert r.status_code == 400 and "300" in r.json["error"]
    assert client.post("/api/games", json={"name": "Big", "map": {"width": 300, "height": 300}}).status_code == 201
    r = client.post("/api/games", json={"name": "Big", "map": {"width": 301, "height": 10, "grid": "hex"}})
    assert r.status_code == 400 and "300" in r.json["error"]
    r = client.post("/api/games", json={"name": "Big", "map": {"width": 300, "height": 300, "grid": "hex"}})
    assert r.status_code == 201


def test_a_map_has_40000_wall_and_door_segments_at_most(app):
    client = app.test_client()
    walls = [{"a": [i % 100, i // 100 % 100], "b": [i % 100 + 1, i // 100 % 100]} for i in range(40_001)]
    r = client.post("/api/games", json={"name": "Walls", "map": {"width": 100, "height": 100, "walls": walls}})
    assert r.status_code == 400 and "map.walls" in r.json["error"] and "40000" in r.json["error"]
    doors = [{"a": [0, i], "b": [0, i + 1]} for i in range(5)]
    r = client.post("/api/games", json={"name": "Walls", "map": {"width": 100, "height": 100,
                                                                  "walls": walls[:39_999], "doors": doors}})
    assert r.status_code == 400 and r.json["error"] == "map: 40,004 wall and door segments; a map holds 40,000 at most"
    r = client.post("/api/games", json={"name": "Walls", "map": {"width": 100, "height": 100,
                                                                  "walls": walls[:40_000]}})
    assert r.status_code == 201  # a map is more than 256 KB: the routes that take maps take 16 MB


def test_a_game_holds_2000_tokens_at_most(app):
    from webapp.game.core.model import MAX_TOKENS
    from webapp.game.board.tokens import token_added

    assert MAX_TOKENS == 2000
    client = app.test_client()
    g = new_game(client, board={"width": 50, "height": 50}, name="Probe")
    hub = app.extensions["tacmap"]

    def fill(game):
        events = []
        for i in range(MAX_TOKENS):
            event = token_added(game, f"Imp {i}", i % 50, i // 50)
            game.tokens[event.data["token"]["id"]] = None  # taken, for the next id
            events.append(event)
        for event in events:
            del game.tokens[event.data["token"]["id"]]
        return events

    hub.commit(g["id"], fill)
    r = send(client, g, {"type": "add_token", "name": "One more", "x": 49, "y": 49}, g["gm_token"])
    assert r.status_code == 422 and "2000 tokens at most" in r.json["error"]


def test_request_bodies_have_a_limit(app):
    client = app.test_client()
    g = new_game(client, name="Probe")
    big = "x" * (MAX_BODY + 1)
    r = send(client, g, {"type": "roll", "expr": big}, g["gm_token"])
    assert r.status_code == 413 and "error" in r.json
    client.get(g["urls"]["gm"])
    r = client.post(f"/games/{g['id']}/commands", data={"type": "roll", "expr": big})
    assert r.status_code == 413 and r.mimetype == "text/html"  # the error page
    r = client.post(f"/games/{g['id']}/commands", data={"type": "roll", "expr": big}, headers={"HX-Request": "true"})
    assert r.status_code == 413 and r.mimetype == "text/plain" and "<" not in r.get_data(as_text=True)
    r = send(client, g, {"type": "add_character", "name": "Aria", "sheet": {"notes": "y" * 10_001}}, g["gm_token"])
    assert r.status_code == 400 and "10000 characters at most" in r.json["error"]
    ack = connect(app, g, g["gm_token"]).emit("command", {"type": "roll", "expr": big}, callback=True)
    assert ack["ok"] is False and "characters at most" in ack["error"]


def test_an_attack_that_touches_a_hidden_token_is_logged_for_the_gm_only(app):
    """A stray shot or a template that hits a hidden bystander: the log line and its detail would name it."""
    client = app.test_client()
    g, mira, aria, goblin, hidden = table(client)
    hub = app.extensions["tacmap"]
    result = {"summary": "Aria misses Goblin; the shot hits Nightblade", "hit": False, "rolls": [], "modifiers": [],
              "effects": [{"target": hidden, "kind": "wound", "data": {}}], "details": {}}
    hub.commit(g["id"], lambda game: [Event("attack_resolved", {"attacker": aria, "target": goblin, "sheets": {},
                                                                 "result": result})])
    assert "Nightblade" not in json.dumps(state(client, g, mira["player_token"]))
    assert state(client, g)["log"][-1]["text"] == result["summary"]


@pytest.mark.parametrize("raw", ['{"type": "add_character", "name": "A", "sheet": {"pace": NaN}}',
                                 '{"type": "add_character", "name": "A", "sheet": {"pace": Infinity}}',
                                 '{"type": "add_character", "name": "A", "sheet": {"pace": 1e999}}',
                                 '{"type": "add_character", "name": "A", "sheet": {"pace": 99999999999999999999}}'])
def test_numbers_a_browser_cannot_read_back_are_refused(app, raw):
    client = app.test_client()
    g = new_game(client, "savage_worlds", name="Probe")
    r = client.post(f"/api/games/{g['id']}/commands", data=raw, content_type="application/json",
                    headers=bearer(g["gm_token"]))
    assert r.status_code == 400 and "number" in r.json["error"]
    assert state(client, g)["characters"] == []


def test_a_name_typed_in_another_unicode_form_is_the_same_name(app):
    """"José" composed (é) and decomposed (e + U+0301) look the same: one seat, not two."""
    client = app.test_client()
    g = new_game(client, name="Probe")
    assert join(client, g, "Jos\u00e9").status_code == 201
    r = join(client, g, "Jose\u0301")
    assert r.status_code == 202 and r.json["waiting"] is True  # the same seat: the GM is asked for it
    assert [p["name"] for p in state(client, g)["players"]] == ["Jos\u00e9"]
    add_token(client, g, name="Ren\u00e9e", x=1, y=1)
    add_token(client, g, name="Rene\u0301e", x=2, y=1)
    assert sorted(t["name"] for t in state(client, g)["tokens"]) == ["Ren\u00e9e", "Ren\u00e9e 2"]


def test_a_player_makes_20_characters_at_most(app):
    client = app.test_client()
    g, mira, _aria, _goblin, _hidden = table(client)
    for i in range(20):
        assert send(client, g, {"type": "add_character", "name": f"Alt {i}"}, mira["player_token"]).status_code == 200
    r = send(client, g, {"type": "add_character", "name": "One more"}, mira["player_token"])
    assert r.status_code == 422 and "20 characters at most" in r.json["error"]
    assert send(client, g, {"type": "add_character", "name": "The GM's",
                                           "owner": mira["player_id"]}, g["gm_token"]).status_code == 200
