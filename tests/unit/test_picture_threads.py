"""Picture work runs on native threads of its own when gevent serves (#57, webapp/storage/pictures.py): the loop
goes on meanwhile, what the work raises comes back to the request that asked for it as before, and the pool
has ``DECODES_AT_ONCE`` threads at most. Run in a subprocess patched as `tacmap serve` is (webapp/entry.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from webapp.game.board import uvtt

ROOT = Path(__file__).resolve().parents[2]

SCRIPT = r'''
from gevent import monkey
monkey.patch_all()
import io, json, time
import gevent
from gevent.monkey import get_original
from PIL import Image
from webapp.game.core.model import Rejected
from webapp.storage import pictures

native_ident, native_sleep = get_original("_thread", "get_ident"), get_original("time", "sleep")
out = {"loop": native_ident()}
out["worker"] = pictures.picture_work(None, native_ident)

ticks = []
def ticker():
    while True:
        ticks.append(time.monotonic())
        gevent.sleep(0.01)
t = gevent.spawn(ticker)
gevent.sleep(0.05)
start = time.monotonic()
pictures.picture_work(pictures.Asker("g:gm", "192.168.1.9"), native_sleep, 0.5)  # the work blocks its thread
out["took"] = time.monotonic() - start
during = [x for x in ticks if x >= start]
out["ticks"] = len(during)
out["gap"] = max(b - a for a, b in zip(during, during[1:]))

try:
    pictures.checked(b"\x89PNG\r\n\x1a\n but cut short", asker=pictures.Asker("g:gm"))
except Rejected as exc:
    out["refused"] = str(exc)
pic = io.BytesIO()
Image.new("RGB", (64, 32), (1, 2, 3)).save(pic, "PNG")
out["checked"] = pictures.checked(pic.getvalue(), asker=pictures.Asker("g:gm")).width

def at_once():
    pictures.picture_work(None, native_sleep, 0.2)
    return native_ident()
out["threads"] = len({g.value for g in gevent.joinall([gevent.spawn(at_once) for _ in range(6)])})
t.kill()
print(json.dumps(out))
'''


def run() -> dict:
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_picture_work_runs_on_a_bounded_pool_of_native_threads_the_loop_going_on_and_errors_coming_back():
    out = run()
    assert out["worker"] != out["loop"]  # a native thread of the picture pool, not the loop's
    # half a second of blocking work: the loop ticked every 10 ms or so meanwhile
    assert out["took"] >= 0.5 and out["ticks"] >= 10 and out["gap"] < 0.25, out
    # a damaged picture is refused with the same words as on the loop
    with pytest.raises(uvtt.UvttError) as here:
        uvtt.check_picture(b"\x89PNG\r\n\x1a\n but cut short", "file")
    assert out["refused"] == str(here.value) and "damaged or truncated" in out["refused"], out
    assert out["checked"] == 64
    assert out["threads"] <= 2  # DECODES_AT_ONCE: six pieces at once run on two threads
