"""What a game feature declares: its commands, its events, how it decides and evolves them, what it follows, and what
it does around every command (#66).

Each feature module (tokens, combat, attacks, soak...) ends with one ``FEATURE``; :mod:`webapp.game.features`
lists them, and the command table (:mod:`webapp.game.table`) builds its dispatch from that list once, at import.
The command table and the hub read what a feature does around every command from the list, and name no feature:
its guard (what it refuses while it holds), its wrap (a decision made its own way: a dice source fed by the table's
faces, a command decided again, a step added after the GM's hand), the payload fields it takes aside, its answer to
the sender, its route (a path of the hub's own instead of the table's commit), a rate per seat, command ids never
kept, commands one at a time per game, and what it starts after a commit.
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
class Deciding:
    """What a feature's ``wrap`` is handed: the decision it wraps, ``decide(game, cmd, actor, dice)`` (the wraps
    nearer the feature's own decide, then that decide and the steps that follow it), and the table's ``parse`` (a
    command kept as its payload, decided again)."""

    decide: Callable[..., list]
    parse: Callable[[Any], Any]


@dataclass(frozen=True)
class Feature:
    """One feature as the command table sees it.

    ``commands``: its command models, in the table's union (``table.parse_command``) unless ``apart`` (the keys and
    the replay are parsed and served by the hub on paths of their own). ``decide``: command model -> its decide,
    ``(game, cmd, actor)``, or ``(game, cmd, actor, dice)`` with ``dice``; a command with none is answered outside the
    table (a question, undo). ``events``: the event types it records, each applied by ``evolve(game, event, log)``.

    Around every command (#66), in the list's order:

    - ``guard(game, cmd, actor, aside)``: refuses a command while what it holds holds (a roll the table makes, a step
      of a runner no longer playing, a plan reckoned on an older state); ``aside``: the fields the features took aside.
    - ``aside(payload) -> (payload, {field: value})``: payload fields it takes off every command before parsing.
    - ``wrap(game, cmd, actor, dice, deciding) -> events``: the command decided through ``deciding`` its own way; the
      first wrap in the list is the nearest the feature's own decide.
    - ``ack(events, actor) -> dict``: what the sender hears back besides ok and seq.
    - ``after_event(game)``: after every event applied (what the fog remembers).
    - ``routes``: command model -> the hub's path for it instead of the table's commit: ``"keys"`` (the keys and the GM
      password, with ``parse``), ``"view"`` (a view, not a change: the replay, with ``parse``), ``"question"``
      (answered, nothing stored: ``answers[model](game, cmd, actor)``), ``"preview"`` (an attack's odds, relayed),
      ``"alone"`` (committed alone, decided by ``alone(game, actor, log, replay)`` with the game's log: undo).
    - ``rates``: command model -> (times, seconds, refusal): how often a player's seat may send it; ``anonymous``: command types whose
      command id is dropped, never stored beside its seat; ``heavy``: command types that redraw every screen's map
      (one at a time per game, the next refused while one runs); ``starts``: the live side's runner told of every
      commit (``webapp.live.foes.RUNNERS``)."""

    name: str
    commands: tuple[type[BaseModel], ...] = ()
    decide: Mapping[type[BaseModel], Callable[..., list]] = field(default_factory=dict)
    dice: bool = False
    events: tuple[str, ...] = ()
    evolve: Callable[[Any, Any, Callable], None] | None = None
    follows: tuple[Follows, ...] = ()
    apart: bool = False
    guard: Callable[..., None] | None = None
    aside: Callable[[dict], tuple[dict, dict]] | None = None
    wrap: Callable[..., list] | None = None
    ack: Callable[[list, Any], dict] | None = None
    after_event: Callable[[Any], None] | None = None
    routes: Mapping[type[BaseModel], str] = field(default_factory=dict)
    parse: Callable[[Any], Any] | None = None
    answers: Mapping[type[BaseModel], Callable[..., dict]] = field(default_factory=dict)
    alone: Callable[..., list] | None = None
    rates: Mapping[type[BaseModel], tuple[int, float, str]] = field(default_factory=dict)
    anonymous: frozenset[str] = frozenset()
    heavy: frozenset[str] = frozenset()
    starts: str | None = None


def type_of(model: type[BaseModel]) -> str:
    """A command model's ``type`` (``MoveToken`` -> ``"move_token"``)."""
    return model.model_fields["type"].annotation.__args__[0]
