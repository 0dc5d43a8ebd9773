"""The rules' values inside translated lines, seen in German (issue #37): Savage Worlds' blast templates listed on
a 360 px phone's attack form, and an Atomic Tomorrow zone's cover grade on the 1080p table screen's map: in
German, nothing of them left in English, and nothing sticks out of its box."""

from __future__ import annotations

from test_i18n_rules_german_phone import OVERFLOWING, german_fight, german_phone


def test_a_german_phone_lists_the_blast_templates_in_german_and_they_fit(server, new_page, shot):
    g, p = german_fight(server, "savage_worlds")
    phone = german_phone(server, new_page, g, p)
    line = phone.locator("p", has_text="Lege eine Schablone auf die Karte").first
    line.scroll_into_view_if_needed()
    said = line.inner_text()
    for word in ('Kleine Explosionsschablone (1" Radius)', 'Große Explosionsschablone (3" Radius)',
                 "Kegelschablone", 'Linie (1" breit)'):
        assert word in said, said
    assert "Blast" not in said and "wide" not in said, said
    shot(phone, "i18n-templates-cover-de-phone-360-savage-worlds-templates")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the page fits the phone"
    assert phone.evaluate(OVERFLOWING, "#live") == [], "no word sticks out of its box"


def test_the_german_table_screen_names_a_zones_cover_grade_in_german(server, new_page, shot):
    g, _p = german_fight(server, "atomic_tomorrow")
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(f"{server.url}/games/{g['id']}/screen?key={g['screen_token']}&lang=de")
    screen.wait_for_selector("#map")
    covers = screen.locator(".zone-cover").all_text_contents()
    assert covers and "Deckung: teilweise" in covers, covers
    assert not any("partial" in c or "cover" in c for c in covers), covers
    shot(screen, "i18n-templates-cover-de-screen-1080-atomic-tomorrow-cover")
    assert screen.evaluate("document.documentElement.scrollWidth") <= 1920
