"""The replay (#36): any past moment of a game, drawn from its log, for the audience that asks.

Pure: no Flask, no database. ``steps`` is the one fold of a log into states (the recap's walk through the
log, ``webapp.storage.history``, is it too). A :class:`History` is a game's log folded once, from the first
event, as far as it is asked: it keeps a checkpoint of the state every ``CHECKPOINT_EVERY`` events (the
state pickled as it is, so a copy is cheap to take back) and the timeline's moments (fights, rounds, turns,
attacks, moves, maps shown, hand-outs), each said from the state right after its event. ``state_at(seq)``
folds the log up to ``seq`` if it is not yet (the first jump into a game), then takes the nearest
checkpoint at or before ``seq`` with the events after it folded on: a later jump anywhere in a 5,000-event
game folds at most ``CHECKPOINT_EVERY`` events. Past the fold, the store's latest snapshot (the live server's,
when this version wrote it) serves as well when it is nearer: the first jump to the newest event of a long game
folds the few events after it, not the whole log. The timeline is told on its own where the fold has not got to
(``tell_to``: the log folded without the fog's memory, which no moment reads: a fraction of a fold's cost).
The fold keeps the fog's memory only where it can change (``recap.remembering``).
The live game is never touched: a replay is a view, it appends nothing.

Who sees what is the live page's rule applied to the state then (``webapp.game.bridge.fog``): the table screen's
replay is the screen's view at that moment, a player's is that player's (of the fights they were in).
"""

from __future__ import annotations

import bisect
import copy
import json
import pickle
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from rules.text import Say, joined, pack, say, unpack

from ..bridge import fog
from . import luck
from ..core import validation
from .recap import remembering
from ..core.feature import Feature
from ..core.model import Actor, Event, Game, Rejected
from ..core.text import N_

CHECKPOINT_EVERY = 50  # a jump folds at most this many events (with fog, each may recompute a token's sight)
STATE_SLICE = 10  # a jump's events folded between two turns of the other tables (``History.state_at``'s ``between``)
#: the kinds of moments on the timeline
KINDS = ("fight", "round", "turn", "attack", "move", "map", "handout", "fight_end")


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class Replay(_Command):
    """Show the game as it was right after event ``at`` (0..the log's head) on these screens; the GM's
    screens by default, a player's own screens for a player."""

    type: Literal["replay"]
    at: Annotated[int, Field(ge=0, le=10**9)]
    on: list[Literal["gm", "screen"]] | None = Field(default=None, max_length=2)


class ReplayEnd(_Command):
    """Back to the table: every screen this sender's replay was on shows the game as it is now."""

    type: Literal["replay_end"]


COMMANDS = (Replay, ReplayEnd)
COMMAND_TYPES = tuple(c.model_fields["type"].annotation.__args__[0] for c in COMMANDS)
_adapter: TypeAdapter[Any] = TypeAdapter(Annotated[Union[COMMANDS], Field(discriminator="type")])
#: a view, not a change: parsed and served by the hub (``Hub.replays``), no event
def parse(payload: dict) -> Any:
    try:
        return _adapter.validate_python(payload)
    except ValidationError as exc:
        raise validation.refused(exc, lambda loc: ".".join(str(p) for p in loc[1:]) or "replay") from None


#: a view, not a change: served by the hub's view route (webapp/live/replaying.py), nothing appended to the log
FEATURE = Feature("replay", COMMANDS, apart=True, routes=dict.fromkeys(COMMANDS, "view"), parse=parse)


def screens(cmd: Replay, actor: Actor) -> list[str]:
    """The audiences a replay command is shown to: ``on`` for the GM (the GM's page always), a player's
    own screens for a player (who may not send ``on``: the GM's and the table's screens are the GM's)."""
    if actor.role == "gm":
        return list(dict.fromkeys(["gm", *(cmd.on or [])]))
    if cmd.on:
        raise Rejected(N_("a player's replay is shown on that player's own screens only: leave out 'on'"))
    return [actor.audience]


