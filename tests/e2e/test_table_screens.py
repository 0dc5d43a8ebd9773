"""At a real table: the table screen read from across the room, phones in
players' hands, a server that goes away for a moment. Real Chromium against
a real server; sizes are measured on the rendered page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from conftest import SERVER_GONE
from test_live_table import cell_center  # the map point under a cell's centre, shared with the first live-table tests

PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
NARROW_PHONE = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}
GRID_SYSTEMS = ("plain_grid", "savage_worlds", "gurps_lite", "tesseris_ads", "phase_tn")


# --- helpers -------------------------------------------------------------------


def new_game(server, system: str = "plain_grid", name: str = "Table test") -> dict:
    status, body = server.api("POST", "/api/games", {"name": name, "system": system})
    assert status == 201, body
    return body


def add_token(server, game: dict, name: str, x: int, y: int, **extra) -> str:
    status, body = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": name, "x": x, "y": y, **extra},
                              game["gm_token"])
    assert status == 201, body
    return body["id"]


def join(server, game: dict, name: str) -> dict:
    status, body = server.api("POST", f"/api/games/{game['id']}/players",
                              {"join_code": game["join_code"], "name": name})
    assert status == 201, body
    return body


def player_url(server, game: dict, player: dict) -> str:
    return f"{server.url}/games/{game['id']}/play?key={player['player_token']}"


def gm_and_phone(server, new_page, game: dict, player: dict):
    """The GM's laptop page and the player's phone page (touch, at the LAN name), each with its live link up."""
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    phone = new_page(**PHONE)
    phone.goto(player_url(server, game, player))
    expect(phone.locator("#conn.ok")).to_be_visible()
    return gm, phone


def state(server, game: dict) -> dict:
    return server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]


def mouse_drag(page, start: tuple[float, float], end: tuple[float, float], release: bool = True) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=4)
    page.mouse.move(*end, steps=4)
    if release:
        page.mouse.up()


def touch_drag(page, start: tuple[float, float], end: tuple[float, float], radius: float = 8) -> None:
    """A real one-finger drag (touch events, as a phone sends them), through the DevTools protocol; the
    finger touches a disc of ``radius`` px."""
    cdp = page.context.new_cdp_session(page)

    def send(kind, point):
        points = [] if point is None else [{"x": point[0], "y": point[1], "id": 1, "radiusX": radius, "radiusY": radius}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    send("touchStart", start)
    for i in range(1, 9):
        send("touchMove", (start[0] + (end[0] - start[0]) * i / 8, start[1] + (end[1] - start[1]) * i / 8))
    send("touchEnd", None)
    cdp.detach()


def token_at(page, token_id: str, x: int, y: int):
    return expect(page.locator(f'#token-{token_id}[data-x="{x}"][data-y="{y}"]'))


def overlaps(a: dict, b: dict, slack: float = 0.5) -> bool:
    return not (a["x"] + a["width"] <= b["x"] + slack or b["x"] + b["width"] <= a["x"] + slack
                or a["y"] + a["height"] <= b["y"] + slack or b["y"] + b["height"] <= a["y"] + slack)


WIDEST = """() => {
    let worst = null;
    for (const el of document.querySelectorAll('body *')) {
        const r = el.getBoundingClientRect();
        if (r.right > document.documentElement.clientWidth + 0.5 && (!worst || r.right > worst[1]))
            worst = [el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined ? '.' + el.className : ''), r.right];
    }
    return worst;
}"""


def sideways(page) -> list[str]:
    """The page, if it is wider than the screen, with its element reaching furthest right."""
    width = page.evaluate("document.documentElement.scrollWidth")
    if width <= page.viewport_size["width"]:
        return []
    return [f"{page.url.split('?')[0]} is {width} px wide ({page.evaluate(WIDEST)})"]


# --- 5. no page scrolls sideways at 360 px ----------------------------------------


def test_no_page_scrolls_sideways_on_a_360_px_phone(server, new_page, shot):
    wide: list[str] = []
    page = new_page(**NARROW_PHONE)
    page.goto(server.url + "/")
    wide += sideways(page)
    page.goto(server.url + "/help/")
    wide += sideways(page)
    system_ids = page.eval_on_selector_all(".system-rows a", "links => links.map(a => a.getAttribute('href'))")
    assert len(system_ids) >= 6
    for href in system_ids:
        page.goto(server.url + href)
        wide += sideways(page)

    for system in GRID_SYSTEMS:
        game = new_game(server, system, name=f"The long night at Harrow {system}"[:40])
        player = join(server, game, "Mira with a long name")
        mine = add_token(server, game, "Mira's fighter", 2, 2, owner=player["player_id"], kind="pc")
        foe = add_token(server, game, "Goblin archer", 5, 2)
        if system == GRID_SYSTEMS[0]:  # the join page is the same page in every system
            page.goto(game["urls"]["join"])
            wide += sideways(page)
        # the player's view and the player's own sheet
        page.goto(player_url(server, game, player))
        expect(page.locator("#conn.ok")).to_be_visible()
        wide += sideways(page)
        page.goto(f"{server.url}/games/{game['id']}/tokens/{mine}/sheet")
        expect(page.locator(".sheet")).to_be_visible()
        wide += sideways(page)
        if page.locator(".sheet-table").count():
            page.locator(".sheet-table").first.scroll_into_view_if_needed()
        shot(page, f"sheet-360-{system}")
        # the GM's view and a foe's sheet; the table screen
        gm = new_page(**NARROW_PHONE)
        gm.goto(game["urls"]["gm"])
        expect(gm.locator("#conn.ok")).to_be_visible()
        wide += sideways(gm)
        gm.goto(f"{server.url}/games/{game['id']}/tokens/{foe}/sheet")
        expect(gm.locator(".sheet")).to_be_visible()
        wide += sideways(gm)
        gm.context.close()
        if system == GRID_SYSTEMS[0]:  # the table screen, out of a fight: the same map in every system
            screen = new_page(**NARROW_PHONE)  # the table screen's own browser
            screen.goto(game["urls"]["screen"])
            expect(screen.locator("#map")).to_be_visible()
            wide += sideways(screen)
            screen.context.close()
    assert wide == [], "\n".join(wide)


# --- 1. the table screen, read from across the room -------------------------------

CROWD = [  # a fight in a corner: nine foes and heroes on neighbouring squares, two long names
    ("Goblin 1", 3, 3), ("Goblin 2", 4, 3), ("Goblin 3", 5, 3),
    ("Goblin 4", 3, 4), ("Aria", 4, 4), ("Goblin 5", 5, 4),
    ("Brann the Bold", 3, 5), ("Goblin archer", 4, 5), ("Cyra", 5, 5),
    ("Ogre", 12, 8), ("Goblin 6", 13, 8),
]


def label_boxes(page, part: str = ".label-pill") -> list[dict]:
    """The screen boxes of every name's `part`, taken in one snapshot: the names are laid out
    again on every live update, so reading them one by one can meet an element just replaced."""
    return page.locator(f"#layer-labels {part}").evaluate_all(
        "els => els.map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.left, y: r.top, width: r.width, height: r.height}; })")


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1080p", "720p"])
def test_names_on_the_table_screen_are_large_apart_and_numbered(server, new_page, shot, size):
    game = new_game(server)
    ids = {name: add_token(server, game, name, x, y) for name, x, y in CROWD}
    screen = new_page(viewport={"width": size[0], "height": size[1]})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator("#layer-labels .label")).to_have_count(len(CROWD))
    # the names laid out (map.js lays them out at the next frame: read before it, in one run, every box was 0 high)
    screen.wait_for_function("""() => { const t = document.querySelectorAll('#layer-labels .label-text');
        return t.length > 0 && [...t].every(e => e.getBoundingClientRect().height > 0); }""")

    # every name is at least 28 px tall (the text itself, not only its pill), on a pill
    heights = [b["height"] for b in label_boxes(screen, ".label-text")]
    assert len(heights) == len(CROWD)
    assert min(heights) >= 28, heights
    # and takes no smaller a share of a small projector's picture than of a 1080p one
    assert min(heights) / size[1] >= 28 / 1080
    pill = screen.locator("#layer-labels .label-pill").first
    assert float(pill.get_attribute("rx")) > 0
    fill = screen.evaluate("getComputedStyle(document.querySelector('.label-pill')).fill")
    assert fill not in ("none", "transparent", "rgba(0, 0, 0, 0)"), fill

    # no two names overlap, though their tokens stand on neighbouring squares
    boxes = label_boxes(screen)
    clashes = [(CROWD[i][0], CROWD[j][0]) for i in range(len(boxes)) for j in range(i + 1, len(boxes))
               if overlaps(boxes[i], boxes[j])]
    assert clashes == []
    # each name stays on the screen
    for box in boxes:
        assert box["x"] >= 0 and box["y"] >= 0
        assert box["x"] + box["width"] <= size[0] and box["y"] + box["height"] <= size[1]

    # numbered foes carry their number on the disc
    for name in ("Goblin 2", "Goblin 6"):
        expect(screen.locator(f"#token-{ids[name]} .token-initials")).to_have_text("G" + name.split()[1])
    expect(screen.locator(f"#token-{ids['Aria']} .token-initials")).to_have_text("Ar")

    # a move lays the names out again: the moved token's name follows it
    server.api("POST", f"/api/games/{game['id']}/commands",
               {"type": "move_token", "token_id": ids["Ogre"], "x": 20, "y": 12}, game["gm_token"])
    token_at(screen, ids["Ogre"], 20, 12).to_be_attached()
    body = screen.locator(f"#token-{ids['Ogre']} .token-body").bounding_box()
    [label] = label_boxes(screen, f'.label[data-for="{ids["Ogre"]}"] .label-pill')
    assert abs((label["x"] + label["width"] / 2) - (body["x"] + body["width"] / 2)) < body["width"]
    assert 0 <= label["y"] - (body["y"] + body["height"]) < body["height"]
    shot(screen, f"screen-crowd-{size[1]}")


def test_big_tokens_cover_size_by_size_squares(server, new_page, tmp_path):
    """A Large (2) or Huge (3) token's disc spans 2 x 2 or 3 x 3 squares: drawn by the token's own builder
    (webapp/live/screens/token_svg.py), so it holds before and after the state learns `size`."""
    from types import SimpleNamespace

    from webapp import create_app
    from webapp.live.screens import token_svg

    app = create_app({"DATA_DIR": str(tmp_path / "render"), "DEMO": False, "SECRET_KEY": "test"})
    tokens = [SimpleNamespace(id=f"t{size}", name=f"Beast {size}", x=1 + 4 * (size - 1), y=1, size=size,
                              color="#b91c1c", kind="npc", owner=None, hidden=False, yielded=False)
              for size in (1, 2, 3)]
    with app.test_request_context():
        layer = "".join(token_svg.svg(token_svg.look(t, "gm", False, f"{t.x} {t.y}", None), t, [], t.name,
                                      "", oob=False, focusable=True) for t in tokens)
    css = (app.static_folder + "/css/app.css")
    page = new_page()
    page.set_content(f'<style>{open(css).read()}</style>'
                     f'<svg id="map" viewBox="0 0 12 6" style="width:600px;height:300px">{layer}</svg>')
    cell = 50  # px per square
    for size in (1, 2, 3):
        disc = page.locator(f"#token-t{size} .token-body").bounding_box()
        x0, y0 = (1 + 4 * (size - 1)) * cell, 1 * cell
        assert size * cell * 0.8 <= disc["width"] <= size * cell, (size, disc)
        assert x0 <= disc["x"] and disc["x"] + disc["width"] <= x0 + size * cell
        assert y0 <= disc["y"] and disc["y"] + disc["height"] <= y0 + size * cell
        assert page.locator(f"#token-t{size}").get_attribute("data-size") == str(size)


def test_a_big_token_on_the_live_map(server, new_page):
    """With the state's `size` field (the other half of this issue), the live map draws it too."""
    game = new_game(server)
    status, body = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Ogre", "x": 4, "y": 4, "size": 2},
                              game["gm_token"])
    if status != 201:
        pytest.skip(f"this server has no token size yet: {body}")
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    a, b = cell_center(gm, 4, 4), cell_center(gm, 5, 5)
    disc = gm.locator(f"#token-{body['id']} .token-body").bounding_box()
    assert disc["width"] >= 0.8 * 2 * (b[0] - a[0])
    # grabbed by its lower right square, it moves as one piece
    mouse_drag(gm, b, cell_center(gm, 9, 7))
    token_at(gm, body["id"], 8, 6).to_be_visible()


