"""Universal VTT import (webapp/game/board/uvtt.py): the Dungeondraft sample and hand-made edge cases."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import pytest
from PIL import Image

from rules import los
from webapp.game.board import uvtt

SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "dungeondraft-sample.dd2vtt"


@pytest.fixture(scope="module")
def sample_bytes() -> bytes:
    return SAMPLE.read_bytes()


@pytest.fixture(scope="module")
def sample(sample_bytes):
    return uvtt.parse(sample_bytes)


def png(w=8, h=8, fmt="PNG") -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (w, h), (120, 90, 60)).save(out, fmt)
    return out.getvalue()


def uvtt_file(**over) -> bytes:
    d = {
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": 10, "y": 8}, "pixels_per_grid": 8},
        "line_of_sight": [[{"x": 5, "y": 0}, {"x": 5, "y": 3}], [{"x": 5, "y": 4}, {"x": 5, "y": 8}]],
        "objects_line_of_sight": [],
        "portals": [{"position": {"x": 5, "y": 3.5}, "bounds": [{"x": 5, "y": 3}, {"x": 5, "y": 4}],
                     "rotation": 1.5708, "closed": True, "freestanding": False}],
        "lights": [],
        "image": base64.b64encode(png(80, 64)).decode(),
    }
    d.update(over)
    return json.dumps(d).encode()


# --- the real export ---------------------------------------------------------


def test_sample_walls_doors_size_and_picture(sample):
    assert (sample.width, sample.height) == (20, 20)
    assert sample.walls_from_los == 197  # 9 polylines
    # 2 object occluders, 50 segments in the file; 6 of them are shorter than 1/64 of a cell and
    # vanish when points are rounded to 1/64 (the polyline stays joined: the next segment starts there)
    assert sample.walls_from_objects == 44
    assert sample.walls == 197 + 44
    assert sample.doors == 3
    assert all(d.closed for d in sample.board.doors.values())
    assert sample.picture.content_type == "image/png"
    assert (sample.picture.width, sample.picture.height) == (1280, 1280)
    assert sample.pixels_per_grid == 64
    assert sample.lights == [{"x": 6.125, "y": 7.21875, "range": 9.900001, "intensity": 1,
                              "color": "ffeccd8b", "shadows": True}]


def test_sample_polylines_stay_joined(sample):
    walls = list(sample.board.walls.values())
    joined = sum(1 for a, b in zip(walls, walls[1:]) if a.b == b.a)
    # consecutive segments of one polyline share their end point: 11 polylines, so 10 breaks at most
    assert joined >= len(walls) - 11


def test_sample_door_points_are_its_bounds(sample):
    doors = {(d.a, d.b) for d in sample.board.doors.values()}
    assert ((11, 6), (12, 6)) in doors
    assert ((12, 15.5), (12, 14.5)) in doors


def test_line_of_fire_across_an_imported_wall_is_blocked_and_through_an_opened_door_clear(sample):
    board = sample.board.copy()
    across_wall = los.line_of_fire(board, (8, 4), (8, 6))  # wall from (7.36, 5) to (9, 5)
    assert not across_wall.clear and across_wall.blockers == ["wall-1"]
    through_door = los.line_of_fire(board, (11, 5), (11, 6))
    assert not through_door.clear and through_door.blockers == ["door-1"]
    board.set_door("door-1", False)
    assert los.line_of_fire(board, (11, 5), (11, 6)).clear
    assert los.line_of_fire(board, (11, 6), (11, 5)).clear  # symmetric


def test_cover_counts_the_imported_walls(sample):
    # the cave's jagged outer wall hides a third of the sight lines between these two squares
    partial = los.cover(sample.board, (0, 3), (0, 7))
    assert partial.fraction == pytest.approx(1 / 3) and partial.blockers == ["wall-138"]
    assert los.line_of_fire(sample.board, (0, 3), (0, 7)).clear
    assert los.cover(sample.board, (8, 4), (8, 6)).fraction == 1.0


def test_a_step_through_an_imported_wall_is_refused(sample):
    board = sample.board
    assert board.step_blocked((8, 4), (8, 5))
    assert not board.step_blocked((8, 4), (7, 4))


def test_fog_sees_up_to_imported_walls(sample):
    seen = los.visible_cells(sample.board, (8, 4))
    assert (8, 4) in seen and (8, 6) not in seen


# --- hand-made edge cases ----------------------------------------------------


def test_format_0_2_without_object_occluders():
    d = json.loads(uvtt_file(format=0.2))
    del d["objects_line_of_sight"]
    m = uvtt.parse(json.dumps(d).encode())
    assert m.format == 0.2 and m.walls == 2 and m.walls_from_objects == 0 and m.doors == 1


def test_a_portal_without_closed_is_closed():
    d = json.loads(uvtt_file())
    del d["portals"][0]["closed"]
    m = uvtt.parse(json.dumps(d).encode())
    assert [door.closed for door in m.board.doors.values()] == [True]


def test_an_open_portal_stays_open():
    d = json.loads(uvtt_file())
    d["portals"][0]["closed"] = False
    m = uvtt.parse(json.dumps(d).encode())
    assert [door.closed for door in m.board.doors.values()] == [False]
    assert los.line_of_fire(m.board, (4, 3), (5, 3)).clear


def test_a_non_zero_origin_is_subtracted():
    d = json.loads(uvtt_file())
    d["resolution"]["map_origin"] = {"x": 30, "y": -2}
    d["line_of_sight"] = [[{"x": 35, "y": -2}, {"x": 35, "y": 1}]]
    d["portals"][0]["bounds"] = [{"x": 35, "y": 1}, {"x": 35, "y": 2}]
    d["lights"] = [{"position": {"x": 31, "y": 0}, "range": 4, "intensity": 1, "color": "ff000000"}]
    m = uvtt.parse(json.dumps(d).encode())
    wall = next(iter(m.board.walls.values()))
    assert (wall.a, wall.b) == ((5, 0), (5, 3))
    door = next(iter(m.board.doors.values()))
    assert (door.a, door.b) == ((5, 3), (5, 4))
    assert (m.lights[0]["x"], m.lights[0]["y"]) == (1, 2)


def test_walls_wholly_outside_a_cropped_map_are_left_out():
    d = json.loads(uvtt_file())
    d["line_of_sight"].append([{"x": 50, "y": 50}, {"x": 60, "y": 50}])
    assert uvtt.parse(json.dumps(d).encode()).walls == 2


def test_points_are_rounded_to_a_64th_of_a_cell():
    d = json.loads(uvtt_file())
    d["line_of_sight"] = [[{"x": 2.0000001, "y": 1}, {"x": 2.999999, "y": 1.015}]]
    wall = next(iter(uvtt.parse(json.dumps(d).encode()).board.walls.values()))
    assert wall.a == (2, 1) and wall.b == (3, 1.015625)


def test_no_picture_is_a_map_without_one():
    m = uvtt.parse(uvtt_file(image=""))
    assert m.picture is None and m.walls == 2


def test_a_jpeg_and_a_webp_picture_are_taken():
    assert uvtt.parse(uvtt_file(image=base64.b64encode(png(fmt="JPEG")).decode())).picture.ext == "jpg"
    assert uvtt.parse(uvtt_file(image=base64.b64encode(png(fmt="WEBP")).decode())).picture.ext == "webp"


@pytest.mark.parametrize("raw, message", [
    (b"", "empty"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not text"),
    (b"hello", "not valid JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"format": 0.3, "line_of_sight": []}', "no resolution"),
    (b"[" * 100000 + b"]" * 100000, "JSON"),
])
def test_not_uvtt_files_are_refused_with_the_reason(raw, message):
    with pytest.raises(uvtt.UvttError, match=message):
        uvtt.parse(raw)


def test_a_truncated_file_is_refused(sample_bytes):
    with pytest.raises(uvtt.UvttError, match="truncated"):
        uvtt.parse(sample_bytes[: len(sample_bytes) // 2])


def test_a_truncated_picture_is_refused():
    data = png(64, 64)
    with pytest.raises(uvtt.UvttError, match="image: the PNG picture is damaged or truncated"):
        uvtt.parse(uvtt_file(image=base64.b64encode(data[: len(data) // 2]).decode()))


@pytest.mark.parametrize("change, message", [
    ({"resolution": {"map_size": {"x": 301, "y": 10}, "pixels_per_grid": 64}}, "1 to 300 cells"),
    ({"resolution": {"map_size": {"x": 10, "y": 1e308}, "pixels_per_grid": 64}}, "absurdly far"),
    ({"resolution": {"map_size": {"x": 0, "y": 10}, "pixels_per_grid": 64}}, "1 to 300 cells"),
    ({"resolution": {"map_size": {"x": 10, "y": 10}, "pixels_per_grid": 0}}, "pixels_per_grid"),
    ({"resolution": {"map_size": {"x": "10", "y": 10}, "pixels_per_grid": 64}}, "map_size.x: must be a number"),
    ({"resolution": {"pixels_per_grid": 64}}, "map_size: missing"),
    ({"line_of_sight": [[{"x": 0, "y": 0}, {"x": i % 2, "y": 1}] for i in range(40_001)]}, "40,000 at most"),
    ({"line_of_sight": [[{"x": 0, "y": 0}] * 40_002]}, "40,000 at most"),
    ({"line_of_sight": [[{"x": 0, "y": 0}, {"x": float("nan"), "y": 1}]]}, "must be a number"),
    ({"line_of_sight": {"x": 1}}, "list of polylines"),
    ({"line_of_sight": [[{"x": 0}]]}, r"line_of_sight\[0\]\[0\]"),
    ({"portals": [{"position": {"x": 1, "y": 1}}]}, r"portals\[0\].bounds"),
    ({"portals": [{"bounds": [{"x": 1, "y": 1}, {"x": 1, "y": 1}]}]}, "same"),
    ({"portals": [{"bounds": [{"x": 1, "y": 1}, {"x": 2, "y": 1}], "closed": "yes"}]}, "true or false"),
    ({"image": "not base64!"}, "image: not valid base64"),
    ({"image": base64.b64encode(b"GIF89a" + b"\x00" * 40).decode()}, "not a PNG, JPEG or WebP"),
    ({"image": base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg'/>").decode()}, "not a PNG, JPEG or WebP"),
    ({"image": 42}, "base64"),
    ({"format": "0.3"}, "format"),
])
def test_hostile_or_broken_content_is_refused_with_what_is_wrong(change, message):
    d = json.loads(uvtt_file())
    d.update(change)
    with pytest.raises(uvtt.UvttError, match=message):
        uvtt.parse(json.dumps(d).encode())


def test_an_oversized_file_is_refused_before_reading_it():
    with pytest.raises(uvtt.UvttError, match="over the limit of 32 MB"):
        uvtt.parse(b" " * (uvtt.MAX_FILE_BYTES + 1))


def test_a_picture_over_8192_px_is_refused_without_decoding_it():
    big = io.BytesIO()
    Image.new("1", (9000, 10)).save(big, "PNG")  # a small file, but 9000 px wide
    with pytest.raises(uvtt.UvttError, match="9000 x 10 px is over the limit of 8192 x 8192 px"):
        uvtt.check_picture(big.getvalue())


def test_a_picture_whose_name_lies_is_told_by_its_bytes():
    with pytest.raises(uvtt.UvttError, match="not a PNG, JPEG or WebP"):
        uvtt.check_picture(b"<html><script>alert(1)</script></html>")
    assert uvtt.check_picture(png()).content_type == "image/png"
