"""GURPS's (and Tesseris's) distances in one unit per language (#37): the help, the sheet editor's labels, the
rules' log and refusals all say the metre, as docs/TRANSLATING.md decided (a yard is *Meter*, *mètres*, *metros*,
1 yard = 1 metre as the German, French and Spanish GURPS editions give yards). The help once said "½D (Yards)",
"auf ganze Yards" where the sheet's ruler and the log said "Meter"."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from babel.messages.pofile import read_po

T = Path(__file__).resolve().parents[2] / "translations"
DOMAINS = ("messages", "rules", "help", "room")

#: each language's word for the yard (kept out) and for the metre (the one unit word, or its symbol "m")
UNITS = {
    "de": (re.compile(r"\bYards?\b", re.I), re.compile(r"\bMeter\b|\bm\b")),
    "fr": (re.compile(r"\byards?\b", re.I), re.compile(r"\bmètres?\b|\bmètre\(s\)|\bm\b", re.I)),
    "es": (re.compile(r"\byardas?\b|\byarda\(s\)", re.I), re.compile(r"\bmetros?\b|\bmetro\(s\)|\bm\b", re.I)),
}
YARD_ID = re.compile(r"\byards?\b|\byard\(s\)|\byd\b", re.I)


def messages(lang: str):
    """(domain, message id, its translations) of every message of the language's catalogs."""
    for domain in DOMAINS:
        with (T / lang / "LC_MESSAGES" / f"{domain}.po").open("rb") as f:
            for m in read_po(f, locale=lang):
                if m.id:
                    ids = m.id if isinstance(m.id, tuple) else (m.id,)
                    texts = m.string if isinstance(m.string, tuple) else (m.string,)
                    yield domain, " | ".join(ids), texts


@pytest.mark.parametrize("lang", sorted(UNITS))
def test_every_distance_in_yards_is_said_in_metres(lang):
    yard, metre = UNITS[lang]
    said = [(domain, mid, text) for domain, mid, texts in messages(lang) if YARD_ID.search(mid) for text in texts]
    assert len({mid for _, mid, _ in said}) >= 20  # the help's, the sheet's and the rules' ("½D (yards)", "{n} yard")
    assert {domain for domain, _, _ in said} >= {"help", "rules", "messages"}
    in_yards = [(domain, mid, text) for domain, mid, text in said if yard.search(text) or not metre.search(text)]
    assert in_yards == []


@pytest.mark.parametrize("lang", sorted(UNITS))
def test_no_translation_says_yards(lang):
    yard, _ = UNITS[lang]
    assert [(domain, mid) for domain, mid, texts in messages(lang) if any(yard.search(t) for t in texts)] == []


def test_the_sheet_editors_range_columns_and_the_help_agree_in_german():
    """The sheet editor's "½D (yards)" and "Max (yards)" (the help domain holds the rules' sheet labels) and the
    rules' "{n} yard" the ruler shows read the same German unit."""
    found = {mid: texts for _, mid, texts in messages("de")}
    assert found["½D (yards)"] == ("½D (Meter)",)
    assert found["Max (yards)"] == ("Max (Meter)",)
    assert found["{n} yard | {n} yards"] == ("{n} Meter", "{n} Meter")
