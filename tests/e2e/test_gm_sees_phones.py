"""The GM sees the table's phones (#61): two players' phones, opened at the LAN name (not a secure context, as at a
real table); one loses the Wi-Fi, the other's page is really hidden (its window minimized: ``visibilityState``
"hidden", as when a phone's screen goes off). Within 10 s the GM's players card says "link down since HH:MM" for the
one and "asleep" for the other, each with its shape; a fight whose turn comes to the sleeping phone's player is
flagged on the GM's fight card; back on the Wi-Fi and shown again, both are "live". The phones never show any of
it. Real Chromium, real server, real Socket.IO.

Playwright keeps every page it drives visible (its focus emulation, for every page but those of a browser's default
context reached with ``no_defaults``): the phone that sleeps is a Chromium of its own, driven over CDP with none of
Playwright's defaults, whose window minimized really hides its page. Screenshot:
test-artifacts/gm-sees-phones-players.png (the GM's players card with the states), gm-sees-phones-turn.png."""

from __future__ import annotations

import re
import subprocess
import time

import pytest
from playwright.sync_api import expect

from conftest import CHROMIUM, CHROMIUM_ARGS, OFFLINE, save_shot
from test_table_screens import PHONE, add_token, join, player_url
from tests.helpers import live_command as command

WITHIN = 10_000  # ms: each state reaches the GM's page within 10 s


@pytest.fixture
def own_chromium(browser, tmp_path, page_errors):
    """A page in a Chromium of its own whose page can be hidden (see the module's doc): ``hide(True)`` minimizes its
    window, ``hide(False)`` shows it again."""
    log = tmp_path / "phone-chromium.log"
    proc = subprocess.Popen([CHROMIUM, "--headless", *CHROMIUM_ARGS, "--remote-debugging-port=0",
                             f"--user-data-dir={tmp_path / 'phone-profile'}", "--window-size=390,844", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=open(log, "w"))
    endpoint, deadline = None, time.time() + 20
    while endpoint is None and time.time() < deadline:
        found = re.search(r"DevTools listening on (ws://\S+)", log.read_text())
        endpoint = found.group(1) if found else time.sleep(0.1)
    assert endpoint, log.read_text()[-2000:]
    remote = browser.browser_type.connect_over_cdp(endpoint, no_defaults=True)
    context = remote.contexts[0]
    page = context.pages[0] if context.pages else context.new_page()
    page_errors.watch(page)  # its errors fail the test as a new_page's do (#70)
    page.set_default_timeout(10000)
    cdp = context.new_cdp_session(page)
    window = cdp.send("Browser.getWindowForTarget")["windowId"]

    def hide(hidden: bool) -> None:
        cdp.send("Browser.setWindowBounds", {"windowId": window,
                                             "bounds": {"windowState": "minimized" if hidden else "normal"}})

    yield page, hide
    remote.close()
    proc.kill()
    proc.wait(10)


def open_phone(page, server, game: dict, player: dict):
    page.goto(player_url(server, game, player).replace(server.url, server.lan_url, 1))
    assert page.evaluate("window.isSecureContext") is False
    expect(page.locator("#conn.ok")).to_be_visible()
    return page


def seat(gm, player: dict):
    return gm.locator(f"#players #player-{player['player_id']} .device-state")


@pytest.mark.console_errors(*OFFLINE, why="the phone loses the Wi-Fi (set_offline)")
def test_the_gm_sees_a_phone_asleep_one_whose_link_is_down_and_both_back(server, new_page, own_chromium, shot):
    status, game = server.api("POST", "/api/games", {"name": "Harrow", "system": "plain_grid"})
    assert status == 201, game
    mira, theo = join(server, game, "Mira"), join(server, game, "Theo")
    aria = add_token(server, game, "Aria", 2, 2, owner=mira["player_id"], kind="pc")
    bran = add_token(server, game, "Bran", 3, 2, owner=theo["player_id"], kind="pc")
    goblin = add_token(server, game, "Goblin", 8, 4)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    page, hide = own_chromium
    mira_phone = open_phone(page, server, game, mira)
    theo_phone = open_phone(new_page(**PHONE), server, game, theo)
    for player in (mira, theo):
        expect(seat(gm, player)).to_have_text("● live", timeout=WITHIN)

    # Mira's phone sleeps: its page really hidden
    hide(True)
    assert mira_phone.evaluate("document.visibilityState") == "hidden"
    expect(seat(gm, mira)).to_have_text("☾ asleep", timeout=WITHIN)
    expect(gm.locator(f"#player-{mira['player_id']}")).to_have_attribute("data-device", "asleep")
    # Theo's phone loses the Wi-Fi: its link is down, since when the server saw it drop
    theo_phone.context.set_offline(True)
    expect(seat(gm, theo)).to_have_text(re.compile(r"^⚠ link down since \d\d:\d\d$"), timeout=WITHIN)
    expect(seat(gm, mira)).to_have_text("☾ asleep")
    gm.locator("#players").scroll_into_view_if_needed()
    save_shot(gm.locator("#players"), "gm-sees-phones-players")

    # a fight, and Mira's turn comes while her phone sleeps: the GM's fight card says so
    command(server, game, {"type": "start_combat", "token_ids": [aria, bran, goblin]})
    for _ in range(3):
        fight = server.api("GET", f"/api/games/{game['id']}/state", token=game["gm_token"])[1]["combat"]
        if fight["current"] == aria:
            break
        command(server, game, {"type": "next_turn"})
    assert fight["current"] == aria
    flag = gm.locator("#combat #turn-device")
    expect(flag).to_be_visible(timeout=WITHIN)
    expect(flag).to_have_text("☾ Mira's turn — phone asleep")
    flag.scroll_into_view_if_needed()
    shot(gm, "gm-sees-phones-turn")

    # both back: the Wi-Fi returns, the phone is shown again
    theo_phone.context.set_offline(False)
    expect(theo_phone.locator("#conn.ok")).to_be_visible(timeout=20000)
    hide(False)
    assert mira_phone.evaluate("document.visibilityState") == "visible"
    for player in (mira, theo):
        expect(seat(gm, player)).to_have_text("● live", timeout=WITHIN)
    expect(flag).to_be_hidden(timeout=WITHIN)

    # nothing of it ever reached a phone
    for phone in (mira_phone, theo_phone):
        assert phone.locator("#players, .device-state, #turn-device").count() == 0
