"""Another web page cannot act for the GM or a player: headers, CSRF, Socket.IO origins."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from webapp import create_app

FOREIGN = "http://evil.example"


def csp(response) -> dict[str, str]:
    header = response.headers.get("Content-Security-Policy", "")
    return {part.split()[0]: " ".join(part.split()[1:]) for part in header.split(";") if part.strip()}


def assert_hardened(response, where: str) -> None:
    policy = csp(response)
    assert policy, f"{where}: no Content-Security-Policy"
    assert policy["default-src"] == "'self'", where
    assert policy["script-src"] == "'self'", f"{where}: scripts only from this site, no inline, no eval"
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in policy["script-src"]
    assert policy["img-src"] == "'self' data:", where
    assert policy["connect-src"].split()[0] == "'self'", where
    assert policy["frame-ancestors"] == "'none'", where
    assert policy["object-src"] == "'none'", where
    assert policy["base-uri"] == "'self'", where
    assert policy["form-action"] == "'self'", where
    assert response.headers["X-Content-Type-Options"] == "nosniff", where
    assert response.headers["Referrer-Policy"] in ("same-origin", "no-referrer"), where
    assert response.headers["X-Frame-Options"] == "DENY", where
    assert "Strict-Transport-Security" not in response.headers, f"{where}: tacmap runs on plain http"


@pytest.fixture
def table(app, hub, demo):
    """The demo game with a token owned by a player, and a GM browser."""
    gm = app.test_client()
    assert gm.get(f"/games/{demo.id}/gm?key={demo.gm_key}").status_code == 302
    player = gm.post(f"/api/games/{demo.id}/players", json={"join_code": demo.join_code, "name": "Mira"}).json
    tok = gm.post(f"/api/games/{demo.id}/tokens", json={"name": "Quill", "x": 1, "y": 1,
                                                       "owner": player["player_id"]},
                  headers={"Authorization": f"Bearer {demo.gm_key}"}).json["id"]
    return gm, player, tok


def test_every_page_and_error_answers_with_the_policy_and_the_headers(app, demo, table):
    gm, player, tok = table
    args = {"game_id": demo.id, "token_id": tok, "system_id": "savage_worlds", "name": "0" * 64 + ".png",
            "table_id": "abc", "role": "gm", "lang": "de",  # the room's pages (off here: 404s, hardened too)
            "forecast_id": "0" * 12}  # a forecast that is not (its 404 hardened too)
    seen = set()
    for rule in app.url_map.iter_rules():
        if "GET" not in rule.methods or rule.endpoint == "static" or rule.rule.startswith("/api/"):
            continue
        missing = set(rule.arguments) - set(args)
        assert not missing, f"{rule.rule}: the test needs a value for {missing}"
        url = rule.build({k: args[k] for k in rule.arguments})[1]
        for client in (gm, app.test_client()):  # one with a seat, one a stranger (redirects, 403s)
            r = client.get(url)
            assert r.status_code < 500, url
            if rule.endpoint == "maps.picture":  # a picture's own policy, stricter still (#25)
                assert csp(r) == {"default-src": "'none'", "sandbox": ""}, url
                assert r.headers["X-Content-Type-Options"] == "nosniff" and r.headers["X-Frame-Options"] == "DENY"
            else:
                assert_hardened(r, url)
            seen.add(rule.endpoint)
    assert {"lobby.index", "game.join_form", "game.gm", "game.play", "game.screen", "game.sheet",
            "help.index", "help.system"} <= seen
    for url in ("/no/such/page", f"/games/{demo.id}/tokens/nope/sheet", "/games/nope/gm"):
        r = gm.get(url)
        assert r.status_code == 404
        assert_hardened(r, url)
    r = gm.get("/games", follow_redirects=False)  # wrong method: 405 page
    assert r.status_code == 405
    assert_hardened(r, "405")


def test_the_page_holds_the_csrf_token_and_htmx_runs_without_eval(client):
    page = client.get("/").get_data(as_text=True)
    assert re.search(r'<meta name="csrf-token" content="[^"]+">', page)
    config = re.search(r"<meta name=\"htmx-config\" content='([^']+)'>", page).group(1)
    assert '"allowEval":false' in config and '"allowScriptTags":false' in config
    assert '"includeIndicatorStyles":false' in config and '"selfRequestsOnly":true' in config
    assert "/static/js/csrf.js" in page
    # both lobby forms carry the token as a field
    assert page.count('name="csrf_token"') == 2


def test_the_session_cookie_is_httponly_lax_and_not_secure_on_plain_http(client, demo):
    r = client.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    cookie = r.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Lax" in cookie
    assert "Secure" not in cookie


def raw_client(app) -> FlaskClient:
    """A client that sends no CSRF token, as another site's page would (it cannot read ours)."""
    return FlaskClient(app, app.response_class, use_cookies=True)


