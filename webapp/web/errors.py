"""What the site answers besides pages: its error pages, and the response and JSON classes every answer uses."""

from __future__ import annotations

from flask import Response, render_template, request, url_for
from flask_babel import gettext as _
from flask.json.provider import DefaultJSONProvider
from werkzeug.exceptions import HTTPException

from ..game.core.text import N_, scrub
from . import hub, remembered_key


class TextResponse(Response):
    """A response whose text is encoded whatever it holds: an old log may hold a name with a lone surrogate
    (written before webapp/game/core/text.py refused them), and a page showing it must still load."""

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
              405: _("Not done this way"), 409: _("Not now"), 410: _("Gone"), 413: _("Too much at once"),
              415: _("Not a file this takes"), 422: _("Refused"), 429: _("Too many requests"),
              500: _("Something went wrong on the server"), 503: _("This game is out of service"),
              507: _("The server's disk is full")}
    if exc.code == 500:
        description = _("The server could not do that; its log says why.")
    elif exc.description == type(exc).description and exc.code in DESCRIPTIONS:  # werkzeug's own English
        description = _(DESCRIPTIONS[exc.code])
    else:  # what the code said (in the reader's language already, or an N_-marked message looked up here)
        description = _(exc.description) if exc.description else ""
    return render_template("error.html", code=exc.code, title=titles.get(exc.code, _("Error")),
                           description=description, back=back, back_label=back_label), exc.code


#: what an error page says when the code gave no reason of its own (werkzeug's default English otherwise)
DESCRIPTIONS = {
    400: N_("The server did not understand what this page sent. Reload the page and try again."),
    403: N_("This link does not open this page."),
    404: N_("There is nothing at this address. Check the link, or start again from the lobby."),
    405: N_("This address does not take that kind of request."),
    409: N_("That cannot be done now: the page is out of date. Reload it and try again."),
    410: N_("What was here is gone."),
    413: N_("That was more than the server takes at once."),
    415: N_("The server does not take that kind of file here."),
    429: N_("Too many requests in a short time: wait a moment, then try again."),
    503: N_("The server cannot do that right now; try again in a moment."),
}
