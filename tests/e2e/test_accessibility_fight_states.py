"""Every page usable by everyone in the moments of a fight too (issue #61, after #34's test_accessibility.py):
axe-core's WCAG 2.1 A and AA rules find no violation on a gurps_lite fight's screens: the GM's page with every
panel open while a defense waits (the GM's foe attacked a player's token, the phone is asked to defend), the phone
with its turn bar and attack card, then with the defense prompt, the table screen in the fight, paused by the
X-card, and showing the recap. Real Chromium, real server, the phone at the LAN name; no rule left out."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from test_accessibility import Findings, heading_skips, open_every_panel
from test_table_screens import add_token, join
from test_turns_on_phones import new_game, open_phone, seeded_dice, state, turn_to  # noqa: F401  (a fixture)
from tests.helpers import live_command as command

pytestmark = pytest.mark.long  # tens of seconds: run first (tests/conftest.py)

SCREEN = {"width": 1920, "height": 1080}

#: the words under an overlay that covers the page (the table screen's recap, its pause card) whose colour is under
#: WCAG's 4.5:1 (3:1 for large text) against the backgrounds they lie on, composited down to the page's own: axe-core
#: cannot say for those ("overlapped by another element") and leaves them out
LOW_CONTRAST_UNDER = """root => {
  const rgba = (c) => { const v = c.match(/[\\d.]+/g).map(Number); return [v[0], v[1], v[2], v.length > 3 ? v[3] : 1]; };
  const over = (top, under) => top.slice(0, 3).map((c, i) => c * top[3] + under[i] * (1 - top[3])).concat([1]);
  const lum = (c) => { const l = c.slice(0, 3).map(v => { v /= 255; return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2]; };
  const page = rgba(getComputedStyle(document.body).backgroundColor);
  const bad = [];
  for (const el of document.querySelector(root).querySelectorAll('*')) {
    const own = [...el.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
    if (!own || !el.getClientRects().length || getComputedStyle(el).visibility === 'hidden') continue;
    const layers = [];
    for (let e = el; e && e !== document.body; e = e.parentElement) layers.push(rgba(getComputedStyle(e).backgroundColor));
    let bg = page;
    for (const layer of layers.reverse()) bg = over(layer, bg);
    let opacity = 1;
    for (let e = el; e; e = e.parentElement) opacity *= Number(getComputedStyle(e).opacity);
    const fgc = rgba(getComputedStyle(el).color);
    const fg = over([fgc[0], fgc[1], fgc[2], fgc[3] * opacity], bg);
    const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    const ratio = (a + 0.05) / (b + 0.05);
    const style = getComputedStyle(el), size = parseFloat(style.fontSize), bold = Number(style.fontWeight) >= 700;
    const need = size >= 24 || (bold && size >= 18.66) ? 3 : 4.5;
    if (ratio < need) bad.push(`${el.tagName.toLowerCase()}.${el.className} "${el.textContent.trim().slice(0, 30)}": ${ratio.toFixed(2)}:1 (${need}:1 needed)`);
  }
  return bad;
}"""


def test_a_gurps_fight_passes_axe_on_every_screen_with_a_defense_waiting_a_pause_and_the_recap(
        seeded_dice, server, new_page, shot):
    found = Findings()
    game = new_game(server, "gurps_lite", {"width": 12, "height": 8}, name="Waiting defense")
    mira = join(server, game, "Mira")
    ann = add_token(server, game, "Ann", 3, 3, owner=mira["player_id"], kind="pc")
    brute = add_token(server, game, "Brute", 4, 3)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()
    screen = new_page(viewport=SCREEN)
    screen.goto(game["urls"]["screen"])
    expect(screen.locator("#conn.ok")).to_be_attached()
    phone = open_phone(new_page, server, game, mira)
    command(server, game, {"type": "start_combat", "token_ids": [ann, brute]})

    # Ann's turn: the phone's turn bar and its attack card, the Brute picked as the target (its odds shown)
    turn_to(server, game, ann)
    expect(phone.locator("#turn-bar.my-turn")).to_be_visible()
    open_every_panel(phone)
    expect(phone.locator("#attack-card")).to_be_visible()
    phone.locator("#attack-form button[data-attack=preview_attack]").click()
    expect(phone.locator("#attack-preview .attack-preview")).to_be_visible()
    found.axe(phone, "phone on its turn: turn bar, attack card")
    found.check("heading levels", heading_skips(phone), "phone on its turn")
    phone.evaluate("window.scrollTo(0, 0)")
    shot(phone, "a11y-gurps-phone-turn")

    # the Brute's turn: the GM's foe attacks Ann, her phone asks for her defense
    turn_to(server, game, brute)
    open_every_panel(gm)
    gm.locator("#attack-form button[data-attack=preview_attack]").click()
    expect(gm.locator("#attack-preview .attack-preview")).to_be_visible()
    found.axe(gm, "GM page, every panel open, the Brute's attack previewed")
    gm.locator("#attack-card").scroll_into_view_if_needed()
    shot(gm, "a11y-gurps-gm-preview")
    command(server, game, {"type": "attack", "attacker": brute, "target": ann, "weapon": "Broadsword"})
    asked = phone.locator("#defense-prompt.asking")
    expect(asked).to_be_visible()
    expect(gm.locator("#defense-prompt")).to_be_visible()
    expect(screen.locator("#defense-prompt")).to_contain_text("defense")
    found.axe(phone, "phone asked to defend")
    found.check("heading levels", heading_skips(phone), "phone asked to defend")
    shot(phone, "a11y-gurps-phone-defense")
    open_every_panel(gm)
    found.axe(gm, "GM page, every panel open, a defense waiting")
    found.check("heading levels", heading_skips(gm), "GM page, a defense waiting")
    gm.evaluate("window.scrollTo(0, 0)")
    shot(gm, "a11y-gurps-gm-defense")
    found.axe(screen, "table screen, a defense waiting")
    shot(screen, "a11y-gurps-screen-defense")
    asked.locator("button[data-defense]:enabled").first.click()
    expect(phone.locator("#defense-prompt")).to_be_hidden()

    # the X-card from the phone: every screen paused
    command(server, game, {"type": "x_card"}, mira["player_token"])
    assert state(server, game)["paused"] is True
    expect(screen.locator("#pause .pause-card")).to_be_visible()
    screen.wait_for_timeout(300)
    found.axe(screen, "table screen paused by the X-card")
    found.check("contrast under the overlay", screen.evaluate(LOW_CONTRAST_UNDER, "#pause"), "table screen, paused")
    shot(screen, "a11y-gurps-screen-paused")
    found.axe(phone, "phone, the scene paused")
    open_every_panel(gm)
    found.axe(gm, "GM page, the scene paused")
    command(server, game, {"type": "resume_scene"})

    # the fight over, the recap on the table screen
    gm.once("dialog", lambda d: d.accept())
    gm.locator("#combat form[data-command=end_combat] button").click()
    expect(gm.locator("#combat .turn-order li")).to_have_count(0)
    command(server, game, {"type": "show_recap"})
    expect(screen.locator("#recap-screen #recap .fight")).to_be_visible()  # the story fetched into the overlay
    found.axe(screen, "table screen showing the recap")
    found.check("contrast under the overlay", screen.evaluate(LOW_CONTRAST_UNDER, "#recap-screen"), "table screen, recap")
    found.check("heading levels", heading_skips(screen), "table screen, recap")
    shot(screen, "a11y-gurps-screen-recap")
    open_every_panel(gm)
    found.axe(gm, "GM page, the recap shown")
    found.assert_none()