def test_creating_a_game_without_the_token_is_refused_and_makes_nothing(app, hub):
    before = len(hub.store.games())
    r = raw_client(app).post("/games", data={"name": "Forged", "system": "plain_grid"})
    assert r.status_code == 400
    body = r.get_data(as_text=True)
    assert "check token" in body and "Reload the page" in body and "Traceback" not in body
    assert 'class="card error-page"' in body  # the site's error page
    assert_hardened(r, "csrf refusal")
    assert len(hub.store.games()) == before
    r = app.test_client().post("/games", data={"name": "Honest", "system": "plain_grid"})
    assert r.status_code == 302
    assert [g.name for g in hub.store.games()].count("Honest") == 1


def test_a_forged_or_foreign_token_is_refused_too(app, hub):
    stranger = raw_client(app)
    stranger.get("/")  # a session of its own: its token is not ours
    ours = app.test_client()
    r = stranger.post("/games", data={"name": "Forged", "csrf_token": ours.csrf_token()})
    assert r.status_code == 400
    r = stranger.post("/games", data={"name": "Forged", "csrf_token": "not-a-token"})
    assert r.status_code == 400
    assert "Forged" not in [g.name for g in hub.store.games()]


def test_joining_without_the_token_is_refused_and_adds_no_player(app, hub, demo):
    players = len(hub.game(demo.id).players)
    r = raw_client(app).post("/join", data={"code": demo.join_code, "name": "Forged"})
    assert r.status_code == 400
    assert len(hub.game(demo.id).players) == players
    r = app.test_client().post("/join", data={"code": demo.join_code, "name": "Mira"})
    assert r.status_code == 302
    assert len(hub.game(demo.id).players) == players + 1


def test_the_lobby_form_field_is_a_valid_token(app, hub, demo):
    """The hidden field csrf_field() renders is what a plain form posts (no header)."""
    browser = raw_client(app)
    page = browser.get("/").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page).group(1)
    r = browser.post("/join", data={"code": demo.join_code, "name": "Olek", "csrf_token": token})
    assert r.status_code == 302


def test_a_command_without_the_token_is_refused_and_changes_nothing(app, hub, demo, table):
    gm, _player, tok = table
    cookie_jar_gm = raw_client(app)
    cookie_jar_gm.get(f"/games/{demo.id}/gm?key={demo.gm_key}")  # the GM's cookie, but no token
    seq = hub.game(demo.id).seq
    for headers in ({}, {"HX-Request": "true"}):
        r = cookie_jar_gm.post(f"/games/{demo.id}/commands", headers=headers,
                               data={"type": "update_token", "token_id": tok, "name": "Forged"})
        assert r.status_code == 400
        assert "check token" in r.get_data(as_text=True)
    r = cookie_jar_gm.post(f"/games/{demo.id}/commands", headers={"HX-Request": "true"},
                           data={"type": "update_token", "token_id": tok, "name": "Forged"})
    assert r.headers["Content-Type"].startswith("text/plain")  # htmx flashes the words, not a page
    assert hub.game(demo.id).seq == seq and hub.game(demo.id).tokens[tok].name == "Quill"
    r = gm.post(f"/games/{demo.id}/commands", data={"type": "update_token", "token_id": tok, "name": "Brisa"})
    assert r.status_code == 204
    assert hub.game(demo.id).tokens[tok].name == "Brisa"
    # the token sent as a form field works too, and is not taken for a field of the command
    r = gm.post(f"/games/{demo.id}/commands", data={"type": "update_token", "token_id": tok, "name": "Cora",
                                                  "csrf_token": gm.csrf_token()}, csrf=False)
    assert r.status_code == 204
    assert hub.game(demo.id).tokens[tok].name == "Cora"


def test_editing_a_sheet_without_the_token_is_refused_and_changes_nothing(app, hub, demo, table):
    gm, _player, tok = table
    forged = raw_client(app)
    forged.get(f"/games/{demo.id}/gm?key={demo.gm_key}")
    seq = hub.game(demo.id).seq
    r = forged.post(f"/games/{demo.id}/tokens/{tok}/sheet", headers={"HX-Request": "true"})
    assert r.status_code == 400
    assert hub.game(demo.id).seq == seq
    page = gm.get(f"/games/{demo.id}/tokens/{tok}/sheet").get_data(as_text=True)
    assert 'name="csrf_token"' in page  # the sheet's forms carry it
    r = gm.post(f"/games/{demo.id}/tokens/{tok}/sheet", headers={"HX-Request": "true"})
    assert r.status_code == 200
    assert hub.game(demo.id).seq > seq


def test_the_api_with_a_bearer_needs_no_csrf_token(app, hub, demo, table):
    _gm, _player, tok = table
    api = raw_client(app)
    r = api.post(f"/api/games/{demo.id}/commands", json={"type": "update_token", "token_id": tok, "name": "Dara"},
                 headers={"Authorization": f"Bearer {demo.gm_key}"})
    assert r.status_code == 200, r.json
    assert hub.game(demo.id).tokens[tok].name == "Dara"
    assert raw_client(app).post("/api/games", json={"name": "Scripted"}).status_code == 201


