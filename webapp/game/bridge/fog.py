"""Fog of war: which squares each audience sees, and so which tokens reach it.

With fog on, a player sees what their tokens see (``rules.los.visible_cells``
from every square a token covers; on a zone map, the token's zone and the
zones linked to it), plus the areas the GM revealed by hand. The squares a
player has seen before stay on their map, dimmed (``Game.explored``, kept
in the game state and grown after every event, so a replay gives it back).
The table screen sees what the players together see; the GM sees all.

In the dark (the active map's ambient light ``dark``, :mod:`webapp.game.board.lighting`), a token sees of
those squares only the lit ones (``lit_squares``: the map's lights and the lights tokens carry) and
those its own light or its system's dark vision reaches (``rules.lighting``).

A view and a memory are masks (:class:`rules.cellmask.CellMask`): the board's squares as a grid of booleans, read as a
frozenset of ``(x, y)``; the unions, "does the memory hold the view" and the fog layer's drawing of a move are
one pass in C over the grid, not a look at each of tens of thousands of squares (#69). In the dark a view is the
frozenset ``rules.lighting`` gives; the two mix (``rules.cellmask.union``).

Views are cached twice: each token's view by (board version, square, size),
so a move recomputes the view of the token that moved and no other; and
each audience's view by (game seq, audience), so one move computes each
player's view once however many fragments, previews and checks ask.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

import numpy as np

from rules import lighting as rules_lighting
from rules.cellmask import CellMask, grid_of, union as cells_union
from rules.knownboard import known_board as known_part
from rules.los import visible_mask

from . import heavy, zonelayout
from .fogwalls import by_cell

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

Cells = CellMask | frozenset
#: a light's range (squares) from which its reach is worked out as a view is, off the loop on a big board
FAR_LIGHT = 12

#: off while a past state is rebuilt only to read its board and tokens (undo): no memory to keep
_REMEMBER: ContextVar[bool] = ContextVar("fog_remember", default=True)


@contextmanager
def without_memory():
    """Replays inside this block skip the explored memory (the costly part of a replay with fog)."""
    token = _REMEMBER.set(False)
    try:
        yield
    finally:
        _REMEMBER.reset(token)


class Vision:
    """A game's cache of views; process memory only (rebuilt from the state at will)."""

    __slots__ = ("board_index", "tokens", "audiences", "walls_known", "layers", "tokens_shown", "whole")

    def __init__(self) -> None:
        self.board_index = None  # the board's segment index the token views were computed on
        self.tokens: dict[tuple, Cells] = {}
        self.audiences: dict[tuple[int, str], Cells] = {}
        self.walls_known: dict[str, int] = {}  # audience -> how many squares it knew when its walls were last drawn
        self.layers: dict[tuple, dict] = {}  # fog layers by what they are drawn from (a move rarely changes them)
        self.tokens_shown: dict[str, tuple[int, frozenset]] = {}  # audience -> (seq, ids of the tokens it was shown)
        # player id -> (board size, their memory found to hold every square of a board that size: ``_seen_all``)
        self.whole: dict[str, tuple[tuple[int, int], set]] = {}


def _vision(game: "Game") -> Vision:
    if game.vision is None:
        game.vision = Vision()
    return game.vision


def enabled(game: "Game") -> bool:
    return bool(game.fog_on)


def token_view(game: "Game", token: "Token") -> Cells:
    """The squares ``token`` sees from where it stands."""
    vision = _vision(game)
    index = _index(game.board)  # a new index object after any change to the board: the board's version
    if vision.board_index is not index:
        vision.board_index, vision.tokens = index, {}
    zones = None if game.zones is None else tuple(
        (z["id"], tuple(z["box"]), tuple(z.get("adjacent", []))) for z in game.zones)
    key = (token.x, token.y, token.size, zones)
    cells = vision.tokens.get(key)
    if cells is None:
        cells = _compute(game, token)
        if vision.board_index is index:  # (the board as it was when the view was asked for: kept)
            vision.tokens[key] = cells
            _keep_small(vision, key, cells)
    if zones is None and _dark(game):
        return _in_the_dark(game, token, cells)
    return cells


def _index(board):
    """The board's segment index, built off the loop on a big board (``heavy.on_board``) when not built yet."""
    if not board.indexed("segments") and heavy.leaves_loop(board):
        return heavy.on_board(board, _build_index)
    return board.segments()


