"""Zone maps on the table: zones are areas of cells, laid out in a tidy grid when the map has no
picture, so tokens stand on squares inside their zone and every screen draws the same map.

A token's zone is the zone whose box holds its square; the rules count distance in zone steps.
"""

from __future__ import annotations

import math
from collections import deque

ZONE_W, ZONE_H, GAP = 7, 6, 2

#: a zone game with no map of its own: four zones in a loop, one with cover; in this order :func:`layout`'s
#: two columns draw the West side on the left and the East side on the right (#58: East was bottom-left)
DEFAULT_ZONES = [
    {"id": "west", "name": "West side", "adjacent": ["centre", "ridge"]},
    {"id": "centre", "name": "Centre", "adjacent": ["west", "east", "ridge"]},
    {"id": "ridge", "name": "Ridge", "adjacent": ["west", "centre"], "cover": "partial"},
    {"id": "east", "name": "East side", "adjacent": ["centre"]},
]


def layout(zone_ids: list[str]) -> dict[str, list[int]]:
    """Each zone's box ``[x, y, w, h]`` in cells, on a grid about as wide as it is tall."""
    cols = max(1, math.ceil(math.sqrt(len(zone_ids))))
    return {zid: [GAP // 2 + (i % cols) * (ZONE_W + GAP), GAP // 2 + (i // cols) * (ZONE_H + GAP), ZONE_W, ZONE_H]
            for i, zid in enumerate(zone_ids)}


def board_size(zones: list[dict]) -> tuple[int, int]:
    return (max(z["box"][0] + z["box"][2] for z in zones) + GAP // 2,
            max(z["box"][1] + z["box"][3] for z in zones) + GAP // 2)


def zone_at(zones: list[dict], x: int, y: int) -> dict | None:
    for z in zones:
        bx, by, bw, bh = z["box"]
        if bx <= x < bx + bw and by <= y < by + bh:
            return z
    return None


def cells_of(zone: dict):
    bx, by, bw, bh = zone["box"]
    for y in range(by + 2, by + bh):  # the top rows hold the zone's name and the names of tokens
        for x in range(bx, bx + bw):
            yield x, y


def path(zones: list[dict], a: str, b: str) -> list[str] | None:
    """The fewest zone steps from ``a`` to ``b`` (both ends included), or None when no way leads there."""
    links = {z["id"]: z.get("adjacent", []) for z in zones}
    prev: dict[str, str | None] = {a: None}
    queue = deque([a])
    while queue:
        here = queue.popleft()
        if here == b:
            out = [b]
            while prev[out[-1]] is not None:
                out.append(prev[out[-1]])
            return out[::-1]
        for nxt in links.get(here, []):
            if nxt not in prev:
                prev[nxt] = here
                queue.append(nxt)
    return None


def within(zones: list[dict], start: str, steps: float | None) -> dict[str, int]:
    """Every zone at most ``steps`` zone steps from ``start`` (None: no limit), with its distance."""
    links = {z["id"]: z.get("adjacent", []) for z in zones}
    dist = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        if steps is not None and dist[here] >= steps:
            continue
        for nxt in links.get(here, []):
            if nxt not in dist:
                dist[nxt] = dist[here] + 1
                queue.append(nxt)
    return dist
