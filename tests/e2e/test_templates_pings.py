"""Area templates, an area attack and pings, from the GM's laptop, a player's phone and the table screen.

A player lays a template from the Templates card and every screen shows it with the tokens under it;
a Savage Worlds blast thrown from the phone is resolved for the two foes under it and the table
screen shows the result card; a long press on the phone flashes a ping on the GM's page and the screen.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from test_live_table import cell_center

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
BOARD = {"width": 12, "height": 8}
GRENADE = {"damage": "3d6", "range": "5/10/20", "thrown": True}


@pytest.fixture
def seeded(monkeypatch):
    monkeypatch.setenv("TACMAP_DICE_SEED", "5")


def open_game(server, new_page, system="savage_worlds"):
    status, g = server.api("POST", "/api/games", {"name": "Blast", "system": system, "map": BOARD})
    assert status == 201, g
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(g["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    phone = new_page(**PHONE)
    phone.goto(g["urls"]["join"])
    phone.fill("input[name=name]", "Mira")
    phone.click("button:has-text('Join')")
    expect(phone.locator("#conn.ok")).to_be_visible()
    _, state = server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])
    mira = state["players"][0]["id"]
    ids = {}
    for name, (x, y), owner in [("Hero", (2, 3), mira), ("Brute", (7, 3), None), ("Goon", (8, 3), None),
                                ("Scout", (10, 7), None)]:
        body = {"name": name, "x": x, "y": y, **({"owner": owner, "kind": "pc"} if owner else {})}
        status, made = server.api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"])
        assert status == 201, made
        ids[name] = made["id"]
    for page in (gm, screen, phone):
        expect(page.locator("#layer-tokens .token")).to_have_count(4)
    return g, gm, screen, phone, ids


def state_of(server, g):
    return server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])[1]


def fit(phone):
    phone.click("[data-zoom=fit]")
    phone.locator("#map-frame").scroll_into_view_if_needed()


def test_a_player_lays_a_template_and_every_screen_shows_who_is_under_it(server, new_page, shot):
    g, gm, screen, phone, ids = open_game(server, new_page)
    form = phone.locator("#template-form")
    form.locator("select[name=shape]").select_option("circle")
    form.locator("input[name=size]").fill("1")
    form.locator("input[name=label]").fill("Grenade")
    phone.click("#place-template")
    expect(phone.locator("#template-hint")).to_be_visible()
    fit(phone)
    x, y = cell_center(phone, 7, 3)
    phone.mouse.click(x + 12, y)  # right of the square's centre: the template goes to the nearest half square
    for page in (gm, screen, phone):
        tpl = page.locator("#layer-templates .area-template")
        expect(tpl).to_have_count(1)
        expect(tpl).to_have_attribute("data-under", "Brute, Goon")
        expect(tpl.locator(".under-mark")).to_have_count(2)
        expect(tpl.locator(".template-label")).to_have_text("Grenade: Brute, Goon")
    expect(gm.locator("#templates-card .under-list")).to_have_text("Brute, Goon")
    expect(gm.locator("#log")).to_contain_text("Mira laid a circle template ‘Grenade’")
    expect(screen.locator("#layer-templates .area-template.movable")).to_have_count(0)
    shot(gm, "templates-gm")
    shot(phone, "templates-phone")
    shot(screen, "templates-screen")

    # the player drags it onto the scout: the list under it follows on every screen
    fit(phone)
    sx, sy = cell_center(phone, 7, 3)
    tx, ty = cell_center(phone, 10, 7)
    phone.mouse.move(sx + 12, sy)  # on the Brute, who is not Mira's: the template under it is taken
    phone.mouse.down()
    phone.mouse.move((sx + tx) / 2, (sy + ty) / 2, steps=4)
    phone.mouse.move(tx, ty, steps=4)
    for page in (gm, screen):  # on its way: the others see it move before the drop
        expect(page.locator("#layer-templates .area-template .template-shape")).to_have_attribute(
            "transform", re.compile(r"translate\((2\.5|3) 4\)"))
    phone.mouse.up()
    for page in (gm, screen):
        expect(page.locator("#layer-templates .area-template")).to_have_attribute("data-under", "Scout")
    # and takes it away
    phone.click("#templates-card [data-template-remove]")
    for page in (gm, screen, phone):
        expect(page.locator("#layer-templates .area-template")).to_have_count(0)


@pytest.mark.long
def test_a_blast_from_a_phone_is_resolved_for_both_foes_under_it_on_the_table_screen(seeded, server, new_page, shot):
    g, gm, screen, phone, ids = open_game(server, new_page)
    sheet = {"name": "Hero", "wild_card": True, "attributes": {"agility": "d8", "smarts": "d6", "spirit": "d6",
             "strength": "d6", "vigor": "d8"}, "skills": {"athletics": "d10", "fighting": "d6", "notice": "d6"},
             "pace": 6, "weapons": {"Grenade": GRENADE}}
    status, r = server.api("POST", f"/api/games/{g['id']}/commands",
                           {"type": "add_character", "name": "Hero", "token_id": ids["Hero"], "sheet": sheet},
                           g["gm_token"])
    assert status == 200, r
    status, r = server.api("POST", f"/api/games/{g['id']}/commands",
                           {"type": "place_template", "shape": "circle", "x": 7.5, "y": 3.5, "size": 2,
                            "label": "Blast"}, g["gm_token"])
    assert status == 200, r
    card = phone.locator("#attack-form")
    expect(card.locator("select[name=template] option")).to_have_count(2)
    card.locator("select[name=target]").select_option(ids["Brute"])
    card.locator("select[name=weapon]").select_option("Grenade")
    card.locator("select[name=template]").select_option(index=1)
    card.locator("button[data-attack=preview_attack]").click()
    preview = phone.locator("#attack-preview .attack-preview")
    expect(preview.locator(".under-odds")).to_have_count(2)
    expect(preview).to_contain_text("Brute")
    expect(preview).to_contain_text("Goon")
    expect(phone.locator("#layer-aim rect.aim-cell").first).to_be_attached()
    preview.scroll_into_view_if_needed()
    shot(phone, "blast-preview-phone")
    for attempt in range(12):  # seeded dice: a miss deviates; the GM takes it back until the blast lands
        before = len([e for e in state_of(server, g)["log"] if (e.get("detail") or {}).get("card")])
        if attempt:
            card.locator("button[data-attack=preview_attack]").click()
            expect(preview.locator(".under-odds")).to_have_count(2)
        card.locator("button[data-attack=attack]").click()
        for _ in range(50):
            cards = [e for e in state_of(server, g)["log"] if (e.get("detail") or {}).get("card")]
            if len(cards) > before:
                break
            phone.wait_for_timeout(100)
        entry = cards[-1]
        hit = {t["name"] for t in entry["detail"]["card"]["targets"]}
        if entry["detail"]["card"]["hit"] and hit == {"Brute", "Goon"}:
            break
        gm.click("#log form[data-command=undo] button")
        expect(gm.locator("#log li").first).to_contain_text("the GM undid the last action")
    else:
        pytest.fail("twelve blasts and none landed on both foes")
    result = screen.locator("#result-card.shown")
    expect(result).to_be_visible()
    struck = sum(1 for t in entry["detail"]["card"]["targets"] if t["hit"])  # an area attack: how many it hit
    expect(result.locator(".result-verdict")).to_have_text(f"{struck} HIT" if struck else "NO ONE HIT")
    expect(result.locator(".result-targets li")).to_have_count(2)
    expect(result.locator(".result-targets")).to_contain_text("Brute")
    expect(result.locator(".result-targets")).to_contain_text("Goon")
    expect(result.locator(".result-targets .now").first).not_to_be_empty()
    screen.wait_for_timeout(500)  # past the card's slide-in
    shot(screen, "result-card-screen")
    # the breakdown per target is in the players' and the GM's logs
    expect(gm.locator("#log li.attack").first).to_contain_text("template hits 2")
    # a few seconds on: the card goes, the screen's rolls and attacks beside the map keep the line
    expect(screen.locator("#result-card.shown")).to_have_count(0, timeout=15000)
    expect(screen.locator("#screen-feed")).to_contain_text("template hits 2")


def test_a_long_press_on_a_phone_pings_the_gm_and_the_table_screen(server, new_page, shot):
    g, gm, screen, phone, ids = open_game(server, new_page, system="plain_grid")
    fit(phone)
    x, y = cell_center(phone, 4, 6)
    phone.mouse.move(x, y)
    phone.mouse.down()
    phone.wait_for_timeout(700)
    phone.mouse.up()
    for page in (gm, screen, phone):
        ping = page.locator("#layer-pings .ping")
        expect(ping).to_have_count(1)
        expect(ping.locator(".ping-name")).to_have_text("Mira")
        transform = ping.get_attribute("transform")
        px, py = map(float, re.findall(r"-?[\d.]+", transform))
        assert 4 <= px <= 5 and 6 <= py <= 7, transform
    shot(screen, "ping-screen")
    # it fades on its own, and nothing of it is in the log
    expect(gm.locator("#layer-pings .ping")).to_have_count(0, timeout=6000)
    assert not any("ping" in e["text"] for e in state_of(server, g)["log"])
    # a right-click from the GM pings too
    gx, gy = cell_center(gm, 1, 1)
    gm.mouse.click(gx, gy, button="right")
    expect(screen.locator("#layer-pings .ping .ping-name")).to_have_text("GM")


def test_a_gm_attack_on_a_players_token_waits_for_the_defense_picked_on_the_phone(server, new_page, shot):
    g, gm, screen, phone, ids = open_game(server, new_page, system="gurps_lite")
    server.api("POST", f"/api/games/{g['id']}/commands",
               {"type": "move_token", "token_id": ids["Brute"], "x": 3, "y": 3}, g["gm_token"])
    card = gm.locator("#attack-form")
    card.locator("select[name=attacker]").select_option(ids["Brute"])
    card.locator("select[name=target]").select_option(ids["Hero"])
    index = card.locator("select[name=weapon]").evaluate(
        "(s, who) => [...s.options].findIndex((o) => o.dataset.attacker === who && o.value === 'Broadsword')", ids["Brute"])
    card.locator("select[name=weapon]").select_option(index=index)
    card.locator("button[data-attack=preview_attack]").click()
    expect(gm.locator("#attack-preview .defense-odds li").first).to_be_visible()
    card.locator("button[data-attack=attack]").click()
    prompt = phone.locator("#defense-prompt.asking")
    expect(prompt).to_be_visible()
    expect(prompt).to_contain_text("Brute attacks Hero with Broadsword")
    expect(prompt.locator("button[data-defense]").first).to_contain_text("they hit")
    expect(gm.locator("#defense-prompt.asking")).to_be_visible()  # the GM may answer for the player
    shot(phone, "defense-prompt-phone")
    gm.locator("#defense-prompt").scroll_into_view_if_needed()
    shot(gm, "defense-prompt-gm")
    prompt.locator("button[data-defense=dodge]").click()
    expect(phone.locator("#defense-prompt")).to_be_hidden()
    expect(gm.locator("#log li.attack").first).to_contain_text("Brute attacks Hero")
    expect(screen.locator("#result-card.shown .result-who")).to_contain_text("Brute → Hero")
