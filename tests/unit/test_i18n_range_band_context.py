"""A range band's words have their own message context (#37): the English "medium" is a range band (Savage
Worlds, 3d6 (GURPS-Lite style), Tesseris: "range: medium") and a cover or armour grade ("medium cover"), and Spanish
needs *medio* for the first ("alcance: medio", alcance is masculine) and *media* for the second ("cobertura media");
the band once read "alcance: media". French says *moyenne* for both (portée and couverture are feminine), German
*mittel*. ``say_p`` keeps the context through a stored log line (pack/unpack) and babel's extraction."""

from __future__ import annotations

import io

import pytest
from babel.messages.extract import extract
from babel.messages.frontend import parse_keywords

import rules
from rules.atomic_tomorrow.data import ARMOUR_GRADE_WORDS
from rules.text import Say, pack, say, say_p, unpack
from webapp.game.board.editor import ZONE_COVER_WORDS
from webapp.game.core.speech import words

COLT = {"name": "Colt", "damage": "2d6+1", "range": "12/24/48"}


def bands() -> dict[str, Say]:
    """Each system's "medium" range band as its rules name it (the attack card's "range: ...")."""
    return {"savage_worlds": rules.get("savage_worlds").range_band(20, COLT),  # Ranged Attacks: 13-24 is Medium
            "gurps_lite": rules.get("gurps_lite").range_band(30, {"name": "Pistol"}),  # the range table's medium
            "tesseris_ads": rules.get("tesseris_ads").band_words["medium"]}


@pytest.mark.parametrize("lang, band, grade", [("es", "medio", "media"), ("fr", "moyenne", "moyenne"),
                                               ("de", "mittel", "mittel")])
def test_a_medium_range_band_and_a_medium_cover_grade_each_in_their_grammar(lang, band, grade):
    for system, word in bands().items():
        assert word == "medium", system  # the English (and the key code compares) unchanged
        assert words(word, lang) == band, (system, lang)
    assert words(ZONE_COVER_WORDS["medium"], lang) == grade  # the map editor's zone cover grade
    assert words(ARMOUR_GRADE_WORDS["medium"], lang) == grade  # Atomic Tomorrow's "medium armour"


def test_spanish_range_bands_agree_with_alcance():
    """Every band's Spanish word is masculine, as "alcance" is (extreme: *extremo*, not the grade's *extrema*)."""
    sw, tess = rules.get("savage_worlds"), rules.get("tesseris_ads")
    said = {key: words(w, "es") for key, w in tess.band_words.items()}
    assert said == {"melee": "cuerpo a cuerpo", "point_blank": "a quemarropa", "short": "corto", "medium": "medio",
                    "long": "largo", "far": "lejano", "extreme": "extremo"}
    assert [words(sw.range_band(d, COLT), "es") for d in (10, 20, 40, 90)] == ["corto", "medio", "largo", "extremo"]
    assert words(sw.range_band(1, {"name": "Long sword", "damage": "Str+d8"}), "es") == "cuerpo a cuerpo"


def test_the_context_is_kept_through_a_stored_line():
    word = rules.get("savage_worlds").range_band(20, COLT)
    line = say("range: {band}", band=word)
    stored = pack(line)
    assert stored["args"]["band"] == {"msg": "medium", "args": {}, "ctx": "range band"}
    back = unpack(stored)
    assert back.args["band"].context == "range band" and words(back.args["band"], "es") == "medio"
    assert unpack(pack(say("medium"))).context is None  # a word without one stays without


def test_a_catalog_without_pgettext_reads_the_plain_message():
    """A catalog that only has gettext (a test's, an old adapter) still says the word, by its plain id."""
    class Upper:
        def gettext(self, message):
            return message.upper()

        def ngettext(self, singular, plural, n):
            return (singular if n == 1 else plural).upper()

    assert say_p("range band", "medium").translate(Upper()) == "MEDIUM"


def test_babel_extracts_say_p_with_its_context():
    source = io.BytesIO(b'from rules.text import say, say_p\nA = say_p("range band", "medium")\nB = say("medium")\n')
    found = [(ctx, msg) for _line, msg, _comments, ctx in
             extract("webapp.game.core.speech:extract", source, keywords=parse_keywords(["say", "say_p:1c,2"]))]
    assert found == [("range band", "medium"), (None, "medium")]
