"""A game file is a stranger's file (#25): `tacmap import` run as the GM runs it, on crafted zips.

Nothing is written outside the data folder, nothing is written at all before every id and path in the
file is checked, a zip that unpacks to far more than it weighs is refused before its memory is spent,
the snapshot is made again from the log, and names obey the table's text rules. The data folder is the
owner's alone (0700, its files 0600) on POSIX."""

from __future__ import annotations

import hashlib
import io
import json
import os
import stat
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from PIL import Image

from tests.helpers import new_game
from webapp import create_app
from webapp.game.views.audience import public_state
from webapp.game.core.model import GM
from webapp.storage.archive import export_game
from webapp.storage.store import Store, load_game

ROOT = Path(__file__).resolve().parents[2]
# the CLI's own entry (webapp.cli:main, the `tacmap` script), in a process of its own that reports its peak memory
# (VmHWM where Linux has it: ru_maxrss is kept across exec, so a process started by a big pytest worker would
# report the worker's peak, not its own)
RUN = ("import re, resource, sys\nfrom webapp.cli import main\nrc = main(sys.argv[1:])\n"
       "try:\n    peak = int(re.search(r'VmHWM:\\s+(\\d+)', open('/proc/self/status').read()).group(1))\n"
       "except (OSError, AttributeError):\n    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss\n"
       "print('MAXRSS_KB', peak, file=sys.stderr)\nsys.exit(rc)")


def tacmap(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", RUN, *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})


def peak_mb(done: subprocess.CompletedProcess) -> float:
    line = next(line for line in done.stderr.splitlines() if line.startswith("MAXRSS_KB"))
    return int(line.split()[1]) / 1024


def png(w=40, h=20) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), (90, 120, 60)).save(out, "PNG")
    return out.getvalue()


@pytest.fixture
def exported(tmp_path):
    """A real game file: a game with a token, moves and a picture of its own."""
    data = tmp_path / "home"
    app = create_app({"DATA_DIR": str(data), "TESTING": True, "SECRET_KEY": "t", "DEMO": False})
    client = app.test_client()
    game = new_game(client, "plain_grid", name="Barrow")
    gm = {"Authorization": f"Bearer {game['gm_token']}"}
    token = client.post(f"/api/games/{game['id']}/tokens", json={"name": "Aria", "x": 1, "y": 1}, headers=gm).json
    for x in (2, 3, 4):
        r = client.post(f"/api/games/{game['id']}/commands", headers=gm,
                        json={"type": "move_token", "token_id": token["id"], "x": x, "y": 1})
        assert r.status_code == 200
    r = client.post(f"/api/games/{game['id']}/maps/map-1/picture", headers=gm, content_type="multipart/form-data",
                    data={"file": (io.BytesIO(png()), "p.png")})
    assert r.status_code == 200, r.json
    app.extensions["tacmap"].store.close()
    file = tmp_path / "barrow.tacmap"
    export_game(data, game["id"], file)
    return {"file": file, "game": game, "token": token, "data": data}


