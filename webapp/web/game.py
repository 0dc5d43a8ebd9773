"""The game pages: the GM's view, a player's view, the table screen, joining."""

from __future__ import annotations

from flask import Blueprint, abort, current_app, jsonify, make_response, redirect, render_template, request, session, url_for
from flask_babel import gettext as _
from markupsafe import escape

from .. import launch
from ..game.tableside import keys, screenview
from ..game.core.model import Rejected
from ..game.tableside.seats import player_joined
from ..game.table import from_form
from ..live.screens import language, render
from ..live.gm_access import guess_refused, new_key, render_security
from ..live.screens.language import refusal_text as refusal
from . import hub, remember_key, remembered_key, slow_wrong_guess, unlock
from .device import played
from .gate import gate
from .i18n import speak
from .lobby import TOO_MANY_CODES, join_code_counted, lobby_page

bp = Blueprint("game", __name__)
PLAIN = {"Content-Type": "text/plain; charset=utf-8"}
#: the header an htmx form's command carries its id in (docs/PROTOCOL.md "Command ids"); a form field ``cid`` also does
COMMAND_ID_HEADER = "X-Command-Id"
HTML = {"Content-Type": "text/html; charset=utf-8"}
bp.before_app_request(gate)  # every route is checked against the access matrix first


def _page_actor(game_id: str, role: str):
    """The key this browser holds for the role (a ?key= link is remembered, then dropped from the URL)."""
    h = hub()
    if h.store.game(game_id) is None:
        abort(404, _("There is no such game."))
    key = request.args.get("key")
    if key:
        actor = h.key_actor(game_id, key)  # a GM link is remembered even before its password is given
        if actor is None or actor.role != role:
            abort(403, _("That link is not valid for this page."))
        remember_key(role, game_id, key)
        return None, None, redirect(url_for(request.endpoint, game_id=game_id))
    key = remembered_key(role, game_id)
    actor = h.authenticate(game_id, key) if key else None
    if actor is None or actor.role != role:
        return None, None, None
    return actor, key, None


def _seat(game_id: str):
    """Who this browser is at the table (GM first, else player), or None; 404 for no game."""
    h = hub()
    if h.store.game(game_id) is None:
        abort(404, _("There is no such game."))
    for role in ("gm", "player"):
        key = remembered_key(role, game_id)
        actor = h.authenticate(game_id, key) if key else None
        if actor is not None:
            return actor
    return None


def _render_page(template: str, game_id: str, actor, key: str, **extra):
    h = hub()
    game = h.game(game_id)
    # the players' devices (live, asleep, link down...: webapp/live/devices.py) are the GM's to see alone
    devices = h.devices.summary(game_id) if actor.role == "gm" else {}
    ctx = render.context(game, actor, h.online_players(game_id), {**h.join_info(game_id), "devices": devices})
    # the seq of the last update this audience was sent (a change it cannot see sends it none)
    return render_template(template, key=key, shown_seq=h.fanout.shown_seq(game, actor.audience), **ctx, **extra)


@bp.get("/games/<game_id>/gm")
def gm(game_id: str):
    actor, key, redirect_to = _page_actor(game_id, "gm")
    if redirect_to:
        return redirect_to
    if actor is None:
        abort(403, _("This is the GM's page: open it with the GM link that %(command)s printed.",
                     command=launch.serve_command()))
    return _render_page("gm.html", game_id, actor, key, **hub().gm_access.screen_info(game_id))


@bp.route("/games/<game_id>/gm/password", methods=["GET", "POST"])
def gm_password(game_id: str):
    """The GM password, asked once per browser session when the GM has set one."""
    h = hub()
    record = h.store.game(game_id)
    if h.password_hash(game_id) is None or h.gm_access.gm_unlocked(game_id):
        return redirect(url_for("game.gm", game_id=game_id))
    error, status = None, 200
    if request.method == "POST":
        if h.gm_access.check_password(game_id, request.form.get("password") or ""):  # counted before it is checked
            unlock(game_id, h.password_hash(game_id))
            return redirect(url_for("game.gm", game_id=game_id))
        if guess_refused():
            error, status = "Too many wrong passwords for this game. Wait a minute, then try again.", 429
        else:
            slow_wrong_guess()
            error, status = "That is not the GM password.", 401
    return render_template("gm_password.html", record=record, error=error), status


