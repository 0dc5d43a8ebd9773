"""Exact odds of an attack before it is rolled: to hit, to hit with a raise,
to Shake or Wound, with RoF dice, the Wild Die replacing the worst die,
critical failures and bonus damage all counted.

Sources: the Savage Worlds core facts (trait roll, aces, raises, critical
failure); *Savage Worlds Combat System Reference*, "Rate of Fire" and
"Damage Resolution".
"""

from __future__ import annotations

from bisect import bisect_right
from functools import lru_cache
from itertools import product
from math import comb

from .. import odds as _odds
from ..text import say, say_n
from ..system import AttackRequest, AttackResult, RuleError
from .attack import effective_toughness, on_damage, plan_of, skill_words
from .checks import parse_die, trait_die_modifiers
from .data import MAX_WOUNDS, RAISE, TN


def odds(request: AttackRequest, dice_count: int | None = None, wild: bool | None = None) -> dict:
    """The exact chance, before rolling, to hit, to hit with a raise, and to
    Shake or Wound the target with at least one hit (RoF dice, Wild Die
    replacing the worst die, critical failures, bonus damage all counted).
    ``dice_count`` and ``wild`` (False: no Wild Die) are a split Rapid Attack's
    share of the dice at this target (:mod:`.rapid`)."""
    if request.options.get("template"):
        return area_odds(request)
    plan = plan_of(request)
    if dice_count is not None:
        plan = {**plan, "rof": dice_count}
    if wild is False:
        plan = {**plan, "wild": False}
    d = parse_die(plan["die"])
    mod = int(sum(m.value for m in plan["modifiers"])) + d.bonus
    tn = plan["tn"]
    tsheet = request.target.sheet or {}
    toughness, _ = effective_toughness(plan["toughness"], plan["ap"])
    dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
    kept, kept_raise = _damage(str(plan["damage_expr"]), dmg_mod, bool(plan["raise_bonus"]))
    dmg, dmg_raise = dict(kept), dict(kept_raise)
    shaken = bool(tsheet.get("shaken")) and not plan["toughness"]["object"]
    res = attack_odds(d.sides, plan["wild"], mod, tn, plan["rof"], dmg, dmg_raise, toughness, shaken)
    obj = bool(plan["toughness"]["object"])
    wounds = int(tsheet.get("wounds", 0) or 0)
    target = {"object": obj, "shaken": shaken, "wounds": wounds, "wild": bool(tsheet.get("wild_card", True)),
              "nonlethal": bool(request.options.get("nonlethal"))}
    lines = outcome_odds(d.sides, plan["wild"], mod, tn, plan["rof"], dmg, dmg_raise, toughness, target)
    _, ap_notes = effective_toughness(plan["toughness"], plan["ap"])
    mods = trait_die_modifiers(d, skill_words(plan["skill"])) + plan["modifiers"] + on_damage(plan["damage_modifiers"]) + ap_notes
    res.update({"tn": tn, "modifier": mod, "toughness": toughness, "damage_expr": plan["damage_expr"],
                "rof": plan["rof"], "die": plan["die"], "wild_card": plan["wild"], "outcomes": lines,
                "modifiers": [m.to_dict() for m in mods]})
    # the chance of hitting at all, as the outcomes count it (the same event as AttackResult.hit)
    res["hit"] = sum(o["p"] for o in lines if o["label"].startswith("hit"))
    return res


