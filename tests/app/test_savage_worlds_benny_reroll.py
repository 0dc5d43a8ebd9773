"""Savage Worlds: a Benny reroll after a missed attack (#33), through the protocol. Savage Worlds core
rules, Bennies (the combat reference assumes them): a Wild Card spends a Benny to reroll a trait roll
and the better total counts; a Critical Failure is not rerolled. The offer is the attacker's player's
(the GM's for anyone), right after the miss and until the game moves on; the reroll is an event with
its dice, and Undo takes it back."""

from __future__ import annotations

import pytest

import rules
from test_gurps_lite_table_choices import send, state
from tests.helpers import bearer, join, new_game
from webapp import create_app
from webapp.live.server import throttle

S = rules.get("savage_worlds")


@pytest.fixture
def client(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                      "DICE_SEED": "31"})
    app.extensions["tacmap"].seats = throttle.Seats(rate=1000.0, burst=1000)
    return app.test_client()


def table(client, bennies=3):
    g = new_game(client, "savage_worlds", {"width": 10, "height": 6}, name="Bennies")
    p = join(client, g, "Mira")
    ids = {}
    for name, (x, y), owner in (("Ann", (2, 2), p["player_id"]), ("Bob", (3, 2), None)):
        body = {"name": name, "x": x, "y": y, "kind": "pc" if owner else "npc"} | ({"owner": owner} if owner else {})
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    ann = S.default_sheet()
    ann["skills"] = {**ann["skills"], "fighting": "d4"}  # she misses Bob's Parry 6 often
    ann["bennies"] = bennies
    r = send(client, g, {"type": "add_character", "name": "Ann", "token_id": ids["Ann"], "owner": p["player_id"],
                         "sheet": ann})
    assert r.status_code == 200, r.json
    return g, p, ids


def sheet(client, g, token_id):
    return next(c["sheet"] for c in state(client, g)["characters"] if c["token_id"] == token_id)


def miss(client, g, p, ids) -> dict:
    """Ann attacks Bob until she misses (seeded dice); the log entry of the miss."""
    for _ in range(30):
        r = send(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Bob"], "weapon": "Long sword"},
                 p["player_token"])
        assert r.status_code == 200, r.json
        entry = [e for e in state(client, g)["log"] if (e.get("detail") or {}).get("attack")][-1]
        result = entry["detail"]["attack"]
        if not result["hit"] and not result["details"]["critical_failure"]:
            return entry
        assert state(client, g, p["player_token"])["pending_reroll"] is None  # a hit (or a critical failure): none
    raise AssertionError("Ann never missed")


def test_a_missed_attack_offers_a_benny_reroll_that_counts_the_better_total_and_undo_takes_back(client):
    g, p, ids = table(client)
    first = miss(client, g, p, ids)
    best = max(s["total"] for s in first["detail"]["attack"]["details"]["shots"])
    offer = state(client, g, p["player_token"])["pending_reroll"]
    assert offer == {"attacker_id": ids["Ann"], "attacker": "Ann", "best": best, "bennies": 3, "npc": False,
                     "gm": False}
    assert state(client, g, g["screen_token"]).get("pending_reroll") is None  # the table screen is not asked
    assert send(client, g, {"type": "benny_reroll", "accept": True}, g["screen_token"]).status_code in (403, 422)
    bennies_before = sheet(client, g, ids["Ann"]).get("bennies")
    r = send(client, g, {"type": "benny_reroll", "accept": True}, p["player_token"])
    assert r.status_code == 200, r.json
    after = state(client, g)
    assert sheet(client, g, ids["Ann"])["bennies"] == bennies_before - 1 == 2
    assert after["pending_reroll"] is None
    line = next(e["text"] for e in reversed(after["log"]) if "spends a Benny" in e["text"])
    assert line.startswith(f"Ann spends a Benny to reroll the attack: best {best}, then ")
    second = int(line.split("then ")[1].split(":")[0])
    if second > best:  # the reroll counts: it is the attack now
        assert "the reroll counts" in line
        assert after["log"][-1]["detail"]["attack"]["details"]["shots"]
    else:
        assert "the first roll stands" in line
    # nothing to reroll twice
    r = send(client, g, {"type": "benny_reroll", "accept": True}, p["player_token"])
    assert r.status_code == 422 and "no reroll is offered" in r.json["error"]
    # Undo: the Benny is back and so is the offer
    assert send(client, g, {"type": "undo"}).status_code == 200
    assert sheet(client, g, ids["Ann"]).get("bennies") == bennies_before
    assert state(client, g, p["player_token"])["pending_reroll"]["best"] == best
    # keeping the roll spends nothing
    assert send(client, g, {"type": "benny_reroll", "accept": False}, p["player_token"]).status_code == 200
    assert sheet(client, g, ids["Ann"]).get("bennies") == bennies_before
    assert "Ann keeps the roll (no Benny spent)" in [e["text"] for e in state(client, g)["log"]]


def test_the_offer_goes_when_the_game_moves_on_and_needs_a_benny(client):
    g, p, ids = table(client)
    miss(client, g, p, ids)
    assert state(client, g, p["player_token"])["pending_reroll"] is not None
    r = send(client, g, {"type": "move_token", "token_id": ids["Ann"], "x": 2, "y": 3}, p["player_token"])
    assert r.status_code == 200, r.json
    assert state(client, g, p["player_token"])["pending_reroll"] is None
    r = send(client, g, {"type": "benny_reroll", "accept": True}, p["player_token"])
    assert r.status_code == 422
    g, p, ids = table(client, bennies=0)
    miss(client, g, p, ids)
    assert state(client, g, p["player_token"])["pending_reroll"] is None
    assert state(client, g)["pending_reroll"] is None


def test_the_rules_reroll_only_a_wild_cards_miss_and_the_better_total_counts():
    from rules.system import AttackResult, Effect
    miss_ = AttackResult(False, "miss", details={"shots": [{"total": 3}], "critical_failure": False})
    assert S.reroll_offer({"wild_card": True, "bennies": 2}, miss_, "a") == {"best": 3, "bennies": 2}
    assert S.reroll_offer({"wild_card": False}, miss_, "a") is None  # an Extra has no Bennies
    assert S.reroll_offer({"wild_card": True, "bennies": 0}, miss_, "a") is None
    crit = AttackResult(False, "crit", details={"shots": [{"total": 0}], "critical_failure": True})
    assert S.reroll_offer({"wild_card": True}, crit, "a") is None  # a Critical Failure is not rerolled
    hit = AttackResult(True, "hit", details={"shots": [{"total": 7}]})
    assert S.reroll_offer({"wild_card": True}, hit, "a") is None
    stray = AttackResult(False, "miss", effects=[Effect("shaken", "c")], details={"shots": [{"total": 2}]})
    assert S.reroll_offer({"wild_card": True}, stray, "a") is None  # a bystander was hit: it happened
    assert S.reroll_kept(3, AttackResult(True, "", details={"shots": [{"total": 6}]})) == {"best": 6,
                                                                                         "reroll_counts": True}
    assert S.reroll_kept(3, AttackResult(False, "", details={"shots": [{"total": 2}]}))["reroll_counts"] is False
    assert S.spend_benny({"wild_card": True, "bennies": 1}, "a reroll")["bennies"] == 0
    with pytest.raises(rules.system.RuleError, match="no Benny left"):
        S.spend_benny({"wild_card": True, "bennies": 0}, "a reroll", "Ann")
