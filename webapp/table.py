"""The table: a game's state, the commands players send, and the events they cause.

Pure: no Flask, no database. ``decide`` checks a command against the state
and the sender's role and returns events (or raises :class:`Rejected` with a
message for the sender); ``evolve`` applies one event to the state. The
state is whatever the events say, so replaying the log rebuilds it.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import asdict, dataclass, field
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

import rules
from rules.board import Board
from rules.dice import DiceSource, RandomDice

from . import attacks, characters, combat, history
from .facts import Event, Rejected

MAX_TOKENS = 500
MAX_BOARD = 200
PALETTE = ("#2563eb", "#16a34a", "#9333ea", "#ea580c", "#dc2626", "#0891b2", "#ca8a04", "#db2777")
FOE_COLOR = "#dc2626"


# --- who is asking ---------------------------------------------------------


@dataclass(frozen=True)
class Actor:
    role: Literal["gm", "player", "screen"]
    player_id: str | None = None

    @property
    def audience(self) -> str:
        return f"player:{self.player_id}" if self.role == "player" else self.role


GM = Actor("gm")
SCREEN = Actor("screen")


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


# --- state -------------------------------------------------------------------


@dataclass
class Token:
    id: str
    name: str
    x: int
    y: int
    color: str = PALETTE[0]
    owner: str | None = None
    hidden: bool = False
    kind: Literal["pc", "npc"] = "npc"
    sheet: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Player:
    id: str
    name: str
    key_hash: str


@dataclass
class LogEntry:
    seq: int
    text: str
    audience: Literal["all", "gm"] = "all"
    detail: dict | None = None  # a roll's or an attack's breakdown


@dataclass
class Game:
    id: str
    name: str
    system: str
    board: Board
    seq: int = 0
    tokens: dict[str, Token] = field(default_factory=dict)
    players: dict[str, Player] = field(default_factory=dict)
    show_join: bool = True
    counter: int = 0  # the last number used for a token or player id
    log: list[LogEntry] = field(default_factory=list)
    settings: dict = field(default_factory=dict)  # the GM's choices over the system's default_settings()
    combat: dict | None = None  # {"state", "round", "order", "current", "phase"} while a fight is on
    undone: list[int] = field(default_factory=list)  # the seqs of the events the GM has undone
    characters: dict[str, characters.Character] = field(default_factory=dict)

    LOG_KEEP = 50

    def next_id(self, prefix: str) -> str:
        return f"{prefix}{self.counter + 1}"

    def visible_tokens(self, actor: Actor) -> list[Token]:
        """The tokens this audience may know about: the GM sees hidden ones too."""
        return [t for t in self.tokens.values() if actor.role == "gm" or not t.hidden]

    def may_see(self, actor: Actor, token: Token) -> bool:
        return actor.role == "gm" or not token.hidden

    def token_at(self, x: int, y: int, exclude: str | None = None) -> Token | None:
        for t in self.tokens.values():
            if t.x == x and t.y == y and t.id != exclude:
                return t
        return None

    def log_for(self, actor: Actor) -> list[LogEntry]:
        return [e for e in self.log if e.audience == "all" or actor.role == "gm"]

    def to_dict(self) -> dict:
        """The whole state, secrets included: for snapshots, never for clients."""
        return {
            "id": self.id,
            "name": self.name,
            "system": self.system,
            "seq": self.seq,
            "board": self.board.to_dict(),
            "tokens": [t.to_dict() for t in self.tokens.values()],
            "players": [asdict(p) for p in self.players.values()],
            "show_join": self.show_join,
            "counter": self.counter,
            "log": [asdict(e) for e in self.log],
            "settings": self.settings,
            "combat": self.combat,
            "undone": self.undone,
            "characters": [c.to_dict() for c in self.characters.values()],
        }

    @classmethod
    def from_dict(cls, d: dict) -> "Game":
        return cls(
            id=d["id"],
            name=d["name"],
            system=d["system"],
            board=Board.from_dict(d["board"]),
            seq=d["seq"],
            tokens={t["id"]: Token(**t) for t in d["tokens"]},
            players={p["id"]: Player(**p) for p in d["players"]},
            show_join=d["show_join"],
            counter=d["counter"],
            log=[LogEntry(**e) for e in d["log"]],
            settings=d.get("settings", {}),
            combat=d.get("combat"),
            undone=d.get("undone", []),
            characters={c["id"]: characters.Character(**c) for c in d.get("characters", [])},
        )

    def public_state(self, actor: Actor) -> dict:
        """The game as this audience may see it (the JSON API's state)."""
        board = self.board.to_dict()
        return {
            "id": self.id,
            "name": self.name,
            "seq": self.seq,
            "system": self.system,
            "map": board,
            "tokens": [
                {k: v for k, v in t.to_dict().items() if k != "sheet" or actor.role == "gm" or t.owner == actor.player_id}
                for t in self.visible_tokens(actor)
            ],
            "players": [{"id": p.id, "name": p.name} for p in self.players.values()],
            "show_join": self.show_join,
            "settings": combat.settings_of(self),
            "combat": combat.combat_view(self, actor),
            "characters": characters.view(self, actor),
            "log": [asdict(e) for e in self.log_for(actor)],
            "you": {"role": actor.role, "player_id": actor.player_id},
        }


# --- commands ----------------------------------------------------------------

Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
Color = Annotated[str, StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$")]
Coord = Annotated[int, Field(ge=-1000, le=1000)]
Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class MoveToken(_Command):
    type: Literal["move_token"]
    token_id: Id
    x: Coord
    y: Coord


class AddToken(_Command):
    type: Literal["add_token"]
    name: Name
    x: Coord
    y: Coord
    color: Color | None = None
    owner: Id | Literal[""] | None = None  # "" (the form's "GM") is nobody's
    hidden: bool = False
    kind: Literal["pc", "npc"] = "npc"


class UpdateToken(_Command):
    type: Literal["update_token"]
    token_id: Id
    name: Name | None = None
    color: Color | None = None
    hidden: bool | None = None
    owner: Id | Literal[""] | None = None  # "" takes the token back from its player
    kind: Literal["pc", "npc"] | None = None


class RemoveToken(_Command):
    type: Literal["remove_token"]
    token_id: Id


class SetDoor(_Command):
    type: Literal["set_door"]
    door_id: Id
    closed: bool


class ShowJoin(_Command):
    type: Literal["show_join"]
    show: bool


Command = Annotated[
    Union[MoveToken, AddToken, UpdateToken, RemoveToken, SetDoor, ShowJoin, history.Undo, *combat.COMMANDS,
          *attacks.COMMANDS, *characters.COMMANDS],
    Field(discriminator="type"),
]
_command_adapter: TypeAdapter[Any] = TypeAdapter(Command)
COMMAND_TYPES = ("move_token", "add_token", "update_token", "remove_token", "set_door", "show_join", "undo",
                 *(c.model_fields["type"].annotation.__args__[0] for c in combat.COMMANDS + attacks.COMMANDS + characters.COMMANDS))


def parse_command(payload: Any) -> Any:
    """A typed command from a JSON payload, or Rejected with a readable reason."""
    if not isinstance(payload, dict):
        raise Rejected("a command must be a JSON object with a 'type'")
    kind = payload.get("type")
    if kind not in COMMAND_TYPES:
        raise Rejected(f"unknown command type {kind!r}; expected one of: {', '.join(COMMAND_TYPES)}")
    try:
        return _command_adapter.validate_python(payload)
    except ValidationError as exc:
        raise Rejected(describe_validation(exc)) from None


def describe_validation(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        where = ".".join(str(p) for p in err["loc"][1:] if p != "type") or str(err["loc"][0] if err["loc"] else "")
        parts.append(f"{where}: {err['msg']}" if where else err["msg"])
    return "; ".join(parts)


# --- events ------------------------------------------------------------------


def new_game_events(name: str, system: str, board: Board) -> list[Event]:
    return [Event("game_created", {"name": name, "system": system, "board": board.to_dict()})]


def token_added(game: Game, name: str, x: int, y: int, **extra) -> Event:
    token = Token(id=game.next_id("t"), name=name, x=x, y=y, **extra)
    return Event("token_added", {"token": token.to_dict()})


def player_joined(game: Game, name: str, key: str) -> Event:
    name = _check_name(name)
    if len(game.players) >= 50:
        raise Rejected("this game has 50 players already")
    return Event("player_joined", {"player_id": game.next_id("p"), "name": name, "key_hash": key_hash(key)})


def _check_name(name: Any) -> str:
    if not isinstance(name, str) or not name.strip():
        raise Rejected("a name is needed")
    name = re.sub(r"\s+", " ", name.strip())
    if len(name) > 40:
        raise Rejected("a name has 40 characters at most")
    return name


def authorize(game: Game, cmd: Any, actor: Actor) -> None:
    if actor.role == "gm":
        return
    if actor.role == "screen":
        raise Rejected("the table screen only shows the map")
    if isinstance(cmd, MoveToken):
        token = game.tokens.get(cmd.token_id)
        if token is None or not game.may_see(actor, token):
            raise Rejected(f"no token {cmd.token_id!r} in this game")
        if token.owner != actor.player_id:
            raise Rejected(f"{token.name} is not yours to move")
        return
    raise Rejected("only the GM can do that")


def _token(game: Game, token_id: str) -> Token:
    token = game.tokens.get(token_id)
    if token is None:
        raise Rejected(f"no token {token_id!r} in this game")
    return token


def _check_cell(game: Game, x: int, y: int, moving: str | None = None) -> None:
    board = game.board
    if not board.in_bounds((x, y)):
        raise Rejected(f"({x}, {y}) is off the map ({board.width} x {board.height})")
    if board.is_blocked((x, y)):
        raise Rejected(f"({x}, {y}) is blocked")
    other = game.token_at(x, y, exclude=moving)
    if other is not None and other.id != moving:
        raise Rejected(f"({x}, {y}) is taken by {other.name}")


def _check_owner(game: Game, owner: str | None) -> None:
    if owner and owner not in game.players:
        raise Rejected(f"no player {owner!r} in this game")


def decide(game: Game, cmd: Any, actor: Actor, dice: DiceSource | None = None) -> list[Event]:
    """The events a command causes, or Rejected: the state is not touched here.

    ``dice`` is the game's dice source for commands that roll; what it rolls
    goes into the events, so the log never needs it again.
    """
    if isinstance(cmd, combat.COMMANDS):
        return combat.decide(game, cmd, actor, dice or RandomDice())
    if isinstance(cmd, attacks.Attack):
        return attacks.decide(game, cmd, actor, dice or RandomDice())
    if isinstance(cmd, characters.COMMANDS):
        return characters.decide(game, cmd, actor)
    authorize(game, cmd, actor)
    if isinstance(cmd, MoveToken):
        token = _token(game, cmd.token_id)
        if (token.x, token.y) == (cmd.x, cmd.y):
            raise Rejected(f"{token.name} is already at ({cmd.x}, {cmd.y})")
        _check_cell(game, cmd.x, cmd.y, moving=token.id)
        return [Event("token_moved", {"token_id": token.id, "x": cmd.x, "y": cmd.y, "from": [token.x, token.y]})]
    if isinstance(cmd, AddToken):
        if len(game.tokens) >= MAX_TOKENS:
            raise Rejected(f"a game holds {MAX_TOKENS} tokens at most")
        _check_cell(game, cmd.x, cmd.y)
        owner = cmd.owner or None
        _check_owner(game, owner)
        color = cmd.color or (PALETTE[len(game.tokens) % len(PALETTE)] if cmd.kind == "pc" else FOE_COLOR)
        return [token_added(game, cmd.name, cmd.x, cmd.y, color=color, owner=owner, hidden=cmd.hidden, kind=cmd.kind)]
    if isinstance(cmd, UpdateToken):
        token = _token(game, cmd.token_id)
        changes = {k: v for k, v in cmd.model_dump(exclude={"type", "token_id"}).items() if v is not None}
        if "owner" in changes:
            changes["owner"] = changes["owner"] or None
            _check_owner(game, changes["owner"])
        changes = {k: v for k, v in changes.items() if getattr(token, k) != v}
        if not changes:
            raise Rejected("nothing to change")
        return [Event("token_updated", {"token_id": token.id, "changes": changes})]
    if isinstance(cmd, RemoveToken):
        token = _token(game, cmd.token_id)
        return [Event("token_removed", {"token_id": token.id, "name": token.name})]
    if isinstance(cmd, SetDoor):
        door = game.board.doors.get(cmd.door_id)
        if door is None:
            raise Rejected(f"no door {cmd.door_id!r} on this map")
        if door.closed == cmd.closed:
            raise Rejected(f"the door is already {'closed' if cmd.closed else 'open'}")
        return [Event("door_set", {"door_id": cmd.door_id, "closed": cmd.closed})]
    if isinstance(cmd, ShowJoin):
        if game.show_join == cmd.show:
            raise Rejected(f"the join code is already {'shown' if cmd.show else 'hidden'}")
        return [Event("join_shown", {"show": cmd.show})]
    raise Rejected(f"unhandled command {type(cmd).__name__}")  # pragma: no cover


def _log(game: Game, text: str, audience: Literal["all", "gm"] = "all", detail: dict | None = None) -> None:
    game.log.append(LogEntry(seq=game.seq, text=text, audience=audience, detail=detail))
    del game.log[: -Game.LOG_KEEP]


def _bump_counter(game: Game, new_id: str) -> None:
    number = int(re.sub(r"\D", "", new_id) or 0)
    game.counter = max(game.counter, number)


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
    elif kind == "undone":
        history.evolve(game, event, lambda text, audience, detail: _log(game, text, audience, detail))
    elif kind == "game_created":
        game.name, game.system = d["name"], d["system"]
        game.board = Board.from_dict(d["board"])
    elif kind == "token_added":
        token = Token(**d["token"])
        game.tokens[token.id] = token
        _bump_counter(game, token.id)
        _log(game, f"{token.name} was added", "gm" if token.hidden else "all")
    elif kind == "token_moved":
        token = game.tokens[d["token_id"]]
        token.x, token.y = d["x"], d["y"]
        _log(game, f"{token.name} moved to ({token.x}, {token.y})", "gm" if token.hidden else "all")
    elif kind == "token_updated":
        token = game.tokens[d["token_id"]]
        for key, value in d["changes"].items():
            setattr(token, key, value)
    elif kind == "token_removed":
        token = game.tokens.pop(d["token_id"])
        _log(game, f"{token.name} was removed", "gm" if token.hidden else "all")
    elif kind == "door_set":
        game.board.set_door(d["door_id"], d["closed"])
        _log(game, f"a door was {'closed' if d['closed'] else 'opened'}")
    elif kind == "join_shown":
        game.show_join = d["show"]
    elif kind == "player_joined":
        game.players[d["player_id"]] = Player(id=d["player_id"], name=d["name"], key_hash=d["key_hash"])
        _bump_counter(game, d["player_id"])
        _log(game, f"{d['name']} joined")
    else:
        raise ValueError(f"unknown event type {kind!r}")


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