def area_odds(request: AttackRequest) -> dict:
    """*Savage Worlds Combat System Reference*, "Area Effect Attacks", before the roll: the one trait
    roll against TN 4 (its outcomes are the attack's), and for each token under the template as aimed
    its exact outcome odds, as :func:`templates.area_attack` resolves them (damage per target, +d6 on a
    raise, cover as armour from the centre, 4 less when prone). A missed blast deviates and may land on
    others: where it lands is not in these odds (``note`` says so); a missed cone or line misses."""
    from .templates import BLAST_RADIUS, PRONE_AREA_REDUCTION, area_cover, template_cells, active
    from .attack import settings_of, target_toughness

    opts = request.options
    template = opts["template"]
    plan = plan_of(request)
    if plan["kind"] == "melee":
        raise RuleError(say("templates are for thrown or ranged weapons"))
    settings = settings_of(request)
    d = parse_die(plan["die"])
    mod = int(sum(m.value for m in plan["modifiers"])) + d.bonus
    a = request.attacker
    centre = tuple(opts.get("centre") or request.target.position)
    board = request.board
    width, height = getattr(board, "width", None), getattr(board, "height", None)
    cells = template_cells(template, a.position, centre, settings, width=width, height=height,
                           grid=getattr(board, "grid", None))
    seen: set = set()
    victims = [c for c in [request.target] + request.others + [a]
               if c.position is not None and tuple(c.position) in cells and active(c)
               and not (c.id in seen or seen.add(c.id))]
    dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
    base = {v + dmg_mod: p for v, p in _odds.distribution(plan["damage_expr"]).items()}
    origin = centre if template in BLAST_RADIUS else tuple(a.position)
    targets = []
    for v in victims:
        vs = v.sheet or {}
        armour = area_cover(board, origin, tuple(v.position), settings)
        if armour is None:
            targets.append({"id": v.id, "name": v.name, "hit": 0.0,
                            "outcomes": [{"label": say("protected: total cover from the centre"), "p": 1.0}]})
            continue
        less = armour + (PRONE_AREA_REDUCTION if vs.get("prone") else 0)
        dmg = {x - less: p for x, p in base.items()}
        dmg_raise = _odds.convolve(dmg, _odds.die_distribution(6, explode=True))
        tough, _ = effective_toughness(target_toughness(vs, None), plan["ap"])
        target = {"object": False, "shaken": bool(vs.get("shaken")), "wounds": int(vs.get("wounds", 0) or 0),
                  "wild": bool(vs.get("wild_card", True)), "nonlethal": bool(opts.get("nonlethal"))}
        lines = outcome_odds(d.sides, plan["wild"], mod, TN, 1, dmg, dmg_raise, tough, target)
        targets.append({"id": v.id, "name": v.name, "toughness": tough, "outcomes": lines,
                        "hit": sum(o["p"] for o in lines if o["label"].startswith("hit"))})
    trait = trait_odds(d.sides, plan["wild"], mod, TN)
    blast = template in BLAST_RADIUS
    outcomes = [{"label": say("critical failure (the blast deviates)") if blast else CRITICAL, "p": trait["critical_failure"]},
                {"label": say("miss (the blast deviates)") if blast else MISS,
                 "p": max(0.0, 1 - trait["hit"] - trait["critical_failure"])},
                {"label": say("hit: everyone under it"), "p": trait["hit"] - trait["raise"]},
                {"label": say("hit with a raise: +d6 damage to everyone under it"), "p": trait["raise"]}]
    mods = trait_die_modifiers(d, skill_words(plan["skill"])) + plan["modifiers"] + on_damage(plan["damage_modifiers"])
    return {"hit": trait["hit"], "outcomes": outcomes, "modifiers": [m.to_dict() for m in mods], "tn": TN,
            "targets": targets, "cells": sorted(cells), "centre": list(centre), "template": template,
            "note": say("a missed blast deviates and may land on others: where it lands is not in these odds")
                    if blast else ""}


# -- outcomes as a player reads them ---------------------------------------------------------

CRITICAL, MISS = say("critical failure"), say("miss")
HOLDS, BROKEN, NO_EFFECT, SHAKEN = say("hit: holds"), say("hit: broken"), say("hit: no effect"), say("hit: Shaken")


def _wound_label(n: int) -> str:
    return say_n("hit: {n} wound", "hit: {n} wounds", n)


def _incapacitated(nonlethal) -> str:
    return say("hit: Incapacitated (nonlethal: unconscious)") if nonlethal else say("hit: Incapacitated")


