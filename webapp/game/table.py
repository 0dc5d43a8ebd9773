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
from rules.dice import DiceSource, RandomDice

from . import access
from .core import text, validation
from .core.feature import Deciding, type_of
from .core.model import Actor, Event, Game, LogEntry, Rejected
from .core.text import N_
from .features import ACKS, AFTER_EVENT, ASIDES, FEATURES, GUARDS, WRAPS, new_game_events  # noqa: F401

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


def authorize(game: Game, cmd: Any, actor: Actor) -> None:
    """Who may send this command at all: the access matrix (webapp/game/access.py)."""
    access.check_command(game, cmd, actor)


def aside(payload: Any) -> tuple[Any, dict]:
    """The payload without the fields features take aside (a plan's ``reckoned_at``, #67), and those fields."""
    taken: dict = {}
    if isinstance(payload, dict):
        for take in ASIDES:
            payload, more = take(payload)
            taken.update(more)
    return payload, taken


def decide(game: Game, cmd: Any, actor: Actor, dice: DiceSource | None = None, aside: dict | None = None,
           own=None) -> list[Event]:
    """The events a command causes, or Rejected: the state is not touched here.

    No events (an unchanged Save) is an answer too: nothing is recorded.
    ``dice`` is the game's dice source for commands that roll; what it rolls
    goes into the events, so the log never needs it again. Each feature's
    decide checks who may; the steps other features declare they follow
    (a fight judges a move, an attack's Soak and reroll offers) come after.
    Around it, what the features declare (#66, ``webapp.game.features``): the guards, given the fields taken
    ``aside``, then the wraps (the table's own dice decide a command again from its faces, the GM's hand turns Play
    the foes off). ``own``: the decision of a command the table does not decide itself, ``own(game, cmd, actor,
    dice)`` (undo's, with the game's log), in the same guards and wraps.
    A command the table does not decide (a question) is a KeyError.
    """
    authorize(game, cmd, actor)
    for guard in GUARDS:
        guard(game, cmd, actor, aside or {})
    step = own or _decided
    for wrap in reversed(WRAPS):  # the first in the list outermost
        step = functools.partial(_wrapped, wrap, step)
    return step(game, cmd, actor, dice)


def _wrapped(wrap, inner, game: Game, cmd: Any, actor: Actor, dice: DiceSource | None) -> list[Event]:
    return wrap(game, cmd, actor, dice, Deciding(inner, parse_command))


def _decided(game: Game, cmd: Any, actor: Actor, dice: DiceSource | None) -> list[Event]:
    decides, rolls, after = _DECIDE[type(cmd)]
    events = decides(game, cmd, actor, dice or RandomDice()) if rolls else decides(game, cmd, actor)
    for step in after:
        events = step(game, cmd, actor, events, dice)
    return events


def ack(events: list[Event], actor: Actor) -> dict:
    """What the sender hears back besides ok and seq: a roll's result, a new character's id (each feature's)."""
    out: dict = {}
    for answer in ACKS:
        out.update(answer(events, actor))
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
    for after in AFTER_EVENT:  # what the fog remembers
        after(game)


def settle(game: Game, payload: Any, actor: Actor, dice: DiceSource | None = None) -> list[Event]:
    """A command decided and applied at once, on a game nobody else reads (a forecast's run, #68): its events;
    Rejected as ``decide``."""
    events = decide(game, parse_command(payload), actor, dice)
    for event in events:
        evolve(game, event)
    return events


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
