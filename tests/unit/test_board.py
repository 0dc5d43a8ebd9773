"""The board: ids, changes, persistence, the step rule and the wall index."""

import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.board import Board, CoverPiece, Door, Wall, _cells_of_segment, cell_id


def test_ids_are_strings_numbered_per_kind():
    b = Board(10, 10)
    assert b.add_wall((0, 0), (1, 0)) == "wall-1"
    assert b.add_wall((0, 1), (1, 1)) == "wall-2"
    assert b.add_door((2, 0), (3, 0)) == "door-1"
    assert b.add_cover((4, 4), "crate") == "cover-1"
    assert b.block((5, 5)) == "cell-5-5"
    assert b.add_wall((0, 2), (1, 2), id="north") == "north"
    assert b.walls["north"] == Wall("north", (0, 2), (1, 2))
    assert b.doors["door-1"] == Door("door-1", (2, 0), (3, 0), True)
    assert b.cover_pieces["cover-1"] == CoverPiece("cover-1", (4, 4), "crate")


def test_an_id_is_never_handed_out_twice():
    b = Board(10, 10)
    b.add_wall((0, 0), (1, 0))
    b.add_wall((0, 0), (1, 0), id="wall-7")
    assert b.add_wall((0, 1), (1, 1)) == "wall-8"
    b.remove_wall("wall-8")
    assert b.add_wall((0, 1), (1, 1)) == "wall-9"


@pytest.mark.parametrize("bad", ["wall-1", "cell-1-1", ""])
def test_taken_or_reserved_ids_are_refused(bad):
    b = Board(5, 5)
    b.add_wall((0, 0), (1, 0))
    with pytest.raises(ValueError):
        b.add_wall((0, 0), (0, 1), id=bad)


def test_bad_input_is_refused_with_a_reason():
    b = Board(5, 5)
    with pytest.raises(ValueError, match="two different end points"):
        b.add_wall((1, 1), (1, 1))
    with pytest.raises(ValueError, match="finite"):
        b.add_wall((0, 0), (math.inf, 1))
    with pytest.raises(ValueError, match="off the"):
        b.block((5, 0))
    with pytest.raises(ValueError, match="positive"):
        b.set_terrain((1, 1), 0)
    with pytest.raises(ValueError):
        Board(0, 3)
    with pytest.raises(KeyError):
        b.set_door("door-9", False)
    with pytest.raises(KeyError):
        b.remove_cover("cover-1")


def test_queries():
    b = Board(4, 3)
    assert b.in_bounds((3, 2)) and not b.in_bounds((4, 0)) and not b.in_bounds((0, -1))
    b.block((1, 1))
    assert b.is_blocked((1, 1)) and not b.is_blocked((0, 0))
    b.unblock((1, 1))
    assert not b.is_blocked((1, 1))
    b.set_terrain((2, 2), 2)
    assert b.terrain_cost((2, 2)) == 2 and b.terrain_cost((0, 0)) == 1
    b.set_terrain((2, 2), 1)
    assert b.terrain_cost((2, 2)) == 1 and not b.terrain


def test_round_trip_is_exact_and_json_able():
    b = Board(12, 8)
    b.add_wall((0, 0), (3, 0))
    b.add_wall((1.25, 2.5), (7.1, 3.3), id="imported")
    b.add_door((4, 4), (5, 4), closed=False)
    b.block((2, 2))
    b.block((6, 1))
    b.set_terrain((3, 3), 2)
    b.set_terrain((0, 7), 1.5)
    b.add_cover((5, 5), "sandbags")
    d = b.to_dict()
    assert d["walls"][1] == {"id": "imported", "a": [1.25, 2.5], "b": [7.1, 3.3]}
    assert d["doors"] == [{"id": "door-1", "a": [4, 4], "b": [5, 4], "closed": False}]
    assert d["blocked"] == [[2, 2], [6, 1]]
    assert d["terrain"] == [[0, 7, 1.5], [3, 3, 2]]
    assert d["cover"] == [{"id": "cover-1", "cell": [5, 5], "material": "sandbags"}]
    again = Board.from_dict(json.loads(json.dumps(d)))
    assert again.to_dict() == d
    assert again == b
    assert again.add_wall((0, 1), (1, 1)) == "wall-2"


def test_from_dict_refuses_junk():
    with pytest.raises(ValueError):
        Board.from_dict({"width": 3})
    with pytest.raises(ValueError):
        Board.from_dict({"width": 3, "height": 3, "walls": [{"a": [0, 0], "b": [1, 0]}]})


def test_removals_and_doors_change_what_is_blocked():
    b = Board(5, 5)
    w = b.add_wall((1, 0), (1, 1))
    assert b.step_blocked((0, 0), (1, 0))
    b.remove_wall(w)
    assert not b.step_blocked((0, 0), (1, 0))
    d = b.add_door((1, 0), (1, 1))
    assert b.step_blocked((0, 0), (1, 0))
    b.set_door(d, False)
    assert not b.step_blocked((0, 0), (1, 0))
    b.set_door(d, True)
    assert b.step_blocked((1, 0), (0, 0))
    b.remove_door(d)
    assert not b.step_blocked((1, 0), (0, 0))
    c = b.add_cover((2, 2), "crate")
    b.remove_cover(c)
    assert not b.cover_pieces


