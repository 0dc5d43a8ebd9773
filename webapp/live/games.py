"""The games in memory: each a cache of its log, kept in step with it.

A game is loaded from the log (its latest snapshot on) the first time it is asked for, and then kept. With other
processes on the same log (``shared``: Redis), it first catches up with the events they appended. Whatever may
have run ahead of the log (events decided, then not stored) is dropped here and read again (``drop``, ``load``):
the state in memory never holds what the log does not.

A game nobody uses leaves memory (#57: every game a stranger made stayed there): once no socket of this process
is connected to it (``in_use``) and it was not asked for in ``IDLE_S``, the next sweep (at most every
``SWEEP_EVERY_S``, on a game's access) drops it, and ``evicted`` tells the parts that keep more of it (the
replay's folded log); it is read from the log again when next asked for, as after a restart.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Callable

from rules.movement import indexes

from ..game.bridge import heavy
from ..game.core.model import Game
from ..game.table import evolve
from ..storage.store import Store, load_game

log = logging.getLogger(__name__)

#: how long after another process last wrote to a game (or won a write race) this one keeps a copy of the state
#: before each batch it decides (``Committing.backup``), so that losing the race costs a catch-up from the log, not
#: a reload
CONTENDED_FOR_S = 30.0
#: seconds a game with no connected socket stays in memory after it was last asked for
IDLE_S = 600.0
#: seconds between two sweeps for idle games
SWEEP_EVERY_S = 60.0


class Games:
    """The games this process holds, one lock each (a command, an update and a page are drawn holding it)."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.shared = None  # with --message-queue: other processes append to the same logs (``Hub.share``)
        self._games: dict[str, Game] = {}
        self._locks: dict[str, threading.RLock] = {}
        self._guard = threading.Lock()
        #: game id -> until when (monotonic) another process is taken to be writing to it too (``contended``)
        self._contended: dict[str, float] = {}
        self._used: dict[str, float] = {}  # game id -> when (monotonic) it was last asked for
        self._swept = time.monotonic()
        self.idle_s = IDLE_S
        #: whether a socket of this process is connected to the game (the hub's presence): never dropped then
        self.in_use: Callable[[str], bool] = lambda game_id: False
        #: told the id of each game dropped from memory (the hub: the parts that keep more of it forget it too)
        self.evicted: Callable[[str], None] = lambda game_id: None

    def lock(self, game_id: str) -> threading.RLock:
        with self._guard:
            return self._locks.setdefault(game_id, threading.RLock())

    def get(self, game_id: str) -> Game | None:
        """The current state of a game (from the cache, else rebuilt from the log).

        With other processes on the same log (``shared``), the cache first catches up with the
        events they appended: one indexed read of the log's head, and the new events if any."""
        now = time.monotonic()
        if now - self._swept >= SWEEP_EVERY_S:
            self.evict_idle(now)
        with self.lock(game_id):
            game = self._games.get(game_id)
            if game is None:
                if self.store.game(game_id) is None:
                    return None
                game = self.load(game_id)
                self._games[game_id] = game
                heavy.warm(game.board, indexes)  # a big map's, off the loop: before its first move needs them
            elif self.shared is not None:
                head = self.store.last_seq(game_id)
                if head != game.seq:
                    game = self.catch_up(game_id, game, head)
            self._used[game_id] = now
            return game

    def load(self, game_id: str) -> Game:
        """The game rebuilt from the log (latest snapshot on), replacing the cache: after a conflict the
        cached state may hold events decided but never stored, so it is not caught up but dropped."""
        game = self._games[game_id] = load_game(self.store, game_id)
        self._used[game_id] = time.monotonic()
        return game

    def catch_up(self, game_id: str, cached: Game, head: int | None = None) -> Game:
        """The cached game (consistent with the log up to its seq) with the events other processes appended
        since; rebuilt from the log when that cannot be (the log is shorter, or an event does not apply).
        ``head``: the log's last seq, when the caller has just read it (else read here: one round trip less
        on the way of a command when another process wrote, which on PostgreSQL is one to its server)."""
        if (self.store.last_seq(game_id) if head is None else head) >= cached.seq:
            events = self.store.events(game_id, after=cached.seq)  # DamagedLog: this game is out of service
            if events:  # another process writes to this game: keep a copy before deciding (``Committing.backup``)
                self.contend(game_id)
            try:
                for event in events:
                    evolve(cached, event)
                return cached
            except Exception:  # half applied: the cache is not to be trusted
                self._games.pop(game_id, None)
                log.warning("game %s: rebuilding from the log", game_id, exc_info=True)
        return self.load(game_id)

    def restore(self, game_id: str, game: Game) -> None:
        """The state in memory is ``game`` again (a copy from before a batch whose write lost a race)."""
        self._games[game_id] = game
        self._used[game_id] = time.monotonic()

    def drop(self, game_id: str) -> None:
        """Forget the state in memory (it ran ahead of the log, or the log may say otherwise): read again when asked."""
        self._games.pop(game_id, None)

    def evict_idle(self, now: float | None = None) -> list[str]:
        """Drop the games idle for ``idle_s`` with no socket connected (see the module's doc); their ids. A game
        whose lock is held (a command, a page being drawn) is kept."""
        now = time.monotonic() if now is None else now
        self._swept = now
        dropped = []
        for game_id in list(self._games):
            if now - self._used.get(game_id, 0.0) < self.idle_s or self.in_use(game_id):
                continue
            lock = self.lock(game_id)
            if not lock.acquire(blocking=False):
                continue
            try:
                if self._games.pop(game_id, None) is not None:
                    self._used.pop(game_id, None)
                    dropped.append(game_id)
            finally:
                lock.release()
        for game_id in dropped:
            self.evicted(game_id)
        if dropped:
            log.info("games idle for %.0f s left memory: %s", self.idle_s, ", ".join(dropped))
        return dropped

    def clear(self) -> None:
        """Forget every game's state in memory (each is read from its log again when asked)."""
        self._games.clear()
        self._used.clear()

    def contend(self, game_id: str) -> None:
        """Another process wrote to this game (or won a write race): it is taken to write to it for a while."""
        self._contended[game_id] = time.monotonic() + CONTENDED_FOR_S

    def contended(self, game_id: str) -> bool:
        """Whether another process wrote to this game lately (``CONTENDED_FOR_S``)."""
        return self._contended.get(game_id, 0.0) >= time.monotonic()
