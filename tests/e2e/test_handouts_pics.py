"""Hand-outs and token pictures at a real table (#27): the GM's page, the table screen and two phones,
in Chromium against a real server."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image, ImageDraw
from playwright.sync_api import expect
from test_table_screens import PHONE, add_token, join, new_game, player_url

DEMO = Path(__file__).resolve().parents[2] / "static" / "demo"


def letter_png(path: Path) -> Path:
    """A hand-out picture: an old letter with a red seal."""
    img = Image.new("RGB", (600, 400), "#efe2c0")
    d = ImageDraw.Draw(img)
    for y in range(70, 330, 36):
        d.line([(60, y), (540, y)], fill="#6b5a3a", width=3)
    d.ellipse([470, 280, 560, 370], fill="#a11d1d")
    out = io.BytesIO()
    img.save(out, "PNG")
    path.write_bytes(out.getvalue())
    return path


def gm_and_screen(game, new_page, width: int, height: int):
    """The GM's page and the table screen (``width`` x ``height``), both connected."""
    gm = new_page()
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport={"width": width, "height": height})
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    return gm, screen


def listen(page) -> list[str]:
    """Every Socket.IO frame the page receives, and every address it asks for."""
    heard: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: heard.append(str(payload))))
    page.on("request", lambda request: heard.append(request.url))
    return heard


def test_a_handout_shown_to_the_screen_and_one_player_reaches_those_two_and_not_the_other(
        server, new_page, shot, tmp_path):
    game = new_game(server, name="Hand-out night")
    mira, olaf = join(server, game, "Mira"), join(server, game, "Olaf")
    add_token(server, game, "Aria", 2, 2, owner=mira["player_id"], kind="pc")
    add_token(server, game, "Bruno", 4, 2, owner=olaf["player_id"], kind="pc")
    gm, screen = gm_and_screen(game, new_page, 1920, 1080)
    mira_page, olaf_page = new_page(**PHONE), new_page(**PHONE)
    olaf_heard = listen(olaf_page)
    errors: list[str] = []
    for page in (gm, screen, mira_page, olaf_page):
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    for page, who in ((mira_page, mira), (olaf_page, olaf)):
        page.goto(player_url(server, game, who))
        expect(page.locator("#conn.ok")).to_be_visible()

    # the GM makes the hand-out on the GM page: a title, a text, a picture
    form = gm.locator("#handout-upload")
    form.locator("input[name=title]").fill("The innkeeper's letter")
    form.locator("textarea[name=text]").fill("Meet me at the mill at midnight.\n- R.")
    form.locator("input[type=file]").set_input_files(str(letter_png(tmp_path / "letter.png")))
    form.locator("button[type=submit]").click()
    row = gm.locator(".handout-row", has_text="The innkeeper's letter")
    expect(row).to_be_visible()
    handout_id = row.get_attribute("data-handout-id")
    # shown to the table screen (ticked already) and to Mira
    row.locator(f"input[name=to][value='{mira['player_id']}']").check()
    row.locator("button[data-show-handout]").click()
    expect(row.locator(".map-badge")).to_have_text("shown now")
    gm.locator("#handouts").scroll_into_view_if_needed()
    shot(gm, "handout-gm-card")

    # the screen: large over the map, its picture loaded
    sheet = screen.locator("#handouts.screen-handout")
    expect(sheet).to_be_visible()
    expect(sheet).to_contain_text("The innkeeper's letter")
    expect(sheet).to_contain_text("Meet me at the mill at midnight.")
    img = sheet.locator("img")
    expect(img).to_be_visible()
    screen.wait_for_function("img => img.complete && img.naturalWidth === 600", arg=img.element_handle())
    box = img.bounding_box()
    assert box["width"] > 700, box  # large: over half the 1920 px screen's map
    shot(screen, "handout-table-screen")

    # Mira's phone: the hand-out opens in a sheet over the page
    paper = mira_page.locator(f"#handout-{handout_id}")
    expect(paper).to_be_visible()
    expect(paper).to_contain_text("Meet me at the mill")
    mira_page.wait_for_function("img => img.complete && img.naturalWidth === 600",
                                arg=paper.locator("img").element_handle())
    shot(mira_page, "handout-phone-open")
    paper.locator("[data-handout-close]").click()
    expect(paper).to_be_hidden()
    expect(mira_page.locator("#handouts")).to_be_visible()
    mira_page.locator(f"[data-handout-open='{handout_id}']").click()
    expect(paper).to_be_visible()
    paper.locator("[data-handout-close]").click()
    mira_page.reload()  # put away stays put away
    expect(mira_page.locator("#conn.ok")).to_be_visible()
    expect(mira_page.locator(f"[data-handout-open='{handout_id}']")).to_be_visible()
    expect(paper).to_be_hidden()
    mira_page.locator("#handouts").scroll_into_view_if_needed()
    shot(mira_page, "handout-phone-panel")

    # Olaf: nothing, anywhere. His page, his live updates, his /state, the picture's address
    picture_url = server.api("GET", f"/api/games/{game['id']}/state",
                             token=game["gm_token"])[1]["handouts"][0]["picture"]["url"]
    olaf_page.wait_for_timeout(500)
    expect(olaf_page.locator("#handouts")).to_be_hidden()
    expect(olaf_page.locator(".handout-sheet")).to_have_count(0)
    assert "innkeeper" not in olaf_page.content()
    name = picture_url.rsplit("/", 1)[1]
    assert olaf_heard and not [h for h in olaf_heard if "innkeeper" in h or "midnight" in h or name in h]
    assert server.api("GET", f"/api/games/{game['id']}/state", token=olaf["player_token"])[1]["handouts"] == []
    assert olaf_page.request.get(server.url + picture_url).status == 404  # with his page's session
    assert mira_page.request.get(server.url + picture_url).status == 200

    # the GM hides it: off the screen; Mira keeps it in her list and opens it again
    row.locator("button[data-hide-handout]").click()
    expect(sheet).to_be_hidden()
    mira_page.locator(f"[data-handout-open='{handout_id}']").click()
    expect(paper).to_be_visible()
    expect(paper).to_contain_text("Meet me at the mill")
    assert not [h for h in olaf_heard if "innkeeper" in h or name in h]
    assert errors == []  # no console error on any of the four pages


