"""One player cannot fill the GM's disk (#25): a sheet event stores what changed, a seat's log has an
allowance; an old log whose sheet events carry the whole sheet still replays."""

from __future__ import annotations

import json

from tests.helpers import bearer, join, new_game
from webapp import create_app
from webapp.live import allowance
from webapp.storage.store import Store, load_game


def setup(client):
    g = new_game(client, "savage_worlds", name="Notes")
    seat = join(client, g, "Mira")
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(seat["player_token"]),
                    json={"type": "add_character", "name": "Aria"})
    assert r.status_code == 200, r.json
    return g, seat


def character_id(client, g):
    st = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    return st["characters"][0]["id"]


def log_bytes(hub, game_id) -> int:
    return hub.store._db.execute("SELECT COALESCE(SUM(LENGTH(data) + LENGTH(type)), 0) FROM events WHERE game_id = ?",
                                 (game_id,)).fetchone()[0]


def test_a_sheet_event_stores_what_changed_not_the_whole_sheet(hub, client):
    g, seat = setup(client)
    cid = character_id(client, g)
    note = "n" * 9000
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(seat["player_token"]),
                    json={"type": "update_sheet", "character_id": cid, "changes": {"notes": note}})
    assert r.status_code == 200, r.json
    before = log_bytes(hub, g["id"])
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(seat["player_token"]),
                    json={"type": "update_sheet", "character_id": cid, "changes": {"skills.notice": "d8"}})
    assert r.status_code == 200, r.json
    grown = log_bytes(hub, g["id"]) - before
    assert grown < 200, f"one skill took {grown} bytes of log (the whole sheet with its 9 kB note?)"
    data = json.loads(hub.store._db.execute("SELECT data FROM events WHERE game_id = ? ORDER BY seq DESC LIMIT 1",
                                            (g["id"],)).fetchone()[0])
    assert data == {"character_id": cid, "changes": {"skills.notice": "d8"}}
    # the state is the same rebuilt from the log
    game = load_game(Store(hub.store.path), g["id"])
    sheet = game.characters[cid].sheet
    assert sheet["notes"] == note and sheet["skills"]["notice"] == "d8"


def test_an_old_log_with_whole_sheet_events_still_replays(tmp_path):
    data = tmp_path / "data"
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "DEMO": False})
    client = app.test_client()
    g, seat = setup(client)
    cid = character_id(client, g)
    hub = app.extensions["tacmap"]
    old_sheet = {**hub.game(g["id"]).characters[cid].sheet, "wounds": 2, "notes": "from an old tacmap"}
    seq = hub.store.last_seq(g["id"])
    store = hub.store
    store._db.execute("INSERT INTO events VALUES (?, ?, 'sheet_updated', ?, 0)",
                      (g["id"], seq + 1, json.dumps({"character_id": cid, "changes": {"wounds": 2, "notes": "x"},
                                                     "sheet": old_sheet})))
    store.close()
    again = create_app({"DATA_DIR": str(data), "TESTING": True, "DEMO": False})
    client = again.test_client()
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(seat["player_token"]),
                    json={"type": "update_sheet", "character_id": cid, "changes": {"skills.riding": "d6"}})
    assert r.status_code == 200, r.json
    sheet = load_game(again.extensions["tacmap"].store, g["id"]).characters[cid].sheet
    assert sheet == {**old_sheet, "skills": {**old_sheet["skills"], "riding": "d6"}}


def test_a_seat_that_writes_too_much_is_refused_and_the_log_stops_growing(hub, client, monkeypatch):
    now = [1000.0]
    hub.allowance = allowance.LogAllowance(clock=lambda: now[0])
    from webapp.live.server import throttle  # the seat's command rate stops it too: this test is of the log's bytes
    hub.seats = throttle.Seats(rate=1e6, burst=10**6)
    g, seat = setup(client)
    cid = character_id(client, g)
    start = log_bytes(hub, g["id"])
    refused = None
    for i in range(400):  # 400 edits of a 9 kB note: 3.6 MB asked for
        r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(seat["player_token"]),
                        json={"type": "update_sheet", "character_id": cid, "changes": {"notes": f"{i:05d}" + "x" * 9000}})
        if r.status_code != 200:
            refused = r
            break
    assert refused is not None and refused.status_code in (409, 422, 429), "never refused"
    assert "nothing was stored; try again in" in refused.json["error"]
    grown = log_bytes(hub, g["id"]) - start
    assert allowance.BURST * 0.9 < grown <= allowance.BURST, grown
    # the GM is not counted
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(g["gm_token"]),
                    json={"type": "update_sheet", "character_id": cid, "changes": {"notes": "y" * 9000}})
    assert r.status_code == 200
    # and the seat writes again once its allowance came back
    now[0] += 60
    r = client.post(f"/api/games/{g['id']}/commands", headers=bearer(seat["player_token"]),
                    json={"type": "update_sheet", "character_id": cid, "changes": {"notes": "z" * 9000}})
    assert r.status_code == 200, r.json
