"""The room's tables (room mode, #38; docs/ROOM.md): a table made from a template game, renamed, given a new GM PIN
or new links, reset for the next slot; the whole room closed and opened again.

The organiser's routes (webapp/web/room/roompage.py) check who asks and what was typed, then call these. The rows are the
store's (its "room mode" block); what phones, GM pages and table screens are told goes through the hub
(``end_sessions``: a message id each device reads in its own language). What the room will not do is a
``RoomRefusal``, a message id with its params that the routes say in the organiser's language.
"""

from __future__ import annotations

import logging
import secrets
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable

from ..game.core import text
from ..game.core.model import GM, Rejected
from ..game.core.text import N_
from ..storage import history as kept_folds
from ..storage.archive import export_game, import_game
from ..storage.store import Conflict, DamagedLog
from .hub import JOIN_ALPHABET, Hub, new_key

log = logging.getLogger(__name__)

PIN_DIGITS = 6

#: what a table's phones, GM pages and table screens are told (``end_sessions``), and a closed table's pages say
ROOM_CLOSED = N_("The organiser has closed this room: this table takes no more players or moves. "
                 "Thanks for playing!")
RESET_DONE = N_("This table was reset for the next slot.")
NEW_LINKS = N_("The organiser gave this table new links: open it again from the new sheet.")


class RoomRefusal(Exception):
    """What the room will not do: ``message`` a message id (``N_``) with its ``params``, said in the organiser's
    language where the page is made."""

    def __init__(self, message: str, **params) -> None:
        super().__init__(message % params if params else message)
        self.message, self.params = message, params


def aside(work, *args):
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


class Template:
    """A template game as a game file, written once, imported as many times as tables are made from it."""

    def __init__(self, hub: Hub, data_dir: Path, database: str | None, template_id: str) -> None:
        self.hub = hub
        self.data_dir = data_dir
        self.folder = Path(tempfile.mkdtemp(prefix=".room-", dir=self.data_dir))
        self.file = self.folder / "template.tacmap"
        self.database = database  # PostgreSQL (docs/STORAGE.md), else the data folder's
        self.template_id = template_id
        aside(export_game, self.data_dir, template_id, self.file, self.database)

    def copy(self, name: str) -> str:
        """A new game from the template, under a new id with new keys; its id."""
        # new_keys, new_id: a copy beside it
        done = aside(import_game, self.data_dir, self.file, False, True, self.database)
        self.hub.store.rename_game(done.game_id, name)
        # the replay's checkpoints (#36): the template's kept fold, copied (the same log), else folded in the
        # background, in slices; either way what the kept fold lacks of the log is folded ahead in the background
        try:
            aside(kept_folds.copy_checkpoints, self.data_dir, self.template_id, done.game_id)
        except OSError:  # a shortcut only: the fold ahead folds the log instead
            log.warning("game %s: the template's replay checkpoints were not copied", done.game_id, exc_info=True)
        self.hub.replays.warm(done.game_id)
        return done.game_id

    def __enter__(self) -> "Template":
        return self

    def __exit__(self, *exc) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


