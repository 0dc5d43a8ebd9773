"""Profile the command side of a move: one GM ``move_token`` from the Socket.IO event to its ack.

Run: ``python -m bench.profile_command [--moves 200] [--screens 0] [--html out.html]`` (from the
repository root; ``pip install pyinstrument`` for the call tree, else cProfile's table is printed).

In-process, with Flask-SocketIO's test client (no network, no lanes: the test client runs each event
synchronously): the bench game (``scenario``, 8 players, 50 tokens, 1,000 walls), the GM's connection
moving four visible NPC tokens one square and back, with ``--screens`` table-screen connections
open. ``--no-broadcast`` leaves out the render and emit of the update (the
command side alone). Prints the CPU time per command (``time.process_time``: the whole command in this one thread),
the share of it spent in each step of the command path, and the profiler's call tree.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenario  # noqa: E402
from bench.bench_pages import test_client_call  # noqa: E402

#: the steps of one command, timed by wrapping the function that does each (module, attribute)
STEPS = [
    ("webapp.game.table", "parse_command", "parse (pydantic, text checks)"),
    ("webapp.game.table", "authorize", "authorize (access matrix)"),
    ("webapp.game.table", "decide", "decide (rules: the way)"),
    ("webapp.storage.store", "Store.begin_append", "store (SQLite commit)"),
    ("webapp.game.table", "evolve", "evolve"),
    ("webapp.live.screens.fanout", "Fanout.render_update", "render (the others' part sent as drawn)"),
    ("webapp.live.screens.fanout", "Fanout.send_update", "emit the update"),
]


@contextmanager
def timed_steps():
    """Wrap each step's function so that its CPU time adds up per step (callers see the same function)."""
    import importlib

    totals = {label: 0.0 for _m, _a, label in STEPS}
    undo = []
    for module_name, attr, label in STEPS:
        module = importlib.import_module(module_name)
        owner, name = (module, attr) if "." not in attr else (getattr(module, attr.split(".")[0]), attr.split(".")[1])
        original = getattr(owner, name)

        def wrapper(*args, _original=original, _label=label, **kwargs):
            t0 = time.process_time()
            try:
                return _original(*args, **kwargs)
            finally:
                totals[_label] += time.process_time() - t0

        setattr(owner, name, wrapper)
        undo.append((owner, name, original))
        # ``from ..game.table import decide`` in the live modules: the names there must be wrapped too
        for user in ("webapp.live.hub", "webapp.live.committing", "webapp.live.games"):
            user_module = importlib.import_module(user)
            if owner is module and getattr(user_module, name, None) is original:
                setattr(user_module, name, wrapper)
                undo.append((user_module, name, original))
    try:
        yield totals
    finally:
        for owner, name, original in reversed(undo):
            setattr(owner, name, original)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=200)
    parser.add_argument("--screens", type=int, default=0, help="table-screen connections open (one audience)")
    parser.add_argument("--html", default=None, help="write pyinstrument's HTML report here")
    parser.add_argument("--all", action="store_true", help="show every frame of the call tree (library ones too)")
    parser.add_argument("--no-broadcast", action="store_true",
                        help="leave out the update's render and emit (no audience): the command side alone")
    args = parser.parse_args()
    if args.no_broadcast:
        from webapp.live.presence import Presence

        Presence.audiences = lambda self, game: []  # nobody to draw the update for, nor send it to

    from webapp import create_app

    with tempfile.TemporaryDirectory(prefix="tacmap-profile-") as tmp:
        app = create_app({"DATA_DIR": tmp, "DEMO": False, "TESTING": True, "SECRET_KEY": "bench",
                          "DICE_SEED": "bench"})
        socketio = app.extensions["tacmap_socketio"]
        game = scenario.build(test_client_call(app.test_client()), n_players=8)
        gm = socketio.test_client(app, auth={"game": game.id, "token": game.gm}, flask_test_client=app.test_client())  # the laptop
        screens = [socketio.test_client(app, auth={"game": game.id, "token": game.screen})
                   for _ in range(args.screens)]
        at_b = {token: False for token, _a, _b in game.movers}

        def one(k: int) -> None:
            token, a, b = game.movers[k % len(game.movers)]
            at_b[token] = not at_b[token]
            ack = gm.emit("command", scenario.move(token, b if at_b[token] else a), callback=True)
            if not ack or not ack.get("ok"):
                raise RuntimeError(f"refused: {ack}")
            for c in [gm, *screens]:
                c.get_received()  # drop what arrived (the test client keeps every message)

        for k in range(20):  # warm-up: the board's indexes, the templates
            one(k)
        per = []
        with timed_steps() as totals:
            for k in range(args.moves):
                t0 = time.process_time()
                one(k)
                per.append((time.process_time() - t0) * 1000)
        total = sum(per)
        print(f"{args.moves} moves, {args.screens} screens: CPU per command median {statistics.median(per):.2f} ms, "
              f"mean {total / len(per):.2f} ms")
        for label, seconds in totals.items():
            print(f"  {label:<40} {seconds * 1000 / args.moves:6.2f} ms  ({seconds * 1000 / total:5.1%})")

        try:
            from pyinstrument import Profiler
        except ImportError:
            Profiler = None
        if Profiler is not None:
            profiler = Profiler(interval=0.0002)
            profiler.start()
            for k in range(args.moves):
                one(k)
            profiler.stop()
            print(profiler.output_text(unicode=False, color=False, show_all=args.all))
            if args.html:
                Path(args.html).write_text(profiler.output_html())
        else:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            prof.enable()
            for k in range(args.moves):
                one(k)
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(40)


if __name__ == "__main__":
    main()
