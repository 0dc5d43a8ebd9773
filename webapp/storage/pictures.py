"""Map pictures on disk: the file I/O and the checks around ``maps`` (pure) and ``uvtt`` (pure).

A picture is stored once per game under its content's hash,
``<data dir>/pictures/<game id>/<sha256>.<ext>``; the log holds only that name.
An upload or an import writes the picture here first and commits its events after
(webapp/live/uploads.py); if the commit is refused, a file this upload created is
removed again (``forget``), so nothing half-imported remains (no event, no file).

Decoding a picture takes its pixels in memory (up to ``uvtt.MAX_PICTURE_PIXELS``, ~4 bytes each): at most
``DECODES_AT_ONCE`` run at once in the process (uploads, imports and the fog's painted-out copies alike);
another waits ``DECODE_WAIT`` seconds for a turn, then is refused with :class:`PicturesBusy` (a 503 with
``Retry-After``). A game stores ``GAME_BUDGET`` bytes of pictures at most (#32).

Picture work runs off the loop (#57, docs/SERVING.md "Pictures"): under ``tacmap serve`` (gevent) each decode,
writing again and paint-out runs on one of ``DECODES_AT_ONCE`` native threads of a pool of its own
(``picture_work``; Pillow lets go of the GIL while it decodes, draws and encodes), and the picture files are
written there too, so a 32-megapixel picture holds its own request only, never the other tables' moves. Each
piece of work is counted against whoever asked for it (``Asker``: the seat, and the client address): a seat
has ``SEAT_AT_ONCE`` pieces running or waiting at most, and ``SEAT_BURST`` seconds of work, refilled at
``SEAT_RATE`` a second (an address ``ADDRESS_FACTOR`` times that, a loopback address not counted); past that it
is refused with :class:`PicturesTooMuch` (a 429 with ``Retry-After``) and the other seats keep going. The
fog's paint-outs are kept by picture and squares known, ``MASKED_BYTES`` at most (the least recently served
go first), and made once however many audiences that know the same squares ask at the same time.

With the games on PostgreSQL (``--database``; ``Store.keeps_files``) each machine has a data folder of its own:
a picture is kept in the database (its ``files`` table) before its events are committed, and the data folder
holds a copy of each picture this machine wrote or served, fetched from the database the first time it is asked
for. A picture uploaded through one machine is served by every other (docs/STORAGE.md).
"""

from __future__ import annotations

import hashlib
import io
import math
import os
import re
import tempfile
import threading
import time
from collections import OrderedDict
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..game.bridge import fog
from ..game.board import handouts, maps, uvtt
from ..game.core import text
from ..game.core.model import Rejected
from ..game.core.text import N_
from . import private

if TYPE_CHECKING:
    from ..game.core.model import Actor, Game
    from .store import Store


#: decodes at once in the process, and the native threads they run on (``picture_work``): two of the machine's
#: cores at most, and the loop keeps one; each holds up to ~4 bytes a pixel of ``uvtt.MAX_PICTURE_PIXELS``
DECODES_AT_ONCE = 2
DECODE_WAIT = 20.0  # seconds a decode waits for its turn before it is refused (a waiting greenlet costs nothing)
RETRY_AFTER = 5  # seconds, told to the refused
GAME_BUDGET = 256 * 1024 * 1024  # bytes of pictures one game stores: map pictures, hand-outs, token pictures
_DECODES = threading.BoundedSemaphore(DECODES_AT_ONCE)  # gevent-patched, it still counts the same
_STORE_LOCK = threading.Lock()  # the budget is measured and the file written in one step
#: pieces of picture work one seat has running or waiting for a decode place (a GM's few uploads at once wait
#: their turn); more are refused at once
SEAT_AT_ONCE = DECODES_AT_ONCE + 4
SEAT_BURST = 30.0  # seconds of picture work a seat may take at once (a 32-megapixel upload takes ~1 s)
#: seconds of picture work a second, sustained (30 s a minute: half a thread): a player walking on a fogged
#: 32-megapixel map, a paint-out of ~1 s after each step, is not held back
SEAT_RATE = 0.5
ADDRESS_FACTOR = 2  # a client address may take this many seats' worth (a loopback address is not counted)
_POOL_IDLE = 60.0  # seconds a picture thread waits for work before it ends (the next piece starts one again)


