"""The forecast of a fight (#68): the fight played through, many times, headless, and what happened told.

Each run is a whole fight on a copy of the game (``prepared``: the tokens, characters, fight and board as the game
has them, no web, no log kept): from its start (``from_start``: the fight begun as Start fight would begin it now,
initiative rolled by the run's dice) or from the fight as it stands. Both sides are played by the foes' planner
(``suggestions.reckon``): the GM's foes by their own tactic, the players' characters by the forecast's setting (*bold*:
the fierce tactic, *careful*: the careful one). Every command a turn sends is the one the GM page would send, judged
by the table (``table.settle``, handed in) with the run's dice (``SeededDice`` from the forecast's seed and the run's number), so
the forecast's dice are the rules' dice and the same seed gives the same figures. What a player would answer is
answered as the planner's side would: a Soak roll with a Benny while one is left, a reroll offer let go, a defense by
the first the rules leave; the copy rolls the app's dice (a roll made at the table is called off). A run ends when
one side alone stands (the rules' own "down": ``fighting.stands``; a foe that surrendered or fled is not standing),
or at the round cap (``ROUND_CAP``: counted and said, neither side's win).

What is told (``Figures``): the chance the players' side wins with its 95% interval (Wilson's), for each token the
chance it is down at the end and the chance it is dead (``dead``: the system's own word for death in its badges),
the rounds (median, mean, quartiles), the runs capped.

Pure: no I/O, no Flask. The live side (``webapp/live/foes/forecasting.py``) runs it off the loop, a run at a time.
"""

from __future__ import annotations

import dataclasses
import math
import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

from rules.dice import SeededDice
from rules.system import RuleError, RuleNotImplemented

from ..bridge import fighting
from ..core import waits
from ..core.model import GM, Rejected
from . import suggestions
from .foe_sandbox import is_foe
from .forecast_fast import Memo

if TYPE_CHECKING:
    from ..core.model import Game

ROUND_CAP = 20  #: rounds past which a run ends with neither side's win (counted: ``Figures.capped``)
STEP_CAP = 2000  #: commands a run may send at most (a loop the planner cannot leave ends it as capped)
PLAYERS = {"bold": "fierce", "careful": "careful"}  #: the players' characters' setting -> the planner's tactic
DEAD_WORDS = ("dead", "destroyed")  #: a badge with one of these words says its token is dead (every system's word)


def party(game: "Game") -> set[str]:
    """The players' side (#68): the players' characters (kind ``pc``) and the players' tokens."""
    return {t.id for t in game.tokens.values() if t.kind == "pc" or t.owner is not None}


def fighters(game: "Game") -> list[str]:
    """The tokens a fight from its start has (as if the GM started it now): each token on the map with a character
    (its own or a sheet), in the map's order."""
    played = {c.token_id for c in game.characters.values()}
    return [t.id for t in game.tokens.values() if t.id in played or t.sheet]


@dataclass(frozen=True)
class Start:
    """Where every run of a forecast starts: the game's copy (``prepared``), the fighters a run from the fight's
    start begins it with (``ids``), the players' side (``side``)."""

    game: "Game"
    ids: tuple[str, ...]
    side: frozenset[str]


def prepared(game: "Game", from_start: bool, token_ids: Iterable[str] | None = None, players: str = "bold",
             tactics: dict[str, str] | None = None, removed: Iterable[str] = (), indexes: bool = True) -> Start:
    """The copy every run starts from: the game's tokens, characters, fight and board (``suggestions.frozen``), the
    players' tokens played by the planner (no owner: nobody is asked, the planner answers), the app's dice, Play the
    foes off. ``from_start``: the fight as Start fight would begin it (``token_ids``, else ``fighters``), begun in each
    run with its dice; else the fight as it stands (Rejected when there is none). ``tactics``: a foe's tactic for this
    forecast (what if); ``removed``: tokens left out of it (what if); ``indexes`` False: the board without its built
    indexes (a copy for another process, ``suggestions.frozen``)."""
    if players not in PLAYERS:
        raise Rejected("players: bold or careful")
    if not suggestions.reckoned(game):
        raise Rejected("this game's fights cannot be forecast: its rules or this map have no plans yet")
    copy = suggestions.frozen(game, indexes=indexes)
    side = party(copy)
    gone = set(removed)
    if from_start:
        ids = [i for i in (token_ids if token_ids is not None else fighters(copy)) if i in copy.tokens and i not in gone]
        if not any(i in side for i in ids) or all(i in side for i in ids):
            raise Rejected("a forecast needs the players' characters and at least one foe")
        copy.combat = None
    else:
        if not copy.combat:
            raise Rejected("there is no fight on: forecast it from its start")
        ids = [i for i in copy.combat["order"] if i not in gone]
    for token_id in gone:
        copy.tokens.pop(token_id, None)
        if copy.combat:
            copy.combat = {**copy.combat, "order": [i for i in copy.combat["order"] if i != token_id]}
    copy.tokens = {k: dataclasses.replace(t, owner=None) for k, t in copy.tokens.items()}
    copy.dice, copy.foe_play = {}, {}
    copy.tactics = {**copy.tactics, **{i: {"tactic": PLAYERS[players]} for i in side if i in copy.tokens},
                    **{i: {**copy.tactics.get(i, {}), "tactic": t} for i, t in (tactics or {}).items()
                       if i in copy.tokens and i not in side}}
    return Start(copy, tuple(ids), frozenset(side))


