"""Zone boards, for systems that place tokens in named zones instead of cells.

A zone has a name, an outline (points in map-picture units, only for
drawing it) and tags such as its cover level (``{"cover": "partial"}``).
Zones are joined by adjacency (both ways); the distance between two zones
is the least number of steps from zone to adjacent zone. Each token stands
in at most one zone.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Mapping

from .text import say


@dataclass(frozen=True)
class Zone:
    name: str
    outline: tuple = ()
    tags: Mapping = field(default_factory=lambda: MappingProxyType({}))

    def to_dict(self) -> dict:
        return {"name": self.name, "outline": [list(p) for p in self.outline], "tags": dict(self.tags)}


def _outline(points) -> tuple:
    out = []
    for p in points or ():
        try:
            x, y = p
        except (TypeError, ValueError):
            raise ValueError(say("an outline point is a pair (x, y), not {value}", value=repr(p))) from None
        if any(isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) for v in (x, y)):
            raise ValueError(say("an outline point has finite numbers, not {value}", value=repr(p)))
        out.append((x, y))
    return tuple(out)


class ZoneMap:
    """Named zones, their adjacency, and which token stands in which zone."""

    def __init__(self) -> None:
        self._zones: dict[str, Zone] = {}
        self._adjacent: dict[str, set[str]] = {}
        self._token_zone: dict[str, str] = {}

    # zones ------------------------------------------------------------------

    @property
    def zones(self) -> Mapping[str, Zone]:
        return MappingProxyType(self._zones)

    def _known(self, name: str) -> str:
        if name not in self._zones:
            known = ", ".join(self._zones) or "none yet"
            raise KeyError(f"no zone {name!r} (zones: {known})")
        return name

    def add_zone(self, name: str, outline=(), tags: dict | None = None) -> Zone:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(say("a zone's name is a non-empty string, not {value}", value=repr(name)))
        if name in self._zones:
            raise ValueError(say("there is already a zone {name}", name=repr(name)))
        if tags is not None and not isinstance(tags, dict):
            raise ValueError(say("a zone's tags are a table, not {value}", value=repr(tags)))
        zone = Zone(name, _outline(outline), MappingProxyType(dict(tags or {})))
        self._zones[name] = zone
        self._adjacent[name] = set()
        return zone

    def set_tags(self, name: str, tags: dict) -> Zone:
        """Replace a zone's tags (its cover level, ...)."""
        old = self._zones[self._known(name)]
        zone = Zone(name, old.outline, MappingProxyType(dict(tags)))
        self._zones[name] = zone
        return zone

    def tag(self, name: str, key: str, default=None):
        return self._zones[self._known(name)].tags.get(key, default)

    def remove_zone(self, name: str) -> None:
        """Remove a zone, its links, and the placement of tokens in it."""
        self._known(name)
        for other in self._adjacent.pop(name):
            self._adjacent[other].discard(name)
        del self._zones[name]
        for token in [t for t, z in self._token_zone.items() if z == name]:
            del self._token_zone[token]

    # adjacency --------------------------------------------------------------

    def connect(self, a: str, b: str) -> None:
        self._known(a)
        self._known(b)
        if a == b:
            raise ValueError(say("a zone is not adjacent to itself ({name})", name=repr(a)))
        self._adjacent[a].add(b)
        self._adjacent[b].add(a)

    def disconnect(self, a: str, b: str) -> None:
        self._known(a)
        self._known(b)
        self._adjacent[a].discard(b)
        self._adjacent[b].discard(a)

    def adjacent(self, name: str) -> list[str]:
        return sorted(self._adjacent[self._known(name)])

    def zone_distance(self, a: str, b: str) -> int | None:
        """Least number of steps between zones (0 for the same zone), or
        None when there is no way from one to the other."""
        self._known(a)
        self._known(b)
        if a == b:
            return 0
        seen = {a}
        queue = deque([(a, 0)])
        while queue:
            zone, d = queue.popleft()
            for nxt in self._adjacent[zone]:
                if nxt == b:
                    return d + 1
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, d + 1))
        return None

    # tokens -----------------------------------------------------------------

    def place(self, token_id: str, zone: str) -> None:
        """Put a token in a zone (moving it out of the one it was in)."""
        if not isinstance(token_id, str) or not token_id:
            raise ValueError(say("a token id is a non-empty string, not {value}", value=repr(token_id)))
        self._token_zone[token_id] = self._known(zone)

    def remove_token(self, token_id: str) -> None:
        self._token_zone.pop(token_id, None)

    def zone_of(self, token_id: str) -> str | None:
        return self._token_zone.get(token_id)

    def tokens_in(self, zone: str) -> list[str]:
        self._known(zone)
        return sorted(t for t, z in self._token_zone.items() if z == zone)

    def token_distance(self, a: str, b: str) -> int | None:
        """Zone distance between two placed tokens (None if either is not
        placed or there is no way between their zones)."""
        za, zb = self.zone_of(a), self.zone_of(b)
        if za is None or zb is None:
            return None
        return self.zone_distance(za, zb)

    # persistence --------------------------------------------------------------

    def to_dict(self) -> dict:
        links = sorted({tuple(sorted((a, b))) for a, nbrs in self._adjacent.items() for b in nbrs})
        return {
            "zones": [z.to_dict() for z in self._zones.values()],
            "links": [list(p) for p in links],
            "tokens": {t: z for t, z in sorted(self._token_zone.items())},
        }

    @classmethod
    def from_dict(cls, d: dict) -> "ZoneMap":
        zm = cls()
        try:
            for z in d.get("zones", ()):
                zm.add_zone(z["name"], z.get("outline", ()), z.get("tags") or {})
            for a, b in d.get("links", ()):
                zm.connect(a, b)
            for token, zone in (d.get("tokens") or {}).items():
                zm.place(token, zone)
        except (KeyError, TypeError) as e:
            raise ValueError(say("not a zone map: {error}", error=str(e))) from None
        return zm

    def __eq__(self, other) -> bool:
        return isinstance(other, ZoneMap) and self.to_dict() == other.to_dict()
