"""The tacmap web app: ``create_app(config)`` builds it, ``tacmap serve`` runs it."""

from __future__ import annotations

import os
import re
import secrets
import sys
from pathlib import Path

from flask import Flask, jsonify, request, send_from_directory
from flask_compress import Compress
from flask_socketio import SocketIO
from werkzeug.exceptions import HTTPException, ServiceUnavailable

from . import seams
from .game.core.model import Rejected
from .game.core.text import SocketJSON, measure, on_grid
from .live.hub import DATABASE_AWAY, Hub
from .live.screens import templating
from .live.screens.language import refusal_text as refusal
from .storage.store import DamagedLog, DataError, Store, WriteFailed
from .storage import private
from .storage.sql import is_url
from .web.assets import STATIC, TEMPLATES
from .web.errors import InsufficientStorage, SafeJSON, TextResponse, error_page

MAX_UPLOAD = 16 * 1024 * 1024  # a map with its walls (POST /api/games, POST /api/games/<id>/maps)
MAX_BODY = 256 * 1024  # any other request: a JSON command, a form, a sheet
MAX_SOCKET_MESSAGE = 256 * 1024
_UPLOAD_PATH = re.compile(r"^/api/games(/[^/]+/maps)?$")  # the routes that take a whole map
#: the routes that take a map file (a Universal VTT import, a picture): up to uvtt.MAX_FILE_BYTES
_MAP_FILE_PATH = re.compile(r"^(/api)?/games/[^/]+/maps(/[^/]+)?(/picture)?$")


def default_data_dir(cwd: Path | None = None, writable=os.access) -> Path:
    """Where the games live when no --data-dir or TACMAP_DATA_DIR says: ``./tacmap-data`` beside where tacmap
    was started, or, when that folder cannot be written (a one-file download started from a read-only place,
    a shortcut whose working folder is C:\\Program Files), the user's application-data folder:
    %APPDATA%\\tacmap on Windows, ~/Library/Application Support/tacmap on macOS, $XDG_DATA_HOME/tacmap
    (~/.local/share/tacmap) elsewhere."""
    env = os.environ.get("TACMAP_DATA_DIR")
    if env:
        return Path(env)
    cwd = Path.cwd() if cwd is None else cwd
    here = cwd / "tacmap-data"
    if writable(here if here.exists() else cwd, os.W_OK):
        return here
    if sys.platform == "win32":
        base = Path(os.environ.get("APPDATA") or Path.home() / "AppData" / "Roaming")
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "tacmap"


def _secret_key(data_dir: Path) -> str:
    """One secret per data folder, so sessions survive a restart."""
    path = data_dir / "secret_key"
    try:
        if not path.exists():
            private.write_bytes(path, secrets.token_hex(32).encode())
        private.narrow(path)
        return path.read_text().strip()
    except (OSError, UnicodeDecodeError) as exc:
        reason = getattr(exc, "strerror", None) or str(exc)
        raise DataError(f"cannot read or write {path}: {reason}. Give your user access to the data folder "
                        "(chmod u+rwx), or start with --data-dir set to a folder you may write to.") from None


def _seconds(value: str | None, default: float) -> float:
    """A number of seconds from the environment (0 to 60), else ``default``."""
    try:
        return min(max(float(value), 0.0), 60.0) if value else default
    except ValueError:
        return default


