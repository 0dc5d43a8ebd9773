"""Two apps on one log, as two `serve --message-queue` processes are (one data folder, or one PostgreSQL database
with a data folder each): the log is the only truth.

Redis is not needed here (tests/e2e/test_scale_out.py runs the real thing): ``LocalShared`` stands in
for webapp/live/server/shared.py's presence, so each hub behaves as it does in message-queue mode.
"""

from __future__ import annotations

from collections import Counter

import pytest

from webapp import create_app
from webapp.storage.store import Store
from webapp.game.core.model import GM, Rejected
from webapp.game.table import decide, parse_command


class LocalShared:
    """No other process holds connections: presence is empty, ending sessions finds none elsewhere."""

    process = "here"

    def opened(self, sid, game_id, audience):
        pass

    def closed(self, sid):
        pass

    def forget(self, game_id, member):
        pass

    def sessions(self, game_id):
        return []

    def audiences(self, game_id):
        return Counter()

    def connections(self, game_id):
        return []

    def languages(self, game_id):  # no device connected anywhere: each audience drawn in English
        return {}

    def presence(self, game_id):
        return self.audiences(game_id), self.languages(game_id)


@pytest.fixture
def hubs(tmp_path, backend):
    """Two apps on one log: one data folder's SQLite file, or (issue #38) one PostgreSQL database with a data
    folder each, as on two machines."""
    apps = [create_app({"DATA_DIR": str(tmp_path / ("data" if backend is None else f"data{i}")), "TESTING": True,
                        "SECRET_KEY": "test", "DEMO": False, **({"DATABASE": backend} if backend else {})})
            for i in range(2)]
    hubs = [app.extensions["tacmap"] for app in apps]
    for hub in hubs:
        hub.shared = LocalShared()
    # every audience is rendered (links need a request), as a socket handler or a view does
    with apps[0].test_request_context(), apps[1].test_request_context():
        yield hubs


def add_token(hub, game_id, name, x, y) -> str:
    done = hub.execute(game_id, GM, {"type": "add_token", "name": name, "x": x, "y": y})
    return done.events[0].data["token"]["id"]


def test_a_process_sees_what_the_other_appended_before_it_decides_or_renders(hubs):
    a, b = hubs
    game_id = a.create_game("shared", "plain_grid").id
    assert b.game(game_id).tokens == {}  # b has it cached now
    ogre = add_token(a, game_id, "Ogre", 2, 2)
    a.execute(game_id, GM, {"type": "move_token", "token_id": ogre, "x": 3, "y": 2})
    seen = b.game(game_id)
    assert seen.seq == a.game(game_id).seq and (seen.tokens[ogre].x, seen.tokens[ogre].y) == (3, 2)
    # and b's own move starts from there: its event says where the ogre came from
    done = b.execute(game_id, GM, {"type": "move_token", "token_id": ogre, "x": 4, "y": 2})
    assert done.events[0].data["from"] == [3, 2]
    assert a.game(game_id).tokens[ogre].x == 4


def test_catching_up_with_the_other_process_reads_the_log_head_once(hubs, monkeypatch):
    """On PostgreSQL each read is a round trip to its server, on the way of the command that asks for the game."""
    a, b = hubs
    game_id = a.create_game("heads", "plain_grid").id
    ogre = add_token(a, game_id, "Ogre", 2, 2)
    b.game(game_id)
    a.execute(game_id, GM, {"type": "move_token", "token_id": ogre, "x": 3, "y": 2})
    reads = Counter()
    for name in ("last_seq", "events"):
        real = getattr(b.store, name)
        monkeypatch.setattr(b.store, name, lambda *args, _real=real, _name=name, **kw: (
            reads.update([_name]), _real(*args, **kw))[1])
    seen = b.game(game_id)
    assert (seen.seq, seen.tokens[ogre].x) == (a.game(game_id).seq, 3)
    assert reads == {"last_seq": 1, "events": 1}
    reads.clear()
    assert b.game(game_id).seq == seen.seq  # nothing new: the head alone
    assert reads == {"last_seq": 1}


def test_the_writer_that_loses_the_race_decides_again_on_the_fresh_state(hubs):
    a, b = hubs
    game_id = a.create_game("race", "plain_grid").id
    ogre = add_token(a, game_id, "Ogre", 2, 2)
    b.game(game_id)
    decided_at = []

    def decide_move(game):
        decided_at.append((game.seq, game.tokens[ogre].x))
        if len(decided_at) == 1:  # a appends between b's read and b's append: b's append must conflict
            a.execute(game_id, GM, {"type": "move_token", "token_id": ogre, "x": 5, "y": 2})
        cmd = parse_command({"type": "move_token", "token_id": ogre, "x": 6, "y": 2})
        return decide(game, cmd, GM, b.dice(game))

    done = b.commit(game_id, decide_move)
    first_seq = decided_at[0][0]
    assert decided_at == [(first_seq, 2), (first_seq + 1, 5)]  # decided again, on a's move
    assert done.seq == first_seq + 2
    store = Store(b.store.path)
    events = store.events(game_id, after=first_seq)
    assert [(e.type, e.data["from"], e.data["x"]) for e in events] == [("token_moved", [2, 2], 5),
                                                                       ("token_moved", [5, 2], 6)]
    assert a.game(game_id).tokens[ogre].x == b.game(game_id).tokens[ogre].x == 6


