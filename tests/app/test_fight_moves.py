"""Moves in a fight: the rules count them against what they leave the token this turn; the reach
question shades where it can go; turn actions go to the rules; badges show on the token."""

from __future__ import annotations

import re

import pytest

from tests.helpers import bearer, command as send, join, new_game, state
from webapp import create_app


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "9"}).test_client()


def savage_fight(client):
    g = new_game(client, "savage_worlds", {"width": 30, "height": 6}, name="Moves")
    p = join(client, g, "Mira")
    hero = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Hero", "x": 2, "y": 2, "owner": p["player_id"], "kind": "pc"},
                       headers=bearer(g["gm_token"])).json["id"]
    orc = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Orc", "x": 3, "y": 2},
                      headers=bearer(g["gm_token"])).json["id"]
    send(client, g, {"type": "start_combat", "token_ids": [hero, orc]}, g["gm_token"])
    while state(client, g)["combat"]["current"] != hero:
        send(client, g, {"type": "next_turn"}, g["gm_token"])
    return g, p, hero, orc


def test_a_move_beyond_pace_is_refused_with_the_rules_reason(client):
    g, p, hero, orc = savage_fight(client)
    before = state(client, g)
    r = send(client, g, {"type": "move_token", "token_id": hero, "x": 2 + 8, "y": 2}, p["player_token"])
    assert r.status_code == 422 and ("Pace" in r.json["error"] or "left" in r.json["error"]), r.json
    assert state(client, g) == before


def test_moves_within_pace_are_counted_until_it_is_spent(client):
    g, p, hero, orc = savage_fight(client)
    reach = send(client, g, {"type": "reach", "token_id": hero}, p["player_token"]).json
    assert reach["left"] == 6 and reach["unit"]
    assert all(cost <= 6 for _, _, cost in reach["cells"]) and [8, 2, 6] in reach["cells"]
    r = send(client, g, {"type": "move_token", "token_id": hero, "x": 2, "y": 5}, p["player_token"])
    assert r.status_code == 200, r.json
    left = send(client, g, {"type": "reach", "token_id": hero}, p["player_token"]).json["left"]
    assert left == 3
    r = send(client, g, {"type": "move_token", "token_id": hero, "x": 6, "y": 5}, p["player_token"])
    assert r.status_code == 422


def test_withdrawing_from_an_adjacent_foe_offers_it_a_free_attack(client):
    g, p, hero, orc = savage_fight(client)
    r = send(client, g, {"type": "move_token", "token_id": hero, "x": 0, "y": 2}, p["player_token"])
    assert r.status_code == 200, r.json
    fight = state(client, g)["combat"]
    # at the square the Hero left, with the Orc's ready melee weapon (the default sheet's: #58)
    assert {"attacker": orc, "target": hero, "options": {"free_attack": True}, "from": [2, 2],
            "weapon": "Long sword"} in fight["due"]
    assert any("free attack" in e["text"] for e in state(client, g)["log"])


def test_the_gm_moves_anyone_past_the_rules_as_a_ruling(client):
    g, p, hero, orc = savage_fight(client)
    r = send(client, g, {"type": "move_token", "token_id": orc, "x": 20, "y": 2, "force": True}, g["gm_token"])
    assert r.status_code == 200 and state(client, g)["log"][-1]["text"].startswith("GM ruling")


