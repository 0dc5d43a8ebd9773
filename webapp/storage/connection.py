"""The store's one database connection, as every part of the store uses it (games.py, room.py, files.py).

One statement at a time on the connection (the store's lock); a write in one transaction, rolled back whole when
any of it fails, on the writer thread and durable when it returns (``_run``, ``_transaction``: durable.py says
how). A failed write is said in the store's words: :class:`Conflict` (another process wrote that step first) or
``WriteFailed`` (the database cannot take it).

The tools that copy whole tables (``tacmap export``, ``import``, ``repair``, ``migrate-data``: archive.py,
migrate.py) use the public calls at the end: ``tables``, ``read_rows``, ``reading`` (one consistent moment of the
database) and ``transaction`` (all of a copy or nothing). They run on the caller's thread, as those tools did.
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Iterator, NoReturn

from .durable import PgFlush, WalSync, WriteFailed, off_loop, write_failure

if TYPE_CHECKING:
    from . import sql


class Conflict(Exception):
    """Someone else appended to this game's log first: reload and try again."""


class Connection:
    """What the parts of the store share: the connection (``_db``), its lock, and what makes a write durable.
    Opened by ``Store`` (store.py), which is made of these parts."""

    _db: "sql.SqliteDatabase | sql.PostgresDatabase"
    _lock: threading.RLock
    #: SQLite's WAL, fsynced after a commit (``synchronous=NORMAL`` leaves it out: ``Appending.durable``);
    #: None for PostgreSQL and an in-memory database
    _wal: WalSync | None
    #: PostgreSQL's WAL flushed past an append's asynchronous commit (``Appending.durable``)
    _pg_flush: PgFlush | None

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

    def _rollback(self) -> None:
        self._db.rollback()

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

    # --- whole tables, for the tools (archive.py, migrate.py) ------------------------------------------------

    @property
    def errors(self) -> tuple[type[BaseException], ...]:
        """What the database raises for a statement it refuses (sqlite3.Error, psycopg.Error)."""
        return self._db.errors

    def tables(self) -> dict[str, list[str]]:
        """Every table of the database, with its columns in order."""
        with self._lock:
            return self._db.tables()

    def create_tables(self, ddl: str) -> None:
        """``CREATE TABLE IF NOT EXISTS ...`` statements (written in SQLite's words: ``sql.Database.create``)."""
        with self._lock:
            self._db.create(ddl)

    def read_rows(self, statement: str, params=()) -> list:
        """The rows of one read statement (``?`` placeholders, as every statement of the store)."""
        with self._lock:
            return self._db.execute(statement, params).fetchall()

    @contextmanager
    def reading(self) -> Iterator["sql.SqliteDatabase | sql.PostgresDatabase"]:
        """One read transaction, the store's lock held throughout: every statement run on the database this gives
        sees the same moment of it (an export's tables, a migration's source). Rolled back at the end: nothing
        read this way is written."""
        with self._lock:
            self._db.begin_read()
            try:
                yield self._db
            finally:
                self._db.rollback()

    @contextmanager
    def transaction(self) -> Iterator["sql.SqliteDatabase | sql.PostgresDatabase"]:
        """One write transaction, the store's lock held throughout: committed when the block ends, rolled back when
        it raises (raised again as it was). On the caller's thread, as the tools write (an import, a repair, a
        migration's destination); SQLite takes its write lock at the start, so what is read inside stays true."""
        with self._lock:
            db = self._db
            db.begin()
            try:
                yield db
                db.commit()
            except BaseException:
                db.rollback()
                raise
