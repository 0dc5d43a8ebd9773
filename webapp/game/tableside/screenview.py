"""What the table screen shows: the GM steers it (issue #27, "The GM drives the table screen", "True-scale squares").

``set_screen_view`` (GM) puts the TV on the whole map (``fit``), on a point at a zoom (``center``,
``zoom``), or on a token it keeps in view as it moves (``follow``); with ``square_mm`` and
``screen_width_mm`` (the width of the TV's picture) one square is that many millimetres on the TV,
so miniatures stand on it, and the zoom is locked. ``calibrate`` opens the table screen's calibration
aid (a line as long as a credit card, 85.6 mm); ``calibrate_screen`` (the GM, or the table screen while
the aid is open) sets ``screen_width_mm`` from it.

The table screen's language (issue #37) is the GM's choice too: ``set_screen_view`` with ``language`` (one of
``LANGUAGES``; null: the screen's own device choice, its cookie or its browser's language); ``screen_language(game)``
reads it, the screen page renders in it and reloads when it changes (static/js/screenview.js).

The state is ``game.screen_view`` (None: the whole map, nothing calibrated). The browser of the table
screen turns it into what it draws (static/js/screenview.js): the server keeps the GM's choice, not
pixels. On a zone map, fit, center, zoom and follow apply (in the board's squares the zones are drawn
on); true scale does not: a zone map counts distance in zones, not squares.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from ..bridge.fog import may_see
from ..core.feature import Feature
from ..core.model import Event, Rejected
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game

MIN_ZOOM, MAX_ZOOM = 0.25, 10.0  # 1: the whole map fits the TV
MIN_SQUARE_MM, MAX_SQUARE_MM = 5.0, 100.0
MIN_WIDTH_MM, MAX_WIDTH_MM = 100.0, 10_000.0
CARD_MM = 85.6  # the long side of a credit card (ISO/IEC 7810 ID-1): the calibration aid's line

#: the languages a screen may be set to: the catalogs' (webapp/web/i18n.py), and the pseudo-locale for tests
LANGUAGES = ("en", "de", "fr", "es", "en_XA")

DEFAULT = {"mode": "fit", "center": None, "zoom": 1.0, "follow": None,
           "square_mm": None, "screen_width_mm": None, "calibrating": False, "language": None}

Number = Annotated[float, Field(allow_inf_nan=False)]


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class SetScreenView(_Command):
    type: Literal["set_screen_view"]
    fit: bool | None = None
    center: Annotated[list[Number], Field(min_length=2, max_length=2)] | None = None  # [x, y] in squares
    zoom: Annotated[float, Field(ge=MIN_ZOOM, le=MAX_ZOOM, allow_inf_nan=False)] | None = None
    follow: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    square_mm: Annotated[float, Field(ge=MIN_SQUARE_MM, le=MAX_SQUARE_MM, allow_inf_nan=False)] | None = None
    screen_width_mm: Annotated[float, Field(ge=MIN_WIDTH_MM, le=MAX_WIDTH_MM, allow_inf_nan=False)] | None = None
    calibrate: bool | None = None
    language: Literal[LANGUAGES] | None = None  # the screen's language; null: the screen device's own


class CalibrateScreen(_Command):
    type: Literal["calibrate_screen"]
    screen_width_mm: Annotated[float, Field(ge=MIN_WIDTH_MM, le=MAX_WIDTH_MM, allow_inf_nan=False)]
    done: bool = False  # the line matches the card: close the aid


COMMANDS = (SetScreenView, CalibrateScreen)
EVENTS = ("screen_view_set",)


def current(game: "Game") -> dict:
    """The GM's choice for the table screen, every key present."""
    return DEFAULT | (game.screen_view or {})


def screen_language(game: "Game") -> str | None:
    """The language the GM chose for the table screen; None: the screen's device chooses (cookie, browser),
    and where no device is asked (a live update for the screen's audience), English."""
    return (game.screen_view or {}).get("language")


def true_scale(game: "Game", view: dict | None = None) -> bool:
    """Squares true to size: both lengths known and the active map a square grid (not zones)."""
    view = view or current(game)
    return bool(view["square_mm"] and view["screen_width_mm"]) and game.zones is None


