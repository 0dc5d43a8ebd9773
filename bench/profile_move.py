"""Profile one move from command to last fragment, in-process (no network).

Run: ``python -m bench.profile_move [--moves N] [--players P] [--fog] [--languages en,de,es] [--evict MB] [--html FILE]
[--broadcast-only]``
(from the repository root; needs ``pip install pyinstrument``, the ``bench`` extra).

Builds the bench game (``scenario``: 100 x 100 board, 1,000 wall segments, 50 tokens) with Flask's
test client, seats the players and opens one connection per audience (the GM, the table screen and
every player: ``Presence.session_opened`` with made-up sids, so ``Fanout.emit`` renders for each of them as
for real screens), then runs N GM moves of a visible NPC token through ``Hub.execute``: parse,
authorize, decide, the SQLite commit, evolve and the broadcast (``socketio.emit`` goes to the app's
real SocketIO object, which has no clients here, so it costs what the server's own work costs).
``--broadcast-only`` profiles ``Fanout.broadcast`` alone (the render and emit side), run on the events
of moves done outside the profile.

Prints the CPU time per move (process time, far less noisy than wall time on a shared machine) and
the pyinstrument profile (text, or ``--html FILE``).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import scenario  # noqa: E402
from bench.bench_pages import test_client_call  # noqa: E402


def setup(tmp: str, players: int, fog_on: bool = False, languages: tuple[str, ...] = ()):
    """The app, its hub and the bench game with one open connection per audience; ``languages``: the
    connections' languages, dealt in turn to the GM, the table screen and the players (as bench_propagation)."""
    from webapp import create_app
    from webapp.game.core.model import GM, SCREEN, Actor

    app = create_app({"DATA_DIR": tmp, "DEMO": False, "TESTING": True, "SECRET_KEY": "bench",
                      "DICE_SEED": "bench"})
    hub = app.extensions["tacmap"]
    game = scenario.build(test_client_call(app.test_client()), n_players=players)
    if fog_on:
        hub.execute(game.id, GM, {"type": "set_fog", "enabled": True})
    actors = [GM, SCREEN] + [Actor("player", pid) for pid, _key in game.players]
    with app.test_request_context():  # as in a Socket.IO connect handler
        for i, actor in enumerate(actors):
            hub.presence.session_opened(f"bench-sid-{i}", game.id, actor,
                               languages[i % len(languages)] if languages else "en")
    return app, hub, game


class Evictor:
    """What runs between two moves in ``--evict`` mode: ``mb`` MiB written a byte per cache line, then Python work on
    objects of its own (20,000 random lookups in a dict of 200,000 strings), so the move that follows finds its code,
    its objects and the interpreter's own data out of the CPU's caches."""

    def __init__(self, mb: int) -> None:
        import random

        self.junk = bytearray(mb * 1024 * 1024)
        self.table = {i: str(i) for i in range(200_000)}
        self.random = random.Random(0)

    def __call__(self) -> int:
        junk = self.junk
        for i in range(0, len(junk), 64):
            junk[i] = (junk[i] + 1) & 255
        return sum(len(self.table[k]) for k in self.random.sample(range(200_000), 20_000))


