"""Zone moves of *Atomic Tomorrow Combat*.

Section "ACTION ECONOMY": each round a character may move within their
zone or to an adjacent zone (``MOVE_ZONES`` zone steps). The app measures
the zone distance on its ``rules.zones.ZoneMap``; moving never provokes an
attack in this document.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..system import RuleError
from ..text import say
from .data import MOVE_ZONES


def move_allowance(sheet: Mapping | None = None, action: str = "move") -> int:
    """Section "ACTION ECONOMY": one move a round, at most ``MOVE_ZONES`` zone steps, whoever moves."""
    if action != "move":
        raise RuleError(say("Atomic Tomorrow has one move a round, no {action}", action=repr(action)))
    return MOVE_ZONES


def check_move(zone_distance: int | None) -> None:
    """Section "ACTION ECONOMY": a move stays in the zone or goes to an adjacent one."""
    if zone_distance is None:
        raise RuleError(say("no way between those zones"))
    if isinstance(zone_distance, bool) or not isinstance(zone_distance, int):
        raise RuleError(say("a zone distance is a whole number of steps, not {value}", value=repr(zone_distance)))
    if zone_distance < 0:
        raise RuleError(say("a zone distance is 0 or more, not {value}", value=zone_distance))
    if zone_distance > MOVE_ZONES:
        raise RuleError(say("a move reaches only the same or an adjacent zone; that zone is {n} steps away", n=zone_distance))
