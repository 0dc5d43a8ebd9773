"""The last refusals outside the rules in the sender's language (#37): a damaged game log (its 503 page, a socket's
answer), a replay past the log's end, the pictures' refusals (an import that fails, a game's picture budget) and
another's template a player may not move. German (Accept-Language: de) for each; English unchanged."""

from __future__ import annotations

import io
import sqlite3

import pytest

from test_damaged_data import a_game_with_moves
from tests.helpers import bearer, join, new_game
from webapp import create_app, launch
from webapp.storage import pictures

DE = {"Accept-Language": "de"}


def delete_event(data, game_id: str, seq: int) -> None:
    con = sqlite3.connect(data / "tacmap.sqlite3")
    con.execute("DELETE FROM events WHERE game_id = ? AND seq = ?", (game_id, seq))
    con.commit()
    con.close()


def damaged_app(tmp_path):
    """An app on a data folder whose first game lost its event 4: (app, that game's id, its GM key)."""
    data = tmp_path / "data"
    damaged, key, _healthy, _key = a_game_with_moves(data)
    delete_event(data, damaged, 4)
    return create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False}), damaged, key


def client_in(app, language: str):
    """A browser whose Accept-Language is ``language``."""
    client = app.test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = language
    return client


def test_a_damaged_log_is_said_in_the_readers_language_on_its_page_and_on_the_socket(tmp_path):
    app, damaged, key = damaged_app(tmp_path)
    german = client_in(app, "de")
    page = german.get(f"/games/{damaged}/gm?key={key}", follow_redirects=True)
    text = page.get_data(as_text=True)
    assert page.status_code == 503
    # the message and its reason (a missing event) in German, the commands to run as they are typed
    assert f"Das Protokoll des Spiels {damaged} ist bei seq 4 beschädigt (dieses Ereignis fehlt)" in text, text
    assert launch.command("export", damaged, f"{damaged}.tacmap") in text and launch.command("repair", damaged) in text
    assert "seq 3" in text
    assert "damaged at seq" not in text and "is missing" not in text
    english = app.test_client().get(f"/games/{damaged}/gm?key={key}", follow_redirects=True).get_data(as_text=True)
    assert f"The log of game {damaged} is damaged at seq 4 (this event is missing)" in english
    # the JSON API's errors stay English (docs/PROTOCOL.md, Languages)
    api = german.get(f"/api/games/{damaged}/state", headers=bearer(key))
    assert api.status_code == 503 and "is damaged at seq 4 (this event is missing)" in api.json["error"], api.json


def test_a_log_that_breaks_while_served_is_told_to_a_german_socket_in_german(tmp_path):
    data = tmp_path / "data"
    damaged, key, _healthy, _key = a_game_with_moves(data)
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    german = client_in(app, "de")
    sio = app.extensions["tacmap_socketio"].test_client(app, auth={"game": damaged, "token": key},
                                                        flask_test_client=german)
    assert sio.is_connected()
    con = sqlite3.connect(data / "tacmap.sqlite3")
    con.execute("UPDATE events SET data = '[1]' WHERE game_id = ? AND seq = 3", (damaged,))
    con.commit()
    con.close()
    app.extensions["tacmap"].games.clear()  # the log is read again (another process wrote first, say)
    ack = sio.emit("command", {"type": "roll", "expr": "d6"}, callback=True)
    assert ack["ok"] is False and ack["code"] == "damaged_log", ack
    assert f"Das Protokoll des Spiels {damaged} ist bei seq 3 beschädigt (kein Ereignis)" in ack["error"], ack
    ack = sio.emit("sync", {}, callback=True)
    assert ack["ok"] is False and "beschädigt (kein Ereignis)" in ack["error"], ack


pytestmark = pytest.mark.app_config(DEMO=False)


def ruins_with_mira(app, system="plain_grid"):
    """A game Mira joined; (an API client, the game, Mira)."""
    api = app.test_client()
    g = new_game(api, system, name="Ruins")
    return api, g, join(api, g, "Mira")


def test_a_replay_past_the_logs_end_is_refused_in_the_senders_language(app):
    _api, g, _p = ruins_with_mira(app)
    socketio = app.extensions["tacmap_socketio"]
    german = client_in(app, "de")
    gm = socketio.test_client(app, auth={"game": g["id"], "token": g["gm_token"]}, flask_test_client=german)
    head = app.extensions["tacmap"].game(g["id"]).seq
    ack = gm.emit("command", {"type": "replay", "at": head + 50}, callback=True)
    assert ack == {"ok": False, "error": f"at: das Protokoll reicht von 0 bis {head}, nicht {head + 50}"}, ack
    english = socketio.test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    ack = english.emit("command", {"type": "replay", "at": head + 50}, callback=True)
    assert ack["error"] == f"at: the log goes from 0 to {head}, not {head + 50}", ack


def png(width=8, height=8) -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (width, height), (90, 120, 60)).save(out, "PNG")
    return out.getvalue()