@dataclass(frozen=True)
class Moment:
    """One entry of the timeline: the event's seq, its kind (``KINDS``), a line about it (the GM's), the round
    then, the seq its fight started at, the players in that fight (``players``), the players whose tokens it is
    about (``own``), the line a player is told (``told``: no name of a token they may not have seen), and the
    players who saw every token it names then (``seen``: an ally's turn or attack in their view; they are told
    ``text``, #58)."""

    seq: int
    kind: str
    text: str
    round: int | None
    fight: int | None
    players: frozenset = frozenset()
    own: frozenset = frozenset()
    told: str = ""
    seen: frozenset = frozenset()

    def to_dict(self, actor: Actor | None = None) -> dict:
        whole = actor is None or actor.role == "gm" or (actor.role == "player" and actor.player_id in self.seen)
        return {"seq": self.seq, "kind": self.kind, "text": self.text if whole else self.told, "round": self.round}

    def to_plain(self) -> list:
        """Everything of it as JSON data (``History.export``): its lines as message ids with their parameters
        (``rules.text.pack``), so a kept timeline reads in any language."""
        return [self.seq, self.kind, pack(self.text), self.round, self.fight, sorted(self.players),
                sorted(self.own), pack(self.told), sorted(self.seen)]

    @classmethod
    def from_plain(cls, plain: list) -> "Moment":
        """What :meth:`to_plain` made, back (a timeline kept before its lines were words: their English; one kept
        before ``seen``: no one's)."""
        seq, kind, text, rnd, fight, players, own, told, *seen = plain
        return cls(seq, kind, unpack(text), rnd, fight, frozenset(players), frozenset(own), unpack(told),
                   frozenset(seen[0]) if seen else frozenset())


def _name(game: Game, token_id: Any) -> str | Say:
    token = game.tokens.get(token_id) if isinstance(token_id, str) else None
    return token.name if token is not None else say("someone")


def _owners(game: Game, *token_ids: Any) -> frozenset:
    tokens = (game.tokens.get(i) if isinstance(i, str) else None for i in token_ids)
    return frozenset(t.owner for t in tokens if t is not None and t.owner)


def _fighters(game: Game, combat: dict | None = None) -> frozenset:
    """The players with a token in the fight (the one on now, or ``combat``)."""
    return _owners(game, *((combat if combat is not None else game.combat) or {}).get("order") or [])


def _seers(game: Game, *token_ids: Any) -> frozenset:
    """The players in the fight who saw every one of these tokens then (the live map's rule: ``fog.may_see``)."""
    tokens = [game.tokens.get(i) if isinstance(i, str) else None for i in token_ids]
    if any(t is None for t in tokens):
        return frozenset()
    return frozenset(pid for pid in _fighters(game) if all(fog.may_see(game, Actor("player", pid), t) for t in tokens))


def steps(game: Game, events: Iterable[Event], evolve: Callable[[Game, Event], None], first_seq: int = 1
          ) -> Iterator[tuple[int, Event, Game]]:
    """The one fold of a log (the replay's ``History`` and the recap's ``webapp.storage.history.walk``): each
    event applied to ``game`` in turn, ``(seq, event, game after it)`` yielded, the same game object each time
    (read it before the next step). ``game`` is the state before ``first_seq``."""
    for seq, event in enumerate(events, start=first_seq):
        evolve(game, event)
        yield seq, event, game


def checkpoint_of(game: Game) -> bytes:
    """The state as it is, without its caches: the views (``game.vision``: far bigger than the state itself on a
    fogged map) and the board's indexes (most of a big board's bytes: 1,000 walls, 100 KB), process memory rebuilt
    when needed. ``game`` is not touched (a shallow copy is pickled: the live game's, read by pages meanwhile)."""
    bare = copy.copy(game)
    bare.vision, bare.board = None, game.board.bare()
    return pickle.dumps(bare, pickle.HIGHEST_PROTOCOL)


