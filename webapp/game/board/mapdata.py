"""A map sent by a client (``POST /api/games`` ``map``): checked field by field before it becomes a board."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (AfterValidator, BaseModel, ConfigDict, Field, Strict, StrictBool, StrictInt, StrictStr,
                      TypeAdapter, ValidationError)

from rules.board import Board
from rules.pacing import PACE_EVERY, pace, paced
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


#: the parts of a map validated a slice at a time (``grid_board``), the pacer's turn between two slices
_LISTS = {"walls": (MAX_WALLS, TypeAdapter(list[WallIn])), "doors": (MAX_DOORS, TypeAdapter(list[DoorIn])),
          "blocked": (MAX_SIDE * MAX_SIDE, TypeAdapter(list[Cell])),
          "terrain": (MAX_SIDE * MAX_SIDE, TypeAdapter(list[Terrain])),
          "cover": (MAX_COVER, TypeAdapter(list[CoverIn]))}


def _sliced(payload: dict, part: str) -> list:
    """``payload[part]`` validated ``PACE_EVERY`` items at a time (the pacer's turn between two: a big map's
    40,000 walls do not hold a server's loop in one piece, #69), after its length is checked against the limit
    (before an item is read); Rejected naming the first item wrong, by its index in the whole list."""
    most, adapter = _LISTS[part]
    items = payload[part]
    if not isinstance(items, list) or len(items) > most:
        chunks = [items]  # refused whole, in pydantic's words (not a list; a list over its limit)
        adapter = TypeAdapter(Annotated[list[Any], Field(max_length=most)])
    else:
        chunks = [items[start:start + PACE_EVERY] for start in range(0, len(items), PACE_EVERY)]
    out: list = []
    for n, chunk in enumerate(chunks):
        start = n * PACE_EVERY
        try:
            out += adapter.validate_python(chunk)
        except ValidationError as exc:
            raise validation.refused(exc, lambda loc: _where((part, loc[0] + start, *loc[1:]) if loc else (part,))) \
                from None
        pace()
    return out


def grid_board(payload) -> Board:
    """A board from a client's map, or Rejected naming the first thing wrong (``map.walls.3.a: ...``): each limit
    checked before the items it counts are read, the long lists a slice at a time (``_sliced``)."""
    if not isinstance(payload, dict):
        raise Rejected(N_("map: must be an object with width and height"))
    if "zones" in payload:
        raise Rejected(N_("map.zones: this game system plays on a square grid"))
    walls, doors = payload.get("walls", []), payload.get("doors", [])
    if isinstance(walls, list) and isinstance(doors, list) and len(walls) + len(doors) > MAX_SEGMENTS \
            and len(walls) <= MAX_WALLS and len(doors) <= MAX_DOORS:
        raise Rejected(N_("map: %(n)s wall and door segments; a map holds %(most)s at most"),
                       n=f"{len(walls) + len(doors):,}", most=f"{MAX_SEGMENTS:,}")
    try:  # the map's own fields (its size, grid, orientation); its lists below, a slice at a time
        m = GridMapIn.model_validate({k: v for k, v in payload.items() if k not in _LISTS})
    except ValidationError as exc:
        raise validation.refused(exc, _where) from None
    parts = {part: _sliced(payload, part) for part in _LISTS if part in payload}
    if m.grid == "square" and m.orientation is not None:
        raise Rejected(N_("map.orientation: only a hex grid has an orientation"))
    board = Board(m.width, m.height, Grid("hex", m.orientation or "pointy") if m.grid == "hex" else Grid())
    made = {"walls": lambda w: board.add_wall(w.a, w.b, id=w.id),
            "doors": lambda d: board.add_door(d.a, d.b, closed=d.closed, id=d.id),
            "blocked": board.block, "terrain": lambda t: board.set_terrain(_cell(t[:2]), t[2]),
            "cover": lambda c: board.add_cover(c.cell, c.material, id=c.id)}
    for part, items in parts.items():
        for index, item in enumerate(paced(items)):
            try:
                made[part](item)
            except ValueError as exc:
                raise Rejected(N_("map.%(part)s.%(index)s: %(error)s"), part=part, index=index,
                               error=said(exc)) from None
    return board
