"""The phase / target-number system of *Phase/TN Combat Sequence*.

The document (sections "Combat Sequence", "Initiative and Actions",
"Combined Actions", "Ranged Attacks", "Special Ranged Attacks", "Damage
and Wounds") states how time runs in phases, how actions are declared and
resolved, and how targeting, called shots and wild shots work. It never
names its dice, cuts off its hit-location table and its special ranged
attacks, and stops its wounds section after naming flesh and traumatic
wounds. Every one of those gaps is a per-game setting here (see
:func:`default_settings`), listed on the help page.

Modules: :mod:`.data` (tables, settings), :mod:`.checks` (the roll
against a TN), :mod:`.turns` (surprise, phases, declarations, resolution,
the fight lifecycle), :mod:`.targeting` (Targeting, wild and called shots,
drift, hit location), :mod:`.attack`, :mod:`.health` (wounds),
:mod:`.odds`, :mod:`.sheet`, :mod:`.movement`, :mod:`.cover`,
:mod:`.system`.
"""

from __future__ import annotations

from .attack import attack_setup, range_band, weapon_of
from .checks import attribute_roll, wound_modifiers
from .data import (
    ACTIONS,
    ATTRIBUTES,
    BURST_BULLETS,
    LENGTHS,
    LOCATIONS,
    SRC_COMBINED,
    SRC_INITIATIVE,
    SRC_RANGED,
    SRC_SEQUENCE,
    SRC_SETTING,
    SRC_SPECIAL,
    SRC_WOUNDS,
    SURPRISE_TN,
    WILD_SHOT_MODIFIER,
    default_settings,
    resolve_settings,
)
from .system import PhaseTNSystem
from .targeting import (
    acquire_target,
    called_shot_drift,
    called_shot_drift_with,
    check_targeting,
    first_possible_location,
    hit_location,
    is_targeted,
    lose_targeting,
    wild_shot_modifier,
)
from .turns import (
    begin_phase,
    can_declare,
    cancel_action,
    change_target,
    clock,
    declaration_order,
    declare,
    end_phase,
    is_waiting,
    length_in_phases,
    new_combat,
    next_declarer,
    resolution_groups,
    resolves_at,
    roll_initiative,
    surprise_check,
    surprised,
)

SYSTEM = PhaseTNSystem()

__all__ = [
    "SYSTEM", "PhaseTNSystem",
    "attack_setup", "range_band", "weapon_of", "attribute_roll", "wound_modifiers",
    "ACTIONS", "ATTRIBUTES", "BURST_BULLETS", "LENGTHS", "LOCATIONS", "SRC_COMBINED", "SRC_INITIATIVE", "SRC_RANGED",
    "SRC_SEQUENCE", "SRC_SETTING", "SRC_SPECIAL", "SRC_WOUNDS", "SURPRISE_TN", "WILD_SHOT_MODIFIER",
    "default_settings", "resolve_settings",
    "acquire_target", "called_shot_drift", "called_shot_drift_with", "check_targeting", "first_possible_location",
    "hit_location", "is_targeted", "lose_targeting", "wild_shot_modifier",
    "begin_phase", "can_declare", "cancel_action", "change_target", "clock", "declaration_order", "declare",
    "end_phase", "is_waiting", "length_in_phases", "new_combat", "next_declarer", "resolution_groups", "resolves_at",
    "roll_initiative", "surprise_check", "surprised",
]
