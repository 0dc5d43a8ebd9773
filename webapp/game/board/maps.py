"""A game's maps: several per game, one active; the GM prepares the next while players see this one.

Pure, like ``table``: commands -> events -> state. ``game.board``, ``game.zones``
and ``game.tokens`` stay "the active map's", so the rest of the app is
unchanged. ``game.maps`` holds every map by id; the active map's board, zones
and tokens live in ``game.board`` / ``game.zones`` / ``game.tokens`` (its
``GameMap`` holds None for them, so no stale copy exists), the other maps keep
their own.

Tokens belong to a map: each map keeps its own (the foes of the cave stay in
the cave). Showing another map takes the player characters' tokens (kind
``pc``) along: each goes to the same square on the new map when it is free,
else to the nearest free square; tokens without a free square stay behind.
A map switch is refused during a fight.

Every editor command that may name a map resolves it through :func:`map_board`
(``map_id`` None: the active map).
"""

from __future__ import annotations

import re
import secrets
import unicodedata
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules.board import Board
from rules.grid import SQUARE, Grid

from ..core import text
from ..bridge import zonelayout
from .mapdata import zone_map
from ..core.feature import Feature
from ..core.model import FIRST_MAP, MAX_BOARD, Event, GameMap, Rejected, cells_at, lights_with_ids
from rules.text import say
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game

MAX_MAPS = 20
MAX_SIDE = MAX_BOARD  # a blank map's side
PICTURE_NAME = re.compile(r"^[0-9a-f]{64}\.(png|jpg|webp)$")


# --- looking maps up ---------------------------------------------------------


def get_map(game: "Game", map_id: str | None) -> GameMap:
    """The map named (None: the active one), or Rejected."""
    found = game.maps.get(game.active_map if map_id is None else map_id)
    if found is None:
        raise Rejected(N_("no map %(id)s in this game"), id=repr(map_id))
    return found


def map_board(game: "Game", map_id: str | None) -> Board:
    """The board of the map named (None or the active map's id: ``game.board``), or Rejected."""
    m = get_map(game, map_id)
    return game.board if m.id == game.active_map else m.board


def map_zones(game: "Game", map_id: str | None) -> list[dict] | None:
    m = get_map(game, map_id)
    return game.zones if m.id == game.active_map else m.zones


def map_tokens(game: "Game", map_id: str | None) -> dict:
    m = get_map(game, map_id)
    return game.tokens if m.id == game.active_map else m.tokens


def shown_to_gm(game: "Game") -> str:
    """The map the GM's screen shows: the one being prepared, else the active one."""
    return game.gm_view if game.gm_view in game.maps else game.active_map


def picture_box(m: GameMap) -> dict | None:
    """Where the picture lies on the grid, in cells (on hexes: drawing units, one hex flat side to flat
    side, so the picture's pixels stay square): ``{x, y, width, height}``."""
    if not m.picture:
        return None
    a = m.align
    k = a["cell_px"]
    return {"x": -a["offset_x"] / k, "y": -a["offset_y"] / k,
            "width": m.picture["width"] / k, "height": m.picture["height"] / k}


def summary(game: "Game") -> list[dict]:
    """The maps as the GM's list shows them (and the JSON state)."""
    out = []
    for m in game.maps.values():
        board = map_board(game, m.id)
        out.append({"id": m.id, "name": m.name, "width": board.width, "height": board.height,
                    "active": m.id == game.active_map, "walls": len(board.walls), "doors": len(board.doors),
                    "picture": m.picture["name"] if m.picture else None, "align": dict(m.align),
                    "fog": game.fog_on if m.id == game.active_map else m.fog,  # the active map's lives in game
                    "zones": map_zones(game, m.id) is not None, "lights": len(m.lights), "ambient": m.ambient,
                    "tokens": len(map_tokens(game, m.id)), **board.grid.to_dict()})
    return out


# --- commands ----------------------------------------------------------------

MapName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]
MapId = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Side = Annotated[int, Field(ge=1, le=MAX_SIDE)]


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


class AddMap(_Command):
    type: Literal["add_map"]
    name: MapName
    width: Side = 24
    height: Side = 16
    grid: Literal["square", "hex"] = "square"
    orientation: Literal["pointy", "flat"] | None = None  # hexes: pointy-top rows (the default) or flat-top columns


class RenameMap(_Command):
    type: Literal["rename_map"]
    map_id: MapId
    name: MapName


class RemoveMap(_Command):
    type: Literal["remove_map"]
    map_id: MapId


