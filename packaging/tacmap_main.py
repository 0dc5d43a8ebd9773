"""The one-file executable's entry point (scripts/build-exe): the ``tacmap`` command, Python included.

Started with no arguments (a double-click on Windows or macOS), it serves: ``tacmap serve``."""

import multiprocessing
import sys

from webapp.entry import main  # gevent's patch first, then the tacmap command

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a worker process of the server's (the foes' plans) runs here, not the command
    sys.exit(main(sys.argv[1:] or ["serve"]))
