"""Room mode (#38, webapp/web/room/room.py): the organiser's page behind its own password, tables made from a
template, GM PINs, resets between slots, closing the room. Every refusal leaves the room and the games as
they were."""

from __future__ import annotations

import io
import json
import re
import threading
import zipfile

import pytest

from tests.helpers import bearer, new_game
from webapp import create_app
from webapp.game.tableside import keys
from webapp.game.core import text
from webapp.web.room.room import setup_link


@pytest.fixture
def app_overrides(backend):
    """Room mode on each store (tests/conftest.py ``backend``): the data folder's SQLite file, and PostgreSQL
    (the room's rows and its template copies in the database, as several machines share them)."""
    return {"ROOM": True, "DATABASE": backend}


@pytest.fixture
def template(app):
    """A template game: a goblin on the map, ready; no players."""
    c = app.test_client()
    g = new_game(c, "plain_grid", name="Goblin ambush")
    r = c.post(f"/api/games/{g['id']}/tokens", json={"name": "Goblin", "x": 5, "y": 4}, headers=bearer(g["gm_token"]))
    assert r.status_code == 201
    return {**g, "goblin": r.json["id"]}


def organiser(app, password="lantern-42"):
    """A browser that set the organiser password with the printed setup link (logged in)."""
    link = setup_link(app, "http://localhost")
    token = link.split("token=")[1]
    c = app.test_client()
    assert c.get(f"/room/setup?token={token}").status_code == 200
    r = c.post("/room/setup", data={"token": token, "password": password, "confirm": password})
    assert r.status_code == 302
    return c


def room_state(hub):
    return hub.store.room(), hub.store.room_tables(), hub.store.room_slots(), [g.id for g in hub.store.games()]


def make_tables(c, template_id, count=3, **extra):
    return c.post("/room/tables", data={"template": template_id, "count": str(count), "prefix": "Table", **extra})


