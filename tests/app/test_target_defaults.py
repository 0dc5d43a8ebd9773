"""Every list of targets starts on a foe, never an ally (#33): the phone's "Your turn" bar (phase/TN's Fire
and Targeting), the fight card's declarations and the attack card, in every system. The rule is one:
``webapp.game.fight.combat.first_foe`` (the nearest token of another side, one in the fight first)."""

from __future__ import annotations

import re

import pytest

from tests.helpers import bearer, join, new_game
from webapp import create_app
from webapp.game.bridge import fighting

from test_turn_views import page, send, turn_bar

SYSTEMS = ["plain_grid", "savage_worlds", "gurps_lite", "tesseris_ads", "phase_tn"]


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "3"}).test_client()


def table(client, system):
    """Mira's Aria with Theo's Bruno beside her (listed first), a far Ogre and a near Goblin."""
    g = new_game(client, system, {"width": 14, "height": 8}, name="Aim")
    players = {name: join(client, g, name)
               for name in ("Mira", "Theo")}
    ids = {}
    for name, x, owner in (("Bruno", 3, "Theo"), ("Ogre", 12, None), ("Aria", 2, "Mira"), ("Goblin", 6, None)):
        body = {"name": name, "x": x, "y": 2, **({"owner": players[owner]["player_id"], "kind": "pc"} if owner else {})}
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    return g, players, ids


def selected(html: str, select: str) -> list[str]:
    """The option each select of this name starts on (the first when none is marked)."""
    out = []
    for body in re.findall(rf'<select name="{re.escape(select)}"[^>]*>(.*?)</select>', html, re.S):
        options = re.findall(r'<option value="([^"]*)"([^>]*)>', body)
        marked = [v for v, attrs in options if "selected" in attrs]
        out.append(marked[0] if marked else options[0][0])
    return out


def attack_card(html: str) -> str:
    return re.search(r'<section id="attack-card".*?</section>', html, re.S).group(0)


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_attack_card_starts_on_the_nearest_foe_in_every_system(client, system):
    g, players, ids = table(client, system)
    mine = page(client, g, "play", players["Mira"]["player_token"])
    assert selected(attack_card(mine), "target") == [ids["Goblin"]]  # not Bruno (first listed), not the far Ogre
    # the GM's card: each attacker carries its own nearest foe for when it is picked (attack.js)
    gm = attack_card(page(client, g, "gm", g["gm_token"]))
    aims = dict(re.findall(r'<option value="([^"]+)" data-aim="([^"]+)"', gm))
    assert aims[ids["Aria"]] == ids["Goblin"] and aims[ids["Bruno"]] == ids["Goblin"]
    assert aims[ids["Ogre"]] == ids["Bruno"] and aims[ids["Goblin"]] == ids["Bruno"]  # the foes' nearest hero


def test_phase_tn_turn_bar_and_declarations_aim_at_a_foe(client):
    g, players, ids = table(client, "phase_tn")
    send(client, g, g["gm_token"], {"type": "start_combat", "token_ids": list(ids.values())})
    for _ in range(8):
        st = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
        if st["combat"]["current"] == ids["Aria"]:
            break
        send(client, g, g["gm_token"], {"type": "next_turn"})
    assert st["combat"]["current"] == ids["Aria"] and "declarations" in st["combat"]["phase"]
    html = page(client, g, "play", players["Mira"]["player_token"])
    bar = turn_bar(html)
    assert re.search(r'aria-label="Fire: at whom"', bar) and re.search(r'aria-label="Targeting: at whom"', bar)
    assert set(selected(bar, "options.target")) == {ids["Goblin"]}  # Fire and Targeting: the nearest foe
    fight = re.search(r'<section id="combat".*?</section>', html, re.S).group(0)
    assert selected(fight, "options.target") and set(selected(fight, "options.target")) == {ids["Goblin"]}


def test_first_foe_is_never_the_token_itself_nor_an_ally_while_a_foe_is_listed():
    class T:
        def __init__(self, id, kind, x, y):
            self.id, self.kind, self.x, self.y, self.name, self.sheet = id, kind, x, y, id, {}
            self.yielded = False  # none has yielded (#67: a foe that surrendered does not stand)

    class G:  # a foe stands by its system's rules too (fighting.stands): none is down here
        combat = {"order": ["a", "b", "far"]}
        system, characters = "plain_grid", {}

    a, b, near, far = T("a", "pc", 0, 0), T("b", "pc", 1, 0), T("near", "npc", 2, 0), T("far", "npc", 9, 0)
    assert fighting.first_foe(G, a, [a, b, near, far]).id == "far"  # in the fight before one outside it
    G.combat = None
    assert fighting.first_foe(G, a, [a, b, near, far]).id == "near"
    assert fighting.first_foe(G, near, [a, b, near, far]).id == "b"
    assert fighting.first_foe(G, a, [a, b]).id == "b"  # no foe at all: the first other token
    assert fighting.first_foe(G, a, [a]) is None
