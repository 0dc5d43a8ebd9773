"""The command table: parse a command, authorize it, decide its events, evolve the state, replay a log.

The top of ``webapp.game``. Pure: no Flask, no database. ``decide`` checks a
command against the state and the sender's role and returns events (or raises
:class:`Rejected` with a message for the sender), handing each feature's
commands to its module; ``evolve`` applies one event to the state. The state is
whatever the events say, so replaying the log rebuilds it. The model the
commands act on is :mod:`webapp.game.core.model`; each feature module (tokens,
seats, combat, attacks, characters, templates, editor, maps, keys, undo...)
declares its commands, events, ``decide``, ``evolve`` and what it follows in its
``FEATURE``, and :mod:`webapp.game.features` lists them: the dispatch below is
built from that list once, at import.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

import rules
from rules.board import Board
from rules.dice import DiceSource, NeedDice, RandomDice, TableDice

from . import access
from .fight import combat, table_dice
from .planning import foeplay
from .bridge import fog
from .core import text
from .board import tokens
from .core.feature import type_of
from .features import FEATURES
from .core.model import Actor, Event, Game, LogEntry, Rejected
from .core import validation
from .core.text import N_

# --- commands ----------------------------------------------------------------

_MODELS = tuple(model for feature in FEATURES if not feature.apart for model in feature.commands)
Command = Annotated[Union[_MODELS], Field(discriminator="type")]


def _deciding() -> dict[type, tuple[Callable, bool, tuple[Callable, ...]]]:
    """Command model -> its decide, whether that rolls, and the steps other features add after it (in the list's
    order): what ``decide`` looks up once per command."""
    after: dict[str, list[Callable]] = {}
    for feature in FEATURES:
        for step in feature.follows:
            for kind in step.commands:
                after.setdefault(kind, []).append(step.decided)
    return {model: (decides, feature.dice, tuple(after.get(type_of(model), ())))
            for feature in FEATURES for model, decides in feature.decide.items()}


def _evolving() -> dict[str, tuple[Callable, ...]]:
    """Event type -> what applies it, in order: the steps other features put first, its own feature's ``evolve``
    (each type has one), the steps that follow it."""
    first: dict[str, list[Callable]] = {}
    then: dict[str, list[Callable]] = {}
    for feature in FEATURES:
        for step in feature.follows:
            for kind in step.events:
                (first if step.first else then).setdefault(kind, []).append(step.evolved)
    out: dict[str, tuple[Callable, ...]] = {}
    for feature in FEATURES:
        for kind in feature.events:
            if kind in out:
                raise ValueError(f"event type {kind!r} is declared by two features")
            out[kind] = (*first.get(kind, ()), feature.evolve, *then.get(kind, ()))
    return out


_DECIDE = _deciding()
_EVOLVE = _evolving()
_command_adapter: TypeAdapter[Any] = TypeAdapter(Command)
#: each command type's model (the fuzz test and the form endpoint read their fields)
COMMAND_MODELS: dict[str, type[BaseModel]] = {type_of(c): c for c in _MODELS}
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


def new_game_events(name: str, system: str, board: Board, zones: list[dict] | None = None,
                    made_by: str | None = None) -> list[Event]:
    """``made_by``: "device" for a game made by another device than the server's own machine (not the room's
    organiser either: webapp/web/lobby.py), which room mode never offers as a template (#57)."""
    data = {"name": name, "system": system, "board": board.to_dict()}
    if zones is not None:
        data["zones"] = zones
    if made_by is not None:
        data["made_by"] = made_by
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
    goes into the events, so the log never needs it again. Each feature's
    decide checks who may; the steps other features declare they follow
    (a fight judges a move, an attack's Soak and reroll offers) come after.
    A command the table does not decide (a question, undo) is a KeyError.
    With the table's own dice (#59, ``table_dice``) a roll made at the table stops the command (``roll_asked``) until
    ``enter_dice`` decides it again with the faces; while one waits, what could change its outcome is refused.
    """
    authorize(game, cmd, actor)
    foeplay.check(game, cmd, actor)  # a step of the runner that plays the foes, while it still does (#60)
    return foeplay.touched(game, cmd, actor, _with_dice(game, cmd, actor, dice))  # the GM's hand stops it


def _with_dice(game: Game, cmd: Any, actor: Actor, dice: DiceSource | None) -> list[Event]:
    if game.pending_roll:
        table_dice.waiting(game, cmd.type, actor)
    if isinstance(cmd, table_dice.EnterDice):
        return _entered(game, cmd, actor, dice or RandomDice())
    if game.dice.get("mode") != "table":  # the app's dice (the default): as before
        return _decided(game, cmd, actor, dice)
    if isinstance(cmd, table_dice.SetDice) and game.pending_roll:
        events = _decided(game, cmd, actor, dice)
        after = table_dice.rolled_for_now(game, cmd, events)
        if after is not None:  # "the app rolls for me" while a roll of theirs waits: the app rolls it now (#70)
            roll = table_dice.EnterDice(type="enter_dice", roll_id=game.pending_roll["id"], app=True)
            return [*events, *_entered(game, roll, actor, dice or RandomDice(), after)]
        return events
    source = TableDice([], lambda roller: table_dice.table_rolls(game, roller), dice or RandomDice())
    try:
        return _decided(game, cmd, actor, source)
    except NeedDice as need:
        return [table_dice.asked(game, cmd, actor, need)]


def _decided(game: Game, cmd: Any, actor: Actor, dice: DiceSource | None) -> list[Event]:
    decides, rolls, after = _DECIDE[type(cmd)]
    events = decides(game, cmd, actor, dice or RandomDice()) if rolls else decides(game, cmd, actor)
    for step in after:
        events = step(game, cmd, actor, events, dice)
    return events


def _entered(game: Game, cmd: Any, actor: Actor, dice: DiceSource, settings: dict | None = None) -> list[Event]:
    """The faces of a roll the table was asked for (#59): the waiting command decided again from the start, as its
    sender, with every roll made so far and these faces (or the app's roll of them); it asks the next roll, or
    its events come with the roll settled. ``settings``: who rolls what, if not the game's dice settings now (a
    ``set_dice`` that gives the app a player's dice, in the same step)."""
    pending = table_dice.check_entry(game, cmd, actor)
    made = [list(f) for f in pending["made"]]
    entered = list(pending.get("entered", [])) + [False] * (len(made) - len(pending.get("entered", [])))
    if cmd.app:
        made.append(dice.roll(pending["roll"]["dice"]).faces)
        entered.append(False)
    else:
        made.append(list(cmd.faces))
        entered.append(True)
    original = parse_command(pending["command"])
    sender = Actor(pending["sender"]["role"], pending["sender"].get("player_id"))
    source = TableDice(made, lambda roller: table_dice.table_rolls(game, roller, settings), dice)
    try:
        events = _decided(game, original, sender, source)
    except NeedDice as need:
        return [table_dice.asked(game, original, sender, need, {"entered": entered})]
    entered += [False] * (len(source.made) - len(entered))
    return [*events, Event("roll_settled", {"id": pending["id"], "made": source.made, "entered": entered})]


def ack(events: list[Event], actor: Actor) -> dict:
    """What the sender hears back besides ok and seq: a roll's result, a new character's id."""
    out = combat.ack(events, actor)
    for event in events:
        if event.type == "roll_asked":  # the command waits for a roll made at the table (#59)
            out["pending_roll"] = table_dice.ack(event, actor)  # its numbers: its roller's player's, the GM's (#72)
        if event.type == "character_added":
            out["character_id"] = event.data["character"]["id"]
    return out


def _log(game: Game, text: str, audience: str = "all", detail: dict | None = None) -> None:
    game.log.append(LogEntry(seq=game.seq, text=text, audience=audience, detail=detail))
    del game.log[: -Game.LOG_KEEP]


def evolve(game: Game, event: Event) -> None:
    """Apply one accepted event; the only place the state changes."""
    game.seq += 1
    steps = _EVOLVE.get(event.type)
    if steps is None:
        raise ValueError(f"unknown event type {event.type!r}")
    log = functools.partial(_log, game)
    for step in steps:
        step(game, event, log)
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
