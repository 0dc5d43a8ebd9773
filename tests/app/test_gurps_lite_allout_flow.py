"""3d6 All-Out Attack's options through the protocol (#33), from the 3d6 document's "Maneuvers" table,
All Out Attack (Melee): Determined "+4 to hit", Strong "+2 to damage or +1 per damage die if greater",
Double "2 attacks with a ready weapon on the same target". The maneuver is chosen for the turn, then the
option is picked on the attack card (only ``variant`` in the options): three rounds, one option each, and
each changes the odds and the roll as labelled."""

from __future__ import annotations

import pytest

from test_gurps_lite_table_choices import preview, send, state, table  # noqa: F401
from webapp import create_app
from webapp.live.server import throttle


@pytest.fixture
def client(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                      "DICE_SEED": "23"})
    app.extensions["tacmap"].seats = throttle.Seats(rate=1000.0, burst=1000)
    return app.test_client()


def last_attack(client, g):
    return [e for e in state(client, g)["log"] if (e.get("detail") or {}).get("attack")][-1]


def test_determined_strong_and_double_change_the_odds_and_the_roll_over_three_rounds(client):
    g, ids = table(client, (3, 2))
    assert send(client, g, {"type": "start_combat", "token_ids": [ids["Ann"], ids["Foe 0"]]}).status_code == 200
    for rnd, variant in ((1, "determined"), (2, "strong"), (3, "double")):
        while state(client, g)["combat"]["current"] != ids["Ann"]:
            assert send(client, g, {"type": "next_turn"}).status_code == 200
        assert state(client, g)["combat"]["round"] == rnd
        r = send(client, g, {"type": "act", "token_id": ids["Ann"], "action": "all_out_attack"})
        assert r.status_code == 200, r.json
        plain = preview(client, g, ids, weapon="Broadsword")["odds"]
        picked = preview(client, g, ids, weapon="Broadsword", options={"variant": variant})["odds"]
        labels = {m["label"]: m["value"] for m in picked["modifiers"]}
        assert picked["outcomes"] != plain["outcomes"], variant
        if variant == "determined":
            assert labels == {"All-Out Attack (Determined)": 4} and picked["hit"] > plain["hit"]
        elif variant == "strong":
            assert labels == {"All-Out Attack (Strong): damage": 2} and picked["hit"] == pytest.approx(plain["hit"])
        else:
            assert picked["hit"] > plain["hit"]  # two attacks: one landing is more likely
        r = send(client, g, {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe 0"], "weapon": "Broadsword",
                             "options": {"variant": variant}})
        assert r.status_code == 200, r.json
        entry = last_attack(client, g)
        attacks = entry["detail"]["attack"]["details"]["attacks"]
        assert entry["detail"]["attack"]["details"]["variant"] == variant
        if variant == "determined":
            assert attacks[0]["check"]["effective"] == 17 and " vs 17 " in entry["text"]  # Broadsword 13 + 4
        elif variant == "strong":
            assert " vs 13 " in entry["text"] and any(a["damage"] for a in attacks)  # (seed 23: it hits)
            assert all(d["damage_modifiers"] == [{"label": "All-Out Attack (Strong)", "source": "Maneuvers",
                                                  "value": 2}] for a in attacks for d in a["damage"])
        else:
            assert len(attacks) == 2 and entry["text"].count(" vs 13 ") == 2
        assert send(client, g, {"type": "next_turn"}).status_code == 200
