"""Cover from the map: the cover fraction as Light, Medium, Heavy or Near
Total cover (a penalty to attacks), and as armour against area effects.

Sources: the Savage Worlds core facts (cover -2/-4/-6/-8);
*Savage Worlds Combat System Reference*, "Area Effect Attacks" (cover
between the blast centre and the target reduces damage by its armour value)
and "Prone Targets".
"""

from __future__ import annotations

from typing import Any

from .. import los
from ..text import say
from ..system import CoverEffect, RuleError
from .data import COVER_LEVELS, merged_settings

_EPS = 1e-9


def cover_level(fraction: float | None, thresholds=(0.25, 0.5, 0.75)) -> CoverEffect:
    """Cover from the cover fraction (reading): 0 none; up to the first threshold
    Light (-2); then Medium (-4); Heavy (-6); under 1 Near Total (-8); 1 is
    no line of fire ("total")."""
    f = float(fraction or 0)
    if f <= _EPS:
        return CoverEffect("none", 0, say("No cover"))
    if f >= 1 - _EPS:
        return CoverEffect("total", 0, say("Total cover: no line of fire"))
    for limit, (level, mod, label) in zip(list(thresholds) + [1.0], COVER_LEVELS):
        if f <= limit + _EPS:
            return CoverEffect(level, mod, label)
    return CoverEffect(*COVER_LEVELS[-1])


def cover_effect(cover: Any, settings: dict | None = None) -> CoverEffect:
    """Cover from a ``rules.los.Cover``, a fraction, or a level name."""
    thresholds = merged_settings(settings)["cover_thresholds"]
    if cover is None:
        return cover_level(0.0)
    if isinstance(cover, str):
        for level, mod, label in COVER_LEVELS:
            if cover.lower().replace(" ", "_") == level:
                return CoverEffect(level, mod, label)
        if cover.lower() == "none":
            return cover_level(0.0)
        raise RuleError(say("no cover level {cover}", cover=repr(cover)))
    fraction = getattr(cover, "fraction", cover)
    return cover_level(float(fraction), thresholds)


def pieces_only(board, a, b, cover: CoverEffect) -> CoverEffect:
    """Pieces of cover never block the line of fire: when they alone hide
    the whole target it is Near Total cover, not total."""
    if cover.level != "total":
        return cover
    if los.line_of_fire(board, tuple(a), tuple(b)).clear:
        return CoverEffect(*COVER_LEVELS[-1])
    return cover


def area_cover(board, origin, target, settings: dict) -> int | None:
    """Area Effect Attacks: the armour a target's cover gives against an area
    effect, from the cover fraction between the template's origin and the
    target; None when a wall stands fully between them."""
    if board is None or tuple(origin) == tuple(target):
        return 0
    cov = cover_effect(los.cover(board, origin, target), settings)
    cov = pieces_only(board, origin, target, cov)
    if cov.level == "total":
        return None
    return int(settings["area_cover_armor"].get(cov.level, 0))
