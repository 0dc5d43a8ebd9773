"""The X-card (issue #35): anyone at the table stops a scene without saying why, and nobody learns who.

Any player taps the X-card on their phone: the scene is paused (the table screen covers the map with a
calm card, the GM's page says someone tapped it, every phone says the table is paused), until the GM
resumes. The pause is state (a screen that reconnects still shows it) and an event in the log, but neither
names anyone: ``decide`` never reads the sender, the events carry no data, no log line is written, and
every audience of one kind is sent the same fragment, the tapping phone included. A second tap while paused
changes nothing. How often one seat may tap is limited in the hub's memory only (``webapp.live.hub``).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..core.feature import Feature
from ..core.model import Actor, Event, Game, Rejected
from ..core.text import N_


class XCard(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["x_card"]


class ResumeScene(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["resume_scene"]


COMMANDS = (XCard, ResumeScene)
EVENTS = ("scene_paused", "scene_resumed")
#: commands whose sender is kept nowhere: not in an event, not beside one (a command id remembered per seat
#: for exactly-once answers must not be kept for these), not in a log line
ANONYMOUS = frozenset({"x_card"})


def decide(game: Game, cmd: Any, actor: Actor) -> list[Event]:
    if isinstance(cmd, XCard):
        return [] if game.paused else [Event("scene_paused", {})]  # paused already: heard, nothing new
    if not game.paused:
        raise Rejected(N_("the scene is not paused"))
    return [Event("scene_resumed", {})]


def evolve(game: Game, event: Event, log) -> None:
    # no log line: the game's story does not keep its pauses (and the GM's notice and the screen's card say it)
    game.paused = event.type == "scene_paused"


#: a seat taps the X-card at most twice a minute (a pause, resumed, and one more); who tapped is kept nowhere, not
#: even its command id
X_CARD_TAPS = (2, 60.0, N_("You tapped the X-card a moment ago: the GM has it. Tap again in a minute if you need to."))
FEATURE = Feature("safety", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve,
                  rates={XCard: X_CARD_TAPS}, anonymous=ANONYMOUS)
