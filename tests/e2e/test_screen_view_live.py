"""The GM drives the table screen (#27), in Chromium against a real server: squares true to scale on a
1920 px TV, a followed token kept in the middle of the screen as it moves, the GM's outline of what the
TV shows (dragged to pan the TV, wheeled to zoom it) and the "what the table sees" preview, and the
calibration aid on the TV; an update that leaves the view where it is does not redraw it (#71)."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect
from test_live_table import cell_center
from test_table_screens import add_token, new_game, state

TV = {"viewport": {"width": 1920, "height": 1080}, "screen": {"width": 1920, "height": 1080}}


def screen_url(server, game) -> str:
    return f"{server.url}/games/{game['id']}/screen?key={game['screen_token']}"


def gm_url(server, game) -> str:
    return f"{server.url}/games/{game['id']}/gm?key={game['gm_token']}"


def set_view(server, game, **body) -> dict:
    status, reply = server.api("POST", f"/api/games/{game['id']}/commands", {"type": "set_screen_view", **body},
                               game["gm_token"])
    assert status == 200, reply
    LAST_SEQ[0] = reply["seq"]
    return reply


def square_px(page) -> float:
    """How wide one square is drawn, measured on the page: the distance between two squares' centres."""
    a, b = cell_center(page, 2, 2), cell_center(page, 12, 2)
    return (b[0] - a[0]) / 10


def settled(page, seq: int | None = None):
    """Wait for the table screen to have the game up to ``seq`` (default: the newest change the test made)
    and its view to come to rest (it moves smoothly)."""
    seq = LAST_SEQ[0] if seq is None else seq
    page.wait_for_function("""(seq) => parseInt(document.getElementById('live').dataset.seq, 10) >= seq
        && document.getElementById('map').dataset.settled !== '0'""", arg=seq)
    page.wait_for_timeout(50)
    page.wait_for_function("() => document.getElementById('map').dataset.settled !== '0'")


LAST_SEQ = [0]  # the seq of the newest command the test sent


def off_centre(page, token_id: str) -> tuple[float, float]:
    """How far the token's disc is from the middle of the map's box on the screen, in pixels."""
    return tuple(page.evaluate(
        """(id) => {
            const disc = document.querySelector('#token-' + id + ' .token-body').getBoundingClientRect();
            const box = document.getElementById('map').getBoundingClientRect();
            return [disc.x + disc.width / 2 - (box.x + box.width / 2), disc.y + disc.height / 2 - (box.y + box.height / 2)];
        }""", token_id))


def test_true_scale_squares_on_a_1920_px_tv(server, new_page, shot):
    game = new_game(server, name="Miniatures")
    add_token(server, game, "Ann", 4, 4, kind="pc")
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    expect(tv.locator("#conn")).to_have_text("live")
    fit = square_px(tv)
    set_view(server, game, square_mm=25.4, screen_width_mm=1200)
    tv.wait_for_function("() => document.getElementById('map').dataset.scale !== undefined && "
                         "JSON.parse(document.getElementById('screen-view-state').dataset.view).true_scale")
    settled(tv)
    assert tv.evaluate("screen.width") == 1920
    assert square_px(tv) == pytest.approx(25.4 * 1920 / 1200, abs=1.5)  # 40.64 px: 25.4 mm on a 1200 mm picture
    assert abs(fit - square_px(tv)) > 3  # it is not what the whole map's fit gives anyway
    shot(tv, "screen-true-scale")
    # the zoom is locked; panning is not zooming, and the squares keep their size
    status, reply = server.api("POST", f"/api/games/{game['id']}/commands",
                               {"type": "set_screen_view", "zoom": 2}, game["gm_token"])
    assert status == 422 and "locked" in reply["error"]
    set_view(server, game, center=[3, 3])
    settled(tv)
    assert square_px(tv) == pytest.approx(40.64, abs=1.5)
    middle = tv.evaluate("(() => { const b = document.getElementById('map').getBoundingClientRect();"
                         " return [b.x + b.width / 2, b.y + b.height / 2]; })()")
    assert cell_center(tv, 2.5, 2.5) == pytest.approx(middle, abs=1.5)  # the point (3, 3) is the screen's middle
    set_view(server, game, square_mm=None)
    settled(tv)
    assert square_px(tv) != pytest.approx(40.64, abs=1.5)


