"""The replay's checkpoints written as the game is played (#36): every ``LIVE_EVERY`` events the live
server's state is kept as the fold's next checkpoint, with no GM page connected and no fold ahead, at the next quiet
moment (no command for ``LIVE_QUIET`` seconds; ``LIVE_WAIT`` at most): no move waits behind one. Each one
equals the log folded from its first event up to that seq (fog memory, turn order, templates, lights, walls), its
index's timeline is the fold's, and a server started again jumps from them, reading no more of the log than the
jump needs (the fight's own events for the replay banner's luck)."""

from __future__ import annotations

import json
import time

import pytest

from tests.helpers import bearer, new_game
from webapp import create_app
from webapp.game.views import replay_view
from webapp.live import replaying
from webapp.live.replaying import LIVE_EVERY
from webapp.game.table import empty_game, evolve, replay
from webapp.storage import history as kept_folds


def new_app(folder):
    return create_app({"DATA_DIR": str(folder), "TESTING": True, "SECRET_KEY": "test", "DEMO": False})


def plain(x):
    return json.loads(json.dumps(x))


def wait_for_checkpoint(app, folder, game_id, seq):
    sio = app.extensions["tacmap_socketio"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        kept = kept_folds.load_checkpoints(folder, game_id)
        if kept is not None and kept["seq"] >= seq:
            return kept
        sio.sleep(0.05)  # the background task's turn
    raise AssertionError(f"no checkpoint kept at {seq}: {kept and kept['seq']}")


def test_checkpoints_written_as_played_are_the_fold_and_serve_a_restarted_server(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "LIVE_QUIET", 0.05)  # the table's pauses: short, the test plays fast
    app = new_app(tmp_path)
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Played", "system": "plain_grid"}).json
    gid, gm = g["id"], bearer(g["gm_token"])
    mira = c.post(f"/api/games/{gid}/players", json={"join_code": g["join_code"], "name": "Mira"}).json

    def run(payload):
        r = c.post(f"/api/games/{gid}/commands", json=payload, headers=gm)
        assert r.status_code == 200, r.json
        return r.json

    ids = [c.post(f"/api/games/{gid}/tokens", json={"name": name, "x": x, "y": 3, "owner": owner}, headers=gm
                  ).json["id"] for name, x, owner in (("Aria", 2, mira["player_id"]), ("Ogre", 15, None))]
    run({"type": "add_wall", "a": [10, 0], "b": [10, 9]})
    run({"type": "set_fog", "enabled": True})
    run({"type": "add_light", "x": 4.5, "y": 3.5, "range": 3})
    run({"type": "place_template", "shape": "circle", "x": 12, "y": 5, "size": 2})
    run({"type": "start_combat", "token_ids": ids})
    hub = app.extensions["tacmap"]
    kept, paused_at = None, []
    for i in range(180):
        game = hub.game(gid)
        current = game.tokens[game.combat["current"]]
        step = 1 if (i // 8) % 2 == 0 else -1  # to and fro, Aria through the wall's gap: her memory grows
        run({"type": "move_token", "token_id": current.id, "x": max(0, min(22, current.x + step)),
             "y": 3 + (i // 16) % 8, "force": True})
        if i % 3 == 2:
            run({"type": "next_turn"})
        if i % 40 == 39:
            run({"type": "set_lighting", "ambient": "dim" if i % 80 == 39 else "dark"})
        if i % 30 == 29:  # the table pauses (a player thinks): a checkpoint due is taken now, of the state now
            paused_at.append(hub.store.last_seq(gid))
            if paused_at[-1] // LIVE_EVERY > (paused_at[-2] if len(paused_at) > 1 else 0) // LIVE_EVERY:
                wait_for_checkpoint(app, tmp_path, gid, paused_at[-1])
    head = hub.store.last_seq(gid)
    assert head > 2 * LIVE_EVERY
    kept = wait_for_checkpoint(app, tmp_path, gid, head // LIVE_EVERY * LIVE_EVERY)
    events = hub.store.events(gid)

    # a checkpoint every LIVE_EVERY events, each the live state at the first pause after the commit that crossed
    # it: the log folded up to it
    seqs = [s for s, _event in kept["events"]]
    crossed = [s for k, s in enumerate(paused_at) if s // LIVE_EVERY > (paused_at[k - 1] if k else 0) // LIVE_EVERY]
    assert len(crossed) == head // LIVE_EVERY and seqs == crossed, (seqs, paused_at)
    for seq in seqs:
        state = kept_folds.load_checkpoint_state(tmp_path, gid, seq)
        folded = plain(replay(gid, events[:seq]).to_dict())
        assert state == folded, seq
    last = kept_folds.load_checkpoint_state(tmp_path, gid, seqs[-1])
    assert last["explored"][mira["player_id"]] and last["combat"]["order"] == ids
    assert last["templates"] and any(m.get("lights") for m in last["maps"])
    whole = replay_view.History(gid, evolve, empty_game)
    whole.extend(events)
    assert kept["moments"] == plain([m.to_plain() for m in whole.moments if m.seq <= seqs[-1]])

    at = head - 3
    first = c.post(f"/api/games/{gid}/commands", json={"type": "replay", "at": at}, headers=gm).json
    run({"type": "replay_end"})

    # a server started again: the first jump starts from the nearest kept checkpoint, the log read from there only
    again = new_app(tmp_path)
    found = again.extensions["tacmap"].replays.history(gid)
    assert found.folded == seqs[-1]
    second = again.test_client().post(f"/api/games/{gid}/commands", json={"type": "replay", "at": at},
                                      headers=gm).json
    assert second["replay"] == first["replay"]
    assert plain(found.state_at(at).to_dict()) == plain(replay(gid, events[:at]).to_dict())
    # the fold starts at the checkpoint; of the log before it, only the fight's own events are read (the banner's
    # luck counts the fight's rolls from its start, #59), none before the fight began
    fight = next(i for i, e in enumerate(events, start=1) if e.type == "combat_started")
    assert fight < seqs[-1]
    assert found.events[: fight - 1].count(None) == fight - 1, "the log before the fight was not read"
    mid = seqs[1] + 7  # a jump further back reads from its checkpoint on
    assert plain(found.state_at(mid).to_dict()) == plain(replay(gid, events[:mid]).to_dict())
    assert again.extensions["tacmap"].store.last_seq(gid) == head, "a replay stores nothing"


def table_past_the_mark(folder):
    """A new app on ``folder`` and a game with one token, played just past ``LIVE_EVERY`` events: (app, game id,
    ``move()``: the GM moves the token one square to and fro, one event each, returning its seq, the seq now)."""
    app = new_app(folder)
    c = app.test_client()
    g = new_game(c, "plain_grid", name="Busy")
    gid, gm = g["id"], bearer(g["gm_token"])
    token = c.post(f"/api/games/{gid}/tokens", json={"name": "Ogre", "x": 2, "y": 2}, headers=gm).json["id"]
    step = {"i": 0}

    def move():
        step["i"] += 1
        r = c.post(f"/api/games/{gid}/commands", headers=gm,
                   json={"type": "move_token", "token_id": token, "x": 2 + step["i"] % 2, "y": 2, "force": True})
        assert r.status_code == 200, r.json
        return r.json["seq"]

    seq = 0
    while seq < LIVE_EVERY:
        seq = move()
    return app, gid, move, seq


@pytest.mark.long
def test_a_live_checkpoint_waits_for_a_quiet_moment_and_takes_the_state_then(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "LIVE_QUIET", 0.5)
    app, gid, move, seq = table_past_the_mark(tmp_path)
    crossed, sio = time.monotonic(), app.extensions["tacmap_socketio"]
    # a move every 0.1 s for three quiet spans and ten moves at least (a loaded machine's moves are slower): nothing
    # is kept meanwhile
    while time.monotonic() < crossed + 3 * replaying.LIVE_QUIET or seq < LIVE_EVERY + 10:
        seq = move()
        sio.sleep(0.1)
        assert kept_folds.load_checkpoints(tmp_path, gid) is None, "a checkpoint taken while the table played"
    kept = wait_for_checkpoint(app, tmp_path, gid, seq)
    assert kept["seq"] == seq, "the state at the quiet moment, not at the crossing"
    assert seq >= LIVE_EVERY + 10
    state = kept_folds.load_checkpoint_state(tmp_path, gid, seq)
    assert state == plain(replay(gid, app.extensions["tacmap"].store.events(gid)).to_dict())


def test_a_live_checkpoint_is_taken_after_live_wait_when_the_moves_never_pause(tmp_path, monkeypatch):
    monkeypatch.setattr(replaying, "LIVE_QUIET", 30.0)  # never as quiet as that here
    monkeypatch.setattr(replaying, "LIVE_WAIT", 0.5)
    app, gid, move, seq = table_past_the_mark(tmp_path)
    crossed, kept, sio = time.monotonic(), None, app.extensions["tacmap_socketio"]
    while kept is None and time.monotonic() < crossed + 20:  # a move every 0.05 s, on and on
        seq = move()
        sio.sleep(0.05)
        kept = kept_folds.load_checkpoints(tmp_path, gid)
    assert kept is not None, "no checkpoint while the moves went on"
    assert time.monotonic() - crossed >= replaying.LIVE_WAIT
    assert LIVE_EVERY < kept["seq"] <= seq
    assert kept_folds.load_checkpoint_state(tmp_path, gid, kept["seq"]) == plain(
        replay(gid, app.extensions["tacmap"].store.events(gid)[: kept["seq"]]).to_dict())
