"""The command table: parse a command, authorize it, decide its events, evolve the state, replay a log.

The top of ``webapp.game``. Pure: no Flask, no database. ``decide`` checks a
command against the state and the sender's role and returns events (or raises
:class:`Rejected` with a message for the sender), handing each feature's
commands to its module; ``evolve`` applies one event to the state. The state is
whatever the events say, so replaying the log rebuilds it. The model the
commands act on is :mod:`webapp.game.model`; the commands on tokens, doors and
seats are decided here.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

import rules
from rules.board import Board
from rules.dice import DiceSource, RandomDice
from rules.movement import way_exists

from . import access, attacks, characters, combat, editor, fog, keys, templates, text, undo, zonelayout
from . import maps as game_maps
from .model import (FOE_COLOR, GM, MAX_PLAYERS, MAX_TOKENS, PALETTE, Actor, Event, Game, LogEntry, Player,
                    Rejected, Token, key_hash)

# --- commands ----------------------------------------------------------------

Name = text.Name
Color = Annotated[str, StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$")]
Coord = Annotated[int, Field(ge=-1000, le=1000)]
Id = text.Id
ZoneId = Annotated[text.Line, StringConstraints(min_length=1, max_length=40)]
Size = Annotated[int, Field(ge=1, le=3)]


class _Command(BaseModel):
    # strict: an int is an int, a bool a bool ("2" and "yes" are refused); forms convert their strings first
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)


class MoveToken(_Command):
    type: Literal["move_token"]
    token_id: Id
    x: Coord | None = None  # on a zone map, a square or a zone
    y: Coord | None = None
    zone: ZoneId | None = None
    force: bool = False  # the GM's ruling: through walls and closed doors


class AddToken(_Command):
    type: Literal["add_token"]
    name: Name
    x: Coord | None = None  # on a zone map, x and y or a zone
    y: Coord | None = None
    zone: ZoneId | None = None
    color: Color | None = None
    owner: Id | Literal[""] | None = None  # "" (the form's "GM") is nobody's
    hidden: bool = False
    kind: Literal["pc", "npc"] = "npc"
    size: Size = 1


class UpdateToken(_Command):
    type: Literal["update_token"]
    token_id: Id
    name: Name | None = None
    color: Color | None = None
    hidden: bool | None = None
    owner: Id | Literal[""] | None = None  # "" takes the token back from its player
    kind: Literal["pc", "npc"] | None = None
    size: Size | None = None


class DuplicateToken(_Command):
    type: Literal["duplicate_token"]
    token_id: Id


class RemoveToken(_Command):
    type: Literal["remove_token"]
    token_id: Id


class SetDoor(_Command):
    type: Literal["set_door"]
    door_id: Id
    closed: bool
    map_id: Id | None = None  # a map being prepared (default: the active map)


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


Command = Annotated[
    Union[MoveToken, AddToken, UpdateToken, DuplicateToken, RemoveToken, SetDoor, ShowJoin,
          RemovePlayer, MergePlayers, AllowReclaim, undo.Undo, *combat.COMMANDS, *combat.QUERIES,
          *attacks.COMMANDS, *characters.COMMANDS, *templates.COMMANDS, *editor.COMMANDS, *game_maps.COMMANDS],
    Field(discriminator="type"),
]
_command_adapter: TypeAdapter[Any] = TypeAdapter(Command)
#: each command type's model (the fuzz test and the form endpoint read their fields)
COMMAND_MODELS: dict[str, type[BaseModel]] = {
    c.model_fields["type"].annotation.__args__[0]: c
    for c in (MoveToken, AddToken, UpdateToken, DuplicateToken, RemoveToken, SetDoor, ShowJoin, RemovePlayer,
              MergePlayers, AllowReclaim, undo.Undo, *combat.COMMANDS, *combat.QUERIES, *attacks.COMMANDS,
              *characters.COMMANDS, *templates.COMMANDS, *editor.COMMANDS, *game_maps.COMMANDS)
}
COMMAND_TYPES = tuple(COMMAND_MODELS)


def parse_command(payload: Any) -> Any:
    """A typed command from a JSON payload, or Rejected with a readable reason."""
    if isinstance(payload, text.TooDeep):
        raise Rejected(text.too_deep_message())
    if not isinstance(payload, dict):
        raise Rejected("a command must be a JSON object with a 'type'")
    text.check_payload(payload)
    kind = payload.get("type")
    if not isinstance(kind, str) or kind not in COMMAND_TYPES:
        shown = repr(kind) if isinstance(kind, str) and len(kind) <= 40 else "that"
        raise Rejected(f"unknown command type {shown}; expected one of: {', '.join(COMMAND_TYPES)}")
    try:
        return _command_adapter.validate_python(payload)
    except ValidationError as exc:
        raise Rejected(describe_validation(exc)) from None


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


def describe_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"][1:] if p != "type") or str(err["loc"][0] if err["loc"] else "")
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    return "; ".join(parts)


# --- events ------------------------------------------------------------------


def new_game_events(name: str, system: str, board: Board, zones: list[dict] | None = None) -> list[Event]:
    data = {"name": name, "system": system, "board": board.to_dict()}
    if zones is not None:
        data["zones"] = zones
    return [Event("game_created", data)]


def token_added(game: Game, name: str, x: int, y: int, **extra) -> Event:
    token = Token(id=game.next_id("t"), name=name, x=x, y=y, **extra)
    return Event("token_added", {"token": token.to_dict()})


def player_joined(game: Game, name: str, key: str) -> Event:
    """A new seat, or (when the GM allows it) a player taking their seat back on a new device.

    Two players never share a name: the same name is the same player.
    """
    name = _check_name(name)
    same = game.player_named(name)
    if same is not None:
        if not game.allow_reclaim:
            raise Rejected(f"{same.name} is already at this table; pick another name, "
                           "or ask the GM to let players take their seat back")
        return Event("player_reclaimed", {"player_id": same.id, "key_hash": key_hash(key)})
    if len(game.players) >= MAX_PLAYERS:
        raise Rejected(f"this game has {MAX_PLAYERS} players already")
    return Event("player_joined", {"player_id": game.next_id("p"), "name": name, "key_hash": key_hash(key)})


def numbered_name(game: Game, name: str, exclude: str | None = None) -> str:
    """``name``, or ``name 2``, ``name 3``... when a token has it already (the server numbers duplicates)."""
    taken = {t.name.casefold() for t in game.tokens.values() if t.id != exclude}
    if name.casefold() not in taken:
        return name
    base = re.sub(r"\s+\d+$", "", name) or name
    n = 2
    while f"{base} {n}".casefold() in taken:
        n += 1
    return f"{base[: 40 - len(str(n)) - 1]} {n}"


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise Rejected("a name is needed")
    text.check(name, "a name")
    name = re.sub(r"\s+", " ", text.valid_name(name.strip()))
    if len(name) > text.MAX_NAME:
        raise Rejected(f"a name has {text.MAX_NAME} characters at most")
    return name


def authorize(game: Game, cmd: Any, actor: Actor) -> None:
    """Who may send this command at all: the access matrix (webapp/access.py); then the finer checks."""
    access.check_command(game, cmd, actor)
    if isinstance(cmd, MoveToken) and cmd.force and actor.role != "gm":
        raise Rejected("only the GM can force a move")


def _token(game: Game, token_id: str) -> Token:
    token = game.tokens.get(token_id)
    if token is None:
        raise Rejected(f"no token {token_id!r} in this game")
    return token


def _check_cell(game: Game, x: int, y: int, moving: str | None = None, size: int = 1,
                actor: Actor = GM) -> None:
    """Every square a token of ``size`` at (x, y) covers is on the map, open and free.

    Free for the sender: a token the sender may not see does not take a square (the two then share it,
    and the GM sees both), so no refusal tells a player where a hidden token stands.
    """
    board = game.board
    if game.zones is not None:
        zone = zonelayout.zone_at(game.zones, x, y)
        if size != 1:
            raise Rejected("tokens on a zone map take one square")
        if zone is None or (x, y) not in set(zonelayout.cells_of(zone)):
            raise Rejected(f"({x}, {y}) is not in a zone")
    for cx, cy in [(x + i, y + j) for j in range(size) for i in range(size)]:
        if not board.in_bounds((cx, cy)):
            where = f"({x}, {y})" if size == 1 else f"a {size} x {size} token at ({x}, {y})"
            raise Rejected(f"{where} is off the map ({board.width} x {board.height})")
        if board.is_blocked((cx, cy)):
            raise Rejected(f"({cx}, {cy}) is blocked")
        other = game.token_at(cx, cy, exclude=moving, seen=lambda t: fog.may_see(game, actor, t))
        if other is not None:
            raise Rejected(f"({cx}, {cy}) is taken by {other.name}")


def diagonal_of(game: Game) -> str:
    try:
        return getattr(rules.get(game.system), "diagonal", "chebyshev") or "chebyshev"
    except KeyError:
        return "chebyshev"


def _free_place_near(game: Game, token: Token) -> tuple[int, int]:
    """The nearest place a copy of ``token`` fits, on its side of the walls when there is one."""
    board = game.board
    diagonal = diagonal_of(game)
    best = None
    for r in range(1, max(board.width, board.height) + 1):
        ring = [(token.x + dx, token.y + dy) for dy in range(-r, r + 1) for dx in range(-r, r + 1)
                if max(abs(dx), abs(dy)) == r]
        for x, y in ring:
            try:
                _check_cell(game, x, y, size=token.size)
            except Rejected:
                continue
            if way_exists(board, (token.x, token.y), (x, y), token.size, diagonal):
                return x, y
            best = best or (x, y)
        if best is not None and r > 3:
            return best
    if best is None:
        raise Rejected("there is no free square on the map for a copy")
    return best


def _player(game: Game, player_id: str) -> Player:
    player = game.players.get(player_id)
    if player is None:
        raise Rejected(f"no player {player_id!r} in this game")
    return player


def _check_owner(game: Game, owner: str | None) -> None:
    if owner and owner not in game.players:
        raise Rejected(f"no player {owner!r} in this game")


def _move_token(game: Game, cmd: MoveToken, actor: Actor) -> list[Event]:
    token = _token(game, cmd.token_id)
    if game.zones is not None:
        return _move_in_zones(game, cmd, actor, token)
    if cmd.zone is not None or cmd.x is None or cmd.y is None:
        _place_of(game, cmd.x, cmd.y, cmd.zone, actor)  # says what is missing
    if (token.x, token.y) == (cmd.x, cmd.y):
        raise Rejected(f"{token.name} is already at ({cmd.x}, {cmd.y})")
    _check_cell(game, cmd.x, cmd.y, moving=token.id, size=token.size, actor=actor)
    if not cmd.force and not way_exists(game.board, (token.x, token.y), (cmd.x, cmd.y), token.size,
                                        diagonal_of(game)):
        raise Rejected(f"{token.name} has no way through to ({cmd.x}, {cmd.y}): "
                       "walls or closed doors are in the way", code="no_way")
    data = {"token_id": token.id, "x": cmd.x, "y": cmd.y, "from": [token.x, token.y]}
    if cmd.force:
        data["forced"] = True
    return [Event("token_moved", data)]


def _place_of(game: Game, x: int | None, y: int | None, zone: str | None, actor: Actor = GM) -> tuple[int, int]:
    """Where a token goes: its square, or on a zone map a free square of the zone named."""
    if zone is not None:
        if game.zones is None:
            raise Rejected("this map has no zones: give x and y")
        found = next((z for z in game.zones if z["id"] == zone), None)
        if found is None:
            raise Rejected(f"no zone {zone!r} on this map")
        taken = {(t.x, t.y) for t in fog.visible_tokens(game, actor)}  # a hidden token takes no square from a player
        for cell in zonelayout.cells_of(found):
            if cell not in taken:
                return cell
        raise Rejected(f"{found['name']} is full")
    if x is None or y is None:
        raise Rejected("x and y are needed" + (", or a zone" if game.zones is not None else ""))
    return x, y


def _move_in_zones(game: Game, cmd: MoveToken, actor: Actor, token: Token) -> list[Event]:
    """On a zone map a token goes to a square of a zone; a new zone must be reachable by adjacency."""
    if cmd.zone is not None and cmd.zone == zonelayout.zone_at(game.zones, token.x, token.y)["id"]:
        raise Rejected(f"{token.name} is in that zone already")
    x, y = _place_of(game, cmd.x, cmd.y, cmd.zone, actor)
    if (token.x, token.y) == (x, y):
        raise Rejected(f"{token.name} is already there")
    _check_cell(game, x, y, moving=token.id, actor=actor)
    here, there = zonelayout.zone_at(game.zones, token.x, token.y), zonelayout.zone_at(game.zones, x, y)
    data = {"token_id": token.id, "x": x, "y": y, "from": [token.x, token.y]}
    if here is not None and there["id"] != here["id"]:
        way = zonelayout.path(game.zones, here["id"], there["id"])
        if way is None and not cmd.force:
            raise Rejected(f"{token.name} has no way from {here['name']} to {there['name']}", code="no_way")
        data |= {"zone": there["id"], "from_zone": here["id"], "zone_path": way or [here["id"], there["id"]]}
    if cmd.force:
        data["forced"] = True
    return [Event("token_moved", data)]


def _add_token(game: Game, cmd: AddToken, actor: Actor) -> list[Event]:
    if len(game.tokens) >= MAX_TOKENS:
        raise Rejected(f"a game holds {MAX_TOKENS} tokens at most")
    x, y = _place_of(game, cmd.x, cmd.y, cmd.zone)
    cmd = cmd.model_copy(update={"x": x, "y": y})
    _check_cell(game, cmd.x, cmd.y, size=cmd.size)
    owner = cmd.owner or None
    _check_owner(game, owner)
    color = cmd.color or (PALETTE[len(game.tokens) % len(PALETTE)] if cmd.kind == "pc" else FOE_COLOR)
    return [token_added(game, numbered_name(game, cmd.name), cmd.x, cmd.y, color=color, owner=owner,
                        hidden=cmd.hidden, kind=cmd.kind, size=cmd.size)]


def _duplicate_token(game: Game, cmd: DuplicateToken, actor: Actor) -> list[Event]:
    token = _token(game, cmd.token_id)
    if len(game.tokens) >= MAX_TOKENS:
        raise Rejected(f"a game holds {MAX_TOKENS} tokens at most")
    x, y = _free_place_near(game, token)
    return [token_added(game, numbered_name(game, token.name), x, y, color=token.color, owner=token.owner,
                        hidden=token.hidden, kind=token.kind, size=token.size, sheet=dict(token.sheet))]


def _update_token(game: Game, cmd: UpdateToken, actor: Actor) -> list[Event]:
    token = _token(game, cmd.token_id)
    changes = {k: v for k, v in cmd.model_dump(exclude={"type", "token_id"}).items() if v is not None}
    if "owner" in changes:
        changes["owner"] = changes["owner"] or None
        _check_owner(game, changes["owner"])
    changes = {k: v for k, v in changes.items() if getattr(token, k) != v}
    if not changes:
        return []  # Save on an unchanged row: nothing to record, nothing to refuse
    if "size" in changes:
        _check_cell(game, token.x, token.y, moving=token.id, size=changes["size"])
    if "name" in changes:
        changes["name"] = numbered_name(game, changes["name"], exclude=token.id)
    return [Event("token_updated", {"token_id": token.id, "changes": changes})]


def _remove_token(game: Game, cmd: RemoveToken, actor: Actor) -> list[Event]:
    token = _token(game, cmd.token_id)
    return [Event("token_removed", {"token_id": token.id, "name": token.name})]


def _set_door(game: Game, cmd: SetDoor, actor: Actor) -> list[Event]:
    door = game_maps.map_board(game, cmd.map_id).doors.get(cmd.door_id)
    if door is None:
        raise Rejected(f"no door {cmd.door_id!r} on this map")
    if door.closed == cmd.closed:
        raise Rejected(f"the door is already {'closed' if cmd.closed else 'open'}")
    data = {"door_id": cmd.door_id, "closed": cmd.closed}
    if cmd.map_id is not None and cmd.map_id != game.active_map:
        data["map_id"] = cmd.map_id
    return [Event("door_set", data)]


def _show_join(game: Game, cmd: ShowJoin, actor: Actor) -> list[Event]:
    if game.show_join == cmd.show:
        raise Rejected(f"the join code is already {'shown' if cmd.show else 'hidden'}")
    return [Event("join_shown", {"show": cmd.show})]


def _remove_player(game: Game, cmd: RemovePlayer, actor: Actor) -> list[Event]:
    player = _player(game, cmd.player_id)
    tokens = [t.id for t in game.tokens.values() if t.owner == player.id]
    return [Event("player_removed", {"player_id": player.id, "tokens": tokens})]


def _merge_players(game: Game, cmd: MergePlayers, actor: Actor) -> list[Event]:
    gone, kept = _player(game, cmd.player_id), _player(game, cmd.into)
    if gone.id == kept.id:
        raise Rejected("a player cannot be merged into themselves")
    tokens = [t.id for t in game.tokens.values() if t.owner == gone.id]
    return [Event("players_merged", {"player_id": gone.id, "into": kept.id, "tokens": tokens})]


def _allow_reclaim(game: Game, cmd: AllowReclaim, actor: Actor) -> list[Event]:
    if game.allow_reclaim == cmd.allow:
        return []
    return [Event("reclaim_allowed", {"allow": cmd.allow})]


#: one decide per command type (DESIGN: one command, one place)
DECIDE = {
    MoveToken: _move_token,
    AddToken: _add_token,
    DuplicateToken: _duplicate_token,
    UpdateToken: _update_token,
    RemoveToken: _remove_token,
    SetDoor: _set_door,
    ShowJoin: _show_join,
    RemovePlayer: _remove_player,
    MergePlayers: _merge_players,
    AllowReclaim: _allow_reclaim,
}


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
        return attacks.decide(game, cmd, actor, dice or RandomDice())
    if isinstance(cmd, characters.COMMANDS):
        return characters.decide(game, cmd, actor)
    if isinstance(cmd, templates.COMMANDS):
        return templates.decide(game, cmd, actor)
    if isinstance(cmd, editor.COMMANDS):
        return editor.decide(game, cmd, actor)
    if isinstance(cmd, game_maps.COMMANDS):
        return game_maps.decide(game, cmd, actor)
    events = DECIDE[type(cmd)](game, cmd, actor)
    if isinstance(cmd, MoveToken) and events and not cmd.force:
        events = combat.judge_move(game, events, dice or RandomDice())  # in a fight the rules count the move
    return events


def _log(game: Game, text: str, audience: Literal["all", "gm"] = "all", detail: dict | None = None) -> None:
    game.log.append(LogEntry(seq=game.seq, text=text, audience=audience, detail=detail))
    del game.log[: -Game.LOG_KEEP]


def _bump_counter(game: Game, new_id: str) -> None:
    """Old logs numbered their ids (t1, p2, c3): the counter remembers the last number (random ids have none)."""
    numbered = re.fullmatch(r"[a-z]+(\d{1,9})", new_id)
    if numbered:
        game.counter = max(game.counter, int(numbered.group(1)))


def evolve(game: Game, event: Event) -> None:
    """Apply one accepted event; the only place the state changes."""
    game.seq += 1
    d = event.data
    kind = event.type
    if kind in combat.EVENTS:
        combat.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind in characters.EVENTS:
        characters.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
        if kind == "character_added":
            _bump_counter(game, d["character"]["id"])
    elif kind in attacks.EVENTS:
        attacks.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind in game_maps.EVENTS:
        game_maps.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind in templates.EVENTS:
        templates.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind in keys.EVENTS:
        keys.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind in editor.EVENTS:
        editor.evolve(game, kind, d, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind == "undone":
        undo.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind == "game_created":
        game.name, game.system = d["name"], d["system"]
        game.board = Board.from_dict(d["board"])
        game.zones = d.get("zones")
        game_maps.first_map(game)
    elif kind == "token_added":
        token = Token(**d["token"])
        game.tokens[token.id] = token
        _bump_counter(game, token.id)
        _log(game, f"{token.name} was added", "gm" if token.hidden or game.fog_on else "all")
    elif kind == "token_moved":
        token = game.tokens[d["token_id"]]
        token.x, token.y = d["x"], d["y"]
        ruling = "GM ruling: " if d.get("forced") else ""
        where = f"({token.x}, {token.y})"
        if game.zones is not None:
            zone = zonelayout.zone_at(game.zones, token.x, token.y)
            where = zone["name"] if zone else where
        # with fog on, where a token went is news only for those who see it: the map shows them
        _log(game, f"{ruling}{token.name} moved to {where}", "gm" if token.hidden or game.fog_on else "all")
        if "fight" in d:
            combat.book_move(game, token, d["fight"], lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind == "token_updated":
        token = game.tokens[d["token_id"]]
        for key, value in d["changes"].items():
            setattr(token, key, value)
    elif kind == "token_removed":
        token = game.tokens.pop(d["token_id"])
        _log(game, f"{token.name} was removed", "gm" if token.hidden else "all")
    elif kind == "door_set":
        game_maps.map_board(game, d.get("map_id")).set_door(d["door_id"], d["closed"])
        _log(game, f"a door was {'closed' if d['closed'] else 'opened'}", "gm" if d.get("map_id") else "all")
    elif kind == "join_shown":
        game.show_join = d["show"]
    elif kind == "player_joined":
        game.players[d["player_id"]] = Player(id=d["player_id"], name=d["name"], key_hash=d["key_hash"])
        _bump_counter(game, d["player_id"])
        _log(game, f"{d['name']} joined")
    elif kind == "player_reclaimed":
        player = game.players[d["player_id"]]
        player.key_hash, player.other_keys = d["key_hash"], []
        _log(game, f"{player.name} took their seat back on another device")
    elif kind == "player_removed":
        player = game.players.pop(d["player_id"])
        for token_id in d["tokens"]:
            if token_id in game.tokens:
                game.tokens[token_id].owner = None
        _log(game, f"the GM removed {player.name} from the game")
    elif kind == "players_merged":
        gone, kept = game.players.pop(d["player_id"]), game.players[d["into"]]
        kept.other_keys = [*kept.other_keys, gone.key_hash, *gone.other_keys]
        for token_id in d["tokens"]:
            if token_id in game.tokens:
                game.tokens[token_id].owner = kept.id
        _log(game, f"the GM merged {gone.name} into {kept.name}")
    elif kind == "reclaim_allowed":
        game.allow_reclaim = d["allow"]
        _log(game, "players may take their seat back on a new device" if d["allow"]
             else "players may no longer take their seat back on a new device", "gm")
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
