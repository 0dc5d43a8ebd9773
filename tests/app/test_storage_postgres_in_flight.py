"""A PostgreSQL append sent without waiting for its answer (#38, webapp/storage/sql.py ``batch(later=True)``,
``settle``): ``begin_append`` sends the transaction, ``finish`` reads the server's answer; any other use of the
store's connection meanwhile (a read, another game's append, a write) reads that answer first, so the connection
never has two statements out and each Appending still learns how its own write ended. A real PostgreSQL (the
``pg_url`` fixture); each test twice: sent by the caller's thread, and by a ``Sender``'s, as under tacmap serve."""

from __future__ import annotations

import time

import psycopg
import pytest

from webapp.game.core.model import Event
from webapp.storage.sql import Sender
from webapp.storage.store import Conflict, GameRecord, Store, WriteFailed


@pytest.fixture(params=["sent by the loop", "sent by a thread"])
def store(pg_url, request):
    s = Store(pg_url)
    if request.param == "sent by a thread":  # as under tacmap serve (``sql.Sender``)
        s._db.sender = Sender()
    for game in ("aaaa0001", "bbbb0002"):
        s.create_game(GameRecord(game, game, "plain_grid", "k" + game, "s" + game, "J" + game, time.time()), [])
    yield s
    s.close()


def note(n) -> list[Event]:
    return [Event("note", {"n": n})]


def test_a_read_while_an_answer_is_out_reads_it_first_and_sees_the_append(store):
    writing = store.begin_append("aaaa0001", 0, note(1))
    assert store._db.in_flight is not None and not writing.committed
    assert [e.data["n"] for e in store.events("aaaa0001")] == [1]  # the read settled the answer, then read
    assert store._db.in_flight is None
    assert writing.finish() == 1 and writing.committed
    writing.durable()


def test_another_games_append_while_an_answer_is_out(store, pg_url):
    first = store.begin_append("aaaa0001", 0, note("a1"))
    second = store.begin_append("bbbb0002", 0, note("b1"))  # reads the first's answer, then sends its own
    third = store.begin_append("aaaa0001", 1, note("a2"))
    assert third.finish() == 2 and second.finish() == 1 and first.finish() == 1  # any order
    for w in (first, second, third):
        w.durable()
    with psycopg.connect(pg_url) as other:
        rows = other.execute("SELECT game_id, seq FROM events ORDER BY game_id, seq").fetchall()
    assert rows == [("aaaa0001", 1), ("aaaa0001", 2), ("bbbb0002", 1)]


def test_a_conflict_read_by_another_use_is_kept_for_its_append_and_the_connection_goes_on(store, pg_url):
    with psycopg.connect(pg_url, autocommit=True) as other:  # another process took seq 1
        other.execute("INSERT INTO events (game_id, seq, type, data, created_at) VALUES ('aaaa0001', 1, 'note', "
                      "'{\"n\": \"other\"}', 0)")
    writing = store.begin_append("aaaa0001", 0, note("mine"))
    assert store.last_seq("bbbb0002") == 0  # this read found the unique violation first: rolled back, then read
    assert not store._db.in_transaction
    with pytest.raises(Conflict):
        writing.finish()
    assert writing.failed and not writing.committed
    with pytest.raises(Conflict):  # said again to whoever asks
        writing.finish()
    writing.durable()  # nothing to wait for
    assert [e.data["n"] for e in store.events("aaaa0001")] == ["other"]
    again = store.begin_append("aaaa0001", 1, note("mine"))
    assert again.finish() == 2
    again.durable()
    assert [e.data["n"] for e in store.events("aaaa0001")] == ["other", "mine"]


def test_a_write_while_an_answer_is_out_and_its_own_conflict_in_the_answer(store):
    """A write of another kind (a new game: ``_transaction`` with the server's answer awaited) reads the answer out
    first; an append refused in its answer leaves the next append on that connection working."""
    writing = store.begin_append("aaaa0001", 0, note(1))
    store.create_game(GameRecord("cccc0003", "c", "plain_grid", "kc", "sc", "JC", time.time()), [])
    assert writing.finish() == 1
    late = store.begin_append("aaaa0001", 0, note("late"))  # seq 1 is taken by this very store
    with pytest.raises(Conflict):
        late.finish()
    assert store.append("aaaa0001", 1, note(2)) == 2
    assert [e.data["n"] for e in store.events("aaaa0001")] == [1, 2]
    assert store.game("cccc0003") is not None


def test_an_answer_lost_with_the_connection_is_a_write_failure(store):
    writing = store.begin_append("aaaa0001", 0, note(1))
    if store._db.sender is not None:
        store._db.sender.sent()  # (its send is over: libpq's connection is not closed under it)
    store._db.connection.close()  # (as a dropped connection: the answer can no longer be read)
    with pytest.raises(WriteFailed):
        writing.finish()
    assert store.last_seq("bbbb0002") == 0  # the next use connects again


def test_nothing_is_flushed_for_an_append_before_its_answer_said_committed(store, monkeypatch):
    from webapp.storage.durable import PgFlush

    calls = []
    monkeypatch.setattr(PgFlush, "__call__", lambda self, *a: calls.append(a))
    writing = store.begin_append("aaaa0001", 0, note(1))
    assert store._pg_flush._given == 0  # numbered only once its answer is read (after the COMMIT returned)
    writing.sync()  # reads the answer first
    writing.durable()
    assert store._pg_flush._given == 1 and [c[:2] for c in calls] == [("aaaa0001", 1)]
