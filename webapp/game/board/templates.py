"""Area templates on the map: anyone at the table (not the table screen) lays a circle, a cone or a
line on the map, drags it and takes it away; every screen shows it with the tokens under it.

A template is game state, in the log like a move, and undone like one. Who is under it comes from
``rules.areas`` (square centres), and each audience is told only of the tokens it may see.
On a zone map a template covers one zone: every token in that zone is under it.
"""

from __future__ import annotations

import math
import secrets
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules.areas import Area, under
from rules.text import say, whole

from ..bridge import fog, zonelayout
from ..core.feature import Feature
from ..core.model import Event, Rejected
from ..core.text import N_, measure

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]
Point = Annotated[float, Field(ge=-1000, le=1000, allow_inf_nan=False)]
MAX_TEMPLATES = 40


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)


class PlaceTemplate(_Command):
    type: Literal["place_template"]
    shape: Literal["circle", "cone", "line"]
    x: Point | None = None  # a point in squares (the centre of a circle, the apex of a cone, a line's start)
    y: Point | None = None
    zone: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None  # on a zone map
    size: Annotated[float, Field(gt=0, le=200, allow_inf_nan=False)] = 2  # squares: radius or length
    direction: Annotated[float, Field(ge=-360, le=360, allow_inf_nan=False)] = 0  # degrees, 0 right, 90 down
    label: Annotated[str, StringConstraints(max_length=40)] | None = None


class MoveTemplate(_Command):
    type: Literal["move_template"]
    template_id: Id
    x: Point | None = None
    y: Point | None = None
    zone: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None
    direction: Annotated[float, Field(ge=-360, le=360, allow_inf_nan=False)] | None = None


class RemoveTemplate(_Command):
    type: Literal["remove_template"]
    template_id: Id


COMMANDS = (PlaceTemplate, MoveTemplate, RemoveTemplate)
EVENTS = ("template_placed", "template_moved", "template_removed")


# --- who may ------------------------------------------------------------------


def _authorize(game: "Game", actor: "Actor", template: dict | None = None) -> None:
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    if template is not None and actor.role == "player" and template.get("by") != actor.player_id:
        # the messages domain's words (a refusal's), the template named by its label, a table's own word
        if template.get("label"):
            raise Rejected(N_("the template ‘%(label)s’ is not yours: the GM or whoever laid it moves it"),
                           label=template["label"])
        raise Rejected(N_("that template is not yours: the GM or whoever laid it moves it"))


def _template(game: "Game", template_id: str) -> dict:
    found = game.templates.get(template_id)
    if found is None:
        raise Rejected(N_("no template %(id)s on this map"), id=repr(template_id))
    return found


# --- where --------------------------------------------------------------------


def _where(game: "Game", x: float | None, y: float | None, zone: str | None) -> dict:
    """The place of a template: a point on the board, or on a zone map a zone."""
    if game.zones is not None:
        if zone is None and x is not None and y is not None:
            found = zonelayout.zone_at(game.zones, math.floor(x), math.floor(y))
            if found is None:
                raise Rejected(N_("(%(x)s, %(y)s) is not in a zone: on a zone map a template covers a zone"),
                               x=f"{x:g}", y=f"{y:g}")
            zone = found["id"]
        if zone is None:
            raise Rejected(N_("on a zone map a template covers a zone: give a zone"))
        found = next((z for z in game.zones if z["id"] == zone), None)
        if found is None:
            raise Rejected(N_("no zone %(id)s on this map"), id=repr(zone))
        bx, by, bw, bh = found["box"]
        return {"zone": zone, "x": bx + bw / 2, "y": by + bh / 2}
    if zone is not None:
        raise Rejected(N_("this map has no zones: give x and y"))
    if x is None or y is None:
        raise Rejected(N_("x and y are needed: where the template goes"))
    w, h = game.board.width, game.board.height
    if not (0 <= x <= w and 0 <= y <= h):
        raise Rejected(N_("(%(x)s, %(y)s) is off the map (%(w)s x %(h)s)"), x=f"{x:g}", y=f"{y:g}", w=w, h=h)
    grid = game.board.grid
    if grid.hex:  # on hexes (#28): the centre of the hex the point is in (map units, on quarters)
        cx, cy = grid.centre(grid.cell_at((x, y)))
        return {"x": cx, "y": cy}
    return {"x": round(x * 2) / 2, "y": round(y * 2) / 2}  # to the half square: centres and corners


def area_of(template: dict) -> Area:
    return Area(template["shape"], template["x"], template["y"], template["size"], template.get("direction", 0))


#: a template's kind in words
SHAPE_WORDS = {"circle": say("circle template"), "cone": say("cone template"), "line": say("line template")}


def kind(template: dict) -> str:
    """"circle template": a template's kind in words."""
    return SHAPE_WORDS.get(template["shape"]) or say("{shape} template", shape=template["shape"])


def describe(template: dict) -> str:
    """"circle template ‘Fireball’" (words: the log reads them in the reader's language)."""
    what = kind(template)
    return say("{template} ‘{label}’", template=what, label=template["label"]) if template.get("label") else what


