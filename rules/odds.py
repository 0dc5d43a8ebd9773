"""Exact outcome distributions of dice expressions, before they are rolled.

Exploding dice have no upper bound; a chain of explosions is followed
until its probability falls below ``precision`` (default 1e-12), so the
probabilities returned sum to 1 within that precision (the cut-off mass
is dropped, never moved elsewhere).
"""

from __future__ import annotations

from collections import defaultdict
from functools import lru_cache
from math import comb

from .dice import DT_EXPLODE, DT_SIDES, DT_SUCCESS, Term, parse

Dist = dict[int, float]

PRECISION = 1e-12


def convolve(a: Dist, b: Dist) -> Dist:
    """Distribution of the sum of two independent values."""
    out: defaultdict[int, float] = defaultdict(float)
    for va, pa in a.items():
        for vb, pb in b.items():
            out[va + vb] += pa * pb
    return dict(out)


def scale(dist: Dist, sign: int) -> Dist:
    return {sign * v: p for v, p in dist.items()}


def power(dist: Dist, n: int) -> Dist:
    """Distribution of the sum of ``n`` independent draws of ``dist``."""
    result: Dist = {0: 1.0}
    base = dist
    while n:
        if n & 1:
            result = convolve(result, base)
        n >>= 1
        if n:
            base = convolve(base, base)
    return result


@lru_cache(maxsize=256)
def _die(sides: int, explode: bool, dt: bool, precision: float) -> tuple[tuple[int, float], ...]:
    if dt:
        # successes of one dT: 1-5 nothing, 6-8 one, 9-10 one plus another dT
        p_dud = (DT_SUCCESS - 1) / DT_SIDES
        p_explode = (DT_SIDES - DT_EXPLODE + 1) / DT_SIDES
        p_plain = 1 - p_dud - p_explode
        out: defaultdict[int, float] = defaultdict(float)
        reach, depth = 1.0, 0
        while reach >= precision:
            out[depth] += reach * p_dud
            out[depth + 1] += reach * p_plain
            reach *= p_explode
            depth += 1
        return tuple(sorted(out.items()))
    p = 1 / sides
    if not explode:
        return tuple((v, p) for v in range(1, sides + 1))
    out = defaultdict(float)
    reach, base = 1.0, 0
    while reach >= precision:
        for v in range(1, sides):
            out[base + v] += reach * p
        reach *= p
        base += sides
    return tuple(sorted(out.items()))


def die_distribution(sides: int, explode: bool = False, dt: bool = False, precision: float = PRECISION) -> Dist:
    """Distribution of one die (its value; for a dT, its successes)."""
    return dict(_die(sides, explode, dt, precision))


def _keep(die: Dist, count: int, keep: int, highest: bool) -> Dist:
    # Walk the faces from the best kept end; at each face choose how many of
    # the still unassigned dice show it: exact, and polynomial in the dice.
    faces = sorted(die, reverse=highest)
    states: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}  # assigned, kept, sum
    for face in faces:
        p = die[face]
        nxt: defaultdict[tuple[int, int, int], float] = defaultdict(float)
        for (assigned, kept, total), prob in states.items():
            left = count - assigned
            for j in range(left + 1):
                take = min(j, keep - kept)
                nxt[(assigned + j, kept + take, total + take * face)] += prob * comb(left, j) * p**j
        states = nxt
    out: defaultdict[int, float] = defaultdict(float)
    for (assigned, _kept, total), prob in states.items():
        if assigned == count:
            out[total] += prob
    return dict(out)


def term_distribution(term: Term, precision: float = PRECISION) -> Dist:
    if term.is_constant:
        return {term.sign * term.constant: 1.0}
    die = die_distribution(term.sides, term.explode, term.dt, precision)
    if term.keep:
        dist = _keep(die, term.count, term.keep_count, term.keep == "h")
    else:
        dist = power(die, term.count)
    return scale(dist, term.sign)


def distribution(expr: str, precision: float = PRECISION) -> Dist:
    """Probability of each total of a dice expression, sorted by total."""
    dist: Dist = {0: 1.0}
    for term in parse(expr):
        dist = convolve(dist, term_distribution(term, precision))
    return {v: dist[v] for v in sorted(dist) if dist[v] > 0}


def at_least(dist: Dist, target: int) -> float:
    """Chance that a value drawn from ``dist`` is ``target`` or more."""
    return sum(p for v, p in dist.items() if v >= target)


def at_most(dist: Dist, target: int) -> float:
    """Chance that a value drawn from ``dist`` is ``target`` or less."""
    return sum(p for v, p in dist.items() if v <= target)


def max_of(a: Dist, b: Dist) -> Dist:
    """Distribution of the larger of two independent values (trait + Wild Die)."""
    out: defaultdict[int, float] = defaultdict(float)
    for va, pa in a.items():
        for vb, pb in b.items():
            out[max(va, vb)] += pa * pb
    return dict(out)


def mean(dist: Dist) -> float:
    return sum(v * p for v, p in dist.items())
