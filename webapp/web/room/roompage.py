"""The organiser's page of room mode (docs/ROOM.md; routes on the room's blueprint, webapp/web/room/room.py): the
tables' list with each one's state, the forms that make, rename, reset and close, the printed sheets and the games'
downloads. A route checks that the organiser asks and what was typed, has webapp/live/roomtables.py change the
tables, and goes back to the page saying what was done, in the organiser's language."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

from flask import (abort, current_app, flash, get_flashed_messages, redirect, render_template, request, send_file,
                   url_for)

import rules

from ...game.core import text
from ...game.core.model import Rejected
from ...live.hub import qr_svg
from ...live.roomtables import RoomRefusal, RoomTables
from ...storage.archive import ArchiveError
from ...storage.store import DamagedLog
from .. import hub
from .room import ORGANISER, PIN_GUESSES, bp, current_room, is_organiser, login_page, organiser_room, table_or_404
from .roomwords import _, ngettext

MAX_TABLES = 40  # tables made at once


def _tables() -> RoomTables:
    """The room's tables for this request: the hub's, with the app's data folder and database."""
    return RoomTables(hub(), Path(current_app.config["DATA_DIR"]), current_app.config.get("DATABASE"))


def _said(refusal: RoomRefusal) -> str:
    """What the room will not do, in the organiser's language."""
    return _(refusal.message, **refusal.params)


# --- the organiser's page ---------------------------------------------------------------------------------------


@bp.get("/room")
def index():
    room = current_room()
    if not is_organiser(room):
        return login_page(room)
    return _page(room)


def _page(room: dict, error: str | None = None, notice: str | None = None, status: int = 200):
    templates = [{"id": g.id, "name": g.name, "system": _system_name(g.system)} for g in _templates()]
    notices = ([notice] if notice else []) + get_flashed_messages(category_filter=["room"])
    return render_template("room.html", room=room, tables=_table_rows(), templates=templates, error=error,
                           notices=notices, max_tables=MAX_TABLES, slots=_slots(), guessing=_guessing()), status


def _guessing() -> list[dict]:
    """The wrong organiser passwords and GM PINs of the last hour (#57): of each kind, how many, and from which
    addresses, how many and when the last; the addresses with most first."""
    out = []
    for kind, many in ((ORGANISER, lambda n: ngettext("%(num)d wrong organiser password in the last hour",
                                                      "%(num)d wrong organiser passwords in the last hour", n)),
                       (PIN_GUESSES, lambda n: ngettext("%(num)d wrong GM PIN in the last hour",
                                                        "%(num)d wrong GM PINs in the last hour", n))):
        tries = hub().room_guesses.recent(kind)
        if not tries:
            continue
        by: dict[str, list] = {}
        for ago, client in tries:
            seen = by.setdefault(client, [0, ago])
            seen[0], seen[1] = seen[0] + 1, min(seen[1], ago)
        now = time.time()
        addresses = [_("%(address)s: %(count)s, the last at %(time)s", address=client, count=count,
                       time=time.strftime("%H:%M:%S", time.localtime(now - ago)))
                     for client, (count, ago) in sorted(by.items(), key=lambda kv: (-kv[1][0], kv[1][1]))[:20]]
        out.append({"summary": many(len(tries)), "addresses": addresses})
    return out


def _templates() -> list:
    """The games the organiser may copy into tables: of their own (no table's, no past slot's), made on the server's
    own machine or by the organiser, never a game another device made (#57: a stranger's "Official template v2",
    when the lobby is open to every device; webapp/web/lobby.py ``made_by``)."""
    store = hub().store
    in_room = {t["current_game"] for t in store.room_tables()} | {s["game"] for s in store.room_slots()}
    return [g for g in store.games() if g.id not in in_room and _made_here(store, g.id)]


def _made_here(store, game_id: str) -> bool:
    """Whether the game's first event says nothing of another device having made it (a game from before #57 too)."""
    try:
        first = store.events(game_id, after=0, before=1)
    except DamagedLog:
        return False
    return bool(first) and first[0].data.get("made_by") != "device"


def _done(notice: str):
    """A change made: back to the organiser page, which says what was done (a reload sends nothing again)."""
    flash(notice, "room")
    return redirect(url_for("room.index"))


def _table_rows() -> list[dict]:
    h = hub()
    rows = []
    closed = bool(current_room()["closed_at"])
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
    room = organiser_room()
    return render_template("_room_tables.html", room=room, tables=_table_rows(), slots=_slots(), guessing=_guessing())


# --- making tables ----------------------------------------------------------------------------------------------


