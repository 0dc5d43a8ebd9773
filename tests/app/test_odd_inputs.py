"""Odd inputs get a clear refusal, never a 500 or a map past its limits (issue 57): a Host with a user part,
a map file with a number thousands of digits long, a map file with one door too many."""

from __future__ import annotations

import io
import json

import pytest

from tests.helpers import bearer, new_game, state
from webapp.game.board.mapdata import MAX_DOORS

pytestmark = pytest.mark.app_config(DEMO=False)


def map_file(**more) -> bytes:
    return json.dumps({"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 40, "y": 40},
                                                    "pixels_per_grid": 50}, "line_of_sight": [], **more}).encode()


def upload(client, game, data: bytes):
    return client.post(f"/api/games/{game['id']}/maps", data={"file": (io.BytesIO(data), "cave.dd2vtt")},
                       headers=bearer(game["gm_token"]), content_type="multipart/form-data")


@pytest.mark.parametrize("host", ["localhost:5000@evil.example", "localhost:@evil.example", "localhost:5000/x",
                                  "[::1]:5000@evil.example", "local host"])
def test_a_host_with_more_than_a_name_and_a_port_is_refused_like_an_unknown_one(client, host):
    for path in ("/", "/help/"):
        r = client.get(path, headers={"Host": host})
        assert r.status_code == 400, (host, path, r.status_code)
        assert b"does not answer to that host name" in r.get_data()
    assert client.get("/", headers={"Host": "localhost:5000"}).status_code == 200


def test_a_map_file_with_a_number_thousands_of_digits_long_is_refused_with_the_reason(client):
    game = new_game(client)
    before = [m["id"] for m in state(client, game)["maps"]]
    data = map_file().replace(b'"pixels_per_grid": 50', b'"pixels_per_grid": ' + b"7" * 5000)
    r = upload(client, game, data)
    assert r.status_code == 422, r.get_data(as_text=True)[:200]
    assert "digits" in r.json["error"]
    assert [m["id"] for m in state(client, game)["maps"]] == before


def test_a_map_file_holds_at_most_the_door_limit(client):
    game = new_game(client)

    def portals(n):
        return [{"bounds": [{"x": x % 40, "y": x // 40 + 0.5}, {"x": x % 40 + 1, "y": x // 40 + 0.5}], "closed": True}
                for x in range(n)]

    r = upload(client, game, map_file(portals=portals(MAX_DOORS + 1)))
    assert r.status_code == 422 and f"{MAX_DOORS + 1:,} doors" in r.json["error"], r.json
    r = upload(client, game, map_file(portals=portals(MAX_DOORS)))
    assert r.status_code == 201 and r.json["doors"] == MAX_DOORS, r.json
