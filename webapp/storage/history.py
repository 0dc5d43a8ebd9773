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

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ..game.views import audience, replay_view
from ..game.bridge import fog
from ..game.core.model import Actor, Event, Game
from ..game.table import empty_game, evolve
from . import private


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


# --- the replay's checkpoints, kept between runs --------------------------------------------------------------
# A game's folded log (``replay_view.History.export``) is kept in the data folder, ``replay/<game id>/``: an
# index (``index.json``: each checkpoint's event, the timeline's moments) and one file per checkpoint's state
# (``<seq>.json``, written once), each written whole to a new file then renamed over the old one. A server
# started again, or another process on the same folder, takes them instead of folding the whole log again
# (``History.restore`` checks they are of that log), reading a checkpoint's state only when a jump needs it.
# Only a shortcut: a missing, damaged or foreign file is ignored (and written anew by the next fold).

CHECKPOINTS_DIR = "replay"


def _folder(data_dir: str | Path, game_id: str) -> Path | None:
    if not game_id or not all(c.isalnum() or c in "-_" for c in game_id):
        return None  # never a path from a made-up id
    return Path(data_dir) / CHECKPOINTS_DIR / game_id


def _read(path: Path) -> dict | None:
    try:
        with open(path, encoding="utf-8") as f:
            found = json.load(f)
    except (OSError, ValueError):
        return None
    return found if isinstance(found, dict) else None


def _write(path: Path, data: dict) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)  # the owner's only
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(data, separators=(",", ":")))  # one shot: the C encoder (json.dump's is Python's)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def load_checkpoints(data_dir: str | Path, game_id: str) -> dict | None:
    """The index of the game's kept fold, or None (none kept, unreadable)."""
    folder = _folder(data_dir, game_id)
    return None if folder is None else _read(folder / "index.json")


def load_checkpoint_state(data_dir: str | Path, game_id: str, seq: int) -> dict | None:
    """A kept checkpoint's state (``Game.to_dict``), or None."""
    folder = _folder(data_dir, game_id)
    if folder is None or not isinstance(seq, int):
        return None
    found = _read(folder / f"{seq}.json")
    return found.get("state") if found is not None and found.get("seq") == seq else None


def save_checkpoints(data_dir: str | Path, game_id: str, kept: dict, pause: Callable[[], None] = lambda: None) -> None:
    """Keep the game's fold (``History.export``): its new checkpoints' states, then the index that names them
    (``pause`` called between two files). Raises OSError when the folder cannot be written."""
    folder = _folder(data_dir, game_id)
    if folder is None:
        return
    private.make_dir(folder)
    for seq, state in kept["states"]:
        _write(folder / f"{seq}.json", {"seq": seq, "state": state})
        pause()
    _write(folder / "index.json", kept["index"])


#: events folded at a time by ``fold_and_keep`` (``pause`` is called between two slices)
FOLD_SLICE = 50


def fold_and_keep(data_dir: str | Path, game_id: str, events: list[Event],
                  pause: Callable[[], None] = lambda: None) -> int:
    """Fold a whole log with its checkpoints and keep them (``save_checkpoints``), for a game that has none: one
    imported (``tacmap import``), so its first jump folds at most ``replay_view.CHECKPOINT_EVERY`` events instead
    of the whole log. ``pause`` is called between two slices of ``FOLD_SLICE`` events (a server's other tables go
    on). The seq of the last checkpoint kept (0: the log is too short for one)."""
    found = replay_view.History(game_id, evolve, empty_game)
    found.extend(events)
    while found.folded < found.head:
        found.fold_to(found.folded + FOLD_SLICE)
        pause()
    kept = found.export(0, pause)
    if kept is None:
        return 0
    save_checkpoints(data_dir, game_id, kept)
    return found.checkpointed


def fold_imported(data_dir: str | Path, game_id: str, database: str | None = None) -> int:
    """``fold_and_keep`` for a game just imported into the data folder (or the PostgreSQL database): its log read
    from the store. The seq of the last checkpoint kept."""
    from .archive import open_store

    store = open_store(Path(data_dir), database)
    try:
        events = store.events(game_id)
    finally:
        store.close()
    return fold_and_keep(data_dir, game_id, events)


def copy_checkpoints(data_dir: str | Path, from_id: str, to_id: str) -> int:
    """The kept fold of game ``from_id`` kept as game ``to_id``'s, for a copy of its log (a room's table made from its
    template: the same events under a new id), so the copy's first jump and its fold ahead start from them instead of
    folding the log again. Each state is the template's with the copy's id (a state is its log folded from the empty
    game of that id: nothing else of it is the id's); ``History.restore`` still checks the checkpoints' events against
    the copy's log. The seq of the last checkpoint kept (0: the template has none, or it could not be read)."""
    kept = load_checkpoints(data_dir, from_id)
    if kept is None or kept.get("game_id") != from_id or _folder(data_dir, to_id) is None:
        return 0
    states = []
    try:
        for seq, _event in kept["events"]:
            state = load_checkpoint_state(data_dir, from_id, seq)
            if state is not None and state.get("id") == from_id:
                states.append([seq, {**state, "id": to_id}])
        if not states or states[-1][0] != kept["seq"]:
            return 0  # the last one is the fold's start: without it the copy folds the log
    except (KeyError, TypeError, ValueError, AttributeError):
        return 0
    save_checkpoints(data_dir, to_id, {"index": {**kept, "game_id": to_id}, "states": states})
    return kept["seq"]


def forget_checkpoints(data_dir: str | Path, game_id: str) -> None:
    folder = _folder(data_dir, game_id)
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)
