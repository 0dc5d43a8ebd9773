"""The silent video that keeps a phone's screen on over plain HTTP (issue #61, static/js/device.js): both files
served from this site with their types, small, to the range requests Safari starts a video with; the player's page
names them and its Content-Security-Policy lets them load (default-src 'self', never data: or blob:)."""

from __future__ import annotations

import pytest

from tests.helpers import join, new_game

FILES = {"keep-awake.mp4": ("video/mp4", (b"avc1", b"mp4a")), "keep-awake.webm": ("video/webm", (b"V_VP8", b"A_OPUS"))}


@pytest.mark.parametrize("name", sorted(FILES))
def test_each_video_is_served_small_with_its_type_and_a_sound_track(client, name):
    kind, codecs = FILES[name]
    r = client.get(f"/static/media/{name}")
    assert r.status_code == 200
    assert r.mimetype == kind
    assert r.headers["X-Content-Type-Options"] == "nosniff"
    body = r.get_data()
    assert 1000 < len(body) < 16 * 1024, "a few KB"
    for codec in codecs:  # a picture and a (silent) sound track: a muted or soundless video keeps no screen on
        assert codec in body, f"{name} has no {codec!r} track"


def test_a_range_request_gets_its_part(client):
    """Safari asks for bytes=0-1 first, and plays no video from a server that does not answer ranges."""
    r = client.get("/static/media/keep-awake.mp4", headers={"Range": "bytes=0-1"})
    assert r.status_code == 206
    assert r.headers["Content-Range"].startswith("bytes 0-1/")
    assert len(r.get_data()) == 2


def test_the_players_page_names_both_and_lets_them_load(client):
    game = new_game(client)
    mira = join(client, game, "Mira")
    r = client.get(f"/games/{game['id']}/play?key={mira['player_token']}", follow_redirects=True)
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert 'data-mp4="/static/media/keep-awake.mp4"' in page and 'data-webm="/static/media/keep-awake.webm"' in page
    policy = {part.split()[0]: part.split()[1:] for part in r.headers["Content-Security-Policy"].split(";") if part.strip()}
    media = policy.get("media-src", policy["default-src"])
    assert media == ["'self'"], policy
