"""Fresh plans (#67): a foe's plans carry the game's seq they were reckoned on (the JSON API's ``seq``, the GM card's
``data-seq``); a plan's step sent with it (``reckoned_at``) is played only on that very state. After the GM plays
part of the foe's turn by hand, the old plans' step is refused with a clear "out of date" (code ``stale``) and
nothing changes; the plans asked again are the turn's as it is now, with the new seq, and their step is taken.
The runner that plays the foes sends its steps the same way: a step gone stale is reckoned again, never a reason
to stop."""

from __future__ import annotations

import re

import pytest

from tests.helpers import bearer, command, state
from tests.app.test_play_the_foes import FAST, _two_against_two, _on, _until

SEEDED = pytest.mark.app_config(DEMO=False, DICE_SEED="11")


def _to_the_orcs_turn(client, g, ids):
    for _ in range(6):
        if state(client, g)["combat"]["current"] == ids["Orc"]:
            return
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    raise AssertionError("never the Orc's turn")


def _plans(client, g, token_id):
    r = client.get(f"/api/games/{g['id']}/suggestions/{token_id}", headers=bearer(g["gm_token"]))
    assert r.status_code == 200, r.json
    return r.json


@SEEDED
def test_plans_reckoned_before_the_gms_hand_are_refused_and_fresh_ones_are_played(app, client):
    g, _mira, ids = _two_against_two(client)
    _to_the_orcs_turn(client, g, ids)
    before = state(client, g)["seq"]
    old = _plans(client, g, ids["Orc"])
    assert old["seq"] == before and old["plans"], old
    step = old["plans"][0]["steps"][0]
    # the GM's card says the same seq
    client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True)  # the GM's page: its session
    html = client.get(f"/games/{g['id']}/foe-plans/{ids['Orc']}").get_data(as_text=True)
    assert f'data-seq="{before}"' in html
    # the GM plays part of the Orc's turn by hand: a maneuver of its own, not the plan's
    assert step["type"] == "act" and step["action"] != "move_and_attack", step
    r = command(client, g, {"type": "act", "token_id": ids["Orc"], "action": "move_and_attack", "options": {}})
    assert r.status_code == 200, r.json
    after = state(client, g)
    assert after["seq"] > before
    # the old plan's step, sent as reckoned, is refused and says why; nothing changes
    r = command(client, g, {**step, "reckoned_at": old["seq"]})
    assert r.status_code == 422, r.json
    assert "out of date" in r.json["error"] and "changed since it was reckoned" in r.json["error"], r.json
    assert state(client, g)["seq"] == after["seq"]
    # asked again: the plans of the turn as it is now, the maneuver chosen
    fresh = _plans(client, g, ids["Orc"])
    assert fresh["seq"] == after["seq"] and fresh["plans"], fresh
    assert all(s["type"] != "act" for p in fresh["plans"] for s in p["steps"]), fresh["plans"]
    html = client.get(f"/games/{g['id']}/foe-plans/{ids['Orc']}").get_data(as_text=True)
    assert f'data-seq="{after["seq"]}"' in html and f'data-seq="{before}"' not in html
    steps = fresh["plans"][0]["steps"]
    r = command(client, g, {**steps[0], "reckoned_at": fresh["seq"]})
    assert r.status_code == 200, r.json
    for more in steps[1:]:  # each next step on the state the one before left
        r = command(client, g, {**more, "reckoned_at": r.json["seq"]})
        assert r.status_code == 200, r.json
    # a bad seq is said so, and a step without one is judged as ever
    r = command(client, g, {"type": "next_turn", "reckoned_at": "soon"})
    assert r.status_code == 422 and "reckoned_at" in r.json["error"]


@SEEDED
def test_the_socket_answer_names_a_stale_step(app, client):
    from tests.helpers import connect
    g, _mira, ids = _two_against_two(client)
    _to_the_orcs_turn(client, g, ids)
    old = _plans(client, g, ids["Orc"])
    r = command(client, g, {"type": "act", "token_id": ids["Orc"], "action": "move_and_attack", "options": {}})
    assert r.status_code == 200, r.json
    gm = connect(app, g["id"], g["gm_token"])
    ack = gm.emit("command", {**old["plans"][0]["steps"][0], "reckoned_at": old["seq"]}, callback=True)
    assert ack["ok"] is False and ack["code"] == "stale" and "out of date" in ack["error"], ack


@FAST
def test_the_runner_reckons_again_when_its_plan_went_stale(app, client, monkeypatch):
    """A step of the runner's plan refused as stale (something happened between the reckoning and the step) does
    not turn the switch off: the turn is reckoned again and played."""
    from webapp.live.foes import suggesting
    g, mira, ids = _two_against_two(client)
    _to_the_orcs_turn(client, g, ids)
    real, calls = suggesting.plans, []

    def older(game, token_id, language=None, said=True, by=None):  # the first plans as if reckoned a step ago
        found = real(game, token_id, language, said, by=by)
        calls.append(found["seq"])
        return {**found, "seq": found["seq"] - 1} if len(calls) == 1 else found

    monkeypatch.setattr(suggesting, "plans", older)
    _on(client, g)
    _until(lambda: state(client, g)["combat"]["current"] != ids["Orc"] or state(client, g)["pending_defense"])
    s = state(client, g)
    assert s["foe_play"]["on"] is True, s["foe_play"]
    assert len(calls) >= 2  # reckoned again after the stale step
    assert not any(re.search("refused", e["text"]) for e in s["log"][-6:])
