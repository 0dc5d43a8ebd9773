"""Several server processes for the same games (``tacmap serve --message-queue redis://...``).

Socket.IO's rooms are shared by Flask-SocketIO's Redis message queue: an ``update`` emitted
to a room on one process reaches that room's clients on every process. This module is the
rest of what the processes share through the same Redis:

- who is connected to each game, on any process (the GM's "online" dots, and the
  connections to end when a seat is removed, merged or reclaimed, or the screen's key
  changes): one sorted set per game, ``tacmap:sessions:<game>``, whose members are the
  connections and whose scores are when each stops counting unless its process renews it.
  Every process renews its own connections every ``HEARTBEAT`` seconds, so the connections
  of a killed process vanish after ``LIFETIME`` seconds at most;
- the GM password's wrong guesses, counted per game across processes, and room mode's wrong organiser
  passwords and GM PINs.

The game itself is not shared here: the log in the database is the only truth, and each
process catches its cached game up with the log before it decides or renders (webapp/live/games.py).
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
import uuid
from collections import Counter
from typing import Callable
from urllib.parse import urlsplit, urlunsplit

from ... import launch
from ...storage.store import DataError

log = logging.getLogger(__name__)

PREFIX = "tacmap"
REPLAY_LIFETIME = 12 * 3600  # seconds a replay on stays known without a word (an evening)
HEARTBEAT = 2.0  # seconds between two renewals of this process's connections
LIFETIME = 6.0  # a connection whose process has not renewed it for this long no longer counts
OUTBOX = 10_000  # messages waiting for the publisher thread; beyond that they are dropped (and counted)
QUIET = 2.0  # seconds after a failed Redis call (or publish) during which none is tried again
CALL_TIMEOUT = 1.0  # seconds a Redis call may take (they take well under a millisecond when Redis is well)


class QueueUnavailable(DataError):
    """``--message-queue`` names a queue this process cannot use: the message says why and what to do."""


def shown_url(url: str) -> str:
    """The queue's address without its password (it is printed and logged): ``redis://:***@host``,
    ``redis://user:***@host``, and a ``password=`` in the query (redis-py takes one there too)."""
    parts = urlsplit(url)
    if parts.password:
        user, _colon, _password = parts.netloc.rpartition("@")[0].partition(":")
        parts = parts._replace(netloc=f"{user}:***@{parts.netloc.rpartition('@')[2]}")
    if parts.query:
        fields = [("password=***" if f.split("=", 1)[0].lower() == "password" else f) for f in parts.query.split("&")]
        parts = parts._replace(query="&".join(fields))
    return urlunsplit(parts)


def connect(url: str):
    """A Redis client for ``url``, checked now: a clear QueueUnavailable, never a traceback."""
    scheme = urlsplit(url).scheme.lower()
    if scheme not in ("redis", "rediss"):
        raise QueueUnavailable(f"--message-queue {shown_url(url)!r} is not a Redis address: give one like "
                               "redis://localhost:6379/0")
    try:
        import redis
    except ImportError:
        # the start script's --setup redis for its .venv, else pip (webapp/launch.py, #71)
        raise QueueUnavailable("--message-queue needs the Python package redis, which is not installed: "
                               + launch.install_command("redis", "pip install redis")) from None
    try:
        client = redis.Redis.from_url(url, socket_connect_timeout=3, socket_timeout=CALL_TIMEOUT)
        client.ping()
        client.exists(f"{PREFIX}:check")  # a user whose ACL leaves out tacmap's keys is refused here, not later
    except redis.AuthenticationError:
        raise QueueUnavailable(f"the message queue at {shown_url(url)} refused this process: Redis asks for a "
                               "password (requirepass) or an ACL user, and the address gives a wrong one or none. "
                               "Put them in the address: redis://:PASSWORD@HOST:6379/0, or "
                               "redis://USER:PASSWORD@HOST:6379/0 (rediss:// for TLS); docs/HOSTING.md, "
                               "\"Guarding Redis and PostgreSQL\"") from None
    except redis.exceptions.NoPermissionError:
        raise QueueUnavailable(f"the Redis user of {shown_url(url)} may not use tacmap's keys: its ACL needs "
                               f"~{PREFIX}:* &flask-socketio +@all -@admin -@dangerous (docs/HOSTING.md, "
                               "\"Guarding Redis and PostgreSQL\")") from None
    except (redis.RedisError, ValueError, OSError) as exc:
        if "CERTIFICATE_VERIFY_FAILED" in str(exc):
            raise QueueUnavailable(f"the message queue at {shown_url(url)} shows a TLS certificate this process cannot "
                                   f"check ({exc}): give the CA that signed it in the address, "
                                   "rediss://...:6380/0?ssl_ca_certs=/path/to/ca.pem") from None
        raise QueueUnavailable(f"cannot reach the message queue at {shown_url(url)} ({exc}). Start Redis "
                               "there (redis-server) or give another address with --message-queue "
                               "(or $TACMAP_MESSAGE_QUEUE).") from None
    why = open_to_the_network(url, client)
    if why is not None:  # #72 (RD2): anyone who reaches it could forge a screen's update or close a table
        raise QueueUnavailable(f"the message queue at {shown_url(url)} asks no password and {why}: anyone there "
                               "could send the screens forged updates or close a table. Give Redis a password "
                               "(requirepass, or an ACL user) and put it in the address: "
                               "redis://USER:PASSWORD@HOST:6379/0 (docs/HOSTING.md, \"Guarding Redis and "
                               "PostgreSQL\"); or keep it on this machine alone (bind 127.0.0.1).")
    return client


