"""The GM's map editor and fog controls: every edit is a command, decided here and applied by ``evolve``.

Walls, doors, blocking squares, difficult terrain, cover pieces, the map's
size; on a zone map the zones (a rectangle of squares each, a name, links,
a cover level); fog on or off, and areas revealed or hidden by hand. Each
command may name the map it edits (``map_id``); :func:`map_board` resolves
it (today only the active map exists).
"""

from __future__ import annotations

import importlib
import re
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules.board import Board

from ..bridge import fog, zonelayout
from .maps import get_map, map_board as board_of
from ..core.feature import Feature
from ..core.model import MAX_BOARD, MAX_SEGMENTS, Event, Rejected
from rules.text import say
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game

MAX_SIDE = MAX_BOARD
MAX_ZONES = 60
MAX_TERRAIN = 10
GENERIC_MATERIALS = (N_("wood"), N_("stone"), N_("metal"), N_("sandbags"), N_("concrete"), N_("crate"))
ZONE_COVER = ("none", "light", "partial", "medium", "good", "heavy", "excellent", "full", "total")
#: a zone's cover grade as the editor names it (the rules' words: each zone-map system's grades)
ZONE_COVER_WORDS = {"none": say("none"), "light": say("light"), "partial": say("partial"), "medium": say("medium"),
                    "good": say("good"), "heavy": say("heavy"), "excellent": say("excellent"), "full": say("full"),
                    "total": say("total")}

Num = Annotated[float, Field(ge=-1, le=MAX_SIDE + 1, allow_inf_nan=False)]
Point = Annotated[list[Num], Field(min_length=2, max_length=2)]
Cell = Annotated[int, Field(ge=0, lt=MAX_SIDE)]
Side = Annotated[int, Field(ge=1, le=MAX_SIDE)]
Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]
MapId = Annotated[str, StringConstraints(min_length=1, max_length=64)] | None
ZoneName = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


def map_board(game: "Game", map_id: str | None) -> Board:
    """The board a command edits: the active map's (None or its id), or a map the GM is preparing."""
    return board_of(game, map_id)


def _prepared(game: "Game", map_id: str | None):
    """The map being prepared that ``map_id`` names, or None for the active map."""
    m = get_map(game, map_id)
    return None if m.id == game.active_map else m


class _Edit(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    map_id: MapId = None


class AddWall(_Edit):
    type: Literal["add_wall"]
    a: Point
    b: Point


class RemoveWall(_Edit):
    type: Literal["remove_wall"]
    wall_id: Id


class AddDoor(_Edit):
    type: Literal["add_door"]
    a: Point
    b: Point
    closed: bool = True


class RemoveDoor(_Edit):
    type: Literal["remove_door"]
    door_id: Id


class BlockCell(_Edit):
    type: Literal["block_cell"]
    x: Cell
    y: Cell


class UnblockCell(_Edit):
    type: Literal["unblock_cell"]
    x: Cell
    y: Cell


class SetTerrain(_Edit):
    type: Literal["set_terrain"]
    x: Cell
    y: Cell
    cost: Annotated[float, Field(gt=0, le=MAX_TERRAIN, allow_inf_nan=False)] = 2


class AddCover(_Edit):
    type: Literal["add_cover"]
    x: Cell
    y: Cell
    material: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40)]


class RemoveCover(_Edit):
    type: Literal["remove_cover"]
    cover_id: Id


class ResizeMap(_Edit):
    type: Literal["resize_map"]
    width: Side
    height: Side


Box = Annotated[list[Annotated[int, Field(ge=0, le=MAX_SIDE)]], Field(min_length=4, max_length=4)]


class AddZone(_Edit):
    type: Literal["add_zone"]
    name: ZoneName
    box: Box  # [x, y, w, h] in squares
    cover: Literal[ZONE_COVER] = "none"  # type: ignore[valid-type]


