"""Whose turn it is, per audience: a player's sticky turn bar (rendered for that player alone, sent live),
the turn's actions grouped by what the rules give, the result card on the phone of the player who
attacked or was attacked, and the table screen's rolls."""

from __future__ import annotations

import re

import pytest

from tests.helpers import bearer, connect, join, new_game
from webapp.game.bridge import fighting



pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="3")


def table(client, system="plain_grid"):
    """Mira's Aria and Theo's Bruno against an Ogre, in that turn order (plain grid: the GM's order)."""
    g = new_game(client, system, {"width": 12, "height": 8}, name="Turns")
    players = {name: join(client, g, name)
               for name in ("Mira", "Theo")}
    ids = {}
    for name, x, owner in (("Aria", 2, "Mira"), ("Bruno", 3, "Theo"), ("Ogre", 5, None)):
        body = {"name": name, "x": x, "y": 2, **({"owner": players[owner]["player_id"], "kind": "pc"} if owner else {})}
        ids[name] = client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    return g, players, ids


def send(client, g, token, body):
    r = client.post(f"/api/games/{g['id']}/commands", json=body, headers=bearer(token))
    assert r.status_code == 200, r.json
    return r


def page(client, g, who: str, key: str) -> str:
    return client.get(f"/games/{g['id']}/{who}?key={key}", follow_redirects=True).get_data(as_text=True)


def turn_bar(html: str) -> str | None:
    m = re.search(r'<section id="turn-bar".*?</section>', html, re.S)
    return m.group(0) if m else None


def test_the_turn_bar_says_your_turn_to_the_acting_tokens_player_alone_and_follows_the_turn_live(app, client):
    g, players, ids = table(client)
    mira, theo = players["Mira"], players["Theo"]
    send(client, g, g["gm_token"], {"type": "start_combat", "token_ids": [ids["Aria"], ids["Bruno"], ids["Ogre"]]})
    bar = turn_bar(page(client, g, "play", mira["player_token"]))
    assert bar is not None and "Your turn" in bar and "Aria" in bar and " hidden" not in bar.split(">")[0]
    assert 'data-command="next_turn"' in bar and "End my turn" in bar
    other = turn_bar(page(client, g, "play", theo["player_token"]))
    assert other is not None and " hidden" in other.split(">")[0] and "Your turn" not in other
    screen = page(client, g, "screen", g["screen_token"])
    assert 'id="turn-bar"' not in screen and "Your turn" not in screen
    gm = page(client, g, "gm", g["gm_token"])
    assert 'id="turn-bar"' not in gm
    # Mira ends her turn: her phone's bar goes, Theo's says his turn, each in its own live update
    mira_live, theo_live = connect(app, g["id"], mira["player_token"]), connect(app, g["id"], theo["player_token"])
    screen_live = connect(app, g["id"], g["screen_token"])
    for c in (mira_live, theo_live, screen_live):
        c.get_received()
    send(client, g, mira["player_token"], {"type": "next_turn"})

    def update(c) -> str:
        return "".join(m["args"][0]["html"] for m in c.get_received() if m["name"] == "update")

    mira_bar, theo_bar = turn_bar(update(mira_live)), turn_bar(update(theo_live))
    assert mira_bar is not None and "Your turn" not in mira_bar and " hidden" in mira_bar.split(">")[0]
    assert theo_bar is not None and "Your turn" in theo_bar and "Bruno" in theo_bar
    assert 'id="turn-bar"' not in update(screen_live)


def test_a_tesseris_turn_lists_its_usual_actions_first_then_groups_by_kind():
    offered = [o.to_dict() for o in _tesseris_actions()]
    assert len(offered) > 60
    groups = fighting.action_groups(offered)
    keys = [grp["key"] for grp in groups]
    assert keys[0] == "usual" and set(keys[1:]) <= {"move", "attack", "defense", "turn", "other"}
    assert {"move", "attack", "defense", "other"} <= set(keys)
    usual = groups[0]["options"]
    assert {o["key"] for o in usual} >= {"move", "melee_strike", "straight_shot"} and len(usual) <= 8
    assert groups[0]["open"] and not any(grp["open"] for grp in groups[1:])  # a long list: the rest folded
    for grp in groups[1:]:
        assert all(o["kind"] == grp["key"] and not (o["usual"] and o["available"]) for o in grp["options"])
    assert sum(len(grp["options"]) for grp in groups) == len(offered)  # each action once
    # a usual action the rules refuse now is not put first: it waits in its own group, with its reason
    refused = [dict(o, available=False, reason="spent") if o["key"] == "melee_strike" else o for o in offered]
    again = fighting.action_groups(refused)
    assert "melee_strike" not in {o["key"] for o in again[0]["options"]}
    assert "melee_strike" in {o["key"] for grp in again if grp["key"] == "attack" for o in grp["options"]}
    # a short list shows every group open
    short = fighting.action_groups(offered[:6])
    assert all(grp["open"] for grp in short)


