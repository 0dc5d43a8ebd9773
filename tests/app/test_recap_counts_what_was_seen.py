"""The recap counts what its reader saw (#57, #58): a player's, another player's, the table screen's and the GM's
recap each count the moves, rolls and attacks that audience saw live, leave out the fights it saw nothing of, and
the GM's secret rolls reach neither a player's nor the table screen's recap or state."""

from __future__ import annotations

import re

import pytest

from tests.helpers import bearer, command as send, join, new_game, state

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def told(client, g, key, role) -> dict:
    """What the recap page says to ``key`` (as ``role``): each session's counts and its fights' headings."""
    r = client.get(f"/games/{g['id']}/recap", query_string={"as": role}, headers=bearer(key))
    assert r.status_code == 200, r.data[:300]
    html = r.get_data(as_text=True)
    counts = [tuple(int(n) for n in m) for m in
              re.findall(r"(\d+) fights?, (\d+) moves?, (\d+) rolls?\.", html)]
    fights = re.findall(r"<h3>(Fight \d+: [^<]*)</h3>", html)
    attacks = [int(n) for n in re.findall(r"\d+ rounds?, (\d+) attacks?", html)]
    return {"counts": counts, "fights": fights, "attacks": attacks, "html": html}


def test_each_seat_recap_counts_the_moves_rolls_attacks_and_fights_it_saw(app):
    client = app.test_client()
    # a wall down the middle: Mira's Hero and the Bandit on the left, Olaf's Scout on the right; two hidden foes
    g = new_game(client, "savage_worlds", {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 8]}]}, name="Keep")
    mira, olaf = join(client, g, "Mira"), join(client, g, "Olaf")
    gm = bearer(g["gm_token"])
    ids = {}
    for name, x, y, extra in (("Hero", 1, 2, {"owner": mira["player_id"], "kind": "pc"}), ("Bandit", 2, 2, {}),
                              ("Scout", 9, 2, {"owner": olaf["player_id"], "kind": "pc"}),
                              ("Ghost", 2, 6, {"hidden": True}), ("Wraith", 3, 6, {"hidden": True})):
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, **extra}, headers=gm)
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    assert send(client, g, {"type": "set_fog", "enabled": True}).status_code == 200

    def ok(body, key=None):
        r = send(client, g, body, key)
        assert r.status_code == 200, (body, r.json)
        return r.json

    # rolls: Mira one open and one secret, Olaf two secret, the GM one open and two secret
    ok({"type": "roll", "expr": "1d20"}, mira["player_token"])
    ok({"type": "roll", "expr": "1d20", "secret": True}, mira["player_token"])
    ok({"type": "roll", "expr": "1d6", "secret": True}, olaf["player_token"])
    ok({"type": "roll", "expr": "1d6", "secret": True}, olaf["player_token"])
    ok({"type": "roll", "expr": "2d6"})
    secret = [ok({"type": "roll", "expr": f"{n}d100", "secret": True}) for n in (7, 9)]
    # moves: the Hero twice (Mira's side), the Scout once (Olaf's side), the hidden Ghost once
    ok({"type": "move_token", "token_id": ids["Hero"], "x": 1, "y": 3}, mira["player_token"])
    ok({"type": "move_token", "token_id": ids["Hero"], "x": 2, "y": 3}, mira["player_token"])
    ok({"type": "move_token", "token_id": ids["Scout"], "x": 10, "y": 2}, olaf["player_token"])
    ok({"type": "move_token", "token_id": ids["Ghost"], "x": 2, "y": 5})
    # a fight between the hidden foes nobody at the table could see, then the Hero's fight with the Bandit
    ok({"type": "start_combat", "token_ids": [ids["Ghost"], ids["Wraith"]]})
    ok({"type": "attack", "attacker": ids["Ghost"], "target": ids["Wraith"], "force": True})
    ok({"type": "attack", "attacker": ids["Wraith"], "target": ids["Ghost"], "force": True})
    ok({"type": "end_combat"})
    ok({"type": "start_combat", "token_ids": [ids["Hero"], ids["Bandit"]]})
    ok({"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"], "force": True})
    ok({"type": "end_combat"})

    gm_told = told(client, g, g["gm_token"], "gm")
    assert gm_told["counts"] == [(2, 4, 7)] and gm_told["attacks"] == [2, 1]  # the GM: everything
    mine = told(client, g, mira["player_token"], "player")
    assert mine["counts"] == [(1, 2, 3)], mine["counts"]  # her two moves; her two rolls and the GM's open one
    assert mine["attacks"] == [1] and mine["fights"] == ["Fight 1: Hero fought Bandit"]
    theirs = told(client, g, olaf["player_token"], "player")
    assert theirs["counts"] == [(0, 1, 4)], theirs["counts"]  # the Scout's move; Mira's, the GM's open roll, his two
    assert theirs["fights"] == []  # the Hero's fight was behind the wall
    screen = told(client, g, g["screen_token"], "screen")
    assert screen["counts"] == [(1, 3, 2)], screen["counts"]  # the players' tokens' moves; the two open rolls
    assert screen["fights"] == ["Fight 1: Hero fought Bandit"] and screen["attacks"] == [1]
    for seen in (mine, theirs, screen):
        assert "nobody here could see" not in seen["html"] and "Ghost" not in seen["html"]

    # the GM's secret rolls are in no state a player or the table screen is sent
    for key in (mira["player_token"], olaf["player_token"], g["screen_token"]):
        sent = state(client, g, key)
        assert not [e for e in sent["log"] if e["seq"] in {s["seq"] for s in secret}]
        assert not [e for e in sent["log"] if "100" in e["text"]], [e["text"] for e in sent["log"]]
    assert [e for e in state(client, g)["log"] if e["seq"] in {s["seq"] for s in secret}]  # the GM's has them
