"""The runner that plays the GM's foes (#60): the "play the foes" switch's live side.

When the GM's ``play_foes`` ``{"on": true}`` is decided, the process that decided it starts one runner for the game
(``FoePlayers.start``; the switch's event names it, ``webapp/game/planning/foeplay.py``). A runner is a background task
(a greenlet under ``tacmap serve``) that only sleeps and sends commands: each time the fight's turn is a foe's, it
reckons the foe's plans off the loop (``suggesting.plans``: a native thread), then sends the best plan's steps one by
one as the GM's commands through ``Hub.execute`` (so each is judged, logged, shown and undoable as the GM's own),
pausing ``pause`` seconds before each so the table screen shows each move and attack, then ends the foe's turn
(``next_turn``). A foe no attack reaches this turn plays its plan to close in (#67): its move, then its turn ends as
any. A foe with no plan at all ends its turn with a line in the log saying why (the plans' ``none``). Each step
carries the seq its plan was reckoned on (``reckoned_at``): a step gone stale (anything happened between) is not a
refusal, the turn as it is now is reckoned again (#67). Between turns it does what the GM would (#67,
``foeplay.next_step``): rolls an attack the fight owes a foe (phase/TN's shots that came due at a phase's end, a
free attack) and, where the round waits for the GM (nobody's turn, nothing owed: phase/TN's declarations are done),
sends Next turn, so a phase/TN fight plays through every phase of its rounds.

It waits (the switch stays on) at a player's token's turn, a player's shot owed, and at anything a player must
answer (a defense, a Soak roll, a reroll offer, a roll made at the table: ``foeplay.waits_for``), and goes on once it
is answered. It stops
when the switch goes off: by the GM's switch, by any change the GM makes by hand (decided in the table, in the same
step), when a step is refused (the switch goes off with the reason, for the GM) and when the fight is over.

Never two runners for one game: each step carries its runner's id (``Actor.by``) and the table refuses a step whose
runner is not the game's, on the very state the step is decided on; a runner whose game no longer names it ends.
With several processes the runner lives in the one that decided the switch's ``on`` (a GM command, decided where
the GM's connection is); the others see the switch in the log and start none. If that process ends, the switch
stays on with nobody playing: the GM turns it off and on again.
"""

from __future__ import annotations

import logging
import threading

from rules.text import pack

from ...game.planning import foeplay
from ...game.core.model import Actor, Event, Rejected
from ...game.planning.suggestions import NotReckoned
from . import suggesting

log = logging.getLogger(__name__)

PAUSE = 1.5  #: seconds before each step of a foe's plan, so the table sees each move and attack (``FOE_PLAY_PAUSE``)
LOOK_EVERY = 0.25  #: seconds between two looks at the game while the runner waits for a player


class FoePlayers:
    """The runners of this process, one per game at most."""

    def __init__(self, hub) -> None:
        self.hub = hub
        self._guard = threading.Lock()
        self._running: dict[str, str] = {}  # game id -> the id of its runner here

    @property
    def pause(self) -> float:
        return float(self.hub.app.config.get("FOE_PLAY_PAUSE", PAUSE))

    def started(self, game_id: str, events: list[Event]) -> None:
        """After a command of this process: a switch turned on starts its runner, asking the plans as the client
        address that turned it on (the GM's share of the plans' pool, ``fairness``)."""
        for event in events:
            if event.type == "foes_played" and event.data.get("on"):
                self.start(game_id, event.data["runner"], suggesting.asker())

    def start(self, game_id: str, runner: str, by: str = "") -> None:
        with self._guard:
            if self._running.get(game_id) == runner:
                return
            self._running[game_id] = runner  # an older runner here sees it is not the game's and ends
        self.hub.socketio.start_background_task(self._run, game_id, runner, by)

    def running(self, game_id: str) -> str | None:
        with self._guard:
            return self._running.get(game_id)

    def _run(self, game_id: str, runner: str, by: str = "") -> None:
        try:
            # a request's context, as the devices' task has it: the GM's fight card it draws builds links
            with self.hub.app.test_request_context(base_url=self.hub.base_url()):
                Runner(self, game_id, runner, by).run()
        except Exception:
            log.exception("the runner that plays the foes of game %s stopped", game_id)
        finally:
            with self._guard:
                if self._running.get(game_id) == runner:
                    del self._running[game_id]


