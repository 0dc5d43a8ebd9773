"""The replay's jump to an event (issue #36) on a 5,000-event game, in-process (no server).

Run: ``python3 -m bench.bench_replay``. The game is played through the hub as the GM would (a 30 x 30
board with fog, 8 tokens of which 2 hidden, a fight of moves, attacks and turns) until its log holds
5,000 events; the server writes the replay's checkpoints as it is played (every ``LIVE_EVERY`` events, at quiet moments).
Figures: the first jump on that game played live (from its checkpoints written as played), the first jump of
a server started again (from those kept on disk, to the newest event and to a random one), the game exported and
imported as ``tacmap import`` does (its checkpoints folded at import: the import's and the fold's times, then its
first jumps on a server that never served it), the cold first jump (an old game imported by an earlier version: log
never folded, no checkpoint kept; the log is folded up to the event asked, or from the store's snapshot when it is
nearer, to a random one and to the newest), the fold a GM page's connection runs ahead in the background on such a game and
the first jump after it, the first jump of a server started again after that fold, then later jumps to random
events: the state at that event (nearest checkpoint + fold), and the whole ``replay`` command (state + the GM's
and the table screen's fragments rendered). Target: a jump under 300 ms on the GM page (issue #36).
"""

from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

N_EVENTS = 5_000
JUMP_MS = 300.0


def build(hub, n_events: int = N_EVENTS) -> str:
    """A game whose log holds ``n_events`` events: a long fight on a fogged 30 x 30 board."""
    from rules.board import Board
    from webapp.game.core.model import GM
    from webapp.game.core.model import Rejected

    from webapp.game.tableside.seats import player_joined

    record = hub.create_game("Replay bench", "plain_grid", board=Board(30, 30))
    gid = record.id
    run = lambda payload: hub.execute(gid, GM, payload)  # noqa: E731
    for name in ("Mira", "Theo"):  # two seats whose tokens see through the fog (their memory grows each event)
        game = hub.game(gid)
        hub.commit(gid, lambda g, name=name: [player_joined(g, name, f"{name}-key")])
    seats = list(hub.game(gid).players)
    run({"type": "add_wall", "a": [15, 0], "b": [15, 20]})
    ids = []
    for i in range(8):
        tok = {"type": "add_token", "name": f"T{i}", "x": 3 + 3 * i, "y": 3 + (i % 2) * 10}
        if i < 2:
            tok["owner"] = seats[i]
        if i >= 6:
            tok["hidden"] = True
        try:
            ids.append(run(tok).events[0].data["token"]["id"])
        except Rejected:
            tok.pop("hidden", None)
            ids.append(run(tok).events[0].data["token"]["id"])
    run({"type": "set_fog", "enabled": True})
    run({"type": "start_combat", "token_ids": ids[:6]})
    rng = random.Random(36)
    while hub.store.last_seq(gid) < n_events:
        game = hub.game(gid)
        current = game.tokens[game.combat["current"]]
        for _ in range(3):
            x = min(29, max(0, current.x + rng.choice((-1, 0, 1))))
            y = min(29, max(0, current.y + rng.choice((-1, 0, 1))))
            try:
                run({"type": "move_token", "token_id": current.id, "x": x, "y": y, "force": True})
            except Rejected:
                pass
        run({"type": "roll", "expr": "1d20"})
        run({"type": "next_turn"})
    return gid


def wait_for_live_checkpoints(hub, gid: str, head: int, timeout: float = 120.0) -> None:
    """Until the checkpoints written as the game was played (background tasks) reach the last one before ``head``."""
    from webapp.live.replaying import LIVE_EVERY
    from webapp.storage.history import load_checkpoints

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        kept = load_checkpoints(hub.app.config["DATA_DIR"], gid)
        if kept is not None and kept["seq"] >= head // LIVE_EVERY * LIVE_EVERY:
            return
        hub.socketio.sleep(0.05)  # the background tasks' turn (greenlets, as under `tacmap serve`)
    raise RuntimeError("the checkpoints written as played were not kept")


