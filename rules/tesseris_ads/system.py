"""The Tesseris (ADS) system object the app calls."""

from __future__ import annotations

from typing import Any

from ..dice import DiceSource
from ..system import AttackRequest, AttackResult, BaseSystem, Combatant, CoverEffect, MoveResult, RuleError, TurnUpdate
from . import badges as own_badges
from . import cover, health, movement, options, sheet, suggest, turns
from .attack import attack_cover_piece, effect_words, range_band_name, settings_of
from .data import COVER_MATERIAL_LABELS, DEFAULT_SETTINGS
from .odds import attack_odds
from .spray import resolve_action
from .status import names as status_names
from ..text import say, say_p


class TesserisSystem(BaseSystem):
    id = "tesseris_ads"
    name = "Tesseris (Adaptable Dice System)"
    board = "grid"
    diagonal = "alternating"
    sheet_template = "sheets/_tesseris_ads.html"
    help_template = "help/tesseris_ads.html"
    cell_size = 1.0
    cell_unit = "yard"
    #: the range bands as the attack card names them (``range_band``'s keys; *Tesseris Combat*, "Common Physical
    #: Combat Modifiers", Range rows)
    band_words = {"melee": say_p("range band", "melee"), "point_blank": say_p("range band", "point blank"),
                  "short": say_p("range band", "short"), "medium": say_p("range band", "medium"),
                  "long": say_p("range band", "long"), "far": say_p("range band", "far"),
                  "extreme": say_p("range band", "extreme")}
    cover_material_labels = COVER_MATERIAL_LABELS
    #: the foes' plans (#60): what an attack is worth, the ways a turn spends its ticks, who is hurt
    planner = suggest
    #: what the rules and the GM set, not the player: damage taken, Ego lost, status effects
    gm_only_fields = ("stamina", "wounds", "ego", "statuses")

    # a method that would only call a rule module's function with its own arguments is that function (#66)
    sheet_fields = staticmethod(sheet.sheet_fields)
    default_sheet = staticmethod(sheet.default_sheet)

    def default_settings(self) -> dict:
        return dict(DEFAULT_SETTINGS)

    def derived(self, sheet_: dict) -> dict:
        return sheet.derived(sheet_)

    def initiative(self, combatants: list[Combatant], dice: DiceSource) -> list[dict]:
        rows = turns.initiative(combatants, dice)
        out = []
        for r in rows:
            out.append({**r, "roll": r["roll"].to_dict(), "modifiers": [m.to_dict() for m in r["modifiers"]]})
        return out

    def move_allowance(self, sheet_: dict, action: str = "move") -> float:
        return float(movement.move_allowance(sheet_, action))

    def range_band(self, distance: float, weapon: dict) -> str | None:
        if weapon.get("kind", "melee") == "melee":
            reach = sheet.num(weapon.get("reach"), 1) or 1
            return "melee" if distance <= reach else None
        return range_band_name(int(round(distance)), sheet.num(weapon.get("range")))

    def cover_effect(self, cover_: Any, settings: dict | None = None) -> CoverEffect:
        return cover.cover_effect(cover_, settings_of(settings))

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        target_cover = (request.options or {}).get("target_cover")
        if target_cover:
            material = target_cover.get("material")
            if material is None and request.board is not None:
                piece = (getattr(request.board, "cover_pieces", None) or {}).get(target_cover["id"])
                material = getattr(piece, "material", None)
            if material is None:
                raise RuleError(say("the cover piece's material is unknown"))
            try:
                cover.normalise_material(material)
            except KeyError:
                raise RuleError(say("unknown cover material {value}; known: {known}", value=repr(material),
                                    known=", ".join(cover.COVER_MATERIALS))) from None
            return attack_cover_piece(
                request.attacker, request.weapon, target_cover["id"], material, int(round(request.distance)), dice, int(target_cover.get("damage_taken", 0))
            )
        result = resolve_action(request, dice)
        names = {c.id: c.name for c in (request.attacker, request.target, *request.others, *(r.target for r in request.targets))}
        for e in result.effects:  # each effect in the game's words, beside its numbers
            e.data = {**e.data, "says": effect_words(e, names)}
        return result

    def odds(self, request: AttackRequest) -> dict:
        return attack_odds(request)

    def defenses(self, request: AttackRequest) -> list[dict]:
        """"Defending" and the action's own words: the defenses against this attack (Duck, Dodge, Block,
        Parry against melee; a Trip's or a Disarm's Athletics, a Pin's Grapple Defense, a Choke Out's
        Athletics, a Distracting Shot's Scrutiny), each with Drop Prone or Take Cover before it against
        a ranged attack, or none; each one the rules refuse here says why (options.defense_choices)."""
        return options.defense_choices(self, request)

    def attack_options(self, request: AttackRequest) -> list[dict]:
        """The attack actions (fire modes among them) and what each asks, the circumstances, Mayhem
        (options.attack_options)."""
        return options.attack_options(request)

    def end_fight(self, state: dict, combatants: list[Combatant], dice: DiceSource,
                  settings: dict | None = None) -> TurnUpdate:
        """"End Combat", "Regaining Stamina", "Mayhem Points", "Status Effects" (turns.end_fight)."""
        return turns.end_fight(state, combatants, dice, settings)

    def apply(self, sheet_: dict, result: AttackResult) -> dict:
        """The sheet after the result's effects on its target; when every effect is aimed at one
        character (the app hands each sheet its own effects: the attacker's ammunition and jams,
        the target's damage), that character's."""
        aimed = {e.target for e in result.effects}
        return health.apply_result(sheet_, result, aimed.pop() if len(aimed) == 1 else None)

    # the fight lifecycle (turns.py): initiative every round, ticks, surprise, delay, reactions

    begin_fight = staticmethod(turns.begin_fight)
    next_turn = staticmethod(turns.next_turn)
    actions = staticmethod(turns.actions)
    act = staticmethod(turns.act)

    def after_attack(self, state: dict, result: AttackResult, settings: dict | None = None) -> dict:
        """The fight's books after an attack: both sides' tick states written back (turns.after_attack)."""
        return turns.after_attack(state, result, settings)

    def movement_left(self, state: dict, mover: Combatant, settings: dict | None = None) -> float | None:
        """Squares still to move this turn: the rest of a paid moving action, a Move (1 tick, Speed squares) per tick left."""
        return movement.movement_left(state, mover, settings)

    def move(self, state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant],
             board: Any, dice: DiceSource, settings: dict | None = None) -> MoveResult:
        """A move on the map: the Move actions (ticks) it takes paid, the Reaction Strikes it provokes (movement.move)."""
        out = movement.move(state, mover, path, cost, combatants, board, {**self.default_settings(), **(settings or {})})
        return MoveResult(state=out["state"], cost=out["cost"], left=out["left"], provokes=out["provokes"], log=out["log"])

    def badges(self, sheet_: dict, state: dict | None = None) -> list[dict]:
        """Stamina, Wounds, status effects and, in a fight, ticks left, stances and a jammed weapon."""
        return own_badges.badges(sheet_, state)

    def out_of_fight(self, sheet_: dict, state: dict | None = None, settings: dict | None = None) -> bool:
        """Dead, dying or Unconscious (*Tesseris Combat*, "Unconsciousness, Crippling, and Death"; the turn order's
        ``can_act``): the other status effects leave a character in the fight."""
        s = sheet_ or {}
        return health.is_dead(s) or bool(s.get("dying")) or "Unconscious" in status_names(s.get("statuses"))

    def weapons(self, sheet_: dict) -> list[dict]:
        """The sheet's weapons by key, labelled by name, and the unarmed strike every character has."""
        return sheet.weapon_list(sheet_)

    def validate_sheet(self, sheet_: dict) -> None:
        """RuleError naming the first field the rules cannot use."""
        sheet.validate_sheet(sheet_)