class PicturesBusy(Exception):
    """Every decode place was taken for ``DECODE_WAIT`` seconds: try again in ``retry_after`` seconds."""

    MESSAGE = N_("the server is busy reading other pictures: try again in %(n)s seconds")
    status = 503

    def __init__(self, retry_after: int = RETRY_AFTER) -> None:
        self.retry_after = retry_after
        # said in the sender's language by webapp/live/screens/language.py's refusal_text (msgid, params), as a Rejected is
        self.msgid, self.params = self.MESSAGE, {"n": retry_after}
        super().__init__(self.MESSAGE % self.params)


class PicturesTooMuch(PicturesBusy):
    """This seat (or its address) asked for more picture work than its share (``Asker``): a 429."""

    MESSAGE = N_("you asked for a lot of picture work in a short time: try again in %(n)s seconds")
    status = 429


@dataclass(frozen=True)
class Asker:
    """Whom a piece of picture work is counted against: a seat (``game id:audience``) and its client address."""

    seat: str
    address: str | None = None


def _loopback(address: str) -> bool:
    return address == "::1" or address.startswith("127.") or address == "localhost"


class _Shares:
    """Each seat's and address's picture work: pieces running or waiting, and a token bucket of seconds."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: dict[str, int] = {}
        self._buckets: dict[str, tuple[float, float]] = {}  # name -> (seconds left, when)

    def _left(self, name: str, burst: float, rate: float, now: float) -> float:
        left, at = self._buckets.get(name, (burst, now))
        return min(burst, left + (now - at) * rate)

    def _names(self, asker: Asker) -> list[tuple[str, int, float, float]]:
        """(name, pieces at once, seconds at once, seconds a second) of the seat, and of its address unless loopback."""
        out = [("seat " + asker.seat, SEAT_AT_ONCE, SEAT_BURST, SEAT_RATE)]
        if asker.address and not _loopback(asker.address):
            out.append(("address " + asker.address, SEAT_AT_ONCE * ADDRESS_FACTOR, SEAT_BURST * ADDRESS_FACTOR,
                        SEAT_RATE * ADDRESS_FACTOR))
        return out

    def start(self, asker: Asker) -> None:
        """Count a piece of work in, or raise PicturesTooMuch (nothing counted)."""
        with self._lock:
            now = time.monotonic()
            if len(self._buckets) > 10_000:  # many names: the full ones are forgotten
                self._buckets = {n: v for n, v in self._buckets.items() if v[0] < SEAT_BURST}
            names = self._names(asker)
            for name, at_once, burst, rate in names:
                if self._running.get(name, 0) >= at_once:
                    raise PicturesTooMuch(RETRY_AFTER)
                left = self._left(name, burst, rate, now)
                if left <= 0:
                    raise PicturesTooMuch(max(1, math.ceil(-left / rate) + 1))
            for name, *_limits in names:
                self._running[name] = self._running.get(name, 0) + 1

    def done(self, asker: Asker, seconds: float) -> None:
        """The piece is over: it took ``seconds`` of work."""
        with self._lock:
            now = time.monotonic()
            for name, _at_once, burst, rate in self._names(asker):
                self._buckets[name] = (self._left(name, burst, rate, now) - seconds, now)
                n = self._running.get(name, 0) - 1
                if n > 0:
                    self._running[name] = n
                else:
                    self._running.pop(name, None)


_SHARES = _Shares()
_pool = None  # gevent's pool of DECODES_AT_ONCE native threads for picture work; False: not gevent's


def _picture_pool():
    """The picture threads' pool when the process is gevent's (the standard library patched), else False."""
    global _pool
    if _pool is None:
        try:
            from gevent import monkey
            from gevent.threadpool import ThreadPool

            _pool = (ThreadPool(DECODES_AT_ONCE, idle_task_timeout=_POOL_IDLE)
                     if monkey.is_module_patched("threading") else False)
        except ImportError:
            _pool = False
    return _pool


def _caught(work, args) -> tuple:
    """``work(*args)`` on a picture thread: (what it returned, None), or (None, what it raised), raised again by the
    caller in its own greenlet (a bad picture's UvttError becomes the request's refusal as before)."""
    try:
        return work(*args), None
    except Exception as exc:  # noqa: BLE001 (raised again by the caller)
        return None, exc


def _off_loop(work, *args, files: bool = False):
    """``work(*args)`` on a picture thread when gevent serves, so it holds this greenlet only; else right here.
    ``files``: a file written (and fsynced), on gevent's own pool of threads: it waits behind no decode."""
    pool = _picture_pool()
    if pool is False:
        return work(*args)
    if files:
        from gevent import get_hub

        pool = get_hub().threadpool
    done, error = pool.apply(_caught, (work, args))
    if error is not None:
        raise error
    return done


