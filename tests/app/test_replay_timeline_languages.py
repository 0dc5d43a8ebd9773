"""The replay's timeline in the reader's language (#37): its moments are words (rules.text.Say), put in the
language of whoever asks for them, German for a German GM, English for an English one, from the same game."""

from __future__ import annotations

import pytest

from tests.helpers import bearer
from webapp.game.views import replay_view


pytestmark = pytest.mark.app_config(DICE_SEED="7")


def test_the_timeline_reads_in_the_askers_language(app):
    api = app.test_client()
    g = api.post("/api/games", json={"name": "Ruins", "system": "plain_grid", "map": {"width": 8, "height": 6}}).json
    ids = [api.post(f"/api/games/{g['id']}/tokens", json={"name": n, "x": x, "y": 1},
                    headers=bearer(g["gm_token"])).json["id"] for n, x in (("Hero", 1), ("Bandit", 3))]
    for body in ({"type": "start_combat", "token_ids": ids}, {"type": "next_turn"}, {"type": "next_turn"},
                 {"type": "move_token", "token_id": ids[0], "x": 2, "y": 2}, {"type": "end_combat"}):
        api.post(f"/api/games/{g['id']}/commands", json=body, headers=bearer(g["gm_token"]))
    said = {}
    for lang in ("en", "de", "es"):
        gm = app.test_client()
        gm.get(f"/?lang={lang}")
        gm.get(f"/games/{g['id']}/gm?key={g['gm_token']}")
        r = gm.get(f"/games/{g['id']}/timeline")
        assert r.status_code == 200
        said[lang] = [m["text"] for m in r.json["moments"]]
    assert "Round 1" in said["en"] and "Round 2" in said["en"] and "Round 1: Hero's turn" in said["en"]
    assert "Runde 1" in said["de"] and "Runde 2" in said["de"] and "Runde 1: Hero ist am Zug" in said["de"]
    assert "Ronda 1: turno de Hero" in said["es"] and "Hero se mueve" in said["es"]
    assert any(t.startswith("Der Kampf endet") for t in said["de"])
    assert len(said["en"]) == len(said["de"]) == len(said["es"])  # the same moments, each in its words


def test_a_kept_timeline_keeps_its_words():
    """A timeline written to disk (``Moment.to_plain``) and read back keeps its message ids: it reads in any
    language afterwards; one kept before, as English text, reads as it was."""
    from rules.text import say
    from webapp.game.core import speech
    m = replay_view.Moment(3, "turn", say("Round {round}: {name}'s turn", round=2, name="Hero"), 2, 1,
                           frozenset(), frozenset(), say("Round {round}: {name}'s turn", round=2, name="Hero"))
    back = replay_view.Moment.from_plain(m.to_plain())
    assert back.text == "Round 2: Hero's turn"
    assert speech.words(back.text, "de", speech.catalog("de")) == "Runde 2: Hero ist am Zug"
    old = replay_view.Moment.from_plain([3, "round", "Round 2", 2, 1, [], [], "Round 2"])
    assert old.text == "Round 2" and old.told == "Round 2"
