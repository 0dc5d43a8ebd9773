"""``tacmap migrate-data``: every game, log, command id, snapshot, setting and session of one store copied into
another: a data folder's SQLite files into PostgreSQL, or back.

The destination must hold no game yet (a merge of two sets of games is ``tacmap export`` / ``import``, one game
at a time). The copy is one transaction on the destination: it is all there or not at all. The source is read in
one read transaction (a consistent moment of it) and left as it was; stop the servers on it first all the same,
or what they write after that moment stays behind. The games' files (map pictures, hand-outs) go along: from the
data folder's ``pictures/<game id>/`` folders into PostgreSQL's ``files`` table, or out of it into the new data
folder's (docs/STORAGE.md).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from .. import launch
from . import private, sql
from .files import FILES_TABLE
from .games import is_game_id
from .sessions import SESSIONS_FILE, SESSIONS_SCHEMA, open_sessions_file
from .store import DB_NAME, DataError, Store

BATCH = 1000


class MigrateError(Exception):
    """The copy cannot be made as asked: the message says why; nothing was written."""


def _where(target: str) -> str:
    return sql.shown(target) if sql.is_url(target) else str(target)


def _open(target: str, make: bool) -> Store:
    if sql.is_url(target):
        return Store(target)
    folder = Path(target)
    if not make and not (folder / DB_NAME).is_file():
        raise MigrateError(f"there is no tacmap data in {folder} (no {DB_NAME})")
    private.make_dir(folder)
    return Store(folder / DB_NAME)


def _sessions_file(target: str, store: Store):
    """The data folder's sessions file, opened (the caller closes it); None on PostgreSQL, where the sessions table
    is the store's own (made here when missing)."""
    if sql.is_url(target):
        store.create_tables(SESSIONS_SCHEMA)
        return None
    return open_sessions_file(Path(target))


def _order(tables: dict[str, list[str]]) -> list[str]:
    """``games`` first (the others refer to it), then the rest by name."""
    return sorted(tables, key=lambda t: (t != "games", t))


def _copy_table(src, dst, table: str, columns: list[str]) -> int:
    names = ", ".join(f'"{c}"' for c in columns)
    rows = src.execute(f'SELECT {names} FROM "{table}"').fetchall()
    statement = f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in columns)})'
    for start in range(0, len(rows), BATCH):
        dst.executemany(statement, [tuple(r) for r in rows[start:start + BATCH]])
    return len(rows)


def _files_into(db, data_dir: Path, game_ids: list[str]) -> int:
    """The games' files of a data folder (``<kind>/<game id>/...``) into PostgreSQL's files table."""
    from .archive import _game_folders

    count = 0
    for game_id in game_ids:
        for folder in _game_folders(data_dir, game_id):
            for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
                rel = "/".join((folder.parent.name, *path.relative_to(folder).parts))
                db.execute("INSERT INTO files (game_id, path, data, created_at) VALUES (?, ?, ?, ?)",
                           (game_id, rel, path.read_bytes(), path.stat().st_mtime))
                count += 1
    return count


def _files_out_of(db, data_dir: Path) -> int:
    """PostgreSQL's files into the new data folder's ``<kind>/<game id>/...`` folders."""
    from .archive import KIND, PART
    from .pictures import _write

    count = 0
    for game_id, rel, data in db.execute("SELECT game_id, path, data FROM files ORDER BY game_id, path").fetchall():
        kind, *rest = rel.split("/")
        if not is_game_id(game_id) or not KIND.fullmatch(kind) or not rest or not all(PART.fullmatch(p) for p in rest):
            raise MigrateError(f"the database holds a file of game {game_id} named {rel[:80]!r}, not a path of a "
                               "data folder: nothing was written")
        target = data_dir / kind / game_id / Path(*rest)
        _write(target.parent, target.name, bytes(data))
        count += 1
    return count


def migrate(source: str, dest: str) -> dict:
    """Copy the store at ``source`` into the empty one at ``dest`` (each a data folder or a postgresql:// URL);
    the number of rows copied per table."""
    source, dest = str(source), str(dest)
    if source == dest:
        raise MigrateError("the source and the destination are the same")
    if not sql.is_url(source) and not sql.is_url(dest):
        raise MigrateError("one side must be a PostgreSQL database (postgresql://...): to copy a data folder, "
                           f"use `{launch.command('backup')}`")
    try:
        src = _open(source, make=False)
    except DataError as exc:
        raise MigrateError(str(exc)) from None
    try:
        try:
            dst = _open(dest, make=True)
        except DataError as exc:
            raise MigrateError(str(exc)) from None
        try:
            return _migrate(source, dest, src, dst)
        finally:
            dst.close()
    finally:
        src.close()


def _migrate(source: str, dest: str, src: Store, dst: Store) -> dict:
    have = dst.games()
    if have:
        raise MigrateError(f"{_where(dest)} holds {len(have)} games already: migrate into an empty one (to add "
                           f"single games, use `{launch.command('export')}` and `{launch.command('import')}`)")
    src_tables, dst_tables = src.tables(), dst.tables()
    missing = sorted(set(src_tables) - set(dst_tables) - {"sessions", FILES_TABLE})
    if missing:
        raise MigrateError(f"{_where(source)} has tables {', '.join(missing)} that {_where(dest)} lacks (made by a "
                           "newer tacmap?): migrate with the same version on both sides")
    counts: dict[str, int] = {}
    # the sessions: a data folder's own file (opened here), or the store's table on PostgreSQL (None)
    sessions_src_file = None
    copy_sessions = sql.is_url(source) or (Path(source) / SESSIONS_FILE).is_file()
    if copy_sessions:
        sessions_src_file = _sessions_file(source, src)
    sessions_dst_file = _sessions_file(dest, dst)
    try:
        with src.reading() as read, dst.transaction() as db:  # all of it, or nothing
            try:
                for table in _order(src_tables):
                    if table in ("sessions", FILES_TABLE):
                        continue  # below, from wherever the source keeps them
                    if table == "settings" and not sql.is_url(dest):
                        continue  # a data folder's secret is its own file (secret_key)
                    columns = [c for c in src_tables[table] if c in dst_tables[table]]
                    if table == "settings":  # a secret made by a server started on the empty database
                        db.execute('DELETE FROM "settings"')
                    counts[table] = _copy_table(read, db, table, columns)
                if sql.is_url(dest):
                    counts["files"] = _files_into(db, Path(source), [g.id for g in src.games()])
                else:
                    counts["files"] = _files_out_of(read, Path(dest))
                if copy_sessions:
                    if sessions_dst_file is not None:
                        sessions_dst_file.begin()
                    counts["sessions"] = _copy_table(sessions_src_file or read, sessions_dst_file or db, "sessions",
                                                     ["id", "data", "expires"])
                    if sessions_dst_file is not None:
                        sessions_dst_file.commit()
            except BaseException:
                if sessions_dst_file is not None:
                    sessions_dst_file.rollback()
                raise
    except (sqlite3.Error, *dst.errors) as exc:
        raise MigrateError(f"the copy into {_where(dest)} failed ({str(exc).strip()}): nothing was written") from None
    finally:
        if sessions_src_file is not None:
            sessions_src_file.close()
        if sessions_dst_file is not None:
            sessions_dst_file.close()
    return counts
