"""Persistence: each game's event log and snapshots in one SQLite file, or in PostgreSQL (``--database``).

The log is the truth. It is written with WAL: a committed event is in the database file's WAL, which
survives a killed server (``kill -9``), and the WAL is fsynced before the sender hears "ok", so an
acknowledged event survives a power cut too. ``(game_id, seq)`` is the primary key: two writers can
never both append the same step (a second process would get :class:`Conflict` and reload). On PostgreSQL
(``Store("postgresql://...")``, webapp/storage/sql.py) the same statements run through psycopg 3, and the same
primary key keeps one seq per game for every process on every machine.

``Store`` is the one object the app holds: it opens the database (checked before anything is served) and is made
of parts, one module each:

- games.py: the games' rows, their logs, the command ids stored with them, snapshots; ``load_game``;
- room.py: the organiser's room (room mode): its row, setup links and password, its tables and their past slots;
- files.py: the games' files kept in the database (PostgreSQL);
- connection.py: what the parts share: the connection, its lock, a write's transaction, and the calls the tools
  that copy whole tables use (archive.py, migrate.py);
- durable.py: how a write reaches the disk (a move's append committed at once and made durable on the writer
  thread: ``begin_append``, ``Appending``).

The browsers' sessions have their table beside these (sessions.py); pictures on disk are pictures.py's.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

from .. import launch
from . import private, sql
from .connection import Conflict
from .durable import Appending, PgFlush, WalSync, WriteFailed, writer_pool
from .files import FILES_SCHEMA, Files
from .games import GAMES_COLUMNS, GAMES_SCHEMA, Applied, DamagedLog, GameRecord, Games, collector_paused, load_game
from .room import ROOM_COLUMNS, ROOM_SCHEMA, Room
from .sessions import SESSIONS_SCHEMA
from .sql import DataError

#: the store's public names: ``Store``, and what its callers catch, pass or get back from it (defined in its parts)
__all__ = ["DB_NAME", "SCHEMA", "Appending", "Applied", "Conflict", "DamagedLog", "DataError", "GameRecord", "Store",
           "WriteFailed", "collector_paused", "load_game", "SESSIONS_SCHEMA"]

DB_NAME = "tacmap.sqlite3"  # in the data folder

#: values every process on the database shares (``Store.setting``)
SETTINGS_SCHEMA = """
CREATE TABLE IF NOT EXISTS settings (
    name TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
"""
#: every table made at start, on both databases (PostgreSQL adds FILES_SCHEMA's)
SCHEMA = GAMES_SCHEMA + ROOM_SCHEMA + SETTINGS_SCHEMA

#: the columns each table must have (a database made by something else is refused at start)
COLUMNS = {**GAMES_COLUMNS, **ROOM_COLUMNS}


def _unusable(path: Path, why: str) -> DataError:
    return DataError(
        f"{path} {why}. If it is damaged, move it aside (mv {path} {path}.damaged) and put back a copy "
        f"made by `{launch.command('backup')}`, or start with another --data-dir (an empty folder starts afresh)."
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


class Store(Games, Room, Files):
    """A data folder's SQLite file (a path), or a PostgreSQL database (a ``postgresql://`` URL): the games, the room
    and the files in it (games.py, room.py, files.py), over one connection (connection.py)."""

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
        self._wal = WalSync(self.path) if not self.url and str(self.path) != ":memory:" else None
        self._pg_flush = PgFlush(self.url) if self.url else None
        if self._pg_flush is not None:  # an append's answer read (``begin_append``): its number for the flush
            self._db.on_commit = self._pg_flush.committed
        super().__init__()

    def __repr__(self) -> str:
        return f"Store({sql.shown(self.url) if self.url else str(self.path)!r})"

    def _open_postgres(self) -> "sql.PostgresDatabase":
        # under gevent an append is sent by a thread of its own (``sql.Sender``): the server commits it beside the loop
        db = sql.PostgresDatabase(self.url, sender=writer_pool() is not False)
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

    def setting(self, name: str, default: str) -> str:
        """A value every process on this database shares (the secret key on PostgreSQL): ``default`` is stored
        the first time, by whichever process comes first; every later call reads what was stored."""
        with self._lock:
            self._run(self._db.execute, "INSERT INTO settings (name, value) VALUES (?, ?) ON CONFLICT (name) "
                      "DO NOTHING", (name, default))
            return self._db.execute("SELECT value FROM settings WHERE name = ?", (name,)).fetchone()[0]

    # --- a log alone ------------------------------------------------------

    @classmethod
    def of_log(cls, game_id: str, rows: list[tuple]) -> "Store":
        """An in-memory store that holds one game's log alone, as it was read from elsewhere, unchecked (no game
        row, no snapshot): ``load_game`` replays it to check it (an import, webapp/storage/archive.py). ``rows``:
        ``(seq, type, data, created_at)``. Raises the database's own error (sqlite3.Error) for rows it cannot
        hold. The caller closes it."""
        scratch = cls(":memory:")
        try:
            db = scratch._db
            db.execute("PRAGMA foreign_keys=OFF")  # the log alone, without its game's row
            db.executemany("INSERT INTO events (game_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
                           [(game_id, *row) for row in rows])
        except BaseException:
            scratch.close()
            raise
        return scratch
