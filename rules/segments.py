"""Exact segment geometry shared by the square board (``rules.board``) and the hex geometry
(``rules.hexgeom``): the orientation test, a wall as the geometry sees it, clipping a segment to a board
and whether two segments meet. It imports neither, so both import it at the top."""

from __future__ import annotations

from fractions import Fraction

Point = tuple[float, float]


def is_dyadic(v: float) -> bool:
    """True when ``v`` is a multiple of 1/8 small enough for exact float sums
    and products in the orientation tests (the editor's snapped points)."""
    return abs(v) < 2**20 and (v * 8) == int(v * 8)


def orient(px, py, qx, qy, rx, ry) -> int:
    """Sign of the turn p -> q -> r (+1 left in y-down terms, -1, 0 collinear),
    exact for any finite floats: a float filter, then exact fractions."""
    t1 = (qx - px) * (ry - py)
    t2 = (qy - py) * (rx - px)
    d = t1 - t2
    bound = 1e-12 * (abs(t1) + abs(t2))
    if d > bound:
        return 1
    if d < -bound:
        return -1
    F = Fraction
    px, py, qx, qy, rx, ry = F(px), F(py), F(qx), F(qy), F(rx), F(ry)
    e = (qx - px) * (ry - py) - (qy - py) * (rx - px)
    return (e > 0) - (e < 0)


class Segment:
    """A wall or closed door as the geometry sees it."""

    __slots__ = ("id", "ax", "ay", "bx", "by", "exact", "n")

    def __init__(self, n: int, id: str, a: Point, b: Point) -> None:
        self.n = n
        self.id = id
        self.ax, self.ay = a
        self.bx, self.by = b
        self.exact = is_dyadic(self.ax) and is_dyadic(self.ay) and is_dyadic(self.bx) and is_dyadic(self.by)


def clip_span(ax: float, ay: float, bx: float, by: float, width: int, height: int) -> tuple[float, float] | None:
    """The part of segment a-b within a ``width`` x ``height`` board and a margin of one cell around it,
    as ``(t0, t1)`` along a -> b (Liang-Barsky clipping): empty when ``t0 > t1``; None when the segment
    runs beside the board, parallel to an edge and outside it."""
    vx, vy = bx - ax, by - ay
    t0, t1 = 0.0, 1.0
    for p, q in ((-vx, ax + 1), (vx, width + 1 - ax), (-vy, ay + 1), (vy, height + 1 - ay)):
        if p == 0:
            if q < 0:
                return None
            continue
        r = q / p
        if p < 0:
            t0 = max(t0, r)
        else:
            t1 = min(t1, r)
    return t0, t1


def segment_touches(s: Segment, px, py, qx, qy) -> bool:
    """True when segment ``s`` meets the closed segment p-q anywhere."""
    if s.exact:
        o1 = _sign((qx - px) * (s.ay - py) - (qy - py) * (s.ax - px))
        o2 = _sign((qx - px) * (s.by - py) - (qy - py) * (s.bx - px))
    else:
        o1 = orient(px, py, qx, qy, s.ax, s.ay)
        o2 = orient(px, py, qx, qy, s.bx, s.by)
    if o1 and o1 == o2:
        return False
    if not o1 and not o2:  # collinear: do the extents overlap (or touch)?
        F = Fraction if not s.exact else float
        ux, uy = F(qx) - F(px), F(qy) - F(py)
        ta = (F(s.ax) - F(px)) * ux + (F(s.ay) - F(py)) * uy
        tb = (F(s.bx) - F(px)) * ux + (F(s.by) - F(py)) * uy
        tq = ux * ux + uy * uy
        return max(ta, tb) >= 0 and min(ta, tb) <= tq
    if s.exact:
        o3 = _sign((s.bx - s.ax) * (py - s.ay) - (s.by - s.ay) * (px - s.ax))
        o4 = _sign((s.bx - s.ax) * (qy - s.ay) - (s.by - s.ay) * (qx - s.ax))
    else:
        o3 = orient(s.ax, s.ay, s.bx, s.by, px, py)
        o4 = orient(s.ax, s.ay, s.bx, s.by, qx, qy)
    return not (o3 and o3 == o4)


def _sign(v) -> int:
    return (v > 0) - (v < 0)
