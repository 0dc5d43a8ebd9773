"""The replay's fold kept between runs (#36): ``History.export`` (plain JSON data) taken back by a new
``History.restore`` gives the same states at every event and the same timeline as a fold from the first event,
folds on from there, and is refused for another log (a log cut and played on differently, another game)."""

from __future__ import annotations

import json

import pytest

from webapp.game.views import replay_view
from webapp.game.core.model import GM, Event
from webapp.game.table import empty_game, evolve, replay
from webapp.storage import history as kept_folds

from test_replay_history import play_a_fight


def plain(x):
    return json.loads(json.dumps(x))


@pytest.fixture(scope="module")
def log():
    events, _ids = play_a_fight(rounds=40)
    return [Event(**plain(e.to_dict())) for e in events]  # as the store gives them back (JSON)


def folded(events, upto):
    history = replay_view.History("g1", evolve, empty_game)
    history.extend(events)
    history.fold_to(upto)
    return history


def restored(events, tmp_path, game_id="g1"):
    history = replay_view.History(game_id, evolve, empty_game)
    history.extend(events)
    taken = history.restore(kept_folds.load_checkpoints(tmp_path, "g1") or {},
                            lambda seq: kept_folds.load_checkpoint_state(tmp_path, "g1", seq))
    return history, taken


def test_a_kept_fold_restored_gives_the_same_states_and_timeline(log, tmp_path):
    first = folded(log[:-7], len(log) - 7)  # the log as it was when the fold was kept
    kept = first.export()
    seq = kept["index"]["seq"]
    assert seq == (len(log) - 7) // replay_view.CHECKPOINT_EVERY * replay_view.CHECKPOINT_EVERY
    kept_folds.save_checkpoints(tmp_path, "g1", kept)
    assert kept_folds.load_checkpoints(tmp_path, "g1") == plain(kept["index"])

    again, taken = restored(log, tmp_path)  # the log has grown since
    assert taken and again.folded == seq  # nothing folded to get there
    whole = folded(log, len(log))
    for at in (1, replay_view.CHECKPOINT_EVERY, seq - 1, seq, seq + 1, len(log)):
        assert plain(again.state_at(at).to_dict()) == plain(replay("g1", log[:at]).to_dict()), at
    assert again.moments == whole.moments  # the moments kept, and those folded on from there
    assert [m.to_dict(GM) for m in again.timeline(GM)] == [m.to_dict(GM) for m in whole.timeline(GM)]
    assert replay_view.banner(again, len(log) - 3, GM) == replay_view.banner(whole, len(log) - 3, GM)

    # kept again later: only the new checkpoints' states are written; a checkpoint file lost, an earlier one serves
    more = again.export(since=seq)
    assert [s for s, _state in more["states"]] == [s for s in range(seq + 50, len(log) + 1, 50)]
    (tmp_path / kept_folds.CHECKPOINTS_DIR / "g1" / f"{replay_view.CHECKPOINT_EVERY * 2}.json").unlink()
    third, taken = restored(log, tmp_path)
    at = replay_view.CHECKPOINT_EVERY * 2 + 3
    assert taken and plain(third.state_at(at).to_dict()) == plain(replay("g1", log[:at]).to_dict())


def test_a_kept_fold_of_another_log_is_not_taken(log, tmp_path):
    kept_folds.save_checkpoints(tmp_path, "g1", plain(folded(log, len(log)).export()))
    seq = kept_folds.load_checkpoints(tmp_path, "g1")["seq"]
    other = list(log)
    cut = replay_view.CHECKPOINT_EVERY * 2
    other[cut - 1] = Event("fog_set", {"enabled": True})  # a log cut at a damaged event, played on
    other[seq - 1] = Event("fog_set", {"enabled": True})
    history, taken = restored(other, tmp_path)
    assert not taken and history.folded == 0  # its last checkpoint's event is not this log's
    other[seq - 1] = log[seq - 1]
    # only the last checkpoint's event is read when a kept fold is taken back (a server started again reads no
    # more of the log than its first jump needs): the others are compared as a jump reads them, and a kept fold
    # found to be of another log is forgotten there, the log folded from its first event
    history, taken = restored(other, tmp_path)
    assert taken
    for at in (cut - 1, cut + 3, seq, len(other)):
        assert plain(history.state_at(at).to_dict()) == plain(replay("g1", other[:at]).to_dict()), at
    assert history.foreign and history.moments == folded(other, len(other)).moments
    assert not restored(log[: seq - 1], tmp_path)[1]  # a log shorter than the kept fold
    assert not restored(log, tmp_path, game_id="g2")[1]  # another game's
    assert not replay_view.History("g1", evolve, empty_game).restore({"version": 2, "seq": "x"}, lambda s: None)
    assert kept_folds.load_checkpoints(tmp_path, "../etc") is None
    (tmp_path / kept_folds.CHECKPOINTS_DIR / "g1" / f"{seq}.json").write_text("{not json")
    assert kept_folds.load_checkpoint_state(tmp_path, "g1", seq) is None
    assert not restored(log, tmp_path)[1]  # the last checkpoint unreadable: folded from the start instead
    (tmp_path / kept_folds.CHECKPOINTS_DIR / "g1" / "index.json").write_text("[1, 2]")
    assert kept_folds.load_checkpoints(tmp_path, "g1") is None


def test_the_kept_fold_is_the_owners_only(log, tmp_path):
    import os
    import stat

    kept_folds.save_checkpoints(tmp_path / "data", "g1", folded(log, len(log)).export())
    folder = tmp_path / "data" / kept_folds.CHECKPOINTS_DIR
    if os.name == "posix":
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700
        assert stat.S_IMODE((folder / "g1").stat().st_mode) == 0o700
        assert {stat.S_IMODE(p.stat().st_mode) for p in (folder / "g1").iterdir()} == {0o600}
    assert not [p.name for p in (folder / "g1").iterdir() if p.name.startswith(".")]  # no temporary file left


def test_live_states_taken_as_checkpoints_give_the_folds_states_and_timeline(log, tmp_path):
    """``History.advance``: the live game's state at uneven seqs (a commit of several events crosses a
    checkpoint's spacing) taken as checkpoints, the moments between folded without the fog's memory: every state
    and the whole timeline are those of a fold from the first event, kept and taken back as well."""
    assert len(log) > 160
    history = replay_view.History("g1", evolve, empty_game)
    live = empty_game("g1")
    taken = []
    for seq, event in enumerate(log, start=1):
        evolve(live, event)
        history.extend([event])
        if seq in (37, 53, 101, 149):
            assert history.advance(seq, replay_view.checkpoint_of(live))
            assert plain(history.state.to_dict()) == plain(live.to_dict())  # the fold goes on from the live state
            taken.append(seq)
    assert not history.advance(120, replay_view.checkpoint_of(live))  # not past the fold: not taken
    assert [s for s, _b in history._checkpoints][1:] == taken and history.folded == taken[-1]
    whole = folded(log, len(log))
    for at in range(len(log) + 1):
        assert plain(history.state_at(at).to_dict()) == plain(whole.state_at(at).to_dict()), at
    assert history.moments == whole.moments
    kept = history.export()
    kept_folds.save_checkpoints(tmp_path, "g1", plain(kept))
    again, ok = restored(log, tmp_path)
    assert ok and again.folded == history.checkpointed == 150  # the fold's own checkpoint after the live ones
    assert again.moments == whole.moments
    for at in (1, 36, 37, 38, 102, 148, 149, 150, len(log)):
        assert plain(again.state_at(at).to_dict()) == plain(whole.state_at(at).to_dict()), at
