"""Cover: the document has no cover rules; a cover fraction maps to a to-hit penalty (a reading,
with its setting).
"""

from __future__ import annotations

from typing import Any

from ..system import CoverEffect, RuleError
from .data import settings_of
from .sheet import int_of
from ..text import say

#: a cover level's modifier label (a level a GM's setting names otherwise is shown as named)
COVER_WORDS = {"none": say("no cover"), "partial": say("cover: partial"), "heavy": say("cover: heavy"),
               "total": say("total cover")}


def cover_effect(cover: Any, settings: dict | None = None) -> CoverEffect:
    """Cover fraction -> to-hit penalty (a reading: the document has no cover rules)."""
    st = settings_of(settings)
    pens = st["cover_penalties"]
    if cover is None:
        return CoverEffect("none", 0, COVER_WORDS["none"])
    if isinstance(cover, str):
        if cover not in pens and cover != "total":
            raise RuleError(say("unknown cover level {value}", value=repr(cover)))
        return CoverEffect(cover, 0 if cover == "total" else int_of(pens.get(cover)),
                           COVER_WORDS.get(cover) or say("cover: {level}", level=cover))
    frac = float(getattr(cover, "fraction", cover))
    if frac >= 1:
        return CoverEffect("total", 0, COVER_WORDS["total"])
    if frac < 0.25:
        return CoverEffect("none", 0, COVER_WORDS["none"])
    level = "partial" if frac < 0.75 else "heavy"
    label = (say("cover: partial ({percent})", percent=f"{frac:.0%}") if level == "partial" else
             say("cover: heavy ({percent})", percent=f"{frac:.0%}"))
    return CoverEffect(level, int_of(pens.get(level)), label)
