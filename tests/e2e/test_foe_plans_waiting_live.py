"""The GM's foes' plans on the GM page (#60) while the foe's attack waits for the player's defense: after Do it the
attack waits for Mira's choice, so the card shows no plans (no Do it) but what they wait for; once it is answered
(the GM answers for her here), the card asks again on its own and the plans of the rest of the turn replace the
words."""

from __future__ import annotations

from playwright.sync_api import expect

from test_accessibility import Findings, heading_skips
from test_foe_plans_live import _fight


def test_after_do_it_the_plans_wait_for_the_players_defense_then_come_back(server, new_page, shot):
    g, ids = _fight(server, "gurps_lite")
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    plan = gm.locator("#foe-plans .plan").first
    expect(plan).to_be_visible(timeout=15000)
    plan.locator("button[data-do-plan]").click()
    waiting = gm.locator("#foe-plans .foe-plans-waiting")
    expect(waiting).to_contain_text("Orc's attack waits for Ann's defense", timeout=15000)
    expect(waiting).to_contain_text("The plans come once it is answered.")
    expect(gm.locator("#foe-plans button[data-do-plan]")).to_have_count(0)
    gm.locator("#foe-plans").scroll_into_view_if_needed()
    shot(gm, "foe-plans-waiting")  # the defense prompt (the GM may answer for Ann) floats over the card...
    gm.evaluate("document.getElementById('defense-prompt').style.visibility = 'hidden'")
    shot(gm, "foe-plans-waiting-card")  # ... the card under it, for a look at its words
    gm.evaluate("document.getElementById('defense-prompt').style.visibility = ''")
    found = Findings()
    found.axe(gm, "GM page, the foe's plans waiting for a defense")
    found.check("heading levels", heading_skips(gm), "GM page, the foe's plans waiting")
    found.assert_none()
    _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
    pending = state["pending_defense"]
    assert pending and pending["target_id"] == ids["Ann"]
    status, body = server.api("POST", f"/api/games/{g['id']}/commands",
                              {"type": "choose_defense", "defense": "none", "attack": pending["id"]}, g["gm_token"])
    assert status == 200, body
    expect(waiting).to_have_count(0, timeout=15000)  # asked again on the update: the rest of the turn's plans
    expect(gm.locator("#foe-plans .plans")).to_be_visible()
    shot(gm, "foe-plans-waiting-answered")
