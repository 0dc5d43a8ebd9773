"""Closing in (#67): a foe no attack reaches this turn moves, by its system's move, to where it can attack on its
next turn, along the way round the walls (:func:`approach`, one whole-board search from each target:
:func:`way_from`); and, for a foe with no plan at all, the words why (:func:`why_none`). Called by
``suggestions.reckon``, which weighs these plans with the others; pure, as it is."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rules import movement
from rules.text import say, say_n

from ..bridge import heavy
from ..bridge.describe import square_name
from .suggestions_zones import leads_anywhere
from .forecast_fast import kept

if TYPE_CHECKING:
    from ..core.model import Game, Token

MOST_PLANS = 3  #: plans for a foe's turn at most (the GM's card shows them; closing in stops looking past them)


class Ways(dict):
    """The way from a foe to each of its foes, by the target's token id: ``(now, back)``, the cost of the foe's way
    to it from where it stands and the way to it from the squares of its turn's moves that close in (``closing``:
    the ways' free squares), or None where no way leads there; searched once for all the ways of a foe's turn that
    close in and for the words why it has no plan, only as far as they read it: each way's ``MOST_PLANS * 2``
    squares nearest by the way (with their ties; every square nearer than where it stands for a ``careful`` foe,
    which weighs them all by the threat first), those nearer than where it stands (``movement.ways_back``).
    ``memo`` (a forecast's, #68): the searches of the board kept from one reckoning to the next (read the same); for
    a token of one square, the way back from every square of the board to the target's, searched once per target
    square and kept for every foe that closes in on it there, in every run (the cells it gives beyond those a
    narrower search gives are farther by the way than their group's nearest: :func:`approach` takes the same)."""

    def __init__(self, token, closing=(), careful: bool = False, memo: dict | None = None) -> None:
        super().__init__()
        self.start, self.size = (token.x, token.y), getattr(token, "size", 1)
        self.groups = [set(cells) - {self.start} for *_, cells in closing]
        self.most = None if careful else MOST_PLANS * 2
        self.memo = memo

    def to(self, board, target, diagonal: str):
        """``(now, back)`` for the way to ``target`` (a token), searched the first time it is asked for."""
        if target.id not in self:
            self[target.id] = self._search(board, (target.x, target.y), diagonal)
        return self[target.id]

    def _search(self, board, aim, diagonal):
        if self.memo is not None and self.size == 1 and self.groups:  # a forecast's: the whole board's way back
            return self._searched(board, aim, diagonal)
        key = ("ways", self.start, self.size, aim, diagonal, self.most, tuple(frozenset(g) for g in self.groups)) \
            if self.memo is not None else None
        return kept(self.memo, key, lambda: self._searched(board, aim, diagonal))

    def _searched(self, board, aim, diagonal):
        if self.size != 1:  # a big token's footprint: the whole board's search
            back = way_from(board, aim, self.size, diagonal)
            return None if back is None or self.start not in back else (back[self.start], back)
        if not board.in_bounds(aim):
            return None
        now = movement.way_back(board, self.start, aim, diagonal)
        if now is None:
            return None
        if not self.groups:
            return now, {}
        if self.memo is not None:  # every square's, kept per target square for every foe and run (#68)
            return now, kept(self.memo, ("ways to", aim, diagonal),
                             lambda: way_from(board, aim, 1, diagonal))
        return now, movement.ways_back(board, aim, diagonal, self.groups, self.most, now)


def way_from(board, goal: tuple[int, int], size: int, diagonal: str) -> dict | None:
    """The cost of the way to ``goal`` from every square of the board (round walls, closed doors and blocking
    squares; tokens are passed, as a move passes them): one search of the board from ``goal``, each square's cost
    back to it by the same steps (the terrain counted on the squares entered on the way to ``goal``). A big
    token's, its top-left square's, its whole footprint fitting each step (the whole board). None when ``goal``
    is off the board."""
    if size == 1:
        if not board.in_bounds(goal):
            return None
        out = movement.reachable(board, goal, None, diagonal)
    else:  # from the nearest top-left square whose footprint fits the board (a foe by its edge)
        goal = (max(0, min(goal[0], board.width - size)), max(0, min(goal[1], board.height - size)))
        out, _ = movement.footprint_search(board, goal, size, diagonal)
    if not out:
        return None
    end = board.terrain_cost(goal)
    return {c: k - board.terrain_cost(c) + end if c != goal else 0.0 for c, k in out.items()}


def approach(view, me, way, steps, cells, foes, geo, system, settings, careful, paths: dict) -> list[dict]:
    """Closing in (#67), when no attack reaches a foe this turn: for each foe, the way to it on the whole board (round
    the walls: :func:`way_from`), followed as far as the way's move allowance goes (``cells``: the free squares
    within it), to the square that leaves the least of the way (of those alike, the nearest as the crow flies: the
    straight way of the ways as short) that the rules' ``move`` accepts; for a careful foe, of the squares that get
    it nearer by the way, the fewest foes can shoot at or reach first, then the nearest. One plan per foe: the move,
    then its attack next turn."""
    out: list[dict] = []
    start = (me.x, me.y)
    reach = max(cells.values(), default=0)
    rests: list[float] = []
    for target in sorted(foes, key=lambda t: geo.distance(start, (t.x, t.y))):  # the nearest as the crow flies first
        heavy.breathe()
        aim = (target.x, target.y)
        if len(rests) >= MOST_PLANS and geo.distance(start, aim) - reach > sorted(rests)[MOST_PLANS - 1]:
            break  # the way is never shorter than the crow flies: no farther foe is nearer by the way (a big fight)
        found = paths.to(view.board, target, system.diagonal)
        if found is None:
            continue
        now, way_back = found
        nearer = [c for c in cells if c != start and way_back.get(c, now) < now]
        if careful:
            nearer.sort(key=lambda c: (geo.threat(c, foes), way_back[c], geo.distance(c, aim), cells[c]))
        else:
            nearer.sort(key=lambda c: (way_back[c], crow(c, aim, geo.grid), cells[c]))
        for cell in nearer[:MOST_PLANS * 2]:
            heavy.breathe()
            if geo.moved(view, me, cell, system, settings, bool(way.get("ends_turn"))) is None:
                continue
            rest = way_back[cell]
            left = max(1, round(rest))
            out.append({"summary": say("{way}: to {square}, closing in on {target}", way=way["label"],
                                       square=square_name(*cell), target=target.name),
                        "steps": [*steps, {"type": "move_token", "token_id": me.id, "x": cell[0], "y": cell[1]}],
                        "target": target.id, "weapon": None, "options": {}, "to": list(cell), "hit": None,
                        "effect": 0.0, "down": None, "effect_unit": None, "kind": "approach",
                        "why": [say_n("no attack reaches {target} this turn: {n} hex left on the way to it",
                                      "no attack reaches {target} this turn: {n} hexes left on the way to it",
                                      left, target=target.name) if geo.grid.hex else
                                say_n("no attack reaches {target} this turn: {n} square left on the way to it",
                                      "no attack reaches {target} this turn: {n} squares left on the way to it",
                                      left, target=target.name)],
                        "_cost": cells[cell], "_threat": geo.threat(cell, foes), "_rest": rest})
            rests.append(rest)
            break
    return out


def crow(a: tuple[int, int], b: tuple[int, int], grid=None) -> float:
    """The straight distance between two cells' centres (a tie-break between cells alike by the rules; on hexes the
    hexes' own centres, ``Grid.centre``)."""
    if grid is not None and grid.hex:
        (ax, ay), (bx, by) = grid.centre(a), grid.centre(b)
        return ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5
    return ((a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2) ** 0.5


def why_none(game: "Game", token: "Token", system, foes: list["Token"], tactic: str, withdraw: bool,
              paths: Ways, refused: list | None = None, ways: int = 0):
    """Why a foe has no plan at all, in words (#67): no foe of its stands, the rules refuse every one of the ``ways``
    of its turn (``refused``: their words refusing each way's action; the first said, a stunned 3d6 foe's "Do
    Nothing only"), nowhere to withdraw to, held by its post, no way leads to any of its foes, or the rules leave it
    no move closer."""
    if not foes:
        return say("no foe of its still stands in the fight")
    if refused and len(refused) == ways:
        return say("the rules leave it no action this turn: {why}", why=refused[0])
    if withdraw:
        return say("cowardly and hurt: nowhere to withdraw to")
    if game.zones is not None:
        ways = leads_anywhere(game, token, foes)
    else:
        ways = False
        for f in foes:  # the ways to its foes (those no way of the turn looked for), until one leads there
            heavy.breathe()
            if paths.to(game.board, f, system.diagonal) is not None:
                ways = True
                break
    if not ways:
        return say("no way leads to any of its foes")
    if tactic == "guarding":
        return say("guarding: no foe comes within reach of its post")
    return say("no attack reaches a foe this turn, and the rules leave it no move closer")
