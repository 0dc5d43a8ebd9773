"""The remaining English, in German in Chromium (issue #37): a browser whose language is German reads the organiser's
page and a table's printed sheet through the app's own merged catalogs, the recap page of a fight, and on a 360 px
phone the notice pushed when the GM takes the player out, in German, with nothing sticking out of its box.
Screenshots: test-artifacts/i18n-organiser-recap-de-*.png."""

from __future__ import annotations

import re
import threading

import pytest
from playwright.sync_api import expect
from werkzeug.serving import make_server

from conftest import save_shot
from test_drag_feedback import drop
from test_i18n_languages_live import PHONE, setup
from test_room_german import OVERFLOWING

from webapp import create_app
from webapp.web.room.room import setup_link


@pytest.fixture
def room_server(tmp_path):
    """A room-mode app with its usual catalogs (every domain merged, the language each browser asks for)."""
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test", "DEMO": False, "ROOM": True})
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Überfall der Goblins", "system": "savage_worlds"}).json
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}"
    yield {"app": app, "url": url, "template": g, "setup": setup_link(app, url)}
    server.shutdown()


@pytest.mark.timeout(180)
def test_the_organiser_page_and_a_table_sheet_in_german_by_the_browsers_language(room_server, new_page):
    room, url = room_server, room_server["url"]
    org = new_page(viewport={"width": 1366, "height": 900}, locale="de-DE")
    org.goto(room["setup"])
    expect(org.locator("html")).to_have_attribute("lang", "de")
    org.fill("#room-new-password", "lantern-42")
    org.fill("#room-confirm", "lantern-42")
    org.click("#room-set-password")
    org.select_option("#room-template", room["template"]["id"])
    org.fill("#room-count", "2")
    org.fill("#room-gm-name", "Maximiliane")
    org.click("#room-make-button")
    expect(org.locator(".room-notice")).to_have_text("2 Tische angelegt: Tisch 1, Tisch 2.")
    rows = org.locator(".room-list tbody tr[data-table]")
    expect(rows).to_have_count(2)
    expect(rows.nth(0)).to_contain_text("Savage Worlds")
    assert org.evaluate("document.documentElement.scrollWidth") <= 1366
    assert org.evaluate(OVERFLOWING) == [], "nothing sticks out on a laptop"
    save_shot(org, "i18n-organiser-recap-de-organiser", full_page=True)
    sheet = org.context.new_page()
    sheet.goto(url + "/room/tables/" + rows.nth(0).get_attribute("id").removeprefix("table-") + "/sheet")
    sheet.emulate_media(media="print")
    sheet.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    expect(sheet.locator(".sheet-sub")).to_contain_text("SL: Maximiliane")
    assert sheet.evaluate(OVERFLOWING) == []
    save_shot(sheet, "i18n-organiser-recap-de-sheet", full_page=True)


@pytest.mark.timeout(240)
def test_the_recap_page_and_a_phones_pushed_notice_in_german(server, new_page):
    g, players, tokens = setup(server)  # Savage Worlds: Hero (Mira's), Ana (Tomás's), Bandit
    base = f"{server.url}/games/{g['id']}"
    for body in ({"type": "start_combat", "token_ids": list(tokens.values())},
                 {"type": "attack", "attacker": tokens["Bandit"], "target": tokens["Ana"]},
                 {"type": "soak", "accept": False},  # a Soak roll waiting holds Next turn (#58)
                 {"type": "next_turn"}, {"type": "next_turn"}, {"type": "next_turn"}, {"type": "end_combat"}):
        server.api("POST", f"/api/games/{g['id']}/commands", body, g["gm_token"])  # a refusal changes nothing
    gm = new_page(viewport={"width": 1366, "height": 900}, locale="de-DE")
    gm.goto(f"{base}/gm?key={g['gm_token']}")
    gm.goto(f"{base}/recap")
    expect(gm.locator("html")).to_have_attribute("lang", "de")
    expect(gm.locator("h1")).to_be_visible()
    # the order of the names is the fight's (its initiative): either way, listed the German way
    expect(gm.locator(".fight h3").first).to_have_text(re.compile(r"^Kampf 1: (Hero und Ana|Ana und Hero) gegen Bandit$"))
    assert gm.evaluate("document.documentElement.scrollWidth") <= 1366
    assert gm.evaluate(OVERFLOWING) == []
    save_shot(gm, "i18n-organiser-recap-de-recap", full_page=True)

    phone = new_page(**PHONE, locale="de-DE")
    phone.goto(f"{base}/play?key={players['Mira']['player_token']}")
    expect(phone.locator("#conn.ok")).to_have_text("live")
    # a refusal toast: the access matrix's, with the token's name, in German
    drop(phone, tokens["Bandit"], (5, 2), (6, 2))
    expect(phone.locator("#flash")).to_contain_text("Bandit darfst du nicht bewegen", timeout=10000)
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    phone.wait_for_timeout(600)  # the toast's fade-in
    save_shot(phone, "i18n-organiser-recap-de-phone-refusal")
    status, body = server.api("POST", f"/api/games/{g['id']}/commands",
                              {"type": "remove_player", "player_id": players["Mira"]["player_id"]}, g["gm_token"])
    assert status == 200, body
    flash = phone.locator("#flash")
    expect(flash).to_contain_text("Die SL hat dich aus diesem Spiel genommen.", timeout=10000)
    expect(phone.locator("#conn")).to_have_text("nicht in diesem Spiel")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360
    box = flash.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    save_shot(phone, "i18n-organiser-recap-de-phone-notice")
