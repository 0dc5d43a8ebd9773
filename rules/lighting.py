"""Light and darkness on a square grid: which squares a light reaches, and what a token sees in the dark.

Pure: a :class:`~rules.board.Board` and plain numbers in, sets of squares out. Sight itself is
:func:`rules.los.visible_cells` (walls, closed doors and blocking squares stop light as they stop
sight); this module only adds how far light and dark vision go.

- A light at a point (x, y) in squares shines from the square holding that point, as far as
  ``range`` squares (centre to centre): it lights every square it can see within that distance.
- In the **dark**, a token sees the squares it has a line of sight to that are lit, plus those
  within its own light or its dark vision (both counted from the squares it covers), and always
  the squares it stands on.
- **Bright** and **dim** ambient light leave sight as it is (see :data:`DARK_VISION` for what each
  system's rules say of dim light: none of the five documents gives a penalty for it).

Each system's dark vision is read from its rule document (:data:`DARK_VISION`); where a document is
silent it is none, and the app says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .board import Board
from .los import visible_cells

AMBIENTS = ("bright", "dim", "dark")


@dataclass(frozen=True)
class DarkVision:
    """What a system's rules say of seeing in the dark and in dim light."""

    squares: float  # how far every token of the system sees without light (0: none)
    dark: str  # the reading, with the document and section it rests on
    dim: str  # what dim light does under these rules


_SILENT_DIM = "treated as bright light: the document gives no penalty for dim light"

#: system id -> its dark vision and dim light, each cited by the document's title and section
DARK_VISION: dict[str, DarkVision] = {
    "atomic_tomorrow": DarkVision(
        0, "none: \"Atomic Tomorrow Combat\" says nothing of light or darkness (its sections are Core "
           "Combat System, Attack & Defense, Damage & Wounds, Protective Equipment)", _SILENT_DIM),
    "tesseris_ads": DarkVision(
        0, "none: Tesseris \"Combat\" says nothing of darkness; its Physical Status Effects \"Blinded\" "
           "(unable to see) and its Attacks modifier \"Firing Blind\" are the GM's to apply, not the "
           "map's", _SILENT_DIM),
    "phase_tn": DarkVision(
        0, "none: the phase / target-number combat chapter says nothing of light (Combat Sequence, "
           "Ranged Attacks: a Targeting holds while \"the target remains in view\", nothing more)",
        _SILENT_DIM),
    "gurps_lite": DarkVision(
        0, "none: the 3d6 combat rules (Turn Order, Attacking, Ranged Attacks, Defending, Maneuvers) "
           "say nothing of darkness or night vision", _SILENT_DIM),
    "savage_worlds": DarkVision(
        0, "none: the \"Combat System Reference\" has no Illumination section (its Additional Combat "
           "Rules name no darkness penalty) and no low-light vision", _SILENT_DIM),
}
UNKNOWN = DarkVision(0, "none: this system's rules say nothing of darkness", _SILENT_DIM)


def dark_vision(system_id: str) -> DarkVision:
    """The system's dark vision (none for a system not listed)."""
    return DARK_VISION.get(system_id, UNKNOWN)


def light_cell(board: Board, x: float, y: float) -> tuple[int, int] | None:
    """The square a light at point (x, y) shines from; None when the point is off the board."""
    cx, cy = math.floor(x), math.floor(y)
    cx = min(cx, board.width - 1) if x == board.width else cx  # a light on the far edge: the last square
    cy = min(cy, board.height - 1) if y == board.height else cy
    return (cx, cy) if board.in_bounds((cx, cy)) else None


def reach(board: Board, cell: tuple[int, int], radius: float) -> frozenset:
    """The squares a light (or dark vision) of ``radius`` squares in ``cell`` reaches: those it sees
    within that distance. A light inside a blocking square reaches that square alone; radius 0 too."""
    if not board.in_bounds(cell):
        return frozenset()
    if radius <= 0 or board.is_blocked(cell):
        return frozenset({cell})
    return frozenset(visible_cells(board, cell, radius))


def lit_squares(board: Board, lights) -> frozenset:
    """Every square the lights reach; ``lights``: ``(x, y, range)`` points in squares (range 0: unlit)."""
    out: set = set()
    for x, y, radius in lights:
        cell = light_cell(board, x, y)
        if cell is not None and radius > 0:
            out |= reach(board, cell, radius)
    return frozenset(out)


def seen_in_dark(sight, own: frozenset, lit: frozenset, standing) -> frozenset:
    """What a token sees in the dark: of the squares in its line of ``sight``, the ``lit`` ones and
    those ``own`` light or dark vision reaches (:func:`reach` from each of its squares), and the
    ``standing`` squares it covers."""
    return frozenset(c for c in sight if c in lit) | own | frozenset(standing)
