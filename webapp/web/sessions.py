"""Sessions kept on the server: the browser's cookie holds a random session id, nothing else.

Flask's own session is a signed cookie: anyone who sees the cookie reads what it holds (signed is not
encrypted), and a browser sends a host's cookies to every port of that host, so another web app on the
GM's laptop would be handed the GM keys. Here the cookie carries 32 random bytes; what the session holds
(the keys this browser remembers, the GM password's proof, the CSRF token) stays in
``<data folder>/sessions.sqlite3`` (0600), under the SHA-256 of the id, so the file holds no usable
cookie either. The file is shared by every process on the data folder (``--message-queue``) and survives
a restart, as the signed cookie did. With ``--database postgresql://...`` the table is in that database instead,
shared by every process on every machine. The cookie's name is per port (``tacmap_<port>``, set by
``tacmap serve``), so two tacmap servers on one machine do not overwrite each other's.
"""

from __future__ import annotations

import hashlib
import logging
import re
import secrets
import sqlite3
import threading
import time
from pathlib import Path

from flask.json.tag import TaggedJSONSerializer
from flask.sessions import SessionInterface, SessionMixin
from werkzeug.datastructures import CallbackDict

from ..storage import private, sql

log = logging.getLogger(__name__)

SESSION_ID = re.compile(r"^[A-Za-z0-9_-]{43}$")  # secrets.token_urlsafe(32)
PURGE_EVERY = 3600.0  # seconds between sweeps of expired sessions
REFRESH_AFTER = 86400.0  # a session used again this long after its expiry was last pushed back gets a new one


from ..storage.store import SESSIONS_SCHEMA as SCHEMA  # noqa: E402


class ServerSession(CallbackDict, SessionMixin):
    def __init__(self, initial=None, sid: str | None = None, expires: float = 0.0) -> None:
        def changed(_self) -> None:
            self.modified = True
            self.accessed = True

        super().__init__(initial, changed)
        self.sid = sid
        self.new = sid is None
        self.expires = expires
        self.modified = False
        #: the database did not answer when it was to be read: kept as it is (not written, the cookie untouched)
        self.unread = False


def _native_local():
    """A thread-local that is the native thread's even where gevent patched ``threading.local`` to a greenlet's."""
    try:
        from gevent import monkey
    except ImportError:
        return threading.local()
    return monkey.get_original("threading", "local")()


class ServerSessions(SessionInterface):
    serializer = TaggedJSONSerializer()

    def __init__(self, path: Path | str) -> None:
        """``path``: the SQLite file, or a ``postgresql://`` URL (the sessions table in that database)."""
        self._shared = None
        self._unavailable: tuple = ()  # what the database raises while it does not answer (PostgreSQL's restart)
        if sql.is_url(path):
            self.path = path
            # one connection, a statement at a time: psycopg lets the other greenlets run while it waits
            self._shared = sql.SharedDatabase(sql.PostgresDatabase(path))
            self._shared.db.create(SCHEMA)
            self._unavailable = self._shared.db.unavailable
            return
        self.path = Path(path)
        # one connection per native thread: under `tacmap serve` (gevent) every greenlet runs on the one thread,
        # and a greenlet-local connection would be a new one for every request
        self._local = _native_local()
        private.sqlite_file(self.path)  # the keys of every browser: the owner's only, its WAL files too
        try:
            self._db().executescript(SCHEMA)
        except (sqlite3.Error, OSError) as exc:
            from ..storage.store import DataError

            raise DataError(f"cannot open {self.path}: {exc}. Give your user access to the data folder, or "
                            "start with --data-dir set to a folder you may write to.") from None

    _purged = 0.0

    def _db(self) -> sqlite3.Connection:
        db = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self.path, timeout=10, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")  # a lost session after a power cut: log in again
            self._local.db = db
        return db

    def _query(self, statement: str, params=()) -> list:
        """One statement (written for both databases, ``?`` placeholders); the rows it gives."""
        if self._shared is not None:
            return self._shared.execute(statement, params)
        return self._db().execute(statement, params).fetchall()

    @staticmethod
    def _row_id(sid: str) -> str:
        return hashlib.sha256(sid.encode()).hexdigest()

    def _lifetime(self, app) -> float:
        return app.permanent_session_lifetime.total_seconds()

    #: where the session opened for a request is kept in its WSGI environ (``open_session``)
    OPENED = "tacmap.session"

    def open_session(self, app, request) -> ServerSession:
        """The browser's session, read from the table once per WSGI environ: an HTTP request opens it once; a
        Socket.IO connection's events each push a request context on their handshake's environ, so each would read
        it again (a query per command, a round trip on PostgreSQL) only for Flask-SocketIO to hand the handler the
        copy it took at the first event (``manage_session``, its default): the first one read serves them all."""
        opened = request.environ.get(self.OPENED)
        if opened is None:
            opened = request.environ[self.OPENED] = self._open(app, request)
        return opened

    def _open(self, app, request) -> ServerSession:
        sid = request.cookies.get(self.get_cookie_name(app))
        if sid and SESSION_ID.match(sid):
            try:
                rows = self._query("SELECT data, expires FROM sessions WHERE id = ?", (self._row_id(sid),))
            except self._unavailable as exc:  # the request goes on (and is told so where it needs the database)
                log.warning("a browser's session was not read: the database does not answer (%s)", exc)
                unread = ServerSession(sid=sid)
                unread.unread = True
                return unread
            row = rows[0] if rows else None
            if row is not None and row[1] > time.time():
                try:
                    return ServerSession(self.serializer.loads(row[0]), sid, row[1])
                except ValueError:
                    pass  # unreadable: a new session
        return ServerSession()

    def save_session(self, app, session: ServerSession, response) -> None:
        if session.unread:  # what the browser has stays as it is, in the table and in its cookie
            return
        try:
            self._save(app, session, response)
        except self._unavailable as exc:  # this answer goes out; the session is as it was before the request
            log.warning("a browser's session was not written: the database does not answer (%s)", exc)

    def _save(self, app, session: ServerSession, response) -> None:
        name, domain, path = self.get_cookie_name(app), self.get_cookie_domain(app), self.get_cookie_path(app)
        now = time.time()
        if not session:
            if session.sid is not None and session.modified:  # emptied: gone here and in the browser
                self._query("DELETE FROM sessions WHERE id = ?", (self._row_id(session.sid),))
                response.delete_cookie(name, domain=domain, path=path, secure=self.get_cookie_secure(app),
                                       httponly=True, samesite=self.get_cookie_samesite(app))
            return
        if session.accessed:
            response.vary.add("Cookie")
        expires = now + self._lifetime(app)
        if session.sid is None:
            session.sid = secrets.token_urlsafe(32)
            session.modified = True
        if session.modified or session.expires < expires - REFRESH_AFTER:
            self._query("INSERT INTO sessions (id, data, expires) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE "
                        "SET data = excluded.data, expires = excluded.expires",
                        (self._row_id(session.sid), self.serializer.dumps(dict(session)), expires))
            session.expires = expires
        if now - self._purged > PURGE_EVERY:
            self._purged = now
            self._query("DELETE FROM sessions WHERE expires < ?", (now,))
        if session.new or session.modified or self.should_set_cookie(app, session):
            response.set_cookie(name, session.sid, expires=self.get_expiration_time(app, session),
                                httponly=True, domain=domain, path=path, secure=self.get_cookie_secure(app),
                                samesite=self.get_cookie_samesite(app))
