"""Atomic Tomorrow: invariants that hold for every roll, skill and sheet."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import atomic_tomorrow as at
from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant

SYSTEM = at.SYSTEM
rolls = st.integers(1, 100)
skills = st.integers(-40, 160)
ratings = st.integers(1, 4)
covers = st.sampled_from(list(at.COVER_LEVELS))
armours = list(at.ARMOUR_LEVELS)

# worst to best: a success always beats any failure
ORDER = ["critical_failure", "special_failure", "failure", "ordinary", "special", "critical"]


@settings(max_examples=300, deadline=None)
@given(rolls, skills, st.integers(0, 100))
def test_higher_skill_never_a_worse_quality(roll, skill, more):
    low = at.success_quality(roll, skill)
    high = at.success_quality(roll, skill + more)
    assert ORDER.index(high) >= ORDER.index(low)


@settings(max_examples=300, deadline=None)
@given(rolls, skills)
def test_automatic_results_ignore_the_skill(roll, skill):
    if roll <= 5:
        assert at.is_success(roll, skill)
    if roll >= 96:
        assert not at.is_success(roll, skill)


@settings(max_examples=300, deadline=None)
@given(ratings, rolls, skills, st.integers(0, 100))
def test_higher_skill_never_fewer_wounds(wr, roll, skill, more):
    assert at.attack_wounds(wr, roll, skill + more) >= at.attack_wounds(wr, roll, skill)


@settings(max_examples=300, deadline=None)
@given(ratings, rolls, skills, covers, covers)
def test_more_cover_never_more_wounds(wr, roll, skill, c1, c2):
    lo, hi = sorted((c1, c2), key=at.COVER_LEVELS.get)
    assert at.attack_wounds(wr, roll, skill, hi) <= at.attack_wounds(wr, roll, skill, lo)


@settings(max_examples=300, deadline=None)
@given(ratings, rolls, skills)
def test_wounds_are_the_rating_plus_bonuses(wr, roll, skill):
    w = at.attack_wounds(wr, roll, skill)
    if at.is_success(roll, skill):
        assert wr <= w <= wr + 4 + 1
    else:
        assert w == 0


@settings(max_examples=300, deadline=None)
@given(rolls, st.integers(1, 30), st.integers(0, 10))
def test_more_grit_never_less_soak(roll, grit, more):
    assert at.soak_reduction(roll, grit + more) >= at.soak_reduction(roll, grit)
    assert 0 <= at.soak_reduction(roll, grit) <= 3


@settings(max_examples=300, deadline=None)
@given(rolls, skills, st.integers(-40, 160))
def test_identical_rolls_favour_the_defender(roll, skill, other):
    if at.success_quality(roll, skill) == at.success_quality(roll, other):
        assert at.opposed_winner(roll, skill, roll, other) == "defender"


@settings(max_examples=300, deadline=None)
@given(rolls, skills, rolls, skills, st.integers(0, 60))
def test_better_defense_skill_never_hurts_the_defender(a, askill, d, dskill, more):
    if at.opposed_winner(a, askill, d, dskill) == "defender":
        assert at.opposed_winner(a, askill, d, dskill + more) == "defender"


def _attack(armour, faces, wr, ap, grit, cover, defense):
    attacker = Combatant("a", "A", {**SYSTEM.default_sheet(), "ranged": 60, "weapons": [
        {"name": "Gun", "skill": "ranged", "wound_rating": wr, "armour_piercing": ap, "ranges": ["far"]}]})
    target = Combatant("t", "T", {**SYSTEM.default_sheet(), "armour": armour, "grit": grit})
    req = AttackRequest(attacker, target, "Gun", distance=1, cover=cover, options={"defense": defense})
    return SYSTEM.attack(req, ScriptedDice(faces))


@settings(max_examples=200, deadline=None)
@given(st.lists(rolls, min_size=3, max_size=3), ratings, st.integers(0, 3), st.integers(3, 18), covers,
       st.sampled_from(["none", "dodge"]))
def test_more_armour_never_more_wounds(faces, wr, ap, grit, cover, defense):
    taken = [_attack(a, faces, wr, ap, grit, cover, defense).details.get("wounds_taken", 0) for a in armours]
    assert taken == sorted(taken, reverse=True)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(min_size=1, max_size=4), rolls, st.integers(0, 100), st.integers(3, 18)),
                max_size=8, unique_by=lambda e: e[0]))
def test_initiative_successes_always_before_failures(entries):
    order = at.initiative_order(entries)
    assert sorted(order) == sorted(e[0] for e in entries)
    by_name = {e[0]: e for e in entries}
    flags = [at.is_success(by_name[n][1], by_name[n][2]) for n in order]
    assert flags == sorted(flags, reverse=True)
    for first, second in zip(order, order[1:]):
        a, b = by_name[first], by_name[second]
        if at.is_success(a[1], a[2]) == at.is_success(b[1], b[2]):
            assert (a[1], a[3]) >= (b[1], b[3])


mods = st.lists(st.sampled_from(list(range(-80, 41, 20))), max_size=6)


@settings(max_examples=300, deadline=None)
@given(mods)
def test_single_largest_modifier_is_one_of_them(values):
    total, chosen = at.situational_modifier(values)
    assert len(chosen) <= 1
    largest = max((abs(v) for v in values), default=0)
    if largest and largest in values and -largest in values:
        assert total == 0 and chosen == []  # a bonus and a penalty of the same size cancel
    else:
        assert abs(total) == largest and (total in values or total == 0)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 120), ratings, st.sampled_from([None, 10, 45, 90]), st.sampled_from(armours),
       st.integers(3, 18), covers)
def test_odds_are_distributions(skill, wr, dskill, armour, grit, cover):
    o = at.attack_odds(skill, wr, cover=cover, defense_skill_value=dskill, armour=armour, grit=grit)
    for key in ("attack_quality", "outcomes", "wounds_before_soak", "wounds"):
        assert abs(sum(o[key].values()) - 1) < 1e-9
        assert all(0 <= p <= 1 for p in o[key].values())
    assert o["p_hit"] <= sum(o["attack_quality"][q] for q in at.SUCCESSES) + 1e-12


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 10), st.booleans())
def test_zone_range_never_shrinks_with_distance(distance, engaged):
    here = at.zone_range(distance, engaged and distance == 0)
    there = at.zone_range(distance + 1)
    assert at.RANGES.index(there) >= at.RANGES.index(here)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(3, 18), min_size=1, max_size=5), st.integers(0, 10_000), st.booleans())
def test_every_fighter_takes_one_turn_a_round_in_initiative_order(reflexes, seed, each_round):
    """INITIATIVE AND TURN SEQUENCE: each round everyone acts once, successes before failures."""
    import json

    from rules.dice import SeededDice

    fighters = [Combatant(f"c{i}", f"C{i}", {**SYSTEM.default_sheet(), "reflex": r}) for i, r in enumerate(reflexes)]
    options = {"initiative_each_round": each_round}
    dice = SeededDice(seed)
    up = SYSTEM.begin_fight(fighters, dice, options)
    for round_ in (1, 2, 3):
        assert up.round == round_ and sorted(up.order) == sorted(c.id for c in fighters)
        ini = up.state["initiative"]
        flags = [ini[c]["success"] for c in up.order]
        assert flags == sorted(flags, reverse=True)
        seen = []
        for _ in fighters:
            seen.append(up.current)
            json.dumps(up.to_dict())
            up = SYSTEM.next_turn(up.state, fighters, dice, options)
        assert seen == list(dict.fromkeys(seen)) and len(seen) == len(fighters)
