"""Fresh plans on the GM page (#67): on the Orc's turn (3d6) the card shows its plans, reckoned on the game's seq
then (data-seq). The GM picks another maneuver for it by hand (as from the fight card): the card does not keep the
old plans, it asks again and shows those of the turn as it is now (no maneuver step any more, the new seq), and
their Do it plays the rest of the turn: every step accepted. Until the fresh plans come, the old ones have no Do it:
the card says they are out of date."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from test_foe_plans_live import _fight


def _seq(server, g):
    _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
    return state["seq"], state


def test_the_card_asks_again_after_the_gms_hand_and_do_it_plays_the_fresh_plan(server, new_page, shot):
    g, ids = _fight(server, "gurps_lite")
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    plans = gm.locator("#foe-plans .plan")
    expect(plans.first).to_be_visible(timeout=15000)
    before, _ = _seq(server, g)
    body = gm.locator("#foe-plans .foe-plans-body")
    expect(body).to_have_attribute("data-seq", str(before))
    steps = json.loads(plans.first.locator("button[data-do-plan]").get_attribute("data-steps"))
    assert steps[0]["type"] == "act" and steps[0]["action"] != "move_and_attack", steps
    # the plans asked from now on are held back a while: the old ones stay on screen meanwhile
    held, holding = [], [True]
    gm.route("**/foe-plans/**", lambda route: held.append(route) if holding[0] else route.continue_())
    status, answer = server.api("POST", f"/api/games/{g['id']}/commands",
                                {"type": "act", "token_id": ids["Orc"], "action": "move_and_attack", "options": {}},
                                g["gm_token"])
    assert status == 200, answer  # the GM's hand (over the API here, as from another of the GM's screens)
    # the old plans lose their Do it at once: out of date, fresh ones being reckoned
    expect(plans.first.locator("button[data-do-plan]")).to_be_disabled(timeout=10000)
    expect(plans.first.locator(".plan-status")).to_contain_text("Out of date")
    shot(gm, "fresh-plans-out-of-date")
    for _ in range(50):
        if held:
            break
        gm.wait_for_timeout(100)
    assert held, "the card did not ask again"
    holding[0] = False
    for route in held:
        route.continue_()
    after, _ = _seq(server, g)
    # the card asks again: the plans of the turn as it is now, the maneuver chosen
    expect(body).to_have_attribute("data-seq", str(after), timeout=15000)
    expect(plans.first).to_be_visible()
    fresh = json.loads(plans.first.locator("button[data-do-plan]").get_attribute("data-steps"))
    assert all(s["type"] != "act" for s in fresh), fresh
    shot(gm, "fresh-plans-after-the-gms-hand")
    plans.first.locator("button[data-do-plan]").click()
    for _ in range(60):
        seq, state = _seq(server, g)
        done = seq >= after + len(fresh) or state.get("pending_defense")
        if done:
            break
        gm.wait_for_timeout(200)
    assert done, [e["text"] for e in state["log"][-6:]]
    assert not any("out of date" in e["text"] for e in state["log"][-6:])
    expect(gm.locator("#log")).to_contain_text("Orc", timeout=10000)
