"""A new GM's first evening (issue #34): the console names each game's join code beside its GM link, and the GM
page offers the table screen's link as a QR code for a TV's browser or a phone casting to the TV."""

from __future__ import annotations

import http.cookiejar
import re
import time
import urllib.request

import segno


def _banner(server) -> list[tuple[str, str, str]]:
    """The (name, join code, GM link) of each "GM link for ..." line the server printed on start."""
    text = server.log.read_text()
    return re.findall(r"^GM link for '([^']+)' \(join code (\w+)\): (\S+)$", text, re.M)


def test_console_prints_each_games_join_code_beside_its_gm_link(demo_server):
    lines = _banner(demo_server)
    log = demo_server.log.read_text()
    assert len(lines) == 2, log  # the two demo games
    assert "with the game's join code" in log
    for name, code, gm_link in lines:
        opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        with opener.open(gm_link, timeout=10) as r:  # the printed link opens that game's GM page...
            page = r.read().decode()
        assert name in page
        # ...whose join card shows the code printed beside it
        assert re.search(r'<h2>Join code <code class="join-code">' + re.escape(code) + "</code>", page), code
        # and the code joins that game: a seat asked with it at that game's address is given
        game_id = re.search(r"/games/([0-9a-f]+)/gm", gm_link).group(1)
        status, _answer = demo_server.api("POST", f"/api/games/{game_id}/players",
                                          {"join_code": code, "name": f"Tester {code}"})
        assert status == 201, (name, code)


def _qr_modules(svg: str) -> list[list[bool]]:
    """The dark modules of a QR code drawn as segno draws it (one path of horizontal runs), read back as a grid."""
    size = int(re.search(r'viewBox="0 0 (\d+)', svg).group(1))
    d = re.search(r'class="qrline"[^>]*\sd="([^"]+)"', svg).group(1)
    grid = [[False] * size for _ in range(size)]
    x = y = 0.0
    for cmd, a, b in re.findall(r"([Mmh])(-?[\d.]+)(?:[ ,](-?[\d.]+))?", d):
        if cmd == "M":
            x, y = float(a), float(b)
        elif cmd == "m":
            x, y = x + float(a), y + float(b)
        else:
            for i in range(round(float(a))):
                grid[int(y)][round(x) + i] = True
            x += float(a)
    return grid


def _encodes(svg: str, link: str) -> bool:
    """Whether the QR code drawn in SVG holds exactly LINK (compared module by module with a code made of it)."""
    expected = [[bool(v) for v in row] for row in segno.make(link, error="m").matrix_iter(border=4)]
    return _qr_modules(svg) == expected


def test_gm_page_offers_the_table_screen_link_as_a_qr_code(server, game, new_page, shot):
    gm = new_page({"width": 1440, "height": 900})
    gm.goto(game["urls"]["gm"])
    card = gm.locator("#screen-panel #screen-qr")
    card.locator("summary").click()
    qr = card.locator(".qr svg")
    assert qr.is_visible()
    link = card.locator(".screen-link-text").inner_text().strip()
    assert link == game["urls"]["screen"]  # the whole link, from the server's own address: a TV can open it
    assert _encodes(card.locator(".qr").inner_html(), link)
    assert not _encodes(card.locator(".qr").inner_html(), link + "x")  # the check can tell another link apart
    card.scroll_into_view_if_needed()
    shot(gm, "first-evening-gm-screen-qr")

    tv = new_page({"width": 1920, "height": 1080})  # the TV's browser opens what the code holds
    tv.goto(link)
    tv.locator("#map").wait_for()
    assert "screen" in tv.evaluate("document.body.className")

    # a new table-screen link: the QR code follows at once (the old link is closed)
    gm.on("dialog", lambda dialog: dialog.accept())
    gm.locator("#rotate-screen").click()
    deadline = time.time() + 10
    while time.time() < deadline and card.locator(".screen-link-text").inner_text().strip() == link:
        time.sleep(0.1)
    new_link = card.locator(".screen-link-text").inner_text().strip()
    assert new_link != link and new_link.startswith(f"{server.url}/games/{game['id']}/screen?key=")
    assert _encodes(card.locator(".qr").inner_html(), new_link)
    assert gm.locator("#screen-link").get_attribute("href") in new_link
    tv2 = new_page({"width": 1920, "height": 1080})
    tv2.goto(new_link)
    tv2.locator("#map").wait_for()


def test_the_table_screen_qr_code_fits_a_phone_sized_gm_page(server, game, new_page, shot):
    gm = new_page(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    gm.goto(game["urls"]["gm"])
    card = gm.locator("#screen-qr")
    card.scroll_into_view_if_needed()
    summary = card.locator("summary").bounding_box()
    assert summary["height"] >= 44, summary  # a fingertip's size, as every control on a phone
    card.locator("summary").click()
    qr = card.locator(".qr svg").bounding_box()
    assert qr["width"] >= 150 and qr["x"] >= 0 and qr["x"] + qr["width"] <= 390, qr  # whole, large enough to scan
    assert gm.evaluate("document.documentElement.scrollWidth") <= 390  # the long link wraps
    card.locator(".qr").scroll_into_view_if_needed()
    shot(gm, "first-evening-gm-phone-screen-qr")
