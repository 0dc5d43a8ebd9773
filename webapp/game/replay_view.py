"""The replay (#36): any past moment of a game, drawn from its log, for the audience that asks.

Pure: no Flask, no database. A :class:`History` is a game's log folded once, from the first event: it
keeps a checkpoint of the state every ``CHECKPOINT_EVERY`` events (the state pickled, so a copy is cheap
to take back) and the timeline's moments (fights, rounds, turns, attacks, moves, maps shown, hand-outs),
each said from the state right after its event. ``state_at(seq)`` is the nearest checkpoint at or before
``seq`` with the events after it folded on: a jump anywhere in a 5,000-event game folds at most
``CHECKPOINT_EVERY`` events. The live game is never touched: a replay is a view, it appends nothing.

Who sees what is the live page's rule applied to the state then (``webapp.game.fog``): the table screen's
replay is the screen's view at that moment, a player's is that player's (of the fights they were in).
"""

from __future__ import annotations

import bisect
import pickle
from dataclasses import dataclass
from typing import Annotated, Any, Callable, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from .model import Actor, Event, Game, Rejected

CHECKPOINT_EVERY = 200
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


def parse(payload: dict) -> Any:
    try:
        return _adapter.validate_python(payload)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"][1:]) or "replay"
        raise Rejected(f"{where}: {err['msg']}") from None


def screens(cmd: Replay, actor: Actor) -> list[str]:
    """The audiences a replay command is shown to: ``on`` for the GM (the GM's page always), a player's
    own screens for a player (who may not send ``on``: the GM's and the table's screens are the GM's)."""
    if actor.role == "gm":
        return list(dict.fromkeys(["gm", *(cmd.on or [])]))
    if cmd.on:
        raise Rejected("a player's replay is shown on that player's own screens only: leave out 'on'")
    return [actor.audience]


@dataclass(frozen=True)
class Moment:
    """One entry of the timeline: the event's seq, its kind (``KINDS``), a line about it, the round then,
    and the players whose tokens it is about or who were in the fight then (a player's timeline)."""

    seq: int
    kind: str
    text: str
    round: int | None
    fight: int | None  # the seq the fight started at
    players: frozenset = frozenset()

    def to_dict(self) -> dict:
        return {"seq": self.seq, "kind": self.kind, "text": self.text, "round": self.round}


def _name(game: Game, token_id: Any) -> str:
    token = game.tokens.get(token_id) if isinstance(token_id, str) else None
    return token.name if token is not None else "someone"


def _fighters(game: Game) -> frozenset:
    """The players with a token in the fight on now."""
    order = (game.combat or {}).get("order") or []
    return frozenset(t.owner for t in (game.tokens.get(i) for i in order) if t is not None and t.owner)


