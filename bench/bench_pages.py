"""Pages and the fragments of one move, in-process with Flask's test client.

Run: ``python3 -m bench.bench_pages`` (from the repository root). The game is the bench game
(``scenario``: 100 x 100 board, 1,000 wall segments, 50 tokens, 6 players). Each page is fetched
``repeat`` times with a browser's session cookie (the ``?key=`` link opened once first); the time is
the test client's round trip, which is the server's work with no network. For one move (a GM moving a
visible NPC token one square, alternating between two squares) it times ``render.fragments`` for each
audience alone, with the changes ``render.changes_for`` gives for the move's events, and the whole
update for every audience (GM, screen, 6 players) as ``Fanout.emit`` renders it (one dict of renders
shared by all). Targets: a page in 100 ms and 1 MB; a move's fragments in 5 ms and 4 KB per audience.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenario  # noqa: E402

PAGE_MS, PAGE_BYTES = 100.0, 1_000_000
FRAGMENT_MS, FRAGMENT_BYTES = 5.0, 4096


def test_client_call(client):
    def call(method, path, body=None, token=None):
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        r = client.open(path, method=method, json=body, headers=headers)
        return r.status_code, r.get_json(silent=True)

    return call


def measure(repeat: int = 20, moves: int = 40) -> dict:
    """``pages``: [(name, times ms, bytes)]; ``fragments``: [(audience, times ms, bytes)], each audience
    rendered alone; ``update``: (audiences, times ms of one move's fragments for all of them, as
    ``Fanout.emit`` renders them, sharing renders); ``join_info``: times ms of ``Hub.join_info`` (the join
    link, read once per update when a fragment shows it); ``board_to_dict``: times ms of ``Board.to_dict``
    (once per version of the board since the context is lazy)."""
    from webapp import create_app
    from webapp.live.screens import render
    from webapp.game.core.model import GM, SCREEN, Actor

    with tempfile.TemporaryDirectory(prefix="tacmap-bench-") as tmp:
        app = create_app({"DATA_DIR": tmp, "DEMO": False, "TESTING": True, "SECRET_KEY": "bench",
                          "DICE_SEED": "bench"})
        hub = app.extensions["tacmap"]
        game = scenario.build(test_client_call(app.test_client()), n_players=scenario.N_PCS)
        pages = []
        for name, path, key in (("GM page", "gm", game.gm), ("table screen", "screen", game.screen),
                                ("player page", "play", game.players[0][1])):
            browser = app.test_client()
            first = browser.get(f"/games/{game.id}/{path}?key={key}")
            if first.status_code != 302:
                raise RuntimeError(f"{name}: the key link answered {first.status_code}")
            times, size = [], 0
            for _ in range(repeat):
                t0 = time.perf_counter()
                r = browser.get(f"/games/{game.id}/{path}")
                times.append((time.perf_counter() - t0) * 1000)
                if r.status_code != 200:
                    raise RuntimeError(f"{name}: {r.status_code}")
                size = len(r.data)
            pages.append((name, times, size))

        token_id, a, b = game.movers[0]
        audiences = (("GM", GM), ("table screen", SCREEN), ("a player", Actor("player", game.players[-1][0])))
        everyone = [GM, SCREEN] + [Actor("player", pid) for pid, _key in game.players]
        frag = {name: ([], 0) for name, _ in audiences}
        join_times, board_times, update_times = [], [], []
        for i in range(moves):
            done = hub.execute(game.id, GM, scenario.move(token_id, b if i % 2 == 0 else a))
            state = hub.game(game.id)
            changes = render.changes_for(done.events, state)  # as Fanout.broadcast asks
            before = done.seq - len(done.events)
            for name, actor in audiences:
                with app.test_request_context():  # as in a Socket.IO handler (links in fragments)
                    t0 = time.perf_counter()
                    extra = hub.join_info(game.id)
                    t1 = time.perf_counter()
                    html = render.fragments(state, actor, changes, online=hub.online_players(game.id), extra=extra,
                                            since=before)
                    t2 = time.perf_counter()
                join_times.append((t1 - t0) * 1000)
                t3 = time.perf_counter()
                state.board.to_dict()  # what render.context did for each render before it was lazy
                board_times.append((time.perf_counter() - t3) * 1000)
                frag[name][0].append((t2 - t1) * 1000)
                frag[name] = (frag[name][0], len(html.encode()))
            # the whole update as Fanout.emit renders it: every audience (GM, screen, each player), one
            # dict of renders shared by all, so a fragment that several audiences see alike is rendered once
            with app.test_request_context():
                t0 = time.perf_counter()
                renders: dict = {}
                for actor in everyone:
                    render.fragments(state, actor, changes, online=hub.online_players(game.id),
                                     extra=hub.fanout.shown_to_all(game.id), renders=renders, since=before)
                update_times.append((time.perf_counter() - t0) * 1000)
        return {"pages": pages, "fragments": [(n, t, s) for n, (t, s) in frag.items()], "join_info": join_times,
                "board_to_dict": board_times, "update": (len(everyone), update_times)}


def main() -> None:
    f = measure()
    print(f"{'what':<34} {'median ms':>10} {'bytes':>10}")
    for name, times, size in f["pages"]:
        print(f"{name:<34} {statistics.median(times):>10.2f} {size:>10,}   target {PAGE_MS:.0f} ms, 1 MB")
    for name, times, size in f["fragments"]:
        print(f"{'move fragments, ' + name:<34} {statistics.median(times):>10.2f} {size:>10,}   "
              f"target {FRAGMENT_MS:.0f} ms, 4 KB")
    n, times = f["update"]
    print(f"{f'one move, all {n} audiences':<34} {statistics.median(times):>10.2f}")
    print(f"{'join_info (once per update, if shown)':<34} {statistics.median(f['join_info']):>10.2f}")
    print(f"{'board.to_dict (once per board)':<34} {statistics.median(f['board_to_dict']):>10.2f}")


if __name__ == "__main__":
    main()