def test_follow_keeps_the_token_in_the_middle_of_the_screen(server, new_page, shot):
    game = new_game(server, name="Chase")
    runner = add_token(server, game, "Runner", 3, 3, kind="pc")
    add_token(server, game, "Hound", 6, 4)
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    expect(tv.locator("#conn")).to_have_text("live")
    dx, _ = off_centre(tv, runner)
    assert abs(dx) > 100  # the whole map: the runner is off to the left
    set_view(server, game, follow=runner, zoom=2.5)
    settled(tv)
    dx, dy = off_centre(tv, runner)
    assert abs(dx) < 2 and abs(dy) < 2, (dx, dy)
    shot(tv, "screen-follow")
    status, reply = server.api("POST", f"/api/games/{game['id']}/commands",
                               {"type": "move_token", "token_id": runner, "x": 15, "y": 10}, game["gm_token"])
    assert status == 200, reply
    LAST_SEQ[0] = reply["seq"]
    expect(tv.locator(f'#token-{runner}[data-x="15"]')).to_have_count(1)
    settled(tv)
    dx, dy = off_centre(tv, runner)
    assert abs(dx) < 2 and abs(dy) < 2, (dx, dy)
    shot(tv, "screen-follow-moved")


def test_an_update_that_leaves_the_view_where_it_is_draws_no_glide_and_one_that_moves_it_glides(server, new_page):
    """#71: every update used to glide the TV's view to where it already was, 27 frames that each drew the whole
    TV again (two thirds of a fight's paints on the TV). A move the view does not follow changes the viewBox not
    once; a followed token's move still glides to its new centre, in several steps."""
    game = new_game(server, name="Still")
    runner = add_token(server, game, "Runner", 3, 3, kind="pc")
    hound = add_token(server, game, "Hound", 6, 4)
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    expect(tv.locator("#conn")).to_have_text("live")
    set_view(server, game, follow=runner, zoom=2.5)
    settled(tv)
    tv.evaluate("""() => {
        window.__boxes = [];
        new MutationObserver((records) => records.forEach((r) => window.__boxes.push(r.target.getAttribute('viewBox'))))
            .observe(document.getElementById('map'), {attributes: true, attributeFilter: ['viewBox']});
    }""")
    for x in (7, 8, 9):  # the hound moves: the view follows the runner, who stays
        status, reply = server.api("POST", f"/api/games/{game['id']}/commands",
                                   {"type": "move_token", "token_id": hound, "x": x, "y": 4}, game["gm_token"])
        assert status == 200, reply
        LAST_SEQ[0] = reply["seq"]
        expect(tv.locator(f'#token-{hound}[data-x="{x}"]')).to_have_count(1)
        settled(tv)
    tv.wait_for_timeout(300)
    assert tv.evaluate("window.__boxes") == []
    status, reply = server.api("POST", f"/api/games/{game['id']}/commands",
                               {"type": "move_token", "token_id": runner, "x": 12, "y": 8}, game["gm_token"])
    assert status == 200, reply
    LAST_SEQ[0] = reply["seq"]
    settled(tv)
    boxes = tv.evaluate("window.__boxes")
    assert len(set(boxes)) > 3, boxes  # a glide, not a jump
    dx, dy = off_centre(tv, runner)
    assert abs(dx) < 2 and abs(dy) < 2, (dx, dy)


