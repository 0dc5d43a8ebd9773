"""Geometry that takes long on a big map, run off the server's loop where the server lets it (issue #57).

On the largest map the limits accepted before #69 (150 x 150 squares, 10,000 wall segments) one token's field of
view takes 50-350 ms, a corner-to-corner path tens of ms and the board's step index 80-300 ms of pure Python. Under
``tacmap serve`` everything runs on one gevent loop, so that time was every table's wait. Here such work runs on
a snapshot of the board (``Board.snapshot``: nothing it reads can change meanwhile) in a native thread the live
side provides (``install``); the loop's thread takes the GIL back every switch interval, so the other tables go on
while it runs. What the work built on the snapshot (the board's indexes) is kept on the board if it is unchanged
(``Board.adopt``).

Only where the caller holds its game's lock (``while_committing``: the commit path, where a command is decided,
applied and drawn) does the work leave the loop: the command's greenlet waits for it with the lock held, so the
game's commands keep their order and no other greenlet changes this game meanwhile, while the other games go on.
Elsewhere (a page drawn, a question answered without a commit), on a small board and without a runner (the app
tests, the command-line tools), the work runs where it is asked, as before.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable

#: squares a board has at least for its geometry to leave the loop (110 x 110): below it a view or a path takes a
#: few milliseconds at most, less than the hand-over to a thread costs a busy loop
MIN_SQUARES = 12_000

_runner: Callable | None = None  # runner(work, *args) -> work(*args), run off the loop (``install``)
_breathe: Callable[[], None] | None = None  # the live side's pacer of work off the loop (``install_breathe``)
_COMMITTING: ContextVar[bool] = ContextVar("heavy_committing", default=False)


def install(runner: Callable | None) -> None:
    """Where heavy work runs: ``runner(work, *args)`` returns ``work(*args)`` (or raises what it raised), run in a
    native thread while the calling greenlet waits; None: right here."""
    global _runner
    _runner = runner


def install_breathe(pacer: Callable[[], None] | None) -> None:
    """What ``breathe`` calls: the live side's pacer (``webapp/live/foes/fairness.py``, ``Pacer``); None: nothing."""
    global _breathe
    _breathe = pacer


def breathe() -> None:
    """A point in long pure-Python work (the foes' plans, #72) where a thread off the loop may let the loop's
    thread run first: under the GIL a thread that runs takes turns with the loop, and every table's moves would
    wait their turn. Nothing on the loop itself, nor without a pacer."""
    if _breathe is not None:
        _breathe()


@contextmanager
def while_committing():
    """Within this block the caller holds its game's lock: heavy work may leave the loop (``on_board``)."""
    token = _COMMITTING.set(True)
    try:
        yield
    finally:
        _COMMITTING.reset(token)


def leaves_loop(board) -> bool:
    """Whether ``on_board`` would run work on ``board`` off the loop here and now."""
    return (_runner is not None and _COMMITTING.get()
            and board.width * board.height >= MIN_SQUARES)


def on_board(board, work: Callable, *args):
    """``work(board, *args)``: on a snapshot of ``board`` in the runner's thread when ``leaves_loop(board)`` (what
    it built on the snapshot kept on the board), else right here. ``work`` reads only what it is given."""
    if not leaves_loop(board):
        return work(board, *args)
    snapshot = board.snapshot()
    out = _runner(work, snapshot, *args)
    board.adopt(snapshot)
    return out


def run(board, work: Callable, *args):
    """``work(*args)`` in the runner's thread when ``leaves_loop(board)``, else right here: for work on plain values
    (``args`` not changed meanwhile: a view's squares, a board's data), as big as ``board`` says."""
    if not leaves_loop(board):
        return work(*args)
    return _runner(work, *args)