def create_app(config: dict | None = None) -> Flask:
    # the libraries' internals tacmap bends, checked once per process: a fallback is logged, a security limit
    # that cannot be kept stops the start here (SeamBroken; webapp/seams.py, docs/SERVING.md "Library seams")
    seams.check_at_start()
    app = Flask(__name__, template_folder=str(TEMPLATES), static_folder=str(STATIC), static_url_path="/static")
    app.response_class = TextResponse
    app.json = SafeJSON(app)
    data_dir = Path((config or {}).get("DATA_DIR") or default_data_dir()).resolve()
    try:
        private.make_dir(data_dir)
    except OSError as exc:
        raise DataError(f"cannot create the data folder {data_dir}: {exc.strerror}. Create it, or start with "
                        "--data-dir set to a folder you may write to.") from None
    app.config.update(
        DATA_DIR=str(data_dir),
        DEMO=True,
        PUBLIC_URL=None,
        DICE_SEED=os.environ.get("TACMAP_DICE_SEED"),  # seeded dice for tests and demos; unset: real randomness
        # seconds the "play the foes" runner pauses before each step of a foe's plan (#60, webapp/live/foes/foeplay.py)
        FOE_PLAY_PAUSE=_seconds(os.environ.get("TACMAP_FOE_PLAY_PAUSE"), 1.5),
        # several processes for the same games: Socket.IO rooms and presence shared through Redis (webapp/live/server/shared.py)
        MESSAGE_QUEUE=os.environ.get("TACMAP_MESSAGE_QUEUE") or None,
        # room mode (#38): the organiser's page /room and the GM PIN page /pin (webapp/web/room/room.py)
        ROOM=(os.environ.get("TACMAP_ROOM") or "").strip().lower() in ("1", "true", "yes", "on"),
        # other devices than the server's own machine may make games too (#57: webapp/web/lobby.py game_maker)
        OPEN_LOBBY=(os.environ.get("TACMAP_OPEN_LOBBY") or "").strip().lower() in ("1", "true", "yes", "on"),
        # the games, logs and sessions in PostgreSQL instead of the data folder's SQLite files (docs/STORAGE.md)
        DATABASE=os.environ.get("TACMAP_DATABASE") or None,
        MAX_CONTENT_LENGTH=MAX_UPLOAD,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_NAME="tacmap",  # tacmap serve: tacmap_<port> (cookies are per host, not per port)
    )
    app.config.update(config or {})
    # the compiled templates kept in memory and in the data folder (or the folder $TACMAP_COMPILED_TEMPLATES
    # names, which several data folders may share): a restarted server's first pages are not compiled again
    app.jinja_env.bytecode_cache = templating.Compiled(
        Path(os.environ.get("TACMAP_COMPILED_TEMPLATES") or data_dir / "compiled"))
    database = app.config.get("DATABASE") or None
    if database and not is_url(database):
        raise DataError(f"--database takes a PostgreSQL address (postgresql://USER:PASSWORD@HOST:PORT/NAME), not "
                        f"{database[:80]!r}; without it the games stay in the data folder's SQLite file")
    store = Store(database or data_dir / "tacmap.sqlite3")
    # one secret per data folder (made on the first start, given or not); on PostgreSQL, one for every process on
    # the database (each machine has its own data folder)
    folder_key = None if database else _secret_key(data_dir)
    if not app.config.get("SECRET_KEY"):
        app.config["SECRET_KEY"] = store.setting("secret_key", secrets.token_hex(32)) if database else folder_key

    @app.before_request  # first: the CSRF check below reads the form, and must read it with this limit
    def limit_body():
        # every request but a map upload is small: a command, a form, a sheet (docs/PROTOCOL.md "Limits")
        if _MAP_FILE_PATH.match(request.path) and request.method == "POST":
            from .game.board.uvtt import MAX_FILE_BYTES

            request.max_content_length = MAX_FILE_BYTES + 64 * 1024  # each route checks its own limit too
        elif not _UPLOAD_PATH.match(request.path):
            request.max_content_length = min(MAX_BODY, app.config["MAX_CONTENT_LENGTH"] or MAX_BODY)
            request.max_form_memory_size = MAX_BODY

    from .live.server import collector

    collector.init_app(app)  # Python's cycle collector at the loop's idle moments, once started (tacmap serve)
    from .web import i18n

    i18n.init_app(app, data_dir)  # Flask-Babel: each request in its device's language (webapp/web/i18n.py)
    from .web.security import init_security, socket_origin_check

    init_security(app)  # headers, CSRF (before the blueprints: the API's is exempt)
    # pages, fragments, scripts and styles compressed for the table's Wi-Fi (brotli or gzip, as the browser
    # asks); Socket.IO's own traffic is engine.io's, compressed there (permessage-deflate, polling gzip)
    app.config.setdefault("COMPRESS_ALGORITHM", ["br", "gzip", "deflate"])
    Compress(app)
    queue = app.config.get("MESSAGE_QUEUE") or None
    rooms = {}
    if queue:
        from .live.server.shared import connect, room_manager

        redis_client = connect(queue)  # unreachable, or no redis package: a clear QueueUnavailable (a DataError)
        rooms = {"client_manager": room_manager(queue)}  # Flask-SocketIO's Redis message queue
    # gevent: `tacmap serve` runs gevent's server with the standard library patched (webapp/live/server/serving.py,
    # webapp/entry.py). The app tests run unpatched: Flask-SocketIO's test client needs no server, and the few
    # that serve this app in-process on threads (tests/app/test_network.py) say ASYNC_MODE="threading"
    socketio = SocketIO(app, async_mode=app.config.get("ASYNC_MODE", "gevent"), max_http_buffer_size=MAX_SOCKET_MESSAGE,
                        cors_allowed_origins=socket_origin_check(app), logger=False, engineio_logger=False,
                        json=SocketJSON, **rooms)  # deep JSON: an error ack
    from .live.server.keyless import Keyless, limit_socket_messages

    limit_socket_messages(socketio, MAX_SOCKET_MESSAGE)  # cut as it arrives, not after (webapp/live/server/keyless.py)
    app.extensions["tacmap_keyless"] = Keyless(socketio)  # keyless sessions: closed after a few seconds, capped
    from .web import network

    network.install(app)  # outermost: Host names, trusted proxies, Socket.IO's headers (webapp/web/network.py)
    from .web.sessions import ServerSessions

    # the keys a browser remembers stay here; its cookie holds a random session id (webapp/web/sessions.py)
    app.session_interface = ServerSessions(database or data_dir / "sessions.sqlite3")
    hub = Hub(app, store, socketio)
    if queue:
        from .live.server.shared import Shared

        hub.share(Shared(redis_client, on_change=hub.presence_changed))
    app.extensions["tacmap"] = hub
    app.extensions["tacmap_socketio"] = socketio

    from .live.server.sockets import register as register_events
    from .web import api, device, game, handouts, help, lobby, maps, recap
    from .web.room import room, roompage  # noqa: F401 (roompage adds routes to room)
    from .web.sheet import sheets  # noqa: F401 (sheets adds routes to game)

    # room first: its check before every request (a reset table's old pages, a closed room) runs ahead of the gate
    for module in (room, lobby, game, api, help, maps, handouts, device, recap):
        app.register_blueprint(module.bp)
    from .live.screens import language

    # {{ 5|measure(system.cell_unit) }}: 5", 5 yards; in the reader's language (5 Meter...)
    app.jinja_env.filters["measure"] = lambda amount, unit: language.words(measure(amount, unit))
    app.jinja_env.filters["on_grid"] = on_grid  # {{ system.cell_unit|on_grid(drawing.hex) }}: squares are hexes on hexes
    app.jinja_env.filters["words"] = language.words  # {{ system.cover_material_labels[m]|words }}: the rules' words
    from .game.board.editor import ZONE_COVER_WORDS

    app.jinja_env.globals["zone_cover_words"] = ZONE_COVER_WORDS  # the zone editor's cover grades, as words
    register_events(socketio, hub, app.extensions["tacmap_keyless"])

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        if request.path.startswith("/api/"):
            return jsonify(error=exc.description), exc.code
        if request.headers.get("HX-Request") == "true":  # the page flashes the answer's text: plain words
            return exc.description or exc.name, exc.code, {"Content-Type": "text/plain; charset=utf-8"}
        return error_page(exc)

    @app.errorhandler(DamagedLog)
    def damaged_log(exc: DamagedLog):  # this game is out of service; the others are not
        # a page's reader is told in their language; the JSON API's errors stay English (docs/PROTOCOL.md)
        return http_error(ServiceUnavailable(str(exc) if request.path.startswith("/api/") else refusal(exc)))

    @app.errorhandler(WriteFailed)
    def not_stored(exc: WriteFailed):  # a new game or seat the disk could not take: nothing was made
        if store.away(exc.__cause__):  # not the disk: the database's server does not answer (a restart)
            return database_away(exc)
        return http_error(InsufficientStorage(str(exc)))

    def database_away(exc: Exception):  # PostgreSQL restarting, its network down: tried again on the next request
        app.logger.warning("the database does not answer (%s %s): %s", request.method, request.path, exc)
        return http_error(ServiceUnavailable(DATABASE_AWAY if request.path.startswith("/api/")
                                             else refusal(Rejected(DATABASE_AWAY))))

    for kind in store.unavailable:
        app.register_error_handler(kind, database_away)

    @app.get("/favicon.ico")
    def favicon():
        return send_from_directory(app.static_folder, "favicon.svg", mimetype="image/svg+xml", max_age=86400)

    # several processes started at once on an empty folder: only the first to claim it makes the demo game
    if app.config["DEMO"] and not store.games() and (not queue or hub.shared.claim(f"demo:{data_dir}")):
        from .demo import create_demo

        create_demo(hub)
    return app
