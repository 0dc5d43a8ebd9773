"""The GM's foes' plans asked off the foe's turn (#60: "or the GM opens it at any time"): on a hero's turn the GM
taps "Plans" on the foe's row of the turn order; the plans of its turn, were it to begin now, show beside the fight
card, each with its odds and why and "on its turn" where Do it would be (nothing to play yet); they stay across the
card's live redrawings, close on Close, and give way to the foe's own plans (with Do it) once its turn comes."""

from __future__ import annotations

from playwright.sync_api import expect

from test_accessibility import Findings, heading_skips
from test_foe_plans_live import _fight


def test_the_gm_opens_a_foes_plans_off_its_turn(server, new_page, shot):
    g, ids = _fight(server, "gurps_lite")
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands", {"type": "next_turn"}, g["gm_token"])
    assert status == 200
    _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
    assert state["combat"]["current"] == ids["Ann"]
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    ahead = gm.locator("#foe-plans-ahead")
    expect(gm.locator("#foe-plans")).to_have_count(0)  # not the Orc's turn: no plans of the turn
    expect(ahead).to_be_hidden()
    row = gm.locator(f'#combat [data-foe-plans-of="{ids["Orc"]}"]')
    row.scroll_into_view_if_needed()
    shot(gm, "foe-plans-off-turn-row")
    row.click()
    plans = ahead.locator(".plan")
    expect(plans.first).to_be_visible(timeout=15000)
    expect(ahead.locator(".ahead-name")).to_contain_text("Orc")
    expect(plans.first.locator(".plan-odds")).to_contain_text("to hit")
    expect(plans.first.locator(".plan-later")).to_have_text("on its turn")
    expect(ahead.locator("button[data-do-plan]")).to_have_count(0)
    ahead.scroll_into_view_if_needed()
    shot(gm, "foe-plans-off-turn")
    found = Findings()  # usable by everyone: axe-core's WCAG 2.1 A and AA rules, and no heading level skipped
    found.axe(gm, "GM page, a foe's plans off its turn")
    found.check("heading levels", heading_skips(gm), "GM page, a foe's plans off its turn")
    found.assert_none()
    # a live redrawing of the card (the GM moves Ann by hand) keeps them on screen
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands",
                           {"type": "move_token", "token_id": ids["Ann"], "x": 3, "y": 5, "force": True},
                           g["gm_token"])
    assert status == 200
    gm.wait_for_timeout(800)
    expect(ahead.locator(".plan").first).to_be_visible()
    ahead.locator("[data-foe-plans-close]").click()
    expect(ahead).to_be_hidden()
    gm.locator(f'#combat [data-foe-plans-of="{ids["Orc"]}"]').click()
    expect(ahead.locator(".plan").first).to_be_visible(timeout=15000)
    # the Orc's turn comes: its own plans, with Do it, and the box of plans ahead gives way
    gm.locator('#combat form[data-command="next_turn"] button').click()
    expect(gm.locator("#foe-plans button[data-do-plan]").first).to_be_visible(timeout=15000)
    expect(ahead).to_be_hidden()
    expect(gm.locator(f'#combat [data-foe-plans-of="{ids["Orc"]}"]')).to_have_count(0)