class ActivateMap(_Command):
    type: Literal["activate_map"]
    map_id: MapId


class ViewMap(_Command):
    type: Literal["view_map"]
    map_id: MapId | None = None  # None: back to the active map


class AlignPicture(_Command):
    """Where the picture lies: ``cell_px`` (or ``cells_across``) and the picture pixel on the grid's corner."""
    type: Literal["align_picture"]
    map_id: MapId | None = None
    cell_px: Annotated[float, Field(gt=0, le=4096, allow_inf_nan=False)] | None = None
    cells_across: Annotated[float, Field(gt=0, le=1000, allow_inf_nan=False)] | None = None
    offset_x: Annotated[float, Field(ge=-100_000, le=100_000, allow_inf_nan=False)] = 0
    offset_y: Annotated[float, Field(ge=-100_000, le=100_000, allow_inf_nan=False)] = 0


class RemovePicture(_Command):
    type: Literal["remove_picture"]
    map_id: MapId | None = None


COMMANDS = (AddMap, RenameMap, RemoveMap, ActivateMap, ViewMap, AlignPicture, RemovePicture)
EVENTS = ("map_added", "map_renamed", "map_removed", "map_activated", "map_viewed", "picture_set",
          "picture_aligned", "map_imported")


def new_map_id(game: "Game") -> str:
    while True:
        map_id = f"map-{secrets.token_hex(4)}"
        if map_id not in game.maps:
            return map_id


def _check_room(game: "Game") -> None:
    if len(game.maps) >= MAX_MAPS:
        raise Rejected(N_("a game holds %(n)s maps at most; remove one first"), n=MAX_MAPS)


def _taken_name(game: "Game", name: str, exclude: str | None = None) -> None:
    if any(m.name.casefold() == name.casefold() and m.id != exclude for m in game.maps.values()):
        raise Rejected(N_("a map is already called %(name)s"), name=repr(name))


def _add_map(game: "Game", cmd: AddMap) -> list[Event]:
    _check_room(game)
    _taken_name(game, cmd.name)
    data: dict = {"map_id": new_map_id(game), "name": cmd.name, "fog": False}
    try:
        zone_game = rules.get(game.system).board == "zones"
    except KeyError:
        zone_game = False
    if zone_game and cmd.grid == "hex":
        raise Rejected(N_("grid: this game system plays on zone maps, not hexes"))
    if zone_game:  # a zone game's blank map is the small default zone map
        board, zones = zone_map({"zones": zonelayout.DEFAULT_ZONES})
        data |= {"board": board.to_dict(), "zones": zones}
    else:
        if cmd.grid == "square" and cmd.orientation is not None:
            raise Rejected(N_("only a hex grid has an orientation"))
        grid = Grid("hex", cmd.orientation or "pointy") if cmd.grid == "hex" else SQUARE
        data["board"] = Board(cmd.width, cmd.height, grid).to_dict()
    return [Event("map_added", data)]


def _rename_map(game: "Game", cmd: RenameMap) -> list[Event]:
    m = get_map(game, cmd.map_id)
    if m.name == cmd.name:
        return []
    _taken_name(game, cmd.name, exclude=m.id)
    return [Event("map_renamed", {"map_id": m.id, "name": cmd.name})]


def _remove_map(game: "Game", cmd: RemoveMap) -> list[Event]:
    m = get_map(game, cmd.map_id)
    if m.id == game.active_map:
        raise Rejected(N_("%(name)s is the map everyone sees: show another map first"), name=m.name)
    return [Event("map_removed", {"map_id": m.id, "name": m.name, "tokens": list(m.tokens)})]


def free_place(board: Board, zones: list[dict] | None, x: int, y: int, size: int, taken: set) -> tuple[int, int] | None:
    """The free place nearest (x, y) for a token of ``size`` on a board (its own square first)."""
    def fits(px: int, py: int) -> bool:
        cells = cells_at(px, py, size, board.grid)
        if zones is not None:
            zone = zonelayout.zone_at(zones, px, py)
            if size != 1 or zone is None or (px, py) not in set(zonelayout.cells_of(zone)):
                return False
        return all(board.in_bounds(c) and not board.is_blocked(c) and c not in taken for c in cells)

    x = min(max(x, 0), board.width - 1)
    y = min(max(y, 0), board.height - 1)
    for r in range(0, max(board.width, board.height) + 1):
        ring = [(x + dx, y + dy) for dy in range(-r, r + 1) for dx in range(-r, r + 1) if max(abs(dx), abs(dy)) == r]
        for px, py in ring:
            if fits(px, py):
                return px, py
    return None


