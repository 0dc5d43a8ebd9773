"""Hex maps in a real browser (#28): the map root says its grid, hexes are drawn, a token stands on a hex's
centre and a drag snaps it to the hex under the pointer, big tokens over 3 or 7 hexes, and the page's
grid.js agrees with rules/grid.py."""

from __future__ import annotations

import math
import random

import pytest
from playwright.sync_api import expect

from hexmap import drag_between, drawn_centre, hex_centre, hex_game, page_point
from rules.grid import Grid
from test_table_screens import add_token, state


def gm_page(new_page, game):
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    return gm


@pytest.mark.parametrize("orientation", ["pointy", "flat", "squares"])
def test_a_phone_opens_on_hexes_a_fingertip_wide_as_on_squares(server, new_page, shot, orientation):
    """On a phone the map opens at readable cells: 42 px across a hex's flat sides, as across a square (on a wide
    hex board, pointy hexes came out at 41 px and flat ones at 48: the zoom took the board for squares)."""
    if orientation == "squares":
        status, game = server.api("POST", "/api/games", {"name": "Squares", "system": "plain_grid",
                                                        "map": {"width": 24, "height": 14}})
        assert status == 201, game
    else:
        game = hex_game(server, orientation, width=24, height=14)
    phone = new_page(viewport={"width": 390, "height": 844})
    phone.goto(game["urls"]["gm"])
    expect(phone.locator("#conn.ok")).to_be_visible()
    cell = phone.evaluate("""() => {
        const s = document.getElementById('map');
        return s.getBoundingClientRect().width / s.viewBox.baseVal.width;  // px a unit of the drawing
    }""")
    assert 41.5 <= cell <= 42.5, cell
    shot(phone, f"phone-readable-{orientation}")
    if orientation != "squares":  # two neighbouring hexes' centres (rules/grid.py's) that far apart on the screen
        grid = Grid("hex", orientation)
        (ax, ay), (bx, by) = hex_centre(phone, grid, 3, 4), hex_centre(phone, grid, *((4, 4) if orientation == "pointy"
                                                                                      else (3, 5)))
        assert abs(math.hypot(bx - ax, by - ay) - cell) < 0.5, (ax, ay, bx, by, cell)


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_a_token_dragged_on_hexes_lands_on_the_hex_under_the_pointer(server, new_page, shot, orientation):
    grid = Grid("hex", orientation)
    game = hex_game(server, orientation)
    tok = add_token(server, game, "Aria", 2, 2)
    gm = gm_page(new_page, game)
    svg = gm.locator("#map")
    expect(svg).to_have_attribute("data-grid", "hex")
    expect(svg).to_have_attribute("data-orientation", orientation)
    # the token's disc is centred on its hex
    cx, cy = drawn_centre(gm, f"#token-{tok} .token-body")
    hx, hy = hex_centre(gm, grid, 2, 2)
    assert abs(cx - hx) < 1.5 and abs(cy - hy) < 1.5
    # dropped near a corner of hex (6, 5), inside it: it lands on (6, 5), its disc on that hex's centre
    corner = grid.corners((6, 5))[1]
    c6 = grid.centre((6, 5))
    near = ((c6[0] + (corner[0] - c6[0]) * 0.7) * grid.unit[0], (c6[1] + (corner[1] - c6[1]) * 0.7) * grid.unit[1])
    screen = new_page(viewport={"width": 1280, "height": 720})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    drag_between(gm, (hx, hy), page_point(gm, *near), release=False)
    # the table screen sees where it is going: a ring on hex (6, 5)'s centre
    ghost = screen.locator("#layer-preview .ghost circle")
    expect(ghost).to_have_count(1)
    sx, sy = hex_centre(screen, grid, 6, 5)
    for _ in range(50):  # the newest preview is the cell the pointer stopped on
        gx, gy = drawn_centre(screen, "#layer-preview .ghost circle")
        if abs(gx - sx) < 1.5 and abs(gy - sy) < 1.5:
            break
        screen.wait_for_timeout(100)
    assert abs(gx - sx) < 1.5 and abs(gy - sy) < 1.5
    gm.mouse.up()
    expect(gm.locator(f'#token-{tok}[data-x="6"][data-y="5"]')).to_be_visible()
    expect(screen.locator(f'#token-{tok}[data-x="6"][data-y="5"]')).to_be_attached()
    t = next(t for t in state(server, game)["tokens"] if t["id"] == tok)
    assert (t["x"], t["y"]) == (6, 5)
    cx, cy = drawn_centre(gm, f"#token-{tok} .token-body")
    hx, hy = hex_centre(gm, grid, 6, 5)
    assert abs(cx - hx) < 1.5 and abs(cy - hy) < 1.5
    shot(gm, f"hex-{orientation}-gm-drag")


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_big_tokens_cover_three_and_seven_hexes(server, new_page, orientation):
    grid = Grid("hex", orientation)
    game = hex_game(server, orientation)
    three = add_token(server, game, "Ogre", 2, 2, size=2)
    seven = add_token(server, game, "Dragon", 6, 4, size=3)
    gm = gm_page(new_page, game)
    for tok, cell, size in ((three, (2, 2), 2), (seven, (6, 4), 3)):
        cells = grid.footprint(cell, size)
        pts = [hex_centre(gm, grid, *c) for c in cells]
        mx, my = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
        cx, cy = drawn_centre(gm, f"#token-{tok} .token-body")
        assert abs(cx - mx) < 1.5 and abs(cy - my) < 1.5
    # the seven-hex token dragged by its centre two hexes to the left
    start = hex_centre(gm, grid, 6, 4)
    to = (4, 4)
    drag_between(gm, start, hex_centre(gm, grid, *to))
    expect(gm.locator(f'#token-{seven}[data-x="{to[0]}"][data-y="{to[1]}"]')).to_be_visible()
    cx, cy = drawn_centre(gm, f"#token-{seven} .token-body")
    hx, hy = hex_centre(gm, grid, *to)
    assert abs(cx - hx) < 1.5 and abs(cy - hy) < 1.5


