"""The GM's foes' plans on the GM page (#60): on a foe's turn the fight card shows its best plans (each with its
chance to hit, its expected effect and why), and Do it plays the best one: its steps sent in order and accepted,
the foe moved and its attack in the log. A tactic set from the card changes the plans. In the 3d6 system and in
Savage Worlds."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from test_accessibility import Findings, heading_skips


def _fight(server, system: str):
    status, g = server.api("POST", "/api/games", {"name": "Foes", "system": system,
                                                  "map": {"width": 16, "height": 10}})
    assert status == 201, g
    _, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    ids = {}
    for name, x, y, owner in (("Ann", 3, 4, mira["player_id"]), ("Orc", 9, 5, None)):
        status, body = server.api("POST", f"/api/games/{g['id']}/tokens",
                                  {"name": name, "x": x, "y": y, "owner": owner, **({"kind": "pc"} if owner else {})},
                                  g["gm_token"])
        assert status == 201, body
        ids[name] = body["id"]
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands",
                           {"type": "start_combat", "token_ids": list(ids.values())}, g["gm_token"])
    assert status == 200
    for _ in range(6):
        _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
        if state["combat"]["current"] == ids["Orc"]:
            break
        server.api("POST", f"/api/games/{g['id']}/commands", {"type": "next_turn"}, g["gm_token"])
    return g, ids


@pytest.mark.parametrize("system", ["gurps_lite", "savage_worlds"])
def test_the_gm_plays_a_foes_best_plan_with_do_it(server, new_page, shot, system):
    g, ids = _fight(server, system)
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    plans = gm.locator("#foe-plans .plan")
    expect(plans.first).to_be_visible(timeout=15000)
    assert 1 <= plans.count() <= 3
    expect(plans.first.locator(".plan-odds")).to_contain_text("to hit")
    expect(plans.first.locator(".plan-why")).not_to_be_empty()
    gm.locator("#foe-plans").scroll_into_view_if_needed()
    shot(gm, f"foe-plans-{system}")
    found = Findings()  # usable by everyone: axe-core's WCAG 2.1 A and AA rules, and no heading level skipped
    found.axe(gm, f"GM page, the foe's plans shown ({system})")
    found.check("heading levels", heading_skips(gm), "GM page, the foe's plans")
    found.assert_none()
    summary = plans.first.locator(".plan-summary").inner_text()
    plans.first.locator("button[data-do-plan]").click()
    # the plan played: the Orc beside Ann or in reach of her, its attack in the GM's log
    expect(gm.locator("#log")).to_contain_text("Orc", timeout=15000)
    for _ in range(50):
        _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
        # the attack rolled (its log line has the attack's detail: a critical failure's words need not name Ann),
        # or waiting for Ann's defense
        attacked = (state.get("pending_defense") or {}).get("target_id") == ids["Ann"] or any(
            (e.get("detail") or {}).get("attack") and "Orc" in e["text"] for e in state["log"][-6:])
        if attacked:
            break
        gm.wait_for_timeout(200)
    assert attacked, (summary, state["log"][-6:])
    shot(gm, f"foe-plans-{system}-done")
    # a careful tactic from the card: the plans follow it
    for _ in range(50):  # (chosen again if a live update drew the card anew between the choice and the click)
        if gm.locator("#foe-plans .foe-tactic select").input_value() != "careful":
            gm.locator("#foe-plans .foe-tactic select").select_option("careful")
            gm.locator("#foe-plans .foe-tactic button").click()
        _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
        if state.get("tactics", {}).get(ids["Orc"], {}).get("tactic") == "careful":
            break
        gm.wait_for_timeout(200)
    assert state["tactics"][ids["Orc"]]["tactic"] == "careful"


def test_a_plan_the_table_moved_past_is_refused_and_says_why(server, new_page, shot):
    """A plan's steps go with the seq it was reckoned on (#67): a page that has not heard of the table's change yet
    (its update still on the way: the page's live updates are cut here) sends the old plan's Do it, and the server
    refuses its first step as out of date; the plan stops there, says why, nothing of it is played, and the card asks
for the plans of the turn as it is now."""
    g, ids = _fight(server, "gurps_lite")
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    plan = gm.locator("#foe-plans .plan").first
    expect(plan).to_be_visible(timeout=15000)
    _, before = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
    gm.evaluate("() => window.tacmap.socket.off('update')")  # the page hears of no change from now on
    # meanwhile the GM picks the Orc's maneuver by hand (another screen of the GM's): the plan is out of date
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands",
                           {"type": "act", "token_id": ids["Orc"], "action": "aim"}, g["gm_token"])
    assert status == 200
    gm.wait_for_timeout(500)
    plan = gm.locator("#foe-plans .plan").first
    expect(plan).to_be_visible()
    plan.locator("button[data-do-plan]").click()
    expect(gm.locator("#flash")).to_contain_text("this plan is out of date", timeout=10000)
    shot(gm, "foe-plans-refused")
    _, after = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
    orc = lambda s: next((t["x"], t["y"]) for t in s["tokens"] if t["id"] == ids["Orc"])  # noqa: E731
    assert orc(after) == orc(before)  # stopped: no move, no attack after the refused step
    assert after["seq"] == before["seq"] + 1  # the GM's Aim alone
    assert not any("Orc" in e["text"] and "Ann" in e["text"] for e in after["log"])
    # and the card asked again: the plans of the turn as it is now
    expect(gm.locator("#foe-plans .foe-plans-body")).to_have_attribute("data-seq", str(after["seq"]), timeout=10000)