def _build_index(board):
    return board.segments()


def _keep_small(vision: Vision, key, cells) -> None:
    if len(vision.tokens) > 4096:
        vision.tokens.clear()
        vision.tokens[key] = cells


def _dark(game: "Game") -> bool:
    m = game.maps.get(game.active_map)
    return m is not None and m.ambient == "dark"


def _reach(game: "Game", cell, radius: float) -> Cells:
    """The squares a light of ``radius`` in ``cell`` reaches on the active board (cached with the token views)."""
    vision = _vision(game)
    index = _index(game.board)  # a light's reach is the board's, like a token's view: new board, new reach
    if vision.board_index is not index:
        vision.board_index, vision.tokens = index, {}
    key = ("reach", cell, radius)
    found = vision.tokens.get(key)
    if found is None:
        found = heavy.on_board(game.board, rules_lighting.reach, cell, radius) if radius >= FAR_LIGHT \
            else rules_lighting.reach(game.board, cell, radius)
        if vision.board_index is index:
            vision.tokens[key] = found
            _keep_small(vision, key, found)
    return found


def _token_reach(game: "Game", token: "Token", radius: float) -> Cells:
    out: frozenset = frozenset()
    for cell in token.cells():
        out |= _reach(game, cell, radius)
    return out


def lit_squares(game: "Game", m=None) -> Cells:
    """The squares lit now on map ``m`` (default the active one): its lights' and, on the active map, the
    lights its tokens carry (a hidden token's light is the GM's secret: it lights nothing)."""
    m = m or game.maps.get(game.active_map)
    if m is None:
        return frozenset()
    if m.id != game.active_map:  # a map being prepared: the GM's alone, not cached
        return rules_lighting.lit_squares(m.board, [(lt["x"], lt["y"], lt["range"]) for lt in m.lights
                                                    if lt.get("intensity", 1) > 0])

    def compute():
        out: set = set()
        for light in m.lights:
            cell = rules_lighting.light_cell(game.board, light["x"], light["y"])
            if cell is not None and light["range"] > 0 and light.get("intensity", 1) > 0:
                out |= _reach(game, cell, light["range"])
        for t in game.tokens.values():
            if t.light and not t.hidden:
                out |= _token_reach(game, t, t.light)
        return frozenset(out)
    return _cached(game, "lit", compute)


def _in_the_dark(game: "Game", token: "Token", sight: Cells) -> Cells:
    """What ``token`` sees of ``sight`` in the dark: lit squares, and what its light or dark vision reaches."""
    radius = max(token.light or 0, rules_lighting.dark_vision(game.system).squares)
    own = _token_reach(game, token, radius) if radius > 0 else frozenset()
    standing = [c for c in token.cells() if game.board.in_bounds(c)]
    return rules_lighting.seen_in_dark(sight, own, lit_squares(game), standing)


def _compute(game: "Game", token: "Token") -> Cells:
    """What ``token`` sees, as a mask of the board."""
    board = game.board
    if game.zones is not None:
        here = {zonelayout.zone_at(game.zones, x, y)["id"] for x, y in game.cells_of(token)
                if zonelayout.zone_at(game.zones, x, y) is not None}
        seen = set(here)
        for z in game.zones:
            if z["id"] in here:
                seen.update(z.get("adjacent", []))
        out = set(game.cells_of(token))
        for z in game.zones:
            if z["id"] in seen:
                bx, by, bw, bh = z["box"]
                out.update((x, y) for y in range(by, by + bh) for x in range(bx, bx + bw))
        return CellMask.of([c for c in out if board.in_bounds(c)], board.width, board.height)
    return heavy.on_board(board, _sight, tuple(game.cells_of(token)))


def _sight(board, cells) -> Cells:
    """What a token covering ``cells`` sees on ``board``, as a mask of it (run off the loop on a big board: reads
    the board only)."""
    seen = [visible_mask(board, cell) for cell in cells if board.in_bounds(cell) and not board.is_blocked(cell)]
    standing = [cell for cell in cells if board.in_bounds(cell) and board.is_blocked(cell)]  # (sees its own square)
    return cells_union(CellMask.of(standing, board.width, board.height), *seen)


def per_seq(game: "Game", name: str, compute):
    """``compute()``, kept until the game's next event (for views drawn from the fog's, as the lighting's)."""
    return _cached(game, name, compute)


