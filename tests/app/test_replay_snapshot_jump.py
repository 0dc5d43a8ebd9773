"""The replay's cold first jump (#36) on the bench's 5,000-event game with fog (bench/bench_replay.py's ``build``):
an old game (no fold of the replay kept) jumped to right after a server started.

- Every snapshot the live server wrote as the game was played (every ``SNAPSHOT_EVERY`` events) is the log folded
  from its first event up to its seq, the fog's explored memory included: the replay may start from one.
- The fold's memory (kept only where it can change, a player who saw the whole board spared) is every player's
  views after every event, united: computed here the plain way, with no shortcut.
- A jump to the newest event starts from the store's snapshot: no fold of the whole log with fog, the state the
  fold's; the timeline is told without folding a state. A snapshot an earlier version wrote (less in it than this
  version keeps: no fog memory) is not taken, nor one of another seq: the log is folded then.
"""

from __future__ import annotations

import json

import pytest

from bench.bench_replay import build
from webapp import create_app
from webapp.game.bridge import fog
from webapp.game.views import replay_view
from webapp.game.core.model import GM
from webapp.game.table import empty_game, evolve, replay
from webapp.live.screens import language
from webapp.live.committing import SNAPSHOT_EVERY
from webapp.storage import history as kept_folds


def new_app(folder):
    return create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False})


def plain(x):
    return json.loads(json.dumps(x))


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """The bench's game played through the hub (5,004 events), every snapshot the hub wrote as it was written."""
    folder = tmp_path_factory.mktemp("snapshot-jump")
    app = new_app(folder)
    hub = app.extensions["tacmap"]
    written = []
    save = hub.store.save_snapshot

    def keep(game_id, seq, state):
        written.append((seq, plain(state)))
        save(game_id, seq, state)

    hub.store.save_snapshot = keep
    gid = build(hub)
    hub.store.save_snapshot = save
    events = hub.store.events(gid)
    return folder, gid, events, [(s, state) for s, state in written if state["id"] == gid]


@pytest.fixture(scope="module")
def whole_fold(played):
    """The state after the last event, the whole log folded from its start the plain way (``table.replay``), as
    plain data: what several tests compare with, folded once for them (the fold is the same each time)."""
    _folder, gid, events, _written = played
    return plain(replay(gid, events).to_dict())


def test_every_snapshot_written_as_played_is_the_log_folded_up_to_it(played):
    _folder, gid, events, written = played
    assert len(events) >= 5000 and [s for s, _state in written] == list(range(SNAPSHOT_EVERY, len(events) + 1,
                                                                                SNAPSHOT_EVERY))
    history = replay_view.History(gid, evolve, empty_game)  # no snapshot offered: the log folded from its start
    history.extend(events)
    for seq, state in written:
        assert plain(history.state_at(seq).to_dict()) == state, seq
    last = written[-1][1]
    assert last["fog_on"] and len(last["explored"]) == 2 and all(last["explored"].values())


def test_the_folds_memory_is_every_players_views_after_every_event(played, whole_fold):
    _folder, gid, events, written = played
    seen: dict[str, set] = {}
    game = empty_game(gid)
    with fog.without_memory():  # the memory made here, the plain way: each player's view after each event
        for _seq, _event, game in replay_view.steps(game, events, evolve):
            if fog.enabled(game):
                for pid in {t.owner for t in game.tokens.values() if t.owner and t.owner in game.players}:
                    seen.setdefault(pid, set()).update(fog.player_view(game, pid))
    history = replay_view.History(gid, evolve, empty_game)
    history.extend(events)
    history.fold_to(len(events))
    assert {pid: set(cells) for pid, cells in history.state.explored.items()} == seen  # (a memory is a mask)
    board = history.state.board
    # one player saw the whole board early on (the fold computes their views no more), the other did not
    assert sorted(len(cells) for cells in seen.values())[-1] == board.width * board.height
    assert sorted(len(cells) for cells in seen.values())[0] < board.width * board.height
    assert plain(history.state.to_dict()) == whole_fold


