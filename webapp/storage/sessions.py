"""The browsers' sessions in the store: where their table is and its schema. What a session holds, and its reads
and writes, are the web side's (webapp/web/sessions.py).

In a data folder the table is a SQLite file of its own beside the log (``sessions.sqlite3``: every browser's
keys, the owner's only); with ``--database postgresql://...`` a table of that database, shared by every machine.
"""

from __future__ import annotations

from pathlib import Path

from . import private, sql

#: the sessions' file in a data folder
SESSIONS_FILE = "sessions.sqlite3"

#: the browsers' sessions (webapp/web/sessions.py): a file of their own beside the SQLite log, a table of the
#: PostgreSQL database
SESSIONS_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    data TEXT NOT NULL,
    expires REAL NOT NULL
);
"""


def open_sessions_file(folder: Path) -> "sql.SqliteDatabase":
    """A data folder's sessions file (made the owner's only, its table made if missing); the caller closes it."""
    path = Path(folder) / SESSIONS_FILE
    private.sqlite_file(path)
    db = sql.connect_sqlite(path)
    db.create(SESSIONS_SCHEMA)
    return db
