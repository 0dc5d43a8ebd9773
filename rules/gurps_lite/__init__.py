"""A GURPS-Lite-style 3d6 roll-under combat system (id ``gurps_lite``).

Source: ``shared/seeds/003_754d0c08f1eb1d68.txt`` (sections "Turn Order",
"Attacking", "Hit Locations", "Ranged Attacks", "Area of Effects",
"Defending", "Maneuvers", "Damage", "Injury") and the 3d6 core facts of the
seeds' README. The board is a square grid, one square is one yard.

Every roll goes through a :class:`rules.dice.DiceSource` as ``3d6`` (or the
damage dice) with a purpose label, and every result carries each modifier
with its label and the section it comes from. Readings chosen where the
document is silent or garbled are listed in :data:`READINGS` and on the help
page; the GM-changeable ones are settings (:func:`default_settings`).
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from .. import odds as _odds
from ..dice import DiceSource, RollRecord
from ..system import (
    AttackRequest,
    AttackResult,
    BaseSystem,
    Combatant,
    CoverEffect,
    Effect,
    Modifier,
    RuleError,
    RuleNotImplemented,
    SheetField,
)

# ---------------------------------------------------------------------------
# Section names (what each modifier cites)
# ---------------------------------------------------------------------------

S_CORE = "3d6 core rules (seeds README)"
S_TURN = "Turn Order"
S_ATTACK = "Attacking"
S_LOC = "Hit Locations"
S_RANGED = "Ranged Attacks"
S_AOE = "Area of Effects"
S_DEFEND = "Defending"
S_MANEUVER = "Maneuvers"
S_DAMAGE = "Damage"
S_INJURY = "Injury"
S_READING = "reading (document silent)"
S_GM = "GM"

RESULTS = ("critical failure", "failure", "success", "critical success")
_RANK = {r: i for i, r in enumerate(RESULTS)}

# ---------------------------------------------------------------------------
# Tables
# ---------------------------------------------------------------------------

#: Damage: wounding multiplier per damage type ("tbb", tight-beam burning,
#: is named by the hit-location notes; it wounds like burning).
WOUNDING = {
    "cr": 1.0,
    "cut": 1.5,
    "imp": 2.0,
    "pi-": 0.5,
    "pi": 1.0,
    "pi+": 1.5,
    "pi++": 2.0,
    "burn": 1.0,
    "tox": 1.0,
    "cor": 1.0,
    "fat": 1.0,
    "tbb": 1.0,
}
PIERCING = ("pi-", "pi", "pi+", "pi++")

#: Ranged Attacks: (upper bound of range + speed in yards, penalty, band)
RANGE_TABLE = (
    (5, 0, "close"),
    (20, -3, "short"),
    (100, -7, "medium"),
    (500, -11, "long"),
    (math.inf, -15, "far"),
)

#: Ranged Attacks: Rapid Fire (lowest shots, bonus); past 99, +1 per doubling.
RAPID_FIRE_TABLE = ((2, 0), (5, 1), (9, 2), (13, 3), (17, 4), (25, 5), (50, 6))

#: Hit Locations, random column (the document's column is garbled; this is
#: the published 3d6 table from the seeds' README).
RANDOM_LOCATION = {
    3: "skull", 4: "skull", 5: "face", 6: "right_leg", 7: "right_leg", 8: "right_arm",
    9: "torso", 10: "torso", 11: "groin", 12: "left_arm", 13: "left_leg", 14: "left_leg",
    15: "hand", 16: "foot", 17: "neck", 18: "neck",
}


@dataclass(frozen=True)
class Location:
    key: str
    name: str
    to_hit: int  # from the front
    to_hit_back: int | None = None
    notes: tuple[int, ...] = ()  # the document's note numbers
    cripple: float | None = None  # fraction of HP; injury above it cripples
    kind: str = "body"  # body, limb, extremity, eye, special


LOCATIONS: dict[str, Location] = {
    loc.key: loc
    for loc in (
        Location("eye", "Eye", -9, None, (1, 2), 0.1, "eye"),
        Location("skull", "Skull", -7, -5, (1, 3)),
        Location("face", "Face", -5, -7, (1, 4)),
        Location("right_leg", "Right leg", -2, None, (5,), 0.5, "limb"),
        Location("right_arm", "Right arm", -2, None, (5, 6), 0.5, "limb"),
        Location("torso", "Torso", 0, None, (11,)),
        Location("left_arm", "Left arm", -2, None, (5, 6), 0.5, "limb"),
        Location("left_leg", "Left leg", -2, None, (5,), 0.5, "limb"),
        Location("right_hand", "Right hand", -4, None, (6, 5, 8), 1 / 3, "extremity"),
        Location("left_hand", "Left hand", -4, None, (6, 5, 8), 1 / 3, "extremity"),
        Location("right_foot", "Right foot", -4, None, (5, 8), 1 / 3, "extremity"),
        Location("left_foot", "Left foot", -4, None, (5, 8), 1 / 3, "extremity"),
        Location("neck", "Neck", -5, None, (1, 9)),
        Location("vitals", "Vitals", -3, None, (1, 10)),
        Location("groin", "Groin", -3, None, (1, 7)),
        Location("chinks_torso", "Armour chinks (torso)", -10, None, (12,), None, "special"),
        Location("armour_gap", "Armour gap", -8, None, (12,), None, "special"),
        Location("weapon", "Weapon", -4, None, (13,), None, "special"),
    )
}
#: Hit Locations, "Weapon": penalty by the weapon's reach (C, 1, 2+)
WEAPON_LOCATION_PENALTY = {"C": -5, 1: -4, 2: -3}
#: locations an attack that misses by 1 hits the torso instead of (note 1)
MISS_BY_ONE_TORSO = {k for k, v in LOCATIONS.items() if 1 in v.notes}
#: which damage types may target a location at all (notes 2, 10, 12)
ONLY_TYPES = {
    "eye": ("imp", *PIERCING, "tbb"),
    "vitals": ("imp", *PIERCING, "cr", "tbb"),
    "chinks_torso": ("imp", *PIERCING, "tbb"),
    "armour_gap": ("imp", *PIERCING, "tbb"),
}

#: Basic damage by ST (thrust, swing), the published table; the document
#: gives weapon damage as dice but does not print this table.
BASIC_DAMAGE = {
    1: ("1d-6", "1d-5"), 2: ("1d-6", "1d-5"), 3: ("1d-5", "1d-4"), 4: ("1d-5", "1d-4"),
    5: ("1d-4", "1d-3"), 6: ("1d-4", "1d-3"), 7: ("1d-3", "1d-2"), 8: ("1d-3", "1d-2"),
    9: ("1d-2", "1d-1"), 10: ("1d-2", "1d"), 11: ("1d-1", "1d+1"), 12: ("1d-1", "1d+2"),
    13: ("1d", "2d-1"), 14: ("1d", "2d"), 15: ("1d+1", "2d+1"), 16: ("1d+1", "2d+2"),
    17: ("1d+2", "3d-1"), 18: ("1d+2", "3d"), 19: ("2d-1", "3d+1"), 20: ("2d-1", "3d+2"),
}

#: Move multiplier by encumbrance level 0-4 (published; the document only
#: says Dodge loses the level).
ENCUMBRANCE_MOVE = (1.0, 0.8, 0.6, 0.4, 0.2)
ENCUMBRANCE_NAMES = ("None", "Light", "Medium", "Heavy", "Extra-heavy")

UNARMED_SKILLS = ("Brawling", "Boxing", "Judo", "Karate")
RETREAT_PLUS3_SKILLS = ("Boxing", "Judo", "Karate")

# ---------------------------------------------------------------------------
# Maneuvers as data
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Maneuver:
    key: str
    name: str
    defense: str  # the table's Defense column, as data below
    movement: str  # step | step2 | half | move | none
    attack: str = ""  # "" (no attack), "any", "melee", "ranged"
    variants: tuple[str, ...] = ()
    defense_mod: int = 0
    no_parry_with_attack_weapon: bool = False
    no_retreat: bool = False
    no_defense: bool = False
    notes: str = ""


MANEUVERS: dict[str, Maneuver] = {
    m.key: m
    for m in (
        Maneuver("attack", "Attack", "Any", "step", "any"),
        Maneuver("aim", "Aim", "Any (defending spoils the aim)", "step", "",
                 notes="Acc of a ranged weapon to the next attack; +1 for a second second, +2 for more"),
        Maneuver("all_out_attack", "All-Out Attack (melee)", "None", "half", "melee",
                 ("determined", "double", "long", "strong", "feint"), no_defense=True),
        Maneuver("all_out_attack_ranged", "All-Out Attack (ranged)", "None", "half", "ranged",
                 ("determined", "suppression_fire"), no_defense=True),
        Maneuver("all_out_defense", "All-Out Defense", "Any", "step", "",
                 ("enhanced_dodge", "enhanced_parry", "enhanced_block", "double")),
        Maneuver("committed_attack", "Committed Attack (melee)",
                 "Any at -2; no parry with the attacking weapon; no retreat", "step2", "melee",
                 ("determined", "strong"), defense_mod=-2, no_parry_with_attack_weapon=True, no_retreat=True),
        Maneuver("defensive_attack", "Defensive Attack (melee)",
                 "Any at +1 (not parries with unbalanced weapons)", "step", "melee", defense_mod=1),
        Maneuver("evaluate", "Evaluate", "Any", "step", "", notes="+1 to +3 against the evaluated enemy"),
        Maneuver("feint", "Feint", "Any", "step", "melee",
                 notes="quick contest of weapon skills; the margin comes off the target's defense"),
        Maneuver("move_and_attack", "Move and Attack", "Any; no parry with the attacking limb", "move", "any",
                 no_parry_with_attack_weapon=True),
        Maneuver("move", "Move", "Any", "move"),
        Maneuver("concentrate", "Concentrate", "Any (Will-3 to keep concentrating)", "step"),
        Maneuver("ready", "Ready", "Any", "step"),
        Maneuver("wait", "Wait", "Depends on the action taken", "none"),
        Maneuver("do_nothing", "Do Nothing", "None", "none", no_defense=True),
    )
}

READINGS: tuple[tuple[str, str, str | None], ...] = (
    ("Random hit location", "The document's random column is garbled; the published 3d6 table is used "
     "(3-4 skull, 5 face, 6-7 right leg, 8 right arm, 9-10 torso, 11 groin, 12 left arm, 13-14 left leg, "
     "15 hand, 16 foot, 17-18 neck); hand and foot side by 1d (1-3 right, 4-6 left).", None),
    ("Plain Attack maneuver", "The maneuver table lists 'Committed Attack (Melee) | Any | Step' twice; the "
     "first row is read as the plain Attack maneuver (any defense, a step).", None),
    ("Critical hits", "A critical success on the attack allows no active defense; the critical hit and "
     "critical miss tables are not in the document and are left to the GM.", "critical_hit_no_defense"),
    ("Combat Reflexes", "The document only says Combat Reflexes turns Total into Partial Surprise. The "
     "published +1 to active defenses is off by default.", "combat_reflexes_defense_bonus"),
    ("Side leader", "A side whose tokens have none marked leader is leaderless (-2); its best roller "
     "rolls. Primal and thuggish sides use the better of Tactics and Survival / Streetwise.", None),
    ("Skill defaults", "A token without the named skill rolls the attribute (document: 'an Attribute if "
     "none are available'): DX for combat skills, IQ for Tactics and Streetwise, Per for Survival.", None),
    ("Contests", "Quick contests: a success beats a failure, else the larger margin wins; ties in turn "
     "order go to the higher effective skill, then the side name.", None),
    ("Turn order within a side", "Tokens of a side act by Basic Speed, then DX, then name.", None),
    ("Moves", "Move = Basic Move x (1, .8, .6, .4, .2) by encumbrance, round down, at least 1; a step is "
     "1 yard or Move/10; half move rounds up; reeling halves Move and Dodge, rounding up.", None),
    ("Range", "Range plus speed is rounded up to whole yards before reading the table.", None),
    ("Close quarters", "Weapon Bulk applies when the target is within this many yards.", "close_quarters_yards"),
    ("Half damage", "At or beyond 1/2D the damage roll is halved (round down); no attack beyond Max "
     "(published; the document names 1/2D only for shotguns).", None),
    ("Minimum damage", "Crushing 'has no minimum damage': other types do at least 1 damage.", None),
    ("Consecutive parries", "-4 per parry after the first (cumulative), -2 with a fencing weapon or "
     "Trained by a Master / Weapon Master, -1 with both.", None),
    ("Rapid fire and defense", "A successful defense against a rapid-fire attack stops one hit plus one per "
     "point of margin (published).", "defense_stops_extra_hits"),
    ("Feint", "The margin of a Feint comes off the target's Dodge only, as the document says; the "
     "published rule takes it off every defense.", "feint_affects"),
    ("Limb wounding", "pi+, pi++ and imp (and tbb) are x1 on limbs and extremities; the document names "
     "pi+, imp and tbb.", None),
    ("Cripple thresholds", "A limb is crippled by injury over HP/2, an extremity over HP/3, an eye over "
     "HP/10; injury beyond what cripples is lost.", None),
    ("Torso to vitals", "Any torso hit by imp, pi, cr or tbb rolls 1d; on a 1 it hits the vitals.",
     "torso_vitals_roll"),
    ("Vitals DR", "Vitals are protected by the torso's DR unless the sheet gives vitals DR.", None),
    ("Armour chinks", "'-10/-8': chinks in torso armour at -10 halve DR; a large armour gap at -8 has DR 0; "
     "both hit the torso.", None),
    ("Groin", "Double shock from cr to a male token is capped at 8; the -5 knockdown applies to every "
     "groin knockdown roll.", None),
    ("Face", "cor is x1.5; blinds one eye on a major wound, both on injury over full HP.", None),
    ("Shock", "Shock is the injury of the turn, capped at 4; fatigue damage causes no shock.", None),
    ("Death checks", "A HT roll each time HP reaches -1, -2, -3, -4 x HP; dead at -5 x HP, destroyed at "
     "-10 x HP. Collapse rolls start below 0 HP and are not needed under Do Nothing.", None),
    ("Disarm tie", "A tie in the disarm contest counts as the opponent winning by 0 (weapon unreadied); "
     "a critical failure on your contest roll disarms you.", None),
    ("Stunned", "A stunned token may only Do Nothing and defends at -4 (published).", None),
    ("Area attacks", "Distance from the centre is counted in squares (Chebyshev); damage is divided by "
     "that distance (at least 1). Scatter direction is 1d8 (1 = north, clockwise).", None),
    ("Cover", "The document has no cover rules; cover fraction maps to a to-hit penalty: under 25% none, "
     "under 75% -2, else -4 ('total' cover when every line is blocked).", "cover_penalties"),
    ("Physician care", "'roll HP and Physician' is read as HT and Physician, keeping the better result.", None),
    ("Surgery", "-2 below -3 x HP, -4 (not -6) below -4 x HP, -2 per earlier attempt.", None),
    ("High-speed missiles", "A weapon of kind 'ranged' counts as a high-speed missile (no Block) unless its "
     "sheet entry says bullet: false (bows, slings); thrown weapons can be blocked.", None),
    ("Diagonals", "Moving diagonally costs 1 then 2 yards alternately.", None),
    ("Thrust and swing", "Weapon damage 'thr' / 'sw' uses the published basic damage table (ST 1-20).", None),
)


def default_settings() -> dict:
    """Per-game settings (GM-changeable readings) and their defaults."""
    return {
        "critical_hit_no_defense": True,
        "combat_reflexes_defense_bonus": False,
        "close_quarters_yards": 1,
        "defense_stops_extra_hits": True,
        "feint_affects": "dodge",  # or "all"
        "torso_vitals_roll": True,
        "shield_side": "left",
        "cover_penalties": {"none": 0, "partial": -2, "heavy": -4},
    }


def _settings(settings: dict | None) -> dict:
    out = default_settings()
    if settings:
        out.update({k: v for k, v in settings.items() if k in out})
    return out


# ---------------------------------------------------------------------------
# The core roll
# ---------------------------------------------------------------------------


def roll_result(roll: int, skill: int) -> str:
    """Outcome of a 3d6 roll against an effective skill (3d6 core facts).

    Critical success on 3-4, on 5 at skill 15+, on 6 at skill 16+; critical
    failure on 18, on 17 at skill 15 or less, and 10 or more over skill;
    17 and 18 never succeed.
    """
    if roll <= 4 or (roll == 5 and skill >= 15) or (roll == 6 and skill >= 16):
        return "critical success"
    if roll >= 18 or (roll == 17 and skill <= 15) or roll - skill >= 10:
        return "critical failure"
    if roll <= skill and roll <= 16:
        return "success"
    return "failure"


def is_success(result: str) -> bool:
    return result in ("success", "critical success")


@dataclass
class Check:
    """One 3d6 roll against a skill, with its whole breakdown."""

    purpose: str
    base: int
    base_label: str
    modifiers: list[Modifier]
    effective: int
    roll: RollRecord | None
    result: str
    margin: int  # effective - roll (negative is a failure margin)

    @property
    def success(self) -> bool:
        return is_success(self.result)

    def to_dict(self) -> dict:
        return {
            "purpose": self.purpose,
            "base": self.base,
            "base_label": self.base_label,
            "modifiers": [m.to_dict() for m in self.modifiers],
            "effective": self.effective,
            "roll": self.roll.total if self.roll else None,
            "result": self.result,
            "margin": self.margin,
        }


def effective_skill(base: int, modifiers: list[Modifier], cap: int | None = None) -> int:
    value = base + int(sum(m.value for m in modifiers))
    return min(value, cap) if cap is not None else value


def check(dice: DiceSource, purpose: str, base: int, modifiers: list[Modifier] | None = None,
          base_label: str = "", cap: int | None = None) -> Check:
    """Roll 3d6 against ``base`` plus ``modifiers`` (3d6 core facts)."""
    mods = list(modifiers or [])
    eff = effective_skill(base, mods, cap)
    rec = dice.roll("3d6", purpose)
    return Check(purpose, base, base_label, mods, eff, rec, roll_result(rec.total, eff), eff - rec.total)


def contest_key(c: Check) -> tuple[int, int]:
    """Order of a quick contest: a success beats a failure, then the margin."""
    return (1 if c.success else 0, c.margin)


# ---------------------------------------------------------------------------
# Reference functions
# ---------------------------------------------------------------------------


def range_penalty(yards: float, speed: float = 0) -> int:
    """Range/speed penalty ("Ranged Attacks" table): range plus speed, speeds under 2 yd/s ignored."""
    if yards < 0 or speed < 0:
        raise RuleError("range and speed cannot be negative")
    total = yards + (speed if speed >= 2 else 0)
    total = math.ceil(total - 1e-9)
    for bound, penalty, _band in RANGE_TABLE:
        if total <= bound:
            return penalty
    return RANGE_TABLE[-1][1]  # pragma: no cover


def range_band_name(yards: float, speed: float = 0) -> str:
    """The band name of the "Ranged Attacks" table for range plus speed."""
    total = math.ceil(max(0.0, yards + (speed if speed >= 2 else 0)) - 1e-9)
    for bound, _penalty, band in RANGE_TABLE:
        if total <= bound:
            return band
    return "far"  # pragma: no cover


def rapid_fire_bonus(shots: int) -> int:
    """Rapid Fire bonus by shots fired ("Ranged Attacks", Rapid Fire table; +1 per doubling past 99)."""
    if shots < 1:
        raise RuleError("a rapid-fire attack fires at least one shot")
    if shots < 100:
        bonus = 0
        for low, b in RAPID_FIRE_TABLE:
            if shots >= low:
                bonus = b
        return bonus
    bonus, limit = 7, 200
    while shots >= limit:
        bonus += 1
        limit *= 2
    return bonus


def extra_hits(margin: int, recoil: int, shots: int) -> int:
    """Total hits of a rapid-fire attack that succeeded by ``margin`` ("Ranged Attacks", Rapid Fire).

    One hit, plus the margin divided by Rcl (round down), never more than the shots fired.
    """
    if margin < 0 or shots < 1:
        return 0
    if recoil < 1:
        raise RuleError("Rcl is at least 1")
    return min(shots, 1 + margin // recoil)


def hit_location(roll: int) -> str:
    """The random hit location for a 3d6 roll ("Hit Locations"; published random column)."""
    if roll not in RANDOM_LOCATION:
        raise RuleError(f"a 3d6 roll is 3 to 18, not {roll}")
    return RANDOM_LOCATION[roll]


def wounding_multiplier(damage_type: str, location: str = "torso", male: bool = False) -> float:
    """Wounding multiplier of a damage type at a location ("Damage" table, "Hit Locations" notes)."""
    if damage_type not in WOUNDING:
        raise RuleError(f"unknown damage type {damage_type!r}; known: {', '.join(WOUNDING)}")
    mult = WOUNDING[damage_type]
    loc = LOCATIONS.get(location)
    if loc is None:
        raise RuleError(f"unknown hit location {location!r}")
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


def effective_dr(dr: int, armor_divisor: float = 1) -> int:
    """DR after an armour divisor ("Damage"), rounded down."""
    if armor_divisor <= 0:
        raise RuleError("an armour divisor must be positive")
    return int(math.floor(max(0, dr) / armor_divisor + 1e-9))


def injury(damage: int, dr: int, damage_type: str, armor_divisor: float = 1) -> int:
    """Injury from basic damage against DR ("Damage"): (damage - DR/divisor) x wounding, round down.

    Cutting damage less than twice the (effective) DR of armour wounds as crushing.
    A torso hit; see :func:`location_injury` for the other locations.
    """
    return location_injury(damage, dr, damage_type, "torso", armor_divisor)["injury"]


def location_injury(damage: int, dr: int, damage_type: str, location: str = "torso",
                    armor_divisor: float = 1, flexible: bool = False, hp: int | None = None,
                    male: bool = False) -> dict:
    """Penetration, wounding and injury of one hit ("Damage", "Hit Locations" notes).

    Returns a dict: ``dr`` (effective), ``penetrating``, ``wound_type``,
    ``multiplier``, ``injury`` (after the cripple cap), ``blunt_trauma``,
    ``crippled``.
    """
    if damage_type not in WOUNDING:
        raise RuleError(f"unknown damage type {damage_type!r}; known: {', '.join(WOUNDING)}")
    damage = max(0, int(damage))
    eff = effective_dr(dr, armor_divisor)
    pen = max(0, damage - eff)
    wound_type = damage_type
    if damage_type == "cut" and eff > 0 and damage < 2 * eff:
        wound_type = "cr"  # Damage table: cut against armour
    mult = wounding_multiplier(wound_type, location, male)
    inj = int(math.floor(pen * mult + 1e-9))
    blunt = 0
    if pen == 0 and flexible and eff > 0 and damage > 0:
        per = 5 if damage_type == "cr" else 10 if damage_type in (*PIERCING, "cut", "imp") else 0
        if per:
            blunt = damage // per
            inj = blunt
    crippled = False
    loc = LOCATIONS[location]
    if hp is not None and loc.cripple is not None and inj > 0:
        threshold = hp * loc.cripple
        if inj > threshold:
            crippled = True
            inj = min(inj, int(math.floor(threshold)) + 1)
    return {"dr": eff, "penetrating": pen, "wound_type": wound_type, "multiplier": mult,
            "injury": inj, "blunt_trauma": blunt, "crippled": crippled}


def shock(injury_points: int, double: bool = False) -> int:
    """Shock from one turn's injury ("Injury": one per point, at most 4; groin cr on a male doubles)."""
    if double:
        return min(8, 2 * max(0, injury_points))
    return min(4, max(0, injury_points))


