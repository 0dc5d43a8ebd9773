"""The table in each player's language (issue #37): a GM in English and two phones, one in German and one in
Spanish, play a Savage Worlds attack; each sees the result card and the log line in their own language (the
German and Spanish editions' words: Angeschlagen, Wunden; Aturdido, Heridas), and the table screen in its
own (here its device's French, the GM having chosen none). Real Chromium against a real server."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_fights import seeded_dice  # noqa: F401  (a fixture)
from test_table_screens import NARROW_PHONE, PHONE, add_token, join, new_game, player_url

VERDICT = {"en": ("HIT", "MISS"), "de": ("TREFFER", "VERFEHLT"), "es": ("IMPACTO", "FALLO"), "fr": ("TOUCHÉ", "RATÉ")}
SUMMARY = {"en": r"Aria (hits|misses) Bruno", "de": r"Aria (trifft|verfehlt) Bruno", "es": r"Aria (impacta a|falla contra) Bruno",
           "fr": r"Aria (touche|rate) Bruno"}


def test_a_gm_in_english_and_phones_in_german_and_spanish_each_read_the_attack_in_their_language(
        seeded_dice, server, new_page, shot):  # noqa: F811
    game = new_game(server, "savage_worlds", name="Sprachen")
    mira, pablo = join(server, game, "Mira"), join(server, game, "Pablo")
    add_token(server, game, "Aria", 2, 2, owner=mira["player_id"], kind="pc")
    bruno = add_token(server, game, "Bruno", 3, 2, owner=pablo["player_id"], kind="pc")
    gm = new_page(viewport={"width": 1280, "height": 800}, locale="en-US")
    gm.goto(game["urls"]["gm"])
    german = new_page(**NARROW_PHONE, locale="de-DE")  # German words are the longest: the narrowest phone
    german.goto(player_url(server, game, mira))
    spanish = new_page(**PHONE, locale="es-ES")
    spanish.goto(player_url(server, game, pablo))
    screen = new_page(viewport={"width": 1920, "height": 1080}, locale="fr-FR")
    screen.goto(game["urls"]["screen"])
    for page in (gm, german, spanish):
        expect(page.locator("#conn.ok")).to_be_visible()
    expect(screen.locator("#conn.ok")).to_be_attached()

    # Mira attacks Pablo's Bruno from her phone, with her fists
    form = german.locator("#attack-form")
    form.locator("select[name=target]").select_option(bruno)
    form.locator("button[data-attack=attack]").click()

    pages = {"en": gm, "de": german, "es": spanish, "fr": screen}
    for lang in ("de", "es", "fr"):  # the phones of the two players in the fight, and the table screen
        card = pages[lang].locator("#result-card")
        expect(card.locator(".result-verdict")).to_have_text(re.compile("^(" + "|".join(VERDICT[lang]) + ")$"))
        expect(card.locator(".result-summary")).to_have_text(re.compile(SUMMARY[lang]))
    for lang in ("en", "de", "es"):  # the log: the GM's page and the phones
        expect(pages[lang].locator("#log li").first).to_contain_text(re.compile(SUMMARY[lang]))
    english = gm.locator("#log li").first.inner_text()
    said_de = german.locator("#log li").first.inner_text()
    said_es = spanish.locator("#log li").first.inner_text()
    assert "Bruno" in english and said_de != english and said_es != english and said_de != said_es
    # the breakdown of the roll, in each reader's words
    for lang, die in (("de", "Kämpfen-Würfel"), ("es", "Dado de Pelear"), ("en", "Fighting die")):
        assert die in pages[lang].locator("#log li").first.text_content()
    # the game's own terms where the attack did something: a German phone never reads "Shaken" or "Wound"
    assert not re.search(r"\b(Shaken|Wounds?|damage|hits|misses)\b", german.locator("#log li").first.text_content())
    assert not re.search(r"\b(Shaken|Wounds?|damage|hits|misses)\b", spanish.locator("#log li").first.text_content())

    # Pablo moves Bruno away: each phone reads the line in its own language
    status, ack = server.api("POST", f"/api/games/{game['id']}/commands",
                             {"type": "move_token", "token_id": bruno, "x": 6, "y": 2}, pablo["player_token"])
    assert status == 200, ack
    expect(german.locator("#log li").first).to_have_text(re.compile(r"^Bruno zieht nach \(6, 2\)"))
    expect(spanish.locator("#log li").first).to_have_text(re.compile(r"^Bruno se mueve a \(6, 2\)"))
    expect(gm.locator("#log li").first).to_have_text(re.compile(r"^Bruno moved to \(6, 2\)"))

    # a reload keeps each device's language (the page renders the log in it, not only the live updates)
    german.reload()
    expect(german.locator("#conn.ok")).to_be_visible()
    expect(german.locator("#log li").nth(1)).to_contain_text(re.compile(SUMMARY["de"]))
    shot(screen, "i18n-rules-screen-french")
    for page in (gm, german, spanish):  # the log, its newest line opened: nothing wider than the phone
        page.locator("#log li").nth(1).locator("summary").click()
        page.locator("#log").scroll_into_view_if_needed()
        wide = page.locator("#log li").evaluate_all(
            "lis => lis.filter((li) => li.scrollWidth > li.clientWidth + 1).map((li) => li.textContent.slice(0, 60))")
        assert wide == [], wide
    shot(gm, "i18n-rules-gm-english-log")
    shot(german, "i18n-rules-phone-german-log")
    shot(spanish, "i18n-rules-phone-spanish-log")
