"""What an attack can come to, in a handful of lines a player can read, with their exact chances
(*3d6 Combat*, "Attacking", "Defending", "Maneuvers", "Damage", "Injury"; 3d6 core facts).

The attack is enumerated the way :func:`rules.gurps_lite.attack.attack` resolves it: every attack of
a Rapid Strike, a Dual Weapon Attack or an All-Out Attack (Double) in turn, the defenses the target
has used so far lowering its next ones, a feint before an All-Out Attack (Feint), the miss by 1
landing on the torso, rapid-fire hits, a Double Defense's second roll. :func:`outcome_label` reads
an :class:`AttackResult` into the same lines, so the two can be checked against each other.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import replace

from ..system import AttackRequest, AttackResult, Modifier, RuleError, RuleNotImplemented
from ..text import joined, say
from .attack import DEFENSE_WORDS, attack_info, attack_plan, attack_setup
from .checks import THREE_D6, effective_skill, is_success, roll_result, success_chance
from .defenses import available_defenses, defense_level, picked_or_best, record_defense
from .health import hit_outcomes, hits_knockouts, is_major_wound
from .locations import MISS_BY_ONE_TORSO
from .maneuvers import chosen_maneuver, damage_adjustments
from .ranged import extra_hits
from .sheet import attack_weapon, int_of, max_hp, parse_damage, skill_level, weapons

#: total injury at which the bands stop counting ("hit: 6+ HP")
INJURY_CAP = 6
CRITICAL_MISS = say("critical miss")
MISS = say("miss")
DISARM_CONTEST = say("hit: disarm contest")
#: the bands of injury by unit: 1-2, 3-5, 6+ (INJURY_CAP), each a whole line in the reader's words
_INJURY_BANDS = {"HP": (say("hit: 1-2 HP"), say("hit: 3-5 HP"), say("hit: 6+ HP")),
                 "FP": (say("hit: 1-2 FP"), say("hit: 3-5 FP"), say("hit: 6+ FP"))}


def injury_label(injury: int, major: bool, unit: str = "HP") -> str:
    """The band of an attack's total injury: a major wound first (it calls for a knockdown roll)."""
    if major:
        return say("hit: major wound (knockdown roll)")
    if injury <= 0:
        return say("hit: no injury (DR)")
    bands = _INJURY_BANDS.get(unit, _INJURY_BANDS["HP"])
    if injury <= 2:
        return bands[0]
    if injury < INJURY_CAP:
        return bands[1]
    return bands[2]


def feint_label(margin: int) -> str:
    """The band of a feint's margin ("Maneuvers", Feint)."""
    if margin <= 0:
        return say("feint: no effect")
    if margin <= 2:
        return say("feint: -1 to -2 to the target's defense")
    if margin <= 5:
        return say("feint: -3 to -5 to the target's defense")
    return say("feint: -6 or more to the target's defense")


def _defended_label(types: tuple[str, ...]) -> str:
    """"defended (dodge/parry)": the defenses (keys) that stopped it, each in the reader's words."""
    return say("defended ({defenses})", defenses=joined([DEFENSE_WORDS.get(t, t) for t in types], "/"))


def _order(label: str) -> tuple[int, str]:
    ranks = [CRITICAL_MISS, MISS, "defended", "feint", "hit: no injury", "hit: 1-2", "hit: 3-5", f"hit: {INJURY_CAP}+",
             "hit: major", "hit: disarm"]
    for i, start in enumerate(ranks):
        if label.startswith(start):
            return i, label
    return len(ranks), label