def outcome_labels(target: dict) -> list[str]:
    """The outcomes of an attack on ``target`` ({"object", "shaken", "wounds", "wild", "nonlethal"}),
    in the order they are shown: worst for the attacker first."""
    if target.get("object"):
        return [CRITICAL, MISS, HOLDS, BROKEN]
    room = max(0, MAX_WOUNDS - int(target.get("wounds", 0))) if target.get("wild", True) else 0
    incap = _incapacitated(target.get("nonlethal"))
    return [CRITICAL, MISS, NO_EFFECT, SHAKEN] + [_wound_label(n) for n in range(1, room + 1)] + [incap]


def outcome_of(result: AttackResult) -> str:
    """The outcome label of a rolled attack on its target, as :func:`outcome_odds` names them."""
    d = result.details
    tid = d.get("target")
    if d.get("critical_failure"):
        return CRITICAL
    if not result.hit:
        return MISS
    damages = d.get("damage") or []
    if damages and "broken" in damages[0]:
        return BROKEN if any(x["broken"] for x in damages) else HOLDS
    kinds = {e.kind: e for e in result.effects if e.target == tid}
    if "incapacitated" in kinds:
        return _incapacitated(kinds["incapacitated"].data.get("nonlethal"))
    wounds = sum(int(x.get("wounds", 0)) for x in damages)
    if wounds:
        return _wound_label(wounds)
    return SHAKEN if "shaken" in kinds else NO_EFFECT


def _hit_effects(dist: dict, toughness: int, cap: int, obj: bool) -> tuple[tuple, ...]:
    """One hit's effect on the target, with its chance: 0 below Toughness, "s" Shaken, k >= 1 Wounds
    (k at most ``cap``); on an object "b", broken."""
    out: dict = {}
    for v, p in dist.items():
        if v < toughness:
            e = 0
        elif obj:
            e = "b"
        else:
            r = (v - toughness) // RAISE
            e = "s" if r == 0 else min(r, cap)
        out[e] = out.get(e, 0.0) + p
    return tuple(out.items())


def outcome_odds(sides: int, wild_card: bool, modifier: int, tn: int, rof: int, damage: dict,
                 damage_raise: dict, toughness: int, target: dict) -> list[dict]:
    """:func:`_outcome_odds`, kept for the same dice, modifier, target number, damage, Toughness and target: a pure
    function of them, asked again for every target, square and turn a plan weighs (#60) and every fight a forecast
    plays (#68). Fresh lines each time (their labels are words, their chances numbers)."""
    kept = _outcome_odds_kept(sides, bool(wild_card), modifier, tn, rof, tuple(sorted(damage.items())),
                              tuple(sorted(damage_raise.items())), toughness, tuple(sorted(target.items())))
    return [{"label": label, "p": p} for label, p in kept]


@lru_cache(maxsize=512)
def _outcome_odds_kept(sides: int, wild_card: bool, modifier: int, tn: int, rof: int, damage: tuple,
                       damage_raise: tuple, toughness: int, target: tuple) -> tuple[tuple, ...]:
    lines = _outcome_odds(sides, wild_card, modifier, tn, rof, dict(damage), dict(damage_raise), toughness,
                          dict(target))
    return tuple((line["label"], line["p"]) for line in lines)


