"""Spray 'n Pray: Full Auto at several opponents (*Tesseris Combat*, "Ranged Attack Actions",
Spray 'n Pray: "Fire a weapon on Full Auto at a -3 penalty against all opponents in a 45 degree arc
out to half the weapon's listed range. Each opponent may only be hit once and a character may not
hit more opponents than bullets expended by firing on Full Auto."; "Rate of Fire (RoF)": "Only one
attack roll is made when firing").

One attack roll, 5 ticks and the Full Auto's bullets for the whole spray; each opponent defends on
its own and is hit at most once, by one bullet (no cumulative -2: no second bullet at the same
opponent); the modifiers of range, cover and melee are each opponent's own. Reading: the weapon jams
when the spray hits nobody and the roll against the first opponent is even ("Weapon Jams").
"""

from __future__ import annotations

import math
from dataclasses import replace

from .. import odds as core_odds
from ..dice import DiceSource
from ..system import AttackRequest, AttackResult, Effect, RuleError
from ..text import joined, say
from .attack import DEFENSE_WORDS, across_cover, check_one_target, jam_check, plan_attack, resolve_attack, rounds_words, settings_of
from .checks import dt_needs, pool_distribution, pool_roller
from .picks import spray_most
from .sheet import num, weapon as sheet_weapon
from .ticks import spend, state_of

ARC_DEGREES = 45


def _bearing(a, b) -> float:
    return math.degrees(math.atan2(b[1] - a[1], b[0] - a[0])) % 360


def arc_spread(origin, points: list) -> float:
    """The narrowest arc, in degrees, from ``origin`` that holds every point's bearing."""
    angles = sorted(_bearing(origin, p) for p in points)
    if len(angles) < 2:
        return 0.0
    gaps = [b - a for a, b in zip(angles, angles[1:])] + [360 - angles[-1] + angles[0]]
    return 360 - max(gaps)


def spray_targets(request: AttackRequest, weapon: dict) -> list[AttackRequest]:
    """The opponents of a Spray 'n Pray, one request each (the first the request's own), refused
    with the rule when two are the same, there are more than the bullets, one is an ally, or they
    do not fit in a 45 degree arc from the shooter."""
    reqs = list(request.targets or [request])
    att = request.attacker
    ids = [r.target.id for r in reqs]
    if len(set(ids)) != len(ids):
        raise RuleError(say("Spray 'n Pray: each opponent may only be hit once (Ranged Attack Actions, 'Spray 'n Pray')"))
    most = spray_most(weapon)
    if len(reqs) > most:
        raise RuleError(say("Spray 'n Pray: {n} opponents, but only {most} bullets on Full Auto: no more opponents than "
                            "bullets (Ranged Attack Actions, 'Spray 'n Pray')", n=len(reqs), most=most))
    allies = [r.target.name for r in reqs if r.target.side and r.target.side == att.side]
    if allies:
        raise RuleError(say("Spray 'n Pray fires at opponents; {ally} is on {name}'s side (Ranged Attack Actions, "
                            "'Spray 'n Pray')", ally=allies[0], name=att.name))
    here = att.position
    spots = [r.target.position for r in reqs]
    if isinstance(here, (list, tuple)) and all(isinstance(p, (list, tuple)) for p in spots) and len(reqs) > 1:
        spread = arc_spread(tuple(here), [tuple(p) for p in spots])
        if spread > ARC_DEGREES + 1e-9:
            raise RuleError(say("Spray 'n Pray covers a {arc} degree arc; these opponents spread over {spread} degrees "
                                "(Ranged Attack Actions, 'Spray 'n Pray')", arc=ARC_DEGREES, spread=round(spread)))
    return [replace(r, options={**(r.options or {}), "action": "spray_n_pray"}, targets=[]) for r in reqs]


def resolve_action(request: AttackRequest, dice: DiceSource, settings: dict | None = None) -> AttackResult:
    """An attack as its action rolls it: a Spray 'n Pray (``resolve_spray``) or a Covering Fire (``covering_fire``)
    here, any other through ``attack.resolve_attack``."""
    settings = settings_of(settings if settings is not None else request)
    action = (request.options or {}).get("action") or ""
    if action == "spray_n_pray":
        return resolve_spray(request, dice, settings)
    if action == "covering_fire":
        check_one_target(request)
        return covering_fire(request, settings)
    return resolve_attack(request, dice, settings)