def is_major_wound(injury_points: int, hp: int, crippled: bool = False) -> bool:
    """Major wound: more than half HP from one injury, or any crippling injury ("Injury")."""
    return crippled or injury_points * 2 > hp


# ---------------------------------------------------------------------------
# Sheets and derived values
# ---------------------------------------------------------------------------


def _int(v: Any, default: int = 0) -> int:
    try:
        return int(v)
    except (TypeError, ValueError):
        return default


def _num(v: Any, default: float = 0.0) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def skill_level(sheet: dict, skill: str | None, attribute: str = "DX") -> tuple[int, str]:
    """A skill's level from the sheet, or the attribute when it is not known ("Attacking")."""
    skills = sheet.get("skills") or {}
    if skill and skill in skills:
        return _int(skills[skill]), skill
    return _int(sheet.get(attribute, 10), 10), f"{attribute} (no {skill})" if skill else attribute


def max_hp(sheet: dict) -> int:
    return max(1, _int(sheet.get("HP") or sheet.get("ST"), 10))


def current_hp(sheet: dict) -> int:
    v = sheet.get("hp_current")
    return max_hp(sheet) if v is None or v == "" else _int(v)


def is_reeling(sheet: dict) -> bool:
    """At HP/3 or below ("Injury")."""
    return current_hp(sheet) * 3 <= max_hp(sheet)


def basic_move(sheet: dict) -> int:
    return max(0, _int(sheet.get("basic_move"), int(_num(sheet.get("basic_speed"), 5))))


def current_move(sheet: dict) -> int:
    """Move after encumbrance and reeling (published encumbrance table; "Injury" for reeling)."""
    enc = min(4, max(0, _int(sheet.get("encumbrance"))))
    move = basic_move(sheet)
    if move > 0:
        move = max(1, int(math.floor(move * ENCUMBRANCE_MOVE[enc] + 1e-9)))
    if is_reeling(sheet):
        move = math.ceil(move / 2)
    return move


