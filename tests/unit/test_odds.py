"""Exact odds: totals sum to 1 and match brute force on small cases."""

import itertools
from collections import defaultdict

import pytest

from rules.odds import at_least, at_most, die_distribution, distribution, max_of, mean


def close(a, b, tol=1e-9):
    keys = set(a) | set(b)
    return all(abs(a.get(k, 0) - b.get(k, 0)) < tol for k in keys)


def brute(dice_sides, combine):
    out = defaultdict(float)
    combos = list(itertools.product(*[range(1, s + 1) for s in dice_sides]))
    for faces in combos:
        out[combine(faces)] += 1 / len(combos)
    return dict(out)


@pytest.mark.parametrize("expr", ["2d6+1", "d8!", "4d6kh3", "2d20kl1", "d%", "3dT", "d6!+d4-2", "5dT", "3d6!"])
def test_distribution_sums_to_one(expr):
    assert sum(distribution(expr).values()) == pytest.approx(1, abs=1e-9)


def test_plain_dice_match_brute_force():
    assert close(distribution("2d6+1"), brute([6, 6], lambda f: sum(f) + 1))
    assert close(distribution("d8-d4"), brute([8, 4], lambda f: f[0] - f[1]))
    assert distribution("d%")[100] == pytest.approx(0.01)


def test_keep_matches_brute_force():
    assert close(distribution("4d6kh3"), brute([6] * 4, lambda f: sum(sorted(f)[1:])))
    assert close(distribution("2d20kl1"), brute([20, 20], min))
    assert close(distribution("3d4kl2+1"), brute([4] * 3, lambda f: sum(sorted(f)[:2]) + 1))


def exploding(sides, depth):
    """Brute force of one exploding die, chains cut at ``depth`` dice."""
    out = defaultdict(float)

    def go(total, p, left):
        for face in range(1, sides + 1):
            q = p / sides
            if face == sides and left > 1:
                go(total + face, q, left - 1)
            elif face < sides:
                out[total + face] += q

    go(0, 1.0, depth)
    return out


def test_exploding_dice_match_brute_force():
    d = distribution("d4!")
    ref = exploding(4, 12)
    for total in range(1, 30):
        assert d.get(total, 0) == pytest.approx(ref.get(total, 0), abs=1e-12)
    assert 4 not in d and 8 not in d  # a die that shows its top face always rolls again
    assert mean(die_distribution(6, explode=True)) == pytest.approx(3.5 * 6 / 5)


def dt_brute(depth):
    out = defaultdict(float)

    def go(successes, p, left):
        for face in range(1, 11):
            q = p / 10
            s = successes + (face >= 6)
            if face >= 9 and left > 1:
                go(s, q, left - 1)
            elif face < 9:
                out[s] += q

    go(0, 1.0, depth)
    return out


def test_dt_matches_brute_force():
    one = dt_brute(14)
    d = distribution("dT")
    for k in range(6):
        assert d[k] == pytest.approx(one[k], abs=1e-9)
    assert d[0] == pytest.approx(0.5)
    two = defaultdict(float)
    for a, pa in one.items():
        for b, pb in one.items():
            two[a + b] += pa * pb
    d2 = distribution("2dT")
    for k in range(8):
        assert d2[k] == pytest.approx(two[k], abs=1e-9)


def test_helpers():
    d6 = distribution("d6")
    assert at_least(d6, 5) == pytest.approx(1 / 3)
    assert at_most(d6, 2) == pytest.approx(1 / 3)
    assert mean(d6) == pytest.approx(3.5)
    wild = max_of(distribution("d4"), distribution("d6"))
    assert close(wild, brute([4, 6], max))


def test_bad_expression():
    from rules.dice import DiceError

    with pytest.raises(DiceError):
        distribution("2d")
