"""The database's machine out of reach (#38: PostgreSQL on another machine of a convention room, the network
between them down): the store's connection, through a TCP relay this test cuts, is lost, and a new one cannot be
had (the relay takes connections and never answers, as a host behind a dead link does). One use a second waits
for a connection (up to ``sql.CONNECT_AGAIN_S``); every other use meanwhile is told at once that the database does
not answer, rather than each waiting in turn behind the store's lock (every table of the process would stall).
Once the link is back the same store goes on. A real PostgreSQL (the ``pg_url`` fixture)."""

from __future__ import annotations

import socket
import threading
import time
from urllib.parse import urlsplit, urlunsplit

import pytest

from webapp.game.core.model import Event
from webapp.storage import sql
from webapp.storage.store import GameRecord, Store


class Relay:
    """127.0.0.1:<port> relayed to the database's port; ``cut()`` drops every relayed connection and leaves new
    ones hanging (accepted, never relayed); ``mend()`` relays again."""

    def __init__(self, target: tuple[str, int]) -> None:
        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open: list[socket.socket] = []
        self.cut_off = False
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            with self.lock:
                self.open.append(client)
                if self.cut_off:
                    continue  # held open, never answered
            server = socket.create_connection(self.target)
            with self.lock:
                self.open.append(server)
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        for s in (a, b):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def cut(self) -> None:
        with self.lock:
            self.cut_off = True
            for s in self.open:
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                s.close()
            self.open = []

    def mend(self) -> None:
        with self.lock:
            self.cut_off = False
            for s in self.open:  # the hanging ones go: their connects fail, the next ones are relayed
                s.close()
            self.open = []

    def close(self) -> None:
        self.listener.close()
        self.cut()


@pytest.fixture
def relayed(pg_url):
    """A store whose connection to the database goes through a relay the test can cut, and the relay."""
    parts = urlsplit(pg_url)
    relay = Relay((parts.hostname, parts.port))
    url = urlunsplit(parts._replace(netloc=f"{parts.username}@127.0.0.1:{relay.port}"))
    store = Store(url)
    try:
        yield store, relay
    finally:
        store.close()
        relay.close()


@pytest.mark.long
def test_while_the_database_is_out_of_reach_one_use_a_second_waits_and_the_others_are_told_at_once(relayed):
    store, relay = relayed
    store.create_game(GameRecord("abcd1234", "Cellar", "plain_grid", "k", "s", "JOIN01", time.time()), [])
    assert store.game("abcd1234").name == "Cellar"

    relay.cut()
    with pytest.raises(store.unavailable):  # the connection lost under way
        store.game("abcd1234")
    began = time.monotonic()
    with pytest.raises(sql.Unavailable, match="does not answer"):  # a new one tried: the host never answers
        store.game("abcd1234")
    waited = time.monotonic() - began
    assert sql.CONNECT_AGAIN_S - 0.5 <= waited < sql.CONNECT_AGAIN_S + 2, waited
    began = time.monotonic()
    for _ in range(20):  # the other tables' pages and moves meanwhile: told at once
        with pytest.raises(sql.Unavailable, match="does not answer"):
            store.game("abcd1234")
    assert time.monotonic() - began < 0.5

    relay.mend()
    time.sleep(sql.RETRY_AFTER_S)
    assert store.game("abcd1234").name == "Cellar"  # the same store goes on
    assert store.append("abcd1234", 0, [Event("note", {"n": 1})]) == 1  # and writes
