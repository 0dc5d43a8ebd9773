"""Tesseris (ADS): reference functions, odds, and their invariants."""

import pytest
from hypothesis import given, settings, strategies as st

from rules import odds
from rules.dice import ScriptedDice, SeededDice
from rules.system import RuleSystem
from rules.tesseris_ads import (
    SYSTEM,
    burst_hits,
    cover_material,
    damage_split,
    diagonal_cost,
    dt_successes,
    max_stamina,
    range_modifier,
    wound_penalty,
)
from rules.tesseris_ads.checks import defense_distribution
from rules.tesseris_ads.attack import bullet_totals, range_band_name
from rules.tesseris_ads.movement import grid_distance
from rules.tesseris_ads.checks import pool_distribution
from rules.tesseris_ads.odds import hits_distribution, net_distribution


def test_system_identity():
    assert isinstance(SYSTEM, RuleSystem)
    assert (SYSTEM.id, SYSTEM.board, SYSTEM.diagonal) == ("tesseris_ads", "grid", "alternating")
    assert SYSTEM.sheet_template == "sheets/_tesseris_ads.html"
    assert SYSTEM.help_template == "help/tesseris_ads.html"
    assert SYSTEM.default_settings()["prone_modifier"] == 2


def test_dt_successes_counts_six_to_ten_including_explosions():
    assert dt_successes([1, 5, 6, 8]) == 2
    assert dt_successes([9, 10, 7, 3]) == 3  # two explosions, both extra dice in the list
    assert dt_successes([]) == 0
    with pytest.raises(ValueError):
        dt_successes([11])


def test_dt_pool_through_dice_source_matches_reference():
    rec = ScriptedDice([9, 10, 2, 6, 1]).roll("3dT")
    assert rec.faces == [9, 10, 2, 6, 1]
    assert rec.total == dt_successes(rec.faces) == 3


def test_diagonal_cost_alternates_one_two():
    assert [diagonal_cost(0, d) for d in range(1, 6)] == [1, 3, 4, 6, 7]
    assert diagonal_cost(3, 0) == 3
    assert diagonal_cost(2, 2) == 5
    assert grid_distance((0, 0), (3, 2)) == 4  # 1 straight + 2 diagonals (1 + 2)


@pytest.mark.parametrize(
    "distance,rng,expected",
    [
        (1, 20, 2), (2, 20, 2),  # point blank
        (3, 20, 1), (4, 20, 1),  # short
        (5, 20, 0), (10, 20, 0), (11, 20, 0), (20, 20, 0),  # unnamed gap and medium
        (21, 20, -1), (30, 20, -1),  # long
        (31, 20, -2), (40, 20, -2),  # far
        (41, 20, -4), (60, 20, -4),  # extreme
        (61, 20, None),
        (3, 2, -1), (4, 2, -2), (6, 2, -4), (7, 2, None),  # beyond a short listed range
    ],
)
def test_range_bands(distance, rng, expected):
    assert range_modifier(distance, rng) == expected


def test_range_gap_setting():
    assert range_modifier(7, 20, gap_modifier=1) == 1
    assert range_modifier(11, 20, gap_modifier=1) == 0  # beyond half the range: Medium
    assert range_band_name(7, 20) == "medium"


def test_burst_example_with_jim():
    # Jim's burst: 6 after all modifiers (incl. -1 for the burst), bullets at 6, 4, 2; defense 3
    assert bullet_totals(6, 3) == [6, 4, 2]
    assert burst_hits(6, 3, 3) == 2


def test_burst_ties_go_to_defender():
    assert burst_hits(3, 3, 1) == 0
    assert burst_hits(4, 3, 1) == 1
    assert burst_hits(5, 3, 3) == 1  # 5, 3, 1


def test_damage_split():
    assert damage_split(12, 20) == (12, 2)  # a Wound per 5 Stamina from one hit
    assert damage_split(4, 20) == (4, 0)
    assert damage_split(7, 3) == (3, 4)  # 3 Stamina, the other 4 points are Wounds
    assert damage_split(6, 0) == (0, 6)
    assert damage_split(0, 10) == (0, 0)


def test_wound_penalty_matches_document_examples():
    assert wound_penalty(4, 5) == 0  # still has Stamina
    assert [wound_penalty(w, 0) for w in (0, 1, 5, 6, 8, 9)] == [-1, -1, -1, -2, -2, -3]