def _pstats_text(pstats, profiler) -> str:
    import io

    out = io.StringIO()
    pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(45)
    return out.getvalue()


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--moves", type=int, default=200)
    p.add_argument("--players", type=int, default=8, help="players seated and connected (default 8: 10 audiences)")
    p.add_argument("--fog", action="store_true", help="fog of war on")
    p.add_argument("--languages", default="", metavar="L1,L2",
                   help="the connections' languages, dealt in turn (e.g. en,de,es: three at the table); default en")
    p.add_argument("--history", type=int, default=0, metavar="N",
                   help="N moves before the measured ones (a long game: its log has N more entries)")
    p.add_argument("--evict", type=int, default=0, metavar="MB",
                   help="before each move, write MB MiB and look up 20,000 keys of a big dict (the caches taken, as "
                        "by the bare server and the clients between two blocks of the propagation benchmark): each "
                        "move measured cold, as a block's first move (docs/SERVING.md)")
    p.add_argument("--broadcast-only", action="store_true", help="profile Fanout.broadcast alone")
    p.add_argument("--html", metavar="FILE", help="write pyinstrument's HTML page here instead of printing text")
    p.add_argument("--no-profile", action="store_true", help="only the CPU time per move (no profiler overhead)")
    p.add_argument("--cprofile", action="store_true",
                   help="cProfile on CPU time instead of pyinstrument (which samples wall time: on a busy machine "
                        "the time the process waits for a core lands on whatever line it was on)")
    args = p.parse_args(argv)

    from webapp.live.screens import render
    from webapp.game.core.model import GM

    with tempfile.TemporaryDirectory(prefix="tacmap-profile-") as tmp:
        languages = tuple(x for x in args.languages.split(",") if x)
        app, hub, game = setup(tmp, args.players, args.fog, languages)
        # a Socket.IO handler runs in a request context (links in fragments are built from it); the GM's browser on
        # the laptop itself, as at a table (the game's log budget is the server's own machine's: #57)
        request = app.test_request_context(environ_base={"REMOTE_ADDR": "127.0.0.1"})
        request.push()
        token_id, a, b = game.movers[0]
        step = {"i": 0}

        def move():
            step["i"] += 1
            return hub.execute(game.id, GM, scenario.move(token_id, b if step["i"] % 2 else a))

        for _ in range(5 + args.history):  # warm up: templates compiled, caches filled (and a history)
            move()

        if args.broadcast_only:
            state = hub.game(game.id)
            done = move()
            before = done.seq - len(done.events)

            def run():
                hub.fanout.broadcast(state, before, done.events)
        else:
            run = move

        profiler = None
        if args.cprofile:
            import cProfile
            import pstats

            profiler = cProfile.Profile(time.process_time)
            profiler.output_text = lambda **_: _pstats_text(pstats, profiler)
            profiler.output_html = None
        elif not args.no_profile:
            try:
                from pyinstrument import Profiler
            except ImportError:
                sys.exit("pyinstrument is not installed: pip install pyinstrument (or the 'bench' extra), "
                         "or run with --no-profile")
            profiler = Profiler(interval=0.0005)
        evict = Evictor(args.evict) if args.evict else None
        cpu = wall = 0.0
        for _ in range(args.moves if evict else 1):  # cold: each move measured (and profiled) alone, after the evictor
            if evict:
                evict()
            cpu0, wall0 = time.process_time(), time.perf_counter()
            if profiler:
                profiler.enable() if args.cprofile else profiler.start()
            for _ in range(1 if evict else args.moves):
                run()
            if profiler:
                profiler.disable() if args.cprofile else profiler.stop()
            cpu, wall = cpu + time.process_time() - cpu0, wall + time.perf_counter() - wall0
        what = "Fanout.broadcast of one move" if args.broadcast_only else "Hub.execute of one move (with its broadcast)"
        audiences = len(hub.presence.audiences(hub.game(game.id)))
        print(f"{what}, {audiences} audiences{', fog on' if args.fog else ''}{', cold' if evict else ''}"
              f"{', languages ' + '/'.join(languages) if languages else ''}: "
              f"{cpu * 1000 / args.moves:.2f} ms CPU, {wall * 1000 / args.moves:.2f} ms wall per move "
              f"({args.moves} moves{', profiler on' if profiler else ''})")
        changes = render.changes_for(move().events, hub.game(game.id))
        print(f"changes of a move: {sorted(changes)}")
        if profiler:
            if args.html and not args.cprofile:
                Path(args.html).write_text(profiler.output_html())
                print(f"profile written to {args.html}")
            else:
                print(profiler.output_text(unicode=True, color=False, show_all=False))


if __name__ == "__main__":
    main()
