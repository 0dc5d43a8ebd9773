"""The GM's foes (#60) over the JSON API and on the GM page while the foe's attack waits for the player's defense: the
attack is not booked until the defense is rolled, so the plans are none and the answer says what they wait for
(``waiting``), the GM page's plans say it where the plans would be (no Do it); once the player has answered, the
plans are those of the rest of the turn, without the same attack again. Still the GM's alone."""

from __future__ import annotations

import pytest

from tests.app.test_suggestions_api import _two_against_two, _to_the_orcs_turn
from tests.helpers import bearer, command, state


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
def test_while_the_foes_attack_waits_for_a_defense_the_plans_say_so_and_come_back_once_it_is_answered(app, client):
    g, mira, ids = _two_against_two(client, "gurps_lite")
    _to_the_orcs_turn(client, g, ids)
    url = f"/api/games/{g['id']}/suggestions/{ids['Orc']}"
    gm = bearer(g["gm_token"])
    found = client.get(url, headers=gm).json
    plan = next(p for p in found["plans"] if p["target"] in (ids["Ann"], ids["Bob"]))
    for step in plan["steps"]:  # the GM's Do it: each step sent in order
        assert command(client, g, step).status_code == 200
    waits = state(client, g)["pending_defense"]
    assert waits and waits["target_id"] == plan["target"]  # the attack waits for Mira's choice
    target = "Ann" if plan["target"] == ids["Ann"] else "Bob"
    game = app.extensions["tacmap"].game(g["id"])
    seq = game.seq
    r = client.get(url, headers=gm)
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.json["plans"] == [] and r.json["now"] is True and r.json["tactic"] == "fierce"
    assert r.json["waiting"] == f"Orc's attack waits for {target}'s defense"
    assert game.seq == seq  # nothing changed
    for key in (mira["player_token"], g["screen_token"]):  # the GM's alone, waiting or not
        assert client.get(url, headers=bearer(key)).status_code == 403
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True)  # the GM's page: the GM seated
    html = client.get(f"/games/{g['id']}/foe-plans/{ids['Orc']}").get_data(as_text=True)
    assert "foe-plans-waiting" in html and f"Orc&#39;s attack waits for {target}&#39;s defense" in html
    assert "data-do-plan" not in html and 'class="plan' not in html
    choice = next(c["key"] for c in waits["choices"] if c["available"] and c["key"] != "none")
    assert command(client, g, {"type": "choose_defense", "defense": choice}, key=mira["player_token"]).status_code == 200
    assert not state(client, g)["pending_defense"]
    after = client.get(url, headers=gm).json
    assert "waiting" not in after
    attack = plan["steps"][-1]
    assert all(p["steps"][-1] != attack for p in after["plans"])  # the maneuver's one attack is spent
    assert command(client, g, attack).status_code == 422  # as the rules have it
    html = client.get(f"/games/{g['id']}/foe-plans/{ids['Orc']}").get_data(as_text=True)
    assert "foe-plans-waiting" not in html
