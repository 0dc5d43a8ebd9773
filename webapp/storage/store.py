"""Persistence: each game's event log and snapshots in one SQLite file, or in PostgreSQL (``--database``).

The log is the truth. It is written with WAL: a committed event is in the database file's WAL, which
survives a killed server (``kill -9``), and the WAL is fsynced before the sender hears "ok", so an
acknowledged event survives a power cut too. ``(game_id, seq)`` is the primary key: two writers can
never both append the same step (a second process would get :class:`Conflict` and reload).

Two steps, because the disk is the slow part (docs/SERVING.md "Writes"): SQLite runs with
``synchronous=NORMAL``, so a COMMIT writes the WAL without waiting for the disk, and the event's
append runs right where the command is decided (``begin_append``: well under a millisecond, no thread
hand-over, so the other screens hear of the move without waiting for the disk); the fsync of the WAL
runs on a native thread of gevent's (``off_loop``: sqlite3 and ``os.fsync`` let go of the GIL while
they wait for the disk, so the other tables go on meanwhile), and the sender's "ok" waits for it
(``Appending.durable``). Every other write (a new game, a snapshot, the room's tables...) runs on that
thread with its fsync before it returns. The store's lock (a gevent lock then) keeps one statement at a
time on the connection and every game's writes in the order they were made.

On PostgreSQL (``Store("postgresql://...")``, webapp/storage/sql.py) the same statements run through psycopg 3:
reads on the loop (psycopg yields to the other greenlets while it waits for the server), and the same two steps
for an append: committed on the loop with PostgreSQL's asynchronous commit (no wait for the server's disk; sent by
``begin_append``, its answer read by ``Appending.finish``, the caller drawing the update meanwhile), made
durable by a flush of the server's WAL on the writer thread (``PgFlush``), which the sender's "ok" waits for.
Every other write runs on the writer thread and is durable when its COMMIT returns (the server's own
``synchronous_commit``). The same primary key keeps one seq per game for every process on every machine.
"""

from __future__ import annotations

import gc
import json
import logging
import os
import re
import sqlite3
import sys
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import NoReturn

import orjson

from ..game.model import Event, Game
from ..game.text import N_
from ..game.table import evolve, replay
from . import private, sql
from .sql import DataError  # noqa: F401 (raised here, caught by the app and the command line as store.DataError)

log = logging.getLogger(__name__)

DB_NAME = "tacmap.sqlite3"  # in the data folder
#: a game's id as tacmap makes them (``secrets.token_hex(4)``); it names the game's folders in the data folder
GAME_ID = re.compile(r"[0-9a-f]{8}")


#: seconds the loop may hold the GIL while the writer thread waits for it (``_writer_pool``)
WRITER_SWITCH_INTERVAL = 0.0005
_writer = None  # gevent's pool of one native thread for the store's writes, once known to be gevent's; False: not


def _writer_pool():
    """gevent's one-thread pool when the process is gevent's (the standard library patched), else False."""
    global _writer
    if _writer is None:
        try:
            from gevent import monkey
            from gevent.threadpool import ThreadPool

            _writer = ThreadPool(1) if monkey.is_module_patched("threading") else False
        except ImportError:
            _writer = False
        if _writer is not False:  # (a ThreadPool with no task is falsy: it has a length)
            # the writer thread takes the GIL back after each SQLite call (the fsync's last); while the loop runs
            # Python (an update rendered meanwhile: ``Store.begin_append``) it would wait Python's default 5 ms
            # switch interval for it each time, longer than the write. Two threads only, so a short interval
            # costs a switch only when the writer waits.
            sys.setswitchinterval(min(sys.getswitchinterval(), WRITER_SWITCH_INTERVAL))
    return _writer


def _native_lock():
    """A lock between native threads (the loop's and the writer's), also where gevent patched ``threading``."""
    allocate_lock, _start = sql.native_thread_parts()
    return allocate_lock()


#: fsyncs of the WAL between two checkpoints (``WalSync``): a move's commit adds a few pages to the WAL
CHECKPOINT_EVERY = 200


