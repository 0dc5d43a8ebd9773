"""What a player must see is in view (#61): the X-card's pause pinned at the top of the view on the GM's page and
on every phone (a phone's in place of its turn bar, which comes back when the scene resumes); the link's banners
("Reconnecting…", "Back, 1 change caught up") above the phone's turn bar, in view; the turn bar folded to one
line once a choice is made in the turn, unfolded on a tap and on the player's next turn; the table screen's recap
read from three metres (no text under 32 px at 1920 x 1080, the tokens large). Real Chromium, real server, phones
at the LAN name (not a secure context)."""

from __future__ import annotations

import base64
import re

import pytest
from playwright.sync_api import expect

from conftest import OFFLINE
from test_recap_live import fought
from test_table_screens import PHONE, join, player_url
from tests.helpers import live_command as command

GM = {"width": 1280, "height": 800}
TV = {"width": 1920, "height": 1080}
FOLDED_MAX = 64  # px: one line


def fight_on_my_turn(server, system: str) -> tuple[dict, dict, dict]:
    """A fight of Mira's Aria and an Ogre in ``system``, on Aria's turn."""
    status, g = server.api("POST", "/api/games", {"name": "In view", "system": system, "map": {"width": 16, "height": 8}})
    assert status == 201, g
    mira = join(server, g, "Mira")
    ids = {}
    for name, (x, y) in {"Aria": (2, 2), "Ogre": (6, 2)}.items():
        body = {"name": name, "x": x, "y": y} | ({"owner": mira["player_id"], "kind": "pc"} if name == "Aria" else {})
        status, made = server.api("POST", f"/api/games/{g['id']}/tokens", body, g["gm_token"])
        assert status == 201, made
        ids[name] = made["id"]
    command(server, g, {"type": "start_combat", "token_ids": list(ids.values())})
    to_turn_of(server, g, ids["Aria"])
    return g, mira, ids


def fight_state(server, g) -> dict:
    return server.api("GET", f"/api/games/{g['id']}/state", token=g["gm_token"])[1]["combat"]


def to_turn_of(server, g, token: str) -> None:
    for _ in range(6):
        if fight_state(server, g)["current"] == token:
            return
        command(server, g, {"type": "next_turn"})
    raise AssertionError(f"never {token}'s turn: {fight_state(server, g)}")


def open_phone(new_page, server, g, mira):
    phone = new_page(**PHONE)
    phone.goto(player_url(server, g, mira).replace(server.url, server.lan_url, 1))
    assert phone.evaluate("window.isSecureContext") is False
    expect(phone.locator("#conn.ok")).to_be_visible()
    return phone


def box(locator) -> dict:
    b = locator.bounding_box()
    assert b is not None, f"{locator} is not drawn"
    return b


def in_viewport(page, locator) -> None:
    """``locator`` wholly in the page's viewport and drawn on top there (nothing over its middle)."""
    b, view = box(locator), page.viewport_size
    assert b["y"] >= -0.5 and b["y"] + b["height"] <= view["height"] + 0.5, (b, view)
    assert b["x"] >= -0.5 and b["x"] + b["width"] <= view["width"] + 0.5, (b, view)
    # (a banner lets taps through to the page under it: hit-tested here as if it took them)
    on_top = locator.evaluate("""(el) => { const r = el.getBoundingClientRect(), was = el.style.pointerEvents;
        el.style.pointerEvents = 'auto';
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        el.style.pointerEvents = was;
        return !!hit && (el === hit || el.contains(hit)); }""")
    assert on_top, f"{locator} is covered"


def scroll_down(page, by: int = 700) -> None:
    page.evaluate(f"window.scrollTo(0, {by})")
    page.wait_for_timeout(150)
    assert page.evaluate("window.scrollY") > 100, "the page did not scroll"


# --- the X-card's pause -----------------------------------------------------------


