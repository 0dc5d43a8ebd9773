"""What the site answers besides pages: its error pages, and the response and JSON classes every answer uses."""

from __future__ import annotations

from flask import Response, render_template, request, url_for
from flask_babel import gettext as _
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from ..game.text import scrub
from . import hub, remembered_key


class TextResponse(Response):
    """A response whose text is encoded whatever it holds: an old log may hold a name with a lone surrogate
    (written before webapp/game/text.py refused them), and a page showing it must still load."""

    def set_data(self, value):
        if isinstance(value, str):
            value = scrub(value)
        super().set_data(value)


class SafeJSON(DefaultJSONProvider):
    """JSON with <, > and & written as \\u escapes: an error that quotes the input never carries markup."""

    def dumps(self, obj, **kwargs) -> str:
        return super().dumps(obj, **kwargs).replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


class InsufficientStorage(HTTPException):
    code = 507
    name = "Insufficient Storage"


def error_page(exc: HTTPException):
    """An error in the site's layout, with a way back: to the game this browser sits in, else the lobby."""
    back, back_label = url_for("lobby.index"), _("Back to the lobby")
    game_id = (request.view_args or {}).get("game_id")
    if game_id:
        h = hub()
        for role, endpoint in (("gm", "game.gm"), ("player", "game.play")):
            key = remembered_key(role, game_id)
            try:
                actor = h.authenticate(game_id, key) if key else None
                if actor is not None:
                    h.game(game_id)  # a game whose log is damaged is no way back
            except Exception:  # an error page must never fail in turn
                actor = None
            if actor is not None and actor.role == role:
                back, back_label = url_for(endpoint, game_id=game_id), _("Back to your game")
                break
    titles = {400: _("That request was not understood"), 403: _("Not your seat"), 404: _("Not found"),
              500: _("Something went wrong on the server"), 503: _("This game is out of service"),
              507: _("The server's disk is full")}
    description = exc.description if exc.code != 500 else _("The server could not do that; its log says why.")
    return render_template("error.html", code=exc.code, title=titles.get(exc.code, exc.name),
                           description=description, back=back, back_label=back_label), exc.code
