"""Cover in *Atomic Tomorrow Combat* ("COVER PROTECTION"): levels that cut the Wound Rating.

A zone carries its cover level as a tag; on a square grid the cover
fraction of ``rules.los.cover`` is mapped to a level (setting
``cover_thresholds``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..system import CoverEffect, RuleError
from ..text import say
from .data import COVER_LEVELS, DEFAULT_SETTINGS, check_level

#: what the attack preview says of each cover level (one whole phrase each)
COVER_LABELS = {"none": say("no cover"), "partial": say("partial cover"), "good": say("good cover"),
                "excellent": say("excellent cover")}


def cover_reduction(cover: str = "none") -> int:
    """Section "COVER PROTECTION": Partial -1, Good -2, Excellent -3 Wound Rating."""
    return COVER_LEVELS[check_level(cover, COVER_LEVELS, "cover")]


def cover_level_from_fraction(fraction: float, thresholds=(0.25, 0.5, 0.75)) -> str:
    """A grid map's cover fraction as a cover level (setting ``cover_thresholds``).

    Reading: under the first threshold none, then partial, good, and
    excellent; a fraction of 1 means no line reaches the target ("total").
    """
    if not 0 <= fraction <= 1:
        raise RuleError(say("a cover fraction is 0 to 1, not {value}", value=fraction))
    if fraction >= 1:
        return "total"
    level = "none"
    for name, start in zip(("partial", "good", "excellent"), thresholds):
        if fraction >= start:
            level = name
    return level


def cover_from_tags(tags: Any) -> str:
    """A zone's cover level from its tags.

    Accepts a mapping with a ``cover`` entry, or strings such as
    ``"cover:good"``, ``"good cover"`` or ``"good"``.
    """
    if not tags:
        return "none"
    if isinstance(tags, Mapping):
        return check_level(tags.get("cover"), COVER_LEVELS, "cover")
    if isinstance(tags, str):
        tags = [tags]
    found = "none"
    for tag in tags:
        text = str(tag).strip().lower().replace("cover", " ").replace(":", " ").replace("=", " ")
        for word in text.split():
            if word in COVER_LEVELS and COVER_LEVELS[word] > COVER_LEVELS[found]:
                found = word
    return found


def resolve_cover(cover: Any, settings: Mapping | None = None) -> str:
    """The cover level from what the app passes: a level name, a CoverEffect,
    a ``rules.los.Cover`` (its ``fraction``) or a bare fraction."""
    thresholds = (settings or DEFAULT_SETTINGS)["cover_thresholds"]
    if cover is None:
        return "none"
    if isinstance(cover, CoverEffect):
        cover = cover.level
    if isinstance(cover, str):
        if cover == "total":
            return "total"
        return check_level(cover, COVER_LEVELS, "cover")
    fraction = getattr(cover, "fraction", cover)
    if isinstance(fraction, (int, float)) and not isinstance(fraction, bool):
        return cover_level_from_fraction(float(fraction), thresholds)
    raise RuleError(say("cannot read cover from {value}", value=repr(cover)))


def cover_effect(cover: Any, settings: Mapping | None = None) -> CoverEffect:
    """Section "COVER PROTECTION": the level and its cut to the Wound Rating."""
    level = resolve_cover(cover, settings)
    if level == "total":
        return CoverEffect("total", 0, say("no line of fire"))
    return CoverEffect(level, -COVER_LEVELS[level], COVER_LABELS[level])
