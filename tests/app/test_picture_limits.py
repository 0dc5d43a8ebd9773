"""Pictures cannot take the server's memory or a game's disk (#32), asked through the upload routes: at most
``pictures.DECODES_AT_ONCE`` decodes run at once (others wait their turn, then get a 503 with Retry-After), a
picture's pixels are counted from its header before one is decoded (a decompression bomb is refused with a
clear message), and a game stores ``pictures.GAME_BUDGET`` bytes of pictures at most. A refused upload leaves
no event and no file. And a player or the table screen asking a fogged map's picture at its plain address
(with a key, or the browser's session) gets only what they have seen (#33)."""

from __future__ import annotations

import io
import struct
import threading
import time
import zlib
from pathlib import Path

import pytest
from PIL import Image

from tests.helpers import bearer, join, new_game, state
from webapp.game.board import uvtt
from webapp.storage import pictures


def png(color=(200, 40, 40), size=(48, 32)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def declared_png(width: int, height: int) -> bytes:
    """A PNG of a few dozen bytes whose header declares ``width`` x ``height`` one-bit pixels: decoded, the
    pixels would take what the header says (the shape of a decompression bomb)."""
    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(b"\0" * 64))
            + chunk(b"IEND", b""))


@pytest.fixture
def g(client):
    g = new_game(client, "plain_grid", name="Pictures")
    g["Mira"] = join(client, g, "Mira")
    g["aria"] = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1, "kind": "pc",
                                                               "owner": g["Mira"]["player_id"]},
                            headers=bearer(g["gm_token"])).json["id"]
    return g


def token_picture(client, g, data: bytes, token=None, token_id=None):
    form = {"file": (io.BytesIO(data), "face.png")} | ({"token_id": token_id} if token_id else {})
    return client.post(f"/api/games/{g['id']}/pictures", data=form, content_type="multipart/form-data",
                       headers=bearer(token or g["gm_token"]))


def stored(app, g) -> list[str]:
    folder = Path(app.config["DATA_DIR"]) / "pictures" / g["id"]
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


@pytest.fixture
def slow_decodes(monkeypatch):
    """Every picture check takes ``hold`` seconds more and is counted while it runs (the decodes at once)."""
    seen = {"now": 0, "most": 0, "hold": 0.3}
    lock = threading.Lock()
    check = uvtt.check_picture

    def counted(data, where="picture"):
        with lock:
            seen["now"] += 1
            seen["most"] = max(seen["most"], seen["now"])
        try:
            time.sleep(seen["hold"])
            return check(data, where)
        finally:
            with lock:
                seen["now"] -= 1

    monkeypatch.setattr(uvtt, "check_picture", counted)
    return seen


def upload_at_once(app, g, n: int, kinds: int = 3) -> list:
    """``n`` GM uploads of different pictures, all at once: token pictures, hand-outs and the map's in turn
    (``kinds=1``: token pictures only)."""
    answers = [None] * n
    start = threading.Barrier(n)

    def one(i):
        client = app.test_client()
        data = png(color=(i * 20 % 256, 40, 40))
        start.wait()
        if i % kinds == 0:
            answers[i] = token_picture(client, g, data)
        elif i % kinds == 1:
            answers[i] = client.post(f"/api/games/{g['id']}/handouts", data={"title": f"Note {i}", "file": (
                io.BytesIO(data), "n.png")}, content_type="multipart/form-data", headers=bearer(g["gm_token"]))
        else:
            answers[i] = client.post(f"/api/games/{g['id']}/maps/active/picture", data={"file": (
                io.BytesIO(data), "m.png")}, content_type="multipart/form-data", headers=bearer(g["gm_token"]))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return answers


def test_at_most_a_few_pictures_are_decoded_at_once_and_the_others_wait_their_turn(app, g, slow_decodes):
    assert pictures.DECODES_AT_ONCE == 2
    answers = upload_at_once(app, g, 6)
    assert [r.status_code for r in answers] == [201, 201, 200, 201, 201, 200], [r.json for r in answers]
    assert slow_decodes["most"] == pictures.DECODES_AT_ONCE  # six at once, two decoding at a time