def carried_tokens(game: "Game", to: GameMap) -> dict[str, list[int]]:
    """Where the party's tokens land on the map ``to``: same square if free, else the nearest free one."""
    board, zones = to.board, to.zones
    taken = {c for t in to.tokens.values() for c in t.cells(grid=board.grid)}
    carried = {}
    for t in sorted(game.tokens.values(), key=lambda t: (t.y, t.x, t.id)):
        if t.kind != "pc":
            continue
        size = 1 if zones is not None else t.size
        place = free_place(board, zones, t.x, t.y, size, taken)
        if place is None:
            continue
        carried[t.id] = list(place)
        taken |= set(t.cells(place[0], place[1], size, board.grid))
    return carried


def activation(game: "Game", map_id: str) -> Event:
    m = get_map(game, map_id)
    return Event("map_activated", {"map_id": m.id, "from": game.active_map, "carried": carried_tokens(game, m)})


def _activate_map(game: "Game", cmd: ActivateMap) -> list[Event]:
    m = get_map(game, cmd.map_id)
    if m.id == game.active_map:
        raise Rejected(N_("%(name)s is already the map everyone sees"), name=m.name)
    if game.combat is not None:
        raise Rejected(N_("end the fight before showing another map"))
    return [activation(game, m.id)]


def _view_map(game: "Game", cmd: ViewMap) -> list[Event]:
    target = None if cmd.map_id in (None, game.active_map) else get_map(game, cmd.map_id).id
    if target == game.gm_view:
        return []
    return [Event("map_viewed", {"map_id": target})]


def default_align(picture: dict, board: Board) -> dict:
    """A new picture covers the map's width: as many pixels per cell as that takes (on hexes, per hex
    flat side to flat side, across the width the hexes are drawn: half a hex more on pointy tops)."""
    across = board.grid.extent(board.width, board.height)[0] * board.grid.unit[0]
    return {"cell_px": round(picture["width"] / across, 4), "offset_x": 0.0, "offset_y": 0.0}


def _align_picture(game: "Game", cmd: AlignPicture) -> list[Event]:
    m = get_map(game, cmd.map_id)
    if not m.picture:
        raise Rejected(N_("%(name)s has no picture to align"), name=m.name)
    if cmd.cell_px is None and cmd.cells_across is None:
        raise Rejected(N_("give cell_px (pixels per cell) or cells_across (cells the picture spans)"))
    cell_px = cmd.cell_px if cmd.cell_px is not None else m.picture["width"] / cmd.cells_across
    if cell_px < 1:
        raise Rejected(N_("a cell is at least one pixel of the picture"))
    align = {"cell_px": round(float(cell_px), 4), "offset_x": float(cmd.offset_x), "offset_y": float(cmd.offset_y)}
    if align == m.align:
        return []
    return [Event("picture_aligned", {"map_id": m.id, "align": align})]


def _remove_picture(game: "Game", cmd: RemovePicture) -> list[Event]:
    m = get_map(game, cmd.map_id)
    if not m.picture:
        raise Rejected(N_("%(name)s has no picture"), name=m.name)
    return [Event("picture_set", {"map_id": m.id, "picture": None, "align": m.align})]


DECIDE = {AddMap: _add_map, RenameMap: _rename_map, RemoveMap: _remove_map, ActivateMap: _activate_map,
          ViewMap: _view_map, AlignPicture: _align_picture, RemovePicture: _remove_picture}


def decide(game: "Game", cmd: Any, actor: "Actor") -> list[Event]:
    if actor.role != "gm":
        raise Rejected(N_("only the GM can change the maps"))
    return DECIDE[type(cmd)](game, cmd)


# --- events made outside a command (an upload) ----------------------------------


def picture_set(game: "Game", map_id: str | None, picture: dict) -> Event:
    m = get_map(game, map_id)
    return Event("picture_set", {"map_id": m.id, "picture": picture,
                                 "align": default_align(picture, map_board(game, m.id))})


