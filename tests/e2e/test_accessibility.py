"""Every page usable by everyone (issue #34): axe-core's WCAG 2.1 A and AA rules and its best practices (#70) find
no violation on the GM page (every panel open, with and without a fight), a phone in a fight, the 1920x1080 table
screen in a fight, paused by the X-card and showing the recap, the character sheet, the lobby, the join page and the help pages; the phone page does not shift once loaded;
touch targets are at least 24 px (or that far apart); headings skip no level; a token's side and state are
told by shape and text, not by colour alone. Real Chromium, real server, the demo games a new user finds.

axe-core is vendored for the tests only (tests/vendor/, scripts/vendor.sh) and evaluated through the
DevTools protocol, so the page's own Content-Security-Policy stays as users get it."""

from __future__ import annotations

import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import expect

AXE = Path(__file__).resolve().parents[1] / "vendor" / "axe-core-4.14.1.min.js"
#: axe-core's WCAG 2.1 A and AA rules and its best practices (#70): the table screen's fight column lay outside any
#: landmark (region), a best practice only, which the WCAG rules alone never showed
WCAG21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
SCREEN = {"width": 1920, "height": 1080}
MIN_TARGET = 24  # px: WCAG 2.2's 2.5.8 Target Size (Minimum), as Lighthouse checks it


@pytest.fixture
def server(demo_server):
    """The demo games a new user finds on the first start."""
    return demo_server


# --- helpers -------------------------------------------------------------------------------------


def axe_violations(page) -> list[dict]:
    """axe-core's WCAG 2.1 A/AA and best-practice violations on the page as it is now; and a page whose text axe found no way to check
    for contrast at all (the table screen's was, its body of no height read as clipping everything: #61) as one."""
    if not page.evaluate("typeof window.axe === 'object'"):
        page.evaluate(AXE.read_text() + "\n;0")
    return page.evaluate("""tags => axe.run(document, {runOnly: {type: 'tag', values: tags},
        resultTypes: ['violations']}).then(r => r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,
        nodes: v.nodes.map(n => ({target: n.target.join(' '), summary: n.failureSummary}))})).concat(
        r.inapplicable.some(v => v.id === 'color-contrast') && document.body.innerText.trim() ? [{id: 'color-contrast',
        impact: 'unchecked', help: 'No text on the page was checked for contrast', nodes: []}] : []))""", WCAG21_AA)


def readable(where: str, violations: list[dict]) -> str:
    lines = [f"{where}: {len(violations)} axe violation(s), "
             f"{sum(len(v['nodes']) for v in violations)} node(s)"]
    for v in violations:
        lines.append(f"  {v['id']} ({v['impact']}): {v['help']}")
        for n in v["nodes"][:8]:
            summary = " / ".join(s.strip() for s in (n["summary"] or "").splitlines()[1:3])
            lines.append(f"    {n['target']}: {summary}")
        if len(v["nodes"]) > 8:
            lines.append(f"    ... and {len(v['nodes']) - 8} more")
    return "\n".join(lines)


class Findings:
    """Every page's violations, gathered so one run shows all of them, then asserted at once."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def axe(self, page, where: str) -> None:
        violations = axe_violations(page)
        print(readable(where, violations))
        if violations:
            self.found.append(readable(where, violations))

    def check(self, what: str, problems: list[str], where: str) -> None:
        print(f"{where}: {what}: {len(problems)} problem(s)" + "".join(f"\n    {p}" for p in problems))
        if problems:
            self.found.append(f"{where}: {what}:\n" + "\n".join(f"    {p}" for p in problems))

    def assert_none(self) -> None:
        assert not self.found, "\n".join(self.found)


def open_every_panel(page) -> None:
    """Every card and fold on the page opened, as a GM who looked into all of them has it."""
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    page.wait_for_timeout(200)


def demo_games(server, new_page) -> list[dict]:
    """The demo games as the lobby on the server's machine lists them (the outpost first): id, GM key, join code."""
    lobby = new_page()
    lobby.goto(server.url + "/")
    games = []
    for row in lobby.locator(".game-rows li").all():
        href = row.locator("a").get_attribute("href")
        system, code = re.search(r"(.+?) · code (\S+)", row.locator("small").inner_text()).groups()
        games.append({"id": href.split("/")[2], "gm_token": parse_qs(urlparse(href).query)["key"][0],
                      "join_code": code, "gm_url": server.url + href, "system": system})
    lobby.context.close()
    return games


