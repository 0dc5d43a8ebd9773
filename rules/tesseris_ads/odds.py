"""Exact odds of an attack before it is rolled (*Tesseris Combat*, "Defending",
"Ranged Weapons and Multiple Shots in a Round"; the core dT facts)."""

from __future__ import annotations

import functools

from .. import odds as core_odds
from ..system import AttackRequest, AttackResult
from . import cover as cover_mod
from .attack import DEFENSE_WORDS, burst_hits, check_one_target, hit_nets_of, multi_strike_defense, plan_attack, settings_of, soak_for
from .checks import defense_distribution, pool_distribution
from .data import ACTIONS, CRITICAL_SUCCESSES
from .health import damage_split
from .sheet import char, full_max_stamina, max_wounds, num, stamina
from .spray import COVERING_FIRE_OUTCOME, covering_fire_odds, spray_label, spray_odds
from ..text import say
from .status import names as status_names
from .ticks import state_of

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


#: the outcome lines, in this order, in the words of *Tesseris Combat*
SEVERITIES = ("armour soaks it", "Stamina only", "1 wound", "2+ wounds")
#: each outcome line of a hit as people read it: (critical, severity) -> words; the English is the line itself
HIT_LINES = {
    (False, "armour soaks it"): say("hit: armour soaks it"), (False, "Stamina only"): say("hit: Stamina only"),
    (False, "1 wound"): say("hit: 1 wound"), (False, "2+ wounds"): say("hit: 2+ wounds"),
    (True, "armour soaks it"): say("critical: armour soaks it"), (True, "Stamina only"): say("critical: Stamina only"),
    (True, "1 wound"): say("critical: 1 wound"), (True, "2+ wounds"): say("critical: 2+ wounds"),
}
#: the outcome lines of the maneuvers (no damage), by action
MANEUVER_LINES = {"grapple": say("hit: Grappled"), "trip": say("hit: Prone"), "pin": say("hit: Pinned"),
                  "choke_out": say("hit: Unconscious"), "distracting_shot": say("hit: 2 ticks lost"),
                  "break_pin": say("hit: pin broken"), "disarm": say("hit: disarmed")}
WEAPON_TAKEN = say("hit: weapon taken")
JOINS_GRAPPLE = say("joins the grapple")
#: a defense's name in an outcome line or a modifier's label
AVOIDS = {"duck": say("Duck avoids"), "dodge": say("Dodge avoids"), "block": say("Block avoids"),
          "parry": say("Parry avoids"), "scrutiny": say("Scrutiny avoids"), "athletics": say("Athletics avoids"),
          "grapple_defense": say("Grapple Defense avoids"), "melee_or_acrobatics": say("Melee or Acrobatics avoids")}


def _avoided(attack_total: int, defense: str) -> str:
    """A miss in Tesseris words: no success at all, or the defense (or the cover) avoided it."""
    if attack_total < 1:
        return say("miss")
    if defense == "none":
        return say("cover stops it")
    return AVOIDS.get(defense) or f"{defense.replace('_', ' ').title()} avoids"


def _severity(after_soak: int, wounds: int) -> str:
    if wounds >= 2:
        return SEVERITIES[3]
    if wounds == 1:
        return SEVERITIES[2]
    return SEVERITIES[1] if after_soak > 0 else SEVERITIES[0]


def _hit_line(critical: bool, severity: str) -> str:
    return HIT_LINES[(bool(critical), severity)]


def outcome_label(result: AttackResult) -> str:
    """The outcome line of ``attack_odds`` that a rolled attack falls in (*Tesseris Combat*,
    "Defending", "Damage, Stamina, and Wounds"): a miss or the defense that avoided it,
    else a hit (a critical when any hit was one) by what it did: soaked by the armour,
    Stamina only, one Wound, two or more."""
    d = result.details
    if d.get("action") == "covering_fire":
        return COVERING_FIRE_OUTCOME
    if d.get("action") == "spray_n_pray":
        return spray_label(result)
    if d.get("action") == "join_grapple":
        return JOINS_GRAPPLE
    if not result.hit:
        return _avoided(num(d.get("attack_total")), d.get("defense", "none"))
    if d.get("action") == "disarm" and d.get("taken"):
        return WEAPON_TAKEN
    if d.get("action") in MANEUVER_LINES:
        return MANEUVER_LINES[d["action"]]
    reports = d.get("hit_reports") or []
    crit = any(r["critical"] for r in reports)
    after = sum(r["after_soak"] for r in reports)
    wounds = sum(r["wounds"] for r in reports)
    return _hit_line(crit, _severity(after, wounds))


