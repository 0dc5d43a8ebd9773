"""Who may open a game, and the GM's keys to it: keys, the GM password, join codes, the links shown to the GM.

Each game has a GM key, a table-screen key and a join code (in its record); each player holds a key of their own
(in the game's state, hashed). ``key_actor`` says who holds a key; ``authenticate`` adds the GM password, when the
game has one (proven once per browser session, or sent with each call). Wrong password guesses are limited per game
and per client (``keys.Guesses``; with several processes, in Redis). The Security card's commands (set or clear the
password, a new join code, a new table-screen link) end the connections the change shuts out
(``security_command``). The join link and the table screen's link, with their QR codes, are built from the address
players reach the server at (``base_url``), never from a request's Host header.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import secrets
from typing import Any

import segno
from flask import g, has_request_context, request as flask_request, session
from markupsafe import Markup

from ..game import access
from ..game.tableside import keys
from ..game.core.model import GM, SCREEN, Actor, Game, Rejected, key_hash
from ..game.core.text import N_
from ..storage.store import Store
from .committing import NO_DEADLINE, Committed, Sending
from .games import Games
from .presence import Presence, room

JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
DEFAULT_BASE_URL = "http://localhost:5000"  # `tacmap serve`'s default port, when it has not said where it listens


@functools.lru_cache(maxsize=64)
def qr_svg(url: str) -> Markup:
    """A link's QR code (the join link, the table screen's): the same link, the same picture, so it is drawn once,
    not on every update."""
    return Markup(segno.make(url, error="m").svg_inline(scale=1, dark="#111", light="#fff", omitsize=True))


def new_key() -> str:
    return secrets.token_urlsafe(18)


def new_join_code() -> str:
    return "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))


def _client() -> str | None:
    """The address of the client of this request or Socket.IO connection (a trusted proxy's client: see
    webapp/web/network.py), None outside a request."""
    return flask_request.remote_addr if has_request_context() else None


def _said(outcome: str) -> None:
    """What became of this request's GM password guess ("wrong" or "blocked"), for its answer (``guess_refused``)."""
    if has_request_context():
        g.tacmap_guess = outcome


def guess_refused() -> bool:
    """This request's GM password guess was not even checked: the game or the client is at its limit."""
    return has_request_context() and g.get("tacmap_guess") == "blocked"


def render_security(gm_access: "GmAccess", game: Game, oob: bool = True, **extra) -> str:
    """The GM's Security card (and the table-screen link in the top bar), as out-of-band fragments."""
    from flask import render_template

    return render_template("_security.html", game=game, oob=oob, **gm_access.screen_info(game.id),
                           key=gm_access.store.game(game.id).gm_key, **gm_access.join_info(game.id), **extra)


