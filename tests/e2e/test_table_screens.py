"""At a real table: the table screen read from across the room, phones in
players' hands, a server that goes away for a moment. Real Chromium against
a real server; sizes are measured on the rendered page."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

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


def state(server, game: dict) -> dict:
    return server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]


def cell_center(page, x: float, y: float) -> tuple[float, float]:
    """Where on the page the point (x + 0.5, y + 0.5) of the map is."""
    return page.evaluate(
        """([x, y]) => {
            const svg = document.getElementById('map');
            const pt = svg.createSVGPoint(); pt.x = x + 0.5; pt.y = y + 0.5;
            const p = pt.matrixTransform(svg.getScreenCTM());
            return [p.x, p.y];
        }""",
        [x, y],
    )


def mouse_drag(page, start: tuple[float, float], end: tuple[float, float], release: bool = True) -> None:
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move((start[0] + end[0]) / 2, (start[1] + end[1]) / 2, steps=4)
    page.mouse.move(*end, steps=4)
    if release:
        page.mouse.up()


def touch_drag(page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A real one-finger drag (touch events, as a phone sends them), through the DevTools protocol."""
    cdp = page.context.new_cdp_session(page)

    def send(kind, point):
        points = [] if point is None else [{"x": point[0], "y": point[1], "id": 1, "radiusX": 8, "radiusY": 8}]
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
        # the GM's view and a foe's sheet, the table screen
        gm = new_page(**NARROW_PHONE)
        gm.goto(game["urls"]["gm"])
        expect(gm.locator("#conn.ok")).to_be_visible()
        wide += sideways(gm)
        gm.goto(f"{server.url}/games/{game['id']}/tokens/{foe}/sheet")
        expect(gm.locator(".sheet")).to_be_visible()
        wide += sideways(gm)
        gm.goto(game["urls"]["screen"])
        expect(gm.locator("#map")).to_be_visible()
        wide += sideways(gm)
        gm.context.close()
    assert wide == [], "\n".join(wide)