def test_a_gm_move_the_fight_refuses_is_offered_as_a_ruling_and_goes_when_forced(client):
    g, p, hero, orc = savage_fight(client)  # the Hero's turn
    gm = client.application.extensions["tacmap_socketio"].test_client(
        client.application, auth={"game": g["id"], "token": g["gm_token"]})
    move = lambda who, x, **more: gm.emit("command", {"type": "move_token", "token_id": who, "x": x, "y": 2, **more},  # noqa: E731
                                          callback=True)
    # out of turn: refused by the rules, with the code that lets the GM rule otherwise ("Move anyway")
    ack = move(orc, 5)
    assert ack == {"ok": False, "error": "it is not Orc's turn", "code": "fight_rules"}
    # past the allowance, on its turn: the same
    ack = move(hero, 20)
    assert ack["ok"] is False and "left" in ack["error"] and ack["code"] == "fight_rules"
    # forced: both go, logged as the GM's rulings, and the rules count nothing for them
    assert move(orc, 5, force=True)["ok"] is True
    assert move(hero, 20, force=True)["ok"] is True
    after = state(client, g)
    assert {t["name"]: (t["x"], t["y"]) for t in after["tokens"]} == {"Hero": (20, 2), "Orc": (5, 2)}
    assert [e["text"] for e in after["log"][-2:]] == ["GM ruling: Orc moved to (5, 2)", "GM ruling: Hero moved to (20, 2)"]
    assert after["combat"]["current"] == hero
    assert send(client, g, {"type": "reach", "token_id": hero}, g["gm_token"]).json["left"] == 6  # no Pace spent
    # a player's refused move carries no such offer, and a player cannot force one
    r = send(client, g, {"type": "move_token", "token_id": hero, "x": 29, "y": 2}, p["player_token"])
    assert r.status_code == 422
    player = client.application.extensions["tacmap_socketio"].test_client(
        client.application, auth={"game": g["id"], "token": p["player_token"]})
    ack = player.emit("command", {"type": "move_token", "token_id": hero, "x": 29, "y": 2}, callback=True)
    assert ack["ok"] is False and "code" not in ack
    ack = player.emit("command", {"type": "move_token", "token_id": hero, "x": 29, "y": 2, "force": True}, callback=True)
    assert ack == {"ok": False, "error": "only the GM can force a move"}


def test_turn_actions_go_to_the_rules_and_only_for_your_own_token(client):
    g, p, hero, orc = savage_fight(client)
    r = send(client, g, {"type": "act", "token_id": orc, "action": "hold"}, p["player_token"])
    assert r.status_code == 422
    r = send(client, g, {"type": "act", "token_id": hero, "action": "no_such_thing"}, p["player_token"])
    assert r.status_code == 422 and r.json["error"].startswith("not automated")
    r = send(client, g, {"type": "act", "token_id": hero, "action": "hold"}, p["player_token"])
    assert r.status_code == 200, r.json
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert "On Hold" in page  # the badge the rules give a token on Hold


def test_outside_a_fight_reach_is_a_ruler_with_no_limit(client):
    g = client.post("/api/games", json={"name": "Ruler", "system": "gurps_lite",
                                        "map": {"width": 10, "height": 10, "walls": [{"a": [5, 0], "b": [5, 9]}]}}).json
    tok = client.post(f"/api/games/{g['id']}/tokens", json={"name": "A", "x": 1, "y": 1}, headers=bearer(g["gm_token"])).json["id"]
    reach = send(client, g, {"type": "reach", "token_id": tok}, g["gm_token"]).json
    assert reach["left"] is None and reach["unit"] == "yard"
    costs = {(x, y): c for x, y, c in reach["cells"]}
    assert costs[(4, 1)] == 3 and costs[(6, 1)] > 5  # around the wall's end, not through it


def test_a_plain_drag_in_phase_tn_is_the_declared_move_and_passes_the_turn(client):
    """*Phase/TN*, "Initiative and Actions": one new action a phase, declared lowest initiative first.
    Moving the token declares the phase's Move, so the next declarer is up."""
    g = client.post("/api/games", json={"name": "Phases", "system": "phase_tn", "map": {"width": 20, "height": 8}}).json
    ids = {name: client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": 2 + 4 * i, "y": 2},
                             headers=bearer(g["gm_token"])).json["id"] for i, name in enumerate(["Leroy", "Earl", "Ann"])}
    send(client, g, {"type": "start_combat", "token_ids": list(ids.values())}, g["gm_token"])
    fight = state(client, g)["combat"]
    first, second = fight["order"][0], fight["order"][1]
    assert fight["current"] == first and fight["phase"].endswith("declarations")
    mover = next(t for t in state(client, g)["tokens"] if t["id"] == first)
    r = send(client, g, {"type": "move_token", "token_id": first, "x": mover["x"], "y": mover["y"] + 2}, g["gm_token"])
    assert r.status_code == 200, r.json
    after = state(client, g)
    assert after["combat"]["current"] == second  # the move was the declaration: the turn passed
    names = {t["id"]: t["name"] for t in after["tokens"]}
    texts = [e["text"] for e in after["log"]]
    assert f"{names[first]} declares a Move (phase action, up to 3 squares)." in texts
    assert f"{names[second]}'s turn to declare (lowest initiative first)." == texts[-1]
    assert not any(i in t for t in texts for i in ids.values())  # names, never ids
    # the rest of the Move is still the mover's this phase; the reach says so
    assert send(client, g, {"type": "reach", "token_id": first}, g["gm_token"]).json["left"] == 1