def outcome_label(result: AttackResult | dict, target_sheet: dict) -> str:
    """The outcome line an attack's result falls in: the same lines :func:`attack_outcomes` gives."""
    r = result if isinstance(result, dict) else result.to_dict()
    details = r.get("details") or {}
    if "feint" in details and not details.get("attacks"):
        return feint_label(int_of(details["feint"].get("margin")))
    hp = max_hp(target_sheet)
    crit = False
    defended: list[str] = []
    landed = disarm = major = False
    unit = "HP"
    for a in details.get("attacks") or []:
        check = a.get("check") or {}
        if check.get("result") == "critical failure":
            crit = True
        dfn = a.get("defense") or {}
        if a.get("hits") and not a.get("landed") and dfn.get("success"):
            kind = (dfn.get("defense") or {}).get("type")
            if kind and kind not in defended:
                defended.append(kind)
        if a.get("landed"):
            landed = True
            disarm = disarm or "disarm" in a
        for d in a.get("damage") or []:
            wound = d.get("wound") or {}
            if wound.get("wound_type") == "fat":
                unit = "FP"
                continue
            inj = int_of(d.get("injury"))
            major = major or (inj > 0 and is_major_wound(inj, hp, bool(wound.get("crippled"))))
    if landed:
        if disarm:
            return DISARM_CONTEST
        return injury_label(min(INJURY_CAP, int_of(details.get("injury"))), major, unit)
    if crit:
        return CRITICAL_MISS
    if defended:
        return _defended_label(tuple(defended))
    return MISS


def _key(state: dict) -> str:
    try:
        return json.dumps(state, sort_keys=True, default=str)
    except (TypeError, ValueError):  # pragma: no cover - fight states are plain data
        return repr(sorted(state.items(), key=str))


def _plan(request: AttackRequest, wname: str, weapon: dict) -> list[tuple[str, dict, list[Modifier], int | None]]:
    """The attacks one request makes, as :func:`attack` plans them."""
    return attack_plan(request, wname, weapon)


class _Attack:
    """One attack of the plan: its effective skill, hits by roll, and one hit's injury by where it lands."""

    def __init__(self, request: AttackRequest, wname: str, weapon: dict, extra: list[Modifier], shots: int | None,
                 st: dict):
        opts = request.options or {}
        a, t = request.attacker, request.target
        setup = attack_setup(request, wname, weapon, st, extra, shots)
        damage_type, base, mods, cap, facts = (setup["damage_type"], setup["base"], setup["modifiers"],
                                               setup["cap"], setup["facts"])
        location = facts["location"]
        shots, shotgun_mult = setup["shots"], setup["shotgun_mult"]
        if location == "weapon" and not opts.get("disarm"):
            raise RuleNotImplemented(say("striking a weapon to break it is not automated; use the disarm option"))
        self.skill = effective_skill(base, mods, cap)
        self.modifiers = mods
        self.shots = shots
        self.rcl = max(1, int_of(weapon.get("rcl"), 1))
        self.location = location
        self.disarm = location == "weapon"
        self.info = attack_info(request, weapon, damage_type)
        self.unit = "FP" if damage_type == "fat" else "HP"
        st_attacker = int_of(a.sheet.get("ST"), 10)
        bonus = int(sum(m.value for m in damage_adjustments(
            parse_damage(weapon.get("damage", "1d"), st_attacker)[1], facts["maneuver"], facts["variant"], weapon)))
        half = bool(facts.get("half_damage"))

        def per_hit(loc: str) -> dict[tuple[int, bool], float]:
            if self.disarm:
                return {(0, False): 1.0}
            out: dict[tuple[int, bool], float] = defaultdict(float)
            for (inj, major), p in hit_outcomes(t.sheet, weapon, damage_type, loc, st_attacker, bonus, half,
                                                shotgun_mult, st).items():
                out[(min(INJURY_CAP, inj), major)] += p
            return dict(out)

        self.per_hit = {"aimed": per_hit(location), "torso": per_hit("torso") if location in MISS_BY_ONE_TORSO
                        else {}}

    def rolls(self, st: dict) -> list[tuple[float, str, int, str]]:
        """(chance, result, hits, where) of the attack roll: hits 0 on a miss."""
        out = []
        for r, p in THREE_D6.items():
            res = roll_result(r, self.skill)
            margin = self.skill - r
            place = "aimed"
            if not is_success(res):
                if margin == -1 and res == "failure" and self.location in MISS_BY_ONE_TORSO:
                    margin, place = 0, "torso"
                else:
                    out.append((p, res, 0, place))
                    continue
            hits = extra_hits(max(0, margin), self.rcl, self.shots) if self.shots > 1 else 1
            out.append((p, res, hits, place))
        return out


