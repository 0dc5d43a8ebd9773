"""Tesseris (Adaptable Dice System, "ADS"): tick-based combat with dT pools,
multi-bullet fire, Stamina and Wounds, status effects and destructible cover.

Rule source: *Tesseris Combat* (the "Combat" chapter of the Tesseris wiki) and
the core dT facts it assumes (see docs/RULES.md). ``SYSTEM`` is what the
registry loads; the reference functions below keep their names and signatures.
"""

from __future__ import annotations

from .attack import burst_hits, range_modifier
from .checks import dt_successes, wound_penalty
from .cover import cover_material
from .health import damage_split
from .movement import diagonal_cost
from .sheet import max_stamina
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
