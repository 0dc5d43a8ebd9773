"""Exact odds of an attack before the roll: hit, critical hit, defense, hits landing, injury.
"""

from __future__ import annotations

from collections import defaultdict

from .. import odds as _odds
from ..system import AttackRequest, Modifier, RuleError, RuleNotImplemented
from .attack import (
    attack_info,
    attack_modifiers,
    attack_plan,
    attack_still_open,
    check_shots_left,
    is_suppression,
    own_copy,
    rapid_strike_penalty,
    shots_to_spend,
)
from .checks import THREE_D6, effective_skill, is_success, roll_result, success_chance
from .data import S_ATTACK, S_RANGED, S_READING, settings_of
from .defenses import FLANKED, FLANKED_WORDS, available_defenses, defense_level
from .health import (down_chance, hit_knockouts, hit_outcomes, hits_knockouts, injury_distribution,  # noqa: F401
                     is_major_wound, location_injury)  # (the package exports some from here)
from .locations import MISS_BY_ONE_TORSO
from .maneuvers import chosen_maneuver, damage_adjustments
from .movement import distance_yards, is_square
from .outcomes import attack_outcomes
from .ranged import extra_hits, rapid_fire_bonus, rapid_strike_shots
from .sheet import attack_weapon, int_of, num_of, parse_damage, weapon_kind
from ..text import say, say_n