def resolve_spray(request: AttackRequest, dice: DiceSource, settings: dict) -> AttackResult:
    """Roll a Spray 'n Pray: the ticks and the bullets paid once, one roll, each opponent's defense
    and damage (``resolve_attack`` with ``part``), the jam when it hits nobody."""
    att = request.attacker
    weapon = sheet_weapon(att.sheet, request.weapon)
    reqs = spray_targets(request, weapon)
    plans = [plan_attack(r, settings) for r in reqs]  # each opponent within half range, before a die is rolled
    opts = request.options or {}
    a_state = state_of(att)
    if settings.get("spend_ticks", True):
        a_state = spend(a_state, "spray_n_pray", settings=settings,
                        gm_allows_borrowing=bool(opts.get("gm_allows_borrowing")), statuses=att.sheet.get("statuses"))
    a_state = {**a_state, "aim": 0}
    name = weapon.get("name") or weapon.get("key")
    pool, flats = plans[0].attack_pool, {p.attack_flat for p in plans}  # the attacker's one roll at them all (#59)
    rec = dice.roll(f"{pool}dT", say("{name}: Spray 'n Pray with {weapon}", name=att.name, weapon=name),
                    roller=pool_roller(pool, att.id), needs=dt_needs(pool, flats.pop() if len(flats) == 1 else 0))
    rolls, effects, parts, states = [rec], [], [], {}
    for i, r in enumerate(reqs):
        res = resolve_attack(replace(r, options={**r.options, "dt_successes": rec.total}), dice, settings, part=True)
        rolls += res.rolls
        effects += [e for e in res.effects if not (i and e.kind == "mayhem")]  # Mayhem is spent once
        d = res.details
        states.update({k: v for k, v in d["states"].items() if k != att.id})
        parts.append({"target": r.target.id, "name": r.target.name, "hit": res.hit, "attack_total": d["attack_total"],
                      "defense": d["defense"], "defense_total": d["defense_total"],
                      "damage_after_soak": d.get("damage_after_soak", 0), "hit_reports": d.get("hit_reports", []),
                      "words": target_words(r.target.name, res)})
    details = {"action": "spray_n_pray", "attacker": att.id, "target": request.target.id, "weapon": weapon.get("key"),
               "attack_successes": rec.total, "attack_total": parts[0]["attack_total"], "bullets": plans[0].bullets,
               "targets": parts, "hits": sum(p["hit"] for p in parts)}
    if weapon.get("ammo") is not None:
        effects.append(Effect("ammo", att.id, {"weapon": weapon.get("key"), "spent": plans[0].bullets,
                                               "says": rounds_words(plans[0].bullets, weapon)}))
    hit = any(p["hit"] for p in parts)
    if not hit:
        a_state = jam_check(weapon, parts[0]["attack_total"], rec.total, settings, dice, rolls, effects, details, a_state)
    details["states"] = {att.id: a_state, **states}
    said = joined([p["words"] for p in parts])
    summary = say("{name} sprays the {weapon} on Full Auto ({n} rounds, Spray 'n Pray): {said}", name=att.name, weapon=name,
                  n=plans[0].bullets, said=said)
    if "jam" in details:
        summary = (say("{line}; the weapon jams (cleared at once)", line=summary) if details["jam"]["recovered"]
                   else say("{line}; the weapon jams", line=summary))
    return AttackResult(hit=hit, summary=summary, rolls=rolls, modifiers=plans[0].attack_mods, effects=effects,
                        details=details)


def target_words(name: str, result: AttackResult) -> str:
    """One opponent's line: "Tom hit, 5 damage after soak" or "Rat: Dodge 4 avoids 3"."""
    d = result.details
    defense = DEFENSE_WORDS.get(d.get("defense")) or str(d.get("defense", "none")).replace("_", " ").title()
    if result.hit:
        return say("{name} hit ({total} against {defense} {defense_total}), {damage} damage after soak", name=name,
                   total=d["attack_total"], defense=defense, defense_total=d["defense_total"],
                   damage=d.get("damage_after_soak", 0))
    if d.get("defense") == "none":
        return say("{name} missed ({total})", name=name, total=d["attack_total"])
    return say("{name} avoids it ({defense} {defense_total} against {total})", name=name, defense=defense,
               defense_total=d["defense_total"], total=d["attack_total"])


def spray_odds(request: AttackRequest, settings: dict, one_odds) -> dict:
    """The exact chances of a Spray 'n Pray: each opponent's own outcome lines (``one_odds`` with
    the shared roll fixed, weighted by its chance), and how many are hit in all, the one roll
    shared by every opponent's chance."""
    att = request.attacker
    weapon = sheet_weapon(att.sheet, request.weapon)
    reqs = spray_targets(request, weapon)
    plans = [plan_attack(r, settings) for r in reqs]
    given = (request.options or {}).get("dt_successes")
    roll = {num(given): 1.0} if given is not None else pool_distribution(plans[0].attack_pool)
    per_target = [dict() for _ in reqs]
    count = {}
    for succ, p in roll.items():
        hits = {0: 1.0}
        for i, r in enumerate(reqs):
            o = one_odds(replace(r, options={**r.options, "dt_successes": succ}))
            for line in o["outcomes"]:
                per_target[i][line["label"]] = per_target[i].get(line["label"], 0) + p * line["p"]
            hits = core_odds.convolve(hits, {1: o["hit"], 0: 1 - o["hit"]})
        for k, q in hits.items():
            count[k] = count.get(k, 0) + p * q
    n = len(reqs)
    outcomes = [{"label": hit_count_words(k, n), "p": q} for k, q in sorted(count.items()) if q > 0]
    targets = []
    for r, lines in zip(reqs, per_target):
        out = [{"label": k, "p": v} for k, v in lines.items() if v > 0]
        targets.append({"id": r.target.id, "name": r.target.name, "outcomes": out,
                        "hit": sum(x["p"] for x in out if x["label"].startswith(("hit", "critical")))})
    return {"outcomes": outcomes, "hit": 1 - count.get(0, 0.0), "targets": targets,
            "modifiers": [m.to_dict() for m in plans[0].attack_mods], "bullets": plans[0].bullets,
            "note": say("one roll for all; each opponent hit once at most; {n} rounds spent", n=plans[0].bullets)}