def test_room_pages_are_not_there_without_room_mode(tmp_path):
    app = create_app({"DATA_DIR": str(tmp_path / "plain"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    c = app.test_client()
    for path in ("/room", "/pin", "/room/sheets", "/room/setup?token=x"):
        r = c.get(path)
        assert r.status_code == 404 and "room mode" in r.get_data(as_text=True), path


def test_the_setup_link_sets_the_password_once_and_a_wrong_link_does_nothing(app, hub):
    c = app.test_client()
    page = c.get("/room").get_data(as_text=True)
    assert "setup link" in page and 'name="password"' not in page  # no password to try before it is set
    link = setup_link(app, "http://table.local:5000")
    assert link.startswith("http://table.local:5000/room/setup?token=")
    assert c.get("/room/setup?token=guessed").status_code == 403
    r = c.post("/room/setup", data={"token": "guessed", "password": "mine!", "confirm": "mine!"})
    assert r.status_code == 403 and hub.store.room()["password"] is None
    token = link.split("token=")[1]
    r = c.post("/room/setup", data={"token": token, "password": "abcd", "confirm": "abce"})
    assert r.status_code == 400 and "differ" in r.get_data(as_text=True) and hub.store.room()["password"] is None
    assert c.post("/room/setup", data={"token": token, "password": "abcd", "confirm": "abcd"}).status_code == 302
    assert keys.verify(hub.store.room()["password"], "abcd") and hub.store.room()["setup_token"] is None
    assert "Tables" in c.get("/room").get_data(as_text=True)  # the browser that set it is in
    # the link is spent; a second start prints none
    other = app.test_client()
    r = other.post("/room/setup", data={"token": token, "password": "taken", "confirm": "taken"})
    assert r.status_code == 409 and keys.verify(hub.store.room()["password"], "abcd")
    assert setup_link(app, "http://x") is None


def test_every_printed_setup_link_works_until_one_sets_the_password(app, hub):
    """Each start prints a link of its own, and the earlier ones keep working: several machines on one database
    each print one at their start, and the organiser opens whichever console is at hand. Once any of them set
    the password, none works."""
    tokens = [setup_link(app, f"http://machine-{n}:5000").split("token=")[1] for n in range(3)]
    c = app.test_client()
    assert all(c.get(f"/room/setup?token={t}").status_code == 200 for t in tokens)
    assert c.get("/room/setup?token=guessed").status_code == 403
    assert c.post("/room/setup", data={"token": tokens[0], "password": "first", "confirm": "first"}).status_code == 302
    for t in tokens:  # spent, the first machine's included
        r = app.test_client().post("/room/setup", data={"token": t, "password": "taken", "confirm": "taken"})
        assert r.status_code == 409
    assert keys.verify(hub.store.room()["password"], "first") and hub.store.room()["setup_token"] is None


def test_two_setup_links_sent_in_the_same_instant_set_one_password(app, hub, monkeypatch):
    """Two organisers at two consoles send their links at once: both requests find no password yet, and the
    first write wins; the other is told the password is set, and the stored one is the winner's."""
    tokens = [setup_link(app, f"http://machine-{n}:5000").split("token=")[1] for n in range(2)]
    both_read = threading.Barrier(2, timeout=10)
    hash_password = keys.hash_password

    def hashed_once_both_have_read(password):  # each request has read the room (no password) by now
        both_read.wait()
        return hash_password(password)

    monkeypatch.setattr(keys, "hash_password", hashed_once_both_have_read)
    answers = {}

    def send(n):
        password = f"console-{n}"
        answers[password] = app.test_client().post(
            "/room/setup", data={"token": tokens[n], "password": password, "confirm": password}).status_code

    threads = [threading.Thread(target=send, args=(n,)) for n in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert sorted(answers.values()) == [302, 409], answers
    winner = next(p for p, status in answers.items() if status == 302)
    loser = next(p for p, status in answers.items() if status == 409)
    assert keys.verify(hub.store.room()["password"], winner)
    assert not keys.verify(hub.store.room()["password"], loser)
    assert hub.store.room()["setup_token"] is None


def test_setup_links_past_the_kept_number_start_the_list_again(app, hub):
    kept = hub.store.SETUP_TOKENS_KEPT
    tokens = [setup_link(app, "http://x").split("token=")[1] for _ in range(kept)]
    c = app.test_client()
    assert all(c.get(f"/room/setup?token={t}").status_code == 200 for t in tokens)
    newest = setup_link(app, "http://x").split("token=")[1]
    assert c.get(f"/room/setup?token={newest}").status_code == 200
    assert all(c.get(f"/room/setup?token={t}").status_code == 403 for t in tokens)
    assert len(hub.store.room()["setup_token"].split()) == 1


def test_wrong_organiser_passwords_are_refused_then_limited(app, hub):
    organiser(app, "right-one")
    c = app.test_client()
    for _ in range(keys.MAX_WRONG):
        r = c.post("/room/login", data={"password": "wrong"})
        assert r.status_code == 401 and "not the organiser password" in r.get_data(as_text=True)
    r = c.post("/room/login", data={"password": "right-one"})  # not even checked now
    assert r.status_code == 429 and "wait a minute" in r.get_data(as_text=True)
    assert c.get("/room/tables").status_code == 403
    assert make_tables(c, "00000000").status_code == 403 and hub.store.room_tables() == []


def test_the_organiser_makes_three_tables_from_a_template(app, hub, template):
    c = organiser(app)
    r = make_tables(c, template["id"], gm_name="Sam")
    assert r.status_code == 302
    page = c.get("/room").get_data(as_text=True)
    assert "Made 3 tables: Table 1, Table 2, Table 3." in page
    tables = hub.store.room_tables()
    assert [t["name"] for t in tables] == ["Table 1", "Table 2", "Table 3"]
    assert len({t["current_game"] for t in tables} | {template["id"]}) == 4
    assert len({t["pin"] for t in tables}) == 3 and all(re.fullmatch(r"\d{6}", t["pin"]) for t in tables)
    for t in tables:
        game, record = hub.game(t["current_game"]), hub.store.game(t["current_game"])
        assert record.name == t["name"] and record.join_code == t["join_code"] != template["join_code"]
        assert record.gm_key != template["gm_token"] and not game.players
        goblin = game.tokens[template["goblin"]]
        assert (goblin.name, goblin.x, goblin.y) == ("Goblin", 5, 4)
        assert t["gm_name"] == "Sam" and t["template"] == template["id"]
    # the list (the part the page refreshes) has each table's GM, players online, system and state
    part = c.get("/room/tables").get_data(as_text=True)
    for t in tables:
        assert t["name"] in part and t["pin"] in part and t["join_code"] in part
    assert part.count("0 of 0") == 3 and part.count("no fight") == 3 and "Plain grid" in part


def test_bad_table_requests_change_nothing(app, hub, template):
    c = organiser(app)
    before = room_state(hub)
    cases = [
        ({"prefix": "<b>Table</b>"}, "contains"),
        ({"count": "0"}, "1 to 40"),
        ({"count": "41"}, "1 to 40"),
        ({"count": "three"}, "1 to 40"),
        ({"gm_name": "<script>alert(1)</script>"}, "GM"),
    ]
    for extra, said in cases:
        r = c.post("/room/tables", data={"template": template["id"], "count": "2", "prefix": "Table", **extra})
        text = r.get_data(as_text=True)
        assert r.status_code == 400, extra
        assert "<script>alert" not in text and "<b>Table</b>" not in text, extra
        assert room_state(hub) == before, extra
    r = c.post("/room/tables", data={"template": "deadbeef", "count": "1"})
    assert r.status_code == 400 and "template" in r.get_data(as_text=True) and room_state(hub) == before
    # a template with players is refused: a table starts with none
    app.test_client().post(f"/api/games/{template['id']}/players", json={"join_code": template["join_code"],
                                                                        "name": "Early bird"})
    before = room_state(hub)
    r = make_tables(c, template["id"])
    assert r.status_code == 400 and "has players" in r.get_data(as_text=True) and room_state(hub) == before


def test_a_table_of_the_room_is_no_template_and_names_are_checked_on_edit(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=1)
    table = hub.store.room_tables()[0]
    before = room_state(hub)
    r = make_tables(c, table["current_game"], count=1)
    assert r.status_code == 400 and "one of the room" in r.get_data(as_text=True)
    r = c.post(f"/room/tables/{table['id']}", data={"name": "<i>x</i>", "gm_name": "Ann"})
    assert r.status_code == 400 and room_state(hub) == before
    assert c.post("/room/tables/nope", data={"name": "x"}).status_code == 404
    assert c.post(f"/room/tables/{table['id']}", data={"name": "Dragon table", "gm_name": "Ann"}).status_code == 302
    table = hub.store.room_tables()[0]
    assert (table["name"], table["gm_name"]) == ("Dragon table", "Ann")
    assert hub.store.game(table["current_game"]).name == "Dragon table"


def test_a_volunteer_opens_the_gm_page_with_the_pin_and_wrong_pins_are_limited(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=2)
    t1, t2 = hub.store.room_tables()
    volunteer = app.test_client()
    assert volunteer.get(f"/games/{t1['current_game']}/gm").status_code == 403
    wrong = "000000" if "000000" not in (t1["pin"], t2["pin"]) else "999999"
    r = volunteer.post("/pin", data={"pin": wrong})
    assert r.status_code == 401 and "No table has that GM PIN" in r.get_data(as_text=True)
    assert volunteer.post("/pin", data={"pin": "<b>1</b>"}).status_code == 401
    r = volunteer.post("/pin", data={"pin": " ".join(t2["pin"][:3]) + " " + t2["pin"][3:]})  # spaces are fine
    assert r.status_code == 302 and r.location.endswith(f"/games/{t2['current_game']}/gm")
    assert volunteer.get(f"/games/{t2['current_game']}/gm").status_code == 200
    assert volunteer.get(f"/games/{t1['current_game']}/gm").status_code == 403  # one table's PIN, one table
    # five wrong PINs a minute from one address (all these browsers are at 127.0.0.1): then even the right one
    # waits there (other addresses get in: tests/app/test_room_lockouts.py)
    guesser = app.test_client()
    for _ in range(keys.MAX_WRONG - 2):
        assert guesser.post("/pin", data={"pin": wrong}).status_code == 401
    late = app.test_client()
    r = late.post("/pin", data={"pin": t1["pin"]})
    assert r.status_code == 429 and "wait a minute" in r.get_data(as_text=True)
    assert late.get(f"/games/{t1['current_game']}/gm").status_code == 403
    # the organiser gives a table a new PIN: the old one stops
    old_pin = t1["pin"]
    assert c.post(f"/room/tables/{t1['id']}/pin").status_code == 302
    assert hub.store.room_table("id", t1["id"])["pin"] != old_pin


def test_a_pin_opens_a_table_whose_template_has_a_gm_password(app, hub, template):
    gm = app.test_client()
    with gm.session_transaction() as s:
        s["gm"] = {template["id"]: template["gm_token"]}
    gm.post(f"/games/{template['id']}/security", data={"type": "set_gm_password", "password": "tmpl-pw",
                                                       "confirm": "tmpl-pw"})
    assert hub.game(template["id"]).gm_password
    c = organiser(app)
    make_tables(c, template["id"], count=1)
    table = hub.store.room_tables()[0]
    v = app.test_client()
    assert v.post("/pin", data={"pin": table["pin"]}).status_code == 302
    assert v.get(f"/games/{table['current_game']}/gm").status_code == 200


def test_reset_puts_the_table_back_and_keeps_the_last_slot_as_an_archive(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=1)
    table = hub.store.room_tables()[0]
    old = table["current_game"]
    record = hub.store.game(old)
    # a player joins with the printed code and moves the goblin's neighbour; the GM moves the goblin
    phone = app.test_client()
    assert phone.post("/join", data={"code": table["join_code"], "name": "Pip"}).status_code == 302
    with phone.session_transaction() as s:
        pip_key = s["player"][old]
    gm = app.test_client()
    assert gm.get(f"/room/t/{table['id']}/gm?key={record.gm_key}").status_code == 302
    assert gm.get(f"/games/{old}/gm?key={record.gm_key}").status_code == 302
    assert gm.get(f"/games/{old}/gm").status_code == 200
    r = app.test_client().post(f"/api/games/{old}/commands", headers=bearer(record.gm_key),
                               json={"type": "move_token", "token_id": template["goblin"], "x": 9, "y": 9})
    assert r.status_code == 200, r.json
    assert [p.name for p in hub.game(old).players.values()] == ["Pip"]
    # someone not the organiser (the table's GM) cannot reset it
    before = room_state(hub)
    assert gm.post(f"/room/tables/{table['id']}/reset").status_code == 403 and room_state(hub) == before
    assert gm.get(f"/room/tables/{table['id']}/reset").status_code == 403
    asked = c.get(f"/room/tables/{table['id']}/reset").get_data(as_text=True)
    assert "Seated now: <strong>Pip</strong>" in asked and room_state(hub) == before  # asking changes nothing
    assert c.post(f"/room/tables/{table['id']}/reset").status_code == 302
    table = hub.store.room_table("id", table["id"])
    new = table["current_game"]
    assert new != old and hub.store.room_slots(table["id"]) == [
        {"table_id": table["id"], "slot": 1, "game": old, "archived_at": pytest.approx(hub.store.room_slots()[0]["archived_at"])}]
    game = hub.game(new)
    assert not game.players and (game.tokens[template["goblin"]].x, game.tokens[template["goblin"]].y) == (5, 4)
    # the printed code and links lead to the new game; the old game holds none of them and no players
    assert hub.store.game(new).join_code == table["join_code"] and hub.store.game(new).gm_key == record.gm_key
    assert hub.store.game(new).screen_key == record.screen_key
    assert not hub.game(old).players
    assert app.test_client().get(f"/api/games/{old}/state", headers=bearer(pip_key)).status_code in (401, 410)
    assert app.test_client().get(f"/api/games/{old}/state", headers=bearer(record.gm_key)).status_code == 410
    r = phone.get(f"/games/{old}/play")
    assert r.status_code == 410 and "next slot" in r.get_data(as_text=True)
    assert f"/join?code={table['join_code']}" in r.get_data(as_text=True)
    # the GM's page goes on to the table's new game, with the same key
    r = gm.get(f"/games/{old}/gm")
    assert r.status_code == 302 and f"/room/t/{table['id']}/gm" in r.location
    r = gm.get(r.location)
    assert r.status_code == 302 and f"/games/{new}/gm" in r.location
    gm.get(r.location)
    assert gm.get(f"/games/{new}/gm").status_code == 200
    # the next slot's player joins with the same printed code
    nxt = app.test_client()
    r = nxt.post("/join", data={"code": table["join_code"], "name": "Quinn"})
    assert r.status_code == 302 and f"/games/{new}/play" in r.location
    # the last slot's game and log, as its game file
    r = c.get(f"/room/games/{old}.tacmap")
    assert r.status_code == 200 and "attachment" in r.headers["Content-Disposition"]
    with zipfile.ZipFile(io.BytesIO(r.data)) as z:
        manifest = json.loads(z.read("manifest.json"))
        events = [json.loads(line) for line in z.read("tables/events.jsonl").decode().splitlines()]
    assert manifest["game"]["id"] == old
    kinds = [e["type"] for e in events]
    assert "player_joined" in kinds and "token_moved" in kinds and "player_removed" in kinds
    assert app.test_client().get(f"/room/games/{old}.tacmap").status_code == 403
    assert c.get(f"/room/games/{template['id']}.tacmap").status_code == 404  # not the room's


def test_closing_the_room_stops_every_table_and_says_so(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=2)
    t1, t2 = hub.store.room_tables()
    record = hub.store.game(t1["current_game"])
    phone = app.test_client()
    phone.post("/join", data={"code": t1["join_code"], "name": "Pip"})
    assert hub.game(t1["current_game"]).players
    outsider = app.test_client()
    before = room_state(hub)
    assert outsider.post("/room/close", data={"sure": "on"}).status_code == 403 and room_state(hub) == before
    assert c.post("/room/close", data={"sure": "on"}).status_code == 302
    assert hub.store.room()["closed_at"]
    assert not hub.game(t1["current_game"]).players
    r = app.test_client().post("/join", data={"code": t1["join_code"], "name": "Late"})
    assert r.status_code == 410 and "closed this room" in r.get_data(as_text=True)
    r = phone.get(f"/games/{t1['current_game']}/play")
    assert r.status_code == 410 and "closed" in r.get_data(as_text=True)
    r = app.test_client().get(f"/room/t/{t1['id']}/gm?key={record.gm_key}")
    assert r.status_code == 410
    r = app.test_client().post(f"/api/games/{t1['current_game']}/commands", headers=bearer(record.gm_key),
                               json={"type": "roll", "expr": "d6"})
    assert r.status_code == 410 and "closed" in r.json["error"]
    r = app.test_client().post("/pin", data={"pin": t2["pin"]})
    assert r.status_code == 410
    before = room_state(hub)
    assert make_tables(c, template["id"], count=1).status_code == 409
    assert c.post(f"/room/tables/{t1['id']}/reset").status_code == 409 and room_state(hub) == before
    assert c.post(f"/room/tables/{t1['id']}/code").status_code == 409 and room_state(hub) == before
    assert "The room is closed" in c.get("/room").get_data(as_text=True)
    assert c.get(f"/room/games/{t1['current_game']}.tacmap").status_code == 200  # still downloadable


def test_the_sheet_has_the_join_qr_the_gm_link_and_pin_and_the_screen_link(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=2, gm_name="Ann")
    t1, t2 = hub.store.room_tables()
    record = hub.store.game(t1["current_game"])
    page = c.get(f"/room/tables/{t1['id']}/sheet").get_data(as_text=True)
    assert page.count("<svg") == 3 and t1["pin"] in page and t1["join_code"] in page and "GM: Ann" in page
    assert f"/room/t/{t1['id']}/gm?key={record.gm_key}" in page
    assert f"/room/t/{t1['id']}/screen?key={record.screen_key}" in page and "/pin" in page
    both = c.get("/room/sheets").get_data(as_text=True)
    assert both.count('class="table-sheet"') == 2 and t2["pin"] in both
    assert app.test_client().get(f"/room/tables/{t1['id']}/sheet").status_code == 403
    # the screen's printed link opens the table screen
    screen = app.test_client()
    r = screen.get(f"/room/t/{t1['id']}/screen?key={record.screen_key}")
    assert r.status_code == 302
    screen.get(r.location)
    assert screen.get(f"/games/{t1['current_game']}/screen").status_code == 200
    assert app.test_client().get(f"/room/t/{t1['id']}/screen?key=forged").status_code == 403
    assert app.test_client().get(f"/room/t/{t1['id']}/gm?key={record.screen_key}").status_code == 403


def test_new_code_and_links_stop_the_old_ones(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=1)
    table = hub.store.room_tables()[0]
    record = hub.store.game(table["current_game"])
    assert c.post(f"/room/tables/{table['id']}/code").status_code == 302
    table2 = hub.store.room_table("id", table["id"])
    assert table2["join_code"] != table["join_code"] == record.join_code
    assert hub.store.game(table["current_game"]).join_code == table2["join_code"]
    assert app.test_client().get(f"/room/t/{table['id']}/gm?key={record.gm_key}").status_code == 403
    r = app.test_client().post("/join", data={"code": table["join_code"], "name": "Pip"})
    assert r.status_code == 404


def test_room_mode_is_a_setting_too(tmp_path, monkeypatch):
    monkeypatch.setenv("TACMAP_ROOM", "1")
    app = create_app({"DATA_DIR": str(tmp_path / "env"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    assert app.config["ROOM"] and app.test_client().get("/room").status_code == 200
    monkeypatch.setenv("TACMAP_ROOM", "0")
    app = create_app({"DATA_DIR": str(tmp_path / "off"), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    assert not app.config["ROOM"] and app.test_client().get("/room").status_code == 404


def test_a_closed_room_opens_again_with_its_join_codes(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=1)
    table = hub.store.room_tables()[0]
    c.post("/room/close", data={"sure": "on"})
    assert app.test_client().post("/join", data={"code": table["join_code"], "name": "Pip"}).status_code == 410
    assert c.post("/room/reopen").status_code == 302 and not hub.store.room()["closed_at"]
    r = app.test_client().post("/join", data={"code": table["join_code"], "name": "Pip"})
    assert r.status_code == 302 and f"/games/{table['current_game']}/play" in r.location
    record = hub.store.game(table["current_game"])  # new GM link: the new sheet's
    page = c.get(f"/room/tables/{table['id']}/sheet").get_data(as_text=True)
    assert f"gm?key={record.gm_key}" in page


def test_a_join_code_the_gm_changed_is_the_one_the_reset_and_the_close_keep(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=1)
    table = hub.store.room_tables()[0]
    v = app.test_client()
    v.post("/pin", data={"pin": table["pin"]})
    assert v.post(f"/games/{table['current_game']}/security", data={"type": "rotate_join_code"}).status_code == 200
    code = hub.store.game(table["current_game"]).join_code
    assert code != table["join_code"]
    assert code in c.get("/room/tables").get_data(as_text=True)  # the list shows the code the players see
    assert f'data-code="{code}"' in c.get(f"/room/tables/{table['id']}/sheet").get_data(as_text=True)
    c.post(f"/room/tables/{table['id']}/reset")
    table = hub.store.room_table("id", table["id"])
    assert table["join_code"] == code == hub.store.game(table["current_game"]).join_code
    c.post("/room/close", data={"sure": "on"})
    assert app.test_client().post("/join", data={"code": code, "name": "Late"}).status_code == 410


def test_two_processes_on_one_store_serve_one_room(tmp_path, template, app, hub):
    """The room is in the store, not in a process: a second app on the same data folder sees the tables, takes
    the PINs, and its pages of a reset table lead on to the table's new game."""
    c = organiser(app)
    make_tables(c, template["id"], count=2)
    other = create_app({"DATA_DIR": app.config["DATA_DIR"], "TESTING": True, "SECRET_KEY": "test", "DEMO": False,
                        "ROOM": True, **({"DATABASE": app.config["DATABASE"]} if app.config.get("DATABASE") else {})})
    t1, t2 = other.extensions["tacmap"].store.room_tables()
    v = other.test_client()
    assert v.post("/pin", data={"pin": t2["pin"]}).status_code == 302
    assert v.get(f"/games/{t2['current_game']}/gm").status_code == 200
    phone = other.test_client()
    assert phone.post("/join", data={"code": t1["join_code"], "name": "Pip"}).status_code == 302
    assert c.post(f"/room/tables/{t1['id']}/reset").status_code == 302  # on the first process
    r = phone.get(f"/games/{t1['current_game']}/play")  # on the second
    assert r.status_code == 410 and "next slot" in r.get_data(as_text=True)
    assert other.test_client().post("/room/login", data={"password": "lantern-42"}).status_code == 302


def test_a_table_with_a_damaged_log_leaves_the_room_page_working(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=2)
    t1, t2 = hub.store.room_tables()
    hub.store._db.execute("DELETE FROM snapshots WHERE game_id = ?", (t1["current_game"],))
    hub.store._db.execute("UPDATE events SET data = '{' WHERE game_id = ? AND seq = 2", (t1["current_game"],))
    hub.games.drop(t1["current_game"])  # the cache of the log is dropped: the next read finds the damage
    r = c.get("/room")
    assert r.status_code == 200
    page = r.get_data(as_text=True)
    assert "damaged log" in page and t2["pin"] in page and "no fight" in page
    # the organiser resets it: the table plays a fresh copy, the damaged game is kept as the past slot
    assert c.post(f"/room/tables/{t1['id']}/reset").status_code == 302
    table = hub.store.room_table("id", t1["id"])
    assert hub.game(table["current_game"]).tokens[template["goblin"]].name == "Goblin"
    assert hub.store.room_slots(t1["id"])[0]["game"] == t1["current_game"]
    assert c.post("/room/close", data={"sure": "on"}).status_code == 302


def test_a_forgotten_organiser_password_is_replaced_with_a_new_setup_link(app, hub, capsys):
    from webapp import cli

    c = organiser(app, "forgotten")
    assert c.get("/room/tables").status_code == 200
    database = ["--database", app.config["DATABASE"]] if app.config.get("DATABASE") else []
    assert cli.main(["room-password", "--data-dir", app.config["DATA_DIR"], *database]) == 0
    path = re.search(r"(/room/setup\?token=\S+)", capsys.readouterr().out).group(1)
    assert hub.store.room()["password"] is None
    assert c.get("/room/tables").status_code == 403  # logged out
    token = path.split("token=")[1]
    assert c.post("/room/setup", data={"token": token, "password": "newer", "confirm": "newer"}).status_code == 302
    assert c.get("/room/tables").status_code == 200 and keys.verify(hub.store.room()["password"], "newer")


def test_every_room_route_answers_hostile_input_without_a_server_error(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=1)
    table = hub.store.room_tables()[0]
    stranger = app.test_client()
    hostile = [
        {"data": {"template": "\x00", "count": "\x00", "prefix": "A\u202eB", "name": "x" * 5000,
                  "gm_name": "<img src=x>", "pin": "１２３４５６", "password": "p" * 300, "confirm": "q", "token": "é"}},
        {"data": b"template=%ED%A0%80&token=%ED%A0%80&pin=%ED%A0%80&name=%ED%A0%80&count=1e9",
         "content_type": "application/x-www-form-urlencoded"},
        {"data": "[" * 5000 + "]" * 5000, "content_type": "application/json"},
        {"data": b"\xff\xfe" * 10, "content_type": "application/x-www-form-urlencoded"},
        {"query_string": {"key": "\u00e9" * 50, "token": "x" * 500, "code": "<b>"}},
    ]
    rules = [r for r in app.url_map.iter_rules() if r.endpoint.startswith("room.")]
    assert len(rules) >= 18
    for rule in rules:
        for arg_value in (table["id"], "x" * 300, "..%2f"):
            url = rule.rule.replace("<table_id>", arg_value).replace("<role>", "gm").replace(
                "<game_id>", table["current_game"] if arg_value == table["id"] else arg_value)
            for method in sorted(m for m in rule.methods if m not in ("HEAD", "OPTIONS")):
                if rule.endpoint in ("room.close", "room.reset", "room.new_code", "room.logout"):
                    continue  # they take no input: played above; here they would only end the room or the login
                for kw in hostile:
                    before = room_state(hub)
                    r = stranger.open(url, method=method, **kw)
                    assert r.status_code < 500, (method, url, r.status_code)
                    if rule.endpoint != "room.setup":
                        assert room_state(hub) == before, (method, url)
                    r = c.open(url, method=method, **kw)
                    assert r.status_code < 500, (method, url, r.status_code, r.data[:300])
    for t in hub.store.room_tables():  # no hostile name was taken (a plain one, "%ED%A0%80", may be)
        assert not text.problem(t["name"]) and "<" not in t["name"] + t["gm_name"] and len(t["name"]) <= 40, t


def test_the_list_says_which_round_a_table_is_in(app, hub, template):
    c = organiser(app)
    make_tables(c, template["id"], count=2)
    t1, _t2 = hub.store.room_tables()
    gm = bearer(hub.store.game(t1["current_game"]).gm_key)
    api = app.test_client()
    r = api.post(f"/api/games/{t1['current_game']}/tokens", json={"name": "Hero", "x": 1, "y": 1}, headers=gm)
    hero = r.json["id"]
    r = api.post(f"/api/games/{t1['current_game']}/commands", headers=gm,
                 json={"type": "start_combat", "token_ids": [hero, template["goblin"]]})
    assert r.status_code == 200, r.json
    for _ in range(2):  # both turns of round 1: round 2
        assert api.post(f"/api/games/{t1['current_game']}/commands", headers=gm,
                        json={"type": "next_turn"}).status_code == 200
    part = c.get("/room/tables").get_data(as_text=True)
    row = part.split(f'id="table-{t1["id"]}"')[1].split("</tr>")[0]
    assert "round 2" in row and part.count("no fight") == 1
