"""Savage Worlds: a Rapid Attack divided among targets from a player's phone (#33). The core rules'
Rapid Attack (assumed by the *Savage Worlds Combat System Reference*): up to three Fighting attacks
at -4 each, which may be divided among targets; the phone picks the attacks, a second target and how
many go at each, the odds follow per target, and the roll resolves each against its own target."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from test_attack_choices import PLACES
from test_fights import GRID, Table, seeded_dice  # noqa: F401  (a fixture)


def test_a_phone_divides_a_rapid_attack_between_two_foes(seeded_dice, server, new_page, shot):
    table = Table(server, new_page, "savage_worlds", GRID, PLACES)
    phone, gm, screen = table.phones["Mira"], table.gm, table.screen
    assert table.preview(phone, "Mira", "Goon", "Long sword") is None
    card = phone.locator("#attack-preview")
    rapid = card.locator("input[data-option=rapid_attack]")
    rapid.fill("3")
    rapid.dispatch_event("change")
    expect(card.locator(".mods")).to_contain_text("Rapid Attack (3 attacks)")
    extra = card.locator(".more-targets select[data-extra-target]")
    expect(extra).to_have_count(2)  # three attacks: up to three targets
    extra.first.select_option(table.ids["Brute"])
    expect(card.locator(".attack-preview")).to_contain_text("Mira attacks Goon, Brute")
    share = card.locator("select[data-option=rapid_split]")
    expect(share).to_be_enabled()
    expect(share.locator("option")).to_have_text(["Goon 2, Brute 1", "Goon 1, Brute 2"])
    share.select_option("1-2")
    expect(card.locator("select[data-option=rapid_split]")).to_have_value("1-2")
    expect(card.locator("h3.under-title").first).to_have_text("Each target")
    each = card.locator("details.under-odds")
    expect(each).to_have_count(2)
    expect(each.nth(0)).to_contain_text("Goon")
    expect(each.nth(1)).to_contain_text("Brute")
    expect(phone.locator("#layer-aim line.aim-line")).to_have_count(2)
    expect(card.locator(".attack-preview")).to_contain_text("1 attack at Goon, 2 attacks at Brute")
    phone.evaluate("document.querySelector('#attack-preview').scrollIntoView()")
    shot(phone, "sw-phone-rapid-attack-split")
    shot(gm, "sw-gm-sees-rapid-attack-split")

    text = table.roll_attack(phone)
    assert text.startswith("Rapid Attack, 3 attacks at 2 targets"), text
    assert "(1 of the 3 attacks)" in text and "(2 of the 3 attacks)" in text
    entry = [e for e in table.state()["log"] if (e.get("detail") or {}).get("attack")][-1]
    details = entry["detail"]["attack"]["details"]
    assert [(t["name"], t["dice"]) for t in details["targets"]] == [("Goon", 1), ("Brute", 2)]
    result = screen.locator("#result-card")
    expect(result.locator(".result-who")).to_have_text("Mira → Goon, Brute")
    expect(result.locator(".result-targets li")).to_have_count(2)
    expect(result.locator(".result-verdict")).to_have_text(re.compile(r"^(HIT [12] OF 2|MISS)$"))
    shot(screen, "sw-screen-rapid-attack-split")