class History:
    """A game's log, folded as far as it is asked (``fold_to``), with checkpoints, and its timeline told as far as
    it is asked (``tell_to``, never behind the fold); ``extend`` takes the events appended since. A jump folds only
    up to the event it asks for (from the nearest checkpoint when that is folded already, or from the store's
    snapshot when it is nearer): the first jump into a long game does not wait for all of it."""

    def __init__(self, game_id: str, evolve: Callable[[Game, Event], None], empty: Callable[[str], Game]) -> None:
        """``evolve`` and ``empty`` are the command table's (``table.evolve``, ``table.empty_game``): a feature
        of the game never imports the table itself."""
        self.game_id, self._evolve, self._empty = game_id, evolve, empty
        # the log as far as it is known (``extend``, ``grow``); None: an event not read yet (``_read``)
        self.events: list[Event | None] = []
        self._read: Callable[[int, int], list[Event]] | None = None  # the log after a seq, from the store (``grow``)
        self.times: dict[int, float | None] = {}  # seq -> when it was written, as the reader found it (the recap's)
        self._kept_events: dict[int, dict] = {}  # a restored checkpoint's event as the kept index has it
        self._unchecked: dict[int, dict] = {}  # those not yet compared with the log's (``_events``)
        self.foreign = False  # a kept fold was taken that turned out to be of another log (``_forget``)
        self.state = empty(game_id)  # the state after the last folded event
        self.folded = 0  # the events folded so far (``state`` is the state after event ``folded``)
        # the state every CHECKPOINT_EVERY events, pickled as it is (a copy taken back whole, in well under a ms)
        self._checkpoints: list[tuple[int, bytes | None]] = [(0, b"")]
        # a checkpoint taken back from what was kept (``restore``) is None until a jump reads it with this
        self._state_of: Callable[[int], dict | None] | None = None
        # the store's snapshot (``snapshot``): read once when a jump past the fold asks (None: not read yet), then
        # (its seq, its state pickled), or False (none, or not this version's: ``_snapshot``)
        self._read_snapshot: Callable[[], tuple[int, dict] | None] | None = None
        self._snapshot_found: tuple[int, bytes] | bool | None = None
        # the timeline is told as far as ``told`` (never behind ``folded``): with the fold where the fold is, and
        # ahead of it (``tell_to``) by a fold of its own without the fog's memory (no moment reads it), ``_teller``
        self.told = 0
        self._teller: Game | None = None  # the state after event ``told`` without the fog's memory (told > folded)
        self._moments_seen: list[Moment] = []
        self._plain_moments: list[list] = []  # the first of them as plain data (``export``)
        # a kept fold's moments (``restore`` with ``trusted``) as plain data, made Moments when first read (``_seen``)
        self._restored: list[list] | None = None
        self._fight: int | None = None  # the seq the fight on (at ``told``) started at
        self._fights: list[tuple[int, int | None]] = [(0, None)]  # (seq, the fight on from there): its changes
        self._combat: dict | None = None  # the fight as it was before the next event told
        self._lock = threading.RLock()  # a jump and the fold ahead of it (``webapp.live.replaying``) take turns

    @property
    def head(self) -> int:
        """The log's head as far as it is known."""
        return len(self.events)

    @property
    def moments(self) -> list[Moment]:
        """Every moment of the timeline (the whole known log told)."""
        self.tell_to(self.head)
        return self._seen()

    def _seen(self) -> list[Moment]:
        """The moments told so far: a kept fold's (``restore``) made from their plain data when first read (#72:
        a live checkpoint restores the fold it let go, and reads no moment)."""
        if self._restored is not None:
            self._moments_seen[:0] = [Moment.from_plain(m) for m in self._restored]
            self._restored = None
        return self._moments_seen

    def extend(self, events: list[Event]) -> None:
        """The events appended to the log since (folded when a jump, the timeline or ``fold_to`` needs them)."""
        with self._lock:
            self.events.extend(events)

    def grow(self, head: int, read: Callable[[int, int], list[Event]],
             snapshot: Callable[[], tuple[int, dict] | None] | None = None) -> None:
        """The log's head is ``head`` now; its events not read yet are read when a fold needs them, by
        ``read(after, before)`` (the log after that seq up to ``before``, as ``Store.events``): a server started
        again reads only the events after the checkpoint a jump starts from up to the jump's, not the whole log.
        ``snapshot()``, when given, is the store's latest snapshot of the game (``Store.snapshot``), read when a
        jump past the fold first asks (``state_at``)."""
        with self._lock:
            self._read = read
            if snapshot is not None and self._read_snapshot is None:
                self._read_snapshot = snapshot
            if head > len(self.events):
                self.events.extend([None] * (head - len(self.events)))

    def log(self) -> list[Event]:
        """The whole known log (``head`` events), read from the store where not read yet, kept for the next reader
        (the recap reads the log the replay keeps: a game served here is parsed once)."""
        with self._lock:
            try:
                return self._events(0, self.head)
            except _NotThisLog:  # a kept fold of another log: forgotten, the log is the log
                return self._events(0, self.head)

    def _events(self, start: int, stop: int) -> list[Event]:
        """The log's events ``start + 1`` .. ``stop``, read from the store where not read yet."""
        found = self.events[start:stop]
        if None in found:
            first = start + found.index(None)
            more = self._read(first, stop) if self._read is not None else []
            for i, event in enumerate(more[: len(self.events) - first], start=first):
                self.events[i] = event
            found = self.events[start:stop]
            if None in found:
                raise ValueError(f"game {self.game_id}: the log has no event {start + found.index(None) + 1}")
        if self._unchecked:  # a kept fold's checkpoints are of this log: their events are the log's
            for s in [s for s in self._unchecked if start < s <= stop]:
                if self._unchecked.pop(s) != found[s - start - 1].to_dict():
                    self._forget()
        return found

    def _forget(self) -> None:
        """The kept fold taken back (``restore``) is not of this log (cut at a damaged event and played on):
        forget it, to fold from the first event instead (``_NotThisLog``: the caller starts again)."""
        self.state, self.folded, self.told, self._teller = self._empty(self.game_id), 0, 0, None
        self._checkpoints, self._fights, self._state_of = [(0, b"")], [(0, None)], None
        self._moments_seen, self._plain_moments, self._fight, self._combat = [], [], None, None
        self._restored = None
        self._kept_events, self._unchecked, self.foreign = {}, {}, True
        raise _NotThisLog(self.game_id)

    def fold_to(self, seq: int) -> None:
        """Fold the log up to event ``seq`` (no further than the known head)."""
        self._on_to(seq, "folded", self._fold)

    def _on_to(self, seq: int, done: str, fold: Callable[[int], None]) -> None:
        """``fold(seq)`` when ``seq`` (no further than the known head) is past ``self.<done>``; once again from the
        first event when a kept fold turned out to be of another log (``_forget``)."""
        with self._lock:
            seq = min(seq, self.head)
            if seq <= getattr(self, done):
                return
            try:
                fold(seq)
            except _NotThisLog:
                fold(seq)

    def _fold(self, seq: int) -> None:
        """The state folded on up to ``seq`` with the fog's memory (each player's view computed again only after
        an event that changed what it is drawn from: ``recap.remembering``, the same memory as after every event),
        a checkpoint every ``CHECKPOINT_EVERY`` events, the moments of the events not told yet."""
        with fog.without_memory():
            for _seq, event, game in remembering(steps(self.state, self._events(self.folded, seq), self._evolve,
                                                       self.folded + 1)):
                self.folded = _seq
                if _seq > self.told:
                    self._tell(game, event, _seq)
                if _seq % CHECKPOINT_EVERY == 0:
                    self._checkpoints.append((_seq, checkpoint_of(game)))
        if self.folded >= self.told:
            self._teller = None  # the fold caught up with the timeline: it tells the next moments itself

    def tell_to(self, seq: int) -> None:
        """The timeline's moments up to event ``seq`` (no further than the known head), the state not folded: ahead
        of the fold, the log is folded without the fog's memory (a fraction of a fold's cost), from the fold's
        state or where the timeline got to (the timeline of a long game before its states: ``Replays.told``)."""
        self._on_to(seq, "told", self._tell_to)

    def _tell_to(self, seq: int) -> None:
        if self._teller is None:  # told as far as folded: from a copy of the fold's state
            self._teller = pickle.loads(checkpoint_of(self.state))
        with fog.without_memory():
            for _seq, event, game in steps(self._teller, self._events(self.told, seq), self._evolve, self.told + 1):
                self._tell(game, event, _seq)

    def _tell(self, game: Game, event: Event, seq: int) -> None:
        self._moments(game, event, self._combat, seq)
        self._combat = dict(game.combat) if game.combat else None
        self.told = seq

    def _fight_at(self, seq: int) -> int | None:
        """The seq the fight on after event ``seq`` started at (None: no fight), ``seq`` told."""
        return self._fights[bisect.bisect_right(self._fights, seq, key=lambda f: f[0]) - 1][1]

    @property
    def checkpointed(self) -> int:
        """The seq of the newest checkpoint."""
        return self._checkpoints[-1][0]

    def advance(self, seq: int, pickled: bytes) -> bool:
        """Take the live game's state after event ``seq`` (``pickled`` as ``checkpoint_of`` does: the server holds it
        after each commit) as the fold's state and checkpoint there: the moments of the events between are folded
        without the fog's memory (no moment reads it: a fraction of a fold's cost), the state is the live one.
        So a game played through the server has its checkpoints written as it is played. False: not taken
        (``seq`` is not past the fold, or past the known log)."""
        with self._lock:
            if not self.folded < seq <= self.head:
                return False
            self.tell_to(seq)
            self.state, self.folded = pickle.loads(pickled), seq
            if self.told == seq:
                self._teller = None
            self._checkpoints.append((seq, pickled))
            return True

    # --- kept between runs (``webapp.storage.history``: a file per game beside the log) --------------------

    def export(self, since: int = 0, pause: Callable[[], None] = lambda: None) -> dict | None:
        """What a new process needs to start where this fold got to, up to its last checkpoint, as plain data
        (JSON): ``index``, each checkpoint's event (to tell it is the same log) and the moments up to there;
        ``states``, ``[seq, state]`` of the checkpoints past ``since`` (those kept before are kept still). None
        when there is no checkpoint past the start. ``pause`` is called between two checkpoints."""
        with self._lock:
            checkpoints, seq = list(self._checkpoints), self._checkpoints[-1][0]
            fight = self._fight_at(seq)
            for s, _b in checkpoints[1:]:  # each checkpoint's event and moment as plain data once (kept each time)
                if s not in self._kept_events:
                    self._kept_events[s] = self._events(s - 1, s)[0].to_dict()
            events = dict(self._kept_events)
            # the newest checkpoint is the state folded so far, often (a live one just taken): no copy to unpickle
            newest = self.state.to_dict() if seq == self.folded and seq > since else None
            plain, first = self._plain_moments, len(self._restored) if self._restored is not None else 0
            plain.extend(m.to_plain() for m in self._moments_seen[len(plain) - first:])
            moments = plain[:bisect.bisect_right(plain, seq, key=lambda m: m[0])]
        if seq == 0:
            return None
        states = []
        for s, blob in checkpoints[1:]:
            if s > since and blob is not None:
                states.append([s, newest if s == seq and newest is not None else pickle.loads(blob).to_dict()])
                pause()
        index = {"version": 2, "game_id": self.game_id, "seq": seq, "fight": fight,
                 "events": [[s, events[s]] for s, _b in checkpoints[1:]],
                 "moments": moments}
        return {"index": index, "states": states}

    def restore(self, index: dict, state_of: Callable[[int], dict | None], trusted: bool = False) -> bool:
        """Start from what ``export`` kept (another process's or an earlier run's fold), when it is of this log
        and nothing is folded yet: each checkpoint's event is this log's event there. ``state_of(seq)`` gives a
        kept checkpoint's state (None: not kept); the last one is read now, the others when a jump needs them.
        ``trusted``: the fold this process kept itself (``Replays.let_go``): its moments are made when first read,
        not checked now. False: not taken (nothing changed)."""
        with self._lock:
            try:
                seq = index["seq"]
                if index.get("version") != 2 or index.get("game_id") != self.game_id or self.folded or not (
                        0 < seq <= self.head):
                    return False
                kept = [s for s, _event in index["events"]]
                # a log cut at a damaged event and played on differs at its last checkpoint's event (read alone:
                # the earlier events are read when a jump needs them)
                if (not kept or kept[-1] != seq or any(not 0 < s <= self.head for s in kept)
                        or any(a >= b for a, b in zip(kept, kept[1:]))
                        or index["events"][-1][1] != self._events(seq - 1, seq)[0].to_dict()):
                    return False
                last = state_of(seq)
                if not isinstance(last, dict):
                    return False
                state = Game.from_dict(last)
                moments = [] if trusted else [Moment.from_plain(m) for m in index["moments"]]
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                return False
            self._checkpoints = [(0, b"")] + [(s, None) for s in kept[:-1]] + [(seq, checkpoint_of(state))]
            self._state_of = state_of
            self._kept_events = {s: event for s, event in index["events"]}
            self._unchecked = {s: event for s, event in index["events"][:-1]}
            self._moments_seen, self.state, self.folded, self.told, self._teller = moments, state, seq, seq, None
            self._plain_moments = list(index["moments"])
            self._restored = list(index["moments"]) if trusted else None
            self._fight = index.get("fight")
            self._fights = [(0, None), (seq, self._fight)]
            self._combat = dict(state.combat) if state.combat else None
            return True

    def _snapshot(self, seq: int) -> tuple[int, bytes] | None:
        """The store's snapshot (``grow``: read the first time it is asked) when it is past the fold and at or
        before ``seq``, as ``(its seq, its state pickled)``. Taken only when it is the state this version folds:
        read back and written again, it is the very same (a snapshot written by an earlier version that kept less,
        e.g. no fog memory, is not: then the log is folded). The live server writes one every
        ``hub.SNAPSHOT_EVERY`` events, the log folded as here (tests/app/test_replay_snapshot_jump.py)."""
        if self._snapshot_found is None:  # read once; looked into when it serves a jump
            found = self._read_snapshot() if self._read_snapshot is not None else None
            self._snapshot_found = found if (isinstance(found, tuple) and len(found) == 2
                                             and isinstance(found[0], int) and isinstance(found[1], dict)) else False
        found = self._snapshot_found
        if not found or not self.folded < found[0] <= min(seq, self.head):
            return None
        if isinstance(found[1], dict):
            at, state, self._snapshot_found = found[0], found[1], False
            try:
                if state.get("seq") == at and state.get("id") == self.game_id:
                    game = Game.from_dict(state)
                    if json.loads(json.dumps(game.to_dict())) == state:
                        self._snapshot_found = (at, checkpoint_of(game))
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                pass
        return self._snapshot_found or None

    def _checkpoint(self, i: int) -> bytes | None:
        """The ``i``-th checkpoint's pickled state, read from what was kept if it is not in memory yet; None when
        it cannot be read (then an earlier one serves)."""
        seq, blob = self._checkpoints[i]
        if blob is None and self._state_of is not None:
            try:
                kept = self._state_of(seq)
                blob = checkpoint_of(Game.from_dict(kept)) if isinstance(kept, dict) else None
            except (KeyError, TypeError, ValueError, IndexError, AttributeError):
                blob = None
            if blob is not None:
                self._checkpoints[i] = (seq, blob)
        return blob

    def _moments(self, game: Game, event: Event, before: dict | None, seq: int) -> None:
        d, kind = event.data, event.type
        combat = game.combat or {}
        rnd = combat.get("round") if game.combat else None

        def add(kind: str, text: str, told: str, own: frozenset = frozenset(), players: frozenset | None = None,
                fight: int | None = None, seen: frozenset = frozenset()) -> None:
            self._moments_seen.append(Moment(seq, kind, text, rnd if kind != "fight_end" else d.get("round"),
                                       fight if fight is not None else self._fight,
                                       _fighters(game) if players is None else players, own, told, seen))

        def turn() -> None:
            current = combat.get("current")
            if current:
                name = _name(game, current)
                line = say("Round {round}: {name}'s turn", round=rnd, name=name)
                owners = _owners(game, current)  # an ally's turn: the players who saw it live are told it too
                add("turn", line, line, owners, seen=_seers(game, current) if owners else frozenset())

        if kind == "combat_started":
            self._fight = seq
            self._fights.append((seq, seq))
            add("fight", say("Fight: {fighters}", fighters=joined([_name(game, i) for i in combat.get("order") or []],
                                                                   ", ")), say("A fight starts"))
            add("round", say("Round {n}", n=rnd), say("Round {n}", n=rnd))
            turn()
        elif kind == "turn_started" and game.combat:
            if before and before.get("round") != rnd:
                add("round", say("Round {n}", n=rnd), say("Round {n}", n=rnd))
            turn()
        elif kind == "combat_ended":
            add("fight_end", say("The fight ends (round {round})", round=d.get("round")), say("The fight ends"),
                players=_fighters(game, before) if before else frozenset())
            self._fight = None
            self._fights.append((seq, None))
        elif kind == "attack_resolved":
            who, whom = _name(game, d.get("attacker")), _name(game, d.get("target"))
            owners = _owners(game, d.get("attacker"), d.get("target"))
            # told whole to the players who saw both tokens; to one whose token it hit, by a foe out of their view,
            # "An unseen foe attacks Archer"
            add("attack", say("{attacker} attacks {target}", attacker=who, target=whom),
                say("An unseen foe attacks {target}", target=whom) if _owners(game, d.get("target")) else
                say("{attacker} attacks", attacker=who), owners,
                seen=_seers(game, d.get("attacker"), d.get("target")) if owners else frozenset())
        elif kind == "token_moved":
            line = say("{name} moves", name=_name(game, d.get("token_id")))
            add("move", line, line, _owners(game, d.get("token_id")))
        elif kind == "map_activated":
            m = game.maps.get(d.get("map_id"))
            add("map", say("Map shown: {map}", map=m.name) if m else say("Map shown: a map"),
                say("Another map is shown"))
        elif kind == "handout_shown":
            h = game.handouts.get(d.get("handout_id")) or {}
            add("handout", say("Hand-out shown: {title}", title=h["title"]) if h.get("title") else
                say("Hand-out shown: a hand-out"), say("A hand-out is shown"))

    def state_at(self, seq: int, between: Callable[[], None] | None = None) -> Game:
        """The game as it was right after event ``seq`` (a fresh object: the caller may keep it); ``between``:
        called after every ``STATE_SLICE`` events folded onto the checkpoint (the other tables' turn, #72)."""
        if not 0 <= seq <= self.head:
            raise Rejected(N_("at: the log goes from 0 to %(head)s, not %(seq)s"), head=self.head, seq=seq)
        with self._lock:
            try:
                blob, start, events = self._nearest(seq)
            except _NotThisLog:
                blob, start, events = self._nearest(seq)
        game = pickle.loads(blob) if blob else self._empty(self.game_id)
        with fog.without_memory():
            for i, _step in enumerate(remembering(steps(game, events, self._evolve, start + 1)), 1):
                if between is not None and not i % STATE_SLICE:
                    between()
        return game

    def folds_to(self, seq: int) -> int:
        """How far the fold goes for ``state_at(seq)``: ``seq`` when it is past the fold and the store's snapshot
        (``grow``) is not between the two (else the state is folded from the snapshot, the fold left where it is)."""
        with self._lock:
            return seq if seq > self.folded and self._snapshot(seq) is None else self.folded

    def _nearest(self, seq: int) -> tuple[bytes | None, int, list[Event]]:
        """The nearest checkpoint at or before ``seq`` (its state, its seq) and the events from there to ``seq``:
        past the fold, the store's snapshot when it is nearer (``_snapshot``), else the fold goes on to ``seq``."""
        if seq > self.folded and (found := self._snapshot(seq)) is not None:
            return found[1], found[0], self._events(found[0], seq)
        self.fold_to(seq)
        i = bisect.bisect_right(self._checkpoints, seq, key=lambda c: c[0]) - 1
        while (blob := self._checkpoint(i)) is None:  # a kept one that cannot be read: the one before
            i -= 1
        start = self._checkpoints[i][0]
        # from the checkpoint's own event: a kept one's is compared with the log's (``_events``)
        return blob, start, self._events(start - 1, seq)[1:] if start else self._events(0, seq)

    def moment_at(self, seq: int, actor: Actor) -> Moment | None:
        """The newest moment at or before ``seq`` this audience may be told of (what its banner says): any for
        the GM; a player's from their timeline; the table screen's, the fights' starts, rounds and ends, maps
        and hand-outs (never a token's name)."""
        self.tell_to(seq)
        moments = self._seen()
        i = bisect.bisect_right(moments, seq, key=lambda m: m.seq) - 1
        while i >= 0:
            m = moments[i]
            if actor.role == "gm" or (actor.role == "screen" and m.kind in _TOLD_ALL) or (
                    actor.role == "player" and self._theirs(m, actor.player_id)):
                return m
            i -= 1
        return None

    def timeline(self, actor: Actor) -> list[Moment]:
        """The moments this audience may see: all for the GM; a player's, those of the fights they were in that
        tell nothing of tokens they may not have seen (the fight's start, rounds and end; their own tokens'
        turns, moves and attacks; their allies' turns and attacks they saw live), each said in the player's line
        (``Moment.told``; ``Moment.text`` where they saw every token it names)."""
        if actor.role == "gm":
            return list(self.moments)
        if actor.role != "player":
            return []
        return [m for m in self.moments if self._theirs(m, actor.player_id)]

    def luck_at(self, seq: int, actor: Actor, past: Game) -> list[dict]:
        """Luck, told (#59): each roller's rolls with odds in the fight on at event ``seq``, from its start up to
        ``seq`` (the luck as it stood at the moment replayed: stepping through the fight, it is seen to change),
        as ``luck.Tally.told`` says them; ``past``: the game after ``seq`` (its names, what was taken back). The
        GM is told every roller's; a player their own tokens'; the table screen the players' tokens' (the names
        the whole table knows: its banner names no foe)."""
        self.tell_to(seq)
        with self._lock:
            start = self._fight_at(seq)
            if start is None:
                return []
            events = self._events(start - 1, seq)
        undone = set(past.undone or ())
        tally = luck.Tally()
        for at, event in enumerate(events, start=start):
            if event.type == "roll_asked" or at in undone:
                continue
            for record in luck.rolls_in(event.data):
                token = past.tokens.get(record["roller"])
                if token is None or not (actor.role == "gm" or (
                        token.owner and token.owner in past.players and (
                            actor.role == "screen" or token.owner == actor.player_id))):
                    continue
                tally.add(token.id, token.name, record)
        return tally.told()

    @staticmethod
    def _theirs(m: Moment, pid: str | None) -> bool:
        return m.fight is not None and pid in m.players and (m.kind in ("fight", "round", "fight_end") or pid in m.own
                                                             or pid in m.seen)

    def may_replay(self, actor: Actor, seq: int) -> None:
        """Rejected unless this sender may see this moment replayed: the GM any; a player, a moment of a
        fight they were in (their token in its order then)."""
        if actor.role == "gm":
            return
        if actor.role != "player":
            raise Rejected(N_("only the GM replays the game on the table screen"))
        game = self.state_at(seq)
        if not game.combat or actor.player_id not in _fighters(game):
            raise Rejected(N_("you can replay the fights you were in: no fight of yours was on at that moment"))
        if actor.player_id not in game.players:
            raise Rejected(N_("you had no seat at that moment"))


class _NotThisLog(Exception):
    """The kept fold a ``History`` took back is of another log (``History._forget``)."""


#: the moments the table screen's banner may name (no token's name in them)
_TOLD_ALL = ("fight", "round", "fight_end", "map", "handout")


def banner(history: History, seq: int, actor: Actor, past: Game | None = None) -> Say:
    """The Replay banner's line for this audience: where in the game this moment is (words: put in the
    reader's language where it is sent); given ``past`` (the game then), in a fight, the luck of its rollers so
    far (#59: ``History.luck_at``)."""
    moment = history.moment_at(seq, actor)
    where = say("before anything happened") if moment is None else moment.to_dict(actor)["text"]
    line = say("Replay: {where} (event {seq} of {head})", where=where, seq=seq, head=history.head)
    told = history.luck_at(seq, actor, past) if past is not None else []
    return say("{banner} · {luck}", banner=line, luck=luck.lines(told)) if told else line
