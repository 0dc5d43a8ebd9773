"""Committing: a command's events decided, stored, applied and made durable, many commands at a time.

A command joins its game's queue (``Committing.commit``); whoever holds the game's lock next takes every command
waiting (group commit), decides each on the state the ones before it left, writes all their events in one
transaction, applies them and has one update drawn for the lot (``Fanout``). The update is drawn while the write
runs (``store_and_render``), and what queued meanwhile joins it (``absorb``). Nothing unstored is ever answered
or shown: a write that fails drops the state in memory (it ran ahead of the log) and refuses its commands.

With other processes on the same log (Redis), a write can lose a race (``Conflict``): the batch is decided again on
the state the log has then (``backup``, ``lost_race``). A command may carry an id (docs/PROTOCOL.md "Command ids"),
stored with its events: sent again (a phone that did not hear its answer), it is answered as the first time
(``Repeat``), not done twice. A command's id, when its sender gives up waiting and whom to tell once it queued
travel with it as one argument (``Sending``).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import random
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any, Callable

from rules import pacing
from rules.movement import indexes

from ..game.bridge import heavy
from ..game.core.model import Event, Game, Rejected
from ..game.table import evolve
from ..game.core.text import N_
from ..storage.store import Appending, Applied, Conflict, Store, WriteFailed
from .server import geometry
from .screens import render
from .screens.fanout import Fanout, Update
from .games import Games
from .presence import ENDS_SESSIONS, Presence

log = logging.getLogger(__name__)

SNAPSHOT_EVERY = 200
#: how many more commits a batch takes in (what queued while it was stored) before its one update
ABSORB_ROUNDS = 3
#: what a request or a command hears while the database does not answer (PostgreSQL restarting, its network down)
DATABASE_AWAY = N_("The game's database does not answer (it may be restarting): nothing was changed. Try again in a "
                   "moment.")
TOO_LATE = N_("the server was too busy to do that in time; nothing changed, try again")
#: a safety net only: a batch that lost the write race this many times in a row is refused (each loss means
#: the other process stored something; the senders' own deadlines, ``Sending.gives_up``, come first)
MAX_RACES = 200
#: command ids a process remembers taking (``Committing.seen_before``): a phone sends a command again within seconds
SEEN_CIDS_KEPT = 20_000
#: the id a command may carry (docs/PROTOCOL.md "Command ids"): what a device makes, short printable text
COMMAND_ID_MAX = 64


@dataclass(frozen=True, slots=True)
class Sending:
    """What comes with a command besides its payload, from the lane or the route that took it to its commit."""

    #: the seat and id of the command (``Hub.execute``): its commit stores the id with its events
    cid: tuple[str, str] | None = None
    #: when (monotonic) its sender stops waiting for the answer (a lane's ``STALE_AFTER``): refused, not done, after
    gives_up: float | None = None
    #: called once the command joined its game's queue: its lane's next command may start then, and queue behind it,
    #: so the two can share one commit
    queued: Callable[[], None] | None = None

    def with_id(self, seat: str, cid: str) -> "Sending":
        return Sending((seat, cid), self.gives_up, self.queued)


#: a command nobody is waiting on with a deadline (a request's, the server's own): no id, no deadline, no lane
NO_DEADLINE = Sending()


@dataclass(frozen=True)
class Committed:
    seq: int
    events: list[Event]
    reply: dict = field(default_factory=dict)  # what the sender hears besides ok and seq (a roll's dice...)


class Repeat(Exception):
    """A command whose id this seat's command already carried: answered with that one's answer, not done again."""

    def __init__(self, done: Committed) -> None:
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


class _Request:
    """One command waiting in its game's queue for a group commit (``Committing.commit``)."""

    __slots__ = ("decide", "gives_up", "alone", "result", "error", "finished", "cid", "answer", "stored", "look_up")

    def __init__(self, decide, gives_up: float | None, alone: bool, cid: tuple[str, str] | None = None,
                 answer=None, look_up: bool = False) -> None:
        self.decide, self.gives_up, self.alone = decide, gives_up, alone
        self.cid, self.answer = cid, answer  # (seat, id) stored with its events; its answer from its events
        #: whether its id is looked for in the log before it is decided (``Committing._decide_batch``): this process
        #: took a command with that id before, or a write with it lost a race (the id may be the one stored)
        self.look_up = look_up
        self.result: Committed | None = None
        self.error: BaseException | None = None
        self.finished = False
        self.stored: list[Appending] = []  # the appends its answer waits for (``durable``), after the game's lock

    def succeed(self, result: Committed, stored: list[Appending] = ()) -> None:
        if not self.finished:
            self.result, self.stored, self.finished = result, list(stored), True

    def fail(self, error: BaseException) -> None:
        if not self.finished:
            self.error, self.finished = error, True


