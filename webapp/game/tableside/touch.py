"""The touch table: the GM lets the table screen take touches, so anyone at the table drags tokens on the TV.

Off by default: while it is off the screen key moves nothing (``access.check_command`` refuses its
``move_token`` and its drag previews). On, the screen moves any token it shows (a hidden token is not on
it, and with fog only those the players together see), through the very checks a move of the GM's goes
through (``tokens.decide``: the map as the table knows it, walls, closed doors, taken squares; in a fight
``combat.judge_move``: whose turn, the allowance), but without the GM's way out: the screen cannot force a
move (``table.authorize``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..core.feature import Feature
from ..core.model import Actor, Event, Game, Rejected
from rules.text import say
from ..core.text import N_


class SetScreenTouch(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["set_screen_touch"]
    enabled: bool


COMMANDS = (SetScreenTouch,)
EVENTS = ("screen_touch_set",)


def decide(game: Game, cmd: Any, actor: Actor) -> list[Event]:
    if game.screen_touch == cmd.enabled:
        raise Rejected(N_("touch on the table screen is already on") if cmd.enabled
                       else N_("touch on the table screen is already off"))
    return [Event("screen_touch_set", {"enabled": cmd.enabled})]


def evolve(game: Game, event: Event, log) -> None:
    game.screen_touch = bool(event.data["enabled"])
    log(say("the table screen now takes touches: anyone at the table may move tokens on it") if game.screen_touch
        else say("the table screen no longer takes touches"), "all", None)


FEATURE = Feature("touch", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve)