class RoomTables:
    """The room's tables as one request changes them: ``hub`` (its store, its connections) and where game files are
    written (``data_dir``; ``database``: PostgreSQL's address, else the data folder's SQLite)."""

    def __init__(self, hub: Hub, data_dir: Path, database: str | None) -> None:
        self.hub = hub
        self.store = hub.store
        self.data_dir = data_dir
        self.database = database

    # --- making tables ----------------------------------------------------------------------------------------

    def check_template(self, template_id) -> str:
        """``template_id`` if that game may be copied into tables: a game of its own (no table's, no past slot's),
        with no players; RoomRefusal otherwise."""
        store = self.store
        if not isinstance(template_id, str) or store.game(template_id) is None:
            raise RoomRefusal(N_("Choose the template game the tables are copied from."))
        if store.room_table("current_game", template_id) is not None or store.room_slot(template_id) is not None:
            raise RoomRefusal(N_("That game is one of the room's tables; a template is a game of its own."))
        game = self.hub.game(template_id)
        if game.players:
            raise RoomRefusal(N_("The template \u201c%(name)s\u201d has players: a table starts with none. Remove "
                                 "them on the template's GM page first."), name=game.name)
        return template_id

    def make(self, template_id: str, count: int, prefix: str, gm_name: str) -> list[str]:
        """``count`` tables copied from the template, named ``prefix`` and their number after the room's last, each
        with its join code and GM PIN; their names. ArchiveError when the template cannot be copied (the tables
        made until then stay)."""
        store = self.store
        first = len(store.room_tables()) + 1
        made = []
        with Template(self.hub, self.data_dir, self.database, template_id) as template:
            for n in range(first, first + count):
                name = text.valid_name(f"{prefix} {n}"[:text.MAX_NAME])
                game_id = template.copy(name)
                record = store.game(game_id)
                store.add_room_table({"id": secrets.token_hex(4), "name": name, "gm_name": gm_name,
                                      "template": template_id, "current_game": game_id,
                                      "join_code": record.join_code, "pin": self.free_pin(), "created_at": time.time()})
                made.append(name)
        return made

    def free_pin(self) -> str:
        """A GM PIN no table has."""
        while True:
            pin = "".join(secrets.choice("0123456789") for _ in range(PIN_DIGITS))
            if self.store.room_table("pin", pin) is None:
                return pin

    def free_join_code(self) -> str:
        """A join code no game and no table has."""
        store = self.store
        while True:
            code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))
            if store.game_by_join_code(code) is None and store.room_table("join_code", code) is None:
                return code

    # --- a table's name, PIN and links ----------------------------------------------------------------------------

    def rename(self, table: dict, name: str, gm_name: str) -> None:
        """The table's name (its game's too: its pages say it) and its GM's."""
        self.store.update_room_table(table["id"], name=name, gm_name=gm_name)
        self.store.rename_game(table["current_game"], name)

    def new_pin(self, table: dict) -> str:
        """A new GM PIN for the table (the old one no longer opens it); the PIN."""
        pin = self.free_pin()
        self.store.update_room_table(table["id"], pin=pin)
        return pin

    def new_links(self, table: dict) -> str:
        """A new join code and new GM and table-screen keys; its GM pages and screens are told and closed. The
        join code."""
        game_id = table["current_game"]
        code = self.free_join_code()
        self.store.update_access(game_id, join_code=code, gm_key=new_key(), screen_key=new_key())
        self.store.update_room_table(table["id"], join_code=code)
        for role in ("gm", "screen"):
            self.hub.end_sessions(game_id, None, NEW_LINKS, reload=True, role=role)
        return code

    # --- between slots, and at the end ---------------------------------------------------------------------------

    def stop(self, table: dict, message: str, handover: Callable[[str], None] | None = None) -> str:
        """The table's game, which nobody plays on any more: its players removed (their phones are told), its keys
        and join code changed to ones nobody holds, its GM pages and table screens reloaded (which then find where
        to go). ``handover(code)`` gets the join code the players hold (the GM may have given the game a new one)
        before the pages reload; the table keeps that code as its own."""
        h = self.hub
        game_id = table["current_game"]
        try:
            players = set(h.game(game_id).players)
        except DamagedLog:  # out of service already: nobody plays on it; its keys are changed all the same
            players = set()
        code = h.store.game(game_id).join_code
        if code != table["join_code"]:  # the GM made a new join code from the game's Security card
            h.store.update_room_table(table["id"], join_code=code)
        # the phones first, with this message: their pages reload into what the table is now (web/room.py ``doors``)
        h.end_sessions(game_id, players, message, reload=True)
        for player_id in sorted(players):
            try:
                h.execute(game_id, GM, {"type": "remove_player", "player_id": player_id})
            except Rejected:
                pass  # removed meanwhile
        h.store.update_access(game_id, gm_key=new_key(), screen_key=new_key(), join_code=self.free_join_code())
        if handover is not None:
            handover(code)  # before the pages reload: they find the table's next game ready
        for role in ("gm", "screen"):
            h.end_sessions(game_id, None, message, reload=True, role=role)
        return code

    def reset(self, table: dict) -> None:
        """The next slot: the game played so far is kept as a past slot, the table gets a fresh copy of its
        template with the same links, join code and PIN. RoomRefusal when the template is gone or someone else
        reset the table just now; ArchiveError when the template cannot be copied."""
        store = self.store
        old = store.game(table["current_game"])
        if store.game(table["template"]) is None:
            raise RoomRefusal(N_("%(table)s: its template game is gone; it cannot be reset."), table=table["name"])
        with Template(self.hub, self.data_dir, self.database, table["template"]) as template:
            new_id = template.copy(old.name)
        try:
            store.next_room_slot(table["id"], old.id, new_id)
        except Conflict:
            raise RoomRefusal(N_("%(table)s was reset by someone else just now."), table=table["name"]) from None
        # the new game takes the table's keys: the printed sheet, the GM's page and the table screen carry on
        self.stop(table, RESET_DONE, handover=lambda code: store.update_access(
            new_id, gm_key=old.gm_key, screen_key=old.screen_key, join_code=code))

    def close(self) -> None:
        """The room closed: every table's game stops (``stop``), its pages and the join form say so."""
        self.store.save_room(closed_at=time.time())
        for table in self.store.room_tables():
            self.stop(table, ROOM_CLOSED)

    def reopen(self) -> None:
        """The closed room open again, its tables as they were: the printed join codes work again (the GM and
        screen keys stay the new ones ``stop`` gave)."""
        self.store.save_room(closed_at=None)
        for table in self.store.room_tables():
            self.store.update_access(table["current_game"], join_code=table["join_code"])

    def export(self, game_id: str, path: Path) -> None:
        """A table's or a past slot's game written as its game file (``tacmap export``'s) at ``path``."""
        aside(export_game, self.data_dir, game_id, path, self.database)
