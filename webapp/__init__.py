"""The tacmap web app: ``create_app(config)`` builds it (webapp/application.py), ``tacmap serve`` runs it.

Importing the package imports nothing else: ``tacmap serve`` (webapp/cli.py) patches the standard library for
gevent before Flask, Socket.IO and the app's own modules are imported, so its sockets, locks and threads are
gevent's from the start. ``from webapp import create_app`` (and the app's other names) loads webapp/application.py.
"""


def __getattr__(name: str):
    from importlib import import_module
    from importlib.util import find_spec

    # a module of the package (``from .. import seams`` before it was imported): the import system imports it
    if name.startswith("__") or find_spec(f"{__name__}.{name}") is not None:
        raise AttributeError(name)

    application = import_module(f"{__name__}.application")
    try:
        return getattr(application, name)
    except AttributeError:
        raise AttributeError(f"module 'webapp' has no attribute {name!r}") from None