class UpdateZone(_Edit):
    type: Literal["update_zone"]
    zone_id: Id
    name: ZoneName | None = None
    box: Box | None = None
    cover: Literal[ZONE_COVER] | None = None  # type: ignore[valid-type]


class RemoveZone(_Edit):
    type: Literal["remove_zone"]
    zone_id: Id


class LinkZones(_Edit):
    type: Literal["link_zones"]
    a: Id
    b: Id
    linked: bool = True


class SetFog(_Edit):
    type: Literal["set_fog"]
    enabled: bool


class _Area(_Edit):
    x: Cell
    y: Cell
    w: Side = 1
    h: Side = 1


class RevealCells(_Area):
    type: Literal["reveal_cells"]


class HideCells(_Area):
    type: Literal["hide_cells"]


COMMANDS = (AddWall, RemoveWall, AddDoor, RemoveDoor, BlockCell, UnblockCell, SetTerrain, AddCover, RemoveCover,
            ResizeMap, AddZone, UpdateZone, RemoveZone, LinkZones, SetFog, RevealCells, HideCells)
EVENTS = ("wall_added", "wall_removed", "door_added", "door_removed", "cell_blocked", "cell_unblocked",
          "terrain_set", "cover_added", "cover_removed", "map_resized", "zone_added", "zone_updated",
          "zone_removed", "zones_linked", "fog_set", "cells_revealed", "cells_hidden")


# --- helpers -------------------------------------------------------------------


def _snap(v: float) -> float | int:
    """Free points are kept to an eighth of a square: exact geometry, and closer than any hand."""
    v = round(v * 8) / 8
    return int(v) if float(v).is_integer() else v


def _segment(board: Board, a, b) -> tuple[list, list]:
    a, b = [_snap(v) for v in a], [_snap(v) for v in b]
    ex, ey = board.grid.extent(board.width, board.height)  # squares: width x height; hexes: in map units
    for p in (a, b):
        if not (0 <= p[0] <= ex and 0 <= p[1] <= ey):
            raise Rejected(N_("(%(x)s, %(y)s) is off the map (0..%(w)s, 0..%(h)s)"), x=p[0], y=p[1], w=f"{ex:g}", h=f"{ey:g}")
    if a == b:
        raise Rejected(N_("a wall or door needs two different end points"))
    if len(board.walls) + len(board.doors) >= MAX_SEGMENTS:
        raise Rejected(N_("a map holds %(n)s wall and door segments at most"), n=f"{MAX_SEGMENTS:,}")
    same = {tuple(a), tuple(b)}
    for s in list(board.walls.values()) + list(board.doors.values()):
        if {tuple(s.a), tuple(s.b)} == same:
            raise Rejected(N_("there is a door there already") if s.id in board.doors
                           else N_("there is a wall there already"))
    return a, b


def _fresh_id(board: Board, kind: str, taken) -> str:
    """The next id of its kind (decided here, so the event carries it and a replay gives the same)."""
    numbers = [int(m.group(1)) for i in taken if (m := re.match(rf"^{kind}-(\d+)$", i))]
    return f"{kind}-{max(numbers, default=0) + 1}"


def _cell_on(board: Board, x: int, y: int) -> tuple[int, int]:
    if not board.in_bounds((x, y)):
        raise Rejected(N_("(%(x)s, %(y)s) is off the map (%(w)s x %(h)s)"), x=x, y=y, w=board.width, h=board.height)
    return x, y


def materials(game: "Game") -> list[str]:
    """The cover materials the game's system knows (its material table), else plain ones."""
    try:
        system = rules.get(game.system)
    except KeyError:
        return list(GENERIC_MATERIALS)
    table = getattr(system, "cover_materials", None)
    if table is None:
        try:
            table = getattr(importlib.import_module(f"rules.{system.id}.data"), "COVER_MATERIALS", None)
        except ImportError:
            table = None
    return list(table) if table else list(GENERIC_MATERIALS)


