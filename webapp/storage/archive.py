"""A whole game in one file, a consistent copy of the data folder, and cutting a damaged log back.

The game file (``tacmap export``) is a zip:

    manifest.json          {"format": "tacmap-game", "version": 1, "game": {...the games row...},
                            "tables": {table: rows}, "files": [{"path", "size", "sha256"}], ...}
    tables/<table>.jsonl   every row of every table that has a game_id column (the log, snapshots,
                           and whatever a later version keeps per game), one JSON object a line
    files/<folder>/...     the game's own folders in the data folder (``<data>/<kind>/<game id>/``:
                           map pictures and the like), under their folder's name

The keys travel with the game (the GM's and the table screen's; players' keys are
in the log, as hashes): the same links work on the new machine. ``--new-keys`` on
import makes a new GM key, screen key and join code instead; ``--new-id`` also
gives the game a new id, to keep a copy beside the original.

Import checks the whole file before it writes anything (format, version,
checksums, that every table and column exists here, that the log replays), then
writes the rows in one transaction and moves the files in; a failure leaves
nothing behind.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import secrets
import shutil
import sqlite3
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .store import DB_NAME, DamagedLog, Store

FORMAT = "tacmap-game"
VERSION = 1
JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: what lives in the data folder but is not a game's: never exported as one
NOT_GAME_FILES = {DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm", "secret_key", "repairs"}
MAX_FILE = 1 << 30


class ArchiveError(Exception):
    """The file cannot be exported, imported or backed up as asked; the message says why."""


# --- rows ----------------------------------------------------------------------


def _plain(value):
    if isinstance(value, bytes):
        return {"$b64": base64.b64encode(value).decode()}
    return value


def _unplain(value):
    if isinstance(value, dict) and set(value) == {"$b64"}:
        return base64.b64decode(value["$b64"], validate=True)
    return value


def _tables(db: sqlite3.Connection) -> dict[str, list[str]]:
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")]
    return {name: [r[1] for r in db.execute(f'PRAGMA table_info("{name}")')] for name in names}


def _game_tables(db: sqlite3.Connection) -> dict[str, list[str]]:
    return {t: cols for t, cols in _tables(db).items() if "game_id" in cols}


def _game_folders(data_dir: Path, game_id: str) -> list[Path]:
    """``<data>/<kind>/<game id>/`` folders: a game's own files (map pictures...)."""
    found = []
    for kind in sorted(p for p in data_dir.iterdir() if p.is_dir() and p.name not in NOT_GAME_FILES):
        folder = kind / game_id
        if folder.is_dir():
            found.append(folder)
    return found


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


# --- export ---------------------------------------------------------------------


