"""The lobby in room mode (#38, docs/ROOM.md "The lobby"): the host's browser lists its own games (the
templates) but not the room's tables nor their past slots (those are on the organiser page, which it links
to); a volunteer GM's browser lists the table whose PIN it was given, and nothing else of the room."""

from __future__ import annotations

import re

from test_room_mode import app_overrides, make_tables, organiser, template  # noqa: F401 (fixtures)


def listed(page: str) -> set[str]:
    """The game ids the lobby's "Your games" links to."""
    return set(re.findall(r'href="/games/([0-9a-f]+)/gm', page))


def test_the_lobby_keeps_the_rooms_tables_and_archives_off_the_host_and_shows_a_gm_its_own(app, hub, template):  # noqa: F811
    c = organiser(app)
    make_tables(c, template["id"], count=2)
    t1, t2 = hub.store.room_tables()
    assert c.post(f"/room/tables/{t1['id']}/reset").status_code == 302  # table 1's first slot is now an archive
    archive = hub.store.room_slots()[0]["game"]
    t1 = hub.store.room_table("id", t1["id"])
    ordinary = app.test_client().post("/api/games", json={"name": "My own game", "system": "plain_grid"}).json

    host = app.test_client()  # a browser on the server's own machine (localhost, no proxy)
    page = host.get("/").get_data(as_text=True)
    assert listed(page) == {template["id"], ordinary["id"]}, (listed(page), t1, t2, archive)
    assert 'id="room-link"' in page and 'href="/room">Organiser&#39;s room</a>' in page
    assert "Raum der Orga" in host.get("/?lang=de").get_data(as_text=True)  # the room page's own name for itself
    for game_id in (t1["current_game"], t2["current_game"], archive):
        assert game_id not in page  # not even a join code or name links there

    # a volunteer's browser on the room's network, given table 2's PIN: its lobby lists table 2, nothing else
    volunteer = app.test_client()
    volunteer.environ_base["REMOTE_ADDR"] = "192.168.1.40"
    assert volunteer.post("/pin", data={"pin": t2["pin"]}).status_code == 302
    page = volunteer.get("/").get_data(as_text=True)
    assert listed(page) == {t2["current_game"]}, listed(page)
    assert "Table 2" in page and 'id="room-link"' not in page

    # the same host's browser, once it opened table 1's GM page with the PIN: that table is its own now
    assert host.post("/pin", data={"pin": t1["pin"]}).status_code == 302
    page = host.get("/").get_data(as_text=True)
    assert listed(page) == {template["id"], ordinary["id"], t1["current_game"]}, listed(page)
    assert archive not in page


def test_without_room_mode_the_host_lists_every_game(tmp_path):
    from webapp import create_app

    app = create_app({"DATA_DIR": str(tmp_path / "plain"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    made = {app.test_client().post("/api/games", json={"name": f"Game {i}", "system": "plain_grid"}).json["id"]
            for i in range(2)}
    page = app.test_client().get("/").get_data(as_text=True)
    assert listed(page) == made and 'id="room-link"' not in page