def _defenses(request: AttackRequest, t_state: dict, info, st: dict,
              start: dict | None = None) -> list[tuple[float, dict | None, bool, int]]:
    """(chance, defense used, success, margin) of the target's defense roll against a hit, as
    :func:`rules.gurps_lite.attack._defend` rolls it; [(1, None, False, 0)] when none is rolled."""
    opts = request.options or {}
    t = request.target
    choice = opts.get("defense", "best")
    if choice in (None, "none"):
        return [(1.0, None, False, 0)]
    if isinstance(choice, str):
        avail = available_defenses(t.sheet, t_state, info, st)
        if choice != "best":
            avail = [d for d in avail if d["type"] == choice]
        if not avail:
            return [(1.0, None, False, 0)]
        chosen = {k: v for k, v in avail[0].items() if k in ("type", "weapon", "dive")}
    else:
        chosen = picked_or_best(t.sheet, t_state, t_state if start is None else start, dict(choice), info, st)
        if chosen is None:
            return [(1.0, None, False, 0)]
    variants: list[tuple[float, dict]] = [(1.0, chosen)]
    if chosen.get("acrobatic") and "acrobatic_result" not in chosen:
        acro, _ = skill_level(t.sheet, "Acrobatics")
        pa = success_chance(acro)
        variants = [(pa, {**chosen, "acrobatic_result": "success"}),
                    (1 - pa, {**chosen, "acrobatic_result": "failure"})]
    second = None
    double = t_state.get("maneuver") == "all_out_defense" and t_state.get("variant") == "double"
    if double and opts.get("second_defense"):
        second = dict(opts["second_defense"])
    out = []
    for pv, d in variants:
        level = effective_skill(*defense_level(t.sheet, t_state, d, info, st)[:2])
        level2 = None
        if second is not None:
            if second.get("type") == d["type"]:
                raise RuleError(say("Double Defense uses two different defenses"))
            level2 = effective_skill(*defense_level(t.sheet, t_state, second, info, st)[:2])
        for r, p in THREE_D6.items():
            if is_success(roll_result(r, level)):
                out.append((pv * p, d, True, level - r))
            elif level2 is None:
                out.append((pv * p, d, False, level - r))
            else:
                for r2, p2 in THREE_D6.items():
                    ok = is_success(roll_result(r2, level2))
                    out.append((pv * p * p2, second if ok else d, ok, level2 - r2))
    return out


def _feint_margins(request: AttackRequest, wname: str, target_weapon: str | None = None) -> dict[int, float]:
    """The feint's margin and its chance ("Maneuvers", Feint: a quick contest of weapon skills)."""
    a, t = request.attacker, request.target
    _, w = attack_weapon(a.sheet, wname, a.state)
    tws = weapons(t.sheet)
    tw = tws.get(target_weapon or "") or next(iter(tws.values()), {})
    s1 = skill_level(a.sheet, w.get("skill"))[0]
    s2 = skill_level(t.sheet, tw.get("skill"))[0]
    out: dict[int, float] = defaultdict(float)
    for r1, p1 in THREE_D6.items():
        res1 = roll_result(r1, s1)
        k1 = (1 if is_success(res1) else 0, s1 - r1)
        for r2, p2 in THREE_D6.items():
            k2 = (1 if is_success(roll_result(r2, s2)) else 0, s2 - r2)
            won = k1 > k2
            out[max(0, k1[1] - k2[1]) if won and is_success(res1) else 0] += p1 * p2
    return dict(out)


def _lines(dist: dict[str, float]) -> list[dict]:
    return [{"label": label, "p": p} for label, p in sorted(dist.items(), key=lambda kv: _order(kv[0])) if p > 0]


