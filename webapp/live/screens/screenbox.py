"""What the table screen shows right now, passed to the GM's page for its outline and preview (#27).

The GM's choice is stored (``set_screen_view``, webapp/game/tableside/screenview.py); what it comes to on the TV
depends on the TV (its size, its side column), so the table screen reports the box of the map it draws
(in squares) and its size in pixels, and the GM's page draws that box. Passing, never stored, like a drag
preview: the GM's page asks for a report when it opens (``{"ask": true}``), and the screen reports again
after every change.

A report is bounded as it comes (#72, T9: a screen's key sent 2,000 token ids in each report, relayed to the GM
215 times in 3 s): at most as many token ids as the game has tokens, the others refused with a word, ids of no
token of the game left out; and the GM's pages get at most one report of a game every ``RELAY_EVERY`` seconds,
the newest of those that came meanwhile at the end of it (so the outline ends where the screen's view ended).
"""

from __future__ import annotations

import math
import time
from typing import Any

from ...game.core.model import Actor, Rejected
from ...game.core.text import N_

#: the fields of a report, each with its bounds (squares for the box, CSS pixels for the sizes)
FIELDS = {"x": (-10_000, 10_000), "y": (-10_000, 10_000), "width": (0.01, 20_000), "height": (0.01, 20_000),
          "frame_w": (1, 100_000), "frame_h": (1, 100_000), "screen_w": (1, 100_000)}


MAX_TOKENS = 2_000  # webapp/game/core/model.py MAX_TOKENS
MAX_ID = 40  # a token id's length at most (webapp/game/core/model.py's ids: "t-9f3c01ab")
RELAY_EVERY = 0.25  # seconds between two reports relayed to a game's GM (a screen reports after each change)


def check(payload: Any, game=None) -> dict:
    """A report with every field a finite number in its bounds (and ``tokens``, the ids of the tokens the
    screen draws, which the GM's preview shows alone: at most as many as ``game`` has tokens, and only its
    tokens' kept), or Rejected."""
    if set(payload) - {"tokens"} != set(FIELDS):
        raise Rejected(f"a screen report has {', '.join(FIELDS)}, tokens? and nothing else")
    tokens = payload.get("tokens", [])
    if not isinstance(tokens, list) or len(tokens) > MAX_TOKENS \
            or not all(isinstance(t, str) and 0 < len(t) <= MAX_ID for t in tokens):
        raise Rejected(f"tokens: a list of at most {MAX_TOKENS} token ids")
    if game is not None:
        named = dict.fromkeys(tokens)  # a token drawn twice is named once
        if len(named) > len(game.tokens):
            raise Rejected(N_("a screen report names at most the game's %(count)d tokens; it named %(named)d"),
                           count=len(game.tokens), named=len(named))
        tokens = [t for t in named if t in game.tokens]
    out: dict = {"tokens": tokens}
    for name, (low, high) in FIELDS.items():
        value = payload[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high:
            raise Rejected(f"{name}: a number from {low} to {high}")
        out[name] = round(float(value), 4)
    return out


class Boxes:
    """The screens' reports on their way to the GM's pages, at most one a game every ``RELAY_EVERY`` seconds."""

    KEEP = 4096  # games whose last relay time is kept; past it those older than RELAY_EVERY are forgotten

    def __init__(self, socketio, room) -> None:
        self.socketio, self.room = socketio, room
        self.last: dict[str, float] = {}  # game id -> when its last report was relayed (monotonic)
        self.waiting: dict[str, dict] = {}  # game id -> the newest report not yet relayed (its timer runs)

    def relay(self, game_id: str, actor: Actor, payload: Any, game=None) -> None:
        """The screen's report to the GM's pages; the GM's ask to the table screens; anyone else is refused."""
        if actor.role == "screen":
            self.report(game_id, check(payload, game))
        elif actor.role == "gm":
            if payload != {"ask": True}:
                raise Rejected('the GM asks with {"ask": true}')
            self.socketio.emit("screen_box_ask", {}, to=self.room(game_id, "screen"))
        else:
            raise Rejected(N_("only the table screen reports what it shows"))

    def report(self, game_id: str, report: dict) -> None:
        if game_id in self.waiting:  # its timer sends the newest
            self.waiting[game_id] = report
            return
        wait = self.last.get(game_id, -math.inf) + RELAY_EVERY - time.monotonic()
        if wait <= 0:
            self._send(game_id, report)
        else:
            self.waiting[game_id] = report
            self.socketio.start_background_task(self._later, game_id, wait)

    def _later(self, game_id: str, wait: float) -> None:
        self.socketio.sleep(wait)
        report = self.waiting.pop(game_id, None)
        if report is not None:
            self._send(game_id, report)

    def _send(self, game_id: str, report: dict) -> None:
        now = time.monotonic()
        if len(self.last) >= self.KEEP:
            self.last = {g: t for g, t in self.last.items() if now - t < RELAY_EVERY}
        self.last[game_id] = now
        self.socketio.emit("screen_box", report, to=self.room(game_id, "gm"))
