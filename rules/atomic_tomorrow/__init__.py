"""Atomic Tomorrow Adventures: percentile quality of success, zones, wound ratings.

Rule document: ``seeds/000_b16359c720ee7358.txt`` ("Atomic Tomorrow Combat"),
with the core facts of ``seeds/README.md``. Section names in the docstrings
below are the document's headings.

Positions are zones, not squares: the app measures the zone distance on
its ``rules.zones.ZoneMap`` and whether two tokens are engaged, and this
module turns that into a range band. On a square grid the cover fraction
of ``rules.los.cover`` is mapped to a cover level (setting
``cover_thresholds``).

Everything that changes during a fight (actions spent this round,
defenses made this round, wounds) is plain data the app stores; the
functions here take it and return a new copy, never mutating their input.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any

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
    SheetField,
)

DOC = "Atomic Tomorrow Combat"

# --------------------------------------------------------------------------
# Tables (numbers from the rule document and the seeds' README)
# --------------------------------------------------------------------------

ATTRIBUTES = ("brawn", "reflex", "nerve", "savvy", "charm", "grit", "guile")
COMBAT_SKILLS = ("unarmed", "melee", "ranged")
QUALITIES = ("critical", "special", "ordinary", "failure", "special_failure", "critical_failure")
SUCCESSES = ("critical", "special", "ordinary")
#: opposed resolution compares these (Critical > Special > Ordinary)
QUALITY_RANK = {"critical": 3, "special": 2, "ordinary": 1}
QUALITY_LABELS = {
    "critical": "critical success",
    "special": "special success",
    "ordinary": "ordinary success",
    "failure": "failure",
    "special_failure": "special failure",
    "critical_failure": "critical failure",
}
AUTO_SUCCESS_MAX = 5  # 01-05
AUTO_FAILURE_MIN = 96  # 96-00

RANGES = ("engaged", "near", "far", "distant")
RANGE_LABELS = {"engaged": "Engaged", "near": "Near", "far": "Far", "distant": "Distant"}

COVER_LEVELS = {"none": 0, "partial": 1, "good": 2, "excellent": 3}
ARMOUR_LEVELS = {"none": 0, "light": 1, "medium": 2, "heavy": 3}
SOAK_BY_QUALITY = {"critical": 3, "special": 2, "ordinary": 1}
SPECIAL_BONUS = 1

MAX_WOUNDS = 5
WOUND_RATING_MIN, WOUND_RATING_MAX = 1, 4

MODIFIER_STEP = 20
MODIFIER_MIN, MODIFIER_MAX = -80, 40

DEFENSES = ("none", "parry", "block", "dodge")
BLOCK_BONUS = 20
DODGE_VS_MELEE = -20
REPEAT_DEFENSE_PENALTY = -20

ACTIONS = ("significant", "move", "quick")
TWO_FISTED = "two-fisted"

DEFAULT_SETTINGS: dict[str, Any] = {
    # "A critical special success adds both bonuses": a 55 adds 2 + 1.
    "critical_special_stacks": True,
    # The armour list breaks off at "Critical S"; the game's other chapters
    # say critical hits ignore armour.
    "critical_ignores_armour": True,
    # "largest": the one modifier of largest size applies (a bonus and a
    # penalty of the same size cancel); "largest_each": the largest bonus
    # and the largest penalty both apply.
    "modifier_rule": "largest",
    # cover fraction (grid maps) at which partial, good, excellent start
    "cover_thresholds": [0.25, 0.5, 0.75],
    # the document gives no Wound Rating for bare hands
    "unarmed_wound_rating": 1,
    # an incapacitated or dying character acting on an ordinary or special
    # success (a critical acts "with no penalties", so the others have one)
    "wounded_action_penalty": -20,
}

MODIFIER_RULES = ("largest", "largest_each")


def settings_with_defaults(settings: Mapping | None = None) -> dict:
    """The game's settings over :data:`DEFAULT_SETTINGS`, checked."""
    out = copy.deepcopy(DEFAULT_SETTINGS)
    for key, value in (settings or {}).items():
        if key not in DEFAULT_SETTINGS:
            raise RuleError(f"unknown Atomic Tomorrow setting {key!r}")
        out[key] = value
    if out["modifier_rule"] not in MODIFIER_RULES:
        raise RuleError(f"modifier_rule must be one of {', '.join(MODIFIER_RULES)}")
    th = out["cover_thresholds"]
    if (
        not isinstance(th, (list, tuple))
        or len(th) != 3
        or not all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in th)
        or not 0 < th[0] < th[1] < th[2] <= 1
    ):
        raise RuleError("cover_thresholds: three increasing fractions between 0 and 1")
    _check_wound_rating(out["unarmed_wound_rating"])
    _check_modifier_value(out["wounded_action_penalty"])
    return out


# --------------------------------------------------------------------------
# Percentile rolls
# --------------------------------------------------------------------------


def _check_roll(roll: int) -> int:
    if isinstance(roll, bool) or not isinstance(roll, int) or not 1 <= roll <= 100:
        raise RuleError(f"a d100 roll is 1 to 100 (100 is the 00 roll), not {roll!r}")
    return roll


