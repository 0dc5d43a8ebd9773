"""Tesseris's rarer refusals and its attack card reach each Socket.IO client in its own language (#37): a maneuver
that needs a pinned or grappled foe, Mayhem one does not have and a Called Shot at the legs are refused in German
and Spanish with the names, numbers and the rules' words filled in; the JSON API keeps the English sentence; the
attack preview's outcome lines, hints and why-nots are drawn in German."""

from __future__ import annotations

import re

import pytest

import rules

from test_i18n_reach_and_range_refusals import refused, table
from test_i18n_server_notices import connect
from tests.helpers import bearer


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


@pytest.fixture
def close(app):
    """Ann and the Foe next to each other (a Tesseris game, Ann with the default sheet)."""
    c, g, ids = table(app, "tesseris_ads", rules.get("tesseris_ads").default_sheet())
    r = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
               json={"type": "move_token", "token_id": ids["Foe"], "x": 3, "y": 2})
    assert r.status_code == 200, r.json
    return c, g, ids


def test_a_maneuver_mayhem_and_a_called_shot_are_refused_in_each_senders_language(app, close):
    c, g, ids = close
    de, es = (connect(app, g["id"], g["gm_token"], lang) for lang in ("de", "es"))
    knife = {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": "knife"}
    cases = [
        ({**knife, "options": {"action": "pummel"}}, "Pummel needs a pinned opponent",
         "Einprügeln braucht einen niedergehaltenen Gegner", "Apalear necesita un oponente inmovilizado"),
        ({**knife, "options": {"action": "pin"}}, "Pin needs the attacker and the target grappled (Grapple first)",
         "Festhalten braucht Angreifer und Ziel im Griff (erst Ringen)",
         "Inmovilizar necesita al atacante y al objetivo agarrados (primero Presa)"),
        ({**knife, "options": {"mayhem": 3}}, "Ann has 0 Mayhem points, not 3", "Ann hat 0 Mayhem-Punkte, nicht 3",
         "Ann tiene 0 puntos de Mayhem, no 3"),
    ]
    for command, english, german, spanish in cases:
        assert refused(de, command) == german
        assert refused(es, command) == spanish
        r = c.post(f"/api/games/{g['id']}/commands", json=command, headers=bearer(g["gm_token"]))
        assert r.status_code == 422 and r.json["error"] == english, r.json
    called = {**knife, "weapon": "rifle", "options": {"action": "called_shot", "called_at": "legs"}}
    german = refused(de, called)
    assert german.startswith("Gezielter Angriff: auf den Kopf") and german.endswith("nicht auf Beine"), german
    assert "Called Shot" not in german and "legs" not in german, german
    state = c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    assert "combat" not in state or not state["combat"], "nothing was rolled or started"


def test_the_attack_preview_draws_tesseris_outcomes_hints_and_why_nots_in_german(app, close):
    c, g, ids = close
    de = connect(app, g["id"], g["gm_token"], "de")
    ack = de.emit("command", {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe"],
                              "weapon": "knife"}, callback=True)
    assert ack["ok"] is True, ack
    html = ack["html"]
    outcomes = re.findall(r'<ol class="outcomes">(.*?)</ol>', html, re.S)
    lines = re.findall(r'class="what">([^<]*)<', outcomes[0])
    assert lines and any(line.startswith("Treffer: ") for line in lines), lines
    assert not any(line.startswith(("hit:", "critical:")) or "avoids" in line for line in lines), lines
    assert "Jetzt nicht: " in html and "Einprügeln braucht einen niedergehaltenen Gegner" in html
    assert "nur mit einem Gezielten Angriff (Fernkampfaktionen)" in html
    for english in ("Not now", "needs a pinned opponent", "only with a Called Shot", "found on the map",
                    "No cover from this side"):
        assert english not in html, english
