"""Room mode (#38): one organiser runs many tables, at a game store's night or in a convention room.

``tacmap serve --room`` (or ``TACMAP_ROOM=1``) opens ``/room``, the organiser's page, behind a password of its
own. The first time, the server prints a one-time setup link on its console (no password travels over the
shared Wi-Fi before the organiser chose it: whoever holds the console holds the room); the link sets the
password once and stops working. Wrong passwords and wrong GM PINs go through the GM password's counters
(``keys.Guesses``, shared in Redis with ``--message-queue``): five a minute for the whole room, ten a minute
per client address.

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
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
import shutil
import tempfile
import time
from pathlib import Path

import flask_babel
from flask import (Blueprint, abort, current_app, flash, get_flashed_messages, has_request_context, redirect,
                   render_template, request, send_file, session, url_for)

import rules

from ..game import keys, text
from ..game.model import GM, Rejected
from ..live.hub import JOIN_ALPHABET, qr_svg, new_key
from ..storage import history as kept_folds
from ..storage.archive import ArchiveError, export_game, import_game
from ..storage.store import Conflict, DamagedLog
from . import hub, remember_key, remembered_key, unlock

bp = Blueprint("room", __name__)
log = logging.getLogger(__name__)

MAX_TABLES = 40  # tables made at once
PIN_DIGITS = 6
ORGANISER = "room:organiser"  # the name the organiser password's guesses are counted under (keys.Guesses)
PIN_GUESSES = "room:pin"  # and the GM PINs' (the whole room's: a PIN opens any table's GM page)
SETUP_TOKEN_BYTES = 18
TRANSLATIONS = Path(__file__).resolve().parents[2] / "translations"


# --- the room's words (issue #37: the "room" domain of translations/) ---------------------------------------------


def N_(message: str) -> str:
    """A message marked for the catalog, kept in English here and said in the reader's language where it is
    shown (``_(message)``)."""
    return message


def _(message: str, **params) -> str:
    """``message`` in this request's language: Flask-Babel's gettext where the app set it up (the catalogs of
    every domain merged), the English itself until then. ``%(name)s`` params filled in after the lookup."""
    if has_request_context() and "babel" in current_app.extensions:
        return flask_babel.gettext(message, **params)
    return message % params if params else message


def ngettext(singular: str, plural: str, num: int, **params) -> str:
    """The plural form of ``num`` in this request's language (``%(num)d`` is the count)."""
    if has_request_context() and "babel" in current_app.extensions:
        return flask_babel.ngettext(singular, plural, num, **params)
    params.setdefault("num", num)
    return (singular if num == 1 else plural) % params


def _console(message: str, **params) -> str:
    """A console line in the system's language where a catalog has it: the languages' setup's console catalog
    (webapp/web/i18n.py, every domain) where it is there, else the room's own compiled catalog; English otherwise."""
    try:
        from .i18n import console_translations  # type: ignore[attr-defined]

        translations = console_translations()
    except ImportError:
        from babel.support import Translations

        wanted = next((v for v in (os.environ.get(k) for k in ("LC_ALL", "LC_MESSAGES", "LANG")) if v), "en")
        translations = Translations.load(str(TRANSLATIONS), [wanted.split(".")[0].split("_")[0]], "room")
    out = translations.gettext(message)
    return out % params if params else out


def console_lines(base: str, link: str | None) -> list[str]:
    """What ``tacmap serve --room`` prints: where the organiser and the volunteers go, and the setup link
    while the organiser password is not set."""
    lines = [_console(N_("Room mode: the organiser's page is %(room)s, volunteer GMs type their PIN at %(pin)s"),
                      room=f"{base}/room", pin=f"{base}/pin")]
    if link:
        lines.append(_console(N_("Set the organiser password once, on this link (it works once; keep it off the "
                                 "Wi-Fi's shared screens): %(link)s"), link=link))
    return lines


def forgotten_password_line(path: str) -> str:
    """What ``tacmap room-password`` prints."""
    return _console(N_("The organiser password is gone (every organiser is logged out). Set a new one once, at "
                       "the server's address (running or next started with --room): %(link)s"),
                    link=f"http://<server>:<port>{path}")


