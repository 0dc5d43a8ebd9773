"""The forecast of a fight (#68): the fight played through, many times, headless, and what happened told.

Each run is a whole fight on a copy of the game (``prepared``: the tokens, characters, fight and board as the game
has them, no web, no log kept): from its start (``from_start``: the fight begun as Start fight would begin it now,
initiative rolled by the run's dice) or from the fight as it stands. Both sides are played by the foes' planner
(``suggestions.reckon``): the GM's foes by their own tactic, the players' characters by the forecast's setting (*bold*:
the fierce tactic, *careful*: the careful one). Every command a turn sends is the one the GM page would send, judged
by the table (``table.settle``, handed in) with the run's dice (``SeededDice`` from the forecast's seed and the run's number), so
the forecast's dice are the rules' dice and the same seed gives the same figures. What a player would answer is
answered as the planner's side would: a Soak roll with a Benny while one is left, a reroll offer let go, the defense
that leaves the attack the least chance to hit (the players' tokens keep their players: they are asked, as at the
table); the copy rolls the app's dice (a roll made at the table is called off). A run ends when
one side alone stands (the rules' own "down": ``fighting.stands``; a foe that surrendered or fled is not standing),
or at the round cap (``ROUND_CAP``: counted and said, neither side's win).

What is told (``Figures``): the chance the players' side wins with its 95% interval (Wilson's), for each token the
chance it is down at the end and the chance it is dead (``dead``: the system's own word for death in its badges),
the rounds (median, mean, quartiles), the runs capped.

Pure: no I/O, no Flask. The live side (``webapp/live/foes/forecasting.py``) runs it off the loop, a run at a time.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import statistics
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

from rules.dice import SeededDice
from rules.system import RuleError, RuleNotImplemented

from ..bridge import fighting
from ..core import waits
from ..core.model import GM, Rejected, unstored
from ..core.text import N_
from . import suggestions
from .foe_sandbox import frozen
from .forecast_fast import Memo

if TYPE_CHECKING:
    from ..core.model import Game

ROUND_CAP = 20  #: rounds past which a run ends with neither side's win (counted: ``Figures.capped``)
STEP_CAP = 2000  #: commands a run may send at most (a loop the planner cannot leave ends it as capped)
PLAYERS = {"bold": "fierce", "careful": "careful"}  #: the players' characters' setting -> the planner's tactic
DEAD_WORDS = ("dead", "destroyed")
#: the systems whose rules here say a character dies (its badges: dead); Savage Worlds' stop at Incapacitated
DEATH = frozenset({"gurps_lite", "tesseris_ads", "phase_tn", "atomic_tomorrow"})  #: a badge with one of these words says its token is dead (every system's word)


def on_map(game: "Game", map_id: str | None = None) -> "Game":
    """The game as a forecast reads it on ``map_id`` (None: the map the GM's screen shows, #68 "for the map everyone
    sees or a map being prepared"): the active map as it is; a map being prepared with its own board, zones and
    tokens, the party's tokens where showing it would carry them (``maps.carried_tokens``), and no fight on.
    Rejected for a map the game does not have."""
    from ..board import maps

    target = map_id or maps.shown_to_gm(game)
    if target not in game.maps:
        raise Rejected(N_("no map %(id)s in this game"), id=repr(target))
    if target == game.active_map:
        return game
    m = game.maps[target]
    carried = {i: dataclasses.replace(game.tokens[i], x=x, y=y) for i, (x, y) in maps.carried_tokens(game, m).items()}
    return dataclasses.replace(game, board=m.board, zones=m.zones, tokens={**m.tokens, **carried}, combat=None,
                               waits=[], pending_reroll=None)


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
             tactics: dict[str, str] | None = None, removed: Iterable[str] = (), indexes: bool = True,
             extra: Iterable[str] = (), bennies: int = 0) -> Start:
    """The base every run starts from: the game's tokens, characters, fight and board (``foe_sandbox.frozen``), the
    players' tokens played by the planner (no owner: nobody is asked, the planner answers), the app's dice, Play the
    foes off. ``from_start``: the fight as Start fight would begin it (``token_ids``, else ``fighters``), begun in each
    run with its dice; else the fight as it stands (Rejected when there is none). ``tactics``: a foe's tactic for this
    forecast (what if); ``removed``: tokens left out of it (what if); ``extra``: foes that come twice (what if: a
    base of each beside it, its character and tactic its own); ``bennies``: Bennies more for each of the players'
    characters whose sheet has them (what if); ``indexes`` False: the board without its built indexes (a copy for
    another process, ``foe_sandbox.frozen``)."""
    if players not in PLAYERS:
        raise Rejected(N_("players: bold or careful"))
    if not suggestions.reckoned(game):
        raise Rejected(N_("this game's fights cannot be forecast: its rules or this map have no plans yet"))
    base = frozen(game, indexes=indexes)
    side = party(base)
    gone = set(removed)
    if from_start:
        ids = [i for i in (token_ids if token_ids is not None else fighters(base)) if i in base.tokens and i not in gone]
        if not any(i in side for i in ids) or all(i in side for i in ids):
            raise Rejected(N_("a forecast needs the players' characters and at least one foe"))
        base.combat = None
    else:
        if not base.combat:
            raise Rejected(N_("there is no fight on: forecast it from its start"))
        ids = [i for i in base.combat["order"] if i not in gone]
    for token_id in gone:
        base.tokens.pop(token_id, None)
        if base.combat:
            base.combat = {**base.combat, "order": [i for i in base.combat["order"] if i != token_id]}
    for token_id in extra:
        if token_id in base.tokens and token_id not in side and token_id not in gone:
            twin = _twin(base, token_id)
            if twin is not None:
                ids.append(twin)
                if base.combat:
                    base.combat = {**base.combat, "order": [*base.combat["order"], twin]}
    if bennies:
        for c in base.characters.values():
            if c.token_id in side and isinstance(c.sheet.get("bennies"), int):
                c.sheet["bennies"] += bennies
    base.dice, base.foe_play = {}, {}
    base.tactics = {**base.tactics, **{i: {"tactic": PLAYERS[players]} for i in side if i in base.tokens},
                    **{i: {**base.tactics.get(i, {}), "tactic": t} for i, t in (tactics or {}).items()
                       if i in base.tokens and i not in side}}
    return Start(base, tuple(ids), frozenset(side))


def _twin(game: "Game", token_id: str) -> str | None:
    """A copy of the foe ``token_id`` on the nearest free square (in its zone on a zone map), with a copy of its
    character and its tactic: its id (``<id>+1``, the same in every forecast), or None when no square is free."""
    from ..bridge import zonelayout

    token = game.tokens[token_id]
    zone = zonelayout.zone_at(game.zones, token.x, token.y) if game.zones is not None else None
    board = game.board
    for ring in range(1, max(board.width, board.height)):
        for x in range(token.x - ring, token.x + ring + 1):
            for y in range(token.y - ring, token.y + ring + 1):
                if max(abs(x - token.x), abs(y - token.y)) != ring or not (0 <= x < board.width and 0 <= y < board.height):
                    continue
                if zone is not None and zonelayout.zone_at(game.zones, x, y) is not zone:
                    continue
                if any(board.is_blocked(c) or game.token_at(*c) for c in game.cells_of(token, x, y)):
                    continue
                twin = next(f"{token_id}+{n}" for n in range(1, 1000) if f"{token_id}+{n}" not in game.tokens)
                game.tokens[twin] = dataclasses.replace(token, id=twin, name=token.name + " +", x=x, y=y)
                for c in list(game.characters.values()):
                    if c.token_id == token_id:
                        cid = f"{c.id}+{twin}"
                        game.characters[cid] = dataclasses.replace(c, id=cid, token_id=twin, sheet=copy.deepcopy(c.sheet))
                if token_id in game.tactics:
                    game.tactics[twin] = dict(game.tactics[token_id])
                return twin
    return None


#: what a fight costs the players' side, by system (``Run.spent``): a sheet's own key (a number) or, for ammunition,
#: the sum of that key over its weapons; the system's words are the page's (templates/_forecast_result.html)
RESOURCES = {"savage_worlds": ("bennies",), "gurps_lite": ("fp_current", "shots"),
             "tesseris_ads": ("stamina", "fate_points", "ammo"), "phase_tn": ("ammo",), "atomic_tomorrow": ("grit",)}


def resources(system: str, sheet: dict) -> dict[str, float]:
    """The resources of ``RESOURCES`` a sheet has now, as numbers."""
    out: dict[str, float] = {}
    for key in RESOURCES.get(system, ()):
        value = sheet.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            out[key] = value
            continue
        weapons = sheet.get("weapons")
        items = weapons.values() if isinstance(weapons, dict) else weapons if isinstance(weapons, list) else ()
        found = [w[key] for w in items if isinstance(w, dict) and isinstance(w.get(key), (int, float))
                 and not isinstance(w.get(key), bool)]
        if found:
            out[key] = sum(found)
    return out


def _held(game: "Game", ids: Iterable[str]) -> dict[str, float]:
    """What the players' side holds of its resources, summed over its characters."""
    held: dict[str, float] = {}
    for token_id in ids:
        token = game.tokens.get(token_id)
        if token is None:
            continue
        for key, value in resources(game.system, fighting.sheet_of(game, token)).items():
            held[key] = held.get(key, 0) + value
    return held


@dataclass
class Run:
    """One fight played through: whether the players' side won (None: capped), the round it ended in, the tokens
    down and dead at its end, what the players' side spent (``RESOURCES``: Bennies, ammunition...)."""

    won: bool | None
    rounds: int
    down: frozenset[str]
    dead: frozenset[str]
    steps: int = 0
    spent: dict = field(default_factory=dict)


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
        if kind == "defense":  # the defense that leaves the attack the least chance to hit, as a player would pick
            open_ = [c for c in entry.get("choices", []) if c.get("available")]
            best = min(open_, key=lambda c: 1.0 if c.get("hit") is None else c["hit"], default=None)
            if best is not None and send(game, {"type": "choose_defense", "defense": best["key"],
                                                "attack": entry.get("id")}, dice, settle):
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
            if token is None or not fighting.stands(game, token) or _over(game):
                break
            while _answer(game, dice, settle):
                pass
            if not send(game, step, dice, settle):
                break
    while _answer(game, dice, settle):
        pass
    if game.combat and game.combat.get("current") == token_id and not _over(game):  # the last blow ends it here
        send(game, {"type": "next_turn"}, dice, settle)


def _over(game: "Game") -> bool:
    from .foeplay import over

    return over(game)


@unstored()  # a run's events and lines are read by nobody: their words are not packed for storage
def play(start: Start, seed: int, settle: Settle, cap: int = ROUND_CAP, memo: "Memo | None" = None) -> Run:
    """One run from ``start`` (``prepared``) with the dice of ``seed``, on its own copy (the board shared, read
    only). ``memo`` (``forecast_fast.Memo.of(start)``): what the runs of ``start`` keep between their turns, the same
    run with it as without (None: every turn reckoned afresh)."""
    game, dice, side = frozen(start.game), SeededDice(seed), start.side
    party_ids = [i for i in start.ids if i in side]
    held = _held(game, party_ids)
    if game.combat is None and not send(game, {"type": "start_combat", "token_ids": list(start.ids)}, dice, settle):
        raise Rejected(N_("the fight cannot be started"))
    steps, capped = 0, False
    due_round = None  # the round the attacks owed now came due in (phase/TN's shots resolve at a phase's end, rolled
    ended = game.combat["round"]  # once Next turn opened the next round): the round a fight they end ended in
    while not _over(game):
        steps += 1
        if steps > STEP_CAP or game.combat["round"] > cap:
            capped = True
            break
        before = game.combat["round"]
        if _answer(game, dice, settle):
            ended = game.combat["round"] if game.combat else ended
            continue
        due = [a for a in (game.combat.get("due") or []) if a.get("attacker") in game.tokens
               and a.get("target") in game.tokens]
        if due:
            ended = due_round if due_round is not None else before
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
        else:
            _turn(game, current, dice, settle, memo)
        if game.combat:
            ended = game.combat["round"]
            due_round = (due_round if due_round is not None else before) if game.combat.get("due") else None
    start.game.board.adopt(game.board)  # the indexes the run built, kept for the next run (the board unchanged)
    rounds = cap if capped else min(ended, cap)  # a capped run fought ``cap`` rounds
    tokens = [game.tokens[i] for i in start.ids if i in game.tokens]
    down = frozenset(t.id for t in tokens if not fighting.stands(game, t))
    standing = {t.id for t in tokens if t.id not in down}
    won = None if capped else bool(standing & side) and not (standing - side)
    left = _held(game, party_ids)
    spent = {k: held[k] - left.get(k, 0) for k in held if held[k] - left.get(k, 0) > 0}
    return Run(won, rounds, down, frozenset(t.id for t in tokens if dead(game, t)), steps, spent)


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
            "costs": {k: sum(r.spent.get(k, 0) for r in self.done) / n
                      for k in sorted({k for r in self.done for k in r.spent})} if n else {},
        }


def seed_of(seed: int, run: int) -> int:
    """The dice of run ``run`` of a forecast seeded ``seed``: each run its own, the same for the same pair."""
    return (seed * 1_000_003 + run) & 0x7FFFFFFF


def batch(start: Start, seed: int, first: int, count: int, settle: Settle, cap: int = ROUND_CAP,
          memo: "Memo | None" = None, key: tuple | None = None) -> list[Run]:
    """Runs ``first`` to ``first + count - 1`` of a forecast seeded ``seed``: what a worker plays at a time, with
    ``memo`` (else one of the batch's own: ``forecast_fast``, the same runs as without; ``key``: the forecast's and
    the fight's, for the board's geometry kept from its batches before, ``Memo.of``)."""
    memo = memo if memo is not None else Memo.of(start, key)
    return [play(start, seed_of(seed, i), settle, cap, memo) for i in range(first, first + count)]


def forecast(start: Start, runs: int, seed: int, settle: Settle, cap: int = ROUND_CAP) -> Figures:
    """``runs`` runs from ``start`` (``prepared``), here, one after another."""
    figures = Figures(seed, runs)
    for run in batch(start, seed, 0, runs, settle, cap):
        figures.add(run)
    return figures
