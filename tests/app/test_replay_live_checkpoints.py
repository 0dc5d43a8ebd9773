"""The replay's checkpoints written as the game is played (#36): every ``LIVE_EVERY`` events the live
server's state is kept as the fold's next checkpoint, with no GM page connected and no fold ahead. Each one
equals the log folded from its first event up to that seq (fog memory, turn order, templates, lights, walls), its
index's timeline is the fold's, and a server started again jumps from them, reading no more of the log than the
jump needs."""

from __future__ import annotations

import json
import time

from webapp import create_app
from webapp.game import replay_view
from webapp.live.replaying import LIVE_EVERY
from webapp.game.model import GM
from webapp.game.table import empty_game, evolve, replay
from webapp.storage import history as kept_folds


def bearer(key):
    return {"Authorization": f"Bearer {key}"}


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


def test_checkpoints_written_as_played_are_the_fold_and_serve_a_restarted_server(tmp_path):
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
    template = run({"type": "place_template", "shape": "circle", "x": 12, "y": 5, "size": 2})
    run({"type": "start_combat", "token_ids": ids})
    hub = app.extensions["tacmap"]
    kept = None
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
    head = hub.store.last_seq(gid)
    assert head > 2 * LIVE_EVERY
    kept = wait_for_checkpoint(app, tmp_path, gid, head // LIVE_EVERY * LIVE_EVERY)
    events = hub.store.events(gid)

    # a checkpoint every LIVE_EVERY events (after the commit that crossed it), each the live state then: the log
    # folded up to it
    seqs = [s for s, _event in kept["events"]]
    assert len(seqs) == head // LIVE_EVERY
    assert all(n * LIVE_EVERY <= s < n * LIVE_EVERY + 5 for n, s in enumerate(seqs, start=1)), seqs
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
    assert found.events[: seqs[-1] - 1].count(None) == seqs[-1] - 1, "the log before the checkpoint was not read"
    mid = seqs[1] + 7  # a jump further back reads from its checkpoint on
    assert plain(found.state_at(mid).to_dict()) == plain(replay(gid, events[:mid]).to_dict())
    assert again.extensions["tacmap"].store.last_seq(gid) == head, "a replay stores nothing"
