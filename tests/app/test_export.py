"""`tacmap export / import / backup / repair`: a whole game moves between machines in one file, a broken
file imports nothing, a backup taken while commands are written opens whole."""

from __future__ import annotations

import json
import os
import stat
import sqlite3
import threading
import time
import zipfile
from pathlib import Path

import pytest

from tests.helpers import join, new_game
from webapp import cli, create_app
from webapp.live import committing
from webapp.game.views.audience import public_state
from webapp.storage.archive import ArchiveError, backup, export_game, import_game
from webapp.storage.store import DB_NAME, Store, load_game


def make_app(data: Path):
    return create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})


def command(client, game, payload):
    r = client.post(f"/api/games/{game['id']}/commands", json=payload,
                    headers={"Authorization": f"Bearer {game['gm_token']}"})
    assert r.status_code == 200, r.get_data(as_text=True)
    return r.json


@pytest.fixture
def table(tmp_path, monkeypatch):
    """A game with a player, tokens, moves, a character sheet, a snapshot and a map picture of its own."""
    monkeypatch.setattr(committing, "SNAPSHOT_EVERY", 5)
    data = tmp_path / "here"
    app = make_app(data)
    client = app.test_client()
    game = new_game(client, "savage_worlds", name="Keep on the Borderlands")
    seat = join(client, game, "Mira")
    token = client.post(f"/api/games/{game['id']}/tokens", json={"name": "Aria", "x": 2, "y": 2,
                                                                "owner": seat["player_id"]},
                        headers={"Authorization": f"Bearer {game['gm_token']}"}).json
    command(client, game, {"type": "add_character", "name": "Aria", "token_id": token["id"]})
    for x in (3, 4, 5, 6, 7, 8):
        command(client, game, {"type": "move_token", "token_id": token["id"], "x": x, "y": 2})
    other = new_game(client, "plain_grid", name="Another")
    pictures = data / "pictures" / game["id"]
    pictures.mkdir(parents=True)
    (pictures / "cave.png").write_bytes(b"\x89PNG\r\n" + bytes(range(256)) * 40)
    (pictures / "notes").mkdir()
    (pictures / "notes" / "walls.json").write_text('{"walls": []}')
    hub = app.extensions["tacmap"]
    assert hub.store.snapshot(game["id"]) is not None
    return {"app": app, "hub": hub, "data": data, "game": game, "seat": seat, "token": token, "other": other}


def state_of(store: Store, game_id: str) -> dict:
    from webapp.game.core.model import GM

    return public_state(load_game(store, game_id), GM)


def test_a_game_moves_whole_to_another_data_folder(table, tmp_path):
    game = table["game"]
    file = tmp_path / "borderlands.tacmap"
    manifest = export_game(table["data"], game["id"], file)
    assert manifest["format"] == "tacmap-game" and manifest["version"] == 1
    assert manifest["tables"]["events"] == manifest["last_seq"] == table["hub"].game(game["id"]).seq
    assert manifest["tables"]["snapshots"] == 1
    assert sorted(f["path"] for f in manifest["files"]) == ["pictures/cave.png", "pictures/notes/walls.json"]

    there = tmp_path / "there"
    done = import_game(there, file)
    assert done.game_id == game["id"] and done.gm_key == game["gm_token"] and done.notes == []
    store = Store(there / "tacmap.sqlite3")
    try:
        assert [g.id for g in store.games()] == [game["id"]]  # the other game stayed where it was
        assert state_of(store, game["id"]) == state_of(table["hub"].store, game["id"])
        assert store.snapshot(game["id"]) == table["hub"].store.snapshot(game["id"])
    finally:
        store.close()
    assert (there / "pictures" / game["id"] / "cave.png").read_bytes() == \
        (table["data"] / "pictures" / game["id"] / "cave.png").read_bytes()
    assert (there / "pictures" / game["id"] / "notes" / "walls.json").read_text() == '{"walls": []}'

    # the same links work there: the GM's key, the player's key, the character sheet
    client = make_app(there).test_client()
    r = client.get(f"/api/games/{game['id']}/state", headers={"Authorization": f"Bearer {game['gm_token']}"})
    assert r.status_code == 200 and [c["name"] for c in r.json["characters"]] == ["Aria"]
    r = client.get(f"/api/games/{game['id']}/state", headers={"Authorization": f"Bearer {table['seat']['player_token']}"})
    assert r.status_code == 200 and r.json["you"]["player_id"] == table["seat"]["player_id"]


