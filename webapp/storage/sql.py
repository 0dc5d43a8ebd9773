"""The two databases tacmap keeps its data in, behind one small interface: SQLite (the default, one file in the
data folder) and PostgreSQL (``--database postgresql://...``, several machines on one set of games).

Every statement is written once, in the SQL both accept, with ``?`` placeholders (as sqlite3 takes them); the
PostgreSQL side turns them into psycopg's ``%s``. Table definitions are written once too, in SQLite's words
(``TEXT``, ``INTEGER``, ``REAL``, ``BLOB``); ``Database.create`` maps the types PostgreSQL names differently.
Upserts use ``INSERT ... ON CONFLICT (...) DO UPDATE SET col = excluded.col`` (both databases, same words).

To add a table: put its ``CREATE TABLE IF NOT EXISTS`` in the schema of the store part it belongs to
(``games.GAMES_SCHEMA``, ``room.ROOM_SCHEMA``, ``files.FILES_SCHEMA``: ``store.SCHEMA`` joins them), or your own
module's schema, run through ``db.create``; to add a method to a part: ``with self._lock: row =
self._db.execute("SELECT ... WHERE x = ?", (x,))``, and a write that must be durable before an answer goes in
``self._transaction(write)`` (connection.py). Nothing else is needed for it to work on both.

Where the work runs under ``tacmap serve`` (gevent, the standard library patched):
- SQLite's calls block their thread: a game's append is committed on the loop without waiting for the disk
  (``synchronous=NORMAL``: microseconds to a fraction of a millisecond), and the fsync of the WAL that its
  "ok" waits for runs on one native thread of gevent's (``durable.WalSync``, ``durable.off_loop``), as every other
  write does with its fsync; reads on the loop (a local file, microseconds).
- psycopg 3 waits for the server in Python (``psycopg.waiting``) when gevent has patched ``select``, so a read
  lets every other greenlet run while it waits (psycopg checks for gevent when it is imported: here, after the
  patch). A game's append is committed on the loop too, asynchronously (``synchronous_commit = off`` for its
  transaction: no wait for the server's disk), sent without waiting for the answer (``batch(later=True)``, by a
  native thread of its own: ``Sender``; the hub draws the update meanwhile; ``settle`` reads the answer, and so
  does any other use of the connection first), and the flush of the server's WAL that its "ok" waits for runs
  on the writer thread on a connection of its own (``durable.PgFlush``), by libpq's blocking call
  (``execute_blocking``: no Python wait there); every other write runs on the writer thread with a synchronous
  commit (``durable.off_loop``).
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
import time
from functools import lru_cache

from .. import launch

#: PostgreSQL's names for the column types written in SQLite's words
PG_TYPES = {"INTEGER": "BIGINT", "REAL": "DOUBLE PRECISION", "BLOB": "BYTEA"}
_PG_TYPE = re.compile(r"\b(INTEGER|REAL|BLOB)\b")


class DataError(Exception):
    """The data folder or its database cannot be used: the message names the file and what to do."""


class Unavailable(DataError):
    """The database server does not answer now (PostgreSQL restarting, the network to it down): nothing was read
    or written; the next use connects again. Its first connection failing is a DataError (``serve`` stops)."""


def is_url(target) -> bool:
    """A PostgreSQL connection URL (rather than a path to a SQLite file or a data folder)."""
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


def shown(url: str) -> str:
    """A connection URL fit for a log line or an error message: its password left out."""
    return re.sub(r"(://[^:/@]*):[^@/]*@", r"\1:***@", url)


def reason(exc: Exception) -> str:
    """A database error's message on one line (psycopg's run over several)."""
    return " ".join(str(exc).split()).rstrip(".")


@lru_cache(maxsize=512)
def pg_statement(sql: str) -> str:
    """A statement written for sqlite3 in psycopg's words: ``?`` -> ``%s`` (a literal ``%`` doubled). tacmap's
    statements hold no ``?`` inside a quoted text; values always travel as parameters."""
    return sql.replace("%", "%%").replace("?", "%s")


def pg_schema(ddl: str) -> str:
    return _PG_TYPE.sub(lambda m: PG_TYPES[m.group(1)], ddl)


class SqliteDatabase:
    """A sqlite3 connection in autocommit mode (transactions are begun explicitly)."""

    kind = "sqlite"
    placeholder = "?"

    def __init__(self, connection: sqlite3.Connection) -> None:
        self.connection = connection
        self.integrity_errors = (sqlite3.IntegrityError,)
        self.write_errors = (sqlite3.OperationalError,)
        self.errors = (sqlite3.Error,)
        #: what a read or write raises when the database does not answer (a file on this machine always does)
        self.unavailable = (Unavailable,)

    def away(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the database does not answer now (never, for a file on this machine)."""
        return isinstance(exc, self.unavailable)

    def execute(self, sql: str, params=()):
        return self.connection.execute(sql, params)

    def executemany(self, sql: str, rows) -> None:
        self.connection.executemany(sql, rows)

    def create(self, ddl: str) -> None:
        self.connection.executescript(ddl)

    def batch(self, blind: bool = False, later: bool = False):
        """Statements sent together (PostgreSQL's pipeline, or one text); here, simply one after the other (and
        answered at once: nothing is left ``in_flight``)."""
        return contextlib.nullcontext()

    #: the transaction sent by ``batch(later=True)`` whose answer is still out: never on SQLite
    in_flight = None

    def begin(self, asynchronous: bool = False) -> None:
        """A write transaction: SQLite takes the write lock now, so what it reads next stays true. (Its COMMIT
        never waits for the disk, ``asynchronous`` or not: ``synchronous=NORMAL``, store.WalSync fsyncs.)"""
        self.connection.execute("BEGIN IMMEDIATE")

    def begin_read(self) -> None:
        self.connection.execute("BEGIN")

    def commit(self) -> None:
        if self.connection.in_transaction:  # (as sqlite3's own commit(): nothing begun, nothing to do)
            self.connection.execute("COMMIT")

    def rollback(self) -> None:
        # SQLite may have rolled back by itself already (a full disk does that)
        if self.connection.in_transaction:
            self.connection.execute("ROLLBACK")

    @property
    def in_transaction(self) -> bool:
        return self.connection.in_transaction

    def tables(self) -> dict[str, list[str]]:
        names = [r[0] for r in self.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
        return {name: [r[1] for r in self.execute(f'PRAGMA table_info("{name}")')] for name in names}

    def close(self) -> None:
        self.connection.close()


class PostgresDatabase:
    """One psycopg 3 connection in autocommit mode (transactions begun explicitly), opened again when the server
    dropped it (a restart of PostgreSQL: the statement under way fails, the next one reconnects)."""

    kind = "postgresql"
    placeholder = "%s"

    def __init__(self, url: str, application: str = "tacmap", sender: bool = False) -> None:
        """``sender``: a ``batch(later=True)``'s text is handed to a thread of its own to send (``Sender``: where
        one thread serves every table, gevent's loop)."""
        try:
            import psycopg
        except ImportError:
            raise DataError("--database needs psycopg, PostgreSQL's driver: " + launch.install_command(
                "postgresql", "python3 -m pip install 'psycopg[binary]'")) from None

        self.url, self.application = url, application
        self._psycopg = psycopg
        self.integrity_errors = (psycopg.IntegrityError,)
        self.write_errors = (psycopg.OperationalError, psycopg.errors.DiskFull, Unavailable)
        self.errors = (psycopg.Error,)
        #: what a read or write raises when the server does not answer: the connection lost under way (a restart
        #: of PostgreSQL, the network; psycopg's OperationalError), or no new one to be had (``Unavailable``)
        self.unavailable = (Unavailable, psycopg.OperationalError)
        self.connection = self._connect()
        #: after a new connection could not be had (``_live``): not tried again before then (monotonic), the reason
        self._retry_at, self._away = 0.0, ""
        self._queued: list[tuple[str, tuple]] | None = None  # a blind batch's statements (``batch(blind=True)``)
        #: the transaction sent by ``batch(later=True)`` whose answer is still out (``settle`` reads it)
        self.in_flight: Answer | None = None
        #: called with no argument as ``settle`` reads that a transaction sent so committed (whoever reads it);
        #: what it returns is kept as the Answer's ``number`` (store.PgFlush numbers the commits so)
        self.on_commit = None
        #: the thread that sends a ``batch(later=True)``'s text, or None: sent by the caller's thread
        self.sender: Sender | None = Sender() if sender else None

    def _connect(self, again: bool = False):
        """The connection; ``again``: the one before was lost while serving (Unavailable, not DataError)."""
        try:
            return self._psycopg.connect(self.url, autocommit=True, connect_timeout=CONNECT_AGAIN_S if again else 10,
                                         application_name=self.application)
        except self._psycopg.Error as exc:
            if again:
                raise Unavailable(f"the database {shown(self.url)} does not answer ({reason(exc)})") from None
            raise DataError(f"cannot connect to the database {shown(self.url)} ({reason(exc)}). Check that "
                            "PostgreSQL runs there, that the database exists and that the user may use it "
                            "(docs/STORAGE.md).") from None

    def away(self, exc: BaseException) -> bool:
        """Whether ``exc`` says the server does not answer now: ``unavailable``, but not a full disk (an
        OperationalError too: the server's answer, which waiting will not change)."""
        return isinstance(exc, self.unavailable) and not isinstance(exc, self._psycopg.errors.DiskFull)

    def _live(self):
        if self.in_flight is not None:  # the connection is busy until the answer is read
            self.settle()
        if self.connection.closed or self.connection.broken:
            # while the server is away, one use a second tries to connect (and may wait up to CONNECT_AGAIN_S for
            # a host that does not answer); the others meanwhile are told at once, rather than each waiting its
            # turn behind the store's lock: the other tables' pages and moves are answered, not stalled
            if time.monotonic() < self._retry_at:
                raise Unavailable(self._away)
            try:
                self.connection = self._connect(again=True)
            except Unavailable as exc:
                self._retry_at, self._away = time.monotonic() + RETRY_AFTER_S, str(exc)
                raise
        return self.connection

    def execute(self, sql: str, params=()):
        if any(isinstance(p, str) and "\x00" in p for p in params):
            # PostgreSQL's text holds no NUL, so no stored row has one: a look-up by a value with one (a hostile
            # id, code or PIN) finds nothing, as on SQLite, instead of failing; what is stored was checked before
            if sql.lstrip()[:6].upper() == "SELECT":
                return self._live().execute("SELECT 1 WHERE false")
            raise self._psycopg.DataError("a text with a NUL character cannot be stored")
        if self._queued is not None:
            self._queued.append((sql, tuple(params)))
            return None
        return self._live().execute(pg_statement(sql), params)

    def executemany(self, sql: str, rows) -> None:
        if self._queued is not None:
            for row in rows:
                self.execute(sql, row)
            return
        with self._live().cursor() as cur:
            cur.executemany(pg_statement(sql), rows)

    def create(self, ddl: str) -> None:
        conn = self._live()
        # two processes starting at once on an empty database: one makes the tables, the other waits for it
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT pg_advisory_xact_lock(7262736)")  # 'tacmap' schema lock
            for statement in pg_schema(ddl).split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("COMMIT")
        except BaseException:
            self.rollback()
            raise

    def begin(self, asynchronous: bool = False) -> None:
        """A transaction; ``asynchronous``: its COMMIT returns before the WAL is flushed (``synchronous_commit =
        off`` for it alone; store.PgFlush makes it durable before anyone is told)."""
        self.execute("BEGIN")
        if asynchronous:
            self.execute("SET LOCAL synchronous_commit = off")

    def begin_read(self) -> None:
        self._live().execute("BEGIN")

    def batch(self, blind: bool = False, later: bool = False):
        """Statements sent together, their answers read together (psycopg's pipeline mode): a write transaction
        is one round trip to the server rather than one per statement. An error is raised at the end.

        ``blind``: no statement's answer is read (a game's append): they are sent as one text when the block
        ends, their values bound here (psycopg's ``ClientCursor``, which quotes them as the server expects), in
        one call: a third of the pipeline's CPU time (measured: 0.08 against 0.2 ms an append, more under
        gevent, where each statement's wait costs a switch). ``execute`` returns None inside it.

        ``later`` (with ``blind``): the text is sent and its answer left for later (libpq's asynchronous
        ``send_query``): ``in_flight`` holds it until ``settle`` reads it, which the next use of the connection
        does first; the caller does something else meanwhile (the hub draws the move's update while the server
        commits it). Sent by the ``sender`` when there is one (its failure to send is then kept in the ``Answer``,
        as the server's refusal is), else here (a failure to send is raised here)."""
        if not blind:
            return self._live().pipeline()
        return self._blind(later)

    @contextlib.contextmanager
    def _blind(self, later: bool = False):
        self._queued = queued = []
        try:
            yield
        finally:
            self._queued = None
        if queued:
            conn = self._live()
            text = "; ".join(pg_statement(sql) for sql, _params in queued)
            values = [value for _sql, params in queued for value in params]
            with self._psycopg.ClientCursor(conn) as cur:
                if not later:
                    cur.execute(text, values)
                    return
                query = cur.mogrify(text, values)
            if self.sender is not None:
                self.sender.send(conn.pgconn, query.encode(conn.info.encoding))
            else:
                conn.pgconn.send_query(query.encode(conn.info.encoding))
            self.in_flight = Answer()

    def settle(self) -> None:
        """Read the answer of the transaction in flight (``batch(later=True)``), if any, into its ``Answer``; a
        failed one is rolled back here, so the connection is ready for the next statement. Waits for the server
        as psycopg's own statements do (``seams.read_results``: cooperatively where gevent patched ``select``,
        blocking this thread otherwise; select or poll on the connection's socket, on every platform)."""
        answer, self.in_flight = self.in_flight, None
        if answer is None:
            return
        from psycopg.pq import ExecStatus

        from .. import seams

        pgconn = self.connection.pgconn
        try:
            if self.sender is not None:
                self.sender.sent()  # (sent long ago, as a rule: the text is short)
            results = seams.read_results(pgconn, WAIT_INTERVAL)  # psycopg's wait protocol (a seam)
        except self._psycopg.Error as exc:  # the connection dropped (a restart of PostgreSQL): reopened on next use
            answer.error = exc
            return
        except Exception as exc:  # noqa: BLE001 (the socket itself gone: OSError, ValueError)
            answer.error = self._psycopg.OperationalError(f"the connection to the database was lost ({exc})")
            return
        except BaseException:  # stopped while waiting (a greenlet killed): the answer is left unread, so the
            # connection cannot take another statement; the next use opens a new one
            answer.error = self._psycopg.OperationalError("the wait for the database's answer was stopped")
            self.connection.close()
            raise
        failed = next((r for r in results if r.status == ExecStatus.FATAL_ERROR), None)
        if failed is None:
            if self.on_commit is not None:
                answer.number = self.on_commit()
            return
        answer.error = self._refusal(failed)
        try:
            self.rollback()  # the statements after the failed one were skipped, COMMIT among them
        except self._psycopg.Error:  # the connection is broken: reopened on next use
            pass

    def _refusal(self, failed) -> Exception:
        """The exception psycopg would raise for a result that failed (a ``psycopg.pq.PGresult``): the class of
        its SQLSTATE (IntegrityError for a unique key...), with the server's message."""
        from psycopg.pq import DiagnosticField

        sqlstate = (failed.error_field(DiagnosticField.SQLSTATE) or b"").decode("ascii", "replace")
        try:  # none: libpq's own (the connection lost mid-answer)
            kind = self._psycopg.errors.lookup(sqlstate) if sqlstate else self._psycopg.OperationalError
        except KeyError:
            kind = self._psycopg.DatabaseError
        message = (failed.error_message or b"").decode(self.connection.info.encoding, "replace").strip()
        return kind(message or f"the database refused the transaction (SQLSTATE {sqlstate})")

    def execute_blocking(self, sql: str) -> None:
        """``sql`` (no parameters; its rows, if any, not read) by libpq's own blocking call (``PQexec``: psycopg's
        ``pgconn.exec_``), which waits for the server in C with the GIL released. For a native thread of its own
        only (store.PgFlush, on the writer thread), never the hub's: it blocks its thread until the answer.

        Where gevent patched ``select``, psycopg's ``execute`` waits in Python instead, through a hub of gevent's
        that it runs in that thread, taking the GIL the loop needs at each step: measured on a flush, 0.074 ms
        of CPU against this call's 0.011. Raises as ``execute`` does: OperationalError when the connection is
        lost (the next use opens a new one), the SQLSTATE's class when the server refuses the statement."""
        from psycopg.pq import ExecStatus

        conn = self._live()
        result = conn.pgconn.exec_(pg_statement(sql).encode(conn.info.encoding))
        if result.status == ExecStatus.FATAL_ERROR:
            raise self._refusal(result)

    def commit(self) -> None:
        self.execute("COMMIT")

    def rollback(self) -> None:
        """psycopg's rollback, not a ROLLBACK statement: it also forgets the statements it prepared (and drops them
        on the server). A transaction sent as one pipeline that failed (two processes appending the same seq)
        skipped the statements it was preparing, while psycopg took them as prepared: with a plain ROLLBACK
        every later use of one failed with "prepared statement _pg3_N does not exist"."""
        if self.in_flight is not None:
            self.settle()  # (which rolls back a transaction that failed)
        if self.in_transaction and not self.connection.broken:
            self.connection.rollback()

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return self.connection.info.transaction_status in (TransactionStatus.INTRANS, TransactionStatus.INERROR)

    def tables(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for table, column in self.execute(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() "
                "ORDER BY table_name, ordinal_position"):
            out.setdefault(table, []).append(column)
        return out

    def close(self) -> None:
        answer, self.in_flight = self.in_flight, None
        if answer is not None:
            answer.error = self._psycopg.OperationalError("the connection to the database was closed")
        if self.sender is not None:
            try:
                self.sender.sent()  # (libpq's connection is not closed under its send)
            except Exception:  # noqa: BLE001 (a failed send: the connection is closed anyway)
                pass
            self.sender.close()
        self.connection.close()


#: seconds to wait for a new connection once the one before was lost while serving: a request waits at most this
#: long (the first connection, at the start, waits 10)
CONNECT_AGAIN_S = 3
#: seconds after a failed attempt to connect again during which uses are told at once that the server is away
RETRY_AFTER_S = 1.0

#: seconds psycopg's wait function waits on the socket at a time (psycopg's own connections: the same tenth)
WAIT_INTERVAL = 0.1


def native_thread_parts():
    """``allocate_lock`` and ``start_new_thread`` of the standard library's ``_thread``, as they were before gevent
    patched them (when it did): a native lock's wait blocks the thread, and a native thread runs beside the loop."""
    try:
        from gevent import monkey

        return tuple(monkey.get_original("_thread", ["allocate_lock", "start_new_thread"]))
    except ImportError:
        import _thread

        return _thread.allocate_lock, _thread.start_new_thread


class Sender:
    """A native thread that sends a transaction's text to the server for the thread that made it (the loop, under
    ``tacmap serve``), which goes on at once (``PostgresDatabase.batch(later=True)``).

    Why a thread for a write of a few hundred bytes: the write wakes the server process that serves the
    connection, and Linux puts a process woken by a local socket on the core of the thread that woke it,
    expecting that thread to wait for the answer now; there it preempts the thread. The loop does not wait: it
    draws the move's update while the server commits. Sent by the loop, the server's work (a third of a
    millisecond) ran before the rest of the loop's on the same core, while the other core was idle; sent by a
    thread that then sleeps, it runs on that thread's core, beside the loop (measured on the 2-core benchmark
    machine, N=8 propagation on PostgreSQL: the first screen's update came 0.4 ms sooner at the median;
    docs/SERVING.md, "The append sent by a thread of its own").

    ``send`` returns once the thread has the text and is about to send it: libpq's ``PQsendQuery`` lets go of
    the GIL (psycopg's ``send_query``), so the loop takes it back before the server is woken. ``sent`` waits
    until the send is over and raises what it raised; the connection is not used by anyone else before (the
    caller's ``settle``). Should the thread not take a text within ``START_S`` (it died, the process is starved),
    the caller sends it itself, and from then on every time."""

    #: seconds ``send`` waits for the thread to take a text before it sends it itself
    START_S = 2.0

    def __init__(self) -> None:
        allocate_lock, start_new_thread = native_thread_parts()
        self._wake, self._started, self._done, self._slot = (allocate_lock() for _ in range(4))
        self._wake.acquire()
        self._started.acquire()
        self._done.acquire()
        self._job: tuple | None = None  # (pgconn, text) handed over, not yet taken; under ``_slot``
        self._sending = False  # taken by the thread, ``sent`` not yet called
        self._error: BaseException | None = None
        self._closing = False
        self.broken = False  # the thread did not take a text in time: the caller sends
        start_new_thread(self._run, ())

    def _run(self) -> None:
        while True:
            self._wake.acquire()
            with self._slot:
                job, self._job = self._job, None
            if job is None:
                if self._closing:
                    return
                continue
            pgconn, text = job
            self._started.release()
            try:
                pgconn.send_query(text)
                self._error = None
            except BaseException as exc:  # noqa: BLE001 (given to whoever reads the answer)
                self._error = exc
            self._done.release()

    def send(self, pgconn, text: bytes) -> None:
        if self.broken:
            pgconn.send_query(text)
            return
        with self._slot:
            self._job = (pgconn, text)
        self._wake.release()
        if not self._started.acquire(timeout=self.START_S):
            with self._slot:
                job, self._job = self._job, None
            if job is not None:  # never taken: sent here, now and from now on
                self.broken = True
                pgconn.send_query(text)
                return
            self._started.acquire()  # taken just now
        self._sending = True

    def sent(self) -> None:
        """Once the text handed over last is sent (at once when it was; nothing to wait for when none is out)."""
        if not self._sending:
            return
        self._done.acquire()
        self._sending = False
        error, self._error = self._error, None
        if error is not None:
            raise error

    def close(self) -> None:
        """The thread ends (once it is waiting for a text)."""
        self._closing = True
        try:
            self._wake.release()
        except RuntimeError:  # released already, for a text the thread never took (``broken``): it is not waiting
            pass


class Answer:
    """The server's answer to a transaction sent by ``PostgresDatabase.batch(later=True)``: ``error`` is what it
    refused it with (psycopg's exception for its SQLSTATE: a UniqueViolation is an IntegrityError), once
    ``settle`` read it; None: committed."""

    __slots__ = ("error", "number")

    def __init__(self) -> None:
        self.error: Exception | None = None
        self.number = None  # what ``PostgresDatabase.on_commit`` gave it


def connect_sqlite(path, **kwargs) -> SqliteDatabase:
    return SqliteDatabase(sqlite3.connect(path, check_same_thread=False, isolation_level=None, **kwargs))


class SharedDatabase:
    """A database for short statements from any greenlet or thread (the sessions): one connection, one statement
    at a time (a lock: gevent's under ``tacmap serve``)."""

    def __init__(self, db) -> None:
        self.db = db
        self.lock = threading.Lock()

    def execute(self, sql: str, params=()) -> list:
        with self.lock:
            cur = self.db.execute(sql, params)
            return cur.fetchall() if cur.description else []