_LOOPBACK = ("127.", "::1", "localhost")


def _loopback(host: str) -> bool:
    return host.startswith(_LOOPBACK) or host in ("0:0:0:0:0:0:0:1",)


def open_to_the_network(url: str, client) -> str | None:
    """Why a Redis reached with no password is open to others on the network, or None (#72, RD2). Reached at
    another host than this machine's loopback, it is reached over the network; on the loopback, it is open when
    it listens beyond the loopback with its protected mode off (Redis's protected mode refuses other machines a
    Redis with no password). A Redis that does not say (CONFIG refused to this client) is taken at its address."""
    parts = urlsplit(url)
    if parts.password or parts.username or "password=" in (parts.query or ""):
        return None  # a password in the address: Redis asked for it (connect checked it)
    host = (parts.hostname or "localhost").lower()
    if not _loopback(host):
        return f"is reached over the network ({host})"
    try:
        protected = str(client.config_get("protected-mode").get("protected-mode", "yes")).lower()
        bind = str(client.config_get("bind").get("bind", "")).split()
    except Exception:  # noqa: BLE001 - CONFIG renamed or refused: nothing more to tell
        return None
    beyond = [b for b in bind if not _loopback(b.lstrip("-"))] or (["*"] if not bind else [])
    if protected == "no" and beyond:
        return f"listens beyond this machine (bind {' '.join(bind) or '*'}, protected-mode no)"
    return None


def room_manager(url: str):
    """Flask-SocketIO's Redis message queue (what ``SocketIO(message_queue=url)`` makes) that never holds a
    game's lock on Redis: see ``RoomManager``."""
    from ... import seams

    class RoomManager(seams.redis_manager_base()):
        """Messages for the other processes are published by a thread of this manager's own, in the order
        emitted, so an emit costs the emitting thread (which holds its game's lock) a queue put, never a
        Redis round trip. (This process's own clients get an emit at once, from the emitting thread, as
        the stock manager does; what goes to the others comes to ``publish_later``: python-socketio's private
        ``_publish``, a seam: webapp/seams.py.)

        While Redis does not answer (down, restarting, unreachable: a connect gives up after 3 s), the
        game goes on: commands are stored and acknowledged, this process's clients see every change, and
        the messages for the other processes are dropped, a failed publish first, then everything for
        ``QUIET`` seconds before the next try. A client of another process that missed one sees a gap
        in seqs at its next update and asks for a fresh copy (static/js/live.js); the listener
        reconnects by itself. No read timeout: the listener waits on Redis for as long as it is quiet."""

        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            self._outbox: queue.Queue = queue.Queue(maxsize=OUTBOX)
            self._publisher: threading.Thread | None = None
            self._start_lock = threading.Lock()
            self._quiet_until = 0.0
            self.dropped = 0  # messages the other processes never got (Redis down, or the outbox full)

        def publish_later(self, data) -> None:
            if self._publisher is None:
                with self._start_lock:
                    if self._publisher is None:
                        self._publisher = threading.Thread(target=self._publish_all, name="tacmap-publish",
                                                           daemon=True)
                        self._publisher.start()
            try:
                self._outbox.put_nowait(data)
            except queue.Full:
                self._drop("the queue for Redis is full")

        def _publish_all(self) -> None:
            while True:
                data = self._outbox.get()
                if time.monotonic() < self._quiet_until:
                    self._drop("Redis did not answer")
                    continue
                if self.publish_now(data) is None:  # the stock publish tried twice, logged it and gave up
                    self._quiet_until = time.monotonic() + QUIET
                    self._drop("Redis did not answer")
                elif self.dropped:
                    log.warning("the message queue's Redis answers again; %s messages for the other processes "
                                "were dropped meanwhile (their clients fetch a fresh copy)", self.dropped)
                    self.dropped = 0

        def _drop(self, why: str) -> None:
            if not self.dropped:
                log.error("messages for the other processes are being dropped: %s", why)
            self.dropped += 1

    return RoomManager(url, channel="flask-socketio", redis_options={"socket_connect_timeout": 3})