def _zone(game: "Game", zone_id: str) -> dict:
    if game.zones is None:
        raise Rejected(N_("this map has no zones"))
    found = next((z for z in game.zones if z["id"] == zone_id), None)
    if found is None:
        raise Rejected(N_("no zone %(id)s on this map"), id=repr(zone_id))
    return found


def _check_box(game: "Game", board: Board, box: list[int], exclude: str | None = None) -> None:
    x, y, w, h = box
    if w < 2 or h < 3:
        raise Rejected(N_("a zone is at least 2 squares wide and 3 high (its name takes the top rows)"))
    if x + w > board.width or y + h > board.height:
        raise Rejected(N_("the zone does not fit on the map (%(w)s x %(h)s)"), w=board.width, h=board.height)
    for z in game.zones or []:
        if z["id"] == exclude:
            continue
        zx, zy, zw, zh = z["box"]
        if x < zx + zw and zx < x + w and y < zy + zh and zy < y + h:
            raise Rejected(N_("the zone would overlap %(name)s"), name=z["name"])


def _tokens_in(game: "Game", cells) -> list:
    cells = set(cells)
    return [t for t in game.tokens.values() if any(c in cells for c in game.cells_of(t))]


# --- decide ----------------------------------------------------------------------


def decide(game: "Game", cmd, actor: "Actor") -> list[Event]:
    if actor.role != "gm":
        raise Rejected(N_("only the GM can edit the map"))
    board = map_board(game, cmd.map_id)
    where = {"map_id": cmd.map_id} if cmd.map_id is not None else {}
    grid_only = (AddWall, AddDoor, BlockCell, SetTerrain, AddCover)
    prepared = _prepared(game, cmd.map_id)
    zones = game.zones if prepared is None else prepared.zones
    if prepared is not None and isinstance(cmd, (RevealCells, HideCells)):
        raise Rejected(N_("reveal and hide on the map everyone sees: show this map first"))
    if prepared is not None and not isinstance(cmd, grid_only + (RemoveWall, RemoveDoor, UnblockCell, RemoveCover,
                                                                    ResizeMap, SetFog)):
        raise Rejected(N_("zones of a map being prepared are drawn once it is shown"))
    if zones is not None and isinstance(cmd, grid_only):
        raise Rejected(N_("this is a zone map: draw zones, not walls"))
    match cmd:
        case AddWall(a=a, b=b):
            a, b = _segment(board, a, b)
            return [Event("wall_added", {"id": _fresh_id(board, "wall", board.walls), "a": a, "b": b, **where})]
        case AddDoor(a=a, b=b, closed=closed):
            a, b = _segment(board, a, b)
            return [Event("door_added", {"id": _fresh_id(board, "door", board.doors), "a": a, "b": b,
                                         "closed": closed, **where})]
        case RemoveWall(wall_id=wid):
            wall = board.walls.get(wid)
            if wall is None:
                raise Rejected(N_("no wall %(id)s on this map"), id=repr(wid))
            return [Event("wall_removed", {"id": wid, **where})]
        case RemoveDoor(door_id=did):
            if did not in board.doors:
                raise Rejected(N_("no door %(id)s on this map"), id=repr(did))
            return [Event("door_removed", {"id": did, **where})]
        case BlockCell(x=x, y=y):
            _cell_on(board, x, y)
            if board.is_blocked((x, y)):
                raise Rejected(N_("(%(x)s, %(y)s) is blocked already"), x=x, y=y)
            if board is game.board and _tokens_in(game, [(x, y)]):
                raise Rejected(N_("a token stands on (%(x)s, %(y)s): move it first"), x=x, y=y)
            return [Event("cell_blocked", {"x": x, "y": y, **where})]
        case UnblockCell(x=x, y=y):
            _cell_on(board, x, y)
            if not board.is_blocked((x, y)):
                raise Rejected(N_("(%(x)s, %(y)s) is not blocked"), x=x, y=y)
            return [Event("cell_unblocked", {"x": x, "y": y, **where})]
        case SetTerrain(x=x, y=y, cost=cost):
            _cell_on(board, x, y)
            if board.terrain_cost((x, y)) == cost:
                raise Rejected(N_("(%(x)s, %(y)s) has that terrain already"), x=x, y=y)
            return [Event("terrain_set", {"x": x, "y": y, "cost": int(cost) if cost.is_integer() else cost, **where})]
        case AddCover(x=x, y=y, material=material):
            _cell_on(board, x, y)
            known = materials(game)
            if material not in known:
                raise Rejected(N_("unknown cover material %(name)s; known: %(known)s"), name=repr(material),
                               known=", ".join(known))
            if len(board.cover_pieces) >= 5000:
                raise Rejected(N_("a map holds 5,000 cover pieces at most"))
            if board.cover_at((x, y)):
                raise Rejected(N_("(%(x)s, %(y)s) has a cover piece already"), x=x, y=y)
            return [Event("cover_added", {"id": _fresh_id(board, "cover", board.cover_pieces), "cell": [x, y],
                                          "material": material, **where})]
        case RemoveCover(cover_id=cid):
            if cid not in board.cover_pieces:
                raise Rejected(N_("no cover piece %(id)s on this map"), id=repr(cid))
            return [Event("cover_removed", {"id": cid, **where})]
        case ResizeMap(width=w, height=h):
            if (w, h) == (board.width, board.height):
                raise Rejected(N_("the map is %(w)s x %(h)s already"), w=w, h=h)
            if board is game.board:
                off = [t for t in game.tokens.values()
                       if any(not (0 <= x < w and 0 <= y < h) for x, y in game.cells_of(t))]
                if off:
                    raise Rejected(N_("%(n)s token would be off a %(w)s x %(h)s map: move them first") if len(off) == 1
                                   else N_("%(n)s tokens would be off a %(w)s x %(h)s map: move them first"),
                                   n=len(off), w=w, h=h)
                for z in game.zones or []:
                    zx, zy, zw, zh = z["box"]
                    if zx + zw > w or zy + zh > h:
                        raise Rejected(N_("zone %(name)s would be off a %(w)s x %(h)s map"), name=z["name"], w=w, h=h)
            return [Event("map_resized", {"width": w, "height": h, **where})]
        case SetFog(enabled=on):
            if bool(game.fog_on if prepared is None else prepared.fog) == on:
                raise Rejected(N_("fog of war is on already") if on else N_("fog of war is off already"))
            return [Event("fog_set", {"enabled": on, **where})]
        case RevealCells(x=x, y=y, w=w, h=h) | HideCells(x=x, y=y, w=w, h=h):
            _cell_on(board, x, y)
            w, h = min(w, board.width - x), min(h, board.height - y)
            kind = "cells_revealed" if isinstance(cmd, RevealCells) else "cells_hidden"
            return [Event(kind, {"x": x, "y": y, "w": w, "h": h, **where})]
    return _decide_zone(game, cmd, board, where)


