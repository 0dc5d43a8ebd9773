"""The GM's suggestions for a foe (#60), reckoned off the loop.

Reckoning a foe's plans judges tens of attacks by the rules' exact odds: tens of milliseconds of pure Python,
more on a big map. It never runs inside a command (a move never waits for it): the GM page asks for it (``GET
/api/games/<id>/suggestions/<token>``), and it runs on a copy of the game (``suggestions.frozen``, taken on the
loop without a switch) in a native thread of its own while the asking greenlet waits, as a big map's geometry
does (``geometry.runner``): the loop's thread takes the GIL back every switch interval, so every table goes on
meanwhile. Without gevent (the app tests, the command-line tools) it runs where it is asked.
"""

from __future__ import annotations

from ..game import suggestions
from . import geometry
from .language import words

_RUN: list = []  # [runner or None], made at first use (``install``: another)


def _runner():
    if not _RUN:
        _RUN.append(geometry.runner())
    return _RUN[0]


def install(runner) -> None:
    """Where the reckoning runs: ``runner(work, *args)`` returns ``work(*args)`` (or raises what it raised), run in
    a native thread while the asking greenlet waits; None: gevent's pool under ``tacmap serve``, else right here."""
    _RUN[:] = [runner] if runner is not None else []


def plans(game, token_id: str, language: str | None = None) -> dict:
    """``suggestions.reckon`` for ``token_id`` on a copy of ``game``, off the loop where the server has one, its
    words said in ``language``. Rejected and NotReckoned as ``reckon`` raises them."""
    copy = suggestions.frozen(game)
    run = _runner()
    found = run(suggestions.reckon, copy, token_id) if run is not None else suggestions.reckon(copy, token_id)
    game.board.adopt(copy.board)  # the indexes built on the copy are kept, if the board is unchanged
    return words(found, language)