def handshake(client: FlaskClient, origin: str | None):
    headers = {"Origin": origin} if origin else {}
    return client.get("/socket.io/?EIO=4&transport=polling", headers=headers)


def test_socketio_accepts_its_own_origin_and_clients_without_one_and_refuses_others(app):
    client = raw_client(app)
    r = handshake(client, FOREIGN)
    assert r.status_code == 400 and b"Not an accepted origin" in r.data
    assert handshake(client, "http://localhost.evil.example").status_code == 400
    assert handshake(client, "https://localhost").status_code == 400  # another scheme is another origin
    ok = handshake(client, "http://localhost")  # the test client's Host is localhost
    assert ok.status_code == 200 and b'"sid"' in ok.data
    assert ok.headers.get("Access-Control-Allow-Origin") == "http://localhost"
    none = handshake(client, None)  # a script or bot (python-socketio sends no Origin on polling)
    assert none.status_code == 200 and b'"sid"' in none.data
    assert "Access-Control-Allow-Origin" not in none.headers


def test_a_reverse_proxys_origin_can_be_allowed(tmp_path, monkeypatch):
    app = create_app({"DATA_DIR": str(tmp_path / "a"), "SECRET_KEY": "t", "DEMO": False,
                      "ALLOWED_ORIGINS": ["https://maps.example.org/"]})
    client = raw_client(app)
    assert handshake(client, "https://maps.example.org").status_code == 200
    assert handshake(client, FOREIGN).status_code == 400
    monkeypatch.setenv("TACMAP_ALLOWED_ORIGINS", "https://a.example, https://b.example:8443")
    app = create_app({"DATA_DIR": str(tmp_path / "b"), "SECRET_KEY": "t", "DEMO": False})
    client = raw_client(app)
    assert handshake(client, "https://b.example:8443").status_code == 200
    assert handshake(client, "https://a.example").status_code == 200
    assert handshake(client, "https://c.example").status_code == 400
    with pytest.raises(ValueError):
        create_app({"DATA_DIR": str(tmp_path / "c"), "SECRET_KEY": "t", "DEMO": False,
                    "ALLOWED_ORIGINS": "maps.example.org"})


def test_the_serve_command_takes_allowed_origins(monkeypatch, tmp_path):
    from webapp import cli

    seen = {}

    def fake_create_app(config):
        seen.update(config)
        raise SystemExit(0)

    monkeypatch.setattr(cli, "create_app", fake_create_app)
    with pytest.raises(SystemExit):
        cli.main(["serve", "--host", "127.0.0.1", "--data-dir", str(tmp_path), "--allowed-origin",
                  "https://maps.example.org", "--allowed-origin", "https://other.example"])
    assert seen["ALLOWED_ORIGINS"] == ["https://maps.example.org", "https://other.example"]


def test_no_template_or_script_needs_what_the_policy_forbids():
    """The CSP runs only script files: no inline script, handler attribute, hx-on, javascript: URL, or eval."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    inline_script = re.compile(r"<script(?![^>]*\bsrc=)(?![^>]*type=\"application/json\")[^>]*>", re.I)
    handler = re.compile(r"<[a-z][^>]*\s(on[a-z]+|hx-on[:a-z-]*)\s*=", re.I)
    found = []
    for path in sorted((root / "templates").rglob("*.html")):
        text = path.read_text()
        for pattern in (inline_script, handler, re.compile(r"javascript:", re.I),
                        re.compile(r"hx-vals\s*=\s*['\"]\s*js:", re.I)):
            found += [f"{path.relative_to(root)}: {m.group(0)[:60]}" for m in pattern.finditer(text)]
    for path in sorted((root / "static" / "js").rglob("*.js")):
        text = path.read_text()
        for pattern in (re.compile(r"\beval\s*\("), re.compile(r"new\s+Function\s*\("),
                        re.compile(r"set(Timeout|Interval)\s*\(\s*['\"`]")):
            found += [f"{path.relative_to(root)}: {m.group(0)}" for m in pattern.finditer(text)]
    assert found == []


def test_a_gm_page_is_sent_compressed_to_a_browser_that_asks(client, demo):
    """Pages go over the table's Wi-Fi compressed (brotli or gzip, whichever the browser accepts)."""
    import gzip

    import brotli

    assert client.get(f"/games/{demo.id}/gm?key={demo.gm_key}").status_code == 302  # the browser keeps the key
    url = f"/games/{demo.id}/gm"
    plain = client.get(url)
    assert plain.status_code == 200 and "Content-Encoding" not in plain.headers
    for accept, decode in (("br", brotli.decompress), ("gzip", gzip.decompress)):
        packed = client.get(url, headers={"Accept-Encoding": accept})
        assert packed.headers["Content-Encoding"] == accept
        assert "Accept-Encoding" in packed.headers["Vary"]
        assert len(packed.data) < len(plain.data) / 3
        assert decode(packed.data).decode().count('id="token-') == plain.data.decode().count('id="token-')
