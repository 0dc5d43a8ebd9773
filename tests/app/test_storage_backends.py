"""The store on both backends (issue #38): the data folder's SQLite file and PostgreSQL, through the same Store.

Each test runs twice (the ``backend`` fixture, tests/conftest.py): on SQLite, and on a database of its own in a
throwaway PostgreSQL cluster (bench/pgcluster.py). Real databases, no stand-ins.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from webapp import cli, create_app
from webapp.game.core.model import GM, Event
from webapp.storage.store import Applied, Conflict, DataError, GameRecord, Store, load_game
from webapp.web.sessions import ServerSessions

REPO = Path(__file__).resolve().parents[2]


def target(backend, tmp_path) -> str | Path:
    return backend or tmp_path / "data" / "tacmap.sqlite3"


def record(game_id="abcd1234", code="JOIN01") -> GameRecord:
    return GameRecord(game_id, "Cellar", "plain_grid", "gm-key", "screen-key", code, time.time())


def make_app(tmp_path, backend, folder="data"):
    config = {"DATA_DIR": str(tmp_path / folder), "TESTING": True, "DEMO": False}
    if backend:
        config["DATABASE"] = backend
    return create_app(config)


def test_the_log_its_command_ids_and_snapshots_round_trip(backend, tmp_path):
    store = Store(target(backend, tmp_path))
    try:
        store.create_game(record(), [Event("game_created", {"name": "Cellar", "system": "plain_grid"})])
        assert [r.id for r in store.games()] == ["abcd1234"] and store.last_seq("abcd1234") == 1
        seq = store.append("abcd1234", 1, [Event("note", {"n": 1}), Event("note", {"n": "é <b>"})],
                           [Applied("gm", "c-1", 3, {"token": "t1"})])
        assert seq == 3 and store.last_seq("abcd1234") == 3
        assert [e.data for e in store.events("abcd1234", after=1)] == [{"n": 1}, {"n": "é <b>"}]
        assert store.applied("abcd1234", "gm", "c-1") == (3, {"token": "t1"})
        assert store.applied("abcd1234", "player:x", "c-1") is None
        times = store.event_times("abcd1234")
        assert len(times) == 3 and all(isinstance(t, float) for t in times)
        store.save_snapshot("abcd1234", 3, {"seq": 3})
        store.save_snapshot("abcd1234", 2, {"seq": 2})  # an older one never replaces a later one
        assert store.snapshot("abcd1234") == (3, {"seq": 3})
        store.rename_game("abcd1234", "Crypt")
        store.update_access("abcd1234", join_code="NEWCOD")
        assert store.game_by_join_code("NEWCOD").name == "Crypt" and store.game_by_join_code("JOIN01") is None
    finally:
        store.close()


def test_a_second_writer_on_the_same_step_is_a_conflict_and_changes_nothing(backend, tmp_path):
    first, second = Store(target(backend, tmp_path)), Store(target(backend, tmp_path))
    try:
        first.create_game(record(), [])
        first.append("abcd1234", 0, [Event("note", {"by": "first"})], [Applied("gm", "c-1", 1, {})])
        with pytest.raises(Conflict):
            second.append("abcd1234", 0, [Event("note", {"by": "second"})])
        with pytest.raises(Conflict):  # a command id stored already is a conflict too, whatever its seq
            second.append("abcd1234", 1, [Event("note", {"by": "second"})], [Applied("gm", "c-1", 2, {})])
        assert [e.data for e in second.events("abcd1234")] == [{"by": "first"}]
        assert second.append("abcd1234", 1, [Event("note", {"by": "second"})]) == 2  # from the fresh head: fine
        assert [e.data["by"] for e in first.events("abcd1234")] == ["first", "second"]
    finally:
        first.close()
        second.close()


def test_writers_racing_for_one_seq_from_threads_leave_exactly_one_event_there(backend, tmp_path):
    stores = [Store(target(backend, tmp_path)) for _ in range(6)]
    stores[0].create_game(record(), [])
    won, lost = [], []
    start = threading.Barrier(len(stores))

    def race(i):
        start.wait()
        try:
            stores[i].append("abcd1234", 0, [Event("note", {"by": i})])
            won.append(i)
        except Conflict:
            lost.append(i)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(len(stores))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    try:
        assert len(won) == 1 and len(lost) == len(stores) - 1
        assert [e.data["by"] for e in stores[0].events("abcd1234")] == won
    finally:
        for s in stores:
            s.close()


def test_a_browser_session_made_by_one_process_opens_on_the_other(backend, tmp_path):
    """Sessions (the keys a browser remembers, its CSRF token) are in the store's database: two apps on it with
    data folders of their own, as on two machines (SQLite: one data folder, as two processes on one machine)."""
    a = make_app(tmp_path, backend, "a")
    b = make_app(tmp_path, backend, "a" if backend is None else "b")
    game = a.extensions["tacmap"].create_game("Crypt", "plain_grid")
    record = a.extensions["tacmap"].store.game(game.id)
    ca = a.test_client()
    first = ca.get(f"/games/{game.id}/gm?key={record.gm_key}", follow_redirects=True)
    assert first.status_code == 200 and "Crypt" in first.get_data(as_text=True)
    cookie = ca.get_cookie(a.config["SESSION_COOKIE_NAME"])
    cb = b.test_client()
    cb.set_cookie(b.config["SESSION_COOKIE_NAME"], cookie.value)
    assert b.extensions["tacmap"].store.game(game.id).name == "Crypt"
    page = cb.get(f"/games/{game.id}/gm")  # no key in the address: the session remembered it
    assert page.status_code == 200 and "Crypt" in page.get_data(as_text=True)
    stranger = b.test_client().get(f"/games/{game.id}/gm")
    assert stranger.status_code in (302, 303, 401, 403)
    if backend:  # one secret for every process on the database, whatever the data folder
        assert a.config["SECRET_KEY"] == b.config["SECRET_KEY"]
        assert not (tmp_path / "b" / "sessions.sqlite3").exists() and not (tmp_path / "b" / "tacmap.sqlite3").exists()


def test_a_game_exported_from_one_backend_imports_into_the_other(backend, tmp_path, pg_cluster):
    """`tacmap export` / `import` on both: a game played on this backend, exported, imported on the other one,
    loads to the same state."""
    app = make_app(tmp_path, backend)
    hub = app.extensions["tacmap"]
    with app.test_request_context():
        game = hub.create_game("Crypt", "plain_grid")
        for x in range(3):
            hub.execute(game.id, GM, {"type": "add_token", "name": f"Ghoul {x}", "x": x, "y": 1})
    want = load_game(hub.store, game.id).to_dict()
    gm_key = hub.store.game(game.id).gm_key
    hub.store.close()
    args = ["--data-dir", str(tmp_path / "data")] + (["--database", backend] if backend else [])
    assert cli.main(["export", game.id, str(tmp_path / "crypt.tacmap"), *args]) == 0
    other = None if backend else pg_cluster.database()  # the other backend
    into = ["--data-dir", str(tmp_path / "other")] + (["--database", other] if other else [])
    assert cli.main(["import", str(tmp_path / "crypt.tacmap"), *into]) == 0
    store = Store(other or tmp_path / "other" / "tacmap.sqlite3")
    try:
        assert load_game(store, game.id).to_dict() == want
        assert store.game(game.id).gm_key == gm_key  # the keys travel with the game: the same links work
    finally:
        store.close()


def test_migrate_data_copies_a_data_folder_into_postgresql_and_back(tmp_path, pg_url, capsys):
    app = make_app(tmp_path, None)
    hub = app.extensions["tacmap"]
    with app.test_request_context():
        game = hub.create_game("Crypt", "plain_grid")
        hub.execute(game.id, GM, {"type": "add_token", "name": "Ghoul", "x": 1, "y": 1})
    want = load_game(hub.store, game.id).to_dict()
    client = app.test_client()
    key = hub.store.game(game.id).gm_key
    assert client.get(f"/games/{game.id}/gm?key={key}", follow_redirects=True).status_code == 200
    cookie = client.get_cookie(app.config["SESSION_COOKIE_NAME"]).value
    data = str(tmp_path / "data")
    assert cli.main(["migrate-data", data, pg_url]) == 0
    assert "copied 1 games (2 events" in capsys.readouterr().out
    # a server on PostgreSQL, with a data folder of its own, serves the game and knows the browser
    on_pg = make_app(tmp_path, pg_url, "machine-b")
    assert load_game(on_pg.extensions["tacmap"].store, game.id).to_dict() == want
    browser = on_pg.test_client()
    browser.set_cookie(on_pg.config["SESSION_COOKIE_NAME"], cookie)
    assert browser.get(f"/games/{game.id}/gm").status_code == 200
    # into a database that holds games: refused, nothing written
    assert cli.main(["migrate-data", data, pg_url]) == 2
    assert "holds 1 games already" in capsys.readouterr().err
    assert len(on_pg.extensions["tacmap"].store.games()) == 1
    # and back into a new data folder
    back = str(tmp_path / "back")
    assert cli.main(["migrate-data", pg_url, back]) == 0
    store = Store(Path(back) / "tacmap.sqlite3")
    try:
        assert load_game(store, game.id).to_dict() == want
    finally:
        store.close()
    assert ServerSessions(Path(back) / "sessions.sqlite3")._query("SELECT COUNT(*) FROM sessions")[0][0] >= 1
    assert cli.main(["migrate-data", data, str(tmp_path / "x")]) == 2  # two folders: that is `tacmap backup`


def test_a_database_that_cannot_be_reached_or_is_not_a_url_is_a_clear_error(tmp_path, pg_cluster):
    from bench.pgcluster import free_port

    with pytest.raises(DataError, match="cannot connect to the database .*127.0.0.1.*docs/STORAGE.md"):
        make_app(tmp_path, f"postgresql://tacmap:secret@127.0.0.1:{free_port()}/tacmap")
    with pytest.raises(DataError) as err:
        make_app(tmp_path, f"postgresql://tacmap:secret@127.0.0.1:{pg_cluster.port}/no_such_database")
    assert "secret" not in str(err.value) and "no_such_database" in str(err.value)
    with pytest.raises(DataError, match="PostgreSQL address"):
        make_app(tmp_path, "mysql://somewhere/tacmap")


def test_a_stranger_database_is_refused_untouched(tmp_path, pg_url):
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE events (id INTEGER)")
    with pytest.raises(DataError, match="not tacmap's"):
        Store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        tables = [r[0] for r in conn.execute("SELECT table_name FROM information_schema.tables "
                                             "WHERE table_schema = 'public'")]
    assert tables == ["events"]


GEVENT_PROBE = r"""
import sys, time
from gevent import monkey
monkey.patch_all(subprocess=False)
import gevent
sys.path.insert(0, sys.argv[2])
from webapp.storage.store import Store, GameRecord
from webapp.game.core.model import Event
import psycopg.waiting
print("wait:", psycopg.waiting.wait.__name__)
store = Store(sys.argv[1])
store.create_game(GameRecord("abcd1234", "n", "plain_grid", "g", "s", "J1", 0.0), [])
ticks = []
def tick():
    end = time.monotonic() + 1.0
    while time.monotonic() < end:
        ticks.append(time.monotonic())
        gevent.sleep(0.01)
