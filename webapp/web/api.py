"""The JSON API, for scripts, bots and tests (docs/PROTOCOL.md)."""

from __future__ import annotations

import hmac
import json

from flask import Blueprint, abort, current_app, jsonify, request, url_for

import rules
from rules.cellmask import pairs_json

from ..game.views import audience
from ..game.core import text
from ..game.board.mapdata import grid_board, zone_map
from ..game.core.model import GM, Actor, Rejected
from ..live.server.throttle import Busy
from ..storage import pictures
from . import hub
from .i18n import speak
from .game import join_game
from .lobby import TOO_MANY_CODES, TOO_MANY_GAMES, join_code_counted, game_maker, lobby_closed, made_by, new_game_allowed

bp = Blueprint("api", __name__, url_prefix="/api")


@bp.before_request
def _in_english() -> None:
    """The JSON API's error texts stay English whatever the caller's Accept-Language (docs/PROTOCOL.md,
    Languages: scripts read them); the map and picture uploads it shares with the GM page (maps.py,
    handouts.py) say theirs in the page reader's language there, in English here."""
    speak("en")


def _pictures_busy(exc):
    from .maps import busy

    return busy(exc)


bp.register_error_handler(pictures.PicturesBusy, _pictures_busy)


def _json_body() -> dict:
    """The request's JSON object, checked as every client payload is (text, nesting); 400 otherwise."""
    if not request.is_json:
        abort(400, "the body must be JSON (Content-Type: application/json)")
    try:
        data = json.loads(request.get_data(cache=True))
    except RecursionError:
        abort(400, f"the body nests too deep ({text.MAX_DEPTH} levels at most)")
    except ValueError:
        abort(400, "the body must be JSON (Content-Type: application/json)")
    if not isinstance(data, dict):
        abort(400, "the body must be a JSON object")
    try:
        text.check_payload(data)
    except Rejected as exc:
        abort(400, str(exc))
    return data


def _game_or_404(game_id: str):
    record = hub().store.game(game_id)
    if record is None:
        abort(404, f"no game {game_id!r}")
    return record


def _bearer(game_id: str) -> Actor:
    _game_or_404(game_id)
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bearer ") or not header[7:].strip():
        abort(401, "send 'Authorization: Bearer <token>' (the gm, player or screen token)")
    actor = hub().authenticate(game_id, header[7:].strip(), password=request.headers.get("X-Tacmap-Password"))
    if actor is None:
        abort(401, "that token is not valid for this game")
    return actor


def _run(game_id: str, actor: Actor, payload: dict):
    try:
        return hub().execute(game_id, actor, payload)
    except Busy as exc:  # this seat's (or this address's) commands are over their share (webapp/live/server/throttle.py)
        abort(429, str(exc))
    except Rejected as exc:
        abort(422, str(exc))


@bp.post("/games")
def create_game():
    if not game_maker():  # another device, unless the host opened the lobby (tacmap serve --open-lobby)
        abort(403, lobby_closed(english=True))
    if not new_game_allowed():
        abort(429, TOO_MANY_GAMES)
    data = _json_body()
    name, system = data.get("name"), data.get("system", "plain_grid")
    if not isinstance(name, str) or not name.strip() or len(name.strip()) > text.MAX_NAME:
        abort(400, f"name: a game needs a name of 1 to {text.MAX_NAME} characters")
    why = text.problem(name)
    if why:
        abort(400, f"name: the name {why}")
    if not isinstance(system, str) or len(system) > 40:
        abort(400, "system: must be a rule system id")
    board = zones = None
    if isinstance(system, str) and data.get("map") is not None:
        try:
            if isinstance(data["map"], dict) and "zones" in data["map"]:
                if system in {s.id for s in rules.systems()} and rules.get(system).board == "grid" and system != "plain_grid":
                    raise Rejected("map.zones: this game system plays on a square grid")
                board, zones = zone_map(data["map"])
            else:
                if system in {s.id for s in rules.systems()} and rules.get(system).board == "zones":
                    raise Rejected("map: this game system plays on zone maps: give {\"zones\": [...]}")
                board = grid_board(data["map"])
        except Rejected as exc:
            abort(400, str(exc))
    try:
        record = hub().create_game(text.valid_name(name.strip()), system, board, zones=zones, made_by=made_by())
    except KeyError:
        abort(400, f"system: unknown rule system {system!r}; known: {', '.join(s.id for s in rules.systems())}")
    except Rejected as exc:
        abort(400, f"system: {exc}")
    base = hub().base_url()
    return jsonify(
        id=record.id, gm_token=record.gm_key, join_code=record.join_code, screen_token=record.screen_key,
        urls={  # from the server's own address, never the request's Host header
            "gm": base + url_for("game.gm", game_id=record.id, key=record.gm_key),
            "join": base + url_for("game.join_form", code=record.join_code),
            "screen": base + url_for("game.screen", game_id=record.id, key=record.screen_key),
        },
    ), 201


