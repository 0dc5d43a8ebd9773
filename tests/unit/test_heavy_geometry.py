"""Issue #57: a big map's geometry runs on a snapshot of the board, off the loop while a command holds its game's
lock; what it built is kept on the board only while the board is unchanged; the walls' drawing is kept by what
it is drawn from."""

from __future__ import annotations

import threading
import time

import pytest

from rules.board import Board
from rules.grid import Grid
from rules.hexgeom import hex_steps
from rules.los import visible_cells
from rules.movement import indexes, way_exists
from webapp.game.bridge import heavy
from webapp.live.screens.drawing import Drawing

from tests.helpers import in_another_thread


def walled(width: int = 120, height: int = 110) -> Board:
    board = Board(width, height)
    for y in range(0, height - 2, 2):
        board.add_wall((10, y), (10, y + 1))
    board.add_door((20, 0), (20, height), closed=True, id="gate")
    return board


@pytest.fixture
def threaded():
    """A runner that runs the work in another native thread, as gevent's pool does; the calls it ran."""
    ran = []
    runner = in_another_thread(ran)
    heavy.install(runner)
    yield ran
    heavy.install(None)


def test_a_snapshot_shares_no_container_the_board_changes():
    board = walled(20, 20)
    board.segments()
    copy = board.snapshot()
    board.add_wall((1, 1), (1, 2), id="late")
    board.block((5, 5))
    board.set_door("gate", False)
    assert "late" not in copy.walls and (5, 5) not in copy.blocked and copy.doors["gate"].closed
    assert copy.indexed("segments")  # the index built before was handed over, not built again
    assert len(copy.segments().segs) == len(walled(20, 20).segments().segs)


def test_indexes_built_on_a_snapshot_are_kept_while_the_board_is_unchanged():
    board = walled(20, 20)
    copy = board.snapshot()
    copy.segments(), copy.step_masks()
    board.adopt(copy)
    assert board.segments() is copy.segments() and board.step_masks() is copy.step_masks()


@pytest.mark.parametrize("change", [
    lambda b: b.add_wall((3, 3), (3, 4)),
    lambda b: b.set_door("gate", False),
    lambda b: b.block((7, 7)),
    lambda b: b.remove_door("gate"),
])
def test_indexes_built_on_a_snapshot_are_dropped_once_a_wall_or_door_changed(change):
    board = walled(20, 20)
    copy = board.snapshot()
    copy.segments(), copy.step_masks()
    change(board)
    board.adopt(copy)
    assert not board.indexed("segments") and not board.indexed("steps")
    assert board.segments() is not copy.segments()  # built again, for the board as it is


def test_big_geometry_leaves_the_loop_only_while_a_command_holds_its_game(threaded):
    board = walled()
    assert board.width * board.height >= heavy.MIN_SQUARES
    assert heavy.on_board(board, visible_cells, (50, 50)) == visible_cells(board, (50, 50))
    assert threaded == []  # not committing (a page, a question): right here
    with heavy.while_committing():
        seen = heavy.on_board(board, visible_cells, (50, 50))
        assert heavy.on_board(board, way_exists, (0, 0), (119, 109)) is False  # the closed gate
    assert [(work, other) for work, other in threaded] == [(visible_cells, True), (way_exists, True)]
    assert seen == visible_cells(board, (50, 50))
    assert board.indexed("segments") and board.indexed("steps")  # built off the loop, kept


def test_small_boards_keep_their_geometry_on_the_loop(threaded):
    board = walled(60, 60)
    with heavy.while_committing():
        heavy.on_board(board, visible_cells, (5, 5))
        assert heavy.run(board, len, [1, 2]) == 2
    assert threaded == []


def test_geometry_run_off_the_loop_on_an_old_snapshot_is_not_kept_on_the_changed_board(threaded):
    board = walled()

    def slow_index(snapshot):  # the board changes while its snapshot's index is built
        board.set_door("gate", False)
        return snapshot.segments()
    with heavy.while_committing():
        old = heavy.on_board(board, slow_index)
    assert any(s.id == "gate" for s in old.segs)  # the closed gate, as the snapshot had it
    assert not any(s.id == "gate" for s in board.segments().segs)  # the board's own: the gate open