class History:
    """A game's log folded once, with checkpoints and the timeline; ``extend`` takes the events appended since."""

    def __init__(self, game_id: str, evolve: Callable[[Game, Event], None], empty: Callable[[str], Game]) -> None:
        """``evolve`` and ``empty`` are the command table's (``table.evolve``, ``table.empty_game``): a feature
        of the game never imports the table itself."""
        self.game_id, self._evolve, self._empty = game_id, evolve, empty
        self.events: list[Event] = []
        self.state = empty(game_id)  # the state after the last folded event
        self._checkpoints: list[tuple[int, bytes]] = [(0, pickle.dumps(self.state.to_dict()))]
        self.moments: list[Moment] = []
        self._fight: int | None = None  # the seq the fight on started at

    @property
    def head(self) -> int:
        return len(self.events)

    def extend(self, events: list[Event]) -> None:
        for event in events:
            game = self.state
            before = dict(game.combat) if game.combat else None
            hidden_before = {t.id for t in game.tokens.values() if t.hidden}
            self._evolve(game, event)
            self.events.append(event)
            self._moments(game, event, before, hidden_before)
            if game.seq % CHECKPOINT_EVERY == 0:
                self._checkpoints.append((game.seq, pickle.dumps(game.to_dict(), pickle.HIGHEST_PROTOCOL)))

    def _moments(self, game: Game, event: Event, before: dict | None, hidden_before: set) -> None:
        d, kind, seq = event.data, event.type, game.seq
        combat = game.combat or {}
        rnd = combat.get("round") if game.combat else None
        add = self.moments.append
        if kind == "combat_started":
            self._fight = seq
            names = ", ".join(_name(game, i) for i in combat.get("order") or [])
            add(Moment(seq, "fight", f"Fight: {names}", rnd, seq, _fighters(game)))
            if combat.get("current"):
                add(Moment(seq, "turn", f"Round {rnd}: {_name(game, combat['current'])}'s turn", rnd, seq,
                           _fighters(game)))
        elif kind == "turn_started" and game.combat:
            if before and before.get("round") != rnd:
                add(Moment(seq, "round", f"Round {rnd}", rnd, self._fight, _fighters(game)))
            add(Moment(seq, "turn", f"Round {rnd}: {_name(game, combat.get('current'))}'s turn", rnd, self._fight,
                       _fighters(game)))
        elif kind == "combat_ended":
            add(Moment(seq, "fight_end", f"The fight ends (round {d.get('round')})", d.get("round"), self._fight,
                       frozenset(t.owner for t in game.tokens.values() if t.owner)
                       if before is None else _fighters_of(game, before)))
            self._fight = None
        elif kind == "attack_resolved":
            who, whom = _name(game, d.get("attacker")), _name(game, d.get("target"))
            add(Moment(seq, "attack", f"{who} attacks {whom}", rnd, self._fight, _fighters(game)))
        elif kind == "token_moved":
            token = game.tokens.get(d.get("token_id"))
            owners = frozenset({token.owner}) if token is not None and token.owner else frozenset()
            add(Moment(seq, "move", f"{_name(game, d.get('token_id'))} moves", rnd, self._fight,
                       owners | (_fighters(game) if game.combat else frozenset())))
        elif kind == "map_activated":
            m = game.maps.get(d.get("map_id"))
            add(Moment(seq, "map", f"Map shown: {m.name if m else 'a map'}", rnd, self._fight, _fighters(game)))
        elif kind == "handout_shown":
            h = game.handouts.get(d.get("handout_id")) or {}
            add(Moment(seq, "handout", f"Hand-out shown: {h.get('title') or 'a hand-out'}", rnd, self._fight,
                       _fighters(game)))

    def state_at(self, seq: int) -> Game:
        """The game as it was right after event ``seq`` (a fresh object: the caller may keep it)."""
        if not 0 <= seq <= self.head:
            raise Rejected(f"at: the log goes from 0 to {self.head}, not {seq}")
        i = bisect.bisect_right(self._checkpoints, seq, key=lambda c: c[0]) - 1
        start, blob = self._checkpoints[i]
        game = Game.from_dict(pickle.loads(blob)) if start else self._empty(self.game_id)
        for event in self.events[start:seq]:
            self._evolve(game, event)
        return game

    def moment_at(self, seq: int) -> Moment | None:
        """The newest moment at or before ``seq`` (what the banner says), None before the first."""
        i = bisect.bisect_right(self.moments, seq, key=lambda m: m.seq) - 1
        return self.moments[i] if i >= 0 else None

    def timeline(self, actor: Actor) -> list[Moment]:
        """The moments this audience may see: all for the GM; a player's, the moments of the fights they were in
        (those about their tokens, and the fight's start, rounds, turns and end)."""
        if actor.role == "gm":
            return list(self.moments)
        if actor.role != "player":
            return []
        return [m for m in self.moments if m.fight is not None and actor.player_id in m.players]

    def may_replay(self, actor: Actor, seq: int) -> None:
        """Rejected unless this sender may see this moment replayed: the GM any; a player, a moment of a
        fight they were in (their token in its order then)."""
        if actor.role == "gm":
            return
        if actor.role != "player":
            raise Rejected("only the GM replays the game on the table screen")
        game = self.state_at(seq)
        if not game.combat or actor.player_id not in _fighters(game):
            raise Rejected("you can replay the fights you were in: no fight of yours was on at that moment")
        if actor.player_id not in game.players:
            raise Rejected("you had no seat at that moment")


def _fighters_of(game: Game, combat: dict) -> frozenset:
    return frozenset(t.owner for t in (game.tokens.get(i) for i in combat.get("order") or [])
                     if t is not None and t.owner)


def banner(moment: Moment | None, seq: int, head: int) -> str:
    """The Replay banner's line: where in the game this moment is."""
    where = moment.text if moment is not None else "before anything happened"
    return f"Replay: {where} (event {seq} of {head})"
