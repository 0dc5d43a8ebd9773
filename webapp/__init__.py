"""The tacmap web app: ``create_app(config)`` builds it, ``tacmap serve`` runs it."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask, jsonify, request
from flask_socketio import SocketIO
from werkzeug.exceptions import HTTPException

from .assets import STATIC, TEMPLATES
from .hub import Hub
from .store import Store

MAX_UPLOAD = 16 * 1024 * 1024  # a map picture with its walls
MAX_SOCKET_MESSAGE = 1024 * 1024


def _secret_key(data_dir: Path) -> str:
    """One secret per data folder, so sessions survive a restart."""
    path = data_dir / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


def create_app(config: dict | None = None) -> Flask:
    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder=str(STATIC), static_url_path="/static")
    data_dir = Path((config or {}).get("DATA_DIR") or os.environ.get("TACMAP_DATA_DIR") or "tacmap-data").resolve()
    data_dir.mkdir(parents=True, exist_ok=True)
    app.config.update(
        DATA_DIR=str(data_dir),
        DEMO=True,
        PUBLIC_URL=None,
        DICE_SEED=os.environ.get("TACMAP_DICE_SEED"),  # seeded dice for tests and demos; unset: real randomness
        MAX_CONTENT_LENGTH=MAX_UPLOAD,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
    )
    app.config.update(config or {})
    app.config.setdefault("SECRET_KEY", _secret_key(data_dir))
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = _secret_key(data_dir)

    socketio = SocketIO(app, async_mode="threading", max_http_buffer_size=MAX_SOCKET_MESSAGE,
                        logger=False, engineio_logger=False)
    store = Store(data_dir / "tacmap.sqlite3")
    hub = Hub(app, store, socketio)
    app.extensions["tacmap"] = hub
    app.extensions["tacmap_socketio"] = socketio

    from .events import register as register_events
    from .views import api, game, help, lobby, sheets  # noqa: F401 (sheets adds routes to game)

    for module in (lobby, game, api, help):
        app.register_blueprint(module.bp)
    register_events(socketio, hub)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if request.path.startswith("/api/"):
            return jsonify(error=exc.description), exc.code
        return exc

    if app.config["DEMO"] and not store.games():
        from .demo import create_demo

        create_demo(hub)
    return app
