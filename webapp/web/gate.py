"""The access matrix at the HTTP door: before every request, the route's row in
:data:`webapp.game.access.ROUTES` is checked against the keys the request holds.

The matrix itself (who may do what, by role) is pure and lives in the game;
this reads the request (a Bearer token, a ``?key=`` link, the keys a browser
remembers) and answers with a redirect or an error when the row says no.
"""

from __future__ import annotations

from flask import abort, redirect, request, url_for
from flask_babel import gettext as _

from .. import launch
from ..game.access import ANYONE, GM, ROUTES, route_allows
from ..live.hub import guess_refused
from . import hub, remembered_key


#: the pages a ``?key=`` link opens: they remember the key and drop it from the address
LINK_PAGES = ("game.gm", "game.play", "game.screen")


def gate():
    """Before every request: refuse a route to whoever its row does not list (Flask ``before_request``)."""
    endpoint = request.endpoint
    if endpoint is None:
        return None  # no such route: Flask answers 404/405
    rule = ROUTES.get(endpoint)
    if rule is None:
        abort(403, f"no access rule for {endpoint}")  # a route nobody listed is nobody's
    if ANYONE in rule.who:
        return None
    h = hub()
    view_args = request.view_args or {}
    game_id = view_args.get("game_id")
    api = endpoint.startswith("api.")
    if not isinstance(game_id, str) or h.store.game(game_id) is None:
        abort(404, f"no game {game_id!r}" if api else _("There is no such game."))
    game = h.game(game_id)
    actors, locked = credentials(h, game_id, api)
    if any(route_allows(rule, game, actor, view_args) for actor in actors):
        return None
    if locked and GM in rule.who:
        if api:
            if guess_refused():  # its guess was not checked: the game or this client is at the limit
                abort(429, _("too many wrong GM passwords for this game: wait a minute"))
            abort(401, _("this game's GM key needs the GM password too: send it in the X-Tacmap-Password header"))
        if endpoint == "game.gm_password":
            return None  # the GM key opens the password page, which unlocks the rest
        if request.method == "GET":
            return redirect(url_for("game.gm_password", game_id=game_id))
        abort(403, _("Enter the GM password first: open the GM page."))
    if not actors and rule.anonymous:
        if api and not request.headers.get("Authorization", "").startswith("Bearer "):
            abort(rule.anonymous, "send 'Authorization: Bearer <token>' (the gm, player or screen token)")
        abort(rule.anonymous, "that token is not valid for this game")
    if rule.refused == 302:
        return redirect(url_for("lobby.index"))
    abort(rule.refused, rule.message if api else refusal(rule.message))  # a page's in the reader's language


def refusal(message: str) -> str:
    """A route's refusal in the reader's language; one that names how to start the server (``%(command)s``) names
    the command this server was started by (webapp/launch.py)."""
    return _(message, command=launch.serve_command()) if "%(command)s" in message else _(message)


def credentials(h, game_id: str, api: bool):
    """The actors this request holds for the game, and whether it holds a GM key still locked by the password."""
    header = request.headers.get("Authorization", "")
    bearer = header[7:].strip() if header.startswith("Bearer ") else ""
    password = request.headers.get("X-Tacmap-Password") if bearer else None
    if api:
        keys = [bearer] if bearer else []
    else:  # a page: the keys this browser remembers, a ?key= link, or a script's Bearer (a map's picture)
        link = request.args.get("key") if request.endpoint in LINK_PAGES else None
        keys = [k for k in (bearer, link, *(remembered_key(r, game_id) for r in ("gm", "player", "screen"))) if k]
    actors, locked = [], False
    for key in keys:
        actor = h.authenticate(game_id, key, password=password if key == bearer else None)
        if actor is None and h.key_actor(game_id, key) is not None:
            raw = h.key_actor(game_id, key)
            if raw.role == "gm":
                if not api and key == request.args.get("key") and request.endpoint in LINK_PAGES:
                    actor = raw  # a GM link: the page remembers the key, then asks for the password
                else:
                    locked = True
        if actor is not None:
            actors.append(actor)
    return actors, locked