def measure(jumps: int = 20, n_events: int = N_EVENTS) -> dict:
    """Figures in ms: ``live_first_ms`` (the first jump, to a random event, on the game as played: its checkpoints
    written as it was played), ``live_restart_ms`` and ``live_restart_random_ms`` (a server started again: its
    first jump to the newest event, and to a random one, from those checkpoints kept on disk), ``first_ms`` (the first jump into the game, to a random event: nothing folded yet, the log
    folded up to that event, or from the store's snapshot when it is nearer), ``first_head_ms`` (the same to the newest
    event: from the snapshot the live server wrote last, or the whole log folded when there is none),
    ``first_cpu_ms`` and ``first_head_cpu_ms`` (the process's CPU time of those two), ``fold_ahead_ms`` (the fold a GM page's connection starts in the background), ``warm_first_ms`` (the
    first jump once that fold is done), ``restart_first_ms`` (a server started again: its first jump, to the
    newest event, from the fold kept on disk), ``state_ms`` and ``command_ms`` (later jumps: the state alone, the
    whole ``replay`` command with the GM's and the table screen's fragments)."""
    from webapp import create_app
    from webapp.game.core.model import GM
    from webapp.storage.history import forget_checkpoints

    with tempfile.TemporaryDirectory() as folder:
        app = create_app({"DATA_DIR": folder, "TESTING": True, "SECRET_KEY": "bench", "DEMO": False})
        hub = app.extensions["tacmap"]
        gid = build(hub, n_events)
        head = hub.store.last_seq(gid)
        replay = lambda at: hub.execute(gid, GM, {"type": "replay", "at": at, "on": ["gm", "screen"]})  # noqa: E731

        cpu = {}

        def timed(run, name: str | None = None) -> float:
            """The wall-clock ms of ``run()``; the process's CPU ms too under ``name`` (what a loaded machine does
            not stretch)."""
            t0, c0 = time.perf_counter(), time.process_time()
            run()
            if name:
                cpu[name] = (time.process_time() - c0) * 1000
            return (time.perf_counter() - t0) * 1000

        # the pages' templates compiled first (a server that served the GM page has them): a small game's replay
        small = hub.create_game("Warm-up", "plain_grid").id
        hub.execute(small, GM, {"type": "replay", "at": 1, "on": ["gm", "screen"]})
        hub.execute(small, GM, {"type": "replay_end"})
        rng = random.Random(7)
        first_at = rng.randint(1, head)
        wait_for_live_checkpoints(hub, gid, head)
        live_first_ms = timed(lambda: replay(first_at))  # the checkpoints written as played, in memory
        hub.replays._histories.clear()  # a server started again: those kept on disk
        hub.replays._kept.clear()
        live_restart_ms = timed(lambda: replay(head))
        hub.replays._histories.clear()
        hub.replays._kept.clear()
        live_restart_random_ms = timed(lambda: replay(first_at))
        # the game exported and imported as `tacmap import` does (the replay's checkpoints folded at import), then
        # its first jump on the server (which never saw it: it takes them from the data folder)
        from webapp.storage.archive import export_game, import_game
        from webapp.storage.history import fold_imported

        game_file = Path(folder) / "bench-export.tacmap"
        export_game(Path(folder), gid, game_file)
        t0 = time.perf_counter()
        copy = import_game(Path(folder), game_file, new_id=True).game_id
        import_ms = (time.perf_counter() - t0) * 1000
        import_fold_ms = timed(lambda: fold_imported(folder, copy))
        imported_first_ms = timed(lambda: hub.execute(copy, GM, {"type": "replay", "at": first_at, "on": ["gm", "screen"]}))
        hub.execute(copy, GM, {"type": "replay_end"})
        hub.replays._histories.pop(copy, None)
        imported_head_ms = timed(lambda: hub.execute(copy, GM, {"type": "replay", "at": head, "on": ["gm", "screen"]}))
        hub.execute(copy, GM, {"type": "replay_end"})
        # an old game with no checkpoint kept (one imported by an earlier version): never folded yet
        hub.replays._histories.clear()
        hub.replays._kept.clear()
        forget_checkpoints(folder, gid)
        first_ms = timed(lambda: replay(first_at), "first_cpu_ms")
        hub.replays._histories.clear()
        first_head_ms = timed(lambda: replay(head), "first_head_cpu_ms")
        forget_checkpoints(folder, gid)
        hub.replays._histories.clear()
        fold_ahead_ms = timed(lambda: hub.replays._warm(gid))  # what a GM page's connection runs in the background
        history = hub.replays.history(gid)
        assert history.folded == head
        warm_first_ms = timed(lambda: replay(first_at))
        # a server started again: its first jump takes the fold the last one kept in the data folder
        hub.replays._histories.clear()
        hub.replays._kept.clear()
        restart_first_ms = timed(lambda: replay(head))
        assert hub.replays.history(gid).folded == head
        history = hub.replays.history(gid)
        targets = [rng.randint(1, head) for _ in range(jumps)]
        state_ms = [timed(lambda at=at: history.state_at(at)) for at in targets]
        command_ms = [timed(lambda at=at: replay(at)) for at in targets]
        hub.execute(gid, GM, {"type": "replay_end"})
        assert hub.store.last_seq(gid) == head, "a replay appended to the log"
        return {"events": head, "first_at": first_at, "live_first_ms": live_first_ms,
                "live_restart_ms": live_restart_ms, "live_restart_random_ms": live_restart_random_ms,
                "first_ms": first_ms, "first_head_ms": first_head_ms, "import_ms": import_ms,
                "import_fold_ms": import_fold_ms, "imported_first_ms": imported_first_ms,
                "imported_head_ms": imported_head_ms,
                "fold_ahead_ms": fold_ahead_ms, "warm_first_ms": warm_first_ms, "restart_first_ms": restart_first_ms,
                "state_ms": state_ms,
                "command_ms": command_ms} | cpu