def _languages(members: list) -> dict[str, set[str]]:
    """Each audience's devices' languages, from ``Shared._members``' connections."""
    out: dict[str, set[str]] = {}
    for _sid, _p, audience, _t, _m, language in members:
        out.setdefault(audience, set()).add(language)
    return out


class Shared:
    """This process's view of what all the processes share in Redis."""

    def __init__(self, client, on_change: Callable[[str], None] | None = None) -> None:
        self.redis = client
        self.process = uuid.uuid4().hex[:12]
        self._on_change = on_change  # called with a game id whose connections changed without a word (a dead process)
        self._mine: dict[str, tuple[str, str]] = {}  # sid -> (game id, member in that game's set)
        self._games: set[str] = set()  # games whose sets this process watches for dead connections
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="tacmap-heartbeat", daemon=True)
        self._thread.start()

    @staticmethod
    def _key(game_id: str) -> str:
        return f"{PREFIX}:sessions:{game_id}"

    # --- connections --------------------------------------------------------

    def opened(self, sid: str, game_id: str, audience: str, language: str = "en") -> None:
        # the device's language (#37): every process draws an update once per audience and language read anywhere
        member = json.dumps([sid, self.process, audience, time.time(), language])
        with self._lock:
            self._mine[sid] = (game_id, member)
            self._games.add(game_id)

        def add(r):
            pipe = r.pipeline(transaction=False)
            pipe.zadd(self._key(game_id), {member: time.time() + LIFETIME})
            pipe.expire(self._key(game_id), int(LIFETIME * 2))  # a set nobody renews goes too
            pipe.execute()

        self._call(add)

    def closed(self, sid: str) -> None:
        with self._lock:
            mine = self._mine.pop(sid, None)
        if mine:
            self._call(lambda r: r.zrem(self._key(mine[0]), mine[1]))

    def forget(self, game_id: str, member: str) -> None:
        """A connection of another process that this one ended (its process will see it go too)."""
        self._call(lambda r: r.zrem(self._key(game_id), member))

    def sessions(self, game_id: str) -> list[tuple[str, str, str, float, str]]:
        """Every live connection to a game on any process: (sid, process, audience, opened at, member)."""
        with self._lock:
            self._games.add(game_id)
        return [(sid, process, audience, opened, member) for sid, process, audience, opened, member, _lang
                in self._members(game_id)[0]]

    def connections(self, game_id: str) -> list[tuple[str, str, str, float, str, str]]:
        """Every live connection to a game on any process, with its device's language: (sid, process,
        audience, opened at, member, language)."""
        with self._lock:
            self._games.add(game_id)
        return self._members(game_id)[0]

    def _members(self, game_id: str) -> tuple[list[tuple[str, str, str, float, str, str]], bool]:
        """Every live connection as (sid, process, audience, opened at, member, language), and whether Redis
        answered (else only this process's own are known)."""
        members = self._call(lambda r: r.zrangebyscore(self._key(game_id), time.time(), "+inf"))
        answered = members is not None
        if members is None:  # Redis is away: at least this process's own
            with self._lock:
                members = [m for g, m in self._mine.values() if g == game_id]
        out = []
        for raw in members:
            try:
                member = raw.decode() if isinstance(raw, bytes) else raw
                sid, process, audience, opened, *more = json.loads(member)  # a member from before #37 has no language
                out.append((sid, process, audience, float(opened), member, str(more[0]) if more else "en"))
            except (ValueError, TypeError):
                continue
        return out, answered

    def languages(self, game_id: str) -> dict[str, set[str]] | None:
        """The languages the connections of each audience read, on all processes; None when Redis does not answer."""
        members, answered = self._members(game_id)
        return _languages(members) if answered else None

    def presence(self, game_id: str) -> tuple[Counter[str], dict[str, set[str]] | None]:
        """``audiences`` and ``languages`` from one read of Redis (an update needs both: who is online, and the
        languages to draw it in)."""
        with self._lock:
            self._games.add(game_id)
        members, answered = self._members(game_id)
        return Counter(m[2] for m in members), (_languages(members) if answered else None)

    def audiences(self, game_id: str) -> Counter[str]:
        """How many connections each audience of a game has, on all processes together."""
        return Counter(audience for _sid, _p, audience, _t, _m in self.sessions(game_id))

    def claim(self, what: str, seconds: int = 60) -> bool:
        """True for the one process that claims ``what`` first (within ``seconds``); True too if Redis is away."""
        got = self._call(lambda r: r.set(f"{PREFIX}:claim:{what}", self.process, nx=True, ex=seconds))
        return got is None and self._failed or bool(got)

    # --- the replays on now (webapp/live/replaying.py) -------------------------

    def replays(self, game_id: str) -> dict[str, tuple[int, str]] | None:
        """The audiences of a game shown a replay now, by any process: audience -> (seq shown, who asked);
        None when Redis is away."""
        raw = self._call(lambda r: r.hgetall(f"{PREFIX}:replay:{game_id}"))
        if raw is None:
            return None
        out = {}
        for audience, value in raw.items():
            try:
                at, by = json.loads(value)
                out[audience.decode() if isinstance(audience, bytes) else audience] = (int(at), str(by))
            except (ValueError, TypeError):
                continue
        return out

    def replay_on(self, game_id: str, audience: str, at: int, by: str) -> None:
        def put(r):
            pipe = r.pipeline(transaction=False)
            pipe.hset(f"{PREFIX}:replay:{game_id}", audience, json.dumps([at, by]))
            pipe.expire(f"{PREFIX}:replay:{game_id}", REPLAY_LIFETIME)  # one forgotten goes by itself
            pipe.execute()

        self._call(put)

    def replay_off(self, game_id: str, audience: str) -> None:
        self._call(lambda r: r.hdel(f"{PREFIX}:replay:{game_id}", audience))

    # --- plumbing -------------------------------------------------------------

    _failed = False
    _retry_at = 0.0

    def _call(self, action):
        """One Redis call; a failure is logged and answered with None (each caller has a local fallback).
        After a failure no call is tried for ``QUIET`` seconds: a command asks several things of Redis on
        its way, and a Redis that does not answer must cost it one ``CALL_TIMEOUT`` at most, not one each."""
        if self._failed and time.monotonic() < self._retry_at:
            return None
        try:
            value = action(self.redis)
            self._failed = False
            return value
        except Exception as exc:
            if not self._failed:
                log.error("the message queue's Redis does not answer: %s", exc)
            self._failed = True
            self._retry_at = time.monotonic() + QUIET
            return None

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT):
            now = time.time()
            with self._lock:
                mine = list(self._mine.values())
                games = list(self._games)

            def renew(r):
                pipe = r.pipeline(transaction=False)
                for game_id in games:
                    pipe.zremrangebyscore(self._key(game_id), "-inf", now)
                for game_id, member in mine:
                    pipe.zadd(self._key(game_id), {member: now + LIFETIME})
                for game_id in {g for g, _m in mine}:
                    pipe.expire(self._key(game_id), int(LIFETIME * 2))
                return pipe.execute()

            answers = self._call(renew) or []
            changed = {game_id for game_id, gone in zip(games, answers) if gone}  # a dead process's connections
            # and ours, back after Redis lost them (restarted) or let them expire (this process was stalled)
            changed |= {game_id for (game_id, _m), added in zip(mine, answers[len(games):]) if added}
            for game_id in changed:
                if self._on_change is not None:
                    try:
                        self._on_change(game_id)
                    except Exception:
                        log.exception("game %s: could not tell the GM who is online", game_id)

    def close(self) -> None:
        self._stop.set()
        with self._lock:
            mine = list(self._mine.items())
            self._mine.clear()
        for _sid, (game_id, member) in mine:
            self.forget(game_id, member)


