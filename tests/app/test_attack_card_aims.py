"""The attack card's nearest foe stays current (#58): picking an attacker fills in its nearest standing foe, never
one that has moved away or fallen. Who stands changes when a fight begins, turns or ends, or a token goes out of it:
each audience with the card (the GM, a player; not the table screen) gets it drawn afresh, with each attacker's
nearest standing foe (data-aim) and who is out (data-out). A move, the hottest event, does not draw it again: it
sends the moved token's new square, and the card carries what the page needs to work the nearest foe out when an
attacker is picked (each token's side, data-kind; static/js/attack.js), which agrees with the server's rule."""

from __future__ import annotations

import re

import pytest

from tests.helpers import command, connect, state
from webapp.game.bridge import fighting

from test_last_foe_down import down, turn_of
from test_target_defaults import attack_card, selected, table

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="3")


def updates(link) -> str:
    return "".join(m["args"][0]["html"] for m in link.get_received() if m["name"] == "update")


def cards(html: str) -> list[str]:
    return re.findall(r'<section id="attack-card".*?</section>', html, re.S)


def aims(card: str) -> dict[str, str]:
    """Each attacker's nearest foe as the card says it (data-aim)."""
    attackers = re.search(r'<select name="attacker">(.*?)</select>', card, re.S).group(1)
    return dict(re.findall(r'<option value="([^"]+)" data-aim="([^"]+)"', attackers))


def targets(card: str) -> list[dict]:
    """The target list's tokens: id, side (data-kind) and whether it is out of the fight (data-out)."""
    body = re.search(r'<select name="target">(.*?)</select>', card, re.S).group(1)
    return [{"id": v, "kind": re.search(r'data-kind="(\w+)"', attrs).group(1) if "data-kind" in attrs else None,
             "out": " data-out" in attrs} for v, attrs in re.findall(r'<option value="([^"]+)"([^>]*)>', body)]


def squares(html: str) -> dict[str, tuple[int, int]]:
    """Where the map's tokens stand (each <g>'s data-x, data-y), the later of two for a token."""
    return {i: (int(x), int(y)) for i, x, y in
            re.findall(r'<g id="token-[^"]+" class="token[^"]*" data-token-id="([^"]+)" data-x="(\d+)" data-y="(\d+)"',
                       html)}


def nearest_on_page(card: str, at: dict, attacker: str, kind: str) -> str | None:
    """The nearest foe as static/js/attack.js (nearestFoe) works it out from the card and the map's squares."""
    listed = targets(card)
    foes = [t for t in listed if t["id"] != attacker and t["kind"] is not None and t["kind"] != kind and not t["out"]]
    if not foes:
        return None
    me = at[attacker]
    return min(enumerate(foes), key=lambda it: ((at[it[1]["id"]][0] - me[0]) ** 2 + (at[it[1]["id"]][1] - me[1]) ** 2,
                                                it[0]))[1]["id"]


def test_a_fight_begun_or_ended_draws_the_attack_card_again_with_each_attackers_nearest_standing_foe(app, client):
    g, players, ids = table(client, "plain_grid")  # Aria at 2, Bruno at 3, the Goblin at 6, the Ogre at 12
    mira = players["Mira"]["player_token"]
    gm, phone, screen = (connect(app, g["id"], key) for key in (g["gm_token"], mira, g["screen_token"]))
    for link in (gm, phone, screen):
        link.get_received()

    # a fight of Aria, Bruno and the Ogre: the Goblin, nearer, is not in it
    r = command(client, g, {"type": "start_combat", "token_ids": [ids["Aria"], ids["Bruno"], ids["Ogre"]]})
    assert r.status_code == 200, r.json
    gm_cards, phone_cards = cards(updates(gm)), cards(updates(phone))
    assert gm_cards and phone_cards, "the attack card is not sent when the fight begins"
    assert aims(gm_cards[-1])[ids["Aria"]] == ids["Ogre"] and aims(gm_cards[-1])[ids["Bruno"]] == ids["Ogre"]
    assert [t["id"] for t in targets(gm_cards[-1]) if t["out"]] == [ids["Goblin"]]
    assert selected(phone_cards[-1], "target") == [ids["Ogre"]]  # Aria's card starts on the Ogre
    assert not cards(updates(screen))  # the table screen has no attack card

    # the fight ends: the Goblin is the nearest foe again, nobody is out
    r = command(client, g, {"type": "end_combat"})
    assert r.status_code == 200, r.json
    gm_cards, phone_cards = cards(updates(gm)), cards(updates(phone))
    assert gm_cards and phone_cards, "the attack card is not sent when the fight ends"
    assert aims(gm_cards[-1])[ids["Aria"]] == ids["Goblin"]
    assert not any(t["out"] for t in targets(gm_cards[-1]))
    assert selected(phone_cards[-1], "target") == [ids["Goblin"]]