@contextmanager
def decoding():
    """Hold one of the process's few decode places (or raise PicturesBusy after ``DECODE_WAIT`` seconds)."""
    if not _DECODES.acquire(timeout=DECODE_WAIT):
        raise PicturesBusy()
    try:
        yield
    finally:
        _DECODES.release()


def picture_work(asker: Asker | None, work, *args):
    """``work(*args)`` (a decode, a picture written again, a paint-out): counted against ``asker`` (None: the
    server's own, a command-line import or the demo), in a decode place, on a picture thread when gevent serves.
    What it raises is raised here. PicturesTooMuch past the asker's share, PicturesBusy with no place in time."""
    if asker is not None:
        _SHARES.start(asker)
    took = 0.0
    try:
        with decoding():
            t0 = time.monotonic()
            try:
                return _off_loop(work, *args)
            finally:
                took = time.monotonic() - t0
    finally:
        if asker is not None:
            _SHARES.done(asker, took)


def checked(data: bytes, where: str = "file", asker: Asker | None = None) -> uvtt.Picture:
    """``uvtt.check_picture`` off the loop (``picture_work``); Rejected naming what is wrong."""
    try:
        return picture_work(asker, uvtt.check_picture, data, where)
    except uvtt.UvttError as exc:
        raise Rejected(exc.msgid, **exc.params) from None  # said in the sender's language


def game_dir(data_dir: str | Path, game_id: str) -> Path:
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,64}", game_id):
        raise ValueError(f"not a game id: {game_id!r}")
    return Path(data_dir) / "pictures" / game_id


def path_of(data_dir: str | Path, game_id: str, name: str, files: Optional["Store"] = None) -> Path | None:
    """The file of a stored picture, or None for a name that is not one (no path tricks get through). ``files``:
    the store, when it keeps the pictures (PostgreSQL): one not in this data folder yet is copied from there."""
    if not maps.PICTURE_NAME.fullmatch(name or ""):
        return None
    path = game_dir(data_dir, game_id) / name
    if path.is_file():
        return path
    if files is None or not files.keeps_files:
        return None
    data = files.file(game_id, f"pictures/{name}")
    if data is None:
        return None
    _write(game_dir(data_dir, game_id), name, data)
    return path


def _write(folder: Path, name: str, data: bytes) -> Path:
    """``folder/name`` written whole or not at all (a temporary file, flushed, then renamed into place), off the
    loop: up to 20 MB and an fsync."""
    return _off_loop(_write_here, folder, name, data, files=True)


def _write_here(folder: Path, name: str, data: bytes) -> Path:
    private.make_dir(folder)
    path = folder / name
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".upload-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def stored_bytes(data_dir: str | Path, game_id: str) -> int:
    """What the game's pictures take on disk (every file it ever stored: the log may name any of them)."""
    folder = game_dir(data_dir, game_id)
    if not folder.is_dir():
        return 0
    return sum(f.stat().st_size for f in folder.iterdir() if f.is_file() and not f.name.startswith("."))


def store(data_dir: str | Path, game_id: str, picture: uvtt.Picture,
          files: Optional["Store"] = None) -> tuple[Path, bool]:
    """Write the picture (atomically); returns its path and whether this call created it. A picture the
    game stores already costs nothing; a new one over the game's budget is Rejected, nothing written.
    ``files``: the store, kept there first when it keeps the pictures (PostgreSQL)."""
    with _STORE_LOCK:
        if files is not None and files.keeps_files:
            return _store_shared(data_dir, game_id, picture, files)
        return _store(data_dir, game_id, picture)


