"""What a game feature declares: its commands, its events, how it decides and evolves them, and what it follows.

Each feature module (tokens, combat, attacks, soak...) ends with one ``FEATURE``; :mod:`webapp.game.features`
lists them, and the command table (:mod:`webapp.game.table`) builds its dispatch from that list once, at import.
What a command or an event needs elsewhere is kept where it is read, and checked against the list by
tests/unit/test_feature_registry.py: a command's row in the access matrix (``access.COMMANDS``), its audience rule
(``audience.COMMANDS``), its undo rule (``undo.COMMANDS``); an event's screen parts (``webapp.live.screens.parts.BY_EVENT``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel


@dataclass(frozen=True)
class Follows:
    """A step one feature adds to another's, so the other need not know it (the attack -> soak -> reroll chain).

    ``decided(game, cmd, actor, events, dice)`` gives the events as they go on after a command named in ``commands``
    was decided (``dice``: the caller's, None for the game's own); ``evolved(game, event, log)`` is applied with an
    event named in ``events``, after the event's own feature (``first``: before it). Steps of several features run in
    the order of the features' list."""

    commands: tuple[str, ...] = ()
    decided: Callable[..., list] | None = None
    events: frozenset[str] | tuple[str, ...] = ()
    evolved: Callable[..., None] | None = None
    first: bool = False


@dataclass(frozen=True)
class Feature:
    """One feature as the command table sees it.

    ``commands``: its command models, in the table's union (``table.parse_command``) unless ``apart`` (the keys and
    the replay are parsed and served by the hub on paths of their own). ``decide``: command model -> its decide,
    ``(game, cmd, actor)``, or ``(game, cmd, actor, dice)`` with ``dice``; a command with none is answered outside the
    table (a question, undo). ``events``: the event types it records, each applied by ``evolve(game, event, log)``."""

    name: str
    commands: tuple[type[BaseModel], ...] = ()
    decide: Mapping[type[BaseModel], Callable[..., list]] = field(default_factory=dict)
    dice: bool = False
    events: tuple[str, ...] = ()
    evolve: Callable[[Any, Any, Callable], None] | None = None
    follows: tuple[Follows, ...] = ()
    apart: bool = False


def type_of(model: type[BaseModel]) -> str:
    """A command model's ``type`` (``MoveToken`` -> ``"move_token"``)."""
    return model.model_fields["type"].annotation.__args__[0]
