"""GURPS Lite's attack card in German (#37), played from a phone: the options' labels, hints and "why not"
reasons, a Rapid Strike at two foes with its note and modifiers, then the roll: the GM's log line says the
multi-target attack in German. Nothing sticks out of the card on the phone; screenshots of the phone's card, the
GM's page and the 1080p table screen in German."""

from __future__ import annotations

from playwright.sync_api import expect

from test_fights import GRID, Table, seeded_dice  # noqa: F401  (a fixture)
from test_i18n_rules_german_phone import OVERFLOWING

PLACES = {"Mira": (4, 3), "Theo": (1, 6), "Goon": (5, 3), "Brute": (5, 4)}


def in_german(page) -> None:
    """The device asks for German once (?lang=de sets its cookie) and shows the same page again."""
    page.goto(page.url + ("&" if "?" in page.url else "?") + "lang=de")
    expect(page.locator("#conn.ok")).to_be_attached()


def preview(table, page, target: str, weapon: str) -> None:
    form = page.locator("#attack-form")
    form.locator("select[name=target]").select_option(table.ids[target])
    index = form.locator("select[name=weapon]").evaluate(
        "(s, [who, key]) => [...s.options].findIndex((o) => o.dataset.attacker === who && o.value === key)",
        [table.ids["Mira"], weapon])
    form.locator("select[name=weapon]").select_option(index=index)
    form.locator("button[data-attack=preview_attack]").click()
    expect(page.locator("#attack-preview .attack-preview", has_text=f"Mira greift {target} an")).to_be_visible()


def test_a_german_phone_reads_gurps_lites_attack_card_and_log_in_german(seeded_dice, server, new_page, shot):
    table = Table(server, new_page, "gurps_lite", GRID, PLACES)
    phone, gm, screen = table.phones["Mira"], table.gm, table.screen
    for page in (phone, gm, screen):
        in_german(page)
    expect(phone.locator("#layer-tokens .token")).to_have_count(len(PLACES))
    preview(table, phone, "Goon", "Broadsword")
    card = phone.locator("#attack-preview")
    options = card.locator("fieldset.attack-options")
    # labels, hints and "why not" reasons in German, the rule cited as the document names it
    for german in ("Trefferzone", "der Abzug steht in jeder Bezeichnung", "Angriff mit zwei Waffen (je -4)",
                   "braucht eine stechende Stoßwaffe (3d6 Combat, 'Attacking', 'Tip Slash')", "Option Total / Engagiert"):
        expect(options).to_contain_text(german)
    expect(card).to_contain_text("Reichweite: nah")  # the "Ranged Attacks" table's band, and the cover, in words
    expect(card).to_contain_text("keine Deckung")
    options.locator("select[data-option=location]").select_option("skull")
    expect(card.locator(".mods")).to_contain_text("Trefferzone: Schädel")
    options = card.locator("fieldset.attack-options")
    options.locator("select[data-option=location]").select_option("torso")
    # a Rapid Strike at two foes: the card's note and modifiers say it in German
    card.locator("[data-option=rapid_strike]").check()
    second = card.locator(".more-targets select[data-extra-target]")
    expect(second).to_have_count(1)
    second.select_option(table.ids["Brute"])
    expect(card.locator(".attack-preview")).to_contain_text("Mira greift Goon, Brute an")
    expect(card).to_contain_text("Schneller Schlag auf 2 Ziele")
    expect(card.locator(".mods")).to_contain_text("Schneller Schlag x2")
    text = card.inner_text()
    for english in ("Hit location", "the penalty is in each label", "needs a thrusting impaling weapon",
                    "Rapid Strike at 2 targets", "Rapid Strike x2", "Dual Weapon Attack", "range: close", "no cover"):
        assert english not in text, english
    assert phone.evaluate("document.documentElement.scrollWidth") <= 390, "the page fits the phone"
    assert phone.evaluate(OVERFLOWING, "#attack-preview") == [], "no word of the card sticks out of its box"
    card.scroll_into_view_if_needed()
    shot(phone, "i18n-gurps-de-phone-390-attack-card")
    closed = card.locator("details.options-closed")  # the options the rules do not open now, each with why
    closed.locator("summary").click()
    expect(closed).to_contain_text("nur Bewegen und Angreifen (3d6 Combat, 'Maneuvers', 'Move and Attack')")
    assert phone.evaluate(OVERFLOWING, "#attack-preview") == [], "the reasons wrap in their box"
    closed.scroll_into_view_if_needed()
    shot(phone, "i18n-gurps-de-phone-390-why-not")
    gm.locator("#attack-preview").scroll_into_view_if_needed()
    shot(gm, "i18n-gurps-de-gm-sees-the-card")
    assert gm.evaluate(OVERFLOWING, "#attack-preview") == []

    phone.locator("#attack-form button[data-attack=attack]").click()
    expect(gm.locator("#log")).to_contain_text("greift Goon, Brute an (Schneller Schlag)")
    expect(phone.locator("#log")).to_contain_text("greift Goon, Brute an (Schneller Schlag)")
    expect(screen.locator("#result-card .result-who")).to_have_text("Mira → Goon, Brute")
    assert "(Rapid Strike)" not in gm.locator("#log").inner_text()
    gm.locator("#log").scroll_into_view_if_needed()
    shot(gm, "i18n-gurps-de-gm-log")
    shot(screen, "i18n-gurps-de-screen-1080-result")
    assert screen.evaluate("document.documentElement.scrollWidth") <= 1920
    assert screen.evaluate(OVERFLOWING, "#result-card") == []
