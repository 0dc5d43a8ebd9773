"""Savage Worlds, a Soak offer left unanswered (#58): a Soak roll is made when the Wounds are taken, so the
offer does not outlive the turn. Next turn waits for it, as for a waiting defense (saying whose); End fight
withdraws it (the Wounds stand, said in the log), the GM's prompt goes, and an answer to it is refused."""

from __future__ import annotations

import re

import pytest

from tests.helpers import bearer, command, connect, join, new_game, state

from test_turn_views import page

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")


def soak_prompt(html: str) -> str:
    return re.search(r'<section id="soak-prompt".*?</section>', html, re.S).group(0)


def test_a_soak_offer_holds_next_turn_and_ends_with_the_fight(app, client):
    g = new_game(client, "savage_worlds", {"width": 12, "height": 8}, name="Soak")
    mira = join(client, g, "Mira")
    ids = {}
    for name, x, owner in (("Hero", 2, mira["player_id"]), ("Brute", 3, None)):
        body = {"name": name, "x": x, "y": 2, **({"owner": owner, "kind": "pc"} if owner else {})}
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    offer = None
    for _ in range(60):  # the rounds go by until Hero's attack wounds the Brute (from round 3)
        fight = state(client, g)["combat"]
        if fight["round"] >= 3 and fight["current"] == ids["Hero"]:
            r = command(client, g, {"type": "attack", "attacker": ids["Hero"], "target": ids["Brute"],
                                    "weapon": "Long sword", "options": {"wild_attack": True}}, mira["player_token"])
            assert r.status_code == 200, r.json
            offers = (state(client, g).get("pending_soak") or {}).get("offers") or []
            if offers:
                offer = offers[0]
                break
        r = command(client, g, {"type": "next_turn"})
        assert r.status_code == 200, r.json
    assert offer and offer["target_id"] == ids["Brute"] and offer["npc"], offer
    assert "Spend a Benny and soak" in soak_prompt(page(client, g, "gm", g["gm_token"]))

    # the GM does not answer: Next turn waits for the Soak roll, saying whose
    r = command(client, g, {"type": "next_turn"})
    assert r.status_code == 422 and "Brute has not answered the Soak roll yet" in r.json["error"], r.json
    r = command(client, g, {"type": "next_turn"}, mira["player_token"])
    assert r.status_code == 422 and "answered the Soak roll yet" in r.json["error"], r.json  # Mira may see Brute

    # End fight withdraws it: the Wounds stand, the log says so, the GM's prompt is gone (live and on a new page)
    live = connect(app, g["id"], g["gm_token"])
    assert live.is_connected()
    live.get_received()
    sheet = next(t for t in state(client, g)["tokens"] if t["id"] == ids["Brute"])["sheet"]
    r = command(client, g, {"type": "end_combat"})
    assert r.status_code == 200, r.json
    after = state(client, g)
    assert after["combat"] is None and after.get("pending_soak") is None
    assert next(t for t in after["tokens"] if t["id"] == ids["Brute"])["sheet"] == sheet
    assert any("Brute takes the Wounds (no Soak roll: the fight ended)" in e["text"] for e in after["log"])
    pushed = "".join(m["args"][0]["html"] for m in live.get_received() if m["name"] == "update")
    assert re.search(r'<section id="soak-prompt"[^>]* hidden', pushed), pushed[:2000]
    assert "Spend a Benny and soak" not in pushed
    html = soak_prompt(page(client, g, "gm", g["gm_token"]))
    assert "Spend a Benny and soak" not in html and "soak?" not in html.lower()

    # an answer to the stale offer is refused, clearly, and changes nothing
    r = command(client, g, {"type": "soak", "accept": True, "token_id": ids["Brute"]})
    assert r.status_code == 422, r.json
    assert r.json["error"] == "no Soak roll is waiting for Brute: it was answered, or the fight ended"
    r = command(client, g, {"type": "soak", "accept": True})
    assert r.status_code == 422 and "no Soak roll is waiting" in r.json["error"]
    assert state(client, g)["log"] == after["log"]