@bp.post("/games/<game_id>/security")
def security_panel(game_id: str):
    """The GM's Security card: set or clear the GM password, new join code, new table-screen link."""
    h = hub()
    actor = h.authenticate(game_id, remembered_key("gm", game_id))
    if actor is None:  # the gate lets only an unlocked GM in; never act for nobody
        abort(403, _("Only the GM changes the game's keys and password."))
    payload = {"type": request.form.get("type") or ""}
    if payload["type"] == "set_gm_password":
        payload["password"] = request.form.get("password") or ""
        if payload["password"] != (request.form.get("confirm") or ""):
            return _security(game_id, error=_("The two passwords differ."))
    setting = payload["type"] == "set_gm_password"
    try:
        if setting:  # this browser is unlocked by this answer: the GM connections end once it is sent
            done = h.security_command(game_id, actor, keys.parse(payload), end_gm_sessions=False)
        else:
            done = h.execute(game_id, actor, payload)
    except Rejected as exc:
        return _security(game_id, error=str(exc))
    if setting:
        unlock(game_id, h.password_hash(game_id))
        response = make_response(_security(game_id, notice=_("The GM link now needs this password.")))
        response.call_on_close(lambda: h.gm_access.end_gm_sessions(game_id))
        return response
    notice = {"set_gm_password": _("The GM link now needs this password."),
              "clear_gm_password": _("The GM link no longer needs a password.") if done.events else _("There was no password."),
              "rotate_join_code": _("New join code: the old one no longer works."),
              "rotate_screen_key": _("New table-screen link: the old one no longer works; open it again on the screen.")}
    return _security(game_id, notice=notice.get(payload["type"], ""))


def _security(game_id: str, **extra):
    h = hub()
    return render_security(h.gm_access, h.game(game_id), oob=False, **extra)


@bp.get("/games/<game_id>/play")
def play(game_id: str):
    actor, key, redirect_to = _page_actor(game_id, "player")
    if redirect_to:
        return redirect_to
    if actor is None:
        return redirect(url_for("lobby.index"))
    player = hub().game(game_id).players[actor.player_id]
    played(game_id)  # the home-screen icon opens this seat (webapp/web/device.py)
    return _render_page("play.html", game_id, actor, key, player=player)


@bp.get("/games/<game_id>/screen")
def screen(game_id: str):
    actor, key, redirect_to = _page_actor(game_id, "screen")
    if redirect_to:
        return redirect_to
    if actor is None:
        abort(403, _("This is the table screen: open it from the GM's page."))
    speak(screenview.screen_language(hub().game(game_id)))  # the GM's choice for the screen, else the device's
    return _render_page("screen.html", game_id, actor, key)


@bp.get("/games/<game_id>/timeline")
def timeline(game_id: str):
    """The replay's timeline (#36) as JSON: the log's head and its moments, the GM's whole game, a player's
    the fights they were in (webapp/game/views/replay_view.py); the replay panel of the page reads it."""
    actor = _seat(game_id)
    if actor is None:
        abort(403, _("You are not in this game."))
    history = hub().replays.told(game_id)  # the moments only: no state folded for them
    moments = [m.to_dict(actor) for m in history.timeline(actor)]
    return jsonify(head=history.head, role=actor.role, moments=language.words(moments))  # in the reader's language


@bp.get("/games/<game_id>/board-list")
def board_list(game_id: str):
    """A player's list of the board (#61), drawn as the page draws it: fetched by static/js/boardlist.js while the
    phone shows the list, when a live update marks it due (``#board-list-due``)."""
    actor = _seat(game_id)
    if actor is None or actor.role != "player":
        abort(403, _("The list of the board is a player's."))
    html = render.board_list(hub().game(game_id), actor)
    return html, 200, {**HTML, "Cache-Control": "no-store"}


@bp.get("/games/<game_id>/foe-plans/<token_id>")
def foe_plans(game_id: str, token_id: str):
    """The best plans for the GM's foe on its turn (#60), drawn for the fight card in the GM's language: fetched by
    static/js/foeplans.js, never inside a command (a move never waits for them); reckoned off the loop on a copy of
    the game (``live/suggesting.py``). The GM's alone."""
    from ..game.planning.suggestions import TACTICS, NotReckoned, tactic_of
    from ..live.foes import suggesting

    actor = _seat(game_id)
    if actor is None or actor.role != "gm":
        abort(403, _("The foes' plans are the GM's."))
    game = hub().game(game_id)
    found, error, status = None, None, 200
    try:
        found = suggesting.plans(game, token_id)
    except suggesting.Busy as exc:  # this game (or its GM) has as many plans under way as it may: "try again" (#72)
        error, status = _(exc.message), 429
    except Rejected as exc:
        error = refusal(exc)
    except NotReckoned as exc:
        error = str(language.words(exc.message))
    token = game.tokens.get(token_id)
    html = render_template("_foe_plans.html", found=found, error=error, token=token, tactics=TACTICS,
                           tactic=tactic_of(game, token_id) if token else None)
    more = {"Retry-After": str(suggesting.RETRY_AFTER)} if status == 429 else {}
    return html, status, {**HTML, "Cache-Control": "no-store", **more}