def test_the_loser_of_a_race_catches_up_from_the_log_and_is_refused_only_for_its_own_reason(hubs, monkeypatch):
    """While the other process writes to the game, the loser keeps a copy of its state before deciding: a lost
    race costs it one read of the other's events, never a reload of the game; a command the other's events made
    impossible is refused for that reason (the square is taken), not as "busy"."""
    a, b = hubs
    game_id = a.create_game("catch up", "plain_grid").id
    ogre, goblin = add_token(a, game_id, "Ogre", 2, 2), add_token(a, game_id, "Goblin", 2, 5)
    b.game(game_id)
    a.execute(game_id, GM, {"type": "move_token", "token_id": ogre, "x": 3, "y": 2})
    assert b.game(game_id).tokens[ogre].x == 3  # b caught up with a's move: a writes to this game too
    reloads = []
    real_load = b.games.load
    monkeypatch.setattr(b.games, "load", lambda gid: reloads.append(gid) or real_load(gid))

    def racing(token, square, a_square):
        tries = []

        def decide_move(game):
            tries.append(game.seq)
            if len(tries) == 1:  # a stores its move between b's read and b's append
                a.execute(game_id, GM, {"type": "move_token", "token_id": ogre, "x": a_square[0], "y": a_square[1]})
            cmd = parse_command({"type": "move_token", "token_id": token, "x": square[0], "y": square[1]})
            return decide(game, cmd, GM, b.dice(game))
        return decide_move, tries

    # b's goblin to a free square, raced by a's ogre elsewhere: decided again on a's move, stored
    decide_move, tries = racing(goblin, (2, 6), (4, 2))
    done = b.commit(game_id, decide_move)
    assert tries == [tries[0], tries[0] + 1] and done.seq == tries[0] + 2
    # b's goblin to the square a's ogre takes meanwhile: refused because it is taken, nothing of b's stored
    decide_move, tries = racing(goblin, (6, 6), (6, 6))
    with pytest.raises(Rejected) as refused:
        b.commit(game_id, decide_move)
    assert refused.value.code != "busy" and "taken" in str(refused.value), refused.value
    assert reloads == [], "a lost race reloaded the game"
    log = Store(b.store.path).events(game_id)
    assert b.game(game_id).seq == a.game(game_id).seq == len(log)
    for hub in (a, b):
        tokens = hub.game(game_id).tokens
        assert [(tokens[t].x, tokens[t].y) for t in (ogre, goblin)] == [(6, 6), (2, 6)]


def test_a_writer_that_keeps_losing_the_race_is_told_to_try_again_and_stores_nothing(hubs, monkeypatch):
    """Another process that wins every retry (a stand-in here: it writes between every read and append of
    this one) is not waited for forever: after MAX_RACES the sender hears "busy" (not a server error)."""
    from webapp.live import committing

    monkeypatch.setattr(committing, "MAX_RACES", 8)
    a, b = hubs
    game_id = a.create_game("busy race", "plain_grid").id
    ogre = add_token(a, game_id, "Ogre", 2, 2)
    b.game(game_id)
    x = [5]

    def decide_move(game):
        x[0] = 11 - x[0]  # a moves the ogre between every read of b and its append: 6, 5, 6...
        a.execute(game_id, GM, {"type": "move_token", "token_id": ogre, "x": x[0], "y": 2})
        cmd = parse_command({"type": "move_token", "token_id": ogre, "x": 9, "y": 2})
        return decide(game, cmd, GM, b.dice(game))

    with pytest.raises(Rejected) as refused:
        b.commit(game_id, decide_move)
    assert refused.value.code == "busy"
    store = Store(b.store.path)
    moves = [e.data["x"] for e in store.events(game_id) if e.type == "token_moved"]
    assert 9 not in moves and moves and all(m in (5, 6) for m in moves)
    assert a.game(game_id).tokens[ogre].x == b.game(game_id).tokens[ogre].x == moves[-1]


def test_every_audience_is_rendered_for_whoever_is_connected_here(hubs):
    a, _b = hubs
    game_id = a.create_game("audiences", "plain_grid").id
    game = a.game(game_id)
    a.execute(game_id, GM, {"type": "add_token", "name": "x", "x": 1, "y": 1})
    from webapp.web.game import join_game  # a seat, the API's way

    _key, pid, _ = join_game(game_id, "Aria")
    # nobody is connected to this process, yet a client of another process may be in any room
    assert set(a.presence.audiences(a.game(game_id))) == {"gm", "screen", f"player:{pid}"}
    assert game is a.game(game_id)


def test_an_older_snapshot_never_replaces_a_newer_one(hubs):
    store = hubs[0].store
    g = hubs[0].create_game("snapshots", "plain_grid").id
    store.save_snapshot(g, 400, {"at": 400})
    store.save_snapshot(g, 200, {"at": 200})  # the other process, a little behind
    assert store.snapshot(g) == (400, {"at": 400})
    store.save_snapshot(g, 600, {"at": 600})
    assert store.snapshot(g) == (600, {"at": 600})
