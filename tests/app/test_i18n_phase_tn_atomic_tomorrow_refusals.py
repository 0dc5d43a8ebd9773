"""Phase/TN's and Atomic Tomorrow's rarer refusals (#37) reach each Socket.IO sender in its own language: a turn
action the rules refuse, a declaration whose weapon cannot fire it, a bad setting and a bad sheet entry (their
words kept through the app's "settings:" and "sheet:" sentences); the JSON API keeps the English."""

from __future__ import annotations

import pytest

import rules
from tests.helpers import bearer, start_fight
from webapp import create_app

from test_i18n_reach_and_range_refusals import refused, table
from test_i18n_server_notices import connect


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def english(c, g, command) -> str:
    r = c.post(f"/api/games/{g['id']}/commands", json=command, headers=bearer(g["gm_token"]))
    assert r.status_code == 422, r.json
    return r.json["error"]


def said(c, g, links, command) -> list[str]:
    """The refusal of ``command`` as each Socket.IO link hears it, then as the JSON API says it (English)."""
    return [refused(link, command) for link in links] + [english(c, g, command)]


def test_phase_tn_refusals_of_a_turn_reach_each_sender_in_its_language(app):
    c, g, ids = table(app, "phase_tn", rules.get("phase_tn").default_sheet())
    first = start_fight(c, g, ids.values())["current"]
    names = {v: k for k, v in ids.items()}
    de, es = connect(app, g["id"], g["gm_token"], "de"), connect(app, g["id"], g["gm_token"], "es")
    drop = {"type": "act", "token_id": first, "action": "lose_targeting"}
    assert said(c, g, (de, es), drop) == [f"{names[first]} hat nichts anvisiert", f"{names[first]} no tiene blanco fijado",
                                          f"{names[first]} holds no Targeting"]
    # a three-round burst from a semi-automatic sidearm: the action's and the mode's words in the sender's language
    other = next(i for i in ids.values() if i != first)
    burst = {"type": "act", "token_id": first, "action": "declare:three_round_burst", "options": {"target": other}}
    assert said(c, g, (de, es), burst) == ["Dreier-Feuerstoß braucht eine automatische Waffe; Sidearm ist halbautomatisch",
                                           "Ráfaga de tres necesita un arma automática; Sidearm es de semiautomática",
                                           "Three-round burst needs an automatic weapon; Sidearm is semi-automatic"]


def test_a_phase_tn_setting_and_sheet_entry_are_refused_in_the_senders_language(app):
    """A setting the rules cannot use refuses the fight's start, and a sheet entry they cannot use its update: the
    rules' words inside the app's "sheet:" sentence are said in the sender's language too."""
    c, g, ids = table(app, "phase_tn", rules.get("phase_tn").default_sheet())
    de, fr = connect(app, g["id"], g["gm_token"], "de"), connect(app, g["id"], g["gm_token"], "fr")
    assert de.emit("command", {"type": "set_settings", "settings": {"drift_first_arm": "up"}}, callback=True)["ok"]
    start = {"type": "start_combat", "token_ids": list(ids.values())}
    assert refused(de, start) == "die Einstellung drift_first_arm muss 'right' oder 'left' sein"
    assert refused(fr, start) == "le réglage drift_first_arm doit valoir 'right' ou 'left'"
    assert english(c, g, start) == "setting drift_first_arm must be 'right' or 'left'"
    state = c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    assert state["combat"] is None or not state["combat"].get("order"), state["combat"]  # nothing started
    character = next(ch for ch in state["characters"] if ch["name"] == "Ann")
    weak = {"type": "update_sheet", "character_id": character["id"], "changes": {"attributes.strength": -1}}
    assert refused(de, weak) == "sheet: attributes.strength muss eine ganze Zahl sein, 0 oder mehr (erhalten: -1)"
    assert refused(fr, weak) == "sheet : attributes.strength doit être un nombre entier, 0 ou plus (reçu : -1)"
    assert english(c, g, weak) == "sheet: attributes.strength must be a whole number, 0 or more (got -1)"


ZONES = {"zones": [{"id": "west", "name": "Hangar", "adjacent": ["east"]},
                   {"id": "east", "name": "Launch pad", "adjacent": ["west"]}]}


