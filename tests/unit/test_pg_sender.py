"""The thread that sends a PostgreSQL append's text for the loop (webapp/storage/sql.py ``Sender``): the caller goes
on once the thread has the text, ``sent`` waits for the send and raises what it raised, and a thread that does not
take a text in time leaves the caller to send it (then and from then on). Driven with a stand-in for libpq's
connection (only its ``send_query`` is used); the real one is in tests/app/test_storage_postgres_in_flight.py."""

from __future__ import annotations

import threading
import time

import pytest

from webapp.storage import sql


class Conn:
    """``send_query`` as libpq's: records the text and the thread that sent it; may be held, or fail."""

    def __init__(self, hold: threading.Event | None = None, fail: Exception | None = None) -> None:
        self.sent: list[tuple[bytes, int]] = []
        self.hold, self.fail = hold, fail

    def send_query(self, text: bytes) -> None:
        if self.hold is not None:
            assert self.hold.wait(5)
        if self.fail is not None:
            raise self.fail
        self.sent.append((text, threading.get_ident()))


def test_the_text_is_sent_by_the_senders_thread_and_sent_waits_for_it():
    sender, conn = sql.Sender(), Conn()
    try:
        for n in range(3):
            sender.send(conn, b"SELECT %d" % n)
            sender.sent()
        assert [t for t, _ in conn.sent] == [b"SELECT 0", b"SELECT 1", b"SELECT 2"]
        assert {who for _, who in conn.sent} != {threading.get_ident()}
        assert len({who for _, who in conn.sent}) == 1  # one thread, every time
    finally:
        sender.close()


def test_the_caller_goes_on_while_the_send_is_under_way():
    hold = threading.Event()
    sender, conn = sql.Sender(), Conn(hold)
    try:
        sender.send(conn, b"SELECT 1")  # returns although the send is held
        assert conn.sent == []
        threading.Timer(0.2, hold.set).start()
        started = time.monotonic()
        sender.sent()
        assert time.monotonic() - started >= 0.15 and [t for t, _ in conn.sent] == [b"SELECT 1"]
    finally:
        hold.set()
        sender.close()


def test_a_failed_send_is_raised_by_sent_once():
    sender = sql.Sender()
    try:
        sender.send(Conn(fail=OSError("gone")), b"SELECT 1")
        with pytest.raises(OSError, match="gone"):
            sender.sent()
        sender.sent()  # said once; nothing is out now
        conn = Conn()
        sender.send(conn, b"SELECT 2")
        sender.sent()
        assert [t for t, _ in conn.sent] == [b"SELECT 2"]
    finally:
        sender.close()


def test_a_thread_that_never_takes_the_text_leaves_the_caller_to_send_it(monkeypatch):
    allocate_lock, _start = sql.native_thread_parts()
    monkeypatch.setattr(sql, "native_thread_parts", lambda: (allocate_lock, lambda run, args: None))  # no thread
    monkeypatch.setattr(sql.Sender, "START_S", 0.2)
    sender, conn = sql.Sender(), Conn()
    started = time.monotonic()
    sender.send(conn, b"SELECT 1")
    assert 0.15 <= time.monotonic() - started < 2
    assert sender.broken and conn.sent == [(b"SELECT 1", threading.get_ident())]
    started = time.monotonic()
    sender.send(conn, b"SELECT 2")  # at once now
    sender.sent()
    assert time.monotonic() - started < 0.1 and [t for t, _ in conn.sent] == [b"SELECT 1", b"SELECT 2"]
    sender.close()  # (no thread waits for it: nothing to wake)