@bp.post("/games/<game_id>/players")
def add_player(game_id: str):
    record = _game_or_404(game_id)
    data = _json_body()
    code = data.get("join_code")
    right = isinstance(code, str) and code.isascii() and hmac.compare_digest(code, record.join_code)
    if not join_code_counted(right):
        abort(429, TOO_MANY_CODES)
    if not right:
        abort(403, "join_code: wrong join code for this game")
    try:
        key, player_id, outcome = join_game(game_id, data.get("name"))
    except Rejected as exc:
        abort(400, f"name: {exc}")
    if outcome.startswith("r-"):  # that name's seat: the token works once the GM gives it (GM page)
        return jsonify(player_id=player_id, player_token=key, reclaimed=False, waiting=True, request_id=outcome), 202
    reclaimed = outcome == "reclaimed"
    return jsonify(player_id=player_id, player_token=key, reclaimed=reclaimed), 200 if reclaimed else 201


@bp.post("/games/<game_id>/tokens")
def add_token(game_id: str):
    actor = _bearer(game_id)
    if actor != GM:
        abort(403, "only the GM can add tokens")
    done = _run(game_id, actor, {**_json_body(), "type": "add_token"})
    return jsonify(id=done.events[0].data["token"]["id"]), 201


#: the JSON text of the last maps a state carried, by the map's dict (the board's data, or an audience's part of it
#: under fog: each kept while unchanged, ``fog.board_view``), the dict held so that its id is no other's meanwhile
_MAP_TEXT: dict[int, tuple[dict, str]] = {}
#: walls from which a state's map is written once per version (below it, writing it is quicker than looking)
_MAP_TEXT_WALLS = 1000


@bp.get("/games/<game_id>/state")
def state(game_id: str):
    """The state as this audience may see it, as JSON. On a big map its biggest parts are written as JSON text
    apart and spliced into the rest (#69: the loop's time for the biggest map's state 90-160 -> 10-40 ms): the fog's
    squares from their grids at once (``cellmask.pairs_json``), and the map's 40,000 walls once while it is unchanged
    (``_MAP_TEXT``)."""
    actor = _bearer(game_id)
    spliced: dict[str, str] = {}

    def splice(text_: str) -> str:  # a mark in the state, replaced by ``text_`` in its JSON
        mark = f"\x00spliced-{len(spliced)}"  # (no text of a game holds a NUL: text.check_payload refuses it)
        spliced[json.dumps(mark)] = text_
        return mark
    found = audience.public_state(hub().game(game_id), actor, lambda cells: splice(pairs_json(cells)))
    board = found["map"]
    if len(board.get("walls") or ()) >= _MAP_TEXT_WALLS:
        kept = _MAP_TEXT.get(id(board))
        if kept is None or kept[0] is not board:
            if len(_MAP_TEXT) >= 8:
                _MAP_TEXT.clear()
            kept = _MAP_TEXT[id(board)] = (board, current_app.json.dumps(board))
        found["map"] = splice(kept[1])
    body = current_app.json.dumps(found)
    for mark, text_ in spliced.items():
        body = body.replace(mark, text_, 1)
    return current_app.response_class(f"{body}\n", mimetype=current_app.json.mimetype)


@bp.post("/games/<game_id>/commands")
def command(game_id: str):
    actor = _bearer(game_id)
    done = _run(game_id, actor, _json_body())
    return jsonify(ok=True, seq=done.seq, **done.reply)