def _name(value, field: str, empty_ok: bool = False) -> str:
    """A name typed by the organiser, checked as a game's name is (webapp/game/core/text.py); Rejected says why.
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


@bp.post("/room/tables")
def make_tables():
    room = organiser_room()
    if room["closed_at"]:
        return _page(room, error=_("The room is closed: it makes no new tables."), status=409)
    form = request.form
    room_tables = _tables()
    try:
        chosen = form.get("template")
        if isinstance(chosen, str) and not _made_here(hub().store, chosen):  # never another device's game
            chosen = None
        template_id = room_tables.check_template(chosen)
        try:
            count = int(form.get("count") or "")
        except ValueError:
            raise Rejected(_("Make 1 to %(max)s tables at once.", max=MAX_TABLES)) from None
        if not 1 <= count <= MAX_TABLES:
            raise Rejected(_("Make 1 to %(max)s tables at once.", max=MAX_TABLES))
        prefix = _name(form.get("prefix") or _("Table"), _("The tables' name"))
        gm_name = _name(form.get("gm_name"), _("A GM's name"), empty_ok=True)
    except RoomRefusal as exc:
        return _page(room, error=_said(exc), status=400)
    except Rejected as exc:
        return _page(room, error=str(exc), status=400)
    try:
        made = room_tables.make(template_id, count, prefix, gm_name)
    except ArchiveError as exc:
        return _page(room, error=_("The template could not be copied: %(error)s", error=exc), status=500)
    return _done(ngettext("Made %(num)d table: %(names)s.", "Made %(num)d tables: %(names)s.", len(made),
                          names=", ".join(made)))


@bp.post("/room/tables/<table_id>")
def edit_table(table_id: str):
    """The table's name and its GM's name (a volunteer's)."""
    room = organiser_room()
    table = table_or_404(table_id)
    try:
        name = _name(request.form.get("name"), _("A table's name"))
        gm_name = _name(request.form.get("gm_name"), _("A GM's name"), empty_ok=True)
    except Rejected as exc:
        return _page(room, error=str(exc), status=400)
    _tables().rename(table, name, gm_name)
    return _done(_("%(table)s: saved.", table=name))


@bp.post("/room/tables/<table_id>/pin")
def new_pin(table_id: str):
    organiser_room()
    table = table_or_404(table_id)
    pin = _tables().new_pin(table)
    return _done(_("%(table)s: the new GM PIN is %(pin)s; the old one no longer works. Print its sheet again.",
                   table=table["name"], pin=pin))


@bp.post("/room/tables/<table_id>/code")
def new_code(table_id: str):
    """A new join code and new GM and table-screen links (the printed sheet stops working: print it again)."""
    room = organiser_room()
    table = table_or_404(table_id)
    if room["closed_at"]:
        return _page(room, error=_("The room is closed: open it again first."), status=409)
    code = _tables().new_links(table)
    return _done(_("%(table)s: new join code %(code)s and new GM and screen links; the old ones no longer "
                   "work. Print its sheet again.", table=table["name"], code=code))


# --- between slots, and at the end -------------------------------------------------------------------------------


@bp.get("/room/tables/<table_id>/reset")
def confirm_reset(table_id: str):
    """Asked before a reset: who is seated, what the table goes back to."""
    room = organiser_room()
    table = table_or_404(table_id)
    h = hub()
    game = h.game(table["current_game"])
    template = h.store.game(table["template"])
    return render_template("room_reset.html", room=room, table=table, players=[p.name for p in game.players.values()],
                           template=template.name if template else None)


@bp.post("/room/tables/<table_id>/reset")
def reset(table_id: str):
    """The next slot: the game played so far is kept as a past slot, the table gets a fresh copy of its template,
    with the same links, join code and PIN."""
    room = organiser_room()
    if room["closed_at"]:
        return _page(room, error=_("The room is closed: its tables are not reset any more."), status=409)
    table = table_or_404(table_id)
    try:
        _tables().reset(table)
    except RoomRefusal as exc:  # the template is gone, or someone else reset it just now
        return _page(room, error=_said(exc), status=409)
    except ArchiveError as exc:
        return _page(room, error=_("The template could not be copied: %(error)s", error=exc), status=500)
    return _done(_("%(table)s is reset for the next slot: its players are gone and its game is the template "
                   "again. The last slot's game is kept below (download it).", table=table["name"]))


@bp.post("/room/close")
def close():
    room = organiser_room()
    if room["closed_at"]:
        return _done(_("The room was closed already."))
    _tables().close()
    return _done(_("The room is closed: its tables take no more players or moves. Each table's game can "
                   "still be downloaded."))


@bp.post("/room/reopen")
def reopen():
    """The next day: the closed room opens again, its tables as they were (each game with new keys: print the
    sheets again)."""
    room = organiser_room()
    if not room["closed_at"]:
        return _done(_("The room is open."))
    _tables().reopen()
    return _done(_("The room is open again: the join codes work again; the GM and screen links are new, so "
                   "print the sheets again."))


@bp.get("/room/games/<game_id>.tacmap")
def download(game_id: str):
    """A table's game or a past slot's, as its game file (``tacmap export``'s, ``tacmap import`` reads it)."""
    organiser_room()
    store = hub().store
    if store.room_table("current_game", game_id) is None and store.room_slot(game_id) is None:
        abort(404, _("That is not a game of this room."))
    folder = Path(tempfile.mkdtemp(prefix=".room-", dir=current_app.config["DATA_DIR"]))
    path = folder / f"{game_id}.tacmap"
    try:
        _tables().export(game_id, path)
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
    return {**table, "join_code": record.join_code, "join_url": join_url, "join_qr": qr_svg(join_url),
            "gm_url": gm_url, "gm_qr": qr_svg(gm_url),
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
    room = organiser_room()
    return render_template("room_sheets.html", room=room, sheets=[_sheet(t) for t in hub().store.room_tables()])


@bp.get("/room/tables/<table_id>/sheet")
def sheet(table_id: str):
    room = organiser_room()
    return render_template("room_sheets.html", room=room, sheets=[_sheet(table_or_404(table_id))])

