"""Exact odds of an attack before it is rolled: to hit, to hit with a raise,
to Shake or Wound, with RoF dice, the Wild Die replacing the worst die,
critical failures and bonus damage all counted.

Sources: the Savage Worlds core facts (trait roll, aces, raises, critical
failure); *Savage Worlds Combat System Reference*, "Rate of Fire" and
"Damage Resolution".
"""

from __future__ import annotations

from math import comb

from .. import odds as _odds
from ..system import AttackRequest, RuleNotImplemented
from .attack import effective_toughness, plan_of
from .checks import parse_die
from .data import RAISE, TN


def odds(request: AttackRequest) -> dict:
    """The exact chance, before rolling, to hit, to hit with a raise, and to
    Shake or Wound the target with at least one hit (RoF dice, Wild Die
    replacing the worst die, critical failures, bonus damage all counted)."""
    if request.options.get("template"):
        raise RuleNotImplemented("odds of area templates are not computed (they depend on who is under it)")
    plan = plan_of(request)
    d = parse_die(plan["die"])
    mod = int(sum(m.value for m in plan["modifiers"])) + d.bonus
    tn = plan["tn"]
    tsheet = request.target.sheet or {}
    toughness, _ = effective_toughness(plan["toughness"], plan["ap"])
    dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
    dmg = _odds.distribution(plan["damage_expr"])
    dmg = {v + dmg_mod: p for v, p in dmg.items()}
    dmg_raise = _odds.convolve(dmg, _odds.die_distribution(6, explode=True)) if plan["raise_bonus"] else dmg
    shaken = bool(tsheet.get("shaken")) and not plan["toughness"]["object"]
    res = attack_odds(d.sides, plan["wild"], mod, tn, plan["rof"], dmg, dmg_raise, toughness, shaken)
    res.update({"tn": tn, "modifier": mod, "toughness": toughness, "damage_expr": plan["damage_expr"],
                "rof": plan["rof"], "die": plan["die"], "wild_card": plan["wild"]})
    return res

# -- applying results ---------------------------------------------------------


def trait_odds(sides: int, wild_card: bool, modifier: int, tn: int = TN) -> dict:
    """Exact chance of a single trait roll: success, raise, critical failure."""
    one = attack_odds(sides, wild_card, modifier, tn, 1, {0: 1.0}, {0: 1.0}, 10**9, False)
    return {k: one[k] for k in ("hit", "raise", "critical_failure")}


def _damage_cats(dist: dict, toughness: int) -> tuple[float, float, float]:
    """Chance that one hit's damage is below Toughness, Shakes, or Wounds."""
    below = _odds.at_most(dist, toughness - 1)
    wound = _odds.at_least(dist, toughness + RAISE)
    return below, max(0.0, 1 - below - wound), wound


def _no_wound(h: int, r: int, hc, rc, shaken: bool) -> float:
    """Chance that h plain hits and r raise hits leave the target unwounded:
    no hit a raise over Toughness, and at most one hit that Shakes (none when
    already Shaken), since Shaken again is a Wound."""
    none_shake = hc[0] ** h * rc[0] ** r
    if shaken:
        return none_shake
    one_shake = (h * hc[1] * hc[0] ** (h - 1) * rc[0] ** r if h else 0.0) + (
        r * rc[1] * rc[0] ** (r - 1) * hc[0] ** h if r else 0.0)
    return none_shake + one_shake


def attack_odds(sides: int, wild_card: bool, modifier: int, tn: int, rof: int,
                damage: dict, damage_raise: dict, toughness: int, shaken: bool) -> dict:
    """Exact odds of an attack of ``rof`` trait dice (acing ``d{sides}``) plus,
    for a Wild Card, one Wild Die that replaces the worst trait die when it is
    higher; a critical failure (Wild Die 1 and half or more trait dice 1)
    misses with every die. Each die is a category (a 1; else miss / hit /
    raise by total). Enumerated exactly by the lowest trait value ``m``, how
    many dice show it, the categories of the rest, and the Wild Die."""
    trait = _odds.die_distribution(sides, explode=True)
    wild = _odds.die_distribution(6, explode=True)
    p_eff_hit = _odds.at_least(damage, toughness)
    p_eff_raise = _odds.at_least(damage_raise, toughness)
    hit_cats = _damage_cats(damage, toughness)
    raise_cats = _damage_cats(damage_raise, toughness)

    def cat(v: int) -> int:
        t = v + modifier
        return 0 if t < tn else 1 if t < tn + RAISE else 2

    tvals = sorted(trait.items())
    wvals = sorted(wild.items()) if wild_card else [(None, 1.0)]

    tail = {}  # m -> probability mass strictly above m
    acc = 0.0
    for v, p in reversed(tvals):
        tail[v] = acc
        acc += p
    result = {"hit": 0.0, "raise": 0.0, "effect": 0.0, "wound": 0.0, "critical_failure": 0.0,
              "expected_hits": 0.0}
    n = rof
    for m, pm in tvals:
        above = tail[m]
        cats_above = [0.0, 0.0, 0.0]
        for v, p in tvals:
            if v > m:
                cats_above[cat(v)] += p
        for j in range(1, n + 1):  # j dice show the minimum m, n - j show more
            p_conf = comb(n, j) * pm**j * above ** (n - j)
            if p_conf == 0:
                continue
            ones = j if m == 1 else 0
            # the other n - j dice: multinomial over categories
            for c0 in range(n - j + 1):
                for c1 in range(n - j - c0 + 1):
                    c2 = n - j - c0 - c1
                    if above == 0:
                        if n - j:
                            continue
                        p_rest = 1.0
                    else:
                        q = [x / above for x in cats_above]
                        p_rest = (comb(n - j, c0) * comb(n - j - c0, c1)
                                  * q[0] ** c0 * q[1] ** c1 * q[2] ** c2)
                    if p_rest == 0:
                        continue
                    for w, pw in wvals:
                        p = p_conf * p_rest * pw
                        if p == 0:
                            continue
                        counts = [c0, c1, c2]
                        counts[cat(m)] += j
                        crit = w == 1 and 2 * ones >= n
                        if w is not None and w > m:
                            counts[cat(m)] -= 1
                            counts[cat(w)] += 1
                        if crit:
                            result["critical_failure"] += p
                            continue
                        h, r = counts[1], counts[2]
                        if h + r:
                            result["hit"] += p
                        if r:
                            result["raise"] += p
                        result["expected_hits"] += p * (h + r)
                        miss_all = (1 - p_eff_hit) ** h * (1 - p_eff_raise) ** r
                        result["effect"] += p * (1 - miss_all)
                        result["wound"] += p * (1 - _no_wound(h, r, hit_cats, raise_cats, shaken))
    result["shaken_only"] = result["effect"] - result["wound"]
    return result

