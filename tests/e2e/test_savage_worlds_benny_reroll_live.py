"""Savage Worlds: the Benny reroll on the screens (#33). Right after a Wild Card's attack misses, its
player's phone offers "Spend a Benny and reroll" (the GM's page for an NPC Wild Card); taking it rolls
the attack again, the better total counting, spends the Benny (the badge says so on every screen), and
the GM's Undo brings the Benny and the offer back. Savage Worlds core rules, Bennies."""

from __future__ import annotations

from playwright.sync_api import expect

import rules
from test_attack_choices import PLACES
from test_fights import GRID, Table, seeded_dice  # noqa: F401  (a fixture)

S = rules.get("savage_worlds")


def attack_until_a_miss(table: Table, attacker: str, target: str) -> dict:
    g = table.game
    for _ in range(30):
        status, ack = table.server.api("POST", f"/api/games/{g['id']}/commands", {
            "type": "attack", "attacker": table.ids[attacker], "target": table.ids[target], "weapon": "Long sword"},
            g["gm_token"])
        assert status == 200, ack
        result = [e for e in table.state()["log"] if (e.get("detail") or {}).get("attack")][-1]["detail"]["attack"]
        if not result["hit"] and not result["details"]["critical_failure"]:
            return result
    raise AssertionError(f"{attacker} never missed")


def test_a_phone_spends_a_benny_to_reroll_a_miss_and_the_gm_undoes_it(seeded_dice, server, new_page, shot):
    table = Table(server, new_page, "savage_worlds", GRID, PLACES)
    phone, gm, screen = table.phones["Mira"], table.gm, table.screen
    mira = S.default_sheet()
    mira["skills"] = {**mira["skills"], "fighting": "d4"}
    mira["bennies"] = 3
    status, ack = server.api("POST", f"/api/games/{table.game['id']}/commands", {
        "type": "add_character", "name": "Mira", "token_id": table.ids["Mira"], "sheet": mira},
        table.game["gm_token"])
    assert status == 200, ack
    first = attack_until_a_miss(table, "Mira", "Goon")
    best = max(s["total"] for s in first["details"]["shots"])
    prompt = phone.locator("#reroll-prompt")
    expect(prompt).to_be_visible()
    expect(prompt).to_contain_text(f"Mira missed (best total {best}). Spend a Benny (3 left)")
    expect(table.phones["Theo"].locator("#reroll-prompt")).to_be_hidden()  # not Theo's token
    expect(screen.locator("#reroll-prompt")).to_have_count(0)
    expect(gm.locator("#reroll-prompt")).to_contain_text("the GM may answer for the player")
    shot(phone, "sw-phone-benny-reroll-offer")
    prompt.locator("button[data-reroll=yes]").click()
    expect(prompt).to_be_hidden()
    expect(gm.locator("#reroll-prompt")).to_be_hidden()
    for page in (gm, phone):
        expect(page.locator("#log")).to_contain_text(f"Mira spends a Benny to reroll the attack: best {best}, then")
    for page in (gm, phone, screen):
        expect(page.locator(f"#token-{table.ids['Mira']}")).to_contain_text("2 Bennies")
    shot(phone, "sw-phone-benny-rerolled")
    shot(screen, "sw-screen-benny-rerolled")

    gm.click("#log button:has-text('Undo')")
    expect(gm.locator("#log li").first).to_contain_text("the GM undid the last action (benny rerolled)")
    expect(prompt).to_be_visible()  # the offer is back, and so is the Benny
    for page in (gm, phone, screen):
        expect(page.locator(f"#token-{table.ids['Mira']}")).to_contain_text("3 Bennies")
    # the game moves on: the GM moves a token, and the offer goes
    status, ack = server.api("POST", f"/api/games/{table.game['id']}/commands", {
        "type": "move_token", "token_id": table.ids["Theo"], "x": 1, "y": 5}, table.game["gm_token"])
    assert status == 200, ack
    expect(prompt).to_be_hidden()

    # an NPC Wild Card's miss: the GM's page offers it (the Goon's Bennies are the GM's)
    attack_until_a_miss(table, "Goon", "Mira")
    offer = gm.locator("#reroll-prompt")
    expect(offer).to_contain_text("Goon missed")
    expect(phone.locator("#reroll-prompt")).to_be_hidden()
    shot(gm, "sw-gm-benny-reroll-npc")
    offer.locator("button[data-reroll=no]").click()
    expect(offer).to_be_hidden()
    expect(gm.locator("#log")).to_contain_text("Goon keeps the roll (no Benny spent)")