def test_the_walls_drawing_is_kept_by_what_each_wall_is_drawn_from():
    drawing = Drawing()
    walls = [{"id": "wall-1", "a": [0, 0], "b": [1, 0]}, {"id": "wall-2", "a": [1, 0], "b": [1, 1]}]
    first = drawing.wall_paths(walls, ids=True)
    assert drawing.wall_paths(walls, ids=True) is first  # the same list: the same drawing
    assert str(drawing.wall_paths([dict(w) for w in walls], ids=True)) == str(first)
    assert 'd="M0 0L1 0M1 0L1 1" data-walls="wall-1 wall-2"' in first
    assert "data-walls" not in drawing.wall_paths(walls)  # the ids for the GM's eraser alone
    moved = [walls[0], {"id": "wall-2", "a": [1, 0], "b": [2, 1]}]
    assert "L2 1" in drawing.wall_paths(moved) and "L2 1" not in first
    walls.append({"id": "wall-3", "a": [5, 5], "b": [6, 5]})  # a list grown in place is drawn again
    assert "wall-3" in drawing.wall_paths(walls, ids=True)


def test_the_walls_of_a_tile_are_one_path_their_ids_in_their_order():
    drawing = Drawing()
    walls = [{"id": f"w{i}", "a": [i * 20, 3], "b": [i * 20 + 1, 3]} for i in range(5)]  # tiles 0, 0, 1, 1, 2
    html = str(drawing.wall_paths(walls, ids=True))
    assert html.count("<path") == 3
    assert 'd="M0 3L1 3M20 3L21 3" data-walls="w0 w1"' in html and 'data-walls="w4"' in html


def _warmed(board: Board) -> None:
    """Until the indexes ``heavy.warm`` is building for ``board`` are built (or let go)."""
    ahead = heavy._WARMING.get(id(board))
    if ahead is not None:
        assert ahead[1].wait(30)


def test_a_big_boards_indexes_are_built_ahead_off_the_loop_and_kept(threaded):
    board = walled()
    heavy.warm(board, indexes)
    _warmed(board)
    assert board.indexed("segments") and board.indexed("steps")
    assert [work.__name__ for work, other in threaded] == ["indexes"] and threaded[0][1]  # in another thread
    assert board.step_masks() == walled().step_masks()  # the same masks as built in place
    heavy.warm(board, indexes)  # built already: nothing more
    assert len(threaded) == 1


def test_a_hex_boards_steps_are_built_ahead_too(threaded):
    board = Board(120, 110, grid=Grid("hex", "pointy"))
    board.add_wall((10, 2), (10, 40))
    heavy.warm(board, indexes)
    _warmed(board)
    assert board.indexed("hex_steps") and hex_steps(board) == hex_steps(Board.from_dict(board.to_dict()))


def test_no_index_is_built_ahead_for_a_small_board_or_without_a_runner(threaded):
    small = walled(60, 60)
    heavy.warm(small, indexes)
    assert not small.indexed("steps") and threaded == []
    heavy.install(None)
    big = walled()
    heavy.warm(big, indexes)
    assert not big.indexed("steps")


def test_indexes_built_ahead_of_a_board_changed_meanwhile_are_let_go(threaded):
    board = walled()
    started, go = threading.Event(), threading.Event()

    def slow(snapshot):
        started.set()
        assert go.wait(30)
        indexes(snapshot)
    heavy.warm(board, slow)
    assert started.wait(30)
    board.add_wall((50, 50), (50, 60))  # a wall drawn while they are built
    go.set()
    _warmed(board)
    assert not board.indexed("steps")  # built for the board before the wall: not kept
    assert board.step_masks() == board.snapshot(indexes=False).step_masks()


def test_a_move_off_the_loop_waits_for_the_indexes_being_built_and_reads_them(threaded):
    board = walled()
    started, go = threading.Event(), threading.Event()
    built = []

    def slow(snapshot):
        started.set()
        assert go.wait(30)
        indexes(snapshot)
        built.append(snapshot.step_masks())
    heavy.warm(board, slow)
    assert started.wait(30)
    answers = []

    def move():  # as a command does, holding its game's lock
        with heavy.while_committing():
            answers.append(heavy.on_board(board, lambda b: (way_exists(b, (0, 0), (15, 0)), b.step_masks())))
    mover = threading.Thread(target=move)
    mover.start()
    time.sleep(0.2)
    assert answers == []  # waiting for the indexes, not building them a second time
    go.set()
    mover.join(30)
    assert answers == [(True, built[0])] and answers[0][1] is built[0]  # the masks built ahead, read by the move
