"""The four systems' refusals a player meets most (#37): out of reach, an option of the wrong kind, a shot out of
range, said to each sender in its own language with the names and numbers filled in; the JSON API keeps the
English sentence."""

from __future__ import annotations

import pytest

import rules
from tests.helpers import bearer, new_game, put_token

from test_i18n_server_notices import connect


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def table(app, system: str, sheet: dict | None = None):
    """A game of ``system`` with the GM's Ann (with ``sheet``) at (2, 2) and a foe six squares away."""
    c = app.test_client()
    g = new_game(c, system, {"width": 16, "height": 8}, name="Reach")
    ids = {name: put_token(c, g, name, (x, 2)) for name, x in [("Ann", 2), ("Foe", 8)]}
    if sheet is not None:
        r = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
                   json={"type": "add_character", "name": "Ann", "token_id": ids["Ann"], "sheet": sheet})
        assert r.status_code == 200, r.json
    return c, g, ids


def refused(link, command) -> str:
    ack = link.emit("command", command, callback=True)
    assert ack["ok"] is False, ack
    return ack["error"]


def test_gurps_lites_reach_and_a_wrong_option_reach_each_sender_in_its_language(app):
    c, g, ids = table(app, "gurps_lite", rules.get("gurps_lite").default_sheet())
    hit = {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": "Broadsword", "defense": "none"}
    de, fr, es = (connect(app, g["id"], g["gm_token"], lang) for lang in ("de", "fr", "es"))
    assert refused(de, hit) == "Broadsword reicht 1 Meter; das Ziel ist 6 entfernt"
    assert refused(fr, hit) == "Broadsword porte à 1 mètre(s) ; la cible est à 6"
    assert refused(es, hit) == "Broadsword alcanza 1 metro(s); el objetivo está a 6"
    r = c.post(f"/api/games/{g['id']}/commands", json=hit, headers=bearer(g["gm_token"]))
    assert r.status_code == 422 and r.json["error"] == "Broadsword reaches 1 yard(s); the target is 6 away"
    near = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
                  json={"type": "move_token", "token_id": ids["Foe"], "x": 3, "y": 2})
    assert near.status_code == 200, near.json
    wrong = {**hit, "options": {"deceptive": "lots"}}
    said = refused(de, wrong)
    assert said.endswith(": eine ganze Zahl, nicht 'lots'") and "whole number" not in said, said
    assert refused(es, wrong).endswith(": un número entero, no 'lots'")
    english = c.post(f"/api/games/{g['id']}/commands", json=wrong, headers=bearer(g["gm_token"])).json["error"]
    assert english.endswith(": a whole number, not 'lots'"), english
    assert "Foe" in str(c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json)  # nothing broke


def test_tesseris_out_of_reach_is_refused_in_the_senders_language(app):
    sheet = rules.get("tesseris_ads").default_sheet()
    c, g, ids = table(app, "tesseris_ads", sheet)
    melee = next(k for k, w in sheet["weapons"].items() if w.get("kind") == "melee")
    name = sheet["weapons"][melee]["name"]
    hit = {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": melee}
    de, fr = connect(app, g["id"], g["gm_token"], "de"), connect(app, g["id"], g["gm_token"], "fr")
    assert refused(de, hit) == f"das Ziel ist 6 Felder entfernt; {name} reicht 1"
    assert refused(fr, hit) == f"la cible est à 6 cases ; {name} porte à 1"
    r = c.post(f"/api/games/{g['id']}/commands", json=hit, headers=bearer(g["gm_token"]))
    assert r.status_code == 422 and r.json["error"] == f"the target is 6 squares away; {name} reaches 1", r.json


def test_a_defense_refused_for_the_rules_reason_says_the_reason_and_the_defense_in_the_senders_language(app):
    """webapp/game/fight/attacks.py passes the rules' words (the defense's label, the rules' reason) as parameters of its
    own sentence: each is said in the sender's language with it, not in English inside a German sentence."""
    sheet = rules.get("tesseris_ads").default_sheet()
    c, g, ids = table(app, "tesseris_ads", sheet)
    melee = next(k for k, w in sheet["weapons"].items() if w.get("kind") == "melee")
    hit = {"type": "attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": melee, "defense": "none"}
    said = refused(connect(app, g["id"], g["gm_token"], "de"), hit)
    assert said.startswith("Foe kann nicht ") and "das Ziel ist 6 Felder entfernt" in said, said
    assert "No defense" not in said and "squares away" not in said, said


def test_the_attack_preview_refuses_in_the_senders_language_too(app):
    """The attack card's preview (its odds) says the rules' refusal in the sender's language, as the attack does."""
    c, g, ids = table(app, "gurps_lite", rules.get("gurps_lite").default_sheet())
    look = {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": "Broadsword"}
    de = connect(app, g["id"], g["gm_token"], "de")
    assert refused(de, look) == "Broadsword reicht 1 Meter; das Ziel ist 6 entfernt"
    r = c.post(f"/api/games/{g['id']}/commands", json=look, headers=bearer(g["gm_token"]))
    assert r.status_code == 422 and r.json["error"] == "Broadsword reaches 1 yard(s); the target is 6 away"


def test_phase_tns_declaration_out_of_order_is_refused_in_the_senders_language(app):
    """Phase/TN: the lower initiative declares first ("Initiative and Actions"); the one who tries before is told so
    in their language, with both names (the rules speak of ids: the names are put in)."""
    c, g, ids = table(app, "phase_tn")
    r = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
               json={"type": "start_combat", "token_ids": list(ids.values())})
    assert r.status_code == 200, r.json
    fight = c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["combat"]
    first = fight["current"]
    later = next(i for i in ids.values() if i != first)
    names = {v: k for k, v in ids.items()}
    wait = {"type": "act", "token_id": later, "action": "wait"}
    de, es = connect(app, g["id"], g["gm_token"], "de"), connect(app, g["id"], g["gm_token"], "es")
    assert refused(de, wait) == (f"{names[first]} sagt vor {names[later]} an (die niedrigere Initiative sagt "
                                 "zuerst an)")
    assert refused(es, wait) == (f"{names[first]} declara antes que {names[later]} (la iniciativa más baja declara "
                                 "primero)")
    r = c.post(f"/api/games/{g['id']}/commands", json=wait, headers=bearer(g["gm_token"]))
    assert r.status_code == 422 and r.json["error"] == (f"{names[first]} declares before {names[later]} (lower "
                                                        "initiative declares first)"), r.json