@bp.get("/join")
def join_form():
    code = (request.args.get("code") or "").strip().upper()[:12]
    return seat_wait(code) or lobby_page(code=code)


@bp.post("/join")
def join():
    code = (request.form.get("code") or "").strip().upper()
    name = request.form.get("name") or ""
    h = hub()
    record = h.store.game_by_join_code(code) if code and len(code) <= 12 else None
    if not join_code_counted(record is not None):  # counted per client address: codes are not guessed
        return lobby_page(code=code, error=_(TOO_MANY_CODES), status=429, name=name)
    if record is None:
        return lobby_page(code=code, error=_("No game has that join code."), status=404, name=name)
    # this device sits at the table already under that name: it simply goes back in
    held = remembered_key("player", record.id)
    actor = h.authenticate(record.id, held) if held else None
    if actor is not None and actor.role == "player":
        player = h.game(record.id).players[actor.player_id]
        if " ".join(name.split()).casefold() == player.name.casefold():
            return redirect(url_for("game.play", game_id=record.id))
    try:
        key, _player_id, outcome = join_game(record.id, name)
    except Rejected as exc:
        return lobby_page(code=code, error=str(exc), status=400, name=name)
    remember_key("player", record.id, key)  # works once the GM gives the seat, when it was asked for
    if outcome.startswith("r-"):  # a seat of that name: the GM is asked; this page waits for the answer
        waits = dict(session.get("seat_wait") or {})
        waits[record.id] = outcome
        session["seat_wait"] = waits
        return redirect(url_for("game.join_form", code=code))
    return redirect(url_for("game.play", game_id=record.id))


def seat_wait(code: str):
    """This device asked the GM for a seat in the game of this join code: the play page once given, the
    waiting page while asked (it reloads itself), a refusal once refused; None: it asked nothing here."""
    h = hub()
    waits = dict(session.get("seat_wait") or {})
    record = h.store.game_by_join_code(code) if code else None
    if record is None or record.id not in waits:
        return None
    key = remembered_key("player", record.id)
    actor = h.authenticate(record.id, key) if key else None
    if actor is not None and actor.role == "player":
        waits.pop(record.id)
        session["seat_wait"] = waits
        return redirect(url_for("game.play", game_id=record.id))
    game = h.game(record.id)
    asked = game.seat_requests.get(waits[record.id])
    if asked is not None:
        name = game.players[asked["player_id"]].name if asked["player_id"] in game.players else _("that player")
        return lobby_page(code=code, waiting=_("Waiting for the GM to give you %(name)s's seat on this device…", name=name))
    waits.pop(record.id)
    session["seat_wait"] = waits
    return lobby_page(code=code, error=_("The GM did not give you that seat. Ask at the table, or join under "
                                         "another name."), status=403)


def join_game(game_id: str, name: str) -> tuple[str, str, str]:
    """Add a player, or give a returning one their seat on this new device: at once when the GM turned that
    on, else once the GM says yes on the GM page.

    Returns the device's new key (shown once), the player id and what became of it: "joined", "reclaimed",
    or the id of the request the GM is asked (``r-...``; the key works once the GM allows it).
    """
    key = new_key()
    holder: dict = {}

    def decide(game):
        event = player_joined(game, name, key)
        holder["id"] = event.data["player_id"]
        holder["outcome"] = {"player_joined": "joined", "player_reclaimed": "reclaimed"}.get(
            event.type) or event.data["request_id"]
        return [event]

    hub().commit(game_id, decide)
    return key, holder["id"], holder["outcome"]