def test_a_tokens_picture_is_an_svg_image_in_its_group_on_every_screen(server, new_page, shot):
    game = new_game(server, name="Faces")
    mira = join(server, game, "Mira")
    aria = add_token(server, game, "Aria", 2, 2, owner=mira["player_id"], kind="pc")
    goblin = add_token(server, game, "Goblin", 5, 3)
    ogre = add_token(server, game, "Ogre", 7, 5)
    gm, screen = gm_and_screen(game, new_page, 1280, 720)
    phone = new_page(**PHONE)
    phone.goto(player_url(server, game, mira))
    expect(phone.locator("#conn.ok")).to_be_visible()

    # the GM uploads the goblin's face from the token list
    form = gm.locator("#token-picture-upload")
    form.locator("input[type=file]").set_input_files(str(DEMO / "goblin.png"))
    form.locator("select[name=token_id]").select_option(goblin)
    form.locator("button[type=submit]").click()
    picture = screen.locator(f"#token-{goblin} > image.token-picture")
    expect(picture).to_have_count(1)
    # the GM's own page has it too before its form is used again (the GM's part of an update is sent last:
    # its swap would replace a form being filled in)
    expect(gm.locator(f"#token-{goblin} > image.token-picture")).to_have_count(1)
    # and its answer, which resets the form (it may come after the live update: see the test below)
    expect(form.locator(".upload-status")).to_have_text("The picture is uploaded.")
    # then gives the ogre a picture picked from the library: upload it first, then pick it in the row
    form = gm.locator("#token-picture-upload")
    form.locator("input[type=file]").set_input_files(str(DEMO / "ogre.png"))
    form.locator("button[type=submit]").click()
    expect(gm.locator("#token-list select[name=picture] option", has_text="ogre")).to_have_count(3)
    ogre_row = gm.locator(f"#row-{ogre}")
    ogre_row.locator("select[name=picture]").select_option(label="ogre")
    ogre_row.locator("button", has_text="Save").click()

    # Mira gives her own token a face from her phone
    phone.locator("#my-tokens summary", has_text="picture").click()
    mine = phone.locator(f"#my-picture-{aria}")
    mine.locator("input[type=file]").set_input_files(str(DEMO / "aria.png"))
    mine.locator("button[type=submit]").click()

    for page in (screen, gm, phone):
        for token in (aria, goblin, ogre):
            image = page.locator(f"#token-{token} > image.token-picture")
            expect(image).to_have_count(1)
            expect(image).to_have_attribute("clip-path", "url(#token-disc)")
            href = image.get_attribute("href")
            assert page.evaluate("url => fetch(url).then(r => r.status)", href) == 200
        expect(page.locator(f"#token-{goblin} .token-label")).to_have_count(1)  # the name label as before
    expect(screen.locator("image.token-picture")).to_have_count(3)
    # drawn: the picture's pixels are on the screen inside the disc (the goblin's green face, not the red disc)
    box = screen.locator(f"#token-{goblin} > .token-body").bounding_box()
    shot(screen, "token-pictures-screen")
    shot(gm, "token-pictures-gm")
    shot(phone, "token-pictures-phone")
    phone.locator("#my-tokens").scroll_into_view_if_needed()
    shot(phone, "token-pictures-phone-list")
    pixels = Image.open(io.BytesIO(screen.screenshot(clip=box)))
    centre = pixels.getpixel((pixels.width // 2, int(pixels.height * 0.45)))[:3]
    assert centre[1] > centre[0], centre  # green (the goblin's face), not the token's red


def test_a_file_picked_while_the_last_upload_is_answered_stays_picked(server, new_page):
    """The live update of an upload can reach the GM page before the upload's own answer: a GM who picks the
    next file meanwhile keeps it (the answer resets the form only when it still holds what was sent)."""
    game = new_game(server, name="Two faces")
    goblin = add_token(server, game, "Goblin", 5, 3)
    add_token(server, game, "Ogre", 7, 5)
    gm, _screen = gm_and_screen(game, new_page, 1280, 720)
    # the page hears the upload's answer only when the test says (its live update comes as it comes)
    gm.evaluate("""() => {
      const add = XMLHttpRequest.prototype.addEventListener;
      window.heldAnswers = [];
      XMLHttpRequest.prototype.addEventListener = function (type, listener, options) {
        if (type !== "load") return add.call(this, type, listener, options);
        return add.call(this, type, (e) => {
          if (window.heldAnswers) window.heldAnswers.push(() => listener.call(this, e)); else listener.call(this, e);
        }, options);
      };
    }""")
    form = gm.locator("#token-picture-upload")
    form.locator("input[type=file]").set_input_files(str(DEMO / "goblin.png"))
    form.locator("select[name=token_id]").select_option(goblin)
    form.locator("button[type=submit]").click()
    expect(gm.locator(f"#token-{goblin} > image.token-picture")).to_have_count(1)  # the live update
    gm.wait_for_function("() => window.heldAnswers.length === 1")  # the answer, held
    form.locator("input[type=file]").set_input_files(str(DEMO / "ogre.png"))  # the GM picks the next one
    gm.evaluate("() => { const held = window.heldAnswers; window.heldAnswers = null; held.forEach((f) => f()); }")
    expect(form.locator(".upload-status")).to_have_text("The picture is uploaded.")
    assert form.locator("input[type=file]").evaluate("i => i.files.length && i.files[0].name") == "ogre.png"
    form.locator("button[type=submit]").click()
    expect(gm.locator("#token-list select[name=picture] option", has_text="ogre")).to_have_count(2)
    # answered with nothing picked since: the form starts blank again
    expect(gm.locator("#token-picture-upload input[type=file]")).to_have_js_property("value", "")