def _cached(game: "Game", audience: str, compute) -> Cells:
    vision = _vision(game)
    key = (game.seq, audience)
    cells = vision.audiences.get(key)
    if cells is None:
        if len(vision.audiences) > 256:
            vision.audiences = {k: v for k, v in vision.audiences.items() if k[0] >= game.seq - 1}
        cells = vision.audiences[key] = compute()
    return cells


def player_view(game: "Game", player_id: str) -> Cells:
    """What a player sees now: their tokens' views and what the GM revealed."""
    def compute():
        views = [token_view(game, t) for t in game.tokens.values()
                 if t.owner == player_id and not t.hidden]  # a hidden token is the GM's to see with
        return cells_union(game.revealed, *views)  # (one token's view as it is: not copied)
    return _cached(game, f"player:{player_id}", compute)


def screen_view(game: "Game") -> Cells:
    """What the players together see (the table screen's view)."""
    def compute():  # one union (off the loop on a big board), not a copy grown view by view on it
        views = [player_view(game, pid) for pid in {t.owner for t in game.tokens.values() if t.owner}]
        return heavy.run(game.board, cells_union, game.revealed, *views)
    return _cached(game, "screen", compute)


def view(game: "Game", actor: "Actor") -> Cells | None:
    """The squares this audience sees now; None when it sees everything (GM, or no fog)."""
    if actor.role == "gm" or not enabled(game):
        return None
    if actor.role == "player":
        return player_view(game, actor.player_id)
    return screen_view(game)


def explored(game: "Game", actor: "Actor"):
    """The squares this audience has seen before (dimmed on its map); read only."""
    if actor.role == "player":
        return game.explored.get(actor.player_id) or frozenset()

    def compute():
        return heavy.run(game.board, cells_union, *game.explored.values())
    return _cached(game, "explored", compute)


def may_see(game: "Game", actor: "Actor", token: "Token") -> bool:
    """The GM sees every token; others no hidden one, and with fog only those in their view (own tokens always)."""
    if actor.role == "gm":
        return True
    if token.hidden:
        return False
    if not enabled(game) or (actor.role == "player" and token.owner == actor.player_id):
        return True
    seen = view(game, actor)
    return any(c in seen for c in game.cells_of(token))


def visible_tokens(game: "Game", actor: "Actor") -> list["Token"]:
    """The tokens this audience may know about: the GM sees all; others no hidden token and,
    with fog on, only tokens in their view (a player's own tokens always)."""
    tokens = game.tokens.values()
    if actor.role == "gm":
        return list(tokens)
    if not enabled(game):
        return [t for t in tokens if not t.hidden]
    # may_see for each token, with the audience's view looked up once (a move with fog asks this of every
    # audience but the GM: 50 tokens each)
    seen = view(game, actor)
    own, player_id = actor.role == "player", actor.player_id
    squares = not game.board.grid.hex
    return [t for t in tokens if not t.hidden and (
        (own and t.owner == player_id)
        or ((t.x, t.y) in seen if squares and t.size == 1 else any(c in seen for c in game.cells_of(t))))]


def may_see_at(game: "Game", actor: "Actor", token: "Token", x: int, y: int) -> bool:
    """Whether this audience may see ``token`` standing at (x, y) (a drag preview's square)."""
    if actor.role == "gm" or not enabled(game) or (actor.role == "player" and token.owner == actor.player_id):
        return True
    seen = view(game, actor)
    return any(c in seen for c in game.cells_of(token, x, y))


def remember(game: "Game") -> None:
    """After an event: every player's map keeps what their tokens see now (explored memory)."""
    if not enabled(game) or not _REMEMBER.get():
        return
    _remember(game)


def remember_if_changed(game: "Game", last: tuple | None) -> tuple | None:
    """``remember`` for a fold run ``without_memory`` that keeps the memory itself, after each event (the recap's):
    the players' views are computed again only when what they are drawn from changed since the last call, or the
    memory did (``last``: what the last call returned; None at first). The same memory as ``remember`` after
    every event: with neither changed, ``remember`` would add nothing (the memory holds the views already)."""
    if not enabled(game):
        return None
    inputs = _view_inputs(game)
    if inputs != last:
        _remember(game)
        inputs = _view_inputs(game)
    return inputs