NOT_ROOM = N_("This server is not in room mode: start it with `tacmap serve --room`.")
TOO_MANY = N_("Too many wrong tries: wait a minute, then try again.")
ROOM_CLOSED = N_("The organiser has closed this room: this table takes no more players or moves. "
                 "Thanks for playing!")
RESET_DONE = N_("This table was reset for the next slot.")
NEW_LINKS = N_("The organiser gave this table new links: open it again from the new sheet.")


@bp.record_once
def _gettext_in_templates(state) -> None:
    """The room's pages mark their text for translation (``{% trans %}``, ``_()``). Where the app has not
    installed gettext in Jinja yet (Flask-Babel does, with the catalogs), they still render, in English."""
    env = state.app.jinja_env
    if "jinja2.ext.InternationalizationExtension" not in env.extensions:
        env.add_extension("jinja2.ext.i18n")
        env.install_null_translations(newstyle=True)  # newstyle, as Flask-Babel's: the same msgids


def enabled() -> bool:
    return bool(current_app.config.get("ROOM"))


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


def _room() -> dict:
    if not enabled():
        abort(404, _(NOT_ROOM))
    return hub().store.room() or {"password": None, "setup_token": None, "closed_at": None, "created_at": None}


def _is_organiser(room: dict) -> bool:
    proof = session.get("room_organiser")
    return bool(room["password"]) and isinstance(proof, str) and hmac.compare_digest(proof, keys.proof_of(room["password"]))


def _organiser() -> dict:
    """The room, for the organiser's routes; 403 for anyone else (nothing done)."""
    room = _room()
    if not _is_organiser(room):
        abort(403, _("This is the organiser's: log in on the room page first."))
    return room


def _guess(name: str, right) -> bool | None:
    """A password or PIN tried: counted (the room's and the address's) before it is checked, given back when
    right. None: not checked at all (at the limit)."""
    guesses, client = hub().guesses, request.remote_addr
    token = guesses.take(name, client)
    if not token:
        return None
    if right():
        guesses.give_back(name, client, token)
        return True
    time.sleep(0.5)  # a wrong guess is slow too, besides the limit per minute
    return False


def _login_page(room: dict, error: str | None = None, status: int = 200):
    return render_template("room_login.html", room=room, error=error), status


# --- the organiser's page ---------------------------------------------------------------------------------------


@bp.get("/room")
def index():
    room = _room()
    if not _is_organiser(room):
        return _login_page(room)
    return _page(room)


def _page(room: dict, error: str | None = None, notice: str | None = None, status: int = 200):
    h = hub()
    in_room = {t["current_game"] for t in h.store.room_tables()} | {s["game"] for s in h.store.room_slots()}
    templates = [{"id": g.id, "name": g.name, "system": _system_name(g.system)}
                 for g in h.store.games() if g.id not in in_room]
    notices = ([notice] if notice else []) + get_flashed_messages(category_filter=["room"])
    return render_template("room.html", room=room, tables=_table_rows(), templates=templates, error=error,
                           notices=notices, max_tables=MAX_TABLES, slots=_slots()), status


def _done(notice: str):
    """A change made: back to the organiser page, which says what was done (a reload sends nothing again)."""
    flash(notice, "room")
    return redirect(url_for("room.index"))


def _table_rows() -> list[dict]:
    h = hub()
    rows = []
    closed = bool(_room()["closed_at"])
    for table in h.store.room_tables():
        record = h.store.game(table["current_game"])
        if record is None:
            continue
        template = h.store.game(table["template"])
        code = table["join_code"] if closed else record.join_code  # the GM may have made a new one
        row = {**table, "join_code": code, "system": _system_name(record.system), "players": 0, "online": 0,
               "template_name": template.name if template else table["template"]}
        try:
            game = h.game(record.id)
        except DamagedLog:  # that table is out of service (its page says what to do); the room's page is not
            rows.append({**row, "state": _("damaged log: see its GM page")})
            continue
        fight = game.combat
        row["state"] = _("round %(round)s", round=fight.get("round") or 1) if fight else _("no fight")
        row["players"], row["online"] = len(game.players), len(h.online_players(game.id) & set(game.players))
        rows.append(row)
    return rows


