"""The GM's map editor and fog of war in real Chromium: the GM draws a wall and a door and opens
it while a player (phone) and the table screen watch their fog change; a hidden token never reaches
the player's page or socket traffic."""

from __future__ import annotations

from playwright.sync_api import expect

FOE = "Orcmark-e2e"
GHOST = "Ghostmark-e2e"


#: the walls a page draws: a "M" each in its wall paths (``Drawing.wall_paths``: the walls of a tile in one path)
WALLS_DRAWN = """() => [...document.querySelectorAll('#layer-walls path.wall')]
    .reduce((n, p) => n + ((p.getAttribute('d') || '').match(/M/g) || []).length, 0)"""


def walls_drawn(page) -> int:
    return page.evaluate(WALLS_DRAWN)


def expect_walls(page, count: int, timeout: float = 5000) -> None:
    """Until ``page`` draws ``count`` walls (as ``expect(locator).to_have_count`` waits)."""
    page.wait_for_function(f"(count) => ({WALLS_DRAWN})() === count", arg=count, timeout=timeout)


def corner(page, x: float, y: float) -> tuple[float, float]:
    """Where on the page the grid point (x, y) is (a corner of the squares)."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById('map');
            const pt = svg.createSVGPoint(); pt.x = x; pt.y = y;
            const p = pt.matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def draw(page, a, b) -> None:
    sx, sy = corner(page, *a)
    tx, ty = corner(page, *b)
    # a little off the corner: the editor snaps to the nearest one
    page.mouse.move(sx + 3, sy - 2)
    page.mouse.down()
    page.mouse.move((sx + tx) / 2, (sy + ty) / 2, steps=4)
    page.mouse.move(tx - 2, ty + 3, steps=4)
    page.mouse.up()


def test_the_gm_draws_a_wall_and_a_door_and_the_fog_follows(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Fog e2e", "system": "plain_grid",
                                                     "map": {"width": 16, "height": 10}})
    assert status == 201, game
    gm_key, gid = game["gm_token"], game["id"]
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()

    # the player's phone, with every Socket.IO frame it receives recorded
    player = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    frames: list[str] = []
    player.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(str(payload))))
    player.goto(game["urls"]["join"])
    player.fill("input[name=name]", "Mira")
    player.click("button:has-text('Join')")
    expect(player.locator("#conn.ok")).to_be_visible()
    mira = next(p["id"] for p in server.api("GET", f"/api/games/{gid}/state", token=gm_key)[1]["players"]
                if p["name"] == "Mira")
    hero = server.api("POST", f"/api/games/{gid}/tokens", {"name": "Hero", "x": 2, "y": 4, "owner": mira,
                                                          "kind": "pc"}, gm_key)[1]["id"]
    foe = server.api("POST", f"/api/games/{gid}/tokens", {"name": FOE, "x": 12, "y": 4}, gm_key)[1]["id"]
    server.api("POST", f"/api/games/{gid}/tokens", {"name": GHOST, "x": 3, "y": 7, "hidden": True}, gm_key)

    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()

    # fog on: nothing stands between the hero and the foe yet, so both see it
    gm.click("#fog-toggle")
    expect(gm.locator("#fog-toggle")).to_have_text("Fog: on")
    expect(gm.locator("#layer-fog[data-fog=on]")).to_be_attached()
    expect(player.locator(f"#token-{foe}")).to_be_attached()
    expect(screen.locator(f"#token-{foe}")).to_be_attached()

    # the GM draws a wall across the room, leaving a gap, and a door in the gap
    gm.click("#editor [data-tool=wall]")
    expect(gm.locator("#editor [data-tool=wall]")).to_have_attribute("aria-pressed", "true")
    draw(gm, (8, 0), (8, 4))
    expect_walls(gm, 1)
    draw(gm, (8, 5), (8, 10))
    expect_walls(gm, 2)
    walls = server.api("GET", f"/api/games/{gid}/state", token=gm_key)[1]["map"]["walls"]
    assert sorted((w["a"], w["b"]) for w in walls) == [([8, 0], [8, 4]), ([8, 5], [8, 10])]
    # the foe is still in view through the gap
    expect(player.locator(f"#token-{foe}")).to_be_attached()
    gm.click("#editor [data-tool=door]")
    draw(gm, (8, 4), (8, 5))
    expect(gm.locator("#layer-walls .door.closed")).to_have_count(1)
    # the closed door: the foe leaves the player's and the screen's maps, not the GM's
    expect(player.locator(f"#token-{foe}")).to_have_count(0)
    expect(screen.locator(f"#token-{foe}")).to_have_count(0)
    expect(gm.locator(f"#token-{foe}")).to_be_attached()
    # the east side was seen before the wall went up: it stays on the phone's map, dimmed
    expect(player.locator("#layer-fog path.fog-dim")).to_be_attached()
    expect(player.locator("#layer-fog path.fog-dark")).to_have_count(0)
    expect(player.locator(f"#token-{hero}")).to_be_attached()
    shot(gm, "editor-gm-drawn")
    shot(player, "fog-phone-door-closed")
    shot(screen, "fog-screen-door-closed")

    # back to play: the GM opens the door, and the foe comes into view on both
    gm.click("#editor [data-tool='']")
    gm.locator("#map .door-hit").click(force=True)  # a vertical line has a zero-width box
    expect(gm.locator("#layer-walls .door.open")).to_have_count(1)
    expect(player.locator(f"#token-{foe}")).to_be_attached()
    expect(screen.locator(f"#token-{foe}")).to_be_attached()
    shot(player, "fog-phone-door-open")
    shot(screen, "fog-screen-door-open")

    # the GM reveals the far corner by hand: the player's fog opens there
    gm.click("#editor [data-tool=reveal]")
    expect(gm.locator("#editor [data-tool=reveal]")).to_have_attribute("aria-pressed", "true")
    dim = gm.locator("#layer-fog path.fog-dim").get_attribute("d")
    draw(gm, (13.5, 7.5), (15.5, 9.5))
    # the corner, seen before the wall went up, is dimmed on the GM's map until the reveal lands
    expect(gm.locator("#layer-fog path.fog-dim")).not_to_have_attribute("d", dim)
    expect(gm.locator("#flash.shown")).to_have_count(0)
    state = server.api("GET", f"/api/games/{gid}/state", token=game["screen_token"])[1]
    assert [15, 9] in state["fog"]["visible"]

    # the hidden token never reached the phone: not in its page, not in a frame
    assert GHOST not in player.content()
    assert frames and FOE in "".join(frames)  # the recorder works: the foe came once it was seen
    assert not any(GHOST in f for f in frames)
    assert GHOST not in screen.content()
    shot(gm, "editor-gm-fog")

    # painting a square blocked and erasing a wall show on the table screen too
    gm.click("#editor [data-tool=block]")
    x, y = corner(gm, 4.5, 1.5)
    gm.mouse.click(x, y)
    expect(screen.locator('#layer-walls .blocked[data-cell="4,1"]')).to_have_count(1)
    gm.click("#editor [data-tool=erase]")
    x, y = corner(gm, 8.05, 7.5)  # beside the lower wall: the eraser takes the nearest within reach
    gm.mouse.click(x, y)
    expect_walls(screen, 1)
    x, y = corner(gm, 4.5, 1.5)
    gm.mouse.click(x, y)
    expect(screen.locator("#layer-walls .blocked")).to_have_count(0)


def test_the_gm_draws_a_zone_names_and_links_it(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Zone edit", "system": "plain_grid", "map": {"zones": [
        {"id": "yard", "name": "Yard", "adjacent": ["hall"]}, {"id": "hall", "name": "Hall"}]}})
    assert status == 201, game
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": 1920, "height": 1080})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    # room for a third zone: a taller map
    gm.click("#editor summary")
    gm.fill("#editor form[data-command=resize_map] input[name=height]", "16")
    gm.click("#editor form[data-command=resize_map] button")
    expect(screen.locator("#map")).to_have_attribute("data-height", "16")
    expect(gm.locator("#map")).to_have_attribute("data-height", "16")
    gm.fill("#editor-zone-name", "Roof")
    gm.click("#editor summary")  # closed again: the map moves up
    gm.click("[data-zoom=out]")  # the whole taller map in the frame
    gm.click("[data-zoom=out]")
    gm.click("#editor [data-tool=zone]")
    draw(gm, (1.5, 9.5), (6.5, 13.5))
    expect(gm.locator("#map .zone[data-zone=roof]")).to_be_attached()
    expect(screen.locator("#map .zone[data-zone=roof] .zone-name")).to_have_text("Roof")
    gm.click("#editor summary")
    row = gm.locator("#zone-row-roof")
    row.locator("select[name=cover]").select_option("partial")
    row.locator("button", has_text="Save").click()
    expect(screen.locator("#map .zone[data-zone=roof] .zone-cover")).to_have_text("partial cover")
    link = gm.locator("#editor form.link-zones")
    link.locator("select[name=a]").select_option("roof")
    link.locator("select[name=b]").select_option("yard")
    link.locator("button").click()
    expect(screen.locator("#layer-zones .zone-link")).to_have_count(2)
    zones = {z["id"]: z for z in server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]["zones"]}
    assert zones["roof"]["box"] == [1, 9, 6, 5] and zones["roof"]["adjacent"] == ["yard"]
    shot(gm, "editor-gm-zones")
