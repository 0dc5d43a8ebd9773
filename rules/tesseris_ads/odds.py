"""Exact odds of an attack before it is rolled (*Tesseris Combat*, "Defending",
"Ranged Weapons and Multiple Shots in a Round"; the core dT facts)."""

from __future__ import annotations

from .. import odds as core_odds
from ..system import AttackRequest
from .attack import burst_hits, plan_attack, settings_of
from .checks import defense_distribution, pool_distribution
from .data import CRITICAL_SUCCESSES

Dist = dict[int, float]


def net_distribution(attack_pool: int, attack_flat: int, defense_pool: int = 0, defense_flat: int = 0, defense_rerolls: int = 0) -> Dist:
    """Net successes: attack total less defense total (a hit at 1 or more; ties to the defender)."""
    att = core_odds.scale(pool_distribution(attack_pool), 1)
    att = {v + attack_flat: p for v, p in att.items()}
    dfn = {v + defense_flat: p for v, p in defense_distribution(defense_pool, defense_rerolls)}
    out = core_odds.convolve(att, core_odds.scale(dfn, -1))
    return {v: out[v] for v in sorted(out)}


def hits_distribution(net: Dist, bullets: int) -> Dist:
    """Number of bullets that hit, each after the first 2 lower, against one defense roll."""
    out: Dist = {}
    for n, p in net.items():
        h = burst_hits(n, 0, bullets)
        out[h] = out.get(h, 0) + p
    return {h: out[h] for h in sorted(out)}


def attack_odds(request: AttackRequest) -> dict:
    """The chances of an attack as planned (same pools and modifiers as the roll)."""
    settings = settings_of(request)
    plan = plan_attack(request, settings)
    if (request.options or {}).get("dt_successes") is not None:
        att = {int(request.options["dt_successes"]) + plan.attack_flat: 1.0}
    else:
        att = {v + plan.attack_flat: p for v, p in pool_distribution(plan.attack_pool).items()}
    if plan.defense == "none":
        dfn = {plan.cover_bonus: 1.0}
    else:
        dfn = {v + plan.defense_flat: p for v, p in defense_distribution(plan.defense_pool, plan.defense_rerolls)}
    net = core_odds.convolve(att, core_odds.scale(dfn, -1))
    net = {v: net[v] for v in sorted(net)}
    hits = hits_distribution(net, plan.bullets)
    crit_basis = settings["critical_basis"]
    if crit_basis == "net":
        crit = core_odds.at_least(net, CRITICAL_SUCCESSES)
    else:
        crit = sum(pa * pd for a, pa in att.items() for d, pd in dfn.items() if a - d >= 1 and a >= CRITICAL_SUCCESSES)
    return {
        "hit": core_odds.at_least(net, 1),
        "critical": crit,
        "attack": att,
        "defense": dfn,
        "defense_kind": plan.defense,
        "net": net,
        "hits": hits,
        "expected_hits": core_odds.mean(hits),
        "bullets": plan.bullets,
        "attack_modifiers": [m.to_dict() for m in plan.attack_mods],
        "defense_modifiers": [m.to_dict() for m in plan.defense_mods],
    }
