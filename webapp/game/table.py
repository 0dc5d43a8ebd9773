"""The command table: parse a command, authorize it, decide its events, evolve the state, replay a log.

The top of ``webapp.game``. Pure: no Flask, no database. ``decide`` checks a
command against the state and the sender's role and returns events (or raises
:class:`Rejected` with a message for the sender), handing each feature's
commands to its module; ``evolve`` applies one event to the state. The state is
whatever the events say, so replaying the log rebuilds it. The model the
commands act on is :mod:`webapp.game.model`; each feature module (tokens,
seats, combat, attacks, characters, templates, editor, maps, keys, undo) has
its commands (``COMMANDS``), its events (``EVENTS``), ``decide`` and ``evolve``.
"""

from __future__ import annotations

import functools
import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

import rules
from rules.board import Board
from rules.dice import DiceSource, RandomDice

from . import (access, attacks, characters, combat, editor, fog, handouts, keys, lighting, maps, screenview, seats,
               recap, reroll, safety, soak, templates, text, tokens, touch, undo)
from .model import Actor, Event, Game, LogEntry, Rejected, bump_counter
from . import validation
from .text import N_

# --- commands ----------------------------------------------------------------

_MODELS = (*tokens.COMMANDS, *seats.COMMANDS, undo.Undo, *combat.COMMANDS, *combat.QUERIES, *attacks.COMMANDS,
           *soak.COMMANDS, *reroll.COMMANDS, *characters.COMMANDS, *templates.COMMANDS, *editor.COMMANDS, *maps.COMMANDS,
           *touch.COMMANDS, *screenview.COMMANDS, *recap.COMMANDS, *lighting.COMMANDS, *handouts.COMMANDS,
           *safety.COMMANDS)
Command = Annotated[Union[_MODELS], Field(discriminator="type")]
#: the feature modules whose commands are decided from the game and the actor alone (the others need dice,
#: or are a token's, judged by the rules in a fight: see ``decide``)
_DECIDERS = (characters, templates, editor, maps, lighting, seats, touch, screenview, handouts, recap, safety)
#: event type -> the feature module whose ``evolve(game, event, log)`` applies it (each type has one)
_EVOLVERS = {kind: feature for feature in (maps, templates, lighting, keys, tokens, seats, touch, screenview, handouts,
                                                recap, safety)
             for kind in feature.EVENTS}
_command_adapter: TypeAdapter[Any] = TypeAdapter(Command)
#: each command type's model (the fuzz test and the form endpoint read their fields)
COMMAND_MODELS: dict[str, type[BaseModel]] = {c.model_fields["type"].annotation.__args__[0]: c for c in _MODELS}
COMMAND_TYPES = tuple(COMMAND_MODELS)


def parse_command(payload: Any) -> Any:
    """A typed command from a JSON payload, or Rejected with a readable reason."""
    if isinstance(payload, text.TooDeep):
        raise Rejected(text.too_deep_message())
    if not isinstance(payload, dict):
        raise Rejected(N_("a command must be a JSON object with a 'type'"))
    text.check_payload(payload)
    kind = payload.get("type")
    if not isinstance(kind, str) or kind not in COMMAND_TYPES:
        shown = repr(kind) if isinstance(kind, str) and len(kind) <= 40 else "that"
        raise Rejected(N_("unknown command type %(type)s; expected one of: %(types)s"), type=shown,
                       types=", ".join(COMMAND_TYPES))
    try:
        return _command_adapter.validate_python(payload)
    except ValidationError as exc:
        raise validation.refused(exc, _field, most=3) from None


def from_form(fields: dict[str, str]) -> dict:
    """A command from a plain form's fields: every value is text there, so the fields the command's model
    wants as a whole number or a yes/no are converted here, explicitly (parsing itself is strict).
    A value that does not convert stays text, and the model refuses it with the field's name."""
    model = COMMAND_MODELS.get(fields.get("type"))
    if model is None:
        return dict(fields)
    payload: dict[str, Any] = {}
    for name, raw in fields.items():
        info = model.model_fields.get(name)
        kinds = _base_types(info.annotation) if info is not None else set()
        value: Any = raw
        if bool in kinds and str not in kinds and raw.strip().lower() in _YES_NO:
            value = _YES_NO[raw.strip().lower()]
        elif int in kinds and str not in kinds and re.fullmatch(r"[+-]?\d{1,9}", raw.strip()):
            value = int(raw.strip())
        payload[name] = value
    return payload


_YES_NO = {"true": True, "on": True, "yes": True, "1": True, "false": False, "off": False, "no": False, "0": False}


def _base_types(annotation: Any) -> set[type]:
    """The plain types an annotation accepts (``int | None`` -> {int, NoneType})."""
    import typing

    if annotation in (int, bool, str, float):
        return {annotation}
    found: set[type] = set()
    origin = typing.get_origin(annotation)
    if origin is Literal:
        return {type(a) for a in typing.get_args(annotation)}
    for arg in typing.get_args(annotation):
        if origin is Annotated and arg is not typing.get_args(annotation)[0]:
            continue
        found |= _base_types(arg)
    return found


