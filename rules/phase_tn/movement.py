"""Movement in *Phase/TN Combat Sequence*: the document gives no movement rates.

Tokens move freely on the square grid and the GM rules on how far; moving
is an action like any other (declared with its length, see :mod:`.turns`).
"""

from __future__ import annotations

from ..system import RuleNotImplemented


def move_allowance(sheet: dict, action: str = "move") -> float:
    """Not automated: the document gives no movement rates."""
    raise RuleNotImplemented("phase_tn: the document gives no movement rates; the GM moves tokens")