def _slots() -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for slot in hub().store.room_slots():
        at = time.strftime("%H:%M", time.localtime(slot["archived_at"]))
        out.setdefault(slot["table_id"], []).append({**slot, "at": at})
    return out


@bp.get("/room/tables")
def tables():
    """The tables' list alone: the organiser page refreshes it every few seconds (htmx)."""
    room = _organiser()
    return render_template("_room_tables.html", room=room, tables=_table_rows(), slots=_slots())


@bp.get("/room/setup")
def setup_form():
    token = request.args.get("token") or ""
    return _setup_refused(_room(), token) or render_template("room_setup.html", token=token)


def _setup_refused(room: dict, token):
    """The login page saying why, when the setup link cannot set the password (set already, or not that link)."""
    if room["password"]:
        return _login_page(room, _("The organiser password is set already: log in with it."), 409)
    if not (isinstance(token, str) and 0 < len(token) <= 100
            and any(hmac.compare_digest(_digest(token), kept) for kept in (room["setup_token"] or "").split())):
        return _login_page(room, _("That setup link is not valid: open one that tacmap printed on its console."), 403)
    return None


@bp.post("/room/setup")
def setup():
    room = _room()
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
            return _setup_refused(_room(), token)
        session["room_organiser"] = keys.proof_of(stored)
        return redirect(url_for("room.index"))
    return render_template("room_setup.html", token=token, error=error), 400


@bp.post("/room/login")
def login():
    room = _room()
    if not room["password"]:
        return _login_page(room, _("No organiser password yet: open the setup link the server printed."), 409)
    password = request.form.get("password")
    outcome = _guess(ORGANISER, lambda: isinstance(password, str) and keys.verify(room["password"], password))
    if outcome is None:
        return _login_page(room, _(TOO_MANY), 429)
    if not outcome:
        return _login_page(room, _("That is not the organiser password."), 401)
    session["room_organiser"] = keys.proof_of(room["password"])
    return redirect(url_for("room.index"))


@bp.post("/room/logout")
def logout():
    session.pop("room_organiser", None)
    return redirect(url_for("room.index"))


# --- making tables ----------------------------------------------------------------------------------------------


def _name(value, field: str, empty_ok: bool = False) -> str:
    """A name typed by the organiser, checked as a game's name is (webapp/game/text.py); Rejected says why.
    ``field``: which one, said in the reader's language (the subject of the refusal's sentence)."""
    value = " ".join(str(value or "").split())
    if not value:
        if empty_ok:
            return ""
        raise Rejected(_("%(field)s needs 1 to %(max)s characters.", field=field, max=text.MAX_NAME))
    if len(value) > text.MAX_NAME:
        raise Rejected(_("%(field)s is at most %(max)s characters.", field=field, max=text.MAX_NAME))
    if text.problem(value):
        raise Rejected(_("%(field)s holds a control, direction or invisible character, or broken text: type it "
                         "again in plain words.", field=field))
    if "<" in value or ">" in value:  # printed on sheets and read aloud: plain words, no markup
        raise Rejected(_("%(field)s may not hold < or >: plain words only.", field=field))
    return text.valid_name(value)


def _new_pin() -> str:
    store = hub().store
    while True:
        pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
        if store.room_table("pin", pin) is None:
            return pin


def _free_join_code() -> str:
    store = hub().store
    while True:
        code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))
        if store.game_by_join_code(code) is None and store.room_table("join_code", code) is None:
            return code


def _aside(work, *args):
    """``work(*args)`` on a native thread of gevent's pool when gevent serves (``tacmap serve``): copying a game
    file with its pictures takes a while, and the other tables go on meanwhile (SQLite and file copies let go of
    the GIL). Elsewhere (the app tests, a script) right here."""
    try:
        from gevent import get_hub, monkey
    except ImportError:
        return work(*args)
    if not monkey.is_module_patched("threading"):
        return work(*args)
    return get_hub().threadpool.apply(work, args)


