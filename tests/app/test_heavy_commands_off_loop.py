"""Issue #57: on the largest map the server accepted then (150 x 150, 10,000 walls: ``FOG_MAP``), a GM's fog
switch and a corner-to-corner move do their geometry (the token's view, the way across the board, the board's
indexes, the fog layers and known walls) through the runner the server gives it (``webapp.game.bridge.heavy``: gevent's native thread pool under ``tacmap
serve``), while the command holds its game's lock; what every screen is sent is what the same commands give
with all of it done in place. The stall it saved the other tables is measured in tests/e2e/test_heavy_commands.py."""

from __future__ import annotations

import threading

import pytest

from bench.bench_big_maps import FOG_MAP, worst_map
from tests.helpers import bearer, connect
from webapp.game.bridge import heavy

pytestmark = pytest.mark.long  # seconds each: run first (tests/conftest.py)


@pytest.fixture
def off_loop():
    """The work the runner ran, each as (its name, whether in another native thread, whether the game's lock was
    held by the caller meanwhile)."""
    ran = []

    def runner(work, *args):
        caller = threading.get_ident()
        out = []
        t = threading.Thread(target=lambda: out.append(work(*args)))
        t.start()
        t.join()
        ran.append((work.__name__, t.ident != caller))
        return out[0]
    yield ran, runner
    heavy.install(None)


def play(app, client, grid, runner=None):
    """A fog switch, a corner-to-corner move under fog, fog off and the way back on the worst map: the acks, and
    what the player's screen and the state's fog say after each."""
    r = client.post("/api/games", json={"name": "Big", "system": "plain_grid", "map": worst_map(grid, **FOG_MAP)})
    assert r.status_code == 201
    g = r.json
    mira = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    hero = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 149, "y": 0,
                                                             "owner": mira["player_id"]},
                       headers=bearer(g["gm_token"])).json["id"]
    gm, phone = connect(app, g["id"], g["gm_token"]), connect(app, g["id"], mira["player_token"])
    heavy.install(runner)
    seen = []
    for payload in ({"type": "set_fog", "enabled": True},
                    {"type": "move_token", "token_id": hero, "x": 30, "y": 149},
                    {"type": "set_fog", "enabled": False},
                    {"type": "move_token", "token_id": hero, "x": 149, "y": 3},
                    {"type": "set_fog", "enabled": True}):
        phone.get_received()
        ack = gm.emit("command", payload, callback=True)
        assert ack["ok"], (payload, ack)
        updates = [m["args"][0] for m in phone.get_received() if m["name"] == "update"]
        fog = client.get(f"/api/games/{g['id']}/state", headers=bearer(mira["player_token"])).json["fog"]
        seen.append((ack["seq"], [u["seq"] for u in updates], sorted(map(tuple, fog["visible"]))
                     if fog and fog.get("visible") else None,
                     sum(len(u["html"]) for u in updates)))
    heavy.install(None)
    return seen


@pytest.mark.parametrize("grid", ["square", "hex"])
def test_a_fog_switch_and_a_corner_move_on_the_largest_map_do_their_geometry_off_the_loop(app, client, off_loop, grid):
    ran, runner = off_loop
    in_place = play(app, client, grid)
    assert ran == []
    off = play(app, client, grid, runner)
    names = {name for name, _other in ran}
    assert {"_sight", "way_exists", "_layer", "_seen_part"} <= names, names
    assert all(other for _name, other in ran)  # each in a native thread of its own
    # the same acks (in order), the same updates to the phone, the same view
    assert [(acked, sent, visible) for acked, sent, visible, _size in off] == \
        [(acked, sent, visible) for acked, sent, visible, _size in in_place]
    assert [size for *_rest, size in off] == [size for *_rest, size in in_place]
    assert off[0][2] and len(off[0][2]) > 10_000  # fog on: the token sees the open board east of the walls
