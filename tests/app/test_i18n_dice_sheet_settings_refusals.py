"""Refusals of the shared rules and of Savage Worlds reach a German Socket.IO client in German (#37): a dice
expression the dice cannot read, a sheet value Savage Worlds refuses (a die, a weapon's damage), a rules setting
out of its choices (refused when the GM sets it, no longer accepted and then refused on the next Shaken turn); a
damaged log's technical reason is said in the reader's language with the error's own text kept as it is. The JSON
API answers the same in English whatever its Accept-Language (docs/PROTOCOL.md, Languages); the sheet editor page
says a refused field's reason in its reader's language."""

from __future__ import annotations

import sqlite3

import pytest

from tests.helpers import bearer, join, new_game
from webapp import create_app

from test_damaged_data import a_game_with_moves
from test_i18n_log_replay_picture_refusals import client_in
from test_i18n_reach_and_range_refusals import refused
from test_i18n_server_notices import connect

DE = {"Accept-Language": "de"}


pytestmark = pytest.mark.app_config(DEMO=False)


def savage_table(app):
    """A Savage Worlds game with Aria (a character of Mira's): (api client, game, Aria's character id)."""
    c = app.test_client()
    g = new_game(c, "savage_worlds", name="Deadlands")
    mira = join(c, g, "Mira")
    tok = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1, "owner": mira["player_id"]},
                 headers=bearer(g["gm_token"])).json["id"]
    r = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
               json={"type": "add_character", "name": "Aria", "token_id": tok, "owner": mira["player_id"]})
    assert r.status_code == 200, r.json
    cid = c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["characters"][0]["id"]
    return c, g, cid


def test_the_rules_refusals_reach_a_german_socket_in_german_and_the_api_in_english(app):
    c, g, cid = savage_table(app)
    hub = app.extensions["tacmap"]
    seq = hub.game(g["id"]).seq
    de, en = connect(app, g["id"], g["gm_token"], "de"), connect(app, g["id"], g["gm_token"], None)
    cases = [
        ({"type": "roll", "expr": "2d6+x"},
         "expr: '+x' im Würfelausdruck '2d6+x' ist nicht lesbar",
         "expr: cannot read '+x' in dice expression '2d6+x'"),
        ({"type": "roll", "expr": "4d1"},
         "expr: ein Würfel braucht 2 bis 1000 Seiten, nicht 1, in '4d1'",
         "expr: a die needs 2 to 1000 sides, not 1, in '4d1'"),
        ({"type": "update_sheet", "character_id": cid, "changes": {"skills.fighting": "d7"}},
         "sheet: skills.fighting: kein Würfel: 'd7' (schreibe d4, d6, d8, d10, d12 oder d12+1)",
         "sheet: skills.fighting: not a die: 'd7' (write d4, d6, d8, d10, d12 or d12+1)"),
        ({"type": "update_sheet", "character_id": cid, "changes": {"weapons.Club": {"damage": "Str+d7"}}},
         "sheet: weapons.Club.damage: Schaden 'Str+d7' ist nicht lesbar: ein Schadenswürfel ist ein d4, d6, d8, "
         "d10 oder d12, kein d7",
         "sheet: weapons.Club.damage: cannot read damage 'Str+d7': a damage die is a d4, d6, d8, d10 or d12, not a d7"),
        ({"type": "set_settings", "settings": {"shaken_recovery": "quick"}},
         "settings: shaken_recovery ist 'swade' oder 'classic', nicht 'quick'",
         "settings: shaken_recovery is 'swade' or 'classic', not 'quick'"),
    ]
    for command, german, english in cases:
        assert refused(de, command) == german
        assert refused(en, command) == english
        api = c.post(f"/api/games/{g['id']}/commands", json=command, headers=bearer(g["gm_token"], **DE))
        assert api.status_code == 422 and api.json["error"] == english, api.json
    assert hub.game(g["id"]).seq == seq  # nothing was stored