def _view_inputs(game: "Game") -> tuple:
    """What every player's view and memory are drawn from (``player_view``, ``token_view``, the lights): the
    objects themselves (kept alive, so an object is never taken for a new one at its address; a tuple compares
    the same object as equal at once, a new one by its content)."""
    m = game.maps.get(game.active_map)
    return (game.board, game.board.segments(), game.revealed, game.active_map,
            None if m is None else (m.ambient, tuple((lt.get("x"), lt.get("y"), lt.get("range"), lt.get("intensity", 1))
                                                      for lt in m.lights)),
            None if game.zones is None else tuple(
                (z["id"], tuple(z["box"]), tuple(z.get("adjacent", []))) for z in game.zones),
            tuple((t.id, t.owner, t.hidden, t.x, t.y, t.size, t.light) for t in game.tokens.values()
                  if t.owner or t.light),  # a player's token sees, a token's light lights; no other token counts
            tuple(game.players), tuple(game.explored.items()))


def _remember(game: "Game") -> None:
    for pid in {t.owner for t in game.tokens.values() if t.owner and t.owner in game.players}:
        known = game.explored.get(pid)
        if known is not None and _seen_all(game, pid, known):
            continue  # a view holds squares of the board and revealed ones only: nothing to add
        seen = player_view(game, pid)
        if known is None or not seen <= known:
            # a new set, not one grown in place: a page being drawn in another thread may be reading it; frozen,
            # as the fog layers key on it (``layer``: no copy of tens of thousands of squares at each move)
            game.explored[pid] = seen if known is None else cells_union(known, seen)


def _seen_all(game: "Game", pid: str, known: set) -> bool:
    """Whether a player's memory holds every square of the board and every square revealed now: then no view
    of theirs can add to it (a view is squares of the board and revealed ones), and it is not computed to be
    remembered (a fold of a long game on a small board: once a player saw all of it, half the views spared)."""
    board = game.board
    size = (board.width, board.height)
    if len(known) < size[0] * size[1] or not game.revealed <= known:
        return False
    vision = _vision(game)
    found = vision.whole.get(pid)
    if found is not None and found[0] == size and found[1] is known:
        return True  # a memory grows as a new set (``_remember``): the same object holds the same squares
    if not (isinstance(known, CellMask) and known.grid.shape == (size[1], size[0])) \
            and sum(1 for c in known if board.in_bounds(c)) < size[0] * size[1]:  # (a mask of the board: all on it)
        return False
    vision.whole[pid] = (size, known)
    return True


def known(game: "Game", actor: "Actor") -> Cells | None:
    """The squares this audience sees now or saw before; None when it knows the whole map."""
    if actor.role == "gm" or not enabled(game):
        return None
    return _cached(game, "known:" + actor.audience,
                   lambda: heavy.run(game.board, _memory_and_view, explored(game, actor), view(game, actor)))


def _memory_and_view(memory: Cells, seen: Cells) -> Cells:
    """The squares of ``memory`` or ``seen`` (pure: off the loop on a big board): the memory itself where it holds
    the view, as it does after every event (``remember``: a look through the view, not a copy of both)."""
    if seen <= memory:
        return memory if isinstance(memory, (frozenset, CellMask)) else frozenset(memory)
    return cells_union(memory, seen)


def _segments_by_cell(game: "Game") -> dict:
    """Square -> the ids of the walls and doors touching it; built once per board version."""
    vision = _vision(game)
    index = _index(game.board)
    if vision.board_index is not index:
        vision.board_index, vision.tokens = index, {}
    found = vision.tokens.get("segments by cell")
    if found is None:
        found = heavy.on_board(game.board, by_cell)
        if vision.board_index is index:
            vision.tokens["segments by cell"] = found
    return found


def _whole_board(board) -> dict:
    """``Board.to_dict`` once per version of the board, shared by every audience and update (read only).
    Kept in the board's own cache, which every change to the board empties (as movement's terrain table)."""
    if board.indexed("to_dict"):
        return _to_dict(board)
    return heavy.on_board(board, _to_dict)  # 10,000 walls: off the loop (#57)


def _to_dict(board) -> dict:
    return board.cached("to_dict", board.to_dict)


def board_view(game: "Game", actor: "Actor") -> dict:
    """The map as this audience may know it: with fog, only the walls, doors, blocking squares,
    terrain and cover of the squares it has seen (the rest of the map is not sent at all)."""
    cells = known(game, actor)
    whole = _whole_board(game.board)
    if cells is None:
        return whole

    def compute():
        return heavy.run(game.board, _seen_part, whole, _segments_by_cell(game), cells)
    return _cached(game, "board:" + actor.audience, compute)