class TestStepRule:
    def test_board_edge_and_blocking_cells(self):
        b = Board(3, 3)
        assert b.step_blocked((0, 0), (-1, 0))
        assert b.step_blocked((2, 2), (3, 3))
        b.block((1, 1))
        assert b.step_blocked((0, 1), (1, 1))
        assert not b.step_blocked((1, 1), (0, 1))  # stepping out of a pillar is not the step rule's business

    def test_not_adjacent_is_an_error(self):
        with pytest.raises(ValueError, match="not adjacent"):
            Board(3, 3).step_blocked((0, 0), (2, 0))

    def test_a_wall_on_an_edge_stops_only_the_steps_across_it(self):
        b = Board(4, 4)
        b.add_wall((1, 1), (2, 1))  # between (1, 0) and (1, 1)
        assert b.step_blocked((1, 0), (1, 1)) and b.step_blocked((1, 1), (1, 0))
        assert not b.step_blocked((0, 0), (0, 1))
        assert not b.step_blocked((1, 0), (2, 0))  # along the wall

    def test_no_diagonal_past_a_wall_end(self):
        b = Board(4, 4)
        b.add_wall((1, 1), (2, 1))
        assert b.step_blocked((0, 0), (1, 1))  # passes the wall's end point (1, 1)
        assert b.step_blocked((2, 0), (1, 1))  # crosses it
        assert not b.step_blocked((3, 0), (2, 1))  # the corner (3, 1) is free

    def test_no_diagonal_past_a_pillar_corner(self):
        b = Board(4, 4)
        b.block((1, 0))
        assert b.step_blocked((0, 0), (1, 1))
        assert b.step_blocked((1, 1), (0, 0))
        assert b.step_blocked((2, 1), (1, 0))
        assert not b.step_blocked((0, 1), (1, 2))

    def test_a_wall_touching_the_middle_of_an_edge_stops_the_step(self):
        b = Board(4, 4)
        b.add_wall((1, 0.5), (0.5, 0.5))  # ends on the segment between the centres of (0,0) and (1,0)
        assert b.step_blocked((0, 0), (1, 0))

    def test_a_wall_at_an_angle(self):
        b = Board(6, 6)
        b.add_wall((0.2, 3.1), (5.7, 2.3))
        assert b.step_blocked((2, 2), (2, 3))
        assert not b.step_blocked((2, 0), (2, 1))


@settings(max_examples=200, deadline=None)
@given(
    st.tuples(st.floats(-2, 12), st.floats(-2, 12)),
    st.tuples(st.floats(-2, 12), st.floats(-2, 12)),
    st.lists(st.floats(0, 1), min_size=1, max_size=6),
)
def test_every_wall_point_on_the_board_lies_in_one_of_its_bucket_cells(a, b, ts):
    board = Board(10, 10)
    try:
        board.add_wall(a, b)
    except ValueError:
        return
    s = board.segments().segs[0]
    cells = [divmod(i, 10)[::-1] for i in _cells_of_segment(s, 10, 10)]
    for t in ts + [0.0, 1.0]:
        x = s.ax + (s.bx - s.ax) * t
        y = s.ay + (s.by - s.ay) * t
        if not (0 < x < 10 and 0 < y < 10):
            continue
        assert any(cx - 1e-9 <= x <= cx + 1 + 1e-9 and cy - 1e-9 <= y <= cy + 1 + 1e-9 for cx, cy in cells), (x, y)


def test_cell_id():
    assert cell_id((3, 14)) == "cell-3-14"


def reference_step_blocked(board, a, b):
    """The step rule as the module docstring states it, checked against
    every wall: slow and plain."""
    from rules.board import segment_touches

    (x, y), (nx, ny) = a, b
    dx, dy = nx - x, ny - y
    if not board.in_bounds(b) or board.is_blocked(b):
        return True
    if dx and dy and (board.is_blocked((x + dx, y)) or board.is_blocked((x, y + dy))):
        return True
    return any(segment_touches(s, x + 0.5, y + 0.5, nx + 0.5, ny + 0.5) for s in board.segments().segs)


@st.composite
def small_boards(draw):
    b = Board(6, 6)
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.booleans()):
            x, y, n = draw(st.integers(0, 6)), draw(st.integers(0, 6)), draw(st.integers(1, 3))
            b.add_wall((x, y), (x + n, y) if draw(st.booleans()) else (x, y + n))
        else:
            pts = [draw(st.one_of(st.floats(-1, 7), st.sampled_from([0.5, 1.5, 2.0, 3.5]))) for _ in range(4)]
            if (pts[0], pts[1]) != (pts[2], pts[3]):
                b.add_wall((pts[0], pts[1]), (pts[2], pts[3]))
    for _ in range(draw(st.integers(0, 4))):
        b.block((draw(st.integers(0, 5)), draw(st.integers(0, 5))))
    return b


@settings(max_examples=150, deadline=None)
@given(small_boards())
def test_step_masks_follow_the_step_rule(board):
    from rules.board import STEPS

    for x in range(6):
        for y in range(6):
            for dx, dy in STEPS:
                b = (x + dx, y + dy)
                assert board.step_blocked((x, y), b) == reference_step_blocked(board, (x, y), b), ((x, y), b)