def test_phase_tn_refusals_and_the_turn_panel_name_tokens_never_ids(client):
    g = client.post("/api/games", json={"name": "Phases", "system": "phase_tn", "map": {"width": 20, "height": 8}}).json
    ids = {name: client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": 2 + 4 * i, "y": 2},
                             headers=bearer(g["gm_token"])).json["id"] for i, name in enumerate(["Leroy", "Earl"])}
    send(client, g, {"type": "start_combat", "token_ids": list(ids.values())}, g["gm_token"])
    fight = state(client, g)["combat"]
    names = {v: k for k, v in ids.items()}
    first, second = fight["order"]
    r = send(client, g, {"type": "move_token", "token_id": second, "x": 10, "y": 4}, g["gm_token"])
    assert r.status_code == 422
    assert r.json["error"] == (f"{names[second]} cannot move now: {names[first]} declares before {names[second]} "
                               "(lowest initiative first): a Move is declared in turn")
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert "phase 1 of 2 · declarations" in page
    for token_id in ids.values():
        assert f"{token_id} declares" not in page and f"declares first ({token_id}" not in page


def test_phase_tn_fire_at_picks_a_foe_by_default_not_an_ally(client):
    """The turn panel's "Fire at" (and every declaration aimed at someone) starts on the first token of
    the other side, as the attack card does; the allies are still in the list."""
    g = client.post("/api/games", json={"name": "Phases", "system": "phase_tn", "map": {"width": 20, "height": 8}}).json
    ids = {name: client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": 2 + 4 * i, "y": 2, "kind": kind},
                             headers=bearer(g["gm_token"])).json["id"]
           for i, (name, kind) in enumerate([("Ann", "pc"), ("Bea", "pc"), ("Goon", "npc"), ("Thug", "npc")])}
    send(client, g, {"type": "start_combat", "token_ids": list(ids.values())}, g["gm_token"])
    kinds = {ids["Ann"]: "pc", ids["Bea"]: "pc", ids["Goon"]: "npc", ids["Thug"]: "npc"}
    seen = set()
    for _ in range(len(ids)):  # each declarer in turn, the allies listed first in the select for the PCs
        current = state(client, g)["combat"]["current"]
        page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
        forms = [f for f in re.findall(r'<form data-command="act".*?</form>', page, re.S)
                 if f'name="token_id" value="{current}"' in f and 'value="declare:fire"' in f]
        assert len(forms) == 1, forms
        options = re.findall(r'<option value="([^"]+)"( selected)?>', forms[0])
        assert {v for v, _ in options} == set(ids.values()) - {current}  # everyone else may be aimed at
        chosen = [v for v, sel in options if sel]
        assert len(chosen) == 1 and kinds[chosen[0]] != kinds[current], (current, options)
        seen.add(kinds[current])
        assert send(client, g, {"type": "act", "token_id": current, "action": "wait"}, g["gm_token"]).status_code == 200
    assert seen == {"pc", "npc"}


