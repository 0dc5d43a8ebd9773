"""The recap's board pictures on a big map (#61): framed on the fight's tokens, so they are drawn large on the
table screen; a small map is still drawn whole."""

from __future__ import annotations

import base64
import re

import pytest

from tests.helpers import bearer, command as send, new_game
from webapp.game.views import recap

pytestmark = pytest.mark.app_config(DEMO=False, DICE_SEED="5")


def pictures(text: str) -> list[str]:
    return [base64.b64decode(b).decode() for b in re.findall(r'src="data:image/svg\+xml;base64,([^"]+)"', text)]


def view_box(svg: str) -> tuple[float, ...]:
    return tuple(float(v) for v in re.search(r'viewBox="([^"]+)"', svg).group(1).split())


def fought(client, board, places):
    g = new_game(client, "savage_worlds", board, name="Big hall")
    ids = [client.post(f"/api/games/{g['id']}/tokens", json={"name": name, "x": x, "y": y},
                       headers=bearer(g["gm_token"])).json["id"] for name, (x, y) in places.items()]
    assert send(client, g, {"type": "start_combat", "token_ids": ids}).status_code == 200
    assert send(client, g, {"type": "end_combat"}).status_code == 200
    r = client.get(f"/games/{g['id']}/recap", headers=bearer(g["gm_token"]))
    assert r.status_code == 200
    return pictures(r.data.decode())


def test_a_fight_on_a_big_map_is_framed_on_its_tokens(app):
    start, end = fought(app.test_client(), {"width": 40, "height": 30}, {"Hero": (30, 20), "Ogre": (33, 21)})[:2]
    for svg in (start, end):
        x, y, w, h = view_box(svg)
        assert (w, h) == (recap.FRAME_MIN, recap.FRAME_MIN), svg[:200]  # 12 squares each way, not 40 x 30
        for cx, cy in ((30.5, 20.5), (33.5, 21.5)):  # both tokens inside, with room around them
            assert x + 1 <= cx <= x + w - 1 and y + 1 <= cy <= y + h - 1
        assert "<title>Hero</title>" in svg and "<title>Ogre</title>" in svg


def test_a_fight_at_the_edge_of_a_big_map_is_framed_on_the_map(app):
    (start, *_rest) = fought(app.test_client(), {"width": 40, "height": 30}, {"Hero": (0, 0), "Ogre": (39, 1)})
    x, y, w, h = view_box(start)
    assert x == 0 and y == 0 and w == 40 and h == recap.FRAME_MIN  # as wide as the map, never past its edges


def test_a_small_map_is_drawn_whole(app):
    (start, *_rest) = fought(app.test_client(), {"width": 12, "height": 8}, {"Hero": (2, 2), "Ogre": (3, 2)})
    assert view_box(start) == (0, 0, 12, 8)
