"""A box the user opened or closed stays so through live updates: the "how" of an attack in the
log, opened to read the dice, and the lighting card, closed by a GM who has lit the map, are drawn
afresh by every update and used to snap back. Real Chromium against a real server."""

from __future__ import annotations

from playwright.sync_api import expect

from test_table_screens import add_token, gm_and_phone, join, new_game
from tests.helpers import live_command as command


def test_a_box_opened_or_closed_by_the_gm_stays_so_through_live_updates(server, new_page, shot):
    game = new_game(server, "savage_worlds", name="Kept boxes")
    orc = add_token(server, game, "Orc", 2, 2)
    ann = add_token(server, game, "Ann", 3, 2)
    # the second attack comes from Bo, whom nobody attacks: the dice are the game's own, and Ann,
    # hit by the first, may be Shaken, and the Shaken take no actions
    bo = add_token(server, game, "Bo", 5, 2)
    gm = new_page(viewport={"width": 1280, "height": 800})
    gm.goto(game["urls"]["gm"])
    expect(gm.locator("#conn.ok")).to_be_visible()

    # an attack in the log: the GM opens its "how" to read the dice
    command(server, game, {"type": "attack", "attacker": orc, "target": ann, "force": True})
    how = gm.locator("#log li.attack details").first
    expect(how).to_be_attached()
    expect(how).not_to_have_attribute("open", "")
    how.locator("summary").click()
    expect(how).to_have_attribute("open", "")

    # the GM lights the map: the server draws the lighting card open; the GM closes it
    command(server, game, {"type": "add_light", "x": 6.5, "y": 4.5, "range": 3})
    lighting = gm.locator("#lighting-panel details").first
    expect(lighting).to_have_attribute("open", "")
    lighting.locator("summary").click()
    expect(lighting).not_to_have_attribute("open", "")

    # live updates draw both afresh (a move; another light, which redraws the lighting card)
    command(server, game, {"type": "move_token", "token_id": orc, "x": 4, "y": 2})
    expect(gm.locator(f'#token-{orc}[data-x="4"][data-y="2"]')).to_be_attached()
    command(server, game, {"type": "add_light", "x": 9.5, "y": 4.5, "range": 2})
    expect(gm.locator("#lighting-panel .light-row")).to_have_count(2)
    expect(how).to_have_attribute("open", "")
    expect(lighting).not_to_have_attribute("open", "")

    # a box the GM never touched keeps the server's say: a newer attack's "how" comes closed
    command(server, game, {"type": "attack", "attacker": bo, "target": orc, "force": True})
    expect(gm.locator("#log li.attack")).to_have_count(2)
    expect(gm.locator("#log li.attack details").first).not_to_have_attribute("open", "")
    expect(gm.locator("#log li.attack details").nth(1)).to_have_attribute("open", "")

    # and the GM's own click opens the lighting card again, which the next update leaves open
    lighting.locator("summary").click()
    command(server, game, {"type": "add_light", "x": 3.5, "y": 7.5, "range": 2})
    expect(gm.locator("#lighting-panel .light-row")).to_have_count(3)
    expect(lighting).to_have_attribute("open", "")
    shot(gm, "details-kept-gm")


LOG_LINES = """() => Array.from(document.querySelectorAll('#log li[data-seq]:not(.gm-only)')).map(li => ({
    seq: li.dataset.seq,
    line: Array.from(li.childNodes).filter(n => n.nodeType === Node.TEXT_NODE).map(n => n.textContent).join('').trim(),
    how: li.querySelector('details ul') ? li.querySelector('details ul').textContent.replace(/\\s+/g, ' ').trim() : null,
}))"""


def test_once_the_gm_opens_a_how_the_entries_that_come_later_keep_their_own_lines_as_on_a_phone(server, new_page):
    """Issue #70: the GM's opened "how" made each later entry drawn with the opened one's line (a GM roll of
    2d6 gone, "Orc hits Ann" twice); a phone's log, which has no Undo form, was right."""
    game = new_game(server, "savage_worlds", name="Log lines")
    orc, ann, bo = (add_token(server, game, name, x, 2) for name, x in (("Orc", 2), ("Ann", 3), ("Bo", 1)))
    mira = join(server, game, "Mira")
    gm, phone = gm_and_phone(server, new_page, game, mira)

    command(server, game, {"type": "attack", "attacker": orc, "target": ann, "force": True})
    how = gm.locator("#log li.attack details").first
    how.locator("summary").click()
    expect(how).to_have_attribute("open", "")

    # two more, each unlike the first: a roll of the GM's, then Bo's attack on the orc
    command(server, game, {"type": "roll", "expr": "2d6"})
    command(server, game, {"type": "attack", "attacker": bo, "target": orc, "force": True})
    for page in (gm, phone):
        expect(page.locator("#log li.attack")).to_have_count(2)
        expect(page.locator("#log li", has_text="rolled 2d6")).to_have_count(1)
    seen_by_gm, seen_by_phone = gm.evaluate(LOG_LINES), phone.evaluate(LOG_LINES)
    assert seen_by_gm == seen_by_phone
    lines = [e["line"] for e in seen_by_gm]
    assert len(set(lines)) == len(lines), lines  # no line drawn twice
    assert gm.locator("#log li.attack details[open]").count() == 1  # the one the GM opened, still open
    expect(gm.locator("#log li.attack").nth(1).locator("details")).to_have_attribute("open", "")