def _over_budget(used: int, picture: uvtt.Picture) -> Rejected:
    mb = 1048576
    return Rejected(N_("this game's pictures take %(used)s MB of the %(budget)s MB a game may store: this one "
                       "(%(size)s MB) does not fit"), used=f"{used / mb:.1f}", budget=GAME_BUDGET // mb,
                    size=f"{len(picture.data) / mb:.1f}")


def _store(data_dir: str | Path, game_id: str, picture: uvtt.Picture) -> tuple[Path, bool]:
    folder = game_dir(data_dir, game_id)
    private.make_dir(folder)
    path = folder / picture.name
    if path.exists():
        return path, False
    used = stored_bytes(data_dir, game_id)
    if used + len(picture.data) > GAME_BUDGET:
        raise _over_budget(used, picture)
    return _write(folder, picture.name, picture.data), True


def _store_shared(data_dir: str | Path, game_id: str, picture: uvtt.Picture, files: "Store") -> tuple[Path, bool]:
    """The picture in the database (every machine's budget and copy), then in this data folder."""
    key = f"pictures/{picture.name}"
    folder = game_dir(data_dir, game_id)
    if files.has_file(game_id, key):
        path = folder / picture.name
        return (path if path.is_file() else _write(folder, picture.name, picture.data)), False
    used = files.files_size(game_id, "pictures/")
    if used + len(picture.data) > GAME_BUDGET:
        raise _over_budget(used, picture)
    created = files.put_file(game_id, key, picture.data)
    return _write(folder, picture.name, picture.data), created


def forget(data_dir: str | Path, game_id: str, path: Path, files: Optional["Store"] = None) -> None:
    """A picture this upload created, taken back (its commit was refused): from the folder and the database."""
    path.unlink(missing_ok=True)
    if files is not None and files.keeps_files:
        files.delete_file(game_id, f"pictures/{path.name}")


#: bytes of paint-outs kept (``masked``): a 32-megapixel one is a few MB at most (what the fog hides is black)
MASKED_BYTES = 64 * 1024 * 1024
_MASKED: OrderedDict[tuple, tuple[bytes, str]] = OrderedDict()  # key -> (paint-out, its ETag), least recent first
_MASKED_SIZE = [0]  # bytes in _MASKED
_MAKING: dict[tuple, threading.Event] = {}  # key -> set once the paint-out being made is kept (or failed)
_MASKED_LOCK = threading.Lock()


def fogged(game: "Game", actor: "Actor", name: str):
    """The squares this audience knows when the picture it asks for is the fogged active map's; else None
    (the GM, no fog, or not the active map's picture: served as it is)."""
    m = game.maps.get(game.active_map)
    if m is None or not m.picture or m.picture["name"] != name:
        return None
    return fog.known(game, actor)


def _paint_squares(draw, grid, known, k: float, ox: float, oy: float) -> None:
    """Paint the known squares on the mask, a run of neighbours in a row as one rectangle."""
    rows: dict[int, list[int]] = {}
    for x, y in known:
        rows.setdefault(y, []).append(x)
    for y, xs in rows.items():
        xs.sort()
        start = prev = xs[0]
        for x in xs[1:] + [None]:
            if x is not None and x == prev + 1:
                prev = x
                continue
            x0, x1 = ox + start * k, ox + (prev + 1) * k
            y0, y1 = oy + y * k, oy + (y + 1) * k
            draw.rectangle([math.floor(x0), math.floor(y0), math.ceil(x1) - 1, math.ceil(y1) - 1], fill=255)
            if x is not None:
                start = prev = x


def _paint_hexes(draw, grid, known, k: float, ox: float, oy: float) -> None:
    """Paint each known hex's outline on the mask: its corners in map units, stretched to drawing units
    (the page draws the picture one hex across a drawing unit: webapp/live/screens/drawing.py), then pixels."""
    ux, uy = grid.unit
    for cell in known:
        draw.polygon([(ox + cx * ux * k, oy + cy * uy * k) for cx, cy in grid.corners(cell)], fill=255, outline=255)


