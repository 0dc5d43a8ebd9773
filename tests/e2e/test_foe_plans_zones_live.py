"""The GM's foes' plans on a zone map (#60), in Atomic Tomorrow: on a foe's turn the GM page's fight card shows its
plans in zones (the zone it moves to and shoots from, by name; no square), and Do it plays the best: its move to
the zone and its attack, accepted."""

from __future__ import annotations

import re

from playwright.sync_api import expect

ZONES = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay", "catwalk"]},
         {"id": "bay", "name": "Cargo Bay", "adjacent": ["catwalk"], "cover": "good"},
         {"id": "catwalk", "name": "Catwalk", "adjacent": ["tower"], "cover": "partial"},
         {"id": "tower", "name": "Control Tower", "cover": "excellent"}]
NAMES = {z["id"]: z["name"] for z in ZONES}


def _fight(server):
    status, g = server.api("POST", "/api/games", {"name": "Rocket-port", "system": "atomic_tomorrow",
                                                  "map": {"zones": ZONES}})
    assert status == 201, g
    _, mira = server.api("POST", f"/api/games/{g['id']}/players", {"join_code": g["join_code"], "name": "Mira"})
    ids = {}
    for name, zone, owner in (("Ann", "pad", mira["player_id"]), ("Orc", "tower", None)):
        status, body = server.api("POST", f"/api/games/{g['id']}/tokens",
                                  {"name": name, "zone": zone, "owner": owner, **({"kind": "pc"} if owner else {})},
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


def test_the_gm_sees_a_foes_plans_in_zones_and_plays_the_best(server, new_page, shot):
    g, ids = _fight(server)
    _, found = server.api("GET", f"/api/games/{g['id']}/suggestions/{ids['Orc']}", None, g["gm_token"])
    best = found["plans"][0]
    # Ann is on the Landing Pad, two zones from the tower: the Orc's pistol reaches her from the Catwalk
    assert best["to"] == "catwalk" and best["target"] == ids["Ann"]
    gm = new_page()
    gm.goto(g["urls"]["gm"])
    plans = gm.locator("#foe-plans .plan")
    expect(plans.first).to_be_visible(timeout=15000)
    gm.locator("#foe-plans").scroll_into_view_if_needed()
    shot(gm, "foe-plans-atomic-tomorrow-zones")
    for i in range(plans.count()):
        summary = plans.nth(i).locator(".plan-summary").inner_text()
        assert any(name in summary for name in NAMES.values()), summary  # the zone by its name...
        assert not re.search(r"\b[A-Z]{1,2}\d+\b|\(\d+, \d+\)", summary), summary  # ...never a square
    expect(plans.first.locator(".plan-summary")).to_contain_text("Catwalk")
    expect(plans.first.locator(".plan-odds")).to_contain_text("to hit")
    expect(plans.first.locator(".plan-why")).to_contain_text("Ann")
    plans.first.locator("button[data-do-plan]").click()
    for _ in range(50):
        _, state = server.api("GET", f"/api/games/{g['id']}/state", None, g["gm_token"])
        orc = next(t for t in state["tokens"] if t["id"] == ids["Orc"])
        # the attack made: waiting for Ann's defense (Atomic Tomorrow's defenses are the defender's choice)
        attacked = (state.get("pending_defense") or {}).get("target_id") == ids["Ann"]
        if orc["zone"] == "catwalk" and attacked:
            break
        gm.wait_for_timeout(200)
    assert orc["zone"] == "catwalk" and attacked, state["log"][-6:]
    # while the attack waits for its answer the card offers nothing, and says so
    expect(gm.locator("#foe-plans .foe-plans-waiting")).to_contain_text("Ann", timeout=15000)
    expect(gm.locator("#foe-plans .plan")).to_have_count(0)
    shot(gm, "foe-plans-atomic-tomorrow-zones-done")
    status, _ = server.api("POST", f"/api/games/{g['id']}/commands", {
        "type": "choose_defense", "defense": "none", "attack": state["pending_defense"]["id"]}, g["gm_token"])
    assert status == 200
    # answered: the plans are asked again for what is left of the turn: the move and the attack are spent
    expect(gm.locator("#foe-plans .foe-plans-waiting")).to_have_count(0, timeout=15000)
    expect(gm.locator("#foe-plans .plans")).to_be_visible()
    expect(gm.locator("#foe-plans .plans")).not_to_contain_text("to Catwalk")
