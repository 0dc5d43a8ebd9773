"""Picture work counted and kept (#57), through the upload routes and the picture's address: a fogged map's
paint-out is made once for a picture and the squares known (asked again, or by two requests at once, it is
the one kept; a square more known makes a fresh one), the paint-outs kept are bounded in bytes, and a seat
that asks for more picture work than its share gets a 429 with Retry-After while the other seats go on."""

from __future__ import annotations

import io
import threading
import time
from collections import OrderedDict

import pytest
from PIL import Image

from tests.helpers import bearer, command, join, new_game, state
from webapp.storage import pictures


def png(color=(200, 40, 40), size=(480, 320)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def upload(client, g, path: str, key: str, data: bytes, **form):
    return client.post(f"/api/games/{g['id']}{path}", headers=bearer(key), content_type="multipart/form-data",
                       data={"file": (io.BytesIO(data), "p.png"), **form})


@pytest.fixture
def paint_outs(monkeypatch):
    """No paint-out kept from another test; each one made is counted (its mask drawn)."""
    from PIL import ImageDraw

    monkeypatch.setattr(pictures, "_MASKED", OrderedDict())
    monkeypatch.setattr(pictures, "_MASKED_SIZE", [0], raising=False)
    made = []
    draw = ImageDraw.Draw

    def counted(*args, **kw):
        made.append(time.monotonic())
        return draw(*args, **kw)

    monkeypatch.setattr(ImageDraw, "Draw", counted)
    return made


@pytest.fixture
def fogged(client):
    """A fogged map with a picture; Mira's token at (1, 1)."""
    g = new_game(client, "plain_grid", board={"width": 12, "height": 8, "walls": [{"a": [6, 0], "b": [6, 5]}]},
                 name="Paint-outs")
    g["Mira"] = join(client, g, "Mira")
    g["aria"] = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1, "kind": "pc",
                                                               "owner": g["Mira"]["player_id"]},
                            headers=bearer(g["gm_token"])).json["id"]
    assert upload(client, g, "/maps/active/picture", g["gm_token"], png(size=(480, 320))).status_code == 200
    assert command(client, g, {"type": "set_fog", "enabled": True}).json["ok"]
    g["url"] = state(client, g)["picture"]["url"]
    return g


def test_the_same_picture_and_squares_known_are_painted_out_once_and_a_square_more_known_paints_afresh(
        client, fogged, paint_outs):
    g, key = fogged, fogged["Mira"]["player_token"]
    first = client.get(g["url"], headers=bearer(key))
    again = client.get(g["url"], headers=bearer(key))
    assert first.status_code == again.status_code == 200
    assert len(paint_outs) == 1 and again.data == first.data and again.headers["ETag"] == first.headers["ETag"]
    # the browser's revalidation of the same paint-out: 304, nothing painted
    assert client.get(g["url"], headers=bearer(key) | {"If-None-Match": first.headers["ETag"]}).status_code == 304
    assert len(paint_outs) == 1
    # Aria steps east: she knows more squares, and her paint-out is made afresh
    assert command(client, g, {"type": "move_token", "token_id": g["aria"], "x": 3, "y": 6}, key).json["ok"]
    moved = client.get(g["url"], headers=bearer(key))
    assert moved.status_code == 200 and len(paint_outs) == 2
    assert moved.data != first.data and moved.headers["ETag"] != first.headers["ETag"]