def _seen_part(board: dict, by_cell: dict, cells: Cells) -> dict:
    """What of ``board`` (``Board.to_dict``'s) touches ``cells`` (pure: off the loop on a big board). The walls near
    them looked up from the smaller side: the squares a wall touches when fewer than the squares known (a big map
    seen whole, its walls in a part of it: a third of a fog switch's CPU went to reading every known square)."""
    if len(by_cell) < len(cells):
        near = {i for c, ids in by_cell.items() if c in cells for i in ids}
    else:
        near = {i for c in cells for i in by_cell.get(c, ())}
    return board | {
        "walls": [w for w in board["walls"] if w["id"] in near],
        "doors": [d for d in board["doors"] if d["id"] in near],
        "blocked": [c for c in board["blocked"] if tuple(c) in cells],
        "terrain": [t for t in board["terrain"] if (t[0], t[1]) in cells],
        "cover": [c for c in board["cover"] if tuple(c["cell"]) in cells],
    }


def known_board(game: "Game", actor: "Actor"):
    """The board as this audience knows it, for the questions it may ask of it (how far can my token go,
    is there a way there): the walls, doors, blocked squares and terrain of the squares it has seen, and
    every square it has not seen blocked. An answer computed on it tells nothing the audience does not
    know already. The GM's (and anyone's without fog) is the board itself."""
    cells = known(game, actor)
    if cells is None:
        return game.board

    def compute():
        # kept while the audience knows the same squares of the same board (the board's own cache, emptied by any
        # change to it): a move where nothing new comes into view asks again of the board and its indexes built
        # before (on the biggest map, a known board and its step masks were most of a move under fog)
        kept = game.board.cached("known boards", dict)
        found = kept.get(actor.audience)
        if found is not None and (found[0] is cells or found[0] == cells):
            return found[1]
        board = heavy.on_board(game.board, _board_known, board_view(game, actor), cells)
        kept[actor.audience] = (cells, board)
        return board
    return _cached(game, "known board:" + actor.audience, compute)


def _board_known(board, seen: dict, cells: Cells):
    """``board`` as ``seen`` (``board_view``'s) has it, with every square not in ``cells`` blocked
    (``rules.knownboard``: made from the board's own pieces, its refused steps from the board's; off the loop on a
    big board)."""
    return known_part(board, (w["id"] for w in seen["walls"]), (d["id"] for d in seen["doors"]),
                      (c["id"] for c in seen["cover"]), ~grid_of(cells, board.width, board.height))


def walls_stale(game: "Game", actor: "Actor") -> bool:
    """Whether this audience knows more squares than when its walls were last drawn."""
    cells = known(game, actor)
    return cells is not None and _vision(game).walls_known.get(actor.audience) != len(cells)


def walls_drawn(game: "Game", actor: "Actor") -> None:
    cells = known(game, actor)
    if cells is not None:
        _vision(game).walls_known[actor.audience] = len(cells)


def same_tokens_shown(game: "Game", actor: "Actor", since: int | None, shown: frozenset) -> bool:
    """Whether this audience's screens, brought up to date at seq ``since``, show these very tokens
    (so a move that brought none into view and took none out of it changes only the moved token).
    Known only when this process updated the audience at ``since`` (else: no, send them all)."""
    if since is None:
        return False
    return _vision(game).tokens_shown.get(actor.audience) == (since, shown)


def tokens_shown(game: "Game", actor: "Actor", shown: frozenset) -> None:
    """This audience's screens now show these tokens (at the game's seq)."""
    _vision(game).tokens_shown[actor.audience] = (game.seq, shown)


# --- drawing ---------------------------------------------------------------


def _grid(cells, width: int, height: int) -> np.ndarray:
    """``cells`` on the board marked in a grid of booleans (rows of ``width``; those off the board left out): a
    mask's own grid, a set's read in C (``rules.cellmask.grid_of``). Read only."""
    return grid_of(cells, width, height)


