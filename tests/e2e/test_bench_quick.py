"""Issue #71: the project's own benchmarks run. `python -m bench --quick --output -`, as a user runs it (from the
repository root, with this Python), runs every section to its end.

The test fails when a section cannot run: a section shown as failed (or skipped, or not measured: scripts/test
installs redis-server and PostgreSQL, so here every section can run), a section missing from the table, a
traceback on either stream, a non-zero exit, or a run that does not end in time. It never fails for a figure that
misses its target: the table's "met" column is not read (bench/README.md: a figure off its target is news, not
a failure). It loads both cores for most of a minute: run alone (SERIAL in conftest.py).
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench.pgcluster import binaries

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(shutil.which("redis-server") is None,
                       reason="redis-server is not installed (scripts/test installs it)"),
    pytest.mark.skipif(binaries() is None, reason="PostgreSQL is not installed (scripts/test installs it)"),
]

RUN_LIMIT = 360  # seconds: about 40 s on a quiet 2-core machine (bench/README.md, "--quick"), minutes on a busy one

#: each section's heading in the table (bench/__main__.py, its rows' section titles)
HEADINGS = {
    "propagation": "**1. Move propagation:",
    "languages": "**1b. Move propagation, devices in English, German and Spanish",
    "pages": "**2. Pages and one move's fragments",
    "rules": "**3. Rules core",
    "throughput": "**4. Throughput:",
    "load": "**5. Load, one process:",
    "load on Redis": "**5. Load, two processes on Redis:",
    "bigmaps": "**6. The biggest map accepted",
    "hall": "**7. Convention hall",
    "replay": "**8. Replay:",
    "history": "**8. History (#36)",
    "postgresql": "**10. PostgreSQL (--database): move propagation",
    "postgresql throughput": "**10. PostgreSQL (--database): throughput",
    "postgresql load": "**10. PostgreSQL: load, two \"machines\"",
}
#: how a section that could not run shows in the table
NOT_RUN = re.compile(r"FAILED to run|: skipped \(|not measured \(")


def run_quick_bench() -> tuple[int, str, str, float]:
    """The run as a user starts it: exit status, stdout, stderr, seconds. Past ``RUN_LIMIT`` it is sent SIGTERM,
    which unwinds it like Ctrl-C (bench/live.py kills its servers on the way out), and the test fails."""
    t0 = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "bench", "--quick", "--output", "-"], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=RUN_LIMIT)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGTERM)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # its own session: the run and whatever it started, nothing else
            out, err = proc.communicate()
        pytest.fail(f"python -m bench --quick did not end within {RUN_LIMIT} s; the end of its progress:\n"
                    f"{err[-4000:]}")
    return proc.returncode, out, err, time.monotonic() - t0


@pytest.mark.timeout(RUN_LIMIT + 120)
def test_the_quick_bench_runs_every_section_to_its_end():
    status, out, err, seconds = run_quick_bench()
    # in the run's log with -rP, or beside a failure: the run's time and the table's end
    print(f"python -m bench --quick: exit {status} after {seconds:.0f} s\n{out[-3000:]}")
    progress = "\n".join(line for line in err.splitlines() if line.startswith("["))
    for stream, text in (("stdout", out), ("stderr", err)):
        assert "Traceback" not in text, f"a traceback on its {stream}:\n{text[text.index('Traceback') - 2000:][:6000]}"
    not_run = [line for line in out.splitlines() if NOT_RUN.search(line)]
    assert not not_run, "sections that could not run:\n" + "\n".join(not_run)
    missing = [name for name, heading in HEADINGS.items() if heading not in out]
    assert not missing, f"sections missing from the table: {missing}\n{out[-3000:]}\n{progress[-3000:]}"
    assert status == 0, f"exit status {status}\n{err[-4000:]}"
    assert "run: `python -m bench --quick` (quick)" in out  # the table's header: this run, the quick one