def demo_game(server, new_page) -> dict:
    """The demo outpost (the lobby's first game)."""
    return demo_games(server, new_page)[0]


def api(server, game: dict, method: str, path: str, body=None, token: str | None = None) -> dict:
    status, answer = server.api(method, f"/api/games/{game['id']}{path}", body, token or game["gm_token"])
    assert status in (200, 201), answer
    return answer


def start_fight(server, game: dict, owner: str | None = None) -> dict:
    """A fight among the demo's tokens (and a player's own hero, when a player is given); the turn passed once,
    so a round is under way with whose turn it is shown."""
    tokens = api(server, game, "GET", "/state")["tokens"]
    ids = [t["id"] for t in tokens]
    if owner:
        ids.insert(0, api(server, game, "POST", "/tokens", {"name": "Mira's hero", "x": 2, "y": 2,
                                                             "owner": owner, "kind": "pc"})["id"])
    api(server, game, "POST", "/commands", {"type": "start_combat", "token_ids": ids})
    return api(server, game, "GET", "/state")


def open_gm(server, new_page, game: dict, **kw):
    gm = new_page(**kw)
    gm.goto(game["gm_url"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    return gm


# what a user can press, tap or type into; a link inside running text is exempt (WCAG 2.5.8, "Inline")
TARGETS_JS = """min => {
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], [tabindex]:not([tabindex="-1"])';
  const shown = el => { const s = getComputedStyle(el); const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && !el.closest('[hidden], [inert], [aria-hidden=true]'); };
  const inline = el => el.tagName === 'A' && getComputedStyle(el).display === 'inline'
    && (el.parentElement.textContent.trim().length > el.textContent.trim().length);
  const name = el => (el.id ? '#' + el.id : el.tagName.toLowerCase() + (el.className && el.className.baseVal === undefined
    ? '.' + String(el.className).trim().split(/\\s+/).join('.') : ''))
    + ' "' + (el.getAttribute('aria-label') || el.textContent || el.value || '').trim().slice(0, 30) + '"';
  // the control itself, as axe's target-size counts it (not the label round a checkbox)
  const target = el => el;
  const seen = new Set(); const all = [];
  for (const el of document.querySelectorAll(sel)) {
    if (!shown(el) || inline(el) || el.disabled) continue;
    const t = target(el); if (seen.has(t)) continue; seen.add(t);
    all.push({el: t, r: t.getBoundingClientRect(), label: name(el)});
  }
  const bad = [];
  for (const a of all) {
    if (a.r.width >= min - 0.01 && a.r.height >= min - 0.01) continue;
    // the spacing exception: a 24 px circle on the target's centre meets no other target
    const cx = a.r.left + a.r.width / 2, cy = a.r.top + a.r.height / 2;
    const hit = all.find(b => b !== a && !b.el.contains(a.el) && !a.el.contains(b.el) && (() => {
      const nx = Math.max(b.r.left, Math.min(cx, b.r.right)), ny = Math.max(b.r.top, Math.min(cy, b.r.bottom));
      return Math.hypot(nx - cx, ny - cy) < min / 2; })());
    if (hit) bad.push(`${a.label} is ${a.r.width.toFixed(0)}x${a.r.height.toFixed(0)} px, ${hit.label} within 12 px`);
  }
  return bad;
}"""


def small_targets(page) -> list[str]:
    page.evaluate("window.scrollTo(0, 0)")
    return page.evaluate(TARGETS_JS, MIN_TARGET)


def heading_skips(page) -> list[str]:
    """Headings in document order: the first an h1, none more than one level below the one before."""
    levels = page.evaluate("""() => [...document.querySelectorAll('h1, h2, h3, h4, h5, h6')]
        .filter(h => !h.closest('[hidden], [aria-hidden=true]'))
        .map(h => [Number(h.tagName[1]), h.textContent.trim().replace(/\\s+/g, ' ').slice(0, 40)])""")
    problems, before = [], 0
    for level, text in levels:
        if level > before + 1:
            problems.append(f"h{level} {text!r} follows {'h' + str(before) if before else 'nothing'}")
        before = level
    return problems


def layout_shift_watch(page) -> None:
    """Sum every layout shift not caused by input, from the first paint on (a session's CLS, unwindowed)."""
    page.add_init_script("""window.__shifts = [];
      new PerformanceObserver(list => { for (const e of list.getEntries()) if (!e.hadRecentInput)
        window.__shifts.push({value: e.value, at: e.startTime, nodes: (e.sources || []).map(s => s.node ?
          (s.node.id ? '#' + s.node.id : s.node.nodeName + '.' + (s.node.className || '')) : '?')}); })
        .observe({type: 'layout-shift', buffered: true});""")


def layout_shift(page) -> tuple[float, list]:
    shifts = page.evaluate("window.__shifts")
    return sum(s["value"] for s in shifts), shifts


#: Machado, Oliveira & Fernandes (2009), "A Physiologically-based Model for Simulation of Color Vision Deficiency",
#: severity 1.0, applied to linear RGB
CVD = {
    "protanopia": ((0.152286, 1.052583, -0.204868), (0.114503, 0.786281, 0.099216), (-0.003882, -0.048116, 1.051998)),
    "deuteranopia": ((0.367322, 0.860646, -0.227968), (0.280085, 0.672501, 0.047413), (-0.011820, 0.042940, 0.968881)),
    "tritanopia": ((1.255528, -0.076749, -0.178779), (-0.078411, 0.930809, 0.147602), (0.004733, 0.691367, 0.303900)),
}


def rgb_of(css: str) -> tuple[float, float, float]:
    return tuple(float(v) for v in re.findall(r"[\d.]+", css)[:3])


def seen_as(rgb, deficiency: str | None) -> tuple[float, float, float]:
    """The colour in CIELAB (D65) as seen with the deficiency (None: typical vision)."""
    linear = [c / 255 / 12.92 if c / 255 <= 0.04045 else ((c / 255 + 0.055) / 1.055) ** 2.4 for c in rgb]
    if deficiency:
        linear = [sum(m * v for m, v in zip(row, linear)) for row in CVD[deficiency]]
    r, g, b = (min(1.0, max(0.0, v)) for v in linear)
    x, y, z = ((0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, 0.2126 * r + 0.7152 * g + 0.0722 * b,
               (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883)
    f = lambda v: v ** (1 / 3) if v > 0.008856 else 7.787 * v + 16 / 116  # noqa: E731
    return 116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))


def colour_distance(a, b, deficiency: str | None) -> float:
    """CIE76 delta E between two sRGB colours as seen with the deficiency (about 2.3 is just noticeable)."""
    return sum((p - q) ** 2 for p, q in zip(seen_as(a, deficiency), seen_as(b, deficiency))) ** 0.5


# --- the pages -----------------------------------------------------------------------------------


def test_the_gm_page_passes_axe_with_every_panel_open_and_with_a_fight_running(server, new_page, shot):
    found = Findings()
    game = demo_game(server, new_page)
    status, mira = server.api("POST", f"/api/games/{game['id']}/players", {"join_code": game["join_code"], "name": "Mira"})
    assert status == 201, mira  # a player at the table: the Players card lists her
    gm = open_gm(server, new_page, game)
    found.axe(gm, "GM page as opened")
    # the table screen open on the TV: the GM's Table screen card shows its preview
    screen = new_page(viewport=SCREEN)
    screen.goto(server.url + gm.locator("#screen-link").get_attribute("href"))
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(gm.locator("#tv-preview svg")).to_be_attached()
    open_every_panel(gm)
    found.axe(gm, "GM page, every panel open, the TV preview shown")
    found.check("touch targets under 24 px", small_targets(gm), "GM page before a fight")
    # the Fight card's checkboxes (who fights, who is surprised) were 13 px: now 24 px themselves
    sizes = gm.locator("#combat input[type=checkbox]").evaluate_all(
        "cs => cs.map(c => { const r = c.getBoundingClientRect(); return [r.width, r.height]; })")
    assert sizes and all(w >= MIN_TARGET and h >= MIN_TARGET for w, h in sizes), sizes
    gm.locator("#combat").scroll_into_view_if_needed()
    shot(gm, "a11y-gm-fight-card")
    start_fight(server, game, owner=mira["player_id"])
    expect(gm.locator("#combat li.current")).to_be_visible()
    open_every_panel(gm)
    found.axe(gm, "GM page, every panel open, a fight running")
    found.check("touch targets under 24 px", small_targets(gm), "GM page in a fight")
    found.check("heading levels", heading_skips(gm), "GM page")
    shot(gm, "a11y-gm-fight")
    found.assert_none()


@pytest.mark.long
def test_a_phone_in_a_fight_passes_axe_does_not_shift_and_has_big_enough_targets(server, new_page, shot):
    found = Findings()
    game = demo_game(server, new_page)
    status, mira = server.api("POST", f"/api/games/{game['id']}/players", {"join_code": game["join_code"], "name": "Mira"})
    assert status == 201, mira
    start_fight(server, game, owner=mira["player_id"])
    phone = new_page(**PHONE)
    # the scripts arrive after the first paint, as on a phone over Wi-Fi (Lighthouse throttles likewise)
    phone.route("**/*.js", lambda route: (time.sleep(0.3), route.continue_()))
    layout_shift_watch(phone)
    phone.goto(f"{server.url}/games/{game['id']}/play?key={mira['player_token']}")
    expect(phone.locator("#conn.ok")).to_be_visible()
    expect(phone.locator("#combat li.current")).to_be_visible()
    phone.wait_for_timeout(1500)  # whatever settles after the page loaded (pictures, the live connection) has
    cls, shifts = layout_shift(phone)
    print(f"phone layout shift: {cls:.3f} {shifts}")
    if cls >= 0.1:
        found.check("layout shift", [f"{cls:.3f} in all: {shifts}"], "phone")
    # and nothing is wider than the phone (the frame sized ahead of the scripts stays within the page)
    wide = phone.evaluate("document.documentElement.scrollWidth")
    if wide > PHONE["viewport"]["width"]:
        found.check("page wider than the phone", [f"{wide} px"], "phone")
    found.axe(phone, "phone in a fight")
    open_every_panel(phone)
    found.axe(phone, "phone in a fight, every fold open")
    found.check("touch targets under 24 px", small_targets(phone), "phone in a fight")
    found.check("heading levels", heading_skips(phone), "phone")
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "a11y-phone-fight")
    found.assert_none()


def test_the_table_screen_in_a_fight_paused_and_showing_the_recap_passes_axe(server, new_page, shot):
    found = Findings()
    game = demo_game(server, new_page)
    gm = open_gm(server, new_page, game)
    screen_url = gm.locator("#screen-link").get_attribute("href")
    start_fight(server, game)
    screen = new_page(viewport=SCREEN)
    screen.goto(server.url + screen_url)
    expect(screen.locator("#conn.ok")).to_be_attached()
    expect(screen.locator("#combat li.current")).to_be_visible()
    found.axe(screen, "table screen in a fight")
    found.check("heading levels", heading_skips(screen), "table screen")
    shot(screen, "a11y-screen-fight")
    # a player's X-card: the fight paused under the pause card (#70: the fight's column was outside any landmark)
    status, mira = server.api("POST", f"/api/games/{game['id']}/players", {"join_code": game["join_code"], "name": "Mira"})
    assert status == 201, mira
    api(server, game, "POST", "/commands", {"type": "x_card"}, mira["player_token"])
    expect(screen.locator("#pause .pause-card")).to_be_visible()
    found.axe(screen, "table screen in a fight, paused by the X-card")
    shot(screen, "a11y-screen-paused")
    api(server, game, "POST", "/commands", {"type": "resume_scene"})
    expect(screen.locator("#pause .pause-card")).to_be_hidden()
    # the fight over, its recap on the table screen
    api(server, game, "POST", "/commands", {"type": "end_combat"})
    api(server, game, "POST", "/commands", {"type": "show_recap"})
    expect(screen.locator("#recap-screen #recap .fight")).to_be_visible()
    found.axe(screen, "table screen showing the recap")
    found.check("heading levels", heading_skips(screen), "table screen, recap")
    shot(screen, "a11y-screen-recap")
    found.assert_none()


@pytest.mark.console_errors(
    r"^Failed to load resource: the server responded with a status of 404 \(NOT FOUND\) \(http://[^ /]+/join(\?code=\w+)?:0\)$",
    why="a code no game has is answered with the join page and a 404, as the test asks it (the browser logs the 404)")
@pytest.mark.long
def test_the_sheet_lobby_join_and_help_pages_pass_axe_with_headings_in_order(server, new_page, shot):
    found = Findings()
    game = demo_game(server, new_page)
    page = open_gm(server, new_page, game)
    # the sheet of a player's and of a foe's token of the outpost (the other tokens' sheets are the same page with
    # other words), and of the first token of each system's sample fight
    for other in demo_games(server, new_page):
        gm_of = open_gm(server, new_page, other)
        tokens = api(server, other, "GET", "/state")["tokens"]
        if other["id"] == game["id"]:
            tokens = [next(t for t in tokens if t.get("kind") == kind) for kind in ("pc", "npc")]
        for token in tokens[:2] if other["id"] == game["id"] else tokens[:1]:
            gm_of.goto(f"{server.url}/games/{other['id']}/tokens/{token['id']}/sheet")
            expect(gm_of.locator(".sheet-page")).to_be_visible()
            open_every_panel(gm_of)
            where = f"sheet of {token['name']} ({other['system']})"
            found.axe(gm_of, where)
            found.check("heading levels", heading_skips(gm_of), where)
        gm_of.context.close()
    # a sheet of each grid system with its editor (a character made for a new token; the zone system's is the
    # demo's above)
    for system in ("savage_worlds", "gurps_lite", "tesseris_ads", "phase_tn", "plain_grid"):
        status, made = server.api("POST", "/api/games", {"name": f"Sheet {system}", "system": system})
        assert status == 201, made
        token = api(server, made, "POST", "/tokens", {"name": "Vera", "x": 1, "y": 1, "kind": "pc"})["id"]
        page.goto(made["urls"]["gm"])
        page.goto(f"{server.url}/games/{made['id']}/tokens/{token}/sheet")
        make = page.locator("button", has_text="Make Vera's character")
        if make.count():
            make.click()
            expect(page.locator(".flash-inline.ok")).to_contain_text("Saved")
        open_every_panel(page)
        where = f"sheet of Vera ({system}, with its editor)"
        found.axe(page, where)
        found.check("heading levels", heading_skips(page), where)
        shot(page, f"a11y-sheet-{system}")
    for path, where in ((game["gm_url"].replace(server.url, ""), None), ("/", "lobby"),
                        (f"/join?code={game['join_code']}", "join page"), ("/join?code=NOSUCH", "join page, no game")):
        if where is None:
            continue
        page.goto(server.url + path)
        found.axe(page, where)
        found.check("heading levels", heading_skips(page), where)
    # a wrong code answered: the error on the page
    page.goto(server.url + "/")
    page.fill("input[name=code]", "ZZZZZZ")
    page.fill("input[name=name]", "Mira")
    page.click("button:has-text('Join')")
    expect(page.locator(".flash.error")).to_be_visible()
    found.axe(page, "join page with an error")
    page.goto(server.url + "/help/")
    systems = page.locator("main a[href^='/help/']").evaluate_all("as => as.map(a => a.getAttribute('href'))")
    assert len(systems) >= 5, systems
    found.axe(page, "help index")
    found.check("heading levels", heading_skips(page), "help index")
    for href in systems:
        page.goto(server.url + href)
        open_every_panel(page)
        found.axe(page, f"help {href}")
        found.check("heading levels", heading_skips(page), f"help {href}")
    found.assert_none()


def test_sides_and_states_are_told_apart_without_colour(server, new_page, shot):
    """On a phone in a fight: the player's own token (a double ring), the acting one (a wide dashed ring), a foe
    (a diamond on its rim) and another player's character differ in shape and in their names, and the ring and
    mark colours stay far apart as the common colour-blindness types see them."""
    game = demo_game(server, new_page)
    status, mira = server.api("POST", f"/api/games/{game['id']}/players", {"join_code": game["join_code"], "name": "Mira"})
    assert status == 201, mira
    fight = start_fight(server, game, owner=mira["player_id"])
    hero = fight["combat"]["current"]
    tokens = {t["id"]: t for t in fight["tokens"]}
    assert tokens[hero]["name"] == "Mira's hero"
    foe = next(t["id"] for t in tokens.values() if t["kind"] == "npc")
    friend = next(t["id"] for t in tokens.values() if t["kind"] == "pc" and t["id"] != hero)
    phone = new_page(**PHONE)
    phone.goto(f"{server.url}/games/{game['id']}/play?key={mira['player_token']}")
    expect(phone.locator("#conn.ok")).to_be_visible()

    def token(tid):
        return phone.locator(f"#token-{tid}")

    # shapes: a second ring inside the player's own, a diamond on a foe's rim, a dashed wide ring on the acting one
    expect(token(hero).locator(".mine-ring")).to_have_count(1)
    for other in (foe, friend):
        expect(token(other).locator(".mine-ring")).to_have_count(0)
    expect(token(foe).locator(".foe-mark")).to_have_count(1)
    for other in (hero, friend):
        expect(token(other).locator(".foe-mark")).to_have_count(0)
    look = phone.evaluate("""([hero, foe, friend]) => {
        const css = (sel, prop) => getComputedStyle(document.querySelector(sel))[prop];
        return {acting: css(`#token-${hero} .acting-ring`, 'stroke'), actingDash: css(`#token-${hero} .acting-ring`, 'strokeDasharray'),
                mine: css(`#token-${hero} .token-body`, 'stroke'), mineDash: css(`#token-${hero} .mine-ring`, 'strokeDasharray'),
                mineRing: css(`#token-${hero} .mine-ring`, 'stroke'),
                foe: css(`#token-${foe} .foe-mark`, 'fill'), friend: css(`#token-${friend} .token-body`, 'stroke')}; }""",
                          [hero, foe, friend])
    assert look["actingDash"] not in ("none", "") and look["mineDash"] in ("none", ""), look
    assert look["mineRing"] == look["mine"], look  # the double ring is one colour: told by its shape
    # words: what a screen reader says
    expect(token(hero)).to_have_attribute("aria-label", re.compile(r"their turn.*yours"))
    expect(token(foe)).to_have_attribute("aria-label", re.compile(r"non-player character"))
    expect(token(friend)).not_to_have_attribute("aria-label", re.compile(r"yours|their turn"))
    # colours: every pair of ring and mark colours far apart for typical vision and the three dichromacies
    palette = {k: rgb_of(look[k]) for k in ("acting", "mine", "foe", "friend")}
    for deficiency in (None, *CVD):
        for a, b in ((a, b) for i, a in enumerate(palette) for b in list(palette)[i + 1:]):
            distance = colour_distance(palette[a], palette[b], deficiency)
            assert distance >= 20, f"{a} {palette[a]} and {b} {palette[b]}: delta E {distance:.1f} for {deficiency}"
    phone.locator("#map-frame").scroll_into_view_if_needed()
    token(hero).scroll_into_view_if_needed()
    shot(phone, "a11y-phone-sides")
    # the board as a list (#61): the same sides told by a shape and a word, and the list passes axe
    phone.click("[data-board-view=list]")
    listed = phone.locator("#board-list")
    expect(listed).to_be_visible()
    expect(listed.locator(".board-me .side-mark")).to_have_text("◎")
    for tid, mark, word in ((foe, "◆", "(foe)"), (friend, "●", "(ally)")):
        expect(listed.locator(f"#board-row-{tid} .side-mark")).to_have_text(mark)
        expect(listed.locator(f"#board-row-{tid} .board-side")).to_have_text(word)
    violations = axe_violations(phone)
    assert not violations, readable("phone, the board as a list", violations)
    assert not small_targets(phone), small_targets(phone)
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "a11y-phone-list")
