"""The replay commands through the command path (webapp/live/replaying.py), with Socket.IO test clients: a
replay stores nothing and answers with the log's head; the screens it is on get the past moment drawn for
them and no live update until "back to the table" sends the present whole; whoever else is at the table
goes on; a screen that connects meanwhile is shown the replay; who may send what."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, join, new_game


pytestmark = pytest.mark.app_config(DEMO=False)


@pytest.fixture
def table(app):
    c = app.test_client()
    g = new_game(c, "plain_grid", name="Replayed")
    mira = join(c, g, "Mira")
    ids = {}
    for name, x, owner, hidden in (("Aria", 1, mira["player_id"], False), ("Ogre", 5, None, False),
                                   ("Spy", 9, None, True)):
        ids[name] = c.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": 1, "owner": owner,
                                                                  "hidden": hidden}, headers=bearer(g["gm_token"])).json["id"]

    def run(payload, key=None):
        r = c.post(f"/api/games/{g['id']}/commands", json=payload, headers=bearer(key or g["gm_token"]))
        return r.status_code, r.json

    run({"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]})
    fight_seq = run({"type": "move_token", "token_id": ids["Aria"], "x": 2, "y": 1, "force": True})[1]["seq"]
    run({"type": "update_token", "token_id": ids["Spy"], "hidden": False})
    run({"type": "move_token", "token_id": ids["Spy"], "x": 8, "y": 2, "force": True})
    sio = app.extensions["tacmap_socketio"]
    clients = {who: sio.test_client(app, auth={"game": g["id"], "token": key})
               for who, key in (("gm", g["gm_token"]), ("screen", g["screen_token"]), ("mira", mira["player_token"]))}
    for client in clients.values():
        client.get_received()
    return {"g": g, "mira": mira, "ids": ids, "run": run, "fight_seq": fight_seq, "clients": clients,
            "hub": app.extensions["tacmap"], "sio": sio, "app": app}


def frames(client, name=None):
    got = client.get_received()
    return [m for m in got if name is None or m["name"] == name]


def test_a_replay_stores_nothing_and_shows_each_screen_its_view_then(table):
    t = table
    head = t["hub"].store.last_seq(t["g"]["id"])
    status, ack = t["run"]({"type": "replay", "at": t["fight_seq"], "on": ["gm", "screen"]})
    assert status == 200 and ack["seq"] == head and ack["replay"]["at"] == t["fight_seq"]
    assert t["hub"].store.last_seq(t["g"]["id"]) == head
    screen = frames(t["clients"]["screen"], "replay")
    gm = frames(t["clients"]["gm"], "replay")
    assert len(screen) == 1 and len(gm) == 1
    assert t["ids"]["Spy"] not in screen[0]["args"][0]["html"], "hidden then: not on the table screen's replay"
    assert f'id="token-{t["ids"]["Spy"]}"' in gm[0]["args"][0]["html"]  # the GM saw it then
    assert 'data-x="2"' in screen[0]["args"][0]["html"]
    assert screen[0]["args"][0]["banner"].startswith("Replay: ")
    assert frames(t["clients"]["mira"]) == []  # not on Mira's phone

    # the table goes on: Mira's roll is stored and reaches her, not the replaying screens
    status, ack = t["run"]({"type": "roll", "expr": "1d6"}, t["mira"]["player_token"])
    assert status == 200 and ack["seq"] == head + 1
    assert frames(t["clients"]["mira"], "update")
    assert frames(t["clients"]["screen"], "update") == [] and frames(t["clients"]["gm"], "update") == []

    status, ack = t["run"]({"type": "replay_end"})
    assert status == 200 and sorted(ack["ended"]) == ["gm", "screen"]
    back = frames(t["clients"]["screen"], "replay_end")
    assert len(back) == 1 and back[0]["args"][0]["seq"] == head + 1
    assert f'id="token-{t["ids"]["Spy"]}"' in back[0]["args"][0]["html"]  # the present: the Spy is out
    assert t["hub"].store.last_seq(t["g"]["id"]) == head + 1
    t["run"]({"type": "move_token", "token_id": t["ids"]["Spy"], "x": 7, "y": 2, "force": True})
    assert frames(t["clients"]["screen"], "update"), "live updates flow again after the replay"


def test_the_gms_replay_leaving_the_screen_brings_it_back_and_a_new_screen_joins_the_replay(table):
    t = table
    t["run"]({"type": "replay", "at": t["fight_seq"], "on": ["gm", "screen"]})
    frames(t["clients"]["screen"])
    late = t["sio"].test_client(t["app"], auth={"game": t["g"]["id"], "token": t["g"]["screen_token"]})
    assert [m["name"] for m in late.get_received()] == ["replay"]  # opened meanwhile: shown the replay too
    t["run"]({"type": "replay", "at": t["fight_seq"] - 1, "on": ["gm"]})
    assert [m["name"] for m in frames(t["clients"]["screen"])] == ["replay_end"]
    assert [m["name"] for m in frames(t["clients"]["gm"])] == ["replay", "replay"]


def test_a_players_replay_is_theirs_and_of_their_fights(table):
    t = table
    key = t["mira"]["player_token"]
    status, ack = t["run"]({"type": "replay", "at": t["fight_seq"]}, key)
    assert status == 200 and ack["replay"]["on"] == [f"player:{t['mira']['player_id']}"]
    mine = frames(t["clients"]["mira"], "replay")
    assert len(mine) == 1 and t["ids"]["Spy"] not in mine[0]["args"][0]["html"]
    assert frames(t["clients"]["gm"]) == [] and frames(t["clients"]["screen"]) == []
    assert t["run"]({"type": "replay", "at": 2}, key)[0] == 422  # no fight of hers then
    assert t["run"]({"type": "replay", "at": t["fight_seq"], "on": ["screen"]}, key)[0] == 422
    status, ack = t["run"]({"type": "replay_end"}, key)
    assert ack["ended"] == [f"player:{t['mira']['player_id']}"]
    assert [m["name"] for m in frames(t["clients"]["mira"])] == ["replay_end"]


def test_the_table_screen_may_not_replay_and_bad_input_changes_nothing(table):
    t = table
    head = t["hub"].store.last_seq(t["g"]["id"])
    ack = t["clients"]["screen"].emit("command", {"type": "replay", "at": 1}, callback=True)
    assert ack == {"ok": False, "error": "the table screen only shows the map"}
    for payload, error in (({"type": "replay", "at": 10**6}, f"at: the log goes from 0 to {head}"),
                           ({"type": "replay", "at": "<b>1</b>"}, "at: Input should be a valid integer"),
                           ({"type": "replay"}, "at: Field required")):
        ack = t["clients"]["gm"].emit("command", payload, callback=True)
        assert ack["ok"] is False and ack["error"].startswith(error), ack
    assert t["hub"].store.last_seq(t["g"]["id"]) == head
    assert frames(t["clients"]["screen"]) == [] and frames(t["clients"]["gm"], "replay") == []
