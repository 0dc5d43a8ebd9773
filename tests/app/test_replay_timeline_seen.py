"""A player's replay timeline tells what that player saw live (#58): their allies' turns and attacks in their
view, not those out of it, and an attack by a foe they could not see on their token as "An unseen foe attacks
Hero", never its name; the GM's timeline names everyone."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, command, join, new_game, state

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="7")


def timeline(app, g, key, lang=None) -> list[str]:
    """The timeline's lines as a browser holding ``key`` reads them (in ``lang``)."""
    device = app.test_client()
    if lang:
        device.get(f"/?lang={lang}")
    page = "gm" if key == g["gm_token"] else "play"
    device.get(f"/games/{g['id']}/{page}?key={key}")  # the key held by this browser's session
    r = device.get(f"/games/{g['id']}/timeline", headers=bearer(key))
    assert r.status_code == 200, r.data[:300]
    return [m["text"] for m in r.json["moments"]]


def test_a_players_timeline_has_the_allies_turns_they_saw_and_an_unseen_foes_attack_unnamed(app):
    client = app.test_client()
    # a wall down the middle: Mira's Hero and Olaf's Scout on the left with the Bandit, Tess's Ranger on the right
    g = new_game(client, "gurps_lite", {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 8]}]},
                 name="Ambush")
    mira, olaf, tess = (join(client, g, n) for n in ("Mira", "Olaf", "Tess"))
    ids = {}
    for name, x, y, extra in (("Hero", 2, 2, {"owner": mira["player_id"], "kind": "pc"}),
                              ("Scout", 2, 4, {"owner": olaf["player_id"], "kind": "pc"}),
                              ("Ranger", 9, 2, {"owner": tess["player_id"], "kind": "pc"}),
                              ("Assassin", 3, 2, {"hidden": True}), ("Bandit", 3, 4, {})):
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y, **extra},
                        headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
    assert command(client, g, {"type": "set_fog", "enabled": True}).status_code == 200
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    turns = set()
    for _ in range(12):  # every fighter's turn
        turns.add(state(client, g)["combat"]["current"])
        if turns == set(ids.values()):
            break
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    assert turns == set(ids.values())

    for body in ({"type": "attack", "attacker": ids["Assassin"], "target": ids["Hero"], "weapon": "Broadsword",
                  "defense": "none", "force": True},
                 {"type": "attack", "attacker": ids["Scout"], "target": ids["Bandit"], "weapon": "Broadsword",
                  "defense": "none", "force": True}):
        r = command(client, g, body)
        assert r.status_code == 200, r.json

    gm = timeline(app, g, g["gm_token"])
    assert "Assassin attacks Hero" in gm and "Scout attacks Bandit" in gm
    assert any(line.endswith("Ranger's turn") for line in gm) and any(line.endswith("Scout's turn") for line in gm)

    mine = timeline(app, g, mira["player_token"])
    assert any(line.endswith("Hero's turn") for line in mine)  # her own, as before
    assert any(line.endswith("Scout's turn") for line in mine), mine  # Olaf's Scout, beside her
    assert "Scout attacks Bandit" in mine  # an ally's attack she saw
    assert "An unseen foe attacks Hero" in mine  # the hidden Assassin's, unnamed
    assert not any("Ranger" in line or "Assassin" in line or "Bandit's turn" in line for line in mine), mine

    theirs = timeline(app, g, olaf["player_token"])
    assert any(line.endswith("Hero's turn") for line in theirs) and "Scout attacks Bandit" in theirs
    assert not any("Assassin" in line or "unseen foe" in line or "Ranger" in line for line in theirs), theirs
    far = timeline(app, g, tess["player_token"])  # behind the wall: her own turn, no one else's
    assert any(line.endswith("Ranger's turn") for line in far)
    assert not any(n in line for line in far for n in ("Hero", "Scout", "Bandit", "Assassin", "unseen foe")), far

    german = timeline(app, g, mira["player_token"], "de")
    assert "Ein verborgener Gegner greift Hero an" in german, german