def test_requests_at_once_for_the_same_paint_out_wait_for_the_one_being_made(app, fogged, paint_outs, monkeypatch):
    from PIL import ImageDraw

    g, key = fogged, fogged["Mira"]["player_token"]
    draw = ImageDraw.Draw

    def slow(*args, **kw):  # a big picture's paint-out takes a while
        time.sleep(0.3)
        return draw(*args, **kw)

    monkeypatch.setattr(ImageDraw, "Draw", slow)
    answers = []
    start = threading.Barrier(3)

    def fetch():
        client = app.test_client()
        start.wait()
        answers.append(client.get(g["url"], headers=bearer(key)))

    threads = [threading.Thread(target=fetch) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert [r.status_code for r in answers] == [200, 200, 200]
    assert len(paint_outs) == 1 and len({r.data for r in answers}) == 1


def test_the_paint_outs_kept_are_bounded_in_bytes(client, fogged, paint_outs, monkeypatch):
    g, key = fogged, fogged["Mira"]["player_token"]
    one = len(client.get(g["url"], headers=bearer(key)).data)
    monkeypatch.setattr(pictures, "MASKED_BYTES", int(one * 2.5), raising=False)
    for x in (2, 3, 4, 5):  # four steps, four paint-outs: the oldest are let go
        assert command(client, g, {"type": "move_token", "token_id": g["aria"], "x": x, "y": 6}, key).json["ok"]
        assert client.get(g["url"], headers=bearer(key)).status_code == 200
    assert len(paint_outs) == 5
    assert pictures._MASKED_SIZE[0] == sum(len(d) for d, _etag in pictures._MASKED.values()) <= pictures.MASKED_BYTES
    assert len(pictures._MASKED) == 2
    client.get(g["url"], headers=bearer(key))  # the last one is kept: not painted again
    assert len(paint_outs) == 5


@pytest.fixture
def small_share(monkeypatch):
    """A seat's share of picture work: the first piece, then nothing for a long while."""
    if hasattr(pictures, "_Shares"):
        monkeypatch.setattr(pictures, "_SHARES", pictures._Shares())
    monkeypatch.setattr(pictures, "SEAT_BURST", 0.000001, raising=False)
    monkeypatch.setattr(pictures, "SEAT_RATE", 0.0001, raising=False)


def test_a_seat_past_its_share_of_picture_work_gets_429_and_the_other_seats_go_on(client, fogged, small_share):
    g = fogged
    before = state(client, g)
    r = upload(client, g, "/pictures", g["gm_token"], png(color=(1, 2, 3)))
    assert r.status_code == 201, r.json
    for refused in (upload(client, g, "/pictures", g["gm_token"], png(color=(4, 5, 6))),
                    upload(client, g, "/maps/active/picture", g["gm_token"], png(color=(7, 8, 9))),
                    client.post(f"/api/games/{g['id']}/handouts", headers=bearer(g["gm_token"]),
                                content_type="multipart/form-data",
                                data={"title": "Note", "file": (io.BytesIO(png(color=(9, 9, 9))), "n.png")})):
        assert refused.status_code == 429, refused.json
        assert int(refused.headers["Retry-After"]) >= 1
        n = refused.headers["Retry-After"]
        assert refused.json["error"] == f"you asked for a lot of picture work in a short time: try again in {n} seconds"
    after = state(client, g)
    assert after["seq"] == before["seq"] + 1  # the first upload's event only: nothing kept of the refused
    # another seat of the same game goes on: Mira's own token picture, the table screen's look at the fogged map
    mira = g["Mira"]["player_token"]
    assert upload(client, g, "/pictures", mira, png(color=(11, 12, 13)), token_id=g["aria"]).status_code == 201
    assert client.get(g["url"], headers=bearer(g["screen_token"])).status_code == 200
    # and a seat of another game
    other = new_game(client, "plain_grid", name="Other table")
    assert upload(client, other, "/pictures", other["gm_token"], png(color=(14, 15, 16))).status_code == 201
    # the same squares known, Mira's look is the screen's paint-out kept: no work, not refused
    assert client.get(g["url"], headers=bearer(mira)).status_code == 200
    # a paint-out counts against the seat that asks for it: Aria steps on, Mira's share is spent, her look refused
    assert command(client, g, {"type": "move_token", "token_id": g["aria"], "x": 2, "y": 6}, mira).json["ok"]
    r = client.get(g["url"], headers=bearer(mira))
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert "you asked for a lot of picture work in a short time" in r.get_data(as_text=True)


def test_a_client_address_has_a_share_of_picture_work_across_its_seats(client, small_share, monkeypatch):
    monkeypatch.setattr(pictures, "SEAT_BURST", 10.0, raising=False)  # each seat has plenty; the address almost none
    monkeypatch.setattr(pictures, "ADDRESS_FACTOR", 0.0000001, raising=False)
    lan = {"REMOTE_ADDR": "192.168.1.23"}
    first, second = (new_game(client, "plain_grid", name=f"Stranger {i}") for i in (1, 2))
    r = client.post(f"/api/games/{first['id']}/pictures", headers=bearer(first["gm_token"]), environ_base=lan,
                    content_type="multipart/form-data", data={"file": (io.BytesIO(png()), "p.png")})
    assert r.status_code == 201, r.json
    r = client.post(f"/api/games/{second['id']}/pictures", headers=bearer(second["gm_token"]), environ_base=lan,
                    content_type="multipart/form-data", data={"file": (io.BytesIO(png(color=(3, 3, 3))), "p.png")})
    assert r.status_code == 429, r.json  # another game's seat, the same address
    # the host's own machine (loopback) is not counted as one address
    for g in (first, second):
        assert upload(client, g, "/pictures", g["gm_token"], png(color=(5, 5, 5))).status_code == 201


def test_a_seat_with_its_pieces_of_picture_work_all_waiting_is_refused_the_next_at_once(monkeypatch):
    shares = pictures._Shares()
    asker = pictures.Asker("game:gm", "192.168.1.5")
    for _ in range(pictures.SEAT_AT_ONCE):
        shares.start(asker)
    with pytest.raises(pictures.PicturesTooMuch) as refused:
        shares.start(asker)
    assert refused.value.status == 429 and refused.value.retry_after == pictures.RETRY_AFTER
    shares.start(pictures.Asker("game:player:p1", "192.168.1.6"))  # another seat is not held up
    shares.done(asker, 0.1)
    shares.start(asker)  # one done: the next one is let in


def test_an_address_with_its_pieces_of_picture_work_all_waiting_is_refused_the_next_of_any_of_its_seats():
    shares = pictures._Shares()
    for i in range(pictures.ADDRESS_FACTOR):  # the address's pieces at once, from seats of games of its own
        for _ in range(pictures.SEAT_AT_ONCE):
            shares.start(pictures.Asker(f"game{i}:gm", "192.168.1.5"))
    with pytest.raises(pictures.PicturesTooMuch):
        shares.start(pictures.Asker("another:gm", "192.168.1.5"))
    shares.start(pictures.Asker("another:gm", "192.168.1.6"))  # another address is not held up
    for _ in range(pictures.SEAT_AT_ONCE):  # nor the host's own machine, whose seats all share loopback
        shares.start(pictures.Asker("host:gm", "127.0.0.1"))
        shares.start(pictures.Asker("host:screen", "127.0.0.1"))


def test_a_seat_past_its_share_is_told_so_in_the_page_readers_language(app, small_share):
    from test_i18n_log_replay_picture_refusals import gm_page_in
    from test_i18n_log_replay_picture_refusals import ruins_with_mira as game_with_player
    from test_i18n_log_replay_picture_refusals import upload as page_upload

    _api, g, _p = game_with_player(app)
    page = gm_page_in(app, g, "de")
    assert page_upload(page, f"/games/{g['id']}/maps/picture", png(), "floor.png").status_code == 200
    r = page_upload(page, f"/games/{g['id']}/maps/picture", png(color=(1, 1, 1)), "floor.png")
    n = r.headers["Retry-After"]
    assert r.status_code == 429
    assert r.json["error"] == f"du hast in kurzer Zeit viel Bildarbeit angefordert: versuche es in {n} Sekunden erneut"
