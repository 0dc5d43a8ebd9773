"""The index behind the cleanup of old command ids (issue #38): ``commands (game_id, created_at)``.

``Store.append`` deletes a game's command ids older than an hour as it stores new ones; without the index that
scan reads every id the game ever stored. A data folder or database made before the index existed gets it when
it is next opened (the schema's ``CREATE INDEX IF NOT EXISTS``), with its data untouched: tested on a copy of the
old schema, on SQLite and on PostgreSQL (the ``backend`` fixture, tests/conftest.py).
"""

from __future__ import annotations

import time

from webapp.storage import sql
from webapp.storage.files import FILES_SCHEMA
from webapp.storage.games import COMMAND_IDS_KEPT_S
from webapp.storage.store import SCHEMA, Applied, Store
from webapp.game.core.model import Event

INDEX = "CREATE INDEX IF NOT EXISTS commands_by_age ON commands (game_id, created_at);"


def old_schema() -> str:
    """The schema as tacmap made it before the index (everything else the same)."""
    assert INDEX in SCHEMA
    return SCHEMA.replace(INDEX, "")


def fill_old(db) -> None:
    """An old database with a game, its log and a command id stored long ago, written the way tacmap did."""
    db.execute("INSERT INTO games VALUES (?, ?, ?, ?, ?, ?, ?)",
               ("abcd1234", "Cellar", "plain_grid", "gm-key", "screen-key", "JOIN01", time.time()))
    db.execute("INSERT INTO events VALUES (?, ?, ?, ?, ?)",
               ("abcd1234", 1, "game_created", '{"name": "Cellar", "system": "plain_grid"}', time.time()))
    db.execute("INSERT INTO commands VALUES (?, ?, ?, ?, ?, ?)",
               ("abcd1234", "gm", "old-1", 1, "{}", time.time() - 2 * COMMAND_IDS_KEPT_S))
    db.execute("INSERT INTO commands VALUES (?, ?, ?, ?, ?, ?)",
               ("abcd1234", "gm", "new-1", 1, '{"n": 1}', time.time()))


def indexes(store: Store) -> dict[str, str]:
    """The commands table's indexes by name, with their definitions."""
    if store._db.kind == "postgresql":
        rows = store._db.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'commands'").fetchall()
    else:
        rows = store._db.execute("SELECT name, COALESCE(sql, '') FROM sqlite_master WHERE type = 'index' "
                                 "AND tbl_name = 'commands'").fetchall()
    return dict(rows)


def test_an_old_database_gets_the_command_index_when_opened_and_keeps_its_data(backend, tmp_path):
    if backend:
        db = sql.PostgresDatabase(backend)
        db.create(old_schema() + FILES_SCHEMA)
    else:
        (tmp_path / "data").mkdir()
        db = sql.connect_sqlite(tmp_path / "data" / "tacmap.sqlite3")
        db.create(old_schema())
    fill_old(db)
    db.close()

    store = Store(backend or tmp_path / "data" / "tacmap.sqlite3")
    try:
        made = indexes(store)
        assert "commands_by_age" in made, made
        assert "(game_id, created_at)" in made["commands_by_age"].replace('"', ""), made["commands_by_age"]
        # the old data is all there, and tacmap goes on with it: the recent id answers, the old one is forgotten
        assert store.last_seq("abcd1234") == 1 and store.applied("abcd1234", "gm", "new-1") == (1, {"n": 1})
        assert store.applied("abcd1234", "gm", "old-1") is None
        assert store.append("abcd1234", 1, [Event("note", {"n": 2})], [Applied("gm", "c-2", 2, {})]) == 2
        left = {r[0] for r in store._db.execute("SELECT cid FROM commands WHERE game_id = ?", ("abcd1234",))}
        assert left == {"new-1", "c-2"}, left  # the cleanup ran on the migrated table
    finally:
        store.close()

    again = Store(backend or tmp_path / "data" / "tacmap.sqlite3")  # opening it again changes nothing
    try:
        assert indexes(again) == made
    finally:
        again.close()


def test_the_cleanup_of_old_command_ids_reads_the_index(backend, tmp_path):
    store = Store(backend or tmp_path / "data" / "tacmap.sqlite3")
    try:
        cleanup = "DELETE FROM commands WHERE game_id = ? AND created_at < ?"
        if store._db.kind == "postgresql":  # a tiny table is scanned anyway: ask whether the index can serve it
            store._db.execute("SET enable_seqscan = off")
            plan = " ".join(r[0] for r in store._db.execute("EXPLAIN " + cleanup, ("abcd1234", 0.0)).fetchall())
            store._db.execute("RESET enable_seqscan")
        else:
            plan = " ".join(str(r[-1]) for r in store._db.execute("EXPLAIN QUERY PLAN " + cleanup,
                                                                  ("abcd1234", 0.0)).fetchall())
        assert "commands_by_age" in plan, plan
    finally:
        store.close()
