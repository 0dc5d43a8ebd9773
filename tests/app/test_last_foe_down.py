"""Phase/TN, the last foe down (#58): with no foe left standing the phone's Fire and Targeting picked an ally
by default, and one tap shot him. Now no target is picked (each list starts on an empty "choose a target"),
a declaration or an attack sent without a target is refused, and the GM's fight card says no foe is left
standing, with End fight first. While a foe stands, every list still starts on it."""

from __future__ import annotations

import re

import pytest

from tests.helpers import command, state

from test_target_defaults import attack_card, selected, table
from test_turn_views import page, turn_bar

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="3")


def down(client, g, token_id: str) -> None:
    """The GM marks the token's flesh wounds at capacity: it goes down, and the rules take it out of the fight
    at their next step (phase/TN's "Damage and Wounds")."""
    sheet = next(c for c in state(client, g)["characters"] if c["token_id"] == token_id)
    capacity = sheet["derived"]["flesh_capacity"]
    r = command(client, g, {"type": "update_sheet", "character_id": sheet["id"], "changes": {"flesh": capacity}})
    assert r.status_code == 200, r.json


def turn_of(client, g, token_id: str) -> dict:
    """Next turn until ``token_id`` declares; the fight as it is then."""
    for _ in range(12):
        fight = state(client, g)["combat"]
        if fight["current"] == token_id and "declarations" in fight["phase"]:
            return fight
        r = command(client, g, {"type": "next_turn"})
        assert r.status_code == 200, r.json
    raise AssertionError(fight)


def fight_card(html: str) -> str:
    return re.search(r'<section id="combat".*?</section>', html, re.S).group(0)


def test_with_the_last_foe_down_no_list_picks_an_ally_and_the_gm_is_offered_end_fight(app, client):
    g, players, ids = table(client, "phase_tn")
    mira = players["Mira"]["player_token"]
    for foe in ("Ogre", "Goblin"):
        r = command(client, g, {"type": "add_character", "name": foe, "token_id": ids[foe]})
        assert r.status_code == 200, r.json
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json

    # one foe down, the Goblin standing: every list of Aria's starts on the Goblin
    down(client, g, ids["Ogre"])
    fight = turn_of(client, g, ids["Aria"])
    assert ids["Ogre"] not in fight["order"] and ids["Goblin"] in fight["order"]
    html = page(client, g, "play", mira)
    bar = turn_bar(html)
    assert re.search(r'aria-label="Fire: at whom"', bar) and re.search(r'aria-label="Targeting: at whom"', bar)
    assert set(selected(bar, "options.target")) == {ids["Goblin"]}
    assert set(selected(fight_card(html), "options.target")) == {ids["Goblin"]}
    assert selected(attack_card(html), "target") == [ids["Goblin"]]
    assert "No foe is left standing" not in fight_card(page(client, g, "gm", g["gm_token"]))
    r = command(client, g, {"type": "next_turn"})
    assert r.status_code == 200, r.json

    # the last foe down: Aria's lists start on no one (not on Bruno, her friend)
    down(client, g, ids["Goblin"])
    fight = turn_of(client, g, ids["Aria"])
    assert set(fight["order"]) <= {ids["Aria"], ids["Bruno"]}, fight
    html = page(client, g, "play", mira)
    bar = turn_bar(html)
    assert re.search(r'aria-label="Fire: at whom"', bar)
    assert set(selected(bar, "options.target")) == {""}
    assert '<option value="" selected>choose a target</option>' in bar
    assert set(selected(fight_card(html), "options.target")) == {""}
    assert selected(attack_card(html), "target") == [""]

    # a tap sends no target: refused, nothing declared
    log = state(client, g)["log"]
    r = command(client, g, {"type": "act", "token_id": ids["Aria"], "action": "declare:fire"}, mira)
    assert r.status_code == 422 and r.json["error"] == "Fire needs a target", r.json
    r = command(client, g, {"type": "attack", "attacker": ids["Aria"], "target": ""}, mira)
    assert r.status_code == 422, r.json
    assert state(client, g)["log"] == log

    # the GM's card says so and offers End fight first
    gm = fight_card(page(client, g, "gm", g["gm_token"]))
    assert "No foe is left standing: the fight can end." in gm
    assert gm.index('data-command="end_combat"') < gm.index('data-command="next_turn"')
    assert re.search(r'data-command="end_combat"[^>]*><button type="submit" class="primary">End fight', gm)
    r = command(client, g, {"type": "end_combat"})
    assert r.status_code == 200, r.json
    assert state(client, g)["combat"] is None
