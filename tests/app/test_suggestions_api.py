"""The GM's suggestions for a foe over the JSON API (#60): every plan's steps, sent as commands with the GM's key,
are accepted; a player's key and the table screen's get 403 and nothing else; a foe's tactic reaches neither a
player nor the screen (not in their state, not in their live updates); a system without suggestions says so."""

from __future__ import annotations

import json

import pytest

from tests.helpers import bearer, command, game_with, in_another_thread, new_game, state

SECRET_TACTIC = "cowardly"


#: Atomic Tomorrow's zone map for the fight: the heroes on the pad and in the bay, the foes on the catwalk and the tower
ZONES = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay", "catwalk"]},
         {"id": "bay", "name": "Cargo Bay", "adjacent": ["catwalk"], "cover": "good"},
         {"id": "catwalk", "name": "Catwalk", "adjacent": ["tower"], "cover": "partial"},
         {"id": "tower", "name": "Control Tower", "cover": "excellent"}]
WHERE = {"Ann": (3, 4, "pad"), "Bob": (4, 7, "bay"), "Orc": (10, 5, "catwalk"), "Imp": (11, 2, "tower")}


def _two_against_two(client, system: str):
    """Mira's Ann and Bob and the GM's Orc and Imp (``WHERE``) on a ``system`` map ("gurps_lite hex": on hexes), not
    yet in a fight."""
    zones = system == "atomic_tomorrow"  # a zone map: the tokens go in zones
    system, _, grid = system.partition(" ")  # "gurps_lite hex": the system on a hex map
    board = {"zones": ZONES} if zones else {"width": 16, "height": 10, **({"grid": grid} if grid else {})}
    return game_with(client, system, board, [(name, zone if zones else (x, y), name in ("Ann", "Bob"))
                                             for name, (x, y, zone) in WHERE.items()])


