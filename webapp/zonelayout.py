"""Where zones and the tokens in them are drawn when the map has no picture: a tidy grid of labelled areas.

Zones a GM drew over a picture keep their outlines; the others are laid out
here in map units, in the order they were listed, so every screen draws the
same map.
"""

from __future__ import annotations

import math

ZONE_W, ZONE_H, GAP = 6.0, 4.0, 1.5


def layout(zone_ids: list[str]) -> dict[str, tuple[float, float, float, float]]:
    """Each zone's box ``(x, y, w, h)`` on a grid about as wide as it is tall."""
    cols = max(1, math.ceil(math.sqrt(len(zone_ids))))
    return {zid: ((i % cols) * (ZONE_W + GAP), (i // cols) * (ZONE_H + GAP), ZONE_W, ZONE_H)
            for i, zid in enumerate(zone_ids)}


def size(boxes: dict) -> tuple[float, float]:
    if not boxes:
        return ZONE_W, ZONE_H
    return (max(x + w for x, y, w, h in boxes.values()), max(y + h for x, y, w, h in boxes.values()))


def token_spots(box: tuple[float, float, float, float], count: int) -> list[tuple[float, float]]:
    """Top-left corners of ``count`` one-unit tokens spread inside a zone's box (below its label)."""
    x, y, w, h = box
    per_row = max(1, int((w - 0.5) // 1.2))
    return [(x + 0.4 + (i % per_row) * 1.2, y + 1.2 + (i // per_row) * 1.3) for i in range(count)]