def test_a_foe_taken_out_of_the_fight_is_no_longer_the_nearest_foe_the_card_sends(app, client):
    g, players, ids = table(client, "phase_tn")
    mira = players["Mira"]["player_token"]
    for foe in ("Ogre", "Goblin"):
        r = command(client, g, {"type": "add_character", "name": foe, "token_id": ids[foe]})
        assert r.status_code == 200, r.json
    r = command(client, g, {"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    gm, phone = connect(app, g["id"], g["gm_token"]), connect(app, g["id"], mira)
    for link in (gm, phone):
        link.get_received()

    # the Goblin, Aria's nearest foe, goes down; the rules take it out of the fight at their next step
    down(client, g, ids["Goblin"])
    fight = turn_of(client, g, ids["Aria"])
    assert ids["Goblin"] not in fight["order"] and ids["Ogre"] in fight["order"]
    gm_card, phone_card = cards(updates(gm))[-1], cards(updates(phone))[-1]
    assert aims(gm_card)[ids["Aria"]] == ids["Ogre"] and aims(gm_card)[ids["Bruno"]] == ids["Ogre"]
    assert ids["Goblin"] in [t["id"] for t in targets(gm_card) if t["out"]]
    assert selected(phone_card, "target") == [ids["Ogre"]]


def test_after_a_move_the_page_has_what_it_needs_to_pick_the_new_nearest_foe(app, client):
    g, players, ids = table(client, "plain_grid")
    mira = players["Mira"]["player_token"]
    pages = {"gm": client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True),
             "play": client.get(f"/games/{g['id']}/play?key={mira}", follow_redirects=True).get_data(as_text=True)}
    links = {"gm": connect(app, g["id"], g["gm_token"]), "play": connect(app, g["id"], mira)}
    for link in links.values():
        link.get_received()

    # the Ogre comes next to Aria, then Bruno steps up beside the Goblin
    for token, x, y in (("Ogre", 2, 3), ("Bruno", 7, 2)):
        r = command(client, g, {"type": "move_token", "token_id": ids[token], "x": x, "y": y})
        assert r.status_code == 200, r.json
    kinds = {t["id"]: t["kind"] for t in state(client, g)["tokens"]}
    game = app.extensions["tacmap"].game(g["id"])
    for who, html in pages.items():
        sent = updates(links[who])
        assert not cards(sent)  # a move does not draw the card again (its cost: bench.profile_move)
        at = {**squares(html), **squares(sent)}
        assert at[ids["Ogre"]] == (2, 3) and at[ids["Bruno"]] == (7, 2)
        card = attack_card(html)
        attackers = [ids["Aria"]] if who == "play" else list(ids.values())
        for attacker in attackers:
            rule = fighting.first_foe(game, game.tokens[attacker], list(game.tokens.values()))
            assert nearest_on_page(card, at, attacker, kinds[attacker]) == rule.id, (who, attacker)
        assert nearest_on_page(card, at, ids["Aria"], "pc") == ids["Ogre"]
        assert nearest_on_page(card, at, ids["Goblin"], "npc") == ids["Bruno"]
