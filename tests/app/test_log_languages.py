"""The log and the result card per reader (issue #37): a line is kept as a message id with its parameters
and drawn in each reader's language, on a page and in a live update (rendered once per audience and
language); an old game's English lines read as they were written."""

from __future__ import annotations

import json
import re

import pytest

from tests.helpers import bearer, connect, new_game, put_token
from webapp.game.tableside import screenview
from webapp.game.core.model import SCREEN, Game, LogEntry
from webapp.live.screens import logcard, render


@pytest.fixture
def fight(client):
    """A Savage Worlds game with the GM's Hero and Ogre side by side; the game with their ids and the GM's headers."""
    g = new_game(client, "savage_worlds", name="Sprachen")
    return g | {"hero": put_token(client, g, "Hero", (2, 2)), "ogre": put_token(client, g, "Ogre", (3, 2)),
                "auth": bearer(g["gm_token"])}


def gm_page(client, g, lang: str) -> str:
    client.get(f"/games/{g['id']}/gm?key={g['gm_key'] if 'gm_key' in g else g['gm_token']}")
    return client.get(f"/games/{g['id']}/gm", headers={"Accept-Language": lang}).get_data(as_text=True)


def log_of(html: str) -> str:
    return re.search(r'<section id="log".*?</section>', html, re.S).group(0)


def test_a_move_reads_in_each_readers_language(client, fight):
    r = client.post(f"/api/games/{fight['id']}/commands", json={"type": "move_token", "token_id": fight["hero"],
                                                               "x": 2, "y": 3}, headers=fight["auth"])
    assert r.status_code == 200, r.json
    assert "Hero moved to (2, 3)" in log_of(gm_page(client, fight, "en"))
    german = log_of(gm_page(client, fight, "de-DE,de;q=0.9"))
    assert "Hero zieht nach (2, 3)" in german and "moved to" not in german
    assert "Hero se mueve a (2, 3)" in log_of(gm_page(client, fight, "es"))
    # the API's log keeps the English and the message id with its parameters (never the stored "_say")
    state = client.get(f"/api/games/{fight['id']}/state", headers=fight["auth"]).json
    line = state["log"][-1]
    assert line["text"] == "Hero moved to (2, 3)"
    assert line["message"] == {"msg": "{name} moved to {where}", "args": {"name": "Hero", "where": "(2, 3)"}}
    assert "_say" not in json.dumps(state["log"])


@pytest.mark.app_config(DICE_SEED="3")  # known dice: a hit or a miss (a critical failure, 1 in 48, reads otherwise)
def test_an_attack_and_its_card_read_in_german_and_survive_a_reload(app, client, hub, fight):
    r = client.post(f"/api/games/{fight['id']}/commands", json={"type": "attack", "attacker": fight["hero"],
                                                               "target": fight["ogre"], "weapon": None},
                    headers=fight["auth"])
    assert r.status_code == 200, r.json
    english = log_of(gm_page(client, fight, "en"))
    german = log_of(gm_page(client, fight, "de"))
    assert "Hero hits Ogre" in english or "Hero misses Ogre" in english, english
    assert ("Hero trifft Ogre" in german or "Hero verfehlt Ogre" in german) and "Hero hits" not in german
    assert "Kämpfen-Würfel" in german and "Wildwürfel" in german  # the roll breakdown too
    # a new process reads the game from its log: the words come back as message ids, not frozen English
    hub.games.clear()
    game = hub.game(fight["id"])
    entry = [e for e in game.log if e.detail and "card" in e.detail][-1]
    assert entry.message and entry.message["msg"].startswith("{attacker}")
    again = log_of(gm_page(client, fight, "de"))
    assert "Hero trifft Ogre" in again or "Hero verfehlt Ogre" in again
    with app.test_request_context(headers={"Accept-Language": "de"}):
        card = logcard.last_attack(game, SCREEN)
    assert card["verdict"] in ("TREFFER", "VERFEHLT") and card["text"].startswith("Hero ")


def test_an_old_games_english_lines_still_render(app, client, hub, fight):
    old = {"seq": 1, "text": "Mira moved to (3, 4)", "audience": "all", "detail": None}  # a log from before #37
    entry = LogEntry(**old)
    assert entry.message is None and entry.text == "Mira moved to (3, 4)"
    snapshot = hub.game(fight["id"]).to_dict()
    snapshot["log"] = [old, {"seq": 2, "text": "Mira rolled 1d20: 1d20[7] = 7", "audience": "all",
                             "detail": {"roll": {"text": "1d20[7] = 7"}, "by": "gm"}}]
    game = Game.from_dict(json.loads(json.dumps(snapshot)))
    with app.test_request_context(headers={"Accept-Language": "de"}):
        html = "".join(logcard.log_item(app)(e) for e in game.log)
    assert "Mira moved to (3, 4)" in html and "Mira rolled 1d20: 1d20[7] = 7" in html
    # and an old line kept in a live game beside the new ones
    live = hub.game(fight["id"])
    live.log.append(LogEntry(seq=live.seq, text="An old English line"))
    assert "An old English line" in log_of(gm_page(client, fight, "de"))


