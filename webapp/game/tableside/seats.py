"""The seats at the table: players joining (or taking their seat back on a new device), the GM removing or
merging them, and whether the join code is shown."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from ..board import handouts
from ..core import text
from ..core.feature import Feature
from ..core.model import MAX_PLAYERS, Actor, Event, Game, Player, Rejected, bump_counter, key_hash
from rules.text import say
from ..core.text import N_

Id = text.Id


class _Command(BaseModel):
    # strict: an int is an int, a bool a bool ("2" and "yes" are refused); forms convert their strings first
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)


class ShowJoin(_Command):
    type: Literal["show_join"]
    show: bool


class RemovePlayer(_Command):
    type: Literal["remove_player"]
    player_id: Id


class MergePlayers(_Command):
    type: Literal["merge_players"]
    player_id: Id  # the seat that goes away
    into: Id  # the seat that keeps its name and gets the other's tokens and devices


class AllowReclaim(_Command):
    type: Literal["allow_reclaim"]
    allow: bool


class AnswerSeat(_Command):
    type: Literal["answer_seat"]
    request_id: Id
    allow: bool


COMMANDS = (ShowJoin, RemovePlayer, MergePlayers, AllowReclaim, AnswerSeat)
EVENTS = ("join_shown", "player_joined", "player_reclaimed", "player_removed", "players_merged", "reclaim_allowed",
          "seat_asked", "seat_answered")
MAX_SEAT_REQUESTS = 5  # asked and not yet answered, per game


def player_joined(game: Game, name: str, key: str) -> Event:
    """A new seat; or, for a name already at the table, that seat on this new device: at once when the GM
    turned that on (``allow_reclaim``), else a request the GM answers on the GM page (``seat_asked``; the
    device's key works once the GM allows it). A device that already holds the seat never comes here: it
    keeps it by its own key.

    Two players never share a name: the same name is the same player.
    """
    name = _check_name(name)
    same = game.player_named(name)
    if same is not None:
        if game.allow_reclaim:
            return Event("player_reclaimed", {"player_id": same.id, "key_hash": key_hash(key)})
        if len(game.seat_requests) >= MAX_SEAT_REQUESTS:
            raise Rejected(N_("%(name)s is already at this table, and the GM has %(n)s requests for seats to answer "
                              "already; pick another name, or ask the GM"), name=same.name, n=MAX_SEAT_REQUESTS)
        return Event("seat_asked", {"request_id": _request_id(game), "player_id": same.id,
                                    "key_hash": key_hash(key)})
    if len(game.players) >= MAX_PLAYERS:
        raise Rejected(N_("this game has %(n)s players already"), n=MAX_PLAYERS)
    return Event("player_joined", {"player_id": game.next_id("p"), "name": name, "key_hash": key_hash(key)})


def _request_id(game: Game) -> str:
    while True:
        new = game.next_id("r")
        if new not in game.seat_requests:
            return new


def _answer_seat(game: Game, cmd: AnswerSeat, actor: Actor) -> list[Event]:
    asked = game.seat_requests.get(cmd.request_id)
    if asked is None:
        raise Rejected(N_("that request for a seat was answered already"))
    allow = cmd.allow and asked["player_id"] in game.players  # a seat removed meanwhile is no one's to give
    events = [Event("seat_answered", {"request_id": cmd.request_id, "allow": allow})]
    if allow:
        events.append(Event("player_reclaimed", {"player_id": asked["player_id"], "key_hash": asked["key_hash"]}))
    return events


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise Rejected(N_("a name is needed"))
    text.check(name, "a name")
    name = re.sub(r"\s+", " ", text.valid_name(name.strip()))
    if len(name) > text.MAX_NAME:
        raise Rejected(N_("a name has %(n)s characters at most"), n=text.MAX_NAME)
    return name


def _player(game: Game, player_id: str) -> Player:
    player = game.players.get(player_id)
    if player is None:
        raise Rejected(N_("no player %(id)s in this game"), id=repr(player_id))
    return player


def _show_join(game: Game, cmd: ShowJoin, actor: Actor) -> list[Event]:
    if game.show_join == cmd.show:
        raise Rejected(N_("the join code is already shown") if cmd.show else N_("the join code is already hidden"))
    return [Event("join_shown", {"show": cmd.show})]


def _remove_player(game: Game, cmd: RemovePlayer, actor: Actor) -> list[Event]:
    player = _player(game, cmd.player_id)
    tokens = [t.id for t in game.tokens.values() if t.owner == player.id]
    return [Event("player_removed", {"player_id": player.id, "tokens": tokens})]


def _merge_players(game: Game, cmd: MergePlayers, actor: Actor) -> list[Event]:
    gone, kept = _player(game, cmd.player_id), _player(game, cmd.into)
    if gone.id == kept.id:
        raise Rejected(N_("a player cannot be merged into themselves"))
    tokens = [t.id for t in game.tokens.values() if t.owner == gone.id]
    return [Event("players_merged", {"player_id": gone.id, "into": kept.id, "tokens": tokens})]


def _allow_reclaim(game: Game, cmd: AllowReclaim, actor: Actor) -> list[Event]:
    if game.allow_reclaim == cmd.allow:
        return []
    return [Event("reclaim_allowed", {"allow": cmd.allow})]


DECIDE = {
    ShowJoin: _show_join,
    RemovePlayer: _remove_player,
    MergePlayers: _merge_players,
    AllowReclaim: _allow_reclaim,
    AnswerSeat: _answer_seat,
}


def decide(game: Game, cmd: Any, actor: Actor) -> list[Event]:
    return DECIDE[type(cmd)](game, cmd, actor)


def evolve(game: Game, event: Event, log) -> None:
    d = event.data
    kind = event.type
    if kind == "join_shown":
        game.show_join = d["show"]
    elif kind == "player_joined":
        game.players[d["player_id"]] = Player(id=d["player_id"], name=d["name"], key_hash=d["key_hash"])
        bump_counter(game, d["player_id"])
        log(say("{name} joined", name=d["name"]))
    elif kind == "player_reclaimed":
        player = game.players[d["player_id"]]
        player.key_hash, player.other_keys = d["key_hash"], []
        log(say("{name} took their seat back on another device", name=player.name))
    elif kind == "player_removed":
        player = game.players.pop(d["player_id"])
        for token_id in d["tokens"]:
            if token_id in game.tokens:
                game.tokens[token_id].owner = None
        log(say("the GM removed {name} from the game", name=player.name))
    elif kind == "players_merged":
        gone, kept = game.players.pop(d["player_id"]), game.players[d["into"]]
        kept.other_keys = [*kept.other_keys, gone.key_hash, *gone.other_keys]
        kept.merged = [*kept.merged, gone.id, *gone.merged]  # a command sent again from there is a repeat (#57)
        for token_id in d["tokens"]:
            if token_id in game.tokens:
                game.tokens[token_id].owner = kept.id
        handouts.merge_player(game, gone.id, kept.id)  # what was shown to them goes with them
        log(say("the GM merged {name} into {other}", name=gone.name, other=kept.name))
    elif kind == "seat_asked":
        game.seat_requests[d["request_id"]] = {"player_id": d["player_id"], "key_hash": d["key_hash"]}
        name = game.players[d["player_id"]].name if d["player_id"] in game.players else say("a player")
        log(say("a new device asks for {name}'s seat", name=name), "gm")
    elif kind == "seat_answered":
        asked = game.seat_requests.pop(d["request_id"], None)
        if not d["allow"] and asked is not None and asked["player_id"] in game.players:
            log(say("the GM did not give {name}'s seat to a new device", name=game.players[asked["player_id"]].name), "gm")
    elif kind == "reclaim_allowed":
        game.allow_reclaim = d["allow"]
        log(say("players may take their seat back on a new device") if d["allow"]
            else say("players may no longer take their seat back on a new device"), "gm")


FEATURE = Feature("seats", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve)