def test_the_same_game_twice_is_refused_unless_it_is_a_copy_with_a_new_id(table, tmp_path):
    game = table["game"]
    file = tmp_path / "g.tacmap"
    export_game(table["data"], game["id"], file)
    with pytest.raises(ArchiveError, match="is here already; nothing was imported. Import it with --new-id"):
        import_game(table["data"], file)
    copy = import_game(table["data"], file, new_id=True)
    assert copy.game_id != game["id"] and copy.gm_key != game["gm_token"]
    store = Store(table["data"] / "tacmap.sqlite3")
    try:
        mine = state_of(store, copy.game_id)
        theirs = state_of(store, game["id"])
        assert mine["tokens"] == theirs["tokens"] and mine["characters"] == theirs["characters"]
        assert store.game(copy.game_id).join_code != store.game(game["id"]).join_code
    finally:
        store.close()
    assert (table["data"] / "pictures" / copy.game_id / "cave.png").exists()


def test_new_keys_make_the_old_links_stop(table, tmp_path):
    game = table["game"]
    file = tmp_path / "g.tacmap"
    export_game(table["data"], game["id"], file)
    done = import_game(tmp_path / "there", file, new_keys=True)
    client = make_app(tmp_path / "there").test_client()
    old = client.get(f"/api/games/{game['id']}/state", headers={"Authorization": f"Bearer {game['gm_token']}"})
    new = client.get(f"/api/games/{game['id']}/state", headers={"Authorization": f"Bearer {done.gm_key}"})
    assert old.status_code == 401 and new.status_code == 200
    assert done.notes and "new GM and table-screen keys" in done.notes[0]


def rewrite(file: Path, out: Path, change) -> Path:
    """A copy of a game file with ``change(name, bytes) -> bytes | None`` applied (None leaves it out)."""
    with zipfile.ZipFile(file) as z, zipfile.ZipFile(out, "w") as w:
        for name in z.namelist():
            content = change(name, z.read(name))
            if content is not None:
                w.writestr(name, content)
    return out


def manifest_with(**changes):
    def change(name, content):
        if name != "manifest.json":
            return content
        return json.dumps({**json.loads(content), **changes})
    return change