# --- 2. the join banner and the title share the screen with the map ---------------


def boxes_apart(page) -> None:
    parts = {"map": page.locator("#map").bounding_box(), "title": page.locator(".screen-title").bounding_box()}
    if page.locator("#join-banner.shown").count():
        parts["banner"] = page.locator("#join-banner").bounding_box()
    names = list(parts)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            assert not overlaps(parts[a], parts[b], slack=0), (a, parts[a], b, parts[b])
    return parts


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1080p", "720p"])
def test_the_join_banner_sits_beside_the_map_not_over_it(server, new_page, shot, size):
    game = new_game(server, name="The siege of Harrowgate keep")
    add_token(server, game, "Aria", 22, 14)  # the corner a banner in the corner would hide
    screen = new_page(viewport={"width": size[0], "height": size[1]})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#join-banner.shown")).to_contain_text(game["join_code"])
    expect(screen.locator("#join-banner .qr svg")).to_be_visible()
    with_banner = boxes_apart(screen)
    assert with_banner["map"]["width"] >= size[0] * 0.6
    shot(screen, f"screen-banner-{size[1]}")

    # the GM hides it: the map takes the room back, the title still clear of it
    server.api("POST", f"/api/games/{game['id']}/commands", {"type": "show_join", "show": False}, game["gm_token"])
    expect(screen.locator("#join-banner")).to_be_hidden()
    without = boxes_apart(screen)
    assert without["map"]["width"] > with_banner["map"]["width"]
    shot(screen, f"screen-no-banner-{size[1]}")


