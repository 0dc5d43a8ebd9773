"""The live side of a game: load it, run a command through it, tell every screen.

One command, start to end (see docs/DESIGN.md "The flow of one command"):
parse -> authorize and decide (``table``) -> append to the log (``store``),
committed -> apply to the cached state -> acknowledge -> render each
audience's fragments and emit them to its Socket.IO room.

The in-memory game is a cache of the log: it can always be rebuilt.
"""

from __future__ import annotations

import contextlib
import contextvars
import copy
import functools
import hashlib
import math
import hmac
import logging
import random
from dataclasses import dataclass, field
import secrets
import threading
import time
from collections import Counter, OrderedDict
from typing import Any, Callable

import segno
from flask import g, has_request_context, request as flask_request, session
from markupsafe import Markup

import rules
from rules.board import Board
from rules.dice import DiceSource, RandomDice, SeededDice

from ..game import access, attacks, combat, fog, keys, mapdata, replay_view, safety, screenview, text, undo, zonelayout
from ..game.model import GM, SCREEN, Actor, Event, Game, Rejected, key_hash
from ..game.text import N_
from ..game.table import ack as table_ack, authorize, decide, evolve, new_game_events, parse_command, replay
from ..storage.store import Appending, Applied, Conflict, GameRecord, Store, WriteFailed, load_game
from . import language, render, throttle
from .language import said_in
from .replaying import Replays
from .allowance import LogAllowance

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 200
#: how many more commits a batch takes in (what queued while it was stored) before its one update
ABSORB_ROUNDS = 3
#: when the sender of the command being run stops waiting for its answer (set by events.lanes)
SENDER_GIVES_UP: contextvars.ContextVar[float | None] = contextvars.ContextVar("sender_gives_up", default=None)
#: called once the command being run has joined its game's queue (set by events.lanes: the sender's next
#: command may start then, and queues behind it, so the two can share one commit)
COMMAND_QUEUED: contextvars.ContextVar[Any] = contextvars.ContextVar("command_queued", default=None)
#: what a request or a command hears while the database does not answer (PostgreSQL restarting, its network down)
DATABASE_AWAY = N_("The game's database does not answer (it may be restarting): nothing was changed. Try again in a "
                   "moment.")
TOO_LATE = N_("the server was too busy to do that in time; nothing changed, try again")
#: how long after another process last wrote to a game (or won a write race) this one keeps a copy of the state
#: before each batch it decides (``_backup``), so that losing the race costs a catch-up from the log, not a reload
CONTENDED_FOR_S = 30.0
#: a safety net only: a batch that lost the write race this many times in a row is refused (each loss means
#: the other process stored something; the senders' own deadlines, ``SENDER_GIVES_UP``, come first)
MAX_RACES = 200
#: command ids a process remembers taking (``Hub._seen_before``): a phone sends a command again within seconds
SEEN_CIDS_KEPT = 20_000
JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I
DEFAULT_BASE_URL = "http://localhost:5000"  # `tacmap serve`'s default port, when it has not said where it listens
#: commands that redraw every screen's whole map (on a big map, a second or two): one at a time per game, the
#: next refused while one runs or waits (#32: a GM's repeated fog toggles queue no pile of work)
HEAVY_COMMANDS = frozenset({"set_fog", "activate_map", "resize_map"})
HEAVY_BUSY = "the last fog or map change is still being drawn: try again in a moment"
#: the id a command may carry (docs/PROTOCOL.md "Command ids"): what a device makes, short printable text
COMMAND_ID_MAX = 64
#: the seat and id of the command being run (``Hub.execute``): its commit stores the id with its events
COMMAND_ID: contextvars.ContextVar[tuple[str, str] | None] = contextvars.ContextVar("command_id", default=None)


class Repeat(Exception):
    """A command whose id this seat's command already carried: answered with that one's answer, not done again."""

    def __init__(self, done: "Committed") -> None:
        super().__init__("a repeat")
        self.done = done


def command_id(payload: Any) -> tuple[Any, str | None]:
    """The payload without its ``cid``, and the cid (None when there is none); Rejected when it is not a cid."""
    if not isinstance(payload, dict) or "cid" not in payload:
        return payload, None
    cid = payload["cid"]
    if not (isinstance(cid, str) and 0 < len(cid) <= COMMAND_ID_MAX and cid.isascii() and cid.isprintable()):
        raise Rejected(N_("cid: a command id is 1 to %(n)s printable ASCII characters"), n=COMMAND_ID_MAX)
    return {k: v for k, v in payload.items() if k != "cid"}, cid


@dataclass(frozen=True)
class Committed:
    seq: int
    events: list[Event]
    reply: dict = field(default_factory=dict)  # what the sender hears besides ok and seq (a roll's dice...)


class _Request:
    """One command waiting in its game's queue for a group commit (``Hub.commit``)."""

    __slots__ = ("decide", "gives_up", "alone", "result", "error", "finished", "cid", "answer", "stored", "look_up")

    def __init__(self, decide, gives_up: float | None, alone: bool, cid: tuple[str, str] | None = None,
                 answer=None, look_up: bool = False) -> None:
        self.decide, self.gives_up, self.alone = decide, gives_up, alone
        self.cid, self.answer = cid, answer  # (seat, id) stored with its events; its answer from its events
        #: whether its id is looked for in the log before it is decided (``Hub._decide_batch``): this process
        #: took a command with that id before, or a write with it lost a race (the id may be the one stored)
        self.look_up = look_up
        self.result: Committed | None = None
        self.error: BaseException | None = None
        self.finished = False
        self.stored: list[Appending] = []  # the appends its answer waits for (``durable``), after the game's lock

    def succeed(self, result: Committed, stored: list["Appending"] = ()) -> None:
        if not self.finished:
            self.result, self.stored, self.finished = result, list(stored), True

    def fail(self, error: BaseException) -> None:
        if not self.finished:
            self.error, self.finished = error, True


@dataclass
class _Update:
    """One update rendered for every audience and not sent yet (``Hub._render_update``)."""

    seq: int
    rooms: dict  # (html, from seq) -> the rooms it goes to
    shown: dict  # (game, audience) -> (seq, parts sent): ``Hub._shown`` once it is sent


#: the key in an update's shared renders (``render.fragments``' ``renders``) of what it reads once for all its parts
_READ_ONCE = ("hub: read once per update",)


def _players_in(audiences) -> set[str]:
    """The player ids among audiences ("player:<id>")."""
    return {aud.split(":", 1)[1] for aud in audiences if aud.startswith("player:")}


def _to_the_gm(message: tuple) -> bool:
    """Whether an update's message (``(html, from seq), rooms``) goes to the GM's room (sent last)."""
    return any(r.partition("|")[0].endswith(":gm") for r in message[1])  # its language's room (language_room)


#: events after which connections end (``Hub._end_sessions_for``): their update is rendered once that is done
ENDS_SESSIONS = frozenset({"player_removed", "players_merged", "player_reclaimed"})


class _Unappliable(Exception):
    """A decided event that ``evolve`` cannot apply (a bug): its command is refused, nothing is stored."""

    def __init__(self, request: _Request, error: BaseException) -> None:
        super().__init__(repr(error))
        self.request, self.error = request, error


@functools.lru_cache(maxsize=64)
def qr_svg(url: str) -> Markup:
    """A link's QR code (the join link, the table screen's): the same link, the same picture, so it is drawn once,
    not on every update."""
    return Markup(segno.make(url, error="m").svg_inline(scale=1, dark="#111", light="#fff", omitsize=True))


def room(game_id: str, audience: str) -> str:
    return f"game:{game_id}:{audience}"


def language_room(game_id: str, audience: str, lang: str) -> str:
    """The room of an audience's devices that read ``lang``: live updates go there (#37)."""
    return f"{room(game_id, audience)}|{lang}"


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


def new_key() -> str:
    return secrets.token_urlsafe(18)