def tens_digit(roll: int) -> int:
    """The tens die of a d100 roll read 01-00 (00, i.e. 100, shows 0)."""
    return (_check_roll(roll) // 10) % 10


def is_doubles(roll: int) -> bool:
    """11, 22, ... 99 and 00 (100): both dice show the same digit."""
    _check_roll(roll)
    return roll == 100 or (roll % 11 == 0 and roll >= 11)


def ends_in_0_or_5(roll: int) -> bool:
    return _check_roll(roll) % 5 == 0


def is_success(roll: int, skill: int) -> bool:
    """Success and failure types: 01-05 always succeed, 96-00 always fail."""
    _check_roll(roll)
    if roll <= AUTO_SUCCESS_MAX:
        return True
    if roll >= AUTO_FAILURE_MIN:
        return False
    return roll <= skill


def success_quality(roll: int, skill: int) -> str:
    """Quality of a percentile roll against a skill.

    Section "SUCCESS AND FAILURE TYPES". Critical = doubles, special = ends
    in 0 or 5 (a 55 is a critical), on the success side when the roll is at
    most the skill, on the failure side otherwise. Reading: an automatic
    success (01-05) counts as under the skill and an automatic failure
    (96-00) as over it, so 05 is a special success and 99 and 00 are
    critical failures whatever the skill.
    """
    success = is_success(roll, skill)
    if is_doubles(roll):
        return "critical" if success else "critical_failure"
    if ends_in_0_or_5(roll):
        return "special" if success else "special_failure"
    return "ordinary" if success else "failure"


def quality_rank(quality: str) -> int:
    """3 critical, 2 special, 1 ordinary, 0 any failure."""
    if quality not in QUALITIES:
        raise RuleError(f"unknown quality {quality!r}")
    return QUALITY_RANK.get(quality, 0)


def opposed_winner(attack_roll: int, attack_skill: int, defense_roll: int, defense_skill: int) -> str:
    """Who wins a successful attack met by a defense.

    Section "OPPOSED RESOLUTION": a failed defense loses; otherwise the
    better quality wins, then the higher roll, and a tie goes to the
    defender. An attack that itself failed has no effect, so the defender
    "wins" it too.
    """
    attack = quality_rank(success_quality(attack_roll, attack_skill))
    defense = quality_rank(success_quality(defense_roll, defense_skill))
    if attack == 0:
        return "defender"
    if defense == 0:
        return "attacker"
    if attack != defense:
        return "attacker" if attack > defense else "defender"
    return "attacker" if attack_roll > defense_roll else "defender"


# --------------------------------------------------------------------------
# Situational modifiers
# --------------------------------------------------------------------------


def _check_modifier_value(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"a situational modifier is a whole number, not {value!r}")
    if value % MODIFIER_STEP or not MODIFIER_MIN <= value <= MODIFIER_MAX:
        raise RuleError(
            f"situational modifiers come in steps of {MODIFIER_STEP} from {MODIFIER_MAX:+d} "
            f"to {MODIFIER_MIN:+d}, not {value:+d}"
        )
    return value


def _as_modifier(item: Any) -> Modifier:
    if isinstance(item, Modifier):
        _check_modifier_value(item.value)
        return item
    if isinstance(item, Mapping):
        value = _check_modifier_value(item.get("value"))
        return Modifier(str(item.get("label") or f"{value:+d}"), value, str(item.get("source") or "situational"))
    value = _check_modifier_value(item)
    return Modifier(f"{value:+d}", value, "situational")


def situational_modifier(modifiers: Iterable[Any], rule: str = "largest") -> tuple[int, list[Modifier]]:
    """The total of the situational modifiers that apply, and which apply.

    Core facts (seeds README): modifiers are steps of 20 from +40 to -80
    and only the single largest applies. Reading (setting
    ``modifier_rule``): "largest" keeps the one of largest size; when the
    largest bonus and the largest penalty are the same size they cancel
    and neither applies. "largest_each" applies the largest bonus and the
    largest penalty together.
    """
    if rule not in MODIFIER_RULES:
        raise RuleError(f"modifier_rule must be one of {', '.join(MODIFIER_RULES)}")
    mods = [_as_modifier(m) for m in modifiers]
    bonus = max((m for m in mods if m.value > 0), key=lambda m: m.value, default=None)
    penalty = min((m for m in mods if m.value < 0), key=lambda m: m.value, default=None)
    if rule == "largest_each":
        chosen = [m for m in (bonus, penalty) if m is not None]
    elif bonus is not None and penalty is not None and bonus.value == -penalty.value:
        chosen = []
    else:
        chosen = [m for m in (bonus, penalty) if m is not None]
        chosen = [max(chosen, key=lambda m: abs(m.value))] if chosen else []
    return sum(int(m.value) for m in chosen), chosen


# --------------------------------------------------------------------------
# Wounds
# --------------------------------------------------------------------------


def _check_wound_rating(wound_rating: Any) -> int:
    if isinstance(wound_rating, bool) or not isinstance(wound_rating, int):
        raise RuleError(f"a Wound Rating is a whole number, not {wound_rating!r}")
    if not WOUND_RATING_MIN <= wound_rating <= WOUND_RATING_MAX:
        raise RuleError(f"a Wound Rating is {WOUND_RATING_MIN} to {WOUND_RATING_MAX}, not {wound_rating}")
    return wound_rating


def _check_level(level: Any, table: dict, what: str) -> str:
    key = str(level or "none").strip().lower()
    if key not in table:
        raise RuleError(f"{what} is one of {', '.join(table)}, not {level!r}")
    return key


def cover_reduction(cover: str = "none") -> int:
    """Section "COVER PROTECTION": Partial -1, Good -2, Excellent -3 Wound Rating."""
    return COVER_LEVELS[_check_level(cover, COVER_LEVELS, "cover")]


def critical_bonus(roll: int) -> int:
    """Section "WOUND DETERMINATION": a critical adds half the tens digit, rounded down.

    22 adds 1, 55 adds 2, 88 adds 4 (and 11 adds nothing). This is the
    critical bonus alone; :func:`attack_wounds` adds the special bonus too.
    """
    return tens_digit(roll) // 2 if is_doubles(roll) else 0


def attack_wounds(
    wound_rating: int,
    roll: int,
    skill: int,
    cover: str = "none",
    *,
    critical_special_stacks: bool = True,
) -> int:
    """Wounds an attack deals before armour and soak (0 when it fails).

    Sections "WEAPON DAMAGE", "WOUND DETERMINATION", "COVER PROTECTION".
    Cover reduces the Wound Rating (not below 0) before the quality bonuses
    are added: +1 for a roll ending in 0 or 5, half the tens digit for
    doubles. The two stack, so a 55 adds 3 (setting
    ``critical_special_stacks``; off, a 55 adds only its critical 2).
    """
    _check_wound_rating(wound_rating)
    reduction = cover_reduction(cover)
    if not is_success(roll, skill):
        return 0
    wounds = max(0, wound_rating - reduction)
    if is_doubles(roll):
        wounds += critical_bonus(roll)
        if ends_in_0_or_5(roll) and critical_special_stacks:
            wounds += SPECIAL_BONUS
    elif ends_in_0_or_5(roll):
        wounds += SPECIAL_BONUS
    return wounds


def armour_reduction(armour: str = "none", armour_piercing: int = 0) -> int:
    """Section "ARMOR PROTECTION": Light 1, Medium 2, Heavy 3, less the weapon's armour piercing."""
    level = ARMOUR_LEVELS[_check_level(armour, ARMOUR_LEVELS, "armour")]
    if isinstance(armour_piercing, bool) or not isinstance(armour_piercing, int) or armour_piercing < 0:
        raise RuleError(f"armour piercing is a whole number of armour levels, 0 or more, not {armour_piercing!r}")
    return max(0, level - armour_piercing)


def soak_reduction(roll: int, grit: int) -> int:
    """Section "DAMAGE SOAKING": against GRIT x 5, critical 3, special 2, ordinary 1, failure 0."""
    return SOAK_BY_QUALITY.get(success_quality(roll, grit * 5), 0)


def wounds_taken(dealt: int, armour: int = 0, soak: int = 0) -> int:
    """Wounds left after armour and soak take theirs off (never below 0)."""
    return max(0, dealt - armour - soak)


def wound_state(wounds: int) -> str:
    """Section "WOUND EFFECTS": 0-3 fighting, 4 incapacitated, 5 dying."""
    if isinstance(wounds, bool) or not isinstance(wounds, int) or not 0 <= wounds <= MAX_WOUNDS:
        raise RuleError(f"wounds are 0 to {MAX_WOUNDS}, not {wounds!r}")
    if wounds >= MAX_WOUNDS:
        return "dying"
    if wounds == MAX_WOUNDS - 1:
        return "incapacitated"
    return "fighting"


def incapacitated_check(roll: int, grit: int, penalty: int = -20) -> dict:
    """Section "INCAPACITATION": a GRIT x 1 roll for each action at 4 wounds.

    A success allows the action; a critical allows it with no penalty.
    Reading: the action on an ordinary or special success takes
    ``penalty`` (setting ``wounded_action_penalty``).
    """
    quality = success_quality(roll, grit)
    may_act = quality in SUCCESSES
    return {
        "check": "incapacitated",
        "target": grit,
        "roll": roll,
        "quality": quality,
        "may_act": may_act,
        "penalty": 0 if quality == "critical" or not may_act else penalty,
    }


def last_stand_outcome(roll: int, nerve: int, penalty: int = -20) -> dict:
    """Section "LAST STAND": the dying character's NERVE x 5 check.

    Success: one final action, then collapse. Critical: the action with no
    penalty, and the character stabilises at 4 wounds. Special: the action,
    and conscious for the tens die more rounds. Readings: the tens die is
    the tens digit of this roll, a 0 counting 10 (as a d10 reads it); the
    ordinary and special action takes ``penalty``.
    """
    quality = success_quality(roll, nerve * 5)
    may_act = quality in SUCCESSES
    rounds = 0
    if quality == "special":
        rounds = tens_digit(roll) or 10
    return {
        "check": "last_stand",
        "target": nerve * 5,
        "roll": roll,
        "quality": quality,
        "may_act": may_act,
        "penalty": 0 if quality == "critical" or not may_act else penalty,
        "stabilise_at": MAX_WOUNDS - 1 if quality == "critical" else None,
        "conscious_rounds": rounds,
    }


# --------------------------------------------------------------------------
# Initiative and the round
# --------------------------------------------------------------------------


def initiative_order(entries: list[tuple[str, int, int, int]]) -> list[str]:
    """Acting order from ``(name, roll, initiative_value, reflex)`` entries.

    Section "INITIATIVE AND TURN SEQUENCE": successful rolls act first,
    highest roll first; failed rolls after, highest first; ties go to the
    higher REFLEX. Reading: entries still tied keep the order given.
    """
    keyed = []
    for index, (name, roll, value, reflex) in enumerate(entries):
        keyed.append((not is_success(roll, value), -roll, -reflex, index, name))
    return [k[-1] for k in sorted(keyed)]


def new_round() -> dict:
    """The per-round record of a character: nothing spent, no defense made yet.

    Section "ACTION ECONOMY" (one significant action, one move, one quick
    action a round) and "DEFENSE LIMITATIONS" (counted per turn; reading:
    a turn is the round, so everything resets together).
    """
    return {
        "significant": False,
        "move": False,
        "quick": False,
        "defenses": 0,
        "melee_blocks": 0,
        "two_fisted_used": False,
    }


def _round_state(state: Mapping | None) -> dict:
    out = new_round()
    if state:
        for key in out:
            if key in state:
                out[key] = state[key]
    return out


def reset_round(state: Mapping | None = None) -> dict:
    """A fresh round record (the argument is ignored; kept for symmetry with :func:`spend_action`)."""
    return new_round()


def spend_action(state: Mapping | None, action: str) -> dict:
    """Spend one of the round's actions; RuleError when it is already spent.

    Section "ACTION ECONOMY". Reading: the document gives no trading of a
    significant action for a second move or quick action, so none is
    allowed.
    """
    if action not in ACTIONS:
        raise RuleError(f"an action is one of {', '.join(ACTIONS)}, not {action!r}")
    out = _round_state(state)
    if out[action]:
        raise RuleError(f"the {action} action of this round is already spent")
    out[action] = True
    return out


def check_move(zone_distance: int) -> None:
    """Section "ACTION ECONOMY": a move stays in the zone or goes to an adjacent one."""
    if zone_distance is None:
        raise RuleError("no way between those zones")
    if zone_distance < 0:
        raise RuleError(f"a zone distance is 0 or more, not {zone_distance}")
    if zone_distance > 1:
        raise RuleError(f"a move reaches only the same or an adjacent zone; that zone is {zone_distance} steps away")


# --------------------------------------------------------------------------
# Range and cover
# --------------------------------------------------------------------------


def zone_range(zone_distance: int, engaged: bool = False) -> str:
    """Section "POSITIONING": the range band between two tokens on a zone map.

    Reading (the document gives no mapping): same zone and engaged =
    engaged, same zone = near, adjacent zone = far, further = distant.
    """
    if isinstance(zone_distance, bool) or not isinstance(zone_distance, int) or zone_distance < 0:
        raise RuleError(f"a zone distance is a whole number of steps, 0 or more, not {zone_distance!r}")
    if engaged and zone_distance:
        raise RuleError("engaged tokens stand in the same zone")
    if zone_distance == 0:
        return "engaged" if engaged else "near"
    return "far" if zone_distance == 1 else "distant"


def range_between(zone_map: Any, a: str, b: str, engaged: bool = False) -> str:
    """The range band between zones ``a`` and ``b`` of a ``rules.zones.ZoneMap``."""
    distance = zone_map.zone_distance(a, b)
    if distance is None:
        raise RuleError(f"zones {a!r} and {b!r} are not connected")
    return zone_range(int(distance), engaged)


def weapon_ranges(weapon: Mapping) -> list[str]:
    """The bands a weapon reaches: listed on the weapon, Engaged for melee and unarmed."""
    ranges = weapon.get("ranges")
    if not ranges:
        if weapon.get("skill", "melee") in ("melee", "unarmed"):
            return ["engaged"]
        raise RuleError(f"weapon {weapon.get('name', '?')!r} lists no range band it can reach")
    out = []
    for band in ranges:
        key = str(band).strip().lower()
        if key not in RANGES:
            raise RuleError(f"range band is one of {', '.join(RANGES)}, not {band!r}")
        out.append(key)
    return out


def check_weapon_range(weapon: Mapping, band: str) -> None:
    """Core facts: an attack outside the bands a weapon lists is not possible."""
    reach = weapon_ranges(weapon)
    if band not in reach:
        name = weapon.get("name", "that weapon")
        raise RuleError(
            f"{name} reaches {', '.join(RANGE_LABELS[r] for r in reach)}; the target is at {RANGE_LABELS[band]}"
        )


def cover_level_from_fraction(fraction: float, thresholds=(0.25, 0.5, 0.75)) -> str:
    """A grid map's cover fraction as a cover level (setting ``cover_thresholds``).

    Reading: under the first threshold none, then partial, good, and
    excellent; a fraction of 1 means no line reaches the target ("total").
    """
    if not 0 <= fraction <= 1:
        raise RuleError(f"a cover fraction is 0 to 1, not {fraction}")
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
        return _check_level(tags.get("cover"), COVER_LEVELS, "cover")
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
        return _check_level(cover, COVER_LEVELS, "cover")
    fraction = getattr(cover, "fraction", cover)
    if isinstance(fraction, (int, float)) and not isinstance(fraction, bool):
        return cover_level_from_fraction(float(fraction), thresholds)
    raise RuleError(f"cannot read cover from {cover!r}")


# --------------------------------------------------------------------------
# Sheets
# --------------------------------------------------------------------------


def _int(value: Any, what: str, lo: int | None = None, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(f"{what} is a whole number, not {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise RuleError(f"{what} is {lo} to {hi}, not {value}")
    return value


def normalise_weapon(weapon: Mapping) -> dict:
    """A weapon entry checked: name, skill, Wound Rating 1-4, armour piercing, range bands."""
    if not isinstance(weapon, Mapping):
        raise RuleError(f"a weapon is a table of values, not {weapon!r}")
    name = str(weapon.get("name") or "").strip()
    if not name:
        raise RuleError("a weapon needs a name")
    skill = str(weapon.get("skill") or "melee").lower()
    if skill not in COMBAT_SKILLS:
        raise RuleError(f"{name}: skill is one of {', '.join(COMBAT_SKILLS)}, not {skill!r}")
    out = {
        "name": name,
        "skill": skill,
        "wound_rating": _check_wound_rating(weapon.get("wound_rating", 1)),
        "armour_piercing": _int(weapon.get("armour_piercing", 0), f"{name}: armour piercing", 0, 3),
        "ranges": weapon_ranges({**weapon, "skill": skill}),
        "area": bool(weapon.get("area", False)),
    }
    return out


def has_epithet(sheet: Mapping, epithet: str) -> bool:
    want = epithet.replace(" ", "-").lower()
    return any(str(e).strip().replace(" ", "-").lower() == want for e in sheet.get("epithets") or [])


def find_weapon(sheet: Mapping, key: str | None, settings: Mapping | None = None) -> dict:
    """A weapon of the sheet by name (or list index); None means bare hands."""
    settings = settings or DEFAULT_SETTINGS
    if key is None or str(key).strip().lower() in ("", "unarmed", "fists"):
        return {
            "name": "Unarmed",
            "skill": "unarmed",
            "wound_rating": settings["unarmed_wound_rating"],
            "armour_piercing": 0,
            "ranges": ["engaged"],
            "area": False,
        }
    weapons = sheet.get("weapons") or []
    for index, weapon in enumerate(weapons):
        if str(weapon.get("name", "")).lower() == str(key).lower() or str(index) == str(key):
            return normalise_weapon(weapon)
    raise RuleError(f"no weapon {key!r} on the sheet")


def parry_skill(sheet: Mapping) -> int:
    """Parry: the sheet's own value, else the Melee skill with a melee weapon or the Unarmed skill.

    Section "DEFENSE OPTION" (parry needs a weapon or the Unarmed Combat
    skill) and the core facts (Parry uses the Unarmed or Melee skill).
    """
    if sheet.get("parry"):
        return int(sheet["parry"])
    has_melee = any(str(w.get("skill", "")).lower() == "melee" for w in sheet.get("weapons") or [])
    return max(int(sheet.get("melee", 0)) if has_melee else 0, int(sheet.get("unarmed", 0)))


def dodge_skill(sheet: Mapping) -> int:
    """Dodge: the sheet's own value, else REFLEX x 2 + 10 (core facts)."""
    if sheet.get("dodge"):
        return int(sheet["dodge"])
    return int(sheet.get("reflex", 0)) * 2 + 10


def validate_sheet(sheet: Mapping) -> dict:
    """The sheet checked and completed with defaults; RuleError names the first problem."""
    out = AtomicTomorrow().default_sheet()
    out.update({k: copy.deepcopy(v) for k, v in sheet.items()})
    for attr in ATTRIBUTES:
        _int(out[attr], attr.upper(), 1, 30)
    for skill in (*COMBAT_SKILLS, "parry", "dodge"):
        _int(out[skill], skill.capitalize(), 0, 200)
    _int(out["wounds"], "wounds", 0, MAX_WOUNDS)
    out["armour"] = _check_level(out["armour"], ARMOUR_LEVELS, "armour")
    out["shield"] = bool(out["shield"])
    if not isinstance(out["epithets"], list):
        raise RuleError("epithets are a list of names")
    out["epithets"] = [str(e) for e in out["epithets"]]
    if not isinstance(out["weapons"], list):
        raise RuleError("weapons are a list")
    out["weapons"] = [normalise_weapon(w) for w in out["weapons"]]
    return out


# --------------------------------------------------------------------------
# Defenses
# --------------------------------------------------------------------------


def defense_skill(
    sheet: Mapping, defense: str, attack_kind: str, state: Mapping | None = None
) -> tuple[int, list[Modifier], dict]:
    """The defender's skill for a defense, its modifiers and the round record after it.

    Sections "DEFENSE OPTION" and "DEFENSE LIMITATIONS". Parry only against
    melee and unarmed attacks; Block needs a shield, is Parry + 20, and
    against melee only once a turn; Dodge is -20 against melee. Each
    defense after the first in a turn is a cumulative -20. Readings: with
    Two-Fisted, one extra Parry or Block in the turn is free of the
    penalty, does not count towards later ones, and allows a second melee
    Block. The rule modifiers here add to the single largest situational
    modifier, which they are not part of.
    """
    if defense not in DEFENSES or defense == "none":
        raise RuleError(f"a defense is one of parry, block, dodge, not {defense!r}")
    if attack_kind not in ("melee", "ranged"):
        raise RuleError(f"an attack is melee or ranged, not {attack_kind!r}")
    rnd = _round_state(state)
    two_fisted = has_epithet(sheet, TWO_FISTED) and defense in ("parry", "block")
    mods: list[Modifier] = []
    if defense == "parry":
        if attack_kind != "melee":
            raise RuleError("Parry works only against melee and unarmed attacks; Dodge or Block a ranged one")
        base = parry_skill(sheet)
        if base <= 0:
            raise RuleError("Parry needs a melee weapon or the Unarmed skill")
        label = "Parry"
    elif defense == "block":
        if not sheet.get("shield"):
            raise RuleError("Block needs a shield")
        limit = 2 if two_fisted and not rnd["two_fisted_used"] else 1
        if attack_kind == "melee" and rnd["melee_blocks"] >= limit:
            raise RuleError("a shield blocks only one melee attack a turn")
        base = parry_skill(sheet)
        label = "Block"
        mods.append(Modifier("shield block", BLOCK_BONUS, "DEFENSE OPTION"))
    else:
        base = dodge_skill(sheet)
        label = "Dodge"
        if attack_kind == "melee":
            mods.append(Modifier("dodging a melee attack", DODGE_VS_MELEE, "DEFENSE OPTION"))
    made = rnd["defenses"]
    free_now = made >= 1 and two_fisted and not rnd["two_fisted_used"]
    if free_now:
        rnd["two_fisted_used"] = True
        mods.append(Modifier("Two-Fisted: extra defense without penalty", 0, "DEFENSE LIMITATIONS"))
    elif made:
        counted = made - (1 if rnd["two_fisted_used"] else 0)
        if counted:
            mods.append(
                Modifier(f"defense no. {made + 1} this turn", REPEAT_DEFENSE_PENALTY * counted, "DEFENSE LIMITATIONS")
            )
    rnd["defenses"] = made + 1
    if defense == "block" and attack_kind == "melee":
        rnd["melee_blocks"] += 1
    skill = base + sum(int(m.value) for m in mods)
    return skill, [Modifier(label, base, "sheet"), *mods], rnd


# --------------------------------------------------------------------------
# Exact odds of an attack
# --------------------------------------------------------------------------


def _attack_counts(
    attack_skill: int,
    wound_rating: int,
    cover: str,
    defense_skill_value: int | None,
    armour: int,
    critical_ignores_armour: bool,
    critical_special_stacks: bool,
) -> tuple[Counter, Counter, Counter]:
    """Counts over the 100 x 100 attack and defense rolls (each pair once):
    attack outcome, winner, wounds after armour (before soak)."""
    outcome: Counter = Counter()
    quality_counts: Counter = Counter()
    before_soak: Counter = Counter()
    defense_rolls = range(1, 101)
    for a in range(1, 101):
        quality = success_quality(a, attack_skill)
        quality_counts[quality] += 100
        if quality not in SUCCESSES:
            outcome["miss"] += 100
            before_soak[0] += 100
            continue
        dealt = attack_wounds(wound_rating, a, attack_skill, cover, critical_special_stacks=critical_special_stacks)
        arm = 0 if (quality == "critical" and critical_ignores_armour) else armour
        after = max(0, dealt - arm)
        if defense_skill_value is None:
            hits = 100
        else:
            hits = sum(
                1 for d in defense_rolls if opposed_winner(a, attack_skill, d, defense_skill_value) == "attacker"
            )
        outcome["defended"] += 100 - hits
        before_soak[0] += 100 - hits
        outcome[f"hit_{quality}"] += hits
        before_soak[after] += hits
    return quality_counts, outcome, before_soak


def attack_odds(
    attack_skill: int,
    wound_rating: int,
    *,
    cover: str = "none",
    defense_skill_value: int | None = None,
    armour: str = "none",
    armour_piercing: int = 0,
    grit: int = 10,
    critical_ignores_armour: bool = True,
    critical_special_stacks: bool = True,
) -> dict:
    """Exact chances of an attack, before it is rolled.

    Enumerates every attack roll, every defense roll (when the defender
    defends) and every soak roll, each 1/100. Returns the chance of each
    attack quality, of each outcome (``miss``, ``defended``,
    ``hit_<quality>``), the wounds after armour before soak, and the
    wounds taken after soak.
    """
    _check_wound_rating(wound_rating)
    cover = _check_level(cover, COVER_LEVELS, "cover")
    arm = armour_reduction(armour, armour_piercing)
    qualities, outcome, before = _attack_counts(
        attack_skill, wound_rating, cover, defense_skill_value, arm, critical_ignores_armour, critical_special_stacks
    )
    soak = Counter(soak_reduction(r, grit) for r in range(1, 101))
    taken: Counter = Counter()
    for w, n in before.items():
        if w == 0:
            taken[0] += n * 100
            continue
        for s, m in soak.items():
            taken[max(0, w - s)] += n * m
    total = 100 * 100
    return {
        "attack_skill": attack_skill,
        "defense_skill": defense_skill_value,
        "attack_quality": {q: qualities[q] / total for q in QUALITIES},
        "outcomes": {k: outcome[k] / total for k in sorted(outcome)},
        "p_hit": sum(v for k, v in outcome.items() if k.startswith("hit_")) / total,
        "wounds_before_soak": {w: before[w] / total for w in sorted(before)},
        "wounds": {w: taken[w] / (total * 100) for w in sorted(taken)},
        "expected_wounds": sum(w * n for w, n in taken.items()) / (total * 100),
    }


# --------------------------------------------------------------------------
# The system object
# --------------------------------------------------------------------------


def _roll_d100(dice: DiceSource, purpose: str) -> RollRecord:
    record = dice.roll("d100", purpose)
    _check_roll(record.total)
    return record


def _q(roll: int, skill: int) -> str:
    return QUALITY_LABELS[success_quality(roll, skill)]


class AtomicTomorrow(BaseSystem):
    id = "atomic_tomorrow"
    name = "Atomic Tomorrow Adventures"
    board = "zones"
    diagonal = "chebyshev"
    sheet_template = "sheets/_atomic_tomorrow.html"
    help_template = "help/atomic_tomorrow.html"
    cell_size = 1.0
    cell_unit = "zone"

    ranges = RANGES
    cover_levels = tuple(COVER_LEVELS)
    armour_levels = tuple(ARMOUR_LEVELS)

    # ---- sheet -------------------------------------------------------

    def sheet_fields(self) -> list[SheetField]:
        attrs = [
            SheetField(a, a.upper(), "int", d, help="3-18 for humans; a check is x 5 %", group="attributes")
            for a, d in zip(ATTRIBUTES, (12, 13, 11, 10, 9, 12, 10))
        ]
        return [
            *attrs,
            SheetField("unarmed", "Unarmed", "int", 34, help="%", group="combat"),
            SheetField("melee", "Melee", "int", 34, help="%", group="combat"),
            SheetField("ranged", "Ranged", "int", 46, help="%", group="combat"),
            SheetField(
                "parry", "Parry", "int", 0, help="%; 0 = Melee with a melee weapon, else Unarmed", group="defense"
            ),
            SheetField("dodge", "Dodge", "int", 0, help="%; 0 = REFLEX x 2 + 10", group="defense"),
            SheetField("shield", "Shield", "bool", False, help="allows Block (+20%)", group="defense"),
            SheetField("armour", "Armour", "choice", "light", choices=tuple(ARMOUR_LEVELS), group="defense"),
            SheetField("epithets", "Epithets", "list", [], help="e.g. Two-Fisted", group="traits"),
            SheetField(
                "weapons",
                "Weapons",
                "list",
                [],
                help="name, skill (unarmed/melee/ranged), wound_rating 1-4, armour_piercing, ranges",
                group="weapons",
            ),
            SheetField("wounds", "Wounds", "int", 0, help="0-5", group="condition"),
        ]

    def default_sheet(self) -> dict:
        sheet = {f.key: copy.deepcopy(f.default) for f in self.sheet_fields()}
        sheet["weapons"] = [
            {"name": "Blast pistol", "skill": "ranged", "wound_rating": 2, "armour_piercing": 0,
             "ranges": ["near", "far"], "area": False},
            {"name": "Vibro-knife", "skill": "melee", "wound_rating": 1, "armour_piercing": 0,
             "ranges": ["engaged"], "area": False},
        ]
        return sheet

    def default_settings(self) -> dict:
        return copy.deepcopy(DEFAULT_SETTINGS)

    def derived(self, sheet: dict) -> dict:
        """Section "CHARACTER SHEET REFERENCE": the x 5 values, and the defenses."""
        s = {**self.default_sheet(), **sheet}
        parry = parry_skill(s)
        wounds = int(s.get("wounds", 0))
        return {
            "soak": int(s["grit"]) * 5,
            "initiative": int(s["reflex"]) * 5,
            "last_stand": int(s["nerve"]) * 5,
            "incapacitated_check": int(s["grit"]),
            "parry": parry,
            "block": parry + BLOCK_BONUS if s.get("shield") else None,
            "dodge": dodge_skill(s),
            "armour_reduction": ARMOUR_LEVELS.get(str(s.get("armour", "none")).lower(), 0),
            "two_fisted": has_epithet(s, TWO_FISTED),
            "wound_state": wound_state(min(max(wounds, 0), MAX_WOUNDS)),
            "wounds_left": MAX_WOUNDS - min(max(wounds, 0), MAX_WOUNDS),
        }

    # ---- initiative, movement, range, cover ---------------------------

    def initiative(self, combatants: list[Combatant], dice: DiceSource) -> list[dict]:
        """Section "INITIATIVE AND TURN SEQUENCE": d100 against REFLEX x 5."""
        rows = {}
        entries = []
        for c in combatants:
            reflex = int({**self.default_sheet(), **c.sheet}["reflex"])
            value = reflex * 5
            record = _roll_d100(dice, f"initiative ({c.name})")
            entries.append((c.id, record.total, value, reflex))
            rows[c.id] = {
                "id": c.id,
                "name": c.name,
                "roll": record.to_dict(),
                "value": value,
                "reflex": reflex,
                "success": is_success(record.total, value),
                "quality": success_quality(record.total, value),
            }
        order = initiative_order(entries)
        return [{**rows[cid], "order": i + 1} for i, cid in enumerate(order)]

    def move_allowance(self, sheet: dict, action: str = "move") -> float:
        """Section "ACTION ECONOMY": one move, within the zone or to an adjacent zone."""
        if action != "move":
            raise RuleError(f"Atomic Tomorrow has one move a round, no {action!r}")
        return 1

    def range_band(self, distance: float, weapon: dict) -> str | None:
        """The band at ``distance`` zone steps (not engaged), or None when the weapon cannot reach it."""
        band = zone_range(int(distance))
        return band if band in weapon_ranges(weapon) else None

    def cover_effect(self, cover: Any) -> CoverEffect:
        """Section "COVER PROTECTION": the level and its cut to the Wound Rating."""
        level = resolve_cover(cover)
        if level == "total":
            return CoverEffect("total", 0, "no line of fire")
        return CoverEffect(level, -COVER_LEVELS[level], f"{level} cover" if level != "none" else "no cover")

    # ---- attacks ------------------------------------------------------

    def _prepare(self, request: AttackRequest) -> dict:
        """Everything an attack is decided by that is known before any roll."""
        options = request.options or {}
        settings = settings_with_defaults(options.get("settings"))
        att = {**self.default_sheet(), **request.attacker.sheet}
        tgt = {**self.default_sheet(), **request.target.sheet}
        weapon = find_weapon(att, request.weapon, settings)
        kind = "melee" if weapon["skill"] in ("melee", "unarmed") else "ranged"
        if "range" in options:
            band = str(options["range"]).lower()
            if band not in RANGES:
                raise RuleError(f"range band is one of {', '.join(RANGES)}, not {options['range']!r}")
        else:
            band = zone_range(int(request.distance or 0), bool(options.get("engaged", False)))
        check_weapon_range(weapon, band)
        cover = resolve_cover(request.cover, settings)
        if cover == "total":
            raise RuleError("no line of fire reaches the target")

        rnd = _round_state(request.attacker.state.get("round"))
        if rnd["significant"]:
            raise RuleError(f"{request.attacker.name} has already taken this round's significant action")

        wounds = int(att.get("wounds", 0))
        state = wound_state(min(max(wounds, 0), MAX_WOUNDS))
        if state == "dying":
            stand = request.attacker.state.get("last_stand") or {}
            if not stand.get("may_act") or stand.get("used"):
                raise RuleError(f"{request.attacker.name} is dying: a Last Stand success is needed to act")

        mods = [_as_modifier(m) for m in options.get("modifiers") or []]
        defense = str(options.get("defense") or "none").lower()
        if defense not in DEFENSES:
            raise RuleError(f"a defense is one of {', '.join(DEFENSES)}, not {defense!r}")
        d_skill = d_mods = d_round = None
        if defense != "none":
            d_skill, d_mods, d_round = defense_skill(tgt, defense, kind, request.target.state.get("round"))
            d_sit, d_chosen = situational_modifier(options.get("defense_modifiers") or [], settings["modifier_rule"])
            d_skill += d_sit
            d_mods = [*d_mods, *d_chosen]
        skill_base = int(att[weapon["skill"]])
        return {
            "settings": settings,
            "attacker": att,
            "target": tgt,
            "weapon": weapon,
            "kind": kind,
            "band": band,
            "cover": cover,
            "round": rnd,
            "wound_state": state,
            "situational": mods,
            "defense": defense,
            "defense_skill": d_skill,
            "defense_modifiers": d_mods or [],
            "defense_round": d_round,
            "skill_base": skill_base,
            "armour": armour_reduction(tgt.get("armour", "none"), weapon["armour_piercing"]),
        }

    def _attack_skill(self, prep: dict, wound_penalty: int) -> tuple[int, list[Modifier]]:
        mods = list(prep["situational"])
        if wound_penalty:
            mods.append(Modifier("acting while wounded", wound_penalty, "INCAPACITATION / LAST STAND"))
        total, chosen = situational_modifier(mods, prep["settings"]["modifier_rule"])
        label = prep["weapon"]["skill"].capitalize()
        return prep["skill_base"] + total, [Modifier(label, prep["skill_base"], "sheet"), *chosen]

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        """Sections "ATTACK SEQUENCE" to "ARMOR PROTECTION", in order.

        Rolls, in this order: the GRIT x 1 check when the attacker has 4
        wounds, the attack, the defense (when ``options["defense"]`` is
        parry, block or dodge and the attack succeeded), the soak (when any
        wound gets past armour). Options: ``engaged`` or ``range``,
        ``defense``, ``modifiers`` and ``defense_modifiers`` (situational,
        steps of 20), ``settings`` (the game's settings).
        """
        return self._resolve(request, dice, self._prepare(request), None)

    def attack_zone(self, request: AttackRequest, targets: list[Combatant], dice: DiceSource,
                    defenses: Mapping[str, str] | None = None) -> list[AttackResult]:
        """An area weapon (a grenade launcher) hits everyone in the target zone.

        Core facts. One attack roll for the zone; each target defends
        (``defenses`` by token id) and soaks on its own.
        """
        if not targets:
            raise RuleError("nobody stands in the target zone")
        first = self._prepare(AttackRequest(**{**request.__dict__, "target": targets[0]}))
        if not first["weapon"]["area"]:
            raise RuleError(f"{first['weapon']['name']} is not an area weapon")
        shared: dict = {}
        results = []
        for t in targets:
            opts = {**request.options, "defense": (defenses or {}).get(t.id, "none")}
            req = AttackRequest(**{**request.__dict__, "target": t, "options": opts})
            result = self._resolve(req, dice, self._prepare(req), shared)
            results.append(result)
            if "attack" not in shared:  # the attacker could not act at all
                break
        return results

    def _resolve(self, request: AttackRequest, dice: DiceSource, prep: dict, shared: dict | None) -> AttackResult:
        att_c, tgt_c = request.attacker, request.target
        settings = prep["settings"]
        rolls: list[RollRecord] = []
        effects: list[Effect] = []
        details: dict = {"range": prep["band"], "cover": prep["cover"], "weapon": prep["weapon"]["name"],
                         "defense": prep["defense"]}
        new_round_state = dict(prep["round"], significant=True)
        first = shared is None or "attack" not in shared

        # Acting at 4 wounds needs the GRIT x 1 check; at 5 the Last Stand already granted it.
        penalty = 0
        if first and prep["wound_state"] == "incapacitated":
            rec = _roll_d100(dice, f"{att_c.name}: GRIT x1 to act while incapacitated")
            rolls.append(rec)
            check = incapacitated_check(rec.total, int(prep["attacker"]["grit"]), settings["wounded_action_penalty"])
            details["act_check"] = check
            if not check["may_act"]:
                effects.append(Effect("round", att_c.id, {"round": new_round_state}))
                summary = f"{att_c.name} is incapacitated and fails the GRIT check ({rec.total} vs {check['target']})"
                return AttackResult(False, summary, rolls, [], effects, details)
            penalty = check["penalty"]
        elif prep["wound_state"] == "dying":
            stand = att_c.state.get("last_stand") or {}
            penalty = int(stand.get("penalty", 0))
            if first:
                effects.append(Effect("last_stand", att_c.id, {"last_stand": {**stand, "used": True}}))

        if first:
            skill, mods = self._attack_skill(prep, penalty)
            rec = _roll_d100(dice, f"{att_c.name}: attack ({prep['weapon']['skill'].capitalize()} {skill}%)")
            rolls.append(rec)
            effects.append(Effect("round", att_c.id, {"round": new_round_state}))
            if shared is not None:
                shared["attack"] = (rec, skill, mods, penalty)
        else:
            rec, skill, mods, penalty = shared["attack"]
            details["shared_attack_roll"] = True
        roll = rec.total
        quality = success_quality(roll, skill)
        details.update(attack_roll=roll, attack_skill=skill, attack_quality=quality)
        head = (
            f"{att_c.name} attacks {tgt_c.name} with {prep['weapon']['name']} ({skill}%): "
            f"{roll}, {QUALITY_LABELS[quality]}"
        )
        if quality not in SUCCESSES:
            return AttackResult(False, head + "; no effect", rolls, mods, effects, details)

        all_mods = list(mods)
        if prep["defense"] != "none":
            d_skill = prep["defense_skill"]
            d_rec = _roll_d100(dice, f"{tgt_c.name}: {prep['defense']} ({d_skill}%)")
            rolls.append(d_rec)
            effects.append(Effect("round", tgt_c.id, {"round": prep["defense_round"]}))
            all_mods += [Modifier(f"defense: {m.label}", m.value, m.source) for m in prep["defense_modifiers"]]
            winner = opposed_winner(roll, skill, d_rec.total, d_skill)
            details.update(defense_roll=d_rec.total, defense_skill=d_skill,
                           defense_quality=success_quality(d_rec.total, d_skill), winner=winner)
            head += f"; {prep['defense']} ({d_skill}%): {d_rec.total}, {_q(d_rec.total, d_skill)}"
            if winner == "defender":
                return AttackResult(False, head + f"; {tgt_c.name} defends", rolls, all_mods, effects, details)

        wr = prep["weapon"]["wound_rating"]
        dealt = attack_wounds(wr, roll, skill, prep["cover"],
                              critical_special_stacks=settings["critical_special_stacks"])
        all_mods.append(Modifier("Wound Rating", wr, "WEAPON DAMAGE"))
        if COVER_LEVELS[prep["cover"]]:
            all_mods.append(Modifier(f"{prep['cover']} cover", -COVER_LEVELS[prep["cover"]], "COVER PROTECTION"))
        if is_doubles(roll):
            all_mods.append(
                Modifier(f"critical {roll}: half the tens digit", critical_bonus(roll), "WOUND DETERMINATION")
            )
        if ends_in_0_or_5(roll) and (not is_doubles(roll) or settings["critical_special_stacks"]):
            all_mods.append(Modifier("special: +1", SPECIAL_BONUS, "WOUND DETERMINATION"))
        armour = prep["armour"]
        if quality == "critical" and settings["critical_ignores_armour"]:
            armour = 0
            details["armour_ignored"] = True
        if armour:
            all_mods.append(Modifier(f"{prep['target'].get('armour')} armour", -armour, "ARMOR PROTECTION"))
        after_armour = max(0, dealt - armour)
        soak = 0
        if after_armour:
            grit = int(prep["target"]["grit"])
            s_rec = _roll_d100(dice, f"{tgt_c.name}: soak (GRIT x5 {grit * 5}%)")
            rolls.append(s_rec)
            soak = soak_reduction(s_rec.total, grit)
            details.update(soak_roll=s_rec.total, soak_quality=success_quality(s_rec.total, grit * 5))
            if soak:
                all_mods.append(Modifier("soak", -soak, "DAMAGE SOAKING"))
        taken = wounds_taken(dealt, armour, soak)
        before = min(max(int(prep["target"].get("wounds", 0)), 0), MAX_WOUNDS)
        after = min(MAX_WOUNDS, before + taken)
        details.update(wounds_dealt=dealt, armour=armour, soak=soak, wounds_taken=taken,
                       wounds_before=before, wounds_after=after, wound_state=wound_state(after))
        effects.append(Effect("wounds", tgt_c.id, {"wounds": taken, "total": after, "state": wound_state(after)}))
        summary = head + (
            f"; hit: {dealt} wound(s), {armour} armour, {soak} soaked: {taken} taken ({wound_state(after)})"
        )
        return AttackResult(True, summary, rolls, all_mods, effects, details)

    def odds(self, request: AttackRequest) -> dict:
        """Exact chances of the attack as requested, before it is rolled (see :func:`attack_odds`).

        When the attacker has 4 wounds the GRIT x 1 check is folded in:
        ``p_act`` is its chance, and every other figure is the chance of the
        whole sequence (a failed check counts as ``cannot_act`` and 0 wounds).
        """
        prep = self._prepare(request)
        settings = prep["settings"]

        def run(penalty: int) -> dict:
            skill, _ = self._attack_skill(prep, penalty)
            return attack_odds(
                skill,
                prep["weapon"]["wound_rating"],
                cover=prep["cover"],
                defense_skill_value=prep["defense_skill"],
                armour=prep["target"].get("armour", "none"),
                armour_piercing=prep["weapon"]["armour_piercing"],
                grit=int(prep["target"]["grit"]),
                critical_ignores_armour=settings["critical_ignores_armour"],
                critical_special_stacks=settings["critical_special_stacks"],
            )

        base = {"range": prep["band"], "cover": prep["cover"], "defense": prep["defense"],
                "weapon": prep["weapon"]["name"]}
        if prep["wound_state"] == "dying":
            stand = request.attacker.state.get("last_stand") or {}
            return {**base, "p_act": 1.0, **run(int(stand.get("penalty", 0)))}
        if prep["wound_state"] != "incapacitated":
            return {**base, "p_act": 1.0, **run(0)}
        grit = int(prep["attacker"]["grit"])
        checks = Counter(
            incapacitated_check(r, grit, settings["wounded_action_penalty"])["penalty"]
            if is_success(r, grit) else None
            for r in range(1, 101)
        )
        mixed: dict = {"attack_quality": Counter(), "outcomes": Counter(), "wounds_before_soak": Counter(),
                       "wounds": Counter()}
        expected = p_hit = 0.0
        for penalty, n in checks.items():
            w = n / 100
            if penalty is None:
                mixed["outcomes"]["cannot_act"] += w
                mixed["wounds_before_soak"][0] += w
                mixed["wounds"][0] += w
                continue
            part = run(penalty)
            for key in mixed:
                for k, v in part[key].items():
                    mixed[key][k] += w * v
            expected += w * part["expected_wounds"]
            p_hit += w * part["p_hit"]
        out = {k: dict(sorted(v.items(), key=lambda kv: str(kv[0]))) for k, v in mixed.items()}
        out["wounds"] = dict(sorted(mixed["wounds"].items()))
        out["wounds_before_soak"] = dict(sorted(mixed["wounds_before_soak"].items()))
        return {**base, "p_act": sum(n for p, n in checks.items() if p is not None) / 100,
                "attack_skill": prep["skill_base"], "defense_skill": prep["defense_skill"],
                **out, "p_hit": p_hit, "expected_wounds": expected}

    # ---- wounds and their effects ------------------------------------

    def apply(self, sheet: dict, result: AttackResult) -> dict:
        """The sheet after a result: the wounds it deals (never past 5)."""
        out = copy.deepcopy(sheet)
        for effect in result.effects:
            if effect.kind == "wounds":
                out["wounds"] = min(MAX_WOUNDS, int(out.get("wounds", 0)) + int(effect.data["wounds"]))
        return out

    def act_check(self, combatant: Combatant, dice: DiceSource, settings: Mapping | None = None) -> dict:
        """The roll a wounded character makes to act: GRIT x 1 at 4 wounds,
        the Last Stand (NERVE x 5) at 5. Sections "INCAPACITATION", "LAST STAND"."""
        settings = settings_with_defaults(settings)
        s = {**self.default_sheet(), **combatant.sheet}
        state = wound_state(min(max(int(s.get("wounds", 0)), 0), MAX_WOUNDS))
        penalty = settings["wounded_action_penalty"]
        if state == "fighting":
            return {"check": None, "may_act": True, "penalty": 0, "rolls": []}
        if state == "incapacitated":
            rec = _roll_d100(dice, f"{combatant.name}: GRIT x1 to act while incapacitated")
            return {**incapacitated_check(rec.total, int(s["grit"]), penalty), "rolls": [rec.to_dict()]}
        if (combatant.state.get("last_stand") or {}).get("check") == "last_stand":
            raise RuleError(f"{combatant.name} has already made the Last Stand")
        rec = _roll_d100(dice, f"{combatant.name}: Last Stand (NERVE x5)")
        out = last_stand_outcome(rec.total, int(s["nerve"]), penalty)
        return {**out, "rolls": [rec.to_dict()]}

    def apply_last_stand(self, sheet: dict, outcome: Mapping) -> dict:
        """The sheet after a Last Stand: a critical stabilises at 4 wounds."""
        out = copy.deepcopy(sheet)
        if outcome.get("stabilise_at") is not None:
            out["wounds"] = int(outcome["stabilise_at"])
        return out


SYSTEM = AtomicTomorrow()