# --- 3. phones in players' hands -------------------------------------------------


def phone_table(server, new_page, phone=PHONE, mine_at=(18, 12)):
    """A game with the player's token far from the top left, a foe, and the player's phone open."""
    game = new_game(server, name="Phone skirmish")
    player = join(server, game, "Mira")
    mine = add_token(server, game, "Mira's fighter", *mine_at, owner=player["player_id"], kind="pc")
    ogre = add_token(server, game, "Ogre", mine_at[0] - 2, mine_at[1])
    page = new_page(**phone)
    page.goto(player_url(server, game, player))
    expect(page.locator("#conn.ok")).to_be_visible()
    return game, page, mine, ogre


def small_targets(page) -> list[str]:
    return page.evaluate("""() => [...document.querySelectorAll('a, button, input, select')]
        .filter((el) => el.offsetParent !== null && el.type !== 'hidden')
        .map((el) => [el, el.getBoundingClientRect()])
        .filter(([el, r]) => r.width < 43.5 || r.height < 43.5)
        .map(([el, r]) => `${el.tagName.toLowerCase()} "${(el.textContent || el.name || '').trim()}" ${r.width.toFixed(0)}x${r.height.toFixed(0)}`)""")


@pytest.mark.parametrize("phone", [PHONE, NARROW_PHONE], ids=["390", "360"])
def test_a_phone_starts_on_the_players_token_with_fingertip_sized_targets(server, new_page, shot, phone):
    game, page, mine, ogre = phone_table(server, new_page, phone)
    # every button and link a finger presses is at least 44 px each way
    assert small_targets(page) == []
    # the token is big enough to hold, and in view: the starting view is on it
    disc = page.locator(f"#token-{mine} .token-body").bounding_box()
    assert disc["width"] >= 32 and disc["height"] >= 32, disc
    frame = page.locator("#map-frame").bounding_box()
    assert frame["x"] <= disc["x"] and disc["x"] + disc["width"] <= frame["x"] + frame["width"]
    assert frame["y"] <= disc["y"] and disc["y"] + disc["height"] <= frame["y"] + frame["height"]
    shot(page, f"phone-start-{phone['viewport']['width']}")
    # the join page too
    other = new_page(**phone)
    other.goto(game["urls"]["join"])
    assert small_targets(other) == []


