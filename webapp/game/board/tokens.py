"""Tokens and doors on the board: place, move, copy, change and remove a token; open and close a door.

Outside a fight a token goes where a way leads that crosses no wall, no closed door and no blocking square
(``rules.movement.way_exists``), onto free squares; in a fight the table hands the move to the rules
(``combat.judge_move``). A token the sender may not see takes no square from them, so no refusal tells a
player where a hidden token stands.
"""

from __future__ import annotations

import copy
import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules.movement import way_exists

from ..fight import combat
from ..bridge import fighting, fog, heavy, zonelayout
from . import handouts, maps
from ..core import text
from ..bridge.describe import square_name
from ..core.feature import Feature
from ..core.model import (FOE_COLOR, GM, MAX_TOKENS, PALETTE, SCREEN, Actor, Character, Event, Game, Rejected, Token,
                          bump_counter, cells_at)
from rules.text import say, say_n
from ..core.text import N_

Name = text.Name
Color = Annotated[str, StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$")]
Coord = Annotated[int, Field(ge=-1000, le=1000)]
Id = text.Id
ZoneId = Annotated[text.Line, StringConstraints(min_length=1, max_length=40)]
Size = Annotated[int, Field(ge=1, le=3)]
Light = Annotated[int, Field(ge=0, le=60)]  # squares a token's own light reaches (webapp/game/board/lighting.py)


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
    light: Light = 0


class UpdateToken(_Command):
    type: Literal["update_token"]
    token_id: Id
    name: Name | None = None
    color: Color | None = None
    hidden: bool | None = None
    owner: Id | Literal[""] | None = None  # "" takes the token back from its player
    kind: Literal["pc", "npc"] | None = None
    size: Size | None = None
    light: Light | None = None
    picture: Id | Literal[""] | None = None  # a picture id (webapp/game/board/handouts.py); null or "" takes it off


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


COMMANDS = (MoveToken, AddToken, UpdateToken, DuplicateToken, RemoveToken, SetDoor)
EVENTS = ("token_added", "token_moved", "token_updated", "token_removed", "door_set")


def token_added(game: Game, name: str, x: int, y: int, **extra) -> Event:
    token = Token(id=game.next_id("t"), name=name, x=x, y=y, **extra)
    return Event("token_added", {"token": token.to_dict()})


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


def _token(game: Game, token_id: str) -> Token:
    token = game.tokens.get(token_id)
    if token is None:
        raise Rejected(N_("no token %(id)s in this game"), id=repr(token_id))
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
            raise Rejected(N_("tokens on a zone map take one square"))
        if zone is None or (x, y) not in set(zonelayout.cells_of(zone)):
            raise Rejected(N_("(%(x)s, %(y)s) is not in a zone"), x=x, y=y)
    for cx, cy in cells_at(x, y, size, board.grid):
        if not board.in_bounds((cx, cy)):
            where = f"({x}, {y})" if size == 1 else f"{_big(game, size)} token at ({x}, {y})"
            raise Rejected(N_("%(where)s is off the map (%(w)s x %(h)s)"), where=where, w=board.width, h=board.height)
        if board.is_blocked((cx, cy)):
            raise Rejected(N_("%(square)s is blocked"), square=square_name(cx, cy))
        other = game.token_at(cx, cy, exclude=moving, seen=lambda t: fog.may_see(game, actor, t))
        if other is not None:
            raise Rejected(N_("%(square)s is taken by %(name)s"), square=square_name(cx, cy), name=other.name)


def _check_known(game: Game, x: int, y: int, size: int, actor: Actor) -> None:
    """With fog, a player moves a token only onto squares they have seen: whatever is on a square in the
    fog (a wall, a hole, a pillar), the answer is the same."""
    known = fog.known(game, actor)
    if known is None:
        return
    if any(c not in known for c in cells_at(x, y, size, game.board.grid)):
        where = square_name(x, y) if size == 1 else f"{_big(game, size)} token at {square_name(x, y)}"
        raise Rejected(N_("%(where)s is in the fog: move onto squares your tokens have seen"), code="fog", where=where)


def _big(game: Game, size: int) -> str:
    """How a big token is named in a refusal: "a 2 x 2" on squares, "a 3-hex" on hexes."""
    if game.board.grid.hex:
        return f"a {len(game.board.grid.footprint((0, 0), size))}-hex"
    return f"a {size} x {size}"


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
        if board.grid.hex:
            ring = board.grid.ring((token.x, token.y), r)
        else:
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
        raise Rejected(N_("there is no free square on the map for a copy"))
    return best


def _check_owner(game: Game, owner: str | None) -> None:
    if owner and owner not in game.players:
        raise Rejected(N_("no player %(id)s in this game"), id=repr(owner))


def _move_token(game: Game, cmd: MoveToken, actor: Actor) -> list[Event]:
    token = _token(game, cmd.token_id)
    if game.zones is not None:
        return _move_in_zones(game, cmd, actor, token)
    if cmd.zone is not None or cmd.x is None or cmd.y is None:
        _place_of(game, cmd.x, cmd.y, cmd.zone, actor)  # says what is missing
    if (token.x, token.y) == (cmd.x, cmd.y):
        raise Rejected(N_("%(name)s is already at %(square)s"), name=token.name, square=square_name(cmd.x, cmd.y))
    _check_known(game, cmd.x, cmd.y, token.size, actor)
    _check_cell(game, cmd.x, cmd.y, moving=token.id, size=token.size, actor=actor)
    # the way is looked for on the map as the sender knows it: a refusal tells nothing of the fog; off the loop on
    # a big map (a corner-to-corner search there takes tens of ms: #57)
    if not cmd.force and not heavy.on_board(fog.known_board(game, actor), way_exists, (token.x, token.y),
                                            (cmd.x, cmd.y), token.size, diagonal_of(game)):
        raise Rejected(N_("%(name)s has no way through to %(square)s: walls or closed doors are in the way"),
                       code="no_way", name=token.name, square=square_name(cmd.x, cmd.y))
    data = {"token_id": token.id, "x": cmd.x, "y": cmd.y, "from": [token.x, token.y]}
    if cmd.force:
        data["forced"] = True
    return [Event("token_moved", data)]


def _place_of(game: Game, x: int | None, y: int | None, zone: str | None, actor: Actor = GM) -> tuple[int, int]:
    """Where a token goes: its square, or on a zone map a free square of the zone named."""
    if zone is not None:
        if game.zones is None:
            raise Rejected(N_("this map has no zones: give x and y"))
        found = next((z for z in game.zones if z["id"] == zone), None)
        if found is None:
            raise Rejected(N_("no zone %(id)s on this map"), id=repr(zone))
        taken = {(t.x, t.y) for t in fog.visible_tokens(game, actor)}  # a hidden token takes no square from a player
        for cell in zonelayout.cells_of(found):
            if cell not in taken:
                return cell
        raise Rejected(N_("%(name)s is full"), name=found["name"])
    if x is None or y is None:
        raise Rejected(N_("x and y are needed, or a zone") if game.zones is not None else N_("x and y are needed"))
    return x, y


def _move_in_zones(game: Game, cmd: MoveToken, actor: Actor, token: Token) -> list[Event]:
    """On a zone map a token goes to a square of a zone; a new zone must be reachable by adjacency."""
    if cmd.zone is not None and cmd.zone == zonelayout.zone_at(game.zones, token.x, token.y)["id"]:
        raise Rejected(N_("%(name)s is in that zone already"), name=token.name)
    x, y = _place_of(game, cmd.x, cmd.y, cmd.zone, actor)
    if (token.x, token.y) == (x, y):
        raise Rejected(N_("%(name)s is already there"), name=token.name)
    _check_cell(game, x, y, moving=token.id, actor=actor)
    here, there = zonelayout.zone_at(game.zones, token.x, token.y), zonelayout.zone_at(game.zones, x, y)
    data = {"token_id": token.id, "x": x, "y": y, "from": [token.x, token.y]}
    if here is not None and there["id"] != here["id"]:
        way = zonelayout.path(game.zones, here["id"], there["id"])
        if way is None and not cmd.force:
            raise Rejected(N_("%(name)s has no way from %(here)s to %(there)s"), code="no_way", name=token.name,
                           here=here["name"], there=there["name"])
        data |= {"zone": there["id"], "from_zone": here["id"], "zone_path": way or [here["id"], there["id"]]}
    if cmd.force:
        data["forced"] = True
    return [Event("token_moved", data)]


def _add_token(game: Game, cmd: AddToken, actor: Actor) -> list[Event]:
    if len(game.tokens) >= MAX_TOKENS:
        raise Rejected(N_("a game holds %(n)s tokens at most"), n=MAX_TOKENS)
    x, y = _place_of(game, cmd.x, cmd.y, cmd.zone)
    cmd = cmd.model_copy(update={"x": x, "y": y})
    _check_cell(game, cmd.x, cmd.y, size=cmd.size)
    owner = cmd.owner or None
    _check_owner(game, owner)
    color = cmd.color or (PALETTE[len(game.tokens) % len(PALETTE)] if cmd.kind == "pc" else FOE_COLOR)
    return [token_added(game, numbered_name(game, cmd.name), cmd.x, cmd.y, color=color, owner=owner,
                        hidden=cmd.hidden, kind=cmd.kind, size=cmd.size, light=cmd.light)]


def _duplicate_token(game: Game, cmd: DuplicateToken, actor: Actor) -> list[Event]:
    token = _token(game, cmd.token_id)
    if len(game.tokens) >= MAX_TOKENS:
        raise Rejected(N_("a game holds %(n)s tokens at most"), n=MAX_TOKENS)
    x, y = _free_place_near(game, token)
    added = token_added(game, numbered_name(game, token.name), x, y, color=token.color, owner=token.owner,
                        hidden=token.hidden, kind=token.kind, size=token.size, light=token.light,
                        sheet=dict(token.sheet), picture=token.picture)
    character = fighting.of_token(game, token.id)
    if character is not None:
        # the copy plays a copy of the character, its own wounds from then on: without one it played the system's
        # sample character (#70). In the same event, an optional field: one line in the log, undone with the token
        twin = added.data["token"]
        sheet = copy.deepcopy(character.sheet) | ({"name": twin["name"]} if "name" in character.sheet else {})
        added.data["character"] = Character(id=game.next_id("c"), name=twin["name"], owner=character.owner,
                                            token_id=twin["id"], sheet=sheet).to_dict()
    return [added]


def _update_token(game: Game, cmd: UpdateToken, actor: Actor) -> list[Event]:
    token = _token(game, cmd.token_id)
    changes = {k: v for k, v in cmd.model_dump(exclude={"type", "token_id", "picture"}).items() if v is not None}
    if actor.role != "gm" and changes:  # the access matrix let the token's player in: for its picture only
        raise Rejected(N_("a player changes only the picture of their token, not its %(fields)s"),
                       fields=", ".join(sorted(changes)))
    if "picture" in cmd.model_fields_set:
        changes["picture"] = cmd.picture or None
        handouts.check_picture_choice(game, actor, changes["picture"])
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
    # whether the players and the table screen could see it as it went (the screen sees what they see together):
    # a fact of the moment, kept in the event, so the names of a token nobody at the table saw stay unread (#62)
    unseen = {"unseen": True} if not fog.may_see(game, SCREEN, token) else {}
    return [Event("token_removed", {"token_id": token.id, "name": token.name, **unseen})]


def _set_door(game: Game, cmd: SetDoor, actor: Actor) -> list[Event]:
    door = maps.map_board(game, cmd.map_id).doors.get(cmd.door_id)
    if door is None:
        raise Rejected(N_("no door %(id)s on this map"), id=repr(cmd.door_id))
    if door.closed == cmd.closed:
        raise Rejected(N_("the door is already closed") if cmd.closed else N_("the door is already open"))
    data = {"door_id": cmd.door_id, "closed": cmd.closed}
    if cmd.map_id is not None and cmd.map_id != game.active_map:
        data["map_id"] = cmd.map_id
    return [Event("door_set", data)]


#: one decide per command type (DESIGN: one command, one place)
DECIDE = {
    MoveToken: _move_token,
    AddToken: _add_token,
    DuplicateToken: _duplicate_token,
    UpdateToken: _update_token,
    RemoveToken: _remove_token,
    SetDoor: _set_door,
}


def decide(game: Game, cmd: Any, actor: Actor) -> list[Event]:
    return DECIDE[type(cmd)](game, cmd, actor)


def evolve(game: Game, event: Event, log) -> None:
    d = event.data
    kind = event.type
    if kind == "token_added":
        token = Token(**d["token"])
        game.tokens[token.id] = token
        bump_counter(game, token.id)
        if "character" in d:  # a copy's own character (_duplicate_token); an older log's copies have none
            character = Character(**copy.deepcopy(d["character"]))
            game.characters[character.id] = character
            bump_counter(game, character.id)
        log(say("{name} was added", name=token.name), "gm" if token.hidden or game.fog_on else "all")
    elif kind == "token_moved":
        token = game.tokens[d["token_id"]]
        token.x, token.y = d["x"], d["y"]
        where = f"({token.x}, {token.y})"
        if game.zones is not None:
            zone = zonelayout.zone_at(game.zones, token.x, token.y)
            where = zone["name"] if zone else where
        # with fog on, where a token went is news only for those who see it: the map shows them
        moved = say("{name} moved to {where}", name=token.name, where=where)
        log(say("GM ruling: {line}", line=moved) if d.get("forced") else moved, "gm" if token.hidden or game.fog_on else "all")
        if "fight" in d:
            combat.book_move(game, token, d["fight"], log)
    elif kind == "token_updated":
        token = game.tokens[d["token_id"]]
        for key, value in d["changes"].items():
            setattr(token, key, value)
        if "light" in d["changes"]:  # what lights the map is news, as a light put down is
            said = ((say_n("{name} carries a light ({n} hex)", "{name} carries a light ({n} hexes)", token.light,
                           name=token.name) if game.board.grid.hex else
                     say_n("{name} carries a light ({n} square)", "{name} carries a light ({n} squares)", token.light,
                           name=token.name)) if token.light
                    else say("{name} carries no light now", name=token.name))
            log(said, "gm" if token.hidden or game.fog_on else "all")
    elif kind == "token_removed":
        token = game.tokens.pop(d["token_id"])
        game.removed[token.id] = token.name
        while len(game.removed) > game.REMOVED_KEEP:
            game.removed.pop(next(iter(game.removed)))
        if d.get("unseen"):  # (an older log's removals carry no such word: as before)
            game.removed_unseen[token.id] = token.name
            while len(game.removed_unseen) > game.REMOVED_KEEP:
                game.removed_unseen.pop(next(iter(game.removed_unseen)))
        # with fog on, as its arrival and its moves: players who saw it see it go; a name they never saw is not
        # written for them (the line would outlive the fog: turned off later, it would name it)
        log(say("{name} was removed", name=token.name), "gm" if token.hidden or game.fog_on else "all")
    elif kind == "door_set":
        maps.map_board(game, d.get("map_id")).set_door(d["door_id"], d["closed"])
        log(say("a door was closed") if d["closed"] else say("a door was opened"), "gm" if d.get("map_id") else "all")


def guard(game: Game, cmd: Any, actor: Actor, aside: dict) -> None:
    """A forced move (through walls, past the rules) is the GM's alone."""
    if isinstance(cmd, MoveToken) and cmd.force and actor.role != "gm":
        raise Rejected(N_("only the GM can force a move"))


FEATURE = Feature("tokens", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve,
                  guard=guard)