def _to_the_orcs_turn(client, g, ids):
    assert command(client, g, {"type": "start_combat", "token_ids": list(ids.values())}).status_code == 200
    for _ in range(12):
        if state(client, g)["combat"]["current"] == ids["Orc"]:
            return
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    raise AssertionError("never the Orc's turn")


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
@pytest.mark.parametrize("system", ["gurps_lite", "savage_worlds", "atomic_tomorrow", "tesseris_ads"])
def test_every_plans_steps_are_accepted_and_only_the_gm_gets_suggestions(app, client, system):
    socketio = app.extensions["tacmap_socketio"]
    g, mira, ids = _two_against_two(client, system)
    mira_browser = app.test_client()
    mira_browser.get(f"/games/{g['id']}/play?key={mira['player_token']}")
    player = socketio.test_client(app, auth={"game": g["id"], "token": mira["player_token"]},
                                  flask_test_client=mira_browser)
    screen = socketio.test_client(app, auth={"game": g["id"], "token": g["screen_token"]})
    seen: list[str] = []

    def drain():
        for live in (player, screen):
            seen.extend(json.dumps(m) for m in live.get_received())

    drain()
    assert command(client, g, {"type": "set_tactic", "token_id": ids["Imp"], "tactic": SECRET_TACTIC}).status_code == 200
    # the tactic is the GM's: a player may not set one
    assert command(client, g, {"type": "set_tactic", "token_id": ids["Orc"], "tactic": "careful"},
                   key=mira["player_token"]).status_code in (403, 422)
    _to_the_orcs_turn(client, g, ids)
    url = f"/api/games/{g['id']}/suggestions/{ids['Orc']}"
    for key in (mira["player_token"], g["screen_token"]):
        r = client.get(url, headers=bearer(key))
        assert r.status_code == 403
        assert "plans" not in r.get_data(as_text=True) and ids["Ann"] not in r.get_data(as_text=True)
    r = client.get(url, headers=bearer(g["gm_token"]))
    assert r.status_code == 200, r.get_data(as_text=True)
    found = r.json
    assert found["token_id"] == ids["Orc"] and found["tactic"] == "fierce" and found["now"] is True
    assert 1 <= len(found["plans"]) <= 3
    for p in found["plans"]:
        assert set(p) >= {"summary", "steps", "target", "weapon", "options", "to", "hit", "effect", "effect_unit", "why"}
        assert isinstance(p["why"], str) and isinstance(p["summary"], str)
    german = client.get(url + "?lang=de", headers=bearer(g["gm_token"])).json
    assert [p["steps"] for p in german["plans"]] == [p["steps"] for p in found["plans"]]
    assert [p["hit"] for p in german["plans"]] == [p["hit"] for p in found["plans"]]
    assert all(d["why"] != e["why"] and d["effect_unit"] != e["effect_unit"]  # the words in German
               for d, e in zip(german["plans"], found["plans"]))
    best = found["plans"][0]
    for step in best["steps"]:  # the best plan played as the GM would by hand: every step accepted
        r = command(client, g, step)
        assert r.status_code == 200, (step, r.get_data(as_text=True))
    drain()
    for other in (state(client, g, mira["player_token"]), state(client, g, g["screen_token"])):
        text = json.dumps(other)
        assert "tactics" not in other and SECRET_TACTIC not in text
    assert state(client, g)["tactics"][ids["Imp"]]["tactic"] == SECRET_TACTIC
    joined = "\n".join(seen)
    assert seen and SECRET_TACTIC not in joined and "tactic_set" not in joined and "set_tactic" not in joined
    assert 'id=\\"combat\\"' in joined  # the fight card was drawn for them on the Orc's turn...
    assert "foe-plans" not in joined  # ...and its plans on the GM's page alone


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
def test_on_a_zone_map_every_plan_is_a_zone_and_its_steps_are_accepted(app, client):
    """Atomic Tomorrow on its zone map: each plan goes to a zone (its id), its move names the zone, and every plan,
    played in a fight of its own (the same dice: the same turn, the same plans), is accepted step by step through
    the command endpoint, the Orc ending its move in the plan's zone."""
    g, _mira, ids = _two_against_two(client, "atomic_tomorrow")
    _to_the_orcs_turn(client, g, ids)
    found = client.get(f"/api/games/{g['id']}/suggestions/{ids['Orc']}", headers=bearer(g["gm_token"])).json
    assert found["plans"]
    zone_ids = {z["id"] for z in ZONES}
    for n, plan in enumerate(found["plans"]):
        assert plan["to"] in zone_ids
        assert all(set(s) == {"type", "token_id", "zone"} for s in plan["steps"] if s["type"] == "move_token")
        g2, _m2, ids2 = _two_against_two(client, "atomic_tomorrow") if n else (g, _mira, ids)
        if n:
            _to_the_orcs_turn(client, g2, ids2)
            again = client.get(f"/api/games/{g2['id']}/suggestions/{ids2['Orc']}", headers=bearer(g2["gm_token"])).json
            assert [(p["to"], p["hit"], p["effect"]) for p in again["plans"]] == \
                [(p["to"], p["hit"], p["effect"]) for p in found["plans"]]
            plan = again["plans"][n]
        for step in plan["steps"]:
            r = command(client, g2, step)
            assert r.status_code == 200, (step, r.get_data(as_text=True))
        orc = next(t for t in state(client, g2)["tokens"] if t["id"] == ids2["Orc"])
        assert orc["zone"] == plan["to"]


