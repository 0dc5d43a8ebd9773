"""The games in the store: each game's row (its name, system and keys), its log, the command ids stored with the
log, and its snapshots; and a game rebuilt from them (``load_game``).

The log is the truth. ``(game_id, seq)`` is the primary key: two writers can never both append the same step (a
second process gets :class:`Conflict` and reloads). An append is committed where the command is decided and made
durable after (``begin_append``, ``Appending``: durable.py); a snapshot is only a shortcut for loading.
"""

from __future__ import annotations

import gc
import json
import re
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import orjson

from .. import launch
from ..game.core.model import Event, Game
from ..game.table import evolve, replay
from ..game.core.text import N_
from .connection import Connection
from .durable import Appending

if TYPE_CHECKING:
    from . import sql

#: a game's id as tacmap makes them (``secrets.token_hex(4)``); it names the game's folders in the data folder
GAME_ID = re.compile(r"[0-9a-f]{8}")


def is_game_id(value) -> bool:
    return isinstance(value, str) and GAME_ID.fullmatch(value) is not None


#: the tables of the games (``Store`` makes them at start, with the other parts' tables: store.SCHEMA)
GAMES_SCHEMA = """
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
"""

#: the columns each table of the games must have (a database made by something else is refused at start)
GAMES_COLUMNS = {
    "games": {"id", "name", "system", "gm_key", "screen_key", "join_code", "created_at"},
    "events": {"game_id", "seq", "type", "data", "created_at"},
    "snapshots": {"game_id", "seq", "state"},
    "commands": {"game_id", "seat", "cid", "seq", "answer", "created_at"},
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


class DamagedLog(Exception):
    """One game's log cannot be read back at ``seq``: that game is out of service, the others are not."""

    #: the commands it names are the ones this server was started by (webapp/launch.py: python3
    #: scripts/tacmap-start export ..., tacmap export ...), parameters of the message, never translated
    MESSAGE = N_("The log of game %(id)s is damaged at seq %(seq)s (%(reason)s). Nothing more can be done in it "
                 "until it is repaired: on the server, `%(export)s` keeps a copy of all of it, then, with the server "
                 "stopped, `%(repair)s` cuts the log back to seq %(last)s (what follows is kept in a file).")

    def __init__(self, game_id: str, seq: int, reason: str, **detail) -> None:
        """``reason``: an N_-marked message; ``detail``: its parameters, the technical words (an exception's
        text) kept as they are: ``DamagedLog(gid, 5, N_("not readable JSON: %(error)s"), error=str(exc))``."""
        english = reason % detail if detail else reason
        self.game_id, self.seq, self.reason = game_id, seq, english
        params = {"id": game_id, "seq": seq, "reason": english, "last": seq - 1,
                  "export": launch.command("export", game_id, f"{game_id}.tacmap"),
                  "repair": launch.command("repair", game_id)}
        super().__init__(self.MESSAGE % params)
        # said in the reader's language by webapp/live/screens/language.py's refusal_text (the 503 page, a socket's answer): the
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


class Games(Connection):
    """The store's games: their rows, logs, command ids and snapshots (a part of ``Store``)."""

    def __init__(self) -> None:
        #: game id -> when an append last deleted its old command ids (``_append``): forgotten when that append
        #: failed, so the next one deletes them (a command id an hour old sent again: its repeat is a new command)
        self._swept: dict[str, float] = {}
        super().__init__()

    # --- games ------------------------------------------------------------

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

    def log_size(self, game_id: str) -> int:
        """The bytes of a game's log as ``allowance.size_of`` counts them (its events' type and data, and the row
        around each): read once per process when a game is first charged (webapp/live/allowance.py)."""
        with self._lock:
            row = self._db.execute("SELECT COUNT(*), SUM(LENGTH(type) + LENGTH(data)) FROM events WHERE game_id = ?",
                                   (game_id,)).fetchone()
        return int(row[0] or 0) * 32 + int(row[1] or 0)

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


def load_game(store: Games, game_id: str) -> Game:
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