def main() -> None:
    f = measure()
    print(f"{f['events']} events. Played live (checkpoints written as played): first jump to event {f['first_at']} "
          f"{f['live_first_ms']:.0f} ms; after a restart, first jump to the newest {f['live_restart_ms']:.0f} ms, "
          f"to event {f['first_at']} {f['live_restart_random_ms']:.0f} ms.")
    print(f"Imported (tacmap import: the game file read and stored {f['import_ms']:.0f} ms, its replay checkpoints "
          f"folded and kept {f['import_fold_ms']:.0f} ms): first jump to event {f['first_at']} "
          f"{f['imported_first_ms']:.0f} ms, to the newest {f['imported_head_ms']:.0f} ms (target < {JUMP_MS:.0f} ms).")
    print(f"Old game with no checkpoint (imported by an earlier version): cold first jump (nothing folded) to event {f['first_at']} {f['first_ms']:.0f} ms "
          f"(CPU {f['first_cpu_ms']:.0f} ms), to the newest {f['first_head_ms']:.0f} ms (CPU {f['first_head_cpu_ms']:.0f} ms); fold ahead (a GM page connected) {f['fold_ahead_ms']:.0f} ms, "
          f"then the first jump {f['warm_first_ms']:.0f} ms; after a restart (fold kept on disk) the first jump "
          f"{f['restart_first_ms']:.0f} ms; later jumps: state median "
          f"{statistics.median(f['state_ms']):.1f} ms, max {max(f['state_ms']):.1f} ms; replay command (state + GM "
          f"and screen fragments) median {statistics.median(f['command_ms']):.1f} ms, max {max(f['command_ms']):.1f} ms "
          f"(target < {JUMP_MS:.0f} ms)")


if __name__ == "__main__":
    main()
