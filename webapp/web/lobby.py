"""The lobby: join a game by code, host a new one, reopen your games."""

from __future__ import annotations

from flask import Blueprint, current_app, redirect, render_template, request, session, url_for
from flask_babel import gettext as _

import rules
from rules.board import Board
from rules.grid import HEX_FLAT, HEX_POINTY, SQUARE

from .. import launch
from ..storage.store import DamagedLog
from ..game.core import text
from ..game.core.text import N_
from ..game.core.model import Rejected
from ..live.server.throttle import from_this_machine
from . import hub, remember_key
from .room import room
from .network import is_hosts_browser

bp = Blueprint("lobby", __name__)
TOO_MANY_GAMES = N_("Too many new games from this address: wait a while, or create it on the server's own machine.")
#: the new-game form's map choice (#28)
GRIDS = {"square": SQUARE, "hex-pointy": HEX_POINTY, "hex-flat": HEX_FLAT}
TOO_MANY_CODES = N_("Too many wrong join codes from this address: wait a minute, then try again.")
#: what another device is told when it may not make a game (#57: ``game_maker``); ``command``: how this server was
#: started, with --open-lobby (webapp/launch.py: python3 scripts/tacmap-start --open-lobby, tacmap serve --open-lobby)
LOBBY_CLOSED = N_("New games are made on the computer that runs tacmap, in its own browser. To let other devices "
                  "make games too, start the server with: %(command)s")
LOBBY_CLOSED_ROOM = N_("New games are made on the computer that runs tacmap, or by the organiser logged in on the "
                       "room page. To let other devices make games too, start the server with: %(command)s")


def game_maker() -> str | None:
    """Who makes a game (#57: each game is a log and memory of its own): "host" from the server's own machine
    (its browser, a script there, under any name of the server), "organiser" in room mode (logged in, from any
    device), "device" for any other device when the server was started with ``--open-lobby`` (``OPEN_LOBBY``), a
    few an hour per address (``new_game_allowed``); None: refused, saying how to open it (``lobby_closed``)."""
    if from_this_machine(request.environ):
        return "host"
    if room.enabled() and room.is_organiser(room.current_room()):
        return "organiser"
    return "device" if current_app.config.get("OPEN_LOBBY") else None


def made_by() -> str | None:
    """What a new game's first event says of its maker: "device" for another device's (room mode offers only the
    host's and the organiser's games as templates), nothing otherwise."""
    return "device" if game_maker() == "device" else None


def lobby_closed(english: bool = False) -> str:
    """Why this device may not make a game, and how the host lets it: in the reader's language (a page), or in
    English (``english``: the JSON API's words)."""
    message = LOBBY_CLOSED_ROOM if room.enabled() else LOBBY_CLOSED
    command = launch.serve_command("--open-lobby")
    return message % {"command": command} if english else _(message, command=command)


def new_game_allowed() -> bool:
    """Anyone may host a game, a few an hour per client address; the host's own browser without a limit."""
    return is_hosts_browser() or hub().new_games.take(request.remote_addr or "?")


def join_code_counted(found: bool) -> bool:
    """A join code was tried (``found``: it is a game's): counted per client address before it is looked at,
    given back when right. False: this address sent too many wrong ones this minute (nothing was looked up)."""
    guesses, address = hub().join_guesses, request.remote_addr or "?"
    if not guesses.take(address):
        return False
    if found:
        guesses.give_back(address)
    return True


def seats() -> list[dict]:
    """The games this device has a seat in (its session cookie holds the player keys), newest first."""
    h = hub()
    found = []
    for game_id, key in (session.get("player") or {}).items():
        record = h.store.game(game_id)
        try:
            actor = h.authenticate(game_id, key) if record else None
            if actor is None or actor.role != "player":
                continue
            player = h.game(game_id).players[actor.player_id]
        except DamagedLog:  # that game is out of service; the lobby is not
            continue
        found.append({"game_id": game_id, "game": record.name, "join_code": record.join_code,
                      "player": player.name, "created_at": record.created_at})
    return sorted(found, key=lambda s: -s["created_at"])


def lobby_page(code: str | None = None, error: str | None = None, status: int = 200, name: str = "",
               waiting: str | None = None):
    store = hub().store
    # the GM links: of the games this browser is the GM of; all of them only for the host's own browser (the
    # server's machine, straight, not through a proxy: webapp/web/network.py)
    mine = set((session.get("gm") or {}).keys())
    every = is_hosts_browser()
    games = room.lobby_games([g for g in store.games() if every or g.id in mine], mine)
    my_seats = seats()
    here = [s for s in my_seats if code and s["join_code"] == code]
    # the join page (a player's link from the QR code, a join code's errors) is the players': no "Host a game"
    host = (request.endpoint or "").startswith("lobby.")
    closed = None if not host or game_maker() else lobby_closed()  # the form, or how to have it
    return render_template("lobby.html", systems=rules.systems(), games=games, host=host, closed=closed,
                           code=code, error=error, seats=my_seats, seat_here=here[0] if here else None,
                           name=name, waiting=waiting, room_link=room.lobby_link_text() if every else None), status


@bp.get("/")
def index():
    return lobby_page()


@bp.post("/games")
def create():
    if not game_maker():
        return lobby_page(error=lobby_closed(), status=403)
    if not new_game_allowed():
        return lobby_page(error=_(TOO_MANY_GAMES), status=429)
    name = (request.form.get("name") or "").strip()
    system = request.form.get("system") or "plain_grid"
    if not name or len(name) > text.MAX_NAME:
        return lobby_page(error=_("A game needs a name of 1 to %(most)s characters.", most=text.MAX_NAME), status=400)
    why = text.problem(name)
    if why:
        return lobby_page(error=_("The game's name %(why)s.", why=why), status=400)
    if len(system) > 40:
        return lobby_page(error=_("Unknown rule system."), status=400)
    grid = GRIDS.get(request.form.get("grid") or "square")
    if grid is None:
        return lobby_page(error=_("A map is squares or hexes (pointy or flat top)."), status=400)
    try:
        zone_system = rules.get(system).board == "zones"
    except KeyError:
        return lobby_page(error=_("Unknown rule system %(system)s.", system=repr(system)), status=400)
    if zone_system and grid.hex:
        return lobby_page(error=_("This rule system plays on zone maps, not hexes."), status=400)
    board = None if zone_system else Board(24, 16, grid)  # the default map's size, squares or hexes
    try:
        record = hub().create_game(text.valid_name(name), system, board, made_by=made_by())
    except KeyError:
        return lobby_page(error=_("Unknown rule system %(system)s.", system=repr(system)), status=400)
    except Rejected as exc:
        return lobby_page(error=str(exc), status=400)
    remember_key("gm", record.id, record.gm_key)
    return redirect(url_for("game.gm", game_id=record.id))
