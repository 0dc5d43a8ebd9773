"""The rules domain's catalogs (issue #37): every message of rules.pot is translated in de, fr and es, and
rendering any of them in any of those languages, with any parameters, never raises, falls back to English
for want of a parameter, or leaves a placeholder unfilled."""

from __future__ import annotations

from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from hypothesis import example, given, settings, strategies as st

from rules.text import Say, fields, say
from webapp.game.core import speech

TRANSLATIONS = Path(__file__).resolve().parents[2] / "translations"
POT = read_po((TRANSLATIONS / "rules.pot").open("rb"))
MESSAGES = [m for m in POT if m.id]
LANGUAGES = ("de", "fr", "es")


def said(message, values: dict, n: int) -> Say:
    """The message as the rules make it: each placeholder given a value (``n`` the count of a plural)."""
    if message.pluralizable:
        singular, plural = message.id
        names = (fields(singular) | fields(plural)) - {"n"}
        return Say(singular, {k: values.get(k, k) for k in names}, plural, n)
    return Say(message.id, {k: values.get(k, k) for k in fields(message.id)})


def test_the_pot_has_the_rules_words():
    ids = {m.id if isinstance(m.id, str) else m.id[0] for m in MESSAGES}
    assert {"{attacker} hits {target}: {parts}", "Shaken", "{n} Wound", "{name} moved to {where}"} <= ids


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_message_is_translated_and_fits_its_parameters(lang):
    po = read_po((TRANSLATIONS / lang / "LC_MESSAGES" / "rules.po").open("rb"), locale=lang)
    pot_ids = {m.id for m in MESSAGES}
    translated = {m.id: m for m in po if m.id}
    assert pot_ids <= set(translated), sorted(map(str, pot_ids - set(translated)))[:10]
    for m in translated.values():
        assert not m.fuzzy, m.id
        strings = m.string if isinstance(m.string, (list, tuple)) else [m.string]
        assert all(strings), m.id  # not empty
        allowed = (fields(m.id[0]) | fields(m.id[1])) if m.pluralizable else fields(m.id)
        for s in strings:  # a translation reads only the parameters the message has (none made up)
            assert fields(s) <= allowed | ({"n"} if m.pluralizable else set()), (m.id, s)
        if m.id in pot_ids and not m.pluralizable:
            assert fields(m.string) == fields(m.id), (m.id, m.string)  # every parameter shown, none lost


values = st.dictionaries(st.sampled_from(sorted({f for m in MESSAGES for f in
                                                   (fields(m.id) if isinstance(m.id, str) else fields(m.id[0]) | fields(m.id[1]))})),
                         st.one_of(st.text(max_size=15), st.integers(-10**6, 10**6),
                                   st.floats(allow_nan=False, allow_infinity=False, width=32),
                                   st.sampled_from([say("Shaken"), say("{name} was added", name="Ogre")])))


@settings(max_examples=15, deadline=None)
@given(values, st.integers(0, 1000), st.sampled_from(LANGUAGES))
@example({"a": 1.000000071494503e+25}, 0, "de")  # past what Babel's format_decimal writes: Python's own digits
def test_rendering_in_any_language_never_raises_and_fills_every_placeholder(given_values, n, lang):
    catalog = speech.catalog(lang)
    for message in MESSAGES:
        line = said(message, given_values, n)
        template = (catalog.gettext(line.msg) if line.plural is None else catalog.ngettext(line.msg, line.plural, n))
        out = speech.words(line, lang)
        assert isinstance(out, str)
        # the catalog's own template was used (a translation that did not fit would give the English back)
        expected = template.format_map({k: speech.words(v, lang) if isinstance(v, Say) else
                                        (speech.number_writer(lang)(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
                                        for k, v in (({"n": n} if line.plural is not None else {}) | line.args).items()})
        assert out == expected
        leftover = set(fields(template)) - set(line.args) - {"n"}
        assert not leftover, (message.id, leftover)
