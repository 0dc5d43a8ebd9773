"""The live side of a game: load it, run a command through it, tell every screen.

One command, start to end (see docs/DESIGN.md "The flow of one command"):
parse -> authorize and decide (``table``) -> append to the log (``store``), committed -> apply to the cached
state -> acknowledge -> render each audience's fragments and emit them to its Socket.IO room.

The ``Hub`` is what the routes and the socket handlers call; it takes a command to its commit (its id, its seat's
turn, one heavy command per game at a time, the questions answered without a commit) and leaves each step to a
part that tells one story:

- ``games.Games``: the games in memory, each a cache of its log (it can always be rebuilt);
- ``committing.Committing``: the game's queue, group commit, write races, command ids, durability;
- ``fanout.Fanout``: the update drawn per audience and language and sent, the GM's last; fresh copies;
- ``presence.Presence``: the connections, their audiences and languages, and ending them;
- ``gm_access.GmAccess``: keys, the GM password, join codes and the links shown to the GM;
- ``relays.Relays``: what passes and is never stored (a drag, a ping, an attack's odds);
- ``devices.Devices``: the players' devices as the GM sees them (live, asleep, link down, behind, gone);
- ``replaying.Replays``: who is shown a past moment.

A command's id, when its sender gives up and whom to tell once it queued come with it as one argument
(``committing.Sending``), from its lane (webapp/live/server/lanes.py) or its route down to its commit.
"""

from __future__ import annotations

import contextlib
import secrets
import threading
import time
from typing import Any

from flask import has_request_context, request as flask_request

from rules.board import Board
from rules.dice import DiceSource, RandomDice, SeededDice

from ..game.core.model import Actor, Event, Game, Rejected
from ..game.core.text import N_
from ..game.features import ANONYMOUS, HEAVY, RATES, ROUTES, STARTS
from ..game.table import ack as table_ack, aside, authorize, decide, evolve, new_game_events, parse_command, replay
from ..storage.store import GameRecord, Store
from .server import throttle
from .allowance import LogAllowance
from .committing import NO_DEADLINE, Committed, Committing, Repeat, Sending, command_id
from .devices import Devices
from .screens.fanout import Fanout
from .foes import RUNNERS
from .games import Games
from .gm_access import GmAccess, new_join_code, new_key
from .presence import Presence, actor_for_audience, room
from .relays import Relays
from .replaying import Replays

# names other modules import from here still (webapp/application.py, webapp/web/gate.py, webapp/web/room/room.py)
from .committing import DATABASE_AWAY  # noqa: F401
from .gm_access import JOIN_ALPHABET, guess_refused, qr_svg  # noqa: F401

#: a command that redraws every screen's whole map (on a big map, a second or two; ``Feature.heavy``) runs one at a
#: time per game, the next refused while one runs or waits (#32: a GM's repeated fog toggles queue no pile of work)
HEAVY_BUSY = "the last fog or map change is still being drawn: try again in a moment"