def rebuild(src: Path, dest: Path, change) -> Path:
    """A copy of a game file with ``change(name, bytes) -> bytes | None`` applied to each member."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as zout:
        for name in zin.namelist():
            content = change(name, zin.read(name))
            if content is not None:
                zout.writestr(name, content)
    return dest


def with_manifest(**changes):
    def change(name, content):
        if name != "manifest.json":
            return content
        m = json.loads(content)
        for key, value in changes.items():
            m[key] = value(m[key]) if callable(value) else value
        return json.dumps(m)
    return change


def every_file(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_a_game_id_that_climbs_out_of_the_data_folder_writes_nothing(exported, tmp_path):
    """The first round's attack: game.id = "../../../victim" put the file's pictures in ./victim, and exit 0."""
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("the GM's own file")
    payload = b"written by the game file"
    entry = {"path": "pictures/keep.txt", "size": len(payload), "sha256": hashlib.sha256(payload).hexdigest()}

    def attack(name, content):
        if name == "manifest.json":
            m = json.loads(content)
            m["game"]["id"] = "../../../victim"
            m["files"] = [entry]
            return json.dumps(m)
        return None if name.startswith("files/") else content

    bad = rebuild(exported["file"], tmp_path / "bad.tacmap", attack)
    with zipfile.ZipFile(bad, "a") as z:
        z.writestr("files/pictures/keep.txt", payload)
    before = every_file(tmp_path)
    there = tmp_path / "there"
    done = tacmap("import", str(bad), "--data-dir", str(there))
    assert done.returncode == 2, done.stdout
    assert "'../../../victim' is not a tacmap game id" in done.stderr and "nothing was imported" in done.stderr
    assert (victim / "keep.txt").read_text() == "the GM's own file"
    after = {k: v for k, v in every_file(tmp_path).items() if not k.startswith("there/tacmap.sqlite3")}
    assert after == before  # not a byte written anywhere (the empty database of a fresh folder aside)
    store = Store(there / "tacmap.sqlite3")
    assert store.games() == []
    store.close()


@pytest.mark.parametrize("game_id, path", [
    ("/tmp/elsewhere", None),
    ("ABCDEF12", None),  # upper case: not an id tacmap makes
    ("1234567", None),
    (None, "pictures/..\\..\\keep.txt"),  # a Windows separator inside one name
    (None, "../pictures/keep.txt"),
    (None, "pictures/.hidden"),
    (None, "Pictures/C:keep.txt"),
])
def test_every_id_and_path_from_the_file_is_checked_before_anything_is_written(exported, tmp_path, game_id, path):
    def attack(name, content):
        if name != "manifest.json":
            return content
        m = json.loads(content)
        if game_id is not None:
            m["game"]["id"] = game_id
        if path is not None:
            m["files"][0]["path"] = path
        return json.dumps(m)

    bad = rebuild(exported["file"], tmp_path / "bad.tacmap", attack)
    there = tmp_path / "there"
    done = tacmap("import", str(bad), "--data-dir", str(there))
    assert done.returncode == 2 and "nothing was imported" in done.stderr, done.stderr
    assert not there.exists() or sorted(p.name for p in there.iterdir()) == ["tacmap.sqlite3"]  # no pictures


@pytest.mark.long
def test_a_zip_bomb_is_refused_before_its_memory_is_spent(exported, tmp_path):
    """A log of 300 MB of blanks weighs ~300 KB zipped: refused by the size its zip declares, unread."""
    def bomb(name, content):
        return None if name == "tables/events.jsonl" else content

    bad = rebuild(exported["file"], tmp_path / "bomb.tacmap", bomb)
    with zipfile.ZipFile(bad, "a", zipfile.ZIP_DEFLATED) as z, z.open("tables/events.jsonl", "w", force_zip64=True) as f:
        block = b" " * (1 << 20)
        for _ in range(300):
            f.write(block)
    assert bad.stat().st_size < 2 << 20
    there = tmp_path / "there"
    done = tacmap("import", str(bad), "--data-dir", str(there))
    assert done.returncode == 2
    assert "its tables would unpack to 314,57" in done.stderr and "nothing was imported" in done.stderr, done.stderr
    assert peak_mb(done) < 200, f"the import took {peak_mb(done):.0f} MB"


def test_a_huge_file_in_the_game_file_is_refused_unread(exported, tmp_path):
    def bomb(name, content):
        if name == "manifest.json":
            m = json.loads(content)
            m["files"] = [{"path": "pictures/big.png", "size": 100 << 20, "sha256": "0" * 64}]
            return json.dumps(m)
        return None if name.startswith("files/") else content

    bad = rebuild(exported["file"], tmp_path / "big.tacmap", bomb)
    with zipfile.ZipFile(bad, "a", zipfile.ZIP_DEFLATED) as z, z.open("files/pictures/big.png", "w", force_zip64=True) as f:
        for _ in range(100):
            f.write(bytes(1 << 20))
    done = tacmap("import", str(bad), "--data-dir", str(tmp_path / "there"))
    assert done.returncode == 2 and "pictures/big.png would unpack to 104,857,600 bytes" in done.stderr, done.stderr
    assert peak_mb(done) < 200


def test_the_snapshot_is_made_again_from_the_log(exported, tmp_path):
    """A snapshot that says Aria stands elsewhere, under another name: the log wins."""
    def lie(name, content):
        if name != "tables/snapshots.jsonl":
            return content
        rows = [json.loads(line) for line in content.decode().splitlines()]
        for row in rows:
            state = json.loads(row["state"])
            for t in state["tokens"]:
                t["name"], t["x"] = "Impostor", 20
            row["state"] = json.dumps(state)
        return "".join(json.dumps(r) + "\n" for r in rows)

    src = exported["file"]
    with zipfile.ZipFile(src) as z:
        assert json.loads(z.read("manifest.json"))["tables"].get("snapshots", 0) >= 0
    # make sure the file has a snapshot at the log's end to lie with
    m_tables = json.loads(zipfile.ZipFile(src).read("manifest.json"))["tables"]
    if not m_tables.get("snapshots"):
        with zipfile.ZipFile(src) as z:
            last = max(json.loads(line)["seq"] for line in z.read("tables/events.jsonl").decode().splitlines())
        scratch = Store(exported["data"] / "tacmap.sqlite3")
        state = load_game(scratch, exported["game"]["id"]).to_dict()
        scratch.close()
        row = {"game_id": exported["game"]["id"], "seq": last, "state": json.dumps(state)}

        def add(name, content):
            if name == "manifest.json":
                m = json.loads(content)
                m["tables"]["snapshots"] = 1
                return json.dumps(m)
            return (json.dumps(row) + "\n").encode() if name == "tables/snapshots.jsonl" else content
        src = rebuild(src, tmp_path / "with-snapshot.tacmap", add)
        if "tables/snapshots.jsonl" not in zipfile.ZipFile(src).namelist():
            with zipfile.ZipFile(src, "a") as z:
                z.writestr("tables/snapshots.jsonl", json.dumps(row) + "\n")
    bad = rebuild(src, tmp_path / "lie.tacmap", lie)
    there = tmp_path / "there"
    done = tacmap("import", str(bad), "--data-dir", str(there))
    assert done.returncode == 0, done.stderr
    store = Store(there / "tacmap.sqlite3")
    try:
        tokens = public_state(load_game(store, exported["game"]["id"]), GM)["tokens"]
    finally:
        store.close()
    assert [(t["name"], t["x"]) for t in tokens] == [("Aria", 4)]


@pytest.mark.parametrize("where", ["game name", "token name"])
def test_names_with_control_or_bidi_characters_stay_out(exported, tmp_path, where):
    def hostile(name, content):
        if where == "game name" and name == "manifest.json":
            m = json.loads(content)
            m["game"]["name"] = "Barrow\u202egnp.exe"
            return json.dumps(m)
        if where == "token name" and name == "tables/events.jsonl":
            return content.decode().replace("Aria", "Ar\\u202eia").encode()
        return content

    bad = rebuild(exported["file"], tmp_path / "hostile.tacmap", hostile)
    there = tmp_path / "there"
    done = tacmap("import", str(bad), "--data-dir", str(there))
    assert done.returncode == 2 and "U+202E" in done.stderr and "nothing was imported" in done.stderr, done.stderr
    store = Store(there / "tacmap.sqlite3")
    assert store.games() == []
    store.close()


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_the_data_folder_is_the_owners_alone(exported, tmp_path):
    """Every key is in tacmap.sqlite3: the folder is 0700 and its files 0600 (POSIX; Windows keeps its own rules)."""
    there = tmp_path / "fresh" / "data"
    done = tacmap("import", str(exported["file"]), "--data-dir", str(there))
    assert done.returncode == 0, done.stderr
    app = create_app({"DATA_DIR": str(there), "TESTING": True, "DEMO": False})  # the secret key file too
    client = app.test_client()
    game = client.post("/api/games", json={"name": "Another", "system": "plain_grid"}).json
    r = client.post(f"/api/games/{game['id']}/maps/map-1/picture", content_type="multipart/form-data",
                    headers={"Authorization": f"Bearer {game['gm_token']}"},
                    data={"file": (io.BytesIO(png(30, 30)), "p.png")})
    assert r.status_code == 200
    made = [there, *there.rglob("*")]
    assert {p.name for p in made} >= {"tacmap.sqlite3", "tacmap.sqlite3-wal", "secret_key", "pictures"}
    if os.name != "posix":
        return  # nothing to check there, and nothing was refused
    for p in made:
        assert _mode(p) == (0o700 if p.is_dir() else 0o600), (str(p), oct(_mode(p)))


def test_a_database_made_readable_by_others_is_narrowed_at_start(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    Store(data / "tacmap.sqlite3").close()
    os.chmod(data / "tacmap.sqlite3", 0o644)
    create_app({"DATA_DIR": str(data), "TESTING": True, "DEMO": False})
    if os.name == "posix":
        assert _mode(data / "tacmap.sqlite3") == 0o600