def test_a_decode_that_waits_too_long_is_a_503_with_retry_after_and_keeps_nothing(app, client, g, slow_decodes,
                                                                                   monkeypatch):
    monkeypatch.setattr(pictures, "DECODE_WAIT", 0.05)
    slow_decodes["hold"] = 1.0
    before = state(client, g)
    answers = upload_at_once(app, g, 6, kinds=1)
    busy = [r for r in answers if r.status_code == 503]
    done = [r for r in answers if r.status_code == 201]
    assert len(done) == pictures.DECODES_AT_ONCE and len(busy) == 6 - pictures.DECODES_AT_ONCE, \
        [(r.status_code, r.json) for r in answers]
    for r in busy:
        assert r.headers["Retry-After"] == str(pictures.RETRY_AFTER)
        assert r.json["error"] == "the server is busy reading other pictures: try again in 5 seconds"
    after = state(client, g)
    assert before["seq"] + len(done) == after["seq"]  # one event for each upload decoded, none for the others
    assert sorted(after["pictures"]) == sorted(r.json["picture_id"] for r in done)
    assert len(stored(app, g)) == len(done)


def test_the_fogged_copy_of_a_map_picture_takes_a_decode_place_too(app, client, g, monkeypatch):
    r = client.post(f"/api/games/{g['id']}/maps/active/picture", data={"file": (io.BytesIO(png(size=(240, 160))),
                    "m.png")}, content_type="multipart/form-data", headers=bearer(g["gm_token"]))
    assert r.status_code == 200
    assert client.post(f"/api/games/{g['id']}/commands", json={"type": "set_fog", "enabled": True},
                       headers=bearer(g["gm_token"])).json["ok"]
    url = state(client, g, g["Mira"]["player_token"])["picture"]["url"]
    monkeypatch.setattr(pictures, "DECODE_WAIT", 0.05)
    for _ in range(pictures.DECODES_AT_ONCE):  # every place taken (as by decodes running elsewhere)
        assert pictures._DECODES.acquire(timeout=1)
    try:
        r = client.get(url, headers=bearer(g["Mira"]["player_token"]))
        assert r.status_code == 503 and r.headers["Retry-After"] == "5"
    finally:
        for _ in range(pictures.DECODES_AT_ONCE):
            pictures._DECODES.release()
    r = client.get(url, headers=bearer(g["Mira"]["player_token"]))
    assert r.status_code == 200 and r.mimetype == "image/png"


@pytest.mark.parametrize("width, height, message", [
    (8192, 8192, "file: 8192 x 8192 px is 64 megapixels, over the limit of 32 megapixels"),
    (100_000, 100_000, "file: the picture says it is far over the limit of 8192 x 8192 px"),
    (9000, 10, "file: 9000 x 10 px is over the limit of 8192 x 8192 px"),
])
def test_a_decompression_bomb_is_refused_from_its_header_with_a_clear_message(app, client, g, width, height, message,
                                                                              monkeypatch):
    decoded = []
    monkeypatch.setattr(Image.Image, "load", lambda self: decoded.append(self.size))  # no pixel may be decoded
    bomb = declared_png(width, height)
    assert len(bomb) < 200
    before = state(client, g)
    for send in (lambda: token_picture(client, g, bomb),
                 lambda: token_picture(client, g, bomb, token=g["Mira"]["player_token"], token_id=g["aria"]),
                 lambda: client.post(f"/api/games/{g['id']}/maps/active/picture", headers=bearer(g["gm_token"]),
                                     data={"file": (io.BytesIO(bomb), "m.png")}, content_type="multipart/form-data"),
                 lambda: client.post(f"/api/games/{g['id']}/handouts", headers=bearer(g["gm_token"]), data={
                     "title": "Bomb", "file": (io.BytesIO(bomb), "b.png")}, content_type="multipart/form-data")):
        r = send()
        assert r.status_code == 422 and r.json["error"] == message, r.json
    assert decoded == []
    assert state(client, g) == before and stored(app, g) == []


