"""A hand-out given to a player who is then merged into another is the other's now (issue #33: it was lost),
open where it was open; so is a token picture the merged player uploaded."""

from __future__ import annotations

import pytest

from tests.helpers import bearer
from webapp import create_app


pytestmark = pytest.mark.app_config(DEMO=False)


def test_a_handout_shown_to_a_merged_player_is_the_kept_players_and_survives_a_restart(app, tmp_path):
    c = app.test_client()
    g = c.post("/api/games", json={"name": "Harrow", "system": "plain_grid"}).json
    mira, olaf = (c.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": n}).json
                  for n in ("Mira", "Olaf"))
    made = c.post(f"/api/games/{g['id']}/handouts", data={"title": "The old map", "text": "X marks the crypt"},
                  headers=bearer(g["gm_token"]))
    assert made.status_code == 201, made.json
    handout = made.json["handout_id"]

    def command(body):
        r = c.post(f"/api/games/{g['id']}/commands", json=body, headers=bearer(g["gm_token"]))
        assert r.status_code == 200, r.json

    command({"type": "show_handout", "handout_id": handout, "to": [olaf["player_id"]]})
    mine = lambda key: c.get(f"/api/games/{g['id']}/state", headers=bearer(key)).json["handouts"]  # noqa: E731
    assert [h["title"] for h in mine(olaf["player_token"])] == ["The old map"]
    assert mine(mira["player_token"]) == []
    command({"type": "merge_players", "player_id": olaf["player_id"], "into": mira["player_id"]})

    held = mine(mira["player_token"])
    assert [(h["id"], h["title"], h["open"]) for h in held] == [(handout, "The old map", True)]
    gm_view = c.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["handouts"][0]
    assert gm_view["to"] == [mira["player_id"]]
    # Olaf's old key is Mira's seat now: it reads the same
    assert [h["id"] for h in mine(olaf["player_token"])] == [handout]
    page = c.get(f"/games/{g['id']}/play?key={mira['player_token']}", follow_redirects=True).get_data(as_text=True)
    assert "The old map" in page
    # the same after the log is read again (a restart replays the events)
    again = create_app({"DATA_DIR": str(tmp_path / "data"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    state = again.test_client().get(f"/api/games/{g['id']}/state", headers=bearer(mira["player_token"])).json
    assert [h["id"] for h in state["handouts"]] == [handout]
