"""A German phone and GM page in a GURPS Lite and a Phase/TN fight (issue #37): the rules' own words (the
turn's action buttons, why one is not open, the roll lines, the log, the distance left) read in German, with
no English of the rules left, and an English page of the same game still reads English (the words are stored
as message ids with their parameters, not as one language's text)."""

from __future__ import annotations

import html
import re

import pytest

from tests.helpers import bearer, game_with
from webapp import create_app


pytestmark = pytest.mark.app_config(DICE_SEED="7")


def fight(app, system_id: str):
    """A game of this system: a player's PC and two foes, a fight started, a move and an attack made."""
    api = app.test_client()
    g, p, ids = game_with(api, system_id, {"width": 12, "height": 8, "walls": []},
                          [("Hero", (2, 2), True), ("Bandit", (3, 2), False), ("Brute", (8, 5), False)], name="Ruins")
    for body in ({"type": "start_combat", "token_ids": list(ids.values())},
                 {"type": "move_token", "token_id": ids["Hero"], "x": 3, "y": 3},
                 {"type": "attack", "attacker": ids["Hero"], "target": ids["Bandit"]}):
        api.post(f"/api/games/{g['id']}/commands", json=body, headers=bearer(g["gm_token"]))
    return api, g, p


def pages(app, g, p, lang: str) -> tuple[str, str]:
    """The GM page and the player's phone, as a device asking for ``lang`` reads them (plain text)."""
    gm, phone = app.test_client(), app.test_client()
    gm.get(f"/?lang={lang}")
    phone.get(f"/?lang={lang}")
    gm.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
    gm_page = gm.get(f"/games/{g['id']}/gm").get_data(as_text=True)
    phone_page = phone.get(f"/games/{g['id']}/play?key={p['player_token']}", follow_redirects=True).get_data(as_text=True)
    return text(gm_page), text(phone_page)


def text(page: str) -> str:
    """A page's visible text and titles, one space between words."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    page = re.sub(r"<[^>]+>", " ", page)
    return " ".join(html.unescape(page).split())


def test_a_german_gurps_lite_fight_reads_its_rolls_moves_and_actions_in_german(app):
    _api, g, p = fight(app, "gurps_lite")
    gm, phone = pages(app, g, p, "de")
    for page in (gm, phone):
        assert re.search(r"Zugreihenfolge: \w+ für die Seite (?:der Spieler|der SL)", page), "the turn order's roll lines, in German"
        assert "Angriff: " in page, "an attack's roll: its purpose in German"
        assert "turn order:" not in page and "random hit location" not in page
    assert re.search(r"· \d+ Meter\b", gm), "the Move allowance in the action list, in German units"
    assert not re.search(r"· \d+ yards?\b", gm)
    en_gm, _en_phone = pages(app, g, p, "en")
    assert re.search(r"turn order: \w+ for the (?:players|GM)(?:'|&#39;)s? side", en_gm) and re.search(r"· \d+ yards?\b", en_gm), \
        "the same game read in English: the words are stored as messages, not as German text"


def test_a_german_phase_tn_fight_reads_its_declarations_and_phase_in_german(app):
    _api, g, p = fight(app, "phase_tn")
    gm, phone = pages(app, g, p, "de")
    for page in (gm, phone):
        assert "Phase 1 von 2 · Ansagen" in page, "the phase line beside the round"
        assert "sagt an (niedrigste Initiative zuerst)." in page, "whose turn to declare, in the log"
        assert "Initiative: " in page, "the initiative rolls' purpose"
        for english in ("turn to declare", "declarations", "lowest initiative first", "squares left"):
            assert english not in page, english
    # the GM's action list of whoever declares now: the declarations and why one is not open, in German
    assert "Bewegen ansagen (dann die Figur ziehen)" in gm and "Keine neue Aktion in dieser Phase" in gm
    assert re.search(r"Bewegen \(noch \d+ von \d+ Feldern\)", gm)
    assert "Phasenaktion" in gm
    assert "No new action this phase" not in gm and "Declare a Move" not in gm
    en_gm, _ = pages(app, g, p, "en")
    assert "phase 1 of 2 · declarations" in en_gm and "No new action this phase" in en_gm


def test_the_rules_words_are_stored_as_messages_and_read_in_german_after_a_restart(tmp_path):
    """The log and the fight's state keep message ids with their parameters: a server started again on the same
    data (the game read back from its log) shows the Phase/TN fight in German as before."""
    config = {"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DICE_SEED": "7"}
    _api, g, p = fight(create_app(config), "phase_tn")
    gm, phone = pages(create_app(config), g, p, "de")
    for page in (gm, phone):
        assert "Phase 1 von 2 · Ansagen" in page and "sagt an (niedrigste Initiative zuerst)." in page
        assert "turn to declare" not in page


def test_a_rule_systems_name_of_words_reads_in_german_and_a_products_name_as_published(app):
    """The systems' display names: the lobby's choice, a game's GM page and a help page say "Plain grid" and
    "Phase / target-number system" in the reader's language; Savage Worlds (SWADE) stays as published."""
    lobby = app.test_client()
    page = text(lobby.get("/?lang=de").get_data(as_text=True))
    assert "Einfaches Raster (ohne Regeln, nur Figuren)" in page and "Phasen- / Mindestwurf-System" in page
    assert "Savage Worlds (SWADE)" in page and "Plain grid" not in page and "target-number system" not in page
    _api, g, p = fight(app, "phase_tn")
    gm, _phone = pages(app, g, p, "de")
    assert "SL · Phasen- / Mindestwurf-System" in gm
    assert "Phasen- / Mindestwurf-System" in text(lobby.get("/help/phase_tn").get_data(as_text=True))