def test_the_pause_is_pinned_in_view_on_the_gm_page_and_on_a_phone_in_place_of_the_turn_bar(server, new_page, shot):
    g, mira, ids = fight_on_my_turn(server, "savage_worlds")
    gm = new_page(viewport=GM)
    gm.goto(g["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    phone = open_phone(new_page, server, g, mira)
    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your turn")
    scroll_down(phone)
    bar_at = box(bar)
    assert abs(bar_at["y"]) <= 1, "the turn bar sticks at the top of the view"

    phone.locator("#pause button.x-card-tap").click()  # Mira taps the X-card (the page scrolls to it)
    note = phone.locator("#pause .paused-note")
    expect(note).to_be_visible()
    expect(bar).to_be_hidden()  # the pause takes the turn bar's place while it lasts
    for y in (0, 400, 100000):  # wherever the page is scrolled, the pause is at its top
        phone.evaluate(f"window.scrollTo(0, {y})")
        phone.wait_for_timeout(100)
        in_viewport(phone, note)
        assert abs(box(phone.locator("#pause"))["y"] - bar_at["y"]) <= 1, "the pause is where the turn bar was"
        expect(bar).to_be_hidden()
    shot(phone, "in-view-phone-paused")

    notice = gm.locator("#pause .pause-notice")
    expect(notice).to_be_visible()
    gm.evaluate("window.scrollTo(0, 100000)")
    gm.evaluate("document.querySelector('.panel').scrollTop = 100000")  # the GM's panel scrolls by itself
    gm.wait_for_timeout(150)
    assert gm.evaluate("document.querySelector('.panel').scrollTop") > 200, "the panel did not scroll"
    in_viewport(gm, notice)
    in_viewport(gm, notice.locator("button", has_text="Resume the scene"))
    shot(gm, "in-view-gm-paused")

    # a GM on a narrow window (the panel under the map): the notice at the top of the view too
    narrow = new_page(viewport={"width": 800, "height": 700})
    narrow.goto(g["urls"]["gm"])
    expect(narrow.locator("#conn.ok")).to_be_visible()
    scroll_down(narrow, 100000)
    in_viewport(narrow, narrow.locator("#pause .pause-notice"))

    notice.locator("button", has_text="Resume the scene").click()
    expect(phone.locator("#pause button.x-card-tap")).to_be_visible()
    expect(bar).to_be_visible()  # the turn bar comes back
    expect(bar).to_contain_text("Your turn")
    scroll_down(phone)
    assert abs(box(bar)["y"]) <= 1
    assert phone.locator("#pause").evaluate("el => getComputedStyle(el).position") == "static", "the X-card in its place"
    expect(gm.locator("#pause")).to_be_hidden()


# --- the link's banners -----------------------------------------------------------


@pytest.mark.console_errors(*OFFLINE, why="the phone loses the Wi-Fi (set_offline) to show the link banner")
def test_the_link_banners_show_above_the_turn_bar_in_view(server, new_page, shot):
    g, mira, ids = fight_on_my_turn(server, "savage_worlds")
    phone = open_phone(new_page, server, g, mira)
    bar = phone.locator("#turn-bar")
    expect(bar).to_contain_text("Your turn")
    scroll_down(phone, 300)  # the player looks at the map, the turn bar stuck at the top
    banner = phone.locator("#link-banner")

    def banner_above_the_bar(text: str) -> None:
        expect(banner).to_have_class(re.compile(r"\bshown\b"))
        expect(banner).to_contain_text(text)
        phone.wait_for_timeout(300)  # its fade in
        in_viewport(phone, banner)
        in_viewport(phone, bar.locator(".your-turn"))
        b, t = box(banner), box(bar)
        assert b["y"] + b["height"] <= t["y"] + 0.5, f"the banner {b} is not above the turn bar {t}"

    phone.context.set_offline(True)
    banner_above_the_bar("Reconnecting…")
    # a roll made meanwhile waits, counted, and goes out once the link is back
    phone.evaluate("() => { window.tacmap.command({type: 'roll', expr: '1d6'}); }")  # (answered once back)
    expect(banner).to_contain_text("1 change waits to go out")
    banner_above_the_bar("Reconnecting…")
    shot(phone, "in-view-phone-reconnecting")
    phone.context.set_offline(False)
    banner_above_the_bar("Back, 1 change caught up")
    shot(phone, "in-view-phone-back")
    # gone again: the turn bar back at the very top
    expect(banner).not_to_have_class(re.compile(r"\bshown\b"), timeout=8000)
    phone.wait_for_timeout(300)
    assert abs(box(bar)["y"]) <= 1


# --- the turn bar, folded ---------------------------------------------------------


def bar_height(phone) -> float:
    return box(phone.locator("#turn-bar"))["height"]


@pytest.mark.parametrize("system, choice", [("savage_worlds", "Run (+d6 to Pace)"), ("gurps_lite", "Attack")])
def test_the_turn_bar_folds_to_one_line_once_a_choice_is_made(server, new_page, shot, system, choice):
    g, mira, ids = fight_on_my_turn(server, system)
    phone = open_phone(new_page, server, g, mira)
    bar = phone.locator("#turn-bar")
    toggle = bar.locator("button.turn-bar-fold")
    expect(bar).to_contain_text("Your turn")
    phone.evaluate("window.scrollTo(0, 0)")
    phone.wait_for_timeout(200)
    before = bar_height(phone)
    print(f"\n{system}: the open turn bar is {before:.0f} px, {before / PHONE['viewport']['height']:.0%} of the phone")
    assert before > FOLDED_MAX
    shot(phone, f"in-view-phone-open-{system}")
    expect(toggle).to_have_attribute("aria-expanded", "true")

    bar.locator(".turn-bar-actions button", has_text=choice).first.click()  # the choice
    expect(bar).to_have_class(re.compile(r"\bfolded\b"))
    expect(toggle).to_have_attribute("aria-expanded", "false")
    expect(bar.locator(".turn-bar-actions")).to_be_hidden()
    for part in (bar.locator(".your-turn"), bar.locator(".who"), bar.locator(".turn-bar-left"),
                 bar.locator(".end-turn button"), toggle):
        expect(part).to_be_visible()
    expect(bar.locator(".your-turn")).to_have_text(re.compile("your turn", re.I))
    expect(bar.locator(".who")).to_contain_text("Aria")
    assert bar.locator(".who").evaluate("el => el.scrollWidth <= el.clientWidth + 0.5"), "the name is cut"
    expect(bar.locator(".turn-bar-left")).to_contain_text("Left:")
    phone.wait_for_timeout(200)
    assert bar_height(phone) <= FOLDED_MAX, bar_height(phone)
    # a live update (the GM moves the Ogre) draws the bar afresh: it stays folded
    command(server, g, {"type": "move_token", "token_id": ids["Ogre"], "x": 7, "y": 3, "force": True})
    expect(phone.locator("#token-" + ids["Ogre"])).to_have_attribute("data-x", "7")
    expect(bar).to_have_class(re.compile(r"\bfolded\b"))
    assert bar_height(phone) <= FOLDED_MAX
    shot(phone, f"in-view-phone-folded-{system}")

    toggle.click()  # unfolds on a tap
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(bar.locator(".turn-bar-actions")).to_be_visible()
    assert bar_height(phone) > FOLDED_MAX
    toggle.click()  # and folds again
    expect(toggle).to_have_attribute("aria-expanded", "false")
    assert bar_height(phone) <= FOLDED_MAX

    turn = bar.get_attribute("data-turn")
    bar.locator(".end-turn button").click()
    expect(bar).not_to_have_attribute("data-turn", turn)  # the Ogre's turn, or (Savage Worlds' new deal) the next round
    to_turn_of(server, g, ids["Aria"])  # Aria's turn anew: the bar open
    expect(bar).to_be_visible()
    expect(toggle).to_have_attribute("aria-expanded", "true")
    expect(bar).not_to_have_class(re.compile(r"\bfolded\b"))
    expect(bar.locator(".turn-bar-actions")).to_be_visible()


# --- the table screen's recap -----------------------------------------------------

#: every text of the recap over the table screen, with its computed font size (px)
TEXTS = """() => {
  const out = [];
  const walk = document.createTreeWalker(document.getElementById('recap-screen'), NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || el.closest('style') || !el.getClientRects().length) continue;
    out.push([n.textContent.trim().slice(0, 40), parseFloat(getComputedStyle(el).fontSize)]);
  }
  return out;
}"""


def test_the_recap_on_the_table_screen_reads_from_three_metres(server, new_page, shot):
    g, _mira, _ids = fought(server)
    screen = new_page(viewport=TV)
    screen.goto(g["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    command(server, g, {"type": "show_recap"})
    story = screen.locator("#recap-screen .recap")
    expect(story).to_be_visible()
    pictures = story.locator(".fight img")
    expect(pictures.first).to_have_js_property("complete", True)

    texts = screen.evaluate(TEXTS)
    assert len(texts) >= 15, texts
    small = [(text, size) for text, size in texts if size < 32]
    assert small == [], f"text under 32 px on the table screen: {small}"

    # the tokens: each picture half the screen wide, a token's disc some 60 px across at least
    for i in range(pictures.count()):
        img = pictures.nth(i)
        svg = base64.b64decode(img.get_attribute("src").split(",", 1)[1]).decode()
        _x, _y, vw, vh = (float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())
        radius = min(float(r) for r in re.findall(r'<circle [^>]*r="([\d.]+)"', svg))
        shown = img.evaluate("i => [i.clientWidth, i.clientHeight]")
        scale = min(shown[0] / vw, shown[1] / vh)
        assert shown[0] >= 0.4 * TV["width"], shown
        assert 2 * radius * scale >= 60, f"a token is {2 * radius * scale:.0f} px across"
    shot(screen, "in-view-tv-recap")
    story.locator(".fight").first.scroll_into_view_if_needed()
    shot(screen, "in-view-tv-recap-fight")
