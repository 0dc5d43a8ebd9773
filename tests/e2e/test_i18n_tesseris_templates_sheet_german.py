"""The templates panel on a German phone (360 px, #37): the size field says Tesseris's unit as the catalog says a
yard everywhere (Meter, not "Yards"), and a template laid from the phone reads in German on the phone and the
table screen (its kind, its size in the unit, who is under it or nobody), in English on the GM's English laptop.
Real Chromium, real server."""

from __future__ import annotations

from playwright.sync_api import expect

from test_i18n_rules_german_phone import OVERFLOWING
from test_live_table import cell_center


def test_a_german_phone_lays_a_template_in_meters_and_every_screen_reads_it_in_its_language(server, new_page, shot):
    status, g = server.api("POST", "/api/games", {"name": "Ruins", "system": "tesseris_ads",
                                                  "map": {"width": 10, "height": 7, "walls": []}})
    assert status == 201, g
    _, p = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    for name, (x, y), owner in [("Hero", (1, 1), p["player_id"]), ("Bandit", (6, 4), None)]:
        body = {"name": name, "x": x, "y": y, **({"owner": owner, "kind": "pc"} if owner else {})}
        status, made = server.api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"])
        assert status == 201, made
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(g["urls"]["gm"] + "&lang=en")  # the links carry their key: ?key=...
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(g["urls"]["screen"] + "&lang=de")
    expect(screen.locator("#conn.ok")).to_be_attached()
    phone = new_page(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    phone.goto(f"{server.url}/games/{g['id']}/play?key={p['player_token']}&lang=de")
    expect(phone.locator("#conn.ok")).to_be_visible()

    card = phone.locator("#templates-card")
    expect(card.locator("label", has=phone.locator("input[name=size]"))).to_have_text("Größe (Meter)")
    expect(gm.locator("#templates-card label", has=gm.locator("input[name=size]"))).to_have_text("Size (yards)")
    form = phone.locator("#template-form")
    form.locator("select[name=shape]").select_option("circle")
    form.locator("input[name=size]").fill("2")
    phone.click("#place-template")
    expect(phone.locator("#template-hint")).to_be_visible()
    phone.click("[data-zoom=fit]")
    phone.locator("#map-frame").scroll_into_view_if_needed()
    x, y = cell_center(phone, 6, 4)
    phone.mouse.click(x, y)
    laid = card.locator(".template-list li").first
    expect(laid).to_contain_text("Kreisschablone (2 Meter; Mira)")
    expect(laid.locator(".under-list")).to_have_text("Bandit")
    expect(screen.locator("#layer-templates .template-label")).to_have_text("Kreisschablone: Bandit")
    expect(gm.locator("#templates-card .template-list li").first).to_contain_text("circle template (2 yards; Mira)")
    # one over nobody, with a label: its kind said beside the label, "niemand" under it
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands", {
        "type": "place_template", "shape": "cone", "x": 1, "y": 6, "size": 1.5, "direction": 0, "label": "Feuer"},
        g["gm_token"])
    assert status == 200
    second = card.locator(".template-list li").nth(1)
    expect(second).to_contain_text("Feuer (Kegelschablone, 1,5 Meter; die SL)")
    expect(second.locator(".under-list")).to_have_text("niemand")
    text = card.inner_text()
    for english in ("Yards", "yards", "circle", "cone", "nobody", "the GM"):
        assert english not in text, english
    card.scroll_into_view_if_needed()
    shot(phone, "i18n-tesseris-de-phone-360-templates-card")
    shot(screen, "i18n-tesseris-de-screen-1920-template-label")
    gm.locator("#templates-card").scroll_into_view_if_needed()
    shot(gm, "i18n-tesseris-en-gm-templates-card")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the page fits the phone"
    assert phone.evaluate(OVERFLOWING, "#templates-card") == [], "no word sticks out of its box"


def test_a_german_phone_reads_a_refused_sheet_field_as_one_german_sentence(server, new_page, shot):
    status, g = server.api("POST", "/api/games", {"name": "Ruins", "system": "tesseris_ads"})
    assert status == 201, g
    _, p = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    _, hero = server.api("POST", f"/api/games/{g['id']}/tokens", {"name": "Hero", "x": 1, "y": 1,
                                                                  "owner": p["player_id"], "kind": "pc"}, g["gm_token"])
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands", {
        "type": "add_character", "name": "Hero", "token_id": hero["id"], "owner": p["player_id"]}, g["gm_token"])
    assert status == 200
    phone = new_page(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    phone.goto(f"{server.url}/games/{g['id']}/play?key={p['player_token']}&lang=de")
    expect(phone.locator("#conn.ok")).to_be_visible()
    phone.goto(f"{server.url}/games/{g['id']}/tokens/{hero['id']}/sheet")
    phone.locator("details.sheet-editor > summary").click()
    phone.locator(".sheet-form input[name=strength]").fill("-1")
    phone.locator(".sheet-form button[type=submit]").click()
    expect(phone.locator(".flash-inline.error")).to_have_text("Stärke: 0 oder mehr, nicht -1")
    why = phone.locator(".sheet-form .why")
    expect(why).to_have_text("0 oder mehr, nicht -1")
    why.scroll_into_view_if_needed()
    shot(phone, "i18n-tesseris-de-phone-360-sheet-refused")
    phone.locator(".sheet-form input[name=strength]").fill("4")
    phone.locator(".sheet-form button[type=submit]").click()
    expect(phone.locator(".flash-inline.ok")).to_have_text("Gespeichert.")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the page fits the phone"
