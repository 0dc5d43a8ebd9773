"""Free attacks a move gives (Savage Worlds' Withdrawing from Melee, #58): the foe's controller rolls one
(an ``attack`` as ``combat.due`` names it, at the square the token left: :mod:`webapp.game.fight.aiming`) or waives it.

``waive_attack`` takes a free attack off ``combat.due``: the GM for anyone, a player for their own token's.
An attack the rules themselves owe (phase/TN's shots at the phase's end) is not a free attack and is not waived.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from rules.text import say

from ..bridge import fighting, fog
from ..core import text
from ..core.feature import Feature
from ..core.model import Actor, Event, Rejected
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Game, Token


def owed(game: "Game", system, foe_id: str, token: "Token") -> dict:
    """A free attack a move gives a foe. A withdrawal from melee (Savage Worlds, the system arming the foe:
    ``free_attack_weapon``; #58) is rolled at the square the token left (``from``: the move is applied before the
    foe rolls) with that weapon; a move into a suppression fire area (GURPS-lite) is shot where the token now
    stands, in the area, with the weapon the shooter picks."""
    due = {"attacker": foe_id, "target": token.id, "options": {"free_attack": True}}
    armed = getattr(system, "free_attack_weapon", None)
    if callable(armed):
        due["from"] = [token.x, token.y]
        weapon = armed(fighting.sheet_of(game, game.tokens[foe_id]))
        if weapon is not None:
            due["weapon"] = weapon
    return due


class WaiveAttack(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    type: Literal["waive_attack"]
    attacker: text.Id
    target: text.Id


COMMANDS = (WaiveAttack,)
EVENTS = ("free_attack_waived",)


def decide(game: "Game", cmd: WaiveAttack, actor: Actor) -> list[Event]:
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    attacker = game.tokens.get(cmd.attacker)
    if attacker is None or not fog.may_see(game, actor, attacker):
        raise Rejected(N_("no token %(id)s in this game"), id=repr(cmd.attacker))
    if actor.role == "player" and attacker.owner != actor.player_id:
        raise Rejected(N_("%(name)s is not yours"), name=attacker.name)
    due = (game.combat or {}).get("due", [])
    if not any(e.get("attacker") == cmd.attacker and e.get("target") == cmd.target
               and (e.get("options") or {}).get("free_attack") for e in due):
        raise Rejected(N_("%(name)s has no free attack to waive"), name=attacker.name)
    return [Event("free_attack_waived", {"attacker": cmd.attacker, "target": cmd.target})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    due = list(game.combat.get("due", []))
    for i, entry in enumerate(due):
        if entry.get("attacker") == d["attacker"] and entry.get("target") == d["target"] \
                and (entry.get("options") or {}).get("free_attack"):
            del due[i]
            break
    game.combat["due"] = due
    attacker, target = game.tokens.get(d["attacker"]), game.tokens.get(d["target"])
    secret = bool((attacker and attacker.hidden) or (target and target.hidden))
    log(say("{attacker} lets {target} withdraw: no free attack", attacker=attacker.name if attacker else "?",
            target=target.name if target else "?"), "gm" if secret else "all", None)


FEATURE = Feature("free_attacks", COMMANDS, decide={WaiveAttack: decide}, events=EVENTS, evolve=evolve)
