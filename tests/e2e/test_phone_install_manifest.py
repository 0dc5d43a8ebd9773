"""The game on a phone's home screen (issue #35, "Installable"): the page links a web app manifest that the
server serves as JSON with the right type and the fields a browser needs to install it, its icons are PNGs
of the sizes it says, the Content-Security-Policy lets the page load it, and its start address brings the
device back to its own seat. Real Chromium, real server."""

from __future__ import annotations

import io
import json
import urllib.request
from urllib.parse import urljoin

from PIL import Image
from playwright.sync_api import expect

from test_table_screens import PHONE, join, new_game, player_url


def fetch(url: str) -> tuple[int, dict, bytes]:
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, dict(r.headers), r.read()


def test_the_manifest_is_served_valid_with_icons_of_the_sizes_it_says(server, new_page):
    game = new_game(server)
    mira = join(server, game, "Mira")
    phone = new_page(**PHONE)
    failures = []
    phone.on("console", lambda m: failures.append(m.text) if m.type == "error" else None)
    for url in (player_url(server, game, mira), f"{server.url}/join?code={game['join_code']}"):
        phone.goto(url)
        link = phone.locator("link[rel=manifest]")
        expect(link).to_have_count(1)
        href = urljoin(phone.url, link.get_attribute("href"))
        # the browser itself fetched it under the page's Content-Security-Policy
        assert phone.evaluate("(h) => fetch(h).then((r) => r.status)", href) == 200
    assert not [f for f in failures if "manifest" in f.lower() or "Content Security Policy" in f], failures

    status, headers, body = fetch(href)
    assert status == 200
    assert headers["Content-Type"].startswith("application/manifest+json")
    manifest = json.loads(body)
    for field in ("name", "short_name", "start_url", "display", "icons"):
        assert manifest.get(field), field
    assert manifest["display"] == "standalone"
    sizes = {}
    for icon in manifest["icons"]:
        status, headers, png = fetch(urljoin(href, icon["src"]))
        assert status == 200 and headers["Content-Type"] == icon["type"] == "image/png"
        picture = Image.open(io.BytesIO(png))
        assert picture.format == "PNG"
        assert f"{picture.width}x{picture.height}" == icon["sizes"]
        sizes[icon["sizes"]] = picture
    assert {"192x192", "512x512"} <= set(sizes)


def test_the_home_screen_icon_opens_the_devices_own_seat(server, new_page):
    game = new_game(server, name="The long evening")
    mira = join(server, game, "Mira")
    _, _, body = fetch(f"{server.url}/manifest.webmanifest")
    start = urljoin(server.url + "/", json.loads(body)["start_url"])

    stranger = new_page(**PHONE)  # a device that never sat at a table: the lobby
    stranger.goto(start)
    assert stranger.url.rstrip("/") == server.url
    expect(stranger.locator("form[action$='/join']")).to_be_visible()

    phone = new_page(**PHONE)
    phone.goto(player_url(server, game, mira))
    expect(phone.locator("#conn.ok")).to_be_visible()
    phone.goto("about:blank")
    phone.goto(start)  # what the installed app opens, the same browser's cookies
    assert phone.url == f"{server.url}/games/{game['id']}/play"
    expect(phone.locator(".game-name")).to_contain_text("Mira")
    expect(phone.locator("#conn.ok")).to_be_visible()
