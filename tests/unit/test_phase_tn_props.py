"""phase_tn: invariants of the reference functions and the phase state."""

from hypothesis import given, settings
from hypothesis import strategies as st

from rules import phase_tn as pt
from rules.dice import SeededDice

ids = st.text(alphabet="abcdefgh", min_size=1, max_size=4)
lengths = st.sampled_from(pt.LENGTHS)


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(ids, lengths, max_size=12))
def test_resolution_groups_partition_in_non_decreasing_length(who_length):
    actions = list(who_length.items())
    groups = pt.resolution_groups(actions)
    seen = [w for g in groups for w in g]
    assert sorted(seen) == sorted(who_length)  # a partition: every one once
    ranks = [pt.LENGTHS.index(who_length[next(iter(g))]) for g in groups]
    assert ranks == sorted(ranks) and len(set(ranks)) == len(ranks)
    for g in groups:
        assert g and len({who_length[w] for w in g}) == 1


@settings(max_examples=200, deadline=None)
@given(st.dictionaries(ids, st.integers(-5, 40), max_size=12))
def test_declaration_order_is_a_permutation_sorted_by_initiative(initiatives):
    order = pt.declaration_order(initiatives)
    assert sorted(order) == sorted(initiatives)
    totals = [initiatives[w] for w in order]
    assert totals == sorted(totals)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(pt.LOCATIONS), st.integers(0, 10))
def test_drift_stays_on_the_body_and_moves(location, steps):
    out = pt.called_shot_drift(location, steps)
    assert out in pt.LOCATIONS
    assert (out == location) == (steps == 0)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 500), st.integers(1, 4), lengths)
def test_longer_actions_never_resolve_sooner(phase, per_round, length):
    s = {"phases_per_round": per_round}
    at = pt.resolves_at(phase, length, s)
    assert at >= phase
    for longer in pt.LENGTHS[pt.LENGTHS.index(length):]:
        assert pt.resolves_at(phase, longer, s) >= at
    c = pt.clock(phase, s)
    assert (c["round"] - 1) * per_round + c["phase_in_round"] == phase


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32), st.lists(st.sampled_from(["phase", "round", "turn"]), min_size=1, max_size=20))
def test_every_declared_action_resolves_exactly_once_at_its_phase(seed, plan):
    dice = SeededDice(seed)
    who = ["a", "b", "c"]
    sheets = {w: pt.SYSTEM.default_sheet() for w in who}
    state = pt.new_combat(who)
    declared, resolved = {}, {}
    for length in plan * 3:
        state, _ = pt.begin_phase(state, sheets, dice)
        for w in list(state["order"]):
            state = pt.declare(state, w, [{"name": "act", "length": length}])
            declared[state["pending"][-1]["id"]] = state["pending"][-1]["resolves_phase"]
        phase = state["phase"]
        state, groups = pt.end_phase(state)
        for g in groups:
            for a in g["actions"]:
                assert a["id"] not in resolved
                resolved[a["id"]] = phase
    for action_id, at in resolved.items():
        assert declared[action_id] == at
    for a in state["pending"]:
        assert a["id"] not in resolved
    assert set(resolved) | {a["id"] for a in state["pending"]} == set(declared)