def _outcome_odds(sides: int, wild_card: bool, modifier: int, tn: int, rof: int, damage: dict,
                  damage_raise: dict, toughness: int, target: dict) -> list[dict]:
    """Exact chance of each outcome of :func:`outcome_labels`, summing to 1.

    The trait dice are enumerated by type (a 1, else miss / hit / raise by
    total) in the order they are rolled, with the Wild Die (a 1, or a
    category). The Wild Die replaces the lowest trait die when it is higher:
    that die is in the lowest category present, and which of the dice of
    that category it is (the lowest value, the first on a tie) is weighed
    exactly. Hits are then applied in the order of the dice, as
    :func:`attack.attack` does, since a Shaken-only hit before or after a
    wounding one is not the same (Shaken again is a Wound)."""
    labels = outcome_labels(target)
    obj = bool(target.get("object"))
    wild_t = bool(target.get("wild", True))
    shaken0 = bool(target.get("shaken")) and not obj
    existing = int(target.get("wounds", 0) or 0)
    cap = max(1, MAX_WOUNDS + 1 - existing) if wild_t else 1
    incap = labels[-1]
    fx = {1: _hit_effects(damage, toughness, cap, obj), 2: _hit_effects(damage_raise, toughness, cap, obj)}

    def cat(v: int) -> int:
        t = v + modifier
        return 0 if t < tn else 1 if t < tn + RAISE else 2

    trait = _odds.die_distribution(sides, explode=True)
    ttypes: dict = {}
    values: dict[int, list] = {0: [], 1: [], 2: []}
    for v, p in sorted(trait.items()):
        key = "one" if v == 1 else cat(v)
        ttypes[key] = ttypes.get(key, 0.0) + p
        if v != 1:
            values[cat(v)].append((v, p))
    type_cat = {"one": cat(1), 0: 0, 1: 1, 2: 2}
    if wild_card:
        wtypes: dict = {}
        for v, p in _odds.die_distribution(6, explode=True).items():
            key = "one" if v == 1 else cat(v)
            wtypes[key] = wtypes.get(key, 0.0) + p
    else:
        wtypes = {None: 1.0}

    def first_lowest(c: int, s: int) -> list[float]:
        """Of ``s`` dice of category ``c`` (none a 1), the chance that the k-th is the lowest (first on a tie)."""
        vals = values[c]
        total = sum(p for _, p in vals)
        q = [(v, p / total) for v, p in vals]
        out = []
        for k in range(s):
            acc, above = 0.0, 1.0
            for v, p in q:
                above -= p  # strictly above v
                acc += p * above ** k * (above + p) ** (s - 1 - k)
            out.append(acc)
        return out

    @lru_cache(maxsize=None)
    def after(hits: tuple) -> tuple:
        """The outcome of these hits (1 plain, 2 with a raise) in order, as (label, chance) pairs."""
        states = {(shaken0, 0, False): 1.0}
        for h in hits:
            nxt: dict = {}
            for (sh, w, broken), p in states.items():
                for e, pe in fx[h]:
                    if e == 0:
                        key = (sh, w, broken)
                    elif e == "b":
                        key = (sh, w, True)
                    elif e == "s":
                        key = (True, min(cap, w + 1), broken) if sh else (True, w, broken)
                    else:
                        key = (True, min(cap, w + e), broken)
                    nxt[key] = nxt.get(key, 0.0) + p * pe
            states = nxt
        out: dict = {}
        for (sh, w, broken), p in states.items():
            if obj:
                label = BROKEN if broken else HOLDS
            elif w and (not wild_t or existing + w > MAX_WOUNDS):
                label = incap
            elif w:
                label = _wound_label(w)
            else:
                label = SHAKEN if sh and not shaken0 else NO_EFFECT
            out[label] = out.get(label, 0.0) + p
        return tuple(out.items())

    result = {label: 0.0 for label in labels}

    def add(cats: list[int], p: float) -> None:
        hits = tuple(c for c in cats if c > 0)
        if not hits:
            result[MISS] += p
            return
        for label, pl in after(hits):
            result[label] += p * pl

    for seq in product(list(ttypes), repeat=rof):
        p_seq = 1.0
        for t in seq:
            p_seq *= ttypes[t]
        if p_seq == 0:
            continue
        ones = seq.count("one")
        cats = [type_cat[t] for t in seq]
        low = min(cats)
        for w, pw in wtypes.items():
            p = p_seq * pw
            if w == "one" and 2 * ones >= rof:
                result[CRITICAL] += p
                continue
            if w is None or w == "one" or w <= low:
                add(cats, p)  # the Wild Die is lower, or changes no category
                continue
            slots = [i for i, c in enumerate(cats) if c == low]
            firsts = [i for i in slots if seq[i] == "one"]
            if firsts:
                choices = [(firsts[0], 1.0)]
            else:
                choices = list(zip(slots, first_lowest(low, len(slots))))
            for i, pi in choices:
                new = list(cats)
                new[i] = w
                add(new, p * pi)
    return [{"label": label, "p": p} for label, p in result.items() if p > 0 or label in (MISS,)]

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


