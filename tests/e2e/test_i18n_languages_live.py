"""Each device in its own language (issue #37), in Chromium against a real server: a phone that opens its page
with ?lang=de keeps German (the cookie) on the next page; a phone whose browser prefers Spanish gets Spanish;
the GM, in English, sets the table screen to French in the screen panel and the open table screen turns
French by itself. Screenshots in German (the GM page, a 360 px phone, the 1920x1080 table screen) go to
test-artifacts/ to look at for text that overflows or is cut."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

TV = {"viewport": {"width": 1920, "height": 1080}, "screen": {"width": 1920, "height": 1080}}
PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}


def setup(server):
    status, g = server.api("POST", "/api/games", {"name": "Grenzfeste", "system": "savage_worlds"})
    assert status == 201, g
    players = {}
    for name in ("Mira", "Tomás"):
        status, p = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": name})
        assert status == 201, p
        players[name] = p
    tokens = {}
    for name, x, owner in (("Hero", 2, players["Mira"]["player_id"]), ("Ana", 3, players["Tomás"]["player_id"]),
                           ("Bandit", 5, None)):
        body = {"name": name, "x": x, "y": 2, **({"owner": owner, "kind": "pc"} if owner else {})}
        status, t = server.api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"])
        assert status == 201, t
        tokens[name] = t["id"]
    return g, players, tokens


def no_overflow(page) -> list[str]:
    """Elements whose text is wider than their box and not allowed to scroll or wrap (cut or spilling)."""
    return page.evaluate("""() => [...document.querySelectorAll('button, label, h1, h2, h3, summary, a, .flash, small')]
        .filter(el => el.offsetParent !== null && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1
                && getComputedStyle(el).overflowX === 'visible' && getComputedStyle(el).whiteSpace === 'nowrap')
        .map(el => el.tagName + ': ' + el.textContent.trim().slice(0, 60))""")


def wider_than_the_window(page) -> int:
    return page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")


@pytest.mark.timeout(180)
def test_phones_in_german_and_spanish_and_the_screen_follows_the_gms_french(server, new_page, shot):
    g, players, tokens = setup(server)
    base = f"{server.url}/games/{g['id']}"
    # the GM, in English
    gm = new_page(locale="en-GB")
    gm.goto(f"{base}/gm?key={g['gm_token']}")
    expect(gm.locator("html")).to_have_attribute("lang", "en")
    expect(gm.locator("#screen-panel-title")).to_have_text("Table screen")
    # Mira's phone: ?lang=de once; the device keeps it (cookie), the next page is German without asking
    mira = new_page(**PHONE, locale="en-US")
    mira.goto(f"{base}/play?key={players['Mira']['player_token']}&lang=de")
    expect(mira.locator("html")).to_have_attribute("lang", "de")
    cookie = next(c for c in mira.context.cookies() if c["name"] == "lang")
    assert cookie["value"] == "de" and cookie["expires"] > 0
    mira.goto(f"{base}/play")
    expect(mira.locator("html")).to_have_attribute("lang", "de")
    expect(mira.locator("#attack-card h2")).to_have_text("Angriff")
    expect(mira.locator("nav.language a[aria-current='true']")).to_have_text("DE")
    # the scripts speak German too: a flash from static/js (t())
    assert mira.evaluate("() => window.t('Place on the map')") == "Auf die Karte setzen"
    # Tomás's phone: the browser prefers Spanish
    tomas = new_page(**PHONE, locale="es-ES")
    tomas.goto(f"{base}/play?key={players['Tomás']['player_token']}")
    expect(tomas.locator("html")).to_have_attribute("lang", "es")
    expect(tomas.locator("#attack-card h2")).to_have_text("Ataque")
    # the table screen, on a TV whose browser says German, then the GM's choice: French
    screen = new_page(**TV, locale="de-DE")
    screen.goto(f"{base}/screen?key={g['screen_token']}")
    expect(screen.locator("html")).to_have_attribute("lang", "de")
    screen.evaluate("() => { window.__sameDocument = true; }")
    gm.select_option("#tv-language", "fr")
    expect(screen.locator("html")).to_have_attribute("lang", "fr", timeout=15000)  # it reloaded by itself
    assert screen.evaluate("() => window.__sameDocument === undefined")
    screen.wait_for_function("() => typeof window.t === 'function' && document.readyState === 'complete'")
    assert screen.evaluate("() => window.t('The whole map')") == "Toute la carte"
    expect(gm.locator("html")).to_have_attribute("lang", "en")  # the GM's own page stays English
    expect(gm.locator("#tv-language")).to_have_value("fr")
    # and back to the screen's own choice: German again
    gm.select_option("#tv-language", "")
    expect(screen.locator("html")).to_have_attribute("lang", "de", timeout=15000)


@pytest.mark.timeout(240)
def test_german_screenshots_hold_their_longer_words(server, new_page, shot):
    g, players, tokens = setup(server)
    base = f"{server.url}/games/{g['id']}"
    status, reply = server.api("POST", f"/api/games/{g['id']}/commands",
                               {"type": "start_combat", "token_ids": list(tokens.values())}, g["gm_token"])
    assert status == 200, reply
    gm = new_page(viewport={"width": 1440, "height": 900}, locale="de-DE")
    gm.goto(f"{base}/gm?key={g['gm_token']}")
    expect(gm.locator("html")).to_have_attribute("lang", "de")
    for details in gm.locator("aside.panel details").all():  # every panel open
        details.evaluate("(el) => { el.open = true; }")
    gm.wait_for_timeout(300)
    shot(gm, "i18n-de-gm-page")
    gm.set_viewport_size({"width": 1440, "height": 4000})
    shot(gm, "i18n-de-gm-page-panels")
    assert no_overflow(gm) == []
    phone = new_page(**PHONE, locale="de-DE")
    phone.goto(f"{base}/play?key={players['Mira']['player_token']}")
    expect(phone.locator("html")).to_have_attribute("lang", "de")
    phone.wait_for_timeout(300)
    shot(phone, "i18n-de-phone-360")
    assert wider_than_the_window(phone) <= 0, "the German phone page scrolls sideways"
    assert no_overflow(phone) == []
    phone.set_viewport_size({"width": 360, "height": 3000})
    shot(phone, "i18n-de-phone-360-whole")
    screen = new_page(**TV, locale="de-DE")
    screen.goto(f"{base}/screen?key={g['screen_token']}")
    expect(screen.locator("html")).to_have_attribute("lang", "de")
    screen.wait_for_timeout(500)
    shot(screen, "i18n-de-table-screen-1080p")
    assert wider_than_the_window(screen) <= 0
    assert no_overflow(screen) == []
    lobby = new_page(**PHONE, locale="de-DE")
    lobby.goto(f"{server.url}/join?code={g['join_code']}")
    shot(lobby, "i18n-de-join-360")
    assert wider_than_the_window(lobby) <= 0
