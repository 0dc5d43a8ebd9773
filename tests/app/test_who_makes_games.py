"""Who may make games (#57): the server's own machine by default (its browser, under any of the server's names);
another device only when the host started the server with --open-lobby, or the organiser in room mode; any
other device is refused with how to open the lobby."""

from __future__ import annotations

import pytest

from tests.helpers import GAMES
from webapp.cli import main


def device(app, address="192.168.1.77"):
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c


def test_another_device_may_not_make_a_game_and_is_told_how_to_open_the_lobby(app, hub):
    before = len(hub.store.games())
    phone = device(app)
    r = phone.post(GAMES, json={"name": "Mine"})
    assert r.status_code == 403 and "tacmap serve --open-lobby" in r.json["error"], r.get_data(as_text=True)
    r = phone.post("/games", data={"name": "Mine"})
    assert r.status_code == 403 and "tacmap serve --open-lobby" in r.get_data(as_text=True)
    page = phone.get("/").get_data(as_text=True)
    assert 'id="lobby-closed"' in page and 'action="/games"' not in page  # no form it cannot use
    assert len(hub.store.games()) == before


@pytest.mark.app_config(ALLOWED_HOSTS=["tacmap.lan"])
def test_the_servers_own_machine_makes_games_under_any_of_its_names(app):
    here = app.test_client()  # 127.0.0.1, as a browser on the laptop at http://tacmap.lan:5000 arrives
    assert here.post("/games", data={"name": "Ours"}).status_code == 302
    for name in ("localhost", "127.0.0.1", "tacmap.lan"):
        r = here.post(GAMES, json={"name": "Mine"}, headers={"Host": name})
        assert r.status_code == 201, (name, r.json)
    page = here.get("/", headers={"Host": "tacmap.lan"}).get_data(as_text=True)
    assert 'action="/games"' in page and 'id="lobby-closed"' not in page


def test_a_proxy_on_the_servers_machine_does_not_make_everyone_the_host(app):
    here = app.test_client()
    r = here.post(GAMES, json={"name": "Mine"}, headers={"X-Forwarded-For": "203.0.113.9"})
    assert r.status_code == 403


@pytest.mark.app_config(OPEN_LOBBY=True)
def test_with_an_open_lobby_another_device_makes_games(app):
    phone = device(app)
    assert phone.post(GAMES, json={"name": "Mine"}).status_code == 201
    assert phone.post("/games", data={"name": "Ours"}).status_code == 302


@pytest.mark.app_config(ROOM=True)
def test_in_room_mode_the_organiser_makes_games_from_any_device(app, hub):
    from webapp.web.room.room import new_setup_path

    organiser = device(app, "192.168.1.40")
    assert organiser.post(GAMES, json={"name": "Template"}).status_code == 403
    path = new_setup_path(hub.store)
    r = organiser.post(path.split("?")[0], data={"token": path.split("token=")[1], "password": "a long password",
                                                 "confirm": "a long password"})
    assert r.status_code in (302, 303), r.get_data(as_text=True)[:400]
    assert organiser.post(GAMES, json={"name": "Template"}).status_code == 201
    assert organiser.post("/games", data={"name": "Template 2"}).status_code == 302
    stranger = device(app, "192.168.1.41")
    r = stranger.post(GAMES, json={"name": "Official template v2"})
    assert r.status_code == 403 and "organiser" in r.json["error"]


def test_serve_says_how_to_open_the_lobby(capsys):
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    assert "--open-lobby" in capsys.readouterr().out


@pytest.mark.app_config(ROOM=True, OPEN_LOBBY=True)
def test_room_mode_offers_only_the_hosts_and_the_organisers_games_as_templates(app, hub):
    from test_room_mode import make_tables, organiser

    mine = app.test_client().post(GAMES, json={"name": "Goblin ambush"}).json  # on the server's own machine
    stranger = device(app, "192.168.1.41")  # the lobby is open: any device makes games
    theirs = stranger.post(GAMES, json={"name": "Official template v2"}).json
    assert stranger.post("/games", data={"name": "Official template v3"}).status_code == 302
    c = organiser(app)
    page = c.get("/room").get_data(as_text=True)
    assert "Goblin ambush" in page and "Official template" not in page
    assert make_tables(c, theirs["id"], count=1).status_code == 400  # nor when sent by hand
    assert hub.store.room_tables() == []
    # the organiser's own games, from any device, are templates
    lan = device(app, "192.168.1.40")
    lan.set_cookie("tacmap", c.get_cookie("tacmap").value)
    made = lan.post(GAMES, json={"name": "Organiser's one-shot"})
    assert made.status_code == 201
    assert "Organiser&#39;s one-shot" in c.get("/room").get_data(as_text=True)
    assert make_tables(c, mine["id"], count=1).status_code == 302
