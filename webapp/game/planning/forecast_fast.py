"""What a forecast (#68, ``forecast.py``) keeps between the turns it plays, so that a run's turn costs less without a
single choice changing: the same seed gives the same figures with it as without it.

Two kinds of answers are kept, for one forecast's start (its game's board, unchanged through every run: the runs
share it read only, and nothing a turn sends changes it):

- **A turn's plan** (:meth:`Memo.steps`): the best plan's steps (``suggestions.reckon``'s ``plans[0]``, all a
  forecast's turn plays; the words and the other plans are never read) for a token on a game in a given state. The
  key is everything ``reckon`` reads of the game: every field of ``Game`` but the board (the same board, checked by
  its version), the log (never read by the planner: the runs' lines are not kept) and the fog's cache (``vision``:
  none on a forecast's copy), pickled (exact: two games with the same bytes are the same state; two equal states
  pickled apart may give other bytes, which only misses). ``reckon`` is pure: its answer is a function of the game it
  is given (the rules' odds, the board's geometry, its own copies; no dice but the rules' ``SeededDice(0)`` on its
  copies, no clock, no I/O), so a state met again gives the same plan. States recur across runs where the fight is
  the same so far: the first turns of the runs whose initiative came out the same (the 3d6 system's order is by
  Basic Speed: one in five of its turns; the other systems deal or roll it, so a turn is hardly ever met twice).
- **The board's geometry** (:attr:`Memo.shared`, handed to ``reckon`` as its ``memo``): the answers of the rules'
  geometry that read the board and the squares alone (distances, lines of fire and their cover, the squares a move
  reaches from a square before the tokens are counted, the ways to a target), met again and again from one turn to
  the next and from one run to the next.

Pure: no I/O. A memo belongs to one forecast's start (``Memo.of``); the live side may keep one per forecast in the
process that plays its batches.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
import threading
from typing import TYPE_CHECKING

from ..core.model import Game

if TYPE_CHECKING:
    from rules.board import Board

#: the fields of ``Game`` a plan's key leaves out: the board (the same one, its version checked), the log (never read
#: by the planner), the fog's cache (``vision``: not a state)
_NOT_READ = ("board", "log", "vision")
_KEYED = tuple(f.name for f in dataclasses.fields(Game) if f.name not in _NOT_READ)


def key_of(game: Game, token_id: str) -> bytes:
    """The state a plan for ``token_id`` is reckoned on: the token and every field of the game but
    :data:`_NOT_READ`, pickled."""
    return pickle.dumps((token_id, game.board.grid, *(getattr(game, name) for name in _KEYED)),
                        protocol=pickle.HIGHEST_PROTOCOL)


def kept(memo: dict | None, key, make):
    """``make()``, kept in ``memo`` under ``key`` (made once); made afresh each time where ``memo`` is None."""
    if memo is None:
        return make()
    found = memo.get(key, _NONE)
    if found is _NONE:
        found = memo[key] = make()
    return found


_NONE = object()

#: the board's geometry kept between one forecast's batches in this process (a worker process plays them one after
#: another; a fight's second batch need not measure again the lines of fire its first did): ``(forecast, fight)`` ->
#: ``Memo.shared``, of one forecast at a time, its last ``GEOMETRY_MOST`` fights (a fight's grows to a few MB)
_GEOMETRY: dict[tuple, dict] = {}
_GEOMETRY_LOCK = threading.Lock()
GEOMETRY_MOST = 8


class Memo:
    """The plans and the board's geometry a forecast keeps (one per forecast's start: its board)."""

    def __init__(self, board: "Board") -> None:
        self.board, self.version = board, board._version
        self.shared: dict = {}  #: ``reckon``'s memo: the board's geometry
        self.plans: dict[bytes, list | None] = {}  #: a state's key -> its best plan's steps (None: no plan)
        self.asked = self.met = 0  #: plans asked for, and those met again (read by the bench)

    @classmethod
    def of(cls, start, key: tuple | None = None) -> "Memo":
        """A memo for the runs of ``start`` (``forecast.prepared``). ``key``: ``(forecast, fight)``, the same for every
        batch of one fight of one forecast (the whole fight, or the fight without a foe): its board's geometry then
        comes from this process's batches of it before (:data:`_GEOMETRY`); the plans are each batch's own (a
        state's key is kilobytes, and states recur mostly in a run's first turns)."""
        memo = cls(start.game.board)
        if key is not None:
            with _GEOMETRY_LOCK:  # (batches in gevent's native threads: one forecast's and the one replacing it)
                if any(k[0] != key[0] for k in _GEOMETRY):  # another forecast: the last one's is let go
                    _GEOMETRY.clear()
                memo.shared = _GEOMETRY.pop(key, memo.shared)
                _GEOMETRY[key] = memo.shared  # (the last used last: the first one is let go past GEOMETRY_MOST)
                while len(_GEOMETRY) > GEOMETRY_MOST:
                    del _GEOMETRY[next(iter(_GEOMETRY))]
        return memo

    def fits(self, game: Game) -> bool:
        """Whether ``game`` is on this memo's board as it was (a run's copy of it, unchanged)."""
        board = game.board
        return board is self.board or (board._version == self.version and board.width == self.board.width
                                       and board.height == self.board.height and board.grid == self.board.grid)

    def steps(self, game: Game, token_id: str, reckon, refused: tuple) -> list[dict]:
        """The steps of the best plan of ``token_id`` on ``game`` (``reckon(game, token_id, anyone=True)``'s first
        plan, none where it has none or raises one of ``refused``), reckoned once per state; each a copy of its own
        (the table may be sent it)."""
        if not self.fits(game):  # another board: nothing kept is for it
            return _first(game, token_id, reckon, refused, None)
        self.asked += 1
        key = key_of(game, token_id)
        if key in self.plans:
            self.met += 1
        else:
            self.plans[key] = _first(game, token_id, reckon, refused, self.shared)
        found = self.plans[key]
        return copy.deepcopy(found) if found else []


def _first(game: Game, token_id: str, reckon, refused: tuple, shared: dict | None) -> list[dict] | None:
    try:
        found = reckon(game, token_id, anyone=True, memo=shared)
    except refused:
        return None
    plans = found.get("plans") or []
    return copy.deepcopy(plans[0]["steps"]) if plans else None

