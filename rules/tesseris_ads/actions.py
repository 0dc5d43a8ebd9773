"""Tesseris's own actions beyond moving and attacking: sword- and gunpoint, the
social actions' statuses, and what the non-move, non-attack actions do to a
combatant's state (*Tesseris Combat*, "Swordpoint & Gunpoint", "Social Combat
Actions", "Miscellaneous Actions", "Defensive Actions").

The action catalogue itself (ticks, modifiers) is the table ``data.ACTIONS``.
"""

from __future__ import annotations

from ..grid import cell_steps
from ..system import Combatant, RuleError, RuleNotImplemented
from ..text import say
from .data import ACTIONS
from .sheet import weapon as sheet_weapon
from .status import escalate, reduce_status


def _adjacent(a, b) -> bool:
    return cell_steps(a, b) == 1


def can_initiate_swordpoint(initiator: Combatant, defender: Combatant, conditions: list[str], weapon_key: str | None = None) -> bool:
    """Whether sword- or gunpoint may begin ("Initiating Swordpoint or Gunpoint"): next to
    the defender, threatening with a weapon (not unarmed), and one condition met:
    unaware, helpless, unable to resist, distracted, or unarmed without Martial Artist."""
    if initiator.position is not None and defender.position is not None and not _adjacent(tuple(initiator.position), tuple(defender.position)):
        raise RuleError(say("the initiator must be next to the defender"))
    w = sheet_weapon(initiator.sheet, weapon_key)
    if w.get("name", "").lower() == "unarmed":
        raise RuleError(say("sword- or gunpoint needs a weapon (unarmed martial artists do not count)"))
    allowed = {"unaware", "helpless", "unable_to_resist", "distracted", "unarmed"}
    given = set(conditions) & allowed
    if "unarmed" in given:
        has_weapon = bool(defender.sheet.get("weapons"))
        martial = any("martial artist" in str(f).lower() for f in defender.sheet.get("feats") or [])
        if has_weapon or martial:
            given.discard("unarmed")
    if not given:
        raise RuleError(say("the defender is ready to fight: none of the conditions for sword- or gunpoint is met"))
    return True


# -- social actions: tick costs and the statuses they move ("Social Combat Actions") --

SOCIAL_CHAINS = {k: a.extra["status_chain"] for k, a in ACTIONS.items() if "status_chain" in a.extra}


def social_status(statuses: list | None, action: str, source: str | None = None) -> tuple[list[dict], str]:
    """A successful Charm or Intimidate: the next status of its chain (Attracted, Enticed,
    Enthralled; Frightened, Terrified, Fleeing). Whether it succeeds is social combat,
    which this chapter does not give: the GM decides and the app applies the status."""
    if action not in SOCIAL_CHAINS:
        raise RuleNotImplemented(say("Tesseris: the status {action} applies is the GM's choice",
                                     action=ACTIONS[action].name if action in ACTIONS else action))
    return escalate(statuses, SOCIAL_CHAINS[action], source)


def rally(statuses: list | None, name: str) -> list[dict]:
    """Rally lowers one status of an ally by a level ("Social Combat Actions")."""
    return reduce_status(statuses, name)


def per_three(successes: int) -> int:
    """+1 per 3 successes: Ego from Motivate and Psych Up, re-rolls from Aid Ally,
    bonus successes from Grapple Assist ("Social Combat Actions", "Miscellaneous Actions")."""
    return max(0, successes) // 3


def social_combat(*_args, **_kwargs):
    """Social combat rolls are in another chapter of the rules."""
    raise RuleNotImplemented(say("Tesseris: social combat rolls are not in the combat chapter; the GM resolves them"))


def clear_jam(state: dict, weapon_key: str | None = None) -> dict:
    """The state after Clear Jam (2 ticks, paid by the caller): the weapon may fire again
    (*Tesseris Combat*, "Weapon Jams": "the weapon may not be fired again until the jam is
    cleared (2 Ticks)"). Without a weapon named, the one jammed weapon."""
    jammed = list(state.get("jammed") or [])
    if not jammed:
        raise RuleError(say("no jammed weapon to clear"))
    if weapon_key is None:
        if len(jammed) > 1:
            raise RuleError(say("which weapon? jammed: {weapons}", weapons=", ".join(jammed)))
        weapon_key = jammed[0]
    if weapon_key not in jammed:
        raise RuleError(say("{weapon} is not jammed", weapon=weapon_key))
    return {**state, "jammed": [w for w in jammed if w != weapon_key]}

