"""The Atomic Tomorrow Adventures system object the app calls: thin methods over the modules."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..copying import copied
from ..dice import DiceSource
from ..system import checked_defenses
from ..system import (
    ActionOption,
    AttackRequest,
    AttackResult,
    BaseSystem,
    Combatant,
    CoverEffect,
    RuleError,
    MoveResult,
    TurnUpdate,
)
from . import attack as attack_
from . import cover, health, movement, odds, sheet, suggest, turns
from . import options as options_
from .data import ARMOUR_LEVELS, COVER_LEVELS, DEFAULT_SETTINGS, DEFENSE_WORDS, DEMO_ZONES, RANGE_LABELS, RANGES
from .ranges import weapon_band, weapon_ranges
from ..text import say


class AtomicTomorrow(BaseSystem):
    id = "atomic_tomorrow"
    name = "Atomic Tomorrow Adventures"
    board = "zones"
    diagonal = "chebyshev"
    sheet_template = "sheets/_atomic_tomorrow.html"
    help_template = "help/atomic_tomorrow.html"
    cell_size = 1.0
    cell_unit = "zone"
    #: the range bands (keys of :meth:`range_band`) as people read them, for the attack card
    band_words = RANGE_LABELS
    planner = suggest  # a foe's plans on the zone map (#60)

    ranges = RANGES
    cover_levels = tuple(COVER_LEVELS)
    armour_levels = tuple(ARMOUR_LEVELS)

    # ---- sheet -------------------------------------------------------

    # a method that would only call a rule module's function with its own arguments is that function (#66)
    sheet_fields = staticmethod(sheet.sheet_fields)
    default_sheet = staticmethod(sheet.default_sheet)

    def default_settings(self) -> dict:
        return copied(DEFAULT_SETTINGS)

    def derived(self, sheet_: dict) -> dict:
        """Section "CHARACTER SHEET REFERENCE": the x 5 values, and the defenses."""
        return sheet.derived(sheet_)

    # ---- initiative, movement, range, cover ---------------------------

    def initiative(self, combatants: list[Combatant], dice: DiceSource) -> list[dict]:
        """Section "INITIATIVE AND TURN SEQUENCE": d100 against REFLEX x 5."""
        return turns.initiative(combatants, dice)

    def move_allowance(self, sheet_: dict, action: str = "move") -> float:
        """Section "ACTION ECONOMY": one move, within the zone or to an adjacent zone."""
        return movement.move_allowance(sheet_, action)

    def range_band(self, distance: float, weapon: dict) -> str | None:
        """The band at ``distance`` zone steps, or None when the weapon cannot reach it.

        Same zone: Engaged for a weapon that reaches Engaged but not Near (a hand-to-hand attack
        engages), else Near; an adjacent zone Far; further Distant (see :func:`ranges.weapon_band`)."""
        band = weapon_band(int(distance), weapon)
        return band if band in weapon_ranges(weapon) else None

    def cover_effect(self, cover_: Any) -> CoverEffect:
        """Section "COVER PROTECTION": the level and its cut to the Wound Rating."""
        return cover.cover_effect(cover_)

    # ---- the fight lifecycle ------------------------------------------

    def begin_fight(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
        """Section "INITIATIVE AND TURN SEQUENCE" (see :func:`turns.begin_fight`)."""
        return turns.begin_fight(combatants, dice, settings)

    def next_turn(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate:
        """End the turn, start the next; a new round when the order is done (see :func:`turns.next_turn`)."""
        return turns.next_turn(state, combatants, dice, settings)

    def actions(self, state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
        """Section "ACTION ECONOMY": what the actor may do now (see :func:`turns.actions`)."""
        return turns.actions(state, actor, settings)

    def act(self, state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
            settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
        """Move, quick or other significant action, GRIT x 1 check, Last Stand (see :func:`turns.act`)."""
        return turns.act(state, actor, action, combatants, dice, settings, options)

    def after_attack(self, state: dict, result: AttackResult, settings: dict | None = None) -> dict:
        """The fight state after an attack: the significant action spent, the defender's defense counted,
        a GRIT x 1 check or the Last Stand's final action used (see :func:`turns.after_attack`)."""
        return turns.after_attack(state, result)

    def record_attack(self, state: dict, result: AttackResult) -> dict:
        """The wave-1 name of :meth:`after_attack`."""
        return turns.after_attack(state, result)

    # ---- moves on the zone map -----------------------------------------

    def movement_left(self, state: dict, mover: Combatant, settings: dict | None = None) -> float | None:
        """Section "ACTION ECONOMY": 1 zone step until the round's move is spent, then 0."""
        return turns.movement_left(state, mover)

    def move(self, state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant],
             board: Any, dice: DiceSource, settings: dict | None = None) -> MoveResult:
        """The round's move, to the same or an adjacent zone, on the mover's turn; provokes nobody
        (see :func:`turns.move`)."""
        return MoveResult(**turns.move(state, mover, path, cost, combatants, settings))

    # ---- what a token shows, who edits what ---------------------------

    #: Section "WOUND EFFECTS": wounds come from attacks, soak and the Last Stand, so the GM sets them
    gm_only_fields = ("wounds",)

    def sample_encounter(self) -> dict | None:
        """The rocket-port ambush: the demo zones and four combatants in them."""
        return {"name": "Demo: ambush at the rocket-port", "map": copied(DEMO_ZONES),
                "combatants": sheet.sample_encounter()}

    def badges(self, sheet_: dict, state: dict | None = None) -> list[dict]:
        """Wounds, Incapacitated/Dying, Collapsed, the Last Stand, a GRIT x 1 roll (see :func:`turns.badges`).
        ``state`` is the combatant's own books, ``state["combatants"][id]`` of the fight."""
        return turns.badges(sheet_, state)

    def out_of_fight(self, sheet_: dict, state: dict | None = None, settings: dict | None = None) -> bool:
        """Incapacitated (4 wounds: an action only on a GRIT x 1 roll), dying, or collapsed after a Last Stand
        (sections "INCAPACITATION", "LAST STAND"): as its badges say (``turns.out_of_fight``)."""
        return turns.out_of_fight(sheet_, state)

    def weapons(self, sheet_: dict) -> list[dict]:
        """Bare hands, then the sheet's weapons by name, each ``data`` the checked entry (its ranges);
        an entry that does not check is left out (the sheet check names it)."""
        return sheet.weapon_list(sheet_)

    def validate_sheet(self, sheet_: dict) -> dict:
        """The sheet checked and completed; RuleError naming the first bad field."""
        return sheet.validate_sheet(sheet_)

    # ---- attacks ------------------------------------------------------

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        """Sections "ATTACK SEQUENCE" to "ARMOR PROTECTION" (see :func:`attack.attack`); an area weapon
        hits everyone in the target zone (see :func:`options.area_attack`)."""
        self._one_target(request)
        if self._area(request):
            return options_.area_attack(request, dice)
        return attack_.attack(request, dice)

    def attack_options(self, request: AttackRequest) -> list[dict]:
        """The situational bonus and penalty of attacker and defender, Engaged, the range band
        (see :func:`options.attack_options`)."""
        return options_.attack_options(request)

    @staticmethod
    def _one_target(request: AttackRequest) -> None:
        if len(request.targets) > 1:
            raise RuleError(say("an attack has one target (ATTACK SEQUENCE); an area weapon hits everyone in the "
                                "target's zone by itself"))

    @staticmethod
    def _area(request: AttackRequest) -> bool:
        try:
            return bool(attack_.prepare(request)["weapon"]["area"])
        except (RuleError, ValueError, TypeError):  # the attack itself says what is wrong
            return False

    def attack_zone(self, request: AttackRequest, targets: list[Combatant], dice: DiceSource,
                    defenses: Mapping[str, str] | None = None) -> list[AttackResult]:
        """An area weapon hits everyone in the target zone (see :func:`attack.attack_zone`)."""
        return attack_.attack_zone(request, targets, dice, defenses)

    def odds(self, request: AttackRequest) -> dict:
        """Exact chances of the attack as requested, before it is rolled (see :func:`odds.request_odds`)."""
        self._one_target(request)
        prep = attack_.prepare(request)  # (once: the odds' and the weapon's area)
        out = odds.request_odds(request, prep)
        if prep["weapon"]["area"]:  # each token in the target zone, as the one attack roll reaches it
            out["targets"] = []
            for t in options_.zone_targets(request):
                req = AttackRequest(**{**request.__dict__, "target": t,
                                       "options": {**request.options, "defense": request.options.get("defense")
                                                   if t.id == request.target.id else "none"}})
                o = out if t.id == request.target.id else odds.request_odds(req)
                out["targets"].append({"id": t.id, "name": t.name, "hit": o["hit"], "outcomes": o["outcomes"]})
            out["note"] = say("an area weapon hits everyone in the target zone")
        return out

    # ---- wounds and their effects ------------------------------------

    def defenses(self, request: AttackRequest) -> list[dict]:
        """Sections "DEFENSE OPTION" and "DEFENSE LIMITATIONS": Parry (melee only), Block (a shield),
        Dodge, or no defense; each one the rules refuse here says why."""
        labels = {**DEFENSE_WORDS, "none": say("No defense")}
        return checked_defenses(self, request, labels)

    def apply(self, sheet_: dict, result: AttackResult) -> dict:
        """The sheet after a result: the wounds it deals (never past 5)."""
        return health.apply_result(sheet_, result)

    def act_check(self, combatant: Combatant, dice: DiceSource, settings: Mapping | None = None) -> dict:
        """The GRIT x 1 roll at 4 wounds or the Last Stand at 5 (see :func:`turns.act_check`)."""
        return turns.act_check(combatant, dice, settings)

    def apply_last_stand(self, sheet_: dict, outcome: Mapping) -> dict:
        """The sheet after a Last Stand: a critical stabilises at 4 wounds."""
        return health.apply_last_stand(sheet_, outcome)