def test_atomic_tomorrow_refusals_reach_each_sender_in_its_language(app):
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Zones", "system": "atomic_tomorrow", "map": ZONES}).json
    gm = bearer(g["gm_token"])
    for name, zone in (("Ann", "west"), ("Bob", "east")):
        r = c.post(f"/api/games/{g['id']}/commands", headers=gm, json={"type": "add_token", "name": name, "zone": zone})
        assert r.status_code == 200, r.json
    ids = {t["name"]: t["id"] for t in c.get(f"/api/games/{g['id']}/state", headers=gm).json["tokens"]}
    for name in ids:
        c.post(f"/api/games/{g['id']}/commands", headers=gm, json={"type": "add_character", "name": name,
                                                                  "token_id": ids[name]})
    first = start_fight(c, g, ids.values())["current"]
    names = {v: k for k, v in ids.items()}
    de, es = connect(app, g["id"], g["gm_token"], "de"), connect(app, g["id"], g["gm_token"], "es")
    grit = {"type": "act", "token_id": first, "action": "grit_check"}
    assert said(c, g, (de, es), grit) == [
        f"{names[first]} ist nicht kampfunfähig (4 Wunden); kein GRIT-x1-Wurf nötig",
        f"{names[first]} no está incapacitado (4 heridas); no hace falta tirada de GRIT x1",
        f"{names[first]} is not incapacitated (4 wounds); no GRIT x1 roll is needed"]
    other = next(i for i in ids.values() if i != first)
    shot = {"type": "attack", "attacker": first, "target": other, "weapon": "Blast pistol",
            "options": {"bonus": "+30"}}
    assert refused(de, shot) == ("bonus: einer von +0, +20, +40, nicht 30 (Situationsmodifikatoren gibt es in "
                                 "Schritten von 20)")
    assert english(c, g, shot) == ("bonus: one of +0, +20, +40, not 30 (situational modifiers come in steps of 20)")


def test_the_sheet_editor_says_the_rules_reason_beside_its_field_in_the_readers_language(tmp_path):
    """Atomic Tomorrow's sheet check (an attribute 1 to 30) refuses a BRAWN of 0 beside the field, in German on a
    German page (the attribute's capitals stay as the document prints them)."""
    from werkzeug.datastructures import MultiDict

    from htmlform import form_pairs
    from test_sheet_editor import cell_of, game_with_character, sheet_url

    client = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t",
                         "DEMO": False}).test_client()
    client.environ_base["HTTP_ACCEPT_LANGUAGE"] = "de"
    g, tok, _ = game_with_character(client, "atomic_tomorrow")
    form = [(k, "0" if k == "brawn" else v) for k, v in form_pairs(client.get(sheet_url(g, tok)).get_data(as_text=True))]
    body = client.post(sheet_url(g, tok), data=MultiDict(form)).get_data(as_text=True)
    cell = cell_of(body, "brawn")
    assert 'role="alert"' in cell and "1 bis 30, nicht 0" in cell, cell
    assert "1 to 30" not in body


def test_what_phase_tn_leaves_to_the_gm_is_said_in_the_askers_language(app):
    """Phase/TN's Melee Attacks section is empty: the attack card's odds say "not automated" and why in the asker's
    language (the rules' reason inside the app's words), and an action the rules do not know is refused likewise."""
    knife = {**rules.get("phase_tn").default_sheet(), "weapons": [{"name": "Knife", "skill": "brawling", "melee": True}]}
    c, g, ids = table(app, "phase_tn", knife)
    de = connect(app, g["id"], g["gm_token"], "de")
    ack = de.emit("command", {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe"],
                              "weapon": "Knife"}, callback=True)
    assert ack["ok"], ack
    assert "nicht automatisiert: Phase/TN: der Abschnitt Nahkampfangriffe des Dokuments ist leer" in ack["html"]
    assert "not automated" not in ack["html"] and "section is empty" not in ack["html"]
    first = start_fight(c, g, ids.values())["current"]
    dance = {"type": "act", "token_id": first, "action": "dance"}
    assert said(c, g, (de,), dance) == ["nicht automatisiert: Phase/TN: die Aktion 'dance' ist nicht automatisiert",
                                        "not automated: Phase/TN: the action 'dance' is not automated"]


def test_atomic_tomorrows_area_odds_read_in_the_askers_language(app):
    """An area weapon's odds card (core facts: it hits everyone in the target zone): its note and each target's
    outcome lines in German."""
    zones = {"zones": [{"id": "west", "name": "Hangar", "adjacent": ["centre"]},
                       {"id": "centre", "name": "Gantry", "adjacent": ["west"]}]}
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Zones", "system": "atomic_tomorrow", "map": zones}).json
    gm = bearer(g["gm_token"])
    for name, zone in (("Ann", "west"), ("Bob", "centre"), ("Cid", "centre")):
        assert c.post(f"/api/games/{g['id']}/commands", headers=gm,
                      json={"type": "add_token", "name": name, "zone": zone}).status_code == 200
    ids = {t["name"]: t["id"] for t in c.get(f"/api/games/{g['id']}/state", headers=gm).json["tokens"]}
    launcher = {"name": "Grenade launcher", "skill": "ranged", "wound_rating": 3, "ranges": ["near", "far"], "area": True}
    sheet = {**rules.get("atomic_tomorrow").default_sheet(), "weapons": [launcher]}
    c.post(f"/api/games/{g['id']}/commands", headers=gm, json={"type": "add_character", "name": "Ann",
                                                              "token_id": ids["Ann"], "sheet": sheet})
    de = connect(app, g["id"], g["gm_token"], "de")
    ack = de.emit("command", {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Bob"],
                              "weapon": "Grenade launcher"}, callback=True)
    assert ack["ok"], ack
    html = ack["html"]
    assert "eine Flächenwaffe trifft jeden in der Zielzone" in html and "verfehlt" in html, html
    assert "area weapon" not in html and "miss" not in html and "hit: " not in html, html
