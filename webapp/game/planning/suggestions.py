"""The GM's foes (#60): the best plans for a foe's turn, with their exact odds, and each foe's tactic.

A plan is a whole turn as the system has it: the turn's action first where the rules want one (a 3d6
maneuver), a move within what the rules leave the foe (their movement, the way round walls), then an attack
(whom, with which weapon and options), or a move alone (taking cover, withdrawing). Each is reckoned on a
copy of the game: the action and the move are judged by the very rule calls the commands make (``act``,
``move``), and the attack's odds are the rules' own (``odds``) on the state the move leaves, so a plan's
``hit`` is what ``preview_attack`` says for the same attack from the plan's square, and its ``steps``, sent as
commands, are judged as if the GM had made them by hand. What an attack is worth is the system's to say
(``attack_effect``: expected injury in the 3d6 system, expected wounds in Savage Worlds), as are the ways a turn
may go (``plan_turns``) and whether a foe is hurt (``wounded``); a system without them is not reckoned, and says so.

A system whose turn is a declaration (phase/TN: one new action a phase, its shots rolled when they come due)
says so in the ways ``plan_turns`` gives: ``declare`` (the attack is sent as that declaration, ``act``
``declare:<name>``, judged as sent), ``still`` (from where it stands), ``later`` (the shot comes a phase later:
the steps end with the move or the declaration), ``ends_turn`` (the move is the turn's whole action), ``books``
(the fight's books as they will stand when the shot is rolled, its odds read on them), ``worth`` (the share of
the shot's effect the plan gets a phase), ``fits`` (the weapons that can); ``options`` may be a call of the
target's id (an aim held on one target).

What is weighed: each way of the turn, every square the foe can reach that way, each foe of its standing
(the other side's tokens in the fight), each weapon. Squares are compared on what the rules read of them (the
distance and the cover the target has from there): of the squares alike, the cheapest to reach; of the rest,
those no other square beats on both (less cover and nearer), each judged by the rules. The tactic then
ranks: fierce, the most expected effect; careful, the fewest foes with a clear shot at the square or beside
it first; cowardly, once hurt, a move as far from its foes as it can get, no attack; guarding, only squares
within ``GUARD_RADIUS`` of its post (where it stood when the tactic was set, else where it stands). A way
may be the turn's action alone, where the foe stands (``alone``: a 3d6 Ready to reload an empty gun), and an
attack's worth may carry notes for the why line (Savage Worlds' Gang Up bonus).

The foes as a side (#67): what an attack is worth counts the chance it puts its target down where the system's
``attack_effect`` gives it (``down``, the rules' exact odds, and ``down_worth``, what that is worth in the effect's
unit: a target about to go down is worth finishing); a system's ``side_notes`` (Savage Worlds' Gang Up) says what a
square gives the foe's allies, and of the squares beside a target those that give the most come first; an attack at a
target the allies acting before it may put down first is worth less, and so is a square beside a hero an ally shoots
at, by what the ally loses there (``suggestions_side``). The tactics say what the rules do: *careful* calls a move
"cover" only where the system's cover levels give cover from every foe (:meth:`_Geometry.sheltered`), *cowardly*
withdraws only away from every foe, or nowhere.

When no attack reaches a foe this turn, the foe closes in (#67, looking a turn ahead): by each way that moves alone
(``attack`` False, no ``then``; ``approach``: a way for closing in only, Savage Worlds' run), for each foe, the way to
it on the whole board (one search from the foe's square: round walls and closed doors, tokens passed as a move passes
them), the square within this turn's allowance that leaves the least of it (careful: the fewest foes at it first),
judged by the rules' ``move``; ranked nearest by the way first (after a reload where it stands). Every plan has a
``kind``: ``attack``, ``approach``, ``cover``, ``withdraw``, ``move``, ``ready``, ``surrender`` (``morale``: a side
that lost most of its number falls back or surrenders). A foe with no plan gets ``none``, the words why.

Asked off the foe's turn, the plans are those of its turn were it to begin now: reckoned on a copy whose fight has it
current, its turn's books fresh as the rules start a turn (the planner's ``turn_begun``), marked ``"now": False``. The
reckoning keeps what it reads again and again (distances, lines of fire, the squares nearest a target, the combatants
a move is judged among); the rules keep their own pure tables (the 3d6 odds'). A forecast (#68) keeps the board's part
of it (distances, lines of fire, the squares a move reaches, the ways to a target) from one reckoning to the next
(``memo``: ``forecast_fast``).

On a hex map (#67) the same: the rules' movement, distances and lines of fire count hexes (``rules.movement``,
``rules.los``), "beside" is the six neighbours (``Grid.neighbours``, ``Grid.steps``), and the words say hexes.

Pure: no I/O; the live side runs it off the loop (``webapp/live/foes/suggesting.py``). The tactic is the GM's
alone: its event's line is the GM's, the JSON state's ``tactics`` the GM's (``audience.public_state``).
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

import rules
from rules import los, movement
from rules.dice import SeededDice
from rules.system import RuleError, RuleNotImplemented
from rules.text import say, say_n

from ..bridge import heavy
from ..core import text
from ..fight.aiming import AttackCommand
from ..fight.combat import Act, decide as combat_decide
from ..core.text import N_, rules_words
from ..bridge.fighting import combatant, fighters_of, path_and_cost, position_of, settings_of, stands
from ..bridge.describe import square_name
from ..core.feature import Feature
from .foe_sandbox import (acted as _acted, cover_level as _cover_level, finishing, is_foe, is_melee as _is_melee,
                          named_foe, sandbox as _sandbox, weapons_of as _weapons, weighed)
from ..core.model import GM, Event, Rejected
from .suggestions_approach import MOST_PLANS, Ways as _Ways, approach as _approach, why_none as _why_none
from . import morale, suggestions_side as _side
from .suggestions_zones import plans_on_zones
from .forecast_fast import kept
from ..fight.waiting import plans_wait

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

TACTICS = ("fierce", "careful", "cowardly", "guarding")
TACTIC_WORDS = {"fierce": say("fierce"), "careful": say("careful"), "cowardly": say("cowardly"),
                "guarding": say("guarding")}
DEFAULT_TACTIC = "fierce"
GUARD_RADIUS = 3  #: squares a guarding foe keeps within from its post (the system's own count of squares)
FRONT = 2  #: squares per target, weapon and way judged by the rules at most (the best on cover and distance)
MELEE_MOST = 3  #: squares past which no melee weapon is tried (the longest reach in the systems weighed)
EXPOSED = 0.5  #: a square is in the open to a foe whose line of fire to it is clear and less covered than this


class SetTactic(BaseModel):
    """How the GM means to play a foe (#60): fierce, careful, cowardly or guarding."""

    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    type: Literal["set_tactic"]
    token_id: text.Id
    tactic: Literal["fierce", "careful", "cowardly", "guarding"]


class NotReckoned(Exception):
    """The rules of this game (or this map) have no suggestions: the message says why, in words."""

    def __init__(self, message) -> None:
        super().__init__(str(message))
        self.message = message


def _set_tactic(game: "Game", cmd: SetTactic, actor: "Actor") -> list[Event]:
    token = named_foe(game, cmd.token_id, N_("%(name)s is a player's token: only the GM's foes have a tactic"))
    return [Event("tactic_set", {"token_id": token.id, "tactic": cmd.tactic, "anchor": [token.x, token.y]})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    game.tactics[d["token_id"]] = {"tactic": d["tactic"], "anchor": list(d["anchor"])}
    token = game.tokens.get(d["token_id"])
    if token is not None:
        log(say("{name} now fights {tactic}", name=token.name, tactic=TACTIC_WORDS[d["tactic"]]), "gm", None)


def tactic_of(game: "Game", token_id: str) -> str:
    return (game.tactics.get(token_id) or {}).get("tactic") or DEFAULT_TACTIC


def reckoned(game: "Game") -> bool:
    """Whether this game's foes have plans at all: a system that reckons them (its ``planner``) on a square or hex grid
    (#67: movement and lines of fire count hexes there), or on a zone map for a system that plays on zones. The GM's fight card shows the plans only then (a system without them says so to whoever asks)."""
    system = rules.get(game.system)
    if game.zones is not None:  # a zone map: reckoned for a system that plays on zones (webapp/game/planning/suggestions_zones.py)
        return system.board == "zones" and getattr(system, "planner", None) is not None
    return system.board == "grid" and getattr(system, "planner", None) is not None


# --- reckoning ----------------------------------------------------------------------------------------------


def _moved(view: "Game", token: "Token", to: tuple[int, int], system, settings: dict,
           provoking: list | None = None, ends_turn: bool = False, fighters: list | None = None) -> "Game | None":
    """``view`` after the foe's move to ``to``, as ``move_token`` in a fight would leave it (the rules' ``move``
    books it); None when the rules refuse the move, or when it ends the turn (unless ``ends_turn``: the way's
    move is its whole declaration, phase/TN's Move), or when it gives a foe a free attack (Savage Worlds'
    withdrawing from melee) unless ``provoking`` is given: then the ids of those foes are put in it."""
    if to == (token.x, token.y):
        return view
    path, cost = path_and_cost(view, token, to)
    if fighters is None:  # the fight's combatants in ``view`` (the caller may have them already)
        fighters = fighters_of(view)
    try:
        result = system.move(view.combat["state"], combatant(view, token), path, cost, fighters, view.board,
                             SeededDice(0), settings)
    except (RuleError, RuleNotImplemented):
        return None
    if (result.turn is not None and not ends_turn) or (result.provokes and provoking is None):
        return None  # it ends the turn, or an attack is owed
    if provoking is not None:
        provoking.extend(result.provokes)
    moved = dataclasses.replace(view, tokens={**view.tokens, token.id: dataclasses.replace(token, x=to[0], y=to[1])},
                                combat={**view.combat, "state": result.state})
    return moved


def _foes(game: "Game", token: "Token") -> list["Token"]:
    order = (game.combat or {}).get("order", [])
    return [t for i in order if (t := game.tokens.get(i)) is not None and t.kind != token.kind and stands(game, t)]


def _taken(game: "Game", token: "Token") -> set[tuple[int, int]]:
    """The cells the other tokens cover (big tokens' every cell): ``token`` ends no move covering one."""
    return {c for t in game.tokens.values() if t.id != token.id for c in game.cells_of(t)}


class _Geometry:
    """What the rules read of a square against a token, kept for the reckoning: distance, line, cover."""

    def __init__(self, game: "Game", system, memo: dict | None = None) -> None:
        self.board, self.diagonal, self.grid = game.board, system.diagonal, game.board.grid
        self._seen, self._far = kept(memo, ("geometry", self.diagonal), lambda: ({}, {}))
        self._shelter: dict = {}  # (a cell, the foes' squares) -> sheltered: this reckoning's (the system's levels)
        self._nearest, self._fronts = {}, {}  # kept per cells and aim, and per cells, target and reach
        self._fighters: tuple | None = None
        self._moves: tuple = (None, {})  # the view, and the moves judged on it: square -> the view after, or None
        self._side: tuple | None = None  # the system's side_notes hook and what it reads (#67), or None
        self._support: dict = {}
        self._levels: dict = {}  # a cover fraction -> the system's level of cover (sheltered)

    def side(self, game: "Game", me: "Token", foes: list["Token"], system, settings: dict) -> None:
        """What the planner reads of the foe's side (#67): its allies in the fight still standing and its foes, for
        the system's ``side_notes`` (Savage Worlds' Gang Up); nothing where the system has no such hook."""
        hook = getattr(getattr(system, "planner", None), "side_notes", None)
        if hook is None:
            return
        order = (game.combat or {}).get("order", [])

        def who(t):
            return {"name": t.name, "at": position_of(game, t), "sheet": combatant(game, t).sheet}  # hexes: a Place
        allies = [who(t) for i in order if (t := game.tokens.get(i)) is not None and t.id != me.id
                  and t.kind == me.kind and stands(game, t)]
        if allies:
            grid = self.grid
            self._side = (hook, who(me), allies, [who(f) for f in foes],
                          lambda a, b: tuple(a) != tuple(b) and grid.steps(a, b) <= 1, settings)

    def support(self, cell: tuple[int, int]) -> tuple[int, list]:
        """What standing on ``cell`` gives the foe's allies (the points, the words), by the system (#67)."""
        if self._side is None:
            return 0, []
        found = self._support.get(cell)
        if found is None:
            hook, me, allies, enemies, adjacent, settings = self._side
            try:
                found = hook(cell, me, allies, enemies, adjacent, settings)
            except (RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
                found = (0, [])
            self._support[cell] = found
        return found

    def distance(self, a: tuple[int, int], b: tuple[int, int]) -> float:
        key = (a, b)
        found = self._far.get(key)
        if found is None:
            found = self._far[key] = movement.distance(a, b, self.diagonal, self.grid)
        return found

    def nearest(self, cells: dict, aim: tuple[int, int]) -> list:
        """``cells``' items nearest ``aim`` first, then the cheapest to reach (kept per aim and cells: the ways of a
        turn with the same allowance share their cells)."""
        kept = self._nearest.get((id(cells), aim))
        if kept is None or kept[0] is not cells:
            distance, order = self.distance, []
            for n, (cell, cost) in enumerate(cells.items()):
                if not n & 255:  # thousands of squares on a big map: the loop's thread may go first (#72)
                    heavy.breathe()
                order.append((distance(cell, aim), cost, n, cell))
            order.sort()  # (n: of those alike, in the cells' own order)
            kept = self._nearest[(id(cells), aim)] = (cells, [(cell, cost) for _d, cost, _n, cell in order])
        return kept[1]

    def front(self, cells: dict, target: "Token", foes: list["Token"], careful: bool, within) -> list:
        """:func:`_front`, kept per cells, target and reach while the reckoning lasts (its weapons alike on reach
        share it: nothing it reads is the weapon's)."""
        key = (id(cells), target.id, (target.x, target.y), careful, within)
        kept = self._fronts.get(key)
        if kept is None or kept[0] is not cells:
            kept = self._fronts[key] = (cells, _front(cells, target, self, foes, careful, within))
        return kept[1]

    def fighters(self, view: "Game") -> list:
        """The fight's combatants in ``view``, as a move is judged among them (kept while ``view`` is the same)."""
        if self._fighters is None or self._fighters[0] is not view:
            self._fighters = (view, fighters_of(view))
        return self._fighters[1]

    def moved(self, view: "Game", me: "Token", cell: tuple[int, int], system, settings: dict,
              ends_turn: bool) -> "Game | None":
        """:func:`_moved` of ``me`` to ``cell`` on ``view``, judged once while ``view`` is the same (one way of the
        turn weighs the same square for every target and weapon)."""
        if self._moves[0] is not view:
            self._moves = (view, {})
        kept, key = self._moves[1], (cell, ends_turn)
        if key not in kept:
            kept[key] = _moved(view, me, cell, system, settings, ends_turn=ends_turn, fighters=self.fighters(view))
        return kept[key]

    def of(self, a: tuple[int, int], b: tuple[int, int]) -> tuple[float, bool, float]:
        found = self._seen.get((a, b))
        if found is None:
            heavy.breathe()  # a line of fire and its cover: the loop's thread may go first (#72)
            d = movement.distance(a, b, self.diagonal, self.grid)
            clear = los.can_see(self.board, a, b)
            fraction = los.cover_fraction(self.board, a, b) if clear else 1.0
            found = self._seen[(a, b)] = (d, clear, fraction)
        return found

    def sheltered(self, cell: tuple[int, int], foes: list["Token"], system, settings: dict) -> bool:
        """Whether the rules give ``cell`` cover from every foe (#67): each foe's line of fire to it blocked, or its
        cover fraction a level of cover by the system's ``cover_effect`` (not "none"). False where the system
        cannot say (no cover rules)."""
        key = (cell, tuple((f.x, f.y) for f in foes))
        found = self._shelter.get(key)
        if found is None:
            found = True
            for f in foes:
                _d, clear, fraction = self.of((f.x, f.y), cell)
                if not clear:
                    continue
                level = self._levels.get(fraction, False)
                if level is False:  # the system's level, once per fraction (one of a few: sight lines blocked of 9)
                    level = self._levels[fraction] = _cover_level(system, fraction, settings)
                if level in (None, "none"):
                    found = False
                    break
            self._shelter[key] = found
        return found

    def threat(self, cell: tuple[int, int], foes: list["Token"]) -> int:
        """Foes with a clear shot at ``cell`` in the open, and foes beside it."""
        n = 0
        for f in foes:
            d, clear, fraction = self.of((f.x, f.y), cell)
            n += (clear and fraction < EXPOSED) + (d <= 1.5)
        return n


def _front(cells: dict, target: "Token", geo: _Geometry, foes: list["Token"], careful: bool, within=None) -> list:
    """The squares worth judging for an attack at ``target``: with a line of fire, of those alike on what the rules
    read (distance, cover; for a careful foe also the foes it is open to) the cheapest to reach, and of those the
    ones no other beats on all of them, nearest first: one beside the target, ``FRONT`` farther off; none farther
    from it than ``within`` (a melee weapon's: no line of fire is drawn from a square out of any reach)."""
    best: dict = {}
    aim = (target.x, target.y)
    open_at = None  # the nearest distance past beside it from which the target is in the open: farther is beaten
    for cell, cost in geo.nearest(cells, aim):
        far = geo.distance(cell, aim)
        if (open_at is not None and not careful and far > open_at) or (within is not None and far > within):
            break
        d, clear, fraction = geo.of(cell, aim)
        if not clear:
            continue
        if d > 1.5 and fraction == 0 and open_at is None:
            open_at = d
        key = (round(fraction, 3), d, geo.threat(cell, foes) if careful else 0, -geo.support(cell)[0])
        if key not in best or cost < best[key][1]:
            best[key] = (cell, cost)
    out = []
    # beside the target and farther off apart: nearer is not always better (Savage Worlds shoots at Parry, not 4,
    # from beside its target; a 3d6 Move and Attack in melee is not one at range)
    # (of the squares beside it, one that gives an ally Gang Up first: #67)
    for part, most in ((lambda k: k[1] <= 1.5, 1), (lambda k: k[1] > 1.5, FRONT)):
        keys = sorted((k for k in best if part(k)), key=lambda k: (k[3], k[1], k[0], k[2]) if k[1] <= 1.5 else
                      (k[1], k[0], k[2], k[3]))
        front = [k for k in keys if not any(o != k and all(a <= b for a, b in zip(o, k)) for o in keys)]
        out += [(best[k][0], best[k][1], k) for k in front[:most]]
    return out


def reckon(game: "Game", token_id: str, side: bool = True, anyone: bool = False, memo: dict | None = None) -> dict:
    """The plans for the GM's foe ``token_id`` on its turn, best first for its tactic:
    ``{"token_id", "tactic", "now", "plans": [...]}`` (each plan as docs/PROTOCOL.md has it; its words are
    ``Say``\\ s, said in the reader's language by the caller). While an attack waits for its answer (a defense, a
    Soak roll, the table's dice: :func:`webapp.game.fight.waiting.plans_wait`), no plans but ``"waiting"``: the words of
    what it waits for. Off its turn (``"now": False``), the plans of its turn were it to begin now
    (:func:`_turn_begun`): its steps are for its turn, not to be sent before. ``anyone``: a player's token's too, by
    its ``tactics`` (a forecast's copy, #68). ``memo``: the board's geometry a forecast keeps between reckonings
    (``forecast_fast``; the same plans). Rejected: no such foe, or not in the fight; NotReckoned: none here."""
    token = game.tokens.get(token_id)
    if token is None:
        raise Rejected(N_("no token %(id)s in this game"), id=repr(token_id))
    if not anyone and not is_foe(token):
        raise Rejected(N_("%(name)s is a player's token: suggestions are for the GM's foes"), name=token.name)
    system = rules.get(game.system)
    if (game.zones is not None) != (system.board == "zones"):
        raise NotReckoned(say("suggestions are reckoned on square grids, hex grids and zone maps only"))
    try:
        hurt = system.wounded(combatant(game, token).sheet)
    except RuleNotImplemented as exc:
        raise NotReckoned(rules_words(exc)) from None
    if not game.combat or token.id not in game.combat.get("order", []):
        raise Rejected(N_("plans are reckoned for a token in the fight: %(name)s is not in it"), name=token.name)
    settings = settings_of(game)
    now = game.combat.get("current") == token.id
    waits = plans_wait(game)
    if waits is not None:  # an attack's answer pends: not booked yet, so no plan until it is (waiting.py)
        return {"token_id": token.id, "tactic": tactic_of(game, token.id), "now": now, "plans": [], "waiting": waits}
    seen: dict = {}  # the allies' best plans claims reckoned, for who shoots whom (#67)
    taken = _side.claims(game, token, reckon, (Rejected, NotReckoned), seen) if side and not now else {}
    if not now:  # asked off its turn: what it would do were its turn to begin now
        game = _turn_begun(game, token, system, settings)
    if (low := morale.broken(game, token)) is not None and low.ends:  # yielded, or it surrenders (#67): no other plan
        return {"token_id": token.id, "tactic": tactic_of(game, token.id), "now": now, **low.plans(game, token)}
    try:
        ways = system.plan_turns(game.combat["state"], combatant(game, token), settings)
    except RuleNotImplemented as exc:
        raise NotReckoned(rules_words(exc)) from None
    tactic = tactic_of(game, token.id)
    anchor = tuple((game.tactics.get(token.id) or {}).get("anchor") or (token.x, token.y))
    foes = _foes(game, token)
    withdraw = tactic == "cowardly" and hurt or low is not None  # its side lost most of its number: it falls back (#67)
    if game.zones is not None:  # zones, not squares: its own reckoning, the same ranking
        found = plans_on_zones(game, token, system, ways, tactic, withdraw, foes, settings, anchor)
        _side.weigh(found, taken, foes)
        plans = _best(morale.said(found, low), "fierce" if tactic == "guarding" else tactic, withdraw)
        out = {"token_id": token.id, "tactic": tactic, "now": now, "plans": plans}
        if not plans:
            out["none"] = morale.nowhere(low) or _why_none(game, token, system, foes, tactic, withdraw, _Ways(token))
        return out
    geo = _Geometry(game, system, memo)
    geo.side(game, token, foes, system, settings)
    careful = tactic == "careful"
    found, refused = [], []  # the plans; the rules' words refusing a way's action (stunned 3d6: Do Nothing only, #67)
    reached: dict = {}  # the squares within each move allowance, searched once for the ways' allowances
    closing: list[tuple] = []  # the ways that move alone, kept for closing in should no attack reach (#67)
    plain = None  # the copy the ways without an action share: nothing weighed changes it, so they weigh the same moves
    for way in ways:
        heavy.breathe()
        if withdraw and way["attack"]:
            continue
        if way["action"]:
            view = _sandbox(game)
        else:
            view = plain = plain or _sandbox(game)
        steps: list[dict] = []
        if way["action"]:
            try:
                step = _acted(view, token.id, way["action"], way["action_options"])
            except Rejected as exc:
                refused.append(exc.args[0] if exc.args else str(exc))
                continue
            steps.append(step)
        me = view.tokens[token.id]
        left = system.movement_left(view.combat["state"], combatant(view, me), settings)
        if way.get("move_most") is not None and left is not None:  # what the attack's own cost leaves (Tesseris ticks)
            left = min(left, way["move_most"])
        heavy.breathe()
        cells = {(me.x, me.y): 0} if way.get("still") else _reachable(view, me, system, left, reached, memo)
        heavy.breathe()
        if tactic == "guarding":
            cells = {c: k for c, k in cells.items()
                     if movement.distance(c, anchor, system.diagonal, view.board.grid) <= GUARD_RADIUS}
        if way.get("alone"):  # the turn's action alone, where it stands (a 3d6 Ready to reload)
            if not withdraw:
                found.append(_alone(me, way, steps, geo, foes))
            continue
        if not way["attack"]:
            if not withdraw and not way.get("then"):
                closing.append((view, me, way, steps, cells))
            if not way.get("approach"):
                found += _moves(view, me, way, steps, cells, foes, geo, system, settings, careful, withdraw)
            continue
        for target in foes:
            for weapon in _weapons(system, combatant(view, me).sheet):
                heavy.breathe()
                if way.get("fits") and not way["fits"](weapon):
                    continue
                melee = _is_melee(weapon)
                if way.get("melee") is not None and melee is not None and way["melee"] != melee:
                    continue
                if way.get("weapons") is not None and weapon["key"] not in way["weapons"]:  # the ones it fits
                    continue
                within = _within(system, view, me, target, weapon, way) if melee else None
                for cell, cost, key in geo.front(cells, target, foes, careful, within):
                    p = _attack_plan(view, me, cell, cost, target, weapon, way, steps, system, settings, geo, foes)
                    if p is not None:
                        found.append(p)
    paths = _Ways(token, closing, careful, memo)  # the way to each foe, searched once for the ways that close in, as far as needed
    if not any(p["kind"] == "attack" for p in found):  # no attack reaches: the way to one next turn (#67)
        for view, me, way, steps, cells in closing:
            found += _approach(view, me, way, steps, cells, foes, geo, system, settings, careful, paths)
    _side.weigh(found, taken, foes)  # a target the allies before it may put down first (#67)
    if side:  # a square beside a hero an ally shoots at costs the ally (Firing into Melee, Random Targets; #67)
        _side.in_the_way(game, token, found, foes, system, seen)
    plans = _best(morale.said(found, low), tactic, withdraw, game.board.grid)
    out = {"token_id": token.id, "tactic": tactic, "now": now, "plans": plans}
    if not plans:
        out["none"] = morale.nowhere(low) or _why_none(game, token, system, foes, tactic, withdraw, paths, refused,
                                                        len(ways))
    return out


def _within(system, view: "Game", me: "Token", target: "Token", weapon: dict, way: dict) -> float:
    """How far from ``target`` an attack with the melee ``weapon`` is worth judging: ``MELEE_MOST``, or less where the
    system's ``reach`` (the way's options) says the rules refuse it from farther (not for a big token)."""
    hook = getattr(getattr(system, "planner", None), "reach", None)
    if hook is None or getattr(me, "size", 1) != 1 or getattr(target, "size", 1) != 1:
        return MELEE_MOST
    most = hook(weapon.get("data") or {}, combatant(view, me).state,
                way["options"](target.id) if callable(way["options"]) else way["options"])
    return MELEE_MOST if most is None else min(MELEE_MOST, most + 1e-9)  # (the rules' own margin)


def _turn_begun(game: "Game", token: "Token", system, settings: dict) -> "Game":
    """A copy of ``game`` as if ``token``'s turn began now: the fight's current, its books fresh as the rules
    start a turn (``turn_begun``). Rejected where the system's planner cannot begin a turn off the fight's
    order: its plans are then reckoned on its turn only."""
    if getattr(getattr(system, "planner", None), "turn_begun", None) is None:
        raise Rejected(N_("plans are reckoned on %(name)s's turn in a fight"), name=token.name)
    view = _sandbox(game)
    state = system.turn_begun(view.combat["state"], combatant(view, token), settings)
    view.combat = {**view.combat, "current": token.id, "state": state}
    return view


def _reachable(view: "Game", me: "Token", system, left, reached: dict | None = None, memo: dict | None = None) -> dict:
    """The free squares the foe can end its move on, with their cost (its own square at 0). ``reached``: the
    squares already found for other allowances from the same square on the same board (the ways of one turn):
    each with its least cost, so those within a smaller allowance are those that cost no more than it; ``memo``
    (a forecast's, #68) keeps the board's (before the tokens are counted)."""
    start = (me.x, me.y)
    if left is None:
        left = system.move_allowance(combatant(view, me).sheet) if hasattr(system, "move_allowance") else 0
    if reached is not None:
        wider = min((k for k in reached if k >= left), default=None)
        if wider is None:
            reached[left] = wider = _reachable(view, me, system, left, memo=memo)
            return wider
        return reached[wider] if wider == left else {c: k for c, k in reached[wider].items() if k <= left}
    if getattr(me, "size", 1) == 1:
        cells = kept(memo, ("reachable", start, left, system.diagonal),
                     lambda: movement.reachable(view.board, start, left, system.diagonal))
    else:
        cells, _ = movement.footprint_search(view.board, start, me.size, system.diagonal, left)
    taken = _taken(view, me)
    return {c: k for c, k in cells.items()
            if c == start or not any(x in taken for x in view.cells_of(me, *c))}


def _attack_plan(view, me, cell, cost, target, weapon, way, steps, system, settings, geo, foes) -> dict | None:
    heavy.breathe()  # one attack judged by the rules' exact odds: the loop's thread may go first (#72)
    if way.get("later") and not way.get("declare") and cell == (me.x, me.y):
        return None  # a move, then the shot: a move it is
    moved = geo.moved(view, me, cell, system, settings, bool(way.get("ends_turn")))
    if moved is None:
        return None
    options = dict(way["options"](target.id) if callable(way["options"]) else way["options"])  # per target
    cmd = AttackCommand(attacker=me.id, target=target.id, weapon=weapon["key"], options=options)
    shot_view = moved
    if way.get("books"):  # the fight's books as they will stand when the shot is rolled (Targeting held...)
        try:
            shot_view = dataclasses.replace(moved, combat={**moved.combat, "state": way["books"](
                moved.combat["state"], me.id, target.id)})
        except (RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
            return None
    found = weighed(shot_view, cmd, system)
    if found is None:
        return None
    p, odds, worth = found
    hit = odds["hit"]
    declared = None
    if way.get("declare"):  # the attack is declared now, rolled when the books say it is due: judged as sent
        declared = {"type": "act", "token_id": me.id, "action": f"declare:{way['declare']}",
                    "options": {"target": target.id, "weapon": weapon["key"]}}
        try:
            combat_decide(moved, Act(**declared), GM, SeededDice(0))
        except Rejected:
            return None
    plan_steps = list(steps)
    if cell != (me.x, me.y):
        plan_steps.append({"type": "move_token", "token_id": me.id, "x": cell[0], "y": cell[1]})
    if declared is not None:
        plan_steps.append(declared)
    elif not way.get("later"):
        plan_steps.append({"type": "attack", "attacker": me.id, "target": target.id, "weapon": weapon["key"],
                           "options": options})
    cover = p["view"]["cover"]
    where = say("{target} in the open", target=target.name) if not cover.get("fraction") else \
        say("{target} behind cover ({cover})", target=target.name, cover=cover.get("label") or "")
    parts = [where] + ([worth["defense"]] if worth.get("defense") else []) + list(worth.get("notes") or []) \
        + geo.support(cell)[1]  # what it gives its allies there (#67)
    share = way.get("worth", 1)
    down, finish = finishing(worth, target, share)
    return {"summary": say("{way}: {weapon} at {target} from {square}", way=way["label"], weapon=weapon["label"],
                           target=target.name, square=square_name(*cell)),
            "steps": plan_steps, "target": target.id, "weapon": weapon["key"], "options": options,
            "to": list(cell), "hit": float(hit), "effect": round(float(worth["effect"]) * share, 4),
            "effect_unit": worth["unit"], "down": down, "why": finish + parts, "kind": "attack", "_cost": cost,
            "_threat": geo.threat(cell, foes), "_risky": bool(way.get("risky")),
            "_score": float(worth["effect"]) * share + (down or 0.0) * float(worth.get("down_worth") or 0.0)}


def _alone(me, way, steps, geo, foes) -> dict:
    """The turn's action alone (``way["alone"]``: reloading), no move and no attack; the why the rules' words."""
    cell = (me.x, me.y)
    return {"summary": say("{way}: {weapon}", way=way["label"], weapon=way.get("weapon") or ""),
            "steps": list(steps), "target": None, "weapon": way.get("weapon"), "options": {}, "to": list(cell),
            "hit": None, "effect": 0.0, "down": None, "effect_unit": None, "why": [way["why"]], "kind": "ready", "_cost": 0,
            "_threat": geo.threat(cell, foes)}


def _moves(view, me, way, steps, cells, foes, geo, system, settings, careful, withdraw) -> list[dict]:
    """A move alone: for a careful foe the squares fewest foes can shoot at or reach; for a cowardly one that
    is hurt, the squares farthest from its foes (then the fewest in the open)."""
    if not (careful or withdraw) or not foes:
        return []
    def far(c):
        return min(movement.distance(c, (f.x, f.y), system.diagonal, view.board.grid) for f in foes)
    if withdraw:  # only away: no nearer to any foe and farther from one at least, or nowhere (#67)
        here = [geo.distance((me.x, me.y), (f.x, f.y)) for f in foes]

        def away(c) -> bool:
            there = [geo.distance(c, (f.x, f.y)) for f in foes]
            return all(a >= b for a, b in zip(there, here)) and any(a > b for a, b in zip(there, here))
        order = sorted((c for c in cells if away(c)), key=lambda c: (-far(c), geo.threat(c, foes), cells[c]))
    else:  # careful: from cover to cover, of the squares as threatened those the rules give cover first (#67)
        order = sorted(cells, key=lambda c: (geo.threat(c, foes), not geo.sheltered(c, foes, system, settings),
                                             cells[c]))
    if way.get("then"):  # an action after the move (Tesseris' Take Cover): on squares with cover beside them only
        order = [c for c in order if _beside_cover(view.board, c)]
    out = []
    for cell in order[:MOST_PLANS * 2]:
        heavy.breathe()
        provoked: list = []
        if cell == (me.x, me.y) or (moved := _moved(view, me, cell, system, settings, provoked,
                                                    bool(way.get("ends_turn")))) is None:
            continue
        then = _then(moved, me, way["then"]) if way.get("then") else None
        if way.get("then") and then is None:
            continue
        threat = geo.threat(cell, foes)
        if not withdraw and threat >= geo.threat((me.x, me.y), foes) and not then \
                and not geo.sheltered(cell, foes, system, settings):
            continue  # careful: a move that neither shelters it nor puts it before fewer foes is no move (#67)
        # "cover" only of a square the rules give cover from every foe, or where the way's action takes it (#67)
        covered = not withdraw and (bool(then) or geo.sheltered(cell, foes, system, settings))
        why = [say("cowardly and hurt: it withdraws") if withdraw else say("careful: it takes cover") if covered
               else say("careful: it moves where fewer foes can reach it"),
               say_n("{n} foe can shoot at it or reach it there", "{n} foes can shoot at it or reach it there", threat)]
        if provoked:
            names = ", ".join(view.tokens[i].name for i in provoked if i in view.tokens)
            why.append(say("leaving gives {names} a free attack", names=names))
        out.append({"summary": say("{way}: to {square}", way=way["label"], square=square_name(*cell)),
                    "steps": [*steps, {"type": "move_token", "token_id": me.id, "x": cell[0], "y": cell[1]},
                              *([then] if then else [])],
                    "target": None, "weapon": None, "options": {}, "to": list(cell), "hit": None, "effect": 0.0, "down": None,
                    "effect_unit": None, "why": why, "kind": "withdraw" if withdraw else "cover" if covered else "move",
                    "_cost": cells[cell],
                    "_threat": threat + len(provoked), "_far": far(cell)})
    return out


def _beside_cover(board, cell: tuple[int, int]) -> bool:
    """A cover piece in ``cell`` or next to it (what Taking Cover uses; on hexes the six neighbours)."""
    return any(board.cover_at(c) for c in (cell, *board.grid.neighbours(cell)))


def _then(moved: "Game", me: "Token", action: str) -> dict | None:
    """The step of the action a way takes after its move, judged by the rules on a copy of ``moved``; None when
    they refuse it."""
    try:
        return _acted(_sandbox(moved), me.id, action)
    except Rejected:
        return None


def _best(found: list[dict], tactic: str, withdraw: bool, grid=None) -> list[dict]:
    """At most ``MOST_PLANS``, distinct (one per target and weapon; closing in, one per target; a move alone, one per
    square, none beside a square already chosen: never the same move a square apart), best first. When no attack
    reaches, closing in comes first (#67), after readying a weapon (a reload where it stands): the foe it gets
    nearest to by the way first (careful: the least threatened square first), then the moves alone."""
    attacks = any(p["kind"] == "attack" for p in found)
    careful = tactic == "careful"
    closing = sorted((p for p in found if p["kind"] == "approach" and not attacks),
                     key=lambda p: (p["_threat"] if careful else 0, p["_rest"], p["_cost"]))
    found = [p for p in found if p["kind"] != "approach"]
    if withdraw:
        key = lambda p: (-p.get("_far", 0), p["_threat"], p["_cost"])  # noqa: E731
    elif tactic == "careful":
        # a way that leaves it worse off after (no defense, Vulnerable) counts as one foe more at it
        key = lambda p: (p["_threat"] + p.get("_risky", False), -p.get("_score", p["effect"]), -(p["hit"] or 0),  # noqa: E731
                         p["_cost"])
    else:  # the expected effect, a chance to put the target down counted at what the system says that is worth
        key = lambda p: (-p.get("_score", p["effect"]), -(p["hit"] or 0), p["_cost"])  # noqa: E731
    out, seen, moved = [], set(), []
    ranked = sorted(found, key=key)
    ready = [p for p in ranked if p["kind"] == "ready"] if closing else []  # readying a weapon: before closing in
    for p in [*ready, *closing, *(p for p in ranked if p not in ready)]:
        mark = (p["kind"], p["target"], p["weapon"]) if p["target"] else tuple(p["to"]) if isinstance(p["to"], list) \
            else p["to"]
        if mark in seen:
            continue
        if p["kind"] in ("move", "cover", "withdraw", "approach"):  # a move alone: not beside one chosen already
            if any(p["to"] == o if not isinstance(o, list) else
                   (grid.steps(p["to"], o) if grid is not None else
                    max(abs(p["to"][0] - o[0]), abs(p["to"][1] - o[1]))) <= 1 for o in moved):
                continue  # (on a zone map, not to a zone chosen already)
            moved.append(p["to"])
        seen.add(mark)
        why = list(p["why"])
        if tactic == "careful" and p["target"]:
            why.append(say_n("careful: {n} foe can shoot at it or reach it there",
                             "careful: {n} foes can shoot at it or reach it there", p["_threat"]))
        if tactic == "guarding":
            why.append(say("guarding: it keeps within {n} hexes of its post", n=GUARD_RADIUS) if grid is not None and
                       grid.hex else say("guarding: it keeps within {n} squares of its post", n=GUARD_RADIUS))
        line = why[0]
        for more in why[1:]:
            line = say("{first}; {then}", first=line, then=more)
        out.append({k: v for k, v in p.items() if not k.startswith("_")} | {"why": line})
        if len(out) == MOST_PLANS:
            break
    return out


FEATURE = Feature("suggestions", (SetTactic,), decide={SetTactic: _set_tactic}, events=("tactic_set",), evolve=evolve)
