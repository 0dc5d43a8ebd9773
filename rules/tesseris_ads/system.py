"""The Tesseris (ADS) system object the app calls."""

from __future__ import annotations

from typing import Any

from ..dice import DiceSource
from ..system import ActionOption, AttackRequest, AttackResult, BaseSystem, Combatant, CoverEffect, RuleError, SheetField, TurnUpdate
from . import cover, health, movement, sheet, turns
from .attack import attack_cover_piece, range_band_name, resolve_attack, settings_of
from .data import DEFAULT_SETTINGS
from .odds import attack_odds


class TesserisSystem(BaseSystem):
    id = "tesseris_ads"
    name = "Tesseris (Adaptable Dice System)"
    board = "grid"
    diagonal = "alternating"
    sheet_template = "sheets/_tesseris_ads.html"
    help_template = "help/tesseris_ads.html"
    cell_size = 1.0
    cell_unit = "yard"

    def sheet_fields(self) -> list[SheetField]:
        return sheet.sheet_fields()

    def default_sheet(self) -> dict:
        return sheet.default_sheet()

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
                raise RuleError("the cover piece's material is unknown")
            return attack_cover_piece(
                request.attacker, request.weapon, target_cover["id"], material, int(round(request.distance)), dice, int(target_cover.get("damage_taken", 0))
            )
        return resolve_attack(request, dice)

    def odds(self, request: AttackRequest) -> dict:
        return attack_odds(request)

    def apply(self, sheet_: dict, result: AttackResult) -> dict:
        return health.apply_result(sheet_, result)

    # the fight lifecycle (turns.py): initiative every round, ticks, surprise, delay, reactions

    def begin_fight(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
        return turns.begin_fight(combatants, dice, settings)

    def next_turn(self, state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
        return turns.next_turn(state, combatants, dice, settings)

    def actions(self, state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
        return turns.actions(state, actor, settings)

    def act(self, state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
            settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
        return turns.act(state, actor, action, combatants, dice, settings, options)

    def record_attack(self, state: dict, result: AttackResult) -> dict:
        """The fight's state with the tick states an attack returned written back."""
        return turns.record_attack(state, result.details)

