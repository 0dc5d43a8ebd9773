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
nothing behind. What is derived from the log is never the file's word: snapshots
are made again, the replay's checkpoints left out (folded again), and of its
command ids only those of an event in its log are kept, dated as that event.

Each works on the SQLite file of a data folder or, given ``database`` (a ``postgresql://`` URL), on PostgreSQL:
the game's files stay in the data folder's ``<kind>/<game id>/`` folders either way (docs/STORAGE.md).
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import os
import re
import secrets
import shutil
import sqlite3
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from .. import launch
from ..game.core import text
from ..game.core.model import Game
from . import private
from .files import FILES_TABLE
from .games import DamagedLog, is_game_id, load_game
from .store import DB_NAME, Store

FORMAT = "tacmap-game"
VERSION = 1
JOIN_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"
#: what lives in the data folder but is not a game's: never exported as one
NOT_GAME_FILES = {DB_NAME, DB_NAME + "-wal", DB_NAME + "-shm", "secret_key", "repairs"}
#: what a game file may unpack to, checked against the sizes its zip declares before anything is read
MAX_MANIFEST = 4 << 20
MAX_TABLES = 64 << 20  # every row of the game's tables, as JSON text (a long campaign's log is a few MB)
MAX_FILE = 64 << 20  # one file (a map picture is 20 MB at most)
MAX_FILES = 10_000
MAX_FILES_BYTES = 2 << 30
MAX_DEPTH = 8  # parts of a file's path
#: the names a file's path is made of: a folder of the data folder (``pictures``), then plain names
KIND = re.compile(r"[a-z][a-z0-9_-]{0,31}")
PART = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._-]{0,127}")
TABLE = re.compile(r"[a-z_][a-z0-9_]{0,39}")
#: a game's folders that are caches of its log (``history.CHECKPOINTS_DIR``: the replay's checkpoints): exported as
#: they are, never imported (``tacmap import`` folds the log again)
DERIVED_FOLDERS = {"replay"}


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


def _game_tables(db) -> dict[str, list[str]]:
    """The tables of one game's rows; the files table (PostgreSQL) is exported as files, as a data folder's are."""
    return {t: cols for t, cols in db.tables().items() if "game_id" in cols and t != FILES_TABLE}


def open_store(data_dir: Path, database: str | None = None) -> Store:
    """The store of a data folder (its SQLite file), or the PostgreSQL database ``database`` names."""
    return Store(database or Path(data_dir) / DB_NAME)


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


