"""Room mode in German (issue #37, the "room" catalog) in Chromium: the organiser page on a laptop and on a 390 px
phone, the GM PIN page on a phone and a printed sheet, served by a room-mode app with Flask-Babel on the room's
compiled German catalog. Long German words (Beitrittscode, Tischbildschirm, zurücksetzen) must neither push the
page sideways nor stick out of their boxes. Screenshots in test-artifacts/room-de-*.png."""

from __future__ import annotations

import re
import threading

import pytest
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from flask_babel import Babel
from playwright.sync_api import expect
from werkzeug.serving import make_server

from conftest import refused, save_shot

from webapp import create_app
from webapp.web.room.room import setup_link

#: elements whose content is wider than their box while they let it show (a word that does not wrap)
OVERFLOWING = """() => [...document.querySelectorAll('body *')].filter(e => {
  const s = getComputedStyle(e);
  if (s.display === 'none' || s.visibility === 'hidden' || e.closest('svg')) return false;
  const clipped = ['auto', 'scroll', 'hidden', 'clip'].includes(s.overflowX);
  return !clipped && e.scrollWidth > e.clientWidth + 1 && e.clientWidth > 0;
}).map(e => e.tagName + '.' + e.className + ': ' + e.textContent.trim().slice(0, 60))"""


@pytest.fixture
def german_room(tmp_path):
    """A room-mode app speaking German (Flask-Babel on the room's compiled catalog), served on a free port, with
    the organiser password set and three tables made from a template (one with a seated player, one reset)."""
    mo = tmp_path / "mo" / "de" / "LC_MESSAGES" / "room.mo"
    mo.parent.mkdir(parents=True)
    with open("translations/de/LC_MESSAGES/room.po", "rb") as f, mo.open("wb") as out:
        write_mo(out, read_po(f, locale="de", domain="room"))
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "SECRET_KEY": "test", "DEMO": False, "ROOM": True,
                      "BABEL_TRANSLATION_DIRECTORIES": str(tmp_path / "mo"), "BABEL_DOMAIN": "room"})
    Babel(app, locale_selector=lambda: "de")
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Überfall der Goblins", "system": "plain_grid"}).json
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    yield {"app": app, "url": url, "template": g, "setup": setup_link(app, url)}
    server.shutdown()


@pytest.mark.console_errors(refused(401, "/pin"), why="a wrong room PIN is refused, as the test asks")
def test_the_room_in_german_fits_a_laptop_a_phone_and_a_printed_sheet(german_room, new_page):
    room, url = german_room, german_room["url"]
    org = new_page(viewport={"width": 1366, "height": 900})
    org.goto(room["setup"])
    expect(org.locator("h1")).to_have_text("Orga-Passwort festlegen")
    org.fill("#room-new-password", "lantern-42")
    org.fill("#room-confirm", "lantern-42")
    org.click("#room-set-password")
    org.select_option("#room-template", room["template"]["id"])
    org.fill("#room-count", "3")
    org.fill("#room-gm-name", "Maximiliane")
    expect(org.locator("#room-prefix")).to_have_value("Tisch")
    org.click("#room-make-button")
    expect(org.locator(".room-notice")).to_have_text("3 Tische angelegt: Tisch 1, Tisch 2, Tisch 3.")
    rows = org.locator(".room-list tbody tr[data-table]")
    expect(rows).to_have_count(3)
    expect(rows.nth(0)).to_contain_text("kein Kampf")
    expect(rows.nth(0)).to_contain_text("0 von 0")
    # a player at table 1, then table 1 reset: the list shows its past slot
    code = org.locator(".room-code").first.inner_text().strip()
    phone = room["app"].test_client()
    assert phone.post("/join", data={"code": code, "name": "Pip"}).status_code == 302
    org.locator(".room-reset").first.click()
    expect(org.locator("#room-reset-confirm")).to_contain_text("Jetzt am Tisch: Pip")
    org.click("#room-reset-button")
    expect(org.locator(".room-notice")).to_contain_text("ist für den nächsten Slot zurückgesetzt")
    expect(org.locator(".room-slot")).to_contain_text("Slot 1 von Tisch 1, zurückgesetzt um")
    assert org.evaluate("document.documentElement.scrollWidth") <= 1366
    assert org.evaluate(OVERFLOWING) == [], "nothing sticks out on a laptop"
    save_shot(org, "room-de-organiser", full_page=True)

    # the same page on a 390 px phone: each table a card, every label and button inside the screen
    small = org.context.new_page()
    small.set_viewport_size({"width": 390, "height": 844})
    small.goto(url + "/room")
    expect(small.locator(".room-list tbody tr[data-table]")).to_have_count(3)
    assert small.evaluate("document.documentElement.scrollWidth") <= 390, "the page fits a phone"
    assert small.evaluate(OVERFLOWING) == [], "nothing sticks out on a phone"
    save_shot(small, "room-de-organiser-phone", full_page=True)

    # a volunteer's phone: the PIN page, a wrong PIN said in German
    volunteer = new_page(viewport={"width": 360, "height": 740})
    volunteer.goto(url + "/pin")
    expect(volunteer.locator("h1")).to_have_text("Einen Tisch leiten")
    volunteer.fill("#gm-pin", "000000")
    volunteer.click("#open-gm")
    expect(volunteer.locator("#pin-error")).to_contain_text("Kein Tisch hat diese SL-PIN")
    assert volunteer.evaluate("document.documentElement.scrollWidth") <= 360
    assert volunteer.evaluate(OVERFLOWING) == []
    save_shot(volunteer, "room-de-pin-phone", full_page=True)

    # a printed sheet: one page, its German headings inside their boxes
    sheet = org.context.new_page()
    sheet.goto(url + "/room/tables/" + org.locator(".room-list tbody tr[data-table]").nth(1)
               .get_attribute("id").removeprefix("table-") + "/sheet")
    sheet.emulate_media(media="print")
    expect(sheet.locator(".table-sheet h2").nth(2)).to_have_text("Tischbildschirm von Tisch 2")
    expect(sheet.locator(".sheet-sub")).to_contain_text("SL: Maximiliane")
    assert sheet.evaluate(OVERFLOWING) == []
    sheet.set_viewport_size({"width": 794, "height": 1123})  # A4 at 96 dpi
    save_shot(sheet, "room-de-sheet-print", full_page=True)
    pdf = sheet.pdf(format="A4", print_background=True)
    assert len(re.findall(rb"/Type\s*/Page\b", pdf)) == 1, "one printed page per table, in German too"
