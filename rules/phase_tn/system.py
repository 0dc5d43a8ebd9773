"""The *Phase/TN Combat Sequence* rule system: thin methods over the modules of this package."""

from __future__ import annotations

from typing import Any

from ..copying import copied
from ..dice import DiceSource
from ..text import Say, say
from ..system import RuleError, AttackRequest, AttackResult, BaseSystem, Combatant, MoveResult, TurnUpdate
from . import attack as _attack
from . import books as _books
from . import cover as _cover
from . import health as _health
from . import movement as _movement
from . import odds as _odds
from . import sheet as _sheet
from . import suggest
from . import turns as _turns
from .data import ACTIONS, LENGTHS, LOCATIONS, default_settings


def _by_name(call, state: dict, combatants: list[Combatant]):
    """A refusal of the reference functions (which speak of ids) with the combatants' names."""
    try:
        return call()
    except RuleError as exc:
        names = {**(state.get("names") or {}), **{c.id: c.name for c in combatants if c.name}}
        said = exc.args[0] if exc.args and isinstance(exc.args[0], Say) else str(exc)  # the rules' words, kept
        raise RuleError(_turns.named(said, names)) from None


def _one_target(request: AttackRequest) -> None:
    """"Ranged Attacks": a Targeting action lines the weapon up with one target; a shot is at that one."""
    if len(request.targets) > 1:
        raise RuleError(say("a shot is at one target: a Targeting action lines the weapon up with one (Ranged Attacks)"))


class PhaseTNSystem(BaseSystem):
    id = "phase_tn"
    name = say("Phase / target-number system")
    board = "grid"
    diagonal = "chebyshev"
    sheet_template = "sheets/_phase_tn.html"
    help_template = "help/phase_tn.html"
    #: wounds are what the rules set: the GM records them, the attack results add them
    gm_only_fields = ("flesh", "trauma")
    planner = suggest  # a foe's plans (#60): what it declares at its time to declare

    ACTIONS = ACTIONS
    LENGTHS = LENGTHS
    LOCATIONS = LOCATIONS

    # a method that would only call a rule module's function with its own arguments is that function (#66)
    default_settings = staticmethod(default_settings)
    sheet_fields = staticmethod(_sheet.sheet_fields)
    default_sheet = staticmethod(_sheet.default_sheet)

    def validate_sheet(self, sheet: dict) -> None:
        _sheet.validate_sheet(sheet)

    derived = staticmethod(_sheet.derived)

    def initiative(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> list[dict]:
        """Initiative of one phase, in declaration order (lowest first), "Initiative and Actions"."""
        return _turns.initiative_list(combatants, dice, settings)

    move_allowance = staticmethod(_movement.move_allowance)
    range_band = staticmethod(_attack.range_band)
    cover_effect = staticmethod(_cover.cover_effect)

    def attack(self, request: AttackRequest, dice: DiceSource, settings: dict | None = None) -> AttackResult:
        _one_target(request)
        return _attack.attack(request, dice, settings)

    def attack_options(self, request: AttackRequest, settings: dict | None = None) -> list[dict]:
        return _attack.attack_options(request, settings)

    def odds(self, request: AttackRequest, settings: dict | None = None) -> dict:
        _one_target(request)
        return _odds.odds(request, settings)

    apply = staticmethod(_health.apply)

    # -- the fight lifecycle ("Combat Sequence", "Initiative and Actions"): see .turns

    begin_fight = staticmethod(_turns.begin_fight)
    next_turn = staticmethod(_turns.next_turn)
    actions = staticmethod(_turns.actions)

    def act(self, state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
            settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
        return _by_name(lambda: _turns.act(state, actor, action, combatants, dice, settings, options), state, combatants)

    def reorder(self, state: dict, order: list[str], current: str | None, settings: dict | None = None) -> dict:
        """The GM's declaration order by hand for this phase (the rules' is lowest initiative first,
        "Initiative and Actions"); who is declaring keeps the turn, the next declarer follows the
        new order, and the next phase rolls initiative again."""
        new = copied(state)
        declaring = set(new["combat"]["order"])
        new["combat"]["order"] = [w for w in order if w in declaring]
        return new

    # -- moving and shooting inside a fight: the rules keep the books (see .books, .movement)

    after_attack = staticmethod(_books.after_attack)

    def due_attacks(self, state: dict) -> list[dict] | None:
        """The shots the books owe now: *Phase/TN Combat Sequence*, "Resolution" (by action length)."""
        return [dict(d) for d in state.get("due", [])]

    def turn_now(self, state: dict) -> dict | None:
        """Who declares now: a shot that took a declarer out of the fight drops it from the order."""
        return _turns.turn_now(state) if "combat" in state else None

    movement_left = staticmethod(_movement.movement_left)

    def move(self, state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant],
             board: Any, dice: DiceSource, settings: dict | None = None) -> MoveResult:
        return _by_name(lambda: _movement.move(state, mover, path, cost, combatants, board, dice, settings),
                        state, combatants)

    # -- what every screen shows on the token (see .health)

    badges = staticmethod(_health.badges)

    def out_of_fight(self, sheet: dict, state: dict | None = None, settings: dict | None = None) -> bool:
        """Down from flesh wounds at capacity, or unconscious, dying or dead from a traumatic wound (*Phase/TN Combat
        Sequence*, "Damage and Wounds": ``health.incapacitated``, whom the rules take out of the turn order)."""
        return bool(_health.incapacitated(sheet or {}, settings))