def damaged(tmp_path, data_sql: str):
    """An app on a data folder whose first game's event 3 is replaced by ``data_sql`` (its JSON text)."""
    data = tmp_path / "data"
    game_id, key, _healthy, _key = a_game_with_moves(data)
    con = sqlite3.connect(data / "tacmap.sqlite3")
    con.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = 3", (data_sql, game_id))
    con.commit()
    con.close()
    return create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False}), game_id, key


def test_a_log_damaged_past_reading_says_why_in_the_readers_language_the_parsers_words_as_they_are(tmp_path):
    app, game_id, key = damaged(tmp_path, "{not json")
    page = client_in(app, "de").get(f"/games/{game_id}/gm?key={key}", follow_redirects=True)
    text = page.get_data(as_text=True)
    assert page.status_code == 503
    assert f"Das Protokoll des Spiels {game_id} ist bei seq 3 beschädigt (kein lesbares JSON: " in text, text
    assert "not readable JSON" not in text
    french = client_in(app, "fr").get(f"/games/{game_id}/gm?key={key}", follow_redirects=True).get_data(as_text=True)
    assert "(JSON illisible : " in french
    api = client_in(app, "de").get(f"/api/games/{game_id}/state", headers=bearer(key))
    assert api.status_code == 503 and "is damaged at seq 3 (not readable JSON: " in api.json["error"], api.json


def test_an_event_that_cannot_be_applied_says_so_in_german_with_the_error_as_data(tmp_path):
    app, game_id, key = damaged(tmp_path, "{}")  # a move with no token, no place: replaying it fails
    page = client_in(app, "de").get(f"/games/{game_id}/gm?key={key}", follow_redirects=True).get_data(as_text=True)
    assert "ist bei seq 3 beschädigt (ein Ereignis " in page and ", das sich nicht anwenden lässt: " in page, page
    assert "cannot be applied" not in page
    english = app.test_client().get(f"/games/{game_id}/gm?key={key}", follow_redirects=True).get_data(as_text=True)
    assert "event that cannot be applied: " in english


def test_the_sheet_form_says_the_rules_reason_beside_its_field_in_the_readers_language(app):
    """The sheet editor (a page, not the socket): Savage Worlds refuses a weapon's range; its reason shows beside
    the field, in German for a German reader, in English for an English one; so does the page's own notice."""
    import re

    from werkzeug.datastructures import MultiDict

    _c, g, _cid = savage_table(app)
    tok = next(iter(app.extensions["tacmap"].game(g["id"]).characters.values())).token_id  # Aria's token
    said = {}
    for lang in ("de", "en"):
        browser = client_in(app, lang)
        browser.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
        page = browser.get(f"/games/{g['id']}/tokens/{tok}/sheet").get_data(as_text=True)
        form = MultiDict()
        for tag in re.findall(r"<input[^>]*>", page):  # the weapons table as the page shows it, one range changed
            name, value = re.search(r'name="([^"]*)"', tag), re.search(r'value="([^"]*)"', tag)
            if not name or not name.group(1).startswith(("weapons", "_was.weapons")):
                continue
            if 'type="checkbox"' in tag and "checked" not in tag:
                continue
            form.add(name.group(1), "12/6/48" if value and value.group(1) == "12/24/48" else
                     (value.group(1) if value else ""))
        body = browser.post(f"/games/{g['id']}/tokens/{tok}/sheet", data=form).get_data(as_text=True)
        said[lang] = re.findall(r'role="alert">([^<]*)<', body)
        unchanged = browser.post(f"/games/{g['id']}/tokens/{tok}/sheet", data={}).get_data(as_text=True)
        said[lang].append(re.findall(r'role="status">([^<]*)<', unchanged))
    assert said["de"] and said["de"][0].endswith("eine Reichweite liest sich wie 12/24/48, nicht &#39;12/6/48&#39;"), said
    assert said["en"] and said["en"][0].endswith("a range reads like 12/24/48, not &#39;12/6/48&#39;"), said
    assert said["de"][-1] == ["Nichts geändert."] and said["en"][-1] == ["Nothing changed."], said  # its notice too