def test_the_gm_sees_and_drags_the_tv_outline_and_a_preview(server, new_page, shot):
    game = new_game(server, name="Outline")
    add_token(server, game, "Ann", 4, 4, kind="pc")
    add_token(server, game, "Spy", 8, 5, hidden=True)
    errors = []
    tv = new_page(**TV)
    gm = new_page(viewport={"width": 1400, "height": 900})
    for page in (tv, gm):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    tv.goto(screen_url(server, game))
    gm.goto(gm_url(server, game))
    expect(gm.locator("#conn")).to_have_text("live")
    expect(gm.locator("#tv-outline")).to_have_count(1)
    set_view(server, game, center=[6, 5], zoom=2)
    settled(tv)

    def outline_box():
        return [float(v) for v in gm.locator("#tv-outline").get_attribute("data-box").split()]

    def tv_box():
        return [float(v) for v in tv.evaluate("document.getElementById('map').getAttribute('viewBox')").split()]

    # the outline is what the TV draws
    gm.wait_for_function("() => { const o = document.getElementById('tv-outline'); if (!o) return false;"
                         " const b = o.dataset.box.split(' ').map(Number); return Math.abs(b[0] + b[2] / 2 - 6) < 0.05; }")
    assert outline_box() == pytest.approx(tv_box(), abs=0.01)
    # the preview holds the map in the TV's box, without the hidden token
    # (the preview is drawn from the TV's report, which may come a moment after the outline: wait for that one)
    gm.wait_for_function("""(box) => { const v = document.querySelector('#tv-preview svg')?.getAttribute('viewBox');
        return v && v.split(' ').map(Number).every((n, i) => Math.abs(n - box[i]) < 0.01); }""", arg=tv_box(), timeout=10000)
    assert [float(v) for v in gm.locator("#tv-preview svg").get_attribute("viewBox").split()] == pytest.approx(tv_box(), abs=0.01)
    assert gm.locator("#tv-preview .token").count() == 1
    assert gm.locator("#tv-preview .hidden-token").count() == 0
    shot(gm, "gm-outline-preview")

    # drag the outline's TV tab three squares right and two down: the TV follows
    tab = gm.locator("#tv-outline .tv-tab rect").bounding_box()
    start = (tab["x"] + tab["width"] / 2, tab["y"] + tab["height"] / 2)
    a, b = cell_center(gm, 0, 0), cell_center(gm, 3, 2)
    gm.mouse.move(*start)
    gm.mouse.down()
    gm.mouse.move(start[0] + (b[0] - a[0]) / 2, start[1] + (b[1] - a[1]) / 2, steps=4)
    gm.mouse.move(start[0] + b[0] - a[0], start[1] + b[1] - a[1], steps=4)
    gm.mouse.up()
    gm.wait_for_function("() => JSON.parse(document.getElementById('screen-view-state').dataset.view).center?.[0] > 8")
    view = state(server, game)["screen_view"]
    assert view["center"] == pytest.approx([9, 7], abs=0.15) and view["zoom"] == 2
    tv.wait_for_function("() => { const b = document.getElementById('map').getAttribute('viewBox').split(' ').map(Number);"
                         " return Math.abs(b[0] + b[2] / 2 - 9) < 0.2; }")
    settled(tv)
    gm.wait_for_function("""(box) => { const o = document.getElementById('tv-outline');
        const b = o.dataset.box.split(' ').map(Number); return Math.abs(b[0] - box[0]) < 0.02 && Math.abs(b[2] - box[2]) < 0.02; }""",
                         arg=tv_box())

    # the wheel on the outline zooms the TV in
    tab = gm.locator("#tv-outline .tv-tab rect").bounding_box()
    gm.mouse.move(tab["x"] + tab["width"] / 2, tab["y"] + tab["height"] / 2)
    gm.mouse.wheel(0, -100)
    gm.wait_for_function("() => JSON.parse(document.getElementById('screen-view-state').dataset.view).zoom > 2.1")
    assert state(server, game)["screen_view"]["zoom"] == pytest.approx(2.2, abs=0.01)
    tv.wait_for_function("() => { const b = document.getElementById('map').getAttribute('viewBox').split(' ').map(Number);"
                         " return b[2] < 1920 / (Math.min(1920 / 25, 1000 / 17) * 2.1); }")
    shot(gm, "gm-outline-after-drag")
    assert errors == []


