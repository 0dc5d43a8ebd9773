"""A Tesseris foe's plans on the GM page (#60): on the foe's turn the fight card shows its plans in Tesseris terms
(ticks, expected Wounds, the defense Ann makes), and Do it plays the best one through the page: its steps (Aim,
the move, the attack) sent in order and accepted, the foe on the plan's square, its Aim paid in ticks and its
attack on Ann in the log (put to her defense, which a player chooses)."""

from __future__ import annotations

from playwright.sync_api import expect

from test_foe_plans_live import _fight


def test_the_gm_plays_a_tesseris_foes_best_plan_with_do_it(server, new_page, shot):
    g, ids = _fight(server, "tesseris_ads")
    status, found = server.api("GET", f"/api/games/{g['id']}/suggestions/{ids['Orc']}", None, g["gm_token"])
    assert status == 200 and found["plans"], found
    best = found["plans"][0]
    assert best["target"] == ids["Ann"] and "Wounds" in best["effect_unit"]
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    plans = gm.locator("#foe-plans .plan")
    expect(plans.first).to_be_visible(timeout=15000)
    expect(plans.first.locator(".plan-summary")).to_contain_text("ticks")
    expect(plans.first.locator(".plan-odds")).to_contain_text("Wounds")
    gm.locator("#foe-plans").scroll_into_view_if_needed()
    shot(gm, "foe-plans-tesseris")
    _, before = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
    plans.first.locator("button[data-do-plan]").click()
    for _ in range(75):
        _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
        new = [e["text"] for e in state["log"][len(before["log"]):]]
        orc = next(t for t in state["tokens"] if t["id"] == ids["Orc"])
        if (orc["x"], orc["y"]) == tuple(best["to"]) and any("Ann" in t and "Orc" in t for t in new):
            break
        gm.wait_for_timeout(200)
    assert (orc["x"], orc["y"]) == tuple(best["to"]), new
    assert any("Ann" in t and "Orc" in t for t in new), new  # the attack on Ann, after the plan was played
    for step in best["steps"]:
        if step["type"] == "act":  # the action before the move (Aim): paid in ticks, in the log
            assert any("Orc" in t and "tick" in t for t in new), new
    gm.wait_for_timeout(500)
    shot(gm, "foe-plans-tesseris-done")