def _zone_id(game: "Game", name: str) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", name.casefold()).strip("-")[:30] or "zone"
    taken = {z["id"] for z in game.zones or []}
    zid, n = base, 1
    while zid in taken:
        n += 1
        zid = f"{base}-{n}"
    return zid


def _decide_zone(game: "Game", cmd, board: Board, where: dict) -> list[Event]:
    if game.zones is None:
        raise Rejected(N_("this is a square-grid map: zones are drawn on zone maps"))
    match cmd:
        case AddZone(name=name, box=box, cover=cover):
            if len(game.zones) >= MAX_ZONES:
                raise Rejected(N_("a map holds %(n)s zones at most"), n=MAX_ZONES)
            _check_box(game, board, box)
            zone = {"id": _zone_id(game, name), "name": name, "adjacent": [], "cover": cover, "box": list(box)}
            return [Event("zone_added", {"zone": zone, **where})]
        case UpdateZone(zone_id=zid):
            zone = _zone(game, zid)
            changes = {k: v for k, v in cmd.model_dump(include={"name", "box", "cover"}).items()
                       if v is not None and zone.get(k) != v}
            if not changes:
                return []
            if "box" in changes:
                _check_box(game, board, changes["box"], exclude=zid)
                x, y, w, h = changes["box"]
                inside = set(zonelayout.cells_of({"box": changes["box"]}))
                stranded = [t for t in game.tokens.values()
                            if zonelayout.zone_at([zone], t.x, t.y) and (t.x, t.y) not in inside]
                if stranded:
                    raise Rejected(N_("%(n)s token(s) would be left outside the zone: move them first"), n=len(stranded))
            return [Event("zone_updated", {"zone_id": zid, "changes": changes, **where})]
        case RemoveZone(zone_id=zid):
            zone = _zone(game, zid)
            if len(game.zones) == 1:
                raise Rejected(N_("a zone map keeps at least one zone"))
            if any(zonelayout.zone_at([zone], t.x, t.y) for t in game.tokens.values()):
                raise Rejected(N_("tokens stand in %(name)s: move them first"), name=zone["name"])
            return [Event("zone_removed", {"zone_id": zid, **where})]
        case LinkZones(a=a, b=b, linked=linked):
            za, zb = _zone(game, a), _zone(game, b)
            if a == b:
                raise Rejected(N_("a zone is not linked to itself"))
            if (b in za.get("adjacent", [])) == linked:
                raise Rejected(N_("%(a)s and %(b)s are linked already") if linked
                               else N_("%(a)s and %(b)s are not linked already"), a=za["name"], b=zb["name"])
            return [Event("zones_linked", {"a": a, "b": b, "linked": linked, **where})]
    raise Rejected(N_("not a map edit"))