def attack_odds(request: AttackRequest, settings: dict | None = None) -> dict:
    """Exact chances before the roll: hit, critical hit, the defense succeeding, hits landing and the
    distribution of total injury ("Attacking", "Defending", "Damage"; 3d6 core facts).

    An attack aimed at a location of note 1 ("Hit Locations": "if an attack missed by 1 it hits the
    torso instead") that misses by exactly 1 lands on the torso: its injury is counted with the
    torso's DR and wounding, as :func:`rules.gurps_lite.attack.attack` resolves it
    (``p_torso_instead`` is the chance of that).

    ``down`` (#67): the chance the attack puts the target out of the fight before it acts again ("Injury"), from the
    same hits and each hit's injury and knockdown roll by where it lands (:func:`rules.gurps_lite.health.down_chance`).

    The figures above are for the first attack of a request ("per attack" when it makes several);
    ``hit`` and ``outcomes`` are for the whole request, as :func:`rules.gurps_lite.outcomes.attack_outcomes`
    enumerates it: ``hit`` is ``AttackResult.hit`` (at least one hit lands past the defense), the
    outcome lines critical miss, miss, defended, and the hits by injury band or a major wound.
    """
    opts = request.options or {}
    st = settings_of(settings or opts.get("settings"))
    request = own_copy(request)
    a, t = request.attacker, request.target
    wname, weapon = attack_weapon(a.sheet, request.weapon, a.state)
    attack_still_open(a)
    if not weapon.get("area"):
        shots_to_spend(request, attack_plan(request, wname, weapon))
    if weapon.get("area") and opts.get("template") is not None:
        return area_odds(request, wname, weapon, st)
    if weapon.get("area"):
        raise RuleNotImplemented(say("odds of an area attack at a token (its scatter by the dive) are not computed: "
                                     "lay the sphere template for them"))
    maneuver, variant, _moved = chosen_maneuver(opts, a.state)
    if len(request.targets) > 1:
        return multi_odds(request, wname, weapon, st)
    whole = attack_outcomes(request, wname, weapon, st)
    if maneuver == "feint":
        base, _label, mods, cap, _facts = attack_modifiers(request, wname, weapon, st)
        return {"skill": effective_skill(base, mods, cap), "modifiers": [m.to_dict() for m in mods],
                "p_hit": 0.0, "p_damage": 0.0, "attacks": 1, "note": say("a feint: a quick contest, no attack"), **whole}
    damage_type = "cut" if opts.get("tip_slash") else weapon.get("type", "cr")
    extra = []
    if opts.get("rapid_strike"):
        extra = rapid_strike_penalty(a.sheet, int_of(opts["rapid_strike"]), weapon_kind(weapon) != "melee")
    elif opts.get("dual_weapon"):
        extra = [Modifier(say("Dual Weapon Attack"), -4, S_ATTACK)]
    base, blabel, mods, cap, facts = attack_modifiers(request, wname, weapon, st, extra)
    location = facts["location"]
    shots = max(1, int_of(opts.get("shots", 1)))
    if is_suppression(maneuver, variant):  # the whole RoF at whoever enters the area
        shots = int_of(weapon.get("rof"), 1)
    if opts.get("rapid_strike") and facts["ranged"]:  # the first attack's share of the RoF
        split = rapid_strike_shots(int_of(weapon.get("rof"), 1), 2 ** int_of(opts["rapid_strike"]), opts.get("shots"))
        shots = split[0]
    pellets = max(1, int_of(weapon.get("pellets"), 1))
    shotgun_mult = 1
    if facts["ranged"] and pellets > 1:
        half_d = num_of(weapon.get("half_d"))
        if half_d and request.distance <= 0.1 * half_d:
            shotgun_mult = max(1, pellets // 2)
        else:
            shots *= pellets
    if facts["ranged"] and shots > 1:
        b = rapid_fire_bonus(shots)
        if b:
            mods.append(Modifier(say("rapid fire ({n} shots)", n=shots), b, S_RANGED))
    skill = effective_skill(base, mods, cap)
    rcl = max(1, int_of(weapon.get("rcl"), 1))
    # defense
    info = attack_info(request, weapon, damage_type)
    choice = opts.get("defense", "best")
    dlevel = None
    if choice not in (None, "none"):
        if isinstance(choice, dict):
            try:
                b, m, _ = defense_level(t.sheet, t.state, choice, info, st)
                dlevel = effective_skill(b, m)
            except RuleError:
                dlevel = None
        else:
            avail = available_defenses(t.sheet, t.state, info, st)
            if choice != "best":
                avail = [d for d in avail if d["type"] == choice]
            dlevel = avail[0]["level"] if avail else None
    # hits by where they land: at the aimed location, or at the torso after a miss by 1
    hits_at: dict[str, dict[int, float]] = {"aimed": defaultdict(float), "torso": defaultdict(float)}
    p_hit = p_crit = p_torso = 0.0
    for r, p in THREE_D6.items():
        res = roll_result(r, skill)
        margin = skill - r
        place = "aimed"
        if not is_success(res):
            if margin == -1 and res == "failure" and location in MISS_BY_ONE_TORSO:
                margin, place = 0, "torso"
                p_torso += p
            else:
                hits_at["aimed"][0] += p
                continue
        p_hit += p
        hits = extra_hits(max(0, margin), rcl, shots) if shots > 1 else 1
        if res == "critical success":
            p_crit += p
        if dlevel is None or (res == "critical success" and st["critical_hit_no_defense"]):
            hits_at[place][hits] += p
            continue
        for dr_, pd in THREE_D6.items():
            dres = roll_result(dr_, dlevel)
            if is_success(dres):
                stopped = min(hits, 1 + max(0, dlevel - dr_)) if st["defense_stops_extra_hits"] else hits
            else:
                stopped = 0
            hits_at[place][hits - stopped] += p * pd
    hits_dist: dict[int, float] = defaultdict(float)
    for dist in hits_at.values():
        for k, pk in dist.items():
            hits_dist[k] += pk
    p_def = success_chance(dlevel) if dlevel is not None else 0.0
    half = bool(facts.get("half_damage"))
    dmg_mods = damage_adjustments(parse_damage(weapon.get("damage", "1d"), int_of(a.sheet.get("ST"), 10))[1],
                                  facts["maneuver"], facts["variant"], weapon)
    dmg_bonus = int(sum(m.value for m in dmg_mods))
    st_attacker = int_of(a.sheet.get("ST"), 10)
    one = injury_distribution(t.sheet, weapon, damage_type, location if location != "weapon" else "torso",
                              st_attacker, dmg_bonus, half, shotgun_mult, st)
    per_hit = {"aimed": one}
    if p_torso:
        per_hit["torso"] = injury_distribution(t.sheet, weapon, damage_type, "torso", st_attacker, dmg_bonus, half,
                                               shotgun_mult, st)
    total: dict[int, float] = defaultdict(float)
    for place, dist in hits_at.items():
        for k, pk in dist.items():
            for v, pv in _odds.power(per_hit.get(place, one), k).items():
                total[v] += pk * pv
    # the chance it goes out of the fight by this attack ("Injury"; #67): each hit's injury and knockdown roll by
    # where it lands, the hits by place as above, then the death checks and the collapse roll (health.down_chance)
    down = 0.0
    if damage_type != "fat":
        knock = {"aimed": hit_knockouts(t.sheet, weapon, damage_type, location if location != "weapon" else "torso",
                                        st_attacker, dmg_bonus, half, shotgun_mult, st)}
        if p_torso:
            knock["torso"] = hit_knockouts(t.sheet, weapon, damage_type, "torso", st_attacker, dmg_bonus, half,
                                           shotgun_mult, st)
        joint: dict[tuple[int, bool], float] = defaultdict(float)
        for place, dist in hits_at.items():
            for k, pk in dist.items():
                for v, pv in hits_knockouts(knock.get(place, knock["aimed"]), k).items():
                    joint[v] += pk * pv
        down = down_chance(t.sheet, joint)
    n_attacks = 2 ** int_of(opts["rapid_strike"]) if opts.get("rapid_strike") else 2 if opts.get("dual_weapon") else 1
    return {
        "skill": skill,
        # the roll to hit's modifiers, then the damage roll's (All-Out Strong...), each saying which roll
        "modifiers": [m.to_dict() for m in mods] + [{**m.to_dict(), "label": say("{modifier}: damage", modifier=m.label)}
                                                       for m in dmg_mods] + _defense_notes(info, dlevel, st),
        "p_hit": p_hit,
        "p_critical_hit": p_crit,
        "defense_level": dlevel,
        "p_defense": p_def,
        "p_damage": 1 - hits_dist.get(0, 0.0),
        "hits": dict(sorted(hits_dist.items())),
        "injury_per_hit": one,
        "p_torso_instead": p_torso,
        "injury": dict(sorted(total.items())),
        "mean_injury": _odds.mean(total),
        "down": down,
        "attacks": n_attacks,
        "note": say("per attack") if n_attacks > 1 else "",
        **whole,
    }


def _defense_notes(info, dlevel: int | None, st: dict) -> list[dict]:
    """The defense's modifiers the odds card names beside the roll to hit's (the defense level has them): flanked
    (the readings' "Flanking", with its setting), while the target defends."""
    if dlevel is None or not (st["flanking"] and info.flanked):
        return []
    return [Modifier(say("{modifier}: defense", modifier=FLANKED_WORDS), FLANKED,
                     S_READING).to_dict()]


def multi_odds(request: AttackRequest, wname: str, weapon: dict, st: dict) -> dict:
    """The odds of a Rapid Strike at several targets or Spraying Fire (:mod:`rules.gurps_lite.multi`):
    each target's own lines (``targets``), ``hit`` the chance at least one is hit (the targets' rolls are
    independent), and ``outcomes`` how many targets are hit."""
    from .multi import multi_plan, subrequests

    mp = multi_plan(request, wname, weapon, rapid_strike_penalty)
    check_shots_left(wname, weapon, mp["fired"])
    per = []
    mods: list[dict] = []
    count: dict[int, float] = {0: 1.0}
    for sub, plan in zip(subrequests(request), mp["per_target"]):
        sub = own_copy(sub)
        whole = attack_outcomes(sub, wname, weapon, st, plan)
        per.append({"id": sub.target.id, "name": sub.target.name, "hit": whole["hit"], "outcomes": whole["outcomes"],
                    "attacks": len(plan)})
        _b, _l, m, _c, _f = attack_modifiers(sub, plan[0][0], plan[0][1], st, plan[0][2])
        mods += [{**x.to_dict(), "label": say("{target}: {modifier}", target=sub.target.name, modifier=x.label)} for x in m]
        nxt: dict[int, float] = defaultdict(float)
        for k, p in count.items():
            nxt[k + 1] += p * whole["hit"]
            nxt[k] += p * (1 - whole["hit"])
        count = dict(nxt)
    n = len(per)
    outcomes = [{"label": say("no target hit") if k == 0 else say("{k} of {n} targets hit", k=k, n=n), "p": p}
                for k, p in sorted(count.items()) if p > 0]
    if mp["mode"] != "spraying":
        note = say("Rapid Strike at {n} targets", n=n)
    elif mp["wasted"]:
        note = say_n("Spraying Fire at {targets} targets, {n} shot wasted sweeping",
                     "Spraying Fire at {targets} targets, {n} shots wasted sweeping", mp["wasted"], targets=n)
    else:
        note = say("Spraying Fire at {n} targets", n=n)
    return {"hit": 1 - count.get(0, 0.0), "outcomes": outcomes, "targets": per, "modifiers": mods,
            "mode": mp["mode"], "wasted": mp["wasted"],
            "note": note}


#: a token's outcomes under a laid area attack, in the reader's words
AREA_WORDS = {"not under it": say("not under it"), "dives clear": say("dives clear"), "caught": say("caught")}

_SCATTER = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def area_odds(request: AttackRequest, wname: str, weapon: dict, st: dict) -> dict:
    """The odds of an area attack laid on a square ("Area of Effects"): the roll at +4 (aimed at the
    ground); a miss veers the centre by the margin of failure in one of 8 directions; each token then
    within the weapon's radius dives (a Dodge at +3) or is caught. Per token: not under it, dives clear,
    caught; ``hit``: anyone caught; ``outcomes``: how many are caught."""
    from dataclasses import replace as _replace

    opts = request.options or {}
    if opts.get("template") != "sphere" or not is_square(opts.get("centre")):
        raise RuleError(say("a 3d6 area attack lays the sphere template on a square (3d6 Combat, 'Area of Effects')"))
    req = _replace(request, options={**opts, "aim_at_ground": True})
    base, _label, mods, cap, _facts = attack_modifiers(req, wname, weapon, st)
    skill = effective_skill(base, mods, cap)
    radius = num_of(weapon.get("area"))
    centre = tuple(int(v) for v in opts["centre"][:2])
    pool = [c for c in [*request.others, request.target] if c.position is not None]
    info = attack_info(req, weapon, weapon.get("type", "cr"))
    clear: dict[str, float] = {}
    for c in pool:
        p = 0.0
        if opts.get("defense") != "none":
            try:
                p = success_chance(effective_skill(*defense_level(c.sheet, c.state or {}, {"type": "dodge", "dive": True},
                                                                  info, st)[:2]))
            except RuleError:
                p = 0.0
        clear[c.id] = p
    per: dict[str, dict[str, float]] = {c.id: defaultdict(float) for c in pool}
    count: dict[int, float] = defaultdict(float)
    for r, p in THREE_D6.items():
        res = roll_result(r, skill)
        spots = [(centre, 1.0)] if is_success(res) else [
            ((centre[0] + dx * (r - skill), centre[1] + dy * (r - skill)), 1 / 8) for dx, dy in _SCATTER]
        for where, pw in spots:
            dist = {0: 1.0}
            for c in pool:
                if distance_yards(where, c.position) > radius:
                    per[c.id]["not under it"] += p * pw
                    continue
                per[c.id]["dives clear"] += p * pw * clear[c.id]
                per[c.id]["caught"] += p * pw * (1 - clear[c.id])
                nxt: dict[int, float] = defaultdict(float)
                for k, pk in dist.items():
                    nxt[k] += pk * clear[c.id]
                    nxt[k + 1] += pk * (1 - clear[c.id])
                dist = nxt
            for k, pk in dist.items():
                count[k] += p * pw * pk
    targets = [{"id": c.id, "name": c.name, "hit": per[c.id]["caught"],
                "outcomes": [{"label": AREA_WORDS.get(k, k), "p": v} for k, v in per[c.id].items() if v > 0]}
               for c in pool if per[c.id]["caught"] + per[c.id]["dives clear"] > 0]
    outcomes = [{"label": say("catches no one") if k == 0 else say("catches {n}", n=k), "p": v}
                for k, v in sorted(count.items()) if v > 0]
    return {"skill": skill, "modifiers": [m.to_dict() for m in mods], "hit": 1 - count.get(0, 0.0),
            "outcomes": outcomes, "targets": targets,
            "note": say("radius {radius} yd; a miss veers by its margin; each token under it may dive (+3, prone)",
                        radius=f"{radius:g}")}