def export_game(data_dir: Path, game_id: str, dest: Path) -> dict:
    """Write one game to ``dest``; its manifest. Works on a damaged log too (rows are copied as they are)."""
    data_dir = Path(data_dir)
    store = Store(data_dir / DB_NAME)
    try:
        db = store._db
        with store._lock:
            db.execute("BEGIN")  # one read transaction: every table as of one moment
            try:
                row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
                if row is None:
                    raise ArchiveError(f"there is no game {game_id!r} in {data_dir} (`tacmap list` shows them)")
                columns = [d[0] for d in db.execute("SELECT * FROM games LIMIT 0").description]
                record = dict(zip(columns, row))
                tables = {}
                for table, cols in _game_tables(db).items():
                    rows = db.execute(f'SELECT * FROM "{table}" WHERE game_id = ?', (game_id,)).fetchall()
                    tables[table] = [{c: _plain(v) for c, v in zip(cols, r)} for r in rows]
            finally:
                db.execute("ROLLBACK")
    finally:
        store.close()
    files = []
    for folder in _game_folders(data_dir, game_id):
        for path in sorted(p for p in folder.rglob("*") if p.is_file()):
            rel = PurePosixPath(folder.parent.name, *path.relative_to(folder).parts)
            files.append((path, {"path": str(rel), "size": path.stat().st_size, "sha256": _sha256(path)}))
    last_seq = max((r["seq"] for r in tables.get("events", [])), default=0)
    manifest = {
        "format": FORMAT, "version": VERSION, "exported_at": time.time(), "game": record,
        "last_seq": last_seq, "tables": {t: len(rows) for t, rows in tables.items()},
        "files": [meta for _, meta in files],
    }
    dest = Path(dest)
    tmp = dest.with_name(dest.name + ".part")
    try:
        with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as z:
            z.writestr("manifest.json", json.dumps(manifest, indent=1))
            for table, rows in tables.items():
                z.writestr(f"tables/{table}.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
            for path, meta in files:
                z.write(path, f"files/{meta['path']}")
        os.replace(tmp, dest)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ArchiveError(f"cannot write {dest}: {exc.strerror or exc}") from None
    return manifest


# --- import ---------------------------------------------------------------------


@dataclass
class Imported:
    game_id: str
    name: str
    gm_key: str
    events: int
    files: int
    notes: list[str]


def _read_archive(path: Path) -> tuple[dict, dict[str, list[dict]], dict[str, bytes]]:
    """Everything in a game file, checked; ArchiveError says what is wrong with it."""
    what = f"{path} is not a tacmap game file"
    try:
        z = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ArchiveError(f"there is no file {path}") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveError(f"{what} (not a zip: {exc})") from None
    with z:
        try:
            manifest = json.loads(z.read("manifest.json"))
        except KeyError:
            raise ArchiveError(f"{what} (no manifest.json)") from None
        except (ValueError, zipfile.BadZipFile, OSError) as exc:
            raise ArchiveError(f"{what} (its manifest cannot be read: {exc})") from None
        if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
            raise ArchiveError(f"{what} (its manifest is not of format {FORMAT!r})")
        version = manifest.get("version")
        if not isinstance(version, int) or version > VERSION or version < 1:
            raise ArchiveError(f"{path} is a tacmap game file of format version {version!r}; this tacmap reads "
                               f"version {VERSION}. Import it with a newer tacmap.")
        record = manifest.get("game")
        if not isinstance(record, dict) or not isinstance(record.get("id"), str) or not record["id"]:
            raise ArchiveError(f"{path} is damaged: its manifest has no game record")
        wrong = [k for k in ("name", "system", "gm_key", "screen_key", "join_code") if not isinstance(record.get(k), str)]
        if wrong or not isinstance(record.get("created_at"), (int, float)):
            raise ArchiveError(f"{path} is damaged: its game record lacks {', '.join(wrong) or 'created_at'}")
        tables: dict[str, list[dict]] = {}
        counts = manifest.get("tables")
        if not isinstance(counts, dict) or "events" not in counts:
            raise ArchiveError(f"{path} is damaged: its manifest lists no log")
        for table, count in counts.items():
            try:
                text = z.read(f"tables/{table}.jsonl").decode()
                rows = [json.loads(line) for line in text.splitlines() if line.strip()]
                if len(rows) != count or not all(isinstance(r, dict) for r in rows):
                    raise ArchiveError(f"{path} is damaged: tables/{table}.jsonl should hold {count} rows")
                tables[table] = [{c: _unplain(v) for c, v in r.items()} for r in rows]
            except KeyError:
                raise ArchiveError(f"{path} is damaged: tables/{table}.jsonl is missing") from None
            except (ValueError, TypeError, zipfile.BadZipFile, OSError) as exc:
                raise ArchiveError(f"{path} is damaged: tables/{table}.jsonl cannot be read ({exc})") from None
        files: dict[str, bytes] = {}
        for meta in manifest.get("files") or []:
            rel = meta.get("path") if isinstance(meta, dict) else None
            parts = PurePosixPath(rel).parts if isinstance(rel, str) else ()
            if len(parts) < 2 or any(p in ("", ".", "..") for p in parts) or PurePosixPath(rel).is_absolute():
                raise ArchiveError(f"{path} is damaged: a file has the path {rel!r}")
            if parts[0] in NOT_GAME_FILES:
                raise ArchiveError(f"{path} is damaged: {rel!r} is not a game's file")
            try:
                info = z.getinfo(f"files/{rel}")
                if info.file_size > MAX_FILE:
                    raise ArchiveError(f"{path}: {rel} is too large ({info.file_size} bytes)")
                content = z.read(info)
            except KeyError:
                raise ArchiveError(f"{path} is damaged: files/{rel} is missing") from None
            except (zipfile.BadZipFile, OSError) as exc:
                raise ArchiveError(f"{path} is damaged: files/{rel} cannot be read ({exc})") from None
            if hashlib.sha256(content).hexdigest() != meta.get("sha256"):
                raise ArchiveError(f"{path} is damaged: files/{rel} does not match its checksum")
            files[rel] = content
    return manifest, tables, files


def _check_log(game_id: str, tables: dict[str, list[dict]], path: Path) -> None:
    """The log in the file must be whole and replay; a damaged one stays out (repair it where it is)."""
    from .store import load_game

    for r in tables["events"]:
        if not (isinstance(r.get("seq"), int) and isinstance(r.get("type"), str) and isinstance(r.get("data"), str)):
            raise ArchiveError(f"{path} is damaged: its log holds a row that is not an event "
                               f"({json.dumps(r, default=str)[:80]}); nothing was imported")
    events = sorted(tables["events"], key=lambda r: r["seq"])
    scratch = Store(":memory:")
    try:
        scratch._db.execute("PRAGMA foreign_keys=OFF")  # the log alone, without its game's row
        scratch._db.executemany(
            "INSERT INTO events (game_id, seq, type, data, created_at) VALUES (?, ?, ?, ?, ?)",
            [(game_id, r.get("seq"), r.get("type"), r.get("data"), r.get("created_at") or 0) for r in events])
        load_game(scratch, game_id)
    except DamagedLog as exc:
        raise ArchiveError(f"{path} holds a damaged log (seq {exc.seq}: {exc.reason}); nothing was imported. "
                           f"Repair it where it came from (`tacmap repair {game_id}`) and export it again.") from None
    except sqlite3.Error as exc:
        raise ArchiveError(f"{path} is damaged: its log cannot be stored ({exc}); nothing was imported") from None
    finally:
        scratch.close()


def import_game(data_dir: Path, path: Path, new_keys: bool = False, new_id: bool = False) -> Imported:
    data_dir, path = Path(data_dir), Path(path)
    manifest, tables, files = _read_archive(path)
    record = dict(manifest["game"])
    old_id = record["id"]
    _check_log(old_id, tables, path)
    notes = []
    store = Store(data_dir / DB_NAME)
    try:
        db = store._db
        here = _tables(db)
        if "games" in tables:
            raise ArchiveError(f"{path} is damaged: the game's record belongs in its manifest; nothing was imported")
        for table, rows in [("games", [record]), *tables.items()]:
            if table not in here:
                raise ArchiveError(f"{path} has a table {table!r} this tacmap does not know (made by a newer "
                                   "version?); nothing was imported")
            if table != "games" and "game_id" not in here[table]:
                raise ArchiveError(f"{path} is damaged: {table!r} is not a table of one game; nothing was imported")
            unknown = {c for r in rows for c in r} - set(here[table])
            if unknown:
                raise ArchiveError(f"{path}: table {table!r} has columns this tacmap does not know "
                                   f"({', '.join(sorted(unknown))}); nothing was imported")
        game_id = old_id
        if new_id:
            game_id = secrets.token_hex(4)
            while db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone():
                game_id = secrets.token_hex(4)
            tables.pop("snapshots", None)  # a cache of the old id's state: rebuilt from the log
            new_keys = True
        elif db.execute("SELECT 1 FROM games WHERE id = ?", (game_id,)).fetchone():
            raise ArchiveError(f"game {game_id} ({record.get('name')!r}) is here already; nothing was imported. "
                               "Import it with --new-id to keep both.")
        record["id"] = game_id
        if new_keys:
            record["gm_key"], record["screen_key"] = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
            record["join_code"] = ""
            notes.append("new GM and table-screen keys and join code: the old links do not open this copy")
        if not record.get("join_code") or db.execute(
                "SELECT 1 FROM games WHERE join_code = ?", (record["join_code"],)).fetchone():
            if record.get("join_code"):
                notes.append(f"the join code {record['join_code']} is taken here: the game has a new one")
            record["join_code"] = _free_join_code(db)
        # the files go to a folder of our own first, then into place with the rows' commit
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=data_dir))
        moved: list[Path] = []
        try:
            for rel, content in files.items():
                parts = PurePosixPath(rel).parts
                target = staging / parts[0] / game_id / Path(*parts[1:])
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(content)
            with store._lock:
                db.execute("BEGIN IMMEDIATE")
                try:
                    _insert(db, "games", [record])
                    for table in ["events", *sorted(t for t in tables if t != "events")]:
                        _insert(db, table, [{**r, "game_id": game_id} for r in tables[table]])
                    for kind in sorted(p for p in staging.iterdir()):
                        final = data_dir / kind.name / game_id
                        if final.exists():
                            raise ArchiveError(f"{final} exists already; nothing was imported")
                        final.parent.mkdir(parents=True, exist_ok=True)
                        os.replace(kind / game_id, final)
                        moved.append(final)
                    db.execute("COMMIT")
                except BaseException:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    for final in moved:
                        shutil.rmtree(final, ignore_errors=True)
                    raise
        except sqlite3.Error as exc:
            raise ArchiveError(f"{path} could not be stored ({exc}); nothing was imported") from None
        except OSError as exc:
            raise ArchiveError(f"the game's files could not be written ({exc}); nothing was imported") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    finally:
        store.close()
    return Imported(game_id, record.get("name", ""), record["gm_key"], len(tables["events"]), len(files), notes)