def _turns(grid: np.ndarray) -> tuple[list, list, list]:
    """Each run of marked squares in ``grid``'s rows: its row, first square and the square after it, where a row,
    padded with an unmarked square at each end, turns marked and unmarked again (in row order and left to right
    within a row, so the n-th start goes with the n-th end)."""
    height, width = grid.shape
    padded = np.zeros((height, width + 2), dtype=np.int8)
    padded[:, 1:-1] = grid
    turns = np.diff(padded, axis=1)
    rows, starts = np.nonzero(turns == 1)
    return rows.tolist(), starts.tolist(), np.nonzero(turns == -1)[1].tolist()


def _grid_runs(grid: np.ndarray) -> dict[int, list[tuple[int, int]]]:
    """Each row's runs of marked squares ``[x0, x1)`` in ``grid`` (the rows with none left out)."""
    out: dict[int, list[tuple[int, int]]] = {}
    for y, x0, x1 in zip(*_turns(grid)):
        found = out.get(y)
        if found is None:
            out[y] = [(x0, x1)]
        else:
            found.append((x0, x1))
    return out


def _grid_path(grid: np.ndarray) -> str:
    """``_path(_grid_runs(grid))`` in one pass: the runs come in row order, and left to right within a row, as the
    path writes them."""
    return "".join(f"M{x0} {y}h{x1 - x0}v1h{x0 - x1}z" for y, x0, x1 in zip(*_turns(grid)))


def _runs(cells, width: int, height: int) -> dict[int, list[tuple[int, int]]]:
    """Each row's runs of squares ``[x0, x1)`` among ``cells`` (the rows with none left out)."""
    return _grid_runs(_grid(cells, width, height))


def _path(runs: dict[int, list[tuple[int, int]]]) -> str:
    """One SVG path: a rectangle per run."""
    return "".join(f"M{x0} {y}h{x1 - x0}v1h{x0 - x1}z" for y in sorted(runs) for x0, x1 in runs[y])


def cells_path(cells, width: int, height: int) -> str:
    """One SVG path covering ``cells``: a rectangle per run of squares in a row."""
    return _grid_path(_grid(cells, width, height))


def layer(game: "Game", actor: "Actor") -> dict | None:
    """What the fog layer draws for this audience: ``dark`` (never seen), ``dim`` (seen before,
    not now) as SVG path data; the GM gets ``tint`` (what no player ever saw) and ``dim`` (what they
    saw but do not see now). None without fog. Cached per (seq, audience) like the views."""
    if not enabled(game):
        return None
    key = (game.seq, "layer:" + ("gm" if actor.role == "gm" else actor.audience))
    vision = _vision(game)
    found = vision.audiences.get(key)
    if found is not None:
        return found
    w, h = game.board.width, game.board.height
    if actor.role == "gm":
        seen, known = screen_view(game), explored(game, SCREEN_ACTOR)
    else:
        seen, known = view(game, actor), explored(game, actor)
    # drawn from the squares alone: the same squares give the same paths (an NPC's move changes
    # no player's view, so most moves redraw nothing); masks and frozensets hash once and compare in C
    frozen = known if isinstance(known, (frozenset, CellMask)) else frozenset(known)
    drawn_from = (actor.role == "gm", w, h, seen, frozen)
    out = vision.layers.get(drawn_from)
    if out is None:
        out = heavy.run(game.board, _layer, actor.role == "gm", seen, drawn_from[-1], w, h)
        if len(vision.layers) >= 64:
            vision.layers.clear()
        vision.layers[drawn_from] = out
    vision.audiences[key] = out
    return out


def _layer(gm: bool, seen: Cells, known: Cells, w: int, h: int) -> dict:
    """The fog layer's paths (``layer``) from what is seen now and what was seen before (pure: off the loop on a
    big board)."""
    now = _grid(seen, w, h)
    before = _grid(known, w, h) if known else now
    unseen = _grid_path(~(now | before))
    return {"dark": "" if gm else unseen, "tint": unseen if gm else "", "dim": _grid_path(before & ~now)}


def prepared_layer(board, fog_on: bool) -> dict | None:
    """The GM's fog layer over a map being prepared: with its fog on, all of it tinted (no player has
    seen any of it yet); with fog off, none. The active map's fog is not this map's."""
    if not fog_on:
        return None
    return {"dark": "", "dim": "", "tint": f"M0 0h{board.width}v{board.height}h-{board.width}z"}


class _Screen:
    role = "screen"
    player_id = None
    audience = "screen"


SCREEN_ACTOR = _Screen()