def export_game(data_dir: Path, game_id: str, dest: Path, database: str | None = None) -> dict:
    """Write one game to ``dest``; its manifest. Works on a damaged log too (rows are copied as they are)."""
    data_dir = Path(data_dir)
    store = open_store(data_dir, database)
    try:
        with store.reading() as db:  # one read transaction: every table as of one moment
            row = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
            if row is None:
                raise ArchiveError(f"there is no game {game_id!r} in {data_dir} (`{launch.command('list')}` shows "
                                   "them)")
            columns = [d[0] for d in db.execute("SELECT * FROM games LIMIT 0").description]
            record = dict(zip(columns, row))
            tables = {}
            for table, cols in _game_tables(db).items():
                rows = db.execute(f'SELECT * FROM "{table}" WHERE game_id = ?', (game_id,)).fetchall()
                tables[table] = [{c: _plain(v) for c, v in zip(cols, r)} for r in rows]
            kept = {}  # PostgreSQL: the game's files from the database (this data folder may lack some)
            if store.keeps_files:
                kept = {path: bytes(data) for path, data in db.execute(
                    "SELECT path, data FROM files WHERE game_id = ? ORDER BY path", (game_id,)).fetchall()}
    finally:
        store.close()
    files = [(data, {"path": rel, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()})
             for rel, data in kept.items()]
    for folder in (_game_folders(data_dir, game_id) if data_dir.is_dir() else []):
        for path in sorted(p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")):
            rel = PurePosixPath(folder.parent.name, *path.relative_to(folder).parts)
            if str(rel) not in kept:
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
        # every key of the game is in it, in clear: the owner's only, as the data folder (webapp/storage/private.py)
        with open(tmp, "wb", opener=private.opener) as out, \
                zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
            private.narrow(tmp)  # a .part left by an earlier try keeps its mode when it is written over
            z.writestr("manifest.json", json.dumps(manifest, indent=1))
            for table, rows in tables.items():
                z.writestr(f"tables/{table}.jsonl", "".join(json.dumps(r) + "\n" for r in rows))
            for source, meta in files:
                if isinstance(source, bytes):
                    z.writestr(f"files/{meta['path']}", source)
                else:
                    z.write(source, f"files/{meta['path']}")
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


def _too_big(path: Path, what: str, size: int, limit: int) -> ArchiveError:
    return ArchiveError(f"{path}: {what} would unpack to {size:,} bytes, over the limit of {limit:,}; "
                        "nothing was imported")


def _check_file_path(path: Path, rel) -> tuple[str, ...]:
    """The parts of a file's path in the manifest (``<kind>/<name>...``), each a plain name."""
    parts = tuple(rel.split("/")) if isinstance(rel, str) else ()
    if (len(parts) < 2 or len(parts) > MAX_DEPTH or not KIND.fullmatch(parts[0])
            or not all(PART.fullmatch(p) for p in parts[1:])):
        raise ArchiveError(f"{path} is damaged: a file has the path {str(rel)[:80]!r}; nothing was imported")
    if parts[0] in NOT_GAME_FILES:
        raise ArchiveError(f"{path} is damaged: {rel!r} is not a game's file; nothing was imported")
    return parts


def _read_table(z: zipfile.ZipFile, info: zipfile.ZipInfo) -> list[dict]:
    """One table's rows, read a line at a time (never the whole text, then every row, at once)."""
    rows = []
    with z.open(info) as raw:
        for line in io.TextIOWrapper(raw, encoding="utf-8"):
            if line.strip():
                row = json.loads(line)
                if not isinstance(row, dict):
                    raise ValueError("a row is not a JSON object")
                rows.append({c: _unplain(v) for c, v in row.items()})
    return rows


def _read_archive(path: Path) -> tuple[dict, dict[str, list[dict]], list[tuple[str, zipfile.ZipInfo, str]]]:
    """Everything in a game file, checked before anything is kept in memory whole or written anywhere:
    the sizes its zip declares (a zip reads no further than it declares), the game's id in tacmap's own
    format, every file's path, every checksum (read a chunk at a time). ArchiveError says what is wrong."""
    what = f"{path} is not a tacmap game file"
    try:
        z = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise ArchiveError(f"there is no file {path}") from None
    except (zipfile.BadZipFile, OSError) as exc:
        raise ArchiveError(f"{what} (not a zip: {exc})") from None
    with z:
        try:
            info = z.getinfo("manifest.json")
            if info.file_size > MAX_MANIFEST:
                raise _too_big(path, "manifest.json", info.file_size, MAX_MANIFEST)
            manifest = json.loads(z.read(info))
        except KeyError:
            raise ArchiveError(f"{what} (no manifest.json)") from None
        except (ValueError, RecursionError, zipfile.BadZipFile, OSError) as exc:
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
        if not is_game_id(record["id"]):
            raise ArchiveError(f"{path} is damaged: {record['id'][:80]!r} is not a tacmap game id "
                               "(8 hexadecimal digits); nothing was imported")
        wrong = [k for k in ("name", "system", "gm_key", "screen_key", "join_code") if not isinstance(record.get(k), str)]
        if wrong or not isinstance(record.get("created_at"), (int, float)):
            raise ArchiveError(f"{path} is damaged: its game record lacks {', '.join(wrong) or 'created_at'}")
        why = text.problem(record["name"]) or (None if 0 < len(record["name"]) <= text.MAX_NAME
                                                else f"has 1 to {text.MAX_NAME} characters")
        if why:
            raise ArchiveError(f"{path}: the game's name {why}; nothing was imported")
        counts = manifest.get("tables")
        if not isinstance(counts, dict) or "events" not in counts:
            raise ArchiveError(f"{path} is damaged: its manifest lists no log")
        entries = manifest.get("files") or []
        if not isinstance(entries, list) or len(entries) > MAX_FILES:
            raise ArchiveError(f"{path} is damaged: its manifest lists files that are not a list of "
                               f"{MAX_FILES} at most")
        # every name and size first, before a byte is unpacked
        table_infos = {}
        for table in counts:
            if not TABLE.fullmatch(table):
                raise ArchiveError(f"{path} is damaged: {table[:80]!r} is not a table's name")
            try:
                table_infos[table] = z.getinfo(f"tables/{table}.jsonl")
            except KeyError:
                pass  # said when its turn comes (below)
        total = sum(i.file_size for i in table_infos.values())
        if total > MAX_TABLES:
            raise _too_big(path, "its tables", total, MAX_TABLES)
        files: list[tuple[str, zipfile.ZipInfo, str]] = []
        seen: set[str] = set()
        for meta in entries:
            rel = meta.get("path") if isinstance(meta, dict) else None
            _check_file_path(path, rel)
            if rel in seen:
                raise ArchiveError(f"{path} is damaged: {rel!r} is listed twice; nothing was imported")
            seen.add(rel)
            digest = meta.get("sha256")
            if not isinstance(digest, str) or not re.fullmatch(r"[0-9a-f]{64}", digest):
                raise ArchiveError(f"{path} is damaged: files/{rel} has no checksum")
            try:
                info = z.getinfo(f"files/{rel}")
            except KeyError:
                raise ArchiveError(f"{path} is damaged: files/{rel} is missing") from None
            if info.file_size > MAX_FILE:
                raise _too_big(path, rel, info.file_size, MAX_FILE)
            files.append((rel, info, digest))
        total = sum(i.file_size for _, i, _ in files)
        if total > MAX_FILES_BYTES:
            raise _too_big(path, "its files", total, MAX_FILES_BYTES)
        tables: dict[str, list[dict]] = {}
        for table, count in counts.items():
            if table not in table_infos:
                raise ArchiveError(f"{path} is damaged: tables/{table}.jsonl is missing")
            try:
                rows = _read_table(z, table_infos[table])
            except (ValueError, TypeError, RecursionError, zipfile.BadZipFile, OSError) as exc:
                raise ArchiveError(f"{path} is damaged: tables/{table}.jsonl cannot be read ({exc})") from None
            if len(rows) != count:
                raise ArchiveError(f"{path} is damaged: tables/{table}.jsonl should hold {count} rows")
            tables[table] = rows
        for rel, info, digest in files:
            try:
                if _copy(z, info, None) != digest:
                    raise ArchiveError(f"{path} is damaged: files/{rel} does not match its checksum")
            except (zipfile.BadZipFile, OSError) as exc:
                raise ArchiveError(f"{path} is damaged: files/{rel} cannot be read ({exc})") from None
    return manifest, tables, files


def _copy(z: zipfile.ZipFile, info: zipfile.ZipInfo, dest: Path | None) -> str:
    """Unpack one member a chunk at a time (to ``dest``, a new file of the owner's only, or nowhere);
    its sha256."""
    h = hashlib.sha256()
    with z.open(info) as src, (open(dest, "xb", opener=private.opener) if dest else contextlib.nullcontext()) as out:
        for chunk in iter(lambda: src.read(1 << 20), b""):
            h.update(chunk)
            if out is not None:
                out.write(chunk)
    return h.hexdigest()


def _check_log(game_id: str, tables: dict[str, list[dict]], path: Path) -> Game:
    """The log in the file must be whole and replay, and hold only text the table accepts (the same rules
    as a command's: no control, direction or invisible characters in a name); a damaged one stays out
    (repair it where it is). The game as the log alone makes it."""
    for r in tables["events"]:
        if not (isinstance(r.get("seq"), int) and isinstance(r.get("type"), str) and isinstance(r.get("data"), str)):
            raise ArchiveError(f"{path} is damaged: its log holds a row that is not an event "
                               f"({json.dumps(r, default=str)[:80]}); nothing was imported")
    events = sorted(tables["events"], key=lambda r: r["seq"])
    for r in events:
        try:
            why = _bad_text(json.loads(r["data"]))
        except (ValueError, RecursionError):
            raise ArchiveError(f"{path} holds a damaged log (seq {r['seq']}: not readable JSON); "
                               "nothing was imported") from None
        if why:
            raise ArchiveError(f"{path}: the log's event {r['seq']} holds a text that {why}; nothing was imported")
    scratch = None
    try:
        scratch = Store.of_log(game_id, [(r.get("seq"), r.get("type"), r.get("data"), r.get("created_at") or 0)
                                         for r in events])
        game = load_game(scratch, game_id)
    except DamagedLog as exc:
        raise ArchiveError(f"{path} holds a damaged log (seq {exc.seq}: {exc.reason}); nothing was imported. "
                           f"Repair it where it came from (`{launch.command('repair', game_id)}`) and export it "
                           "again.") from None
    except sqlite3.Error as exc:
        raise ArchiveError(f"{path} is damaged: its log cannot be stored ({exc}); nothing was imported") from None
    finally:
        if scratch is not None:
            scratch.close()
    named = [("the game", game.name), *(("a token", t.name) for t in game.tokens.values()),
             *(("a player", p.name) for p in game.players.values()),
             *(("a character", c.name) for c in game.characters.values()),
             *(("a map", m.name) for m in game.maps.values()),
             *(("a token", t.name) for m in game.maps.values() for t in m.tokens.values()),
             *(("a zone", z.get("name", "")) for z in game.zones or [])]
    for what, name in named:
        why = text.problem(name) if isinstance(name, str) else "is not text"
        if why:
            raise ArchiveError(f"{path}: the name of {what} {why}; nothing was imported")
    return game


def _bad_text(value) -> str | None:
    """Why a text somewhere in ``value`` breaks the table's text rules (free text: line breaks allowed;
    a key: one line), or None. Sizes are not checked: the log holds what the table itself wrote."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            why = text.problem(item, single_line=False)
            if why:
                return why
        elif isinstance(item, dict):
            for key, inner in item.items():
                why = text.problem(key) if isinstance(key, str) else None
                if why:
                    return why
                stack.append(inner)
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _inside(folder: Path, target: Path) -> Path:
    """``target`` when it resolves inside ``folder``; ArchiveError otherwise (never written)."""
    if not target.resolve().is_relative_to(folder.resolve()):
        raise ArchiveError(f"{target} is outside {folder}; nothing was imported")
    return target


def import_game(data_dir: Path, path: Path, new_keys: bool = False, new_id: bool = False,
                database: str | None = None) -> Imported:
    data_dir, path = Path(data_dir), Path(path)
    manifest, tables, files = _read_archive(path)
    record = dict(manifest["game"])
    old_id = record["id"]
    game = _check_log(old_id, tables, path)
    notes = []
    private.make_dir(data_dir)
    store = open_store(data_dir, database)
    try:
        here = store.tables()
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
                                   f"({', '.join(sorted(unknown))[:200]}); nothing was imported")
        # a snapshot is a cache of the log: the file's own could say anything, so it is made again here; the same
        # for the command ids and the replay's checkpoints (#57): derived from the log, never the file's word
        tables.pop("snapshots", None)
        if "commands" in tables:
            tables["commands"] = _command_ids(tables["commands"], tables["events"])
        files = [f for f in files if f[0].split("/")[0] not in DERIVED_FOLDERS]
        game_id = old_id
        if new_id:
            game_id = secrets.token_hex(4)
            while store.game(game_id) is not None:
                game_id = secrets.token_hex(4)
            new_keys = True
        elif store.game(game_id) is not None:
            raise ArchiveError(f"game {game_id} ({record.get('name')!r}) is here already; nothing was imported. "
                               "Import it with --new-id to keep both.")
        record["id"] = game.id = game_id
        if new_keys:
            record["gm_key"], record["screen_key"] = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
            record["join_code"] = ""
            notes.append("new GM and table-screen keys and join code: the old links do not open this copy")
        if not record.get("join_code") or store.game_by_join_code(record["join_code"]) is not None:
            if record.get("join_code"):
                notes.append(f"the join code {record['join_code']} is taken here: the game has a new one")
            record["join_code"] = _free_join_code(store)
        # the files go to a folder of our own first, then into place with the rows' commit
        staging = Path(tempfile.mkdtemp(prefix=".import-", dir=data_dir))
        moved: list[Path] = []
        try:
            with zipfile.ZipFile(path) as z:
                for rel, info, digest in files:
                    parts = rel.split("/")
                    target = _inside(staging, staging / parts[0] / game_id / Path(*parts[1:]))
                    private.make_dir(target.parent)
                    if _copy(z, info, target) != digest:
                        raise ArchiveError(f"{path} changed while it was imported; nothing was imported")
            try:
                with store.transaction() as db:  # the rows and the files' move: all of it, or nothing
                    _insert(db, "games", [record])
                    for table in ["events", *sorted(t for t in tables if t != "events")]:
                        _insert(db, table, [{**r, "game_id": game_id} for r in tables[table]])
                    if game.seq:
                        _insert(db, "snapshots", [{"game_id": game_id, "seq": game.seq,
                                                   "state": json.dumps(game.to_dict())}])
                    if store.keeps_files:  # PostgreSQL: the files in the database too, for every machine
                        now = time.time()
                        for rel, _info, _digest in files:
                            kind, *rest = rel.split("/")
                            data = (staging / kind / game_id / Path(*rest)).read_bytes()
                            _insert(db, FILES_TABLE, [{"game_id": game_id, "path": rel, "data": data,
                                                       "created_at": now}])
                    for kind in sorted(p for p in staging.iterdir()):
                        final = _inside(data_dir, data_dir / kind.name / game_id)
                        if final.exists():
                            raise ArchiveError(f"{final} exists already; nothing was imported")
                        private.make_dir(final.parent)
                        os.replace(kind / game_id, final)
                        moved.append(final)
            except BaseException:  # (rolled back): the folders moved in go again
                for final in moved:
                    shutil.rmtree(final, ignore_errors=True)
                raise
        except store.errors as exc:
            raise ArchiveError(f"{path} could not be stored ({exc}); nothing was imported") from None
        except (OSError, zipfile.BadZipFile) as exc:
            raise ArchiveError(f"the game's files could not be written ({exc}); nothing was imported") from None
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    finally:
        store.close()
    return Imported(game_id, record.get("name", ""), record["gm_key"], len(tables["events"]), len(files), notes)


def _command_ids(rows: list[dict], events: list[dict]) -> list[dict]:
    """The file's command ids (``commands`` rows: a seat's command id, the seq it was stored at, its answer) that
    name an event of its log, each dated as that event is and never later than now, with an answer that is a JSON
    object. Another row (a seq the log lacks, a date in the future) would answer that seat's command with the file's
    JSON, and never do it, for as long as its date says."""
    now = time.time()
    written = {r["seq"]: r.get("created_at") for r in events}
    kept = []
    for row in rows:
        seq, when = row.get("seq"), written.get(row.get("seq"))
        if not (isinstance(seq, int) and seq in written and isinstance(row.get("seat"), str)
                and isinstance(row.get("cid"), str) and isinstance(row.get("answer"), str)):
            continue
        try:
            if not isinstance(json.loads(row["answer"]), dict):
                continue
        except (ValueError, RecursionError):
            continue
        when = when if isinstance(when, (int, float)) and not isinstance(when, bool) else 0.0
        kept.append({**row, "created_at": min(float(when), now)})
    return kept


def _insert(db, table: str, rows: list[dict]) -> None:
    for row in rows:
        cols = list(row)
        names = ", ".join(f'"{c}"' for c in cols)  # checked against this database's own columns
        db.execute(f'INSERT INTO "{table}" ({names}) VALUES ({", ".join("?" for _ in cols)})',
                   [row[c] for c in cols])


def _free_join_code(store: Store) -> str:
    while True:
        code = "".join(secrets.choice(JOIN_ALPHABET) for _ in range(6))
        if store.game_by_join_code(code) is None:
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
        private.make_dir(tmp)  # the owner's only, as the data folder: every key of every game is in it
        private.sqlite_file(tmp / DB_NAME)
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
            events = copy.read_rows("SELECT COUNT(*) FROM events")[0][0]
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


def repair(data_dir: Path, game_id: str, database: str | None = None) -> dict | None:
    """Cut a damaged log back to the last event before the damage; what is cut goes to a file in
    ``<data>/repairs/``. None when the log is whole. Run it with the server stopped: a server that still
    holds the game in memory would go on from the events cut away."""
    data_dir = Path(data_dir)
    store = open_store(data_dir, database)
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
        with store.transaction() as db:  # what is cut is read, kept in a file, then deleted: all in one
            rows = db.execute("SELECT seq, type, data, created_at FROM events WHERE game_id = ? AND seq >= ? "
                              "ORDER BY seq", (game_id, seq)).fetchall()
            folder = data_dir / "repairs"
            private.make_dir(folder)
            kept = folder / f"{game_id}-from-seq-{seq}-{time.strftime('%Y%m%d-%H%M%S')}.jsonl"
            with open(kept, "w", opener=private.opener) as f:
                for s, t, d, c in rows:
                    f.write(json.dumps({"seq": s, "type": t, "data": d, "created_at": c}) + "\n")
                f.flush()
                os.fsync(f.fileno())
            db.execute("DELETE FROM events WHERE game_id = ? AND seq >= ?", (game_id, seq))
            db.execute("DELETE FROM snapshots WHERE game_id = ? AND seq >= ?", (game_id, seq))
            db.execute("DELETE FROM commands WHERE game_id = ? AND seq >= ?", (game_id, seq))
        load_game(store, game_id)  # it loads now
        return {"seq": seq, "reason": reason, "cut": len(rows), "kept": str(kept)}
    finally:
        store.close()
