"""The 3d6 roll-under system object the app calls: thin methods over the rule modules."""

from __future__ import annotations

from typing import Any

from ..dice import DiceSource
from ..text import say
from ..system import (
    ActionOption,
    AttackRequest,
    AttackResult,
    BaseSystem,
    Combatant,
    CoverEffect,
    MoveResult,
    SheetField,
    TurnUpdate,
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

    def sheet_fields(self) -> list[SheetField]:
        return sheet_fields()

    def default_sheet(self) -> dict:
        return default_sheet()

    def default_settings(self) -> dict:
        return default_settings()

    def derived(self, sheet: dict) -> dict:
        return derived(sheet)

    def validate_sheet(self, sheet: dict) -> None:
        validate_sheet(sheet)

    def weapons(self, sheet: dict) -> list[dict]:
        """The sheet's weapons by name, labelled with their damage ("2d pi"): what ``attack`` takes."""
        return [{"key": name, "label": f"{name} ({w.get('damage', '1d')} {w.get('type', 'cr')})", "data": w}
                for name, w in weapons(sheet).items() if isinstance(w, dict)]

    def initiative(self, combatants: list[Combatant], dice: DiceSource) -> list[dict]:
        return turns.initiative(combatants, dice)

    def move_allowance(self, sheet: dict, action: str = "move") -> float:
        return move_allowance(sheet, action)

    def allowed_maneuvers(self, sheet: dict, state: dict | None = None, moved: float = 0) -> list[dict]:
        return allowed_maneuvers(sheet, state, moved)

    def range_band(self, distance: float, weapon: dict) -> str | None:
        if weapon.get("max") and distance > num_of(weapon["max"]):
            return None
        band = range_band_name(distance)
        return BAND_WORDS.get(band, band)

    def cover_effect(self, cover: Any) -> CoverEffect:
        return cover_effect(cover)

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        checked_options(request)
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

    def apply(self, sheet: dict, result: AttackResult, target: str | None = None) -> dict:
        return apply_result(sheet, result, target)

    def begin_fight(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
        return turns.begin_fight(combatants, dice, settings)

    def end_fight(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate:
        return turns.end_fight(state, combatants, dice, settings)

    def next_turn(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate:
        return turns.next_turn(state, combatants, dice, settings)

    def actions(self, state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
        return turns.actions(state, actor, settings)

    def act(self, state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
            settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
        return turns.act(state, actor, action, combatants, dice, settings, options)

    def movement_left(self, state: dict, mover: Combatant, settings: dict | None = None) -> float:
        return turns.movement_left(state, mover, settings)

    def move(self, state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant],
             board: Any, dice: DiceSource, settings: dict | None = None) -> MoveResult:
        return turns.move(state, mover, path, cost, combatants, board, dice, settings)

    def after_attack(self, state: dict, result: AttackResult, settings: dict | None = None) -> dict:
        return turns.after_attack(state, result, settings)

    def badges(self, sheet: dict, state: dict | None = None) -> list[dict]:
        return badges(sheet, state)

    def out_of_fight(self, sheet: dict, state: dict | None = None, settings: dict | None = None) -> bool:
        """Unconscious, dead, destroyed or mortally wounded (*3d6 Combat*, "Injury"): the conditions the turn order
        passes over (``turns.OUT_OF_FIGHT``), on the sheet or in the fight's books. Its badges call the last three
        wounds, not conditions; below 0 HP, stunned or knocked down, a character still fights."""
        return bool(conditions_of(sheet or {}, state) & set(turns.OUT_OF_FIGHT))

    planner = suggest  # a foe's plans (#60)
