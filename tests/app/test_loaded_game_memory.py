"""A loaded game's memory is bounded by what its screens show, not by the commands it ever took (#72, G1).

Before, a game grew some 6 kB a command for as long as it stayed loaded (106 -> 358 MiB after a minute of a GM's
fastest commands): the replay's fold of its log (``webapp.live.replaying``: every event read back, the timeline's
moments twice, a pickled state every 50 events) stayed in memory after each live checkpoint had kept it on disk.
Now the fold leaves memory once kept (it is read back from the kept fold and the log when a replay, the timeline or
the recap asks), and a log line's html leaves the render cache with the line.

Measured as the objects the collector tracks (every dict, list, event, line of the timeline...) still alive
after a collection, their count and their own sizes: after ``FIRST`` commands, then after ``LATER`` more
(tracemalloc runs the same ten times slower: over 2,000 then 6,000 such commands it found 5.8 kB a command
before, mostly the replay's fold, and 10 bytes after). The bound, ``MOST_OBJECTS`` and ``MOST_BYTES`` (5 objects
and 100 bytes a command): what the game shows does not grow (two tokens, a fight, the log's last
``Game.LOG_KEEP`` lines), the process-wide caches with a fixed cap are filled by the first commands, and the
command ids a process remembers are not sent here (a fixed 20,000, ``committing.SEEN_CIDS_KEPT``). Before the
fix the same runs left ~29 objects and ~4.3 kB of them a command (42,957 objects, 6.4 MB); after, none."""

from __future__ import annotations

import gc
import sys

import pytest

from tests.helpers import connect, join, new_game, put_token
from webapp.game.table import empty_game, evolve
from webapp.game.views import replay_view
from webapp.live import allowance, replaying
from webapp.live.server import throttle

pytestmark = [pytest.mark.app_config(DEMO=False), pytest.mark.long]
FIRST, LATER = 1_000, 1_500  # commands before the first count, then before the second (1,000 and 2,500 in all)
MOST_OBJECTS, MOST_BYTES = 5 * LATER, 100 * LATER


def test_a_loaded_games_memory_does_not_grow_with_the_commands_it_took(app, hub, client, monkeypatch):
    clock = [0.0]

    def minute_later() -> float:  # every command a minute after the last: the log's budget is not what is measured
        clock[0] += 60.0
        return clock[0]

    hub.allowance = allowance.LogAllowance(clock=minute_later)
    hub.seats = throttle.Seats(rate=1e9, burst=10**9)
    monkeypatch.setattr(replaying, "LIVE_QUIET", 0.005)  # the live checkpoints' quiet moment, shorter
    g = new_game(client, name="Dice tower", board={"width": 12, "height": 12})
    mira = join(client, g, "Mira")
    aria = put_token(client, g, "Aria", (1, 1), mira["player_id"])
    goblin = put_token(client, g, "Goblin", (5, 5))
    gm, player = connect(app, g["id"], g["gm_token"]), connect(app, g["id"], mira["player_token"])

    def send(body: dict) -> None:
        ack = gm.emit("command", body, callback=True)
        assert ack.get("ok"), (body, ack)

    send({"type": "start_combat", "token_ids": [aria, goblin]})
    game = hub.game(g["id"])

    def play(count: int) -> None:  # the GM's fastest commands, as the page sends them, both screens hearing
        for i in range(count):
            kind = i % 3
            if kind == 0:
                send({"type": "roll", "expr": "3d6"})
            elif kind == 1:
                send({"type": "move_token", "token_id": goblin, "x": 11 - game.tokens[goblin].x, "y": 5})
            else:
                send({"type": "next_turn"})
            gm.get_received(), player.get_received()  # the screens take their updates in
            if i % 100 == 99:  # a table's pause: the replay's live checkpoint is taken and kept on disk
                checkpointed()

    def checkpointed() -> None:  # the live checkpoint due taken, kept and let go (its greenlet done with it)
        taking = hub.replays._checkpointing
        while hub.replays._due or (g["id"] in taking and taking[g["id"]].locked()):
            hub.socketio.sleep(0.005)

    def alive() -> tuple[int, int]:
        gm.get_received(), player.get_received()
        gc.collect()
        found = gc.get_objects()
        return len(found), sum(sys.getsizeof(o) for o in found)

    play(FIRST)
    objects, size = alive()
    play(LATER)
    more_objects, more_size = alive()
    more_objects, more_size = more_objects - objects, more_size - size
    assert game.seq >= FIRST + LATER
    assert more_objects < MOST_OBJECTS and more_size < MOST_BYTES, (
        f"{LATER} more commands left {more_objects} more objects, {more_size / 1e6:.1f} MB, in memory")

    # the replay as before, its fold read back from what was kept: the whole timeline, a jump
    assert g["id"] not in hub.replays._histories  # let go after the last live checkpoint
    whole = replay_view.History(g["id"], evolve, empty_game)
    whole.extend(hub.store.events(g["id"]))
    told = hub.replays.told(g["id"])
    assert [m.to_plain() for m in told.moments] == [m.to_plain() for m in whole.moments]
    ack = gm.emit("command", {"type": "replay", "at": game.seq - 30}, callback=True)
    assert ack["ok"] and ack["replay"]["at"] == game.seq - 30, ack