def gm_page_in(app, g, language: str):
    """A browser in ``language`` that opened the GM page (its session holds the GM key, as upload.js's does)."""
    client = client_in(app, language)
    assert client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).status_code == 200
    return client


def upload(client, url: str, body: bytes, filename: str, **headers):
    return client.post(url, headers=headers, data={"file": (io.BytesIO(body), filename)},
                       content_type="multipart/form-data")


def test_the_pictures_refusals_are_in_the_page_readers_language(app, monkeypatch):
    """From the GM page (upload.js), a map or picture refused is said in the page's language; the same upload
    through the JSON API answers in English whatever the caller's Accept-Language (docs/PROTOCOL.md)."""
    api, g, p = ruins_with_mira(app)
    gm = g["gm_token"]
    page = gm_page_in(app, g, "de")
    maps, picture = f"/games/{g['id']}/maps", f"/games/{g['id']}/maps/picture"
    api_maps, api_picture = f"/api/games/{g['id']}/maps", f"/api/games/{g['id']}/maps/active/picture"
    # a file that is no Universal VTT map
    r = upload(page, maps, b"\x00\x01 not a map", "cave.uvtt")
    assert r.status_code in (400, 422) and r.json["error"].startswith("nicht importiert: "), r.json
    r = upload(api, api_maps, b"\x00\x01 not a map", "cave.uvtt", **bearer(gm, **DE))
    assert r.status_code in (400, 422) and r.json["error"].startswith("not imported: "), r.json
    # a map whose picture is none: the reason said in German too (its JSON key, "image", named as it is)
    import base64
    import json

    cave = {"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 4},
                                          "pixels_per_grid": 50}, "line_of_sight": [], "portals": [], "lights": [],
            "image": base64.b64encode(b"GIF89a not ours").decode()}
    r = upload(page, maps, json.dumps(cave).encode(), "cave.uvtt")
    assert r.status_code == 422 and r.json["error"] == "nicht importiert: image: kein PNG-, JPEG- oder WebP-Bild", r.json
    r = upload(api, api_maps, json.dumps(cave).encode(), "cave.uvtt", **bearer(gm, **DE))
    assert r.status_code == 422 and r.json["error"] == "not imported: image: not a PNG, JPEG or WebP picture", r.json
    # a file that is no map: its JSON not an object, cut short (the JSON parser's own words stay as it says them)
    for body, said in [(b"[1, 2]", "nicht importiert: keine Universal-VTT-Datei: die oberste Ebene ist kein JSON-Objekt"),
                       (b'{"format": 0.3, "resolution": {', "nicht importiert: kein gültiges JSON: "),
                       (b"   ", "nicht importiert: die Datei ist leer")]:
        r = upload(page, maps, body, "cave.uvtt")
        assert r.status_code == 422 and r.json["error"].startswith(said), r.json
        if "JSON: " in said:
            assert "(Zeile 1, Spalte " in r.json["error"] and "die Datei endet zu früh" in r.json["error"], r.json
    # a file that is no picture, an empty one, a PNG cut short (the upload's field, "file", is named as it is)
    for body, said, english in [(b"GIF89a not ours", "file: kein PNG-, JPEG- oder WebP-Bild",
                                 "file: not a PNG, JPEG or WebP picture"),
                                (b"", "file: die Datei ist leer", "file: the file is empty"),
                                (png()[:40], "file: das PNG-Bild ist beschädigt oder abgeschnitten (",
                                 "file: the PNG picture is damaged or truncated (")]:
        r = upload(page, picture, body, "floor.png")
        assert r.status_code == 422 and r.json["error"].startswith(said), r.json
        r = upload(api, api_picture, body, "floor.png", **bearer(gm, **DE))
        assert r.status_code == 422 and r.json["error"].startswith(english), r.json
    # the game's picture budget full: the sizes said with the message in German
    monkeypatch.setattr(pictures, "GAME_BUDGET", 10)
    r = upload(page, picture, png(), "floor.png")
    assert r.status_code in (400, 413, 422, 507), (r.status_code, r.json)
    assert r.json["error"].startswith("die Bilder dieses Spiels belegen 0.0 MB der 0 MB"), r.json


