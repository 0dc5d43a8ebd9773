"""The last foe down, in every system (#58): phase/TN takes the fallen out of the turn order, the others keep
an Incapacitated, unconscious or Dying foe in it. Whichever the system, a foe down by its rules (its own
badges: fighting.is_down) is never the target a list starts on, and once every foe is down the GM's fight card
says no foe is left standing, with End fight first; attacking a downed foe on purpose stays open."""

from __future__ import annotations

import re

import pytest

from tests.helpers import bearer, command, connect, join, new_game, state

from test_last_foe_down import fight_card
from test_target_defaults import attack_card, selected
from test_turn_views import page

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="3")

#: what the GM writes on a sheet to put a token down by each system's rules, and the badge it then shows
DOWN = {
    "savage_worlds": ({"incapacitated": True}, "Incapacitated"),
    "gurps_lite": ({"conditions": ["unconscious"]}, "unconscious"),
    "tesseris_ads": ({"dying": True}, "Dying"),
    "atomic_tomorrow": ({"wounds": 4}, "Incapacitated"),
    "phase_tn": (None, "down"),
}
PORT = {"zones": [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]},
                  {"id": "bay", "name": "Cargo Bay", "adjacent": []}]}


def scripted_fight(client, system):
    """Mira's Aria and Theo's Bruno against a Goblin beside them and a far Ogre, every one in the fight."""
    zones = system == "atomic_tomorrow"
    g = new_game(client, system, PORT if zones else {"width": 14, "height": 8}, name="Last foe")
    players = {name: join(client, g, name) for name in ("Mira", "Theo")}
    ids = {}
    for name, x, owner in (("Bruno", 3, "Theo"), ("Ogre", 12, None), ("Aria", 2, "Mira"), ("Goblin", 4, None)):
        where = {"zone": "bay" if name == "Ogre" else "pad"} if zones else {"x": x, "y": 2}
        body = {"name": name, **where, **({"owner": players[owner]["player_id"], "kind": "pc"} if owner else {})}
        r = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 201, r.json
        ids[name] = r.json["id"]
        r = command(client, g, {"type": "add_character", "name": name, "token_id": ids[name]})
        assert r.status_code == 200, r.json
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    return g, players, ids


def put_down(client, g, system, token_id):
    character = next(c for c in state(client, g)["characters"] if c["token_id"] == token_id)
    changes = DOWN[system][0] or {"flesh": character["derived"]["flesh_capacity"]}
    r = command(client, g, {"type": "update_sheet", "character_id": character["id"], "changes": changes})
    assert r.status_code == 200, r.json
    if system == "phase_tn":  # the rules take the fallen out of the fight at their next step
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    if system != "phase_tn":  # the token shows the system's badge for it
        assert DOWN[system][1] in page(client, g, "gm", g["gm_token"])


@pytest.mark.parametrize("system", list(DOWN))
def test_a_downed_foe_is_never_the_default_target_and_the_last_one_down_offers_end_fight(app, client, system):
    g, players, ids = scripted_fight(client, system)
    mira = players["Mira"]["player_token"]
    gm_live = connect(app, g["id"], g["gm_token"])
    assert gm_live.is_connected()

    # both foes standing: Aria's attack card starts on a foe; no word of the fight's end
    assert selected(attack_card(page(client, g, "play", mira)), "target")[0] in (ids["Goblin"], ids["Ogre"])
    assert "No foe is left standing" not in fight_card(page(client, g, "gm", g["gm_token"]))

    # the Goblin down (still in the turn order but in phase/TN): the card starts on the Ogre, standing
    put_down(client, g, system, ids["Goblin"])
    assert selected(attack_card(page(client, g, "play", mira)), "target") == [ids["Ogre"]]
    assert selected(attack_card(page(client, g, "play", players["Theo"]["player_token"])), "target") == [ids["Ogre"]]
    assert "No foe is left standing" not in fight_card(page(client, g, "gm", g["gm_token"]))

    # the Ogre down too: no target is picked (never an ally, never a downed foe) ...
    gm_live.get_received()
    put_down(client, g, system, ids["Ogre"])
    card = attack_card(page(client, g, "play", mira))
    assert selected(card, "target") == [""]
    assert f'<option value="{ids["Goblin"]}"' in card  # ... but the downed foes stay on the list, to pick on purpose

    # ... and the GM's fight card, on a new page and live, says the fight can end, End fight first
    pushed = "".join(m["args"][0]["html"] for m in gm_live.get_received() if m["name"] == "update")
    for gm in (fight_card(page(client, g, "gm", g["gm_token"])), fight_card(pushed)):
        assert "No foe is left standing: the fight can end." in gm
        assert gm.index('data-command="end_combat"') < gm.index('data-command="next_turn"')
        assert re.search(r'data-command="end_combat"[^>]*><button type="submit" class="primary">End fight', gm)
    fight = state(client, g)["combat"]
    if system != "phase_tn":  # these systems keep a downed foe in the turn order
        assert {ids["Goblin"], ids["Ogre"]} <= set(fight["order"]), fight
    r = command(client, g, {"type": "end_combat"})
    assert r.status_code == 200, r.json
    assert state(client, g)["combat"] is None