def _insert(db: sqlite3.Connection, table: str, rows: list[dict]) -> None:
    for row in rows:
        cols = list(row)
        names = ", ".join(f'"{c}"' for c in cols)  # checked against this database's own columns
        db.execute(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in cols)})',
                   [row[c] for c in cols])


def _free_join_code(db: sqlite3.Connection) -> str:
    while True:
        code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))
        if not db.execute("SELECT 1 FROM games WHERE join_code = ?", (code,)).fetchone():
            return code


# --- backup ---------------------------------------------------------------------


def backup(data_dir: Path, dest: Path) -> dict:
    """A consistent copy of the data folder while the server may be writing: SQLite's backup API for the
    database (one moment of it, whatever is being appended), then the other files; the copy is opened and
    checked before it is reported."""
    data_dir, dest = Path(data_dir), Path(dest)
    source = data_dir / DB_NAME
    if not source.is_file():
        raise ArchiveError(f"there is no tacmap database in {data_dir}")
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise ArchiveError(f"{dest} exists and is not an empty folder: name a new one")
    if dest.resolve().is_relative_to(data_dir.resolve()):
        raise ArchiveError(f"{dest} is inside the data folder: put the backup somewhere else")
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        tmp.mkdir(parents=True)
        src = sqlite3.connect(source.resolve().as_uri() + "?mode=ro", uri=True)
        try:
            out = sqlite3.connect(tmp / DB_NAME)
            try:
                src.backup(out)
            finally:
                out.close()
        finally:
            src.close()
        for item in data_dir.iterdir():
            if item.name in (DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm") or item.name.startswith(".import-"):
                continue
            if item.is_dir():
                shutil.copytree(item, tmp / item.name)
            else:
                shutil.copy2(item, tmp / item.name)
        copy = Store(tmp / DB_NAME)  # the same checks as at start: a copy that would not start is no backup
        try:
            games = len(copy.games())
            events = copy._db.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        finally:
            copy.close()
        if dest.exists():
            dest.rmdir()
        os.replace(tmp, dest)
    except (OSError, sqlite3.Error) as exc:
        shutil.rmtree(tmp, ignore_errors=True)
        raise ArchiveError(f"the backup to {dest} failed: {exc}") from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return {"dest": str(dest), "games": games, "events": events}


# --- repair ---------------------------------------------------------------------


def repair(data_dir: Path, game_id: str) -> dict | None:
    """Cut a damaged log back to the last event before the damage; what is cut goes to a file in
    ``<data>/repairs/``. None when the log is whole. Run it with the server stopped: a server that still
    holds the game in memory would go on from the events cut away."""
    from .store import load_game

    data_dir = Path(data_dir)
    store = Store(data_dir / DB_NAME)
    try:
        if store.game(game_id) is None:
            raise ArchiveError(f"there is no game {game_id!r} in {data_dir}")
        try:
            load_game(store, game_id)
            store.events(game_id)  # the whole log, not only what follows the snapshot
            return None
        except DamagedLog as exc:
            seq = exc.seq
            reason = exc.reason
        db = store._db
        with store._lock:
            rows = db.execute("SELECT seq, type, data, created_at FROM events WHERE game_id = ? AND seq >= ? "
                              "ORDER BY seq", (game_id, seq)).fetchall()
            folder = data_dir / "repairs"
            folder.mkdir(exist_ok=True)
            kept = folder / f"{game_id}-from-seq-{seq}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
            with open(kept, "w") as f:
                for s, t, d, c in rows:
                    f.write(json.dumps({"seq": s, "type": t, "data": d, "created_at": c}) + "\n")
                f.flush()
                os.fsync(f.fileno())
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute("DELETE FROM events WHERE game_id = ? AND seq >= ?", (game_id, seq))
                db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq >= ?", (game_id, seq))
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
        load_game(store, game_id)  # it loads now
        return {"seq": seq, "reason": reason, "cut": len(rows), "kept": str(kept)}
    finally:
        store.close()