@bp.post("/games/<game_id>/commands")
def command(game_id: str):
    """A command from an htmx form (the live page's Socket.IO link takes the rest)."""
    h = hub()
    actor = _seat(game_id)
    if actor is None:
        return _("You are not in this game."), 403, PLAIN
    fields = {}
    for field, values in request.form.lists():
        if field == "csrf_token":  # checked by CSRFProtect before this view; not part of the command
            continue
        # an unchecked box sends only its hidden "false"; a checked one both: the last wins
        value = values[-1]
        if value == "" and field not in ("owner", "picture"):  # "" takes a token's player or picture off
            continue
        fields[field] = value
    from_htmx = request.headers.get("HX-Request") == "true"
    payload = from_form(fields)
    if COMMAND_ID_HEADER in request.headers:  # the page's id for this command (static/js/live.js): done once
        payload["cid"] = request.headers[COMMAND_ID_HEADER]
    try:
        done = h.execute(game_id, actor, payload)
    except Rejected as exc:
        if from_htmx:
            # a refusal is an answer, not a failure: htmx gets a 200 and the page shows the reason
            return "", 200, {"HX-Trigger": current_app.json.dumps({"tacmap:refused": refusal(exc)})}  # <, > as \u
        return escape(refusal(exc)), 422, HTML  # a refusal may quote the input: escaped, never markup
    if done.reply.get("repeat"):  # its id was done already: the first answer (only a change is remembered)
        return "", 204, {"X-Command-Repeat": "true"}
    if not done.events:
        if from_htmx:
            return "", 200, {"HX-Trigger": current_app.json.dumps({"tacmap:notice": _("Nothing changed.")})}
        return "nothing changed", 200, PLAIN
    return "", 204


# --- the forecast of a fight (#68): the GM's card ------------------------------------------------------------------


def _gm_only(game_id: str):
    actor = _seat(game_id)
    if actor is None or actor.role != "gm":
        abort(403, _("The forecast is the GM's."))
    return actor


def _forecast_card(game_id: str, job=None, error: str | None = None, status: int = 200):
    """The forecast card's results (templates/_forecast_result.html): the one under way (polled while it runs), the
    one it replaced beside it."""
    from ..game.planning import forecast
    from ..live.foes import forecasting

    forecasts = forecasting.of(hub())
    game = hub().game(game_id)
    before = forecasts.before(game_id)
    html = render_template("_forecast_result.html", game=game, job=job, before=before if before is not job else None,
                           error=error, names=forecasting.names(game), deaths=game.system in forecast.DEATH)
    return html, status, {**HTML, "Cache-Control": "no-store"}


@bp.get("/games/<game_id>/forecast-form")
def forecast_form(game_id: str):
    """The forecast card's form, drawn afresh for the tokens on the map now (the card asks when it is opened); the
    forecasts' worker is started meanwhile if it is not yet."""
    from ..live.foes import forecasting

    _gm_only(game_id)
    forecasting.warm(hub())  # its worker started while the GM fills the form in
    html = render_template("_forecast_form.html", game=hub().game(game_id), **forecasting.form_context(hub().game(game_id)))
    return html, 200, {**HTML, "Cache-Control": "no-store"}


@bp.post("/games/<game_id>/forecast")
def forecast_start(game_id: str):
    """Forecast (the card's button): the form read as the API's request (``forecasting.from_form``), the forecast
    started off the loop, its first figures drawn; a refusal in the GM's words."""
    from ..live.foes import forecasting

    _gm_only(game_id)
    game = hub().game(game_id)
    try:
        starts, runs, seed = forecasting.asked(game, forecasting.from_form(game, request.form))
    except Rejected as exc:
        return _forecast_card(game_id, error=refusal(exc), status=422)
    job = forecasting.of(hub()).start(starts, game_id, runs, seed, asked=forecasting.from_form(game, request.form))
    return _forecast_card(game_id, job)


@bp.get("/games/<game_id>/forecast/<forecast_id>")
def forecast_show(game_id: str, forecast_id: str):
    """The figures so far (the card asks every half second while the forecast runs)."""
    from ..live.foes import forecasting

    _gm_only(game_id)
    job = forecasting.of(hub()).get(game_id, forecast_id)
    return _forecast_card(game_id, job, error=None if job else _("That forecast was replaced by a newer one."))


@bp.post("/games/<game_id>/forecast/<forecast_id>/stop")
def forecast_stop(game_id: str, forecast_id: str):
    """Stop (the card's button): the figures so far stay."""
    from ..live.foes import forecasting

    _gm_only(game_id)
    return _forecast_card(game_id, forecasting.of(hub()).stop(game_id, forecast_id))
