"""Atomic Tomorrow Adventures: percentile quality of success, zones, wound ratings.

Rule document: *Atomic Tomorrow Combat* (the core combat system), with the
Atomic Tomorrow core facts listed in ``docs/RULES.md``. Section names in the
docstrings are the document's headings.

``SYSTEM`` is what the registry loads. The modules: ``data`` (tables and
settings), ``checks`` (the d100 roll and its quality, opposed rolls,
situational modifiers), ``sheet``, ``ranges`` (zones to range bands),
``economy`` (the round's actions), ``movement``, ``cover``, ``defense``,
``attack``, ``health`` (armour, soak, wounds, incapacitation, Last Stand),
``odds``, ``turns`` (initiative and the fight lifecycle) and ``system``.
The reference functions below keep their names and signatures.
"""

from __future__ import annotations

from .attack import attack_wounds, critical_bonus
from .checks import (
    ends_in_0_or_5,
    is_doubles,
    is_success,
    opposed_winner,
    quality_rank,
    situational_modifier,
    success_quality,
    tens_digit,
)
from .cover import cover_from_tags, cover_level_from_fraction, cover_reduction, resolve_cover
from .data import (
    ACTIONS,
    ARMOUR_LEVELS,
    ATTRIBUTES,
    AUTO_FAILURE_MIN,
    AUTO_SUCCESS_MAX,
    BLOCK_BONUS,
    COMBAT_SKILLS,
    COVER_LEVELS,
    DEFAULT_SETTINGS,
    DEFENSES,
    DOC,
    DODGE_VS_MELEE,
    MAX_WOUNDS,
    MODIFIER_MAX,
    MODIFIER_MIN,
    MODIFIER_RULES,
    MODIFIER_STEP,
    MOVE_ZONES,
    QUALITIES,
    QUALITY_LABELS,
    QUALITY_RANK,
    RANGE_LABELS,
    RANGES,
    REPEAT_DEFENSE_PENALTY,
    SOAK_BY_QUALITY,
    SPECIAL_BONUS,
    SUCCESSES,
    TWO_FISTED,
    WOUND_RATING_MAX,
    WOUND_RATING_MIN,
    settings_with_defaults,
)
from .defense import defense_skill
from .economy import new_round, reset_round, spend_action
from .health import (
    armour_reduction,
    incapacitated_check,
    last_stand_outcome,
    soak_reduction,
    wound_state,
    wounds_taken,
)
from .movement import check_move
from .odds import attack_odds
from .ranges import check_weapon_range, range_between, weapon_ranges, zone_range
from .sheet import dodge_skill, find_weapon, has_epithet, normalise_weapon, parry_skill, validate_sheet
from .system import AtomicTomorrow
from .turns import initiative_order

SYSTEM = AtomicTomorrow()

__all__ = [
    "ACTIONS", "ARMOUR_LEVELS", "ATTRIBUTES", "AUTO_FAILURE_MIN", "AUTO_SUCCESS_MAX", "BLOCK_BONUS",
    "COMBAT_SKILLS", "COVER_LEVELS", "DEFAULT_SETTINGS", "DEFENSES", "DOC", "DODGE_VS_MELEE", "MAX_WOUNDS",
    "MODIFIER_MAX", "MODIFIER_MIN", "MODIFIER_RULES", "MODIFIER_STEP", "MOVE_ZONES", "QUALITIES",
    "QUALITY_LABELS", "QUALITY_RANK", "RANGE_LABELS", "RANGES", "REPEAT_DEFENSE_PENALTY", "SOAK_BY_QUALITY",
    "SPECIAL_BONUS", "SUCCESSES", "SYSTEM", "TWO_FISTED", "WOUND_RATING_MAX", "WOUND_RATING_MIN",
    "AtomicTomorrow", "armour_reduction", "attack_odds", "attack_wounds", "check_move", "check_weapon_range",
    "cover_from_tags", "cover_level_from_fraction", "cover_reduction", "critical_bonus", "defense_skill",
    "dodge_skill", "ends_in_0_or_5", "find_weapon", "has_epithet", "incapacitated_check", "initiative_order",
    "is_doubles", "is_success", "last_stand_outcome", "new_round", "normalise_weapon", "opposed_winner",
    "parry_skill", "quality_rank", "range_between", "reset_round", "resolve_cover", "settings_with_defaults",
    "situational_modifier", "soak_reduction", "spend_action", "success_quality", "tens_digit",
    "validate_sheet", "weapon_ranges", "wound_state", "wounds_taken", "zone_range",
]