def view_for(game: "Game", actor: "Actor") -> dict:
    """The screen view as this audience may know it: a followed token it may not see is not named."""
    view = current(game)
    out = dict(view, center=list(view["center"]) if view["center"] else None, true_scale=true_scale(game, view),
               board="zones" if game.zones is not None else "grid")
    token = game.tokens.get(view["follow"] or "")
    if view["follow"] and (token is None or not may_see(game, actor, token)):
        out["follow"] = None
    return out


def _decide_set(game: "Game", cmd: SetScreenView) -> dict:
    given = cmd.model_fields_set - {"type"}
    if not given:
        raise Rejected(N_("set_screen_view needs one of: fit, center, zoom, follow, square_mm, screen_width_mm, "
                          "calibrate, language"))
    where = [k for k in ("fit", "center", "follow") if k in given]
    if len(where) > 1:
        raise Rejected(N_("choose one of fit, center and follow (got %(given)s)"), given=" and ".join(where))
    for name in ("fit", "center", "follow", "zoom", "calibrate"):
        if name in given and getattr(cmd, name) is None:
            raise Rejected(N_("%(field)s: a value is needed (null is for square_mm and screen_width_mm)"), field=name)
    view = current(game)
    new = dict(view)
    if "fit" in given:
        if not cmd.fit:
            raise Rejected(N_("fit: send true for the whole map; to leave it, send a center or a token to follow"))
        if "zoom" in given:
            raise Rejected(N_("fit shows the whole map: leave zoom out, or send a center with it"))
        new |= {"mode": "fit", "center": None, "follow": None, "zoom": 1.0}
    if "center" in given:
        x, y = cmd.center
        w, h = game.board.width, game.board.height
        if not (0 <= x <= w and 0 <= y <= h):
            raise Rejected(N_("center (%(x)s, %(y)s) is off the map: it is %(w)s x %(h)s squares, from (0, 0) to "
                              "(%(w)s, %(h)s)"), x=f"{x:g}", y=f"{y:g}", w=w, h=h)
        new |= {"mode": "center", "center": [round(x, 3), round(y, 3)], "follow": None}
    if "follow" in given:
        token = game.tokens.get(cmd.follow)
        if token is None:
            raise Rejected(N_("no token %(id)s on the map everyone sees"), id=repr(cmd.follow))
        if token.hidden:
            raise Rejected(N_("%(name)s is hidden: the table screen cannot follow it"), name=token.name)
        new |= {"mode": "follow", "follow": token.id, "center": None}
    if "zoom" in given:
        if new["mode"] == "fit":  # zooming the whole map: from its middle
            new |= {"mode": "center", "center": [game.board.width / 2, game.board.height / 2]}
        new["zoom"] = round(cmd.zoom, 4)
    for name in ("square_mm", "screen_width_mm"):
        if name in given:
            value = getattr(cmd, name)
            new[name] = None if value is None else round(value, 2)
    if "calibrate" in given:
        new["calibrating"] = cmd.calibrate
    if "language" in given:
        new["language"] = cmd.language
    if "square_mm" in given and cmd.square_mm is not None and game.zones is not None:
        raise Rejected(N_("true-scale squares need a square grid: this is a zone map, where distance is counted in "
                          "zones; the table screen shows it with fit, center, zoom or follow"))
    if "zoom" in given and new["square_mm"] and new["screen_width_mm"] and game.zones is None:
        raise Rejected(N_("the zoom is locked while squares are true to scale (%(mm)s mm); send square_mm: null to "
                          "zoom again"), mm=f"{new['square_mm']:g}")
    return new


def decide(game: "Game", cmd: Any, actor: "Actor") -> list[Event]:
    if isinstance(cmd, CalibrateScreen):
        view = current(game)
        if actor.role != "gm" and not view["calibrating"]:
            raise Rejected(N_("the calibration aid is closed: the GM opens it (Table screen > Calibrate)"))
        new = dict(view, screen_width_mm=round(cmd.screen_width_mm, 2),
                   calibrating=view["calibrating"] and not cmd.done)
    else:
        if actor.role != "gm":
            raise Rejected(N_("only the GM steers the table screen"))
        new = _decide_set(game, cmd)
    if new == current(game):
        return []
    return [Event("screen_view_set", new)]


def evolve(game: "Game", event: Event, log) -> None:
    game.screen_view = dict(event.data)


FEATURE = Feature("screenview", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), events=EVENTS, evolve=evolve)