def test_a_token_on_hold_is_offered_to_act_from_hold_off_its_turn(client):
    """Savage Worlds, "Hold": a held character may interrupt another's turn; the player sees the
    button on their own page while someone else acts (and the table screen has no such controls)."""
    g, p, hero, orc = savage_fight(client)
    assert send(client, g, {"type": "act", "token_id": hero, "action": "hold"}, p["player_token"]).status_code == 200
    fight = state(client, g)["combat"]
    assert fight["current"] != hero
    page = client.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
    assert "Off turn, Hero may" in page and "Act from Hold" in page
    screen = client.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).get_data(as_text=True)
    assert "off turn" not in screen
    if fight["current"] is not None:  # someone acts: the hero may interrupt them, as the button sends
        r = send(client, g, {"type": "act", "token_id": hero, "action": "interrupt"}, p["player_token"])
        assert r.status_code == 200, r.json


@pytest.mark.parametrize("system", ["savage_worlds", "gurps_lite", "tesseris_ads", "phase_tn", "atomic_tomorrow"])
def test_no_log_line_or_refusal_of_a_fight_names_a_token_by_its_id(client, system):
    g = client.post("/api/games", json={"name": "Ids", "system": system,
                                        **({} if system == "atomic_tomorrow" else {"map": {"width": 16, "height": 8}})}).json
    gm = g["gm_token"]
    zones = state(client, g).get("zones")
    ids = []
    for i, name in enumerate(["Ann", "Bob", "Cat"]):
        where = {"zone": zones[i % len(zones)]["id"]} if zones else {"x": 2 + 3 * i, "y": 3}
        ids.append(client.post(f"/api/games/{g['id']}/tokens", json={"name": name, **where},
                               headers=bearer(gm)).json["id"])
        send(client, g, {"type": "add_character", "name": name, "token_id": ids[-1]}, gm)
    send(client, g, {"type": "start_combat", "token_ids": ids}, gm)
    errors = []
    for step in range(8):
        current = state(client, g)["combat"]["current"]
        if current:
            other = next(i for i in ids if i != current)
            for body in ({"type": "attack", "attacker": current, "target": other},
                         {"type": "move_token", "token_id": other, **({"zone": zones[-1]["id"]} if zones else {"x": 15, "y": 7})},
                         {"type": "act", "token_id": other, "action": "hold"}):
                r = send(client, g, body, gm)
                if r.status_code != 200:
                    errors.append(r.json["error"])
        send(client, g, {"type": "next_turn"}, gm)
    texts = [e["text"] for e in state(client, g)["log"]] + errors
    pattern = re.compile("|".join(rf"(?<![\w-]){re.escape(i)}(?![\w-])" for i in ids))
    assert not [t for t in texts if pattern.search(t)]


