"""What a fight waits for before its turn moves on (#58): an attack's defense a player must still choose, a
Savage Worlds Soak roll still to answer. Next turn, an action that ends the turn and (for a defense) End fight
are refused meanwhile, naming whose answer it is to a sender who may see that token. The GM's foes' plans (#60)
wait too (:func:`plans_wait`): the attack is not booked until it is answered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules.text import say

from ..bridge import fog
from ..core.model import Rejected
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game


def no_defense_waiting(game: "Game", actor: "Actor") -> None:
    """Refuse to move the turn on or end the fight while an attack waits for its defense (issue 58): the answer
    would roll the old attack in another turn. The defender's name only for a sender who may see the token."""
    pending = game.pending_defense
    if not pending:
        return
    target = game.tokens.get(pending["target"])
    if target is not None and fog.may_see(game, actor, target):
        raise Rejected(N_("%(name)s has not chosen a defense yet: wait for it, or the GM calls the attack off (Call the attack off)"), name=target.name)
    raise Rejected(N_("a defense has not been chosen yet: wait for it, or the GM calls the attack off (Call the attack off)"))


def no_soak_waiting(game: "Game", actor: "Actor") -> None:
    """Refuse to move the turn on while a Soak roll waits (it is rolled when the Wounds are taken, #58), as for a
    waiting defense; the fight's end withdraws it instead (webapp/game/fight/soak.py)."""
    for target in (game.tokens.get(o["target"]) for o in game.pending_soak):
        if target is not None and fog.may_see(game, actor, target):
            raise Rejected(N_("%(name)s has not answered the Soak roll yet: Spend a Benny and soak, or Take the Wounds "
                              "(the GM may answer for anyone)"), name=target.name)
    if game.pending_soak:
        raise Rejected(N_("a Soak roll has not been answered yet (the GM may answer for anyone)"))


def plans_wait(game: "Game"):
    """What the GM's foes' plans (#60) wait for, in words (the GM's: every name said), or None: an attack waiting for
    its defense ("Orc's attack waits for Ann's defense"), a Soak roll not answered yet, a roll waiting for the
    table's dice (#59). Meanwhile the attack is not booked (the rules have not rolled it: plans reckoned now would
    offer it again) and no command of a plan would be taken (``no_defense_waiting``, the table's ``waiting``)."""
    def name(token_id) -> str:
        token = game.tokens.get(token_id or "")
        return token.name if token is not None else "?"

    pending = game.pending_defense
    if pending:
        return say("{attacker}'s attack waits for {target}'s defense", attacker=name(pending.get("attacker")),
                   target=name(pending.get("target")))
    if game.pending_soak:
        return say("{name}'s Soak roll waits for an answer", name=name(game.pending_soak[0].get("target")))
    rolling = game.pending_roll
    if rolling:
        from .table_dice import words  # the table's dice (#59) import the game's commands: read here only
        roll = rolling.get("roll") or {}
        if roll.get("roller") in game.tokens:
            return say("{name}'s roll waits for the table's dice: {purpose}", name=name(roll.get("roller")),
                       purpose=words(roll.get("purpose")))
        return say("A roll waits for the table's dice: {purpose}", purpose=words(roll.get("purpose")))
    return None
