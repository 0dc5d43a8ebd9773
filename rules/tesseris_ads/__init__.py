"""Tesseris (Adaptable Dice System, "ADS"): tick-based combat with dT pools,
multi-bullet fire, Stamina and Wounds, status effects and destructible cover.

Rule source: the ADS "Combat" chapter (seeds/001_cb7e89db73cf847c.txt) and the
dT facts of the seeds README. ``SYSTEM`` is what the registry loads; the
reference functions below keep their names and signatures.
"""

from __future__ import annotations

from .core import (
    burst_hits,
    cover_material,
    damage_split,
    diagonal_cost,
    dt_successes,
    max_stamina,
    range_modifier,
    wound_penalty,
)
from .system import TesserisSystem

SYSTEM = TesserisSystem()

__all__ = [
    "SYSTEM",
    "TesserisSystem",
    "burst_hits",
    "cover_material",
    "damage_split",
    "diagonal_cost",
    "dt_successes",
    "max_stamina",
    "range_modifier",
    "wound_penalty",
]
