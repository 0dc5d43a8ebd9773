"""A side that has lost most of its number falls back or surrenders (#67): the GM's setting, off by default.

The setting (``Game.morale["setting"]``): ``off`` (the foes fight on), ``fall_back`` or ``surrender``; the GM's
command ``set_morale``, its event ``morale_set`` (the GM's line; the JSON state's ``morale`` is the GM's alone, as the
tactics are). It is the game's own, not a rule system's ``default_settings``: no rule document says when foes give up
(it reads no rule, the same in all five systems), it is how the GM means to play the foes, and it is the GM's secret,
where the rules settings are shown to all and their changes said to all.

The foes' side is broken (:func:`broken`) when the GM's foes that were in the fight when it began (``started``, kept
as the fight starts) have lost more than half of that number: down by their system's ``out_of_fight``, yielded, or
taken off the map (none of them stands, ``fighting.stands``). Then each standing foe's plans
(``suggestions.reckon``): fall back, only withdrawals, the cowardly tactic's own (away from every foe, on zones a
zone farther from every foe, or none), their why line the side's loss (:func:`said`); surrender, one plan of kind
``surrender`` whose step is the GM's command ``surrender``: its event ``surrendered`` marks the foe as having yielded
(``Token.yielded``; in the log and the replay, taken back by undo as any step of the story, the tokens being what undo
restores). A yielded token does not stand (``fighting.stands``): the fight's end counts it out, the attack card and
the plans pass it over, every screen shows it yielded (its badge, ``fighting.badges``); it has no plan of its own.
The fight's end, or a new fight, clears it.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from rules.text import say

from ..bridge.fighting import position_of, stands
from ..core import text
from ..core.feature import Feature, Follows
from ..core.model import Event, Rejected
from ..core.text import N_
from .foe_sandbox import is_foe, named_foe

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

MORALES = ("off", "fall_back", "surrender")
DEFAULT = "off"
#: what the GM's page and the log call each setting
WORDS = {"off": say("the foes fight on"), "fall_back": say("the foes fall back"),
         "surrender": say("the foes surrender")}


class SetMorale(BaseModel):
    """What the GM's foes do once their side has lost most of its number (#67): fight on, fall back or surrender."""

    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["set_morale"]
    morale: Literal["off", "fall_back", "surrender"]


class Surrender(BaseModel):
    """The GM's foe yields (#67): it is out of the fight."""

    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    type: Literal["surrender"]
    token_id: text.Id


def setting(game: "Game") -> str:
    return game.morale.get("setting") or DEFAULT


@dataclass(frozen=True)
class Broken:
    """What the side's loss means for one foe: ``mode`` ``fall_back``, ``surrender``, or ``yielded`` (it has yielded
    already); ``lost`` of ``started``."""

    mode: str
    lost: int = 0
    started: int = 0

    @property
    def ends(self) -> bool:
        """Whether this is the foe's only plan (a surrender), or it has none (yielded): nothing else is reckoned."""
        return self.mode != "fall_back"

    def plans(self, game: "Game", token: "Token") -> dict:
        """The plans of a foe that surrenders now (one), or has yielded (none, and why)."""
        if self.mode == "yielded":
            return {"plans": [], "none": say("{name} has yielded", name=token.name)}
        why = say("the foes have lost {lost} of {n}: it surrenders", lost=self.lost, n=self.started)
        at = position_of(game, token) if game.zones is not None else [token.x, token.y]
        return {"plans": [{"summary": say("Surrender"), "steps": [{"type": "surrender", "token_id": token.id}],
                           "target": None, "weapon": None, "options": {}, "to": at, "hit": None, "effect": 0.0,
                           "down": None, "effect_unit": None, "why": why, "kind": "surrender"}]}


def broken(game: "Game", token: "Token") -> Broken | None:
    """For the GM's foe ``token``: ``yielded`` when it has yielded; else, with the setting on and the foes' side down
    by more than half of the number it began the fight with, what the setting says it does; else None."""
    if getattr(token, "yielded", False):
        return Broken("yielded")
    mode = setting(game)
    if mode == "off" or not game.combat or not is_foe(token):
        return None
    started = game.morale.get("started") or [i for i in game.combat.get("order", []) if is_foe(game.tokens.get(i))]
    lost = sum(1 for i in started if (t := game.tokens.get(i)) is None or not stands(game, t))
    return Broken(mode, lost, len(started)) if 2 * lost > len(started) else None


def said(found: list[dict], low: Broken | None) -> list[dict]:
    """The plans, a falling back side's withdrawals saying why: the side's loss, not the cowardly tactic."""
    if low is None:
        return found
    why = say("the foes have lost {lost} of {n}: it falls back", lost=low.lost, n=low.started)
    return [{**p, "why": [why, *p["why"][1:]]} if p["kind"] == "withdraw" else p for p in found]


def nowhere(low: Broken | None):
    """Why a falling back foe has no plan: nowhere to go away from every foe; None when it does not fall back."""
    if low is None:
        return None
    return say("the foes have lost {lost} of {n}: nowhere to fall back to", lost=low.lost, n=low.started)


def _set(game: "Game", cmd: SetMorale, actor: "Actor") -> list[Event]:
    if cmd.morale == setting(game):
        raise Rejected(N_("that is the setting already"))
    return [Event("morale_set", {"morale": cmd.morale})]


def _surrender(game: "Game", cmd: Surrender, actor: "Actor") -> list[Event]:
    token = named_foe(game, cmd.token_id, N_("%(name)s is a player's token: only the GM's foes surrender"))
    if token.yielded:
        raise Rejected(N_("%(name)s has yielded already"), name=token.name)
    if not game.combat or token.id not in game.combat.get("order", []) or not stands(game, token):
        raise Rejected(N_("%(name)s is not standing in a fight"), name=token.name)
    return [Event("surrendered", {"token_id": token.id})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    if event.type == "morale_set":
        game.morale = {**game.morale, "setting": d["morale"]}
        log(say("Once most of the foes are down: {what}", what=WORDS[d["morale"]]), "gm", None)
        return
    token = game.tokens.get(d["token_id"])
    if token is not None:
        game.tokens[token.id] = dataclasses.replace(token, yielded=True)
        log(say("{name} yields", name=token.name), "gm" if token.hidden else "all", None)


def _fight_began(game: "Game", event: Event, log) -> None:
    """A fight begins: the GM's foes in it are the number the side begins with; no one has yielded yet."""
    _none_yielded(game, event, log)
    game.morale = {**game.morale, "started": [i for i in event.data["token_ids"] if is_foe(game.tokens.get(i))]}


def _none_yielded(game: "Game", event: Event, log) -> None:
    """A fight ends (or begins): those who yielded in it stand again."""
    for token in [t for t in game.tokens.values() if t.yielded]:
        game.tokens[token.id] = dataclasses.replace(token, yielded=False)


FEATURE = Feature("morale", (SetMorale, Surrender), decide={SetMorale: _set, Surrender: _surrender},
                  events=("morale_set", "surrendered"), evolve=evolve,
                  follows=(Follows(events=("combat_started",), evolved=_fight_began),
                           Follows(events=("combat_ended",), evolved=_none_yielded)))
