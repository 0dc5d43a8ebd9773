"""Fixtures shared by the app and browser tests."""

from __future__ import annotations

import re

import pytest
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import settings

from tests.helpers import let_go, make_app

# Property tests check invariants, not speed: on a shared 2-core machine one example can take longer than
# hypothesis's 200 ms deadline when other work runs, which failed a run for no fault of the code.
settings.register_profile("tacmap", deadline=None)
settings.load_profile("tacmap")


class BrowserClient(FlaskClient):
    """A test client that posts like the site's pages do: with the CSRF token of its session (the one
    a page's <meta name="csrf-token"> holds) in the X-CSRFToken header. The JSON API needs none, and
    ``csrf=False`` sends none (to test the refusal)."""

    def open(self, *args, csrf: bool = True, **kwargs):
        method = (kwargs.get("method") or "GET").upper()
        path = args[0] if args and isinstance(args[0], str) else ""
        if csrf and method in ("POST", "PUT", "PATCH", "DELETE") and not path.startswith("/api/"):
            headers = dict(kwargs.get("headers") or {})
            headers.setdefault("X-CSRFToken", self.csrf_token())
            kwargs["headers"] = headers
        return super().open(*args, **kwargs)

    def csrf_token(self) -> str:
        with self.session_transaction() as session:
            raw = session.get("csrf_token")
        if raw is None or getattr(self, "_csrf", (None, None))[0] != raw:
            page = super().open("/help/", method="GET").get_data(as_text=True)
            token = re.search(r'<meta name="csrf-token" content="([^"]+)"', page).group(1)
            with self.session_transaction() as session:
                self._csrf = (session.get("csrf_token"), token)
        return self._csrf[1]


@pytest.fixture(autouse=True, scope="session")
def browser_like_test_clients():
    """Every app's test_client() posts with its CSRF token, like the pages do (CSRF stays on)."""
    before = Flask.test_client_class
    Flask.test_client_class = BrowserClient
    yield
    Flask.test_client_class = before


def pytest_configure(config):
    config.addinivalue_line("markers", "app_config(**config): what the app fixture adds to the test config "
                            "(e.g. DEMO=True, DICE_SEED=\"5\"); tests.helpers.make_app has the defaults")


def _marked_config(node) -> dict:
    marked = node.get_closest_marker("app_config")
    return dict(marked.kwargs) if marked else {}


@pytest.fixture
def app_overrides() -> dict:
    """What the ``app`` fixture adds to its config that a marker cannot say, a value another fixture makes: a
    module overrides this fixture (tests/app/test_room_mode.py: ``DATABASE`` from ``backend``). Nothing here."""
    return {}


@pytest.fixture
def app(request, tmp_path, app_overrides):
    """An app for one test, its data in tmp_path/data. A test, class or module marked
    ``pytest.mark.app_config(DEMO=True, DICE_SEED="5")`` gets that config on top of the defaults (and of
    ``app_overrides``).

    The demo games a first start makes (two fights, their characters and token pictures: half a second of a
    test's time) only for a test that asks for them: one that uses the ``demo`` fixture (or a fixture that does),
    or is marked ``app_config(DEMO=True)``. ``make_app`` itself keeps the server's default (the demo made)."""
    config = {**app_overrides, **_marked_config(request.node)}
    config.setdefault("DEMO", "demo" in request.fixturenames)
    made = make_app(tmp_path / "data", **config)
    yield made
    let_go(made)


@pytest.fixture(scope="module")
def module_app(request, tmp_path_factory):
    """One app for all of a module's tests (many cases against one app, none changing what the others read): a
    module's ``app`` fixture of module scope returns it. Its config is the module's ``app_config`` marker on top
    of the defaults; no demo game unless marked."""
    config = _marked_config(request.node)
    config.setdefault("DEMO", False)
    made = make_app(tmp_path_factory.mktemp("data"), **config)
    yield made
    let_go(made)


@pytest.fixture
def hub(app):
    return app.extensions["tacmap"]


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture
def demo(hub):
    """The demo game's record (its keys and join code)."""
    return hub.store.games()[0]


# --- PostgreSQL (issue #38): one throwaway cluster per test process, a database of its own per test -----------

@pytest.fixture(scope="session")
def pg_cluster():
    """A PostgreSQL cluster on a random loopback port in a temporary folder (bench/pgcluster.py), started when a
    test first asks for it, stopped at the end. scripts/test installs Debian's postgresql when it is missing."""
    from bench.pgcluster import Cluster, binaries

    if binaries() is None:
        pytest.skip("PostgreSQL is not installed (scripts/test installs Debian's postgresql package)")
    cluster = Cluster()
    yield cluster
    cluster.stop()


@pytest.fixture
def pg_url(pg_cluster):
    """The URL of a new, empty database for this test alone."""
    return pg_cluster.database()


@pytest.fixture(params=["sqlite", "postgresql"])
def backend(request, tmp_path):
    """Where a test's app keeps its games, once on each backend: None (the data folder's SQLite file) or a
    PostgreSQL database's URL."""
    if request.param == "sqlite":
        return None
    return request.getfixturevalue("pg_url")


def pytest_collection_modifyitems(config, items):
    """The tests marked ``long`` (seconds each) first, the others after them in their order: scripts/test's workers
    take the suite from its start and steal from each other's ends (``--dist worksteal``), so what is left at the end
    is short tests that the workers share, instead of one long test that leaves a core idle."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)
