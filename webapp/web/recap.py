"""The recap page (#36): ``GET /games/<id>/recap``, each seat told what it saw (webapp/game/views/recap.py).

``?download=1``: the same recap as one file to keep (an attachment: styles inside it, the board pictures
as data: URIs, no script, nothing fetched from a server). ``?as=gm|player|screen``: which of the keys this
browser holds the recap is told for (default: the GM's, else the player's, else the table screen's).
``?embed=1``: the recap alone, for the table screen's overlay (fetched by htmx into the screen's page).
"""

from __future__ import annotations

import base64
import re
import time
from datetime import datetime

from flask import Blueprint, abort, make_response, render_template, request
from flask_babel import format_datetime
from flask_babel import gettext as _

from ..game.bridge import fog
from ..game.views import luck, recap
from ..live.replaying import taking_turns
from ..live.screens import language
from ..storage.history import walk
from ..storage.store import collector_paused
from . import hub
from .gate import credentials

bp = Blueprint("recap", __name__)
ORDER = ("gm", "player", "screen")
#: events of the log folded between two turns of the other tables (a few milliseconds of the loop at most)
RECAP_SLICE = 25


def _actor(game_id: str):
    actors, _locked = credentials(hub(), game_id, api=False)
    wanted = request.args.get("as")
    if wanted is not None and wanted not in ORDER:
        abort(400, _("as: one of gm, player, screen"))
    for role in ([wanted] if wanted else ORDER):
        for actor in actors:
            if actor.role == role:
                return actor
    abort(403, _("This browser holds no key of that seat for this game."))


@bp.app_template_filter("names_list")
def names_list(names) -> str:
    """Names as the reader's language lists them ("Hero, Ana and Bandit", "Hero, Ana und Bandit"), each once."""
    from babel.lists import format_list
    from flask_babel import get_locale

    names = list(dict.fromkeys(names or ()))
    return format_list(names, locale=get_locale() or "en") if names else ""


@bp.app_template_filter("luck_line")
def luck_line(told: dict):
    """A fighter's luck in the recap (#59: ``luck.told``'s dict), in words put in the reader's language."""
    return language.words(luck.line(told))


@bp.app_template_filter("recap_date")
def recap_date(when: float) -> str:
    """A session's start, in the server's time zone (where the table sat), as the reader's language writes it."""
    return format_datetime(datetime.fromtimestamp(when), "EEE d MMM y, HH:mm")


def data_uri(svg: str) -> str:
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode()).decode()


@bp.get("/games/<game_id>/recap")
def page(game_id: str):
    h = hub()
    actor = _actor(game_id)
    started = time.perf_counter()
    told = language.words(build(h, game_id, actor))  # the log's lines in the reader's language (#37)
    download = request.args.get("download") == "1"
    embed = request.args.get("embed") == "1" and not download
    body = render_template("recap.html", recap=told, game_id=game_id, actor=actor, download=download, embed=embed,
                           picture=data_uri, took_ms=(time.perf_counter() - started) * 1000)
    response = make_response(body)
    response.headers["Content-Type"] = "text/html; charset=utf-8"
    if download:
        name = re.sub(r"[^A-Za-z0-9_-]+", "-", told["name"]).strip("-")[:60] or "game"
        response.headers["Content-Disposition"] = f'attachment; filename="recap-{name}.html"'
    return response


def build(h, game_id: str, actor) -> dict:
    """The recap of the game's whole stored log, as ``actor`` saw it. The log is the one the replay keeps parsed
    (``Replays.history``: read from the store once per process, shared with the replay's jumps and the next recap);
    the GM's recap folds it without the fog's explored memory (the GM knows the whole map: nothing of the GM's
    story reads it; a third of the fold's cost), the others' with it computed only after the events that can
    change it (``recap.remembering``)."""
    with collector_paused():  # the log read and folded: ~a million new objects; collected once afterwards
        return _told(h, game_id, actor)


def _told(h, game_id: str, actor) -> dict:
    found = h.replays.history(game_id, restore=False)
    events = found.log()
    times = [found.times.get(seq) for seq in range(1, len(events) + 1)]  # read with the log where it was read
    if len(found.times) < len(events):  # events the log took as they were played: their times from the store
        first = next(seq for seq in range(1, len(events) + 1) if seq not in found.times)
        times[first - 1:] = h.store.event_times(game_id, after=first - 1)
    with fog.without_memory():  # the players' memory kept only where it can change (``recap.remembering``)
        steps = taking_turns(walk(game_id, events), RECAP_SLICE)  # the other tables go on between slices (#72)
        return recap.story(steps if actor.role == "gm" else recap.remembering(steps), times, actor)
