"""The live table from the users' side: a GM, a player and the table screen
in real Chromium against a real server."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import SERVER_GONE


def cell_center(page, x: int, y: int) -> tuple[float, float]:
    """Where on the page the centre of map cell (x, y) is."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById('map');
            const pt = svg.createSVGPoint(); pt.x = x + 0.5; pt.y = y + 0.5;
            const p = pt.matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def drag(page, token_id: str, to: tuple[int, int], release: bool = True) -> None:
    token = page.locator(f"#token-{token_id}")
    x, y = int(token.get_attribute("data-x")), int(token.get_attribute("data-y"))
    sx, sy = cell_center(page, x, y)
    tx, ty = cell_center(page, *to)
    page.mouse.move(sx, sy)
    page.mouse.down()
    page.mouse.move((sx + tx) / 2, (sy + ty) / 2, steps=4)
    page.mouse.move(tx, ty, steps=4)
    if release:
        page.mouse.up()


def at(page, token_id: str, x: int, y: int):
    return expect(page.locator(f'#token-{token_id}[data-x="{x}"][data-y="{y}"]'))


def open_table(server, game, new_page, screen_viewport=None):
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport=screen_viewport or {"width": 1280, "height": 720})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    player = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    player.goto(game["urls"]["join"])
    player.fill("input[name=name]", "Mira")
    player.click("button:has-text('Join')")
    expect(player.locator("#conn.ok")).to_be_visible()
    return gm, player, screen


def test_a_token_dragged_by_the_gm_moves_on_every_screen(server, game, new_page, shot):
    gm_key = game["gm_token"]
    status, body = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Goblin", "x": 2, "y": 2}, gm_key)
    assert status == 201, body
    token = body["id"]
    gm, player, screen = open_table(server, game, new_page)
    # the token added before the pages opened is on all of them
    for page in (gm, player, screen):
        at(page, token, 2, 2).to_be_visible()

    # while the GM drags, the others see where the token is going (not stored)
    drag(gm, token, (6, 4), release=False)
    expect(player.locator("#layer-preview .ghost")).to_have_count(1)
    expect(screen.locator("#layer-preview .ghost")).to_have_count(1)
    assert server.api("GET", f"/api/games/{game['id']}/state", token=gm_key)[1]["tokens"][0]["x"] == 2
    gm.mouse.up()

    for page in (gm, player, screen):
        at(page, token, 6, 4).to_be_visible()
    expect(player.locator("#layer-preview .ghost")).to_have_count(0)

    # the GM sees who is connected, and hides the join code on the table screen
    expect(gm.locator('#players .player.online')).to_contain_text("Mira")
    expect(screen.locator("#join-banner.shown")).to_contain_text(game["join_code"])
    gm.click("#toggle-join")
    expect(screen.locator("#join-banner")).not_to_have_class("join-banner shown")
    expect(screen.locator("#join-banner")).to_be_hidden()

    # hiding a token takes it off the player's and the screen's maps, not the GM's
    row = gm.locator(f"#row-{token}")
    row.locator("input[name=hidden][type=checkbox]").check()
    row.locator("button", has_text="Save").click()
    expect(player.locator(f"#token-{token}")).to_have_count(0)
    expect(screen.locator(f"#token-{token}")).to_have_count(0)
    expect(gm.locator(f"#token-{token}.hidden-token")).to_be_visible()
    shot(gm, "gm-after-drag")
    shot(player, "player-after-drag")
    shot(screen, "screen-after-drag")


def test_a_player_moves_own_token_but_not_others(server, game, new_page, shot):
    gm_key = game["gm_token"]
    gm, player, screen = open_table(server, game, new_page)
    # the GM adds two tokens from the panel and gives one to the player
    for name, x in (("Mira's fighter", 1), ("Ogre", 8)):
        gm.fill("#add-token input[name=name]", name)
        gm.fill("#add-token input[name=x]", str(x))
        gm.fill("#add-token input[name=y]", "1")
        gm.click("#add-token button[type=submit]")
        expect(gm.locator(f'#map .token[data-name="{name}"]')).to_be_visible()
        expect(gm.locator("#add-token input[name=name]")).to_have_value("")  # the form's reset has run: the next fill stays
    state = server.api("GET", f"/api/games/{game['id']}/state", token=gm_key)[1]
    mine = next(t["id"] for t in state["tokens"] if t["name"] == "Mira's fighter")
    ogre = next(t["id"] for t in state["tokens"] if t["name"] == "Ogre")
    row = gm.locator(f"#row-{mine}")
    row.locator("select[name=owner]").select_option(label="Mira")
    row.locator("button", has_text="Save").click()
    expect(player.locator(f"#token-{mine}.movable")).to_be_visible()
    expect(player.locator("#my-tokens")).to_contain_text("Mira's fighter")
    expect(player.locator(f"#token-{ogre}")).not_to_have_class("movable")

    # a finger drag on the phone moves the player's own token everywhere
    # the phone page never scrolls sideways: the map pans inside its frame
    assert player.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    drag(player, mine, (3, 2))
    for page in (gm, player, screen):
        at(page, mine, 3, 2).to_be_visible()

    # dragging the ogre does nothing, and the server refuses a forged move
    drag(player, ogre, (8, 5))
    at(player, ogre, 8, 1).to_be_visible()
    ack = player.evaluate(f"window.tacmap.command({{type: 'move_token', token_id: '{ogre}', x: 8, y: 5}})")
    assert ack == {"ok": False, "error": "Ogre is not yours to move"}
    expect(player.locator("#flash")).to_contain_text("not yours to move")
    for page in (gm, player, screen):
        at(page, ogre, 8, 1).to_be_visible()
    shot(player, "player-phone")


def test_a_move_onto_a_blocked_cell_is_refused_and_nothing_moves(demo_server, new_page, shot):
    # the demo game has a pillar at (17, 11); its GM link is in the lobby on the server's machine
    server = demo_server
    gm = new_page()
    gm.goto(server.url + "/")
    gm.click(".game-rows a")
    expect(gm.locator("#conn.ok")).to_be_visible()
    ogre = gm.locator('#map .token[data-name="Ogre"]')
    token_id = ogre.get_attribute("data-token-id")
    drag(gm, token_id, (17, 11))
    expect(gm.locator("#flash")).to_contain_text("R12 is blocked")
    at(gm, token_id, 15, 12).to_be_visible()
    # and the GM opens the door with a click
    expect(gm.locator("#map .door.closed")).to_have_count(1)
    gm.locator("#map .door-hit").click(force=True)  # a vertical line has a zero-width box
    expect(gm.locator("#map .door.open")).to_have_count(1)
    shot(gm, "gm-demo")


@pytest.mark.console_errors(*SERVER_GONE, why="the test kills the server under the open pages")
def test_an_acknowledged_move_survives_kill_9(server, game, new_page, shot):
    gm_key = game["gm_token"]
    token = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Scout", "x": 0, "y": 0}, gm_key)[1]["id"]
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    drag(gm, token, (9, 7))
    at(gm, token, 9, 7).to_be_visible()  # the server's update: it was committed before
    server.kill()
    expect(gm.locator("#conn.down")).to_be_visible()
    server.start()
    status, state = server.api("GET", f"/api/games/{game['id']}/state", token=gm_key)
    assert status == 200
    assert [(t["x"], t["y"]) for t in state["tokens"] if t["id"] == token] == [(9, 7)]
    # the open page reconnects by itself and goes on working
    expect(gm.locator("#conn.ok")).to_be_visible(timeout=20000)
    drag(gm, token, (10, 7))
    at(gm, token, 10, 7).to_be_visible()