class _Template:
    """A template game as a game file, written once, imported as many times as tables are made from it."""

    def __init__(self, template_id: str) -> None:
        self.data_dir = Path(current_app.config["DATA_DIR"])
        self.folder = Path(tempfile.mkdtemp(prefix=".room-", dir=self.data_dir))
        self.file = self.folder / "template.tacmap"
        self.database = current_app.config.get("DATABASE")  # PostgreSQL (docs/STORAGE.md), else the data folder's
        self.template_id = template_id
        _aside(export_game, self.data_dir, template_id, self.file, self.database)

    def copy(self, name: str) -> str:
        """A new game from the template, under a new id with new keys; its id."""
        done = _aside(import_game, self.data_dir, self.file, False, True, self.database)  # new_keys, new_id: a copy beside it
        hub().store.rename_game(done.game_id, name)
        # the replay's checkpoints (#36): the template's kept fold, copied (the same log), else folded in the background,
        # in slices; either way what the kept fold lacks of the log is folded ahead in the background
        try:
            _aside(kept_folds.copy_checkpoints, self.data_dir, self.template_id, done.game_id)
        except OSError:  # a shortcut only: the fold ahead folds the log instead
            log.warning("game %s: the template's replay checkpoints were not copied", done.game_id, exc_info=True)
        hub().replays.warm(done.game_id)
        return done.game_id

    def __enter__(self) -> "_Template":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def _check_template(template_id) -> str:
    h = hub()
    store = h.store
    if not isinstance(template_id, str) or store.game(template_id) is None:
        raise Rejected(_("Choose the template game the tables are copied from."))
    if store.room_table("current_game", template_id) is not None or store.room_slot(template_id) is not None:
        raise Rejected(_("That game is one of the room's tables; a template is a game of its own."))
    game = h.game(template_id)
    if game.players:
        raise Rejected(_("The template \u201c%(name)s\u201d has players: a table starts with none. Remove them on "
                         "the template's GM page first.", name=game.name))
    return template_id


@bp.post("/room/tables")
def make_tables():
    room = _organiser()
    if room["closed_at"]:
        return _page(room, error=_("The room is closed: it makes no new tables."), status=409)
    form = request.form
    try:
        template_id = _check_template(form.get("template"))
        try:
            count = int(form.get("count") or "")
        except ValueError:
            raise Rejected(_("Make 1 to %(max)s tables at once.", max=MAX_TABLES)) from None
        if not 1 <= count <= MAX_TABLES:
            raise Rejected(_("Make 1 to %(max)s tables at once.", max=MAX_TABLES))
        prefix = _name(form.get("prefix") or _("Table"), _("The tables' name"))
        gm_name = _name(form.get("gm_name"), _("A GM's name"), empty_ok=True)
    except Rejected as exc:
        return _page(room, error=str(exc), status=400)
    store = hub().store
    first = len(store.room_tables()) + 1
    made = []
    try:
        with _Template(template_id) as template:
            for n in range(first, first + count):
                name = text.valid_name(f"{prefix} {n}"[:text.MAX_NAME])
                game_id = template.copy(name)
                record = store.game(game_id)
                store.add_room_table({"id": secrets.token_hex(4), "name": name, "gm_name": gm_name,
                                      "template": template_id, "current_game": game_id,
                                      "join_code": record.join_code, "pin": _new_pin(), "created_at": time.time()})
                made.append(name)
    except ArchiveError as exc:
        return _page(room, error=_("The template could not be copied: %(error)s", error=exc), status=500)
    return _done(ngettext("Made %(num)d table: %(names)s.", "Made %(num)d tables: %(names)s.", len(made),
                          names=", ".join(made)))


def _table(table_id: str) -> dict:
    table = hub().store.room_table("id", table_id) if isinstance(table_id, str) and len(table_id) <= 16 else None
    if table is None:
        abort(404, _("There is no such table in this room."))
    return table


@bp.post("/room/tables/<table_id>")
def edit_table(table_id: str):
    """The table's name and its GM's name (a volunteer's)."""
    room = _organiser()
    table = _table(table_id)
    try:
        name = _name(request.form.get("name"), _("A table's name"))
        gm_name = _name(request.form.get("gm_name"), _("A GM's name"), empty_ok=True)
    except Rejected as exc:
        return _page(room, error=str(exc), status=400)
    store = hub().store
    store.update_room_table(table["id"], name=name, gm_name=gm_name)
    store.rename_game(table["current_game"], name)
    return _done(_("%(table)s: saved.", table=name))


