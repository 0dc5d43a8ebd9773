"""Persistence: each game's event log and snapshots in one SQLite file.

The log is the truth. It is written with WAL and ``synchronous=FULL``, so an
event is on disk before the sender hears "ok" and survives a killed server.
``(game_id, seq)`` is the primary key: two writers can never both append the
same step (a second process would get :class:`Conflict` and reload).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .table import Event

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
CREATE TABLE IF NOT EXISTS snapshots (
    game_id TEXT PRIMARY KEY REFERENCES games(id),
    seq INTEGER NOT NULL,
    state TEXT NOT NULL
);
"""


class Conflict(Exception):
    """Someone else appended to this game's log first: reload and try again."""


@dataclass(frozen=True)
class GameRecord:
    id: str
    name: str
    system: str
    gm_key: str
    screen_key: str
    join_code: str
    created_at: float


class Store:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=FULL")
        self._db.execute("PRAGMA foreign_keys=ON")
        self._db.executescript(SCHEMA)

    def close(self) -> None:
        with self._lock:
            self._db.close()

    # --- games ------------------------------------------------------------

    def create_game(self, record: GameRecord, events: list[Event]) -> None:
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._db.execute(
                    "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (record.id, record.name, record.system, record.gm_key, record.screen_key,
                     record.join_code, record.created_at),
                )
                self._insert_events(record.id, 0, events)
                self._db.execute("COMMIT")
            except BaseException:
                self._db.execute("ROLLBACK")
                raise

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
            self._db.execute("UPDATE games SET name = ? WHERE id = ?", (name, game_id))

    def update_access(self, game_id: str, **keys: str) -> None:
        """A game's new ``gm_key``, ``screen_key`` or ``join_code`` (a rotation): the old one stops working now."""
        if not keys or not set(keys) <= {"gm_key", "screen_key", "join_code"}:
            raise ValueError(f"update_access takes gm_key, screen_key or join_code, not {sorted(keys)}")
        with self._lock:
            self._db.execute(f"UPDATE games SET {', '.join(f'{k} = ?' for k in keys)} WHERE id = ?",
                             (*keys.values(), game_id))

    # --- the log ----------------------------------------------------------

    def append(self, game_id: str, last_seq: int, events: list[Event]) -> int:
        """Append events after ``last_seq`` in one transaction; the new last seq."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                self._insert_events(game_id, last_seq, events)
                self._db.execute("COMMIT")
            except sqlite3.IntegrityError:
                self._db.execute("ROLLBACK")
                raise Conflict(f"game {game_id} moved past seq {last_seq}") from None
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
        return last_seq + len(events)

    def _insert_events(self, game_id: str, last_seq: int, events: list[Event]) -> None:
        now = time.time()
        self._db.executemany(
            "INSERT INTO events (game_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
            [(game_id, last_seq + i + 1, e.type, json.dumps(e.data), now) for i, e in enumerate(events)],
        )

    def events(self, game_id: str, after: int = 0) -> list[Event]:
        with self._lock:
            rows = self._db.execute(
                "SELECT type, data FROM events WHERE game_id = ? AND seq > ? ORDER BY seq", (game_id, after)
            ).fetchall()
        return [Event(t, json.loads(d)) for t, d in rows]

    def last_seq(self, game_id: str) -> int:
        with self._lock:
            row = self._db.execute("SELECT MAX(seq) FROM events WHERE game_id = ?", (game_id,)).fetchone()
        return row[0] or 0

    # --- snapshots --------------------------------------------------------

    def save_snapshot(self, game_id: str, seq: int, state: dict) -> None:
        with self._lock:
            self._db.execute(
                "INSERT INTO snapshots VALUES (?, ?, ?) ON CONFLICT(game_id) DO UPDATE SET seq = excluded.seq, state = excluded.state",
                (game_id, seq, json.dumps(state)),
            )

    def snapshot(self, game_id: str) -> tuple[int, dict] | None:
        with self._lock:
            row = self._db.execute("SELECT seq, state FROM snapshots WHERE game_id = ?", (game_id,)).fetchone()
        return (row[0], json.loads(row[1])) if row else None
