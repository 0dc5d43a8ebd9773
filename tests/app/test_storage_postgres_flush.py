"""A PostgreSQL append in two steps (#38, webapp/storage/durable.py ``PgFlush``): committed asynchronously by
``begin_append`` (sent there, its answer read by ``finish``; every other session sees it then: the screens may be shown it), on the server's disk once
``durable()`` returned (the server's WAL flushed past its commit), whatever becomes of the flush connection.
A real PostgreSQL (the ``pg_url`` fixture: a throwaway cluster, bench/pgcluster.py)."""

from __future__ import annotations

import time

import psycopg
import pytest

from webapp.game.core.model import Event
from webapp.storage.durable import PgFlush
from webapp.storage.store import Applied, Conflict, GameRecord, Store, WriteFailed


def lsn(text: str) -> int:
    high, low = text.split("/")
    return (int(high, 16) << 32) | int(low, 16)


@pytest.fixture
def store(pg_url):
    s = Store(pg_url)
    s.create_game(GameRecord("abcd1234", "Cellar", "plain_grid", "k", "s", "JOIN01", time.time()), [])
    yield s
    s.close()


@pytest.fixture
def other(pg_url):
    """Another session on the database (another process, or a server restarted after a kill -9 of tacmap)."""
    with psycopg.connect(pg_url, autocommit=True) as db:
        yield db


def test_an_append_is_seen_by_others_when_begun_and_flushed_to_the_wal_when_durable(store, other):
    for i in range(20):  # the WAL writer flushes asynchronous commits on its own only every 200 ms or so
        writing = store.begin_append("abcd1234", i, [Event("note", {"n": i})], [Applied("gm", f"c-{i}", i + 1, {})])
        assert not writing.committed  # sent, its answer still out (read by finish)
        assert writing.finish() == i + 1 and writing.committed
        assert other.execute("SELECT COUNT(*) FROM events WHERE game_id = 'abcd1234'").fetchone()[0] == i + 1
        committed = lsn(other.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0])
        writing.durable()
        flushed = lsn(other.execute("SELECT pg_current_wal_flush_lsn()::text").fetchone()[0])
        assert flushed >= committed, f"append {i}: durable() returned with the WAL flushed to {flushed}, not {committed}"
    assert store.applied("abcd1234", "gm", "c-19") == (20, {})


def test_a_conflict_is_raised_by_finish_and_nothing_is_flushed_for_it(store, pg_url, monkeypatch):
    second = Store(pg_url)
    try:
        store.append("abcd1234", 0, [Event("note", {"by": "first"})])
        flushes = []
        monkeypatch.setattr(PgFlush, "__call__", lambda self, *a: flushes.append(a))
        writing = second.begin_append("abcd1234", 0, [Event("note", {"by": "second"})])
        assert not writing.committed  # the server's answer is read by finish
        with pytest.raises(Conflict):
            writing.finish()
        assert writing.failed and not writing.committed
        writing.durable()
        assert flushes == []
        assert second.append("abcd1234", 1, [Event("note", {"by": "second"})]) == 2  # the connection goes on
        assert [call[:2] for call in flushes] == [("abcd1234", 2)]
        assert [e.data["by"] for e in second.events("abcd1234")] == ["first", "second"]
    finally:
        second.close()


def terminate_flusher(db) -> None:
    killed = db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
                        "'tacmap-flush' AND datname = current_database()").fetchall()
    assert killed == [(True,)], killed


def test_a_dropped_flush_connection_is_opened_again_and_the_append_confirmed(store, other):
    store.append("abcd1234", 0, [Event("note", {"n": 0})])  # the flush connection is open now
    terminate_flusher(other)
    writing = store.begin_append("abcd1234", 1, [Event("note", {"n": 1})])
    writing.finish()
    writing.durable()  # the flush failed once; tried again on a new connection, and the event found there
    assert other.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE application_name = 'tacmap-flush' "
                         "AND datname = current_database()").fetchone()[0] == 1
    assert store.last_seq("abcd1234") == 2


def test_an_append_the_server_lost_before_its_flush_is_never_confirmed(store, other):
    """What a crash of the database server between the asynchronous commit and its flush looks like from here:
    the flush connection is gone, and the append is not in the log the server has now. durable() raises: its
    sender hears an error, not "ok"."""
    store.append("abcd1234", 0, [Event("note", {"n": 0})])
    writing = store.begin_append("abcd1234", 1, [Event("note", {"n": 1})])
    writing.finish()
    other.execute("DELETE FROM events WHERE game_id = 'abcd1234' AND seq = 2")  # lost in the crash
    terminate_flusher(other)
    with pytest.raises(WriteFailed, match="lost"):
        writing.durable()
    with pytest.raises(WriteFailed):  # each command of its batch hears it
        writing.durable()