@bp.post("/room/tables/<table_id>/pin")
def new_pin(table_id: str):
    _organiser()
    table = _table(table_id)
    pin = _new_pin()
    hub().store.update_room_table(table["id"], pin=pin)
    return _done(_("%(table)s: the new GM PIN is %(pin)s; the old one no longer works. Print its sheet again.",
                   table=table["name"], pin=pin))


@bp.post("/room/tables/<table_id>/code")
def new_code(table_id: str):
    """A new join code and new GM and table-screen links (the printed sheet stops working: print it again)."""
    room = _organiser()
    table = _table(table_id)
    if room["closed_at"]:
        return _page(room, error=_("The room is closed: open it again first."), status=409)
    h = hub()
    game_id = table["current_game"]
    code = _free_join_code()
    h.store.update_access(game_id, join_code=code, gm_key=new_key(), screen_key=new_key())
    h.store.update_room_table(table["id"], join_code=code)
    for role in ("gm", "screen"):
        h.end_sessions(game_id, None, NEW_LINKS, reload=True, role=role)
    return _done(_("%(table)s: new join code %(code)s and new GM and screen links; the old ones no longer "
                   "work. Print its sheet again.", table=table["name"], code=code))


# --- between slots, and at the end -------------------------------------------------------------------------------


def _stop(table: dict, message: str, handover=None) -> str:
    """The table's game, which nobody plays on any more: its players removed (their phones are told), its keys and
    join code changed to ones nobody holds, its GM pages and table screens reloaded (which then find where to go).
    ``handover(code)`` gets the join code the players hold (the GM may have given the game a new one) before the
    pages reload; the table keeps that code as its own."""
    h = hub()
    game_id = table["current_game"]
    try:
        players = set(h.game(game_id).players)
    except DamagedLog:  # out of service already: nobody plays on it; its keys are changed all the same
        players = set()
    code = h.store.game(game_id).join_code
    if code != table["join_code"]:  # the GM made a new join code from the game's Security card
        h.store.update_room_table(table["id"], join_code=code)
    # the phones first, with this message: their pages reload into what the table is now (``doors``)
    h.end_sessions(game_id, players, message, reload=True)
    for player_id in sorted(players):
        try:
            h.execute(game_id, GM, {"type": "remove_player", "player_id": player_id})
        except Rejected:
            pass  # removed meanwhile
    h.store.update_access(game_id, gm_key=new_key(), screen_key=new_key(), join_code=_free_join_code())
    if handover is not None:
        handover(code)  # before the pages reload: they find the table's next game ready
    for role in ("gm", "screen"):
        h.end_sessions(game_id, None, message, reload=True, role=role)
    return code


@bp.get("/room/tables/<table_id>/reset")
def confirm_reset(table_id: str):
    """Asked before a reset: who is seated, what the table goes back to."""
    room = _organiser()
    table = _table(table_id)
    h = hub()
    game = h.game(table["current_game"])
    template = h.store.game(table["template"])
    return render_template("room_reset.html", room=room, table=table, players=[p.name for p in game.players.values()],
                           template=template.name if template else None)


@bp.post("/room/tables/<table_id>/reset")
def reset(table_id: str):
    """The next slot: the game played so far is kept as a past slot, the table gets a fresh copy of its template,
    with the same links, join code and PIN."""
    room = _organiser()
    if room["closed_at"]:
        return _page(room, error=_("The room is closed: its tables are not reset any more."), status=409)
    table = _table(table_id)
    h = hub()
    old = h.store.game(table["current_game"])
    if h.store.game(table["template"]) is None:
        return _page(room, error=_("%(table)s: its template game is gone; it cannot be reset.", table=table["name"]),
                     status=409)
    try:
        with _Template(table["template"]) as template:
            new_id = template.copy(old.name)
    except ArchiveError as exc:
        return _page(room, error=_("The template could not be copied: %(error)s", error=exc), status=500)
    try:
        h.store.next_room_slot(table["id"], old.id, new_id)
    except Conflict:
        return _page(room, error=_("%(table)s was reset by someone else just now.", table=table["name"]), status=409)
    # the new game takes the table's keys: the printed sheet, the GM's page and the table screen carry on
    _stop(table, RESET_DONE, handover=lambda code: h.store.update_access(
        new_id, gm_key=old.gm_key, screen_key=old.screen_key, join_code=code))
    return _done(_("%(table)s is reset for the next slot: its players are gone and its game is the template "
                   "again. The last slot's game is kept below (download it).", table=table["name"]))


