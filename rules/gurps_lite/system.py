"""The 3d6 roll-under system object the app calls: thin methods over the rule modules."""

from __future__ import annotations

from typing import Any

from ..dice import DiceSource
from ..text import say
from ..system import (
    AttackRequest,
    AttackResult,
    BaseSystem,
    CoverEffect,
    RuleError,
)
from . import suggest, turns
from .badges import badges
from .attack import attack
from .cover import cover_effect
from .data import LOCATIONS, MANEUVERS, READINGS, default_settings
from .health import apply_result
from .maneuvers import allowed_maneuvers
from .movement import move_allowance
from .odds import attack_odds
from .options import attack_options, checked_options, defense_choices
from .ranged import BAND_WORDS, range_band_name
from .sheet import conditions_of, default_sheet, derived, num_of, sheet_fields, validate_sheet, weapons


class GurpsLite(BaseSystem):
    """The 3d6 roll-under system, as the app calls it."""

    id = "gurps_lite"
    name = say("3d6 roll-under (GURPS-Lite style)")
    board = "grid"
    diagonal = "alternating"
    sheet_template = "sheets/_gurps_lite.html"
    help_template = "help/gurps_lite.html"
    cell_size = 1.0
    cell_unit = "yard"
    #: what injury, the turn steps and the GM set ("Injury"): a player does not edit them
    gm_only_fields = ("hp_current", "fp_current", "shock", "conditions", "crippled")

    maneuvers = MANEUVERS
    locations = LOCATIONS
    readings = READINGS

    # a method that would only call a rule module's function with its own arguments is that function (#66)
    sheet_fields = staticmethod(sheet_fields)
    default_sheet = staticmethod(default_sheet)
    default_settings = staticmethod(default_settings)
    derived = staticmethod(derived)

    def validate_sheet(self, sheet: dict) -> None:
        validate_sheet(sheet)

    def weapons(self, sheet: dict) -> list[dict]:
        """The sheet's weapons by name, labelled with their damage ("2d pi"): what ``attack`` takes."""
        return [{"key": name, "label": f"{name} ({w.get('damage', '1d')} {w.get('type', 'cr')})", "data": w}
                for name, w in weapons(sheet).items() if isinstance(w, dict)]

    initiative = staticmethod(turns.initiative)
    move_allowance = staticmethod(move_allowance)
    allowed_maneuvers = staticmethod(allowed_maneuvers)

    def range_band(self, distance: float, weapon: dict) -> str | None:
        if weapon.get("max") and distance > num_of(weapon["max"]):
            return None
        band = range_band_name(distance)
        return BAND_WORDS.get(band, band)

    def cover_effect(self, cover: Any) -> CoverEffect:
        return cover_effect(cover)

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        """*3d6 Combat*, "Injury": who has collapsed unconscious (a failed HT roll in its own maneuver) or is dead
        makes no attack, as it makes no move."""
        checked_options(request)
        a = request.attacker
        if (a.state or {}).get("collapsed") or self.out_of_fight(a.sheet, a.state):
            raise RuleError(say("{name} is out of the fight", name=a.name))
        return attack(request, dice)

    def odds(self, request: AttackRequest) -> dict:
        checked_options(request)
        return attack_odds(request)

    def defenses(self, request: AttackRequest) -> list[dict]:
        """*3d6 Combat*, "Defending": each defense and each of its modifiers a choice of its own
        (see :func:`rules.gurps_lite.options.defense_choices`)."""
        return defense_choices(request)

    def area_templates(self) -> list[dict]:
        """*3d6 Combat*, "Area of Effects": a spherical area attack laid on a square (the weapon's ``area``
        radius, whatever size the map's circle has); aimed at the ground, +4."""
        return [{"key": "sphere", "label": say("Sphere (the weapon's area radius)"), "shape": "circle", "size": None}]

    def attack_options(self, request: AttackRequest) -> list[dict]:
        """The attacker's choices now (see :func:`rules.gurps_lite.options.attack_options`)."""
        return attack_options(request)

    apply = staticmethod(apply_result)
    begin_fight = staticmethod(turns.begin_fight)
    end_fight = staticmethod(turns.end_fight)
    next_turn = staticmethod(turns.next_turn)
    actions = staticmethod(turns.actions)
    act = staticmethod(turns.act)
    movement_left = staticmethod(turns.movement_left)
    move = staticmethod(turns.move)
    after_attack = staticmethod(turns.after_attack)
    badges = staticmethod(badges)

    def out_of_fight(self, sheet: dict, state: dict | None = None, settings: dict | None = None) -> bool:
        """Unconscious, dead, destroyed or mortally wounded (*3d6 Combat*, "Injury"): the conditions the turn order
        passes over (``turns.OUT_OF_FIGHT``), on the sheet or in the fight's books. Its badges call the last three
        wounds, not conditions; below 0 HP, stunned or knocked down, a character still fights."""
        return bool(conditions_of(sheet or {}, state) & set(turns.OUT_OF_FIGHT))

    planner = suggest  # a foe's plans (#60)
