"""The replay on the live side (#36): the ``replay`` and ``replay_end`` commands, and who is replaying now.

A replay is a view: it appends nothing to the log. The GM's ``replay {"at", "on"}`` draws the game as it
was after event ``at`` on the GM's screens (and the table screen's, with ``on: ["gm", "screen"]``), each
with the very partials of the live page, rendered for that audience from the state then
(``webapp.game.views.replay_view``); a player's draws their own view then on their own screens. While an
audience replays, the hub sends it no live update (``Fanout.render_update`` asks ``replaying``); ``replay_end``
sends it a fresh copy of the present, and the live updates flow again. A connection that opens while
its audience replays is shown the replay too; with several processes (Redis) who replays is kept in Redis
as well, so a screen connecting to another process than the GM's is shown it, and a ``replay_end`` sent
through any process ends it. A replay ends by itself ``LEFT_GRACE`` seconds after the last connection of
whoever started it closed (``left``).

The folded log (``History``) is kept per game, folded as far as a jump asks. As the game is
played, every ``LIVE_EVERY`` events the hub's state is its next checkpoint (``played``), taken at the next quiet
moment and kept in the data folder (``webapp.storage.history``), where a server started again finds them; then the
fold leaves memory unless a replay of the game is on (``let_go``, #72: it grew with every command), and is read back
from what was kept when next asked for. A game
imported (``tacmap import``, a room's table copied from its template) is folded with its checkpoints at import
(``history.fold_and_keep``, or ``warm`` in the background for a room's copy); a long game with none (made by an
earlier version) is folded in the background at the server's start (``fold_old``); any other is folded ahead when a
GM connects (``warm``), and kept the same way. A later jump folds at most ``replay_view.CHECKPOINT_EVERY`` events
from its nearest checkpoint. A jump before any of that (an old game, right after the start) folds up to its event,
or from the store's snapshot when that is nearer (``jumped``); the timeline is told without folding the states
(``told``).
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Callable

from flask import has_request_context
from gevent import monkey
from ..game import access
from ..game.views import replay_view
from ..game.core.model import Actor, Rejected
from ..game.core.text import N_
from ..game.table import empty_game, evolve
from ..storage import history as kept_folds
from ..storage.store import collector_paused
from .screens import language, render

log = logging.getLogger(__name__)

#: games whose folded log is kept (the least recently used goes first)
KEEP_HISTORIES = 8
#: events folded at a time when a game's log is first folded (with fog, a few ms each): the loop goes on between
FOLD_SLICE = 50
#: events told at a time when a timeline is told ahead of the fold (``told``: a fraction of a fold's cost each)
TELL_SLICE = 500
#: seconds a fold in the background (``warm``, ``fold_old``, a far live checkpoint) rests between two slices and two
#: kept files: a request of another table takes several turns of the loop (its socket, the log's write, the update
#: sent), and with no rest each would wait a whole slice; a jump's own fold does not rest
FOLD_REST = 0.01
#: a GM's connection folds a game's log ahead from this many events (a shorter one folds in well under 300 ms)
WARM_FROM = 500
#: seconds after the server's start before the long games with no kept fold are folded (``fold_old``): the tables
#: reconnecting after a restart are served their games first
FOLD_OLD_AFTER = 5.0
#: seconds a process's claim to fold an old game at the start holds (``fold_old``): the other processes take its kept
#: fold, or fold the game themselves once the claim lapsed with none kept (the claimer died)
FOLD_CLAIM = 60
#: seconds between two looks at the games folded ahead, to fold what was played since (``follow_once``)
FOLLOW_EVERY = 20.0
#: the live state is taken as a checkpoint (and kept on disk) once a game is this many events past its last one: a
#: jump after a restart folds about this many; each costs ~35 ms of the loop on a 100 x 100 board of 1,000 walls and
#: 50 tokens (the state copied, the moments folded, the file written), so it waits for a quiet moment (``LIVE_QUIET``)
LIVE_EVERY = 2 * replay_view.CHECKPOINT_EVERY
#: a quiet moment: no command carried out in this process for this many seconds (a table plays at a human pace,
#: seconds between two moves; a busy room's tables leave such gaps often): a live checkpoint's work waits for one
#: before each of its parts (none over ~15 ms), so no move waits behind it. Before, it ran right after the move that
#: crossed ``LIVE_EVERY``, and the next moves waited
LIVE_QUIET = 0.1
#: seconds a live checkpoint waits for a quiet moment at most (commands that never stop: a convention room's tables
#: on one process), then goes on: it is taken, later, whatever the pace
LIVE_WAIT = 10.0
#: a live checkpoint's moments are folded (without the fog's memory) from the fold's end up to this many events
#: back; a fold further behind is folded ahead in full instead (with its checkpoints)
LIVE_GAP = 2 * LIVE_EVERY
#: seconds a replay stays on after the last connection of whoever started it closed (time for a reload)
LEFT_GRACE = 5.0


def _turn(rest: float) -> None:
    """Between two slices of a fold: the other tables' turn. Under gevent (``tacmap serve``: the standard library
    patched) a sleep is a switch to the other greenlets; with threads (an unpatched process) the interpreter
    switches on its own, and a sleep of 0 would only give the core away to other processes: only a rest sleeps."""
    if rest or monkey.is_module_patched("time"):
        time.sleep(rest)


#: seconds a part of one GM's heavy request waits at most for the loop to be idle (``others_first``): a loop that is
#: never idle (a busy room) still leaves it a share, as the plans' pacer does (``fairness.MOST_WAIT``)
MOST_WAIT = 0.005


#: seconds a part of a replay's jump waits at most for the other tables' commands under way to end (``others_first``),
#: and how often it looks
BUSY_WAIT = 0.05
BUSY_LOOK = 0.0005


def others_first(busy: Callable[[], bool] | None = None) -> None:
    """Between two parts of one GM's heavy request (a replay's jump, a recap's fold): under gevent the greenlet
    waits until the loop has nothing else to do (``gevent.idle``: the other tables' sockets, timers and answers
    first), at most ``MOST_WAIT``, so the request holds the loop a part at a time, never the whole of it (#72);
    elsewhere nothing. ``busy``: whether another table's command is under way (``Hub.light_running``): the part
    then waits for it to end too, at most ``BUSY_WAIT`` (a move waits for the store's write with the loop idle
    meanwhile, and a part taken in each such gap made each move 1.2-1.4 times as long)."""
    if monkey.is_module_patched("time"):
        import gevent

        with gevent.Timeout(MOST_WAIT, False):
            gevent.idle()
        if busy is not None and busy():
            deadline = time.monotonic() + BUSY_WAIT
            while busy() and time.monotonic() < deadline:
                gevent.sleep(BUSY_LOOK)
            with gevent.Timeout(MOST_WAIT, False):
                gevent.idle()  # its answer sent


def taking_turns(items, every: int = FOLD_SLICE):
    """``items`` (a fold's steps) passed on as they come, the other tables first (``others_first``) after every
    ``every`` of them."""
    for i, item in enumerate(items, 1):
        if not i % every:
            others_first()
        yield item


class Replays:
    def __init__(self, hub, room, actor_for_audience) -> None:
        """``room`` and ``actor_for_audience`` are the hub's (an audience's Socket.IO room, its actor)."""
        self.hub, self._room, self._actor = hub, room, actor_for_audience
        self._lock = threading.RLock()
        self._histories: dict[str, replay_view.History] = {}
        self._unrestored: set[str] = set()  # games whose History has not looked for a kept fold yet (``history``)
        # (game id, audience) -> (the seq shown, who asked: "gm" or the player's audience)
        self._on: dict[tuple[str, str], tuple[int, str]] = {}
        self._warming: set[str] = set()  # games whose log is being folded ahead (``warm``)
        self._kept: dict[str, int] = {}  # game id -> the seq its fold was kept on disk up to
        self._following = False  # whether the task that keeps the folds up with the games runs (``_follow``)
        self._checkpointing: dict[str, threading.Lock] = {}  # game id -> its live checkpoints' turn (``checkpoint``)
        self._due: set[str] = set()  # games whose live checkpoint waits for a quiet moment (``played``)

    # --- the folded log ---------------------------------------------------

    def forget(self, game_id: str) -> None:
        """The game left memory (``Games.evict_idle``): its folded log goes too (read again when next asked for)."""
        with self._lock:
            if self._histories.pop(game_id, None) is not None:
                self._unrestored.discard(game_id)

    def history(self, game_id: str, restore: bool = True) -> replay_view.History:
        """The game's log, known up to its head now and folded as far as it was asked (``History.fold_to``);
        made once per process (from the fold kept in the data folder when there is one), then extended. With
        ``restore=False`` (a reader of the log alone: the recap) the kept fold is not read yet: the next call that
        folds takes it (nothing is folded by reading the log)."""
        store = self.hub.store
        with self._lock:
            found = self._histories.pop(game_id, None)
            if found is None:
                found = replay_view.History(game_id, evolve, empty_game)
                self._unrestored.add(game_id)
            self._histories[game_id] = found  # the newest at the end
            while len(self._histories) > KEEP_HISTORIES:
                self._unrestored.discard(self._histories.pop(next(iter(self._histories))).game_id)
            # read and folded as far as a jump asks (lazily): a server started again reads only the events after
            # the checkpoint a jump starts from
            # the times too, read with the events (the History's dict, not the History: no cycle through it, so a
            # History let go, the least recently used, is freed at once, not left to the cycle collector to walk)
            found.grow(store.last_seq(game_id), lambda after, before, times=found.times: store.events(
                game_id, after=after, before=before, times=times),
                snapshot=lambda: store.snapshot(game_id))  # a jump past the fold starts from it when it is nearer
            fresh = restore and game_id in self._unrestored
            if fresh:  # the fold an earlier run or another process kept: its checkpoints instead of folding again
                self._unrestored.discard(game_id)
                kept, folder = kept_folds.load_checkpoints(self._data_dir(), game_id), self._data_dir()
                if kept is not None and found.restore(  # the fold this process kept and let go: trusted
                        kept, lambda seq: kept_folds.load_checkpoint_state(folder, game_id, seq),
                        trusted=game_id in self._kept):
                    self._kept[game_id] = found.folded
            return found

    def _data_dir(self) -> str:
        return self.hub.app.config["DATA_DIR"]

    def keep(self, game_id: str, found: replay_view.History, quiet: Callable[[], None] = lambda: None) -> None:
        """Keep the fold's checkpoints on disk once it went past the ones kept (``storage.history``); between two
        parts (a checkpoint's state read, a file written) a rest, then ``quiet`` is waited for."""
        with self._lock:
            since = self._kept.get(game_id, 0)
            if found.foreign:  # what was kept is of another log: written anew
                found.foreign, since = False, 0
                kept_folds.forget_checkpoints(self._data_dir(), game_id)
            if found.checkpointed <= since:
                return
            self._kept[game_id] = found.checkpointed
        def rest() -> None:  # the other tables go on between two checkpoints
            time.sleep(FOLD_REST)
            quiet()

        kept = found.export(since, pause=rest)
        if kept is not None:
            kept_folds.save_checkpoints(self._data_dir(), game_id, kept, pause=rest)

    def let_go(self, game_id: str, found: replay_view.History) -> None:
        """After a live checkpoint (``checkpoint``), the game's fold leaves memory once its checkpoints are kept on
        disk, when no replay of the game is on in this process (#72: it grew with every command, some 6 kB each,
        for as long as the game was loaded): its events, checkpoints and timeline are read back from the kept fold
        (``restore``) and the log when next asked for, as by a server started again. What a game being played
        keeps of its history is then what was asked since its last live checkpoint (a fold ahead, a timeline, a
        recap) and the ``LIVE_EVERY`` events played since, told at the next one."""
        with self._lock:
            if (self._histories.get(game_id) is found and not found.foreign
                    and found.checkpointed == self._kept.get(game_id)
                    and not any(g == game_id for g, _audience in self._on)):
                del self._histories[game_id]
                self._unrestored.discard(game_id)

    def warm(self, game_id: str) -> None:
        """Fold the game's log ahead, in the background (a GM page opened: the replay panel may be next), so the
        first jump or timeline finds it folded; a jump meanwhile takes its turn between two slices."""
        with self._lock:
            if game_id in self._warming:
                return
            found = self._histories.get(game_id)
            head, kept = self.hub.store.last_seq(game_id), self._kept.get(game_id)
            if found is not None and found.folded >= head:
                return  # folded to the head already
            if found is None and head < WARM_FROM:
                return  # a short log folds in a moment when a jump asks
            if found is None and kept is not None and head - kept <= LIVE_GAP:
                return  # its fold left memory kept (``let_go``): a jump folds the few events since from there
            self._warming.add(game_id)
            follow, self._following = not self._following, True
        self.hub.socketio.start_background_task(self._warm, game_id)
        if follow:  # the first fold ahead in this process: from now on the folds follow the games as they are played
            self.hub.socketio.start_background_task(self._follow)

    def _follow(self) -> None:
        while True:
            self.hub.socketio.sleep(FOLLOW_EVERY)
            try:
                self.follow_once()
            except Exception:
                log.warning("the replay's folds did not follow the games", exc_info=True)

    def follow_once(self) -> None:
        """Each game folded ahead here whose GM is at the table: what was played since is folded and kept (so a
        replay opened late in a long evening does not wait for the evening's fold)."""
        with self._lock:
            games = list(self._histories)
        for game_id in games:
            if self._online(game_id, "gm"):
                self.warm(game_id)

    def folded(self, game_id: str, upto: int | None = None, rest: float = 0) -> replay_view.History:
        """The game's log folded up to event ``upto`` (default: its head), a slice at a time: under gevent (tacmap
        serve) the other tables' greenlets go on between slices of a long first fold (a fold in the background rests
        ``rest`` seconds between two, ``FOLD_REST``)."""
        found = self.history(game_id)
        upto = found.head if upto is None else min(upto, found.head)
        while found.folded < upto:
            found.fold_to(min(upto, found.folded + FOLD_SLICE))
            _turn(rest)
        return found

    def jumped(self, game_id: str, at: int) -> replay_view.History:
        """The game's log made ready for a jump to event ``at``: folded up to it where the jump's state is folded
        (``History.folds_to``: not when the store's snapshot is nearer), and its timeline told up to it (the
        banner's moment), a slice at a time (``folded``, ``told``)."""
        found = self.history(game_id)
        self.folded(game_id, found.folds_to(min(at, found.head)))
        return self.told(game_id, at)

    def told(self, game_id: str, upto: int | None = None) -> replay_view.History:
        """The game's timeline told up to event ``upto`` (default: its head), the states not folded
        (``History.tell_to``: the log folded without the fog's memory ahead of the fold), a slice at a time."""
        found = self.history(game_id)
        upto = found.head if upto is None else min(upto, found.head)
        while found.told < upto:
            found.tell_to(min(upto, found.told + TELL_SLICE))
            _turn(0)
        return found

    def played(self, game, before: int) -> None:
        """The game's events after ``before`` are on disk and ``game`` is its state after them (the hub holds the
        game's lock): when they crossed a multiple of ``LIVE_EVERY``, the game's live state is taken as the fold's
        next checkpoint and kept on disk, in the background at the next quiet moment (``_checkpoint_when_quiet``):
        a game played through tacmap never has a cold first jump, and no move waits for it."""
        if game.seq // LIVE_EVERY == before // LIVE_EVERY:
            return
        with self._lock:
            if game.id in self._due:
                return
            self._due.add(game.id)
        try:
            self.hub.socketio.start_background_task(self._checkpoint_when_quiet, game.id)
        except Exception:  # a shortcut only: a jump folds what it needs itself
            with self._lock:
                self._due.discard(game.id)
            log.warning("game %s: no live checkpoint at seq %s", game.id, game.seq, exc_info=True)

    def _quiet(self, since: float) -> None:
        """Wait for a quiet moment (``LIVE_QUIET`` with no command), or until ``LIVE_WAIT`` seconds after ``since``."""
        while True:
            idle, left = self.hub.quiet_for(), since + LIVE_WAIT - time.monotonic()
            if idle >= LIVE_QUIET or left <= 0:
                return
            self.hub.socketio.sleep(min(LIVE_QUIET - idle, left))

    def _checkpoint_when_quiet(self, game_id: str) -> None:
        """``played``'s checkpoint: at a quiet moment, the game's state then (its seq at or past the multiple
        of ``LIVE_EVERY`` it crossed), copied under the game's lock (``checkpoint_of``), folded and kept."""
        since = time.monotonic()
        try:
            self._quiet(since)
            with self.hub.lock(game_id):
                with self._lock:
                    self._due.discard(game_id)  # a crossing from now on asks for the next one
                game = self.hub.game(game_id)
                if game is None:  # deleted meanwhile
                    return
                seq, pickled = game.seq, replay_view.checkpoint_of(game)
        except Exception:  # a shortcut only: a jump folds what it needs itself
            with self._lock:
                self._due.discard(game_id)
            log.warning("game %s: no live checkpoint", game_id, exc_info=True)
            return
        self.checkpoint(game_id, seq, pickled, quiet=lambda: self._quiet(since))

    def checkpoint(self, game_id: str, seq: int, pickled: bytes, quiet: Callable[[], None]) -> None:
        """The live state after event ``seq`` taken as the kept fold's checkpoint there (``History.advance``: the
        moments since the last checkpoint folded without the fog's memory) and kept on disk. A fold that is far
        behind (a game played before this, imported) is folded ahead instead, in slices, as a GM connection does.
        ``quiet`` is waited for before each part of keeping it (reading a checkpoint's state, writing a file)."""
        try:
            with self._lock:
                lock = self._checkpointing.setdefault(game_id, threading.Lock())
            with lock:  # one game's checkpoints one at a time, in order
                found = self.history(game_id)
                if seq - found.folded > LIVE_GAP:
                    found = self.folded(game_id, seq, rest=FOLD_REST)
                elif not found.advance(seq, pickled):
                    return
                time.sleep(0)
                quiet()
                self.keep(game_id, found, quiet)
                self.let_go(game_id, found)
        except Exception:  # a shortcut only: a jump folds what it needs itself
            log.warning("game %s: the live checkpoint at seq %s was not kept", game_id, seq, exc_info=True)

    def fold_old(self) -> None:
        """At the server's start: the games with a long log (``WARM_FROM`` events or more) and no kept fold, or one far
        behind their log (games made by an earlier version, or imported while no server ran), are folded and kept in
        the background, ``FOLD_OLD_AFTER`` seconds after the start, one after another, in slices (``folded``): their
        first jump then folds at most ``LIVE_EVERY`` events, and the other tables go on meanwhile. With several
        processes (Redis), each game is folded by the one that claims it (``Shared.claim``, for ``FOLD_CLAIM``
        seconds); the others take its kept fold, and fold a game themselves only when its claim lapsed with no fold
        kept (the claimer died, or could not write it)."""
        self.hub.socketio.start_background_task(self._fold_old)

    def _fold_old(self) -> None:
        self.hub.socketio.sleep(FOLD_OLD_AFTER)
        try:
            games = [record.id for record in self.hub.store.games()]
        except Exception:
            log.warning("the games to fold for the replay were not listed", exc_info=True)
            return
        while games:
            claimed = []  # the games another process folds now: looked at again once its claim could have lapsed
            for game_id in games:
                try:
                    if not self._old(game_id):
                        continue  # short (folded in a moment when a jump asks), or kept already
                    if not self._claim_fold(game_id):
                        claimed.append(game_id)
                        continue
                    with self._lock:
                        if game_id in self._warming:
                            continue
                        self._warming.add(game_id)
                except Exception:
                    log.warning("game %s: not folded at the start", game_id, exc_info=True)
                    continue
                self._warm(game_id)  # ends its own turn (``_warming``)
                time.sleep(0)
            if claimed:
                self.hub.socketio.sleep(FOLD_CLAIM)
            games = claimed

    def _old(self, game_id: str) -> bool:
        """Whether a game's log is long and its kept fold missing or far behind it (``fold_old``). Not a game played
        since the start whose live checkpoint waits for a quiet moment: that checkpoint folds it (in full when far
        behind), and the start's fold would be the same work twice."""
        with self._lock:
            if game_id in self._due:
                return False
        head = self.hub.store.last_seq(game_id)
        if head < WARM_FROM:
            return False
        kept = kept_folds.load_checkpoints(self._data_dir(), game_id)
        return kept is None or not isinstance(kept.get("seq"), int) or head - kept["seq"] > LIVE_GAP

    def _claim_fold(self, game_id: str) -> bool:
        """This process folds the game at the start (``fold_old``): always when it is alone; with several (Redis), when
        it claims it first among those on this data folder (True too when Redis is away: each folds its own)."""
        shared = self.hub.shared
        if shared is None:
            return True
        return shared.claim(f"replay-fold:{Path(self._data_dir()).resolve()}:{game_id}", FOLD_CLAIM)

    def _warm(self, game_id: str) -> None:
        try:
            found = self.folded(game_id, rest=FOLD_REST)
            self.keep(game_id, found)
        except Exception:  # a shortcut only: a jump folds what it needs itself
            log.warning("game %s: no fold ahead", game_id, exc_info=True)
        finally:
            with self._lock:
                self._warming.discard(game_id)

    # --- the commands -----------------------------------------------------

    def replaying(self, game_id: str, audience: str) -> bool:
        return (game_id, audience) in self._on

    def command(self, game_id: str, actor: Actor, cmd) -> dict:
        """Run ``replay`` or ``replay_end`` for this sender; the answer's extra fields (nothing is stored)."""
        game = self.hub.game(game_id)
        if game is None:
            raise Rejected(N_("no game %(id)s"), id=repr(game_id))
        access.check_command(game, cmd, actor)
        if isinstance(cmd, replay_view.ReplayEnd):
            ended = self.end(game_id, actor)
            return {"replay": None, "ended": ended}
        audiences = replay_view.screens(cmd, actor)
        # the kept fold restored (thousands of timeline lines made again), the events read and folded: many new
        # objects, none in a cycle; with the collector on, its full collections walked the whole heap in the
        # middle of it (a server started again: 190 of a first jump's 290 ms). Collected as usual afterwards.
        with collector_paused():
            history = self.jumped(game_id, cmd.at)
            if cmd.at > history.head:
                raise Rejected(N_("at: the log goes from 0 to %(head)s, not %(seq)s"), head=history.head, seq=cmd.at)
            history.may_replay(actor, cmd.at)
            self._turns()
            past = history.state_at(cmd.at, between=self._turns)
            self._turns()
            self._show(game_id, actor, audiences, history, past, cmd.at)
            banner = language.words(replay_view.banner(history, cmd.at, actor, past))  # in the sender's words
        return {"replay": {"at": cmd.at, "head": history.head, "on": audiences, "banner": banner}}

    def _turns(self) -> None:
        """Between two parts of a jump: the other tables first, and another table's command under way (#72)."""
        others_first(self.hub.light_running)

    def _show(self, game_id: str, actor: Actor, audiences: list[str], history: replay_view.History, past,
              at: int) -> None:
        """The past moment ``at`` drawn on the screens of ``audiences`` (the sender's replay leaves the others)."""
        by = "gm" if actor.role == "gm" else actor.audience
        with self._lock:
            for audience in self._theirs(game_id, by):
                if audience not in audiences:  # the GM's replay left the table screen: it shows the present again
                    self._back(game_id, audience)
            for audience in audiences:
                self._on[(game_id, audience)] = (at, by)
                if self.hub.shared is not None:  # a screen of that audience on another process is shown it too
                    self.hub.shared.replay_on(game_id, audience, at, by)
        for audience in audiences:
            self._send(game_id, audience, history, past, at)

    def end(self, game_id: str, actor: Actor) -> list[str]:
        """Every screen this sender's replay is on goes back to the present; the audiences that did."""
        by = "gm" if actor.role == "gm" else actor.audience
        with self._lock:
            audiences = self._theirs(game_id, by)
        for audience in audiences:
            self._back(game_id, audience)
        return audiences

    def _on_now(self, game_id: str) -> dict[str, tuple[int, str]]:
        """The audiences of the game replaying now: audience -> (seq shown, who asked). With several processes
        (Redis), those any process started (the GM's page on one, the table screen on another)."""
        with self._lock:
            found = {a: on for (g, a), on in self._on.items() if g == game_id}
        if self.hub.shared is not None:
            shared = self.hub.shared.replays(game_id)
            if shared is not None:
                found = shared | found
        return found

    def _theirs(self, game_id: str, by: str) -> list[str]:
        return [a for a, (_at, who) in self._on_now(game_id).items() if who == by]

    def left(self, game_id: str, actor: Actor) -> None:
        """A connection closed: when it was the last of someone whose replay is on (the GM closed the page, the
        laptop went to sleep), that replay ends once ``LEFT_GRACE`` seconds passed with none of theirs back, so
        the table screen does not stay in the past with nobody to bring it back."""
        by = "gm" if actor.role == "gm" else actor.audience
        if not self._theirs(game_id, by):
            return
        self.hub.socketio.start_background_task(self._end_if_gone, game_id, actor, by)

    def _end_if_gone(self, game_id: str, actor: Actor, by: str) -> None:
        self.hub.socketio.sleep(LEFT_GRACE)
        try:
            if self._online(game_id, actor.audience):
                return  # back (a reload, the Wi-Fi came back): the replay goes on
            self.end(game_id, actor)
        except Exception:
            log.exception("game %s: the replay of %s did not end", game_id, by)

    def _online(self, game_id: str, audience: str) -> bool:
        """Whether a connection of this audience is open: to this process, or with several, to any."""
        return self.hub.presence.online(game_id, audience)

    # --- what goes to the screens -----------------------------------------

    def _send(self, game_id: str, audience: str, history, past, at: int, sid: str | None = None) -> None:
        """The past moment, drawn for this audience from the state then, with its banner's line."""
        hub = self.hub
        actor = self._actor(audience)
        game = hub.game(game_id)
        if sid is not None:  # one connection: its own language (the table screen's: the GM's choice for it)
            device = hub.presence.session_language(sid)
            groups = {hub.fanout.group_language(game, audience, device): [sid]}
        else:  # the audience's devices, once per language they read, as a live update (#37)
            groups = hub.fanout.language_groups(game, audience)
        line = replay_view.banner(history, at, actor, past)
        for lang, to in groups.items():
            with self._context(), language.speaking(lang):
                html = render.fragments(past, actor, render.EVERYTHING, online=hub.online_players(game_id),
                                        extra=hub.fanout.shown_to_all(game_id), between=self._turns)
                said = language.words(line)
            hub.socketio.emit("replay", {"at": at, "head": history.head, "banner": said, "html": html},
                              to=to if len(to) > 1 else to[0])
            self._turns()  # each screen's drawing a part of its own (#72)

    def _back(self, game_id: str, audience: str) -> None:
        """This audience shows the present again: a fresh copy of everything, and the live updates from now on."""
        hub = self.hub
        game = hub.game(game_id)
        actor = self._actor(audience)
        with hub.lock(game_id):
            with self._lock:
                self._on.pop((game_id, audience), None)
            if hub.shared is not None:
                hub.shared.replay_off(game_id, audience)
            with self._context():
                hub.fanout.forget_shown(game_id, audience)  # what was sent before the replay no longer counts
                online, extra = hub.online_players(game_id), hub.fanout.shown_to_all(game_id)
            for lang, to in hub.fanout.language_groups(game, audience).items():  # each device in its language (#37)
                with self._context(), language.speaking(lang):
                    html = render.fragments(game, actor, render.EVERYTHING, online=online, extra=extra)
                hub.socketio.emit("replay_end", {"seq": game.seq, "html": html}, to=to if len(to) > 1 else to[0])

    def _context(self):
        """Where fragments can be drawn: this request's (a socket's, a route's), else one made for the purpose
        (a script or a test calling the hub directly: links need a request to be built)."""
        if has_request_context():
            return self.hub.app.app_context()
        return self.hub.app.test_request_context(base_url=self.hub.base_url())

    def connected(self, game_id: str, actor: Actor, sid: str) -> None:
        """A connection opened while its audience replays: it is shown the replay too. A GM's connection has the
        game's log folded ahead (``warm``)."""
        if actor.role == "gm":
            self.warm(game_id)
        found = self._on.get((game_id, actor.audience))
        if found is None and self.hub.shared is not None:
            found = self._on_now(game_id).get(actor.audience)  # started through another process
        if found is None:
            return
        history = self.jumped(game_id, found[0])
        at = min(found[0], history.head)
        self._send(game_id, actor.audience, history, history.state_at(at), at, sid=sid)
