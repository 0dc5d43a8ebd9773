"""The GM's foes' plans on the GM page in phase/TN (#60): at the foe's time to declare the fight card shows its
best plans (what it declares, the chance to hit against the TN, the expected wounds and why), and Do it sends the
best one's declaration through the rules: the log says what the Orc declares, and the turn to declare passes."""

from __future__ import annotations

from playwright.sync_api import expect

from test_foe_plans_live import _fight


def test_the_gm_declares_a_phase_tn_foes_best_plan_with_do_it(server, new_page, shot):
    g, ids = _fight(server, "phase_tn")
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    plans = gm.locator("#foe-plans .plan")
    expect(plans.first).to_be_visible(timeout=15000)
    assert 1 <= plans.count() <= 3
    expect(plans.first.locator(".plan-odds")).to_contain_text("to hit")
    expect(plans.first.locator(".plan-why")).to_contain_text("TN 8")
    gm.locator("#foe-plans").scroll_into_view_if_needed()
    shot(gm, "foe-plans-phase_tn")
    summary = plans.first.locator(".plan-summary").inner_text()
    plans.first.locator("button[data-do-plan]").click()
    for _ in range(50):
        _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
        declared = any("Orc declares" in e["text"] and "Ann" in e["text"] for e in state["log"][-8:])
        if declared:
            break
        gm.wait_for_timeout(200)
    assert declared, (summary, [e["text"] for e in state["log"][-8:]])
    assert state["combat"]["current"] != ids["Orc"]  # declared: the next declarer's turn, or the phase resolves
    expect(gm.locator("#log")).to_contain_text("Orc declares", timeout=15000)
    shot(gm, "foe-plans-phase_tn-done")