@pytest.mark.app_config(DEMO=False)
def test_a_system_without_a_planner_says_so(app, client):
    """501 only for a system with no planner (the plain grid, a plug-in without one), on squares or hexes (#67)."""
    for grid in ("square", "hex"):
        g = new_game(client, "plain_grid", {"width": 12, "height": 8, "walls": [], "grid": grid})
        r = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Orc", "x": 2, "y": 2},
                        headers=bearer(g["gm_token"]))
        answer = client.get(f"/api/games/{g['id']}/suggestions/{r.json['id']}", headers=bearer(g["gm_token"]))
        assert answer.status_code == 501
        assert answer.json["plans"] is None and answer.json["not_reckoned"]


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
@pytest.mark.parametrize("system", ["tesseris_ads", "gurps_lite", "savage_worlds"])
def test_on_a_hex_map_the_plans_are_reckoned_and_the_best_is_accepted(app, client, system):
    """A hex map (#67): 200 with plans, each with its kind, hexes for squares; the best played step by step."""
    g, _mira, ids = _two_against_two(client, f"{system} hex")
    _to_the_orcs_turn(client, g, ids)
    r = client.get(f"/api/games/{g['id']}/suggestions/{ids['Orc']}", headers=bearer(g["gm_token"]))
    assert r.status_code == 200, r.get_data(as_text=True)
    plans = r.json["plans"]
    assert plans and all(p["kind"] in ("attack", "approach", "move", "cover", "withdraw", "ready") for p in plans)
    for step in plans[0]["steps"]:
        answer = command(client, g, step)
        assert answer.status_code == 200, (step, answer.get_data(as_text=True))


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
def test_the_plans_are_reckoned_through_the_servers_runner_on_a_copy(app, client):
    """The reckoning leaves the asking request's thread (under ``tacmap serve``: gevent's native pool, so the loop
    is not held): here a runner that runs it in a thread of its own and says so; the answer is the one reckoned in
    place, and the game in memory is the same object, untouched (the reckoning read a copy)."""

    from webapp.live.foes import suggesting

    g, _mira, ids = _two_against_two(client, "gurps_lite")
    _to_the_orcs_turn(client, g, ids)
    url = f"/api/games/{g['id']}/suggestions/{ids['Orc']}"
    in_place = client.get(url, headers=bearer(g["gm_token"])).json
    game = app.extensions["tacmap"].game(g["id"])
    seq, where = game.seq, (game.tokens[ids["Orc"]].x, game.tokens[ids["Orc"]].y)
    ran = []
    runner = in_another_thread(ran, lambda work, args, other: (work.__name__, other, args[0] is not game))

    suggesting.install(runner)
    try:
        off = client.get(url, headers=bearer(g["gm_token"])).json
    finally:
        suggesting.install(None)
    assert ran == [("reckoned", True, True)]
    assert off == in_place
    assert game.seq == seq and (game.tokens[ids["Orc"]].x, game.tokens[ids["Orc"]].y) == where


@pytest.mark.app_config(DEMO=False)
@pytest.mark.parametrize("system, shown", [("gurps_lite", True), ("savage_worlds", True), ("atomic_tomorrow", True),
                                           ("tesseris_ads", True), ("gurps_lite hex", True),
                                           ("tesseris_ads hex", True), ("plain_grid", False)])
def test_the_gm_page_has_the_plans_on_a_foes_turn_where_the_system_reckons_them(app, client, system, shown):
    g, _mira, ids = _two_against_two(client, system)
    _to_the_orcs_turn(client, g, ids)
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True)
    assert page.status_code == 200
    assert ('id="foe-plans"' in page.get_data(as_text=True)) is shown


@pytest.mark.app_config(DEMO=False, DICE_SEED="7")
@pytest.mark.parametrize("system", ["gurps_lite", "savage_worlds"])
def test_off_its_turn_a_foes_plans_are_200_marked_not_now_and_the_gm_page_offers_no_do_it(app, client, system):
    """The GM asks a foe's plans at any time: off its turn they are its plans were its turn to begin now, 200 with
    ``now`` false, the game untouched; the GM page's turn order has "Plans" for that foe, and its plans read
    "on its turn" where Do it would be."""
    g, _mira, ids = _two_against_two(client, system)
    _to_the_orcs_turn(client, g, ids)
    assert command(client, g, {"type": "next_turn"}).status_code == 200
    assert state(client, g)["combat"]["current"] != ids["Orc"]
    game = app.extensions["tacmap"].game(g["id"])
    seq = game.seq
    r = client.get(f"/api/games/{g['id']}/suggestions/{ids['Orc']}", headers=bearer(g["gm_token"]))
    assert r.status_code == 200, r.get_data(as_text=True)
    assert r.json["now"] is False and r.json["plans"]
    assert all(p["steps"] for p in r.json["plans"])
    assert game.seq == seq
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert f'data-foe-plans-of="{ids["Orc"]}"' in page and 'id="foe-plans-ahead"' in page
    assert f'data-foe-plans-of="{ids["Ann"]}"' not in page  # a player's token has none
    html = client.get(f"/games/{g['id']}/foe-plans/{ids['Orc']}").get_data(as_text=True)
    assert "on its turn" in html and "data-do-plan" not in html
    assert html.count('class="plan"') == len(r.json["plans"])
