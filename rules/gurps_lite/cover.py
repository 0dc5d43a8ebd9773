"""Cover: the document has no cover rules; a cover fraction maps to a to-hit penalty (a reading,
with its setting).
"""

from __future__ import annotations

from typing import Any

from ..system import CoverEffect, RuleError
from .data import settings_of
from .sheet import int_of


def cover_effect(cover: Any, settings: dict | None = None) -> CoverEffect:
    """Cover fraction -> to-hit penalty (a reading: the document has no cover rules)."""
    st = settings_of(settings)
    pens = st["cover_penalties"]
    if cover is None:
        return CoverEffect("none", 0, "no cover")
    if isinstance(cover, str):
        if cover not in pens and cover != "total":
            raise RuleError(f"unknown cover level {cover!r}")
        return CoverEffect(cover, 0 if cover == "total" else int_of(pens.get(cover)), f"cover: {cover}")
    frac = float(getattr(cover, "fraction", cover))
    if frac >= 1:
        return CoverEffect("total", 0, "total cover")
    if frac < 0.25:
        return CoverEffect("none", 0, "no cover")
    level = "partial" if frac < 0.75 else "heavy"
    return CoverEffect(level, int_of(pens.get(level)), f"cover: {level} ({frac:.0%})")
