"""Cover in *Phase/TN Combat Sequence*: the document gives no cover modifier.

What cover does here is hide body areas: the GM lists the covered areas
of a shot as ``impossible_locations``, and a hit on one moves along the
document's drift order ("Ranged Attacks": "This can also be used if an
impossible location is rolled"), see :func:`.targeting.first_possible_location`.
"""

from __future__ import annotations

from typing import Any

from ..system import CoverEffect, RuleNotImplemented
from ..text import say


def cover_effect(cover: Any) -> CoverEffect:
    """Not automated as a modifier: list covered locations as impossible_locations."""
    raise RuleNotImplemented(
        say("Phase/TN: the document gives no cover modifier; list covered locations as impossible_locations")
    )
