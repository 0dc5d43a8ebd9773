"""The GM's suggestions for a foe (#60), reckoned off the loop.

Reckoning a foe's plans judges tens of attacks by the rules' exact odds: tens of milliseconds of pure Python,
more on a big map. It never runs inside a command (a move never waits for it): the GM page asks for it (``GET
/api/games/<id>/suggestions/<token>``), and it runs on a copy of the game (``foe_sandbox.frozen``, taken on the
loop without a switch, sharing nothing the loop may change) in a worker process (``server/workers.py``: the
loop's thread never shares the GIL with it) while the asking greenlet waits, so every table goes on at its own
pace meanwhile. A worker keeps the indexes it built on a game's board for the next reckoning on the same board
(``reckoned``). Where no worker process can start, the reckoning runs in a native thread of gevent's pool, and
lets the loop's thread go first at its breaths (``fairness.Pacer``).
The pool is shared fairly between GMs and between games (``fairness.Fair``: one queue per game, bounded, and
per GM, one client address over all the games it asks plans of (``asker``), bounded too; GMs served in turn and
a GM's games in turn, one reckoning of a GM and of a game at a time); past a bound the request is refused
(``fairness.Busy``: 429, "busy, try again"). Without gevent (the app tests, the command-line tools) it runs where
it is asked, the same queues kept.
"""

from __future__ import annotations

import ipaddress
import threading
from collections import OrderedDict

from flask import has_request_context, request

from ...game.bridge import heavy
from ...game.planning import foe_sandbox, suggestions
from . import fairness
from ..server import geometry, workers
from .fairness import Busy  # noqa: F401 (the routes catch it from here)
from ..screens.language import words

#: seconds a refused asker is told to wait (Retry-After)
RETRY_AFTER = 1
#: boards a worker process keeps with the indexes it built on them, the last reckoned on first (``reckoned``)
KEPT_BOARDS = 8
_FAIR: list = []  # [Fair], made at first use (``install``: another runner)
_APART: list = []  # [True] when the plans are reckoned in worker processes (their copies sent without indexes)
_MAKING = threading.Lock()  # gevent's under ``tacmap serve``: the first askers wait for the one making the pool
_KEPT: "OrderedDict[str, object]" = OrderedDict()  # in a worker: game id -> the board last reckoned on


def fair() -> fairness.Fair:
    if not _FAIR:  # made at first use, on the loop's thread
        with _MAKING:
            if not _FAIR:
                _FAIR.append(fairness.Fair(_runner()))
    return _FAIR[0]


def _runner():
    """Worker processes under ``tacmap serve`` (``workers.runner``); where none can start, gevent's native threads,
    the loop's thread going first (``fairness.Pacer``); None without gevent."""
    runner = workers.runner(fairness.THREADS, preload=(__name__,))  # each worker ready to reckon at once
    if runner is not None:
        _APART[:] = [True]
        return runner
    runner = geometry.runner(fairness.THREADS)
    if runner is not None:
        heavy.install_breathe(fairness.Pacer().breathe)
    return runner


def install(runner, threads: int = fairness.THREADS, per_game: int = fairness.PER_GAME,
            per_gm: int = fairness.PER_GM) -> None:
    """Where the reckoning runs: ``runner(work, *args)`` returns ``work(*args)`` (or raises what it raised), run in
    a native thread while the asking greenlet waits; None: gevent's pool under ``tacmap serve``, else right here."""
    _FAIR[:] = [fairness.Fair(runner, threads, per_game, per_gm)] if runner is not None else []
    _APART.clear()


def asker() -> str:
    """The client address this request comes from (the peer, or whom a trusted proxy forwarded for: the GM whose
    share it takes, ``fairness``); "" outside a request."""
    return (request.remote_addr or "") if has_request_context() else ""


def gm_of(address: str) -> str | None:
    """The GM an address is, for ``fairness.Fair``: the address; None for none or a loopback one (the server's own
    machine, or an untrusted proxy on it, everyone's: each game its own GM)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return None
    if ip.is_loopback or (ip.version == 6 and ip.ipv4_mapped is not None and ip.ipv4_mapped.is_loopback):
        return None
    return str(ip)


def plans(game, token_id: str, language: str | None = None, said: bool = True, by: str | None = None) -> dict:
    """``suggestions.reckon`` for ``token_id`` on a copy of ``game``, off the loop where the server has one, in the
    game's turn among its GM's games, in the GM's turn (``fairness.Fair``; the GM: ``by``, the client address that
    asks, None: this request's, ``asker``), its words said in ``language`` (``said`` False: its words as the rules'
    words, for an event to keep), with the ``seq`` of the state they were reckoned on (#67: a step sent with it as
    its ``reckoned_at`` is refused once the game has changed since). Rejected and NotReckoned as ``reckon`` raises
    them; ``Busy`` when the game, or its GM over all the games it asks of, has as many plan requests under way as
    it may."""
    shares = fair()
    copy = foe_sandbox.frozen(game, indexes=not _APART)  # a worker process keeps its own (``reckoned``)
    found = shares.run(game.id, reckoned, copy, token_id, gm=gm_of(asker() if by is None else by))
    game.board.adopt(copy.board)  # the indexes built on the copy are kept, if the board is unchanged (in this process)
    found = {**found, "seq": copy.seq}  # the state they were reckoned on: a step sent with it is refused once stale (#67)
    return words(found, language) if said else found


def reckoned(copy, token_id: str) -> dict:
    """``suggestions.reckon(copy, token_id)``; in a worker process (``workers.serve``), on the board it reckoned
    on last for this game when the copy's is the same (its walls, doors, terrain, cover), with the indexes it built
    there (a big map's are seconds to build), kept for ``KEPT_BOARDS`` games."""
    if workers.in_worker():
        kept = _KEPT.pop(copy.id, None)
        if kept is not None and kept == copy.board:
            copy.board = kept
        _KEPT[copy.id] = copy.board
        while len(_KEPT) > KEPT_BOARDS:
            _KEPT.popitem(last=False)
    return suggestions.reckon(copy, token_id)