def attack_outcomes(request: AttackRequest, wname: str, weapon: dict, st: dict, plan: list | None = None) -> dict:
    """``hit`` (the chance that at least one hit lands: ``AttackResult.hit``) and ``outcomes``, the
    lines critical miss, miss, defended (by which defenses), hit with no injury, 1-2, 3-5, 6+ HP,
    a major wound, or a disarm contest, mutually exclusive and summing to 1."""
    opts = request.options or {}
    maneuver, variant, _ = chosen_maneuver(opts, request.attacker.state)
    if maneuver == "feint":
        dist: dict[str, float] = defaultdict(float)
        for m, p in _feint_margins(request, wname, opts.get("target_weapon")).items():
            dist[feint_label(m)] += p
        return {"hit": 0.0, "outcomes": _lines(dist)}
    start: list[tuple[float, dict]] = [(1.0, dict(request.target.state or {}))]
    if maneuver == "all_out_attack" and variant == "feint":
        start = [(p, {**request.target.state, "feint_penalty": m} if m > 0 else dict(request.target.state or {}))
                 for m, p in _feint_margins(request, wname).items()]
    states: dict[str, dict] = {}
    # (target state, critical miss, defended by, landed, disarm, injury, major) -> chance
    acc: dict[tuple, float] = defaultdict(float)
    for p, s in start:
        k = _key(s)
        states[k] = s
        acc[(k, False, (), False, False, 0, False)] += p
    unit = "HP"
    for wn, w, extra, shots in (plan if plan is not None else _plan(request, wname, weapon)):
        attack = _Attack(request, wn, w, extra, shots, st)
        unit = attack.unit if unit == "HP" else unit
        rolls = attack.rolls(st)
        defense_cache: dict[str, list] = {}
        after: dict[tuple, str] = {}  # (state, id of the defense) -> the key of the state once it made it (kept in branches)
        landing: dict[tuple, dict] = {}  # (where, hits) -> :func:`_hits`
        new: dict[tuple, float] = defaultdict(float)
        for (k, crit, defended, landed, disarm, inj, major), p in acc.items():
            t_state = states[k]
            if k not in defense_cache:
                req = replace(request, target=replace(request.target, state=t_state))
                defense_cache[k] = _defenses(req, t_state, attack.info, st, request.target.state or {})
            for pr, res, hits, place in rolls:
                if hits == 0:
                    new[(k, crit or res == "critical failure", defended, landed, disarm, inj, major)] += p * pr
                    continue
                if res == "critical success" and st["critical_hit_no_defense"]:
                    branches = [(1.0, None, False, 0)]
                else:
                    branches = defense_cache[k]
                for pd, used, ok, margin in branches:
                    stopped = 0
                    if ok:
                        stopped = min(hits, 1 + max(0, margin)) if st["defense_stops_extra_hits"] else hits
                    k2 = k
                    if used is not None:
                        k2 = after.get((k, id(used)))
                        if k2 is None:
                            s2 = record_defense(t_state, used)
                            k2 = after[(k, id(used))] = _key(s2)
                            states.setdefault(k2, s2)
                    left = hits - stopped
                    if left <= 0:
                        dfd = defended + ((used["type"],) if used["type"] not in defended else ())
                        new[(k2, crit, dfd, landed, disarm, inj, major)] += p * pr * pd
                        continue
                    landed_as = landing.get((place, left))
                    if landed_as is None:
                        landed_as = landing[(place, left)] = _hits(attack.per_hit[place], left)
                    for (i2, m2), ph in landed_as.items():
                        new[(k2, crit, defended, True, disarm or attack.disarm, min(INJURY_CAP, inj + i2),
                             major or m2)] += p * pr * pd * ph
        acc = new
    dist = defaultdict(float)
    hit = 0.0
    for (_k, crit, defended, landed, disarm, inj, major), p in acc.items():
        if landed:
            hit += p
            dist[DISARM_CONTEST if disarm else injury_label(inj, major, unit)] += p
        elif crit:
            dist[CRITICAL_MISS] += p
        elif defended:
            dist[_defended_label(defended)] += p
        else:
            dist[MISS] += p
    # one "defended" line: the defenses that can stop the attack, in the order they come up
    merged: dict[str, float] = defaultdict(float)
    kinds: list[str] = []
    for label, p in dist.items():
        if label.startswith("defended ("):
            for kind in label[len("defended ("):-1].split("/"):
                if kind not in kinds:
                    kinds.append(kind)
            merged["defended"] += p
        else:
            merged[label] += p
    if "defended" in merged:
        merged[_defended_label(tuple(kinds))] = merged.pop("defended")
    return {"hit": hit, "outcomes": _lines(merged)}


def _hits(per_hit: dict[tuple[int, bool], float], n: int) -> dict[tuple[int, bool], float]:
    """(total injury capped, any major wound) of ``n`` hits."""
    return hits_knockouts(per_hit, n, INJURY_CAP)