@bp.get("/games/<game_id>/suggestions/<token_id>")
def suggestions(game_id: str, token_id: str):
    """The best plans for the GM's foe ``token_id`` on its turn (#60): the GM's alone (a player's or the table
    screen's key: 403 and nothing else). Reckoned off the loop on a copy of the game (``live/suggesting.py``); past the
    game's (or its GM's, one client address over its games) bound of requests under way, 429 "busy" with Retry-After and nothing started; the words in ``?lang=`` (en, de, fr, es; English by default). A system whose suggestions are not reckoned: 501 and
    why, in words."""
    from ..game.planning.suggestions import NotReckoned, tactic_of
    from ..live.foes import suggesting
    from ..live.screens.language import normalize, words

    actor = _bearer(game_id)
    if actor.role != "gm":
        abort(403, "suggestions are for the GM")
    game = hub().game(game_id)
    language = normalize(request.args.get("lang")) or "en"
    try:
        return jsonify(suggesting.plans(game, token_id, language))
    except suggesting.Busy as exc:  # this game (or its GM) has as many plans under way as it may: nothing started (#72)
        return jsonify(error=str(exc.message), code="busy"), 429, {"Retry-After": str(suggesting.RETRY_AFTER)}
    except Rejected as exc:
        abort(422, str(exc))  # in English, as the API's refusals are
    except NotReckoned as exc:
        tactic = tactic_of(game, token_id) if token_id in game.tokens else None
        return jsonify(token_id=token_id, tactic=tactic, plans=None,
                       not_reckoned=str(words(exc.message, language))), 501


def _forecasts(game_id: str):
    """The GM's forecasts (#68): a player's, the table screen's or a stranger's key, 403 and nothing else."""
    from ..live.foes import forecasting

    _game_or_404(game_id)
    header = request.headers.get("Authorization", "")
    if not header.startswith("Bearer ") or not header[7:].strip():
        abort(401, "send 'Authorization: Bearer <token>' (the gm token)")
    actor = hub().authenticate(game_id, header[7:].strip(), password=request.headers.get("X-Tacmap-Password"))
    if actor is None or actor.role != "gm" or actor.by is not None:  # a player's, the screen's, a stranger's key
        abort(403, "the forecast is for the GM")
    return forecasting.of(hub())


@bp.post("/games/<game_id>/forecast")
def start_forecast(game_id: str):
    """A forecast of the fight (#68), the GM's: ``{"runs": 1-5000 (500), "seed"?: int, "from": "start" | "now",
    "token_ids"?: [...], "players": "bold" | "careful", "without"?: [...], "tactics"?: {token: tactic}, "extra"?:
    [...], "bennies"?: 0-5, "most_dangerous"?: bool}`` -> 202 ``{"id"}`` (docs/PROTOCOL.md); its figures at ``GET
    .../forecast/<id>`` as the runs finish; ``DELETE`` stops it. A second replaces the first. Nothing in the game
    changes; no one but the GM hears of it."""
    from ..live.foes.forecasting import asked

    forecasts = _forecasts(game_id)
    try:
        starts, runs, seed = asked(hub().game(game_id), _json_body())
    except Rejected as exc:
        abort(400 if exc.code == "bad" else 422, str(exc))
    job = forecasts.start(starts, game_id, runs, seed)
    return jsonify(id=job.id), 202


@bp.get("/games/<game_id>/forecast/<forecast_id>")
def forecast_figures(game_id: str, forecast_id: str):
    """A forecast's figures so far (#68): the GM's."""
    job = _forecasts(game_id).get(game_id, forecast_id)
    if job is None:
        abort(404, "no such forecast (a newer one replaced it, or it was made in another process)")
    return jsonify(job.as_dict())


@bp.delete("/games/<game_id>/forecast/<forecast_id>")
def stop_forecast(game_id: str, forecast_id: str):
    """Stops a forecast (#68): its figures so far stay."""
    job = _forecasts(game_id).stop(game_id, forecast_id)
    if job is None:
        abort(404, "no such forecast")
    return jsonify(job.as_dict())


@bp.post("/games/<game_id>/maps")
def import_map(game_id: str):
    """A Universal VTT file (multipart field ``file``) becomes a new map, shown to everyone."""
    from .maps import import_map as run_import

    return run_import(game_id, _bearer(game_id))


@bp.post("/games/<game_id>/maps/<map_id>/picture")
def map_picture(game_id: str, map_id: str):
    """A background picture (PNG, JPEG, WebP; multipart field ``file``) for a map ("active": the active one)."""
    from .maps import set_picture

    return set_picture(game_id, _bearer(game_id), None if map_id == "active" else map_id)



@bp.post("/games/<game_id>/handouts")
def handout(game_id: str):
    """A hand-out (#27): multipart ``file`` (PNG, JPEG, WebP)?, ``text``?, ``title`` -> 201 {"handout_id"}."""
    from .handouts import new_handout

    return new_handout(game_id, _bearer(game_id))


@bp.post("/games/<game_id>/pictures")
def token_picture(game_id: str):
    """A token picture (#27): multipart ``file``, ``token_id``? (a player: their own) -> 201 {"picture_id"}."""
    from .handouts import new_picture

    return new_picture(game_id, _bearer(game_id))
