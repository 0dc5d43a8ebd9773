"""At a real table, in real Chromium: walls stop moves, the GM's panel keeps what the GM types,
players find their seat again, pages lead somewhere."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from conftest import SERVER_GONE, refused
from test_live_table import at, cell_center, drag  # the same pointer helpers as the first live-table tests

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture
def server(demo_server):
    """These tests open the demo games a new user finds."""
    return demo_server



def open_demo_as_gm(server, new_page, **kw):
    """The demo game (a guard room with a closed door) from the lobby of the server's machine."""
    gm = new_page(**kw)
    gm.goto(server.url + "/")
    gm.click(".game-rows a")
    expect(gm.locator("#conn.ok")).to_be_visible()
    return gm


def token_id(page, name: str) -> str:
    """A token's id on the page by its name (ids are random)."""
    return page.locator(f'#map .token[data-name="{name}"]').first.get_attribute("data-token-id")


def join(page, server, code: str, name: str) -> None:
    page.goto(f"{server.url}/join?code={code}")
    page.fill("input[name=name]", name)
    page.click("button:has-text('Join')")
    expect(page.locator("#conn.ok")).to_be_visible()


def test_a_move_through_a_closed_door_is_refused_until_the_gm_opens_it(server, new_page, shot):
    gm = open_demo_as_gm(server, new_page)
    code = gm.locator("#join-toggle .join-code").inner_text()
    player = new_page()
    join(player, server, code, "Mira")
    t1, t2 = token_id(gm, "Aria"), token_id(gm, "Brann")
    # the GM gives Aria (inside the guard room, at 4, 4) to Mira
    row = gm.locator(f"#row-{t1}")
    row.locator("select[name=owner]").select_option(label="Mira")
    row.locator("button", has_text="Save").click()
    expect(player.locator(f"#token-{t1}.movable")).to_be_visible()

    # straight through the east wall's closed door to (12, 5): no way through, nobody moves
    drag(player, t1, (12, 5))
    expect(player.locator("#flash")).to_contain_text("no way through")
    for page in (gm, player):
        at(page, t1, 4, 4).to_be_visible()
    # the player is offered nothing to force it; the GM would be
    expect(player.locator("#flash .flash-action")).to_have_count(0)
    # the refused token has sprung back and stopped shaking before it is picked up again
    expect(player.locator(f"#token-{t1}.refused")).to_have_count(0)

    gm.locator("#map .door-hit").click(force=True)
    expect(gm.locator("#map .door.open")).to_have_count(1)
    expect(player.locator(".door.open")).to_have_count(1)
    drag(player, t1, (12, 5))
    for page in (gm, player):
        at(page, t1, 12, 5).to_be_visible()

    # the GM closes it again, walks Brann at the wall, is refused, and rules it anyway
    gm.locator("#map .door-hit").click(force=True)
    expect(gm.locator("#map .door.closed")).to_have_count(1)
    drag(gm, t2, (13, 6))
    expect(gm.locator("#flash")).to_contain_text("no way through")
    gm.locator("#flash .flash-action", has_text="Move anyway").click()
    for page in (gm, player):
        at(page, t2, 13, 6).to_be_visible()
    expect(gm.locator("#log")).to_contain_text("GM ruling: Brann moved to (13, 6)")
    shot(player, "table-door-player")


