"""On PostgreSQL a move is shown at once and acknowledged only once it is on the database server's disk (#38).

`tacmap serve --database` commits a move asynchronously (PostgreSQL's ``synchronous_commit = off`` for that
transaction), sends the other screens the update at once, and holds its sender's "ok" until a flush of the
server's WAL past that commit returned (webapp/storage/durable.py ``PgFlush``, on a connection of its own named
``tacmap-flush``). Here a real server on a real PostgreSQL: the database backend that serves the flush connection
is stopped (SIGSTOP), a move is sent, the table screen is shown it, and its sender hears nothing; once the
backend runs again the "ok" comes, and the server's WAL is flushed past the move's commit.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from bench.live import Server  # noqa: E402
from test_scale_out import Screen, close_all, game_with_an_ogre  # noqa: E402

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="stops a PostgreSQL backend with SIGSTOP")


def lsn(text: str) -> int:
    high, low = text.split("/")
    return (int(high, 16) << 32) | int(low, 16)


def flush_backend(url: str) -> int | None:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        row = db.execute("SELECT pid FROM pg_stat_activity WHERE application_name = 'tacmap-flush' "
                         "AND datname = current_database()").fetchone()
    return row[0] if row else None


def wal(url: str, which: str) -> int:
    import psycopg

    with psycopg.connect(url, autocommit=True) as db:
        return lsn(db.execute(f"SELECT pg_current_wal_{which}_lsn()::text").fetchone()[0])


def test_a_move_is_shown_at_once_and_acknowledged_only_after_the_wal_flush(pg_url):
    screens: list[Screen] = []
    with tempfile.TemporaryDirectory(prefix="tacmap-pgflush-") as folder, Server.tacmap(folder, pg_url) as server:
        try:
            g, ogre = game_with_an_ogre(server, server, "flush", (1, 1))
            gm = Screen("gm", g["id"], g["gm_token"]).connect(server)
            tv = Screen("screen", g["id"], g["screen_token"]).connect(server)
            screens += [gm, tv]
            ack = gm.call({"type": "move_token", "token_id": ogre, "x": 2, "y": 1})  # opens the flush connection
            assert ack.get("ok"), ack
            assert tv.wait_seq(ack["seq"]), f"the screen at {tv.seq}, the log at {ack['seq']}"
            pid = flush_backend(pg_url)
            assert pid is not None, "no tacmap-flush connection after an acknowledged move"

            answers: list[tuple[float, dict]] = []
            os.kill(pid, signal.SIGSTOP)
            try:
                def move() -> None:
                    answer = gm.call({"type": "move_token", "token_id": ogre, "x": 3, "y": 1})
                    answers.append((time.monotonic() - sent, answer))

                sent = time.monotonic()
                sender = threading.Thread(target=move)
                sender.start()
                assert tv.wait_seq(ack["seq"] + 1), "the table screen was not shown the committed move"
                shown = time.monotonic() - sent
                committed = wal(pg_url, "insert")  # past the move's commit record: it committed before it was shown
                time.sleep(1.0)
                assert answers == [], f"'ok' heard while the WAL flush was held: {answers}"
            finally:
                os.kill(pid, signal.SIGCONT)
            sender.join(15)
            assert answers, "no answer once the flush connection ran again"
            took, second = answers[0]
            assert second.get("ok") and second["seq"] == ack["seq"] + 1, second
            assert took >= shown + 1.0, (took, shown)  # heard after the flush was let go, not with the update
            assert wal(pg_url, "flush") >= committed  # the server's WAL is on its disk past the move's commit
            again = gm.call({"type": "move_token", "token_id": ogre, "x": 4, "y": 1})  # and it goes on
            assert again.get("ok") and again["seq"] == second["seq"] + 1, again
        finally:
            close_all(screens)