class SharedGuesses:
    """The GM password's wrong guesses per game and per client, counted across processes (``keys.Guesses``'s
    interface): with N processes a guesser still gets ``keys.MAX_WRONG`` a minute, not N times as many. A
    guess is counted before it is checked, in one MULTI/EXEC (add, then count): of guesses sent at once to
    any processes, those past the limit see it."""

    def __init__(self, shared: Shared, local) -> None:
        self.shared, self.local = shared, local  # local: this process's count, when Redis is away

    @staticmethod
    def _keys(game_id: str, client: str | None) -> list[tuple[str, int]]:
        from ...game.tableside.keys import Guesses

        return [(f"{PREFIX}:guesses:{name}", limit) for name, limit in Guesses.names(game_id, client)]

    def blocked(self, game_id: str, client: str | None = None) -> bool:
        from ...game.tableside.keys import WINDOW

        keys = self._keys(game_id, client)

        def count(r):
            pipe = r.pipeline()
            for key, _limit in keys:
                pipe.zremrangebyscore(key, "-inf", time.time() - WINDOW)
                pipe.zcard(key)
            return any(n >= limit for n, (_key, limit) in zip(pipe.execute()[1::2], keys))

        over = self.shared._call(count)
        return self.local.blocked(game_id, client) if over is None else over

    def take(self, game_id: str, client: str | None = None):
        """Count a guess (here and in Redis); False when the game or the client is at its limit. The answer
        is what ``give_back`` needs to take this guess back."""
        from ...game.tableside.keys import WINDOW

        if not self.local.take(game_id, client):
            return False
        member, now, keys = uuid.uuid4().hex, time.time(), self._keys(game_id, client)

        def add(r):
            pipe = r.pipeline()  # MULTI/EXEC: no other guess between the add and the count
            for key, _limit in keys:
                pipe.zremrangebyscore(key, "-inf", now - WINDOW)
                pipe.zadd(key, {member: now})
                pipe.expire(key, int(WINDOW) + 1)
                pipe.zcard(key)
            return any(n > limit for n, (_key, limit) in zip(pipe.execute()[3::4], keys))

        over = self.shared._call(add)
        if over:
            self._remove(keys, member)
            self.local.give_back(game_id, client)
            return False
        return member

    def give_back(self, game_id: str, client: str | None = None, token=None) -> None:
        self.local.give_back(game_id, client)
        if isinstance(token, str):
            self._remove(self._keys(game_id, client), token)

    def _remove(self, keys: list[tuple[str, int]], member: str) -> None:
        def remove(r):
            pipe = r.pipeline()
            for key, _limit in keys:
                pipe.zrem(key, member)
            pipe.execute()

        self.shared._call(remove)


