"""Start test servers by forking one process that has already imported tacmap.

`python -m webapp.cli serve` spends most of its start (about 1.3 s of CPU of 2 s) importing Flask,
Socket.IO, pydantic and tacmap's own modules; the browser tests start some 130 servers. This process
imports `webapp.cli` once and then, for each line it reads on stdin (JSON: argv, env, log), forks a
child that takes that environment, writes to that log and runs `webapp.entry.main(argv)`: the
`tacmap` command's own entry (its patch already in force, so only checked), from the command line on, in
a fresh process of its own. It answers
each line with the child's pid. It ends when its stdin closes (the pytest worker that started it
is gone). POSIX only: tests/e2e/conftest.py starts servers the plain way where there is no fork,
and for a server that must start without something a platform lacks (a prelude).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gevent import monkey  # noqa: E402
from gevent.os import fork_gevent  # noqa: E402

from webapp.patching import patch  # noqa: E402

patch()  # as `tacmap serve` does first (webapp/entry.py); each forked child gets gevent's hub anew (its os.fork)
import webapp.cli  # noqa: E402,F401  (the point of this process: imported once, before any fork)
from webapp.entry import main as tacmap  # noqa: E402  (what the `tacmap` command and scripts/tacmap-start run)


def child(order: dict) -> None:
    """In the forked child: become the server the order asks for; never return."""
    code = 1
    try:
        os.setsid()  # its own session: a signal meant for the zygote's group does not reach it
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        log = os.open(order["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(null)
        os.close(log)
        os.environ.clear()
        os.environ.update(order["env"])
        random.seed()  # not the zygote's sequence
        # the child is the `tacmap` command: its main module that command's script, not this file. A worker process
        # the server spawns (multiprocessing's "spawn": the foes' plans, the forecast) runs its parent's main module
        # first; this file's would import all of tacmap and patch the worker as a server (seconds of CPU a worker,
        # most of a browser test's server time), where the user's workers import only what the script imports.
        main_module = sys.modules["__main__"]
        if order.get("main") and os.path.exists(order["main"]):
            main_module.__file__ = sys.argv[0] = order["main"]
        else:  # no script (another Python's packages): as `python -c` starts it (scripts/tacmap-start), none
            main_module.__dict__.pop("__file__", None)
        code = tacmap(order["argv"]) or 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:  # noqa: BLE001 (the log says why the server did not start)
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(code)


def main() -> None:
    # children are reaped by the system: no zombies (the standard library's own signal(): gevent's keeps SIGCHLD
    # for its child watchers, which run only while its loop does, and this process waits on stdin instead)
    monkey.get_original("signal", "signal")(signal.SIGCHLD, signal.SIG_IGN)
    for line in sys.stdin:
        order = json.loads(line)
        pid = fork_gevent()  # the child gets gevent's hub anew; no child watcher here (the system reaps)
        if pid == 0:
            child(order)
        sys.stdout.write(json.dumps({"pid": pid}) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