def imported(game: "Game", name: str, board: Board, picture: dict | None, cell_px: float,
             lights: list[dict], ambient: str = "bright") -> list[Event]:
    """A map from a Universal VTT file, then shown to everyone (fog on, as imported maps start), with its
    lights (each given an id) and its ambient light (webapp/game/board/lighting.py)."""
    _check_room(game)
    if game.combat is not None:
        raise Rejected(N_("end the fight before importing a map (an imported map is shown to everyone)"))
    if game.board.grid.hex and not board.grid.hex:
        raise Rejected(N_("a Universal VTT file is a square grid and this game's map is hexes: "
                          "import it into a game on squares"))
    name = unicodedata.normalize("NFC", text.check(name.strip(), "the map's name")) or "Imported map"
    base, n = name[:40], 2
    while any(m.name.casefold() == name.casefold() for m in game.maps.values()):
        name = f"{base[: 40 - len(str(n)) - 1]} {n}"
        n += 1
    map_id = new_map_id(game)
    data = {"map_id": map_id, "name": name, "board": board.to_dict(), "picture": picture,
            "align": {"cell_px": float(cell_px), "offset_x": 0.0, "offset_y": 0.0}, "lights": lights_with_ids(lights),
            "fog": True}
    if ambient != "bright":
        data["ambient"] = ambient
    made = Event("map_imported", data)
    to = GameMap(id=map_id, name=name, board=board)
    return [made, Event("map_activated", {"map_id": map_id, "from": game.active_map,
                                          "carried": carried_tokens(game, to)})]


# --- state ---------------------------------------------------------------------


def first_map(game: "Game", name: str = "Main map") -> None:
    """A new game's map (game_created): the active one, its board is game.board."""
    game.maps = {FIRST_MAP: GameMap(id=FIRST_MAP, name=name, board=None)}
    game.active_map = FIRST_MAP
    game.gm_view = None


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    kind = event.type
    if kind == "map_added":
        game.maps[d["map_id"]] = GameMap(id=d["map_id"], name=d["name"], board=Board.from_dict(d["board"]),
                                         zones=d.get("zones"), fog=d.get("fog", False))
        log(say("the GM made a map: {name}", name=d["name"]), "gm", None)
    elif kind == "map_imported":
        game.maps[d["map_id"]] = GameMap(id=d["map_id"], name=d["name"], board=Board.from_dict(d["board"]),
                                         picture=d.get("picture"), align=dict(d["align"]),
                                         lights=lights_with_ids(d.get("lights", [])), ambient=d.get("ambient", "bright"),
                                         fog=d.get("fog", True))
        log(say("the GM imported a map: {name}", name=d["name"]), "gm", None)
    elif kind == "map_renamed":
        m = game.maps[d["map_id"]]
        old, m.name = m.name, d["name"]
        log(say("the GM renamed the map {old} to {name}", old=old, name=m.name), "all" if m.id == game.active_map else "gm", None)
    elif kind == "map_removed":
        game.maps.pop(d["map_id"], None)
        if game.gm_view == d["map_id"]:
            game.gm_view = None
        log(say("the GM removed the map {name}", name=d["name"]), "gm", None)
    elif kind == "map_activated":
        old, new = game.maps[d["from"]], game.maps[d["map_id"]]
        carried = {tid: xy for tid, xy in d["carried"].items() if tid in game.tokens}
        old.board, old.zones = game.board, game.zones
        old.tokens = {tid: t for tid, t in game.tokens.items() if tid not in carried}
        tokens = dict(new.tokens)
        for tid, (x, y) in carried.items():
            t = game.tokens[tid]
            t.x, t.y = x, y
            if new.zones is not None:
                t.size = 1
            tokens[tid] = t
        game.board, game.zones, game.tokens = new.board, new.zones, tokens
        # fog goes with its map; what players saw of the old map is not carried over (webapp/game/bridge/fog.py)
        old.fog, game.fog_on = game.fog_on, new.fog
        game.revealed, game.explored = set(), {}
        new.board, new.zones, new.tokens = None, None, {}
        game.active_map, game.gm_view = new.id, None
        log(say("the GM showed the map {name} to everyone", name=new.name), "all", None)
    elif kind == "map_viewed":
        game.gm_view = d["map_id"]
    elif kind == "picture_set":
        m = game.maps[d["map_id"]]
        m.picture, m.align = d["picture"], dict(d["align"])
        log(say("the GM set the picture of {name}", name=m.name) if d["picture"] else
            say("the GM removed the picture of {name}", name=m.name),
            "all" if m.id == game.active_map else "gm", None)
    elif kind == "picture_aligned":
        game.maps[d["map_id"]].align = dict(d["align"])
    else:
        raise ValueError(f"unknown map event {kind!r}")


#: another map shown redraws every screen's whole map
FEATURE = Feature("maps", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve,
                  heavy=frozenset({"activate_map"}))
