"""Tesseris's attack card on a German phone (360 px, #37): the preview's outcome lines, the why-nots of the
actions not open now and the options' hints read in German (nothing of them left in English), and none of the
longer German words sticks out of its box. Real Chromium, real server."""

from __future__ import annotations

from playwright.sync_api import expect

from test_i18n_rules_german_phone import OVERFLOWING, german_fight, german_phone


def test_a_german_phone_reads_tesseris_attack_card_in_german_and_it_fits(server, new_page, shot):
    g, p = german_fight(server, "tesseris_ads")
    phone = german_phone(server, new_page, g, p)
    expect(phone.locator("#conn.ok")).to_be_visible()
    phone.locator("#turn-bar a[href='#attack-card']").click()
    form = phone.locator("#attack-form")
    form.locator("select[name=target]").select_option(label="Bandit")
    index = form.locator("select[name=weapon]").evaluate("(s) => [...s.options].findIndex((o) => o.value === 'rifle')")
    assert index >= 0
    form.locator("select[name=weapon]").select_option(index=index)
    form.locator("button[data-attack=preview_attack]").click()
    preview = phone.locator("#attack-preview .attack-preview")
    expect(preview.locator(".outcomes").first).to_be_visible()
    outcomes = preview.locator(".outcomes .what").all_text_contents()
    assert any(o.startswith("Treffer: ") for o in outcomes), outcomes
    assert any(o.endswith("wehrt ab") for o in outcomes), outcomes
    closed = preview.locator("details.options-closed")
    closed.locator("summary").click()  # the options not open now, each with why
    expect(closed.locator(".why").first).to_be_visible()
    whys = closed.locator(".why").all_text_contents()
    assert "nur mit Entwaffnen (Nahkampfaktionen)" in whys, whys
    card = preview.inner_text()
    for german in ("Jetzt nicht: ", "das Ziel ist 3 Felder entfernt, nicht angrenzend",
                   "von der Karte abgelesen; ändern, wenn die Karte falsch liegt", "Keine Deckung von dieser Seite"):
        assert german in card, german
    for english in ("Not now", "hit:", "avoids", "only with", "found on the map", "the target is", "needs"):
        assert english not in card, english
    preview.scroll_into_view_if_needed()
    shot(phone, "i18n-tess-de-phone-360-tesseris-attack-card")
    preview.locator(".attack-options").scroll_into_view_if_needed()
    shot(phone, "i18n-tess-de-phone-360-tesseris-attack-options")
    closed.scroll_into_view_if_needed()
    shot(phone, "i18n-tess-de-phone-360-tesseris-not-now")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the page fits the phone"
    assert phone.evaluate(OVERFLOWING, "#attack-preview") == [], "no word sticks out of its box"