class _Unappliable(Exception):
    """A decided event that ``evolve`` cannot apply (a bug): its command is refused, nothing is stored."""

    def __init__(self, request: _Request, error: BaseException) -> None:
        super().__init__(repr(error))
        self.request, self.error = request, error


class Committing:
    def __init__(self, store: Store, socketio, games: Games, presence: Presence, fanout: Fanout, replays) -> None:
        """``replays``: told of each commit (``Replays.played``: the replay's live checkpoints)."""
        self.store = store
        self.socketio = socketio
        self.shared = None  # with --message-queue: other processes write to the same logs (races, ``backup``)
        self.games, self.presence, self.fanout, self.replays = games, presence, fanout, replays
        heavy.install(geometry.runner())  # where a big map's geometry runs while a command holds its game's lock
        pacing.set_pacer(geometry.loop_pacer())  # a big map's data built or written on the loop in slices (#69)
        self._guard = threading.Lock()
        self._pending: dict[str, list[_Request]] = {}  # game id -> commands waiting for a commit (``commit``)
        self._cids: dict[tuple[str, str, str], list] = {}  # (game, seat, cid) -> [lock, users]: one at a time
        #: the command ids this process took lately, (game, seat, cid), oldest first (``_seen_before``)
        self._seen_cids: OrderedDict[tuple[str, str, str], None] = OrderedDict()
        #: games whose last commit took in commands that queued while it was stored (``_absorb``): a busy game,
        #: whose next update is not rendered ahead of its write (it would likely be rendered again)
        self._absorbing: set[str] = set()

    def waiting(self, game_id: str) -> int:
        """How many commands wait in this game's queue now (not yet taken into a batch)."""
        with self._guard:
            return len(self._pending.get(game_id, ()))

    def commit(self, game_id: str, decide_events, alone: bool = False, answer=None,
               sending: Sending = NO_DEADLINE) -> Committed:
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

        A command with an id (``sending.cid``) has it stored with its events, in their transaction, with its
        answer (``answer(events)``, besides ok and seq); one whose id is stored already is not decided again
        but raises ``Repeat`` with the first answer. One whose sender gave up (``sending.gives_up``) before it
        was decided is refused; ``sending.queued`` is called once it joined the queue.
        """
        cid = sending.cid
        request = _Request(decide_events, sending.gives_up, alone, cid, answer,
                           look_up=cid is not None and self._seen_before(game_id, cid))
        with self._guard:
            self._pending.setdefault(game_id, []).append(request)
        if sending.queued is not None:
            sending.queued()  # the sender's lane may start its next command: it queues behind this one
        with self.games.lock(game_id), heavy.while_committing():  # a big map's geometry may leave the loop
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
                with self.games.lock(game_id):  # is rebuilt from the log, which says what stands
                    self.games.drop(game_id)
                raise
        return request.result

    # --- command ids ------------------------------------------------------

    @contextlib.contextmanager
    def one_at_a_time(self, game_id: str, seat: str, cid: str):
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

    def answered_before(self, game_id: str, seats: list[str], cid: str) -> Committed | None:
        """The first answer to command ``cid`` when one of ``seats`` sent it (the seats merged into the sender's
        since: its device holds the sender's seat now, #57), as a ``Repeat`` answers; None when none did."""
        for seat in seats:
            first = self.store.applied(game_id, seat, cid)
            if first is not None:
                return Committed(first[0], [], {**first[1], "repeat": True})
        return None

    def _repeated(self, game: Game, request: _Request) -> bool:
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

    # --- the queue and its batches ------------------------------------------

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

    def _commit_batch(self, game_id: str, batch: list[_Request], absorb: bool = False) -> None:
        """Decide, store (one transaction), apply and broadcast one batch; every request gets its answer.
        ``absorb``: nothing queued before this batch waits still, so what queued while it was being stored
        may join its update (``_absorb``)."""
        races = 0  # write races lost in a row: each one means another process stored something meanwhile
        while True:
            try:
                game = self.games.get(game_id)
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
                self.games.drop(game_id)
                log.error("game %s: an event that cannot be applied: %r", game_id, exc.error)
                exc.request.fail(exc.error)
                self.fanout.send_fresh_copies(game_id)
                continue
            except Conflict:  # another process wrote first: catch up with its events, decide again on them
                races += 1
                for request in batch:  # (or a command's id is stored already: its repeat)
                    request.look_up = True
                if races >= MAX_RACES:  # never seen in practice: the senders try again, nothing of theirs is stored
                    log.warning("game %s: lost the write race %s times in a row", game_id, races)
                    self.games.drop(game_id)
                    for request in batch:
                        request.fail(Rejected(TOO_LATE, code="busy"))
                    return
                self._lost_race(game_id, backup, races)
                continue
            except WriteFailed as exc:
                # not on disk, so not in memory either: the state never runs ahead of the log
                self.games.drop(game_id)
                log.error("game %s: %s", game_id, exc.__cause__ or exc)
                away = self.store.away(exc.__cause__)  # the database's server, restarting: said
                # so in the sender's language (and not where it is: the phones need not know the database's address)
                for request in batch:
                    request.fail(Rejected(DATABASE_AWAY, code="unavailable") if away
                                 else Rejected(str(exc), code="not_stored"))
                self.fanout.send_fresh_copies(game_id)
                return
            except BaseException:
                self.games.drop(game_id)  # applied in memory, not in the log: rebuild from the log
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
                    game = self.games.get(game_id)
            except Exception:
                log.exception("game %s: no state to show seq %s..%s from", game_id, before + 1,
                              before + len(events))
                game = None
        if events and game is not None:
            try:
                self.presence.end_sessions_for(game, events)
                self.fanout.committed(game, before, events, update, early)
            except Exception:  # stored and applied: the commands are done, whatever the screens heard
                log.exception("game %s: the update for seq %s..%s failed", game_id, before + 1, game.seq)
            if game.seq // SNAPSHOT_EVERY != before // SNAPSHOT_EVERY:  # once every screen heard (GM's included):
                try:  # its few ms on a big map delay no update, only the senders' "ok"
                    self.store.save_snapshot(game_id, game.seq, game.to_dict())
                except Exception:  # the events are stored; a snapshot is only a shortcut
                    log.warning("game %s: no snapshot at seq %s", game_id, game.seq, exc_info=True)
            self.replays.played(game, before)  # the replay's checkpoint, every LIVE_EVERY events (at a quiet moment)
            heavy.warm(game.board, indexes)  # a big map changed (or shown): its indexes off the loop before a move
        seq = before
        for request, evs in decided:  # each waits for the disk (``writings``' fsyncs) before it answers "ok"
            seq += len(evs)
            request.succeed(Committed(seq, evs), writings)

    def _decide_batch(self, game: Game, batch: list[_Request]) -> list[tuple[_Request, list[Event]]]:
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

    # --- the write and its update ---------------------------------------------

    def _store_and_render(self, game: Game, before: int, decided: list) -> tuple[Update | None, int | None, Appending]:
        """Store the decided events after ``before`` (with their commands' ids: ``_with_ids``) and render their
        update meanwhile; returns the update, the seq the screens other than the GM's were sent already (or
        None: ``Fanout.first``), and the append (``Store.begin_append``), whose ``durable()`` the caller waits for
        before anyone hears "ok". Raises as ``Store.append``. SQLite: the events are committed
        before the rendering starts (no wait for the disk: its fsync runs on the writer thread meanwhile);
        PostgreSQL: the transaction is sent, the update for the other screens drawn while the server commits it,
        and sent once its answer says it is committed (``Fanout.first``; its flush then runs on the writer thread
        while the GM's part is drawn). The screens hear of the change once it is committed (nothing is sent before).
        None for the update: none was rendered (there is more to do first, the write failed, or rendering failed),
        the caller renders it once the events are stored. Nothing is rendered ahead when more commands wait for
        this game, or others joined its last update (they would likely join this one: ``_absorb``, and it would be
        rendered twice), or when connections will end first (``ENDS_SESSIONS``). SQLite's others' update goes out
        language by language as each is drawn (``Fanout.first``)."""
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
                    changes, audiences = render.changes_for(events, game), self.presence.audiences(game)
                    renders: dict = {}  # one update: the GM's part finds what the others' drew (words, values)
                    # the other screens first, while the GM's part is drawn (``first``), once the events are committed
                    sent = self.fanout.first(game, changes, before, [a for a in audiences if a != "gm"], renders,
                                             writing)
                    writing.sync()  # the flush its "ok" waits for: on the writer thread, while the GM's is drawn
                    if not sent:
                        update = self.fanout.render_update(game, changes, before, only=audiences)
                    elif "gm" in audiences:
                        update = self.fanout.render_update(game, changes, before, only=["gm"], renders=renders)
                    else:
                        update = Update(game.seq, {}, {})
                except (Conflict, WriteFailed):  # the write's answer (``finish``): nothing was sent
                    raise
                except Exception:  # rendered again once stored (and logged then, if it fails again)
                    log.debug("game %s: the update was not rendered ahead of its write", game.id, exc_info=True)
                    update = None
        finally:
            writing.finish()
        return update, (before + len(events) if sent else None), writing

    def _absorb(self, game_id: str, game: Game, decided: list, writings: list) -> tuple[Game | None, list]:
        """Requests that queued while a batch was being stored (or its update drawn) join its one update: each
        round is decided and stored in a transaction of its own (its append added to ``writings``, waited for
        before "ok"), and answered only with the rest, after the broadcast. Rendering every audience costs far more
        than a commit, so a client with commands in flight gets one update for them, not one per commit. A round
        that cannot be stored (another process wrote first, the disk...) goes back to the head of the queue,
        undecided, to be run again on the state the log has; the state it changed is dropped (None: rebuild it
        from the log)."""
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
                    self.games.restore(game_id, backup)  # with the other's events when the batch runs again
                    self.games.contend(game_id)
                else:
                    self.games.drop(game_id)
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

    # --- races with other processes ---------------------------------------------

    def _backup(self, game: Game) -> Game | None:
        """A copy of the game's state before a batch is decided on it, while another process writes to this game
        too (``Games.contended``): if that process stores its events first (``Conflict``), the state the log had
        is this copy, caught up with the other's events (``_lost_race``), not the whole game rebuilt. None when
        no one else wrote to it lately (a copy costs a few ms on a big map; a lone writer never loses a race).

        The copy shares what is never changed in place (the boards' walls, doors and cover are frozen
        values) and leaves out caches (the boards' paths, the fog's vision): they are rebuilt as needed."""
        if self.shared is None or not self.games.contended(game.id):
            return None
        memo: dict = {id(game.vision): None}
        for board in [game.board] + [m.board for m in game.maps.values() if m.board is not None]:
            board.share_in(memo)
        return copy.deepcopy(game, memo)

    def _lost_race(self, game_id: str, backup: Game | None, races: int) -> None:
        """Another process stored its events first: the state in memory holds ours, decided but never stored.
        It is replaced by the state before them (``backup``) caught up with the other's events from the log
        (one read of the events after its seq), or, with no copy, rebuilt from the log; the batch is then
        decided again on it: a command the other's events made impossible is refused for its own reason."""
        self.games.contend(game_id)
        if races > 2:  # the other is writing as fast as it can: let it finish its write before trying again
            time.sleep(random.uniform(0, 0.002 * min(races, 20)))
        if backup is None:
            self.games.load(game_id)
        else:
            self.games.restore(game_id, backup)
            self.games.restore(game_id, self.games.catch_up(game_id, backup))
