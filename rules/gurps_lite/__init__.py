"""A GURPS-Lite-style 3d6 roll-under combat system (id ``gurps_lite``).

Rule source: *3d6 Combat* (sections "Turn Order", "Attacking", "Hit Locations",
"Ranged Attacks", "Area of Effects", "Defending", "Maneuvers", "Damage",
"Injury") and the 3d6 core facts (docs/RULES.md). The board is a square grid,
one square is one yard.

Every roll goes through a :class:`rules.dice.DiceSource` as ``3d6`` (or the
damage dice) with a purpose label, and every result carries each modifier
with its label and the section it comes from. Readings chosen where the
document is silent or garbled are listed in :data:`READINGS` and on the help
page; the GM-changeable ones are settings (:func:`default_settings`).

``SYSTEM`` is what the registry loads; the reference functions below keep
their names and signatures.
"""

from __future__ import annotations

from ..system import Modifier
from .attack import attack, attack_modifiers, feint
from .checks import (
    RESULTS,
    THREE_D6,
    Check,
    check,
    contest_key,
    effective_skill,
    is_success,
    result_chances,
    roll_result,
    success_chance,
)
from .cover import cover_effect
from .data import LOCATIONS, MANEUVERS, READINGS, WOUNDING, Location, Maneuver, default_settings
from .defenses import AttackInfo, available_defenses, defense_level
from .health import (
    apply_result,
    collapse_check,
    effective_dr,
    hp_loss_checks,
    injury,
    is_major_wound,
    knockdown,
    location_injury,
    mortal_wound_check,
    resolve_damage,
    shock,
    stabilize,
    surgery_modifiers,
)
from .locations import average_dr, hit_location, location_penalty, wounding_multiplier
from .maneuvers import allowed_maneuvers
from .movement import maneuver_movement
from .odds import attack_odds, injury_distribution
from .ranged import (
    extra_hits,
    range_band_name,
    range_penalty,
    rapid_fire_bonus,
    spraying_fire,
    suppression_area_width,
    suppression_fire_skill,
)
from .sheet import derived, parse_damage, skill_level
from .system import GurpsLite
from .turns import (
    act,
    actions,
    begin_fight,
    initiative,
    initiative_skill,
    next_turn,
    record_attack,
    surprise,
    surprise_level,
    surprise_recovery,
)

SYSTEM = GurpsLite()

__all__ = [
    "SYSTEM", "GurpsLite", "Modifier",
    "RESULTS", "THREE_D6", "Check", "check", "contest_key", "effective_skill", "is_success", "result_chances",
    "roll_result", "success_chance",
    "LOCATIONS", "MANEUVERS", "READINGS", "WOUNDING", "Location", "Maneuver", "default_settings",
    "derived", "parse_damage", "skill_level",
    "average_dr", "hit_location", "location_penalty", "wounding_multiplier",
    "maneuver_movement", "allowed_maneuvers", "cover_effect",
    "extra_hits", "range_band_name", "range_penalty", "rapid_fire_bonus", "spraying_fire",
    "suppression_area_width", "suppression_fire_skill",
    "apply_result", "collapse_check", "effective_dr", "hp_loss_checks", "injury", "is_major_wound", "knockdown",
    "location_injury", "mortal_wound_check", "resolve_damage", "shock", "stabilize", "surgery_modifiers",
    "AttackInfo", "available_defenses", "defense_level",
    "attack", "attack_modifiers", "feint",
    "attack_odds", "injury_distribution",
    "initiative", "initiative_skill", "surprise", "surprise_level", "surprise_recovery",
    "begin_fight", "next_turn", "actions", "act", "record_attack",
]
