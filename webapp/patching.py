"""gevent's monkey patch of the standard library, for ``tacmap serve`` (webapp/entry.py says why and when), and
the check that it is in force before the server serves (``unpatched``).

Without the patch the one loop still serves pages, but a Socket.IO command's answer waits on a standard-library
lock or sleep that gevent never sees: every acknowledgement arrives after engine.io's 10 s wait, and a GM's first
drag says "the server did not answer" (issue #71: ``python -c "from webapp.cli import main; ..."`` skipped it).
So ``serve`` checks the standard library's own objects, not gevent's bookkeeping, whatever started it."""

from __future__ import annotations


def patch() -> None:
    """Patch once per process: sockets, locks, threads, sleeps and ``os.fork`` become gevent's. (Not
    ``subprocess``: tacmap starts none, and gevent's POSIX subprocess needs ``fcntl``.)"""
    from gevent import monkey

    if not monkey.is_module_patched("socket"):
        monkey.patch_all(subprocess=False)


def unpatched() -> list[str]:
    """The standard-library names the server needs as gevent's that are not (empty: the patch is in force)."""
    import _thread
    import select
    import socket
    import threading
    import time

    import gevent
    import gevent.select
    import gevent.socket
    import gevent.thread

    needed = {
        "socket.socket": socket.socket is gevent.socket.socket,
        "select.select": select.select is gevent.select.select,
        "time.sleep": time.sleep is gevent.sleep,
        "threading.Lock": threading.Lock is gevent.thread.allocate_lock
        or isinstance(threading.Lock(), gevent.thread.LockType),
        "_thread.allocate_lock": _thread.allocate_lock is gevent.thread.allocate_lock,
        "_thread.start_new_thread": _thread.start_new_thread is gevent.thread.start_new_thread,
    }
    return [name for name, ok in needed.items() if not ok]