class Runner:
    """One game's runner: a loop that looks at the game and plays the foe whose turn it is, its plans asked as the
    client address ``by`` (the GM's that turned it on; "": no one's)."""

    def __init__(self, players: FoePlayers, game_id: str, runner: str, by: str = "") -> None:
        self.players, self.hub, self.game_id, self.runner, self.by = players, players.hub, game_id, runner, by
        self.actor = Actor("gm", by=runner)

    def sleep(self, seconds: float) -> None:
        self.hub.socketio.sleep(seconds)

    def game(self):
        """The game, caught up, while this runner plays it; else None (the switch went off, or on elsewhere)."""
        game = self.hub.game(self.game_id)
        if game is None or foeplay.playing(game) != self.runner or self.players.running(self.game_id) != self.runner:
            return None
        return game

    def run(self) -> None:
        while True:
            game = self.game()
            if game is None:
                return
            if foeplay.over(game):
                self.stop("over")
                return
            kind, what = foeplay.next_step(game)
            if kind in ("answer", "player"):
                self.sleep(LOOK_EVERY)
                continue
            if kind == "turn":
                going = self.play(game)
            else:  # a foe's shot that came due, or the round waiting for the GM's Next turn (phase/TN, #67)
                going = self.move_on(game.seq, kind, what)
            if not going:
                return

    def move_on(self, seq: int, kind: str, what) -> bool:
        """A foe's attack the fight owes now (``shot``), or Next turn where the round waits for the GM (``resolve``:
        phase/TN's declarations done, the phase resolves), after the pause, on the state it was seen on: anything
        else happened meanwhile, it is looked at again. False: stopped."""
        self.sleep(self.players.pause)
        if kind == "shot":
            step = {"type": "attack", "attacker": what["attacker"], "target": what["target"],
                    **({"weapon": what["weapon"]} if what.get("weapon") else {}),
                    **({"options": what["options"]} if what.get("options") else {})}
            return self.send(step, what["attacker"], at=seq) is not False
        return self.send({"type": "next_turn"}, None, at=seq) is not False

    def play(self, game) -> bool:
        """The turn of the foe whose turn it is: its best plan's steps, then the turn ends. False: stopped. Each step
        is sent on the state the plan was reckoned on, the next on the one the step before left (``reckoned_at``):
        anything else happened meanwhile (a player joined, the GM's answer), the rest is reckoned again (#67)."""
        token_id = game.combat["current"]
        try:
            found = suggesting.plans(game, token_id, said=False, by=self.by)  # the steps, and why there is none
        except suggesting.Busy:  # the GM's own asks fill the game's (or the GM's) queue (#72): asked again soon
            self.sleep(suggesting.RETRY_AFTER)
            return True
        except (Rejected, NotReckoned) as exc:
            found, why = {"plans": []}, exc
        else:
            why = None
        plans = found.get("plans") or []
        if plans:
            at = found.get("seq")
            for step in plans[0]["steps"]:
                self.sleep(self.players.pause)
                now = self.answered()
                if now is None:
                    return False
                if not foeplay.stands(now, token_id):  # down in its own turn (3d6: collapsed on a failed HT roll)
                    break  # the rest of its plan is not played; its turn ends
                at = self.send(step, token_id, at=at)
                if at is None:  # stale: the turn as it is now is looked at again
                    return True
                if at is False:
                    return False
        else:
            self.sleep(self.players.pause)
            if self.game() is None:
                return False
            data = {"token_id": token_id, **({"why": pack(found["none"])} if found.get("none") else {})}
            self.hub.commit(self.game_id, lambda g: [Event("foe_passed", data)] if foeplay.playing(g) == self.runner
                            else [])
            if why is not None:
                log.info("no plan for %s in game %s: %s", token_id, self.game_id, why)
        game = self.answered()
        if game is None:
            return False
        if game.combat and game.combat.get("current") == token_id and not foeplay.over(game):
            return self.send({"type": "next_turn"}, token_id) is not False
        return True

    def answered(self):
        """The game once nothing waits for an answer (a defense, a Soak roll...): None if the switch went off."""
        while True:
            game = self.game()
            if game is None or foeplay.waits_for(game) != "answer":
                return game
            self.sleep(LOOK_EVERY)

    def send(self, step: dict, token_id: str | None, at: int | None = None):
        """One step as the GM's command, on the state of seq ``at`` if given (``reckoned_at``): the seq it left; None
        when the game had changed since ``at`` (stale: nothing done); False when refused, and the switch goes off
        with the reason."""
        try:
            done = self.hub.execute_own(self.game_id, self.actor,
                                        {**step, **({"reckoned_at": at} if at is not None else {})})
        except Rejected as exc:
            if getattr(exc, "code", None) == "stale":
                return None
            if self.game() is not None:
                self.stop("refused", exc, token_id)
            return False
        return done.seq

    def stop(self, why: str, reason: BaseException | None = None, token_id: str | None = None) -> None:
        """The switch off, and why, if this runner still plays the game."""
        def decide(game):
            return [foeplay.stopped(why, reason, token_id)] if foeplay.playing(game) == self.runner else []

        try:
            self.hub.commit(self.game_id, decide)
        except Rejected:
            log.info("the foes of game %s were not stopped", self.game_id, exc_info=True)
