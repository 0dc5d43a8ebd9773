"""The store's write and its fsync beside other work (``Store.begin_append``, storage/games.py and durable.py), as
`tacmap serve` runs it in a process patched by gevent: the append is committed at once (SQLite's
``synchronous=NORMAL``: no wait for the disk; a fresh connection, as after a ``kill -9``, reads it), the
fsync of the WAL runs on the writer thread while the loop goes on, and ``durable()`` (what the hub waits for
before it says "ok"), ``append`` and every other write return only once that fsync is done.

Run in a subprocess (gevent's patch is for the whole process; the app tests run unpatched)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, os, sqlite3, sys, time
sys.path.insert(0, sys.argv[1])
from webapp.patching import patch
patch()
import gevent
from webapp.game.core.model import Event
from webapp.storage.durable import WalSync
from webapp.storage.store import GameRecord, Store

path = sys.argv[2] + "/t.sqlite3"
store = Store(path)
store.create_game(GameRecord("0000abcd", "g", "dnd5e", "k", "s", "JOIN01", 0.0), [])
real_sync, real_fsync = WalSync.__call__, os.fsync
synced, fsynced = [], []

def slow_sync(self):
    time.sleep(0.3)  # on the writer thread: a slow disk
    real_sync(self)
    synced.append(time.monotonic())

def fsync(fd):
    fsynced.append(os.fstat(fd).st_ino)
    return real_fsync(fd)

WalSync.__call__ = slow_sync
os.fsync = fsync

def on_file():  # what a killed server's data file holds: a fresh connection's read
    db = sqlite3.connect(path)
    try:
        return db.execute("SELECT COUNT(*) FROM events WHERE game_id = '0000abcd'").fetchone()[0]
    finally:
        db.close()

t0 = time.monotonic()
writing = store.begin_append("0000abcd", 0, [Event("note", {"n": 1})])
began = time.monotonic() - t0
committed = on_file()
seq = writing.finish()
ticks = []
ticker = gevent.spawn(lambda: [ticks.append(time.monotonic() - t0) or gevent.sleep(0.02) for _ in range(5)])
writing.durable()
durable_at = time.monotonic() - t0
ticker.join(5)
first_sync = synced[0] - t0

t1 = time.monotonic()
store.append("0000abcd", 1, [Event("note", {"n": 2})])
append_took = time.monotonic() - t1
t2 = time.monotonic()
store.rename_game("0000abcd", "h")
rename_took = time.monotonic() - t2
print(json.dumps({"began": began, "committed": committed, "seq": seq, "durable_at": durable_at,
                  "first_sync": first_sync, "ticks": ticks, "append_took": append_took, "rename_took": rename_took,
                  "wal_fsynced": os.stat(path + "-wal").st_ino in fsynced, "on_file": on_file()}))
"""


def test_an_append_is_committed_at_once_and_durable_once_its_wal_is_fsynced_beside_the_loop(tmp_path):
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(REPO), str(tmp_path)], capture_output=True, text=True,
                         timeout=60, cwd=REPO)
    assert out.returncode == 0, out.stderr
    f = json.loads(out.stdout.strip().splitlines()[-1])
    assert f["began"] < 0.2  # begin_append did not wait for the 0.3 s fsync
    assert f["committed"] == 1 and f["seq"] == 1  # committed: a fresh connection (a killed server's file) has it
    assert f["durable_at"] >= f["first_sync"] >= 0.3  # durable() waited for the fsync that followed the commit
    assert len([t for t in f["ticks"] if t < f["first_sync"]]) >= 3  # the loop went on while the disk worked
    assert f["append_took"] >= 0.3 and f["rename_took"] >= 0.3  # append and any other write: fsynced on return
    assert f["wal_fsynced"]  # the fsync was of the WAL file, where the commits are
    assert f["on_file"] == 2


def test_the_wal_is_copied_into_the_database_file_by_the_syncer_not_by_a_commit(tmp_path, monkeypatch):
    """The store's connection never checkpoints (its commits run on the loop: a checkpoint's fsyncs would hold
    every table); ``WalSync`` does, every ``CHECKPOINT_EVERY`` fsyncs, on a connection of its own."""
    from webapp.game.core.model import Event
    from webapp.storage import durable
    from webapp.storage.store import GameRecord, Store

    monkeypatch.setattr(durable, "CHECKPOINT_EVERY", 5)
    path = tmp_path / "t.sqlite3"
    store = Store(path)
    assert store._db.execute("PRAGMA wal_autocheckpoint").fetchone()[0] == 0
    store.create_game(GameRecord("0000abcd", "g", "dnd5e", "k", "s", "JOIN01", 0.0), [])
    store._wal.checkpoint()  # what opening the data folder wrote (the schema, the game), in the file already
    store._wal._calls = 0
    checkpoints = []
    real = durable.WalSync.checkpoint
    monkeypatch.setattr(durable.WalSync, "checkpoint", lambda self: checkpoints.append(1) or real(self))
    size = path.stat().st_size
    for i in range(4):
        store.append("0000abcd", i, [Event("note", {"text": "x" * 3000})])
    assert checkpoints == [] and path.stat().st_size == size  # four fsyncs: all in the WAL still
    for i in range(4, 12):
        store.append("0000abcd", i, [Event("note", {"text": "x" * 3000})])
    assert len(checkpoints) == 2 and path.stat().st_size > size + 20_000  # copied into the database file
    assert store.last_seq("0000abcd") == 12
    store.close()