def test_live_updates_are_rendered_once_per_language_and_sent_to_each(app, client, fight, monkeypatch):
    player = client.post(f"/api/games/{fight['id']}/players", json={"join_code": fight["join_code"], "name": "Mira"}).json
    gm = connect(app, fight["id"], fight["gm_token"])
    german = app.extensions["tacmap_socketio"].test_client(app, auth={"game": fight["id"], "token": player["player_token"]},
                                                          headers={"Accept-Language": "de"})
    spanish = app.extensions["tacmap_socketio"].test_client(app, auth={"game": fight["id"], "token": player["player_token"]},
                                                           headers={"Accept-Language": "es"})
    screen = app.extensions["tacmap_socketio"].test_client(app, auth={"game": fight["id"], "token": fight["screen_token"]},
                                                          headers={"Accept-Language": "fr"})
    for c in (german, spanish, screen):
        c.get_received()
    renders = []
    real = render.fragments
    monkeypatch.setattr(render, "fragments", lambda *a, **k: renders.append(a[1].audience) or real(*a, **k))
    ack = gm.emit("command", {"type": "move_token", "token_id": fight["hero"], "x": 4, "y": 2}, callback=True)
    assert ack["ok"]

    def html(c):
        return " ".join(m["args"][0]["html"] for m in c.get_received() if m["name"] == "update")

    assert "Hero zieht nach (4, 2)" in html(german)
    assert "Hero se mueve a (4, 2)" in html(spanish)
    # one render per (audience, language): the GM, the player in German and in Spanish, the screen
    assert sorted(renders) == sorted(["gm", f"player:{player['player_id']}", f"player:{player['player_id']}", "screen"])
    html(screen)
    # an attack on the table screen (its result card): in the screen device's own language, none chosen
    attack = {"type": "attack", "attacker": fight["ogre"], "target": fight["hero"], "weapon": None}
    assert gm.emit("command", attack, callback=True)["ok"]
    card = re.search(r'<section id="result-card".*?</section>', html(screen), re.S).group(0)
    # (the dice are the game's own: a hit, a miss or a critical failure, each said in French)
    assert re.search(r'result-verdict">(TOUCHÉ|RATÉ)<', card) and any(
        line in card for line in ("Ogre touche Hero", "Ogre rate Hero", "Ogre : échec critique")), card
    # the GM chooses German for the table screen: the screen's update follows the choice, not its device
    monkeypatch.setattr(screenview, "screen_language", lambda game: "de")
    assert gm.emit("command", attack, callback=True)["ok"]
    card = re.search(r'<section id="result-card".*?</section>', html(screen), re.S).group(0)
    assert re.search(r'result-verdict">(TREFFER|VERFEHLT)<', card) and any(
        line in card for line in ("Ogre trifft Hero", "Ogre verfehlt Hero", "Ogre: kritischer Fehlschlag")), card


def test_a_refusal_and_an_attack_preview_speak_the_senders_language(app, client, fight):
    german = app.extensions["tacmap_socketio"].test_client(app, auth={"game": fight["id"], "token": fight["gm_token"]},
                                                          headers={"Accept-Language": "de"})
    preview = german.emit("command", {"type": "preview_attack", "attacker": fight["hero"], "target": fight["ogre"],
                                      "weapon": None}, callback=True)
    assert preview["ok"], preview
    assert "Gezielter Angriff" in preview["html"] and "Called Shot" not in preview["html"]
    # the rules refuse a Called Shot at a part they do not know: in German to the German GM's laptop
    refused = german.emit("command", {"type": "attack", "attacker": fight["hero"], "target": fight["ogre"], "weapon": None,
                                      "options": {"called": "elbow"}}, callback=True)
    assert not refused["ok"] and refused["error"].startswith("Gezielter Angriff: ein Glied"), refused
    english = connect(app, fight["id"], fight["gm_token"])
    refused = english.emit("command", {"type": "attack", "attacker": fight["hero"], "target": fight["ogre"], "weapon": None,
                                       "options": {"called": "elbow"}}, callback=True)
    assert refused["error"].startswith("Called Shot: a limb, hand, head or vitals"), refused