def _size_words(template: dict) -> str:
    size = whole(float(template["size"]))  # a number: the reader's language writes it (1.5, 1,5)
    return say("radius {size}", size=size) if template["shape"] == "circle" else say("{size} long", size=size)


# --- deciding -----------------------------------------------------------------


def decide(game: "Game", cmd, actor: "Actor") -> list[Event]:
    if isinstance(cmd, PlaceTemplate):
        _authorize(game, actor)
        if len(game.templates) >= MAX_TEMPLATES:
            raise Rejected(N_("a map holds %(n)s templates at most: take one away first"), n=MAX_TEMPLATES)
        if game.zones is None and cmd.size > max(game.board.width, game.board.height):
            raise Rejected(N_("a template of %(n)s squares is bigger than the map"), n=f"{cmd.size:g}")
        place = _where(game, cmd.x, cmd.y, cmd.zone)
        template = {"id": "a" + secrets.token_hex(4), "shape": cmd.shape, "size": cmd.size,
                    "direction": cmd.direction % 360, "label": (cmd.label or "").strip() or None,
                    "by": actor.player_id if actor.role == "player" else None, **place}
        return [Event("template_placed", {"template": template})]
    if isinstance(cmd, MoveTemplate):
        template = _template(game, cmd.template_id)
        _authorize(game, actor, template)
        if cmd.x is None and cmd.y is None and cmd.zone is None:
            place = {k: template[k] for k in ("x", "y", "zone") if k in template}
        else:
            place = _where(game, cmd.x, cmd.y, cmd.zone)
        direction = template.get("direction", 0) if cmd.direction is None else cmd.direction % 360
        if all(template.get(k) == v for k, v in place.items()) and direction == template.get("direction", 0):
            return []  # dropped where it was
        return [Event("template_moved", {"template_id": template["id"], **place, "direction": direction})]
    if isinstance(cmd, RemoveTemplate):
        template = _template(game, cmd.template_id)
        _authorize(game, actor, template)
        return [Event("template_removed", {"template_id": template["id"]})]
    raise TypeError(cmd)


def _by(game: "Game", template: dict) -> str:
    player = game.players.get(template.get("by") or "")
    return player.name if player else say("the GM")


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    if event.type == "template_placed":
        t = dict(d["template"])
        game.templates[t["id"]] = t
        where = _place_words(game, t)
        log(say("{who} laid a {template} ({size}) {where}", who=_by(game, t), template=describe(t), size=_size_words(t),
                where=where), "all", None)
    elif event.type == "template_moved":
        t = game.templates[d["template_id"]]
        t.update({k: d[k] for k in ("x", "y", "zone", "direction") if k in d})
        log(say("the {template} moved {where}", template=describe(t), where=_place_words(game, t)), "all", None)
    elif event.type == "template_removed":
        t = game.templates.pop(d["template_id"])
        log(say("the {template} was taken off the map", template=describe(t)), "all", None)


FEATURE = Feature("templates", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve)


def _place_words(game: "Game", t: dict) -> str:
    if t.get("zone") and game.zones is not None:
        zone = next((z for z in game.zones if z["id"] == t["zone"]), None)
        return say("on {zone}", zone=zone["name"]) if zone else ""
    return say("at ({x}, {y})", x=f"{t['x']:g}", y=f"{t['y']:g}")


# --- who is under ---------------------------------------------------------------


def tokens_under(game: "Game", template: dict, actor: "Actor") -> list["Token"]:
    """The tokens under a template that this audience may see (hidden ones are never named to others)."""
    visible = fog.visible_tokens(game, actor)
    if template.get("zone") and game.zones is not None:
        zone = next((z for z in game.zones if z["id"] == template["zone"]), None)
        if zone is None:
            return []
        return [t for t in visible if zonelayout.zone_at(game.zones, t.x, t.y) is zone]
    ids = set(under(area_of(template), [(t.id, game.cells_of(t)) for t in visible], game.board.grid))
    return [t for t in visible if t.id in ids]


def view(game: "Game", actor: "Actor") -> list[dict]:
    """Each template as this audience sees it: its outline, the squares it covers, who is under it; its kind
    (``kind``), ``title`` and size in the system's unit (``size_text``: ``2 yards``, ``3"``) as words."""
    out = []
    unit = rules.get(game.system).cell_unit
    for t in game.templates.values():
        under = tokens_under(game, t, actor)
        entry = {**t, "under": under, "mine": actor.role == "gm" or (actor.role == "player" and t.get("by") == actor.player_id),
                 "by_name": _by(game, t), "title": describe(t), "kind": kind(t), "size_text": measure(t["size"], unit)}
        if t.get("zone") and game.zones is not None:
            zone = next((z for z in game.zones if z["id"] == t["zone"]), None)
            entry["box"] = zone["box"] if zone else None
            entry["outline"] = None
        else:
            entry["outline"] = area_of(t).outline()
        out.append(entry)
    return out