def test_a_maps_structure_refused_is_said_in_the_page_readers_language_and_in_english_to_the_api(app):
    """The Universal VTT file's own structure (a door without its end points, a map too big, a light that is no
    object...): said in the GM page's language, its JSON keys named as they are; English through the JSON API."""
    import json

    api, g, _p = ruins_with_mira(app)
    page = gm_page_in(app, g, "de")
    res = {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 4, "y": 4}, "pixels_per_grid": 50}
    cases = [
        ({"format": 0.3, "resolution": res, "portals": [{"bounds": [{"x": 1, "y": 1}]}]},
         "nicht importiert: portals[0].bounds: eine Tür braucht ihre zwei Endpunkte",
         "not imported: portals[0].bounds: a door needs its two end points"),
        ({"format": 0.3, "resolution": {**res, "map_size": {"x": 900, "y": 4}}},
         "nicht importiert: resolution.map_size: 900 x 4 Felder; eine Karte hat 1 bis ",
         "not imported: resolution.map_size: 900 x 4 cells; a map is 1 to "),
        ({"format": 0.3, "resolution": res, "lights": ["lamp"]},
         "nicht importiert: lights[0]: ein Licht ist ein Objekt mit einer Position",
         "not imported: lights[0]: a light is an object with a position"),
        ({"format": "new", "resolution": res},
         "nicht importiert: format: muss eine Zahl sein wie 0.3, nicht 'new'",
         "not imported: format: must be a number such as 0.3, not 'new'"),
    ]
    maps_before = set(app.extensions["tacmap"].game(g["id"]).maps)
    for cave, german, english in cases:
        body = json.dumps(cave).encode()
        r = upload(page, f"/games/{g['id']}/maps", body, "cave.uvtt")
        assert r.status_code == 422 and r.json["error"].startswith(german), r.json
        r = upload(api, f"/api/games/{g['id']}/maps", body, "cave.uvtt", **bearer(g["gm_token"], **DE))
        assert r.status_code == 422 and r.json["error"].startswith(english), r.json
    assert set(app.extensions["tacmap"].game(g["id"]).maps) == maps_before  # nothing was imported


def test_a_template_a_player_may_not_move_is_refused_in_their_language(app):
    api, g, p = ruins_with_mira(app)
    hub, socketio = app.extensions["tacmap"], app.extensions["tacmap_socketio"]
    german = client_in(app, "de")
    gm = socketio.test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    phone = socketio.test_client(app, auth={"game": g["id"], "token": p["player_token"]}, flask_test_client=german)
    placed = {}
    for label in ("Fireball", None):
        ack = gm.emit("command", {"type": "place_template", "shape": "circle", "x": 3, "y": 3,
                                  **({"label": label} if label else {})}, callback=True)
        assert ack["ok"] is True, ack
        placed[label] = next(t["id"] for t in hub.game(g["id"]).templates.values() if t.get("label") == label)
    seq = hub.game(g["id"]).seq
    said = {}
    for label, template_id in placed.items():
        ack = phone.emit("command", {"type": "move_template", "template_id": template_id, "x": 4, "y": 4}, callback=True)
        assert ack["ok"] is False, ack
        said[label] = ack["error"]
    assert said == {"Fireball": "die Schablone ‘Fireball’ gehört dir nicht: Die SL oder wer sie gelegt hat, verschiebt sie",
                    None: "diese Schablone gehört dir nicht: Die SL oder wer sie gelegt hat, verschiebt sie"}, said
    assert hub.game(g["id"]).seq == seq  # nothing moved


def test_a_picture_upload_the_busy_server_turns_away_is_told_so_in_the_senders_language(app, monkeypatch):
    """Every decode place taken (held here): the upload is a 503 with Retry-After, its reason in German on the GM
    page, in English through the JSON API (whatever its Accept-Language)."""
    api, g, _p = ruins_with_mira(app)
    page = gm_page_in(app, g, "de")
    monkeypatch.setattr(pictures, "DECODE_WAIT", 0.05)
    held = [pictures._DECODES.acquire(timeout=1) for _ in range(pictures.DECODES_AT_ONCE)]
    try:
        assert all(held)
        r = upload(page, f"/games/{g['id']}/maps/picture", png(), "floor.png")
        english = upload(api, f"/api/games/{g['id']}/maps/active/picture", png(), "floor.png",
                         **bearer(g["gm_token"], **DE))
    finally:
        for _ in held:
            pictures._DECODES.release()
    assert r.status_code == 503 and r.headers["Retry-After"] == str(pictures.RETRY_AFTER)
    assert r.json["error"] == f"der Server liest gerade andere Bilder: versuche es in {pictures.RETRY_AFTER} Sekunden noch einmal"
    assert english.status_code == 503 and english.headers["Retry-After"] == str(pictures.RETRY_AFTER)
    assert english.json["error"] == f"the server is busy reading other pictures: try again in {pictures.RETRY_AFTER} seconds"
    assert app.extensions["tacmap"].game(g["id"]).maps  # the map is there, with no picture set
    assert not any(m.picture for m in app.extensions["tacmap"].game(g["id"]).maps.values())


def test_the_damaged_log_page_is_in_the_pseudo_locale_its_reason_too(tmp_path):
    """In en_XA every word of the 503 page comes from a catalog: the message, and the reason said inside it (the
    pseudo-locale's ⟦ ⟧ mark lets the check look at the reason on its own)."""
    from test_i18n_pseudo_pages import untranslated

    app, damaged, key = damaged_app(tmp_path)
    page = client_in(app, "en-XA").get(f"/games/{damaged}/gm?key={key}", follow_redirects=True)
    html = page.get_data(as_text=True)
    assert page.status_code == 503 and 'lang="en-XA"' in html and f"⟦{damaged}⟧" in html, html
    assert untranslated(html, [damaged, "tacmap"]) == []  # the product name: data