# --- evolve ----------------------------------------------------------------------


def _resized(board: Board, w: int, h: int) -> Board:
    """The board cut or grown to w x h: what lies off the new edge goes."""
    d = board.to_dict()
    ew, eh = board.grid.extent(w, h)  # in map units (hexes: the ragged edge's box)

    def inside(p):
        return 0 <= p[0] <= ew and 0 <= p[1] <= eh

    return Board.from_dict({
        "width": w, "height": h, **board.grid.to_dict(),  # a hex map stays hexes (#28)
        "walls": [s for s in d["walls"] if inside(s["a"]) and inside(s["b"])],
        "doors": [s for s in d["doors"] if inside(s["a"]) and inside(s["b"])],
        "blocked": [c for c in d["blocked"] if c[0] < w and c[1] < h],
        "terrain": [t for t in d["terrain"] if t[0] < w and t[1] < h],
        "cover": [c for c in d["cover"] if c["cell"][0] < w and c["cell"][1] < h],
    })


def _area(d: dict) -> set:
    return {(x, y) for y in range(d["y"], d["y"] + d["h"]) for x in range(d["x"], d["x"] + d["w"])}


def evolve(game: "Game", kind: str, d: dict, log) -> None:
    board = map_board(game, d.get("map_id"))
    if kind == "wall_added":
        board.add_wall(d["a"], d["b"], id=d["id"])
        log(say("the GM drew a wall"), "gm", None)
    elif kind == "wall_removed":
        board.remove_wall(d["id"])
        log(say("the GM erased a wall"), "gm", None)
    elif kind == "door_added":
        board.add_door(d["a"], d["b"], closed=d["closed"], id=d["id"])
        log(say("the GM drew a door"), "gm", None)
    elif kind == "door_removed":
        board.remove_door(d["id"])
        log(say("the GM erased a door"), "gm", None)
    elif kind == "cell_blocked":
        board.block((d["x"], d["y"]))
        log(say("the GM blocked ({x}, {y})", x=d["x"], y=d["y"]), "gm", None)
    elif kind == "cell_unblocked":
        board.unblock((d["x"], d["y"]))
        log(say("the GM cleared ({x}, {y})", x=d["x"], y=d["y"]), "gm", None)
    elif kind == "terrain_set":
        board.set_terrain((d["x"], d["y"]), d["cost"])
        log(say("the GM set the terrain of ({x}, {y})", x=d["x"], y=d["y"]), "gm", None)
    elif kind == "cover_added":
        board.add_cover(d["cell"], d["material"], id=d["id"])
        log(say("the GM put {material} cover on ({x}, {y})", material=d["material"], x=d["cell"][0], y=d["cell"][1]), "gm", None)
    elif kind == "cover_removed":
        board.remove_cover(d["id"])
        log(say("the GM removed a cover piece"), "gm", None)
    elif kind == "map_resized":
        new = _resized(board, d["width"], d["height"])
        if board is not game.board:  # a map being prepared
            game.maps[d["map_id"]].board = new
        else:
            game.board = new
            game.revealed = {c for c in game.revealed if new.in_bounds(c)}
            game.explored = {pid: {c for c in cells if new.in_bounds(c)} for pid, cells in game.explored.items()}
        log(say("the GM made the map {width} x {height}", width=d["width"], height=d["height"]), "all", None)
    elif kind == "fog_set":
        if d.get("map_id") not in (None, game.active_map):  # a map being prepared: on once it is shown
            game.maps[d["map_id"]].fog = d["enabled"]
            log(say("fog of war on for a map being prepared") if d["enabled"] else
                say("fog of war off for a map being prepared"), "gm", None)
            return
        game.fog_on = d["enabled"]
        log(say("fog of war on") if d["enabled"] else say("fog of war off"), "all", None)
    elif kind == "cells_revealed":
        game.revealed = game.revealed | _area(d)
        log(say("the GM revealed part of the map"), "all", None)
    elif kind == "cells_hidden":
        area = _area(d)
        game.revealed = game.revealed - area
        game.explored = {pid: cells - area for pid, cells in game.explored.items()}
        log(say("the GM hid part of the map"), "all", None)
    elif kind == "zone_added":
        game.zones = [*game.zones, dict(d["zone"])]
        log(say("the GM drew the zone {name}", name=d["zone"]["name"]), "gm", None)
    elif kind == "zone_updated":
        game.zones = [z | d["changes"] if z["id"] == d["zone_id"] else z for z in game.zones]
        log(say("the GM changed a zone"), "gm", None)
    elif kind == "zone_removed":
        zid = d["zone_id"]
        game.zones = [{**z, "adjacent": [a for a in z.get("adjacent", []) if a != zid]}
                      for z in game.zones if z["id"] != zid]
        log(say("the GM removed a zone"), "gm", None)
    elif kind == "zones_linked":
        a, b, on = d["a"], d["b"], d["linked"]
        out = []
        for z in game.zones:
            adj = [x for x in z.get("adjacent", []) if x not in (a, b) or z["id"] not in (a, b)]
            if on and z["id"] in (a, b):
                adj.append(b if z["id"] == a else a)
            out.append({**z, "adjacent": sorted(set(adj))})
        game.zones = out
        log(say("the GM linked two zones") if on else say("the GM unlinked two zones"), "gm", None)
    else:
        raise ValueError(f"unknown map event {kind!r}")


def _evolve_event(game: "Game", event: Event, log) -> None:
    evolve(game, event.type, event.data, log)


#: the fog's memory kept after every event; fog and a new map size redraw every screen's whole map
FEATURE = Feature("editor", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=_evolve_event,
                  after_event=fog.remember, heavy=frozenset({"set_fog", "resize_map"}))


__all__ = ["COMMANDS", "EVENTS", "FEATURE", "decide", "evolve", "map_board", "materials"]