def spray_label(result: AttackResult) -> str:
    """The outcome line of ``spray_odds`` a rolled spray falls in."""
    parts = result.details.get("targets") or []
    k = sum(1 for p in parts if p["hit"])
    return hit_count_words(k, len(parts))


def hit_count_words(k: int, n: int) -> str:
    """How many of a Spray 'n Pray's opponents are hit, as an outcome line: "nobody hit", "2 of 3 hit"."""
    return say("nobody hit") if k == 0 else say("{k} of {n} hit", k=k, n=n)


def covering_fire_refusal(request: AttackRequest) -> str:
    """Why a Covering Fire cannot be laid now ("" when it can): "May only be used with a weapon that
    has a Full Auto option and expends equivalent ammunition" (Defensive Actions, Covering Fire)."""
    weapon = sheet_weapon(request.attacker.sheet, request.weapon)
    rof = weapon.get("rof") or []
    if weapon.get("kind", "melee") == "melee" or len(rof) < 3 or num(rof[2]) <= 0:
        return say("Covering Fire: only with a weapon that has a Full Auto option (Defensive Actions, 'Covering Fire')")
    if weapon.get("ammo") is not None and num(weapon["ammo"]) <= 0:
        return say("Covering Fire: {weapon} is out of ammunition: reload", weapon=weapon.get("name"))
    if "hunkered" in state_of(request.attacker)["stances"] and across_cover(request, settings_of(request)):
        return say("Covering Fire: a hunkered-down character must Stand Up (1 tick) before firing across the cover")
    return ""


def covering_fire(request: AttackRequest, settings: dict) -> AttackResult:
    """Covering Fire aimed at an opponent (*Tesseris Combat*, "Defensive Actions": 3 ticks, "Spray the
    area with indiscriminate fire forcing enemies to duck for cover and spoiling their aim. Grants
    allies +1 to defense rolls until the start of character's next turn"): no roll, no hit; the Full
    Auto's bullets spent; every ally of the shooter's side gets the +1 (the stance ``covered_by_fire``,
    ended at the shooter's next turn by ``turns._start_turn``)."""
    why = covering_fire_refusal(request)
    if why:
        raise RuleError(why)
    att = request.attacker
    weapon = sheet_weapon(att.sheet, request.weapon)
    bullets = num(weapon["rof"][2])
    if weapon.get("ammo") is not None:
        bullets = min(bullets, num(weapon["ammo"]))
    a_state = state_of(att)
    if settings.get("spend_ticks", True):
        a_state = spend(a_state, "covering_fire", settings=settings,
                        gm_allows_borrowing=bool((request.options or {}).get("gm_allows_borrowing")),
                        statuses=att.sheet.get("statuses"))
    states, allies = {att.id: a_state}, []
    for o in request.others or []:
        if o.side != att.side or o.id == att.id:
            continue
        st = state_of(o)
        stances = st["stances"] if "covered_by_fire" in st["stances"] else [*st["stances"], "covered_by_fire"]
        states[o.id] = {**st, "stances": stances, "covered_by": sorted(set(st.get("covered_by") or []) | {att.id})}
        allies.append(o.name)
    name = weapon.get("name") or weapon.get("key")
    effects = []
    if weapon.get("ammo") is not None:
        effects.append(Effect("ammo", att.id, {"weapon": weapon.get("key"), "spent": bullets,
                                               "says": rounds_words(bullets, weapon)}))
    said = dict(name=att.name, target=request.target.name, weapon=name, n=bullets)
    summary = (say("{name} lays down Covering Fire at {target} with the {weapon} ({n} rounds): +1 to the defense rolls of "
                   "{allies} until {name}'s next turn", allies=", ".join(allies), **said) if allies
               else say("{name} lays down Covering Fire at {target} with the {weapon} ({n} rounds): no ally to cover", **said))
    details = {"action": "covering_fire", "attacker": att.id, "target": request.target.id, "weapon": weapon.get("key"),
               "bullets": bullets, "allies": [o for o in states if o != att.id], "states": states, "hits": 0}
    return AttackResult(hit=False, summary=summary, effects=effects, details=details)


def covering_fire_odds(request: AttackRequest) -> dict:
    why = covering_fire_refusal(request)
    if why:
        raise RuleError(why)
    return {"outcomes": [{"label": COVERING_FIRE_OUTCOME, "p": 1.0}], "hit": 0.0, "modifiers": [],
            "note": say("no attack roll: the allies defend at +1 until the shooter's next turn")}


#: the one outcome line of a Covering Fire
COVERING_FIRE_OUTCOME = say("covering fire: allies +1 to defense")