def test_an_append_sent_as_one_text_keeps_every_value_as_it_was(store, other):
    """The append's statements go to the server as one text with their values bound on this side
    (``PostgresDatabase.batch(blind=True)``): quotes, backslashes, placeholders and statement ends in a value are
    stored as they were, nothing else runs."""
    awkward = ["it's", "back\\slash \\' \\\\", "'); DROP TABLE events; --", "%s %% ? $1 :name", "é ☃ 𝄞",
               "line\nbreak\ttab", "E'\\x41'", "$$ dollar $$ $tag$"]
    events = [Event("note", {"text": text}) for text in awkward]
    seq = store.append("abcd1234", 0, events, [Applied("gm", "it's; --", len(awkward), {"said": awkward[2]})])
    assert seq == len(awkward)
    assert [e.data["text"] for e in store.events("abcd1234")] == awkward
    assert store.applied("abcd1234", "gm", "it's; --") == (len(awkward), {"said": awkward[2]})
    assert other.execute("SELECT COUNT(*) FROM events").fetchone()[0] == len(awkward)


def test_one_flush_covers_every_append_committed_before_it_began(store, other, monkeypatch):
    """A busy game's batches queue their flushes behind one another on the writer thread: an append committed
    before a flush began needs none of its own; one committed after it does."""
    flushes = []
    real = PgFlush._flush
    monkeypatch.setattr(PgFlush, "_flush", lambda self: flushes.append(1) or real(self))
    first = store.begin_append("abcd1234", 0, [Event("note", {"n": 1})])
    second = store.begin_append("abcd1234", 1, [Event("note", {"n": 2})])
    committed = lsn(other.execute("SELECT pg_current_wal_insert_lsn()::text").fetchone()[0])
    first.durable()
    second.durable()
    assert len(flushes) == 1  # the second was committed before the first's flush began
    assert lsn(other.execute("SELECT pg_current_wal_flush_lsn()::text").fetchone()[0]) >= committed
    third = store.begin_append("abcd1234", 2, [Event("note", {"n": 3})])
    third.durable()
    assert len(flushes) == 2  # committed after that flush: flushed again
    with pytest.raises(Conflict):  # a failed append takes no number and waits for no flush
        store.begin_append("abcd1234", 0, [Event("note", {"n": "late"})]).finish()
    assert len(flushes) == 2


def test_a_dropped_store_connection_refuses_that_append_and_the_next_one_connects_again(store, other):
    """The append runs on the store's own connection (the loop's): dropped (a restart of PostgreSQL), the append
    under way fails as "not stored", nothing of it is in the log, and the next one opens a new connection."""
    store.append("abcd1234", 0, [Event("note", {"n": 1})])
    killed = other.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = "
                           "'tacmap' AND datname = current_database()").fetchall()
    assert killed == [(True,)], killed
    writing = store.begin_append("abcd1234", 1, [Event("note", {"n": 2})])  # sent (or not): its answer is read
    with pytest.raises(WriteFailed):
        writing.finish()
    assert writing.failed and not writing.committed
    writing.durable()  # nothing to wait for: nothing was committed
    assert other.execute("SELECT MAX(seq) FROM events WHERE game_id = 'abcd1234'").fetchone()[0] == 1
    assert store.append("abcd1234", 1, [Event("note", {"n": 2})]) == 2
    assert [e.data["n"] for e in store.events("abcd1234")] == [1, 2]


def test_a_move_the_server_lost_before_its_flush_is_answered_in_words_and_forgotten(pg_url, tmp_path, monkeypatch):
    """The same crash seen from a phone: its move was committed, then lost before the flush. The phone hears why
    (not "ok", not "see its log"), and the server's state is the log's again (the move is not there)."""
    from webapp import create_app
    from webapp.game.core.model import GM
    from webapp.storage.store import Appending

    app = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                      "DATABASE": pg_url})
    hub = app.extensions["tacmap"]
    record = hub.create_game("lost", "plain_grid")
    with app.test_request_context():
        added = hub.execute(record.id, GM, {"type": "add_token", "name": "Ogre", "x": 1, "y": 1})
    ogre = added.events[0].data["token"]["id"]
    gm = app.extensions["tacmap_socketio"].test_client(app, auth={"game": record.id, "token": record.gm_key})
    real = Appending.sync

    def crash_before_the_flush(self):  # the database server crashes between the commit and its flush (started here)
        monkeypatch.setattr(Appending, "sync", real)
        self.finish()
        with psycopg.connect(pg_url, autocommit=True) as db:
            db.execute("DELETE FROM events WHERE game_id = %s AND seq = %s", (record.id, self.seq))
            terminate_flusher(db)
        real(self)

    monkeypatch.setattr(Appending, "sync", crash_before_the_flush)
    ack = gm.emit("command", {"type": "move_token", "token_id": ogre, "x": 2, "y": 1}, callback=True)
    assert ack["ok"] is False and ack["code"] == "not_stored" and "lost the command" in ack["error"], ack
    game = hub.game(record.id)
    assert (game.seq, game.tokens[ogre].x) == (added.seq, 1)  # as the log has it
    again = gm.emit("command", {"type": "move_token", "token_id": ogre, "x": 2, "y": 1}, callback=True)
    assert again == {"ok": True, "seq": added.seq + 1}, again