def _field(loc: tuple) -> str:
    """A command's field as a refusal names it (``token_id``, ``sheet.weapons.0``): after the command's type."""
    return ".".join(str(p) for p in loc[1:] if p != "type") or str(loc[0] if loc else "")


def describe_validation(exc: ValidationError) -> str:
    """pydantic's English for a refused command (its first three errors)."""
    return str(validation.refused(exc, _field, most=3))


# --- events ------------------------------------------------------------------


def new_game_events(name: str, system: str, board: Board, zones: list[dict] | None = None) -> list[Event]:
    data = {"name": name, "system": system, "board": board.to_dict()}
    if zones is not None:
        data["zones"] = zones
    return [Event("game_created", data)]


def authorize(game: Game, cmd: Any, actor: Actor) -> None:
    """Who may send this command at all: the access matrix (webapp/game/access.py); then the finer checks."""
    access.check_command(game, cmd, actor)
    if isinstance(cmd, tokens.MoveToken) and cmd.force and actor.role != "gm":
        raise Rejected(N_("only the GM can force a move"))


def decide(game: Game, cmd: Any, actor: Actor, dice: DiceSource | None = None) -> list[Event]:
    """The events a command causes, or Rejected: the state is not touched here.

    No events (an unchanged Save) is an answer too: nothing is recorded.
    ``dice`` is the game's dice source for commands that roll; what it rolls
    goes into the events, so the log never needs it again. Fights, attacks
    and characters are decided in their own modules, which check who may.
    """
    authorize(game, cmd, actor)
    if isinstance(cmd, combat.COMMANDS):
        return combat.decide(game, cmd, actor, dice or RandomDice())
    if isinstance(cmd, (attacks.Attack, attacks.ChooseDefense)):
        events = soak.with_offers(game, attacks.decide(game, cmd, actor, dice or RandomDice()))
        return reroll.with_offer(game, cmd, actor, events)
    if isinstance(cmd, soak.COMMANDS):
        return soak.decide(game, cmd, actor, dice or RandomDice())
    if isinstance(cmd, reroll.COMMANDS):
        return reroll.decide(game, cmd, actor, dice or RandomDice())
    for feature in _DECIDERS:
        if isinstance(cmd, feature.COMMANDS):
            return feature.decide(game, cmd, actor)
    events = tokens.decide(game, cmd, actor)
    if isinstance(cmd, tokens.MoveToken) and events and not cmd.force:
        try:
            events = combat.judge_move(game, events, dice or RandomDice())  # in a fight the rules count the move
        except Rejected as exc:
            if actor.role == "gm" and exc.code is None:
                # not its turn, past its allowance: the GM may rule otherwise, as with walls ("Move anyway")
                exc.code = "fight_rules"
            raise
    return events


def ack(events: list[Event], actor: Actor) -> dict:
    """What the sender hears back besides ok and seq: a roll's result, a new character's id."""
    out = combat.ack(events, actor)
    for event in events:
        if event.type == "character_added":
            out["character_id"] = event.data["character"]["id"]
    return out


def _log(game: Game, text: str, audience: Literal["all", "gm"] = "all", detail: dict | None = None) -> None:
    game.log.append(LogEntry(seq=game.seq, text=text, audience=audience, detail=detail))
    del game.log[: -Game.LOG_KEEP]


def evolve(game: Game, event: Event) -> None:
    """Apply one accepted event; the only place the state changes."""
    game.seq += 1
    d = event.data
    kind = event.type
    log = functools.partial(_log, game)
    if kind in reroll.ENDS_OFFER:  # the game moved on: a Benny reroll is offered right after the attack only
        game.pending_reroll = None
    if kind in combat.EVENTS:
        combat.evolve(game, event, log)
    elif kind in characters.EVENTS:
        characters.evolve(game, event, log)
        if kind == "character_added":
            bump_counter(game, d["character"]["id"])
    elif kind in attacks.EVENTS:
        attacks.evolve(game, event, log)
        if kind == "attack_resolved":
            soak.evolve(game, event, log)
            reroll.evolve(game, event, log)
    elif kind in soak.EVENTS:
        soak.evolve(game, event, log)
    elif kind in reroll.EVENTS:
        reroll.evolve(game, event, log)
    elif kind in _EVOLVERS:
        _EVOLVERS[kind].evolve(game, event, log)
    elif kind in editor.EVENTS:
        editor.evolve(game, kind, d, log)
    elif kind == "undone":
        undo.evolve(game, event, log)
    elif kind == "game_created":
        game.name, game.system = d["name"], d["system"]
        game.board = Board.from_dict(d["board"])
        game.zones = d.get("zones")
        maps.first_map(game)
    else:
        raise ValueError(f"unknown event type {kind!r}")
    fog.remember(game)


def empty_game(game_id: str) -> Game:
    """The state before the first event (game_created fills it in)."""
    return Game(id=game_id, name="", system="", board=Board(1, 1))


def replay(game_id: str, events: list[Event], start: Game | None = None) -> Game:
    game = start or empty_game(game_id)
    for event in events:
        evolve(game, event)
    return game


def system_of(game: Game):
    return rules.get(game.system)
