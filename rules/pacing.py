"""The pacer of a big map's long loops (#69): between two slices of a map's parts (a board built from its data or
written out, a request's text checked, a map validated or drawn), a server on one loop lets its other tables go
first. The rules know no server: the live side installs what a turn is (``set_pacer``:
webapp/live/server/geometry.py ``loop_pacer``); without one, every loop runs straight through."""

from __future__ import annotations

from typing import Callable

#: items of a big map's parts (walls, doors, cells) between two of the pacer's turns (``paced``)
PACE_EVERY = 1000
_pacer: Callable[[], None] | None = None


def set_pacer(pacer: Callable[[], None] | None) -> None:
    """What ``paced`` calls between slices of a big map's parts (a board built from its data, its data written
    out): a server on one loop lets its other tables go first there (webapp/live/server/geometry.py ``pause``,
    #69); None (the default): nothing, the loop runs straight through."""
    global _pacer
    _pacer = pacer


def pace() -> None:
    """One turn of the pacer, if any (a caller's own long loop over a map's parts, every ``PACE_EVERY`` items)."""
    if _pacer is not None:
        _pacer()


def paced(items):
    """``items``, with the pacer's turn every ``PACE_EVERY`` of them (nothing more without a pacer)."""
    if _pacer is None:
        return items
    return _paced(items, _pacer)


def _paced(items, pacer):
    for i, item in enumerate(items, 1):
        yield item
        if i % PACE_EVERY == 0:
            pacer()