def test_find_my_token_centres_the_view_on_it(server, new_page, shot):
    game, page, mine, ogre = phone_table(server, new_page)
    page.evaluate("() => { const f = document.getElementById('map-frame'); f.scrollLeft = 0; f.scrollTop = 0; }")
    frame = page.locator("#map-frame").bounding_box()
    disc = page.locator(f"#token-{mine} .token-body").bounding_box()
    assert disc["x"] > frame["x"] + frame["width"]  # out of sight to the right
    page.click("#find-mine")
    disc = page.locator(f"#token-{mine} .token-body").bounding_box()
    centre_x = disc["x"] + disc["width"] / 2
    assert abs(centre_x - (frame["x"] + frame["width"] / 2)) < disc["width"]
    assert frame["y"] <= disc["y"] and disc["y"] + disc["height"] <= frame["y"] + frame["height"]
    expect(page.locator(f"#token-{mine}.found")).to_be_attached()
    shot(page, "phone-find-mine")


def test_a_finger_anywhere_on_your_token_drags_it_not_the_map(server, new_page):
    game, page, mine, ogre = phone_table(server, new_page, mine_at=(4, 4))
    radius = page.locator(f"#token-{mine} .token-body").bounding_box()["width"] / 2
    spots = [(0, 0), (0.8, 0), (-0.8, 0), (0, 0.8), (0, -0.8), (0.55, 0.55)]  # centre (the initials) and the rim
    cells = [(5, 5), (6, 4), (5, 3), (4, 5), (6, 6), (4, 3)]
    frame = page.locator("#map-frame")
    for (dx, dy), to in zip(spots, cells):
        token = page.locator(f"#token-{mine}")
        x, y = int(token.get_attribute("data-x")), int(token.get_attribute("data-y"))
        cx, cy = cell_center(page, x, y)
        scroll = frame.evaluate("f => [f.scrollLeft, f.scrollTop]")
        touch_drag(page, (cx + dx * radius, cy + dy * radius), cell_center(page, *to))
        token_at(page, mine, *to).to_be_attached()
        assert frame.evaluate("f => [f.scrollLeft, f.scrollTop]") == scroll  # the map did not pan
    assert [(t["x"], t["y"]) for t in state(server, game)["tokens"] if t["id"] == mine] == [cells[-1]]


