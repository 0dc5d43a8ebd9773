"""Map files and pictures from a stranger (#25): uploaded through the GM's own routes, fetched by a player.

A picture is decoded whole and stored without what it carried besides its pixels (EXIF and its GPS
position, text chunks); a PNG with no pixels is refused; the picture route keeps its own sandbox CSP;
a map file of small values is refused before it is parsed; names from map imports obey the text rules."""

from __future__ import annotations

import io
import struct
import tracemalloc
import zlib
from pathlib import Path

import pytest
from PIL import ExifTags, Image, PngImagePlugin

from tests.helpers import bearer, new_game

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "dungeondraft-sample.dd2vtt"
SECRET = "48.8584N 2.2945E Mira's flat"


@pytest.fixture
def g(client):
    body = new_game(client, "plain_grid", name="Pictures")
    join = client.post(f"/api/games/{body['id']}/players", json={"join_code": body["join_code"], "name": "Mira"})
    body["player_token"] = join.json["player_token"]
    return body


def set_picture(client, g, data: bytes, filename="map.jpg"):
    return client.post(f"/api/games/{g['id']}/maps/active/picture", data={"file": (io.BytesIO(data), filename)},
                       headers=bearer(g["gm_token"]), content_type="multipart/form-data")


def served(client, g, token) -> bytes:
    st = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    r = client.get(st["picture"]["url"], headers=bearer(token))
    assert r.status_code == 200
    return r.data


def with_exif(fmt: str) -> bytes:
    img = Image.new("RGB", (64, 48), (120, 90, 60))
    exif = Image.Exif()
    exif[ExifTags.Base.ImageDescription] = SECRET
    gps = exif.get_ifd(ExifTags.IFD.GPSInfo)
    gps[ExifTags.GPS.GPSLatitudeRef] = "N"
    gps[ExifTags.GPS.GPSLatitude] = (48.0, 51.0, 30.0)
    out = io.BytesIO()
    img.save(out, fmt, exif=exif, **({"quality": 90} if fmt != "PNG" else {}))
    return out.getvalue()


@pytest.mark.parametrize("fmt, name", [("JPEG", "map.jpg"), ("WEBP", "map.webp"), ("PNG", "map.png")])
def test_a_pictures_exif_and_gps_never_reach_the_players(client, g, fmt, name):
    data = with_exif(fmt)
    assert SECRET.encode() in data and Image.open(io.BytesIO(data)).getexif().get_ifd(ExifTags.IFD.GPSInfo)
    r = set_picture(client, g, data, name)
    assert r.status_code == 200, r.json
    got = served(client, g, g["player_token"])
    assert SECRET.encode() not in got and b"Exif" not in got
    with Image.open(io.BytesIO(got)) as img:
        assert img.format == fmt and img.size == (64, 48)
        assert not img.getexif() and not img.getexif().get_ifd(ExifTags.IFD.GPSInfo)


def test_a_pngs_text_chunks_stay_behind(client, g):
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", SECRET)
    out = io.BytesIO()
    Image.new("RGBA", (32, 32), (0, 0, 0, 0)).save(out, "PNG", pnginfo=info)
    assert set_picture(client, g, out.getvalue(), "map.png").status_code == 200
    got = served(client, g, g["player_token"])
    assert SECRET.encode() not in got and Image.open(io.BytesIO(got)).size == (32, 32)


def chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


@pytest.mark.parametrize("idat", [None, zlib.compress(b"\x00" * 10)])  # no pixel data; far too little
def test_a_png_without_its_pixels_is_refused(app, client, g, idat):
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 400, 300, 8, 2, 0, 0, 0))
    png += (chunk(b"IDAT", idat) if idat else b"") + chunk(b"IEND", b"")
    r = set_picture(client, g, png, "map.png")
    assert r.status_code == 422 and "damaged or truncated" in r.json["error"], r.json
    folder = Path(app.config["DATA_DIR"]) / "pictures" / g["id"]
    assert not folder.exists() or not list(folder.iterdir())


def test_the_picture_route_keeps_its_own_sandbox_policy(client, g):
    out = io.BytesIO()
    Image.new("RGB", (16, 16)).save(out, "PNG")
    assert set_picture(client, g, out.getvalue(), "m.png").status_code == 200
    st = client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json
    r = client.get(st["picture"]["url"], headers=bearer(g["player_token"]))
    assert r.status_code == 200
    assert r.headers.getlist("Content-Security-Policy") == ["default-src 'none'; sandbox"] or \
        [v.strip() for v in r.headers.getlist("Content-Security-Policy")] == ["default-src 'none'; sandbox"]
    # the site's pages keep the site's policy
    assert "script-src 'self'" in client.get("/").headers["Content-Security-Policy"]


def test_a_map_file_of_small_values_is_refused_before_it_is_parsed(hub, client, g):
    """32 MB of {"x": 1.5} took ~900 MB as Python objects; now the values are counted first."""
    head = b'{"format": 0.3, "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 10, "y": 10}, ' \
           b'"pixels_per_grid": 64}, "line_of_sight": [], "junk": ['
    item = b'{"x": 1.5},'
    raw = head + item * ((30 * 1024 * 1024 - len(head)) // len(item)) + b'{"x": 1.5}]}'
    before = hub.store.last_seq(g["id"])
    tracemalloc.start()
    try:
        r = client.post(f"/api/games/{g['id']}/maps", data={"file": (io.BytesIO(raw), "big.dd2vtt")},
                        headers=bearer(g["gm_token"]), content_type="multipart/form-data")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert r.status_code == 422 and "values or more; a map holds 500,000 at most" in r.json["error"], r.json
    assert peak < 250 * 1024 * 1024, f"{peak / 1048576:.0f} MB"
    assert hub.store.last_seq(g["id"]) == before
    ok = client.post(f"/api/games/{g['id']}/maps", data={"file": (io.BytesIO(SAMPLE.read_bytes()), "s.dd2vtt")},
                     headers=bearer(g["gm_token"]), content_type="multipart/form-data")
    assert ok.status_code == 201  # a real map is far below the count


def test_names_from_a_map_import_obey_the_text_rules(client, g):
    def imp(filename, **form):
        return client.post(f"/api/games/{g['id']}/maps", data={"file": (io.BytesIO(SAMPLE.read_bytes()), filename),
                                                               **form},
                           headers=bearer(g["gm_token"]), content_type="multipart/form-data")

    r = imp("cave.dd2vtt", name="Cave\u202egnp.exe")
    assert r.status_code == 422 and "U+202E" in r.json["error"], r.json
    r = imp("Crypt\u202e\u0007\u200bof bones.dd2vtt")  # the file's name gives the map's name
    assert r.status_code == 201, r.json
    names = [m["name"] for m in client.get(f"/api/games/{g['id']}/state", headers=bearer(g["gm_token"])).json["maps"]]
    assert "Cryptof bones" in names or "Crypt of bones" in names, names
    assert not any(ch in n for n in names for ch in "\u202e\u0007\u200b")
