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

With the games on PostgreSQL (``--database``; ``Store.keeps_files``) each machine has a data folder of its own:
a picture is kept in the database (its ``files`` table) before its events are committed, and the data folder
holds a copy of each picture this machine wrote or served, fetched from the database the first time it is asked
for. A picture uploaded through one machine is served by every other (docs/STORAGE.md).
"""

from __future__ import annotations

import io
import math
import os
import re
import tempfile
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..game import fog, handouts, maps, text, uvtt
from ..game.model import Rejected
from ..game.text import N_
from . import private

if TYPE_CHECKING:
    from ..game.model import Actor, Game
    from .store import Store


DECODES_AT_ONCE = 2
DECODE_WAIT = 5.0  # seconds a decode waits for its turn before it is refused
RETRY_AFTER = 5  # seconds, told to the refused
GAME_BUDGET = 256 * 1024 * 1024  # bytes of pictures one game stores: map pictures, hand-outs, token pictures
_DECODES = threading.BoundedSemaphore(DECODES_AT_ONCE)  # gevent-patched, it still counts the same
_STORE_LOCK = threading.Lock()  # the budget is measured and the file written in one step


class PicturesBusy(Exception):
    """Every decode place was taken for ``DECODE_WAIT`` seconds: try again in ``retry_after`` seconds."""

    MESSAGE = N_("the server is busy reading other pictures: try again in %(n)s seconds")

    def __init__(self) -> None:
        self.retry_after = RETRY_AFTER
        # said in the sender's language by webapp/live/language.py's refusal_text (msgid, params), as a Rejected is
        self.msgid, self.params = self.MESSAGE, {"n": RETRY_AFTER}
        super().__init__(self.MESSAGE % self.params)


@contextmanager
def decoding():
    """Hold one of the process's few decode places (or raise PicturesBusy after ``DECODE_WAIT`` seconds)."""
    if not _DECODES.acquire(timeout=DECODE_WAIT):
        raise PicturesBusy()
    try:
        yield
    finally:
        _DECODES.release()


def checked(data: bytes, where: str = "file") -> uvtt.Picture:
    """``uvtt.check_picture`` in a decode place; Rejected naming what is wrong."""
    with decoding():
        try:
            return uvtt.check_picture(data, where)
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
    """``folder/name`` written whole or not at all (a temporary file, flushed, then renamed into place)."""
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


_MASKED: dict[tuple, bytes] = {}  # (file, squares known, alignment) -> the picture painted out (a few kept)
_MASKED_LOCK = threading.Lock()
MASKED_KEEP = 16


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
    (the page draws the picture one hex across a drawing unit: webapp/live/drawing.py), then pixels."""
    ux, uy = grid.unit
    for cell in known:
        draw.polygon([(ox + cx * ux * k, oy + cy * uy * k) for cx, cy in grid.corners(cell)], fill=255, outline=255)


def masked(path: Path, game: "Game", known) -> bytes:
    """The picture at ``path`` with every pixel outside the cells in ``known`` painted black, in its own
    format: a player's browser never receives what the fog hides (the fog layer alone would only cover
    it on screen). Kept for the next audience that knows the same squares."""
    m = game.maps[game.active_map]
    align = m.align
    key = (str(path), known, align["cell_px"], align["offset_x"], align["offset_y"])
    with _MASKED_LOCK:
        found = _MASKED.get(key)
    if found is not None:
        return found
    from PIL import Image, ImageDraw

    k, ox, oy = align["cell_px"], align["offset_x"], align["offset_y"]
    with decoding(), Image.open(path) as img:
        img.load()
        fmt = img.format
        mask = Image.new("L", img.size, 0)
        grid = maps.map_board(game, m.id).grid
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
    with _MASKED_LOCK:
        if len(_MASKED) >= MASKED_KEEP:
            _MASKED.pop(next(iter(_MASKED)))
        _MASKED[key] = data
    return data


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
