"""A command's id is looked for in the log only when the command may be a repeat (#38, ``Committing._seen_before``):
on PostgreSQL each look-up is a round trip to the server before the command is decided, so a first sending
(nearly every command a phone sends) is decided at once. A repeat this process has not seen (sent to another
process, or after a restart) is still answered as its first sending: the log's key on the id refuses its
write, and the command is looked up then. Both backends (``backend``), each through the real app."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, join, new_game, state
from webapp import create_app
from webapp.storage.store import Store


def make_app(tmp_path, backend, name="data"):
    return create_app({"DATA_DIR": str(tmp_path / name), "TESTING": True, "SECRET_KEY": "test", "DEMO": False,
                       **({"DATABASE": backend} if backend else {})})


@pytest.fixture
def table(tmp_path, backend):
    """An app, its game with a player and the player's token."""
    app = make_app(tmp_path, backend)
    client = app.test_client()
    g = new_game(client, "plain_grid", name="Once")
    player = join(client, g, "Mira")
    token = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1,
                        "owner": player["player_id"]}, headers=bearer(g["gm_token"])).json["id"]
    yield app, g, player, token
    app.extensions["tacmap"].store.close()


@pytest.fixture
def look_ups(monkeypatch):
    """The command ids looked for in the log, in order."""
    asked = []
    real = Store.applied

    def applied(self, game_id, seat, cid):
        asked.append(cid)
        return real(self, game_id, seat, cid)

    monkeypatch.setattr(Store, "applied", applied)
    return asked


def test_a_first_sending_is_decided_without_a_look_up_and_a_repeat_is_looked_up(table, look_ups):
    app, g, player, token = table
    client = app.test_client()
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    answers = [client.post(url, json={"type": "move_token", "token_id": token, "x": x, "y": 1, "cid": f"m-{x}"},
                           headers=who) for x in (2, 3, 4)]
    assert [a.status_code for a in answers] == [200, 200, 200], [a.json for a in answers]
    assert look_ups == []  # three new ids: none asked the log
    again = client.post(url, json={"type": "move_token", "token_id": token, "x": 3, "y": 1, "cid": "m-3"}, headers=who)
    assert again.json == {**answers[1].json, "repeat": True}
    assert look_ups == ["m-3"]
    now = state(client, g)
    assert now["seq"] == answers[2].json["seq"] and [(t["x"], t["y"]) for t in now["tokens"]] == [(4, 1)]


def test_a_repeat_after_a_restart_is_its_first_answer_even_where_it_could_be_done_again(tmp_path, backend, table,
                                                                                        look_ups):
    """The restarted server never saw the ids: the move back to (2, 1) and the roll are both possible again,
    and are decided; their writes are refused by the log's key on the id, and they are answered as first sent
    (the same seq, the same dice), with nothing written twice."""
    app, g, player, token = table
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    client = app.test_client()
    move = {"type": "move_token", "token_id": token, "x": 2, "y": 1, "cid": "ph-1"}
    roll = {"type": "roll", "expr": "1d1000", "cid": "ph-2"}
    first_move, first_roll = client.post(url, json=move, headers=who).json, client.post(url, json=roll, headers=who).json
    assert first_move["ok"] and first_roll["ok"], (first_move, first_roll)
    client.post(url, json={"type": "move_token", "token_id": token, "x": 5, "y": 5},
                headers=bearer(g["gm_token"]))  # the GM moves it on meanwhile
    before = state(client, g)
    app.extensions["tacmap"].store.close()

    again = make_app(tmp_path, backend)  # the server restarted (on SQLite: the same data folder)
    try:
        other = again.test_client()
        assert other.post(url, json=roll, headers=who).json == {**first_roll, "repeat": True}
        assert other.post(url, json=move, headers=who).json == {**first_move, "repeat": True}
        assert look_ups == ["ph-2", "ph-1"]  # each looked up once its write was refused
        after = state(other, g)
        assert after["seq"] == before["seq"] and after["log"] == before["log"]
        assert [(t["x"], t["y"]) for t in after["tokens"]] == [(5, 5)]
        # and the restarted server goes on: a new command is done, at the next seq
        done = other.post(url, json={"type": "move_token", "token_id": token, "x": 6, "y": 5, "cid": "ph-3"},
                          headers=who).json
        assert done["ok"] and done["seq"] == before["seq"] + 1, done
    finally:
        again.extensions["tacmap"].store.close()


def test_a_repeat_refused_on_the_new_state_is_its_first_answer(tmp_path, backend, table, look_ups):
    """Where the repeat cannot be done again (the token is there already), the refusal is not the answer:
    the id is looked up, and the first answer given."""
    app, g, player, token = table
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    move = {"type": "move_token", "token_id": token, "x": 6, "y": 6, "cid": "p-1"}
    first = app.test_client().post(url, json=move, headers=who).json
    assert first["ok"], first
    app.extensions["tacmap"].store.close()
    again = make_app(tmp_path, backend)
    try:
        assert again.test_client().post(url, json=move, headers=who).json == {**first, "repeat": True}
        assert look_ups == ["p-1"]
    finally:
        again.extensions["tacmap"].store.close()


def test_an_id_just_past_its_hour_is_a_new_command_though_not_swept_yet(table, monkeypatch):
    """Old ids are deleted once a minute (``COMMAND_IDS_SWEPT_EVERY_S``): an id an hour and a few seconds old
    may still be in the table when it is sent again. The lost write's sweep is not taken as done: the next
    try deletes the old ids first, and the command is done as a new one (ids are forgotten after an hour)."""
    import webapp.storage.games as games_module

    app, g, player, token = table
    client = app.test_client()
    url, who = f"/api/games/{g['id']}/commands", bearer(player["player_token"])
    real, offset = games_module.time.time, [0.0]
    monkeypatch.setattr(games_module.time, "time", lambda: real() + offset[0])
    first = client.post(url, json={"type": "move_token", "token_id": token, "x": 2, "y": 1, "cid": "old-1"},
                        headers=who).json
    offset[0] = 3590.0  # another command sweeps: old-1 is not an hour old yet, and stays
    client.post(url, json={"type": "move_token", "token_id": token, "x": 3, "y": 1, "cid": "x-2"}, headers=who)
    offset[0] = 3620.0  # half a minute later old-1 is past its hour, and still in the table
    again = client.post(url, json={"type": "move_token", "token_id": token, "x": 2, "y": 1, "cid": "old-1"},
                        headers=who)
    assert again.status_code == 200 and "repeat" not in again.json, again.json
    assert again.json["seq"] == first["seq"] + 2
    assert [(t["x"], t["y"]) for t in state(client, g)["tokens"]] == [(2, 1)]
