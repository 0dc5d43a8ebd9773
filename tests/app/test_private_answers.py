"""Answers that carry a key or what an audience may not see are not kept by a browser's or a proxy's cache, and
pages that differ by language say so (issue 57)."""

from __future__ import annotations

import pytest

from tests.helpers import GAMES, bearer, join, new_game

pytestmark = pytest.mark.app_config(DEMO=False)


def test_the_gm_page_the_play_page_and_each_audiences_state_are_not_stored(client, app):
    game = new_game(client)
    player = join(client, game, "Ann")
    gm_page = client.get(f"/games/{game['id']}/gm?key={game['gm_token']}", follow_redirects=True)
    play_page = app.test_client().get(f"/games/{game['id']}/play?key={player['player_token']}", follow_redirects=True)
    assert gm_page.status_code == 200 and play_page.status_code == 200
    answers = {
        "the GM page": gm_page,
        "the play page": play_page,
        "the GM's state": client.get(f"{GAMES}/{game['id']}/state", headers=bearer(game["gm_token"])),
        "a player's state": client.get(f"{GAMES}/{game['id']}/state", headers=bearer(player["player_token"])),
        "the screen's state": client.get(f"{GAMES}/{game['id']}/state", headers=bearer(game["screen_token"])),
    }
    for where, answer in answers.items():
        assert answer.status_code == 200, where
        assert "no-store" in answer.headers.get("Cache-Control", ""), where


def test_pages_say_they_differ_by_language_and_static_files_keep_their_own_caching(client):
    page = client.get("/", headers={"Accept-Language": "de"})
    assert {"Accept-Language", "Accept-Encoding", "Cookie"} <= set(page.vary), page.headers.get("Vary")
    script = client.get("/static/js/upload.js")
    assert script.headers.get("Cache-Control") == "no-cache"  # revalidated, not refused: the same for everyone
