"""3d6 surprise through the protocol (#33), from the 3d6 document's "Turn Order": "If one managed to
Totally Suprise a group of defenders ... the attackers go first in initiative and the defenders will be
mentally stunned". The GM ticks one bandit of two: the heroes' side acts first every round, with no
Tactics contest, and the ticked bandit is stunned."""

from __future__ import annotations

import pytest

from test_gurps_lite_table_choices import send, state
from tests.helpers import bearer
from webapp import create_app


@pytest.mark.parametrize("seed", ["1", "2", "3", "4"])
def test_one_bandit_ticked_the_heroes_act_first_each_round_without_a_contest(tmp_path, seed):
    client = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                         "DICE_SEED": seed}).test_client()
    g = client.post("/api/games", json={"name": "Ambush", "system": "gurps_lite",
                                        "map": {"width": 12, "height": 8}}).json
    ids = {}
    for name, x, kind in (("Bandit", 6, "npc"), ("Cutthroat", 7, "npc"), ("Hero", 1, "pc"), ("Squire", 2, "pc")):
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 2, "kind": kind},
                        headers=bearer(g["gm_token"]))
        ids[name] = r.json["id"]
    r = send(client, g, {"type": "start_combat", "token_ids": list(ids.values()), "surprised": [ids["Bandit"]]})
    assert r.status_code == 200, r.json
    texts = [e["text"] for e in state(client, g)["log"]]
    assert "Surprise: the attackers (pc) go first, then the side caught off guard (npc); no Tactics contest" in texts
    assert not any(t.startswith(("Turn order:", "turn order:")) for t in texts)
    assert any(t.startswith("Bandit is totally surprised and acts after the attackers") for t in texts)
    heroes = {ids["Hero"], ids["Squire"]}
    order = state(client, g)["combat"]["order"]
    assert set(order[:2]) == heroes and set(order[2:]) == {ids["Bandit"], ids["Cutthroat"]}
    seen: dict[int, list[str]] = {}
    while True:
        combat = state(client, g)["combat"]
        if combat["round"] > 3:
            break
        seen.setdefault(combat["round"], []).append(combat["current"])
        if combat["current"] == ids["Bandit"]:  # stunned by the surprise: Do Nothing only
            assert send(client, g, {"type": "act", "token_id": ids["Bandit"], "action": "do_nothing"}).status_code == 200
        assert send(client, g, {"type": "next_turn"}).status_code == 200
    for rnd in (1, 2, 3):
        assert seen[rnd] == order and set(seen[rnd][:2]) == heroes
