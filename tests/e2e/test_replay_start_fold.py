"""At the start of `tacmap serve` (#36), a long game with no replay checkpoints (made by an earlier version) is
folded in the background and its checkpoints kept, in slices: another table's moves are answered while it runs,
each far sooner than the whole fold takes, and the game's first jump then starts from a kept checkpoint."""

from __future__ import annotations

import statistics
import time

from bench.bench_replay import build
from conftest import LiveServer
from webapp import create_app
from webapp.game.core.model import GM
from webapp.storage import history as kept_folds

EVENTS = 3000


def timing_prelude(record):
    """The server as `tacmap serve`, with each background fold's start and end (``time.monotonic``: one clock for
    every process of the machine) written to ``record``, and the start's fold 3 s after the start (not 5)."""
    return (
        "from webapp.patching import patch\n"
        "patch()\n"
        "import time\n"
        "import webapp.live.replaying as replaying\n"
        "replaying.FOLD_OLD_AFTER = 3.0\n"
        "_warm = replaying.Replays._warm\n"
        "def timed(self, game_id):\n"
        "    t0 = time.monotonic()\n"
        "    _warm(self, game_id)\n"
        f"    with open({str(record)!r}, 'a') as f:\n"
        "        f.write(f'{game_id} {t0} {time.monotonic()}\\n')\n"
        "replaying.Replays._warm = timed\n")


def folded(record, game_id: str) -> list:
    """The folds of ``game_id`` the record holds (the other table's moves come fast: past ``WARM_FROM`` events by the
    start's fold, its log is long too, and it may be folded first)."""
    lines = [line.split() for line in (record.read_text().splitlines() if record.exists() else [])]
    return [parts for parts in lines if len(parts) == 3 and parts[0] == game_id]


def test_the_start_folds_an_old_long_game_in_the_background_and_other_tables_play_on(tmp_path):
    data = tmp_path / "data"
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "test", "DEMO": False})
    hub = app.extensions["tacmap"]
    old = build(hub, EVENTS)  # a long fight on a fogged board
    head = hub.store.last_seq(old)
    other = hub.create_game("The other table", "plain_grid")
    token = hub.execute(other.id, GM, {"type": "add_token", "name": "Runner", "x": 1, "y": 1}).events[0].data["token"]
    old_gm = hub.store.game(old).gm_key
    hub.store.close()
    kept_folds.forget_checkpoints(data, old)  # an earlier version's game: none kept (those written as it was played)
    assert kept_folds.load_checkpoints(data, old) is None

    record = tmp_path / "folds.txt"
    live = LiveServer(data, prelude=timing_prelude(record), demo=False)
    try:
        live.start()
        moves = []  # (sent, answered)
        i = 0
        deadline = time.monotonic() + 120
        while not folded(record, old) and time.monotonic() < deadline:
            i += 1
            t0 = time.monotonic()
            status, body = live.api("POST", f"/api/games/{other.id}/commands",
                                    {"type": "move_token", "token_id": token["id"], "x": 2 + i % 5, "y": 1},
                                    token=other.gm_key)
            moves.append((t0, time.monotonic()))
            assert status == 200, body
        assert folded(record, old), "the start did not fold the old game"
        (game_id, start, end), = folded(record, old)
        start, end = float(start), float(end)
        fold = end - start
        kept = kept_folds.load_checkpoints(data, old)
        assert kept["seq"] == head // 50 * 50 and kept["game_id"] == old
        # the fold took a while (a 3,000-event log with fog, folded whole); the other table was answered all along,
        # each move far sooner than the fold (a move that waited for the whole fold takes about as long as it)
        # the first move loads the other game (and the pages' templates): not counted
        during = [(t0, t1) for t0, t1 in moves[1:] if t1 > start and t0 < end]
        assert fold > 0.5, f"the fold took {fold:.2f} s: too short to tell"
        assert len(during) >= 3, f"{len(during)} moves answered during a {fold:.2f} s fold"
        waits = sorted(t1 - t0 for t0, t1 in during)
        assert waits[-1] < 0.5 * fold, f"a move waited {waits[-1]:.2f} s during a {fold:.2f} s fold"
        # and most moves did not wait for a slice of the fold at all (with no rest between slices each waits several)
        typical = statistics.median(waits)
        assert typical < 0.1 * fold, f"a typical move took {typical:.2f} s during a {fold:.2f} s fold"

        # the first jump into the old game: from a kept checkpoint, the game as it was then
        status, body = live.api("POST", f"/api/games/{old}/commands", {"type": "replay", "at": head - 10},
                                token=old_gm)
        assert status == 200, body
        assert body["replay"]["at"] == head - 10 and body["replay"]["head"] == head
        status, body = live.api("POST", f"/api/games/{old}/commands", {"type": "replay_end"}, token=old_gm)
        assert status == 200, body
    finally:
        live.kill()
