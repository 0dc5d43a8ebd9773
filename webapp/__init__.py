"""The tacmap web app: ``create_app(config)`` builds it, ``tacmap serve`` runs it."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from flask import Flask, jsonify, render_template, request, send_from_directory, url_for
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


def error_page(exc: HTTPException):
    """An error in the site's layout, with a way back: to the game this browser sits in, else the lobby."""
    from .views import hub, remembered_key

    back, back_label = url_for("lobby.index"), "Back to the lobby"
    game_id = (request.view_args or {}).get("game_id")
    if game_id:
        h = hub()
        for role, endpoint in (("gm", "game.gm"), ("player", "game.play")):
            key = remembered_key(role, game_id)
            try:
                actor = h.authenticate(game_id, key) if key else None
            except Exception:  # an error page must never fail in turn
                actor = None
            if actor is not None and actor.role == role:
                back, back_label = url_for(endpoint, game_id=game_id), "Back to your game"
                break
    titles = {400: "That request was not understood", 403: "Not your seat", 404: "Not found",
              500: "Something went wrong on the server"}
    description = exc.description if exc.code != 500 else "The server could not do that; its log says why."
    return render_template("error.html", code=exc.code, title=titles.get(exc.code, exc.name),
                           description=description, back=back, back_label=back_label), exc.code


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
    from .views import api, game, help, lobby, maps, sheets  # noqa: F401 (sheets adds routes to game)

    for module in (lobby, game, api, help, maps):
        app.register_blueprint(module.bp)
    register_events(socketio, hub)

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if request.path.startswith("/api/"):
            return jsonify(error=exc.description), exc.code
        return error_page(exc)

    @app.get("/favicon.ico")
    def favicon():
        return send_from_directory(app.static_folder, "favicon.svg", mimetype="image/svg+xml", max_age=86400)

    if app.config["DEMO"] and not store.games():
        from .demo import create_demo

        create_demo(hub)
    return app
