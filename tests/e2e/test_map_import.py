"""Maps in the browser: the GM imports the Dungeondraft sample from the GM page and every screen
shows its picture and walls; switching maps moves every screen at once."""

from __future__ import annotations

from pathlib import Path

from PIL import Image
from playwright.sync_api import expect

from test_editor_fog import expect_walls, walls_drawn
from test_live_table import cell_center, open_table

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "dungeondraft-sample.dd2vtt"


SCREEN = {"width": 1920, "height": 1080}


def picture_loaded(page) -> bool:
    """The <image> under the grid has really been fetched and decoded (not a broken picture)."""
    return page.evaluate("""async () => {
        const el = document.querySelector('#map image.map-picture');
        if (!el) return false;
        const img = new Image();
        img.src = el.getAttribute('href');
        try { await img.decode(); } catch (e) { return false; }
        return img.naturalWidth === 1280 && img.naturalHeight === 1280;
    }""")


def test_the_gm_uploads_the_sample_and_every_screen_shows_it(server, game, new_page, shot):
    status, body = server.api("POST", f"/api/games/{game['id']}/tokens",
                              {"name": "Aria", "x": 8, "y": 3, "kind": "pc"}, game["gm_token"])
    assert status == 201, body
    hero_id = body["id"]
    gm, phone, screen = open_table(server, game, new_page, screen_viewport=SCREEN)
    expect(screen.locator("#map image.map-picture")).to_have_count(0)
    # Aria is Mira's: an imported map starts with fog on, and the phone and the screen see what she sees
    _, st = server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])
    mira = next(p["id"] for p in st["players"] if p["name"] == "Mira")
    status, ack = server.api("POST", f"/api/games/{game['id']}/commands",
                             {"type": "update_token", "token_id": hero_id, "owner": mira}, game["gm_token"])
    assert status == 200, ack

    # the GM picks the file in the Maps card and imports it: the progress ends in a summary
    gm.set_input_files("#map-import input[type=file]", str(SAMPLE))
    gm.click("#map-import button[type=submit]")
    expect(gm.locator("#map-import .upload-status")).to_contain_text("241 wall segments, 3 doors", timeout=20000)

    for page in (gm, phone, screen):
        svg = page.locator("#map")
        expect(svg).to_have_attribute("data-width", "20")
        expect(page.locator("#map image.map-picture")).to_have_count(1)
        assert picture_loaded(page), "the picture did not load"
    # the GM sees every wall and door; the phone and the screen only those Aria has seen (fog is on)
    expect_walls(gm, 241)
    expect(gm.locator("#layer-walls .door")).to_have_count(3)
    for page in (phone, screen):
        expect(page.locator("#layer-walls path.wall").first).to_be_attached()
        assert 0 < walls_drawn(page) < 241
    # the party came along: the hero stands on the cave map on every screen
    for page in (gm, phone, screen):
        expect(page.locator("#layer-tokens .token")).to_have_count(1)
    expect(gm.locator("#maps-panel .map-row.active")).to_contain_text("dungeondraft-sample")

    # a move through an imported wall is refused; the hero stays put
    hero = gm.locator("#layer-tokens .token").first
    token_id = hero.get_attribute("data-token-id")
    sx, sy = cell_center(gm, 8, 3)
    tx, ty = cell_center(gm, 8, 6)
    gm.mouse.move(sx, sy)
    gm.mouse.down()
    gm.mouse.move(tx, ty, steps=6)
    gm.mouse.up()
    expect(gm.locator("#flash")).to_contain_text("no way through")
    expect(screen.locator(f'#token-{token_id}[data-x="8"][data-y="3"]')).to_be_visible()

    gm.wait_for_timeout(300)
    shot(gm, "maps-gm-imported")
    shot(phone, "maps-phone-imported")
    shot(screen, "maps-screen-imported")


def test_switching_maps_moves_every_screen(server, game, new_page, shot, tmp_path):
    gm, phone, screen = open_table(server, game, new_page, screen_viewport=SCREEN)
    # the GM prepares a small cellar while the players still see the main map
    gm.locator("#maps-panel .map-new summary").click()
    gm.fill("#maps-panel .map-new input[name=name]", "Cellar")
    gm.fill("#maps-panel .map-new input[name=width]", "12")
    gm.fill("#maps-panel .map-new input[name=height]", "9")
    gm.click("#maps-panel .map-new button[type=submit]")
    row = gm.locator("#maps-panel .map-row", has_text="Cellar")
    expect(row).to_be_visible()
    row.locator("button[data-view]").click()
    expect(gm.locator("#map")).to_have_attribute("data-width", "12")
    expect(gm.locator("#maps-panel .preparing-note")).to_contain_text("Cellar")
    for page in (phone, screen):
        expect(page.locator("#map")).to_have_attribute("data-width", "24")

    # a picture for the prepared map: on the GM's screen only, until the map is shown
    picture = tmp_path / "cellar.webp"
    Image.new("RGB", (600, 450), (90, 70, 50)).save(picture, "WEBP")
    gm.locator("#maps-panel .map-picture-tools summary").click()
    gm.set_input_files("#picture-upload input[type=file]", str(picture))
    gm.click("#picture-upload button[type=submit]")
    expect(gm.locator("#map image.map-picture")).to_have_count(1)
    expect(gm.locator("#map image.map-picture")).to_have_attribute("width", "12.0")
    for page in (phone, screen):
        expect(page.locator("#map image.map-picture")).to_have_count(0)
    shot(gm, "maps-gm-preparing")

    # "Show to everyone": every screen switches at once
    gm.once("dialog", lambda d: d.accept())
    gm.locator("#maps-panel .map-row", has_text="Cellar").locator("button[data-activate]").click()
    for page in (gm, phone, screen):
        expect(page.locator("#map")).to_have_attribute("data-width", "12")
        expect(page.locator("#map")).to_have_attribute("data-height", "9")
    expect(gm.locator("#maps-panel .map-row.active")).to_contain_text("Cellar")
    expect(gm.locator("#maps-panel .preparing-note")).to_have_count(0)
    expect(screen.locator("#map image.map-picture")).to_have_count(1)
    shot(screen, "maps-screen-cellar")
    # and back
    gm.once("dialog", lambda d: d.accept())
    gm.locator("#maps-panel .map-row", has_text="Main map").locator("button[data-activate]").click()
    try:
        for page in (gm, phone, screen):
            expect(page.locator("#map")).to_have_attribute("data-width", "24")
    except AssertionError as failed:  # failed once in CI (the GM page stayed on the Cellar): say where it stuck
        _, st = server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])
        raise AssertionError(
            f"{failed}\nthe server's active map: {st.get('active_map')!r}; its last log lines: "
            f"{[e['text'] for e in st['log'][-3:]]}; the GM page's flash: {gm.locator('#flash').text_content()!r}; "
            f"its commands waiting: {gm.evaluate('window.tacmap.waiting()')}") from None
