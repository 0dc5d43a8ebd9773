"""Damaged, foreign or unreachable data: a clear message, never a traceback; one damaged game spares the others;
a full disk refuses the command and loses nothing acknowledged."""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
import traceback
from pathlib import Path

import pytest

from tests.helpers import new_game
from webapp import cli, create_app
from webapp.storage.store import Store, load_game

NOBODY = 65534


def serve_in_child(args: list[str], as_nobody: bool = False) -> tuple[int, str]:
    """`tacmap serve ...` in a forked child (as another user when we are root, so permissions bite):
    its exit code and everything it printed."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never return into pytest
        code = 99
        try:
            os.close(read)
            os.dup2(write, 1)
            os.dup2(write, 2)
            sys.stdout = open(1, "w", closefd=False)  # pytest's capture replaced the objects, not the files
            sys.stderr = open(2, "w", closefd=False)
            if as_nobody and os.geteuid() == 0:
                os.setgroups([])
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            code = cli.main(["serve", "--host", "127.0.0.1", "--port", "1", "--no-demo", *args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else 98
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stdout.flush(), sys.stderr.flush()
            os._exit(code)
    os.close(write)
    out = b""
    while chunk := os.read(read, 65536):
        out += chunk
    os.close(read)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), out.decode()


@pytest.fixture
def place():
    """A folder another user may reach (pytest's own tmp folders are root's alone)."""
    path = Path(tempfile.mkdtemp(prefix="tacmap-damaged-", dir="/tmp"))
    path.chmod(0o755)
    yield path
    for root, dirs, files in os.walk(path):
        for d in dirs:
            os.chmod(os.path.join(root, d), 0o755)
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def assert_clear_refusal(code: int, out: str, *words: str) -> None:
    assert code != 0, out
    assert "Traceback" not in out, out
    assert out.startswith("tacmap cannot start: "), out
    for word in words:
        assert word in out, out


def a_game_with_moves(data: Path) -> tuple[str, str, str, str]:
    """Two games with a few moves each; (game a, its GM key, game b, its GM key)."""
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    client = app.test_client()
    ids = []
    for name in ("Damaged", "Healthy"):
        g = new_game(client, "plain_grid", name=name)
        auth = {"Authorization": f"Bearer {g['gm_token']}"}
        t = client.post(f"/api/games/{g['id']}/tokens", json={"name": "Scout", "x": 1, "y": 1}, headers=auth).json
        for x in (2, 3, 4):
            assert client.post(f"/api/games/{g['id']}/commands", headers=auth,
                               json={"type": "move_token", "token_id": t["id"], "x": x, "y": 1}).status_code == 200
        ids += [g["id"], g["gm_token"]]
    app.extensions["tacmap"].store.close()
    return tuple(ids)


def test_a_file_that_is_not_sqlite_is_refused_at_start_with_what_to_do(place):
    data = place / "data"
    data.mkdir()
    (data / "tacmap.sqlite3").write_text("these are my notes, not a database\n" * 200)
    code, out = serve_in_child(["--data-dir", str(data)])
    assert_clear_refusal(code, out, str(data / "tacmap.sqlite3"), "not a database", "tacmap backup", "mv ")


def test_a_truncated_database_is_refused_at_start(place):
    data = place / "data"
    a_game_with_moves(data)
    db = data / "tacmap.sqlite3"
    con = sqlite3.connect(db)
    con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    con.close()
    whole = db.read_bytes()
    db.write_bytes(whole[: len(whole) // 2])
    code, out = serve_in_child(["--data-dir", str(data)])
    assert_clear_refusal(code, out, str(db), "damaged")


def test_a_database_of_another_program_is_refused_at_start(place):
    data = place / "data"
    data.mkdir()
    con = sqlite3.connect(data / "tacmap.sqlite3")
    con.execute("CREATE TABLE games (id TEXT, score INTEGER)")
    con.commit()
    con.close()
    code, out = serve_in_child(["--data-dir", str(data)])
    assert_clear_refusal(code, out, "not tacmap's", "'games'", "--data-dir")


def test_a_data_folder_that_is_a_file_is_refused_at_start(place):
    (place / "data").write_text("oops")
    code, out = serve_in_child(["--data-dir", str(place / "data")])
    assert_clear_refusal(code, out, str(place / "data"))


def test_a_data_folder_we_may_not_write_is_refused_at_start(place):
    data = place / "data"
    a_game_with_moves(data)
    data.chmod(0o555)
    code, out = serve_in_child(["--data-dir", str(data)], as_nobody=True)
    assert_clear_refusal(code, out, str(data), "chmod")


def test_a_database_we_may_not_read_or_write_is_refused_at_start(place):
    data = place / "data"
    a_game_with_moves(data)
    os.chown(data, NOBODY, NOBODY) if os.geteuid() == 0 else None
    os.chown(data / "secret_key", NOBODY, NOBODY) if os.geteuid() == 0 else None
    for mode in (0o444, 0o000):  # read-only, then unreadable
        (data / "tacmap.sqlite3").chmod(mode)
        code, out = serve_in_child(["--data-dir", str(data)], as_nobody=True)
        assert_clear_refusal(code, out, str(data / "tacmap.sqlite3"), "chmod u+rw")


def corrupt(data: Path, game_id: str, seq: int, value: str) -> None:
    con = sqlite3.connect(data / "tacmap.sqlite3")
    con.execute("UPDATE events SET data = ? WHERE game_id = ? AND seq = ?", (value, game_id, seq))
    con.commit()
    con.close()


@pytest.mark.parametrize("value, why", [("{not json", "not readable JSON"),
                                        ('{"token_id": "nobody", "x": 1, "y": 1}', "cannot be applied")])
def test_a_damaged_event_takes_its_game_out_of_service_and_spares_the_others(tmp_path, value, why):
    data = tmp_path / "data"
    damaged, damaged_key, healthy, healthy_key = a_game_with_moves(data)
    corrupt(data, damaged, 4, value)  # the second move
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    client = app.test_client()

    page = client.get(f"/games/{damaged}/gm?key={damaged_key}", follow_redirects=True)
    assert page.status_code == 503
    text = page.get_data(as_text=True)
    assert "damaged at seq 4" in text and why in text and f"tacmap export {damaged}" in text
    assert "Traceback" not in text and "This game is out of service" in text
    assert "Back to the lobby" in text  # not back to the game that cannot open
    api = client.get(f"/api/games/{damaged}/state", headers={"Authorization": f"Bearer {damaged_key}"})
    assert api.status_code == 503 and "damaged at seq 4" in api.json["error"]
    sio = app.extensions["tacmap_socketio"].test_client(app, auth={"game": damaged, "token": damaged_key})
    assert not sio.is_connected()

    assert client.get("/").status_code == 200
    assert client.get(f"/games/{healthy}/gm?key={healthy_key}", follow_redirects=True).status_code == 200
    other = app.extensions["tacmap_socketio"].test_client(app, auth={"game": healthy, "token": healthy_key})
    assert other.emit("command", {"type": "roll", "expr": "d6"}, callback=True)["ok"] is True


def test_a_game_whose_log_breaks_while_served_answers_commands_with_where(tmp_path):
    data = tmp_path / "data"
    damaged, damaged_key, _healthy, _key = a_game_with_moves(data)
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    hub = app.extensions["tacmap"]
    sio = app.extensions["tacmap_socketio"].test_client(app, auth={"game": damaged, "token": damaged_key})
    assert sio.is_connected()
    corrupt(data, damaged, 3, "]]")
    hub.games.clear()  # the cache is dropped (another process wrote first, say): the log is read again
    ack = sio.emit("command", {"type": "roll", "expr": "d6"}, callback=True)
    assert ack["ok"] is False and ack["code"] == "damaged_log" and "damaged at seq 3" in ack["error"]


def test_a_full_disk_refuses_the_command_and_loses_nothing_acknowledged(app, hub):
    client = app.test_client()
    g = client.post("/api/games", json={"name": "Full", "system": "plain_grid"}).json
    sio = app.extensions["tacmap_socketio"].test_client(app, auth={"game": g["id"], "token": g["gm_token"]})
    db = hub.store._db
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages + 2}")  # the disk fills up a few commands from now
    acked, refused = {}, None
    for i in range(200):
        ack = sio.emit("command", {"type": "add_token", "name": f"Goblin {i} " + "x" * 30, "x": i % 20,
                                   "y": i // 20}, callback=True)
        if not ack["ok"]:
            refused = ack
            break
        acked[ack["seq"]] = f"Goblin {i} "
    assert refused is not None, "the disk never filled"
    assert refused["code"] == "not_stored" and "disk is full" in refused["error"]
    assert "nothing was stored" in refused["error"]
    # the state in memory did not move ahead of the disk: it is what the log rebuilds
    assert hub.game(g["id"]).to_dict() == load_game(hub.store, g["id"]).to_dict()
    on_disk = Store(Path(app.config["DATA_DIR"]) / "tacmap.sqlite3")
    events = on_disk.events(g["id"])
    for seq, name in acked.items():
        assert events[seq - 1].type == "token_added" and events[seq - 1].data["token"]["name"].startswith(name)
    assert len(events) == max(acked)
    on_disk.close()
    # space again: the game goes on from where the disk stopped, with no gap
    db.execute("PRAGMA max_page_count = 1073741823")
    ack = sio.emit("command", {"type": "roll", "expr": "d6"}, callback=True)
    assert ack["ok"] and ack["seq"] == max(acked) + 1


def test_a_stranger_database_is_left_as_it_was(place):
    data = place / "data"
    data.mkdir()
    con = sqlite3.connect(data / "tacmap.sqlite3")
    con.execute("CREATE TABLE recipes (name TEXT)")
    con.commit()
    con.close()
    code, out = serve_in_child(["--data-dir", str(data)])
    assert_clear_refusal(code, out, "not tacmap's")
    con = sqlite3.connect(data / "tacmap.sqlite3")
    assert [r[0] for r in con.execute("SELECT name FROM sqlite_master")] == ["recipes"]
    con.close()


def test_a_full_disk_refuses_a_new_game_with_a_message(app, hub):
    client = app.test_client()
    db = hub.store._db
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.execute(f"PRAGMA max_page_count = {db.execute('PRAGMA page_count').fetchone()[0]}")
    for _ in range(100):  # until the disk is full
        before = len(hub.store.games())
        r = client.post("/api/games", json={"name": "X" * 40, "system": "plain_grid"})
        if r.status_code != 201:
            break
    assert r.status_code == 507 and "disk is full" in r.json["error"]
    assert len(hub.store.games()) == before
    page = client.post("/games", data={"name": "Y" * 40, "system": "plain_grid"})
    assert page.status_code == 507 and "The server&#39;s disk is full" in page.get_data(as_text=True)
    assert len(hub.store.games()) == before