class Hub:
    def __init__(self, app, store: Store, socketio) -> None:
        self.app = app
        self.store = store
        self.games = Games(store)
        self.presence = Presence(app, socketio)
        self.gm_access = GmAccess(app, store, socketio, self.games, self.presence)
        self.replays = Replays(self, room, actor_for_audience)  # who is shown a past moment now
        self.fanout = Fanout(app, socketio, self.games, self.presence, self.gm_access, self.replays.replaying)
        self.committing = Committing(store, socketio, self.games, self.presence, self.fanout, self.replays)
        self.relays = Relays(app, socketio, self.games, self.presence, self.fanout)
        self.devices = Devices(socketio)  # the players' devices as the GM sees them (#61), never stored
        # the runners features start after a commit (the one that plays the GM's foes, #60, ``foe_players``)
        self.runners = {name: make(self) for name, make in RUNNERS.items()}
        # the parts that answer one another, told once each exists
        self.games.in_use, self.games.evicted = self.presence.any_connected, self.replays.forget  # idle games leave
        self.presence.players_changed = self.fanout.players_changed
        self.fanout.devices, self.devices.push = self.devices, self.fanout.devices_changed
        self.gm_access.commit, self.gm_access.fanout = self.committing.commit, self.fanout
        self._socketio = socketio
        # with --message-queue: what the processes serving the same games share in Redis (webapp/live/server/shared.py)
        self._shared = None
        # the commands a player's seat may send so often (``Feature.rates``: X-card taps, kept here only, who tapped
        # is kept nowhere else), per command type
        self.rates = {kind: throttle.Window(times, seconds) for kind, (times, seconds, _) in RATES.items()}
        self.allowance = LogAllowance()  # bytes of log per seat (webapp/live/allowance.py)
        self.seats = throttle.Seats()  # commands per seat and per client address, over HTTP and every socket
        self.new_games = throttle.Window(*throttle.NEW_GAMES)  # per client address
        self.join_guesses = throttle.Window(*throttle.JOIN_GUESSES)  # per client address
        self._guard = threading.Lock()
        self._heavy: set[str] = set()  # games with a command that redraws the whole map running or waiting
        # commands being carried out in this process now, and when the last one ended (``quiet_for``)
        self._running = 0
        self._light = 0  # of them, those neither HEAVY nor a view: another table's move, a roll (``light_running``)
        self._ran_at = 0.0

    @property
    def foe_players(self):
        """The runner that plays the GM's foes (#60), one per game at most."""
        return self.runners["foe_players"]

    @property
    def socketio(self):
        return self._socketio

    @socketio.setter
    def socketio(self, socketio) -> None:
        """Every part sends through it (a test may put a stand-in in its place)."""
        self._socketio = socketio
        for part in (self.presence, self.gm_access, self.fanout, self.committing, self.relays, self.devices):
            part.socketio = socketio

    @property
    def shared(self):
        return self._shared

    @shared.setter
    def shared(self, shared) -> None:
        self._shared = shared
        for part in (self.games, self.presence, self.fanout, self.committing):
            part.shared = shared

    def share(self, shared) -> None:
        """Serve the games together with other processes: catch up with the log before deciding or rendering,
        render for every audience, count connections and password guesses in Redis."""
        from .server.shared import SharedGuesses, SharedRoomGuesses

        self.shared = shared
        self.gm_access.guesses = SharedGuesses(shared, self.gm_access.guesses)
        self.gm_access.room_guesses = SharedRoomGuesses(shared, self.gm_access.room_guesses)

    # --- games ------------------------------------------------------------

    def create_game(self, name: str, system: str, board: Board | None = None,
                    setup: list[Event] | None = None, zones: list[dict] | None = None,
                    made_by: str | None = None) -> GameRecord:
        """A new game; a zone system without a map of its own gets a small default zone map. ``made_by``: "device"
        when another device made it (``table.new_game_events``)."""
        game_id = secrets.token_hex(4)
        record = GameRecord(
            id=game_id, name=name, system=system, gm_key=new_key(), screen_key=new_key(),
            join_code=new_join_code(), created_at=time.time(),
        )
        events = new_game_events(name, system, board, zones, made_by)  # KeyError for an unknown system
        game = replay(game_id, events)
        for event in setup or []:
            evolve(game, event)
        self.store.create_game(record, events + list(setup or []))
        return record

    def game(self, game_id: str) -> Game | None:
        """The current state of a game (``Games.get``)."""
        return self.games.get(game_id)

    def lock(self, game_id: str) -> threading.RLock:
        return self.games.lock(game_id)

    def dice(self, game: Game) -> DiceSource:
        """The game's dice: the system's randomness, or seeded per game and step when DICE_SEED is set (tests, demos).

        Seeded by the game's name and system, not its id: the id is random, so a test or a demo
        that makes its game afresh rolls the same dice on every run."""
        seed = self.app.config.get("DICE_SEED")
        if seed is None:
            return RandomDice()
        return SeededDice(f"{seed}:{game.name}:{game.system}:{game.seq}")

    # --- commands ---------------------------------------------------------

    def execute(self, game_id: str, actor: Actor, payload: Any, sending: Sending = NO_DEADLINE) -> Committed:
        """Run a command; returns once its events are on disk. A client's command (in a request or on a socket)
        takes its turn among its seat's and its address's (``throttle.Seats``): refused ``Busy`` past them.
        ``sending``: from the lane that took it, when its sender gives up and whom to tell once it queued."""
        if isinstance(payload, dict) and payload.get("type") in ANONYMOUS:
            # the X-card: its command id is dropped here, never stored beside its seat (a repeat changes nothing)
            payload = {k: v for k, v in payload.items() if k != "cid"}
        payload, cid = command_id(payload)
        if cid is not None and actor.role == "player":  # sent before from a seat merged into this one since
            game = self.game(game_id)
            player = game.players.get(actor.player_id) if game is not None else None
            if player is not None and player.merged:
                first = self.committing.answered_before(game_id, [f"player:{p}" for p in player.merged], cid)
                if first is not None:
                    return first
        if cid is not None:  # a command sent again (a reconnect) waits for its first sending, then is its repeat
            with self.committing.one_at_a_time(game_id, actor.audience, cid):
                try:
                    return self.execute(game_id, actor, payload, sending.with_id(actor.audience, cid))
                except Repeat as repeat:
                    return repeat.done
        if not has_request_context():  # the server's own (the demo, a command-line import, a test's setup)
            return self._execute(game_id, actor, payload, sending)
        seat, client = f"{game_id}:{actor.audience}", flask_request.remote_addr
        with self.seats.turn(seat, client):
            done = self._execute(game_id, actor, payload, sending)
        if done.events and actor.role != "gm":  # the GM runs the table (and scripts it): a fair share, no rate
            self.seats.spent(seat, client)
        return done

    def execute_own(self, game_id: str, actor: Actor, payload: Any) -> Committed:
        """A command the server sends of its own from a background task (the runner that plays the GM's foes, #60),
        as ``actor``'s: judged, stored and shown as ``execute`` has it, without the seat's turn and rate a client's
        command takes (the task waits for each answer; it may hold a request context, for the links it draws)."""
        return self._execute(game_id, actor, payload, NO_DEADLINE)

    def commit(self, game_id: str, decide_events, alone: bool = False, answer=None,
               sending: Sending = NO_DEADLINE) -> Committed:
        """Decide events on the current state, store them, apply them, tell every screen (``Committing.commit``)."""
        return self.committing.commit(game_id, decide_events, alone, answer, sending)

    def quiet_for(self) -> float:
        """Seconds since the last command carried out in this process ended; 0 while one runs. Work that can
        wait (the replay's live checkpoints) waits for a quiet moment: no move waits behind it."""
        with self._guard:
            return 0.0 if self._running else time.monotonic() - self._ran_at

    def light_running(self) -> bool:
        """Whether a command that is neither HEAVY nor a view is being carried out (a move, a roll): a GM's heavy
        request (a replay's jump) lets it finish first, between two of its parts (``replaying.others_first``, #72)."""
        return self._light > 0

    @contextlib.contextmanager
    def _running_command(self, light: bool):
        """Counts the command carried out meanwhile (``quiet_for``; ``light``: ``light_running``'s)."""
        with self._guard:
            self._running += 1
            self._light += light
        try:
            yield
        finally:
            with self._guard:
                self._running -= 1
                self._light -= light
                self._ran_at = time.monotonic()

    def _execute(self, game_id: str, actor: Actor, payload: Any, sending: Sending) -> Committed:
        kind = payload.get("type") if isinstance(payload, dict) else None
        heavy = kind in HEAVY
        # a view (a replay's jump) takes turns with the rest: it is not what another one waits for
        with self._running_command(light=not heavy and ROUTES.get(kind, (None,))[0] != "view"):
            if not heavy:
                return self._execute_one(game_id, actor, payload, sending)
            with self._guard:
                if game_id in self._heavy:
                    raise throttle.Busy(HEAVY_BUSY)
                self._heavy.add(game_id)
            try:
                return self._execute_one(game_id, actor, payload, sending)
            finally:
                with self._guard:
                    self._heavy.discard(game_id)

    def _execute_one(self, game_id: str, actor: Actor, payload: Any, sending: Sending) -> Committed:
        """A command down its feature's route (``Feature.routes``), else the table's commit."""
        route, feature = ROUTES.get(payload.get("type"), (None, None)) if isinstance(payload, dict) else (None, None)
        if route == "keys":
            return self.gm_access.security_command(game_id, actor, feature.parse(payload), sending=sending)
        if route == "view":
            # a view, not a change: nothing is appended to the log, the answer carries the seq of the log's head
            reply = self.replays.command(game_id, actor, feature.parse(payload))
            return Committed(self.game(game_id).seq, [], reply)
        payload, taken = aside(payload)  # a plan's step: the seq its plan was reckoned at (#67)
        cmd = parse_command(payload)
        rate = self.rates.get(cmd.type)
        if rate is not None and actor.role == "player" and not rate.take(f"{game_id} {actor.audience}"):
            raise Rejected(RATES[cmd.type][2])
        if route in ("question", "preview"):  # questions: answered, nothing stored
            with self.lock(game_id):
                game = self.game(game_id)
                if game is None:
                    raise Rejected(N_("no game %(id)s"), id=repr(game_id))
                authorize(game, cmd, actor)  # the access matrix: who may send this at all
                if route == "question":
                    return Committed(game.seq, [], feature.answers[type(cmd)](game, cmd, actor))
            return self.relays.preview_attack(game_id, actor, cmd)
        # the access matrix is checked on the very state the command is decided on (in the commit's batch)
        if route == "alone":  # undo: decided with the game's log, alone in its batch
            def decide_alone(game: Game) -> list[Event]:
                return decide(game, cmd, actor, aside=taken,
                              own=lambda g, c, a, dice: feature.alone(g, a, self.store, game_id, replay))

            return self.commit(game_id, decide_alone, alone=True, sending=sending)

        def answer(events: list[Event]) -> dict:
            return table_ack(events, actor)

        # None: the server's own command; else whether it came from the server's own machine (a larger budget)
        local = throttle.from_this_machine(flask_request.environ) if has_request_context() else None

        def decide_counted(game: Game) -> list[Event]:
            events = decide(game, cmd, actor, self.dice(game), aside=taken)  # decide authorizes
            # a seat cannot fill the disk, nor a game, whoever its GM is
            self.allowance.charge(game_id, actor, events, local, game.seq, lambda: self.store.log_size(game_id))
            return events

        done = self.commit(game_id, decide_counted, answer=answer, sending=sending)
        for name in STARTS:  # what a feature starts after a commit: the "play the foes" switch's runner (#60)
            self.runners[name].started(game_id, done.events)
        return Committed(done.seq, done.events, answer(done.events))

    # --- what the rest of the app asks the parts most ----------------------------------

    @property
    def guesses(self):
        return self.gm_access.guesses

    @property
    def room_guesses(self):
        """Room mode's wrong organiser passwords and GM PINs (#57)."""
        return self.gm_access.room_guesses

    def key_actor(self, game_id: str, key: Any) -> Actor | None:
        return self.gm_access.key_actor(game_id, key)

    def authenticate(self, game_id: str, key: Any, password: str | None = None) -> Actor | None:
        return self.gm_access.authenticate(game_id, key, password)

    def password_hash(self, game_id: str) -> str | None:
        return self.gm_access.password_hash(game_id)

    def security_command(self, game_id: str, actor: Actor, cmd, end_gm_sessions: bool = True) -> Committed:
        return self.gm_access.security_command(game_id, actor, cmd, end_gm_sessions)

    def base_url(self) -> str:
        return self.gm_access.base_url()

    def join_info(self, game_id: str) -> dict:
        return self.gm_access.join_info(game_id)

    def online_players(self, game_id: str) -> set[str]:
        return self.presence.online_players(game_id)

    def said_to(self, sid: str, message: str, params: dict | None = None) -> str:
        return self.presence.said_to(sid, message, params)

    def end_sessions(self, game_id: str, player_ids, message: str, reload: bool = False,
                     role: str | None = None, params: dict | None = None) -> None:
        self.presence.end_sessions(game_id, player_ids, message, reload, role, params)

    def presence_changed(self, game_id: str) -> None:
        self.fanout.presence_changed(game_id)