def _order(label: str) -> tuple:
    if not label.startswith(("hit:", "critical:")):
        return (0, label != "miss", label)
    head, tail = label.split(": ", 1)
    return (1 + (head == "critical"), SEVERITIES.index(tail) if tail in SEVERITIES else -1, label)


@functools.lru_cache(maxsize=4096)
def _hits_outcome(hit_nets: tuple[int, ...], defense_total: int, base: int, impact: bool, crit_d10: bool, crit_basis: str,
                  soak: int, stamina_left: int, no_wounds: bool, extra_wounds: int, room: int = 0
                  ) -> tuple[tuple[tuple[str, float], ...], float, float, float]:
    """Outcome lines of the hits of one attack and defense total: the damage of each hit
    (a critical's d10 enumerated), Stamina first and Wounds after, hit after hit; with them the mean Stamina
    lost and the mean Wounds taken ("Damage, Stamina, and Wounds"). Kept for the next call with the
    same values: a preview asks again for every defense the target may choose, and for the next target alike."""
    crit_any = False
    # states: (Stamina left, Wounds, damage after soak > 0) -> p
    states: dict[tuple[int, int, bool], float] = {(stamina_left, 0, False): 1.0}
    for net in hit_nets:
        basis = net if crit_basis == "net" else net + defense_total
        crit = basis >= CRITICAL_SUCCESSES
        crit_any = crit_any or crit
        raw = base + (net // 2 if impact else net)
        extra = [(k, 0.1) for k in range(1, 11)] if crit and crit_d10 else [(0, 1.0)]
        nxt: dict[tuple[int, int, bool], float] = {}
        for (st, w, hurt), p in states.items():
            for k, q in extra:
                after = raw + k - soak
                after = after if after > 0 else 0  # (max(0, ...) without the call: a million a forecast)
                if no_wounds:
                    lost, wounds = min(after, st), 0
                else:
                    lost, wounds = damage_split(after, st)
                key = (st - lost, w + wounds + extra_wounds, hurt or after > 0)
                nxt[key] = nxt.get(key, 0) + p * q
        states = nxt
    out: dict[str, float] = {}
    lost = wounds = down = 0.0
    for (st, w, hurt), p in states.items():
        label = _hit_line(crit_any, _severity(1 if hurt else 0, w))
        out[label] = out.get(label, 0) + p
        lost += p * (stamina_left - st)
        wounds += p * w
        down += p if room > 0 and w >= room else 0.0
    return tuple(out.items()), lost, wounds, down


def outcome_odds(request: AttackRequest, plan, att: Dist, dfn: Dist, settings: dict, harm: dict | None = None) -> list[dict]:
    """Every outcome line with its chance, by exact enumeration of the attack and defense
    totals (and a critical's d10), mirroring ``resolve_attack``. ``harm``, when given, gets the mean
    Stamina lost and Wounds taken of the same enumeration (``stamina``, ``wounds``: the foes' plans, #60)."""
    action, weapon = plan.action, plan.weapon
    opts = request.options or {}
    tgt = request.target
    t_state = plan.defender_state or state_of(tgt)
    if action.key == "grapple":
        if "Grappled" in status_names(tgt.sheet.get("statuses")):
            return [{"label": JOINS_GRAPPLE, "p": 1.0}]
    strength = char(request.attacker.sheet, "strength") if (plan.mode == "melee" or weapon.get("kind") == "thrown") else 0
    base = num(weapon.get("damage")) + strength + num(action.extra.get("damage"))
    impact = bool(weapon.get("impact"))
    swordpoint = bool(opts.get("swordpoint"))
    crit_d10 = swordpoint or settings["critical_hit"] == "plus_d10"
    crit_basis = "always" if swordpoint else settings["critical_basis"]
    if swordpoint:
        soak = 0
    else:
        in_cover_loc = plan.cover_bonus > 0 and plan.location in cover_mod.covered_locations({**t_state, "in_cover": True})
        cov_ap = cover_mod.cover_ap(plan.cover_material, settings) if in_cover_loc else 0
        soak, _ = soak_for(tgt.sheet, plan.location, t_state, cov_ap, num(weapon.get("ap")) + num(action.extra.get("ap")))
    st_left = stamina(tgt.sheet)
    no_wounds = bool(action.extra.get("no_wounds"))
    extra_wounds = num(action.extra.get("wounds"))
    take = opts.get("take", True) is not False
    # the Wounds that put the target down at once: dead at its Wound limit or its full Stamina in Wounds ("Unconsciousness,
    # Crippling, and Death"); 0 for a target already past it (#67: the chance to put it down)
    limit = int(min(max_wounds(tgt.sheet), full_max_stamina(tgt.sheet)))
    room = max(0, limit - int(num(tgt.sheet.get("wounds"))))
    numbers = (tuple(att.items()), tuple(dfn.items()), plan.bullets, plan.defense, take, base, impact, crit_d10,
               crit_basis, soak, st_left, no_wounds, extra_wounds, room)
    if ACTIONS.get(action.key) is action:  # the rules' own action: its table kept for the next attack alike
        lines, lost, wounds, down = _outcome_table(action.key, *numbers)
    else:
        lines, lost, wounds, down = _table(action, *numbers)
    if harm is not None:
        harm.update(stamina=lost, wounds=wounds, down=down, down_limit=limit)
    return [{"label": label, "p": p} for label, p in lines]


@functools.lru_cache(maxsize=1024)
def _outcome_table(action_key: str, *numbers) -> tuple[tuple[tuple[str, float], ...], float, float, float]:
    """:func:`_table` of the action named, kept: a pure function of the numbers ``outcome_odds`` reads, which the
    foes' plans (#60) ask again and again (the same attack at the same target from another square, another way)."""
    return _table(ACTIONS[action_key], *numbers)


def _table(action, att_items: tuple, dfn_items: tuple, bullets: int, defense: str, take: bool, base: int, impact: bool,
           crit_d10: bool, crit_basis: str, soak: int, st_left: int, no_wounds: bool, extra_wounds: int, room: int = 0
           ) -> tuple[tuple[tuple[str, float], ...], float, float, float]:
    """The outcome lines of ``outcome_odds`` (each with its chance, in their order), the mean Stamina lost and
    Wounds taken, and the chance the Wounds reach ``room`` (the target down; 0: never counted), from the attack and defense totals' chances and the numbers of the damage."""
    # An attack total ``a`` against a defense total ``d`` ends as its net ``a - d`` says (each bullet's net, the
    # maneuver's margin), and as ``a`` says only in two ways: a total under 1 is a plain miss (``_avoided``),
    # and a critical judged on the attack (``critical_basis`` "attack": each bullet's ``net + d``, that is
    # ``a`` less 2 a bullet). So the pairs are summed by (net, what of ``a`` counts) first, and each sum judged once:
    # a few dozen judgements rather than one per pair (hundreds; the preview judges every defense the target has).
    by_total = crit_basis not in ("net", "always")
    pairs: dict[tuple[int, int], float] = {}
    get = pairs.get
    for a, pa in att_items:
        of_a = a if by_total else min(max(a, 0), 1)  # (else an attack total standing for all alike: 0 under 1, 1 not)
        for d, pd in dfn_items:
            key = (a - d, of_a)
            pairs[key] = get(key, 0.0) + pa * pd
    out: dict[str, float] = {}
    mean_lost = mean_wounds = mean_down = 0.0
    for (net, of_a), p in pairs.items():
        nets = [net - 2 * i for i in range(bullets)]
        hit_nets = hit_nets_of(action, nets)
        if not hit_nets:
            label = _avoided(of_a, defense)
            out[label] = out.get(label, 0) + p
            continue
        if action.key in ("grapple", "trip", "disarm", "pin", "choke_out", "distracting_shot", "break_pin"):
            label = MANEUVER_LINES.get(action.key, MANEUVER_LINES["disarm"])
            if action.key == "disarm" and nets[0] >= action.extra["take_margin"] and take:
                label = WEAPON_TAKEN
            out[label] = out.get(label, 0) + p
            continue
        if crit_basis == "always":
            defense_total, basis = 10 ** 6, "total"
        elif by_total:  # (the defense total: ``a`` less the net)
            defense_total, basis = of_a - net, "total"
        else:
            defense_total, basis = 0, "net"
        lines, lost, wounds, down = _hits_outcome(tuple(hit_nets), defense_total, base, impact, crit_d10, basis, soak,
                                                  st_left, no_wounds, extra_wounds, room)
        for label, q in lines:
            out[label] = out.get(label, 0) + p * q
        mean_lost += p * lost
        mean_wounds += p * wounds
        mean_down += p * down
    total = sum(out.values()) or 1.0
    return (tuple((k, v / total) for k, v in sorted(out.items(), key=lambda kv: _order(kv[0])) if v > 0),
            mean_lost / total, mean_wounds / total, mean_down / total)


@functools.lru_cache(maxsize=1024)
def _spread(att_items: tuple, dfn_items: tuple, bullets: int, crit_on_net: bool) -> tuple[tuple, tuple, float]:
    """The net successes' chances, the hits' (``bullets`` against one defense) and a critical's, from the attack and
    defense totals' chances: kept, as ``_outcome_table`` is."""
    att, dfn = dict(att_items), dict(dfn_items)
    net = core_odds.convolve(att, core_odds.scale(dfn, -1))
    net = {v: net[v] for v in sorted(net)}
    hits = hits_distribution(net, bullets)
    if crit_on_net:
        crit = core_odds.at_least(net, CRITICAL_SUCCESSES)
    else:
        crit = sum(pa * pd for a, pa in att.items() for d, pd in dfn.items() if a - d >= 1 and a >= CRITICAL_SUCCESSES)
    return tuple(net.items()), tuple(hits.items()), crit


def attack_odds(request: AttackRequest, part: bool = False) -> dict:
    """The chances of an attack as planned (same pools and modifiers as the roll); a Spray 'n Pray's
    per opponent and in all (``spray.spray_odds``; ``part``: one opponent of it, hit once at most)."""
    settings = settings_of(request)
    if not part:
        check_one_target(request)
        if (request.options or {}).get("action") == "spray_n_pray":
            return spray_odds(request, settings, lambda r: attack_odds(r, part=True))
        if (request.options or {}).get("action") == "covering_fire":
            return covering_fire_odds(request)
    plan = plan_attack(request, settings)
    if part:
        plan.bullets = 1
    if (request.options or {}).get("dt_successes") is not None:
        att = {int(request.options["dt_successes"]) + plan.attack_flat: 1.0}
    else:
        att = {v + plan.attack_flat: p for v, p in pool_distribution(plan.attack_pool).items()}
    shared = multi_strike_defense(request, state_of(request.target))
    if shared is not None:
        dfn = {num(shared["total"]): 1.0}
    elif plan.defense == "none":
        dfn = {plan.cover_bonus: 1.0}
    else:
        dfn = {v + plan.defense_flat: p for v, p in defense_distribution(plan.defense_pool, plan.defense_rerolls)}
    net_items, hits_items, crit = _spread(tuple(att.items()), tuple(dfn.items()), plan.bullets,
                                          settings["critical_basis"] == "net")
    net, hits = dict(net_items), dict(hits_items)
    harm: dict = {"stamina": 0.0, "wounds": 0.0}
    outcomes = outcome_odds(request, plan, att, dfn, settings, harm)
    name = request.target.name
    attack_mods, defense_mods = [_mod_dict(m) for m in plan.attack_mods], [_mod_dict(m) for m in plan.defense_mods]
    modifiers = [dict(m) for m in attack_mods]
    defense = DEFENSE_WORDS.get(plan.defense) or plan.defense.replace("_", " ").title()
    modifiers += [{**m, "label": say("{name}'s {defense}: {modifier}", name=name, defense=defense, modifier=m["label"])}
                  for m in defense_mods]
    return {
        "outcomes": outcomes,
        "modifiers": modifiers,
        "hit": sum(o["p"] for o in outcomes if o["label"].startswith(("hit", "critical", "joins"))),
        "critical": crit,
        "attack": att,
        "defense": dfn,
        "defense_kind": plan.defense,
        "net": net,
        "hits": hits,
        "expected_hits": core_odds.mean(hits),
        "mean_stamina": harm["stamina"],  # Stamina lost and Wounds taken, on average (the foes' plans, #60)
        "mean_wounds": harm["wounds"],
        "down": harm.get("down", 0.0),  # the chance the target goes down at once (dead at its Wound limit; #67)
        "down_limit": harm.get("down_limit", 0),
        "bullets": plan.bullets,
        "attack_modifiers": attack_mods,
        "defense_modifiers": defense_mods,
    }


def _mod_dict(m) -> dict:
    """``Modifier.to_dict`` without its deep copy: a modifier's fields are words and numbers, kept as they are."""
    return dict(vars(m))
