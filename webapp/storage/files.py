"""The games' files (map pictures, hand-outs: ``<kind>/<name>``, e.g. ``pictures/<sha>.png``) kept in the database,
on PostgreSQL only: there every machine has a data folder of its own, which keeps a copy of the files it served
(docs/STORAGE.md). Not a table of SQLite's, where the data folder is the one place (and an export stays readable
by older tacmaps). What is written where, and the checks of a picture: pictures.py.
"""

from __future__ import annotations

import time

from .connection import Connection

#: the files table (an export takes the game's files from it as files, not as rows: archive.py)
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


class Files(Connection):
    """The games' files in the database (a part of ``Store``; PostgreSQL only: ``keeps_files``)."""

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

