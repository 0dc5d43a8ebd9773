"""Savage Worlds odds as the app shows them: outcomes in the game's words, checked outcome by
outcome against a brute force of the rules (hits applied in the order of the dice) and against a
Monte Carlo of attack()."""

import itertools
import math
from collections import Counter

import pytest

from rules import odds as core_odds
from rules import savage_worlds as sw
from rules.dice import SeededDice
from rules.savage_worlds.health import TargetState
from rules.savage_worlds.odds import outcome_labels, outcome_odds, outcome_of
from rules.system import AttackRequest, Combatant

S = sw.SYSTEM


def tok(id, side, pos, **kw):
    s = S.default_sheet()
    s["edges"] = []
    s.update(kw)
    return Combatant(id, id, s, pos, side)


def brute(sides, wild, mod, tn, rof, dmg, dmg_raise, tough, target):
    """The obvious way: every trait die and Wild Die value (lumped from the first raise up), the
    lowest die (the first on a tie) replaced by a higher Wild Die, the hits in dice order; each
    hit's damage lumped by what it does (below, Shaken, 1, 2... raises) and applied with the
    TargetState attack() uses."""
    top = tn + 4 - mod

    def lump(d):
        out = {v: p for v, p in d.items() if v < top}
        out[max(top, 2)] = out.get(max(top, 2), 0) + sum(p for v, p in d.items() if v >= max(top, 2))
        return out

    def buckets(d):
        out = {}
        for v, p in d.items():
            k = tough - 1 if v < tough else tough + 4 * min(6, (v - tough) // 4)
            out[k] = out.get(k, 0) + p
        return out

    t = lump(core_odds.die_distribution(sides, True))
    w = lump(core_odds.die_distribution(6, True)) if wild else {None: 1.0}
    bk = {1: buckets(dmg), 2: buckets(dmg_raise)}
    out = Counter()
    memo = {}

    def effect(hits):
        if hits not in memo:
            res = Counter()
            for damages in itertools.product(*(bk[h].items() for h in hits)):
                q = math.prod(x for _, x in damages)
                st = TargetState(target["shaken"], target["wounds"], target["wild"])
                became = False
                for d, _ in damages:
                    was = st.shaken
                    st.take(d, tough)
                    became = became or (st.shaken and not was)
                new = st.wounds - target["wounds"]
                label = ("hit: Incapacitated" if st.incapacitated else f"hit: {new} wound{'s' if new > 1 else ''}"
                         if new else "hit: Shaken" if became else "hit: no effect")
                res[label] += q
            memo[hits] = res
        return memo[hits]

    for combo in itertools.product(t.items(), repeat=rof):
        for wv, wp in w.items():
            p = wp * math.prod(q for _, q in combo)
            vals = [v for v, _ in combo]
            if wv == 1 and 2 * vals.count(1) >= rof:
                out["critical failure"] += p
                continue
            i = min(range(rof), key=lambda k: vals[k])
            if wv is not None and wv > vals[i]:
                vals[i] = wv
            hits = [0 if v + mod < tn else 1 if v + mod < tn + 4 else 2 for v in vals]
            hits = [h for h in hits if h]
            if not hits:
                out["miss"] += p
                continue
            for label, q in effect(tuple(hits)).items():
                out[label] += p * q
    return out


@pytest.mark.parametrize("sides, wild, mod, tn, rof, shaken, wounds, wild_target", [
    (6, True, 0, 4, 1, False, 0, True), (8, True, -2, 6, 1, True, 1, True), (4, False, 1, 4, 1, False, 0, False),
    (8, True, -2, 4, 2, False, 0, True), (6, True, -4, 4, 3, False, 2, True), (4, True, 2, 6, 3, True, 0, True),
    (6, False, 0, 5, 2, False, 0, False), (4, True, 3, 4, 2, False, 0, True), (10, True, 0, 4, 2, False, 3, True),
])
def test_each_outcome_matches_a_brute_force_of_the_rules(sides, wild, mod, tn, rof, shaken, wounds, wild_target):
    dmg = core_odds.distribution("2d6!+1")
    dmg_raise = core_odds.convolve(dmg, core_odds.die_distribution(6, True))
    target = {"object": False, "shaken": shaken, "wounds": wounds, "wild": wild_target, "nonlethal": False}
    got = {o["label"]: o["p"] for o in outcome_odds(sides, wild, mod, tn, rof, dmg, dmg_raise, 7, target)}
    want = brute(sides, wild, mod, tn, rof, dmg, dmg_raise, 7, target)
    assert set(got) <= set(outcome_labels(target))
    for label in set(got) | set(want):
        assert got.get(label, 0) == pytest.approx(want.get(label, 0), abs=1e-9), label
    assert sum(got.values()) == pytest.approx(1, abs=1e-9)
    # the same totals as the older aggregate odds (to hit, to wound at all)
    agg = sw.attack_odds(sides, wild, mod, tn, rof, dmg, dmg_raise, 7, shaken)
    assert 1 - got["miss"] - got.get("critical failure", 0) == pytest.approx(agg["hit"], abs=1e-9)
    wounded = sum(p for k, p in got.items() if "wound" in k or "Incapacitated" in k)
    assert wounded == pytest.approx(agg["wound"], abs=1e-9)


def test_the_order_of_hits_matters_and_is_counted():
    """A Shaken-only hit then a 1-Wound hit is 1 Wound; the other way round it is 2 (Shaken again)."""
    from rules.savage_worlds.health import TargetState as T
    a, b = T(False, 0, True), T(False, 0, True)
    a.take(7, 7), a.take(11, 7)
    b.take(11, 7), b.take(7, 7)
    assert (a.wounds, b.wounds) == (1, 2)


def _monte_carlo(attacker, target, weapon, n, seed, **options):
    req = AttackRequest(attacker, target, weapon, distance=0, options=options)
    odds = S.odds(req)
    dice = SeededDice(seed)
    seen = Counter(outcome_of(S.attack(AttackRequest(attacker, target, weapon, options=options), dice))
                   for _ in range(n))
    labels = [o["label"] for o in odds["outcomes"]]
    assert set(seen) <= set(labels), (seen, labels)
    for o in odds["outcomes"]:
        p, f = o["p"], seen[o["label"]] / n
        assert abs(f - p) <= 4 * math.sqrt(p * (1 - p) / n) + 0.005, (o["label"], f, p)
    hits = sum(v for k, v in seen.items() if k.startswith("hit"))
    assert abs(hits / n - odds["hit"]) <= 4 * math.sqrt(odds["hit"] * (1 - odds["hit"]) / n) + 0.005


def test_outcomes_match_a_monte_carlo_of_attack_with_rof_3():
    ann = tok("ann", "pc", (0, 0), weapons={"SMG": {"damage": "2d6", "range": "12/24/48", "rof": 3}})
    bob = tok("bob", "npc", (4, 0), armor=0)
    _monte_carlo(ann, bob, "SMG", 2500, 11)


def test_outcomes_match_a_monte_carlo_of_attack_on_a_shaken_wounded_wild_card_in_melee():
    ann = tok("ann", "pc", (0, 0))
    bob = tok("bob", "npc", (1, 0), shaken=True, wounds=2)
    _monte_carlo(ann, bob, "Long sword", 2500, 12)


def test_outcomes_match_a_monte_carlo_of_attack_on_an_extra_and_an_object():
    ann = tok("ann", "pc", (0, 0))
    _monte_carlo(ann, tok("bob", "npc", (3, 0), wild_card=False), "Colt Peacemaker", 2000, 13)
    _monte_carlo(ann, tok("bob", "npc", (3, 0)), "Colt Peacemaker", 1500, 14, object="light door")


def test_odds_carry_every_modifier_and_name_outcomes_in_the_games_words():
    ann = tok("ann", "pc", (0, 0), wounds=1)
    bob = tok("bob", "npc", (20, 0), wild_card=False)
    odds = S.odds(AttackRequest(ann, bob, "Colt Peacemaker", options={"actions": 2, "nonlethal": True}))
    labels = {m["label"]: m["value"] for m in odds["modifiers"]}
    assert labels["Medium range"] == -2 and labels["Multi-action (2 actions)"] == -2 and labels["Wounds (1)"] == -1
    assert labels["AP 1 against armour 1"] == -1
    assert [o["label"] for o in odds["outcomes"]] == [
        "critical failure", "miss", "hit: no effect", "hit: Shaken", "hit: Incapacitated (nonlethal: unconscious)"]
    door = S.odds(AttackRequest(ann, bob, "Colt Peacemaker", options={"object": "heavy door"}))
    assert [o["label"] for o in door["outcomes"]] == ["critical failure", "miss", "hit: holds", "hit: broken"]