def _tesseris_actions():
    import rules
    from rules.dice import SeededDice
    from rules.system import Combatant

    system = rules.get("tesseris_ads")
    sheet = system.default_sheet()
    fighters = [Combatant("a", "A", sheet, (0, 0), "pc", True, {}), Combatant("b", "B", sheet, (1, 0), "npc", False, {})]
    update = system.begin_fight(fighters, SeededDice("t"), None)
    me = next(f for f in fighters if f.id == update.current)
    return system.actions(update.state, me, None)


def test_the_fight_card_shows_a_tesseris_turn_in_groups(client):
    g, players, ids = table(client, "tesseris_ads")
    send(client, g, g["gm_token"], {"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]})
    gm = page(client, g, "gm", g["gm_token"])
    card = gm[gm.index('<div class="turn-actions"'):]
    card = card[:card.index("</div>")]
    groups = re.findall(r'<details id="actions-[^"]+" class="action-group (\w+)"', card)
    assert groups[0] == "usual" and {"move", "attack", "defense", "other"} <= set(groups)
    assert card.count("<details") == len(groups) and card.count(" open>") == 1  # only the usual ones open


def test_a_phone_gets_the_result_card_of_attacks_by_or_on_its_own_tokens_only(client):
    g, players, ids = table(client, "savage_worlds")  # no defense to choose: each attack is rolled at once
    mira, theo = players["Mira"], players["Theo"]
    gun = {"weapon": "Colt Peacemaker"}
    card = re.compile(r'<section id="result-card"[^>]*data-seq="(\d*)"')
    # the Ogre shoots Aria: on Mira's token
    send(client, g, g["gm_token"], {"type": "attack", "attacker": ids["Ogre"], "target": ids["Aria"], **gun})
    mine = page(client, g, "play", mira["player_token"])
    assert card.search(mine).group(1) != "" and "Ogre →" in mine[mine.index('id="result-card"'):]
    assert card.search(page(client, g, "play", theo["player_token"])).group(1) == ""  # not Theo's fight
    assert card.search(page(client, g, "screen", g["screen_token"])).group(1) != ""  # the table sees every attack
    # Bruno shoots the Ogre: by Theo's token
    send(client, g, theo["player_token"], {"type": "attack", "attacker": ids["Bruno"], "target": ids["Ogre"], **gun})
    theirs = page(client, g, "play", theo["player_token"])
    assert card.search(theirs).group(1) != "" and "Bruno →" in theirs[theirs.index('id="result-card"'):]
    mine_now = page(client, g, "play", mira["player_token"])
    assert card.search(mine_now).group(1) == card.search(mine).group(1)  # Mira's card is still the Ogre's shot


def test_the_table_screen_shows_public_rolls_never_secret_ones(client):
    g, players, ids = table(client)
    send(client, g, players["Mira"]["player_token"], {"type": "roll", "expr": "3d6+1"})
    send(client, g, players["Mira"]["player_token"], {"type": "roll", "expr": "1d20", "secret": True})
    screen = page(client, g, "screen", g["screen_token"])
    feed = screen[screen.index('id="screen-feed"'):]
    feed = feed[:feed.index("</section>")]
    assert "has-items" in screen[screen.index('id="screen-feed"') - 60:screen.index('id="screen-feed"') + 80]
    assert "Mira rolled 3d6+1" in feed and "1d20" not in feed


def test_a_move_the_rules_say_is_made_on_the_map_is_a_link_to_the_map_not_a_command(client):
    """3d6: once Move and Attack is chosen, its move is a drag on the map (``on_map``): the turn bar and the fight
    card lead to the map instead of sending it to the rules as an action (which they would refuse)."""
    g, players, ids = table(client, "gurps_lite")
    send(client, g, g["gm_token"], {"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]})
    for _ in range(4):
        if client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["combat"]["current"] == ids["Aria"]:
            break
        send(client, g, g["gm_token"], {"type": "next_turn"})
    send(client, g, players["Mira"]["player_token"], {"type": "act", "token_id": ids["Aria"], "action": "move_and_attack"})
    html = page(client, g, "play", players["Mira"]["player_token"])
    bar = turn_bar(html)
    assert 'href="#map-frame"' in bar and 'href="#attack-card"' in bar
    assert 'value="move:move_and_attack"' not in html  # neither in the bar nor in the fight card
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(players["Mira"]["player_token"]),
                    json={"type": "act", "token_id": ids["Aria"], "action": "move:move_and_attack"})
    assert r.status_code == 422  # what a button would have sent: the rules move it on the map only
