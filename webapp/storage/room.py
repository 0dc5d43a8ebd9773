"""The organiser's room (room mode, #38; its pages: webapp/web/room/room.py, docs/ROOM.md) in the store: the room's row
(the organiser password's hash, the one-time setup links' digests, when it closed), its tables (``room_tables``:
the game a table plays now, its printed join code, its GM PIN) and each table's past slots (``room_slots``: the
games put aside by a reset, kept as they were).

Portable SQL only (``?`` placeholders, ON CONFLICT upserts, no SQLite functions): the same statements run on
PostgreSQL. Every write is one transaction, durable when it returns.
"""

from __future__ import annotations

import time

from .connection import Conflict, Connection

#: the room's tables (``Store`` makes them at start, with the other parts' tables: store.SCHEMA)
ROOM_SCHEMA = """
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
"""

#: the columns each of the room's tables must have (a database made by something else is refused at start)
ROOM_COLUMNS = {
    "room": {"id", "password", "setup_token", "closed_at", "created_at"},
    "room_tables": {"id", "name", "gm_name", "template", "current_game", "join_code", "pin", "created_at"},
    "room_slots": {"table_id", "slot", "game", "archived_at"},
}


class Room(Connection):
    """The organiser's room: its row, its tables, their past slots (a part of ``Store``)."""

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