def test_the_calibration_aid_on_the_tv_sets_the_width_for_the_gm(server, new_page, shot):
    game = new_game(server, name="Calibrate")
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    gm = new_page(viewport={"width": 1400, "height": 900})
    gm.goto(gm_url(server, game))
    expect(gm.locator("#conn")).to_have_text("live")
    gm.locator("#screen-panel .tv-scale summary").click()
    gm.locator("#tv-calibrate").click()
    expect(tv.locator("#calibration")).to_be_visible()
    # before any calibration the line is drawn for 96 px to the inch: 85.6 mm is 323.5 px
    assert tv.locator(".calibration-bar").bounding_box()["width"] == pytest.approx(85.6 / 25.4 * 96, abs=1)
    end = tv.locator(".calibration-end").bounding_box()
    x, y = end["x"] + end["width"] / 2, end["y"] + end["height"] / 2
    tv.mouse.move(x, y)
    tv.mouse.down()
    tv.mouse.move(x + 40, y, steps=5)
    tv.mouse.up()
    line = tv.locator(".calibration-bar").bounding_box()["width"]
    expected = 85.6 * 1920 / line
    gm.wait_for_function("(mm) => Math.abs(JSON.parse(document.getElementById('screen-view-state').dataset.view)"
                         ".screen_width_mm - mm) < 1", arg=expected)
    shot(tv, "screen-calibration")
    expect(gm.locator("#tv-scale-form [name=screen_width_mm]")).to_have_value(str(round(expected, 2)).rstrip("0").rstrip("."))
    tv.get_by_role("button", name="Done").click()
    expect(tv.locator("#calibration")).to_have_count(0)
    view = state(server, game)["screen_view"]
    assert view["calibrating"] is False and view["screen_width_mm"] == pytest.approx(expected, abs=1)
    # now true scale with a one-inch square: the card's 85.6 mm line and 3.37 squares agree
    gm.locator("#tv-scale-form [name=square_mm]").fill("25.4")
    gm.get_by_role("button", name="Use true scale").click()
    tv.wait_for_function("() => JSON.parse(document.getElementById('screen-view-state').dataset.view).true_scale")
    settled(tv)
    assert square_px(tv) == pytest.approx(line * 25.4 / 85.6, abs=1.5)


def test_the_table_screen_card_fits_a_phone(server, new_page, shot):
    game = new_game(server, name="Phone GM")
    add_token(server, game, "Ann", 4, 4, kind="pc")
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    gm = new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    gm.goto(gm_url(server, game))
    expect(gm.locator("#tv-outline")).to_have_count(1)
    gm.locator("#screen-panel").scroll_into_view_if_needed()
    gm.locator("#screen-panel .tv-scale summary").click()
    expect(gm.locator("#tv-preview svg")).to_have_count(1)
    assert gm.evaluate("document.documentElement.scrollWidth") <= 390
    for button in gm.locator("#screen-panel button").all():
        if button.is_visible():
            box = button.bounding_box()
            assert box["height"] >= 44 and box["width"] >= 44, button.text_content()
    shot(gm, "gm-phone-table-screen-card")


