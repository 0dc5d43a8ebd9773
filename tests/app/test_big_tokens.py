"""Big tokens (2 x 2, 3 x 3) in a fight: range, line of fire, reach and movement count from
the squares they cover, not from their top-left square (docs/RULES.md, "Big tokens")."""

from __future__ import annotations

import pytest

from webapp import create_app


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def client(tmp_path):
    return create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False,
                       "DICE_SEED": "5"}).test_client()


def send(client, g, body):
    return client.post(f"/api/games/{g['id']}/commands", json=body, headers=bearer(g["gm_token"]))


def game(client, system="phase_tn", walls=()):
    g = client.post("/api/games", json={"name": "Big", "system": system,
                                        "map": {"width": 20, "height": 12, "walls": list(walls)}}).json
    add = lambda body: client.post(f"/api/games/{g['id']}/tokens", json=body, headers=bearer(g["gm_token"])).json["id"]
    return g, add


def test_range_is_counted_to_the_nearest_square_of_a_big_target(client):
    g, add = game(client)
    ogre = add({"name": "Ogre", "x": 5, "y": 5, "size": 2})  # covers (5..6, 5..6)
    archer = add({"name": "Archer", "x": 10, "y": 5})
    view = send(client, g, {"type": "preview_attack", "attacker": archer, "target": ogre}).json["preview"]
    assert view["distance"] == 4  # from (10, 5) to (6, 5), not to the top-left (5, 5)
    assert view["to"] == [6, 5]
    view = send(client, g, {"type": "preview_attack", "attacker": ogre, "target": archer}).json["preview"]
    assert view["distance"] == 4 and view["from"] == [6, 5]


def test_a_big_shooter_fires_from_whichever_of_its_squares_sees_the_target(client):
    # a wall across the ogre's top row line: (5, 5) cannot see (12, 5), its lower squares can
    g, add = game(client, walls=[{"a": [8, 4], "b": [8, 6]}])
    ogre = add({"name": "Ogre", "x": 5, "y": 5, "size": 2})
    archer = add({"name": "Archer", "x": 12, "y": 5})
    rat = add({"name": "Rat", "x": 12, "y": 8})
    r = send(client, g, {"type": "preview_attack", "attacker": ogre, "target": archer})
    assert r.status_code == 200, r.json
    view = r.json["preview"]
    assert view["line"]["clear"] and view["from"][1] == 6  # from its lower row
    assert send(client, g, {"type": "preview_attack", "attacker": rat, "target": archer}).status_code == 200
    # one square each is judged square to square as before: the wall blocks
    small = add({"name": "Imp", "x": 5, "y": 4})
    r = send(client, g, {"type": "preview_attack", "attacker": small, "target": archer})
    assert r.status_code == 422 and "no line of fire" in r.json["error"]


def test_reach_of_a_big_token_keeps_its_whole_footprint_clear(client):
    # a wall with a one-square gap at y = 5: a 2 x 2 token cannot squeeze through it
    walls = [{"a": [8, 0], "b": [8, 5]}, {"a": [8, 6], "b": [8, 12]}]
    g, add = game(client, "gurps_lite", walls=walls)
    ogre = add({"name": "Ogre", "x": 5, "y": 4, "size": 2})
    reach = send(client, g, {"type": "reach", "token_id": ogre}).json
    assert reach["size"] == 2
    tops = {(x, y) for x, y, _ in reach["cells"]}
    assert (6, 4) in tops and not any(x >= 8 for x, _ in tops)  # the gap is one square: no way through
    imp = add({"name": "Imp", "x": 5, "y": 9})
    small = {(x, y) for x, y, _ in send(client, g, {"type": "reach", "token_id": imp}).json["cells"]}
    assert (9, 5) in small  # a one-square token goes through the gap


def test_a_big_token_in_a_fight_pays_the_way_round_a_wall_not_the_crow_flight(client):
    g, add = game(client, "savage_worlds", walls=[{"a": [7, 0], "b": [7, 10]}])
    ogre = add({"name": "Ogre", "x": 4, "y": 7, "size": 2})
    send(client, g, {"type": "start_combat", "token_ids": [ogre]})
    left = send(client, g, {"type": "reach", "token_id": ogre}).json["left"]
    costs = {(x, y): c for x, y, c in send(client, g, {"type": "reach", "token_id": ogre}).json["cells"]}
    assert costs[(4, 9)] == 2 and (8, 7) not in costs  # round the wall's end (rows 10-11) is 7: too far
    r = send(client, g, {"type": "move_token", "token_id": ogre, "x": 8, "y": 7})
    assert r.status_code == 422 and str(left).rstrip("0").rstrip(".") in r.json["error"]