@bp.post("/room/close")
def close():
    room = _organiser()
    if room["closed_at"]:
        return _done(_("The room was closed already."))
    h = hub()
    h.store.save_room(closed_at=time.time())
    for table in h.store.room_tables():
        _stop(table, ROOM_CLOSED)
    return _done(_("The room is closed: its tables take no more players or moves. Each table's game can "
                   "still be downloaded."))


@bp.post("/room/reopen")
def reopen():
    """The next day: the closed room opens again, its tables as they were (each game with new keys: print the
    sheets again)."""
    room = _organiser()
    if not room["closed_at"]:
        return _done(_("The room is open."))
    h = hub()
    h.store.save_room(closed_at=None)
    for table in h.store.room_tables():
        h.store.update_access(table["current_game"], join_code=table["join_code"])
    return _done(_("The room is open again: the join codes work again; the GM and screen links are new, so "
                   "print the sheets again."))


@bp.get("/room/games/<game_id>.tacmap")
def download(game_id: str):
    """A table's game or a past slot's, as its game file (``tacmap export``'s, ``tacmap import`` reads it)."""
    _organiser()
    store = hub().store
    if store.room_table("current_game", game_id) is None and store.room_slot(game_id) is None:
        abort(404, _("That is not a game of this room."))
    folder = Path(tempfile.mkdtemp(prefix=".room-", dir=current_app.config["DATA_DIR"]))
    path = folder / f"{game_id}.tacmap"
    try:
        _aside(export_game, Path(current_app.config["DATA_DIR"]), game_id, path, current_app.config.get("DATABASE"))
    except ArchiveError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        abort(500, str(exc))
    record = store.game(game_id)
    stamp = time.strftime("%Y%m%d-%H%M", time.localtime())
    response = send_file(path, mimetype="application/zip", as_attachment=True,
                         download_name=f"{_file_name(record.name if record else game_id)}-{stamp}.tacmap")
    response.call_on_close(lambda: shutil.rmtree(folder, ignore_errors=True))  # streamed from the file, then gone
    return response


def _file_name(name: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "-" for c in name).strip("-")[:40] or "game"


# --- the printed sheets -----------------------------------------------------------------------------------------


def _sheet(table: dict) -> dict:
    h = hub()
    record = h.store.game(table["current_game"])
    base = h.base_url()
    gm_url = f"{base}/room/t/{table['id']}/gm?key={record.gm_key}"
    screen_url = f"{base}/room/t/{table['id']}/screen?key={record.screen_key}"
    join_url = f"{base}/join?code={record.join_code}"
    return {**table, "join_code": record.join_code, "join_url": join_url, "join_qr": qr_svg(join_url), "gm_url": gm_url, "gm_qr": qr_svg(gm_url),
            "screen_url": screen_url, "screen_qr": qr_svg(screen_url), "pin_url": f"{base}/pin",
            "system": _system_name(h.game(record.id).system)}


def _system_name(system: str) -> str:
    """A rule system's name, as the rules name it (looked up in the merged catalogs where a domain has it)."""
    try:
        return _(rules.get(system).name)
    except KeyError:
        return system


@bp.get("/room/sheets")
def sheets():
    """Every table's sheet, one printed page each."""
    room = _organiser()
    return render_template("room_sheets.html", room=room, sheets=[_sheet(t) for t in hub().store.room_tables()])


@bp.get("/room/tables/<table_id>/sheet")
def sheet(table_id: str):
    room = _organiser()
    return render_template("room_sheets.html", room=room, sheets=[_sheet(_table(table_id))])


# --- the volunteers' doors ---------------------------------------------------------------------------------------


@bp.get("/room/t/<table_id>/<role>")
def door(table_id: str, role: str):
    """A printed GM or table-screen link: the table's game now (whatever slot), with the key it carries."""
    room = _room()
    if role not in ("gm", "screen"):
        abort(404, _("There is no such page."))
    table = _table(table_id)
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
    room = _room()
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
