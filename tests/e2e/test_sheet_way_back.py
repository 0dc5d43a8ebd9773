"""A player's sheet on a phone (issue #33): it opens in the same tab with a way back to the table, and its
"Edit the sheet" is a fingertip tall."""

from __future__ import annotations

from playwright.sync_api import expect

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def test_the_sheet_opens_in_the_same_tab_and_leads_back_to_the_table(server, new_page, shot):
    status, g = server.api("POST", "/api/games", {"name": "Harrow", "system": "savage_worlds"})
    assert status == 201, g
    status, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    status, made = server.api("POST", f"/api/games/{g['id']}/tokens",
                              {"name": "Aria", "x": 2, "y": 2, "owner": mira["player_id"], "kind": "pc"}, g["gm_token"])
    assert status == 201, made
    status, ack = server.api("POST", f"/api/games/{g['id']}/commands", {"type": "add_character", "name": "Aria",
                             "token_id": made["id"], "owner": mira["player_id"]}, g["gm_token"])
    assert status == 200, ack
    phone = new_page(**PHONE)
    phone.goto(f"{server.url}/games/{g['id']}/play?key={mira['player_token']}")
    expect(phone.locator("#conn.ok")).to_be_visible()
    pages = len(phone.context.pages)
    phone.locator("#my-tokens a", has_text="sheet").click()
    expect(phone.locator(".sheet-page")).to_be_visible()
    assert len(phone.context.pages) == pages  # no new tab
    summary = phone.locator(".sheet-editor > summary")
    expect(summary).to_have_text("Edit the sheet")
    assert summary.bounding_box()["height"] >= 44, summary.bounding_box()
    shot(phone, "phone-sheet")
    phone.locator("#back-to-table").click()
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(phone.locator("#my-tokens")).to_contain_text("Aria")