class WalSync:
    """fsync of an SQLite database's WAL file (``<database>-wal``): what ``synchronous=NORMAL`` leaves out of a
    COMMIT. An fsync flushes every write of the file so far, whoever made it; so once one started after a
    commit has returned, that commit is on the disk. The file is opened once (and again when SQLite made a new
    one: a checkpoint may remove it when the last connection closes). Thread-safe.

    It also copies the WAL into the database file (a checkpoint, which fsyncs both) every ``CHECKPOINT_EVERY``
    calls, on a connection of its own: the store's connection does not (``wal_autocheckpoint=0``), as it
    commits on the loop, and a checkpoint there would hold every table for its fsyncs."""

    def __init__(self, database: Path) -> None:
        self.database = database
        self.path = Path(f"{database}-wal")
        self._fd: int | None = None
        self._file: tuple[int, int] | None = None
        self._lock = _native_lock()
        self._calls = 0
        self._checkpointer: sqlite3.Connection | None = None

    def __call__(self) -> None:
        with self._lock:
            try:
                st = os.stat(self.path)
            except FileNotFoundError:  # no WAL: every commit is in the database file, synced by its checkpoint
                return
            if self._fd is None or self._file != (st.st_dev, st.st_ino):
                self._close()
                self._fd = os.open(self.path, os.O_RDWR | getattr(os, "O_BINARY", 0))  # Windows: a writable handle
                self._file = (st.st_dev, st.st_ino)
            os.fsync(self._fd)
            self._calls += 1
            if self._calls % CHECKPOINT_EVERY == 0:
                self.checkpoint()

    def checkpoint(self) -> None:
        """As much of the WAL as no reader still needs, into the database file (SQLite's PASSIVE checkpoint:
        it waits for nobody); a failure is left for the next one (the WAL only grows meanwhile)."""
        try:
            if self._checkpointer is None:
                self._checkpointer = sqlite3.connect(self.database, timeout=0, isolation_level=None,
                                                     check_same_thread=False)
            self._checkpointer.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error:
            log.warning("the WAL of %s was not checkpointed now", self.database, exc_info=True)

    def _close(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass
            self._fd = self._file = None

    def close(self) -> None:
        with self._lock:
            self._close()
            if self._checkpointer is not None:
                self._checkpointer.close()
                self._checkpointer = None


def off_loop(work, *args):
    """``work(*args)`` on a native thread of its own when the process is gevent's (``tacmap serve``: the standard
    library patched), so a blocking call (SQLite's write and fsync) holds this greenlet only; else (the app
    tests, the command-line tools) right here. One thread: the store's writes go one at a time anyway (its lock),
    and the process's thread count stays what it was."""
    pool = _writer_pool()
    if pool is False:
        return work(*args)
    done, error = pool.apply(_caught, (work, args))
    if error is not None:
        raise error
    return done


def _caught(work, args) -> tuple:
    """``work(*args)`` on the writer thread: (what it returned, None), or (None, what it raised), which its caller
    raises. Caught there, as gevent's pool would otherwise also print each one with its traceback (a failed write
    is the caller's to tell: a full disk, the database restarting)."""
    try:
        return work(*args), None
    except Exception as exc:  # noqa: BLE001 (raised again by the caller, in its own greenlet)
        return None, exc


class Pending:
    """``work(*args)`` started as ``off_loop`` would run it, not waited for yet: the caller does something else
    meanwhile, then ``result()`` waits for it (and raises what it raised). Where there is no native thread to
    run it on (not gevent), it has already run when this returns."""

    __slots__ = ("_async", "_error")

    def __init__(self, work, *args) -> None:
        self._async = self._error = None
        pool = _writer_pool()
        if pool is False:
            try:
                work(*args)
            except Exception as exc:
                self._error = exc
        else:
            self._async = pool.spawn(_caught, work, args)

    def join(self) -> None:
        """Wait until it has run (what it raised is kept for ``result``)."""
        if self._async is not None:
            running = self._async
            try:
                _done, self._error = running.get()
            except Exception as exc:  # (the pool's own failure)
                self._error = exc
            self._async = None

    def result(self) -> None:
        self.join()
        if self._error is not None:
            raise self._error


class PgFlush:
    """What makes a PostgreSQL append durable (``Appending.durable``): the append commits with PostgreSQL's
    asynchronous commit (``SET LOCAL synchronous_commit = off``: the COMMIT returns once its WAL record is in the
    server's buffers, every session sees the rows at once, and a killed tacmap loses nothing), and this then
    commits a tiny transaction that writes WAL, with the server's own ``synchronous_commit``: its COMMIT returns
    once the WAL is flushed up to its commit record, every earlier record included, the append's among them
    (PostgreSQL's manual, "Asynchronous Commit": a synchronous commit flushes all WAL before it).

    The transaction writes a logical-decoding message (``pg_logical_emit_message(true, ...)``: a WAL record and
    an xid, no table row, executable by any user). A transaction that only takes an xid (``pg_current_xact_id()``)
    would not do: PostgreSQL commits one that wrote no WAL asynchronously whatever ``synchronous_commit`` says.

    A connection of its own (``tacmap-flush``), opened on first use, so it runs on the writer thread while the
    store's connection serves the loop; the statement goes by libpq's blocking call (``execute_blocking``), which
    waits with the GIL released. Thread-safe.

    One flush covers every append committed before it started: each append takes a number once committed
    (``committed``), a flush notes the last number given before it begins, and an append whose number it covers
    needs no flush of its own (the appends of a busy game's batches, queued behind one flush on the writer thread)."""

    STATEMENT = "SELECT pg_logical_emit_message(true, 'tacmap', '')"
    APPLICATION = "tacmap-flush"

    def __init__(self, url: str) -> None:
        self.url = url
        self._db: "sql.PostgresDatabase | None" = None
        self._lock = _native_lock()
        self._given = 0  # the number of the last append committed (``committed``)
        self._flushed = 0  # every append up to this number is on the server's disk

    def committed(self) -> int:
        """A number for an append whose COMMIT just returned (called under the store's lock, in commit order)."""
        self._given += 1
        return self._given

    def __call__(self, game_id: str, seq: int, number: int) -> None:
        """Return once the append that ended at ``seq`` (committed before this was called, numbered ``number``) is
        on the server's disk. A failure (the server restarted meanwhile, the connection dropped) is tried again on
        a new connection, then the append is looked for: WriteFailed when it cannot be confirmed (the sender must
        not hear "ok": a crashed server may have lost it)."""
        with self._lock:
            if number <= self._flushed:  # a flush that began after its commit returned: on the disk already
                return
            covers = self._given  # every append numbered so far committed before the flush below begins
            try:
                self._flush()
                self._flushed = covers
                return
            except Exception as exc:  # noqa: BLE001 (whatever it was: tried again below, or said)
                log.warning("the database did not confirm a flush (%s): trying again", sql.reason(exc))
            try:
                if self._db is not None and not self._db.connection.broken:
                    self._db.rollback()
                self._flush()
                found = self._db.execute("SELECT 1 FROM events WHERE game_id = ? AND seq = ?",
                                         (game_id, seq)).fetchone()
            except Exception as exc:  # noqa: BLE001
                raise WriteFailed(f"the database server did not confirm that the command was stored "
                                  f"({sql.reason(exc)}): it may be lost, try again") from exc
            if found is None:
                raise WriteFailed("the database server lost the command (it restarted before it was on its "
                                  "disk): try again")
            self._flushed = max(self._flushed, number)

    def _flush(self) -> None:
        if self._db is None:
            self._db = sql.PostgresDatabase(self.url, application=self.APPLICATION)
        self._db.execute_blocking(self.STATEMENT)

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None


class Appending:
    """An append made (``Store.begin_append``): committed already (SQLite), or sent with its answer still out
    (PostgreSQL: ``finish`` reads it), unless it failed (``finish`` raises what the write raised); what makes it
    durable (SQLite: the fsync of the WAL; PostgreSQL: a flush of the server's WAL, ``PgFlush``) runs on the
    writer thread from ``sync`` until ``durable``."""

    __slots__ = ("_answer", "_error", "_flush", "_sync", "seq")

    def __init__(self, seq: int, error: BaseException | None = None, flush=None, answer=None) -> None:
        """``flush``: what makes the commit durable, called with no argument on the writer thread (None: nothing
        to wait for, an in-memory database). ``answer``: the server's answer still to read (PostgreSQL), called
        by ``finish`` with no argument: it returns the ``flush``, or raises what the write failed with."""
        self.seq, self._error, self._flush, self._sync, self._answer = seq, error, flush, None, answer

    def finish(self) -> int:
        """The new last seq, the events being in the database (committed: a killed server keeps them). Raises as
        ``Store.append`` does (Conflict, WriteFailed...). PostgreSQL: waits for the server's answer (the other
        greenlets run meanwhile)."""
        if self._answer is not None:
            answer, self._answer = self._answer, None
            try:
                self._flush = answer()
            except Exception as exc:  # noqa: BLE001 (raised below, and by every later call)
                self._error = exc
        if self._error is not None:
            raise self._error
        return self.seq

    @property
    def committed(self) -> bool:
        """The events are known to be committed (SQLite: in ``begin_append``; PostgreSQL: once ``finish`` read the
        server's answer): they may be shown."""
        return self._error is None and self._answer is None

    @property
    def failed(self) -> bool:
        """The write is known to have failed (``finish`` raises it)."""
        return self._error is not None

    def sync(self) -> None:
        """Start what makes the commit durable on the writer thread, if not started (after ``finish``: the answer is
        read first, and what it raises raised): the hub starts it once the other screens were sent the update, so
        the writer thread's start does not slow the drawing of it."""
        if self._answer is not None:
            self.finish()
        if self._flush is not None:
            self._sync, self._flush = Pending(self._flush), None

    def durable(self) -> None:
        """Wait until the events are on the disk (after ``finish``; started now if ``sync`` did not): a power cut
        keeps them. SQLite: a failed fsync is logged, not raised (the events are committed and others were shown
        them; only the disk may lose them). PostgreSQL: raises WriteFailed when the server cannot confirm them
        (``PgFlush``: it crashed meanwhile and may have lost them), so the sender never hears "ok" for them."""
        self.sync()
        sync = self._sync  # (each command of a batch waits for it, in its own greenlet)
        if sync is not None:
            try:
                sync.result()
            except OSError:
                if self._sync is sync:  # said once
                    log.error("the data folder's disk did not confirm a write (fsync failed)", exc_info=True)
            self._sync = None


def is_game_id(value) -> bool:
    return isinstance(value, str) and GAME_ID.fullmatch(value) is not None

SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    system TEXT NOT NULL,
    gm_key TEXT NOT NULL,
    screen_key TEXT NOT NULL,
    join_code TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS events (
    game_id TEXT NOT NULL REFERENCES games(id),
    seq INTEGER NOT NULL,
    type TEXT NOT NULL,
    data TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE TABLE IF NOT EXISTS commands (
    game_id TEXT NOT NULL REFERENCES games(id),
    seat TEXT NOT NULL,
    cid TEXT NOT NULL,
    seq INTEGER NOT NULL,
    answer TEXT NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (game_id, seat, cid)
);
-- the cleanup of old command ids (Store.append: a game's ids older than COMMAND_IDS_KEPT_S) reads this, not every
-- id the game ever stored. IF NOT EXISTS: made when an older data folder or database is next opened
CREATE INDEX IF NOT EXISTS commands_by_age ON commands (game_id, created_at);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    seq INTEGER NOT NULL,
    state TEXT NOT NULL
);
-- room mode (#38, webapp/web/room.py): the organiser's room, its tables, each table's past slots. No column is
-- named game_id: a game's export (webapp/storage/archive.py) takes every table with one, and these are the room's
CREATE TABLE IF NOT EXISTS room (
    id TEXT PRIMARY KEY,
    password TEXT,
    setup_token TEXT,
    closed_at REAL,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS room_tables (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    gm_name TEXT NOT NULL,
    template TEXT NOT NULL,
    current_game TEXT NOT NULL UNIQUE,
    join_code TEXT NOT NULL UNIQUE,
    pin TEXT NOT NULL UNIQUE,
    created_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS room_slots (
    table_id TEXT NOT NULL REFERENCES room_tables(id),
    slot INTEGER NOT NULL,
    game TEXT NOT NULL UNIQUE,
    archived_at REAL NOT NULL,
    PRIMARY KEY (table_id, slot)
);
CREATE TABLE IF NOT EXISTS settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""

#: the game's files (map pictures, hand-outs: ``<kind>/<name>``, e.g. ``pictures/<sha>.png``) on PostgreSQL only:
#: there every machine has a data folder of its own, which keeps a copy of the files it served (docs/STORAGE.md).
#: Not a table of SQLite's, where the data folder is the one place (and an export stays readable by older tacmaps).
FILES_TABLE = "files"
FILES_SCHEMA = """
CREATE TABLE IF NOT EXISTS files (
    game_id TEXT NOT NULL REFERENCES games(id),
    path TEXT NOT NULL,
    data BLOB NOT NULL,
    created_at REAL NOT NULL,
    PRIMARY KEY (game_id, path)
);
"""

#: the browsers' sessions (webapp/web/sessions.py): a file of their own beside the SQLite log, a table of the
#: PostgreSQL database
SESSIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    expires REAL NOT NULL
);
"""


#: the columns each table must have (a database made by something else is refused at start)
COLUMNS = {
    "games": {"id", "name", "system", "gm_key", "screen_key", "join_code", "created_at"},
    "events": {"game_id", "seq", "type", "data", "created_at"},
    "snapshots": {"game_id", "seq", "state"},
    "commands": {"game_id", "seat", "cid", "seq", "answer", "created_at"},
    "room": {"id", "password", "setup_token", "closed_at", "created_at"},
    "room_tables": {"id", "name", "gm_name", "template", "current_game", "join_code", "pin", "created_at"},
    "room_slots": {"table_id", "slot", "game", "archived_at"},
}

#: how long the server remembers a command id it applied (docs/PROTOCOL.md "Command ids"): a repeat within it is
#: answered with the first answer; ids older than this are forgotten as new commands are stored
COMMAND_IDS_KEPT_S = 3600.0
#: how often a game's append also deletes its command ids older than that (``applied`` skips them meanwhile): not
#: every append, whose transaction is on the way of every move (on PostgreSQL a third of the server's work)
COMMAND_IDS_SWEPT_EVERY_S = 60.0


@dataclass(frozen=True)
class Applied:
    """A command id stored with the events it produced: in the same transaction (``Store.append``)."""
    seat: str  # the audience that sent it: "gm", "screen", "player:<id>"
    cid: str
    seq: int  # the seq of its last event
    answer: dict  # what its sender heard besides ok and seq


class Conflict(Exception):
    """Someone else appended to this game's log first: reload and try again."""


class WriteFailed(Exception):
    """The log could not be written (disk full, file gone read-only...): nothing of the command was stored."""


class DamagedLog(Exception):
    """One game's log cannot be read back at ``seq``: that game is out of service, the others are not."""

    MESSAGE = N_("The log of game %(id)s is damaged at seq %(seq)s (%(reason)s). Nothing more can be done in it "
                 "until it is repaired: on the server, `tacmap export %(id)s FILE` keeps a copy of all of it, then, "
                 "with the server stopped, `tacmap repair %(id)s` cuts the log back to seq %(last)s (what follows is "
                 "kept in a file).")

    def __init__(self, game_id: str, seq: int, reason: str, **detail) -> None:
        """``reason``: an N_-marked message; ``detail``: its parameters, the technical words (an exception's
        text) kept as they are: ``DamagedLog(gid, 5, N_("not readable JSON: %(error)s"), error=str(exc))``."""
        english = reason % detail if detail else reason
        self.game_id, self.seq, self.reason = game_id, seq, english
        params = {"id": game_id, "seq": seq, "reason": english, "last": seq - 1}
        super().__init__(self.MESSAGE % params)
        # said in the reader's language by webapp/live/language.py's refusal_text (the 503 page, a socket's answer): the
        # message with its parameters, the reason said too (a message id, with its own parameters when it has them)
        self.parts = [(self.MESSAGE, {**params, "reason": (reason, detail) if detail else reason})]
        self.words = ("reason",)


@dataclass(frozen=True)
class GameRecord:
    id: str
    name: str
    system: str
    gm_key: str
    screen_key: str
    join_code: str
    created_at: float


def _unusable(path: Path, why: str) -> DataError:
    return DataError(
        f"{path} {why}. If it is damaged, move it aside (mv {path} {path}.damaged) and put back a copy "
        "made by `tacmap backup`, or start with another --data-dir (an empty folder starts afresh)."
    )


def _check_schema(db, where: str) -> None:
    tables = db.tables()
    kind = "a PostgreSQL" if db.kind == "postgresql" else "a SQLite"
    foreign = ("Give tacmap a database of its own (CREATE DATABASE tacmap)." if db.kind == "postgresql" else
               "Start with another --data-dir, or move the file aside if tacmap's data should be there.")
    if tables and "games" not in tables:
        raise DataError(f"{where} is {kind} database, but not tacmap's (it has no table 'games'). {foreign}")
    for table, wanted in COLUMNS.items():
        if table not in tables:
            continue
        have = set(tables[table])
        if not wanted <= have:
            raise DataError(f"{where} is {kind} database, but not tacmap's: its table {table!r} lacks "
                            f"{', '.join(sorted(wanted - have))}. {foreign}")


class Store:
    """A data folder's SQLite file (a path), or a PostgreSQL database (a ``postgresql://`` URL)."""

    def __init__(self, path: str | Path) -> None:
        self.url = path if sql.is_url(path) else None
        self.path = path if self.url else Path(path)
        self._lock = threading.RLock()  # one statement at a time on the connection (gevent's lock when patched)
        self._db = self._open_postgres() if self.url else self._open()
        #: what a read or write raises when the database does not answer now (``sql.Unavailable``; on PostgreSQL also
        #: psycopg's OperationalError): the caller says so and tries nothing else; the next use connects again
        self.unavailable = self._db.unavailable
        #: whether a write's failure (``WriteFailed.__cause__``) is the database not answering (``unavailable``, not
        #: a full disk)
        self.away = self._db.away
        #: SQLite's WAL, fsynced after a commit (``synchronous=NORMAL`` leaves it out: ``Appending.durable``);
        #: None for PostgreSQL and an in-memory database
        self._wal = WalSync(self.path) if not self.url and str(self.path) != ":memory:" else None
        #: game id -> when an append last deleted its old command ids (``_append``): forgotten when that append
        #: failed, so the next one deletes them (a command id an hour old sent again: its repeat is a new command)
        self._swept: dict[str, float] = {}
        #: PostgreSQL's WAL flushed past an append's asynchronous commit (``Appending.durable``)
        self._pg_flush = PgFlush(self.url) if self.url else None
        if self._pg_flush is not None:  # an append's answer read (``begin_append``): its number for the flush
            self._db.on_commit = self._pg_flush.committed

    def __repr__(self) -> str:
        return f"Store({sql.shown(self.url) if self.url else str(self.path)!r})"

    def _run(self, work, *args):
        """A write, on the writer thread under gevent (``off_loop``): PostgreSQL's commit; SQLite's commit and the
        fsync of its WAL (``WalSync``), so it is on the disk when this returns."""
        if self._wal is None:
            return off_loop(work, *args)
        return off_loop(self._synced, work, args)

    def _synced(self, work, args):
        out = work(*args)
        self._wal()
        return out

    def _open_postgres(self) -> "sql.PostgresDatabase":
        # under gevent an append is sent by a thread of its own (``sql.Sender``): the server commits it beside the loop
        db = sql.PostgresDatabase(self.url, sender=_writer_pool() is not False)
        try:
            _check_schema(db, sql.shown(self.url))
            db.create(SCHEMA + FILES_SCHEMA)
        except DataError:
            db.close()
            raise
        except db.errors as exc:
            db.close()
            raise DataError(f"cannot use the database {sql.shown(self.url)} ({sql.reason(exc)})") from None
        return db

    def _open(self) -> "sql.SqliteDatabase":
        """The database, checked before anything is served: a clear DataError, never a traceback."""
        folder, path = self.path.parent, self.path
        in_memory = str(path) == ":memory:"
        try:
            if not in_memory:
                private.make_dir(folder)
        except OSError as exc:
            raise DataError(f"cannot create the data folder {folder}: {exc.strerror}. Create it, or start "
                            "with --data-dir set to a folder you may write to.") from None
        if not os.access(folder, os.W_OK | os.X_OK):
            raise DataError(f"the data folder {folder} is not writable (SQLite keeps its journal beside the "
                            f"database). Give your user write access (chmod u+rwx {folder}) or start with "
                            "--data-dir set to a folder you may write to.")
        if path.exists() and not path.is_file():
            raise DataError(f"{path} is not a file. Move it away, or start with another --data-dir.")
        if path.exists() and not os.access(path, os.R_OK | os.W_OK):
            raise DataError(f"cannot read and write {path} (permission denied). Give your user read and write "
                            f"access (chmod u+rw {path}), or start with another --data-dir.")
        if not in_memory:
            private.sqlite_file(path)  # 0600 before SQLite opens it (its WAL files take its permissions)
        db = None
        try:
            db = sql.connect_sqlite(path)
            problems = [row[0] for row in db.execute("PRAGMA quick_check").fetchall() if row[0] != "ok"]
            if problems:
                raise _unusable(path, f"is a damaged SQLite database ({problems[0]})")
            _check_schema(db, path)  # before changing anything: a stranger's file is left as it was
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a commit does not wait for the disk: WalSync does
            db.execute("PRAGMA wal_autocheckpoint=0")  # nor copy the WAL into the file: WalSync does that too
            db.execute("PRAGMA foreign_keys=ON")
            db.create(SCHEMA)
            db.execute("BEGIN IMMEDIATE")  # can we write? (a read-only file opens, then refuses every write)
            db.execute("ROLLBACK")
        except DataError:
            if db is not None:
                db.close()
            raise
        except sqlite3.DatabaseError as exc:
            if db is not None:
                db.close()
            message = str(exc)
            if "readonly" in message or "read-only" in message:
                raise DataError(f"{path} can only be read, not written ({message}). Give your user write access "
                                f"to it and to {folder}, or start with another --data-dir.") from None
            if "locked" in message:
                raise DataError(f"{path} is in use by another program (another tacmap serving it?): {message}. "
                                "Stop that one first, or start with another --data-dir.") from None
            if "unable to open" in message:
                raise DataError(f"cannot open {path} ({message}). Check that your user may read and write it "
                                "and its folder, or start with another --data-dir.") from None
            raise _unusable(path, f"is not a database tacmap can read ({message})") from None
        return db

    def close(self) -> None:
        with self._lock:
            if self._wal is not None:  # first: SQLite removes the WAL as it closes (Windows: not while it is open)
                self._wal.close()
            if self._pg_flush is not None:
                self._pg_flush.close()
            self._db.close()

    # --- games ------------------------------------------------------------

    def _rollback(self) -> None:
        self._db.rollback()

    def create_game(self, record: GameRecord, events: list[Event]) -> None:
        with self._lock:
            self._run(self._create_game, record, events)

    def _create_game(self, record: GameRecord, events: list[Event]) -> None:
        def write() -> None:
            self._db.execute(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
                (record.id, record.name, record.system, record.gm_key, record.screen_key,
                 record.join_code, record.created_at),
            )
            self._insert_events(record.id, 0, events)

        self._transaction(write)

    def _transaction(self, write, conflict: str | None = None, asynchronous: bool = False,
                     later: bool = False) -> None:
        """``write()`` in one transaction, rolled back on any failure: a disk that cannot take it is
        WriteFailed; a step already written (another process) is Conflict(``conflict``) when one is given.
        ``asynchronous``: its COMMIT need not wait for the disk (``Database.begin``): the caller makes it durable.
        ``later`` (PostgreSQL, with ``asynchronous``): sent without waiting for the server's answer, which the
        caller reads with ``_answered`` (``sql.PostgresDatabase.batch``); SQLite answers at once."""
        db = self._db
        try:
            with db.batch(blind=asynchronous, later=later):  # PostgreSQL: the whole transaction in one round trip
                db.begin(asynchronous)
                write()
                db.commit()
        except BaseException as exc:
            self._rollback()
            self._fail(exc, conflict)

    def _fail(self, exc: BaseException, conflict: str | None) -> NoReturn:
        """Raise what a failed write raises: Conflict(``conflict``) for a step already written (another process),
        when one is given; WriteFailed for a database that cannot take it; anything else as it was."""
        db = self._db
        if isinstance(exc, db.integrity_errors) and conflict is not None:
            raise Conflict(conflict) from None
        if isinstance(exc, db.write_errors):
            raise WriteFailed(write_failure(exc)) from exc
        raise exc

    def _answered(self, answer: "sql.Answer", conflict: str) -> None:
        """The server's answer to a transaction ``_transaction(later=True)`` sent (read now unless another use of
        the connection read it already, ``sql.PostgresDatabase.settle``, which rolled a failed one back); raises
        as ``_transaction``. Under the store's lock."""
        self._db.settle()
        if answer.error is not None:
            self._fail(answer.error, conflict)

    def games(self) -> list[GameRecord]:
        with self._lock:
            rows = self._db.execute("SELECT * FROM games ORDER BY created_at DESC").fetchall()
        return [GameRecord(*row) for row in rows]

    def game(self, game_id: str) -> GameRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
        return GameRecord(*row) if row else None

    def game_by_join_code(self, code: str) -> GameRecord | None:
        with self._lock:
            row = self._db.execute("SELECT * FROM games WHERE join_code = ?", (code,)).fetchone()
        return GameRecord(*row) if row else None

    def rename_game(self, game_id: str, name: str) -> None:
        with self._lock:
            self._run(self._db.execute, "UPDATE games SET name = ? WHERE id = ?", (name, game_id))

    def update_access(self, game_id: str, **keys: str) -> None:
        """A game's new ``gm_key``, ``screen_key`` or ``join_code`` (a rotation): the old one stops working now."""
        if not keys or not set(keys) <= {"gm_key", "screen_key", "join_code"}:
            raise ValueError(f"update_access takes gm_key, screen_key or join_code, not {sorted(keys)}")
        with self._lock:
            self._run(self._db.execute, f"UPDATE games SET {', '.join(f'{k} = ?' for k in keys)} WHERE id = ?",
                     (*keys.values(), game_id))

    # --- room mode (#38) -------------------------------------------------------------------------------------
    # The organiser's room (webapp/web/room.py): one row in ``room`` (the organiser password's hash, the one-time
    # setup links' digests, when it closed), its tables (``room_tables``: the game a table plays now, its printed
    # join code, its GM PIN) and each table's past slots (``room_slots``: the games put aside by a reset, kept as
    # they were). Portable SQL only (``?`` placeholders, ON CONFLICT upserts, no SQLite functions): the same
    # statements run on PostgreSQL.

    ROOM_ID = "room"
    ROOM_TABLE_FIELDS = ("id", "name", "gm_name", "template", "current_game", "join_code", "pin", "created_at")

    def _room_write(self, statements: list[tuple[str, tuple]]) -> None:
        def write() -> None:
            for sql, params in statements:
                self._db.execute(sql, params)

        with self._lock:
            self._run(self._transaction, write)

    def room(self) -> dict | None:
        """The room's row (password, setup_token, closed_at, created_at), None before room mode first ran."""
        with self._lock:
            row = self._db.execute("SELECT password, setup_token, closed_at, created_at FROM room WHERE id = ?",
                                   (self.ROOM_ID,)).fetchone()
        return dict(zip(("password", "setup_token", "closed_at", "created_at"), row)) if row else None

    def save_room(self, **fields) -> None:
        """Set some of the room's password, setup_token, closed_at (the row is made on the first call)."""
        if not fields or not set(fields) <= {"password", "setup_token", "closed_at"}:
            raise ValueError(f"save_room takes password, setup_token or closed_at, not {sorted(fields)}")
        names = list(fields)
        self._room_write([(
            f"INSERT INTO room (id, created_at, {', '.join(names)}) VALUES (?, ?, {', '.join('?' for _ in names)}) "
            f"ON CONFLICT (id) DO UPDATE SET {', '.join(f'{n} = excluded.{n}' for n in names)}",
            (self.ROOM_ID, time.time(), *fields.values()))])

    def claim_room_password(self, stored: str) -> bool:
        """Set the organiser password if none is set yet, and spend every setup link; False when one was set first
        (two setup links sent in the same instant, on one machine or two: the first one wins, in the database)."""
        self._room_write([("UPDATE room SET password = ?, setup_token = NULL WHERE id = ? AND password IS NULL",
                           (stored, self.ROOM_ID))])
        return (self.room() or {}).get("password") == stored

    #: setup links that work at once while no organiser password is set: one per start (each machine's console
    #: prints its own); the start after that many begins the list again, with its own link alone
    SETUP_TOKENS_KEPT = 16

    def add_room_setup_token(self, digest: str) -> None:
        """One more setup link that works, beside those printed before (``room()["setup_token"]``: their digests,
        space-separated), in one statement: machines started together each keep their own."""
        full = self.SETUP_TOKENS_KEPT * (len(digest) + 1) - 1
        self._room_write([(
            "INSERT INTO room (id, created_at, setup_token) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
            f"setup_token = CASE WHEN room.setup_token IS NULL OR length(room.setup_token) >= {full} "
            "THEN excluded.setup_token "
            "ELSE room.setup_token || ' ' || excluded.setup_token END",
            (self.ROOM_ID, time.time(), digest))])

    def room_tables(self) -> list[dict]:
        with self._lock:
            rows = self._db.execute(f"SELECT {', '.join(self.ROOM_TABLE_FIELDS)} FROM room_tables "
                                    "ORDER BY created_at, name").fetchall()
        return [dict(zip(self.ROOM_TABLE_FIELDS, row)) for row in rows]

    def room_table(self, by: str, value) -> dict | None:
        """The table whose ``by`` (id, pin, join_code or current_game) is ``value``."""
        if by not in ("id", "pin", "join_code", "current_game"):
            raise ValueError(f"room_table looks tables up by id, pin, join_code or current_game, not {by!r}")
        with self._lock:
            row = self._db.execute(f"SELECT {', '.join(self.ROOM_TABLE_FIELDS)} FROM room_tables WHERE {by} = ?",
                                   (value,)).fetchone()
        return dict(zip(self.ROOM_TABLE_FIELDS, row)) if row else None

    def add_room_table(self, table: dict) -> None:
        self._room_write([(f"INSERT INTO room_tables ({', '.join(self.ROOM_TABLE_FIELDS)}) VALUES "
                           f"({', '.join('?' for _ in self.ROOM_TABLE_FIELDS)})",
                           tuple(table[f] for f in self.ROOM_TABLE_FIELDS))])

    def update_room_table(self, table_id: str, **fields) -> None:
        """A table's new name, gm_name, join_code or pin."""
        if not fields or not set(fields) <= {"name", "gm_name", "join_code", "pin"}:
            raise ValueError(f"update_room_table takes name, gm_name, join_code or pin, not {sorted(fields)}")
        self._room_write([(f"UPDATE room_tables SET {', '.join(f'{k} = ?' for k in fields)} WHERE id = ?",
                           (*fields.values(), table_id))])

    def next_room_slot(self, table_id: str, old_game: str, new_game: str) -> None:
        """A reset: the table's game ``old_game`` is kept as its next past slot, ``new_game`` is its game now (one
        transaction; a table already moved on by someone else is a Conflict)."""
        def write() -> None:
            # the row it moved, fetched (not a row count: PostgreSQL's pipeline has none before it syncs)
            moved = self._db.execute("UPDATE room_tables SET current_game = ? WHERE id = ? AND current_game = ? "
                                     "RETURNING id", (new_game, table_id, old_game)).fetchone()
            if moved is None:
                raise Conflict(f"table {table_id} was reset by someone else")
            row = self._db.execute("SELECT COUNT(*) FROM room_slots WHERE table_id = ?", (table_id,)).fetchone()
            self._db.execute("INSERT INTO room_slots (table_id, slot, game, archived_at) VALUES (?, ?, ?, ?)",
                             (table_id, row[0] + 1, old_game, time.time()))

        with self._lock:
            self._run(self._transaction, write, f"table {table_id} was reset by someone else")

    def room_slots(self, table_id: str | None = None) -> list[dict]:
        """The past slots (table_id, slot, game, archived_at), of one table or all, oldest first."""
        fields = ("table_id", "slot", "game", "archived_at")
        where, params = ("WHERE table_id = ? ", (table_id,)) if table_id else ("", ())
        with self._lock:
            rows = self._db.execute(f"SELECT {', '.join(fields)} FROM room_slots {where}ORDER BY table_id, slot",
                                    params).fetchall()
        return [dict(zip(fields, row)) for row in rows]

    def room_slot(self, game_id: str) -> dict | None:
        """The past slot that is this game, if it is one."""
        with self._lock:
            row = self._db.execute("SELECT table_id, slot, game, archived_at FROM room_slots WHERE game = ?",
                                   (game_id,)).fetchone()
        return dict(zip(("table_id", "slot", "game", "archived_at"), row)) if row else None

    # --- end of room mode ---------------------------------------------------------------------------------------

    def setting(self, name: str, default: str) -> str:
        """A value every process on this database shares (the secret key on PostgreSQL): ``default`` is stored
        the first time, by whichever process comes first; every later call reads what was stored."""
        with self._lock:
            self._run(self._db.execute, "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) "
                      "DO NOTHING", (name, default))
            return self._db.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()[0]

    # --- the game's files (PostgreSQL) --------------------------------------

    @property
    def keeps_files(self) -> bool:
        """Whether the game's files (pictures) are kept here too (PostgreSQL), not only in the data folder."""
        return self._db.kind == "postgresql"

    def put_file(self, game_id: str, path: str, data: bytes) -> bool:
        """Keep a file of the game (durable when this returns); False when it was there already."""
        with self._lock:
            cur = self._run(self._db.execute, "INSERT INTO files (game_id, path, data, created_at) VALUES "
                            "(?, ?, ?, ?) ON CONFLICT (game_id, path) DO NOTHING", (game_id, path, data, time.time()))
            return cur.rowcount == 1

    def file(self, game_id: str, path: str) -> bytes | None:
        with self._lock:
            row = self._db.execute("SELECT data FROM files WHERE game_id = ? AND path = ?", (game_id, path)).fetchone()
        return bytes(row[0]) if row else None

    def has_file(self, game_id: str, path: str) -> bool:
        with self._lock:
            return self._db.execute("SELECT 1 FROM files WHERE game_id = ? AND path = ?",
                                    (game_id, path)).fetchone() is not None

    def files_size(self, game_id: str, prefix: str) -> int:
        """The bytes the game's files under ``prefix`` (``pictures/``) take."""
        with self._lock:
            row = self._db.execute("SELECT SUM(LENGTH(data)) FROM files WHERE game_id = ? AND path LIKE ?",
                                   (game_id, prefix + "%")).fetchone()
        return int(row[0] or 0)

    def file_paths(self, game_id: str) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT path FROM files WHERE game_id = ? ORDER BY path",
                                                   (game_id,)).fetchall()]

    def delete_file(self, game_id: str, path: str) -> None:
        with self._lock:
            self._run(self._db.execute, "DELETE FROM files WHERE game_id = ? AND path = ?", (game_id, path))

    # --- the log ----------------------------------------------------------

    def append(self, game_id: str, last_seq: int, events: list[Event], applied: list[Applied] = ()) -> int:
        """Append events after ``last_seq`` in one transaction, with the ids of the commands that produced
        them (``applied``: a command id already stored is a Conflict, like a seq); the new last seq, once they
        are on the disk."""
        appending = self.begin_append(game_id, last_seq, events, applied)
        seq = appending.finish()
        appending.durable()
        return seq

    def begin_append(self, game_id: str, last_seq: int, events: list[Event],
                     applied: list[Applied] = ()) -> Appending:
        """``append`` in two steps: the caller may prepare what it will do once the events are in the database,
        then must call ``finish()`` (which waits for them, and raises what ``append`` raises), and before it says
        "ok", ``durable()`` (which waits for the disk).

        Both: the events are committed without waiting for the disk, by the caller's thread (the loop); SQLite
        here and now, with ``synchronous=NORMAL``; PostgreSQL with its asynchronous commit (``PgFlush``), the
        transaction sent here and its answer read by ``finish()`` (``Appending.committed`` is False until then):
        the caller draws the update meanwhile, while the server works (under gevent the other greenlets run while
        ``finish`` waits for it). Any other use of the store's connection reads that answer first
        (``sql.PostgresDatabase.settle``). What puts them on the disk (the fsync of SQLite's WAL, the flush of
        PostgreSQL's) runs on the writer thread from ``sync()``."""
        seq = last_seq + len(events)
        conflict = f"game {game_id} moved past seq {last_seq}"
        with self._lock:
            try:
                self._append(game_id, last_seq, events, list(applied), conflict)
            except Exception as exc:  # raised by finish()
                self._swept.pop(game_id, None)  # (its sweep of old command ids was rolled back with it)
                return Appending(seq, exc)
            if self._pg_flush is not None:
                return Appending(seq, answer=partial(self._appended, self._db.in_flight, game_id, seq, conflict))
        return Appending(seq, flush=self._wal)

    def _appended(self, answer: "sql.Answer", game_id: str, seq: int, conflict: str):
        """PostgreSQL's answer to an append (``begin_append``), read: what makes it durable (``PgFlush``), or
        raises as ``append`` does."""
        with self._lock:
            try:
                self._answered(answer, conflict)
            except Exception:
                self._swept.pop(game_id, None)  # (its sweep of old command ids was rolled back with it)
                raise
        # numbered as its answer was read (``on_commit``, whoever read it): after its COMMIT returned, in commit order
        return partial(self._pg_flush, game_id, seq, answer.number)

    def _append(self, game_id: str, last_seq: int, events: list[Event], applied: list[Applied], conflict: str) -> None:
        def write() -> None:
            self._insert_events(game_id, last_seq, events)
            if applied:
                now = time.time()
                if now >= self._swept.get(game_id, 0.0) + COMMAND_IDS_SWEPT_EVERY_S:
                    self._swept[game_id] = now
                    self._db.execute("DELETE FROM commands WHERE game_id = ? AND created_at < ?",
                                     (game_id, now - COMMAND_IDS_KEPT_S))
                self._db.executemany(
                    "INSERT INTO commands (game_id, seat, cid, seq, answer, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                    [(game_id, a.seat, a.cid, a.seq, json.dumps(a.answer), now) for a in applied])

        self._transaction(write, conflict, asynchronous=True, later=self._pg_flush is not None)

    def applied(self, game_id: str, seat: str, cid: str) -> tuple[int, dict] | None:
        """The seq and answer of the command ``cid`` this seat sent, if it was applied within the last hour."""
        with self._lock:
            row = self._db.execute(
                "SELECT seq, answer FROM commands WHERE game_id = ? AND seat = ? AND cid = ? AND created_at >= ?",
                (game_id, seat, cid, time.time() - COMMAND_IDS_KEPT_S)).fetchone()
        if not row:
            return None
        try:
            answer = json.loads(row[1])
        except (TypeError, ValueError):
            answer = {}
        return row[0], answer if isinstance(answer, dict) else {}

    def _insert_events(self, game_id: str, last_seq: int, events: list[Event]) -> None:
        now = time.time()
        self._db.executemany(
            "INSERT INTO events (game_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
            [(game_id, last_seq + i + 1, e.type, json.dumps(e.data), now) for i, e in enumerate(events)],
        )

    def events(self, game_id: str, after: int = 0, before: int | None = None,
               times: dict[int, float | None] | None = None) -> list[Event]:
        """The log after ``after`` (up to ``before``, that event included, when given: a jump into the log reads no
        further); DamagedLog names the first event that cannot be read, or a gap. Parsed with orjson (a third of
        the stdlib's time on a long log), the stdlib's parser for what orjson refuses (NaN, which json.dumps
        writes; integers past 64 bits): the stored text is the same either way. ``times``: filled with when each
        event read was written (seq -> seconds, as ``event_times``: read with the event, nearly free; alone,
        SQLite reads each event's whole text to reach its time)."""
        bound = "" if before is None else " AND seq <= ?"
        with collector_paused():
            with self._lock:
                rows = self._db.execute(
                    f"SELECT seq, type, data, created_at FROM events WHERE game_id = ? AND seq > ?{bound} ORDER BY seq",
                    (game_id, after) if before is None else (game_id, after, before)).fetchall()
            return self._parsed(game_id, after, rows, times)

    @staticmethod
    def _parsed(game_id: str, after: int, rows: list, times: dict | None) -> list[Event]:
        out = []
        for expected, (seq, kind, data, when) in enumerate(rows, start=after + 1):
            if times is not None:
                times[seq] = float(when) if isinstance(when, (int, float)) else None
            if seq != expected:
                raise DamagedLog(game_id, expected, N_("this event is missing"))
            try:
                value = parse_json(data)
            except (TypeError, ValueError) as exc:
                raise DamagedLog(game_id, seq, N_("not readable JSON: %(error)s"), error=str(exc)) from None
            if not isinstance(kind, str) or not isinstance(value, dict):
                raise DamagedLog(game_id, seq, N_("not an event"))
            out.append(Event.stored(kind, value, data))
        return out

    def event_times(self, game_id: str, after: int = 0) -> list[float | None]:
        """When each event of the log after ``after`` was written (seconds since the epoch), by seq from
        ``after + 1`` (the recap's sessions)."""
        with self._lock:
            rows = self._db.execute("SELECT created_at FROM events WHERE game_id = ? AND seq > ? ORDER BY seq",
                                    (game_id, after)).fetchall()
        return [float(t) if isinstance(t, (int, float)) else None for (t,) in rows]

    def last_seq(self, game_id: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] or 0

    # --- snapshots --------------------------------------------------------

    def save_snapshot(self, game_id: str, seq: int, state: dict) -> None:
        """A shortcut for loading (the log stays the truth); a failure to write it loses nothing.

        Never replaces a later one: two processes on one log each save theirs, in any order."""
        with self._lock:
            self._run(
                self._db.execute, "INSERT INTO snapshots VALUES (?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET seq = excluded.seq, "
                "state = excluded.state WHERE excluded.seq > snapshots.seq",
                (game_id, seq, json.dumps(state)),
            )

    def snapshot(self, game_id: str) -> tuple[int, dict] | None:
        """The latest snapshot, or None when there is none or it cannot be read (then the log is replayed)."""
        with self._lock:
            row = self._db.execute("SELECT seq, state FROM snapshots WHERE game_id = ?", (game_id,)).fetchone()
        if not row:
            return None
        try:
            state = json.loads(row[1])
        except (TypeError, ValueError):
            return None
        return (row[0], state) if isinstance(state, dict) else None


@contextmanager
def collector_paused():
    """Python's cycle collector held off for a bulk read or fold (a long log parsed: hundreds of thousands of new
    dicts and lists, none in a cycle): otherwise each few hundred new objects start a collection, and the
    oldest generation's ones walk the whole heap again and again (the first recap of a 5,000-event game: 450 of
    its 750 ms). Collected as usual afterwards; a block inside another leaves it to the outer one."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def parse_json(text: str):
    """A stored JSON text read back: orjson where it can (its errors are ValueErrors), else the stdlib's parser,
    which also reads what ``json.dumps`` writes beyond strict JSON (NaN, Infinity, integers past 64 bits)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def write_failure(exc: Exception) -> str:
    """What the sender of a command hears when the log could not be written."""
    message = str(exc).strip()
    if isinstance(exc, sql.Unavailable):
        return f"{message}: nothing was stored, try again in a moment"
    if type(exc).__module__.startswith("psycopg"):
        if "full" in message.lower() or type(exc).__name__ == "DiskFull":
            return "the database server's disk is full: nothing was stored (see the server's log)"
        return f"the server could not write the game's log to its database ({message}): nothing was stored"
    if "full" in message:
        return ("the server's disk is full: nothing was stored. Free some space on the computer running "
                "tacmap, then try again")
    if "readonly" in message or "read-only" in message:
        return "the server's data file became read-only: nothing was stored (see the server's log)"
    return f"the server could not write the game's log ({message}): nothing was stored"


def load_game(store: Store, game_id: str) -> Game:
    """A game rebuilt from its log (from the latest snapshot on); DamagedLog says where the log breaks."""
    snap = store.snapshot(game_id)
    start = None
    if snap:
        try:
            start = Game.from_dict(snap[1])
        except Exception:  # a snapshot is only a shortcut: replay the whole log instead
            snap = None
    after = snap[0] if snap else 0
    events = store.events(game_id, after=after)
    game = start or replay(game_id, [])
    for seq, event in enumerate(events, start=after + 1):
        try:
            evolve(game, event)
        except Exception as exc:
            raise DamagedLog(game_id, seq, N_("a %(type)s event that cannot be applied: %(error)s"), type=repr(event.type),
                             error=repr(exc)) from exc
    return game
