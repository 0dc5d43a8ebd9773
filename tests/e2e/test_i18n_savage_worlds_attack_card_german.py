"""Savage Worlds' attack card in German on a 360 px phone (#37): the odds' outcomes (critical failure, miss, hit:
Shaken, wounds, Incapacitated), the range band and the cover grade are the rules' words in the reader's language,
nothing of them left in English, and the longer German lines fit their box."""

from __future__ import annotations

from playwright.sync_api import expect

from test_i18n_rules_german_phone import OVERFLOWING, german_fight, german_phone


def test_a_german_phone_reads_the_attack_cards_outcomes_in_german_and_they_fit(server, new_page, shot):
    g, p = german_fight(server, "savage_worlds")
    phone = german_phone(server, new_page, g, p)
    expect(phone.locator("#conn.ok")).to_be_visible()
    form = phone.locator("#attack-form")
    form.locator("select[name=target]").select_option(label="Bandit")
    index = form.locator("select[name=weapon]").evaluate(
        "(s) => [...s.options].findIndex((o) => !o.disabled && o.value === 'Colt Peacemaker')")
    assert index >= 0
    form.locator("select[name=weapon]").select_option(index=index)
    form.locator("button[data-attack=preview_attack]").click()
    card = phone.locator("#attack-preview .attack-preview")
    expect(card.locator("ol.outcomes li").first).to_be_visible()
    outcomes = card.locator("ol.outcomes li .what").all_inner_texts()
    for words in ("kritischer Fehlschlag", "verfehlt", "Treffer: keine Wirkung", "Treffer: Angeschlagen",
                  "Treffer: 1 Wunde", "Treffer: Außer Gefecht"):
        assert words in outcomes, outcomes
    for english in ("critical failure", "miss", "hit:", "wound", "Incapacitated"):
        assert not any(english in o for o in outcomes), outcomes
    text = card.inner_text()
    assert "Reichweite: kurz" in text and "Keine Deckung" in text and "short" not in text, text  # the band, the cover
    card.locator("ol.outcomes").scroll_into_view_if_needed()
    shot(phone, "i18n-misc-de-phone-360-savage-worlds-attack-card")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the page fits the phone"
    assert phone.evaluate(OVERFLOWING, "#attack-preview") == [], "no word sticks out of its box"
