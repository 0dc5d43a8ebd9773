"""Lights on the map and its ambient light: the GM's commands, their events, and what each audience is shown.

Each map keeps its light sources (``GameMap.lights``: a Universal VTT file's ``lights``, and the GM's)
and its ambient light (``GameMap.ambient``): ``bright`` (the default), ``dim`` or ``dark``. A token may
carry a light of its own (``Token.light``, squares; set by the GM with ``update_token``).

What the dark does to sight is the fog's (:mod:`webapp.game.bridge.fog`, with ``rules.lighting``): with fog of
war on and the map dark, a token sees only lit squares, and those its own light or its system's dark
vision reaches. ``dim`` leaves sight as in bright light (no system's document gives a dim-light
penalty: ``rules.lighting.DARK_VISION``). Without fog everyone sees the whole map; the lighting layer
still shades what is unlit. Lighting is for square maps: a zone map is always lit.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from rules import lighting as rules_lighting

from ..bridge import fog
from .maps import get_map, map_board, map_zones
from ..core.feature import Feature
from ..core.model import Event, Rejected
from rules.text import say
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game, GameMap

MAX_LIGHTS = 1000  # on one map, as an import (webapp/game/board/uvtt.py)
MAX_RANGE = 100  # squares
AMBIENT_WORDS = {"bright": say("bright light"), "dim": say("dim light"), "dark": say("darkness")}
_ALREADY = {"bright": N_("%(name)s is in bright light already"), "dim": N_("%(name)s is in dim light already"),
            "dark": N_("%(name)s is in darkness already")}  # a refusal said whole in each language

MapId = Annotated[str, StringConstraints(min_length=1, max_length=64)] | None
Coord = Annotated[float, Field(ge=0, le=300, allow_inf_nan=False)]
Range = Annotated[float, Field(gt=0, le=MAX_RANGE, allow_inf_nan=False)]
Color = Annotated[str, StringConstraints(pattern=r"^#[0-9a-fA-F]{6}$")]
LightId = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)
    map_id: MapId = None  # a map being prepared (default: the active map)


class SetLighting(_Command):
    type: Literal["set_lighting"]
    ambient: Literal["bright", "dim", "dark"]


class AddLight(_Command):
    type: Literal["add_light"]
    x: Coord  # a point in squares
    y: Coord
    range: Range = 6
    color: Color = "#ffd27f"


class UpdateLight(_Command):
    type: Literal["update_light"]
    light_id: LightId
    x: Coord | None = None
    y: Coord | None = None
    range: Range | None = None
    color: Color | None = None


class RemoveLight(_Command):
    type: Literal["remove_light"]
    light_id: LightId


COMMANDS = (SetLighting, AddLight, UpdateLight, RemoveLight)
EVENTS = ("lighting_set", "light_added", "light_updated", "light_removed")


def css_color(light: dict) -> str:
    """A light's colour as ``#rrggbb``: Universal VTT colours are ``aarrggbb`` (Dungeondraft's ``ffeccd8b``)."""
    c = str(light.get("color") or "ffffffff").lstrip("#")
    return "#" + (c[-6:] if len(c) in (6, 8) else "ffffff").lower()


def _where(game: "Game", m: "GameMap") -> dict:
    return {} if m.id == game.active_map else {"map_id": m.id}


def _square_map(game: "Game", m: "GameMap") -> None:
    if map_zones(game, m.id) is not None:
        raise Rejected(N_("%(name)s is a zone map: lighting is for square maps (a zone map is always lit)"), name=m.name)


def _light(m: "GameMap", light_id: str) -> dict:
    found = next((light for light in m.lights if light.get("id") == light_id), None)
    if found is None:
        raise Rejected(N_("no light %(id)s on %(name)s"), id=repr(light_id), name=m.name)
    return found


def _on_map(game: "Game", m: "GameMap", x: float, y: float) -> None:
    board = map_board(game, m.id)
    if not (0 <= x <= board.width and 0 <= y <= board.height):
        raise Rejected(N_("(%(x)s, %(y)s) is off the map (%(w)s x %(h)s)"), x=f"{x:g}", y=f"{y:g}", w=board.width,
                       h=board.height)


def decide(game: "Game", cmd: Any, actor: "Actor") -> list[Event]:
    if actor.role != "gm":
        raise Rejected(N_("only the GM can change the lighting"))
    m = get_map(game, cmd.map_id)
    where = _where(game, m)
    if isinstance(cmd, SetLighting):
        if cmd.ambient != "bright":
            _square_map(game, m)
        if m.ambient == cmd.ambient:
            raise Rejected(_ALREADY[cmd.ambient], name=m.name)
        return [Event("lighting_set", {"ambient": cmd.ambient, **where})]
    if isinstance(cmd, AddLight):
        _square_map(game, m)
        if len(m.lights) >= MAX_LIGHTS:
            raise Rejected(N_("a map holds %(n)s lights at most"), n=MAX_LIGHTS)
        _on_map(game, m, cmd.x, cmd.y)
        taken = {light.get("id") for light in m.lights}
        light_id = f"light-{secrets.token_hex(3)}"
        while light_id in taken:
            light_id = f"light-{secrets.token_hex(3)}"
        light = {"id": light_id, "x": cmd.x, "y": cmd.y, "range": cmd.range, "intensity": 1,
                 "color": "ff" + cmd.color[1:].lower(), "shadows": True}
        return [Event("light_added", {"light": light, **where})]
    light = _light(m, cmd.light_id)
    if isinstance(cmd, RemoveLight):
        return [Event("light_removed", {"light_id": cmd.light_id, **where})]
    changes = {k: v for k, v in cmd.model_dump(include={"x", "y", "range"}).items() if v is not None}
    if cmd.color is not None:
        changes["color"] = "ff" + cmd.color[1:].lower()
    _on_map(game, m, changes.get("x", light["x"]), changes.get("y", light["y"]))
    changes = {k: v for k, v in changes.items() if light.get(k) != v}
    if not changes:
        return []
    return [Event("light_updated", {"light_id": cmd.light_id, "changes": changes, **where})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    m = game.maps[d.get("map_id") or game.active_map]
    audience = "all" if m.id == game.active_map else "gm"
    if event.type == "lighting_set":
        m.ambient = d["ambient"]
        log(say("{name} is in {light} now", name=m.name, light=AMBIENT_WORDS[m.ambient]), audience, None)
    elif event.type == "light_added":
        m.lights = [*m.lights, dict(d["light"])]  # a new list: a page being drawn may be reading the old one
        log(say("the GM put a light on {name}", name=m.name), "gm", None)
    elif event.type == "light_updated":
        m.lights = [light | d["changes"] if light.get("id") == d["light_id"] else light for light in m.lights]
    elif event.type == "light_removed":
        m.lights = [light for light in m.lights if light.get("id") != d["light_id"]]
        log(say("the GM took a light off {name}", name=m.name), "gm", None)
    else:
        raise ValueError(f"unknown lighting event {event.type!r}")


FEATURE = Feature("lighting", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve)


# --- what each audience is shown ---------------------------------------------------


def dark_vision(game: "Game") -> dict:
    """The game's system's dark vision and what dim light does, as the rules read it (rules.lighting)."""
    dv = rules_lighting.dark_vision(game.system)
    return {"squares": dv.squares, "dark": dv.dark, "dim": dv.dim}


def _known_lights(game: "Game", actor: "Actor", m: "GameMap") -> list[dict]:
    """The lights of the active map this audience may know of: the GM all; others those whose square
    they see or saw (a light in the fog tells nothing)."""
    if actor.role == "gm" or m.id != game.active_map:
        return list(m.lights)
    known = fog.known(game, actor)
    if known is None:
        return list(m.lights)
    board = game.board
    return [light for light in m.lights
            if rules_lighting.light_cell(board, light["x"], light["y"]) in known]


def state_view(game: "Game", actor: "Actor") -> dict:
    """``state.lighting``: the active map's ambient light, its lights this audience may know of, and the
    system's dark vision."""
    m = game.maps.get(game.active_map)
    if m is None:
        return {"ambient": "bright", "lights": [], "dark_vision": dark_vision(game)}
    return {"ambient": m.ambient if game.zones is None else "bright",
            "lights": [dict(light) for light in _known_lights(game, actor, m)],
            "dark_vision": dark_vision(game)}


