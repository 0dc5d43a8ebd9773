"""Savage Worlds (SWADE) combat: action cards, trait rolls with the Wild Die,
raises, Toughness, templates.

Rule document: *Savage Worlds Combat System Reference*, with the Savage
Worlds core facts it assumes (docs/RULES.md). Each rule function names the
section it encodes. Distances are in inches: one square is 1" (2 yards).
Readings chosen where the document is silent are listed on the help page
and, where a GM may want another, are settings (``data.default_settings``).

Modules: ``data`` (tables, settings), ``checks`` (trait and damage rolls),
``sheet``, ``turns`` (the action deck and the turn lifecycle), ``movement``,
``cover``, ``attack``, ``templates`` (area effects), ``health``, ``odds``,
``system`` (the object the app calls).
"""

from __future__ import annotations

from ..system import Modifier, RuleError, RuleNotImplemented
from .attack import gang_up_bonus, range_band, range_modifier
from .checks import (Die, TraitRoll, damage_expression, half_die, interrupt, opposed_roll, parse_die,
                     trait_result, trait_roll)
from .cover import cover_effect, cover_level
from .data import (BLAST_RADIUS, COVER_LEVELS, IMPROVISED, MAX_WOUNDS, OBJECT_TOUGHNESS, RAISE,
                   SHOTGUN_DAMAGE, TN, WILD_DIE, default_settings)
from .health import apply, damage_result
from .movement import move_allowance, withdraw_attackers
from .odds import attack_odds, trait_odds
from .sheet import default_sheet, derived_values, sheet_fields, validate_sheet, weapon_stats
from .system import SavageWorlds
from .templates import (blast_cells, cone_polygon, deviation, deviation_multiplier, line_polygon,
                        template_cells)
from .turns import (action_order, card_value, deal_round, draw_card, fresh_deck, is_joker,
                    multi_action_penalty, new_deck, shuffle, start_round)

SYSTEM = SavageWorlds()

__all__ = [
    "SYSTEM", "SavageWorlds", "range_modifier", "trait_result", "damage_result", "gang_up_bonus",
    "multi_action_penalty", "action_order", "deviation_multiplier", "trait_roll", "deal_round",
    "blast_cells", "template_cells", "deviation", "attack_odds", "trait_odds", "cover_level",
    "withdraw_attackers", "interrupt", "new_deck", "shuffle", "fresh_deck", "draw_card", "start_round",
    "Die", "TraitRoll", "parse_die", "half_die", "opposed_roll", "damage_expression", "weapon_stats",
    "derived_values", "default_sheet", "sheet_fields", "validate_sheet", "default_settings",
    "cover_effect", "range_band", "move_allowance", "apply", "is_joker", "card_value",
    "cone_polygon", "line_polygon", "Modifier", "RuleError", "RuleNotImplemented",
    "BLAST_RADIUS", "COVER_LEVELS", "IMPROVISED", "MAX_WOUNDS", "OBJECT_TOUGHNESS", "RAISE",
    "SHOTGUN_DAMAGE", "TN", "WILD_DIE",
]
