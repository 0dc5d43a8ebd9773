"""GURPS Lite's turn refusals over Socket.IO in the sender's language (#37): a second maneuver in one turn, a move
before the turn's maneuver is chosen; the maneuver's name inside the sentence in the same language; the JSON API
keeps the English sentence and nothing changes."""

from __future__ import annotations

import pytest


from test_i18n_reach_and_range_refusals import refused, table
from test_i18n_server_notices import connect
from tests.helpers import bearer


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def test_a_second_maneuver_and_a_move_before_one_are_refused_in_each_senders_language(app):
    c, g, ids = table(app, "gurps_lite")
    r = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
               json={"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    state = lambda: c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json  # noqa: E731
    who = state()["combat"]["current"]
    where = next(t for t in state()["tokens"] if t["id"] == who)
    de, es = connect(app, g["id"], g["gm_token"], "de"), connect(app, g["id"], g["gm_token"], "es")

    step = {"type": "move_token", "token_id": who, "x": where["x"], "y": where["y"] + 1}
    said = refused(de, step)
    assert said.startswith("zuerst ein Manöver wählen: jedes Manöver erlaubt seine eigene Bewegung"), said
    assert "choose a maneuver" not in said

    assert c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
                  json={"type": "act", "token_id": who, "action": "attack"}).status_code == 200
    again = {"type": "act", "token_id": who, "action": "move"}
    before = state()
    assert refused(de, again) == "ein Manöver pro Zug: Angriff ist gewählt"
    assert refused(es, again) == "una maniobra por turno: se ha elegido Ataque"
    english = c.post(f"/api/games/{g['id']}/commands", json=again, headers=bearer(g["gm_token"]))
    assert english.status_code == 422 and english.json["error"] == "one maneuver a turn: Attack is chosen", english.json
    after = state()  # nothing changed: the same turn, the same log
    assert after["combat"] == before["combat"] and after["log"] == before["log"]


def test_the_attack_cards_note_reasons_and_outcomes_reach_a_german_device_in_german(app):
    """A Rapid Strike at two foes previewed from a German device: the card's note ("Schneller Schlag auf 2 Ziele"),
    an option's "why not" (Tip Slash needs a thrusting impaling weapon) and its outcome lines are German."""
    from test_i18n_reach_and_range_refusals import rules

    c, g, ids = table(app, "gurps_lite", rules.get("gurps_lite").default_sheet())
    near = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
                  json={"type": "move_token", "token_id": ids["Foe"], "x": 3, "y": 2})
    assert near.status_code == 200, near.json
    other = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Cat", "x": 3, "y": 3},
                   headers=bearer(g["gm_token"])).json["id"]
    look = {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": "Broadsword",
            "options": {"rapid_strike": True}, "targets": [ids["Foe"], other]}
    ack = connect(app, g["id"], g["gm_token"], "de").emit("command", look, callback=True)
    assert ack["ok"] is True, ack
    html = ack["html"]
    assert "Schneller Schlag auf 2 Ziele" in html and "Rapid Strike at 2 targets" not in html
    assert "braucht eine stechende Sto" in html and "needs a thrusting impaling weapon" not in html
    assert "kein Ziel getroffen" in html or "von 2 Zielen getroffen" in html


def test_odds_the_rules_leave_out_are_said_so_in_the_askers_language(app):
    """A grenade thrown at a token: GURPS Lite computes no odds for it (its scatter follows the dive); the card says
    why in the asker's language."""
    from test_i18n_reach_and_range_refusals import rules

    sheet = rules.get("gurps_lite").default_sheet()
    sheet["weapons"]["Grenade"] = {"skill": "Throwing", "damage": "3d", "type": "cr", "kind": "thrown", "area": 2,
                                   "max": 30}
    c, g, ids = table(app, "gurps_lite", sheet)
    look = {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": "Grenade"}
    ack = connect(app, g["id"], g["gm_token"], "de").emit("command", look, callback=True)
    assert ack["ok"] is True, ack
    assert ("nicht automatisiert: die Chancen eines Flächenangriffs auf eine Spielfigur (ihre Abweichung durch den "
            "Hechtsprung) werden nicht berechnet") in ack["html"], ack["html"]
    assert "not automated" not in ack["html"] and "odds of an area attack" not in ack["html"]
