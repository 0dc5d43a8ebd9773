"""Undo: the GM takes back the last action with a new event; the log keeps both."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, command as play, new_game, put_token, state
from webapp import create_app


@pytest.fixture
def config(tmp_path):
    return {"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False}


def game_with_ogre(client):
    """A game with the GM's Ogre on (1, 1); (the game, the Ogre's token id)."""
    g = new_game(client, name="Undo")
    return g, put_token(client, g, "Ogre", (1, 1))


def where(client, g, tok):
    t = next(t for t in state(client, g)["tokens"] if t["id"] == tok)
    return t["x"], t["y"]


def test_undo_takes_back_the_last_move_then_the_one_before(config):
    client = create_app(config).test_client()
    g, tok = game_with_ogre(client)
    play(client, g, {"type": "move_token", "token_id": tok, "x": 3, "y": 1}, g["gm_token"])
    play(client, g, {"type": "move_token", "token_id": tok, "x": 5, "y": 2}, g["gm_token"])
    assert play(client, g, {"type": "undo"}, g["gm_token"]).status_code == 200
    assert where(client, g, tok) == (3, 1)
    play(client, g, {"type": "undo"}, g["gm_token"])
    assert where(client, g, tok) == (1, 1)
    log = [e["text"] for e in state(client, g)["log"]]
    assert any("moved to (5, 2)" in t for t in log) and log[-1].startswith("the GM undid")


def test_undo_brings_back_a_removed_token(config):
    client = create_app(config).test_client()
    g, tok = game_with_ogre(client)
    play(client, g, {"type": "remove_token", "token_id": tok}, g["gm_token"])
    play(client, g, {"type": "undo"}, g["gm_token"])
    assert where(client, g, tok) == (1, 1)


def test_undo_steps_a_fight_back_a_turn(config):
    client = create_app(config).test_client()
    g, tok = game_with_ogre(client)
    other = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Rat", "x": 2, "y": 2},
                        headers=bearer(g["gm_token"])).json["id"]
    play(client, g, {"type": "start_combat", "token_ids": [tok, other]}, g["gm_token"])
    play(client, g, {"type": "next_turn"}, g["gm_token"])
    assert state(client, g)["combat"]["current"] == other
    play(client, g, {"type": "undo"}, g["gm_token"])
    assert state(client, g)["combat"]["current"] == tok
    play(client, g, {"type": "undo"}, g["gm_token"])
    assert state(client, g)["combat"] is None


def test_rolls_and_joins_are_facts_undo_passes_over(config):
    client = create_app(config).test_client()
    g, tok = game_with_ogre(client)
    play(client, g, {"type": "move_token", "token_id": tok, "x": 4, "y": 4}, g["gm_token"])
    play(client, g, {"type": "roll", "expr": "d6"}, g["gm_token"])
    client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"})
    play(client, g, {"type": "undo"}, g["gm_token"])
    assert where(client, g, tok) == (1, 1)  # the move, not the roll or the join
    assert [p["name"] for p in state(client, g)["players"]] == ["Mira"]


def test_only_the_gm_undoes_and_an_empty_history_says_so(config):
    client = create_app(config).test_client()
    g = client.post("/api/games", json={"name": "Undo", "system": "plain_grid"}).json
    r = play(client, g, {"type": "undo"}, g["gm_token"])
    assert r.status_code == 422 and r.json["error"] == "there is nothing to undo"
    p = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    r = play(client, g, {"type": "undo"}, p["player_token"])
    assert r.status_code == 422 and "GM" in r.json["error"]


def test_an_undone_game_replays_the_same_after_a_restart(config):
    client = create_app(config).test_client()
    g, tok = game_with_ogre(client)
    play(client, g, {"type": "move_token", "token_id": tok, "x": 3, "y": 3}, g["gm_token"])
    play(client, g, {"type": "undo"}, g["gm_token"])
    play(client, g, {"type": "move_token", "token_id": tok, "x": 6, "y": 6}, g["gm_token"])
    play(client, g, {"type": "undo"}, g["gm_token"])
    before = state(client, g)
    after = state(create_app(config).test_client(), g)
    assert after == before and where(client, g, tok) == (1, 1)


def test_undo_in_a_long_game_starts_from_the_snapshot_and_stays_fast(config):
    """A campaign of more than 1,000 events: undo replays from the newest snapshot, not from the start."""
    import time

    from webapp.game.core.model import Event
    from webapp.game.table import replay

    app = create_app(config)
    client = app.test_client()
    g, tok = game_with_ogre(client)
    hub = app.extensions["tacmap"]
    moves = [(x % 20, 1 + (x // 20) % 10) for x in range(2, 1102)]
    for start in range(0, len(moves), 50):  # a command of 50 moves at a time: snapshots fall as in play
        batch = moves[start:start + 50]
        hub.commit(g["id"], lambda game, batch=batch: [
            Event("token_moved", {"token_id": tok, "x": x, "y": y, "from": [0, 0]}) for x, y in batch])
    snap = hub.store.snapshot(g["id"])
    assert hub.store.last_seq(g["id"]) > 1000 and snap is not None and snap[0] >= 1000
    reads, events_of = [], hub.store.events
    hub.store.events = lambda game_id, after=0: reads.append(after) or events_of(game_id, after)
    began = time.perf_counter()
    assert play(client, g, {"type": "undo"}, g["gm_token"]).status_code == 200
    took = time.perf_counter() - began
    hub.store.events = events_of
    assert reads and min(reads) == snap[0]  # only the events after the snapshot were read
    assert where(client, g, tok) == moves[-2]
    assert took < 0.25, f"undo took {took:.3f} s"
    # the same game as a replay of the whole log from the start
    events = hub.store.events(g["id"])
    assert replay(g["id"], events).to_dict()["tokens"] == hub.game(g["id"]).to_dict()["tokens"]


def test_undo_back_past_the_snapshot_replays_from_the_start(config):
    app = create_app(config)
    client = app.test_client()
    g, tok = game_with_ogre(client)
    hub = app.extensions["tacmap"]
    seq = hub.store.last_seq(g["id"])
    hub.commit(g["id"], lambda game: [Event_moved(tok, 2 + i % 10, 3) for i in range(199 - seq)])
    play(client, g, {"type": "move_token", "token_id": tok, "x": 15, "y": 9}, g["gm_token"])
    snap = hub.store.snapshot(g["id"])
    assert snap is not None and snap[0] == hub.store.last_seq(g["id"])  # the move is the snapshot's last event
    play(client, g, {"type": "undo"}, g["gm_token"])  # its state before is older than the snapshot
    assert where(client, g, tok) == (2 + (198 - seq) % 10, 3)


def Event_moved(tok, x, y):
    from webapp.game.core.model import Event

    return Event("token_moved", {"token_id": tok, "x": x, "y": y, "from": [0, 0]})
