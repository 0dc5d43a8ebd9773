"""Benchmark of fog of war: six player tokens on the rules benchmark's board (100 x 100, 1,000 walls).

Run: ``python3 bench/bench_fog.py [--quick]`` (from the repository root). One player token moves
to a square it has not stood on before; timed is everything the table recomputes for the fog:
the move's event applied (each player's view and explored memory), then the table screen's view.
Target (issue 12): at most 30 ms median. Also shown: the same with every audience's fog layer
drawn as SVG paths and the walls each audience knows picked out, and the six views computed from nothing (after a board edit). Not part of the
test run.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.bench_rules import make_board  # noqa: E402
from webapp.game.bridge import fog  # noqa: E402
from webapp.game.core.model import GM, SCREEN, Actor, Event, Token
from webapp.game.table import evolve, replay  # noqa: E402

TARGET_MS = 30
PLAYERS = 6


def make_game():
    """The rules benchmark's board, six players with a token each (the board's first six tokens),
    fog on; and the free squares the moving token goes to (the board's other tokens' squares)."""
    board, spots = make_board()
    events = [Event("game_created", {"name": "Fog bench", "system": "plain_grid", "board": board.to_dict()})]
    for i in range(PLAYERS):
        events.append(Event("player_joined", {"player_id": f"p{i + 1}", "name": f"Player {i + 1}", "key_hash": "x"}))
    for i in range(PLAYERS):
        x, y = spots[i]
        token = Token(id=f"t{i + 1}", name=f"Hero {i + 1}", x=x, y=y, owner=f"p{i + 1}", kind="pc")
        events.append(Event("token_added", {"token": token.to_dict()}))
    events.append(Event("fog_set", {"enabled": True}))
    return replay("bench", events), spots[PLAYERS:]


def measure(repeat: int = 20) -> dict:
    game, targets = make_game()
    audiences = [Actor("player", f"p{i + 1}") for i in range(PLAYERS)] + [SCREEN, GM]
    views, layers = [], []
    for n in range(repeat):
        x, y = targets[n % len(targets)]
        if n >= len(targets):  # every target used: a fresh game, so no view comes from the cache
            game, _ = make_game()
        token = game.tokens["t1"]
        move = Event("token_moved", {"token_id": "t1", "x": x, "y": y, "from": [token.x, token.y]})
        t0 = time.perf_counter()
        evolve(game, move)
        fog.screen_view(game)
        t1 = time.perf_counter()
        for actor in audiences:
            fog.layer(game, actor)
            fog.board_view(game, actor)
        t2 = time.perf_counter()
        views.append((t1 - t0) * 1000)
        layers.append((t2 - t0) * 1000)
    cold = []
    for _ in range(max(3, repeat // 4)):
        game.vision = None
        game.board._changed()  # as after an edit: every token's view is computed again
        t0 = time.perf_counter()
        for pid in range(1, PLAYERS + 1):
            fog.player_view(game, f"p{pid}")
        cold.append((time.perf_counter() - t0) * 1000)
    seen = statistics.median(len(fog.token_view(game, t)) for t in game.tokens.values())
    return {"move": views, "with_layers": layers, "cold": cold, "seen": seen}


def rows(f: dict) -> list[tuple[str, float, float, int | None]]:
    """(figure, median ms, slowest ms, target ms or None)."""
    return [
        ("fog after one move: 6 players' views + the screen's", statistics.median(f["move"]), max(f["move"]), TARGET_MS),
        ("  the same, with 8 audiences' fog layers and known walls", statistics.median(f["with_layers"]),
         max(f["with_layers"]), None),
        ("fog from cold (after a board edit): 6 players' views", statistics.median(f["cold"]), max(f["cold"]), None),
    ]


def main() -> None:
    f = measure(repeat=8 if "--quick" in sys.argv else 20)
    print(f"fog of war: 100 x 100 board, 1,000 walls, {PLAYERS} player tokens; squares seen per token "
          f"(median): {f['seen']:.0f}")
    print(f"{'figure':62s} {'median ms':>10s} {'max ms':>8s} {'target':>7s} {'ok':>3s}")
    for name, med, worst, target in rows(f):
        ok = "-" if target is None else ("yes" if med <= target else "NO")
        print(f"{name:62s} {med:10.2f} {worst:8.2f} {target if target else '-':>7} {ok:>3s}")


if __name__ == "__main__":
    main()
