"""Room mode (#38): one organiser runs many tables, at a game store's night or in a convention room.

``tacmap serve --room`` (or ``TACMAP_ROOM=1``) opens ``/room``, the organiser's page, behind a password of its
own. The first time, the server prints a one-time setup link on its console (no password travels over the
shared Wi-Fi before the organiser chose it: whoever holds the console holds the room); the link sets the
password once and stops working. Wrong passwords and wrong GM PINs are counted per client address first
(``keys.RoomGuesses``, shared in Redis with ``--message-queue``, #57): five a minute from one address; an
address with no wrong try this minute is always checked, one that failed waits too while the room had ten
this minute; the organiser's page shows the wrong tries of the last hour.

- A table is a game copied from a template game (an existing game, its maps, foes and pictures ready: the game
  file of ``tacmap export``, imported under a new id). It has a printed join code, a GM PIN (six digits) and
  links that go through the table (``/room/t/<table>/gm``, ``/room/t/<table>/screen``), so what is printed
  stays valid across slots.
- A reset puts the table's game aside as a past slot (its log as it was; downloadable as its game file) and
  gives the table a fresh copy of the template, with the same GM and screen keys and join code. The old game
  keeps none of them; its players are removed (their phones are told), its GM page and table screen reload
  into the new game.
- Closing the room: every table's game stops (players removed, keys changed), its pages and the join form
  say the room is closed.

The room's data lives in the same store as the games (``Store`` "room mode" block): several processes, or
machines, serve one room.

This module is the room's front: its blueprint, who the organiser is (the setup link, login), the volunteers'
doors (a printed link, the GM PIN), what a reset table's or a closed room's pages lead to, and the names a table's
game pages show. The organiser's page and its changes are webapp/web/room/roompage.py (routes on this blueprint); the
tables' lifecycle, webapp/live/roomtables.py; the room's words, webapp/web/room/roomwords.py.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from flask import Blueprint, abort, current_app, redirect, render_template, request, session, url_for

from ... import launch
from ...game.tableside import keys
from ...live.roomtables import PIN_DIGITS, ROOM_CLOSED
from .. import hub, remember_key, remembered_key, slow_wrong_guess, unlock
from .roomwords import N_, _, gettext_in_templates

bp = Blueprint("room", __name__)
bp.record_once(gettext_in_templates)

ORGANISER = "organiser"  # the kind the organiser password's wrong tries are counted under (keys.RoomGuesses)
PIN_GUESSES = "pin"  # and the GM PINs' (the whole room's: a PIN opens any table's GM page)
SETUP_TOKEN_BYTES = 18

#: ``command``: how this server was started, with --room (webapp/launch.py: python3 scripts/tacmap-start --room)
NOT_ROOM = N_("This server is not in room mode: start it with `%(command)s`.")
TOO_MANY = N_("Too many wrong tries: wait a minute, then try again.")


def enabled() -> bool:
    return bool(current_app.config.get("ROOM"))


# --- the names a table's pages and the lobby show ----------------------------------------------------------------


@bp.app_context_processor
def _table_names() -> dict:
    return {"game_title": game_title, "table_template": table_template}


def lobby_games(games: list, mine: set[str]) -> list:
    """The games the lobby lists (``games``: the host's browser's, every game; ``mine``: the ones this browser is
    the GM of), in room mode (docs/ROOM.md "The lobby"): no past slot (archives are the organiser's, on the room
    page), and a table's game only to the browser that is its GM (its PIN or GM link was opened here); the host's
    own games (templates, games of its own) as without room mode."""
    if not enabled():
        return games
    store = hub().store
    tables = {t["current_game"] for t in store.room_tables()}
    archived = {s["game"] for s in store.room_slots()}
    return [g for g in games if g.id not in archived and (g.id not in tables or g.id in mine)]


def game_title(game) -> str:
    """The name a game's own pages show (GM page, phone, table screen, character sheets). In room mode a table's
    game is a copy of its template, whose log names the template: its pages say the table's name, as the room
    and the table's sheet do (the game's record carries it: given when the table was made, renamed with it)."""
    if enabled():
        record = hub().store.game(game.id)
        if record is not None:
            return record.name
    return game.name


def table_template(game) -> str | None:
    """"from <template>" (the room page's words) for a room table's game, shown to its GM under the table's name;
    None for any other game, or when the template has the table's name too."""
    if not enabled():
        return None
    store = hub().store
    table = store.room_table("current_game", game.id)
    template = store.game(table["template"]) if table else None
    if template is None or template.name == table["name"]:
        return None
    return _("from %(template)s", template=template.name)


def lobby_link_text() -> str | None:
    """The lobby's link to the organiser page, on the host's browser in room mode (``lobby_games``)."""
    return _("Organiser's room") if enabled() else None


# --- the setup link ------------------------------------------------------------------------------------------------


def _digest(token: str) -> str:
    return hashlib.sha256(f"tacmap-room-setup:{token}".encode()).hexdigest()


def setup_link(app, base_url: str) -> str | None:
    """At the start of ``tacmap serve --room``: a one-time link that sets the organiser password, while none is
    set; None once the room has its password. A new one at every start, and the links printed before keep
    working: with several machines on one database each console prints its own, and any of them sets the
    password (then none works)."""
    store = app.extensions["tacmap"].store
    room = store.room()
    if room is not None and room["password"]:
        return None
    return base_url.rstrip("/") + new_setup_path(store)


def new_setup_path(store, forget_password: bool = False) -> str:
    """A new one-time setup link's path, beside the ones made since the password was last set
    (``Store.add_room_setup_token``). ``forget_password``: the organiser password is dropped too (``tacmap
    room-password``, for a forgotten one): every organiser's browser is logged out, and this link alone sets a
    new one."""
    token = secrets.token_urlsafe(SETUP_TOKEN_BYTES)
    if forget_password:
        store.save_room(setup_token=_digest(token), password=None)
    else:
        store.add_room_setup_token(_digest(token))
    return f"/room/setup?token={token}"


# --- who is the organiser ---------------------------------------------------------------------------------------


def current_room() -> dict:
    """The room's row (an empty one before anything was set); 404 when the server is not in room mode."""
    if not enabled():
        abort(404, _(NOT_ROOM, command=launch.serve_command("--room")))
    return hub().store.room() or {"password": None, "setup_token": None, "closed_at": None, "created_at": None}


def is_organiser(room: dict) -> bool:
    """This browser logged in as the organiser (with the password the room has now)."""
    proof = session.get("room_organiser")
    return (bool(room["password"]) and isinstance(proof, str)
            and hmac.compare_digest(proof, keys.proof_of(room["password"])))


def organiser_room() -> dict:
    """The room, for the organiser's routes; 403 for anyone else (nothing done)."""
    room = current_room()
    if not is_organiser(room):
        abort(403, _("This is the organiser's: log in on the room page first."))
    return room


def _guess(name: str, right) -> bool | None:
    """A password or PIN tried: counted (the address's first, then the room's for an address that failed this
    minute: ``keys.RoomGuesses``) before it is checked, given back when right. None: not checked at all (this
    address is at its limit, or it failed and the room is)."""
    guesses, client = hub().room_guesses, request.remote_addr
    token = guesses.take(name, client)
    if not token:
        return None
    if right():
        guesses.give_back(name, client, token)
        return True
    slow_wrong_guess()
    return False


def login_page(room: dict, error: str | None = None, status: int = 200):
    """The organiser's login page, saying ``error`` when there is one."""
    # the command that printed the setup link: this server's own (webapp/launch.py)
    return render_template("room_login.html", room=room, error=error,
                           command=launch.serve_command("--room")), status


# --- the organiser's password ----------------------------------------------------------------------------------


@bp.get("/room/setup")
def setup_form():
    token = request.args.get("token") or ""
    return _setup_refused(current_room(), token) or render_template("room_setup.html", token=token)


def _setup_refused(room: dict, token):
    """The login page saying why, when the setup link cannot set the password (set already, or not that link)."""
    if room["password"]:
        return login_page(room, _("The organiser password is set already: log in with it."), 409)
    if not (isinstance(token, str) and 0 < len(token) <= 100
            and any(hmac.compare_digest(_digest(token), kept) for kept in (room["setup_token"] or "").split())):
        return login_page(room, _("That setup link is not valid: open one that tacmap printed on its console."), 403)
    return None


@bp.post("/room/setup")
def setup():
    room = current_room()
    token = request.form.get("token") or ""
    refused = _setup_refused(room, token)
    if refused:
        return refused
    password = request.form.get("password") or ""
    if not keys.MIN_PASSWORD <= len(password) <= 200:
        error = _("The password is %(min)s to %(max)s characters.", min=keys.MIN_PASSWORD, max=200)
    elif password != (request.form.get("confirm") or ""):
        error = _("The two passwords differ.")
    else:
        stored = keys.hash_password(password)
        if not hub().store.claim_room_password(stored):  # another setup link set one in the same instant
            return _setup_refused(current_room(), token)
        session["room_organiser"] = keys.proof_of(stored)
        return redirect(url_for("room.index"))
    return render_template("room_setup.html", token=token, error=error), 400


@bp.post("/room/login")
def login():
    room = current_room()
    if not room["password"]:
        return login_page(room, _("No organiser password yet: open the setup link the server printed."), 409)
    password = request.form.get("password")
    outcome = _guess(ORGANISER, lambda: isinstance(password, str) and keys.verify(room["password"], password))
    if outcome is None:
        return login_page(room, _(TOO_MANY), 429)
    if not outcome:
        return login_page(room, _("That is not the organiser password."), 401)
    session["room_organiser"] = keys.proof_of(room["password"])
    return redirect(url_for("room.index"))


@bp.post("/room/logout")
def logout():
    session.pop("room_organiser", None)
    return redirect(url_for("room.index"))


def table_or_404(table_id: str) -> dict:
    """The room's table of that id; 404 when there is none."""
    table = hub().store.room_table("id", table_id) if isinstance(table_id, str) and len(table_id) <= 16 else None
    if table is None:
        abort(404, _("There is no such table in this room."))
    return table


# --- the volunteers' doors ---------------------------------------------------------------------------------------


@bp.get("/room/t/<table_id>/<role>")
def door(table_id: str, role: str):
    """A printed GM or table-screen link: the table's game now (whatever slot), with the key it carries."""
    room = current_room()
    if role not in ("gm", "screen"):
        abort(404, _("There is no such page."))
    table = table_or_404(table_id)
    if room["closed_at"]:
        return _closed_page(table)
    game_id = table["current_game"]
    key = request.args.get("key") or ""
    actor = hub().key_actor(game_id, key)
    if actor is None or actor.role != role:
        abort(403, _("That link is no longer valid for this table: ask the organiser for its new sheet."))
    return redirect(url_for(f"game.{role}", game_id=game_id, key=key))


def _closed_page(table: dict | None, status: int = 410):
    return render_template("room_closed.html", table=table, message=_(ROOM_CLOSED)), status


@bp.route("/pin", methods=["GET", "POST"])
def pin():
    """A volunteer GM types the table's PIN: that table's GM page opens in this browser."""
    room = current_room()
    if request.method == "GET":
        return render_template("room_pin.html")
    typed = "".join((request.form.get("pin") or "").split())[:20]
    found: dict = {}

    def right() -> bool:
        if not (typed.isascii() and typed.isdigit() and len(typed) == PIN_DIGITS):
            return False
        table = hub().store.room_table("pin", typed)
        found["table"] = table
        return table is not None

    outcome = _guess(PIN_GUESSES, right)
    if outcome is None:
        return render_template("room_pin.html", error=_(TOO_MANY)), 429
    if not outcome:
        return render_template("room_pin.html", error=_("No table has that GM PIN. Check the sheet, or ask "
                                                        "the organiser.")), 401
    table = found["table"]
    if room["closed_at"]:
        return _closed_page(table)
    h = hub()
    record = h.store.game(table["current_game"])
    remember_key("gm", record.id, record.gm_key)
    stored = h.password_hash(record.id)
    if stored is not None:  # the template's GM password came with the copy: the PIN stands for it
        unlock(record.id, stored)
    return redirect(url_for("game.gm", game_id=record.id))


def doors():
    """Before every request in room mode (ahead of the access gate): the pages of a table reset for the next slot
    lead to the table's game now (a player back to the join code); a closed room's tables say it is closed."""
    if not enabled():
        return None
    endpoint = request.endpoint or ""
    store = hub().store
    if endpoint in ("game.join", "game.join_form"):
        code = (request.form.get("code") if request.method == "POST" else request.args.get("code")) or ""
        code = code.strip().upper()[:12]
        room = store.room()
        if code and room and room["closed_at"]:
            table = store.room_table("join_code", code)
            if table is not None:
                return _closed_page(table)
        return None
    game_id = (request.view_args or {}).get("game_id")
    if not isinstance(game_id, str) or len(game_id) > 64 or endpoint.startswith("room."):
        return None
    api = endpoint.startswith("api.")
    slot = store.room_slot(game_id)
    if slot is not None:
        table = store.room_table("id", slot["table_id"])
        room = store.room()
        if room and room["closed_at"]:
            return _refuse(api, table)
        if request.method == "GET" and endpoint in ("game.gm", "game.screen") and table is not None:
            role = endpoint.split(".")[1]
            key = request.args.get("key") or remembered_key(role, game_id) or ""
            return redirect(url_for("room.door", table_id=table["id"], role=role, key=key))
        if api:
            abort(410, _("This table was reset for the next slot: this game takes no more commands."))
        return render_template("room_closed.html", table=table, reset=True,
                               message=_("This table was reset for the next slot: this game is over. To play in "
                                         "the next one, join again with the table's code.")), 410
    room = store.room()
    if room and room["closed_at"]:
        table = store.room_table("current_game", game_id)
        if table is not None:
            return _refuse(api, table)
    return None


def _refuse(api: bool, table: dict | None):
    if api:
        abort(410, _(ROOM_CLOSED))
    return _closed_page(table)


bp.before_app_request(doors)  # registered ahead of the game pages' blueprint: before the access gate
