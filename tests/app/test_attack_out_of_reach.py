"""An attack whose weapon cannot reach a player's token (#58): the GM who sends it is refused at once in the
preview's words, and the player is never asked to defend against it (no ``defense_asked`` event, no waiting
defense, the log as it was). In reach, the player is asked as before. 3d6 (gurps_lite) and Tesseris ask a
defender; Savage Worlds asks none (Parry is the target number), so there an attack in reach is rolled at once."""

from __future__ import annotations

import pytest

import rules
from tests.helpers import bearer, command, join, new_game, state

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")

#: each system's melee weapon on its default sheet
MELEE = {"savage_worlds": "Long sword", "gurps_lite": "Broadsword", "tesseris_ads": "knife"}
#: whether the system's rules give the defender a choice (then its player is asked before the roll)
ASKS = {"savage_worlds": False, "gurps_lite": True, "tesseris_ads": True}


def table(client, system: str):
    """``system``'s game with Mira's Ann (her player's, a character of the default sheet) at (2, 2) and the GM's
    Thug (the same sheet) six squares away, in a fight."""
    g = new_game(client, system, {"width": 16, "height": 8}, name="Reach")
    p = join(client, g, "Mira")
    ids = {}
    for name, x, owner in (("Ann", 2, p["player_id"]), ("Thug", 8, None)):
        body = {"name": name, "x": x, "y": 2, "kind": "pc" if owner else "npc"} | ({"owner": owner} if owner else {})
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
        sheet = rules.get(system).default_sheet()
        r = command(client, g, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet}
                    | ({"owner": owner} if owner else {}))
        assert r.status_code == 200, r.json
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    return g, p, ids


def events(hub, g) -> list[str]:
    return [e.type for e in hub.store.events(g["id"])]


@pytest.mark.parametrize("system", sorted(MELEE))
@pytest.mark.parametrize("force", [False, True])
def test_an_attack_out_of_reach_of_a_players_token_is_refused_to_the_gm_in_the_previews_words(client, hub, system,
                                                                                             force):
    g, p, ids = table(client, system)
    hit = {"attacker": ids["Thug"], "target": ids["Ann"], "weapon": MELEE[system]}
    seen = command(client, g, {"type": "preview_attack", **hit})
    assert seen.status_code == 422, seen.json
    before, log = events(hub, g), state(client, g)["log"]
    r = command(client, g, {"type": "attack", **hit, **({"force": True} if force else {})})
    assert r.status_code == 422, r.json
    assert r.json["error"] == seen.json["error"]
    assert "defense_asked" not in events(hub, g) and events(hub, g) == before
    assert state(client, g)["log"] == log
    assert state(client, g).get("pending_defense") is None
    assert state(client, g, p["player_token"]).get("pending_defense") is None


@pytest.mark.parametrize("system", sorted(MELEE))
def test_an_attack_in_reach_of_a_players_token_still_asks_its_player_to_defend(client, hub, system):
    g, p, ids = table(client, system)
    r = command(client, g, {"type": "move_token", "token_id": ids["Thug"], "x": 3, "y": 2, "force": True})
    assert r.status_code == 200, r.json
    hit = {"attacker": ids["Thug"], "target": ids["Ann"], "weapon": MELEE[system]}
    assert command(client, g, {"type": "preview_attack", **hit}).status_code == 200
    r = command(client, g, {"type": "attack", **hit})
    assert r.status_code == 200, r.json
    if not ASKS[system]:
        assert events(hub, g)[-1] == "attack_resolved" and "defense_asked" not in events(hub, g)
        return
    assert events(hub, g)[-1] == "defense_asked"
    pending = state(client, g, p["player_token"])["pending_defense"]
    assert pending["target_id"] == ids["Ann"] and pending["choices"], pending
    assert all(c["hit"] is not None for c in pending["choices"] if c["available"]), pending["choices"]
    pick = next(c["key"] for c in pending["choices"] if c["available"])
    r = command(client, g, {"type": "choose_defense", "defense": pick}, p["player_token"])
    assert r.status_code == 200, r.json
    assert events(hub, g)[-1] == "attack_resolved" and state(client, g).get("pending_defense") is None
