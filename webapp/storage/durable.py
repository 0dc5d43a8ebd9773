"""How a write of the store reaches the disk, and the writer thread it waits on there.

Two steps, because the disk is the slow part (docs/SERVING.md "Writes"): SQLite runs with
``synchronous=NORMAL``, so a COMMIT writes the WAL without waiting for the disk, and the event's
append runs right where the command is decided (``Store.begin_append``: well under a millisecond, no thread
hand-over, so the other screens hear of the move without waiting for the disk); the fsync of the WAL
runs on a native thread of gevent's (``off_loop``: sqlite3 and ``os.fsync`` let go of the GIL while
they wait for the disk, so the other tables go on meanwhile), and the sender's "ok" waits for it
(``Appending.durable``). Every other write (a new game, a snapshot, the room's tables...) runs on that
thread with its fsync before it returns. The store's lock (a gevent lock then) keeps one statement at a
time on the connection and every game's writes in the order they were made.

On PostgreSQL (``Store("postgresql://...")``, webapp/storage/sql.py) the same statements run through psycopg 3:
reads on the loop (psycopg yields to the other greenlets while it waits for the server), and the same two steps
for an append: committed on the loop with PostgreSQL's asynchronous commit (no wait for the server's disk; sent by
``Store.begin_append``, its answer read by ``Appending.finish``, the caller drawing the update meanwhile), made
durable by a flush of the server's WAL on the writer thread (``PgFlush``), which the sender's "ok" waits for.
Every other write runs on the writer thread and is durable when its COMMIT returns (the server's own
``synchronous_commit``).
"""

from __future__ import annotations

import logging
import os
import sqlite3
import sys
from pathlib import Path

from . import sql

log = logging.getLogger(__name__)


class WriteFailed(Exception):
    """The log could not be written (disk full, file gone read-only...): nothing of the command was stored."""


#: seconds the loop may hold the GIL while the writer thread waits for it (``writer_pool``)
WRITER_SWITCH_INTERVAL = 0.0005
_writer = None  # gevent's pool of one native thread for the store's writes, once known to be gevent's; False: not


def writer_pool():
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
    pool = writer_pool()
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
        pool = writer_pool()
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

