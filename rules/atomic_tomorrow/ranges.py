"""The four ranges of *Atomic Tomorrow Combat* ("POSITIONING") on a zone map.

The app measures the zone distance on its ``rules.zones.ZoneMap`` and
whether two tokens are engaged; this module turns that into a range band
and checks it against the bands a weapon lists (core facts: the range
bands carry no to-hit modifier, a weapon reaches the bands it lists).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..system import RuleError
from ..text import joined, say
from .data import RANGE_LABELS, RANGES, weapon_words


def zone_range(zone_distance: int, engaged: bool = False) -> str:
    """Section "POSITIONING": the range band between two tokens on a zone map.

    Reading (the document gives no mapping): same zone and engaged =
    engaged, same zone = near, adjacent zone = far, further = distant.
    """
    if isinstance(zone_distance, bool) or not isinstance(zone_distance, int) or zone_distance < 0:
        raise RuleError(say("a zone distance is a whole number of steps, 0 or more, not {value}", value=repr(zone_distance)))
    if engaged and zone_distance:
        raise RuleError(say("engaged tokens stand in the same zone"))
    if zone_distance == 0:
        return "engaged" if engaged else "near"
    return "far" if zone_distance == 1 else "distant"


def weapon_band(zone_distance: int, weapon: Mapping, engaged: bool | None = None) -> str:
    """The band of an attack with ``weapon`` at ``zone_distance`` zone steps.

    ``engaged`` None (nobody said): in the same zone a weapon that reaches
    Engaged but not Near (melee, bare hands) attacks Engaged, since a
    hand-to-hand attack is what engages two tokens; any other weapon is at
    Near. True or False is the GM's word and is kept.
    """
    if engaged is None:
        reach = weapon_ranges(weapon)
        engaged = zone_distance == 0 and "engaged" in reach and "near" not in reach
    return zone_range(zone_distance, bool(engaged))


def range_between(zone_map: Any, a: str, b: str, engaged: bool = False) -> str:
    """The range band between zones ``a`` and ``b`` of a ``rules.zones.ZoneMap``."""
    distance = zone_map.zone_distance(a, b)
    if distance is None:
        raise RuleError(say("zones {a} and {b} are not connected", a=repr(a), b=repr(b)))
    return zone_range(int(distance), engaged)


def weapon_ranges(weapon: Mapping) -> list[str]:
    """The bands a weapon reaches: listed on the weapon, Engaged for melee and unarmed."""
    ranges = weapon.get("ranges")
    if not ranges:
        if weapon.get("skill", "melee") in ("melee", "unarmed"):
            return ["engaged"]
        raise RuleError(say("weapon {weapon} lists no range band it can reach", weapon=repr(weapon.get("name", "?"))))
    out = []
    for band in ranges:
        key = str(band).strip().lower()
        if key not in RANGES:
            raise RuleError(say("range band is one of {bands}, not {value}", bands=", ".join(RANGES), value=repr(band)))
        out.append(key)
    return out


def check_weapon_range(weapon: Mapping, band: str) -> None:
    """Core facts: an attack outside the bands a weapon lists is not possible."""
    reach = weapon_ranges(weapon)
    if band not in reach:
        raise RuleError(say("{weapon} reaches {bands}; the target is at {band}",
                            weapon=weapon_words(dict(weapon)) or say("that weapon"),
                            bands=joined([RANGE_LABELS[r] for r in reach], ", "), band=RANGE_LABELS[band]))
