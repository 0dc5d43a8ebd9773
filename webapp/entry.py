"""The ``tacmap`` command's process entry (pyproject's script, the one-file build, ``python -m webapp.cli``).

``tacmap serve`` runs on gevent (webapp/live/server/serving.py): the standard library's sockets, locks, threads and
sleeps are patched to gevent's before Flask, Socket.IO, Redis's client or tacmap's own modules are imported,
so every lock they make and every thread they start is gevent's from the start. Nothing else here: the
patch, then webapp/cli.py.
"""

from __future__ import annotations

import sys

from webapp.patching import patch


def main(argv: list[str] | None = None) -> int:
    patch()
    from webapp.cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
