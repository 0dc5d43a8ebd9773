"""Hand-outs and token pictures (#27), through the API, the pages and a player's live link.

A hand-out reaches only whom the GM showed it to (pages, live updates, /state, the picture's address);
uploads are checked as map pictures are and a refused one leaves nothing behind; a player uploads and sets
pictures for their own tokens only; a hidden token's picture reaches no player."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from PIL import Image

from tests.helpers import bearer, command, join, new_game, state
from webapp.game.board import uvtt


def png(color=(200, 40, 40), size=(48, 32), fmt="PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, fmt)
    return out.getvalue()


@pytest.fixture
def t(client):
    g = new_game(client, "plain_grid", name="Hand-outs")
    for name in ("Mira", "Olaf"):
        g[name] = join(client, g, name)
    gm = bearer(g["gm_token"])
    g["aria"] = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1, "kind": "pc",
                                                               "owner": g["Mira"]["player_id"]}, headers=gm).json["id"]
    g["bruno"] = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Bruno", "x": 3, "y": 1, "kind": "pc",
                                                                "owner": g["Olaf"]["player_id"]}, headers=gm).json["id"]
    g["spy"] = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Spy", "x": 6, "y": 6, "hidden": True},
                           headers=gm).json["id"]
    return g


def handout(client, t, title="The letter", text="", data: bytes | None = None, token=None, filename="letter.png"):
    form = {"title": title, "text": text}
    if data is not None:
        form["file"] = (io.BytesIO(data), filename)
    return client.post(f"/api/games/{t['id']}/handouts", data=form, content_type="multipart/form-data",
                       headers=bearer(token or t["gm_token"]))


def token_picture(client, t, data: bytes, token=None, token_id=None, filename="face.png"):
    form = {"file": (io.BytesIO(data), filename)}
    if token_id:
        form["token_id"] = token_id
    return client.post(f"/api/games/{t['id']}/pictures", data=form, content_type="multipart/form-data",
                       headers=bearer(token or t["gm_token"]))


def stored_files(app, t) -> set[str]:
    folder = Path(app.config["DATA_DIR"]) / "pictures" / t["id"]
    return {p.name for p in folder.iterdir()} if folder.exists() else set()


def page_of(app, t, role, key, path):
    c = app.test_client()
    with c.session_transaction() as s:
        s[role] = {t["id"]: key}
    return c.get(path).get_data(as_text=True)


def test_a_handout_shown_to_the_screen_and_one_player_reaches_those_two_only(app, client, hub, t):
    mira, olaf = t["Mira"]["player_token"], t["Olaf"]["player_token"]
    socketio = app.extensions["tacmap_socketio"]
    olaf_live = socketio.test_client(app, auth={"game": t["id"], "token": olaf})
    mira_live = socketio.test_client(app, auth={"game": t["id"], "token": mira})
    olaf_live.get_received(), mira_live.get_received()
    r = handout(client, t, "Map of the crypt", "Under the third stone.", png())
    assert r.status_code == 201, r.json
    hid = r.json["handout_id"]
    r = command(client, t, {"type": "show_handout", "handout_id": hid, "to": ["screen", t["Mira"]["player_id"]]})
    assert r.status_code == 200, r.json

    url = state(client, t, t["gm_token"])["handouts"][0]["picture"]["url"]
    for token in (mira, t["screen_token"]):
        got = state(client, t, token)["handouts"]
        assert [h["title"] for h in got] == ["Map of the crypt"] and got[0]["open"] and "to" not in got[0]
        assert client.get(url, headers=bearer(token)).status_code == 200
    # Olaf: not in his state, not at the picture's address, not in his page, not in his live updates
    assert state(client, t, olaf)["handouts"] == []
    assert client.get(url, headers=bearer(olaf)).status_code == 404
    assert client.get(url).status_code == 403
    page = page_of(app, t, "player", olaf, f"/games/{t['id']}/play")
    assert "Map of the crypt" not in page and url.rsplit("/", 1)[1] not in page and "third stone" not in page
    heard = repr(olaf_live.get_received())
    assert "crypt" not in heard and url.rsplit("/", 1)[1] not in heard
    assert "Map of the crypt" in repr(mira_live.get_received())
    assert "Map of the crypt" in page_of(app, t, "player", mira, f"/games/{t['id']}/play")
    screen_page = page_of(app, t, "screen", t["screen_token"], f"/games/{t['id']}/screen")
    assert "Map of the crypt" in screen_page and "Under the third stone." in screen_page


def test_hide_handout_puts_it_away_and_a_player_can_open_it_again(client, t, app):
    mira = t["Mira"]["player_token"]
    hid = handout(client, t, "Wanted", "Reward: 50 gold", png()).json["handout_id"]
    assert command(client, t, {"type": "show_handout", "handout_id": hid, "to": "everyone"}).status_code == 200
    assert command(client, t, {"type": "hide_handout", "handout_id": hid}).status_code == 200
    mine = state(client, t, mira)["handouts"]
    assert [(h["title"], h["open"]) for h in mine] == [("Wanted", False)]  # kept: listed, to open again
    assert client.get(mine[0]["picture"]["url"], headers=bearer(mira)).status_code == 200
    assert not state(client, t, t["screen_token"])["handouts"][0]["open"]  # the screen shows it no more
    page = page_of(app, t, "player", mira, f"/games/{t['id']}/play")
    assert f'data-handout-open="{hid}"' in page and "Reward: 50 gold" in page
    screen = page_of(app, t, "screen", t["screen_token"], f"/games/{t['id']}/screen")
    assert "Reward: 50 gold" not in screen
    r = command(client, t, {"type": "hide_handout", "handout_id": hid})
    assert r.status_code == 422 and "not shown" in r.json["error"]
    # removed: nobody has it any more
    assert command(client, t, {"type": "remove_handout", "handout_id": hid}).status_code == 200
    assert state(client, t, mira)["handouts"] == []
    assert client.get(mine[0]["picture"]["url"], headers=bearer(mira)).status_code == 404


def test_everyone_reaches_a_player_who_joins_later_and_a_text_handout_needs_no_picture(client, t):
    hid = handout(client, t, "Rumours", "The mill burns at midnight.").json["handout_id"]
    command(client, t, {"type": "show_handout", "handout_id": hid, "to": "everyone"})
    late = client.post(f"/api/games/{t['id']}/players", json={"join_code": t["join_code"], "name": "Pell"}).json
    got = state(client, t, late["player_token"])["handouts"]
    assert got[0]["text"] == "The mill burns at midnight." and got[0]["picture"] is None


@pytest.mark.parametrize("case", ["wrong type", "oversized", "broken", "html title", "html text", "no title",
                                  "nothing", "player"])
def test_a_bad_handout_is_refused_clearly_and_leaves_nothing(app, client, hub, t, case, monkeypatch):
    before, files = hub.game(t["id"]).to_dict(), stored_files(app, t)
    if case == "wrong type":
        r = handout(client, t, data=b"<html><script>alert(1)</script></html>", filename="x.png")
        assert r.status_code == 422 and "not a PNG, JPEG or WebP" in r.json["error"]
    elif case == "oversized":
        monkeypatch.setattr(uvtt, "MAX_PICTURE_BYTES", 1000)
        r = handout(client, t, data=png(size=(400, 400), fmt="BMP") + b"x" * 2000)
        assert r.status_code == 413 and "over the limit" in r.json["error"]
    elif case == "broken":
        r = handout(client, t, data=png(size=(300, 300))[:200])
        assert r.status_code == 422 and "damaged or truncated" in r.json["error"]
    elif case == "html title":
        r = handout(client, t, title="<img src=x onerror=alert(1)>", data=png())
        assert r.status_code == 422 and r.json["error"] == "title: HTML is not allowed (take out the < >)"
    elif case == "html text":
        r = handout(client, t, text="Dear <b>Mira</b>", data=png())
        assert r.status_code == 422 and "text: HTML is not allowed" in r.json["error"]
    elif case == "no title":
        r = handout(client, t, title="  ", data=png())
        assert r.status_code == 422 and "needs a title" in r.json["error"]
    elif case == "nothing":
        r = handout(client, t, title="Empty")
        assert r.status_code == 422 and "needs a picture" in r.json["error"]
    else:
        r = handout(client, t, data=png(), token=t["Mira"]["player_token"])
        assert r.status_code == 403
    assert hub.game(t["id"]).to_dict() == before
    assert stored_files(app, t) == files


def test_show_handout_names_only_players_of_the_game(client, t):
    hid = handout(client, t, "Note", "hi").json["handout_id"]
    r = command(client, t, {"type": "show_handout", "handout_id": hid, "to": ["p-nobody"]})
    assert r.status_code == 422 and "no player 'p-nobody'" in r.json["error"]
    r = command(client, t, {"type": "show_handout", "handout_id": hid, "to": []})
    assert r.status_code == 422
    r = command(client, t, {"type": "show_handout", "handout_id": hid, "to": "everyone"},
                key=t["Mira"]["player_token"])
    assert r.status_code == 422 and "only the GM" in r.json["error"]


def test_token_pictures_gm_for_any_token_a_player_for_their_own(app, client, hub, t):
    olaf = t["Olaf"]["player_token"]
    r = token_picture(client, t, png((30, 90, 200)), token_id=t["aria"])
    assert r.status_code == 201, r.json
    pid = r.json["picture_id"]
    assert hub.game(t["id"]).tokens[t["aria"]].picture == pid
    seen = state(client, t, olaf)
    url = seen["pictures"][pid]
    assert next(x for x in seen["tokens"] if x["id"] == t["aria"])["picture"] == pid
    assert client.get(url, headers=bearer(olaf)).status_code == 200
    # the player's own token: uploaded and set at once
    r = token_picture(client, t, png((10, 200, 10)), token=olaf, token_id=t["bruno"])
    assert r.status_code == 201 and hub.game(t["id"]).tokens[t["bruno"]].picture == r.json["picture_id"]
    olafs = r.json["picture_id"]
    # not for someone else's token, not without a token, never the screen: nothing kept
    before, files = hub.game(t["id"]).to_dict(), stored_files(app, t)
    r = token_picture(client, t, png((1, 2, 3)), token=olaf, token_id=t["aria"])
    assert r.status_code == 422 and r.json["error"] == "Aria is not yours"
    r = token_picture(client, t, png((1, 2, 3)), token=olaf, token_id=t["spy"])
    assert r.status_code == 422 and r.json["error"] == f"no token {t['spy']!r} in this game"
    r = token_picture(client, t, png((1, 2, 3)), token=olaf)
    assert r.status_code == 422 and "name one of your tokens" in r.json["error"]
    assert token_picture(client, t, png((1, 2, 3)), token=t["screen_token"]).status_code == 403
    r = token_picture(client, t, b"GIF89a not a picture", token_id=t["aria"])
    assert r.status_code == 422 and "not a PNG, JPEG or WebP" in r.json["error"]
    # update_token: a player sets only pictures they uploaded, on their own token, and nothing else
    r = command(client, t, {"type": "update_token", "token_id": t["bruno"], "picture": pid}, key=olaf)
    assert r.status_code == 422 and "of yours" in r.json["error"]
    r = command(client, t, {"type": "update_token", "token_id": t["aria"], "picture": olafs}, key=olaf)
    assert r.status_code == 422 and "not yours" in r.json["error"]
    r = command(client, t, {"type": "update_token", "token_id": t["bruno"], "name": "Bruno the Great"}, key=olaf)
    assert r.status_code == 422 and "only the picture" in r.json["error"]
    r = command(client, t, {"type": "update_token", "token_id": t["bruno"], "picture": "pic-nothing"})
    assert r.status_code == 422 and "no picture 'pic-nothing'" in r.json["error"]
    assert hub.game(t["id"]).to_dict() == before and stored_files(app, t) == files
    r = command(client, t, {"type": "update_token", "token_id": t["bruno"], "picture": None}, key=olaf)
    assert r.status_code == 200 and hub.game(t["id"]).tokens[t["bruno"]].picture is None
    # the GM may give any picture of the game to any token
    assert command(client, t, {"type": "update_token", "token_id": t["bruno"], "picture": pid}).status_code == 200
    assert hub.game(t["id"]).tokens[t["bruno"]].picture == pid


def test_a_hidden_tokens_picture_reaches_no_player(client, hub, t):
    olaf = t["Olaf"]["player_token"]
    pid = token_picture(client, t, png((90, 10, 90)), token_id=t["spy"]).json["picture_id"]
    url = state(client, t, t["gm_token"])["pictures"][pid]
    for token in (olaf, t["screen_token"]):
        got = state(client, t, token)
        assert pid not in got["pictures"] and pid not in repr(got["tokens"])
        assert client.get(url, headers=bearer(token)).status_code == 404
    assert client.get(url, headers=bearer(t["gm_token"])).status_code == 200
    command(client, t, {"type": "update_token", "token_id": t["spy"], "hidden": False})  # seen now: served
    assert client.get(url, headers=bearer(olaf)).status_code == 200


def test_a_tokens_picture_is_drawn_in_its_group_and_undo_takes_it_off(app, client, hub, t):
    pid = token_picture(client, t, png(), token_id=t["aria"]).json["picture_id"]
    page = page_of(app, t, "screen", t["screen_token"], f"/games/{t['id']}/screen")
    group = page.split(f'id="token-{t["aria"]}"', 1)[1].split("</g>", 1)[0]
    name = hub.game(t["id"]).pictures[pid]["name"]
    assert '<image class="token-picture"' in group and name in group and 'clip-path="url(#token-disc)"' in group
    assert command(client, t, {"type": "undo"}).status_code == 200
    assert hub.game(t["id"]).tokens[t["aria"]].picture is None
    assert pid in hub.game(t["id"]).pictures  # the library keeps it


def test_the_gm_page_offers_the_handouts_card_and_a_picture_for_each_token(app, client, t):
    token_picture(client, t, png(), filename="goblin face.png")
    page = page_of(app, t, "gm", t["gm_token"], f"/games/{t['id']}/gm")
    assert 'id="handout-upload"' in page and 'id="token-picture-upload"' in page
    assert '<select name="picture"' in page and "goblin face" in page


@pytest.mark.app_config(DEMO=True)
def test_the_demos_tokens_wear_drawn_pictures(client, hub):
    record = next(r for r in hub.store.games() if r.name.startswith("Demo: the ruined outpost"))
    game = hub.game(record.id)
    worn = {t.name: t.picture for t in game.tokens.values()}
    assert all(worn.values()), worn
    assert worn["Goblin"] == worn["Goblin archer"] and len(set(worn.values())) == 5  # one goblin face, uploaded once
    seen = state(client, {"id": record.id}, record.screen_key)
    for token in seen["tokens"]:
        r = client.get(seen["pictures"][token["picture"]], headers=bearer(record.screen_key))
        assert r.status_code == 200 and Image.open(io.BytesIO(r.data)).size == (256, 256)


def seated(app, t, role, key):
    c = app.test_client()
    with c.session_transaction() as s:
        s[role] = {t["id"]: key}
    return c


def test_the_pages_upload_with_their_session(app, hub, t):
    gm = seated(app, t, "gm", t["gm_token"])
    r = gm.post(f"/games/{t['id']}/handouts", data={"title": "Clue", "text": "A torn page.",
                                                     "file": (io.BytesIO(b""), "")},
                content_type="multipart/form-data")
    assert r.status_code == 201, r.json  # an empty file field: a text hand-out
    assert hub.game(t["id"]).handouts[r.json["handout_id"]]["picture"] is None
    mira = seated(app, t, "player", t["Mira"]["player_token"])
    r = mira.post(f"/games/{t['id']}/pictures", data={"file": (io.BytesIO(png()), "me.png"), "token_id": t["aria"]},
                  content_type="multipart/form-data")
    assert r.status_code == 201 and hub.game(t["id"]).tokens[t["aria"]].picture == r.json["picture_id"]
    r = mira.post(f"/games/{t['id']}/handouts", data={"title": "Mine", "text": "x"}, content_type="multipart/form-data")
    assert r.status_code == 403
    screen = seated(app, t, "screen", t["screen_token"])
    r = screen.post(f"/games/{t['id']}/pictures", data={"file": (io.BytesIO(png()), "me.png")},
                    content_type="multipart/form-data")
    assert r.status_code == 403
    r = mira.post(f"/games/{t['id']}/pictures", data={"file": (io.BytesIO(png()), "me.png"), "token_id": t["aria"]},
                  content_type="multipart/form-data", csrf=False)
    assert r.status_code == 400  # no CSRF token: refused before anything is read


def test_with_fog_a_picture_is_served_only_while_its_token_is_in_view(client, t):
    mira = t["Mira"]["player_token"]
    ogre = client.post(f"/api/games/{t['id']}/tokens", json={"name": "Ogre", "x": 12, "y": 1},
                       headers=bearer(t["gm_token"])).json["id"]
    pid = token_picture(client, t, png((120, 130, 90)), token_id=ogre).json["picture_id"]
    url = state(client, t, t["gm_token"])["pictures"][pid]
    assert client.get(url, headers=bearer(mira)).status_code == 200  # no fog: the Ogre is in plain sight
    assert command(client, t, {"type": "add_wall", "a": [8, 0], "b": [8, 16]}).status_code == 200
    assert command(client, t, {"type": "set_fog", "enabled": True}).status_code == 200
    seen = state(client, t, mira)
    assert ogre not in [x["id"] for x in seen["tokens"]] and pid not in seen["pictures"]
    assert client.get(url, headers=bearer(mira)).status_code == 404