def layer(game: "Game", actor: "Actor", m: "GameMap") -> dict | None:
    """What the lighting layer draws over map ``m`` for this audience: ``shade`` (unlit squares, as SVG
    path data), ``glow`` (lit squares), ``lights`` (markers: ``{"id", "x", "y", "range", "color"}``) and
    ``ambient``. With fog, only over squares this audience sees or saw. None: nothing to draw."""
    if m.ambient == "bright" and (actor.role != "gm" or not m.lights):
        return None  # as ``_layer`` finds, told at once (every player's update of a move asks)
    return fog.per_seq(game, f"lighting:{actor.audience}:{m.id}", lambda: _layer(game, actor, m))


def _layer(game: "Game", actor: "Actor", m: "GameMap") -> dict | None:
    preparing = m.id != game.active_map
    if map_zones(game, m.id) is not None:
        return None
    board = map_board(game, m.id)
    if m.ambient == "bright" and (actor.role != "gm" or not m.lights):
        return None  # in bright light a lamp changes nothing: the GM alone is shown where they are
    lights = _known_lights(game, actor, m)
    shade = glow = ""
    if m.ambient != "bright":
        known = None if preparing else fog.known(game, actor)
        lit = fog.lit_squares(game, m)
        w, h = board.width, board.height
        if known is None:
            shade = fog.cells_path([(x, y) for y in range(h) for x in range(w) if (x, y) not in lit], w, h)
            glow = fog.cells_path(lit, w, h)
        else:
            shade = fog.cells_path([c for c in known if c not in lit], w, h)
            glow = fog.cells_path([c for c in lit if c in known], w, h)
    return {"ambient": m.ambient, "shade": shade, "glow": glow,
            # ``cell``: the cell it shines from (rules.lighting.light_cell); on hexes the marker is drawn there
            "lights": [{"id": light["id"], "x": light["x"], "y": light["y"], "range": light["range"],
                        "cell": rules_lighting.light_cell(board, light["x"], light["y"]),
                        "color": css_color(light)} for light in lights]}
