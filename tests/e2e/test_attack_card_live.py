"""The attack card stays current (issue #24): once someone has picked an attacker, a target or a
weapon, a token added later and an area template just laid still show up in its lists without a
reload, and the choice made stays chosen. Real Chromium against a real server."""

from __future__ import annotations

from playwright.sync_api import expect

from test_table_screens import add_token, gm_and_phone, join, new_game


def selected(page, name: str) -> str:
    return page.locator(f"#attack-form select[name={name}]").evaluate("s => s.value")


def option_values(page, name: str) -> list[str]:
    return page.locator(f"#attack-form select[name={name}] option").evaluate_all("os => os.map(o => o.value)")


def test_a_token_added_after_a_target_was_picked_joins_the_attack_cards_lists(server, new_page, shot):
    game = new_game(server, "savage_worlds", name="Attack card")
    mira = join(server, game, "Mira")
    add_token(server, game, "Hero", 2, 2, owner=mira["player_id"], kind="pc")
    goblin = add_token(server, game, "Goblin", 6, 2)
    wolf = add_token(server, game, "Wolf", 6, 5)
    gm, phone = gm_and_phone(server, new_page, game, mira)

    # the GM attacks with the Goblin at the Wolf; Mira aims her Hero at the Wolf (not the first foe)
    gm_form = gm.locator("#attack-form")
    gm_form.locator("select[name=attacker]").select_option(goblin)
    gm_form.locator("select[name=target]").select_option(wolf)
    gm_form.locator("select[name=target]").focus()  # a desktop select keeps the focus once picked from
    phone.locator("#attack-form select[name=target]").select_option(wolf)
    assert selected(gm, "target") == wolf and selected(phone, "target") == wolf

    # a foe comes in (through the API, as a GM's tool would add it)
    ogre = add_token(server, game, "Ogre", 9, 3)
    for page in (gm, phone):
        expect(page.locator(f"#attack-form select[name=target] option[value='{ogre}']")).to_have_text("Ogre")
        assert selected(page, "target") == wolf  # the choice made is still the choice
    assert selected(gm, "attacker") == goblin
    assert gm.evaluate("document.activeElement && document.activeElement.name") == "target"
    # the GM's attacker list has the new foe too, its weapons listed for it
    assert ogre in option_values(gm, "attacker")

    # an area template laid on the map shows up in the card's template list, the target still chosen
    status, body = server.api("POST", f"/api/games/{game['id']}/commands",
                              {"type": "place_template", "shape": "circle", "x": 6.5, "y": 5.5, "size": 1,
                               "label": "Blast"}, game["gm_token"])
    assert status == 200, body
    for page in (gm, phone):
        expect(page.locator("#attack-form select[name=template] option", has_text="Blast")).to_have_count(1)
        assert selected(page, "target") == wolf

    # a target that is gone is no longer offered: the card falls back to the server's choice
    server.api("POST", f"/api/games/{game['id']}/commands", {"type": "remove_token", "token_id": wolf}, game["gm_token"])
    for page in (gm, phone):
        expect(page.locator(f"#attack-form select[name=target] option[value='{wolf}']")).to_have_count(0)
        assert selected(page, "target") in option_values(page, "target")
    shot(gm, "attack-card-live-gm")
    phone.locator("#attack-card").scroll_into_view_if_needed()
    shot(phone, "attack-card-live-phone")
