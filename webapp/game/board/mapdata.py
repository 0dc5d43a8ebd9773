"""A map sent by a client (``POST /api/games`` ``map``): checked field by field before it becomes a board."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, Strict, StrictBool, StrictInt, StrictStr,
                      ValidationError)

from rules.board import Board
from rules.grid import Grid
from rules.text import said

from ..core import text, validation
from ..bridge import zonelayout
from ..core.model import MAX_BOARD, MAX_SEGMENTS, Rejected
from ..core.text import N_

MAX_SIDE = MAX_BOARD  # squares on a side
MAX_WALLS = MAX_SEGMENTS  # wall segments on a map (and doors with them)
MAX_DOORS = 1_000
MAX_COVER = 5_000
Number = Annotated[float, Strict(), Field(ge=-1, le=MAX_SIDE + 1, allow_inf_nan=False)]
Point = Annotated[list[Number], Field(min_length=2, max_length=2)]
Cell = Annotated[list[Annotated[int, Strict(), Field(ge=0, lt=MAX_SIDE)]], Field(min_length=2, max_length=2)]
Terrain = Annotated[list[Annotated[float, Strict(), Field(ge=0, le=MAX_SIDE)]], Field(min_length=3, max_length=3)]
Id = Annotated[StrictStr, Field(min_length=1, max_length=64), AfterValidator(text.valid_line)]
Label = Annotated[StrictStr, Field(min_length=1, max_length=40), AfterValidator(text.valid_line)]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WallIn(_Strict):
    a: Point
    b: Point
    id: Id | None = None


class DoorIn(WallIn):
    closed: StrictBool = True


class CoverIn(_Strict):
    cell: Cell
    material: Label
    id: Id | None = None


class GridMapIn(_Strict):
    width: Annotated[StrictInt, Field(ge=1, le=MAX_SIDE)]
    height: Annotated[StrictInt, Field(ge=1, le=MAX_SIDE)]
    grid: Literal["square", "hex"] = "square"
    orientation: Literal["pointy", "flat"] | None = None  # hexes: pointy-top rows (the default) or flat-top columns
    walls: Annotated[list[WallIn], Field(max_length=MAX_WALLS)] = []
    doors: Annotated[list[DoorIn], Field(max_length=MAX_DOORS)] = []
    blocked: Annotated[list[Cell], Field(max_length=MAX_SIDE * MAX_SIDE)] = []
    terrain: Annotated[list[Terrain], Field(max_length=MAX_SIDE * MAX_SIDE)] = []  # [x, y, cost]
    cover: Annotated[list[CoverIn], Field(max_length=MAX_COVER)] = []


def _cell(xy) -> tuple[int, int]:
    if any(v != int(v) for v in xy):
        raise text.Fault(N_("%(field)s: a cell is two whole numbers, not %(cell)s"),
                         f"a cell is two whole numbers, not {xy}", cell=str(xy))
    return int(xy[0]), int(xy[1])


def _where(loc) -> str:
    return "map." + ".".join(str(p) for p in loc) if loc else "map"


class ZoneIn(_Strict):
    id: Annotated[StrictStr, Field(min_length=1, max_length=40, pattern=r"^[A-Za-z0-9_-]+$")]
    name: Label
    adjacent: Annotated[list[Annotated[StrictStr, Field(max_length=40)]], Field(max_length=50)] = []
    cover: Annotated[StrictStr, Field(min_length=1, max_length=20), AfterValidator(text.valid_line)] | None = None


class ZoneMapIn(_Strict):
    zones: Annotated[list[ZoneIn], Field(min_length=1, max_length=60)]


def zone_map(payload) -> tuple[Board, list[dict]]:
    """A zone map from a client (``{"zones": [{"id", "name", "adjacent", "cover"?}]}``): the zones laid
    out as areas of a board, adjacency made both ways; Rejected naming the first thing wrong."""
    try:
        m = ZoneMapIn.model_validate(payload)
    except ValidationError as exc:
        raise validation.refused(exc, _where) from None
    ids = [z.id for z in m.zones]
    if len(set(ids)) != len(ids):
        raise Rejected(N_("map.zones: two zones have the id %(id)s"), id=repr(next(i for i in ids if ids.count(i) > 1)))
    links = {i: set() for i in ids}
    for n, z in enumerate(m.zones):
        for other in z.adjacent:
            if other not in links:
                raise Rejected(N_("map.zones.%(n)s.adjacent: no zone %(id)s"), n=n, id=repr(other))
            if other == z.id:
                raise Rejected(N_("map.zones.%(n)s.adjacent: a zone is not adjacent to itself"), n=n)
            links[z.id].add(other)
            links[other].add(z.id)
    boxes = zonelayout.layout(ids)
    zones = [{"id": z.id, "name": z.name, "adjacent": sorted(links[z.id]), "cover": z.cover or "none",
              "box": boxes[z.id]} for z in m.zones]
    return Board(*zonelayout.board_size(zones)), zones


def grid_board(payload) -> Board:
    """A board from a client's map, or Rejected naming the first thing wrong (``map.walls.3.a: ...``)."""
    if not isinstance(payload, dict):
        raise Rejected(N_("map: must be an object with width and height"))
    if "zones" in payload:
        raise Rejected(N_("map.zones: this game system plays on a square grid"))
    try:
        m = GridMapIn.model_validate(payload)
    except ValidationError as exc:
        raise validation.refused(exc, _where) from None
    if len(m.walls) + len(m.doors) > MAX_SEGMENTS:
        raise Rejected(N_("map: %(n)s wall and door segments; a map holds %(most)s at most"),
                       n=f"{len(m.walls) + len(m.doors):,}", most=f"{MAX_SEGMENTS:,}")
    if m.grid == "square" and m.orientation is not None:
        raise Rejected(N_("map.orientation: only a hex grid has an orientation"))
    board = Board(m.width, m.height, Grid("hex", m.orientation or "pointy") if m.grid == "hex" else Grid())
    steps = [("walls", i, lambda w=w: board.add_wall(w.a, w.b, id=w.id)) for i, w in enumerate(m.walls)]
    steps += [("doors", i, lambda d=d: board.add_door(d.a, d.b, closed=d.closed, id=d.id)) for i, d in enumerate(m.doors)]
    steps += [("blocked", i, lambda c=c: board.block(c)) for i, c in enumerate(m.blocked)]
    steps += [("terrain", i, lambda t=t: board.set_terrain(_cell(t[:2]), t[2])) for i, t in enumerate(m.terrain)]
    steps += [("cover", i, lambda c=c: board.add_cover(c.cell, c.material, id=c.id)) for i, c in enumerate(m.cover)]
    for part, index, step in steps:
        try:
            step()
        except ValueError as exc:
            raise Rejected(N_("map.%(part)s.%(index)s: %(error)s"), part=part, index=index, error=said(exc)) from None
    return board
