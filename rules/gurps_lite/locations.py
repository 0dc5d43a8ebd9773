"""Hit locations (*3d6 Combat*, "Hit Locations"): the random roll, to-hit penalties, which damage
types may target a location, wounding multipliers by location, DR by location.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ..system import Modifier, RuleError
from .checks import THREE_D6
from .data import LOCATIONS, PIERCING, RANDOM_LOCATION, S_LOC, WOUNDING, settings_of
from .sheet import int_of, reach_of
from ..text import say
from .badges import location_name


#: locations an attack that misses by 1 hits the torso instead of (note 1)
MISS_BY_ONE_TORSO = {k for k, v in LOCATIONS.items() if 1 in v.notes}
#: which damage types may target a location at all (notes 2, 10, 12)
ONLY_TYPES = {
    "eye": ("imp", *PIERCING, "tbb"),
    "vitals": ("imp", *PIERCING, "cr", "tbb"),
    "chinks_torso": ("imp", *PIERCING, "tbb"),
    "armour_gap": ("imp", *PIERCING, "tbb"),
}


def hit_location(roll: int) -> str:
    """The random hit location for a 3d6 roll ("Hit Locations"; published random column)."""
    if roll not in RANDOM_LOCATION:
        raise RuleError(say("a 3d6 roll is 3 to 18, not {roll}", roll=roll))
    return RANDOM_LOCATION[roll]


def wounding_multiplier(damage_type: str, location: str = "torso", male: bool = False) -> float:
    """Wounding multiplier of a damage type at a location ("Damage" table, "Hit Locations" notes)."""
    if damage_type not in WOUNDING:
        raise RuleError(say("unknown damage type {value}; known: {known}", value=repr(damage_type), known=", ".join(WOUNDING)))
    mult = WOUNDING[damage_type]
    loc = LOCATIONS.get(location)
    if loc is None:
        raise RuleError(say("unknown hit location {value}", value=repr(location)))
    if location in ("skull", "eye"):
        return 1.0 if damage_type == "tox" else 4.0  # note 3 (eye: note 2, as skull)
    if location == "face" and damage_type == "cor":
        return 1.5  # note 4
    if location == "neck":
        if damage_type in ("cr", "cor"):
            return 1.5  # note 9
        if damage_type == "cut":
            return 2.0
    if location == "vitals":
        if damage_type == "imp" or damage_type in PIERCING:
            return 3.0  # note 10
        if damage_type == "tbb":
            return 2.0
        if damage_type == "cr":
            return 1.0
    if loc.kind in ("limb", "extremity") and damage_type in ("imp", "pi+", "pi++", "tbb"):
        return 1.0  # note 5
    return mult


def location_penalty(location: str, target: dict, weapon_reach: Any = 1, from_behind: bool = False,
                     fencing: bool = False, disarm: bool = False, settings: dict | None = None) -> list[Modifier]:
    """To-hit modifiers of a chosen location ("Hit Locations" table and notes 6, 13)."""
    loc = LOCATIONS.get(location)
    if loc is None:
        raise RuleError(say("unknown hit location {value}", value=repr(location)))
    st = settings_of(settings)
    mods = []
    if location == "weapon":
        r = reach_of({"reach": weapon_reach})
        pen = -5 if r < 1 else -4 if r < 2 else -3
        mods.append(Modifier(say("target the weapon"), pen, S_LOC))
        if disarm and not fencing:
            mods.append(Modifier(say("disarm (not a fencing weapon)"), -2, S_LOC))
        return mods
    pen = loc.to_hit_back if (from_behind and loc.to_hit_back is not None) else loc.to_hit
    if pen:
        name = location_name(location)
        mods.append(Modifier(say("hit location: {location} (from behind)", location=name) if from_behind and loc.to_hit_back
                             else say("hit location: {location}", location=name), pen, S_LOC))
    side = st["shield_side"]
    if target.get("shield") and location in (f"{side}_arm", f"{side}_hand"):
        mods.append(Modifier(say("shield arm/hand: penalty doubled"), pen, S_LOC))
    return mods


def dr_at(sheet: dict, location: str) -> tuple[int, bool]:
    """DR at a location from the sheet (a side's entry, then the pair, e.g. ``left_arm``, ``arms``;
    vitals fall back on the torso) and whether that armour is flexible."""
    dr = sheet.get("dr") or {}
    flex = sheet.get("flexible") or {}
    keys = [location]
    for part in ("arm", "leg", "hand", "foot"):
        if location.endswith(part):
            keys.append(part + "s")
            keys.append(part)
    if location == "vitals":
        keys.append("torso")
    if location in ("eye",):
        keys = ["eye"]
    value = 0
    for k in keys:
        if k in dr:
            value = int_of(dr[k])
            break
    fl = False
    for k in keys:
        if k in flex:
            fl = bool(flex[k])
            break
    return value, fl


def average_dr(sheet: dict) -> int:
    """DR averaged over the body for large-area injury ("Damage"), rounded down."""
    locs = ["skull", "face", "neck", "torso", "groin", "right_arm", "left_arm", "right_leg", "left_leg",
            "right_hand", "left_hand", "right_foot", "left_foot"]
    return sum(dr_at(sheet, loc)[0] for loc in locs) // len(locs)


def location_mixture(damage_type: str, location: str, st: dict) -> dict[str, float]:
    """Where a hit lands, with its chance: the aimed location, or the random table's spread
    (hands and feet half each side), a torso hit going to the vitals on a 1 in 6 ("Hit Locations")."""
    if location != "random":
        locs = {location: 1.0}
    else:
        locs: dict[str, float] = defaultdict(float)
        for r, p in THREE_D6.items():
            loc = RANDOM_LOCATION[r]
            if loc in ("hand", "foot"):
                locs["right_" + loc] += p / 2
                locs["left_" + loc] += p / 2
            else:
                locs[loc] += p
    out: dict[str, float] = defaultdict(float)
    for loc, p in locs.items():
        if loc == "torso" and st["torso_vitals_roll"] and damage_type in ("imp", *PIERCING, "cr", "tbb"):
            out["vitals"] += p / 6
            out["torso"] += p * 5 / 6
        else:
            out[loc] += p
    return dict(out)