def _paint_out(path: Path, grid, known, k: float, ox: float, oy: float) -> tuple[bytes, str]:
    """The picture at ``path`` with every pixel outside ``known`` painted black, in its own format, and its ETag:
    the work itself (a picture thread's, ``picture_work``)."""
    from PIL import Image, ImageDraw

    with Image.open(path) as img:
        img.load()
        fmt = img.format
        mask = Image.new("L", img.size, 0)
        (_paint_hexes if grid.hex else _paint_squares)(ImageDraw.Draw(mask), grid, known, k, ox, oy)
        base = img.convert("RGBA" if fmt == "PNG" or img.mode in ("RGBA", "LA", "P") and fmt != "JPEG" else "RGB")
        out_img = Image.new(base.mode, base.size, (0, 0, 0, 255) if base.mode == "RGBA" else (0, 0, 0))
        out_img.paste(base, (0, 0), mask)
        del base, mask
        out = io.BytesIO()
        if fmt == "JPEG":
            out_img.save(out, "JPEG", quality=85)
        elif fmt == "WEBP":
            out_img.save(out, "WEBP", quality=85)
        else:
            out_img.save(out, "PNG", compress_level=3)
        del out_img
    data = out.getvalue()
    return data, hashlib.sha256(data).hexdigest()


def _kept(key: tuple) -> tuple[bytes, str] | None:
    with _MASKED_LOCK:
        found = _MASKED.get(key)
        if found is not None:
            _MASKED.move_to_end(key)
        return found


def _keep(key: tuple, made: tuple[bytes, str]) -> None:
    size = len(made[0])
    if size > MASKED_BYTES:
        return
    with _MASKED_LOCK:
        if key in _MASKED:
            return
        while _MASKED and _MASKED_SIZE[0] + size > MASKED_BYTES:
            _old, (data, _etag) = _MASKED.popitem(last=False)
            _MASKED_SIZE[0] -= len(data)
        _MASKED[key] = made
        _MASKED_SIZE[0] += size


def masked(path: Path, game: "Game", known, asker: Asker | None = None) -> tuple[bytes, str]:
    """The picture at ``path`` with every pixel outside the cells in ``known`` painted black, in its own
    format, and its ETag: a player's browser never receives what the fog hides (the fog layer alone would
    only cover it on screen). Made off the loop (``picture_work``, counted against ``asker``), kept by picture
    and squares known for the next audience that knows the same squares; audiences asking for the same one
    while it is made wait for it instead of making it again."""
    m = game.maps[game.active_map]
    align = m.align
    grid = maps.map_board(game, m.id).grid
    k, ox, oy = align["cell_px"], align["offset_x"], align["offset_y"]
    key = (path.name, known, grid, k, ox, oy)  # the name is the picture's content hash
    while True:
        found = _kept(key)
        if found is not None:
            return found
        with _MASKED_LOCK:
            making = _MAKING.get(key)
            mine = making is None
            if mine:
                making = _MAKING[key] = threading.Event()
        if not mine:  # another request makes it: wait for it, then take it (or make it, if that one failed)
            making.wait(DECODE_WAIT * 2)
            continue
        try:
            made = picture_work(asker, _paint_out, path, grid, known, k, ox, oy)
            _keep(key, made)
            return made
        finally:
            with _MASKED_LOCK:
                _MAKING.pop(key, None)
            making.set()


def picture_record(picture: uvtt.Picture) -> dict:
    return {"name": picture.name, "content_type": picture.content_type,
            "width": picture.width, "height": picture.height}


def may_fetch(game: "Game", actor: "Actor", name: str) -> bool:
    """The GM fetches any picture of the game; players and the table screen the active map's (a map being
    prepared is the GM's secret), the hand-outs shown to them and the pictures of the tokens they see."""
    pictures = {m.id: m.picture["name"] for m in game.maps.values() if m.picture}
    if actor.role == "gm":
        return name in pictures.values() or handouts.may_fetch(game, actor, name)
    return pictures.get(game.active_map) == name or handouts.may_fetch(game, actor, name)


def map_name(filename: str | None) -> str:
    """A map's name from its file's name: what the table's text rules refuse in a name is left out."""
    stem = Path(filename or "").stem
    stem = "".join(ch for ch in stem if text.problem(ch) is None)
    name = re.sub(r"[_\s]+", " ", stem).strip()[:40]
    return name or "Imported map"
