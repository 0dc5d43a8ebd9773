"""A store that keeps losing write races to another process goes on working (#38): on PostgreSQL a write is one
pipeline, and one that fails (the other process took the seq) skipped the statements psycopg was preparing in it;
psycopg went on using them ("prepared statement _pg3_N does not exist") until the rollback made it forget them.
Two stores on one log, as two processes are, on each backend (the ``backend`` fixture, tests/conftest.py)."""

from __future__ import annotations

import time

import pytest

from webapp.game.core.model import Event
from webapp.storage.store import Applied, Conflict, GameRecord, Store


def test_a_store_that_loses_many_races_still_writes_and_reads(backend, tmp_path):
    where = backend or tmp_path / "data" / "tacmap.sqlite3"
    a, b = Store(where), Store(where)
    try:
        a.create_game(GameRecord("abcd1234", "Race", "plain_grid", "gm", "screen", "JOIN01", time.time()),
                      [Event("game_created", {"name": "Race", "system": "plain_grid"})])
        seq = 1
        for i in range(30):  # past psycopg's prepare threshold (5 uses) several times over, losing each time
            seq = a.append("abcd1234", seq, [Event("note", {"by": "a", "i": i})], [Applied("gm", f"a{i}", seq + 1, {})])
            with pytest.raises(Conflict):
                b.append("abcd1234", seq - 1, [Event("note", {"by": "b", "i": i})], [Applied("gm", f"b{i}", seq, {})])
            assert b.last_seq("abcd1234") == seq and b.applied("abcd1234", "gm", f"a{i}") == (seq, {})
            seq = b.append("abcd1234", seq, [Event("note", {"by": "b", "i": i})], [Applied("gm", f"b{i}", seq + 1, {})])
        assert [e.data["by"] for e in a.events("abcd1234", after=1)] == ["a", "b"] * 30
        assert b.applied("abcd1234", "gm", "b0") == (3, {}) and a.last_seq("abcd1234") == seq == 61
    finally:
        a.close()
        b.close()