ticker = gevent.spawn(tick)
gevent.sleep(0.05)
t0 = time.monotonic()
store._db.execute("SELECT pg_sleep(0.6)").fetchall()   # a slow query
slow = time.monotonic() - t0
during = [t for t in ticks if t0 < t < t0 + slow]
gaps = max(b - a for a, b in zip(ticks, ticks[1:]))
ticker.join()
print("slow:", round(slow, 2), "ticks during:", len(during), "longest gap:", round(gaps, 3))
"""


def test_under_gevent_a_slow_query_lets_the_other_greenlets_run(pg_url, tmp_path):
    """`tacmap serve` patches the standard library; psycopg then waits in Python (not its C wait), so a slow
    query holds its own greenlet only: a greenlet ticking every 10 ms goes on ticking during a 0.6 s query."""
    probe = tmp_path / "probe.py"
    probe.write_text(GEVENT_PROBE)
    done = subprocess.run([sys.executable, str(probe), pg_url, str(REPO)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "wait: wait_c" not in out, out
    slow = float(out.split("slow:")[1].split()[0])
    during = int(out.split("ticks during:")[1].split()[0])
    gap = float(out.split("longest gap:")[1].split()[0])
    assert slow >= 0.55 and during >= 20 and gap < 0.25, out


def png(color=(200, 40, 40), size=(48, 32)) -> bytes:
    import io

    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, "PNG")
    return out.getvalue()


def upload_handout(client, game: dict, data: bytes):
    import io

    return client.post(f"/api/games/{game['id']}/handouts", data={"title": "Crypt map", "text": "",
                                                                  "file": (io.BytesIO(data), "crypt.png")},
                       content_type="multipart/form-data", headers={"Authorization": f"Bearer {game['gm_token']}"})


def test_a_picture_uploaded_through_one_machine_is_served_by_the_other(tmp_path, pg_url):
    """On PostgreSQL each machine has a data folder of its own: the picture goes into the database with its
    upload, and the other machine fetches it from there the first time it is asked for (then keeps a copy)."""
    a, b = make_app(tmp_path, pg_url, "machine-a"), make_app(tmp_path, pg_url, "machine-b")
    ca, cb = a.test_client(), b.test_client()
    game = ca.post("/api/games", json={"name": "Crypt", "system": "plain_grid"}).json
    picture = png()
    assert upload_handout(ca, game, picture).status_code == 201
    url = cb.get(f"/api/games/{game['id']}/state", headers={"Authorization": f"Bearer {game['gm_token']}"}
                 ).json["handouts"][0]["picture"]["url"]
    name = url.rsplit("/", 1)[1].split("?")[0]
    copy = tmp_path / "machine-b" / "pictures" / game["id"] / name
    assert not copy.exists()
    got = cb.get(url, headers={"Authorization": f"Bearer {game['gm_token']}"})
    assert got.status_code == 200 and got.data == picture
    assert copy.read_bytes() == picture  # kept: the next one is served from the folder
    stranger = cb.get(url)
    assert stranger.status_code in (403, 404)
    # exported from PostgreSQL through machine B's folder (which never had it before): the picture goes along
    copy.unlink()
    assert cli.main(["export", game["id"], str(tmp_path / "g.tacmap"), "--data-dir", str(tmp_path / "machine-b"),
                     "--database", pg_url]) == 0
    import zipfile

    with zipfile.ZipFile(tmp_path / "g.tacmap") as z:
        assert z.read(f"files/pictures/{name}") == picture
        assert "tables/files.jsonl" not in z.namelist()  # readable by a tacmap on SQLite
    assert cli.main(["import", str(tmp_path / "g.tacmap"), "--new-id", "--data-dir", str(tmp_path / "sq")]) == 0
    assert (next((tmp_path / "sq" / "pictures").iterdir()) / name).read_bytes() == picture


def test_migrate_data_takes_the_pictures_along_both_ways(tmp_path, pg_url):
    app = make_app(tmp_path, None)
    client = app.test_client()
    game = client.post("/api/games", json={"name": "Crypt", "system": "plain_grid"}).json
    picture = png((10, 200, 10))
    assert upload_handout(client, game, picture).status_code == 201
    assert cli.main(["migrate-data", str(tmp_path / "data"), pg_url]) == 0
    on_pg = make_app(tmp_path, pg_url, "machine-b")
    c = on_pg.test_client()
    url = c.get(f"/api/games/{game['id']}/state", headers={"Authorization": f"Bearer {game['gm_token']}"}
                ).json["handouts"][0]["picture"]["url"]
    assert c.get(url, headers={"Authorization": f"Bearer {game['gm_token']}"}).data == picture
    assert cli.main(["migrate-data", pg_url, str(tmp_path / "back")]) == 0
    name = url.rsplit("/", 1)[1].split("?")[0]
    assert (tmp_path / "back" / "pictures" / game["id"] / name).read_bytes() == picture


def test_the_rooms_tables_and_slots_on_both_backends(backend, tmp_path):
    """Room mode's rows (webapp/web/room/room.py) live in the same store as the games, so several machines on one
    PostgreSQL share one room: a table's reset moves it to its next slot once; a second reset of the same slot is
    a Conflict (its UPDATE's row count is read inside the transaction, also in PostgreSQL's pipeline)."""
    store = Store(target(backend, tmp_path))
    try:
        assert store.room() is None
        store.save_room(password="hash", setup_token=None)
        store.save_room(closed_at=12.5)
        assert store.room()["password"] == "hash" and store.room()["closed_at"] == 12.5
        table = {"id": "t1", "name": "Table 1", "gm_name": "Ann", "template": "tpl", "current_game": "g1",
                 "join_code": "ABC123", "pin": "123456", "created_at": time.time()}
        store.add_room_table(table)
        store.update_room_table("t1", gm_name="Bea", pin="654321")
        assert store.room_table("pin", "654321")["gm_name"] == "Bea" and store.room_table("pin", "123456") is None
        store.next_room_slot("t1", "g1", "g2")
        assert store.room_table("id", "t1")["current_game"] == "g2"
        with pytest.raises(Conflict):
            store.next_room_slot("t1", "g1", "g3")  # someone else reset it already
        assert [s["game"] for s in store.room_slots("t1")] == ["g1"] and store.room_slot("g1")["slot"] == 1
        assert store.room_table("id", "t1")["current_game"] == "g2" and store.room_slot("g3") is None
    finally:
        store.close()
