"""What a fight waits for before its turn moves on (#58), as the table's list of waits says it
(webapp/game/core/waits.py): an attack's defense a player must still choose, a Savage Worlds Soak roll still to
answer, a roll made at the table. Next turn, an action that ends the turn and (for a defense) End fight are refused
meanwhile, naming whose answer it is to a sender who may see that token. The GM's foes' plans (#60) wait too
(:func:`plans_wait`): the attack is not booked until it is answered."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bridge import fog
from ..core import waits
from ..core.model import Rejected

if TYPE_CHECKING:
    from ..core.model import Actor, Game


def held(game: "Game", actor: "Actor", moment: str) -> None:
    """Refuse ``moment`` ("turn": the turn moving on, "fight_end": the fight's end) while a wait holds it (issue 58:
    the answer would roll the old attack in another turn), by the first kind of wait in the list's order; whose
    answer it is named only to a sender who may see one of its tokens."""
    holding = waits.holding(game, moment)
    for kind in dict.fromkeys(w.kind for w in holding):
        for wait in (w for w in holding if w.kind is kind):
            token = game.tokens.get(wait.who or "")
            if token is not None and fog.may_see(game, actor, token):
                raise Rejected(kind.refusal, name=token.name)
        raise Rejected(kind.refusal_unseen)


def plans_wait(game: "Game"):
    """What the GM's foes' plans (#60) wait for, in words (the GM's: every name said), or None: an attack waiting for
    its defense ("Orc's attack waits for Ann's defense"), a Soak roll not answered yet, a roll waiting for the
    table's dice (#59), the first in the list's order. Meanwhile the attack is not booked (the rules have not rolled
    it: plans reckoned now would offer it again) and no command of a plan would be taken (``held``, the table's
    ``waiting``)."""
    def name(token_id) -> str | None:
        token = game.tokens.get(token_id or "")
        return token.name if token is not None else None

    for wait in waits.waits(game):
        return wait.kind.said(wait.entry, name)
    return None
