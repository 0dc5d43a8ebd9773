"""GURPS Lite's turn refusals over Socket.IO in the sender's language (#37): a second maneuver in one turn, a move
before the turn's maneuver is chosen; the maneuver's name inside the sentence in the same language; the JSON API
keeps the English sentence and nothing changes."""

from __future__ import annotations

import pytest

from webapp import create_app

from test_i18n_rest_notices import connect
from test_i18n_rules4_refusals import bearer, refused, table


@pytest.fixture
def app(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "5"})


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