class Hub:
    def __init__(self, app, store: Store, socketio) -> None:
        self.app = app
        self.store = store
        self.socketio = socketio
        self._games: dict[str, Game] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()
        # connections per (game, audience); presence is what is live now, not game state
        self._presence: Counter[tuple[str, str]] = Counter()
        # who is on each Socket.IO connection: sid -> (game id, actor)
        self._sessions: dict[str, tuple[str, Actor]] = {}
        # pings per seat (game and audience: a player's every tab and socket together), not game state
        self.pings = throttle.Window(PING_BURST, PING_WINDOW)
        # X-card taps per seat, here only (webapp/game/safety.py: who tapped is kept nowhere else)
        self.x_cards = throttle.Window(*X_CARD_TAPS)
        self.guesses = keys.Guesses()
        self.allowance = LogAllowance()  # bytes of log per seat (webapp/live/allowance.py)
        self.seats = throttle.Seats()  # commands per seat and per client address, over HTTP and every socket
        self._heavy: set[str] = set()  # games with a command that redraws the whole map running or waiting
        # commands being carried out in this process now, and when the last one ended (``quiet_for``)
        self._running = 0
        self._ran_at = 0.0
        self._heavy_lock = threading.Lock()
        self.new_games = throttle.Window(*throttle.NEW_GAMES)  # per client address
        self.join_guesses = throttle.Window(*throttle.JOIN_GUESSES)  # per client address
        # (game, audience, language) -> (seq of the last update sent, part -> digest of its html): see _quiet
        self._shown: dict[tuple[str, str, str], tuple[int, dict]] = {}
        self._screen_languages: dict[str, str | None] = {}  # game -> the GM's language for its screen (_screen_language_now)
        # connections per (game, audience, their device's language), and each connection's language (#37)
        self._languages: Counter[tuple[str, str, str]] = Counter()
        self._session_language: dict[str, str] = {}
        self._good_passwords: set[tuple[str, str, str]] = set()
        # with --message-queue: what the processes serving the same games share in Redis (webapp/live/shared.py)
        self.shared = None
        self._pending: dict[str, list[_Request]] = {}  # game id -> commands waiting for a commit (Hub.commit)
        self.replays = Replays(self, room, actor_for_audience)  # who is shown a past moment now (webapp/live/replaying.py)
        self._cids: dict[tuple[str, str, str], list] = {}  # (game, seat, cid) -> [lock, users]: one at a time
        #: the command ids this process took lately, (game, seat, cid), oldest first (``_seen_before``)
        self._seen_cids: OrderedDict[tuple[str, str, str], None] = OrderedDict()
        #: games whose last commit took in commands that queued while it was stored (``_absorb``): a busy game,
        #: whose next update is not rendered ahead of its write (it would likely be rendered again)
        self._absorbing: set[str] = set()
        #: game id -> until when (monotonic) another process is taken to be writing to it too (``_backup``)
        self._contended: dict[str, float] = {}

    def share(self, shared) -> None:
        """Serve the games together with other processes: catch up with the log before deciding or rendering,
        render for every audience, count connections and password guesses in Redis."""
        from .shared import SharedGuesses

        self.shared = shared
        self.guesses = SharedGuesses(shared, self.guesses)

    # --- games ------------------------------------------------------------

    def create_game(self, name: str, system: str, board: Board | None = None,
                    setup: list[Event] | None = None, zones: list[dict] | None = None) -> GameRecord:
        """A new game; a zone system without a map of its own gets a small default zone map."""
        if rules.get(system).board == "zones" and zones is None:  # KeyError for an unknown system
            board, zones = mapdata.zone_map({"zones": zonelayout.DEFAULT_ZONES})
        game_id = secrets.token_hex(4)
        record = GameRecord(
            id=game_id, name=name, system=system, gm_key=new_key(), screen_key=new_key(),
            join_code="".join(secrets.choice(JOIN_ALPHABET) for _ in range(6)), created_at=time.time(),
        )
        events = new_game_events(name, system, board or Board(24, 16), zones)
        game = replay(game_id, events)
        for event in setup or []:
            evolve(game, event)
        self.store.create_game(record, events + list(setup or []))
        return record

    def lock(self, game_id: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(game_id, threading.RLock())

    def game(self, game_id: str) -> Game | None:
        """The current state of a game (from the cache, else rebuilt from the log).

        With other processes on the same log (``shared``), the cache first catches up with the
        events they appended: one indexed read of the log's head, and the new events if any."""
        with self.lock(game_id):
            game = self._games.get(game_id)
            if game is None:
                if self.store.game(game_id) is None:
                    return None
                game = self._load(game_id)
                self._games[game_id] = game
            elif self.shared is not None:
                head = self.store.last_seq(game_id)
                if head != game.seq:
                    game = self._catch_up(game_id, game, head)
            return game

    def _load(self, game_id: str) -> Game:
        """The game rebuilt from the log (latest snapshot on), replacing the cache: after a conflict the
        cached state may hold events decided but never stored, so it is not caught up but dropped."""
        game = self._games[game_id] = load_game(self.store, game_id)
        return game

    def _catch_up(self, game_id: str, cached: Game, head: int | None = None) -> Game:
        """The cached game (consistent with the log up to its seq) with the events other processes appended
        since; rebuilt from the log when that cannot be (the log is shorter, or an event does not apply).
        ``head``: the log's last seq, when the caller has just read it (else read here: one round trip less
        on the way of a command when another process wrote, which on PostgreSQL is one to its server)."""
        if (self.store.last_seq(game_id) if head is None else head) >= cached.seq:
            events = self.store.events(game_id, after=cached.seq)  # DamagedLog: this game is out of service
            if events:  # another process writes to this game: keep a copy before deciding (``_backup``)
                self._contended[game_id] = time.monotonic() + CONTENDED_FOR_S
            try:
                for event in events:
                    evolve(cached, event)
                return cached
            except Exception:  # half applied: the cache is not to be trusted
                self._games.pop(game_id, None)
                log.warning("game %s: rebuilding from the log", game_id, exc_info=True)
        return self._load(game_id)

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
        game = self.game(game_id)
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
        game = self.game(game_id)
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

    # --- commands ---------------------------------------------------------

    def execute(self, game_id: str, actor: Actor, payload: Any) -> Committed:
        """Run a command; returns once its events are on disk. A client's command (in a request or on a socket)
        takes its turn among its seat's and its address's (``throttle.Seats``): refused ``Busy`` past them."""
        if isinstance(payload, dict) and payload.get("type") in safety.ANONYMOUS:
            # the X-card: its command id is dropped here, never stored beside its seat (a repeat changes nothing)
            payload = {k: v for k, v in payload.items() if k != "cid"}
        payload, cid = command_id(payload)
        if cid is not None:  # a command sent again (a reconnect) waits for its first sending, then is its repeat
            with self._command_id(game_id, actor.audience, cid):
                token = COMMAND_ID.set((actor.audience, cid))
                try:
                    return self.execute(game_id, actor, payload)
                except Repeat as repeat:
                    return repeat.done
                finally:
                    COMMAND_ID.reset(token)
        if not has_request_context():  # the server's own (the demo, a command-line import, a test's setup)
            return self._execute(game_id, actor, payload)
        seat, client = f"{game_id}:{actor.audience}", _client()
        with self.seats.turn(seat, client):
            done = self._execute(game_id, actor, payload)
        if done.events and actor.role != "gm":  # the GM runs the table (and scripts it): a fair share, no rate
            self.seats.spent(seat, client)
        return done

    @contextlib.contextmanager
    def _command_id(self, game_id: str, seat: str, cid: str):
        """Commands with the same id from the same seat run one after the other (in this process; the log's
        key on the id settles it between processes)."""
        key = (game_id, seat, cid)
        with self._guard:
            held = self._cids.setdefault(key, [threading.Lock(), 0])
            held[1] += 1
        try:
            with held[0]:
                yield
        finally:
            with self._guard:
                held[1] -= 1
                if not held[1]:
                    del self._cids[key]

    def quiet_for(self) -> float:
        """Seconds since the last command carried out in this process ended; 0 while one runs. Work that can
        wait (the replay's live checkpoints) waits for a quiet moment: no move waits behind it."""
        with self._guard:
            return 0.0 if self._running else time.monotonic() - self._ran_at

    @contextlib.contextmanager
    def _running_command(self):
        """Counts the command carried out meanwhile (``quiet_for``)."""
        with self._guard:
            self._running += 1
        try:
            yield
        finally:
            with self._guard:
                self._running -= 1
                self._ran_at = time.monotonic()

    def _execute(self, game_id: str, actor: Actor, payload: Any) -> Committed:
        with self._running_command():
            if not (isinstance(payload, dict) and payload.get("type") in HEAVY_COMMANDS):
                return self._execute_one(game_id, actor, payload)
            with self._heavy_lock:
                if game_id in self._heavy:
                    raise throttle.Busy(HEAVY_BUSY)
                self._heavy.add(game_id)
            try:
                return self._execute_one(game_id, actor, payload)
            finally:
                with self._heavy_lock:
                    self._heavy.discard(game_id)

    def _execute_one(self, game_id: str, actor: Actor, payload: Any) -> Committed:
        if isinstance(payload, dict) and payload.get("type") in keys.COMMAND_TYPES:
            return self.security_command(game_id, actor, keys.parse(payload))
        if isinstance(payload, dict) and payload.get("type") in replay_view.COMMAND_TYPES:
            # a view, not a change: nothing is appended to the log, the answer carries the seq of the log's head
            reply = self.replays.command(game_id, actor, replay_view.parse(payload))
            return Committed(self.game(game_id).seq, [], reply)
        cmd = parse_command(payload)
        if isinstance(cmd, safety.XCard) and actor.role == "player" and not self.x_cards.take(f"{game_id} {actor.audience}"):
            raise Rejected(N_("You tapped the X-card a moment ago: the GM has it. Tap again in a minute if you need to."))
        if isinstance(cmd, (attacks.PreviewAttack, combat.Reach)):  # questions: answered, nothing stored
            with self.lock(game_id):
                game = self.game(game_id)
                if game is None:
                    raise Rejected(N_("no game %(id)s"), id=repr(game_id))
                authorize(game, cmd, actor)  # the access matrix: who may send this at all
                if isinstance(cmd, combat.Reach):
                    return Committed(game.seq, [], combat.reach(game, cmd, actor))
            return self.preview_attack(game_id, actor, cmd)
        # the access matrix is checked on the very state the command is decided on (in the commit's batch)
        if isinstance(cmd, undo.Undo):
            def decide_undo(game: Game) -> list[Event]:
                authorize(game, cmd, actor)
                return undo.decide(game, actor, self.store, game_id, replay)

            return self.commit(game_id, decide_undo, alone=True)

        def answer(events: list[Event]) -> dict:
            return table_ack(events, actor)

        def decide_counted(game: Game) -> list[Event]:
            events = decide(game, cmd, actor, self.dice(game))  # decide authorizes
            self.allowance.charge(game_id, actor, events)  # a seat cannot fill the disk
            return events

        done = self.commit(game_id, decide_counted, answer=answer)
        return Committed(done.seq, done.events, answer(done.events))

    # --- keys and password (GM) ----------------------------------------------

    def security_command(self, game_id: str, actor: Actor, cmd, end_gm_sessions: bool = True) -> Committed:
        """Set or clear the GM password, or give the game a new join code or table-screen key.

        ``end_gm_sessions=False``: the caller ends the GM connections itself, later (the Security card
        does once its answer, which unlocks the GM's own browser, has been sent)."""
        game = self.game(game_id)
        if game is None:
            raise Rejected(N_("no game %(id)s"), id=repr(game_id))
        access.check_command(game, cmd, actor)
        if isinstance(cmd, (keys.SetGmPassword, keys.ClearGmPassword)):
            password = cmd.password if isinstance(cmd, keys.SetGmPassword) else None
            if password is None and game.gm_password is None:
                return Committed(game.seq, [])
            done = self.commit(game_id, lambda g: [keys.password_event(password)])
            if password is not None and end_gm_sessions:  # every GM connection opened without it ends
                self.end_gm_sessions(game_id)
            return done
        if isinstance(cmd, keys.RotateJoinCode):
            code = self.rotate_join_code(game_id)
            return Committed(game.seq, [], {"join_code": code})
        key = new_key()
        self.store.update_access(game_id, screen_key=key)
        self.end_sessions(game_id, None, N_("The GM gave the table screen a new link: this one no longer works. "
                                            "Open the table screen again from the GM's page."), role="screen")
        self._emit_gm_extra(game)
        return Committed(game.seq, [], {"screen_token": key})

    def end_gm_sessions(self, game_id: str) -> None:
        """The GM link got a password: its connections end; their pages reload and ask for it."""
        self.end_sessions(game_id, None, N_("The GM link now needs its password."), reload=True, role="gm")

    def rotate_join_code(self, game_id: str) -> str:
        for _ in range(10):
            code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))
            if self.store.game_by_join_code(code) is None:
                break
        self.store.update_access(game_id, join_code=code)
        game = self.game(game_id)
        with self.lock(game_id):
            self._emit(game, {"join_toggle", "join_banner"}, before=game.seq)
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

    def preview_attack(self, game_id: str, actor: Actor, cmd) -> Committed:
        """An attack as it would be, with its odds: answered to the sender and shown to the GM; nothing stored."""
        with self.lock(game_id):
            game = self.game(game_id)
            if game is None:
                raise Rejected(N_("no game %(id)s"), id=repr(game_id))
            view = attacks.preview(game, cmd, actor)
            with self.app.app_context():
                html = render.attack_preview(game, actor, view)
            if actor.role != "gm":
                for lang, to in self._language_groups(game, "gm").items():  # in each of the GM's devices' languages
                    with self.app.app_context(), language.speaking(lang):
                        gm_html = render.attack_preview(game, GM, view, echo=True)
                    self.socketio.emit("attack_preview", {"html": gm_html, "view": view}, to=to if len(to) > 1 else to[0])
            return Committed(game.seq, [], {"preview": view, "html": html})

    def dice(self, game: Game) -> DiceSource:
        """The game's dice: the system's randomness, or seeded per game and step when DICE_SEED is set (tests, demos).

        Seeded by the game's name and system, not its id: the id is random, so a test or a demo
        that makes its game afresh rolls the same dice on every run."""
        seed = self.app.config.get("DICE_SEED")
        if seed is None:
            return RandomDice()
        return SeededDice(f"{seed}:{game.name}:{game.system}:{game.seq}")

    def commit(self, game_id: str, decide_events, alone: bool = False, answer=None) -> Committed:
        """Decide events on the current state, append them, apply them, broadcast them; returns once they
        are committed to the log, sent to every audience and on the disk (``Appending.durable``: waited for
        after the game's lock is let go, so the game's next batch is decided and shown meanwhile).

        Group commit: the request joins the game's queue; whoever holds the game's lock next takes every
        request waiting (in the order queued), decides each on the state its predecessors left, writes
        all their events in one transaction (one fsync), applies them and sends one update per audience
        for the lot. Each request's answer is set only after that transaction committed; a write that
        fails refuses every request of the batch and drops the in-memory state (it ran ahead of the log),
        so nothing unstored is ever acknowledged or broadcast. ``alone``: a decision that reads the log
        itself (undo) runs after what is queued before it is stored, in a batch of its own.

        A command with an id (``COMMAND_ID``) has it stored with its events, in their transaction, with its
        answer (``answer(events)``, besides ok and seq); one whose id is stored already is not decided again
        but raises ``Repeat`` with the first answer.
        """
        cid = COMMAND_ID.get()
        request = _Request(decide_events, SENDER_GIVES_UP.get(), alone, cid, answer,
                           look_up=cid is not None and self._seen_before(game_id, cid))
        with self._guard:
            self._pending.setdefault(game_id, []).append(request)
        queued = COMMAND_QUEUED.get()
        if queued is not None:
            queued()  # the sender's lane may start its next command: it queues behind this one
        with self.lock(game_id):
            if not request.finished:  # else a batch run by another thread holding the lock took it
                self._run_queue(game_id)
            if not request.finished:
                raise RuntimeError(f"game {game_id}: a command was left out of its commit")
        if request.error is not None:
            raise request.error
        for stored in request.stored:  # on the disk before its sender hears "ok"; the game's next batch
            try:  # goes on meanwhile (the fsyncs are done in the order of their commits)
                stored.durable()
            except WriteFailed:  # PostgreSQL may have lost it (restarted before its flush): the state in memory
                with self.lock(game_id):  # is rebuilt from the log, which says what stands
                    self._games.pop(game_id, None)
                raise
        return request.result

    def _seen_before(self, game_id: str, cid: tuple[str, str]) -> bool:
        """Whether this process took a command with this id lately (``SEEN_CIDS_KEPT`` ids), and notes it: a
        command sent again (a phone that did not hear its answer) is looked for in the log before it is decided
        (``_decide_batch``). One never seen here is decided at once: were it stored already (by another process,
        or before a restart), the log's key on the id refuses its write (``Conflict``), and it is looked for
        then. On PostgreSQL that look-up is a round trip to the server on the way of every command."""
        key = (game_id, *cid)
        with self._guard:
            seen = key in self._seen_cids
            if seen:
                self._seen_cids.move_to_end(key)
            else:
                self._seen_cids[key] = None
                if len(self._seen_cids) > SEEN_CIDS_KEPT:
                    self._seen_cids.popitem(last=False)
        return seen

    def _run_queue(self, game_id: str) -> None:
        """Holding the game's lock: run the requests waiting for this game now, in batches. (Each request's
        thread takes the lock after queueing it, so what queues later has a thread of its own to run it.)"""
        with self._guard:
            waiting = self._pending.pop(game_id, [])
        while waiting:
            cut = next((i for i, r in enumerate(waiting) if r.alone), len(waiting))
            batch, waiting = (waiting[:1], waiting[1:]) if cut == 0 else (waiting[:cut], waiting[cut:])
            try:
                self._commit_batch(game_id, batch, absorb=not waiting)
            except BaseException as exc:  # never leave a request without an answer
                log.exception("game %s: a commit failed", game_id)
                for request in batch + waiting:
                    request.fail(exc)
                return

    def _commit_batch(self, game_id: str, batch: list["_Request"], absorb: bool = False) -> None:
        """Decide, store (one transaction), apply and broadcast one batch; every request gets its answer.
        ``absorb``: nothing queued before this batch waits still, so what queued while it was being stored
        may join its update (``_absorb``)."""
        races = 0  # write races lost in a row: each one means another process stored something meanwhile
        while True:
            try:
                game = self.game(game_id)
                if game is None:
                    raise Rejected(N_("no game %(id)s"), id=repr(game_id))
            except Exception as exc:  # no such game, or its log cannot be read (DamagedLog)
                for request in batch:
                    request.fail(exc)
                return
            batch = [r for r in batch if not r.finished]
            if not batch:
                return
            before = game.seq
            update = early = writing = None
            backup = self._backup(game)
            try:
                decided = self._decide_batch(game, batch)
                if decided:
                    update, early, writing = self._store_and_render(game, before, decided)
            except _Unappliable as exc:  # a bug: refuse that command, rebuild the state, decide the others again
                self._games.pop(game_id, None)
                log.error("game %s: an event that cannot be applied: %r", game_id, exc.error)
                exc.request.fail(exc.error)
                self._send_fresh_copies(game_id)
                continue
            except Conflict:  # another process wrote first: catch up with its events, decide again on them
                races += 1
                for request in batch:  # (or a command's id is stored already: its repeat)
                    request.look_up = True
                if races >= MAX_RACES:  # never seen in practice: the senders try again, nothing of theirs is stored
                    log.warning("game %s: lost the write race %s times in a row", game_id, races)
                    self._games.pop(game_id, None)
                    for request in batch:
                        request.fail(Rejected(TOO_LATE, code="busy"))
                    return
                self._lost_race(game_id, backup, races)
                continue
            except WriteFailed as exc:
                # not on disk, so not in memory either: the state never runs ahead of the log
                self._games.pop(game_id, None)
                log.error("game %s: %s", game_id, exc.__cause__ or exc)
                away = self.store.away(exc.__cause__)  # the database's server, restarting: said
                # so in the sender's language (and not where it is: the phones need not know the database's address)
                for request in batch:
                    request.fail(Rejected(DATABASE_AWAY, code="unavailable") if away
                                 else Rejected(str(exc), code="not_stored"))
                self._send_fresh_copies(game_id)
                return
            except BaseException:
                self._games.pop(game_id, None)  # applied in memory, not in the log: rebuild from the log
                raise
            break
        writings = [writing] if writing is not None else []  # each waited for before "ok" (``durable``)
        if decided and absorb:
            alone = len(decided)
            game, decided = self._absorb(game_id, game, decided, writings)
            if game is None or len(decided) != alone:  # it has more (or less) to show now than was rendered
                update = None
                self._absorbing.add(game_id)
            else:
                self._absorbing.discard(game_id)
        events = [e for _r, evs in decided for e in evs]
        if events:
            try:
                if game is None:  # an absorbed round was not stored: the state as the log has it
                    game = self.game(game_id)
            except Exception:
                log.exception("game %s: no state to show seq %s..%s from", game_id, before + 1,
                              before + len(events))
                game = None
        if events and game is not None:
            try:
                self._end_sessions_for(game, events)
                if update is not None:
                    self._send_update(update)
                elif early is None:
                    self._broadcast(game, before, events)
                else:  # the others heard up to ``early`` already: the rest to them, the whole to the GM
                    audiences, rest = self._audiences(game), events[early - before:]
                    others = [a for a in audiences if a != "gm"]
                    if rest and others:
                        self._emit(game, render.changes_for(rest, game), before=early, only=others)
                    if "gm" in audiences:
                        self._emit(game, render.changes_for(events, game), before=before, only=["gm"])
            except Exception:  # stored and applied: the commands are done, whatever the screens heard
                log.exception("game %s: the update for seq %s..%s failed", game_id, before + 1, game.seq)
            if game.seq // SNAPSHOT_EVERY != before // SNAPSHOT_EVERY:  # once every screen heard (GM's included):
                try:  # its few ms on a big map delay no update, only the senders' "ok"
                    self.store.save_snapshot(game_id, game.seq, game.to_dict())
                except Exception:  # the events are stored; a snapshot is only a shortcut
                    log.warning("game %s: no snapshot at seq %s", game_id, game.seq, exc_info=True)
            self.replays.played(game, before)  # the replay's checkpoint, every LIVE_EVERY events (at a quiet moment)
        seq = before
        for request, evs in decided:  # each waits for the disk (``writings``' fsyncs) before it answers "ok"
            seq += len(evs)
            request.succeed(Committed(seq, evs), writings)

    def _backup(self, game: Game) -> Game | None:
        """A copy of the game's state before a batch is decided on it, while another process writes to this game
        too (``_contended``): if that process stores its events first (``Conflict``), the state the log had
        is this copy, caught up with the other's events (``_lost_race``), not the whole game rebuilt. None when
        no one else wrote to it lately (a copy costs a few ms on a big map; a lone writer never loses a race).

        The copy shares what is never changed in place (the boards' walls, doors and cover are frozen
        values) and leaves out caches (the boards' paths, the fog's vision): they are rebuilt as needed."""
        if self.shared is None or self._contended.get(game.id, 0.0) < time.monotonic():
            return None
        memo: dict = {id(game.vision): None}
        for board in [game.board] + [m.board for m in game.maps.values() if m.board is not None]:
            memo[id(board._cache)] = {}
            for part in (board._walls, board._doors, board._cover):
                for value in part.values():
                    memo[id(value)] = value
        return copy.deepcopy(game, memo)

    def _lost_race(self, game_id: str, backup: Game | None, races: int) -> None:
        """Another process stored its events first: the state in memory holds ours, decided but never stored.
        It is replaced by the state before them (``backup``) caught up with the other's events from the log
        (one read of the events after its seq), or, with no copy, rebuilt from the log; the batch is then
        decided again on it: a command the other's events made impossible is refused for its own reason."""
        self._contended[game_id] = time.monotonic() + CONTENDED_FOR_S
        if races > 2:  # the other is writing as fast as it can: let it finish its write before trying again
            time.sleep(random.uniform(0, 0.002 * min(races, 20)))
        if backup is None:
            self._games[game_id] = self._load(game_id)
        else:
            self._games[game_id] = backup
            self._games[game_id] = self._catch_up(game_id, backup)

    def _store_and_render(self, game: Game, before: int, decided: list) -> "tuple[_Update | None, int | None, Appending]":
        """Store the decided events after ``before`` (with their commands' ids: ``_with_ids``) and render their
        update meanwhile; returns the update, the seq the screens other than the GM's were sent already (or
        None: ``_first``), and the append (``Store.begin_append``), whose ``durable()`` the caller waits for
        before anyone hears "ok". Raises as ``Store.append``. SQLite: the events are committed
        before the rendering starts (no wait for the disk: its fsync runs on the writer thread meanwhile);
        PostgreSQL: the transaction is sent, the update for the other screens drawn while the server commits it,
        and sent once its answer says it is committed (``_first``; its flush then runs on the writer thread while
        the GM's part is drawn). The screens hear of the change once it is committed (nothing is sent before).
        None for the update: none was rendered (there is more to do first, the write failed, or rendering failed),
        the caller renders it once the events are stored. Nothing is rendered ahead when more commands wait for
        this game, or others joined its last update (they would likely join this one: ``_absorb``, and it would be
        rendered twice), or when connections will end first (``ENDS_SESSIONS``). SQLite's others' update goes out
        language by language as each is drawn (``_first``)."""
        events, applied = self._with_ids(before, decided)  # stored with their commands' ids, in one transaction
        writing = self.store.begin_append(game.id, before, events, *([applied] if applied else []))
        update, sent = None, False
        try:
            if not writing.committed and not writing.failed:  # PostgreSQL's, its answer out: what arrived meanwhile
                self.socketio.sleep(0)  # queues now (as it did while the answer was waited for), so a game's
                # commands in a hurry still join one update (``_absorb``) rather than each drawn ahead of its own
            with self._guard:
                waiting = bool(self._pending.get(game.id)) or game.id in self._absorbing
            if not waiting and not writing.failed and not any(e.type in ENDS_SESSIONS for e in events):
                try:
                    changes, audiences = render.changes_for(events, game), self._audiences(game)
                    renders: dict = {}  # one update: the GM's part finds what the others' drew (words, values)
                    # the other screens first, while the GM's part is drawn (``_first``), once the events are committed
                    sent = self._first(game, changes, before, [a for a in audiences if a != "gm"], renders, writing)
                    writing.sync()  # the flush its "ok" waits for: on the writer thread, while the GM's is drawn
                    if not sent:
                        update = self._render_update(game, changes, before, only=audiences)
                    elif "gm" in audiences:
                        update = self._render_update(game, changes, before, only=["gm"], renders=renders)
                    else:
                        update = _Update(game.seq, {}, {})
                except (Conflict, WriteFailed):  # the write's answer (``finish``): nothing was sent
                    raise
                except Exception:  # rendered again once stored (and logged then, if it fails again)
                    log.debug("game %s: the update was not rendered ahead of its write", game.id, exc_info=True)
                    update = None
        finally:
            writing.finish()
        return update, (before + len(events) if sent else None), writing

    def _first(self, game: Game, changes: set[str], before: int, others: list[str], renders: dict,
               writing: Appending) -> bool:
        """The update to ``others`` (every audience but the GM's), drawn, then sent once the events are committed
        (``writing.finish()``: SQLite's are already; PostgreSQL's answer is read now, the server having committed
        while this was drawn; raises as ``Store.append``, and nothing is sent), heard before the GM's part is drawn:
        the GM made most changes and sees them on the GM page already, the others wait for them. True when
        something was sent (the GM's part is then drawn on its own, with ``renders``: the update's shared renders);
        False: nobody else is here, draw the GM's with the rest."""
        if not others:
            writing.finish()
            return False
        if writing.committed:  # SQLite: each language's part heard as soon as it is drawn
            self._render_update(game, changes, before, only=others, renders=renders, each=self._send_now)
        else:  # PostgreSQL: drawn while the server commits, heard once its answer says it did
            update = self._render_update(game, changes, before, only=others, renders=renders)
            writing.finish()
            self._send_now(update)
        return True

    def _send_now(self, update: "_Update") -> None:
        """Send a part of an update now (``_render_update``'s ``each``: one language's, while the next is drawn)."""
        self._send_update(update)
        self.socketio.sleep(0)  # the sockets' writers run now (gevent), not after what is drawn next

    def _send_fresh_copies(self, game_id: str) -> None:
        """After a batch's state was dropped (not stored): for the moment between its decision and its write
        the state in memory was ahead of the log, and a page rendered then may show it (and carry its seq).
        Every screen gets a fresh copy of the state the log holds (``from_seq`` null), so none keeps it."""
        try:
            game = self.game(game_id)
            if game is not None:
                self._emit(game, render.EVERYTHING, before=None)
        except self.store.unavailable as exc:  # nothing was sent of it then; the screens' next update reads the log
            log.warning("game %s: no fresh copy, the database does not answer (%s)", game_id, exc)
        except Exception:
            log.exception("game %s: no fresh copy after a commit that was not stored", game_id)

    def _absorb(self, game_id: str, game: Game, decided: list, writings: list) -> tuple[Game | None, list]:
        """Requests that queued while a batch was being stored (or its update drawn) join its one update: each
        round is decided and stored in a transaction of its own (its append added to ``writings``, waited for
        before "ok"), and answered only with the rest, after the broadcast. Rendering every audience costs far more than a commit, so a client with commands in
        flight gets one update for them, not one per commit. A round that cannot be stored (another
        process wrote first, the disk...) goes back to the head of the queue, undecided, to be run again
        on the state the log has; the state it changed is dropped (None: rebuild it from the log)."""
        for _round in range(ABSORB_ROUNDS):
            with self._guard:
                pending = self._pending.get(game_id) or []
                n = next((i for i, r in enumerate(pending) if r.alone), len(pending))
                take = pending[:n]
                del pending[:n]
            if not take:
                break
            start = game.seq
            backup = self._backup(game)
            try:
                more = self._decide_batch(game, take)
                if more:
                    writings.append(self._store(game_id, start, more))  # on the disk before they hear "ok"
            except Exception as exc:
                if isinstance(exc, Conflict) and backup is not None:  # the state before this round: caught up
                    self._games[game_id] = backup  # with the other's events when the batch runs again
                    self._contended[game_id] = time.monotonic() + CONTENDED_FOR_S
                else:
                    self._games.pop(game_id, None)
                again = [r for r in take if not r.finished]
                for request in again:
                    request.look_up = True  # (the conflict may be its id, stored already)
                with self._guard:
                    self._pending.setdefault(game_id, [])[:0] = again
                log.info("game %s: commands that joined a commit go back to wait (%r)", game_id, exc)
                return None, decided
            decided = decided + more
        return game, decided

    @staticmethod
    def _with_ids(before: int, decided: list) -> tuple[list[Event], list]:
        """The decided events after ``before``, and the ids of the commands that carry one (each with the seq of
        its last event and its answer), to be stored in one transaction (``Store.append``'s ``applied``)."""
        applied, seq = [], before
        for request, events in decided:
            seq += len(events)
            if request.cid is not None:
                applied.append(Applied(request.cid[0], request.cid[1], seq, request.answer(events) if request.answer else {}))
        return [e for _r, evs in decided for e in evs], applied

    def _store(self, game_id: str, before: int, decided: list) -> Appending:
        """The decided events after ``before``, in one transaction with their commands' ids (``_with_ids``);
        committed when this returns (raises as ``Store.append``), on the disk once its ``durable()`` returns."""
        events, applied = self._with_ids(before, decided)
        writing = self.store.begin_append(game_id, before, events, *([applied] if applied else []))
        writing.finish()
        return writing

    def _decide_batch(self, game: Game, batch: list["_Request"]) -> list[tuple["_Request", list[Event]]]:
        """Decide each request on the state the ones before it left, applying their events in memory (not
        yet stored: the caller writes them or drops this state). A refusal answers its request at once."""
        decided = []
        for request in batch:
            if request.gives_up is not None and time.monotonic() > request.gives_up:
                request.fail(Rejected(TOO_LATE, code="busy"))  # it waited that long: too late now
                continue
            if request.look_up and self._repeated(game, request):
                continue
            try:
                events = request.decide(game)
            except Exception as exc:  # refused (or a bug): this request only; the state is untouched
                # (a repeat decided again is often refused as done: the first answer is its answer then)
                if request.look_up or not self._repeated(game, request):
                    request.fail(exc)
                continue
            if not events:  # nothing changed (Save on an unchanged row): nothing to write or tell
                if request.look_up or not self._repeated(game, request):
                    request.succeed(Committed(game.seq, []))
                continue
            try:
                for event in events:
                    evolve(game, event)
            except Exception as exc:
                raise _Unappliable(request, exc) from exc
            decided.append((request, events))
        return decided

    def _repeated(self, game: Game, request: "_Request") -> bool:
        """Whether the request's command id is stored already (on the state caught up with the log: another
        process's commit counts); it is then answered as its first sending was (``Repeat``). Asked before a
        request is decided when it may be a repeat (``look_up``), and for a command decided without the
        look-up whose decision writes nothing (a repeat's decision is often a refusal: the move was made)."""
        if request.cid is None or request.finished:
            return False
        first = self.store.applied(game.id, *request.cid)
        if first is None:
            return False
        request.fail(Repeat(Committed(first[0], [], {**first[1], "repeat": True})))
        return True

    # --- connections and audiences ----------------------------------------

    def session_opened(self, sid: str, game_id: str, actor: Actor, lang: str = "en") -> None:
        with self._guard:
            self._sessions[sid] = (game_id, actor)
            self._session_language[sid] = lang
            self._languages[(game_id, actor.audience, lang)] += 1
        if self.shared is not None:
            self.shared.opened(sid, game_id, actor.audience, lang)
        self.connected(game_id, actor, +1)

    def session_closed(self, sid: str) -> None:
        with self._guard:
            who = self._sessions.pop(sid, None)
            lang = self._session_language.pop(sid, None)
            if who and lang is not None:
                key = (who[0], who[1].audience, lang)
                self._languages[key] -= 1
                if self._languages[key] <= 0:
                    del self._languages[key]
        if who:
            if self.shared is not None:
                self.shared.closed(sid)
            self.connected(who[0], who[1], -1)

    def said_to(self, sid: str, message: str, params: dict | None = None) -> str:
        """A message id (``N_``) with its parameters in the language of this connection's device."""
        with self._guard:
            language = self._session_language.get(sid)
        with self.app.app_context():
            return said_in(language, message, params)

    def session(self, sid: str) -> tuple[str, Actor] | None:
        with self._guard:
            return self._sessions.get(sid)

    def end_sessions(self, game_id: str, player_ids, message: str, reload: bool = False,
                     role: str | None = None, params: dict | None = None) -> None:
        """Close the connections of these players now (removed, merged, seat taken on another device),
        or of every connection of a role (``role="screen"``: the screen's key changed). ``message`` is a
        message id (``N_``) with its ``params``: each connection reads it in its own device's language."""
        def ends(audience: str) -> bool:
            actor = actor_for_audience(audience)
            return actor.role == role if role else actor.player_id in player_ids

        said: dict[str, str] = {}

        def notice(language: str | None) -> dict:
            language = language or "en"
            if language not in said:
                with self.app.app_context():
                    said[language] = said_in(language, message, params)
            return {"message": said[language], "reload": reload}

        with self._guard:
            sids = [(sid, self._session_language.get(sid)) for sid, (g, actor) in self._sessions.items()
                    if g == game_id and ends(actor.audience)]
        for sid, language in sids:
            self.socketio.emit("ended", notice(language), to=sid)
            self.socketio.server.disconnect(sid, namespace="/")
            self.session_closed(sid)
        if self.shared is not None:
            # the connections on the other processes: the message queue carries the message and the
            # disconnect to the process that holds each (its disconnect handler then forgets it there);
            # only those opened before now (a seat taken back on a new device keeps the new connection)
            now = time.time()
            for sid, process, audience, opened, member, language in self.shared.connections(game_id):
                if process != self.shared.process and ends(audience) and opened <= now:
                    self.socketio.emit("ended", notice(language), to=sid)
                    self.socketio.server.disconnect(sid, namespace="/")
                    self.shared.forget(game_id, member)

    def _end_sessions_for(self, game: Game, events: list[Event]) -> None:
        for event in events:
            d = event.data
            if event.type == "player_removed":
                self.end_sessions(game.id, {d["player_id"]}, N_("The GM took you out of this game."))
            elif event.type == "players_merged":
                self.end_sessions(game.id, {d["player_id"]}, N_("The GM merged your seat with another."), reload=True)
            elif event.type == "player_reclaimed":
                self.end_sessions(game.id, {d["player_id"]},
                                  N_("Your seat was taken back on another device with your name."))

    def connected(self, game_id: str, actor: Actor, delta: int) -> None:
        key = (game_id, actor.audience)
        with self._guard:
            self._presence[key] += delta
            if self._presence[key] <= 0:
                del self._presence[key]
        if actor.role == "player":
            game = self.game(game_id)
            with self.lock(game_id):
                self._emit(game, {"players"}, only=["gm"], before=game.seq)

    def presence_changed(self, game_id: str) -> None:
        """Connections to a game came or went without a word from them (their process was killed):
        the GM's list of who is online is drawn afresh."""
        game = self.game(game_id)
        if game is not None:  # from the heartbeat thread: links in the GM's list need a request to be built
            with self.app.test_request_context(base_url=self.base_url()), self.lock(game_id):
                self._emit(game, {"players"}, only=["gm"], before=game.seq)

    def _every_language_if_unknown(self, game: Game, known: dict[str, set[str]] | None) -> dict[str, set[str]]:
        """``shared``'s languages, or every language for every audience when Redis did not answer."""
        return {audience: set(language.CHOOSABLE) for audience in self._audiences(game)} if known is None else known

    def _online_and_languages(self, game: Game) -> tuple[set[str], dict[str, set[str]]]:
        """``online_players`` and ``device_languages``: with ``shared``, from one read of Redis."""
        if self.shared is None:
            return self.online_players(game.id), self.device_languages(game)
        audiences, known = self.shared.presence(game.id)
        return _players_in(audiences), self._every_language_if_unknown(game, known)

    def online_players(self, game_id: str) -> set[str]:
        """The players connected to this game now: to this process, or with ``shared``, to any."""
        if self.shared is not None:
            return _players_in(self.shared.audiences(game_id))
        with self._guard:
            return _players_in(aud for (g, aud), n in self._presence.items() if g == game_id and n > 0)

    def _audiences(self, game: Game) -> list[str]:
        """The audiences to render for: those connected to this process; with ``shared``, every audience
        of the game (a client of another process is in its room there; an empty room costs one publish)."""
        if self.shared is not None:
            return ["gm", "screen", *(f"player:{pid}" for pid in game.players)]
        with self._guard:
            return [aud for (g, aud), n in self._presence.items() if g == game.id and n > 0]

    def _broadcast(self, game: Game, before: int, events: list[Event]) -> None:
        self._emit(game, render.changes_for(events, game), before=before)

    def _shown_to_all(self, game_id: str) -> render.Lazy:
        """What every audience's fragments may show besides the game, read once per update and only
        if a fragment shows it (the join code is in the database)."""
        read: dict = {}

        def shown(c, name: str):
            if not read:
                read.update(self.join_info(game_id))
            return read[name]
        return render.Lazy({name: functools.partial(shown, name=name) for name in ("join_code", "join_url", "join_qr")})

    def _emit(self, game: Game, changes: set[str], before: int, only: list[str] | None = None) -> None:
        """Each audience's fragments to its room (``_render_update``, then ``_send_update``)."""
        self._send_update(self._render_update(game, changes, before, only))

    def _render_update(self, game: Game, changes: set[str], before: int, only: list[str] | None = None,
                       renders: dict | None = None, each: Callable[["_Update"], None] | None = None) -> "_Update":
        """Each audience's fragments, not sent yet and nothing noted as sent: a fragment several audiences see
        alike is rendered once (``render.view_key``), and what is the same for all (join link, who is online)
        is read once. Audiences whose whole update is the same html (players who see the same) get one message
        sent to all their rooms at once (encoded once, published once). Holding the game's lock (so what is
        noted as shown to each audience does not change before ``_send_update``). ``renders``: the update's
        shared renders (``render.fragments``), when another part of the same update was drawn already.
        ``each``: given each language's part as soon as it is drawn (its devices hear it while the next language
        is drawn: the languages read by the most devices first); what is returned then holds nothing more."""
        renders = {} if renders is None else renders
        # read once per update, for its first part and the GM's drawn after it (with ``shared``: one read of Redis)
        found = renders.get(_READ_ONCE)
        if found is None:
            found = renders[_READ_ONCE] = (self._shown_to_all(game.id), *self._online_and_languages(game))
        extra, online, known = found
        rooms: dict[tuple, list[str]] = {}  # (html, from seq) -> the rooms it goes to, in the order first rendered
        shown: dict[tuple, tuple] = {}  # (game, audience) -> what it will have been sent (``self._shown``)
        # once per language each audience's devices read (#37): the parts each language shares with another
        # audience are still rendered once (render.view_key holds the language); drawn language by language, so
        # the reader's language is entered once per language, not once per audience
        with self.app.app_context(), contextlib.ExitStack() as speaking:
            drawn = []
            for audience in only or self._audiences(game):
                if self.replays.replaying(game.id, audience):
                    continue  # shown a past moment: the present comes back whole with "back to the table"
                if audience == "screen":
                    self._screen_language_now(game)
                drawn += [(lang, audience, to) for lang, to in self._language_groups(game, audience, known).items()]
            # the language most devices read first (rooms: one per language an audience's devices read), so with
            # ``each`` most devices hear it soonest; stable: each language's audiences in their order
            rooms_of: Counter = Counter()
            for lang, _audience, to in drawn:
                rooms_of[lang] += len(to)
            drawn.sort(key=lambda d: (-rooms_of[d[0]], d[0]))
            said = None  # the language spoken now: entered again only when the next audience reads another
            for lang, audience, to in drawn:
                if each is not None and lang != said and rooms:  # the language before this one is drawn: off it goes
                    each(_Update(game.seq, rooms, shown))
                    rooms, shown = {}, {}
                key = (game.id, audience, lang)
                quiet = self._quiet(audience) and before is not None
                from_seq, sent = self._shown.get(key, (before, {})) if quiet else (before, None)
                if sent is not None:
                    sent = dict(sent)  # render.fragments notes in it what it sends: the record changes once sent
                if lang != said:
                    speaking.close()
                    speaking.enter_context(language.speaking(lang))
                    said = lang
                html = render.fragments(game, actor_for_audience(audience), changes, online=online,
                                        extra=extra, renders=renders, since=before, sent=sent)
                if quiet:
                    if not html:  # nothing this audience can see changed: it hears nothing now
                        shown[key] = (from_seq, sent)
                        continue
                    shown[key] = (game.seq, sent)
                elif self._quiet(audience):  # a fresh copy of everything: what was sent before no longer counts
                    shown[key] = (game.seq, {})
                rooms.setdefault((html, from_seq), []).extend(to)
            if each is not None:
                each(_Update(game.seq, rooms, shown))
                rooms, shown = {}, {}
        return _Update(game.seq, rooms, shown)

    def group_language(self, game: Game, audience: str, device: str) -> str:
        """The language an audience's device is drawn in: the table screen's is the GM's choice for it
        (``screenview.screen_language``), else the device's own (its handshake's ``lang`` cookie or browser)."""
        if audience == "screen":
            return screenview.screen_language(game) or device
        return device

    def device_languages(self, game: Game) -> dict[str, set[str]]:
        """The languages each audience's devices read: this process's connections, or with several processes
        (``shared``) every process's (as Redis knows them; every language when it does not answer)."""
        if self.shared is not None:
            return self._every_language_if_unknown(game, self.shared.languages(game.id))
        out: dict[str, set[str]] = {}
        with self._guard:
            for (g, aud, lang), n in self._languages.items():
                if g == game.id and n > 0:
                    out.setdefault(aud, set()).add(lang)
        return out

    def _language_groups(self, game: Game, audience: str, known: dict[str, set[str]] | None = None) -> dict[str, list[str]]:
        """Each language this audience is drawn in, with the rooms of the devices that read it (``known``: the
        update's ``device_languages``, read once for all its audiences)."""
        devices = sorted((known if known is not None else self.device_languages(game)).get(audience, ()))
        groups: dict[str, list[str]] = {}
        for device in devices or ["en"]:
            groups.setdefault(self.group_language(game, audience, device), []).append(language_room(game.id, audience, device))
        return groups

    def _send_update(self, update: "_Update") -> None:
        """Each message to its rooms, the GM's last: most changes are the GM's own, on the GM's screen already,
        and a socket write that wakes its reader costs a while (docs/SERVING.md): the other screens hear first."""
        self._shown.update(update.shown)
        for (html, from_seq), to in sorted(update.rooms.items(), key=_to_the_gm):
            self.socketio.emit("update", {"seq": update.seq, "from_seq": from_seq, "html": html},
                               to=to if len(to) > 1 else to[0])

    def _screen_language_now(self, game: Game) -> None:
        """What the table screen was sent is kept per language it is drawn in; when the GM chooses another
        language for it (or none: its devices' own), its devices may be in a group whose record is from before
        (the language they read until the last change but one): each record of the screen goes, so the
        screen's next update carries everything it shows."""
        now = screenview.screen_language(game)
        if self._screen_languages.get(game.id, now) != now:
            with self._guard:
                for key in [k for k in self._shown if k[0] == game.id and k[1] == "screen"]:
                    del self._shown[key]
        self._screen_languages[game.id] = now

    def _quiet(self, audience: str) -> bool:
        """Whether this audience hears of changes only when it can see them (#25: an update sent at once for
        a change in the fog told a player that something happened there). Players and the table screen, in
        one process; with several processes (``shared``) each sends its own updates, so every update goes
        to every audience as before."""
        return audience != "gm" and self.shared is None

    def audience_joins(self, game_id: str, actor: Actor, lang: str = "en") -> None:
        """Before a connection joins its audience's room: when it is the audience's first in this process,
        what the audience was sent before no longer counts (its screens may have missed updates while none
        was here); its record starts again from the page the connection brings, the state now."""
        if not self._quiet(actor.audience):
            return
        game = self.game(game_id)
        if game is None:
            return
        group = self.group_language(game, actor.audience, lang)
        with self._guard:
            alone = not any(n > 0 and g == game_id and aud == actor.audience
                            and self.group_language(game, aud, device) == group
                            for (g, aud, device), n in self._languages.items())
        if not alone:
            return
        with self.lock(game_id), self.app.app_context(), language.speaking(group):
            sent: dict = {}
            render.note_shown(game, actor, sent, online=self.online_players(game_id), extra=self._shown_to_all(game_id))
            self._shown[(game_id, actor.audience, group)] = (game.seq, sent)

    def forget_shown(self, game_id: str, audience: str) -> None:
        """This audience's screens were just sent everything afresh (back from a replay): its record of what
        they show starts again from the state now."""
        if not self._quiet(audience):
            return
        game = self.game(game_id)
        with self.lock(game_id), self.app.app_context():
            for group in self._language_groups(game, audience):
                with language.speaking(group):
                    sent: dict = {}
                    render.note_shown(game, actor_for_audience(audience), sent, online=self.online_players(game_id),
                                      extra=self._shown_to_all(game_id))
                    self._shown[(game_id, audience, group)] = (game.seq, sent)

    def shown_seq(self, game: Game, audience: str, lang: str | None = None) -> int:
        """The seq this audience's screens are at: that of the last update it was sent (a page rendered now
        carries it, so the next update, which starts there, is taken); ``lang``: the device's language
        (default: the request's)."""
        group = self.group_language(game, audience, lang or language.request_language())
        found = self._shown.get((game.id, audience, group)) if self._quiet(audience) else None
        return game.seq if found is None else found[0]

    def resync(self, game_id: str, actor: Actor, sid: str) -> None:
        """Send one client everything it shows, fresh (after a gap or a reconnect)."""
        game = self.game(game_id)
        with self._guard:
            device = self._session_language.get(sid, "en")
        with self.lock(game_id), self.app.app_context(), language.speaking(self.group_language(game, actor.audience, device)):
            html = render.fragments(game, actor, render.EVERYTHING, online=self.online_players(game_id),
                                    extra=self._shown_to_all(game_id))
            self.socketio.emit("update", {"seq": self.shown_seq(game, actor.audience, device), "from_seq": None,
                                          "html": html}, to=sid)

    def preview(self, game_id: str, actor: Actor, payload: Any, sid: str) -> None:
        """A token on its way somewhere: shown to others, never stored.

        Checked like a move: the sender must be allowed to move the token, and the square must be on
        the board (a preview is relayed to every screen, so nothing unchecked goes out)."""
        if isinstance(payload, text.TooDeep):
            raise Rejected(text.too_deep_message())
        if not isinstance(payload, dict):
            raise Rejected(N_("a preview needs token_id, x and y"))
        text.check_payload(payload)
        if set(payload) - {"token_id", "x", "y", "done"}:
            raise Rejected(N_("a preview has token_id, x, y and done only"))
        token_id, x, y, done = payload.get("token_id"), payload.get("x"), payload.get("y"), payload.get("done", False)
        if not isinstance(x, int) or not isinstance(y, int) or isinstance(x, bool) or isinstance(y, bool):
            raise Rejected(N_("a preview needs whole-number x and y"))
        if not isinstance(done, bool):
            raise Rejected(N_("done: must be true or false"))
        game = self.game(game_id)
        access.check_command(game, payload, actor, kind="drag_preview")
        token = game.tokens.get(token_id) if isinstance(token_id, str) else None
        if token is None or not fog.may_see(game, actor, token):
            shown = repr(token_id) if isinstance(token_id, str) and len(token_id) <= 64 else "that"
            raise Rejected(N_("no token %(id)s in this game"), id=shown)
        board = game.board
        if not all(board.in_bounds(c) for c in game.cells_of(token, x, y)):  # its 1, 3 or 7 hexes on hexes
            raise Rejected(N_("(%(x)s, %(y)s) is off the map (%(w)s x %(h)s)"), x=x, y=y, w=board.width, h=board.height)
        message = {"token_id": token.id, "x": x, "y": y, "done": done}
        for audience in self._audiences(game):
            watcher = actor_for_audience(audience)
            # with fog, a token dragged into someone's fog is not shown going there
            if fog.may_see(game, watcher, token) and (message["done"] or fog.may_see_at(game, watcher, token, x, y)):
                self.socketio.emit("preview", message, to=room(game_id, audience), skip_sid=sid)


    def ping(self, game_id: str, actor: Actor, payload: Any, sid: str) -> dict:
        """A spot flashed on every screen with the pinger's name: shown, never stored (like a drag preview)."""
        if actor.role == "screen":
            raise Rejected(N_("the table screen only shows the map"))
        if not isinstance(payload, dict):
            raise Rejected(N_("a ping needs x and y"))
        x, y = payload.get("x"), payload.get("y")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in (x, y)):
            raise Rejected(N_("a ping needs x and y as numbers"))
        game = self.game(game_id)
        if not (0 <= x <= game.board.width and 0 <= y <= game.board.height):
            raise Rejected(N_("(%(x)s, %(y)s) is off the map (%(w)s x %(h)s)"), x=f"{x:g}", y=f"{y:g}",
                           w=game.board.width, h=game.board.height)
        if not self.pings.take(f"{game_id} {actor.audience}"):
            raise Rejected(N_("easy: a few pings a second at most"))
        player = game.players.get(actor.player_id or "")
        message = {"x": round(float(x), 2), "y": round(float(y), 2), "by": player.name if player else "GM"}
        for audience in self._audiences(game):
            self.socketio.emit("map_ping", message, to=room(game_id, audience))
        return message

    def template_preview(self, game_id: str, actor: Actor, payload: Any, sid: str) -> None:
        """A template on its way somewhere (dragged by ``dx``, ``dy`` squares): shown to others, never stored."""
        if actor.role == "screen":
            raise Rejected(N_("the table screen only shows the map"))
        if not isinstance(payload, dict):
            raise Rejected(N_("a template preview needs template_id, dx and dy"))
        game = self.game(game_id)
        template = game.templates.get(payload.get("template_id")) if isinstance(payload.get("template_id"), str) else None
        if template is None:
            raise Rejected(N_("no template %(id)s on this map"), id=repr(payload.get("template_id")))
        if actor.role == "player" and template.get("by") != actor.player_id:
            raise Rejected(N_("that template is not yours to move"))
        dx, dy = payload.get("dx"), payload.get("dy")
        reach = game.board.width + game.board.height
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= reach
                   for v in (dx, dy)):
            raise Rejected(N_("a template preview needs dx and dy in squares, within the map"))
        message = {"template_id": template["id"], "dx": round(float(dx), 2), "dy": round(float(dy), 2),
                   "done": bool(payload.get("done"))}
        for audience in self._audiences(game):
            self.socketio.emit("template_preview", message, to=room(game_id, audience), skip_sid=sid)

X_CARD_TAPS = (2, 60.0)  # a seat taps the X-card at most twice a minute (a pause, resumed, and one more)
PING_BURST, PING_WINDOW = 3, 1.0  # a seat (a player's every connection together) pings at most 3 times a second


def actor_for_audience(audience: str) -> Actor:
    if audience.startswith("player:"):
        return Actor("player", audience.split(":", 1)[1])
    return GM if audience == "gm" else SCREEN


def render_security(hub: Hub, game: Game, oob: bool = True, **extra) -> str:
    """The GM's Security card (and the table-screen link in the top bar), as out-of-band fragments."""
    from flask import render_template

    return render_template("_security.html", game=game, oob=oob, **hub.screen_info(game.id), key=hub.store.game(game.id).gm_key,
                           **hub.join_info(game.id), **extra)
