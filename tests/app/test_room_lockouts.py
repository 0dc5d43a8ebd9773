"""Room mode's lockouts aim at the guesser (#57, webapp/web/room/room.py, keys.RoomGuesses): wrong organiser passwords
and GM PINs are counted per client address first; an address with no wrong try this minute is always checked, so
the organiser and the volunteers get in while a guesser elsewhere is locked out; the organiser's page shows the
guessing."""

from __future__ import annotations

import pytest

from tests.helpers import bearer, new_game
from webapp.web.room.room import setup_link


pytestmark = pytest.mark.app_config(ROOM=True)


PER_ADDRESS = 5  # wrong tries of each kind from one address a minute (PER_ADDRESS)
ROOM_CEILING = 10  # wrong tries of each kind in the room a minute, for the addresses that failed (ROOM_CEILING)


def at(app, address: str):
    """A browser at that client address."""
    c = app.test_client()
    c.environ_base["REMOTE_ADDR"] = address
    return c


def room_with_tables(app, password="lantern-42"):
    """The organiser's browser (at 10.0.0.2) that set the password and made two tables; the tables."""
    c = at(app, "10.0.0.2")
    g = new_game(app.test_client(), "plain_grid", name="Goblin ambush")
    assert c.post(f"/api/games/{g['id']}/tokens", json={"name": "Goblin", "x": 5, "y": 4},
                  headers=bearer(g["gm_token"])).status_code == 201
    token = setup_link(app, "http://localhost").split("token=")[1]
    assert c.post("/room/setup", data={"token": token, "password": password, "confirm": password}).status_code == 302
    assert c.post("/room/tables", data={"template": g["id"], "count": "2", "prefix": "Table"}).status_code == 302
    return c, app.extensions["tacmap"].store.room_tables()


def wrong_pin(tables) -> str:
    return next(p for p in ("000000", "999999", "123456") if p not in {t["pin"] for t in tables})


def test_the_limits_are_the_documented_ones():
    from webapp.game.tableside import keys

    assert (keys.ROOM_WRONG_ADDRESS, keys.ROOM_WRONG) == (PER_ADDRESS, ROOM_CEILING)


@pytest.mark.long
def test_a_wrong_pin_organiser_password_and_gm_password_each_wait_half_a_second_as_served(tmp_path):
    """The app as ``tacmap serve`` makes it (no WRONG_GUESS_PAUSE given): each wrong guess waits keys.WRONG_PAUSE
    before its answer, a right one does not."""
    import time

    from webapp import create_app
    from webapp.game.tableside import keys

    app = create_app({"DATA_DIR": str(tmp_path / "data"), "DEMO": False, "ROOM": True, "TESTING": True,
                      "SECRET_KEY": "test"})
    assert keys.WRONG_PAUSE == 0.5
    organiser, tables = room_with_tables(app)
    g = new_game(app.test_client(), name="Locked")
    assert app.test_client().post(f"/api/games/{g['id']}/commands", json={"type": "set_gm_password", "password": "open sesame"},
                                  headers=bearer(g["gm_token"])).status_code == 200
    guesser = at(app, "10.0.0.77")
    guesser.get(f"/games/{g['id']}/gm?key={g['gm_token']}")  # the GM link (remembered): then its password page

    def timed(path, data, status):
        t0 = time.monotonic()
        assert guesser.post(path, data=data).status_code == status
        return time.monotonic() - t0

    assert timed("/pin", {"pin": wrong_pin(tables)}, 401) >= keys.WRONG_PAUSE
    assert timed("/room/login", {"password": "guess"}, 401) >= keys.WRONG_PAUSE
    assert timed(f"/games/{g['id']}/gm/password", {"password": "guess"}, 401) >= keys.WRONG_PAUSE
    assert timed("/pin", {"pin": tables[0]["pin"]}, 302) < keys.WRONG_PAUSE


def test_a_pin_guesser_is_locked_out_while_the_organiser_and_a_volunteer_get_in(app):
    organiser, tables = room_with_tables(app)
    guesser = at(app, "10.0.0.66")
    for _ in range(PER_ADDRESS):
        assert guesser.post("/pin", data={"pin": wrong_pin(tables)}).status_code == 401
        assert guesser.post("/room/login", data={"password": "guess"}).status_code == 401
    r = guesser.post("/pin", data={"pin": tables[0]["pin"]})  # the right PIN, but not even checked now
    assert r.status_code == 429 and "wait a minute" in r.get_data(as_text=True)
    assert guesser.post("/room/login", data={"password": "lantern-42"}).status_code == 429
    assert guesser.get(f"/games/{tables[0]['current_game']}/gm").status_code == 403
    # meanwhile, from other addresses: the volunteer's right PIN and the organiser's right password get in
    volunteer = at(app, "10.0.0.7")
    r = volunteer.post("/pin", data={"pin": tables[1]["pin"]})
    assert r.status_code == 302 and r.location.endswith(f"/games/{tables[1]['current_game']}/gm")
    assert volunteer.get(f"/games/{tables[1]['current_game']}/gm").status_code == 200
    laptop = at(app, "10.0.0.8")
    assert laptop.post("/room/login", data={"password": "lantern-42"}).status_code == 302
    # the organiser sees the guessing: how many, from where, when
    page = laptop.get("/room").get_data(as_text=True)
    assert "Someone is guessing" in page
    assert f"{PER_ADDRESS} wrong GM PINs in the last hour" in page
    assert f"{PER_ADDRESS} wrong organiser passwords in the last hour" in page
    assert f"10.0.0.66: {PER_ADDRESS}, the last at " in page
    assert "10.0.0.7" not in page and "10.0.0.8" not in page  # right ones are not wrong tries
    assert "Someone is guessing" not in at(app, "10.0.0.9").get("/room").get_data(as_text=True)  # the login page
    # and the list the page refreshes every few seconds says it too (the organiser's page stays open)
    assert f"10.0.0.66: {PER_ADDRESS}, the last at " in laptop.get("/room/tables").get_data(as_text=True)


def test_many_guessing_addresses_share_one_ceiling_and_a_fresh_address_still_gets_in(app):
    _organiser, tables = room_with_tables(app)
    wrong = wrong_pin(tables)
    guessers = [at(app, f"10.0.1.{n}") for n in range(ROOM_CEILING // 2)]
    for guesser in guessers:
        for _ in range(2):
            assert guesser.post("/pin", data={"pin": wrong}).status_code == 401
    # the room had its ceiling of wrong PINs this minute: an address that failed waits, though under its own limit
    assert guessers[0].post("/pin", data={"pin": tables[0]["pin"]}).status_code == 429
    # one that did not is checked: a wrong PIN is wrong, a right one gets in
    assert at(app, "10.0.1.200").post("/pin", data={"pin": wrong}).status_code == 401
    assert at(app, "10.0.1.201").post("/pin", data={"pin": tables[0]["pin"]}).status_code == 302
