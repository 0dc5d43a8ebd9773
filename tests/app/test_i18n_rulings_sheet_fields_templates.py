"""The last English the first Tesseris pass found outside rules/ (#37), each read in the reader's language and
unchanged in English: a rule the rules leave to the GM ("not automated: ..."), a sheet field the rules or the
form refuse (the field's label and the reason in one sentence), and the templates panel's size in the system's
unit ("Größe (Meter)", not "Yards") with the templates laid (their kind, size, who laid them, who is under)."""

from __future__ import annotations

import html
import re

import pytest

import rules

from test_i18n_reach_and_range_refusals import refused, table
from test_i18n_server_notices import connect
from tests.helpers import bearer, new_game, start_fight


pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def fight(app, system: str):
    """A ``system`` game with Ann and the Foe in a fight; the id of whoever's turn it is."""
    c, g, ids = table(app, system)
    return c, g, start_fight(c, g, ids.values())["current"]


def test_an_action_the_rules_leave_to_the_gm_is_refused_in_the_senders_language(app):
    c, g, who = fight(app, "tesseris_ads")
    bribe = {"type": "act", "token_id": who, "action": "bribe"}
    de, fr, es = (connect(app, g["id"], g["gm_token"], lang) for lang in ("de", "fr", "es"))
    assert refused(de, bribe) == "nicht automatisiert: Tesseris: Bestechen ist nicht automatisiert; die SL entscheidet"
    assert refused(fr, bribe).startswith("non automatisé : Tesseris : ")
    assert refused(es, bribe).startswith("no automatizado: Tesseris: ")
    r = c.post(f"/api/games/{g['id']}/commands", json=bribe, headers=bearer(g["gm_token"]))
    assert r.status_code == 422 and r.json["error"] == (
        "not automated: Tesseris: Bribe is not automated; the GM adjudicates it"), r.json
    assert refused(connect(app, g["id"], g["gm_token"], None), bribe) == r.json["error"]
    # any system's: the words around the rules' own reason are the reader's (Savage Worlds' reason is its own)
    c, g, who = fight(app, "savage_worlds")
    odd = {"type": "act", "token_id": who, "action": "no_such_thing"}
    said = refused(connect(app, g["id"], g["gm_token"], "de"), odd)
    assert said.startswith("nicht automatisiert: ") and not said.startswith("not automated"), said
    english = c.post(f"/api/games/{g['id']}/commands", json=odd, headers=bearer(g["gm_token"])).json["error"]
    assert english.startswith("not automated: Savage Worlds: "), english


def test_the_attack_cards_missing_odds_are_said_in_the_askers_language(app):
    """GURPS Lite leaves the odds of an area weapon thrown at a token to the template: the card says so."""
    sheet = rules.get("gurps_lite").default_sheet()
    sheet["weapons"]["Grenade"] = {"skill": "Throwing", "damage": "3d", "type": "cr", "kind": "ranged", "area": 2,
                                   "half_d": 10, "max": 20}
    c, g, ids = table(app, "gurps_lite", sheet)
    preview = {"type": "preview_attack", "attacker": ids["Ann"], "target": ids["Foe"], "weapon": "Grenade"}
    for lang, said in (("de", "nicht automatisiert: "), ("es", "no automatizado: "), (None, "not automated: ")):
        ack = connect(app, g["id"], g["gm_token"], lang).emit("command", preview, callback=True)
        assert ack["ok"] is True, ack
        missing = re.findall(r'<p class="empty">([^<]*)</p>', ack["html"])
        assert len(missing) == 1 and missing[0].startswith(said), missing
        assert ack["preview"]["odds_missing"].startswith("not automated: "), ack["preview"]  # the data: English


def sheet_page(app, system: str, lang: str):
    """A browser in ``lang`` holding the GM's seat of a ``system`` game, and the sheet address of Aria (with her
    character made)."""
    c = app.test_client()
    g = new_game(c, system, name="Cast")
    tok = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1},
                 headers=bearer(g["gm_token"])).json["id"]
    c.set_cookie("lang", lang)
    c.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    url = f"/games/{g['id']}/tokens/{tok}/sheet"
    made = c.post(url).get_data(as_text=True)
    return c, url, made


def said(body: str) -> tuple[list[str], list[str]]:
    """The sheet's answer: what the box above the form says, and what is said beside the fields."""
    above = re.findall(r'<p class="flash-inline (?:error|ok)" role="(?:alert|status)">([^<]*)</p>', body)
    beside = re.findall(r'<small class="why" role="alert">([^<]*)</small>', body)
    return [html.unescape(t) for t in above], [html.unescape(t) for t in beside]