@pytest.mark.long
def test_a_cold_jump_to_the_newest_event_starts_from_the_snapshot(played, whole_fold):
    folder, gid, events, written = played
    kept_folds.forget_checkpoints(folder, gid)  # an old game: no fold of the replay kept
    app = new_app(folder)  # a server started again
    hub = app.extensions["tacmap"]
    head = len(events)
    answer = hub.execute(gid, GM, {"type": "replay", "at": head, "on": ["gm", "screen"]})
    history = hub.replays.history(gid)
    assert history.folded == 0 and history.told == head  # the state from the snapshot, the timeline told
    assert plain(history.state_at(head).to_dict()) == whole_fold
    folded = replay_view.History(gid, evolve, empty_game)
    folded.extend(events)
    assert history.moments == folded.moments
    assert answer.reply["replay"]["banner"] == language.words(replay_view.banner(folded, head, GM))
    for seq in (written[-1][0] + 1, written[-1][0]):  # from the snapshot's own seq on
        assert plain(history.state_at(seq).to_dict()) == plain(folded.state_at(seq).to_dict())
    assert history.folded == 0
    # a jump before the snapshot folds the log up to it (with its checkpoints)
    mid = head // 2 + 3
    assert plain(history.state_at(mid).to_dict()) == plain(folded.state_at(mid).to_dict())
    assert history.folded == mid
    hub.execute(gid, GM, {"type": "replay_end"})
    assert hub.store.last_seq(gid) == head, "a replay stores nothing"


def test_the_timeline_is_told_without_folding_a_state(played):
    folder, gid, events, _written = played
    kept_folds.forget_checkpoints(folder, gid)
    app = new_app(folder)
    hub = app.extensions["tacmap"]
    gm = app.test_client()
    gm.get(f"/games/{gid}/gm?key={hub.store.game(gid).gm_key}")
    r = gm.get(f"/games/{gid}/timeline")
    assert r.status_code == 200 and r.json["head"] == len(events)
    history = hub.replays.history(gid)
    assert history.folded == 0 and history.told == len(events)  # no state folded for it
    folded = replay_view.History(gid, evolve, empty_game)
    folded.extend(events)
    assert r.json["moments"] == plain([m.to_dict(GM) for m in folded.timeline(GM)])
    assert len(r.json["moments"]) > 1000


@pytest.mark.parametrize("change", ["no fog memory", "another seq"])
def test_a_snapshot_this_version_did_not_write_is_not_taken(played, whole_fold, change):
    folder, gid, events, written = played
    kept_folds.forget_checkpoints(folder, gid)
    app = new_app(folder)
    hub = app.extensions["tacmap"]
    seq, state = written[-1]
    state = dict(state)
    if change == "no fog memory":  # an earlier version's snapshot: it kept no explored memory
        del state["explored"]
    else:  # a state that is not the one after its seq
        state["seq"] = seq - 1
    db = hub.store._db
    db.execute("UPDATE snapshots SET state = ? WHERE game_id = ?", (json.dumps(state), gid))
    db.commit()
    try:
        head = len(events)
        hub.execute(gid, GM, {"type": "replay", "at": head, "on": ["gm"]})
        history = hub.replays.history(gid)
        assert history.folded == head  # the log folded: the snapshot was not taken
        assert plain(history.state_at(head).to_dict()) == whole_fold
    finally:
        db.execute("UPDATE snapshots SET state = ? WHERE game_id = ?", (json.dumps(written[-1][1]), gid))
        db.commit()


def test_a_history_let_go_is_freed_at_once(played):
    """A game's folded log that the server lets go (the least recently used of ``KEEP_HISTORIES``) is freed when it
    is let go: nothing of it in a cycle, so the cycle collector does not walk its thousands of objects later, in
    the middle of another table's request (the next jump's)."""
    import gc
    import weakref

    folder, gid, events, _written = played
    app = new_app(folder)
    hub = app.extensions["tacmap"]
    hub.execute(gid, GM, {"type": "replay", "at": len(events) // 2, "on": ["gm"]})
    found = weakref.ref(hub.replays.history(gid))
    assert found().folded == len(events) // 2
    was = gc.isenabled()
    gc.disable()
    try:
        hub.replays._histories.clear()
        assert found() is None
    finally:
        if was:
            gc.enable()


def test_the_folds_views_are_made_of_one_tuple_per_square(played):
    """The views a fold computes (hundreds of squares each, a hundred positions and more) share one tuple object per
    square, so what the cycle collector walks after a cold first jump grows with the board, not with the views."""
    _folder, gid, events, _written = played
    history = replay_view.History(gid, evolve, empty_game)
    history.extend(events)
    history.fold_to(len(events) // 2)
    views = [cells for key, cells in history.state.vision.tokens.items() if key[0] != "reach"]
    assert len(views) > 50 and sum(len(v) for v in views) > 20_000
    board = history.state.board
    assert len({id(c) for v in views for c in v}) <= board.width * board.height
    assert {id(c) for cells in history.state.explored.values() for c in cells} <= {id(c) for v in views for c in v}
