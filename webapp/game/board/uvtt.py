"""Universal VTT files (``.dd2vtt``, ``.df2vtt``, ``.uvtt``) read into a board and a picture.

Pure: bytes in, a :class:`UvttMap` out, or :class:`UvttError` naming what is
wrong. Nothing is written anywhere; the caller stores the picture and the
events only once the whole file has been read.

Readings chosen (docs/PROTOCOL.md "Maps"):

- every point is shifted by ``resolution.map_origin`` (a cropped export) and
  rounded to 1/64 of a cell (one pixel of a 64 px grid, the grid Dungeondraft
  itself exports on): points that are a float's hair off a grid line land on
  it, so walls along grid lines are grid walls for movement, and every
  coordinate is a short dyadic fraction the board's geometry handles exactly;
- ``line_of_sight`` and ``objects_line_of_sight`` polylines become wall
  segments (a repeated point is skipped); a segment that lies wholly outside
  the map (beyond a cropped export's edge) is left out, as it can stop nothing;
- each portal is a door from ``bounds[0]`` to ``bounds[1]``; a missing
  ``closed`` means closed; at most ``MAX_DOORS`` of them (the limit of a map drawn or sent as JSON);
- lights are kept as plain data (position, range in squares, intensity, colour ``aarrggbb``, shadows):
  the map's light sources (webapp/game/board/lighting.py);
- ``environment.ambient_light`` (a colour) gives the map's ambient light: ``bright`` when its
  luminance is 3/4 or more (white, the usual), ``dim`` from 1/4, else ``dark``; none given: bright;
- the map is ``ceil(map_size)`` cells each way.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import io
import json
import math
import re
import sys
from dataclasses import dataclass, field

from rules.board import Board, clip_span

from .mapdata import MAX_DOORS
from ..core.model import MAX_BOARD, MAX_SEGMENTS
from ..core.text import N_

MAX_FILE_BYTES = 32 * 1024 * 1024  # a 20 MB picture is ~27 MB in base64
MAX_PICTURE_BYTES = 20 * 1024 * 1024
MAX_PICTURE_PX = 8192
#: pixels in all (#32): a picture decoded takes ~4 bytes a pixel, twice while it is written again
MAX_PICTURE_PIXELS = 32 * 1024 * 1024
MAX_CELLS = MAX_BOARD  # a side of the map, in cells
# MAX_SEGMENTS: walls, occluders and doors together
MAX_LIGHTS = 1000
#: values in the file's JSON (told by its commas and brackets before it is parsed: a 32 MB file of small
#: numbers would take ~900 MB as Python objects); a map at every other limit holds well under this
MAX_JSON_ITEMS = 500_000
MAX_COORD = 1_000_000  # a point farther than this from the origin is not a map
GRID = 64  # points are rounded to 1/GRID of a cell

PICTURE_TYPES = {"PNG": ("png", "image/png"), "JPEG": ("jpg", "image/jpeg"), "WEBP": ("webp", "image/webp")}


class UvttError(ValueError):
    """The file is not a usable Universal VTT map; the message says what is wrong: a message id with its
    parameters (``UvttError(N_("%(where)s: ..."), where=...)``, said in the sender's language where it is
    refused, as a ``Rejected`` is)."""

    def __init__(self, message: str, **params) -> None:
        super().__init__(message % params if params else message)
        self.msgid, self.params = message, params


@dataclass(frozen=True)
class Picture:
    data: bytes = field(repr=False)
    ext: str  # png, jpg, webp
    content_type: str
    width: int  # pixels
    height: int

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()

    @property
    def name(self) -> str:
        return f"{self.sha256}.{self.ext}"


@dataclass
class UvttMap:
    format: float | None
    width: int  # cells
    height: int
    pixels_per_grid: float
    board: Board
    walls_from_los: int  # segments from line_of_sight
    walls_from_objects: int  # segments from objects_line_of_sight
    lights: list[dict]
    picture: Picture | None
    ambient: str = "bright"  # bright, dim or dark

    @property
    def walls(self) -> int:
        return len(self.board.walls)

    @property
    def doors(self) -> int:
        return len(self.board.doors)


def _magic(data: bytes) -> str | None:
    if data.startswith(b"\x89PNG\r\n\x1a\n"):
        return "PNG"
    if data.startswith(b"\xff\xd8\xff"):
        return "JPEG"
    if len(data) >= 12 and data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "WEBP"
    return None


def check_picture(data: bytes, where: str = "picture") -> Picture:
    """A PNG, JPEG or WebP picture within the limits, told by its bytes (never by a file name), decoded
    whole (a picture with no pixels, or cut short, is refused) and written again from its pixels alone:
    what the file carried besides them (EXIF with the GPS position of the phone that took it, XMP,
    text chunks, bytes after its end) is not kept. Its colour profile and orientation are."""
    if not data:
        raise UvttError(N_("%(where)s: the file is empty"), where=where)
    if len(data) > MAX_PICTURE_BYTES:
        raise UvttError(N_("%(where)s: %(mb)s MB is over the limit of %(limit)s MB"), where=where,
                        mb=f"{len(data) / 1048576:.1f}", limit=MAX_PICTURE_BYTES // 1048576)
    kind = _magic(data)
    if kind is None:
        raise UvttError(N_("%(where)s: not a PNG, JPEG or WebP picture"), where=where)
    from PIL import Image, ImageOps  # imported here: only uploads need it

    try:
        with Image.open(io.BytesIO(data)) as img:  # reads the header only: the size, no pixel yet
            fmt, (w, h) = img.format, img.size
            if fmt != kind:
                raise UvttError(N_("%(where)s: the picture's bytes say %(kind)s but it reads as %(fmt)s"), where=where,
                               kind=kind, fmt=fmt)
            if w > MAX_PICTURE_PX or h > MAX_PICTURE_PX:
                raise UvttError(N_("%(where)s: %(w)s x %(h)s px is over the limit of %(most)s x %(most)s px"),
                                where=where, w=w, h=h, most=MAX_PICTURE_PX)
            if w * h > MAX_PICTURE_PIXELS:
                raise UvttError(N_("%(where)s: %(w)s x %(h)s px is %(mp)s megapixels, over the limit of %(most)s "
                                   "megapixels"), where=where, w=w, h=h, mp=f"{w * h / 1048576:.0f}",
                                most=MAX_PICTURE_PIXELS // 1048576)
            img.verify()  # checksums and structure, before a pixel is decoded
        with Image.open(io.BytesIO(data)) as img:
            img.load()  # every pixel, within the size checked above: a picture with none is refused here
            clean, (w, h) = _without_metadata(img, kind, data, ImageOps)
    except UvttError:
        raise
    except Image.DecompressionBombError:  # Pillow's own guard, before its header reached the checks above
        raise UvttError(N_("%(where)s: the picture says it is far over the limit of %(most)s x %(most)s px"),
                        where=where, most=MAX_PICTURE_PX) from None
    except Exception as exc:  # Pillow raises many kinds for a broken picture
        raise UvttError(N_("%(where)s: the %(kind)s picture is damaged or truncated (%(error)s)"), where=where,
                        kind=kind, error=type(exc).__name__) from None
    ext, content_type = PICTURE_TYPES[kind]
    return Picture(data=clean, ext=ext, content_type=content_type, width=w, height=h)


def _without_metadata(img, kind: str, data: bytes, image_ops) -> tuple[bytes, tuple[int, int]]:
    """The picture saved again in its own format from its pixels, turned upright by its EXIF orientation
    first, with its colour profile and nothing else of what it carried."""
    icc = img.info.get("icc_profile")
    upright = image_ops.exif_transpose(img)
    out = io.BytesIO()
    extra = {"icc_profile": icc} if icc else {}
    if kind == "JPEG":
        if upright is img:  # the same pixels: the same quantisation, no loss added
            img.save(out, "JPEG", quality="keep", subsampling="keep", **extra)
        else:
            upright.save(out, "JPEG", quality=92, **extra)
    elif kind == "PNG":
        if upright.mode not in ("1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"):
            upright = upright.convert("RGBA")
        keep = {k: img.info[k] for k in ("transparency", "dpi") if k in img.info}
        upright.save(out, "PNG", **keep, **extra)
    else:
        lossless = b"VP8L" in data[12:64]
        upright.save(out, "WEBP", lossless=lossless, quality=100 if lossless else 90, **extra)
    return out.getvalue(), upright.size


def _number(v, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise UvttError(N_("%(where)s: must be a number, not %(value)s"), where=where, value=repr(str(v)[:40]))
    if abs(v) > MAX_COORD:
        raise UvttError(N_("%(where)s: %(value)s is absurdly far away"), where=where, value=v)
    return v


def _xy(p, where: str) -> tuple[float, float]:
    if not isinstance(p, dict) or "x" not in p or "y" not in p:
        raise UvttError(N_('%(where)s: a point is {"x", "y"}'), where=where)
    return _number(p["x"], f"{where}.x"), _number(p["y"], f"{where}.y")


def _snap(v: float) -> float:
    r = round(v * GRID) / GRID
    return int(r) if r == int(r) else r


def _touches(a, b, w: int, h: int) -> bool:
    """Does the segment a-b come within the map (and a cell around it)?"""
    span = clip_span(a[0], a[1], b[0], b[1], w, h)
    return span is not None and span[0] <= span[1]


def _polylines(d: dict, key: str, required: bool) -> list:
    lines = d.get(key)
    if lines is None:
        if required:
            raise UvttError(N_("%(where)s: missing (a Universal VTT file lists its walls there)"), where=key)
        return []
    if not isinstance(lines, list) or not all(isinstance(line, list) for line in lines):
        raise UvttError(N_("%(where)s: must be a list of polylines (lists of points)"), where=key)
    return lines


def parse(raw: bytes | str) -> UvttMap:
    """Read a whole Universal VTT file; UvttError names the first thing wrong."""
    if isinstance(raw, str):
        raw = raw.encode()
    if len(raw) > MAX_FILE_BYTES:
        raise UvttError(N_("the file is %(mb)s MB, over the limit of %(limit)s MB"), mb=f"{len(raw) / 1048576:.1f}",
                        limit=MAX_FILE_BYTES // 1048576)
    if not raw.strip():
        raise UvttError(N_("the file is empty"))
    items = raw.count(b",") + raw.count(b"[") + raw.count(b"{")  # a base64 picture holds none of them
    if items > MAX_JSON_ITEMS:
        raise UvttError(N_("the file holds %(n)s values or more; a map holds %(most)s at most (its walls, doors and "
                           "lights)"), n=f"{items:,}", most=f"{MAX_JSON_ITEMS:,}")
    try:
        d = json.loads(raw)
    except UnicodeDecodeError:
        raise UvttError(N_("not a Universal VTT file: it is not text (JSON)")) from None
    except json.JSONDecodeError as exc:
        ends_early = exc.pos >= len(raw.rstrip()) - 1 or exc.msg.startswith("Unterminated")
        parsed = {"error": exc.msg, "line": exc.lineno, "column": exc.colno}  # the parser's words: as they are
        if ends_early:
            raise UvttError(N_("not valid JSON: %(error)s (line %(line)s, column %(column)s); the file ends too early: is "
                               "it truncated?"), **parsed) from None
        raise UvttError(N_("not valid JSON: %(error)s (line %(line)s, column %(column)s)"), **parsed) from None
    except RecursionError:
        raise UvttError(N_("not a Universal VTT file: its JSON is nested absurdly deep")) from None
    except ValueError:  # not JSONDecodeError (caught above): an integer over Python's limit of digits (issue 57)
        raise UvttError(N_("not a Universal VTT file: a number in it has more than %(most)s digits"),
                        most=f"{sys.get_int_max_str_digits():,}") from None
    if not isinstance(d, dict):
        raise UvttError(N_("not a Universal VTT file: the top level is not a JSON object"))
    res = d.get("resolution")
    if not isinstance(res, dict):
        raise UvttError(N_("not a Universal VTT file: no resolution (map_origin, map_size, pixels_per_grid)"))
    fmt = d.get("format")
    if fmt is not None and (isinstance(fmt, bool) or not isinstance(fmt, (int, float))):
        raise UvttError(N_("format: must be a number such as 0.3, not %(value)s"), value=repr(str(fmt)[:20]))

    size = res.get("map_size")
    if size is None:
        raise UvttError(N_("resolution.map_size: missing"))
    sx, sy = _xy(size, "resolution.map_size")
    if not (0 < sx <= MAX_CELLS and 0 < sy <= MAX_CELLS):
        raise UvttError(N_("resolution.map_size: %(x)s x %(y)s cells; a map is 1 to %(most)s cells each way"), x=f"{sx:g}",
                        y=f"{sy:g}", most=MAX_CELLS)
    width, height = math.ceil(sx), math.ceil(sy)
    ox, oy = _xy(res.get("map_origin") or {"x": 0, "y": 0}, "resolution.map_origin")
    ppg = _number(res.get("pixels_per_grid", 0), "resolution.pixels_per_grid")
    if not 1 <= ppg <= 1024:
        raise UvttError(N_("resolution.pixels_per_grid: %(value)s; expected 1 to 1024 pixels per cell"), value=f"{ppg:g}")

    los = _polylines(d, "line_of_sight", required=False)
    objects = _polylines(d, "objects_line_of_sight", required=False)
    portals = d.get("portals") or []
    if not isinstance(portals, list):
        raise UvttError(N_("portals: must be a list of doors"))
    if len(portals) > MAX_DOORS:
        raise UvttError(N_("%(n)s doors; a map holds %(most)s at most"), n=f"{len(portals):,}", most=f"{MAX_DOORS:,}")
    count = sum(max(len(line) - 1, 0) for line in los + objects) + len(portals)
    if count > MAX_SEGMENTS:
        raise UvttError(N_("%(n)s wall segments and doors; a map holds %(most)s at most"), n=count, most=f"{MAX_SEGMENTS:,}")

    def point(p, where):
        x, y = _xy(p, where)
        return _snap(x - ox), _snap(y - oy)

    board = Board(width, height)
    made = {}
    for key, lines in (("line_of_sight", los), ("objects_line_of_sight", objects)):
        n = 0
        for i, line in enumerate(lines):
            prev = None
            for j, p in enumerate(line):
                here = point(p, f"{key}[{i}][{j}]")
                if prev is not None and prev != here and _touches(prev, here, width, height):
                    board.add_wall(prev, here)
                    n += 1
                prev = here
        made[key] = n

    for i, portal in enumerate(portals):
        where = f"portals[{i}]"
        if not isinstance(portal, dict):
            raise UvttError(N_("%(where)s: a door is an object with bounds"), where=where)
        bounds = portal.get("bounds")
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise UvttError(N_("%(where)s.bounds: a door needs its two end points"), where=where)
        a, b = point(bounds[0], f"{where}.bounds[0]"), point(bounds[1], f"{where}.bounds[1]")
        if a == b:
            raise UvttError(N_("%(where)s.bounds: both end points are the same"), where=where)
        closed = portal.get("closed", True)
        if not isinstance(closed, bool):
            raise UvttError(N_("%(where)s.closed: must be true or false"), where=where)
        if _touches(a, b, width, height):
            board.add_door(a, b, closed=closed)

    lights = d.get("lights") or []
    if not isinstance(lights, list):
        raise UvttError(N_("lights: must be a list"))
    if len(lights) > MAX_LIGHTS:
        raise UvttError(N_("%(n)s lights; a map holds %(most)s at most"), n=len(lights), most=MAX_LIGHTS)
    kept = []
    for i, light in enumerate(lights):
        where = f"lights[{i}]"
        if not isinstance(light, dict):
            raise UvttError(N_("%(where)s: a light is an object with a position"), where=where)
        x, y = point(light.get("position"), f"{where}.position")
        color = light.get("color", "ffffffff")
        kept.append({
            "x": x, "y": y,
            "range": _number(light.get("range", 0), f"{where}.range"),
            "intensity": _number(light.get("intensity", 1), f"{where}.intensity"),
            "color": color if isinstance(color, str) and re.fullmatch(r"[0-9a-fA-F]{6,8}", color) else "ffffffff",
            "shadows": bool(light.get("shadows", True)),
        })

    picture = None
    image = d.get("image")
    if image not in (None, ""):
        if not isinstance(image, str):
            raise UvttError(N_("image: must be the picture in base64"))
        image = re.sub(r"^data:[\w/+.-]+;base64,", "", image[:100]) + image[100:]
        if len(image) > MAX_PICTURE_BYTES * 4 // 3 + 1024:
            raise UvttError(N_("image: over the limit of %(mb)s MB"), mb=MAX_PICTURE_BYTES // 1048576)
        try:
            data = base64.b64decode(re.sub(r"\s+", "", image), validate=True)
        except (binascii.Error, ValueError):
            raise UvttError(N_("image: not valid base64")) from None
        picture = check_picture(data, "image")

    return UvttMap(format=fmt, width=width, height=height, pixels_per_grid=ppg, board=board,
                   walls_from_los=made["line_of_sight"], walls_from_objects=made["objects_line_of_sight"],
                   lights=kept, picture=picture, ambient=_ambient(d.get("environment")))


def _ambient(environment) -> str:
    """The ambient light an ``environment.ambient_light`` colour (``aarrggbb``) gives: by its luminance."""
    color = environment.get("ambient_light") if isinstance(environment, dict) else None
    if not isinstance(color, str) or not re.fullmatch(r"[0-9a-fA-F]{6}([0-9a-fA-F]{2})?", color):
        return "bright"
    a, rgb = (int(color[:2], 16) / 255, color[2:]) if len(color) == 8 else (1.0, color)
    r, g, b = (int(rgb[i:i + 2], 16) / 255 for i in (0, 2, 4))
    luminance = (0.2126 * r + 0.7152 * g + 0.0722 * b) * a
    return "bright" if luminance >= 0.75 else "dim" if luminance >= 0.25 else "dark"