def test_on_a_zone_map_follow_applies_and_true_scale_is_refused(server, new_page, shot):
    status, game = server.api("POST", "/api/games", {"name": "Port", "system": "atomic_tomorrow", "map": {"zones": [
        {"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]}, {"id": "bay", "name": "Cargo Bay", "adjacent": ["tower"]},
        {"id": "tower", "name": "Control Tower"}]}})
    assert status == 201, game
    status, body = server.api("POST", f"/api/games/{game['id']}/tokens", {"name": "Nova", "zone": "tower", "kind": "pc"},
                              game["gm_token"])
    assert status == 201, body
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    expect(tv.locator("#conn")).to_have_text("live")
    status, reply = server.api("POST", f"/api/games/{game['id']}/commands",
                               {"type": "set_screen_view", "square_mm": 25.4, "screen_width_mm": 1200}, game["gm_token"])
    assert status == 422 and "zone map" in reply["error"]
    set_view(server, game, follow=body["id"], zoom=2)
    settled(tv)
    dx, dy = off_centre(tv, body["id"])
    assert abs(dx) < 2 and abs(dy) < 2, (dx, dy)
    shot(tv, "screen-zone-follow")


def test_a_pinch_on_the_outline_zooms_the_tv(server, new_page):
    game = new_game(server, name="Pinch")
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    gm = new_page(viewport={"width": 1280, "height": 900}, has_touch=True)
    gm.goto(gm_url(server, game))
    expect(gm.locator("#tv-outline")).to_have_count(1)
    set_view(server, game, center=[12, 8], zoom=1.5)
    gm.wait_for_function("() => JSON.parse(document.getElementById('screen-view-state').dataset.view).zoom === 1.5")
    settled(tv)
    gm.wait_for_function("(w) => { const b = document.getElementById('tv-outline').dataset.box.split(' ').map(Number);"
                         " return Math.abs(b[2] - w) < 0.01; }",
                         arg=float(tv.evaluate("document.getElementById('map').getAttribute('viewBox')").split()[2]))
    line = gm.locator("#tv-outline .tv-line").bounding_box()
    # two fingers on the outline's left and right edges, spread apart to 1.5 times their distance
    y = line["y"] + line["height"] / 2
    a, b = line["x"] + 1, line["x"] + line["width"] - 1
    cdp = gm.context.new_cdp_session(gm)

    def touch(kind, points):
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [
            {"x": x, "y": y, "id": i, "radiusX": 4, "radiusY": 4} for i, x in points]})

    touch("touchStart", [(1, a)])
    touch("touchStart", [(1, a), (2, b)])
    mid, half = (a + b) / 2, (b - a) / 2
    for k in range(1, 9):
        spread = half * (1 + 0.5 * k / 8)
        touch("touchMove", [(1, mid - spread), (2, mid + spread)])
    touch("touchEnd", [(1, mid - half * 1.5)])
    touch("touchEnd", [])
    cdp.detach()
    gm.wait_for_function("() => JSON.parse(document.getElementById('screen-view-state').dataset.view).zoom > 2")
    assert state(server, game)["screen_view"]["zoom"] == pytest.approx(2.25, abs=0.1)


@pytest.mark.parametrize("orientation", ["pointy", "flat"])
def test_the_whole_map_on_the_table_screen_is_the_whole_hex_map_centred(server, new_page, shot, orientation):
    """On a hex map (#28) "whole map" fits the hexes' own extent, not a board of squares as many: every
    corner hex is on the screen and the map's middle is the screen's middle."""
    status, game = server.api("POST", "/api/games", {"name": "Hex TV", "system": "gurps_lite", "map": {
        "width": 12, "height": 30, "grid": "hex", "orientation": orientation}})
    assert status == 201, game
    tv = new_page(**TV)
    tv.goto(screen_url(server, game))
    expect(tv.locator("#conn")).to_have_text("live")
    set_view(server, game, center=[3, 3], zoom=3)
    settled(tv)
    set_view(server, game, fit=True)
    settled(tv)
    edge, frame = tv.evaluate("""() => [document.querySelector('#map .map-edge').getBoundingClientRect().toJSON(),
                                        document.getElementById('map').getBoundingClientRect().toJSON()]""")
    assert edge["top"] >= frame["top"] - 1 and edge["bottom"] <= frame["bottom"] + 1  # the whole map shows
    assert edge["left"] >= frame["left"] - 1 and edge["right"] <= frame["right"] + 1
    middle = lambda r: (r["left"] + r["right"]) / 2, lambda r: (r["top"] + r["bottom"]) / 2  # noqa: E731
    assert abs(middle[0](edge) - middle[0](frame)) < 3 and abs(middle[1](edge) - middle[1](frame)) < 3
    shot(tv, f"screen-hex-fit-{orientation}")