class GmAccess:
    def __init__(self, app, store: Store, socketio, games: Games, presence: Presence) -> None:
        self.app = app
        self.store = store
        self.socketio = socketio
        self.games, self.presence = games, presence
        self.guesses = keys.Guesses()  # wrong GM password guesses (in Redis with several processes: ``Hub.share``)
        self.room_guesses = keys.RoomGuesses()  # room mode's wrong organiser passwords and GM PINs (#57)
        self._good_passwords: set[tuple[str, str, str]] = set()
        #: set by the hub once every part exists: a password change is committed (``Committing.commit``), a new
        #: join code shown to the screens (``Fanout.emit``)
        self.commit = None
        self.fanout = None

    # --- keys -------------------------------------------------------------

    def key_actor(self, game_id: str, key: Any) -> Actor | None:
        """Who holds this key in this game (the GM, the table screen or a player), the GM password aside."""
        if not isinstance(key, str) or not key or not key.isascii() or len(key) > 200:
            return None  # keys are short ASCII; anything else is no key (and hmac compares ASCII only)
        if not isinstance(game_id, str) or not game_id.isascii() or len(game_id) > 64:
            return None  # game ids are hex: a lone surrogate must not reach the database
        record = self.store.game(game_id)
        if record is None:
            return None
        if hmac.compare_digest(key, record.gm_key):
            return GM
        if hmac.compare_digest(key, record.screen_key):
            return SCREEN
        game = self.games.get(game_id)
        digest = key_hash(key)
        for player in game.players.values():
            if player.holds(digest):
                return Actor("player", player.id)
        return None

    def authenticate(self, game_id: str, key: Any, password: str | None = None) -> Actor | None:
        """Who holds this key in this game; the GM key of a game with a GM password counts only
        with the password (``password``, else this browser session's proof that it was given)."""
        actor = self.key_actor(game_id, key)
        if actor is not None and actor.role == "gm" and not self.gm_unlocked(game_id, password):
            return None
        return actor

    # --- the GM password ---------------------------------------------------

    def password_hash(self, game_id: str) -> str | None:
        game = self.games.get(game_id)
        return game.gm_password if game is not None else None

    def gm_unlocked(self, game_id: str, password: str | None = None) -> bool:
        """No GM password, or the right one now, or this browser session gave it (its proof is in the session)."""
        stored = self.password_hash(game_id)
        if stored is None:
            return True
        if password is not None:
            return self.check_password(game_id, password)
        if has_request_context():
            proof = (session.get("gm_unlocked") or {}).get(game_id)
            return isinstance(proof, str) and hmac.compare_digest(proof, keys.proof_of(stored))
        return False

    def password_blocked(self, game_id: str) -> bool:
        return self.guesses.blocked(game_id, _client())

    def check_password(self, game_id: str, password: str) -> bool:
        """The GM password, checked against its salted hash; wrong guesses are limited per game and per client
        (keys.MAX_WRONG a minute: after that every guess is refused until the minute is over). A guess is
        counted before it is checked, atomically, and given back when right: guesses sent in parallel are
        refused past the limit, not all checked."""
        stored = self.password_hash(game_id)
        if stored is None:
            return True
        if not isinstance(password, str):
            return False
        seen = (game_id, stored, hashlib.sha256(password.encode()).hexdigest())
        if seen in self._good_passwords and not self.guesses.blocked(game_id, _client()):
            return True  # a script sending the header on every call: scrypt once
        client = _client()
        token = self.guesses.take(game_id, client)
        if not token:
            _said("blocked")  # not checked at all: the request is told to wait, not that it was wrong
            return False
        if keys.verify(stored, password):
            self._good_passwords.add(seen)
            self.guesses.give_back(game_id, client, token)
            return True
        _said("wrong")
        return False

    # --- links ------------------------------------------------------------

    def base_url(self) -> str:
        """Where players reach this server: the configured public address, else the address ``tacmap serve``
        listens on (``LISTEN_URL``), else Flask's ``SERVER_NAME``, else localhost:5000. Never the request's
        Host header: anyone can send one, and the join link and its QR code would then lead players to
        their server."""
        config = self.app.config
        configured = config.get("PUBLIC_URL") or config.get("LISTEN_URL")
        if configured:
            return str(configured).rstrip("/")
        if config.get("SERVER_NAME"):
            return f"{config.get('PREFERRED_URL_SCHEME') or 'http'}://{config['SERVER_NAME']}"
        return DEFAULT_BASE_URL

    def join_info(self, game_id: str) -> dict:
        record = self.store.game(game_id)
        url = f"{self.base_url()}/join?code={record.join_code}"
        return {"join_code": record.join_code, "join_url": url, "join_qr": qr_svg(url)}

    def screen_info(self, game_id: str) -> dict:
        """The table screen's link for the GM page (in a request): as a path for the GM's own browser, and whole,
        with its QR code, for a TV's browser or a phone casting to the TV (from the same address as the join link)."""
        from flask import url_for

        record = self.store.game(game_id)
        path = url_for("game.screen", game_id=game_id, key=record.screen_key)
        link = self.base_url() + path
        return {"screen_url": path, "screen_link": link, "screen_qr": qr_svg(link)}

    # --- the Security card's commands ---------------------------------------------

    def security_command(self, game_id: str, actor: Actor, cmd, end_gm_sessions: bool = True,
                         sending: Sending = NO_DEADLINE) -> Committed:
        """Set or clear the GM password, or give the game a new join code or table-screen key.

        ``end_gm_sessions=False``: the caller ends the GM connections itself, later (the Security card
        does once its answer, which unlocks the GM's own browser, has been sent). ``sending``: how the command
        came (its id is stored with the password's event)."""
        game = self.games.get(game_id)
        if game is None:
            raise Rejected(N_("no game %(id)s"), id=repr(game_id))
        access.check_command(game, cmd, actor)
        if isinstance(cmd, (keys.SetGmPassword, keys.ClearGmPassword)):
            password = cmd.password if isinstance(cmd, keys.SetGmPassword) else None
            if password is None and game.gm_password is None:
                return Committed(game.seq, [])
            done = self.commit(game_id, lambda g: [keys.password_event(password)], sending=sending)
            if password is not None and end_gm_sessions:  # every GM connection opened without it ends
                self.end_gm_sessions(game_id)
            return done
        if isinstance(cmd, keys.RotateJoinCode):
            code = self.rotate_join_code(game_id)
            return Committed(game.seq, [], {"join_code": code})
        key = new_key()
        self.store.update_access(game_id, screen_key=key)
        self.presence.end_sessions(game_id, None, N_("The GM gave the table screen a new link: this one no longer "
                                                     "works. Open the table screen again from the GM's page."),
                                   role="screen")
        self._emit_gm_extra(game)
        return Committed(game.seq, [], {"screen_token": key})

    def end_gm_sessions(self, game_id: str) -> None:
        """The GM link got a password: its connections end; their pages reload and ask for it."""
        self.presence.end_sessions(game_id, None, N_("The GM link now needs its password."), reload=True, role="gm")

    def rotate_join_code(self, game_id: str) -> str:
        for _ in range(10):
            code = new_join_code()
            if self.store.game_by_join_code(code) is None:
                break
        self.store.update_access(game_id, join_code=code)
        game = self.games.get(game_id)
        with self.games.lock(game_id):
            self.fanout.emit(game, {"join_toggle", "join_banner"}, before=game.seq)
        self._emit_gm_extra(game)
        return code

    def _emit_gm_extra(self, game: Game) -> None:
        """The GM's table-screen link, fresh after a new key (the card itself is the answer to its form)."""
        if has_request_context():
            html = render_security(self, game, card=False)
        else:  # a script or a test calling the hub directly: links need a request to be built
            with self.app.test_request_context(base_url=self.base_url()):
                html = render_security(self, game, card=False)
        self.socketio.emit("update", {"seq": game.seq, "from_seq": game.seq, "html": html}, to=room(game.id, "gm"))
