"""What the table screen shows right now, passed to the GM's page for its outline and preview (#27).

The GM's choice is stored (``set_screen_view``, webapp/game/screenview.py); what it comes to on the TV
depends on the TV (its size, its side column), so the table screen reports the box of the map it draws
(in squares) and its size in pixels, and the GM's page draws that box. Passing, never stored, like a drag
preview: the GM's page asks for a report when it opens (``{"ask": true}``), and the screen reports again
after every change.
"""

from __future__ import annotations

import math
from typing import Any

from ..game.model import Actor, Rejected
from ..game.text import N_

#: the fields of a report, each with its bounds (squares for the box, CSS pixels for the sizes)
FIELDS = {"x": (-10_000, 10_000), "y": (-10_000, 10_000), "width": (0.01, 20_000), "height": (0.01, 20_000),
          "frame_w": (1, 100_000), "frame_h": (1, 100_000), "screen_w": (1, 100_000)}


MAX_TOKENS = 2_000  # webapp/game/model.py MAX_TOKENS


def check(payload: Any) -> dict:
    """A report with every field a finite number in its bounds (and ``tokens``, the ids of the tokens the
    screen draws, which the GM's preview shows alone), or Rejected."""
    if set(payload) - {"tokens"} != set(FIELDS):
        raise Rejected(f"a screen report has {', '.join(FIELDS)}, tokens? and nothing else")
    tokens = payload.get("tokens", [])
    if not isinstance(tokens, list) or len(tokens) > MAX_TOKENS \
            or not all(isinstance(t, str) and 0 < len(t) <= 64 for t in tokens):
        raise Rejected(f"tokens: a list of at most {MAX_TOKENS} token ids")
    out: dict = {"tokens": tokens}
    for name, (low, high) in FIELDS.items():
        value = payload[name]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
                or not low <= value <= high:
            raise Rejected(f"{name}: a number from {low} to {high}")
        out[name] = round(float(value), 4)
    return out


def relay(socketio, room, game_id: str, actor: Actor, payload: Any, sid: str) -> None:
    """The screen's report to the GM's pages; the GM's ask to the table screens; anyone else is refused."""
    if actor.role == "screen":
        socketio.emit("screen_box", check(payload), to=room(game_id, "gm"))
    elif actor.role == "gm":
        if payload != {"ask": True}:
            raise Rejected('the GM asks with {"ask": true}')
        socketio.emit("screen_box_ask", {}, to=room(game_id, "screen"))
    else:
        raise Rejected(N_("only the table screen reports what it shows"))