def step_length(sheet: dict) -> int:
    return max(1, current_move(sheet) // 10)


def dodge_breakdown(sheet: dict) -> tuple[int, list[Modifier]]:
    """Dodge = Basic Speed + 3 - encumbrance, halved at HP/3 ("Defending"; core facts).

    Returns (Basic Speed + 3, modifiers); the Dodge is their sum."""
    base = int(math.floor(_num(sheet.get("basic_speed"), 5.0))) + 3
    mods = []
    enc = min(4, max(0, _int(sheet.get("encumbrance"))))
    if enc:
        mods.append(Modifier(f"encumbrance ({ENCUMBRANCE_NAMES[enc]})", -enc, S_DEFEND))
    value = base - enc
    if is_reeling(sheet):
        halved = math.ceil(value / 2)
        mods.append(Modifier("at HP/3 or below: Dodge halved", halved - value, S_DEFEND))
    return base, mods


def weapons(sheet: dict) -> dict[str, dict]:
    w = sheet.get("weapons") or {}
    if isinstance(w, list):
        return {str(x.get("name", i)): x for i, x in enumerate(w)}
    return dict(w)


def _reach(weapon: dict) -> float:
    """The longest reach of a weapon ('C' is 0, '1,2' is 2)."""
    best = 0.0
    for part in str(weapon.get("reach", "1")).replace(" ", "").split(","):
        best = max(best, 0.0 if part.upper() in ("C", "") else _num(part, 1.0))
    return best


def weapon_kind(weapon: dict) -> str:
    return weapon.get("kind") or ("ranged" if weapon.get("max") or weapon.get("rof") else "melee")


def parry_base(sheet: dict, weapon: dict) -> tuple[int, str]:
    """Parry = combat skill/2 + 3 (or DX/2 + 3), plus the weapon's parry modifier ("Defending")."""
    skill_name = weapon.get("skill")
    skills = sheet.get("skills") or {}
    if weapon.get("unarmed") and not (skill_name and skill_name in skills):
        known = [s for s in UNARMED_SKILLS if s in skills]
        if known:
            skill_name = max(known, key=lambda s: _int(skills[s]))
    level, label = skill_level(sheet, skill_name)
    return level // 2 + 3 + _int(weapon.get("parry_mod")), label


def block_base(sheet: dict) -> int | None:
    shield = sheet.get("shield") or {}
    if not shield:
        return None
    level, _ = skill_level(sheet, shield.get("skill", "Shield"))
    return level // 2 + 3


def has_trait(sheet: dict, key: str) -> bool:
    traits = sheet.get("traits") or {}
    if isinstance(traits, dict):
        return bool(traits.get(key))
    return key in traits


def parse_damage(damage: str, st: int = 10) -> tuple[str, int, int]:
    """A weapon's damage in the game's notation ('2d+1', '1d-2', 'sw+2', 'thr') -> (dice expr, dice, adds)."""
    text = str(damage).replace(" ", "").lower()
    m = re.fullmatch(r"(thr|sw)([+-]\d+)?", text)
    extra = 0
    if m:
        st = max(1, min(20, st))
        base = BASIC_DAMAGE[st][0 if m.group(1) == "thr" else 1]
        extra = int(m.group(2) or 0)
        text = base
    m = re.fullmatch(r"(\d+)d6?([+-]\d+)?", text)
    if not m:
        raise RuleError(f"cannot read weapon damage {damage!r} (use e.g. 2d+1, 1d-2, sw+1, thr)")
    n = int(m.group(1))
    adds = int(m.group(2) or 0) + extra
    expr = f"{n}d6" + (f"{adds:+d}" if adds else "")
    return expr, n, adds


def derived(sheet: dict) -> dict:
    """Derived values shown on the sheet: Dodge, Parry per weapon, Block, Move, step, state."""
    dodge = effective_skill(*dodge_breakdown(sheet))
    parries = {}
    for name, w in weapons(sheet).items():
        if weapon_kind(w) != "ranged" and w.get("can_parry", True):
            parries[name] = parry_base(sheet, w)[0]
    hp = max_hp(sheet)
    cur = current_hp(sheet)
    state = "fine"
    if cur <= -10 * hp:
        state = "destroyed"
    elif cur <= -5 * hp:
        state = "dead"
    elif cur < 0:
        state = "below 0 HP: collapse roll each turn"
    elif is_reeling(sheet):
        state = "reeling"
    return {
        "dodge": dodge,
        "parry": parries,
        "block": block_base(sheet),
        "move": current_move(sheet),
        "step": step_length(sheet),
        "hp": hp,
        "hp_current": cur,
        "fp": _int(sheet.get("FP") or sheet.get("HT"), 10),
        "fp_current": _int(sheet.get("fp_current", sheet.get("FP") or sheet.get("HT")), 10),
        "reeling": is_reeling(sheet),
        "status": state,
        "major_wound": hp / 2,
        "death_checks": [-k * hp for k in range(1, 5)],
        "encumbrance": ENCUMBRANCE_NAMES[min(4, max(0, _int(sheet.get("encumbrance"))))],
    }


# ---------------------------------------------------------------------------
# Maneuvers: what a situation allows, and how far each lets a token move
# ---------------------------------------------------------------------------


def _conditions(sheet: dict, state: dict | None) -> set[str]:
    out = set(sheet.get("conditions") or [])
    out |= set((state or {}).get("conditions") or [])
    for key in ("stunned", "unconscious", "dead", "destroyed", "mortally wounded"):
        if (state or {}).get(key):
            out.add(key)
    return out


def ready_weapons(sheet: dict, state: dict | None = None) -> dict[str, dict]:
    """Weapons ready to use: all of the sheet's, less those the state lists as unready."""
    unready = set((state or {}).get("unready") or [])
    return {k: w for k, w in weapons(sheet).items() if k not in unready and w.get("ready", True)}


def maneuver_movement(sheet: dict, maneuver: str, variant: str | None = None) -> int:
    """Yards a maneuver lets the token move ("Maneuvers" table, Movement column)."""
    m = MANEUVERS.get(maneuver)
    if m is None:
        raise RuleError(f"unknown maneuver {maneuver!r}")
    move = current_move(sheet)
    step = step_length(sheet)
    if m.movement == "move":
        return move
    if m.movement == "half" or (maneuver == "all_out_defense" and variant == "enhanced_dodge"):
        return math.ceil(move / 2)
    if m.movement == "step2":
        return 2 * step
    if m.movement == "step":
        return step
    return 0


def allowed_maneuvers(sheet: dict, state: dict | None = None, moved: float = 0) -> list[dict]:
    """The maneuvers a token may choose now ("Maneuvers"), each with its defense and movement.

    ``state`` may hold ``conditions`` (or ``stunned`` etc.), ``unready``
    (weapon names not ready); ``moved`` is how far the token already moved
    this turn: a maneuver whose movement is shorter is not offered.
    """
    conds = _conditions(sheet, state)
    if conds & {"unconscious", "dead", "destroyed", "mortally wounded"}:
        return []
    keys = list(MANEUVERS)
    if "stunned" in conds:
        keys = ["do_nothing"]
    ready = ready_weapons(sheet, state)
    melee = {k: w for k, w in ready.items() if weapon_kind(w) != "ranged"}
    ranged = {k: w for k, w in ready.items() if weapon_kind(w) in ("ranged", "thrown")}
    out = []
    for key in keys:
        m = MANEUVERS[key]
        if m.attack == "melee" and not melee:
            continue
        if m.attack == "ranged" and not ranged:
            continue
        if m.attack == "any" and not ready:
            continue
        if key == "aim" and not ranged:
            continue
        variants = list(m.variants)
        if key == "all_out_attack_ranged" and not any(_int(w.get("rof"), 1) >= 5 for w in ranged.values()):
            variants = [v for v in variants if v != "suppression_fire"]
        movement = maneuver_movement(sheet, key)
        if key == "all_out_defense":
            movement = maneuver_movement(sheet, key, "enhanced_dodge")
        if moved > movement + 1e-9:
            continue
        if key == "all_out_defense" and moved > maneuver_movement(sheet, key) + 1e-9:
            variants = ["enhanced_dodge"]
        out.append({
            "key": key,
            "name": m.name,
            "defense": m.defense,
            "movement": movement,
            "variants": variants,
            "attack": m.attack,
            "notes": m.notes,
        })
    return out


# ---------------------------------------------------------------------------
# Turn order and surprise
# ---------------------------------------------------------------------------

_INIT_SKILLS = {"tactics": ("Tactics",), "primal": ("Tactics", "Survival"), "thuggish": ("Tactics", "Streetwise")}
_SKILL_ATTR = {"Tactics": "IQ", "Streetwise": "IQ", "Survival": "Per"}


def initiative_skill(sheet: dict) -> tuple[int, str]:
    """The skill a side's leader rolls ("Turn Order"): Tactics, or Survival / Streetwise if better."""
    style = sheet.get("initiative_style") or "tactics"
    best = None
    for skill in _INIT_SKILLS.get(style, ("Tactics",)):
        attr = _SKILL_ATTR[skill]
        if attr == "Per" and "Per" not in sheet:
            attr = "IQ"
        level, label = skill_level(sheet, skill, attr)
        if best is None or level > best[0]:
            best = (level, label)
    assert best is not None
    return best


def surprise_level(sheet: dict, kind: str) -> str:
    """Total Surprise becomes Partial for Combat Reflexes ("Turn Order")."""
    if kind == "total" and has_trait(sheet, "combat_reflexes"):
        return "partial"
    return kind


def initiative(combatants: list[Combatant], dice: DiceSource) -> list[dict]:
    """Turn order ("Turn Order"): the sides' leaders roll a quick contest of Tactics.

    A side with no token marked ``leader`` (state or sheet) is leaderless and
    rolls at -2. Sides whose every token is surprised (``state['surprise']``)
    act after the others.
    """
    sides: dict[str, list[Combatant]] = defaultdict(list)
    for c in combatants:
        sides[c.side or c.id].append(c)
    rolls = {}
    for side, members in sides.items():
        leaders = [c for c in members if c.state.get("leader") or c.sheet.get("leader")]
        pool = leaders or members
        roller = max(pool, key=lambda c: (initiative_skill(c.sheet)[0], c.name))
        level, label = initiative_skill(roller.sheet)
        mods = []
        if not leaders:
            mods.append(Modifier("leaderless side", -2, S_TURN))
        surprised = all(c.state.get("surprise") in ("total", "partial") for c in members)
        chk = check(dice, f"turn order: {side} ({roller.name})", level, mods, label)
        rolls[side] = (surprised, chk, roller)
    order = sorted(sorted(rolls), key=lambda s: (0 if rolls[s][0] else 1, contest_key(rolls[s][1]),
                                                 rolls[s][1].effective), reverse=True)
    out = []
    for rank, side in enumerate(order):
        surprised, chk, roller = rolls[side]
        members = sorted(sides[side], key=lambda c: (-_num(c.sheet.get("basic_speed"), 5),
                                                       -_int(c.sheet.get("DX"), 10), c.name))
        for c in members:
            out.append({
                "id": c.id, "name": c.name, "side": side, "side_rank": rank, "order": len(out),
                "leader": roller.id, "roll": chk.roll.to_dict() if chk.roll else None,
                "check": chk.to_dict(), "surprised": bool(surprised),
                "surprise": surprise_level(c.sheet, c.state["surprise"]) if c.state.get("surprise") else None,
            })
    return out


def surprise(sheet: dict, kind: str, dice: DiceSource) -> dict:
    """Start of a surprise ("Turn Order"): Total Surprise stuns for 1d seconds before IQ rolls may end it."""
    if kind not in ("total", "partial"):
        raise RuleError("surprise is 'total' or 'partial'")
    level = surprise_level(sheet, kind)
    rolls = []
    seconds = 0
    if level == "total":
        rec = dice.roll("1d6", "total surprise: seconds of mental stun")
        rolls.append(rec)
        seconds = rec.total
    return {"level": level, "stunned": True, "stun_seconds": seconds, "rolls": rolls,
            "modifiers": [Modifier("Combat Reflexes: partial, not total", 0, S_TURN)] if level != kind else []}


def surprise_recovery(sheet: dict, attempt: int, dice: DiceSource) -> Check:
    """IQ roll to shake off surprise stun ("Turn Order"); each later second is 1 easier (attempt 0, 1, ...)."""
    mods = [Modifier("seconds since stun ended", attempt, S_TURN)] if attempt else []
    return check(dice, "recover from surprise (IQ)", _int(sheet.get("IQ"), 10), mods, "IQ")


# ---------------------------------------------------------------------------
# Wounds: knockdown, collapse, death, mortal wounds
# ---------------------------------------------------------------------------


def knockdown(sheet: dict, dice: DiceSource, modifiers: list[Modifier] | None = None) -> tuple[Check, list[str]]:
    """HT roll against knockdown ("Injury"): failure drops held items, prone, stunned; a critical
    failure or failure by 5+ knocks out instead of stunning."""
    chk = check(dice, "knockdown (HT)", _int(sheet.get("HT"), 10), modifiers, "HT")
    if chk.success:
        return chk, []
    conds = ["dropped held items", "prone"]
    if chk.result == "critical failure" or chk.margin <= -5:
        conds.append("unconscious")
    else:
        conds.append("stunned")
    return chk, conds


def collapse_check(sheet: dict, dice: DiceSource, maneuver: str | None = None) -> Check | None:
    """Start-of-turn HT roll below 0 HP ("Injury"); none under Do Nothing or at 0 HP or more."""
    if current_hp(sheet) >= 0 or maneuver == "do_nothing":
        return None
    return check(dice, "collapse below 0 HP (HT)", _int(sheet.get("HT"), 10), [], "HT")


def hp_loss_checks(sheet: dict, hp_before: int, hp_after: int, dice: DiceSource) -> tuple[list[Check], list[str]]:
    """Death checks for each multiple of -HP passed, death at -5xHP, destruction at -10xHP ("Injury")."""
    hp = max_hp(sheet)
    checks, conds = [], []
    if hp_after <= -10 * hp:
        return checks, ["dead", "destroyed"]
    if hp_after <= -5 * hp:
        return checks, ["dead"]
    for k in range(1, 5):
        line = -k * hp
        if hp_before > line >= hp_after:
            chk = check(dice, f"death check at {line} HP (HT)", _int(sheet.get("HT"), 10), [], "HT")
            checks.append(chk)
            if not chk.success:
                if chk.margin >= -2:
                    if "mortally wounded" not in conds:
                        conds += ["mortally wounded", "unconscious"]
                else:
                    return checks, ["dead"]
    return checks, conds


def mortal_wound_check(sheet: dict, dice: DiceSource, physician_skill: int | None = None) -> dict:
    """The half-hourly HT roll of a mortal wound, or the hourly HT and Physician rolls keeping
    the better ("Injury"): failure is death, a critical success heals the mortal wound."""
    checks = [check(dice, "mortal wound (HT)", _int(sheet.get("HT"), 10), [], "HT")]
    if physician_skill is not None:
        checks.append(check(dice, "mortal wound (Physician)", int(physician_skill), [], "Physician"))
    best = max(checks, key=lambda c: (_RANK[c.result], c.margin))
    outcome = "healed" if best.result == "critical success" else "holds" if best.success else "dead"
    return {"outcome": outcome, "checks": [c.to_dict() for c in checks], "rolls": [c.roll for c in checks]}


def surgery_modifiers(hp_current: int, hp: int, attempt: int = 0) -> list[Modifier]:
    """Modifiers to the Surgery roll that stabilizes a mortal wound ("Injury")."""
    mods = []
    if hp_current < -4 * hp:
        mods.append(Modifier("below -4 x HP", -4, S_INJURY))
    elif hp_current < -3 * hp:
        mods.append(Modifier("below -3 x HP", -2, S_INJURY))
    if attempt:
        mods.append(Modifier(f"repeat attempt x{attempt}", -2 * attempt, S_INJURY))
    return mods


def stabilize(surgery_skill: int, hp_current: int, hp: int, dice: DiceSource, attempt: int = 0) -> Check:
    """Surgery roll to stabilize a mortal wound ("Injury")."""
    return check(dice, "stabilize mortal wound (Surgery)", surgery_skill,
                 surgery_modifiers(hp_current, hp, attempt), "Surgery")


# ---------------------------------------------------------------------------
# Defenses
# ---------------------------------------------------------------------------


@dataclass
class AttackInfo:
    """What the defender needs to know about the attack."""

    ranged: bool = False
    thrown: bool = False
    bullet: bool = False  # a high-speed missile: cannot be blocked
    area: bool = False
    flail: bool = False
    thrust: bool = False
    armed: bool = True
    distance: float = 1
    attacker_id: str = ""


def _feint_penalty(state: dict, attacker_id: str) -> int:
    fp = state.get("feint_penalty")
    if isinstance(fp, dict):
        return _int(fp.get(attacker_id))
    return _int(fp)


def defense_level(target: dict, state: dict, defense: dict, attack: AttackInfo,
                  settings: dict | None = None) -> tuple[int, list[Modifier], str]:
    """Effective level of one active defense and its modifiers ("Defending").

    ``defense``: ``type`` (dodge / parry / block), ``weapon`` (for a parry),
    ``retreat``, ``dive``, ``acrobatic`` (+2 / -2 from a roll made by the
    caller: pass ``acrobatic_result``), ``cross`` (second weapon) or
    ``supported``, ``riposte`` (points taken off the parry).
    Returns (level, modifiers, base label); raises RuleError if it cannot be used.
    """
    st = _settings(settings)
    kind = defense.get("type")
    maneuver = MANEUVERS.get(state.get("maneuver") or "")
    conds = _conditions(target, state)
    if conds & {"unconscious", "dead", "destroyed", "mortally wounded"}:
        raise RuleError("an unconscious token cannot defend")
    if maneuver and maneuver.no_defense:
        raise RuleError(f"no active defense after {maneuver.name}")
    if attack.area and not (kind == "dodge" and defense.get("dive")):
        raise RuleError("only a dive (a Dodge) helps against an area attack")
    mods: list[Modifier] = []
    if kind == "dodge":
        base, mods = dodge_breakdown(target)
        label = "Dodge (Basic Speed + 3)"
        n = _int(state.get("dodges"))
        if n:
            mods.append(Modifier(f"{n} earlier dodge(s) this round", -n, S_DEFEND))
        if defense.get("dive"):
            if not (attack.ranged or attack.area):
                raise RuleError("a dive is only against ranged attacks")
            mods.append(Modifier("dive (go prone)", 3, S_DEFEND))
        if defense.get("acrobatic"):
            res = defense.get("acrobatic_result")
            if res is None:
                raise RuleError("an acrobatic dodge needs its Acrobatics roll")
            mods.append(Modifier("acrobatic dodge", 2 if is_success(res) else -2, S_DEFEND))
        if _feint_penalty(state, attack.attacker_id) and st["feint_affects"] in ("dodge", "all"):
            mods.append(Modifier("feinted", -_feint_penalty(state, attack.attacker_id), S_MANEUVER))
    elif kind == "parry":
        ws = ready_weapons(target, state)
        wname = defense.get("weapon")
        if wname not in ws:
            raise RuleError(f"{wname!r} is not a ready weapon to parry with")
        w = ws[wname]
        if weapon_kind(w) == "ranged" or not w.get("can_parry", True):
            raise RuleError(f"{wname} cannot parry")
        if maneuver and maneuver.no_parry_with_attack_weapon and state.get("attacked_with") == wname:
            raise RuleError(f"cannot parry with {wname}: it attacked under {maneuver.name}")
        if attack.area:
            raise RuleError("an area attack cannot be parried")
        if attack.ranged and not attack.thrown and attack.distance > max(1.0, _reach(w)):
            raise RuleError("a missile can only be parried within the weapon's reach of the attacker")
        base, label = parry_base(target, w)
        label = f"Parry ({label}/2 + 3)"
        fencing = bool(w.get("fencing"))
        trained = has_trait(target, "trained_by_a_master") or has_trait(target, "weapon_master")
        n = _int(state.get("parries"))
        if n:
            per = -1 if fencing and trained else -2 if fencing or trained else -4
            mods.append(Modifier(f"{n} earlier parry(ies) this round", per * n, S_DEFEND))
        if w.get("unarmed") and attack.armed and not attack.thrust:
            skills = target.get("skills") or {}
            if not any(s in skills for s in ("Judo", "Karate")):
                mods.append(Modifier("unarmed parry against a weapon", -3, S_DEFEND))
        if attack.flail:
            if fencing and not defense.get("supported"):
                raise RuleError("a fencing weapon cannot parry a flail unless supported")
            mods.append(Modifier("parrying a flail", -4, S_DEFEND))
        if defense.get("cross") and defense.get("supported"):
            raise RuleError("cross or supported, not both")
        if defense.get("cross"):
            if defense["cross"] not in ws or defense["cross"] == wname:
                raise RuleError("a cross parry needs a second ready weapon")
            mods.append(Modifier("cross parry", 2, S_DEFEND))
        if defense.get("supported"):
            mods.append(Modifier("supported parry", 2, S_DEFEND))
        rip = _int(defense.get("riposte"))
        if rip:
            current = effective_skill(base, mods)
            if current - rip < 8:
                raise RuleError("a riposte cannot take the parry below 8")
            mods.append(Modifier("riposte", -rip, S_DEFEND))
        if _feint_penalty(state, attack.attacker_id) and st["feint_affects"] == "all":
            mods.append(Modifier("feinted", -_feint_penalty(state, attack.attacker_id), S_MANEUVER))
    elif kind == "block":
        base = block_base(target)
        if base is None:
            raise RuleError("no shield to block with")
        label = "Block (Shield/2 + 3)"
        if state.get("blocked"):
            raise RuleError("only one block per round")
        if attack.bullet:
            raise RuleError("high-speed missiles cannot be blocked")
        if attack.area:
            raise RuleError("an area attack cannot be blocked")
        if _feint_penalty(state, attack.attacker_id) and st["feint_affects"] == "all":
            mods.append(Modifier("feinted", -_feint_penalty(state, attack.attacker_id), S_MANEUVER))
    else:
        raise RuleError(f"unknown defense {kind!r}")
    if defense.get("retreat"):
        if attack.ranged:
            raise RuleError("retreat only helps against melee attacks")
        if maneuver and maneuver.no_retreat:
            raise RuleError(f"no retreat after {maneuver.name}")
        big = kind == "dodge"
        if kind == "parry":
            w = weapons(target)[defense["weapon"]]
            skill = w.get("skill")
            big = bool(w.get("fencing")) or (w.get("unarmed") and any(
                s in (target.get("skills") or {}) for s in RETREAT_PLUS3_SKILLS)) or skill in RETREAT_PLUS3_SKILLS
        mods.append(Modifier("retreat", 3 if big else 1, S_DEFEND))
    if maneuver and maneuver.defense_mod:
        if not (maneuver.key == "defensive_attack" and kind == "parry"
                and weapons(target)[defense["weapon"]].get("unbalanced")):
            mods.append(Modifier(maneuver.name, maneuver.defense_mod, S_MANEUVER))
    if maneuver and maneuver.key == "all_out_defense" and state.get("variant") == f"enhanced_{kind}":
        mods.append(Modifier("All-Out Defense (enhanced)", 2, S_MANEUVER))
    if "stunned" in conds:
        mods.append(Modifier("stunned", -4, S_READING))
    if st["combat_reflexes_defense_bonus"] and has_trait(target, "combat_reflexes"):
        mods.append(Modifier("Combat Reflexes", 1, S_READING))
    pen = state.get("defense_penalty") or {}
    if isinstance(pen, dict) and attack.attacker_id and pen.get(attack.attacker_id):
        mods.append(Modifier("riposted by the attacker", -_int(pen[attack.attacker_id]), S_DEFEND))
    if defense.get("modifier"):
        mods.append(Modifier("GM modifier", _int(defense["modifier"]), S_GM))
    return base, mods, label


def available_defenses(target: dict, state: dict, attack: AttackInfo, settings: dict | None = None) -> list[dict]:
    """Every defense the target may use against this attack, with its level, best first ("Defending")."""
    out = []
    candidates: list[dict] = [{"type": "dodge", "dive": attack.area}]
    for name, w in ready_weapons(target, state).items():
        if weapon_kind(w) != "ranged" and w.get("can_parry", True):
            candidates.append({"type": "parry", "weapon": name})
    candidates.append({"type": "block"})
    for d in candidates:
        try:
            base, mods, label = defense_level(target, state, d, attack, settings)
        except RuleError:
            continue
        out.append({**d, "level": effective_skill(base, mods), "base": base, "label": label,
                    "modifiers": [m.to_dict() for m in mods]})
    out.sort(key=lambda d: -d["level"])
    return out


# ---------------------------------------------------------------------------
# Attacks
# ---------------------------------------------------------------------------


def _weapon(sheet: dict, name: str | None, state: dict | None = None) -> tuple[str, dict]:
    ws = weapons(sheet)
    if not ws:
        raise RuleError("the attacker has no weapons on the sheet")
    if name is None:
        name = next(iter(ws))
    if name not in ws:
        raise RuleError(f"no weapon {name!r} on the sheet")
    if name not in ready_weapons(sheet, state):
        raise RuleError(f"{name} is not ready (take a Ready maneuver)")
    return name, ws[name]


def _own_copy(request: AttackRequest) -> AttackRequest:
    """A copy the resolution may annotate (defenses used, distance) without touching the caller's."""
    a = replace(request.attacker, state=dict(request.attacker.state or {}))
    t = replace(request.target, state=dict(request.target.state or {}))
    distance = request.distance
    if not distance and a.position is not None and t.position is not None:
        distance = _distance_cells(a.position, t.position)
    return replace(request, attacker=a, target=t, distance=distance, options=dict(request.options or {}))


def _distance_cells(a: Any, b: Any) -> float:
    return float(max(abs(a[0] - b[0]), abs(a[1] - b[1])))


def location_penalty(location: str, target: dict, weapon_reach: Any = 1, from_behind: bool = False,
                     fencing: bool = False, disarm: bool = False, settings: dict | None = None) -> list[Modifier]:
    """To-hit modifiers of a chosen location ("Hit Locations" table and notes 6, 13)."""
    loc = LOCATIONS.get(location)
    if loc is None:
        raise RuleError(f"unknown hit location {location!r}")
    st = _settings(settings)
    mods = []
    if location == "weapon":
        r = _reach({"reach": weapon_reach})
        pen = -5 if r < 1 else -4 if r < 2 else -3
        mods.append(Modifier("target the weapon", pen, S_LOC))
        if disarm and not fencing:
            mods.append(Modifier("disarm (not a fencing weapon)", -2, S_LOC))
        return mods
    pen = loc.to_hit_back if (from_behind and loc.to_hit_back is not None) else loc.to_hit
    if pen:
        mods.append(Modifier(f"hit location: {loc.name}" + (" (from behind)" if from_behind and loc.to_hit_back else ""),
                             pen, S_LOC))
    side = st["shield_side"]
    if target.get("shield") and location in (f"{side}_arm", f"{side}_hand"):
        mods.append(Modifier("shield arm/hand: penalty doubled", pen, S_LOC))
    return mods


def _dr_at(sheet: dict, location: str) -> tuple[int, bool]:
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
            value = _int(dr[k])
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
    return sum(_dr_at(sheet, loc)[0] for loc in locs) // len(locs)


def _damage_adjust(n_dice: int, maneuver: str, variant: str, weapon: dict) -> list[Modifier]:
    mods = []
    if maneuver == "all_out_attack" and variant == "strong":
        mods.append(Modifier("All-Out Attack (Strong)", max(2, n_dice), S_MANEUVER))
    if maneuver == "all_out_attack" and variant == "long" and weapon.get("attack", "swing") == "swing":
        mods.append(Modifier("All-Out Attack (Long), swing", -max(2, n_dice), S_MANEUVER))
    if maneuver == "committed_attack" and variant == "strong":
        mods.append(Modifier("Committed Attack (Strong)", max(1, n_dice // 2), S_MANEUVER))
    if maneuver == "defensive_attack":
        mods.append(Modifier("Defensive Attack", -max(2, n_dice), S_MANEUVER))
    return mods


@dataclass
class _Ctx:
    request: AttackRequest
    settings: dict
    rolls: list = field(default_factory=list)
    effects: list = field(default_factory=list)
    lines: list = field(default_factory=list)


def _roll_location(ctx: _Ctx, dice: DiceSource, damage_type: str) -> str:
    rec = dice.roll("3d6", "random hit location")
    ctx.rolls.append(rec)
    loc = hit_location(rec.total)
    if loc in ("hand", "foot"):
        side = dice.roll("1d6", f"{loc}: right (1-3) or left (4-6)")
        ctx.rolls.append(side)
        loc = ("right_" if side.total <= 3 else "left_") + loc
    return loc


def resolve_damage(target: Combatant, weapon: dict, damage_type: str, location: str, dice: DiceSource,
                   attacker_st: int = 10, damage_mods: list[Modifier] | None = None, half_damage: bool = False,
                   shotgun_multiplier: int = 1, dr_override: int | None = None, divide_by: int = 1,
                   settings: dict | None = None, hp_before: int | None = None,
                   label: str = "damage", vitals_roll: bool = True) -> dict:
    """Roll one hit's damage and turn it into injury and its consequences ("Damage", "Injury",
    "Hit Locations"). Returns rolls, effects, injury, the breakdown and the new HP."""
    st = _settings(settings)
    rolls: list[RollRecord] = []
    effects: list[Effect] = []
    sheet = target.sheet
    expr, n_dice, _adds = parse_damage(weapon.get("damage", "1d"), attacker_st)
    rec = dice.roll(expr, f"{label} ({weapon.get('damage')} {damage_type})")
    rolls.append(rec)
    mods = list(damage_mods or [])
    basic = rec.total + int(sum(m.value for m in mods))
    if half_damage:
        basic = basic // 2
        mods.append(Modifier("at or beyond 1/2D: half damage", 0, S_READING))
    if divide_by > 1:
        basic = basic // divide_by
        mods.append(Modifier(f"area effect: divided by distance {divide_by}", 0, S_AOE))
    basic = max(0 if damage_type == "cr" else 1, basic)
    if shotgun_multiplier > 1:
        basic *= shotgun_multiplier
    # torso -> vitals (note 11)
    if location == "torso" and vitals_roll and st["torso_vitals_roll"] and damage_type in ("imp", *PIERCING, "cr", "tbb"):
        v = dice.roll("1d6", "torso hit: vitals on a 1")
        rolls.append(v)
        if v.total == 1:
            location = "vitals"
    wound_loc = "torso" if location in ("chinks_torso", "armour_gap", "groin") else location
    dr, flexible = _dr_at(sheet, "torso" if location in ("chinks_torso", "armour_gap") else location)
    if location == "chinks_torso":
        dr //= 2
    elif location == "armour_gap":
        dr = 0
    elif location == "skull":
        dr += 2  # note 3
    elif location == "eye":
        dr = 0  # note 2: as skull without DR
    if dr_override is not None:
        dr = dr_override
    if shotgun_multiplier > 1:
        dr *= shotgun_multiplier
    hp = max_hp(sheet)
    male = bool(sheet.get("male"))
    info = location_injury(basic, dr, damage_type, wound_loc, _num(weapon.get("armor_divisor"), 1) or 1,
                           flexible, hp, male)
    inj = info["injury"]
    before = current_hp(sheet) if hp_before is None else hp_before
    conds: list[str] = []
    checks: list[Check] = []
    if damage_type == "fat":
        if inj:
            effects.append(Effect("fatigue", target.id, {"fp": inj, "location": location}))
        after = before
    else:
        after = before - inj
        if inj:
            effects.append(Effect("injury", target.id, {"injury": inj, "location": location}))
            double = location == "groin" and damage_type == "cr" and male
            effects.append(Effect("shock", target.id, {"shock": shock(inj, double), "cap": 8 if double else 4}))
        if damage_type == "cor" and basic >= 5:
            effects.append(Effect("dr_reduced", target.id, {"location": location, "by": basic // 5}))
        if info["crippled"]:
            effects.append(Effect("crippled", target.id, {"location": location}))
        major = inj > 0 and is_major_wound(inj, hp, info["crippled"])
        kd_mods: list[Modifier] = []
        needs_kd = major
        if inj > 0 and location in ("skull", "eye") and damage_type != "tox":
            needs_kd = True
            if major:
                kd_mods.append(Modifier("major wound to the skull", -10, S_LOC))
        if inj > 0 and location in ("face", "vitals"):
            needs_kd = True
            if major:
                kd_mods.append(Modifier(f"major wound to the {location}", -5, S_LOC))
        if location == "groin" and male and needs_kd:
            kd_mods.append(Modifier("groin hit (male)", -5, S_LOC))
        if location == "face" and damage_type == "cor":
            if inj > hp:
                conds.append("blinded (both eyes)")
            elif major:
                conds.append("blinded (one eye)")
        if needs_kd:
            kd, kd_conds = knockdown(sheet, dice, kd_mods)
            checks.append(kd)
            rolls.append(kd.roll)
            conds += kd_conds
        if after < before:
            hp_checks, hp_conds = hp_loss_checks(sheet, before, after, dice)
            checks += hp_checks
            rolls += [c.roll for c in hp_checks]
            conds += hp_conds
            if after * 3 <= hp < before * 3:
                conds.append("reeling")
    for cond in dict.fromkeys(conds):
        effects.append(Effect("condition", target.id, {"condition": cond}))
    return {
        "rolls": rolls, "effects": effects, "injury": inj, "location": location, "basic_damage": basic,
        "damage_modifiers": [m.to_dict() for m in mods], "wound": info, "hp_before": before, "hp_after": after,
        "checks": [c.to_dict() for c in checks],
    }


def _attack_info(request: AttackRequest, weapon: dict, damage_type: str) -> AttackInfo:
    kind = weapon_kind(weapon)
    return AttackInfo(
        ranged=kind in ("ranged", "thrown"),
        thrown=kind == "thrown",
        bullet=bool(weapon.get("bullet", kind == "ranged" and weapon.get("firearm", True))),
        area=bool(weapon.get("area")),
        flail=bool(weapon.get("flail")),
        thrust=weapon.get("attack") == "thrust" or damage_type in ("imp", *PIERCING),
        armed=not weapon.get("unarmed"),
        distance=request.distance,
        attacker_id=request.attacker.id,
    )


def attack_modifiers(request: AttackRequest, wname: str, weapon: dict, settings: dict | None = None,
                     n_attacks_penalty: list[Modifier] | None = None) -> tuple[int, str, list[Modifier], int | None, dict]:
    """Base skill, modifiers and cap of one attack ("Attacking", "Hit Locations", "Ranged Attacks",
    "Maneuvers"). Returns (base, base label, modifiers, cap, facts)."""
    st = _settings(settings)
    opts = request.options or {}
    a, t = request.attacker, request.target
    base, label = skill_level(a.sheet, weapon.get("skill"))
    mods: list[Modifier] = list(n_attacks_penalty or [])
    facts: dict = {}
    kind = weapon_kind(weapon)
    ranged = kind in ("ranged", "thrown")
    maneuver = opts.get("maneuver", "attack")
    variant = opts.get("variant") or ""
    m = MANEUVERS.get(maneuver)
    if m is None or not m.attack:
        raise RuleError(f"{maneuver!r} is not an attacking maneuver")
    if m.attack == "melee" and ranged:
        raise RuleError(f"{m.name} is for melee weapons")
    if m.attack == "ranged" and not ranged:
        raise RuleError(f"{m.name} is for ranged weapons")
    if variant and variant not in m.variants:
        raise RuleError(f"{m.name} has no {variant!r} option")
    moved = _num(opts.get("moved"))
    allowed = maneuver_movement(a.sheet, maneuver, variant)
    if moved > allowed + 1e-9:
        raise RuleError(f"{m.name} allows {allowed} yards of movement, not {moved:g}")
    shock_pts = _int(a.sheet.get("shock")) or _int(a.state.get("shock"))
    if shock_pts:
        mods.append(Modifier("shock", -min(shock_pts, 8), S_INJURY))
    cap = None
    if maneuver == "all_out_attack" and variant == "determined":
        mods.append(Modifier("All-Out Attack (Determined)", 4, S_MANEUVER))
    if maneuver == "all_out_attack_ranged" and variant == "determined":
        mods.append(Modifier("All-Out Attack (ranged, Determined)", 1, S_MANEUVER))
    if maneuver == "committed_attack":
        if variant == "determined":
            mods.append(Modifier("Committed Attack (Determined)", 2, S_MANEUVER))
        if moved > step_length(a.sheet) + 1e-9:
            mods.append(Modifier("Committed Attack: two steps", -2, S_MANEUVER))
    if maneuver == "move_and_attack":
        if ranged:
            bulk = _int(weapon.get("bulk"))
            mods.append(Modifier("Move and Attack (ranged: -2 or Bulk)", min(-2, bulk), S_MANEUVER))
        else:
            mods.append(Modifier("Move and Attack (melee)", -4, S_MANEUVER))
        if not opts.get("slam"):
            cap = 9
    ev = a.state.get("evaluate") or {}
    if ev and ev.get("target") == t.id:
        mods.append(Modifier("Evaluate", min(3, max(1, _int(ev.get("turns"), 1))), S_MANEUVER))
    location = opts.get("location", "torso") or "torso"
    if location != "random":
        target_weapon = weapons(t.sheet).get(opts.get("target_weapon") or "", {})
        mods += location_penalty(location, t.sheet, target_weapon.get("reach", 1), bool(opts.get("from_behind")),
                                 bool(weapon.get("fencing")), bool(opts.get("disarm")), st)
    if not ranged and request.distance:
        reach = max(1.0, _reach(weapon)) + (1 if maneuver == "all_out_attack" and variant == "long" else 0)
        if request.distance > reach + 1e-9:
            raise RuleError(f"{wname} reaches {reach:g} yard(s); the target is {request.distance:g} away")
    if ranged:
        speed = _num(opts.get("target_speed", t.state.get("last_move", 0)))
        dist = request.distance
        if weapon.get("max") and dist > _num(weapon["max"]):
            raise RuleError(f"{wname} reaches {weapon['max']} yards at most")
        rp = range_penalty(dist, speed)
        if rp:
            mods.append(Modifier(f"range {dist:g} yd + speed {speed:g} yd/s" if speed >= 2 else f"range {dist:g} yd",
                                 rp, S_RANGED))
        facts["half_damage"] = bool(weapon.get("half_d")) and dist >= _num(weapon["half_d"])
        if dist <= _num(st["close_quarters_yards"]) and _int(weapon.get("bulk")):
            mods.append(Modifier("close quarters: Bulk", -abs(_int(weapon["bulk"])), S_RANGED))
        aim = _int(opts.get("aim_turns", a.state.get("aim_turns", 0)))
        if aim:
            acc = _int(weapon.get("acc"))
            if opts.get("braced"):
                if moved:
                    raise RuleError("moving unbraces the weapon")
                acc += 1
                mods.append(Modifier("braced: +1 Acc", 0, S_ATTACK))
            mods.append(Modifier(f"aimed (Acc {acc})", acc, S_MANEUVER))
            if aim >= 2:
                mods.append(Modifier(f"aimed {aim} seconds", 1 if aim == 2 else 2, S_MANEUVER))
        if opts.get("aim_at_ground") and weapon.get("area"):
            mods.append(Modifier("area attack aimed at the ground", 4, S_AOE))
    sm = _int(t.sheet.get("sm"))
    if sm and ranged:
        mods.append(Modifier("target size modifier", sm, S_RANGED))
    if request.cover is not None:
        ce = cover_effect(request.cover, st)
        if ce.level == "total":
            raise RuleError("the target is completely behind cover")
        if ce.modifier:
            mods.append(Modifier(ce.label, ce.modifier, S_READING))
    if opts.get("modifier"):
        mods.append(Modifier(str(opts.get("modifier_label") or "GM modifier"), _int(opts["modifier"]), S_GM))
    facts.update({"maneuver": maneuver, "variant": variant, "location": location, "ranged": ranged})
    return base, label, mods, cap, facts


def cover_effect(cover: Any, settings: dict | None = None) -> CoverEffect:
    """Cover fraction -> to-hit penalty (a reading: the document has no cover rules)."""
    st = _settings(settings)
    pens = st["cover_penalties"]
    if cover is None:
        return CoverEffect("none", 0, "no cover")
    if isinstance(cover, str):
        if cover not in pens and cover != "total":
            raise RuleError(f"unknown cover level {cover!r}")
        return CoverEffect(cover, 0 if cover == "total" else _int(pens.get(cover)), f"cover: {cover}")
    frac = float(getattr(cover, "fraction", cover))
    if frac >= 1:
        return CoverEffect("total", 0, "total cover")
    if frac < 0.25:
        return CoverEffect("none", 0, "no cover")
    level = "partial" if frac < 0.75 else "heavy"
    return CoverEffect(level, _int(pens.get(level)), f"cover: {level} ({frac:.0%})")


def _defend(ctx: _Ctx, dice: DiceSource, info: AttackInfo, attack_check: Check, hits: int) -> dict:
    """The target's active defense against a hit ("Defending"); returns the hits it stops."""
    req = ctx.request
    t = req.target
    opts = req.options or {}
    st = ctx.settings
    if attack_check.result == "critical success" and st["critical_hit_no_defense"]:
        return {"stopped": 0, "defense": None, "note": "critical hit: no defense"}
    choice = opts.get("defense", "best")
    if choice in (None, "none"):
        return {"stopped": 0, "defense": None, "note": "no defense chosen"}
    if choice == "best" or isinstance(choice, str):
        avail = available_defenses(t.sheet, t.state, info, st)
        if isinstance(choice, str) and choice != "best":
            avail = [d for d in avail if d["type"] == choice]
        if not avail:
            return {"stopped": 0, "defense": None, "note": "no defense available"}
        chosen = {k: v for k, v in avail[0].items() if k in ("type", "weapon", "dive")}
    else:
        chosen = dict(choice)
    extra_rolls = []
    if chosen.get("acrobatic") and "acrobatic_result" not in chosen:
        acro, _ = skill_level(t.sheet, "Acrobatics")
        ac = check(dice, "acrobatic dodge (Acrobatics)", acro, [], "Acrobatics")
        extra_rolls.append(ac)
        chosen["acrobatic_result"] = ac.result
    base, mods, label = defense_level(t.sheet, t.state, chosen, info, st)
    d = check(dice, f"defense: {chosen['type']}", base, mods, label)
    ctx.rolls += [c.roll for c in extra_rolls] + [d.roll]
    checks = [d]
    maneuver = t.state.get("maneuver")
    if not d.success and maneuver == "all_out_defense" and t.state.get("variant") == "double" and opts.get("second_defense"):
        second = dict(opts["second_defense"])
        if second.get("type") == chosen["type"]:
            raise RuleError("Double Defense uses two different defenses")
        b2, m2, l2 = defense_level(t.sheet, t.state, second, info, st)
        d2 = check(dice, f"second defense: {second['type']}", b2, m2, l2)
        ctx.rolls.append(d2.roll)
        checks.append(d2)
        if d2.success:
            d, chosen = d2, second
    stopped = 0
    if d.success:
        stopped = min(hits, 1 + max(0, d.margin)) if st["defense_stops_extra_hits"] else hits
    tid = t.id
    used = {"dodge": "dodges", "parry": "parries", "block": "blocked"}[chosen["type"]]
    ctx.effects.append(Effect("defended", tid, {"defense": chosen["type"], "counter": used,
                                                 "weapon": chosen.get("weapon")}))
    if chosen.get("dive"):
        ctx.effects.append(Effect("condition", tid, {"condition": "prone"}))
    if chosen.get("riposte") and d.success:
        ctx.effects.append(Effect("defense_penalty", req.attacker.id,
                                  {"against": tid, "value": _int(chosen["riposte"]) // 2}))
    if maneuver == "aim":
        ctx.effects.append(Effect("aim_lost", tid, {}))
    if maneuver == "concentrate":
        will = _int(t.sheet.get("Will") or t.sheet.get("IQ"), 10)
        cc = check(dice, "keep concentrating (Will-3)", will, [Modifier("defending while concentrating", -3, S_MANEUVER)], "Will")
        ctx.rolls.append(cc.roll)
        checks.append(cc)
        if not cc.success:
            ctx.effects.append(Effect("concentration_lost", tid, {}))
    return {"stopped": stopped, "defense": chosen, "checks": [c.to_dict() for c in checks], "success": d.success}


def _single_attack(ctx: _Ctx, dice: DiceSource, wname: str, weapon: dict, extra: list[Modifier],
                   label: str, hp_before: int) -> dict:
    req = ctx.request
    opts = req.options or {}
    a, t = req.attacker, req.target
    st = ctx.settings
    damage_type = weapon.get("type", "cr")
    if opts.get("tip_slash"):
        if damage_type != "imp" or weapon.get("attack") != "thrust":
            raise RuleError("Tip Slash needs a thrusting impaling attack")
        damage_type = "cut"
    base, blabel, mods, cap, facts = attack_modifiers(req, wname, weapon, st, extra)
    location = facts["location"]
    if location in ONLY_TYPES and damage_type not in ONLY_TYPES[location]:
        raise RuleError(f"{LOCATIONS[location].name} can only be targeted by {', '.join(ONLY_TYPES[location])}")
    ranged = facts["ranged"]
    shots = max(1, _int(opts.get("shots", 1)))
    rof = _int(weapon.get("rof"), 1)
    pellets = max(1, _int(weapon.get("pellets"), 1))
    shotgun_mult = 1
    if ranged and shots > 1:
        if shots > rof:
            raise RuleError(f"{wname} fires at most {rof} shots (RoF)")
    if ranged and pellets > 1:
        half_d = _num(weapon.get("half_d"))
        if half_d and req.distance <= 0.1 * half_d:
            shotgun_mult = max(1, pellets // 2)
            mods.append(Modifier(f"shotgun at close range: damage and DR x{shotgun_mult}", 0, S_RANGED))
        else:
            shots *= pellets
    if ranged and shots > 1:
        b = rapid_fire_bonus(shots)
        if b:
            mods.append(Modifier(f"rapid fire ({shots} shots)", b, S_RANGED))
    chk = check(dice, f"{label}: {wname} ({blabel})", base, mods, blabel, cap)
    ctx.rolls.append(chk.roll)
    out: dict = {"weapon": wname, "check": chk.to_dict(), "hits": 0, "landed": 0, "injury": 0, "damage": []}
    if not chk.success:
        if chk.margin == -1 and chk.result == "failure" and location in MISS_BY_ONE_TORSO:
            location = "torso"
            out["note"] = "missed by 1: hits the torso instead"
        else:
            out["note"] = chk.result
            return out
    if location == "weapon":
        if not opts.get("disarm"):
            raise RuleNotImplemented("striking a weapon to break it is not automated; use the disarm option")
    hits = extra_hits(max(0, chk.margin), max(1, _int(weapon.get("rcl"), 1)), shots) if shots > 1 else 1
    out["hits"] = hits
    info = _attack_info(req, weapon, damage_type)
    defense = _defend(ctx, dice, info, chk, hits)
    out["defense"] = defense
    landed = hits - defense["stopped"]
    out["landed"] = landed
    if landed <= 0:
        return out
    if location == "weapon":
        out["disarm"] = _disarm(ctx, dice, weapon)
        return out
    dmods = _damage_adjust(parse_damage(weapon.get("damage", "1d"), _int(a.sheet.get("ST"), 10))[1],
                           facts["maneuver"], facts["variant"], weapon)
    hp_now = hp_before
    for i in range(landed):
        loc = _roll_location(ctx, dice, damage_type) if location == "random" else location
        res = resolve_damage(t, weapon, damage_type, loc, dice, _int(a.sheet.get("ST"), 10), dmods,
                             facts.get("half_damage", False), shotgun_mult, settings=st, hp_before=hp_now,
                             label=f"{label} damage" + (f" (hit {i + 1})" if landed > 1 else ""))
        ctx.rolls += res.pop("rolls")
        ctx.effects += res.pop("effects")
        hp_now = res["hp_after"]
        out["injury"] += res["injury"]
        out["damage"].append(res)
    out["hp_after"] = hp_now
    return out


def _disarm(ctx: _Ctx, dice: DiceSource, weapon: dict) -> dict:
    """Disarm ("Attacking"): after the hit, a quick contest of combat skills (ST-based if chosen)."""
    req = ctx.request
    opts = req.options or {}
    a, t = req.attacker, req.target
    twname = opts.get("target_weapon")
    tws = weapons(t.sheet)
    if twname not in tws:
        raise RuleError("a disarm names the target's weapon (option target_weapon)")
    tw = tws[twname]

    def level(sheet: dict, w: dict, st_based: bool) -> tuple[int, list[Modifier], str]:
        lvl, lab = skill_level(sheet, w.get("skill"))
        mods = []
        if st_based:
            mods.append(Modifier("ST-based", _int(sheet.get("ST"), 10) - _int(sheet.get("DX"), 10), S_ATTACK))
        return lvl, mods, lab

    b1, m1, l1 = level(a.sheet, weapon, bool(opts.get("disarm_st_based")))
    t_st = bool(opts.get("defender_st_based")) and weapon_kind(tw) != "ranged"
    b2, m2, l2 = level(t.sheet, tw, t_st)
    c1 = check(dice, "disarm contest (attacker)", b1, m1, l1)
    c2 = check(dice, "disarm contest (defender)", b2, m2, l2)
    ctx.rolls += [c1.roll, c2.roll]
    if c1.result == "critical failure":
        outcome = "attacker disarmed"
        ctx.effects.append(Effect("disarmed", a.id, {"weapon": req.weapon}))
    elif contest_key(c1) > contest_key(c2):
        outcome = "weapon flung 1 yard"
        ctx.effects.append(Effect("disarmed", t.id, {"weapon": twname, "yards": 1}))
    elif c2.margin - c1.margin <= 3:
        outcome = "weapon unreadied"
        ctx.effects.append(Effect("unreadied", t.id, {"weapon": twname}))
    else:
        outcome = "no effect"
    return {"outcome": outcome, "attacker": c1.to_dict(), "defender": c2.to_dict()}


def _rapid_strike_penalty(sheet: dict, levels: int, ranged: bool) -> list[Modifier]:
    per = -3 if (has_trait(sheet, "trained_by_a_master") or has_trait(sheet, "weapon_master")) else -6
    mods = [Modifier(f"Rapid Strike x{2 ** levels}", per * levels, S_ATTACK)]
    if ranged:
        qs = _int((sheet.get("techniques") or {}).get("Quick Shot"))
        if qs:
            mods.append(Modifier("Quick Shot technique", min(qs, -per * levels), S_ATTACK))
    return mods


def attack(request: AttackRequest, dice: DiceSource, settings: dict | None = None) -> AttackResult:
    """Resolve an attack: to-hit, the target's defense, location, damage, injury and its
    consequences ("Attacking", "Hit Locations", "Ranged Attacks", "Area of Effects", "Defending",
    "Maneuvers", "Damage", "Injury").

    ``request.options``: ``maneuver`` and ``variant``, ``moved`` (yards),
    ``location`` (a key of LOCATIONS or ``random``), ``from_behind``,
    ``rapid_strike`` (levels), ``dual_weapon`` (second weapon name),
    ``tip_slash``, ``braced``, ``aim_turns``, ``shots``, ``target_speed``,
    ``disarm`` with ``target_weapon``, ``defense`` (``best``, ``none``, a
    type or a dict for :func:`defense_level`), ``second_defense``,
    ``modifier``, ``settings``.
    """
    opts = request.options or {}
    st = _settings(settings or opts.get("settings"))
    request = _own_copy(request)
    a, t = request.attacker, request.target
    wname, weapon = _weapon(a.sheet, request.weapon, a.state)
    ctx = _Ctx(request, st)
    if weapon.get("area"):
        return _area_attack(ctx, dice, wname, weapon)
    maneuver = opts.get("maneuver", "attack")
    variant = opts.get("variant") or ""
    if maneuver == "feint":
        fr = feint(a, t, dice, wname, opts.get("target_weapon"))
        return AttackResult(
            hit=False,
            summary=f"{a.name} feints {t.name}: " + (f"-{fr['margin']} to {t.name}'s defense against the next attack"
                                                      if fr["margin"] else "no effect"),
            rolls=fr["rolls"], modifiers=[], effects=fr["effects"],
            details={"target": t.id, "attacker": a.id, "feint": {k: fr[k] for k in ("margin", "attacker", "defender")}})
    if maneuver == "all_out_attack_ranged" and variant == "suppression_fire":
        raise RuleNotImplemented("Suppression Fire attacks whoever enters the area later: roll those attacks "
                                 "with skill 8 + the rapid fire bonus (see the help page)")
    ranged = weapon_kind(weapon) in ("ranged", "thrown")
    plan: list[tuple[str, dict, list[Modifier]]] = []
    if opts.get("rapid_strike"):
        levels = _int(opts["rapid_strike"])
        if ranged and _int(weapon.get("rof"), 1) <= 1:
            raise RuleError("a Rapid Strike with a ranged weapon needs RoF above 1")
        pen = _rapid_strike_penalty(a.sheet, levels, ranged)
        plan = [(wname, weapon, list(pen)) for _ in range(2 ** levels)]
    elif opts.get("dual_weapon"):
        w2name, w2 = _weapon(a.sheet, opts["dual_weapon"], a.state)
        if w2name == wname:
            raise RuleError("a Dual Weapon Attack uses two different weapons")
        pen = [Modifier("Dual Weapon Attack", -4, S_ATTACK)]
        plan = [(wname, weapon, list(pen)), (w2name, w2, list(pen))]
    elif maneuver == "all_out_attack" and variant == "double":
        plan = [(wname, weapon, []), (wname, weapon, [])]
    else:
        plan = [(wname, weapon, [])]
    if maneuver == "all_out_attack" and variant == "feint":
        fr = feint(a, t, dice, wname)
        ctx.rolls += fr["rolls"]
        if fr["margin"] > 0:
            t.state["feint_penalty"] = fr["margin"]
    results = []
    hp_now = current_hp(t.sheet)
    for i, (wn, w, extra) in enumerate(plan):
        label = "attack" if len(plan) == 1 else f"attack {i + 1}"
        res = _single_attack(ctx, dice, wn, w, extra, label, hp_now)
        hp_now = res.get("hp_after", hp_now)
        results.append(res)
        dfn = ((res.get("defense") or {}).get("defense") or {}).get("type")
        if dfn:  # later attacks of the same turn see the defenses already used
            key = {"dodge": "dodges", "parry": "parries", "block": "blocked"}[dfn]
            t.state[key] = True if key == "blocked" else _int(t.state.get(key)) + 1
    total = sum(r["injury"] for r in results)
    landed = sum(r["landed"] for r in results)
    mods: list[Modifier] = []
    for i, r in enumerate(results):
        prefix = "" if len(results) == 1 else f"attack {i + 1}: "
        mods += [Modifier(prefix + m["label"], m["value"], m["source"]) for m in r["check"]["modifiers"]]
    parts = []
    for i, r in enumerate(results):
        c = r["check"]
        s = f"{r['weapon']}: {c['roll']} vs {c['effective']} ({c['result']})"
        if r.get("note"):
            s += f", {r['note']}"
        if r["hits"]:
            dfn = r.get("defense") or {}
            if dfn.get("defense"):
                s += f", {dfn['defense']['type']} {'succeeds' if dfn.get('success') else 'fails'}"
            if r["landed"]:
                s += f", {r['landed']} hit(s), {r['injury']} injury"
            if r.get("disarm"):
                s += f", {r['disarm']['outcome']}"
        parts.append(s)
    summary = f"{a.name} attacks {t.name}: " + "; ".join(parts)
    return AttackResult(
        hit=landed > 0,
        summary=summary,
        rolls=[r for r in ctx.rolls if r is not None],
        modifiers=mods,
        effects=ctx.effects,
        details={"target": t.id, "attacker": a.id, "attacks": results, "injury": total,
                 "hp_after": hp_now, "settings": st},
    )


def feint(attacker: Combatant, target: Combatant, dice: DiceSource, weapon: str | None = None,
          target_weapon: str | None = None) -> dict:
    """Feint ("Maneuvers"): quick contest of weapon skills; the winner's margin comes off the target's
    defense against the attacker's next attack."""
    _, w = _weapon(attacker.sheet, weapon, attacker.state)
    tws = weapons(target.sheet)
    tw = tws.get(target_weapon or "") or next(iter(tws.values()), {})
    b1, l1 = skill_level(attacker.sheet, w.get("skill"))
    b2, l2 = skill_level(target.sheet, tw.get("skill"))
    c1 = check(dice, "feint (attacker)", b1, [], l1)
    c2 = check(dice, "feint (defender)", b2, [], l2)
    won = contest_key(c1) > contest_key(c2)
    margin = (c1.margin - c2.margin) if won and c1.success else 0
    return {"margin": max(0, margin), "attacker": c1.to_dict(), "defender": c2.to_dict(),
            "rolls": [c1.roll, c2.roll],
            "effects": [Effect("feint_penalty", target.id, {"against": attacker.id, "value": max(0, margin)})]}


_DIRECTIONS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def _area_attack(ctx: _Ctx, dice: DiceSource, wname: str, weapon: dict) -> AttackResult:
    """An area attack ("Area of Effects"): no active defense but a dive, damage divided by the distance
    from the centre, scatter by the margin of a miss or of the dive."""
    req = ctx.request
    a, t = req.attacker, req.target
    if t.position is None:
        raise RuleError("an area attack needs the tokens' positions")
    radius = _num(weapon.get("area"))
    base, blabel, mods, cap, facts = attack_modifiers(req, wname, weapon, ctx.settings)
    chk = check(dice, f"area attack: {wname}", base, mods, blabel, cap)
    ctx.rolls.append(chk.roll)
    centre = tuple(t.position)
    scatter = 0
    dived: set[str] = set()
    notes = []
    info = _attack_info(req, weapon, weapon.get("type", "cr"))
    if not chk.success:
        scatter = -chk.margin
    else:
        dfn = (req.options or {}).get("defense", "best")
        if dfn not in (None, "none") and not (chk.result == "critical success" and ctx.settings["critical_hit_no_defense"]):
            try:
                base_d, mods_d, label_d = defense_level(t.sheet, t.state, {"type": "dodge", "dive": True}, info,
                                                        ctx.settings)
            except RuleError as exc:
                notes.append(str(exc))
            else:
                d = check(dice, "dive away from the area", base_d, mods_d, label_d)
                ctx.rolls.append(d.roll)
                ctx.effects.append(Effect("condition", t.id, {"condition": "prone"}))
                if d.success:
                    dived.add(t.id)
                    scatter = d.margin
    if scatter:
        drec = dice.roll("1d8", "scatter direction (1 = north, clockwise)")
        ctx.rolls.append(drec)
        dx, dy = _DIRECTIONS[drec.total - 1]
        centre = (centre[0] + dx * scatter, centre[1] + dy * scatter)
        notes.append(f"scatters {scatter} yd to {centre}")
    victims = [c for c in [t, *req.others] if c.position is not None and c.id not in dived
               and _distance_cells(centre, c.position) <= radius]
    total = 0
    per_target = []
    for v in victims:
        dist = int(_distance_cells(centre, v.position))
        res = resolve_damage(v, weapon, weapon.get("type", "cr"), "torso", dice, _int(a.sheet.get("ST"), 10),
                             dr_override=average_dr(v.sheet), divide_by=max(1, dist), settings=ctx.settings,
                             label=f"area damage to {v.name}", vitals_roll=False)
        ctx.rolls += res.pop("rolls")
        ctx.effects += res.pop("effects")
        res["target"] = v.id
        res["distance"] = dist
        total += res["injury"]
        per_target.append(res)
    summary = (f"{a.name} attacks an area around {t.name}: {chk.roll.total if chk.roll else '?'} vs {chk.effective} "
               f"({chk.result}); " + "; ".join(notes + [f"{r['target']}: {r['injury']} injury" for r in per_target]))
    return AttackResult(hit=bool(per_target), summary=summary, rolls=ctx.rolls, modifiers=mods, effects=ctx.effects,
                        details={"target": t.id, "attacker": a.id, "check": chk.to_dict(), "centre": centre,
                                 "scatter": scatter, "damage": per_target, "injury": total, "settings": ctx.settings})


def spraying_fire(rof: int, shots: list[int], gaps: list[float]) -> dict:
    """Spraying Fire ("Ranged Attacks"): RoF 5+ split among targets; between non-adjacent targets one
    round per yard of gap (two at RoF 16+) is wasted. Returns the shots wasted and left."""
    if rof < 5:
        raise RuleError("Spraying Fire needs RoF 5+")
    if len(gaps) != max(0, len(shots) - 1):
        raise RuleError("one gap between each pair of consecutive targets")
    per_yard = 2 if rof >= 16 else 1
    wasted = int(sum(math.ceil(g) * per_yard for g in gaps if g > 0))
    used = sum(shots) + wasted
    if used > rof:
        raise RuleError(f"{sum(shots)} shots plus {wasted} wasted is more than RoF {rof}")
    return {"wasted": wasted, "left": rof - used, "shots": list(shots)}


def suppression_fire_skill(shots: int) -> int:
    """Skill of a Suppression Fire attack on whoever enters the area ("Maneuvers": 8 + rapid fire bonus)."""
    return 8 + rapid_fire_bonus(shots)


def suppression_area_width(rof: int) -> int:
    """Width of the suppressed area ("Maneuvers": 2 yards, 4 at RoF 10+); RoF 5+ needed."""
    if rof < 5:
        raise RuleError("Suppression Fire needs RoF 5+")
    return 4 if rof >= 10 else 2


# ---------------------------------------------------------------------------
# Odds, before the roll
# ---------------------------------------------------------------------------

_3D6 = _odds.distribution("3d6")


def result_chances(skill: int) -> dict[str, float]:
    """Exact chance of each outcome of a 3d6 roll against ``skill``."""
    out = dict.fromkeys(RESULTS, 0.0)
    for r, p in _3D6.items():
        out[roll_result(r, skill)] += p
    return out


def success_chance(skill: int) -> float:
    c = result_chances(skill)
    return c["success"] + c["critical success"]


def _location_mixture(damage_type: str, location: str, st: dict) -> dict[str, float]:
    if location != "random":
        locs = {location: 1.0}
    else:
        locs: dict[str, float] = defaultdict(float)
        for r, p in _3D6.items():
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


def injury_distribution(target: dict, weapon: dict, damage_type: str, location: str = "torso",
                        attacker_st: int = 10, damage_bonus: int = 0, half_damage: bool = False,
                        shotgun_multiplier: int = 1, settings: dict | None = None) -> dict[int, float]:
    """Exact distribution of one hit's injury (damage dice, minimum, DR and divisor, wounding,
    cripple cap; "Damage", "Hit Locations")."""
    st = _settings(settings)
    expr, _n, _adds = parse_damage(weapon.get("damage", "1d"), attacker_st)
    dmg = _odds.distribution(expr)
    hp = max_hp(target)
    out: dict[int, float] = defaultdict(float)
    for loc, pl in _location_mixture(damage_type, location, st).items():
        wound_loc = "torso" if loc in ("chinks_torso", "armour_gap", "groin") else loc
        dr, flex = _dr_at(target, "torso" if loc in ("chinks_torso", "armour_gap") else loc)
        if loc == "chinks_torso":
            dr //= 2
        elif loc == "armour_gap" or loc == "eye":
            dr = 0
        elif loc == "skull":
            dr += 2
        dr *= shotgun_multiplier
        for d, pd in dmg.items():
            basic = d + damage_bonus
            if half_damage:
                basic //= 2
            basic = max(0 if damage_type == "cr" else 1, basic) * shotgun_multiplier
            inj = location_injury(basic, dr, damage_type, wound_loc, _num(weapon.get("armor_divisor"), 1) or 1,
                                  flex, hp)["injury"]
            out[inj] += pl * pd
    return dict(sorted(out.items()))


def attack_odds(request: AttackRequest, settings: dict | None = None) -> dict:
    """Exact chances before the roll: hit, critical hit, the defense succeeding, hits landing and the
    distribution of total injury ("Attacking", "Defending", "Damage"; 3d6 core facts)."""
    opts = request.options or {}
    st = _settings(settings or opts.get("settings"))
    request = _own_copy(request)
    a, t = request.attacker, request.target
    wname, weapon = _weapon(a.sheet, request.weapon, a.state)
    if weapon.get("area"):
        raise RuleNotImplemented("odds of area attacks (scatter) are not computed")
    damage_type = "cut" if opts.get("tip_slash") else weapon.get("type", "cr")
    extra = []
    if opts.get("rapid_strike"):
        extra = _rapid_strike_penalty(a.sheet, _int(opts["rapid_strike"]), weapon_kind(weapon) != "melee")
    elif opts.get("dual_weapon"):
        extra = [Modifier("Dual Weapon Attack", -4, S_ATTACK)]
    base, blabel, mods, cap, facts = attack_modifiers(request, wname, weapon, st, extra)
    location = facts["location"]
    shots = max(1, _int(opts.get("shots", 1)))
    pellets = max(1, _int(weapon.get("pellets"), 1))
    shotgun_mult = 1
    if facts["ranged"] and pellets > 1:
        half_d = _num(weapon.get("half_d"))
        if half_d and request.distance <= 0.1 * half_d:
            shotgun_mult = max(1, pellets // 2)
        else:
            shots *= pellets
    if facts["ranged"] and shots > 1:
        b = rapid_fire_bonus(shots)
        if b:
            mods.append(Modifier(f"rapid fire ({shots} shots)", b, S_RANGED))
    skill = effective_skill(base, mods, cap)
    rcl = max(1, _int(weapon.get("rcl"), 1))
    # defense
    info = _attack_info(request, weapon, damage_type)
    choice = opts.get("defense", "best")
    dlevel = None
    if choice not in (None, "none"):
        if isinstance(choice, dict):
            try:
                b, m, _ = defense_level(t.sheet, t.state, choice, info, st)
                dlevel = effective_skill(b, m)
            except RuleError:
                dlevel = None
        else:
            avail = available_defenses(t.sheet, t.state, info, st)
            if choice != "best":
                avail = [d for d in avail if d["type"] == choice]
            dlevel = avail[0]["level"] if avail else None
    hits_dist: dict[int, float] = defaultdict(float)
    p_hit = p_crit = 0.0
    for r, p in _3D6.items():
        res = roll_result(r, skill)
        margin = skill - r
        if not is_success(res):
            if margin == -1 and res == "failure" and location in MISS_BY_ONE_TORSO:
                margin = 0
            else:
                hits_dist[0] += p
                continue
        p_hit += p
        hits = extra_hits(max(0, margin), rcl, shots) if shots > 1 else 1
        if res == "critical success":
            p_crit += p
        if dlevel is None or (res == "critical success" and st["critical_hit_no_defense"]):
            hits_dist[hits] += p
            continue
        for dr_, pd in _3D6.items():
            dres = roll_result(dr_, dlevel)
            if is_success(dres):
                stopped = min(hits, 1 + max(0, dlevel - dr_)) if st["defense_stops_extra_hits"] else hits
            else:
                stopped = 0
            hits_dist[hits - stopped] += p * pd
    p_def = success_chance(dlevel) if dlevel is not None else 0.0
    half = bool(facts.get("half_damage"))
    dmg_bonus = int(sum(m.value for m in _damage_adjust(
        parse_damage(weapon.get("damage", "1d"), _int(a.sheet.get("ST"), 10))[1],
        facts["maneuver"], facts["variant"], weapon)))
    one = injury_distribution(t.sheet, weapon, damage_type, location if location != "weapon" else "torso",
                              _int(a.sheet.get("ST"), 10), dmg_bonus, half, shotgun_mult, st)
    total: dict[int, float] = defaultdict(float)
    for k, pk in hits_dist.items():
        for v, pv in _odds.power(one, k).items():
            total[v] += pk * pv
    n_attacks = 2 ** _int(opts["rapid_strike"]) if opts.get("rapid_strike") else 2 if opts.get("dual_weapon") else 1
    return {
        "skill": skill,
        "modifiers": [m.to_dict() for m in mods],
        "p_hit": p_hit,
        "p_critical_hit": p_crit,
        "defense_level": dlevel,
        "p_defense": p_def,
        "p_damage": 1 - hits_dist.get(0, 0.0),
        "hits": dict(sorted(hits_dist.items())),
        "injury_per_hit": one,
        "injury": dict(sorted(total.items())),
        "mean_injury": _odds.mean(total),
        "attacks": n_attacks,
        "note": "per attack" if n_attacks > 1 else "",
    }


# ---------------------------------------------------------------------------
# Applying a result to a sheet
# ---------------------------------------------------------------------------


def apply_result(sheet: dict, result: AttackResult, target: str | None = None) -> dict:
    """A new sheet with the result's effects on ``target`` (default: the attack's target) applied:
    HP, FP, shock, conditions, crippled locations, DR lost to corrosion ("Damage", "Injury")."""
    target = target or result.details.get("target")
    out = {**sheet}
    out["conditions"] = list(sheet.get("conditions") or [])
    out["crippled"] = list(sheet.get("crippled") or [])
    out["dr"] = dict(sheet.get("dr") or {})
    hp = current_hp(sheet)
    fp = _int(sheet.get("fp_current", sheet.get("FP") or sheet.get("HT")), 10)
    shock_pts = _int(sheet.get("shock"))
    for e in result.effects:
        if e.target != target:
            continue
        if e.kind == "injury":
            hp -= _int(e.data.get("injury"))
        elif e.kind == "fatigue":
            fp -= _int(e.data.get("fp"))
        elif e.kind == "shock":
            shock_pts = min(_int(e.data.get("cap"), 4), shock_pts + _int(e.data.get("shock")))
        elif e.kind == "condition":
            c = e.data.get("condition")
            if c and c not in out["conditions"]:
                out["conditions"].append(c)
        elif e.kind == "crippled":
            loc = e.data.get("location")
            if loc and loc not in out["crippled"]:
                out["crippled"].append(loc)
        elif e.kind == "dr_reduced":
            loc = e.data.get("location")
            cur, _ = _dr_at(sheet, loc)
            out["dr"][loc] = max(0, cur - _int(e.data.get("by")))
    out["hp_current"] = hp
    out["fp_current"] = fp
    out["shock"] = shock_pts
    if "reeling" in out["conditions"] and hp * 3 > max_hp(out):
        out["conditions"].remove("reeling")
    return out


# ---------------------------------------------------------------------------
# The system object
# ---------------------------------------------------------------------------


def _default_sheet() -> dict:
    return {
        "name": "Veteran",
        "ST": 11, "DX": 12, "IQ": 10, "HT": 11,
        "HP": 11, "FP": 11, "Will": 10, "Per": 10,
        "basic_speed": 5.75, "basic_move": 5,
        "hp_current": 11, "fp_current": 11, "shock": 0,
        "encumbrance": 1, "sm": 0, "male": False,
        "initiative_style": "tactics", "leader": False,
        "skills": {"Broadsword": 13, "Shield": 12, "Guns (Pistol)": 12, "Brawling": 12, "Tactics": 10},
        "techniques": {},
        "traits": {"combat_reflexes": False, "trained_by_a_master": False, "weapon_master": False},
        "dr": {"torso": 4, "groin": 4, "vitals": 4, "arms": 2, "legs": 2, "skull": 2},
        "flexible": {"torso": True, "groin": True, "vitals": True, "arms": True, "legs": True},
        "shield": {"skill": "Shield", "name": "Medium shield"},
        "weapons": {
            "Broadsword": {"skill": "Broadsword", "damage": "sw+1", "type": "cut", "reach": "1",
                           "kind": "melee", "attack": "swing", "parry_mod": 0},
            "Broadsword thrust": {"skill": "Broadsword", "damage": "thr+1", "type": "cr", "reach": "1",
                                  "kind": "melee", "attack": "thrust", "can_parry": False},
            "Pistol": {"skill": "Guns (Pistol)", "damage": "2d", "type": "pi", "kind": "ranged", "acc": 2,
                       "rof": 3, "rcl": 2, "bulk": -2, "half_d": 150, "max": 1900, "shots": 8},
            "Punch": {"skill": "Brawling", "damage": "thr-1", "type": "cr", "reach": "C", "kind": "melee",
                      "unarmed": True, "attack": "thrust"},
        },
        "conditions": [],
        "crippled": [],
        "notes": "",
    }


class GurpsLite(BaseSystem):
    """The 3d6 roll-under system, as the app calls it."""

    id = "gurps_lite"
    name = "3d6 roll-under (GURPS-Lite style)"
    board = "grid"
    diagonal = "alternating"
    sheet_template = "sheets/_gurps_lite.html"
    help_template = "help/gurps_lite.html"
    cell_size = 1.0
    cell_unit = "yard"

    maneuvers = MANEUVERS
    locations = LOCATIONS
    readings = READINGS

    def sheet_fields(self) -> list[SheetField]:
        d = _default_sheet()
        F = SheetField
        return [
            F("name", "Name", "text", d["name"], group="identity"),
            F("ST", "ST", "int", d["ST"], group="attributes"),
            F("DX", "DX", "int", d["DX"], group="attributes"),
            F("IQ", "IQ", "int", d["IQ"], group="attributes"),
            F("HT", "HT", "int", d["HT"], group="attributes"),
            F("HP", "HP", "int", d["HP"], help="defaults to ST", group="secondary"),
            F("FP", "FP", "int", d["FP"], group="secondary"),
            F("Will", "Will", "int", d["Will"], group="secondary"),
            F("Per", "Per", "int", d["Per"], group="secondary"),
            F("basic_speed", "Basic Speed", "float", d["basic_speed"], group="secondary"),
            F("basic_move", "Basic Move", "int", d["basic_move"], group="secondary"),
            F("hp_current", "Current HP", "int", d["hp_current"], group="status"),
            F("fp_current", "Current FP", "int", d["fp_current"], group="status"),
            F("shock", "Shock", "int", 0, help="penalty to DX and IQ rolls next turn (max 4)", group="status"),
            F("encumbrance", "Encumbrance", "choice", str(d["encumbrance"]), ("0", "1", "2", "3", "4"),
              help="0 None, 1 Light, 2 Medium, 3 Heavy, 4 Extra-heavy", group="status"),
            F("sm", "Size modifier", "int", 0, group="secondary"),
            F("male", "Male (groin hits)", "bool", False, group="identity"),
            F("initiative_style", "Initiative skill", "choice", "tactics", ("tactics", "primal", "thuggish"),
              help="primal may use Survival, thuggish Streetwise", group="traits"),
            F("leader", "Side leader", "bool", False, group="traits"),
            F("skills", "Skills", "dict", d["skills"], help="skill name -> level", group="skills"),
            F("techniques", "Techniques", "dict", {}, help="e.g. Quick Shot -> levels bought", group="skills"),
            F("traits", "Traits", "dict", d["traits"],
              help="combat_reflexes, trained_by_a_master, weapon_master", group="traits"),
            F("dr", "DR by location", "dict", d["dr"], help="skull, face, neck, torso, vitals, groin, arms, legs, "
              "hands, feet (or a side: left_arm...)", group="armour"),
            F("flexible", "Flexible armour", "dict", d["flexible"], help="location -> true", group="armour"),
            F("shield", "Shield", "dict", d["shield"], help="skill name", group="armour"),
            F("weapons", "Weapons", "dict", d["weapons"],
              help="name -> skill, damage (2d+1, sw+1, thr), type, reach, parry_mod, acc, rof, rcl, bulk, "
                   "half_d, max, armor_divisor, pellets, kind (melee/ranged/thrown), fencing, unbalanced, flail",
              group="weapons"),
            F("conditions", "Conditions", "list", [], group="status"),
            F("crippled", "Crippled", "list", [], group="status"),
            F("notes", "Notes", "text", "", group="identity"),
        ]

    def default_sheet(self) -> dict:
        return _default_sheet()

    def default_settings(self) -> dict:
        return default_settings()

    def derived(self, sheet: dict) -> dict:
        return derived(sheet)

    def initiative(self, combatants: list[Combatant], dice: DiceSource) -> list[dict]:
        return initiative(combatants, dice)

    def move_allowance(self, sheet: dict, action: str = "move") -> float:
        key, _, variant = action.partition(":")
        return float(maneuver_movement(sheet, key, variant or None))

    def allowed_maneuvers(self, sheet: dict, state: dict | None = None, moved: float = 0) -> list[dict]:
        return allowed_maneuvers(sheet, state, moved)

    def range_band(self, distance: float, weapon: dict) -> str | None:
        if weapon.get("max") and distance > _num(weapon["max"]):
            return None
        return range_band_name(distance)

    def cover_effect(self, cover: Any) -> CoverEffect:
        return cover_effect(cover)

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        return attack(request, dice)

    def odds(self, request: AttackRequest) -> dict:
        return attack_odds(request)

    def apply(self, sheet: dict, result: AttackResult, target: str | None = None) -> dict:
        return apply_result(sheet, result, target)


SYSTEM = GurpsLite()
