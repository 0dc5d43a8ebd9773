"""Tables, constants and default settings of *Atomic Tomorrow Combat*.

Numbers from the document's sections (named beside each table) and from the
Atomic Tomorrow core facts the document assumes (attributes, percentile
reading, weapon bands, modifier steps). The small checks at the end refuse
a value that is not on these tables.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..copying import copied
from ..system import RuleError
from ..text import say

DOC = "Atomic Tomorrow Combat"

#: core facts: the seven attributes (a check is the attribute x 5 %)
ATTRIBUTES = ("brawn", "reflex", "nerve", "savvy", "charm", "grit", "guile")
#: Section "ATTACK SEQUENCE": the Combat skills
COMBAT_SKILLS = ("unarmed", "melee", "ranged")
#: Section "SUCCESS AND FAILURE TYPES"
QUALITIES = ("critical", "special", "ordinary", "failure", "special_failure", "critical_failure")
SUCCESSES = ("critical", "special", "ordinary")
#: opposed resolution compares these (Critical > Special > Ordinary)
QUALITY_RANK = {"critical": 3, "special": 2, "ordinary": 1}
QUALITY_LABELS = {
    "critical": say("critical success"),
    "special": say("special success"),
    "ordinary": say("ordinary success"),
    "failure": say("failure"),
    "special_failure": say("special failure"),
    "critical_failure": say("critical failure"),
}
#: section "WOUND EFFECTS": the states as an attack's line names them
WOUND_STATE_WORDS = {"fighting": say("fighting"), "incapacitated": say("incapacitated"), "dying": say("dying")}
AUTO_SUCCESS_MAX = 5  # 01-05
AUTO_FAILURE_MIN = 96  # 96-00

#: Section "POSITIONING": the four ranges
RANGES = ("engaged", "near", "far", "distant")
RANGE_LABELS = {"engaged": say("Engaged"), "near": say("Near"), "far": say("Far"), "distant": say("Distant")}

#: Section "COVER PROTECTION": cut to the Wound Rating
COVER_LEVELS = {"none": 0, "partial": 1, "good": 2, "excellent": 3}
#: Section "ARMOR PROTECTION": cut to the wounds
ARMOUR_LEVELS = {"none": 0, "light": 1, "medium": 2, "heavy": 3}
#: the grades, the combat skills and the wound states as the sheet and the forms name them (the rules' words)
COVER_WORDS = {"none": say("none"), "partial": say("partial"), "good": say("good"), "excellent": say("excellent")}
ARMOUR_WORDS = {"none": say("None"), "light": say("Light"), "medium": say("Medium"), "heavy": say("Heavy")}
DEFENSE_WORDS = {"parry": say("Parry"), "block": say("Block"), "dodge": say("Dodge")}
SKILL_WORDS = {"unarmed": say("Unarmed"), "melee": say("Melee"), "ranged": say("Ranged")}
#: an armour grade inside a line ("light armour -1"), as people read it
ARMOUR_GRADE_WORDS = {"none": say("none"), "light": say("light"), "medium": say("medium"), "heavy": say("heavy")}


def weapon_words(weapon: dict):
    """A weapon's name as people read it: the sheet's own "Unarmed" (the Unarmed skill's fists) in the reader's
    language, a weapon a table names itself as written."""
    if weapon.get("skill") == "unarmed" and weapon.get("name") == "Unarmed":
        return SKILL_WORDS["unarmed"]
    return weapon.get("name")
WOUND_STATE_TITLES = {"fighting": say("Fighting"), "incapacitated": say("Incapacitated"), "dying": say("Dying"),
                      "dead": say("Dead")}
#: Section "DAMAGE SOAKING": wounds soaked by the GRIT x 5 roll
SOAK_BY_QUALITY = {"critical": 3, "special": 2, "ordinary": 1}
#: Section "WOUND DETERMINATION": a special success adds 1 wound
SPECIAL_BONUS = 1

#: Section "WOUND EFFECTS": 4 incapacitated, 5 dying
MAX_WOUNDS = 5
#: Section "WEAPON DAMAGE": a fixed Wound Rating 1-4
WOUND_RATING_MIN, WOUND_RATING_MAX = 1, 4

#: core facts: situational modifiers in steps of 20, +40 down to -80
MODIFIER_STEP = 20
MODIFIER_MIN, MODIFIER_MAX = -80, 40

#: Section "DEFENSE OPTION" and "DEFENSE LIMITATIONS"
DEFENSES = ("none", "parry", "block", "dodge")
BLOCK_BONUS = 20
DODGE_VS_MELEE = -20
REPEAT_DEFENSE_PENALTY = -20
#: the epithet that gives one more Parry/Block a turn without penalty
TWO_FISTED = "two-fisted"

#: Section "ACTION ECONOMY": one of each a round
ACTIONS = ("significant", "move", "quick")
#: Section "ACTION ECONOMY": a move stays in the zone or goes to an adjacent one
MOVE_ZONES = 1

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
    # "Roll Initiative" opens the turn sequence; the document does not say
    # whether the order is kept for the whole fight. True: roll every round.
    "initiative_each_round": True,
    # POSITIONING calls Distant "Requires significant movement to reach (difficult shot)", while the
    # core facts say the range bands carry no to-hit modifier: 0 reads "difficult" as the weapon's
    # reach alone; a step such as -20 makes a Distant attack a situational penalty
    "distant_penalty": 0,
}

MODIFIER_RULES = ("largest", "largest_each")


def settings_with_defaults(settings: Mapping | None = None) -> dict:
    """The game's settings over :data:`DEFAULT_SETTINGS`, checked."""
    out = copied(DEFAULT_SETTINGS)
    for key, value in (settings or {}).items():
        if key not in DEFAULT_SETTINGS:
            raise RuleError(say("unknown Atomic Tomorrow setting {key}", key=repr(key)))
        out[key] = value
    if out["modifier_rule"] not in MODIFIER_RULES:
        raise modifier_rule_refused()
    th = out["cover_thresholds"]
    if (
        not isinstance(th, (list, tuple))
        or len(th) != 3
        or not all(isinstance(t, (int, float)) and not isinstance(t, bool) for t in th)
        or not 0 < th[0] < th[1] < th[2] <= 1
    ):
        raise RuleError(say("{key}: three increasing fractions between 0 and 1", key="cover_thresholds"))
    if not isinstance(out["initiative_each_round"], bool):
        raise RuleError(say("{key} is true or false", key="initiative_each_round"))
    check_wound_rating(out["unarmed_wound_rating"])
    check_modifier_value(out["wounded_action_penalty"])
    if check_modifier_value(out["distant_penalty"]) > 0:
        raise RuleError(say("{key} is 0 or a penalty (-20, -40...), not a bonus", key="distant_penalty"))
    return out


def modifier_rule_refused() -> RuleError:
    """The refusal of a ``modifier_rule`` setting that is not one of :data:`MODIFIER_RULES`."""
    return RuleError(say("{key} must be one of {values}", key="modifier_rule", values=", ".join(MODIFIER_RULES)))


def check_modifier_value(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleError(say("a situational modifier is a whole number, not {value}", value=repr(value)))
    if value % MODIFIER_STEP or not MODIFIER_MIN <= value <= MODIFIER_MAX:
        raise RuleError(say("situational modifiers come in steps of {step} from {most} to {least}, not {value}",
                            step=MODIFIER_STEP, most=f"{MODIFIER_MAX:+d}", least=f"{MODIFIER_MIN:+d}", value=f"{value:+d}"))
    return value


def check_wound_rating(wound_rating: Any) -> int:
    if isinstance(wound_rating, bool) or not isinstance(wound_rating, int):
        raise RuleError(say("a Wound Rating is a whole number, not {value}", value=repr(wound_rating)))
    if not WOUND_RATING_MIN <= wound_rating <= WOUND_RATING_MAX:
        raise RuleError(say("a Wound Rating is {least} to {most}, not {value}", least=WOUND_RATING_MIN,
                            most=WOUND_RATING_MAX, value=wound_rating))
    return wound_rating


#: what :func:`check_level` checks, as its refusal names it
LEVEL_WHAT = {"cover": say("cover"), "armour": say("armour")}


def check_level(level: Any, table: dict, what: str) -> str:
    """``level`` as a key of ``table`` (cover or armour grades); the refusal's words say ``what`` is one of them
    (its ``reason`` parameter is the part without ``what``: a sheet shows it beside the field)."""
    key = str(level or "none").strip().lower()
    if key not in table:
        raise RuleError(say("{what} is {reason}", what=LEVEL_WHAT.get(what, what),
                            reason=say("one of {values}, not {value}", values=", ".join(table), value=repr(level))))
    return key


# ---------------------------------------------------------------------------
# A demo: a small rocket-port zone map and a few combatants for it
# ---------------------------------------------------------------------------

#: a rocket-port as plain zone data; ``cover`` is each zone's cover level (COVER PROTECTION).
#: From the Landing Pad the Control Tower is two zone steps away: Distant.
DEMO_ZONES: dict = {
    "zones": [
        {"id": "landing_pad", "name": "Landing Pad", "adjacent": ["cargo_bay", "fuel_depot", "catwalk"],
         "cover": "none"},
        {"id": "cargo_bay", "name": "Cargo Bay", "adjacent": ["landing_pad", "catwalk"], "cover": "good"},
        {"id": "fuel_depot", "name": "Fuel Depot", "adjacent": ["landing_pad"], "cover": "partial"},
        {"id": "catwalk", "name": "Catwalk", "adjacent": ["landing_pad", "cargo_bay", "control_tower"],
         "cover": "partial"},
        {"id": "control_tower", "name": "Control Tower", "adjacent": ["catwalk"], "cover": "excellent"},
    ]
}
