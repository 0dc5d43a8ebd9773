"""``python3 bench/bench_flood_seat.py``: one seat floods (16 HTTP threads of 100d1000 rolls, or ten sockets of
its key with eight rolls in flight each) while six players move every 0.3 s; prints the players' move acks
against the targets of issue #25 (median under 50 ms, p95 under 200 ms), with no flood as the reference.

The scenario is tests/e2e/test_flood_seat.py's (a real server process on 127.0.0.1)."""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

E2E = Path(__file__).resolve().parent.parent / "tests" / "e2e"
sys.path.insert(0, str(E2E))

from conftest import LiveServer  # noqa: E402
from test_flood_seat import run_flood  # noqa: E402


def main() -> int:
    print("| flood | players' acks: median | p95 | target | met | the flooder's rolls: done / refused |")
    print("|---|---|---|---|---|---|")
    for channel in ("none", "http", "sockets"):
        with tempfile.TemporaryDirectory() as tmp:
            live = LiveServer(Path(tmp) / "data").start()
            try:
                f = run_flood(live, channel, moves=30)
            finally:
                live.kill()
        done = f["answers"].count(200)
        met = f["median"] < 0.050 and f["p95"] < 0.200 and not f["failures"]
        print(f"| {channel} | {f['median'] * 1000:.1f} ms | {f['p95'] * 1000:.1f} ms | < 50 ms, < 200 ms | "
              f"{'yes' if met else 'no'} | {done} / {len(f['answers']) - done} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
