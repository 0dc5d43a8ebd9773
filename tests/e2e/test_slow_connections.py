"""Issue #25, finding 9: 1,100 slow connections under the usual limit of 1,024 open files do not take the
table down, and none is held for ever (a real `tacmap serve` process; no browser).

Each connection sends one byte of a request and then nothing more (slowloris). The server keeps them in its
waiting room without a thread, keeps the number open under its file limit, answers a page meanwhile, and
closes each once its request head is overdue (webapp/live/server/serving.py)."""

from __future__ import annotations

import socket
import time
import urllib.request

import pytest

from conftest import LiveServer

pytestmark = pytest.mark.waits  # serial (conftest.SERIAL), mostly waiting on deadlines: beside the other serial ones

LIMIT_FILES = "import resource; resource.setrlimit(resource.RLIMIT_NOFILE, (1024, 1024))"


@pytest.fixture
def limited(tmp_path):
    server = LiveServer(tmp_path / "data", prelude=LIMIT_FILES).start()
    yield server
    server.kill()


def test_eleven_hundred_slow_connections_leave_the_table_answering_and_are_closed_in_time(limited):
    from webapp.live.server.serving import HEAD_TIMEOUT

    slow = []
    try:
        for _ in range(1100):
            s = socket.create_connection(("127.0.0.1", limited.port), timeout=5)
            s.sendall(b"G")  # "GET ..." one byte at a time, and then no more
            slow.append(s)
        time.sleep(1.0)
        t0 = time.monotonic()
        with urllib.request.urlopen(limited.url + "/help/", timeout=10) as r:
            assert r.status == 200
        assert time.monotonic() - t0 < 3.0
        status, body = limited.api("POST", "/api/games", {"name": "Still here"})  # it can open its files
        assert status == 201, body
        # none is held for ever: each is closed once its head is overdue (or at once, past the cap)
        deadline = time.monotonic() + HEAD_TIMEOUT + 10
        open_ones = list(slow)
        while open_ones and time.monotonic() < deadline:
            still = []
            for s in open_ones:
                s.settimeout(0.0)
                try:
                    if s.recv(1024) == b"":
                        continue  # closed by the server
                except BlockingIOError:
                    still.append(s)
                    continue
                except OSError:
                    continue  # reset by the server
            open_ones = still
            time.sleep(0.5)
        assert not open_ones, f"{len(open_ones)} slow connections still open"
        assert limited.proc.poll() is None  # and the server runs on
    finally:
        for s in slow:
            s.close()
