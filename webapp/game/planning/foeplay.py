"""Play the foes (#60): the GM's switch that plays each foe's best plan as its turn comes.

The switch is the GM's command ``play_foes`` ``{"on": bool}``; its event ``foes_played`` puts in the state
(``Game.foe_play``) whether it is on and, while on, the id of the one runner that plays (``runner``, made when the
switch goes on). The runner itself lives in the server process that decided the switch's ``on``
(``webapp/live/foes/foeplay.py``): it sends each step of a foe's best plan as the GM's command, with ``Actor.by`` set to
its id, so each step is judged, logged, shown and undoable as the GM's own. Here, pure, what the table decides:

- a step of a runner that is not the game's runner (the switch went off, or on again elsewhere since) is refused:
  one game never has two runners playing (``check``);
- any change the GM makes by hand while the switch is on turns it off ("when the GM touches anything":
  ``touched``), save an answer to what the table waits for (a defense, a Soak roll, a reroll offer, the table's
  dice), which lets the runner go on;
- ``next_step`` says what the runner does next: wait (a player's token's turn or shot, an answer only a player may
  give), roll a foe's attack the fight owes now (phase/TN's shots at a phase's end, a free attack), play the turn
  of the foe whose turn it is, or move the fight on where the round waits for the GM (``current`` None: phase/TN's
  declarations are done, Next turn resolves the phase); ``waits_for`` the waiting part of it;
- a command may name the state its plan was reckoned on (``reckoned_at``, the game's ``seq`` the plans carry): it
  is refused (``fresh``, code ``stale``) once anything else has happened since, so a plan reckoned for an older
  state is never played on a newer one, by the runner or by the GM's Do it (#67).

The state is the GM's alone (``audience.public_state`` leaves it out; the event's lines are the GM's): players and
the table screen see the foes move and attack, as if the GM played them by hand, and never a plan.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict

import rules
from rules.text import Say, pack, say, unpack

from ..bridge import fighting
from . import suggestions
from ..core import waits
from ..core.feature import Feature
from .foe_sandbox import is_foe
from ..core.model import Event, Rejected
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game

#: answers to what the table waits for: the GM may give them (for anyone) and the runner goes on
ANSWERS = frozenset({"choose_defense", "soak", "benny_reroll", "enter_dice", "call_off_roll"})
#: questions and views: nothing changes, the switch stays as it is
QUESTIONS = frozenset({"preview_attack", "reach", "replay", "replay_end"})

STOPPED = {
    "off": say("The GM stopped playing the foes"),
    "touched": say("The foes are no longer played: the GM took the table back"),
    "refused": say("The foes are no longer played: a step of a plan was refused"),
    "over": say("The foes are no longer played: the fight is over"),
}


class PlayFoes(BaseModel):
    """The GM's "play the foes" switch (#60)."""

    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["play_foes"]
    on: bool


def playing(game: "Game") -> str | None:
    """The id of the runner playing the foes, None while the switch is off."""
    return game.foe_play.get("runner") if game.foe_play.get("on") else None


def _decide(game: "Game", cmd: PlayFoes, actor: "Actor") -> list[Event]:
    if actor.by is not None:
        raise Rejected(N_("only the GM can do that"))
    if cmd.on:
        if playing(game):
            raise Rejected(N_("the foes are being played already"))
        if not game.combat:
            raise Rejected(N_("there is no fight on"))
        if not suggestions.reckoned(game):  # (a system or map with no plans yet: nothing to play)
            raise Rejected(N_("this game's foes have no plans (their rules or this map are not reckoned yet): "
                              "they cannot be played"))
        return [Event("foes_played", {"on": True, "runner": secrets.token_hex(6)})]
    if not playing(game):
        raise Rejected(N_("the foes are not being played"))
    return [stopped("off")]


def stopped(why: str, reason: BaseException | None = None, token_id: str | None = None) -> Event:
    """The switch turned off, and why: ``off`` (the GM's switch), ``touched`` (the GM's hand), ``refused`` (a
    step was refused: ``reason``, for the GM), ``over`` (the fight ended)."""
    data: dict[str, Any] = {"on": False, "why": why}
    if token_id is not None:
        data["token_id"] = token_id
    if reason is not None:
        data["reason"] = refusal(reason)
    return Event("foes_played", data)


