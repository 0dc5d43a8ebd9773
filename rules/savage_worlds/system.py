"""The Savage Worlds rule system the app calls: thin methods over the modules
of this package."""

from __future__ import annotations

from ..dice import DiceSource
from ..text import say
from ..system import AttackRequest, AttackResult, BaseSystem, Combatant, RuleError
from . import attack as _attack
from . import cover as _cover
from . import data, health, movement, rapid, suggest, templates, turns
from . import sheet as character
from . import odds as _odds
from . import options as _options


def one_target(request: AttackRequest) -> None:
    """An attack is at one target, but for a Rapid Attack divided among targets (:mod:`.rapid`): several
    are hit by an area template (Area Effect Attacks), not a list, and RoF fires more dice at the one."""
    if len(request.targets) > 1 and not rapid.is_split(request):
        raise RuleError(say("Savage Worlds attacks one target at a time but for a Rapid Attack, which may divide its "
                            "attacks among targets (Rapid Attack); an area template hits everyone under it "
                            "(Area Effect Attacks), and RoF fires more dice at the one target"))


class SavageWorlds(BaseSystem):
    id = "savage_worlds"
    name = "Savage Worlds (SWADE)"
    board = "grid"
    diagonal = movement.DIAGONAL
    sheet_template = "sheets/_savage_worlds.html"
    help_template = "help/savage_worlds.html"
    cell_size = 1.0
    cell_unit = '"'
    yards_per_square = 2
    #: the sheet fields the rules set (an attack's result, the turn's actions): the GM's to edit
    gm_only_fields = ("wounds", "fatigue", "shaken", "stunned", "vulnerable", "prone", "incapacitated")
    #: Bennies: a player spends them; the GM (and a Joker, the rules) hands them out (#33: a player set 9)
    gm_raises_fields = ("bennies",)

    # -- sheet

    # a method that would only call a rule module's function with its own arguments is that function (#66)
    sheet_fields = staticmethod(character.sheet_fields)
    default_sheet = staticmethod(character.default_sheet)

    def validate_sheet(self, sheet: dict) -> None:
        character.validate_sheet(sheet)

    derived = staticmethod(character.derived_values)
    default_settings = staticmethod(data.default_settings)

    def validate_settings(self, settings: dict) -> None:
        """A setting read as one of a few words is refused when the GM sets it, not on the next Shaken turn."""
        turns.check_shaken_recovery(settings.get("shaken_recovery", "swade"))

    # -- initiative and movement

    def initiative(self, combatants: list[Combatant], dice: DiceSource, deck: dict | None = None,
                   settings: dict | None = None, first_round: bool = False) -> list[dict]:
        """The acting order of a round; use :func:`turns.deal_round` to get the new deck too."""
        return turns.deal_round(deck, combatants, dice, settings, first_round=first_round)["order"]

    def deal_round(self, deck, combatants, dice, settings=None, first_round=False) -> dict:
        return turns.deal_round(deck, combatants, dice, settings, first_round=first_round)

    # -- the fight lifecycle: action cards, turns, Hold, Shaken recovery

    begin_fight = staticmethod(turns.begin_fight)
    next_turn = staticmethod(turns.next_turn)
    actions = staticmethod(turns.actions)
    end_fight = staticmethod(turns.end_fight)

    # -- Bennies: a Soak roll after wounds (see .health)

    soak_offer = staticmethod(health.soak_offer)
    soak = staticmethod(health.soak)
    reroll_offer = staticmethod(health.reroll_offer)
    reroll_kept = staticmethod(health.reroll_kept)
    spend_benny = staticmethod(health.spend_benny)
    act = staticmethod(turns.act)

    # -- the fight's books: actions taken, movement spent, who a withdrawal provokes

    after_attack = staticmethod(turns.after_attack)
    movement_left = staticmethod(turns.movement_left)
    move = staticmethod(turns.move)
    badges = staticmethod(health.badges)

    def out_of_fight(self, sheet: dict, state: dict | None = None, settings: dict | None = None) -> bool:
        """Incapacitated ("Incapacitation"): the one state that takes a character out of the fight."""
        return bool((sheet or {}).get("incapacitated"))

    move_allowance = staticmethod(movement.move_allowance)
    run = staticmethod(movement.run)
    move_cost = staticmethod(movement.move_cost)
    withdraw = staticmethod(movement.withdraw_attackers)

    def free_attack_weapon(self, sheet: dict) -> str | None:
        """The weapon a foe's free attack on a withdrawing token is made with (its ready melee weapon)."""
        return movement.free_attack_weapon(sheet)

    # -- range and cover

    def range_band(self, distance: float, weapon: dict) -> str | None:
        """The band's key as words (``"short"``, said "kurz" to a German reader)."""
        band = _attack.range_band(distance, weapon)
        return _attack.BAND_WORDS.get(band, band) if band else band

    cover_effect = staticmethod(_cover.cover_effect)

    # -- attacks, odds, results

    def attack(self, request: AttackRequest, dice: DiceSource) -> AttackResult:
        """An attack; with ``options["template"]`` (small, medium, large, cone,
        line) an area attack. Options are listed on :func:`attack.attack`."""
        one_target(request)
        if request.options.get("template"):
            return templates.area_attack(request, dice)
        if rapid.is_split(request):
            return rapid.split_attack(request, dice)
        return _attack.attack(request, dice)

    def attack_options(self, request: AttackRequest) -> list[dict]:
        """Called Shot, Wild Attack, Aim, Rapid Attack, Unarmed Defender and every other option the
        attack reads (see :mod:`.options`)."""
        return _options.attack_options(request)

    area_attack = staticmethod(templates.area_attack)

    def odds(self, request: AttackRequest) -> dict:
        one_target(request)
        if rapid.is_split(request):
            return rapid.split_odds(request)
        return _odds.odds(request)

    def area_templates(self) -> list[dict]:
        """*Savage Worlds Combat System Reference*, "Area Effect Attacks": the Small, Medium and Large
        Blasts (radius 1", 2", 3") and the Cone and the Line, whose lengths the rules (and the game's
        settings) fix."""
        blasts = {"small": lambda r: say("Small Blast ({radius}\" radius)", radius=r),
                  "medium": lambda r: say("Medium Blast ({radius}\" radius)", radius=r),
                  "large": lambda r: say("Large Blast ({radius}\" radius)", radius=r)}
        return [{"key": k, "label": blasts[k](f"{r:g}"), "shape": "circle", "size": r}
                for k, r in data.BLAST_RADIUS.items()] + [
            {"key": "cone", "label": say("Cone"), "shape": "cone", "size": None},
            {"key": "line", "label": say("Line (1\" wide)"), "shape": "line", "size": None}]

    apply = staticmethod(health.apply)

    planner = suggest  # a foe's plans (#60)
