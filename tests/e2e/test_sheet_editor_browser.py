"""The sheet editor in real Chromium, in every system: Save with nothing changed stores nothing; on a
phone a weapon row is added with the editor's own Add button and lands on the sheet; a value the rules
refuse comes back beside its field with the reason and the typed text. Screenshots of each editor on a
laptop and a phone go to test-artifacts/ (sheet-<system>-laptop.png, sheet-<system>-phone.png)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import save_shot

SYSTEMS = ["savage_worlds", "gurps_lite", "tesseris_ads", "atomic_tomorrow", "phase_tn"]
LAPTOP = {"width": 1280, "height": 800}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


def character_game(server, system_id: str) -> dict:
    """A game of the system with a token, Aria, that has a character (the system's example sheet)."""
    status, g = server.api("POST", "/api/games", {"name": f"Sheets {system_id}", "system": system_id})
    assert status == 201, g
    _, state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
    where = {"zone": state["zones"][0]["id"]} if state.get("zones") else {"x": 1, "y": 1}
    status, tok = server.api("POST", f"/api/games/{g['id']}/tokens", {"name": "Aria", **where}, token=g["gm_token"])
    assert status in (200, 201), tok
    status, body = server.api("POST", f"/api/games/{g['id']}/commands",
                              {"type": "add_character", "name": "Aria", "token_id": tok["id"]}, token=g["gm_token"])
    assert status == 200, body
    return g | {"token_id": tok["id"]}


def sheet_state(server, g) -> tuple[dict, int]:
    _, state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
    return state["characters"][0]["sheet"], state["seq"]


def open_editor(new_page, server, g, **kw):
    page = new_page(**kw)
    page.goto(f"{server.url}/games/{g['id']}/gm?key={g['gm_token']}")  # this browser is the GM's
    page.goto(f"{server.url}/games/{g['id']}/tokens/{g['token_id']}/sheet")
    page.click("summary:has-text('Edit the sheet')")
    expect(page.locator("form.sheet-form button[type=submit]")).to_be_visible()
    return page


def full_shot(page, name: str) -> None:
    save_shot(page, name, full_page=True)


@pytest.mark.parametrize("system_id", SYSTEMS)
def test_save_with_nothing_changed_stores_nothing_on_a_laptop_and_a_phone(server, new_page, system_id):
    g = character_game(server, system_id)
    before = sheet_state(server, g)
    for name, kw in (("laptop", {"viewport": LAPTOP}), ("phone", PHONE)):
        page = open_editor(new_page, server, g, **kw)
        full_shot(page, f"sheet-{system_id}-{name}")
        page.locator("form.sheet-form button[type=submit]").click()
        expect(page.locator("#sheet-body .flash-inline")).to_have_text("Nothing changed.")
        assert sheet_state(server, g) == before  # the same sheet, and no event in the log
        assert page.locator("form.sheet-form [data-row] .why").count() == 0


def test_a_weapon_row_added_on_a_phone_is_saved_and_shown_on_the_sheet(server, new_page):
    g = character_game(server, "savage_worlds")
    before, _ = sheet_state(server, g)
    page = open_editor(new_page, server, g, **PHONE)
    weapons = page.locator('fieldset[data-rows="weapons"]')
    rows = weapons.locator(".rows-list > [data-row]")
    count = rows.count()
    weapons.locator("[data-add-row]").tap()
    expect(rows).to_have_count(count + 1)
    new = rows.last
    expect(new.locator("input[name$='[name]']")).to_be_focused()
    new.locator("input[name$='[name]']").fill("Laser pistol")
    new.locator("input[name$='[damage]']").fill("2d6")
    new.locator("input[name$='[range]']").fill("12/24/48")
    new.locator("input[name$='[ap]']").fill("2")
    new.locator("summary", has_text="More").tap()
    new.locator("input[name$='[thrown]']").check()
    new.locator("input[name$='[thrown]']").uncheck()
    full_shot(page, "sheet-savage_worlds-phone-new-weapon")
    # a row added by mistake, then removed
    weapons.locator("[data-add-row]").tap()
    expect(rows).to_have_count(count + 2)
    rows.last.locator("[data-remove-row]").tap()
    expect(rows).to_have_count(count + 1)
    page.locator("form.sheet-form button[type=submit]").tap()
    expect(page.locator("#sheet-body .flash-inline")).to_have_text("Saved.")
    expect(page.locator(".sheet-savage_worlds table")).to_contain_text("Laser pistol")
    after, _ = sheet_state(server, g)
    assert after["weapons"]["Laser pistol"] == {"damage": "2d6", "range": "12/24/48", "ap": 2}
    assert {k: v for k, v in after["weapons"].items() if k != "Laser pistol"} == before["weapons"]
    # the saved editor shows the new weapon as a row of its own
    expect(page.locator('fieldset[data-rows="weapons"] .rows-list > [data-row]')).to_have_count(count + 1)


def test_a_refused_value_is_marked_beside_its_field_with_the_reason_and_the_typed_text_stays(server, new_page):
    g = character_game(server, "savage_worlds")
    before = sheet_state(server, g)
    page = open_editor(new_page, server, g, viewport=LAPTOP)
    weapons = page.locator('fieldset[data-rows="weapons"]')
    weapons.locator("[data-add-row]").click()
    new = weapons.locator(".rows-list > [data-row]").last
    new.locator("input[name$='[name]']").fill("Bow")
    new.locator("input[name$='[range]']").fill("12/24")
    page.locator("input[name=group]").fill("Archers")
    page.locator("form.sheet-form button[type=submit]").click()
    expect(page.locator("#sheet-body .flash-inline.error")).to_contain_text("Weapons, Bow, Range")
    cell = page.locator("label.cell.bad", has=page.locator("input[name$='[range]']"))
    expect(cell.locator(".why")).to_have_text("a range reads like 12/24/48, not '12/24'")
    expect(cell.locator("input")).to_have_value("12/24")
    bow = page.locator('fieldset[data-rows="weapons"] .rows-list > [data-row]').last
    expect(bow.locator("input[name$='[name]']")).to_have_value("Bow")
    expect(page.locator("input[name=group]")).to_have_value("Archers")
    full_shot(page, "sheet-savage_worlds-laptop-refused")
    assert sheet_state(server, g) == before
    # put right, it saves
    cell.locator("input").fill("12/24/48")
    page.locator("form.sheet-form button[type=submit]").click()
    expect(page.locator("#sheet-body .flash-inline")).to_have_text("Saved.")
    after, _ = sheet_state(server, g)
    assert after["weapons"]["Bow"]["range"] == "12/24/48" and after["group"] == "Archers"
