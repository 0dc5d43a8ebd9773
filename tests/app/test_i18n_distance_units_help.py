"""The German, French and Spanish GURPS help pages as a reader gets them (#37): distances in metres, the unit the
sheet editor and the log use (docs/TRANSLATING.md), no "Yards" left."""

from __future__ import annotations

import re

import pytest

WORDS = {"de": ("auf ganze Meter", r"\bYards?\b"), "fr": ("au mètre entier", r"\byards?\b"),
         "es": ("a metros enteros", r"\byardas?\b")}


@pytest.mark.parametrize("lang", sorted(WORDS))
def test_the_gurps_help_says_metres(client, lang):
    metres, yards = WORDS[lang]
    page = client.get(f"/help/gurps_lite?lang={lang}").get_data(as_text=True)
    assert f'lang="{lang}"' in page
    assert metres in page
    assert re.findall(yards, page, re.I) == []
    english = client.get("/help/gurps_lite?lang=en").get_data(as_text=True)
    assert "yards" in english  # the English page keeps GURPS's yards
