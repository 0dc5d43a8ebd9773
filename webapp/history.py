"""Undo: the GM takes back the last action by appending its inverse; the log is never rewritten.

The inverse is a fact like any other event: ``undone`` carries the parts of
the state as they were before the action (only the parts that differ now),
taken from a replay of the log up to it. Applying it needs neither the rules
nor the log, so a replay gives the same game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

from rules.board import Board

from .facts import Event, Rejected

if TYPE_CHECKING:
    from .table import Actor, Game

#: facts that are not the GM's to take back: who joined, what the dice said, undo itself
NOT_UNDOABLE = frozenset({"game_created", "player_joined", "dice_rolled", "join_shown", "undone", "gm_password_set",
                          "map_added", "map_renamed", "map_removed", "map_viewed", "picture_set", "picture_aligned"})
#: showing another map is a line undo does not cross: what came before happened on another map
MAP_SWITCH = frozenset({"map_activated", "map_imported"})


class Undo(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["undo"]


def _parts(game: "Game") -> dict:
    """The parts of the state an action can change, as plain data."""
    return {
        "tokens": [t.to_dict() for t in game.tokens.values()],
        "board": game.board.to_dict(),
        "combat": game.combat,
        "settings": dict(game.settings),
        "characters": [c.to_dict() for c in game.characters.values()],
        "templates": [dict(t) for t in game.templates.values()],
        "pending_defense": game.pending_defense,
    }


def last_action(game: "Game", events: list[Event]) -> int | None:
    """The seq of the newest event that can be undone and is not undone yet (seq = index + 1)."""
    for index in range(len(events) - 1, -1, -1):
        seq = index + 1
        if events[index].type in MAP_SWITCH:
            return None
        if events[index].data.get("map_id") and events[index].type == "door_set":
            continue  # a door on a map being prepared: not the board undo restores
        if events[index].type not in NOT_UNDOABLE and seq not in game.undone:
            return seq
    return None


def decide(game: "Game", actor: "Actor", events: list[Event], replay) -> list[Event]:
    """``events`` is the whole log of the game; ``replay(events)`` rebuilds a state from a prefix of it."""
    if actor.role != "gm":
        raise Rejected("only the GM can undo")
    seq = last_action(game, events)
    if seq is None:
        raise Rejected("there is nothing to undo")
    before, now = _parts(replay(events[: seq - 1])), _parts(game)
    restore = {k: v for k, v in before.items() if v != now[k]}
    return [Event("undone", {"seq": seq, "type": events[seq - 1].type, "restore": restore})]


def evolve(game: "Game", event: Event, log) -> None:
    from .characters import Character
    from .table import Token

    d = event.data
    restore = d["restore"]
    if "tokens" in restore:
        game.tokens = {t["id"]: Token(**t) for t in restore["tokens"]}
    if "board" in restore:
        game.board = Board.from_dict(restore["board"])
    if "combat" in restore:
        game.combat = restore["combat"]
    if "settings" in restore:
        game.settings = dict(restore["settings"])
    if "characters" in restore:
        game.characters = {c["id"]: Character(**c) for c in restore["characters"]}
    if "pending_defense" in restore:
        game.pending_defense = restore["pending_defense"]
    if "templates" in restore:
        game.templates = {t["id"]: dict(t) for t in restore["templates"]}
    game.undone.append(d["seq"])
    what = d["type"].replace("_", " ")
    log(f"the GM undid the last action ({what})", "all", None)