def refusal(exc: BaseException) -> dict:
    """A refusal as the state keeps it: its English, and its message id with parameters, or its packed words, so
    the GM's page says it in the GM's language."""
    out: dict[str, Any] = {"text": str(exc)}
    message = exc.args[0] if exc.args else None
    if isinstance(message, Say):
        out["say"] = pack(message)
    elif getattr(exc, "msgid", None):
        params = {k: (pack(v) if isinstance(v, Say) else v) for k, v in (exc.params or {}).items()}
        if all(isinstance(v, (str, int, float, dict)) for v in params.values()):
            out["msgid"], out["params"] = exc.msgid, params
    return out


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    if d["on"]:
        game.foe_play = {"on": True, "runner": d["runner"]}
        log(say("The GM lets the foes play their turns"), "gm", None)
        return
    game.foe_play = {"on": False, **{k: d[k] for k in ("why", "reason", "token_id") if k in d}}
    log(STOPPED.get(d.get("why"), STOPPED["off"]), "gm", None)


def passed(game: "Game", event: Event, log) -> None:
    """A foe the runner found no plan for: the GM's line says why (the plans' ``none``, kept in the event as
    ``why``; an older event has none), and its turn ends next."""
    token = game.tokens.get(event.data["token_id"])
    if token is None:
        return
    why = unpack(event.data.get("why"))
    if why:
        log(say("{name} has no plan ({why}): its turn ends", name=token.name, why=why), "gm", None)
    else:
        log(say("{name} has no plan (no foe of its in reach, nothing to withdraw from): its turn ends",
                name=token.name), "gm", None)


def _evolve(game: "Game", event: Event, log) -> None:
    (passed if event.type == "foe_passed" else evolve)(game, event, log)


def check(game: "Game", cmd: Any, actor: "Actor") -> None:
    """A runner's step is judged only while it is the game's runner (decided before the step itself)."""
    if actor.by is not None and actor.by != playing(game):
        raise Rejected(N_("the foes are no longer played"))


def touched(game: "Game", cmd: Any, actor: "Actor", events: list[Event]) -> list[Event]:
    """The GM's own change while the foes are played turns the switch off, in the same step."""
    if (actor.role == "gm" and actor.by is None and events and playing(game)
            and cmd.type not in ANSWERS | QUESTIONS | {"play_foes"}):
        return [*events, stopped("touched")]
    return events


def next_step(game: "Game") -> tuple[str, Any]:
    """What the runner does next (#60, #67), and with what:

    - ``("answer", None)``: wait for a defense, a Soak roll, a player's reroll offer, a roll made at the table;
    - ``("shot", due)``: roll an attack the fight owes a foe now (``combat.due``: phase/TN's shots that came due
      at a phase's end, a free attack a move gave), ``due`` as the fight lists it;
    - ``("player", None)``: wait for a player's token's turn, or for a player's shot owed: it is fired before the
      phase resolves and before a foe declares in the next (phase/TN's *Combat Sequence*, "Initiative and Actions":
      what ends a phase resolves before the next phase's declarations);
    - ``("resolve", None)``: nobody's turn, nothing owed (phase/TN: the declarations are done): Next turn, as the
      GM would press it, moves the fight on (resolves the phase, opens the next);
    - ``("turn", token_id)``: the foe whose turn it is plays it."""
    if waits.waits(game):  # what the table waits for (webapp/game/core/waits.py)
        return "answer", None
    offer = game.pending_reroll  # a reroll offered to a foe of the GM's is let go: the runner's next step ends it
    if offer and not is_foe(game.tokens.get(offer.get("attacker", ""))):
        return "answer", None
    fight = game.combat or {}
    due = owed(game)
    for attack in due:
        if is_foe(game.tokens[attack["attacker"]]):
            return "shot", attack
    if due:  # a player's shot first: before the round moves on (Next turn would drop it), and before a foe declares
        return "player", None  # (phase/TN, "Initiative and Actions": a phase's shots resolve before the next's declarations)
    if not fight.get("current"):  # the round waits for the GM
        return "resolve", None
    current = game.tokens.get(fight["current"])
    if current is None or not is_foe(current):
        return "player", None
    return "turn", current.id