def test_the_page_grid_agrees_with_the_rules(server, new_page):
    game = hex_game(server, "pointy")
    gm = gm_page(new_page, game)
    rnd = random.Random(28)
    for orientation in ("pointy", "flat"):
        grid = Grid("hex", orientation)
        points = [(rnd.uniform(-2, 14), rnd.uniform(-2, 12)) for _ in range(300)]
        cells = [(rnd.randint(-3, 12), rnd.randint(-3, 12)) for _ in range(100)]
        got = gm.evaluate(
            """([o, points, cells]) => {
                const g = window.tacgrid.make('hex', o);
                return { at: points.map(g.cellAt), centre: cells.map(g.centre), corners: cells.map(g.corners),
                         steps: cells.map((c) => g.steps([0, 0], c)), nb: cells.map(g.neighbours),
                         fp: cells.map((c) => g.footprint(c, 3)),
                         len: points.map((p) => g.length(p[0], p[1])) };
            }""",
            [orientation, points, cells],
        )
        assert [tuple(c) for c in got["at"]] == [grid.cell_at(p) for p in points]
        assert [tuple(c) for c in got["centre"]] == [grid.centre(c) for c in cells]
        assert [[tuple(p) for p in cs] for cs in got["corners"]] == [list(grid.corners(c)) for c in cells]
        assert got["steps"] == [grid.steps((0, 0), c) for c in cells]
        assert [[tuple(n) for n in ns] for ns in got["nb"]] == [grid.neighbours(c) for c in cells]
        assert [[tuple(n) for n in ns] for ns in got["fp"]] == [grid.footprint(c, 3) for c in cells]
        assert got["len"] == [pytest.approx(grid.length(*p)) for p in points]


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_fog_and_a_template_are_drawn_in_hexes(server, new_page, shot, orientation):
    from test_table_screens import join, player_url

    grid = Grid("hex", orientation)
    game = hex_game(server, orientation, width=12, height=8, walls=[{"a": [6, 0], "b": [6, 6]}])
    mira = join(server, game, "Mira")
    add_token(server, game, "Mira", 2, 3, owner=mira["player_id"], kind="pc")
    status, body = server.api("POST", f"/api/games/{game['id']}/commands", {"type": "set_fog", "enabled": True},
                              game["gm_token"])
    assert status == 200, body
    gm = gm_page(new_page, game)
    phone = new_page(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True)
    phone.goto(player_url(server, game, mira))
    expect(phone.locator("#conn.ok")).to_be_visible()
    # the phone's fog is hexes: its outline's corners are hex corners (no square's corner among them)
    d = phone.locator("#layer-fog path.fog-dark").get_attribute("d")
    ux, uy = grid.unit
    points = [tuple(map(float, p.strip().split())) for p in d.replace("M", "L").replace("Z", "").split("L") if p.strip()]
    assert points
    for x, y in points:  # each point, back in map units, is on a quarter: a hex corner
        assert abs(x / ux * 4 - round(x / ux * 4)) < 1e-2 and abs(y / uy * 4 - round(y / uy * 4)) < 1e-2
    corners = {c for y in range(8) for x in range(12) for c in grid.corners((x, y))}
    assert all(any(abs(x / ux - cx) < 1e-3 and abs(y / uy - cy) < 1e-3 for cx, cy in corners) for x, y in points[:40])

    # the GM lays a circle on hex (3, 2): it lands on that hex's centre and shades hexes round it
    gm.locator("#template-form select[name=shape]").select_option("circle")
    gm.locator("#template-form [name=size]").fill("2")
    gm.click("#place-template")
    gm.mouse.click(*hex_centre(gm, grid, 3, 2))
    expect(gm.locator("#layer-templates .area-template")).to_have_count(1)
    t = state(server, game)["templates"][0]
    assert (t["x"], t["y"]) == grid.centre((3, 2))
    expect(gm.locator("#layer-templates polygon.template-hex").first).to_be_attached()
    circle = gm.locator("#layer-templates circle.template-area")
    assert (float(circle.get_attribute("cx")), float(circle.get_attribute("cy"))) == (
        pytest.approx(grid.centre((3, 2))[0] * ux, abs=1e-3), pytest.approx(grid.centre((3, 2))[1] * uy, abs=1e-3))
    shot(gm, f"hex-{orientation}-gm-fog-template")
    expect(phone.locator("#layer-templates .area-template")).to_have_count(1)
    shot(phone, f"hex-{orientation}-phone-fog")