class SharedRoomGuesses:
    """Room mode's wrong organiser passwords and GM PINs counted across processes (``keys.RoomGuesses``'s
    interface and rules): one sorted set per kind, ``tacmap:room-guesses:<kind>``, members ``<token>|<client>``
    scored by when, kept ``ROOM_SEEN`` seconds for the organiser's page. A try is added and the minute's tries
    read in one MULTI/EXEC, then judged without itself (and taken out again when refused). While Redis does not
    answer, this process's own count decides."""

    def __init__(self, shared: Shared, local) -> None:
        self.shared, self.local = shared, local

    @staticmethod
    def _key(kind: str) -> str:
        return f"{PREFIX}:room-guesses:{kind}"

    def take(self, kind: str, client: str | None):
        from ...game.tableside.keys import ROOM_KEPT, ROOM_SEEN, WINDOW, RoomGuesses

        client = client or "?"
        key, now = self._key(kind), time.time()
        member = f"{uuid.uuid4().hex}|{client}"

        def add(r):
            pipe = r.pipeline()  # MULTI/EXEC: no other try between the add and the read
            pipe.zremrangebyscore(key, "-inf", now - ROOM_SEEN)
            pipe.zremrangebyrank(key, 0, -ROOM_KEPT)
            pipe.zadd(key, {member: now})
            pipe.expire(key, int(ROOM_SEEN) + 1)
            pipe.zrangebyscore(key, now - WINDOW, "+inf")
            return [m.decode() if isinstance(m, bytes) else m for m in pipe.execute()[-1]]

        minute = self.shared._call(add)
        if minute is None:
            token = self.local.take(kind, client)
            return ("local", token) if token else False
        if RoomGuesses.refused([m.split("|", 1)[1] for m in minute if m != member], client):
            self._remove(key, member)
            return False
        return member

    def give_back(self, kind: str, client: str | None, token) -> None:
        if isinstance(token, tuple):
            self.local.give_back(kind, client, token[1])
        elif isinstance(token, str):
            self._remove(self._key(kind), token)

    def _remove(self, key: str, member: str) -> None:
        self.shared._call(lambda r: r.zrem(key, member))

    def recent(self, kind: str) -> list[tuple[float, str]]:
        from ...game.tableside.keys import ROOM_SEEN

        now = time.time()
        found = self.shared._call(lambda r: r.zrangebyscore(self._key(kind), now - ROOM_SEEN, "+inf",
                                                            withscores=True))
        if found is None:
            return self.local.recent(kind)
        tries = [(now - when, (m.decode() if isinstance(m, bytes) else m).split("|", 1)[1]) for m, when in found]
        return sorted(tries)