def with_table(file: Path, out: Path, table: str, rows: list[dict]) -> Path:
    """A copy of a game file with one more table in it."""
    def change(name, content):
        if name != "manifest.json":
            return content
        m = json.loads(content)
        return json.dumps({**m, "tables": {**m["tables"], table: len(rows)}})
    rewrite(file, out, change)
    with zipfile.ZipFile(out, "a") as z:
        z.writestr(f"tables/{table}.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
    return out


def test_a_broken_or_foreign_file_imports_nothing_and_says_why(table, tmp_path):
    game = table["game"]
    good = tmp_path / "g.tacmap"
    export_game(table["data"], game["id"], good)
    (tmp_path / "notes.txt").write_text("not a zip at all")
    whole = good.read_bytes()
    (tmp_path / "cut.tacmap").write_bytes(whole[: len(whole) // 2])

    def bad_event(name, content):
        if name != "tables/events.jsonl":
            return content
        rows = [json.loads(line) for line in content.decode().splitlines()]
        rows[5]["data"] = "{broken"
        return "".join(json.dumps(r) + "\n" for r in rows)

    cases = {
        tmp_path / "notes.txt": "is not a tacmap game file (not a zip",
        tmp_path / "cut.tacmap": "is not a tacmap game file",
        tmp_path / "missing.tacmap": "there is no file",
        rewrite(good, tmp_path / "a.zip", lambda n, c: None if n == "manifest.json" else c): "no manifest.json",
        rewrite(good, tmp_path / "b.zip", manifest_with(format="photos")): "is not of format 'tacmap-game'",
        rewrite(good, tmp_path / "c.zip", manifest_with(version=7)): "format version 7; this tacmap reads version 1",
        rewrite(good, tmp_path / "d.zip", lambda n, c: c + b"x" if n.endswith("cave.png") else c):
            "does not match its checksum",
        rewrite(good, tmp_path / "e.zip", lambda n, c: None if n == "tables/snapshots.jsonl" else c):
            "tables/snapshots.jsonl is missing",
        rewrite(good, tmp_path / "f.zip", bad_event): "holds a damaged log (seq 6",
        rewrite(good, tmp_path / "g.zip", manifest_with(tables={"events": 20, "scores": 1})):
            "should hold 20 rows",
        with_table(good, tmp_path / "h.zip", "games", [{"id": "x"}]): "belongs in its manifest",
        rewrite(good, tmp_path / "k.zip", manifest_with(game={"id": "abcd1234", "gm_key": 5})):
            "its game record lacks name, system, gm_key, screen_key, join_code",
        rewrite(good, tmp_path / "i.zip", lambda n, c: c.replace(b'"seq": 3,', b'"seq": null,')
                if n == "tables/events.jsonl" else c): "a row that is not an event",
        rewrite(good, tmp_path / "j.zip", lambda n, c: c.replace(b'"state": "', b'"state": {"$b64": "!!"}, "x": "', 1)
                if n == "tables/snapshots.jsonl" else c): "tables/snapshots.jsonl cannot be read",
    }
    there = tmp_path / "there"
    for file, message in cases.items():
        with pytest.raises(ArchiveError) as caught:
            import_game(there, file)
        assert message in str(caught.value), (file.name, str(caught.value))
        # nothing half-imported: no game, no rows, no files, no staging left behind
        store = Store(there / "tacmap.sqlite3")
        try:
            assert store.games() == []
            assert store._db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
            assert store._db.execute("SELECT COUNT(*) FROM snapshots").fetchone()[0] == 0
        finally:
            store.close()
        assert sorted(p.name for p in there.iterdir() if p.name not in ("tacmap.sqlite3-wal", "tacmap.sqlite3-shm")) \
            == ["tacmap.sqlite3"], file.name


def test_an_import_that_fails_while_writing_leaves_nothing(table, tmp_path):
    """A row the database refuses is only found out when writing: the game's row and its log, inserted
    before it, roll back, and no file is left."""
    game = table["game"]
    good = tmp_path / "g.tacmap"
    export_game(table["data"], game["id"], good)

    def no_time(name, content):
        if name != "tables/events.jsonl":
            return content
        rows = [json.loads(line) for line in content.decode().splitlines()]
        return "".join(json.dumps({**r, "created_at": None}) + "\n" for r in rows)

    file = rewrite(good, tmp_path / "notime.zip", no_time)
    there = tmp_path / "there"
    with pytest.raises(ArchiveError, match="could not be stored .*NOT NULL.*nothing was imported"):
        import_game(there, file)
    store = Store(there / "tacmap.sqlite3")
    assert store.games() == [] and store._db.execute("SELECT COUNT(*) FROM events").fetchone()[0] == 0
    store.close()
    assert not (there / "pictures").exists()
    assert not [p for p in there.iterdir() if p.name.startswith(".import-")]


def test_a_table_from_a_newer_tacmap_is_refused(table, tmp_path):
    game = table["game"]
    good = tmp_path / "g.tacmap"
    export_game(table["data"], game["id"], good)

    def newer(name, content):
        if name == "manifest.json":
            m = json.loads(content)
            return json.dumps({**m, "tables": {**m["tables"], "scores": 0}})
        return content

    file = rewrite(good, tmp_path / "newer.zip", newer)
    with zipfile.ZipFile(file, "a") as z:
        z.writestr("tables/scores.jsonl", "")
    with pytest.raises(ArchiveError, match="table 'scores' this tacmap does not know"):
        import_game(tmp_path / "there", file)


def test_a_backup_taken_while_commands_are_written_opens_whole(table, tmp_path):
    hub, game, token = table["hub"], table["game"], table["token"]
    from webapp.game.core.model import GM

    stop, written, errors = threading.Event(), [], []

    def write():
        i = 0
        while not stop.is_set():
            try:
                done = hub.execute(game["id"], GM, {"type": "move_token", "token_id": token["id"],
                                                    "x": 2 + i % 10, "y": 3 + (i // 10) % 5})
                written.append(done.seq)
            except Exception as exc:  # noqa: BLE001 (reported below)
                errors.append(repr(exc))
            i += 1

    writer = threading.Thread(target=write)
    writer.start()
    try:
        deadline = time.monotonic() + 20
        while len(written) < 30 and time.monotonic() < deadline:
            time.sleep(0.01)
        at_start = written[-1]
        dest = tmp_path / "backup"
        done = backup(table["data"], dest)
        at_end = written[-1]
    finally:
        stop.set()
        writer.join(10)
    assert not errors, errors[:3]
    assert done["games"] == 2
    copy = Store(dest / "tacmap.sqlite3")
    try:
        seq = copy.last_seq(game["id"])
        assert at_start <= seq <= at_end + 1  # one moment of the log, taken during the writes
        events = copy.events(game["id"])  # whole: no gap, every event readable
        assert len(events) == seq
        restored = load_game(copy, game["id"])
        assert restored.seq == seq
        live = hub.store.events(game["id"])[:seq]
        assert [(e.type, e.data) for e in events] == [(e.type, e.data) for e in live]
    finally:
        copy.close()
    assert (dest / "secret_key").read_text() == (table["data"] / "secret_key").read_text()
    assert (dest / "pictures" / game["id"] / "cave.png").exists()
    # and the copy serves
    client = make_app(dest).test_client()
    assert client.get(f"/api/games/{game['id']}/state",
                      headers={"Authorization": f"Bearer {game['gm_token']}"}).json["seq"] == seq


def test_a_backup_is_not_written_over_something_or_into_the_data_folder(table, tmp_path):
    (tmp_path / "full").mkdir()
    (tmp_path / "full" / "x").write_text("mine")
    with pytest.raises(ArchiveError, match="is not an empty folder"):
        backup(table["data"], tmp_path / "full")
    with pytest.raises(ArchiveError, match="inside the data folder"):
        backup(table["data"], table["data"] / "b")
    assert (tmp_path / "full" / "x").read_text() == "mine"


def test_the_commands(table, tmp_path, capsys):
    game, data = table["game"], str(table["data"])
    file = str(tmp_path / "g.tacmap")
    assert cli.main(["list", "--data-dir", data]) == 0
    assert game["id"] in capsys.readouterr().out
    assert cli.main(["export", game["id"], file, "--data-dir", data]) == 0
    assert "exported 'Keep on the Borderlands'" in capsys.readouterr().out
    assert cli.main(["import", file, "--data-dir", str(tmp_path / "there")]) == 0
    out = capsys.readouterr().out
    assert f"as game {game['id']}" in out and game["gm_token"] in out
    assert cli.main(["import", file, "--data-dir", str(tmp_path / "there")]) == 2
    assert "is here already" in capsys.readouterr().err
    (tmp_path / "junk").write_text("junk")
    assert cli.main(["import", str(tmp_path / "junk"), "--data-dir", str(tmp_path / "there")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("tacmap: ") and "not a tacmap game file" in err and "Traceback" not in err
    assert cli.main(["export", "nosuchgame", file, "--data-dir", data]) == 2
    assert "there is no game 'nosuchgame'" in capsys.readouterr().err
    assert cli.main(["backup", str(tmp_path / "b"), "--data-dir", data]) == 0
    assert "backed up 2 games" in capsys.readouterr().out
    for args in (["list"], ["export", game["id"], file], ["backup"], ["repair", game["id"]]):
        assert cli.main([*args, "--data-dir", str(tmp_path / "nowhere")]) == 2
        assert "there is no tacmap data in" in capsys.readouterr().err
        assert not (tmp_path / "nowhere").exists()


def test_repair_cuts_a_damaged_log_back_and_keeps_the_rest_in_a_file(table, capsys):
    game, data = table["game"], table["data"]
    table["hub"].store.close()
    total = Store(data / "tacmap.sqlite3").last_seq(game["id"])
    con = sqlite3.connect(data / "tacmap.sqlite3")
    con.execute("UPDATE events SET data = '{oops' WHERE game_id = ? AND seq = 7", (game["id"],))
    con.execute("DELETE FROM snapshots")
    con.commit()
    con.close()
    assert cli.main(["repair", game["id"], "--data-dir", str(data)]) == 0
    out = capsys.readouterr().out
    assert "damaged at seq 7" in out and "cut back to seq 6" in out
    store = Store(data / "tacmap.sqlite3")
    try:
        assert load_game(store, game["id"]).seq == 6
    finally:
        store.close()
    kept = list((data / "repairs").iterdir())
    assert len(kept) == 1
    rows = [json.loads(line) for line in kept[0].read_text().splitlines()]
    assert [r["seq"] for r in rows] == list(range(7, total + 1)) and rows[0]["data"] == "{oops"
    assert cli.main(["repair", game["id"], "--data-dir", str(data)]) == 0
    assert "is whole: nothing to repair" in capsys.readouterr().out


@pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX's; Windows keeps the profile folder's access list")
def test_an_export_and_a_backup_are_their_owners_only_as_the_data_folder(table, tmp_path, capsys):
    """Every key of the game is in them in clear (issue 57): an export 0600, a backup's folder 0700 and its
    database 0600, whatever the umask lets through."""
    game, data = table["game"], str(table["data"])
    before = os.umask(0o022)
    try:
        file = tmp_path / "g.tacmap"
        assert cli.main(["export", game["id"], str(file), "--data-dir", data]) == 0
        (tmp_path / "again.tacmap").write_bytes(b"")  # a file written over keeps no wider mode
        assert cli.main(["export", game["id"], str(tmp_path / "again.tacmap"), "--data-dir", data]) == 0
        assert cli.main(["backup", str(tmp_path / "b"), "--data-dir", data]) == 0
    finally:
        os.umask(before)
    assert stat.S_IMODE(file.stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "again.tacmap").stat().st_mode) == 0o600
    assert stat.S_IMODE((tmp_path / "b").stat().st_mode) == 0o700
    assert stat.S_IMODE((tmp_path / "b" / DB_NAME).stat().st_mode) & 0o077 == 0