def test_an_id_the_rules_let_through_reads_as_the_name_and_a_hidden_one_as_someone(tmp_path):
    from webapp.game.bridge.fighting import named
    from webapp.game.core.model import GM, Actor

    app = create_app({"DATA_DIR": str(tmp_path / "d"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Names", "system": "plain_grid"}).json
    def add(body):
        return c.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    ann, lurker = add({"name": "Ann", "x": 1, "y": 1}), add({"name": "Lurker", "x": 3, "y": 1, "hidden": True})
    game = app.extensions["tacmap"].game(g["id"])
    text = f"{ann} declares before {lurker} ({lurker}x is not an id)"
    assert named(game, text) == f"Ann declares before Lurker ({lurker}x is not an id)"
    assert named(game, text, Actor("player", "p1"), hidden_as="someone").startswith("Ann declares before someone")
    assert named(game, text, GM, hidden_as="someone").startswith("Ann declares before Lurker")


# --- big tokens (2 x 2, 3 x 3) in a fight: range, line of fire, reach and movement count from the
# squares they cover, not from their top-left square (docs/RULES.md, "Big tokens")


def big_game(client, system="phase_tn", walls=()):
    g = new_game(client, system, {"width": 20, "height": 12, "walls": list(walls)}, name="Big")
    def add(body):
        return client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    return g, add


def test_range_is_counted_to_the_nearest_square_of_a_big_target(client):
    g, add = big_game(client)
    ogre = add({"name": "Ogre", "x": 5, "y": 5, "size": 2})  # covers (5..6, 5..6)
    archer = add({"name": "Archer", "x": 10, "y": 5})
    view = send(client, g, {"type": "preview_attack", "attacker": archer, "target": ogre}).json["preview"]
    assert view["distance"] == 4  # from (10, 5) to (6, 5), not to the top-left (5, 5)
    assert view["to"] == [6, 5]
    view = send(client, g, {"type": "preview_attack", "attacker": ogre, "target": archer}).json["preview"]
    assert view["distance"] == 4 and view["from"] == [6, 5]


def test_a_big_shooter_fires_from_whichever_of_its_squares_sees_the_target(client):
    # a wall across the ogre's top row line: (5, 5) cannot see (12, 5), its lower squares can
    g, add = big_game(client, walls=[{"a": [8, 4], "b": [8, 6]}])
    ogre = add({"name": "Ogre", "x": 5, "y": 5, "size": 2})
    archer = add({"name": "Archer", "x": 12, "y": 5})
    rat = add({"name": "Rat", "x": 12, "y": 8})
    r = send(client, g, {"type": "preview_attack", "attacker": ogre, "target": archer})
    assert r.status_code == 200, r.json
    view = r.json["preview"]
    assert view["line"]["clear"] and view["from"][1] == 6  # from its lower row
    assert send(client, g, {"type": "preview_attack", "attacker": rat, "target": archer}).status_code == 200
    # one square each is judged square to square as before: the wall blocks
    small = add({"name": "Imp", "x": 5, "y": 4})
    r = send(client, g, {"type": "preview_attack", "attacker": small, "target": archer})
    assert r.status_code == 422 and "no line of fire" in r.json["error"]


def test_reach_of_a_big_token_keeps_its_whole_footprint_clear(client):
    # a wall with a one-square gap at y = 5: a 2 x 2 token cannot squeeze through it
    walls = [{"a": [8, 0], "b": [8, 5]}, {"a": [8, 6], "b": [8, 12]}]
    g, add = big_game(client, "gurps_lite", walls=walls)
    ogre = add({"name": "Ogre", "x": 5, "y": 4, "size": 2})
    reach = send(client, g, {"type": "reach", "token_id": ogre}).json
    assert reach["size"] == 2
    tops = {(x, y) for x, y, _ in reach["cells"]}
    assert (6, 4) in tops and not any(x >= 8 for x, _ in tops)  # the gap is one square: no way through
    imp = add({"name": "Imp", "x": 5, "y": 9})
    small = {(x, y) for x, y, _ in send(client, g, {"type": "reach", "token_id": imp}).json["cells"]}
    assert (9, 5) in small  # a one-square token goes through the gap


def test_a_big_token_in_a_fight_pays_the_way_round_a_wall_not_the_crow_flight(client):
    g, add = big_game(client, "savage_worlds", walls=[{"a": [7, 0], "b": [7, 10]}])
    ogre = add({"name": "Ogre", "x": 4, "y": 7, "size": 2})
    send(client, g, {"type": "start_combat", "token_ids": [ogre]})
    left = send(client, g, {"type": "reach", "token_id": ogre}).json["left"]
    costs = {(x, y): c for x, y, c in send(client, g, {"type": "reach", "token_id": ogre}).json["cells"]}
    assert costs[(4, 9)] == 2 and (8, 7) not in costs  # round the wall's end (rows 10-11) is 7: too far
    r = send(client, g, {"type": "move_token", "token_id": ogre, "x": 8, "y": 7})
    assert r.status_code == 422 and str(left).rstrip("0").rstrip(".") in r.json["error"]


def test_the_gm_sees_a_foe_on_hold_offered_to_interrupt_but_not_every_foes_reactions(client):
    g, p, hero, orc = savage_fight(client)
    send(client, g, {"type": "next_turn"}, p["player_token"])  # the hero's turn ends: the orc's
    while state(client, g)["combat"]["current"] != orc:
        send(client, g, {"type": "next_turn"}, g["gm_token"])
    assert send(client, g, {"type": "act", "token_id": orc, "action": "hold"}, g["gm_token"]).status_code == 200
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert "Off turn, Orc may" in page and "Act from Hold" in page
    assert "Off turn, Hero may" not in page  # the hero has nothing but reactions off turn