def test_dragging_someone_elses_token_is_refused_with_a_word_and_it_springs_back(server, new_page, shot):
    game, page, mine, ogre = phone_table(server, new_page, mine_at=(6, 4))
    start = cell_center(page, 4, 4)
    target = cell_center(page, 4, 6)
    mouse_drag(page, start, target, release=False)
    # it follows the finger while held (so the refusal is felt, not a dead touch)...
    assert page.locator(f"#token-{ogre}").get_attribute("transform") == "translate(4 6)"
    page.mouse.up()
    # ...and the server's refusal is said and the token springs back
    expect(page.locator("#flash.shown")).to_contain_text("Ogre is not yours to move")
    expect(page.locator(f"#token-{ogre}")).to_have_attribute("transform", "translate(4 4)")
    expect(page.locator(f"#token-{ogre}.pending")).to_have_count(0)
    shot(page, "phone-refused")
    # a real finger too
    touch_drag(page, cell_center(page, 4, 4), cell_center(page, 3, 6))
    expect(page.locator("#flash.shown")).to_contain_text("not yours to move")
    expect(page.locator(f"#token-{ogre}")).to_have_attribute("transform", "translate(4 4)")
    assert [(t["x"], t["y"]) for t in state(server, game)["tokens"] if t["id"] == ogre] == [(4, 4)]


# --- 4. a drop while the server is away -------------------------------------------


@pytest.mark.console_errors(*SERVER_GONE, why="the test stops the server under the open pages")
def test_a_drop_while_the_server_is_away_is_pending_until_it_answers(server, game, new_page, shot):
    scout = add_token(server, game, "Scout", 1, 1)
    ogre = add_token(server, game, "Ogre", 6, 6)
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()

    server.kill()
    expect(gm.locator("#conn.down")).to_be_visible()
    mouse_drag(gm, cell_center(gm, 1, 1), cell_center(gm, 9, 7))
    pending = gm.locator(f"#token-{scout}.pending")
    expect(pending).to_have_attribute("transform", "translate(9 7)")  # shown where it was dropped,
    expect(pending).to_have_attribute("data-x", "1")  # not yet moved as far as the table knows
    ring = gm.evaluate(f"getComputedStyle(document.querySelector('#token-{scout} .token-body')).strokeDasharray")
    assert ring not in ("none", ""), ring
    assert float(gm.evaluate(f"getComputedStyle(document.getElementById('token-{scout}')).opacity")) < 1
    shot(gm, "gm-pending")

    server.start()
    expect(gm.locator("#conn.ok")).to_be_visible(timeout=20000)
    token_at(gm, scout, 9, 7).to_be_visible()
    expect(gm.locator("#map .token.pending")).to_have_count(0)
    assert [(t["x"], t["y"]) for t in state(server, game)["tokens"] if t["id"] == scout] == [(9, 7)]

    # refused once the server is back (the square is taken): it goes back where it was
    server.kill()
    expect(gm.locator("#conn.down")).to_be_visible()
    mouse_drag(gm, cell_center(gm, 9, 7), cell_center(gm, 6, 6))
    expect(gm.locator(f"#token-{scout}.pending")).to_have_attribute("transform", "translate(6 6)")
    server.start()
    expect(gm.locator("#flash.shown")).to_contain_text("G7 is taken by Ogre", timeout=20000)
    expect(gm.locator(f"#token-{scout}")).to_have_attribute("transform", "translate(9 7)")
    expect(gm.locator("#map .token.pending")).to_have_count(0)
    token_at(gm, ogre, 6, 6).to_be_visible()
