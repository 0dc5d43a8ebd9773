"""The one-file executable's entry point (scripts/build-exe): the ``tacmap`` command, Python included.

Started with no arguments (a double-click on Windows or macOS), it serves: ``tacmap serve``."""

import sys

from webapp.entry import main  # gevent's patch first, then the tacmap command

if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["serve"]))