def test_a_game_stores_its_budget_of_pictures_and_refuses_the_next_clearly(app, client, g, monkeypatch):
    first, second, third = (png(color=(c, 1, 2), size=(200, 200)) for c in (10, 20, 30))
    # the budget holds two of these pictures (as stored: written again without metadata), not three
    size = len(pictures.checked(first).data)
    monkeypatch.setattr(pictures, "GAME_BUDGET", 2 * size + size // 2)
    assert token_picture(client, g, first).status_code == 201
    assert token_picture(client, g, second, token=g["Mira"]["player_token"], token_id=g["aria"]).status_code == 201
    before, files = state(client, g), stored(app, g)
    for r in (token_picture(client, g, third),
              client.post(f"/api/games/{g['id']}/handouts", headers=bearer(g["gm_token"]), data={
                  "title": "Map", "file": (io.BytesIO(third), "m.png")}, content_type="multipart/form-data"),
              client.post(f"/api/games/{g['id']}/maps/active/picture", headers=bearer(g["gm_token"]),
                          data={"file": (io.BytesIO(third), "m.png")}, content_type="multipart/form-data")):
        assert r.status_code == 422
        assert r.json["error"].startswith("this game's pictures take 0.") and r.json["error"].endswith(
            f"MB a game may store: this one ({len(pictures.checked(third).data) / 1048576:.1f} MB) does not fit")
    assert state(client, g) == before and stored(app, g) == files
    # a picture the game stores already costs nothing more: the first one again as a hand-out
    r = client.post(f"/api/games/{g['id']}/handouts", headers=bearer(g["gm_token"]), data={
        "title": "Again", "file": (io.BytesIO(first), "a.png")}, content_type="multipart/form-data")
    assert r.status_code == 201 and stored(app, g) == files


def test_another_game_has_its_own_budget(app, client, g, monkeypatch):
    data = png(size=(200, 200))
    monkeypatch.setattr(pictures, "GAME_BUDGET", len(pictures.checked(data).data))
    assert token_picture(client, g, data).status_code == 201
    assert token_picture(client, g, png(color=(1, 2, 3), size=(200, 200))).status_code == 422
    other = client.post("/api/games", json={"name": "Other", "system": "plain_grid"}).json
    assert token_picture(client, other, png(color=(1, 2, 3), size=(200, 200))).status_code == 201


# --- #33: the plain address of a fogged map's picture ----------------------------------------------------

ROOM = {"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 5]}]}


@pytest.mark.parametrize("grid", ["square", "hex"])
def test_a_fogged_maps_picture_at_its_plain_address_shows_players_and_the_screen_only_what_they_saw(
        app, client, grid):
    g = client.post("/api/games", json={"name": "Fog", "system": "plain_grid",
                                        "map": ROOM | ({"grid": "hex"} if grid == "hex" else {})}).json
    mira = client.post(f"/api/games/{g['id']}/players", json={"join_code": g["join_code"], "name": "Mira"}).json
    client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1, "kind": "pc",
                                                      "owner": mira["player_id"]}, headers=bearer(g["gm_token"]))
    r = client.post(f"/api/games/{g['id']}/maps/active/picture", headers=bearer(g["gm_token"]),
                    data={"file": (io.BytesIO(png(size=(960, 700))), "m.png")}, content_type="multipart/form-data")
    assert r.status_code == 200
    assert client.post(f"/api/games/{g['id']}/commands", json={"type": "set_fog", "enabled": True},
                       headers=bearer(g["gm_token"])).json["ok"]
    plain = state(client, g)["picture"]["url"]
    assert "?" not in plain

    def red(data: bytes) -> float:
        with Image.open(io.BytesIO(data)) as img:
            raw = img.convert("RGB").resize((96, 70)).tobytes()
        return sum(raw[i:i + 3] != b"\0\0\0" for i in range(0, len(raw), 3)) / (96 * 70)

    assert red(client.get(plain, headers=bearer(g["gm_token"])).data) == 1.0  # the GM's: whole
    phone = app.test_client()  # a player's browser: the key its session remembers, no Bearer
    assert phone.get(f"/games/{g['id']}/play?key={mira['player_token']}", follow_redirects=True).status_code == 200
    screen = app.test_client()
    assert screen.get(f"/games/{g['id']}/screen?key={g['screen_token']}", follow_redirects=True).status_code == 200
    for r in (client.get(plain, headers=bearer(mira["player_token"])), phone.get(plain),
              client.get(plain, headers=bearer(g["screen_token"])), screen.get(plain),
              client.head(plain, headers=bearer(mira["player_token"]))):
        assert r.status_code == 200 and r.headers["Cache-Control"] == "private, no-cache"
        if r.request.method == "GET":
            assert 0.05 < red(r.data) < 0.6  # what Aria saw from (1, 1) west of the wall; nothing east of it