def test_max_stamina():
    assert max_stamina(3, 3) == 19
    assert max_stamina(3, 3, wounds=2) == 17
    assert max_stamina(2, 4, bonus=3) == 21


def test_cover_materials_chart():
    assert cover_material("wood_thin") == (2, 10)
    assert cover_material("wood_thick") == (3, 15)
    assert cover_material("wood_reinforced") == (4, 20)
    assert cover_material("stone") == (8, 30)
    assert cover_material("sandbag") == (18, 90)
    assert cover_material("concrete") == (25, 125)
    assert cover_material("Sandbags") == (18, 90)
    with pytest.raises(KeyError):
        cover_material("cheese")


# -- odds -----------------------------------------------------------------------------


def test_one_dt_distribution():
    d = pool_distribution(1)
    assert d[0] == pytest.approx(0.5)
    assert d[1] == pytest.approx(0.3 + 0.2 * 0.5)
    assert d[2] == pytest.approx(0.2 * (0.3 + 0.2 * 0.5))
    assert odds.mean(d) == pytest.approx(0.625)
    assert sum(d.values()) == pytest.approx(1.0)


def test_duck_reroll_distribution_exact():
    d = dict(defense_distribution(1, 1))
    assert d[0] == pytest.approx(0.25)  # a dud re-rolled into another dud
    assert sum(d.values()) == pytest.approx(1.0)
    # mean: 0.625 from the die, plus P(a dud) * 0.625 from the re-roll
    assert sum(v * p for v, p in d.items()) == pytest.approx(0.625 + 0.625 * 0.625)
    assert dict(defense_distribution(3, 0)) == pytest.approx(pool_distribution(3))


def test_net_distribution_and_hits():
    net = net_distribution(3, 2, 3, 1)
    assert sum(net.values()) == pytest.approx(1.0)
    assert odds.mean(net) == pytest.approx(3 * 0.625 + 2 - 3 * 0.625 - 1)
    hits = hits_distribution(net, 3)
    assert set(hits) <= {0, 1, 2, 3}
    assert sum(hits.values()) == pytest.approx(1.0)
    assert odds.at_least(net, 1) == pytest.approx(1 - hits[0])


def test_pool_distribution_matches_seeded_rolls():
    dice = SeededDice(7)
    n = 4000
    counts = {}
    for _ in range(n):
        t = dice.roll("2dT").total
        counts[t] = counts.get(t, 0) + 1
    d = pool_distribution(2)
    for k in (0, 1, 2):
        assert counts.get(k, 0) / n == pytest.approx(d[k], abs=0.03)


# -- invariants -----------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.integers(0, 40))
def test_damage_split_invariants(damage, stamina):
    lost, wounds = damage_split(damage, stamina)
    assert 0 <= lost <= min(damage, stamina)
    assert wounds == (damage - lost) + lost // 5
    assert lost + (damage - lost) == damage


@settings(max_examples=200, deadline=None)
@given(st.integers(-10, 20), st.integers(-5, 15), st.integers(1, 12))
def test_burst_hits_invariants(attack, defense, bullets):
    h = burst_hits(attack, defense, bullets)
    assert 0 <= h <= bullets
    assert burst_hits(attack + 1, defense, bullets) >= h
    assert burst_hits(attack, defense + 1, bullets) <= h
    assert h == (1 if attack - defense >= 1 else 0) + (burst_hits(attack - 2, defense, bullets - 1) if bullets > 1 and attack - defense >= 1 else 0)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 40), st.integers(0, 130))
def test_range_modifier_never_improves_with_distance(rng, distance):
    a = range_modifier(distance, rng)
    b = range_modifier(distance + 1, rng)
    if a is None:
        assert b is None
    elif b is not None:
        assert b <= a


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 30), st.integers(0, 30))
def test_diagonal_cost_between_chebyshev_and_manhattan(s, d):
    c = diagonal_cost(s, d)
    assert s + d <= c <= s + 2 * d


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(1, 10), max_size=20))
def test_dt_successes_bounded(faces):
    assert 0 <= dt_successes(faces) <= len(faces)


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10), st.integers(0, 10), st.integers(0, 10))
def test_wound_penalty_invariants(wounds, more, stamina):
    assert wound_penalty(wounds, stamina + 1) == 0
    assert wound_penalty(wounds, 0) <= -1
    assert wound_penalty(wounds + more, 0) <= wound_penalty(wounds, 0)
