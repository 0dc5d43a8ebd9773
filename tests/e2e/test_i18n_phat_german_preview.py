"""Atomic Tomorrow's attack preview on a German 360 px phone (#37): the odds' outcome lines and the skill line read in
German, a weapon out of reach is refused in German, and nothing sticks out of its box."""

from __future__ import annotations

from playwright.sync_api import expect

from test_i18n_rules_german_phone import OVERFLOWING, german_fight, german_phone


def preview(phone, target_id: str, weapon: str):
    form = phone.locator("#attack-form")
    form.locator("select[name=target]").select_option(target_id)
    form.locator("select[name=weapon]").select_option(label=weapon)
    phone.evaluate("document.getElementById('flash').className = 'flash'")
    form.locator("button[data-attack=preview_attack]").click()


def test_a_german_phone_reads_atomic_tomorrows_odds_and_refusal_in_german(server, new_page, shot):
    g, p = german_fight(server, "atomic_tomorrow")
    _, state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
    bandit = next(t["id"] for t in state["tokens"] if t["name"] == "Bandit")
    status, moved = server.api("POST", f"/api/games/{g['id']}/commands",  # one zone from the Hero: Far
                               {"type": "move_token", "token_id": bandit, "zone": "centre", "force": True}, g["gm_token"])
    assert status == 200, moved
    phone = german_phone(server, new_page, g, p)
    expect(phone.locator("#conn.ok")).to_be_attached()  # the socket is up: the preview goes over it

    preview(phone, bandit, "Vibro-knife")  # a melee weapon at a foe a zone away: the rules say no, in German
    flash = phone.locator("#flash.shown.error")
    expect(flash).to_contain_text("Vibro-knife erreicht Im Nahkampf; das Ziel ist auf Fern")
    assert "reaches" not in flash.inner_text()

    preview(phone, bandit, "Blast pistol")
    card = phone.locator("#attack-preview .attack-preview")
    expect(card.locator("ol.outcomes li").first).to_be_attached()
    outcomes = card.locator("ol.outcomes li .what").all_inner_texts()
    assert "verfehlt" in outcomes and any(o.startswith("Treffer: ") for o in outcomes), outcomes
    said = card.inner_text()
    assert "1 Zonenschritt" in said and "Reichweite: Fern" in said, said
    for english in ("miss", "hit: ", "wound", "critical failure", "with the modifiers", "Ranged ", "zone step", ": far"):
        assert english not in said, (english, said)
    card.scroll_into_view_if_needed()
    shot(phone, "i18n-phat-de-phone-360-atomic-tomorrow-odds")
    card.locator("ol.outcomes").scroll_into_view_if_needed()
    shot(phone, "i18n-phat-de-phone-360-atomic-tomorrow-outcomes")
    assert phone.evaluate("document.documentElement.scrollWidth") <= 360, "the page fits the phone"
    assert phone.evaluate(OVERFLOWING, "#attack-preview") == [], "no word of the odds sticks out of its box"


def test_a_german_sheet_editor_on_a_phone_says_the_rules_reason_beside_the_field(server, new_page):
    """Atomic Tomorrow's sheet check refuses a BRAWN of 0 (1 to 30) beside the field, in German on a 390 px phone,
    and the reason fits its box."""
    from test_sheet_editor_browser import PHONE, character_game, full_shot, sheet_state

    g = character_game(server, "atomic_tomorrow")
    before = sheet_state(server, g)
    page = new_page(**PHONE)
    page.goto(f"{server.url}/games/{g['id']}/gm?key={g['gm_token']}&lang=de")  # this browser is the GM's, in German
    page.goto(f"{server.url}/games/{g['id']}/tokens/{g['token_id']}/sheet")
    page.click("summary:has-text('Bogen bearbeiten')")
    page.locator("input[name=brawn]").fill("0")
    page.locator("form.sheet-form button[type=submit]").click()
    field = page.locator("label.bad", has=page.locator("input[name=brawn]"))
    expect(field.locator(".why")).to_have_text("1 bis 30, nicht 0")
    expect(page.locator("#sheet-body .flash-inline.error")).to_contain_text("1 bis 30, nicht 0")
    field.scroll_into_view_if_needed()
    full_shot(page, "i18n-phat-de-sheet-390-atomic-tomorrow-refused")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.evaluate(OVERFLOWING, "label.bad") == [], "the reason fits beside its field"
    # the rules' choices read in German too, their keys kept: the armour grade, a weapon's skill
    armour = page.locator("select[name=armour]")
    assert armour.input_value() == "light" and armour.locator("option:checked").inner_text() == "Leicht"
    skills = page.locator("select[name$='[skill]']").first.locator("option").all_inner_texts()
    assert skills == ["(Nahkampf)", "Unbewaffnet", "Nahkampf", "Fernkampf"], skills  # empty: the default, Melee
    assert sheet_state(server, g) == before
