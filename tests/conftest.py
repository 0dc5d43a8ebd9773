"""Fixtures shared by the app and browser tests."""

from __future__ import annotations

import pytest

from webapp import create_app


@pytest.fixture
def app(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "test"})


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
