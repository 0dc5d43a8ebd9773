"""The "play the foes" switch (#60): its runner plays each foe's best plan as its turn comes, as the GM's commands
(each judged, logged and shown), stops at a player's turn, waits at a defense a player must choose and goes on
once it is answered; any change the GM makes by hand turns it off; a runner that is not the game's own (another
process's, an old one) has its steps refused, so one game never has two runners; the switch and its lines are the
GM's alone. The app runs the runner as a background task (a thread here, a greenlet under ``tacmap serve``), with
a short pause before each step (``FOE_PLAY_PAUSE``)."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import bearer, command, connect, game_with, join, new_game, state
from webapp.game.core.model import Actor, Rejected

# the runner as a thread (under `tacmap serve`: a greenlet), a short pause before each step
FAST = pytest.mark.app_config(DEMO=False, DICE_SEED="11", FOE_PLAY_PAUSE=0.02, ASYNC_MODE="threading")


def _two_against_two(client, system="gurps_lite"):
    """Mira's Ann and Bob against the GM's Orc and Imp, the foes a few squares off."""
    return game_with(client, system, {"width": 14, "height": 10}, [("Ann", (3, 4), True), ("Bob", (3, 6), True),
                     ("Orc", (7, 4), False), ("Imp", (8, 6), False)], name="Foes", start=True)


def _until(check, seconds=20.0):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        found = check()
        if found:
            return found
        time.sleep(0.05)
    raise AssertionError("never came")


def _current(client, g):
    return state(client, g)["combat"]["current"]


def _to_a_players_turn(client, g, ids):
    for _ in range(6):
        if _current(client, g) in (ids["Ann"], ids.get("Bob")):
            return
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    raise AssertionError("never a player's turn")


def _log(client, g, key=None):
    return [e["text"] for e in state(client, g, key)["log"]]


def _on(client, g):
    r = command(client, g, {"type": "play_foes", "on": True})
    assert r.status_code == 200, r.json


@FAST
def test_it_plays_the_foes_turns_and_stops_at_a_players_turn_and_only_the_gm_sees_it(app, client):
    g, mira, ids = _two_against_two(client)
    players = {ids["Ann"], ids["Bob"]}
    _to_a_players_turn(client, g, ids)
    phone, screen = connect(app, g["id"], mira["player_token"]), connect(app, g["id"], g["screen_token"])
    gm = connect(app, g["id"], g["gm_token"])
    _on(client, g)
    assert state(client, g)["foe_play"]["on"] is True
    time.sleep(0.5)  # a player's turn: the runner waits, nothing is played
    assert _current(client, g) in players
    seq = state(client, g)["seq"]
    first = _current(client, g)
    assert command(client, g, {"type": "next_turn"}, key=mira["player_token"]).status_code == 200  # Mira ends hers
    # the foes play theirs, one after the other, until a player's turn comes again
    played = []

    def back_to_a_player():
        s = state(client, g)
        if s["combat"]["current"] in players and s["combat"]["current"] != first:
            return s
        if s["combat"]["current"] in players and s["seq"] > seq + 3:
            return s
        if s["pending_defense"]:  # Mira answers what the foe's attack asks her
            pending = s["pending_defense"]
            pick = next(c["key"] for c in pending["choices"] if c["available"])
            r = command(client, g, {"type": "choose_defense", "defense": pick, "attack": pending["id"]},
                        key=mira["player_token"])
            played.append(("defense", r.status_code))
        return None

    s = _until(back_to_a_player)
    # the GM's page was told of each step the runner played, its fight card drawn with the switch on
    to_gm = json.dumps(gm.get_received())
    assert 'id=\\"play-foes\\"' in to_gm and "Orc" in to_gm and "Imp" in to_gm
    assert s["foe_play"]["on"] is True  # it stopped at the player's turn, the switch still on
    lines = _log(client, g)
    assert any("Orc" in t for t in lines[-12:]) and any("Imp" in t for t in lines[-12:]), lines[-12:]
    at = s["seq"]
    time.sleep(0.5)
    assert state(client, g)["seq"] == at  # and waits there
    # the switch, its lines and the plans are the GM's: not in a player's or the screen's state, nor their updates
    for key in (mira["player_token"], g["screen_token"]):
        seen = state(client, g, key)
        assert "foe_play" not in seen
        assert not any("play" in t and "foes" in t for t in (e["text"] for e in seen["log"]))
    for link in (phone, screen):
        sent = json.dumps(link.get_received())
        assert "Play the foes" not in sent and "play their turns" not in sent and "foe-play" not in sent
        assert "plan" not in sent.lower()


@FAST
def test_it_waits_for_a_defense_a_player_must_choose_and_goes_on_after_the_answer(app, client):
    g, mira, ids = _two_against_two(client)
    # the Orc beside Ann: its best plan is a blow, which asks Mira for Ann's defense
    assert command(client, g, {"type": "move_token", "token_id": ids["Orc"], "x": 4, "y": 4, "force": True}).status_code == 200
    for _ in range(6):
        if _current(client, g) == ids["Orc"]:
            break
        assert command(client, g, {"type": "next_turn"}).status_code == 200
    assert _current(client, g) == ids["Orc"]
    _on(client, g)
    pending = _until(lambda: state(client, g)["pending_defense"])
    assert pending["attacker"] == "Orc"
    time.sleep(0.5)  # it waits: the Orc's turn goes on, the attack unanswered
    s = state(client, g)
    assert s["combat"]["current"] == ids["Orc"] and s["pending_defense"]["id"] == pending["id"]
    assert s["foe_play"]["on"] is True
    pick = next(c["key"] for c in pending["choices"] if c["available"])
    r = command(client, g, {"type": "choose_defense", "defense": pick, "attack": pending["id"]}, key=mira["player_token"])
    assert r.status_code == 200, r.json
    # answered: the attack is rolled and the runner ends the Orc's turn
    _until(lambda: _current(client, g) != ids["Orc"])
    assert state(client, g)["foe_play"]["on"] is True


@FAST
def test_the_gms_own_command_turns_it_off_and_its_runner_stops(app, client):
    g, mira, ids = _two_against_two(client)
    _to_a_players_turn(client, g, ids)
    _on(client, g)
    hub = app.extensions["tacmap"]
    runner = _until(lambda: hub.foe_players.running(g["id"]))
    assert state(client, g)["foe_play"]["runner"] == runner
    # the GM moves a token by hand: the switch goes off in the same step, and says why
    assert command(client, g, {"type": "move_token", "token_id": ids["Imp"], "x": 9, "y": 6, "force": True}).status_code == 200
    s = state(client, g)
    assert s["foe_play"] == {"on": False, "why": "touched"}
    assert "The foes are no longer played: the GM took the table back" in _log(client, g)
    _until(lambda: hub.foe_players.running(g["id"]) is None)
    # Mira ends her turn: nobody plays the foes now, their turn waits for the GM
    assert command(client, g, {"type": "next_turn"}).status_code == 200
    assert command(client, g, {"type": "next_turn"}).status_code == 200
    seq = state(client, g)["seq"]
    time.sleep(0.5)
    assert state(client, g)["seq"] == seq
    # the switch itself is no touch: on, then off by the switch
    _on(client, g)
    assert state(client, g)["foe_play"]["on"] is True
    assert command(client, g, {"type": "play_foes", "on": False}).status_code == 200
    assert state(client, g)["foe_play"] == {"on": False, "why": "off"}
    assert command(client, g, {"type": "play_foes", "on": False}).status_code == 422  # off already: said so


@FAST
def test_a_runner_that_is_not_the_games_own_has_its_steps_refused(app, client):
    g, mira, ids = _two_against_two(client)
    _to_a_players_turn(client, g, ids)
    hub = app.extensions["tacmap"]
    _on(client, g)
    first = state(client, g)["foe_play"]["runner"]
    assert command(client, g, {"type": "play_foes", "on": False}).status_code == 200
    _on(client, g)  # on again (as another process would have it): a new runner
    second = state(client, g)["foe_play"]["runner"]
    assert second != first
    step = {"type": "move_token", "token_id": ids["Imp"], "x": 9, "y": 7}
    with pytest.raises(Rejected, match="no longer played"):
        hub.execute(g["id"], Actor("gm", by=first), step)  # the old runner's step changes nothing
    assert state(client, g)["foe_play"]["runner"] == second
    # a player may not turn the switch, nor the table screen
    for key in (mira["player_token"], g["screen_token"]):
        assert command(client, g, {"type": "play_foes", "on": False}, key=key).status_code in (403, 422)
    assert state(client, g)["foe_play"]["on"] is True
    # a bad switch is refused and changes nothing
    r = command(client, g, {"type": "play_foes", "on": "yes"})
    assert r.status_code == 422 and "on" in r.json["error"]
    assert state(client, g)["foe_play"]["runner"] == second


@FAST
def test_the_switch_needs_a_fight_whose_foes_have_plans(app, client):
    g = new_game(client, "gurps_lite", board={"width": 8, "height": 6})
    r = command(client, g, {"type": "play_foes", "on": True})
    assert r.status_code == 422 and r.json["error"] == "there is no fight on"
    # a system with no planner (the plain grid): no plans reckoned there (hex maps are, since #67)
    hexes = new_game(client, "plain_grid", board={"width": 8, "height": 6, "grid": "hex", "orientation": "pointy"})
    ids = [client.post(f"/api/games/{hexes['id']}/tokens", json={"name": n, "x": x, "y": 1},
                       headers=bearer(hexes["gm_token"])).json["id"] for n, x in (("Ray", 1), ("Bug", 4))]
    assert command(client, hexes, {"type": "start_combat", "token_ids": ids}).status_code == 200
    r = command(client, hexes, {"type": "play_foes", "on": True})
    assert r.status_code == 422 and "cannot be played" in r.json["error"]
    assert state(client, hexes)["foe_play"] == {}


def _far_fight(client, walls=(), grid=None):
    """Mira's Ann and the GM's Orc, a sword its one weapon, at the two ends of a long room (3d6): no blow reaches
    her this turn (#67). ``grid``: "hex" for a hex map."""
    import rules
    sample = rules.get("gurps_lite").default_sheet()
    sheet = {**sample, "name": "Orc", "weapons": {"Broadsword": sample["weapons"]["Broadsword"]}}
    g, mira, ids = game_with(client, "gurps_lite", {"width": 30, "height": 8, "walls": list(walls),
                                                    **({"grid": grid} if grid else {})},
                             [("Ann", (24, 3), True), ("Orc", (3, 3), False)], name="Far", sheets={"Orc": sheet},
                             start=True)
    _to_a_players_turn(client, g, ids)
    return g, mira, ids


def _orc_played(client, g, mira, ids):
    """Mira ends Ann's turn; the state once the runner has played the Orc's and it is Ann's again."""
    seq = state(client, g)["seq"]
    assert command(client, g, {"type": "next_turn"}, key=mira["player_token"]).status_code == 200
    return _until(lambda: (s := state(client, g))["combat"]["current"] == ids["Ann"] and s["seq"] > seq + 1 and s)


@FAST
def test_a_foe_no_blow_reaches_closes_in_turn_by_turn(app, client):
    g, mira, ids = _far_fight(client)
    _on(client, g)
    xs = [3]
    for _turn in range(2):
        s = _orc_played(client, g, mira, ids)
        orc = next(t for t in s["tokens"] if t["id"] == ids["Orc"])
        assert orc["y"] == 3 and orc["x"] > xs[-1], (xs, orc)  # nearer along the room, each of its turns
        xs.append(orc["x"])
        assert s["foe_play"]["on"] is True  # its move played, its turn ended: nothing refused
    assert not any("has no plan" in t for t in _log(client, g))


@FAST
def test_on_a_hex_map_the_runner_plays_a_far_foe_closing_in_turn_by_turn(app, client):
    """Hex maps are reckoned (#67): the switch goes on, and the Orc walks up hex by hex as on squares."""
    g, mira, ids = _far_fight(client, grid="hex")
    _on(client, g)
    xs = [3]
    for _turn in range(2):
        s = _orc_played(client, g, mira, ids)
        orc = next(t for t in s["tokens"] if t["id"] == ids["Orc"])
        assert orc["x"] > xs[-1], (xs, orc)
        xs.append(orc["x"])
        assert s["foe_play"]["on"] is True
    assert not any("has no plan" in t for t in _log(client, g))


@FAST
def test_a_foe_walled_in_passes_and_its_line_says_why(app, client):
    box = [{"a": [1, 1], "b": [6, 1]}, {"a": [6, 1], "b": [6, 6]}, {"a": [6, 6], "b": [1, 6]}, {"a": [1, 6], "b": [1, 1]}]
    g, mira, ids = _far_fight(client, box)
    _on(client, g)
    s = _orc_played(client, g, mira, ids)
    assert s["foe_play"]["on"] is True
    assert "Orc has no plan (no way leads to any of its foes): its turn ends" in _log(client, g)


def test_the_api_gives_a_far_foe_its_approach_and_a_walled_in_one_the_words_why(app, client):
    g, mira, ids = _far_fight(client)
    url = f"/api/games/{g['id']}/suggestions/{ids['Orc']}"
    found = client.get(url, headers=bearer(g["gm_token"])).json
    best = found["plans"][0]
    assert best["kind"] == "approach" and best["target"] == ids["Ann"] and best["hit"] is None
    assert "none" not in found and "closing in on Ann" in best["summary"]
    assert "Ann" in client.get(url + "?lang=de", headers=bearer(g["gm_token"])).json["plans"][0]["summary"]
    box = [{"a": [1, 1], "b": [6, 1]}, {"a": [6, 1], "b": [6, 6]}, {"a": [6, 6], "b": [1, 6]}, {"a": [1, 6], "b": [1, 1]}]
    shut, _mira, shut_ids = _far_fight(client, box)
    url = f"/api/games/{shut['id']}/suggestions/{shut_ids['Orc']}"
    found = client.get(url, headers=bearer(shut["gm_token"])).json
    assert found["plans"] == [] and found["none"] == "no way leads to any of its foes"
    assert client.get(url + "?lang=de", headers=bearer(shut["gm_token"])).json["none"] == \
        "kein Weg führt zu einem seiner Gegner"
    client.get(f"/games/{shut['id']}/gm?key={shut['gm_token']}", follow_redirects=True)  # the GM's page: seated
    html = client.get(f"/games/{shut['id']}/foe-plans/{shut_ids['Orc']}?lang=de").get_data(as_text=True)
    assert "Kein Plan: kein Weg führt zu einem seiner Gegner. Der nächste Zug geht weiter." in html


@pytest.mark.app_config(DEMO=False)
def test_where_the_foes_have_no_plans_the_gm_page_says_so_beside_the_switch(app, client, monkeypatch):
    """A system without a planner (a plug-in's): no switch and no plans, and the GM's fight card says why where the
    switch would be, in the GM's language (#67); the phone is told nothing of it. A hex map has the switch (its foes
    are planned on hexes)."""
    import rules

    hexes = new_game(client, "gurps_lite", board={"width": 8, "height": 6, "grid": "hex", "orientation": "pointy"})
    ids = [client.post(f"/api/games/{hexes['id']}/tokens", json={"name": n, "x": x, "y": 1},
                       headers=bearer(hexes["gm_token"])).json["id"] for n, x in (("Ray", 1), ("Bug", 4))]
    assert command(client, hexes, {"type": "start_combat", "token_ids": ids}).status_code == 200
    page = client.get(f"/games/{hexes['id']}/gm?key={hexes['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'id="play-foes"' in page and "foe-plans-missing" not in page
    # a system without a planner (a plug-in's): its name, and no switch
    monkeypatch.setattr(type(rules.get("savage_worlds")), "planner", None)
    g = new_game(client, "savage_worlds", board={"width": 8, "height": 6})
    mira = join(client, g, "Mira")
    ids = [client.post(f"/api/games/{g['id']}/tokens", json={"name": n, "x": x, "y": 1, "owner": o},
                       headers=bearer(g["gm_token"])).json["id"] for n, x, o in (("Ray", 1, mira["player_id"]),
                                                                                  ("Bug", 4, None))]
    assert command(client, g, {"type": "start_combat", "token_ids": ids}).status_code == 200
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}&lang=en", follow_redirects=True).get_data(as_text=True)
    assert 'id="play-foes"' not in page
    assert "Savage Worlds (SWADE) has no plans for its foes, so Play the foes is not offered: play them by hand." in page
    page = client.get(f"/games/{g['id']}/gm?key={g['gm_token']}&lang=de", follow_redirects=True).get_data(as_text=True)
    assert "foe-plans-missing" in page and "Savage Worlds (SWADE) has no plans" not in page  # said in German
    phone = client.get(f"/games/{g['id']}/play?key={mira['player_token']}", follow_redirects=True).get_data(as_text=True)
    assert "foe-plans-missing" not in phone and "Play the foes" not in phone
    # where the foes have plans: the switch, and no such words
    g2, _m, _ids = _two_against_two(client)
    page = client.get(f"/games/{g2['id']}/gm?key={g2['gm_token']}", follow_redirects=True).get_data(as_text=True)
    assert 'id="play-foes"' in page and "foe-plans-missing" not in page
