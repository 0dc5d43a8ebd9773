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

import logging
import threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Callable

log = logging.getLogger(__name__)

#: squares a board has at least for its geometry to leave the loop (110 x 110): below it a view or a path takes a
#: few milliseconds at most, less than the hand-over to a thread costs a busy loop
MIN_SQUARES = 12_000

_runner: Callable | None = None  # runner(work, *args) -> work(*args), run off the loop (``install``)
_breathe: Callable[[], None] | None = None  # the live side's pacer of work off the loop (``install_breathe``)
_COMMITTING: ContextVar[bool] = ContextVar("heavy_committing", default=False)
#: the boards whose indexes are being built ahead (``warm``): id(board) -> (the board's version, set when done)
_WARMING: dict[int, tuple[int, threading.Event]] = {}


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
    ahead = _WARMING.get(id(board))
    if ahead is not None and ahead[0] == board.version:  # its indexes are being built: this work reads them
        ahead[1].wait()
    snapshot = board.snapshot()
    out = _runner(work, snapshot, *args)
    board.adopt(snapshot)
    return out


def warm(board, build: Callable) -> None:
    """``build(board)`` (the indexes a move reads: ``rules.movement.indexes``) started now off the loop, in the
    runner's thread on a snapshot, and what it built kept on ``board`` if the board is unchanged by then; nothing
    when the board is small, its indexes are built already, or they are being built. Work on this board that leaves
    the loop meanwhile (``on_board``) waits for it first (it would build the same), so the GM's first drag on a big
    map just made, imported, edited or loaded (hundreds of ms on the largest) finds them built; nothing else waits:
    a command that changes the board goes on, and what was built for the board before it is let go."""
    runner = _runner
    if runner is None or board.width * board.height < MIN_SQUARES or board.indexed("steps"):
        return
    key, version = id(board), board.version
    ahead = _WARMING.get(key)
    if ahead is not None and ahead[0] == version:
        return
    done = threading.Event()
    _WARMING[key] = (version, done)

    def run() -> None:
        try:
            snapshot = board.snapshot()
            runner(build, snapshot)
            board.adopt(snapshot)
        except Exception:  # noqa: BLE001 (a head start only: the work that needs them builds them)
            log.warning("a board's indexes were not built ahead", exc_info=True)
        finally:
            done.set()
            if _WARMING.get(key, (None, None))[1] is done:
                del _WARMING[key]
    threading.Thread(target=run, name="warm", daemon=True).start()


def run(board, work: Callable, *args):
    """``work(*args)`` in the runner's thread when ``leaves_loop(board)``, else right here: for work on plain values
    (``args`` not changed meanwhile: a view's squares, a board's data), as big as ``board`` says."""
    if not leaves_loop(board):
        return work(*args)
    return _runner(work, *args)
