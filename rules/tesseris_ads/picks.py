"""What an attack's options name, read the same way by the attack and by its card (*Tesseris Combat*): the
weapon's usual action, a Called Shot's aim, a defense with its reactions ("dodge+prone"), how many opponents a
Spray 'n Pray may hit. Pure helpers, below both ``attack`` and ``options`` (which import them at the top)."""

from __future__ import annotations

from ..system import RuleError
from ..text import say
from .data import LOCATION_WORDS
from .sheet import num

#: "Called Shot": "the head or similarly vital area"
CALLED_SHOT_LOCATIONS = ("head", "torso")
#: the reactions a defense may take first ("dodge+prone"), as a refusal names them
DEFENSE_REACTIONS = {"prone": say("dropping prone"), "cover": say("taking cover")}


def default_action(weapon: dict, options: dict | None = None) -> str:
    """A melee weapon's Melee Strike, a ranged one's Straight Shot; a free attack a move provoked
    (``free_attack``, from the rules' due list) is a Reaction Strike ("Movement Actions": "Provokes
    an Reactive Attack")."""
    if weapon.get("kind", "melee") == "melee":
        return "reaction_strike" if (options or {}).get("free_attack") else "melee_strike"
    return "straight_shot"


def spray_most(weapon: dict) -> int:
    """The most opponents a Spray 'n Pray may hit: "a character may not hit more opponents than
    bullets expended by firing on Full Auto" (the weapon's Full Auto rate, less if fewer rounds
    are left)."""
    rof = weapon.get("rof") or []
    most = num(rof[2]) if len(rof) > 2 else 0
    if weapon.get("ammo") is not None:
        most = min(most, num(weapon["ammo"]))
    return max(1, most)


def check_location(action, location: str) -> None:
    """A Called Shot aims at "the head or similarly vital area" ("Ranged Attack Actions")."""
    if action.key == "called_shot" and location not in CALLED_SHOT_LOCATIONS:
        raise RuleError(say("Called Shot: at the head or a similarly vital area (Ranged Attack Actions, 'Called Shot'), "
                            "not the {location}", location=LOCATION_WORDS.get(location, location)))


def split_defense(value: str | None) -> tuple[str | None, list[str]]:
    """A defense choice as ``plan_attack`` reads it: "dodge+prone" is a Dodge with a Drop Prone
    reaction before it."""
    if not value or "+" not in str(value):
        return value, []
    base, *mods = str(value).split("+")
    unknown = [m for m in mods if m not in DEFENSE_REACTIONS]
    if unknown:
        raise RuleError(say("unknown defense reaction {value}: {known}", value=repr(unknown[0]), known=", ".join(DEFENSE_REACTIONS)))
    return base, mods