WAYS = {"Numpad9": (1, -1), "Numpad3": (1, 1), "Numpad1": (-1, 1), "Numpad7": (-1, -1),
        "ArrowUp": (0, -1), "ArrowDown": (0, 1), "ArrowRight": (1, 0), "ArrowLeft": (-1, 0)}


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_the_keys_step_a_token_to_a_neighbouring_hex_whatever_the_row(server, new_page, orientation):
    """A diagonal's offset is a neighbour on some rows only: each key must still move one hex, the
    way it points, and a straight key pressed again and again goes on in a zigzag along its line."""
    grid = Grid("hex", orientation)
    game = hex_game(server, orientation, width=12, height=10)
    tok = add_token(server, game, "Aria", 5, 5)
    gm = gm_page(new_page, game)

    def press(key: str, at: tuple[int, int]) -> tuple[int, int]:
        gm.locator(f"#token-{tok}").focus()
        gm.keyboard.press(key)
        moved = gm.locator(f'#token-{tok}:not([data-x="{at[0]}"][data-y="{at[1]}"])')
        expect(moved).to_be_attached()
        new = (int(moved.get_attribute("data-x")), int(moved.get_attribute("data-y")))
        assert new in grid.neighbours(at), f"{key} from {at} went to {new}, not a neighbour"
        # the key's way: of the six neighbours, none lies nearer that way
        (cx, cy), (dx, dy) = grid.centre(at), WAYS[key]

        def along(cell):
            ex, ey = grid.centre(cell)
            return ((ex - cx) * dx + (ey - cy) * dy) / math.hypot(ex - cx, ey - cy) / math.hypot(dx, dy)
        assert along(new) >= max(along(c) for c in grid.neighbours(at)) - 1e-6, (key, at, new)
        return new

    at = (5, 5)
    for key in ("Numpad9", "Numpad9", "Numpad3", "Numpad3", "Numpad1", "Numpad7", "ArrowDown", "ArrowDown"):
        at = press(key, at)  # from odd and even rows (columns on flat tops)
    # the straight key with no hex straight that way (Up on pointy tops, Right on flat ones), twice:
    # back in the same column (row), one line further on
    key, same = ("ArrowUp", 0) if orientation == "pointy" else ("ArrowRight", 1)
    start = at
    at = press(key, press(key, at))
    assert at[same] == start[same] and at != start
    token = state(server, game)["tokens"][0]
    assert (token["x"], token["y"]) == at


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_a_tablet_opens_on_the_whole_fight_on_a_big_hex_map(server, new_page, shot, orientation):
    """A player's page wider than a phone's (no size planned by the page's style) works out its starting view
    itself: on a hex board too big for readable hexes at full width, every token of the fight is in view, zoomed
    in from the whole board, with a hex's width (the drawing's unit, not a square's) as the margin around them."""
    from test_phone_fight_card import IN_FRAME, LABELS_OUT_OF_FRAME, open_phone, setup, start_fight

    board = {"width": 60, "height": 40, "grid": "hex", "orientation": orientation}
    game, mira, ids = setup(server, "savage_worlds", board, {"Aria": (10, 12), "Goblin": (40, 25), "Orc": (48, 30)})
    start_fight(server, game, ids)
    tablet = open_phone(new_page, server, game, mira, device={"viewport": {"width": 820, "height": 1100}})
    tablet.locator("#map-frame").scroll_into_view_if_needed()
    tablet.wait_for_timeout(300)
    assert float(tablet.locator("#map-frame").get_attribute("data-zoom")) > 1.2  # not the whole board
    assert tablet.evaluate(IN_FRAME, list(ids.values())) == []
    assert tablet.evaluate(LABELS_OUT_OF_FRAME) == []  # and their names and badges
    # a hex's width of map at least between the outermost tokens and the frame's edges
    margins = tablet.evaluate("""(ids) => {
        const f = document.getElementById('map-frame').getBoundingClientRect();
        const s = document.getElementById('map');
        const unit = s.getBoundingClientRect().width / s.viewBox.baseVal.width;
        const boxes = ids.map((id) => document.querySelector('#token-' + id + ' .token-body').getBoundingClientRect());
        const l = Math.min(...boxes.map((r) => r.left)), r = Math.max(...boxes.map((b) => b.right));
        return [(l - f.left) / unit, (f.right - r) / unit];
    }""", list(ids.values()))
    # (flat hexes had 0.93: the margin was worked out in squares of the board, narrower than its hexes; a scroll
    # position is whole pixels, a few hundredths of a hex here)
    assert min(margins) >= 0.97, margins
    shot(tablet, f"tablet-fight-hex-{orientation}")
