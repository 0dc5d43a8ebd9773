"""The store's write beside other work (``Store.begin_append``, webapp/storage/store.py), as `tacmap serve` runs
it: in a process patched by gevent, the write and its fsync run on the writer thread while the loop goes on;
until ``finish`` nobody else uses the store, and a statement its holder makes meanwhile waits for the write.

Run in a subprocess (gevent's patch is for the whole process; the app tests run unpatched)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

SCRIPT = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
from webapp.patching import patch
patch()
import gevent
from webapp.game.model import Event
from webapp.storage import store as store_module
from webapp.storage.store import GameRecord, Store

store = Store(sys.argv[2] + "/t.sqlite3")
store.create_game(GameRecord("0000abcd", "g", "dnd5e", "k", "s", "JOIN01", 0.0), [])
real = Store._append
marks = []

def slow_append(self, game_id, last_seq, events, *applied):
    time.sleep(0.3)  # on the writer thread: a slow disk
    real(self, game_id, last_seq, events, *applied)
    marks.append(("written", time.monotonic()))

Store._append = slow_append
other = []
t0 = time.monotonic()
writing = store.begin_append("0000abcd", 0, [Event("note", {"n": 1})])
began = time.monotonic() - t0
# another greenlet reading meanwhile waits for the write to finish
reader = gevent.spawn(lambda: other.append((store.last_seq("0000abcd"), time.monotonic())))
gevent.sleep(0.05)
loop_ran = time.monotonic()  # the loop went on (this greenlet slept and woke) while the write ran
own = store.last_seq("0000abcd")  # the holder's own read waits for the write, and sees it
own_at = time.monotonic()
seq = writing.finish()
reader.join(5)
print(json.dumps({"began": began, "loop_ran": loop_ran - t0, "own": own, "own_at": own_at - t0,
                  "written": marks[0][1] - t0, "seq": seq, "other": other[0][0], "other_at": other[0][1] - t0,
                  "switch": sys.getswitchinterval()}))
"""


def test_a_write_runs_beside_the_loop_and_the_store_waits_for_it(tmp_path):
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(REPO), str(tmp_path)], capture_output=True, text=True,
                         timeout=60, cwd=REPO)
    assert out.returncode == 0, out.stderr
    f = json.loads(out.stdout.strip().splitlines()[-1])
    assert f["began"] < 0.2  # begin_append did not wait for the 0.3 s write
    assert f["loop_ran"] < f["written"]  # other greenlets ran while it was being written
    assert f["own"] == 1 and f["own_at"] >= f["written"]  # the holder's read waited for it and saw it
    assert f["other"] == 1 and f["other_at"] >= f["written"]  # so did another greenlet's
    assert f["seq"] == 1
    assert f["switch"] <= 0.0005  # the writer thread need not wait 5 ms for the GIL
