"""The game every app figure plays: the fixed-seed 100 x 100 board of ``bench_rules`` (1,000 wall
segments, doors, pillars, terrain, cover) with 50 tokens, made through the JSON API.

``build`` takes ``call(method, path, body=None, token=None) -> (status, json)``, so the same game is
made in a live server (over HTTP) and in-process (Flask's test client).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass, field

from rules import movement

from .bench_rules import make_board

N_TOKENS = 50
N_PCS = 6  # the first tokens belong to the first players
N_HIDDEN = 4  # the last tokens are hidden from players and the table screen


@dataclass
class BenchGame:
    id: str
    gm: str  # keys
    screen: str
    join_code: str
    players: list[tuple[str, str]] = field(default_factory=list)  # (player id, key)
    tokens: list[str] = field(default_factory=list)
    movers: list[tuple[str, tuple[int, int], tuple[int, int]]] = field(default_factory=list)  # token, cell a, cell b


def board_and_cells():
    return make_board(n_tokens=N_TOKENS)


def mover_cells(board, cells, count: int) -> list[tuple[int, tuple[int, int], tuple[int, int]]]:
    """Visible NPC tokens that can step to a free neighbouring square and back: (index, a, b)."""
    taken = set(cells)
    found = []
    for i in range(N_PCS, len(cells) - N_HIDDEN):
        a = cells[i]
        for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
            b = (a[0] + dx, a[1] + dy)
            if not (0 <= b[0] < board.width and 0 <= b[1] < board.height) or b in taken or board.is_blocked(b):
                continue
            way = movement.shortest_path(board, a, b, "chebyshev")
            if way is not None and len(way[1]) == 2 and not board.cover_at(b):
                found.append((i, a, b))
                taken.add(b)
                break
        if len(found) == count:
            return found
    raise RuntimeError("the bench board has too few tokens that can step to a free square")


def build(call, n_players: int, n_movers: int = 4) -> BenchGame:
    board, cells = board_and_cells()

    def ok(status, body, what):
        if status not in (200, 201):
            raise RuntimeError(f"{what}: {status} {body}")
        return body

    g = ok(*call("POST", "/api/games", {"name": "bench", "system": "plain_grid", "map": board.to_dict()}), "new game")
    game = BenchGame(id=g["id"], gm=g["gm_token"], screen=g["screen_token"], join_code=g["join_code"])
    for i in range(n_players):
        p = ok(*call("POST", f"/api/games/{game.id}/players", {"join_code": game.join_code, "name": f"Player {i + 1}"}),
               "join")
        game.players.append((p["player_id"], p["player_token"]))
    for i, (x, y) in enumerate(cells):
        body = {"name": f"T{i + 1}", "x": x, "y": y}
        if i < min(N_PCS, n_players):
            body |= {"owner": game.players[i][0], "kind": "pc"}
        elif i >= len(cells) - N_HIDDEN:
            body["hidden"] = True
        t = ok(*call("POST", f"/api/games/{game.id}/tokens", body, game.gm), f"token {i}")
        game.tokens.append(t["id"])
    game.movers = [(game.tokens[i], a, b) for i, a, b in mover_cells(board, cells, n_movers)]
    return game


#: this process's command ids (``move``)
_COMMAND_IDS = itertools.count(1)


def move(token_id: str, cell) -> dict:
    """A move command as a phone's or the GM's page sends it (static/js/live.js): with a command id of its own,
    which the server stores with its events (and looks for in the log only when it may be a repeat)."""
    return {"type": "move_token", "token_id": token_id, "x": cell[0], "y": cell[1],
            "cid": f"bench-{os.getpid()}.{next(_COMMAND_IDS)}"}