@pytest.mark.parametrize("lang, made, rules_refusal, form_refusal, unchanged", [
    ("de", "Gespeichert.", ("Stärke: 0 oder mehr, nicht -1", "0 oder mehr, nicht -1"),
     ("Stärke: eine ganze Zahl, nicht 'viel'", "eine ganze Zahl, nicht 'viel'"), "Nichts geändert."),
    ("fr", "Enregistré.", ("Force : 0 ou plus, pas -1", "0 ou plus, pas -1"),
     ("Force : un nombre entier, pas 'viel'", "un nombre entier, pas 'viel'"), "Rien n'a changé."),
    ("en", "Saved.", ("Strength: 0 or more, not -1", "0 or more, not -1"),
     ("Strength: a whole number, not 'viel'", "a whole number, not 'viel'"), "Nothing changed."),
])
def test_a_refused_sheet_field_is_one_sentence_in_the_readers_words(app, lang, made, rules_refusal, form_refusal,
                                                                    unchanged):
    c, url, body = sheet_page(app, "tesseris_ads", lang)
    assert said(body) == ([made], [])
    # the rules refuse it (Tesseris: a rank is 0 or more): the field's label as the form shows it, and the reason
    above, beside = said(c.post(url, data={"strength": "-1"}).get_data(as_text=True))
    assert (above, beside) == ([rules_refusal[0]], [rules_refusal[1]])
    # the form cannot read it: the same sentence
    above, beside = said(c.post(url, data={"strength": "viel"}).get_data(as_text=True))
    assert (above, beside) == ([form_refusal[0]], [form_refusal[1]])
    assert said(c.post(url, data={}).get_data(as_text=True)) == ([unchanged], [])


def test_a_sheet_the_rules_refuse_by_command_is_said_in_the_senders_language(app):
    """Not from the sheet page (a script's or another client's update_sheet): the rules' reason in its words."""
    c, g, ids = table(app, "tesseris_ads", rules.get("tesseris_ads").default_sheet())
    state = c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    cid = next(ch["id"] for ch in state["characters"] if ch["name"] == "Ann")
    weak = {"type": "update_sheet", "character_id": cid, "changes": {"strength": -1}}
    assert refused(connect(app, g["id"], g["gm_token"], "de"), weak) == "sheet: strength: 0 oder mehr, nicht -1"
    assert refused(connect(app, g["id"], g["gm_token"], "fr"), weak) == "sheet : strength : 0 ou plus, pas -1"
    r = c.post(f"/api/games/{g['id']}/commands", json=weak, headers=bearer(g["gm_token"]))
    assert r.status_code == 422 and r.json["error"] == "sheet: strength: 0 or more, not -1", r.json


def templates_card(c, g) -> str:
    page = c.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
    return html.unescape(re.search(r'<section id="templates-card".*?</section>', page, re.S).group(0))


def lay(c, g, **template):
    r = c.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
               json={"type": "place_template", **template})
    assert r.status_code == 200, r.json


@pytest.mark.parametrize("system, lang, size, laid", [
    ("tesseris_ads", "de", "Größe (Meter)", ["Kreisschablone", "(2 Meter; die SL)", "niemand",
                                             "(Kegelschablone, 1,5 Meter; die SL)",
                                             '<span class="under-list">Ann</span>',
                                             'aria-label="Kegelschablone „Feuer“ von der Karte nehmen"']),
    ("tesseris_ads", "es", "Tamaño (metros)", ["(2 metros; ", "nadie"]),
    ("tesseris_ads", "en", "Size (yards)", ["circle template", "(2 yards; the GM)", "nobody",
                                            "(cone template, 1.5 yards; the GM)",
                                            'aria-label="Take the cone template ‘Feuer’ off the map"']),
    ("savage_worlds", "de", "Größe (Zoll)", ['(2"; die SL)', '(Kegelschablone, 1.5"; die SL)']),
    ("gurps_lite", "fr", "Taille (mètres)", ["(2 mètres; le MJ)", "personne"]),
])
def test_the_templates_panel_says_sizes_in_the_systems_unit_in_the_readers_words(app, system, lang, size, laid):
    c, g, ids = table(app, system)
    c.set_cookie("lang", lang)
    card = templates_card(c, g)
    assert f"<label>{size} <input" in card, card
    lay(c, g, shape="circle", x=2.5, y=2.5, size=2)  # over Ann
    lay(c, g, shape="cone", x=12, y=5, size=1.5, direction=180, label="Feuer")  # over nobody
    card = templates_card(c, g)
    for text in laid:
        assert text in card, (text, card)
    log = {"de": "(1,5 lang)", "en": "(1.5 long)", "es": "(1,5 de largo)"}.get(lang)
    if log and system == "tesseris_ads":  # the log's size is a number the reader's language writes
        page = c.get(f"/games/{g['id']}/gm?key={g['gm_token']}", follow_redirects=True).get_data(as_text=True)
        assert log in html.unescape(page), log
    if lang != "en":
        laid_list = re.search(r'<ul class="template-list">.*?</ul>', card, re.S).group(0)
        for english in ("Yards", "yards", "nobody", "circle", "cone template", "the GM", "(cone,"):
            assert english not in laid_list and english not in size, (english, laid_list)