@lru_cache(maxsize=256)
def _damage(expr: str, modifier: int, raise_bonus: bool) -> tuple[tuple, tuple]:
    """The damage roll's distribution with its modifier, and with a raise's bonus d6 (acing) where it has one
    ("Damage"), kept for the same roll: a pure function of them, asked again for every target and square (#60)."""
    dmg = {v + modifier: p for v, p in _odds.distribution(expr).items()}
    dmg_raise = _odds.convolve(dmg, _odds.die_distribution(6, explode=True)) if raise_bonus else dmg
    return tuple(sorted(dmg.items())), tuple(sorted(dmg_raise.items()))


def attack_odds(sides: int, wild_card: bool, modifier: int, tn: int, rof: int,
                damage: dict, damage_raise: dict, toughness: int, shaken: bool) -> dict:
    """:func:`_attack_odds`, kept for the same dice, modifier, target number, damage and Toughness: a pure
    function of them, tens of milliseconds to enumerate, asked again and again when a foe's plans weigh every
    target and square (#60). A fresh dict each time (its figures are numbers)."""
    return dict(_attack_odds_kept(sides, bool(wild_card), modifier, tn, rof, tuple(sorted(damage.items())),
                                  tuple(sorted(damage_raise.items())), toughness, bool(shaken)))


@lru_cache(maxsize=512)
def _attack_odds_kept(sides: int, wild_card: bool, modifier: int, tn: int, rof: int, damage: tuple,
                      damage_raise: tuple, toughness: int, shaken: bool) -> dict:
    return _attack_odds(sides, wild_card, modifier, tn, rof, dict(damage), dict(damage_raise), toughness, shaken)


def _attack_odds(sides: int, wild_card: bool, modifier: int, tn: int, rof: int,
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
    # The Wild Die counts only as what it does to the roll: a 1 (a critical failure with half the trait dice 1), no
    # more than the lowest trait die ``m`` (nothing), or above it in one of the three categories (it replaces that
    # die): its faces summed by those, once for each ``m`` (a handful of sums rather than one per face).
    wvals = sorted(wild.items()) if wild_card else []

    tail = {}  # m -> probability mass strictly above m
    acc = 0.0
    for v, p in reversed(tvals):
        tail[v] = acc
        acc += p
    result = {"hit": 0.0, "raise": 0.0, "effect": 0.0, "wound": 0.0, "critical_failure": 0.0,
              "expected_hits": 0.0}
    n = rof
    wild_by = {}  # m -> (what the Wild Die does, its chance): "one", None (nothing), or the category it puts above m
    if wild_card:
        above_w = [[0.0, 0.0, 0.0]]  # above_w[i]: the chance of each category over the faces wvals[-i:]
        for w, pw in reversed(wvals):
            running = list(above_w[-1])
            if w != 1:
                running[cat(w)] += pw
            above_w.append(running)
        faces, one, every = [w for w, _ in wvals], wild.get(1, 0.0), sum(pw for _, pw in wvals)
        for m, _pm in tvals:
            up = above_w[len(wvals) - bisect_right(faces, m)]
            sums = {"one": one, None: every - one - sum(up), 0: up[0], 1: up[1], 2: up[2]}
            wild_by[m] = [(k, v) for k, v in sums.items() if v]
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
                    for up, pw in wild_by[m] if wild_card else ((None, 1.0),):
                        p = p_conf * p_rest * pw
                        if p == 0:
                            continue
                        if up == "one" and 2 * ones >= n:
                            result["critical_failure"] += p
                            continue
                        counts = [c0, c1, c2]
                        counts[cat(m)] += j
                        if up is not None and up != "one":
                            counts[cat(m)] -= 1
                            counts[up] += 1
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