@dataclass
class Run:
    """One fight played through: whether the players' side won (None: capped), the round it ended in, the tokens
    down and dead at its end."""

    won: bool | None
    rounds: int
    down: frozenset[str]
    dead: frozenset[str]
    steps: int = 0


#: the table's ``settle`` (``webapp.game.table``, on top of the rooms: it is handed in, never imported here), for
#: ``send``; each caller of ``play`` gives it
Settle = Callable[..., list]


def send(game: "Game", payload: dict, dice, settle: Settle) -> bool:
    """A command as the GM would send it, judged and applied by the table (``settle``); False when refused."""
    try:
        settle(game, payload, GM, dice)
    except (Rejected, RuleError, RuleNotImplemented):
        return False
    return True


def dead(game: "Game", token) -> bool:
    """Whether the token is dead by its system's words (a badge saying dead or destroyed)."""
    try:
        found = fighting.badges(game, token)
    except (RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        return False
    return any(any(w in str(b.get("label", "")).casefold() for w in DEAD_WORDS) for b in found)


def _answer(game: "Game", dice, settle: Settle) -> bool:
    """Answers what the table waits for, as the planner's side would; False when nothing waits."""
    for wait in waits.waits(game):
        kind, entry = wait.kind.name, wait.entry
        if kind == "defense":
            open_ = [c["key"] for c in entry.get("choices", []) if c.get("available")]
            if open_ and send(game, {"type": "choose_defense", "defense": open_[0], "attack": entry.get("id")}, dice, settle):
                return True
            return send(game, {"type": "choose_defense", "cancel": True}, dice, settle)
        if kind == "soak":
            return (send(game, {"type": "soak", "accept": True, "token_id": entry["target"]}, dice, settle)
                    or send(game, {"type": "soak", "accept": False, "token_id": entry["target"]}, dice, settle))
        return send(game, {"type": "call_off_roll"}, dice, settle)
    if game.pending_reroll:
        return send(game, {"type": "benny_reroll", "accept": False}, dice, settle)
    return False


NO_PLAN = (Rejected, suggestions.NotReckoned, RuleError, RuleNotImplemented)  #: a turn with no plan: nothing sent


def _turn(game: "Game", token_id: str, dice, settle: Settle, memo: "Memo | None" = None) -> None:
    """The turn of ``token_id``: its best plan's steps (the planner's, whichever side it is on), then Next turn.
    ``memo``: the plans and the board's geometry kept between turns (``forecast_fast``: the same steps)."""
    if memo is not None:
        steps = memo.steps(game, token_id, suggestions.reckon, NO_PLAN)
    else:
        try:
            found = suggestions.reckon(game, token_id, anyone=True)
        except NO_PLAN:
            found = {"plans": []}
        plans = found.get("plans") or []
        steps = plans[0]["steps"] if plans else []
    if steps:
        for step in steps:
            token = game.tokens.get(token_id)
            if token is None or not fighting.stands(game, token):
                break
            while _answer(game, dice, settle):
                pass
            if not send(game, step, dice, settle):
                break
    while _answer(game, dice, settle):
        pass
    if game.combat and game.combat.get("current") == token_id:
        send(game, {"type": "next_turn"}, dice, settle)


def _over(game: "Game") -> bool:
    from .foeplay import over

    return over(game)


def play(start: Start, seed: int, settle: Settle, cap: int = ROUND_CAP, memo: "Memo | None" = None) -> Run:
    """One run from ``start`` (``prepared``) with the dice of ``seed``, on its own copy (the board shared, read
    only). ``memo`` (``forecast_fast.Memo.of(start)``): what the runs of ``start`` keep between their turns, the same
    run with it as without (None: every turn reckoned afresh)."""
    game, dice, side = suggestions.frozen(start.game), SeededDice(seed), start.side
    if game.combat is None and not send(game, {"type": "start_combat", "token_ids": list(start.ids)}, dice, settle):
        raise Rejected("the fight cannot be started")
    steps, capped = 0, False
    while not _over(game):
        steps += 1
        if steps > STEP_CAP or game.combat["round"] > cap:
            capped = True
            break
        if _answer(game, dice, settle):
            continue
        due = [a for a in (game.combat.get("due") or []) if a.get("attacker") in game.tokens
               and a.get("target") in game.tokens]
        if due:
            attack = due[0]
            payload = {"type": "attack", "attacker": attack["attacker"], "target": attack["target"],
                       **({"weapon": attack["weapon"]} if attack.get("weapon") else {}),
                       **({"options": attack["options"]} if attack.get("options") else {})}
            if not send(game, payload, dice, settle):
                game.combat = {**game.combat, "due": [a for a in game.combat["due"] if a is not attack]}
            continue
        current = game.combat.get("current")
        if current is None or current not in game.tokens:
            if not send(game, {"type": "next_turn"}, dice, settle):
                capped = True
                break
            continue
        _turn(game, current, dice, settle, memo)
    start.game.board.adopt(game.board)  # the indexes the run built, kept for the next run (the board unchanged)
    rounds = game.combat["round"] if game.combat else 0
    tokens = [game.tokens[i] for i in start.ids if i in game.tokens]
    down = frozenset(t.id for t in tokens if not fighting.stands(game, t))
    standing = {t.id for t in tokens if t.id not in down}
    won = None if capped else bool(standing & side) and not (standing - side)
    return Run(won, rounds, down, frozenset(t.id for t in tokens if dead(game, t)), steps)


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% interval of a chance seen ``wins`` times in ``n`` (Wilson's score interval: right at 0 and n too)."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Figures:
    """What the runs so far tell (the protocol's keys: ``as_dict``)."""

    seed: int
    runs: int
    done: list[Run] = field(default_factory=list)

    def add(self, run: Run) -> None:
        self.done.append(run)

    def as_dict(self) -> dict:
        n = len(self.done)
        wins = sum(1 for r in self.done if r.won)
        ids = sorted({i for r in self.done for i in r.down | r.dead})
        rounds = sorted(r.rounds for r in self.done)
        quart = statistics.quantiles(rounds, n=4, method="inclusive") if n >= 2 else [rounds[0]] * 3 if n else [0] * 3
        return {
            "runs_done": n, "runs": self.runs, "seed": self.seed,
            "party_wins": wins / n if n else None, "interval": list(wilson(wins, n)),
            "down": {i: sum(1 for r in self.done if i in r.down) / n for i in ids},
            "dies": {i: sum(1 for r in self.done if i in r.dead) / n for i in ids},
            "rounds": {"median": statistics.median(rounds) if n else None,
                       "mean": statistics.fmean(rounds) if n else None, "q1": quart[0], "q3": quart[2]},
            "capped": sum(1 for r in self.done if r.won is None),
        }


def seed_of(seed: int, run: int) -> int:
    """The dice of run ``run`` of a forecast seeded ``seed``: each run its own, the same for the same pair."""
    return (seed * 1_000_003 + run) & 0x7FFFFFFF


def batch(start: Start, seed: int, first: int, count: int, settle: Settle, cap: int = ROUND_CAP,
          memo: "Memo | None" = None) -> list[Run]:
    """Runs ``first`` to ``first + count - 1`` of a forecast seeded ``seed``: what a worker plays at a time, with
    ``memo`` (else one of the batch's own: ``forecast_fast``, the same runs as without)."""
    memo = memo if memo is not None else Memo.of(start)
    return [play(start, seed_of(seed, i), settle, cap, memo) for i in range(first, first + count)]


def forecast(start: Start, runs: int, seed: int, settle: Settle, cap: int = ROUND_CAP) -> Figures:
    """``runs`` runs from ``start`` (``prepared``), here, one after another."""
    figures = Figures(seed, runs)
    for run in batch(start, seed, 0, runs, settle, cap):
        figures.add(run)
    return figures


def foes_of(game: "Game") -> list[str]:
    """The GM's foes of a game: its tokens no player plays."""
    return [t.id for t in game.tokens.values() if is_foe(t)]
