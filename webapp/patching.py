"""gevent's monkey patch of the standard library, for ``tacmap serve`` (webapp/entry.py says why and when)."""


def patch() -> None:
    """Patch once per process: sockets, locks, threads, sleeps and ``os.fork`` become gevent's. (Not
    ``subprocess``: tacmap starts none, and gevent's POSIX subprocess needs ``fcntl``.)"""
    from gevent import monkey

    if not monkey.is_module_patched("socket"):
        monkey.patch_all(subprocess=False)
