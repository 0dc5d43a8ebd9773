"""Tesseris through the API (#23): the attack card's options from the rules, one of each kind picked and
the odds following it and the rolls, Spray 'n Pray at two opponents, surprise and the end of a fight."""

from __future__ import annotations

import math

import pytest

from rules.tesseris_ads import SYSTEM
from tests.helpers import bearer, command, new_game, state
from webapp import create_app


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "23"}).test_client()


def game(client, places):
    g = new_game(client, "tesseris_ads", {"width": 20, "height": 10}, name="Choices")
    ids = {}
    for name, (x, y, kind, over) in places.items():
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, "kind": kind},
                                headers=bearer(g["gm_token"])).json["id"]
        sheet = {**SYSTEM.default_sheet(), "name": name, **over}
        r = command(client, g, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet})
        assert r.status_code == 200, r.json
    return g, ids


def preview(client, g, body):
    r = command(client, g, {"type": "preview_attack", **body})
    assert r.status_code == 200, r.json
    return r.json["preview"]


@pytest.mark.long
def test_the_options_are_listed_one_of_each_kind_changes_the_odds_and_the_rolls_follow_them(client):
    g, ids = game(client, {"Jim": (1, 1, "pc", {"mayhem": 3}), "Foe": (2, 1, "npc", {})})
    jim, foe = ids["Jim"], ids["Foe"]
    base = {"attacker": jim, "target": foe, "weapon": "knife"}
    view = preview(client, g, base)
    options = {o["key"]: o for o in view["options"]}
    assert {"action", "location", "higher_ground", "mayhem", "modifier"} <= set(options)
    assert {"melee_strike", "all_out_attack", "trip", "disarm", "grapple"} <= {v["key"] for v in options["action"]["values"]}
    assert options["mayhem"]["max"] == 3 and options["higher_ground"]["kind"] == "bool"
    plain = view["odds"]["hit"]
    picked = {"action": "all_out_attack", "higher_ground": True, "mayhem": 1}  # a choice, a bool, an int
    chosen = preview(client, g, {**base, "options": picked})
    assert chosen["odds"]["hit"] > plain and chosen["picked"] == picked
    labels = {m["label"] for m in chosen["odds"]["modifiers"]}
    assert {"All-Out Attack", "Higher ground", "Mayhem points spent"} <= labels
    # a key the rules do not list is refused, naming it
    r = command(client, g, {"type": "attack", **base, "options": {"fire_mode": "auto"}})
    assert r.status_code == 422 and "no attack option 'fire_mode'" in r.json["error"]
    # the rolls follow the odds shown: each attack previewed then rolled with the same options
    expected = variance = 0.0
    hits = 0
    n = 120
    for i in range(n):
        opts = {"action": "precision_strike", "higher_ground": True} if i % 2 else {"action": "all_out_attack"}
        p = preview(client, g, {**base, "options": opts})["odds"]["hit"]
        r = command(client, g, {"type": "attack", **base, "options": opts, "defense": "dodge"})
        assert r.status_code == 200, r.json
        hits += state(client, g)["log"][-1]["detail"]["attack"]["hit"]
        expected += p
        variance += p * (1 - p)
    assert abs(hits - expected) <= 4 * math.sqrt(variance) + 2, (hits, expected)
    # the defender's choices are the action's own: a Trip is resisted with Duck, Dodge or Athletics
    trip = preview(client, g, {**base, "options": {"action": "trip"}})
    assert [d["key"] for d in trip["defenses"]] == ["duck", "dodge", "athletics", "none"]


def test_spray_n_pray_at_two_opponents_through_the_api(client):
    """Spray 'n Pray: "Fire a weapon on Full Auto at a -3 penalty against all opponents in a 45 degree arc
    out to half the weapon's listed ranged. Each opponent may only be hit once"."""
    g, ids = game(client, {"Jim": (1, 1, "pc", {}), "Foe": (7, 1, "npc", {}), "Rat": (7, 3, "npc", {}),
                           "Far": (1, 8, "npc", {})})
    jim, foe, rat = ids["Jim"], ids["Foe"], ids["Rat"]
    body = {"attacker": jim, "target": foe, "targets": [rat], "weapon": "rifle", "options": {"action": "spray_n_pray"}}
    view = preview(client, g, body)
    assert [t["id"] for t in view["odds"]["targets"]] == [foe, rat]
    assert {o["label"] for o in view["odds"]["outcomes"]} <= {"nobody hit", "1 of 2 hit", "2 of 2 hit"}
    spray = next(v for v in view["options"][0]["values"] if v["key"] == "spray_n_pray")
    assert spray["targets"] == 8
    r = command(client, g, {"type": "attack", **body})
    assert r.status_code == 200, r.json
    entry = state(client, g)["log"][-1]
    result = entry["detail"]["attack"]
    assert [t["target"] for t in result["details"]["targets"]] == [foe, rat]
    assert "Spray 'n Pray" in entry["text"] and "Foe" in entry["text"] and "Rat" in entry["text"]
    sheets = {c["name"]: c["sheet"] for c in state(client, g)["characters"]}
    assert sheets["Jim"]["weapons"]["rifle"]["ammo"] == 30 - 8
    # out of the arc: refused, naming the rule
    r = command(client, g, {"type": "preview_attack", **{**body, "targets": [ids["Far"]]}})
    assert r.status_code == 422 and "45 degree arc" in r.json["error"]
    # a plain shot takes one opponent
    r = command(client, g, {"type": "preview_attack", **{**body, "options": {}}})
    assert r.status_code == 422 and "Spray 'n Pray fires at several" in r.json["error"]


def test_surprise_and_the_end_of_the_fight_through_the_api(client):
    """Combat Order 1 (the surprise round) and Regaining Stamina / Mayhem Points at the end."""
    g, ids = game(client, {"Jim": (1, 1, "pc", {"mayhem": 2, "stamina": 4, "wounds": 1, "perception": 0, "awareness": 0}),
                           "Foe": (5, 1, "npc", {"stealth": 4})})
    r = command(client, g, {"type": "start_combat", "token_ids": [ids["Jim"], ids["Foe"]], "surprised": [ids["Jim"]]})
    assert r.status_code == 200, r.json
    log = [e["text"] for e in state(client, g)["log"]]
    said = [line for line in log if line.startswith("Jim is surprised (Awareness 0 against Stealth")]
    assert said and said[0].endswith("no turn in the surprise round, reactions only, up to 3 ticks"), log
    fight = state(client, g)["combat"]
    assert fight["current"] == ids["Foe"]
    r = command(client, g, {"type": "end_combat"})
    assert r.status_code == 200, r.json
    after = state(client, g)
    jim = next(c["sheet"] for c in after["characters"] if c["name"] == "Jim")
    full = 10 + 2 * jim["strength"] + jim["willpower"]
    assert jim["stamina"] == full - 1 and jim["mayhem"] == 0
    assert any(e["text"].startswith(f"Jim: Stamina back to {full - 1}") and "2 unspent Mayhem points lost" in e["text"]
               for e in after["log"])
