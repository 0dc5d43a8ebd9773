"""The game as it was: fold the log up to an event, for an audience (issue #36: the recap, the replay).

Here beside ``store.load_game`` rather than in ``webapp.game``: folding a log needs the command table's
``evolve``, and no module of the game package may import the table (tests/unit/test_architecture.py).
The fold itself is the replay's (``replay_view.steps``: one piece of code folds the log for the recap, the
timeline and the replay's jumps). Pure all the same: a list of events in, a :class:`Game` out, with nothing stored and the live game untouched (a new
state is folded from the first event, or from a copy of a state the caller kept, e.g. a snapshot of its
own). ``walk`` yields the state after each event of a log, once through (the recap reads every step);
``game_at`` is the state after ``seq``; ``view_at`` is that state as an audience saw it then (the JSON
API's shape, ``audience.public_state``: hidden tokens and fog as they were at that event).
"""

from __future__ import annotations

from collections.abc import Iterator

from ..game import audience, fog, replay_view
from ..game.model import Actor, Event, Game
from ..game.table import empty_game, evolve


def walk(game_id: str, events: list[Event], start: Game | None = None, first_seq: int = 1
         ) -> Iterator[tuple[int, Event, Game]]:
    """``(seq, event, game after it)`` for each event, the same game object each time (read it before the
    next step). ``start`` is the state before ``first_seq`` (default: the empty game before the log)."""
    yield from replay_view.steps(start or empty_game(game_id), events, evolve, first_seq)


def game_at(game_id: str, events: list[Event], seq: int) -> Game:
    """The state after event ``seq`` (0: before the first; past the end: the present)."""
    game = empty_game(game_id)
    for _seq, _event, game in walk(game_id, events[: max(0, seq)]):
        pass
    return game


def view_at(game_id: str, events: list[Event], seq: int, actor: Actor) -> dict:
    """What ``actor`` was shown after event ``seq``: the state as ``audience.public_state`` gives it then."""
    return audience.public_state(game_at(game_id, events, seq), actor)


def tokens_seen(game: Game, actor: Actor) -> list:
    """The tokens this audience could see in ``game`` (a state from ``walk`` or ``game_at``)."""
    return fog.visible_tokens(game, actor)