def waits_for(game: "Game") -> str | None:
    """What the runner waits for before it plays: ``"answer"`` (a defense, a Soak roll, a player's reroll offer,
    a roll made at the table), ``"player"`` (a player's token's turn, a player's shot); None when it has something
    to do (``next_step``)."""
    kind, _ = next_step(game)
    return kind if kind in ("answer", "player") else None


def guard(game: "Game", cmd: Any, actor: "Actor", aside: dict) -> None:
    """A runner's step while it is the game's runner (``check``), on the state its plan was reckoned on (``fresh``)."""
    check(game, cmd, actor)
    fresh(game, aside.get("reckoned_at"))


def aside(payload: dict) -> tuple[dict, dict]:
    """The ``reckoned_at`` a plan's step carries, taken off its payload (``reckoned_at``)."""
    payload, at = reckoned_at(payload)
    return payload, ({} if at is None else {"reckoned_at": at})


def wrap(game: "Game", cmd: Any, actor: "Actor", dice, deciding) -> list[Event]:
    """The GM's own change while the foes are played turns the switch off (``touched``)."""
    return touched(game, cmd, actor, deciding.decide(game, cmd, actor, dice))


def reckoned_at(payload: Any) -> tuple[Any, int | None]:
    """The payload without its ``reckoned_at`` (the game's ``seq`` a plan's step was reckoned at, #67), and that
    seq (None when there is none); Rejected when it is not a seq."""
    if not isinstance(payload, dict) or "reckoned_at" not in payload:
        return payload, None
    at = payload["reckoned_at"]
    if isinstance(at, bool) or not isinstance(at, int) or at < 0:
        raise Rejected(N_("reckoned_at: the seq a plan was reckoned at, a whole number from 0"))
    return {k: v for k, v in payload.items() if k != "reckoned_at"}, at


def fresh(game: "Game", at: int | None) -> None:
    """A plan's step is decided only on the state its plan was reckoned on (#67): once anything happened since
    (the GM's hand, a player's, a step of another plan), it is refused, code ``stale``, and the plans are asked
    again."""
    if at is not None and at != game.seq:
        raise Rejected(N_("this plan is out of date: the table changed since it was reckoned. Fresh plans are "
                          "reckoned for the turn as it is now"), code="stale")


def stands(game: "Game", token_id: str) -> bool:
    """Whether the foe whose plan is played still stands: one down in its own turn plays no more of it."""
    token = game.tokens.get(token_id)
    return token is not None and fighting.stands(game, token)


def missing(game: "Game") -> str | None:
    """Why this game's foes have no plans, for the GM's words beside where the plans and the switch would be
    (#67): ``"system"`` (a system without a planner), ``"map"`` (a map the system does not play on); None when they
    have plans (``suggestions.reckoned``: squares, hexes, and zones for a system that plays on zones)."""
    if suggestions.reckoned(game):
        return None
    if getattr(rules.get(game.system), "planner", None) is None:
        return "system"
    return "map"


def owed(game: "Game") -> list[dict]:
    """The attacks the fight owes now (``combat.due``: phase/TN's shots that came due at a phase's end, a free attack
    a move gave), of tokens still on the map at tokens still on it."""
    return [a for a in (game.combat or {}).get("due") or []
            if a.get("attacker") in game.tokens and a.get("target") in game.tokens]


def over(game: "Game") -> bool:
    """The fight has ended, or one side alone still stands (the last foe or the last hero down) and no shot is owed:
    phase/TN's shots of one length are simultaneous, so a shooter a shot of the same volley put down still fires its
    own (*Combat Sequence*, "Initiative and Actions"): the runner rolls a foe's, and waits for a player's, first.
    A volley that put the last of both sides down ends it too."""
    if not game.combat:
        return True
    if owed(game):
        return False
    standing = [t for i in game.combat.get("order", []) if (t := game.tokens.get(i)) and fighting.stands(game, t)]
    return not standing or fighting.no_foe_standing(game, standing)  # (those standing found once: a forecast asks often)


#: around every command: a runner's step judged while it plays and on a fresh plan, the GM's hand turning it off; its
#: runner (webapp/live/foes/foeplay.py) told of every commit
FEATURE = Feature("foeplay", (PlayFoes,), decide={PlayFoes: _decide}, events=("foes_played", "foe_passed"),
                  evolve=_evolve, guard=guard, aside=aside, wrap=wrap, starts="foe_players")