def test_a_half_typed_form_survives_a_player_joining_and_a_token_move(server, new_page, shot):
    gm = open_demo_as_gm(server, new_page)
    code = gm.locator("#join-toggle .join-code").inner_text()
    game_id = gm.locator("#live").get_attribute("data-game")
    gm_key = gm.locator("#live").get_attribute("data-key")
    t2, t3, t6 = token_id(gm, "Brann"), token_id(gm, "Cyra"), token_id(gm, "Ogre")
    # a row being renamed (not saved) and the Add form being typed in (focused)
    gm.locator(f"#row-{t2} input[name=name]").fill("Brann the B")
    gm.locator("#add-token input[name=name]").click()
    gm.keyboard.type("Gobl")

    player = new_page(**PHONE)
    join(player, server, code, "Mira")
    expect(gm.locator("#players .player")).to_contain_text("Mira")  # the update reached the panel
    status, _ = server.api("POST", f"/api/games/{game_id}/commands",
                           {"type": "move_token", "token_id": t3, "x": 4, "y": 7}, gm_key)
    assert status == 200
    at(gm, t3, 4, 7).to_be_visible()
    status, _ = server.api("POST", f"/api/games/{game_id}/commands",
                           {"type": "update_token", "token_id": t6, "name": "Ogre chief"}, gm_key)
    assert status == 200
    expect(gm.locator(f"#row-{t6} input[name=name]")).to_have_value("Ogre chief")  # other rows do follow

    expect(gm.locator("#add-token input[name=name]")).to_have_value("Gobl")
    expect(gm.locator("#add-token input[name=name]")).to_be_focused()
    expect(gm.locator(f"#row-{t2} input[name=name]")).to_have_value("Brann the B")

    # the GM finishes typing and adds it: the server numbers the name, the form is fresh again
    gm.keyboard.type("in")
    gm.fill("#add-token input[name=x]", "12")
    gm.fill("#add-token input[name=y]", "13")
    gm.click("#add-token button[type=submit]")
    expect(gm.locator('#map .token[data-name="Goblin 2"]')).to_be_visible()
    expect(gm.locator("#add-token input[name=name]")).to_have_value("")
    expect(gm.locator("#add-token select[name=owner] option", has_text="Mira")).to_have_count(1)
    gm.locator(f"#row-{t2} button", has_text="Save").click()
    expect(gm.locator(f"#token-{t2}")).to_have_attribute("data-name", "Brann the B")
    shot(gm, "table-gm-typing")


def test_a_returning_device_continues_as_the_same_player(server, new_page, shot):
    gm = open_demo_as_gm(server, new_page)
    code = gm.locator("#join-toggle .join-code").inner_text()
    phone = new_page(**PHONE)
    join(phone, server, code, "Mira")
    play_url = phone.url

    # the QR code opened again on the same phone: continue, no second Mira
    phone.goto(f"{server.url}/join?code={code}")
    phone.click("text=Continue as Mira")
    expect(phone.locator("#conn.ok")).to_be_visible()
    assert phone.url == play_url
    # tapping the logo leads back too
    phone.click(".brand")
    expect(phone.locator("#seats")).to_contain_text("as Mira")
    shot(phone, "table-lobby-seats-390")
    phone.click("#seats a")
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(phone.locator(".game-name")).to_contain_text("Mira")
    shot(phone, "table-phone-390")

    # a private tab (no cookie) typing the same name asks the GM, who gives it the seat; the old page is told
    private = new_page(viewport={"width": 360, "height": 740}, is_mobile=True, has_touch=True)
    private.goto(f"{server.url}/join?code={code}")
    private.fill("input[name=name]", "mira")
    private.click("button:has-text('Join')")
    expect(private.locator("#seat-waiting")).to_contain_text("Mira")
    gm.locator(".seat-request button", has_text="Give the seat").click()
    expect(private.locator("#conn.ok")).to_be_visible(timeout=15000)
    expect(private.locator(".game-name")).to_contain_text("Mira")
    expect(phone.locator("#flash")).to_contain_text("taken back on another device")
    expect(gm.locator("#players .player")).to_have_count(1)
    expect(gm.locator("#log")).to_contain_text("Mira took their seat back on another device")
    shot(private, "table-phone-360")

    # the GM removes Mira: her page leaves at once, her tokens stay on the map
    gm.locator("#players summary").click()
    other = new_page(**PHONE)
    join(other, server, code, "Theo")  # a live update while the GM's menu is open leaves it open
    expect(gm.locator("#players .player")).to_have_count(2)
    expect(gm.locator("#players .player", has_text="Mira").locator("details[open]")).to_have_count(1)
    gm.once("dialog", lambda d: d.accept())
    gm.locator("#players button", has_text="Remove Mira").click()
    expect(private.locator("#flash")).to_contain_text("took you out")
    shot(private, "table-removed-360")
    expect(gm.locator("#players .player")).to_have_count(1)
    expect(gm.locator("#players .player")).to_contain_text("Theo")


def test_the_gm_places_duplicates_and_hides_tokens_from_the_panel(server, game, new_page, shot):
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()

    # place: type a name, pick "Place on the map", click a square
    gm.fill("#add-token input[name=name]", "Troll")
    gm.select_option("#add-token select[name=size]", "2")
    gm.click("#place-token")
    expect(gm.locator("body.placing")).to_have_count(1)
    x, y = cell_center(gm, 6, 9)
    gm.mouse.click(x, y)
    troll = gm.locator('#map .token[data-name="Troll"]')
    expect(troll).to_have_attribute("data-x", "6")
    expect(troll).to_have_attribute("data-y", "9")
    expect(gm.locator("body.placing")).to_have_count(0)
    tid = troll.get_attribute("data-token-id")
    expect(screen.locator(f"#token-{tid}")).to_be_visible()

    # or drag "Place on the map" onto a square
    gm.fill("#add-token input[name=name]", "Wolf")
    cx, cy = cell_center(gm, 14, 3)
    box = gm.locator("#map").bounding_box()
    gm.drag_and_drop("#place-token", "#map", target_position={"x": cx - box["x"], "y": cy - box["y"]})
    wolf = gm.locator('#map .token[data-name="Wolf"]')
    expect(wolf).to_have_attribute("data-x", "14")
    expect(wolf).to_have_attribute("data-y", "3")

    # duplicate: numbered by the server, beside the first
    gm.locator(f"#row-{tid} button[aria-label='Copy Troll']").click()
    expect(gm.locator('#map .token[data-name="Troll 2"]')).to_be_visible()

    # hidden applies at once, no Save
    gm.locator(f"#row-{tid} input[type=checkbox][name=hidden]").check()
    expect(screen.locator(f"#token-{tid}")).to_have_count(0)
    expect(gm.locator(f"#token-{tid}.hidden-token")).to_be_visible()
    expect(gm.locator(f"#row-{tid}")).to_have_class(re.compile("is-hidden"))
    # the panel scrolls by itself: the page does not, and the map stays in view
    for name in ("Bat", "Rat", "Cat", "Ant", "Elk", "Owl"):
        gm.fill("#add-token input[name=name]", name)
        gm.fill("#add-token input[name=x]", str(len(name) + "BRCAEO".index(name[0]) * 3))
        gm.fill("#add-token input[name=y]", "1")
        gm.click("#add-token button[type=submit]")
        expect(gm.locator(f'#map .token[data-name="{name}"]')).to_be_visible()
    assert gm.evaluate("getComputedStyle(document.querySelector('.panel')).overflowY") == "auto"
    assert gm.evaluate("document.querySelector('.panel').scrollHeight > document.querySelector('.panel').clientHeight")
    gm.locator("#add-token button[type=submit]").scroll_into_view_if_needed()
    assert gm.evaluate("window.scrollY") == 0
    box = gm.locator("#map").bounding_box()
    assert box["y"] >= 0 and box["y"] + box["height"] <= 800
    shot(gm, "table-gm-panel")
    shot(screen, "table-screen-1920")


@pytest.mark.console_errors(*SERVER_GONE, refused(404, r"/games/\w+/tokens/nosuch/sheet"),
                            why="the test kills the server under the GM page, then opens the sheet of no token")
def test_quiet_saves_refusals_without_console_errors_and_pages_that_lead_back(server, game, new_page, shot):
    gm = new_page()
    errors, failed = [], []
    gm.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    gm.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    status, body = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Scout", "x": 1, "y": 1},
                              game["gm_token"])
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()

    gm.locator(f"#row-{body['id']} button", has_text="Save").click()
    expect(gm.locator("#flash.shown")).to_have_text("Nothing changed.")
    expect(gm.locator("#flash")).not_to_have_class(re.compile("error"))

    gm.fill("#add-token input[name=name]", "Twin")
    gm.fill("#add-token input[name=x]", "1")
    gm.fill("#add-token input[name=y]", "1")
    gm.click("#add-token button[type=submit]")
    expect(gm.locator("#flash.error.shown")).to_contain_text("B2 is taken by Scout")
    expect(gm.locator("#add-token input[name=name]")).to_have_value("Twin")  # a refused form keeps its input
    shot(gm, "table-gm-refused")
    assert errors == [] and failed == []

    # the server goes away: the status says so in plain words
    server.kill()
    expect(gm.locator("#conn.down")).to_be_visible()
    expect(gm.locator("#conn")).to_have_text(re.compile("reconnecting|can't reach the game"))
    expect(gm.locator("#conn")).not_to_contain_text("xhr")
    server.start()
    expect(gm.locator("#conn.ok")).to_be_visible(timeout=20000)

    gm.goto(f"{server.url}/games/{game['id']}/tokens/nosuch/sheet")
    expect(gm.locator(".topbar")).to_be_visible()
    shot(gm, "table-error-404")
    gm.click("text=Back to your game")
    expect(gm.locator("#conn.ok")).to_be_visible()
