"""The attack pipeline (*3d6 Combat*, "Attacking", "Hit Locations", "Ranged Attacks", "Area of
Effects", "Maneuvers"): to-hit modifiers, the roll, the defense, and the damage of each hit.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..dice import DiceSource
from ..text import joined, say, say_n, whole
from ..system import AttackRequest, AttackResult, Combatant, Effect, Modifier, RuleError, RuleNotImplemented
from .badges import LOCATION_WORDS, location_name, maneuver_name
from .checks import Check, check, contest_key
from .cover import cover_effect
from .data import (
    MANEUVERS,
    PIERCING,
    S_AOE,
    S_ATTACK,
    S_GM,
    S_INJURY,
    S_MANEUVER,
    S_RANGED,
    S_READING,
    settings_of,
)
from .defenses import (AttackInfo, available_defenses, defense_level, flank_said, flanked, parry_limbs, picked_or_best,
                       record_defense)
from .health import resolve_damage
from .locations import MISS_BY_ONE_TORSO, ONLY_TYPES, average_dr, hit_location, location_penalty
from .maneuvers import attack_still_open, chosen_maneuver, damage_adjustments, is_suppression
from .movement import distance_yards, is_square, maneuver_movement
from .ranged import extra_hits, range_penalty, rapid_fire_bonus, rapid_strike_shots
from .sheet import (attack_weapon, current_hp, has_trait, int_of, num_of, parse_damage, reach_of, shots_left,
                    skill_level, step_length, weapon_kind, weapons)


def own_copy(request: AttackRequest) -> AttackRequest:
    """A copy the resolution may annotate (defenses used, distance) without touching the caller's."""
    a = replace(request.attacker, state=dict(request.attacker.state or {}))
    t = replace(request.target, state=dict(request.target.state or {}))
    deceptive = int_of((request.options or {}).get("deceptive"))
    if deceptive > 0:  # its defenses against this attack are at -1 a level ("Defending", Riposte)
        t.state["deceptive"] = deceptive
    distance = request.distance
    if not distance and a.position is not None and t.position is not None:
        distance = distance_yards(a.position, t.position)
    weapon = request.weapon
    area = a.state.get("suppressing") or {}
    if area.get("weapon") and is_suppression(*chosen_maneuver(request.options, a.state)[:2]):
        weapon = area["weapon"]  # the attack a Suppression Fire area owes is made with its weapon
    return replace(request, attacker=a, target=t, distance=distance, weapon=weapon,
                   options=dict(request.options or {}))


@dataclass
class _Ctx:
    request: AttackRequest
    settings: dict
    rolls: list = field(default_factory=list)
    effects: list = field(default_factory=list)
    lines: list = field(default_factory=list)
    clear: list = field(default_factory=list)  # tokens that dived clear of a laid area attack
    defender_start: dict | None = None  # the defender's state before the request's first attack


def _roll_location(ctx: _Ctx, dice: DiceSource, damage_type: str) -> str:
    rec = dice.roll("3d6", say("random hit location"), roller=ctx.request.attacker.id,
                    needs=say("roll 3d6: the hit location table"))
    ctx.rolls.append(rec)
    loc = hit_location(rec.total)
    if loc in ("hand", "foot"):
        side = dice.roll("1d6", say("{location}: right (1-3) or left (4-6)", location=LOCATION_WORDS.get(loc, loc)),
                         roller=ctx.request.attacker.id, needs=say("roll 1d6: right on 1-3, left on 4-6"))
        ctx.rolls.append(side)
        loc = ("right_" if side.total <= 3 else "left_") + loc
    return loc


def attack_info(request: AttackRequest, weapon: dict, damage_type: str) -> AttackInfo:
    """What the defender needs to know about an attack with this weapon ("Defending")."""
    kind = weapon_kind(weapon)
    return AttackInfo(
        ranged=kind in ("ranged", "thrown"),
        thrown=kind == "thrown",
        bullet=bool(weapon.get("bullet", kind == "ranged" and weapon.get("firearm", True))),
        area=bool(weapon.get("area")),
        flail=bool(weapon.get("flail")),
        thrust=weapon.get("attack") == "thrust" or damage_type in ("imp", *PIERCING),
        armed=not weapon.get("unarmed"),
        distance=request.distance,
        attacker_id=request.attacker.id, flanked=flanked(request),
    )


def melee_reach(weapon: dict, maneuver: str, variant: str) -> float:
    """How far a melee weapon strikes, in yards: its longest reach, at least 1, a yard more on an All-Out Attack
    (Long) ("Maneuvers"); :func:`attack_modifiers` refuses an attack from farther."""
    return max(1.0, reach_of(weapon)) + (1 if maneuver == "all_out_attack" and variant == "long" else 0)


def attack_modifiers(request: AttackRequest, wname: str, weapon: dict, settings: dict | None = None,
                     n_attacks_penalty: list[Modifier] | None = None) -> tuple[int, str, list[Modifier], int | None, dict]:
    """Base skill, modifiers and cap of one attack ("Attacking", "Hit Locations", "Ranged Attacks",
    "Maneuvers"). Returns (base, base label, modifiers, cap, facts)."""
    st = settings_of(settings)
    opts = request.options or {}
    a, t = request.attacker, request.target
    base, label = skill_level(a.sheet, weapon.get("skill"))
    mods: list[Modifier] = list(n_attacks_penalty or [])
    facts: dict = {}
    kind = weapon_kind(weapon)
    ranged = kind in ("ranged", "thrown")
    maneuver, variant, moved = chosen_maneuver(opts, a.state)
    m = MANEUVERS.get(maneuver)
    if m is None or not m.attack:
        raise RuleError(say("{maneuver} is not an attacking maneuver", maneuver=repr(maneuver)))
    if m.attack == "melee" and ranged:
        raise RuleError(say("{maneuver} is for melee weapons", maneuver=maneuver_name(maneuver)))
    if m.attack == "ranged" and not ranged:
        raise RuleError(say("{maneuver} is for ranged weapons", maneuver=maneuver_name(maneuver)))
    if variant and variant not in m.variants:
        raise RuleError(say("{maneuver} has no {option} option", maneuver=maneuver_name(maneuver), option=repr(variant)))
    allowed = maneuver_movement(a.sheet, maneuver, variant)
    if moved > allowed + 1e-9:
        raise RuleError(say("{maneuver} allows {allowed} yards of movement, not {moved}", maneuver=maneuver_name(maneuver),
                            allowed=allowed, moved=whole(float(moved))))
    if maneuver == "all_out_attack_ranged" and variant == "suppression_fire":
        return _suppression_modifiers(request, wname, weapon, st, facts, maneuver, variant)
    shock_pts = int_of(a.sheet.get("shock")) or int_of(a.state.get("shock"))
    if shock_pts:
        mods.append(Modifier(say("shock"), -min(shock_pts, 8), S_INJURY))
    cap = None
    if maneuver == "all_out_attack" and variant == "determined":
        mods.append(Modifier(say("All-Out Attack (Determined)"), 4, S_MANEUVER))
    if maneuver == "all_out_attack_ranged" and variant == "determined":
        mods.append(Modifier(say("All-Out Attack (ranged, Determined)"), 1, S_MANEUVER))
    if maneuver == "committed_attack":
        if variant == "determined":
            mods.append(Modifier(say("Committed Attack (Determined)"), 2, S_MANEUVER))
        if moved > step_length(a.sheet) + 1e-9:
            mods.append(Modifier(say("Committed Attack: two steps"), -2, S_MANEUVER))
    if maneuver == "move_and_attack":
        if ranged:
            bulk = int_of(weapon.get("bulk"))
            mods.append(Modifier(say("Move and Attack (ranged: -2 or Bulk)"), min(-2, bulk), S_MANEUVER))
        else:
            mods.append(Modifier(say("Move and Attack (melee)"), -4, S_MANEUVER))
        if not opts.get("slam"):
            cap = 9
    deceptive = int_of(opts.get("deceptive"))
    if deceptive > 0:
        mods.append(Modifier(say("Deceptive Attack (defense -{n})", n=deceptive), -2 * deceptive, S_READING))
    ev = a.state.get("evaluate") or {}
    if ev and ev.get("target") == t.id:
        mods.append(Modifier(say("Evaluate"), min(3, max(1, int_of(ev.get("turns"), 1))), S_MANEUVER))
    location = opts.get("location", "torso") or "torso"
    if location != "random":
        target_weapon = weapons(t.sheet).get(opts.get("target_weapon") or "", {})
        mods += location_penalty(location, t.sheet, target_weapon.get("reach", 1), bool(opts.get("from_behind")),
                                 bool(weapon.get("fencing")), bool(opts.get("disarm")), st)
    if not ranged and request.distance:
        reach = melee_reach(weapon, maneuver, variant)
        if request.distance > reach + 1e-9:
            raise RuleError(say("{weapon} reaches {reach} yard(s); the target is {distance} away", weapon=wname,
                                 reach=whole(reach), distance=whole(request.distance)))
    if ranged:
        speed = num_of(opts.get("target_speed", t.state.get("last_move", 0)))
        dist = request.distance
        if weapon.get("max") and dist > num_of(weapon["max"]):
            raise RuleError(say("{weapon} reaches {most} yards at most", weapon=wname, most=whole(num_of(weapon["max"]))))
        rp = range_penalty(dist, speed)
        if rp:
            mods.append(Modifier(say("range {range} yd + speed {speed} yd/s", range=whole(float(dist)), speed=whole(float(speed)))
                                 if speed >= 2 else say("range {range} yd", range=whole(float(dist))), rp, S_RANGED))
        facts["half_damage"] = bool(weapon.get("half_d")) and dist >= num_of(weapon["half_d"])
        if dist <= num_of(st["close_quarters_yards"]) and int_of(weapon.get("bulk")):
            mods.append(Modifier(say("close quarters: Bulk"), -abs(int_of(weapon["bulk"])), S_RANGED))
        aim = int_of(opts.get("aim_turns", a.state.get("aim_turns", 0)))
        if aim:
            acc = int_of(weapon.get("acc"))
            if opts.get("braced"):
                if moved:
                    raise RuleError(say("moving unbraces the weapon"))
                acc += 1
                mods.append(Modifier(say("braced: +1 Acc"), 0, S_ATTACK))
            mods.append(Modifier(say("aimed (Acc {acc})", acc=acc), acc, S_MANEUVER))
            if aim >= 2:
                mods.append(Modifier(say("aimed {n} seconds", n=aim), 1 if aim == 2 else 2, S_MANEUVER))
        if opts.get("aim_at_ground") and weapon.get("area"):
            mods.append(Modifier(say("area attack aimed at the ground"), 4, S_AOE))
    sm = int_of(t.sheet.get("sm"))
    if sm and ranged:
        mods.append(Modifier(say("target size modifier"), sm, S_RANGED))
    if request.cover is not None:
        ce = cover_effect(request.cover, st)
        if ce.level == "total":
            raise RuleError(say("the target is completely behind cover"))
        if ce.modifier:
            mods.append(Modifier(ce.label, ce.modifier, S_READING))
    if opts.get("modifier"):
        mods.append(Modifier(gm_modifier_label(opts), int_of(opts["modifier"]), S_GM))
    facts.update({"maneuver": maneuver, "variant": variant, "location": location, "ranged": ranged})
    return base, label, mods, cap, facts


def gm_modifier_label(opts: dict) -> str:
    """The GM modifier's label: the GM's own words as typed (data), else "GM modifier" in the reader's words."""
    return str(opts.get("modifier_label") or "") or say("GM modifier")


def _suppression_modifiers(request: AttackRequest, wname: str, weapon: dict, st: dict, facts: dict, maneuver: str,
                           variant: str) -> tuple[int, str, list[Modifier], None, dict]:
    """The attack Suppression Fire makes on whoever enters its area ("Maneuvers": "you attack them at
    a skill of 8+your rapid fire bonus"): skill 8, the weapon's whole RoF for the rapid fire bonus and
    the extra hits, at the torso; no range or other modifier but the GM's."""
    opts = request.options or {}
    rof = int_of(weapon.get("rof"), 1)
    if rof < 5:
        raise RuleError(say("Suppression Fire needs a weapon of RoF 5 or more"))
    if weapon.get("max") and request.distance > num_of(weapon["max"]):
        raise RuleError(say("{weapon} reaches {most} yards at most", weapon=wname, most=whole(num_of(weapon["max"]))))
    mods = []
    if opts.get("modifier"):
        mods.append(Modifier(gm_modifier_label(opts), int_of(opts["modifier"]), S_GM))
    facts.update({"maneuver": maneuver, "variant": variant, "location": "torso", "ranged": True,
                  "half_damage": bool(weapon.get("half_d")) and request.distance >= num_of(weapon["half_d"])})
    return 8, say("Suppression Fire"), mods, None, facts


def _defend(ctx: _Ctx, dice: DiceSource, info: AttackInfo, attack_check: Check, hits: int) -> dict:
    """The target's active defense against a hit ("Defending"); returns the hits it stops."""
    req = ctx.request
    t = req.target
    opts = req.options or {}
    st = ctx.settings
    if attack_check.result == "critical success" and st["critical_hit_no_defense"]:
        return {"stopped": 0, "defense": None, "note": say("critical hit: no defense")}
    choice = opts.get("defense", "best")
    if choice in (None, "none"):
        return {"stopped": 0, "defense": None, "note": say("no defense chosen")}
    if choice == "best" or isinstance(choice, str):
        avail = available_defenses(t.sheet, t.state, info, st)
        if isinstance(choice, str) and choice != "best":
            avail = [d for d in avail if d["type"] == choice]
        if not avail:
            return {"stopped": 0, "defense": None, "note": say("no defense available")}
        chosen = {k: v for k, v in avail[0].items() if k in ("type", "weapon", "dive")}
    else:
        start = ctx.defender_start if ctx.defender_start is not None else t.state
        chosen = picked_or_best(t.sheet, t.state, start, dict(choice), info, st)
        if chosen is None:
            return {"stopped": 0, "defense": None, "note": say("no defense left")}
    extra_rolls = []
    if chosen.get("acrobatic") and "acrobatic_result" not in chosen:
        acro, _ = skill_level(t.sheet, "Acrobatics")
        ac = check(dice, say("acrobatic dodge (Acrobatics)"), acro, [], "Acrobatics", roller=t.id)
        extra_rolls.append(ac)
        chosen["acrobatic_result"] = ac.result
    base, mods, label = defense_level(t.sheet, t.state, chosen, info, st)
    d = check(dice, say("defense: {defense}", defense=DEFENSE_WORDS.get(chosen["type"], chosen["type"])), base, mods, label,
              roller=t.id)
    ctx.rolls += [c.roll for c in extra_rolls] + [d.roll]
    checks = [d]
    maneuver = t.state.get("maneuver")
    if not d.success and maneuver == "all_out_defense" and t.state.get("variant") == "double" and opts.get("second_defense"):
        second = dict(opts["second_defense"])
        if second.get("type") == chosen["type"]:
            raise RuleError(say("Double Defense uses two different defenses"))
        b2, m2, l2 = defense_level(t.sheet, t.state, second, info, st)
        d2 = check(dice, say("second defense: {defense}", defense=DEFENSE_WORDS.get(second["type"], second["type"])), b2, m2, l2,
                   roller=t.id, then=say("a success stops the attack after all (Double Defense)"))
        ctx.rolls.append(d2.roll)
        checks.append(d2)
        if d2.success:
            d, chosen = d2, second
    stopped = 0
    if d.success:
        stopped = min(hits, 1 + max(0, d.margin)) if st["defense_stops_extra_hits"] else hits
    tid = t.id
    used = {"dodge": "dodges", "parry": "parries", "block": "blocked"}[chosen["type"]]
    ctx.effects.append(Effect("defended", tid, {"defense": chosen["type"], "counter": used,
                                                 "weapon": chosen.get("weapon"), "limbs": parry_limbs(chosen),
                                                 "says": defense_words(chosen, d.success)}))
    if chosen.get("dive"):
        ctx.effects.append(Effect("condition", tid, {"condition": "prone", "says": say("prone (dived)")}))
    if chosen.get("riposte") and d.success:
        pen = int_of(chosen["riposte"]) // 2
        ctx.effects.append(Effect("defense_penalty", req.attacker.id,
                                  {"against": tid, "value": pen,
                                   "says": say("-{n} to defend against {name}'s next attack (riposte)", n=pen, name=t.name)}))
    if maneuver == "aim":
        ctx.effects.append(Effect("aim_lost", tid, {"says": say("loses the aim")}))
    if maneuver == "concentrate":
        will = int_of(t.sheet.get("Will") or t.sheet.get("IQ"), 10)
        cc = check(dice, say("keep concentrating (Will-3)"), will, [Modifier(say("defending while concentrating"), -3, S_MANEUVER)], "Will",
                   roller=tid, then=say("a failure loses the concentration"))
        ctx.rolls.append(cc.roll)
        checks.append(cc)
        if not cc.success:
            ctx.effects.append(Effect("concentration_lost", tid, {"says": say("loses concentration")}))
    return {"stopped": stopped, "defense": chosen, "checks": [c.to_dict() for c in checks], "success": d.success}


def attack_setup(request: AttackRequest, wname: str, weapon: dict, st: dict, extra: list[Modifier],
                 shots: int | None = None) -> dict:
    """What one attack is before its roll, shared by ``attack()`` and the exact odds: the damage type
    (Tip Slash), the effective-skill pieces, the location's limits, and the shots with RoF, shotgun
    pellets and the rapid-fire bonus (sections "Ranged Attacks", "Hit Location")."""
    opts = request.options or {}
    damage_type = weapon.get("type", "cr")
    if opts.get("tip_slash"):
        if damage_type != "imp" or weapon.get("attack") != "thrust":
            raise RuleError(say("Tip Slash needs a thrusting impaling attack"))
        damage_type = "cut"
    base, blabel, mods, cap, facts = attack_modifiers(request, wname, weapon, st, extra)
    location = facts["location"]
    if location in ONLY_TYPES and damage_type not in ONLY_TYPES[location]:
        raise RuleError(say("{location} can only be targeted by {types}", location=location_name(location),
                            types=", ".join(ONLY_TYPES[location])))
    ranged = facts["ranged"]
    if shots is None:
        shots = max(1, int_of(opts.get("shots", 1)))
    rof = int_of(weapon.get("rof"), 1)
    if ranged and shots > 1 and shots > rof:
        raise RuleError(say("{weapon} fires at most {rof} shots (RoF)", weapon=wname, rof=rof))
    fired = shots
    pellets = max(1, int_of(weapon.get("pellets"), 1))
    shotgun_mult = 1
    if ranged and pellets > 1:
        half_d = num_of(weapon.get("half_d"))
        if half_d and request.distance <= 0.1 * half_d:
            shotgun_mult = max(1, pellets // 2)
            mods.append(Modifier(say("shotgun at close range: damage and DR x{n}", n=shotgun_mult), 0, S_RANGED))
        else:
            shots *= pellets
    if ranged and shots > 1:
        b = rapid_fire_bonus(shots)
        if b:
            mods.append(Modifier(say("rapid fire ({n} shots)", n=shots), b, S_RANGED))
    return {"damage_type": damage_type, "base": base, "label": blabel, "modifiers": mods, "cap": cap,
            "facts": facts, "shots": shots, "fired": fired, "shotgun_mult": shotgun_mult}


def _single_attack(ctx: _Ctx, dice: DiceSource, wname: str, weapon: dict, extra: list[Modifier],
                   label: str, hp_before: int, shots: int | None = None) -> dict:
    req = ctx.request
    opts = req.options or {}
    a, t = req.attacker, req.target
    st = ctx.settings
    setup = attack_setup(req, wname, weapon, st, extra, shots)
    damage_type, base, blabel, mods, cap, facts = (setup["damage_type"], setup["base"], setup["label"],
                                                   setup["modifiers"], setup["cap"], setup["facts"])
    location, ranged = facts["location"], facts["ranged"]
    shots, fired, shotgun_mult = setup["shots"], setup["fired"], setup["shotgun_mult"]
    # the skill in brackets only when it is not the weapon's own name ("attack: Broadsword", "attack: Axe (Axe/Mace)")
    what = say("{attack}: {weapon}", attack=label, weapon=wname) if str(blabel) == str(wname) else \
        say("{attack}: {weapon} ({skill})", attack=label, weapon=wname, skill=blabel)
    chk = check(dice, what, base, mods, blabel, cap, roller=a.id)
    ctx.rolls.append(chk.roll)
    out: dict = {"weapon": wname, "check": chk.to_dict(), "shots": fired if ranged else 0, "hits": 0, "landed": 0,
                 "injury": 0, "damage": []}
    if not chk.success:
        if chk.margin == -1 and chk.result == "failure" and location in MISS_BY_ONE_TORSO:
            location = "torso"
            out["note"] = say("missed by 1: hits the torso instead")
        else:
            out["note"] = chk.result
            return out
    if location == "weapon":
        if not opts.get("disarm"):
            raise RuleNotImplemented(say("striking a weapon to break it is not automated; use the disarm option"))
    hits = extra_hits(max(0, chk.margin), max(1, int_of(weapon.get("rcl"), 1)), shots) if shots > 1 else 1
    out["hits"] = hits
    info = attack_info(req, weapon, damage_type)
    defense = _defend(ctx, dice, info, chk, hits)
    out["defense"] = defense
    landed = hits - defense["stopped"]
    out["landed"] = landed
    if landed <= 0:
        return out
    if location == "weapon":
        out["disarm"] = _disarm(ctx, dice, weapon)
        return out
    dmods = damage_adjustments(parse_damage(weapon.get("damage", "1d"), int_of(a.sheet.get("ST"), 10))[1],
                           facts["maneuver"], facts["variant"], weapon)
    hp_now = hp_before
    for i in range(landed):
        loc = _roll_location(ctx, dice, damage_type) if location == "random" else location
        res = resolve_damage(t, weapon, damage_type, loc, dice, int_of(a.sheet.get("ST"), 10), dmods,
                             facts.get("half_damage", False), shotgun_mult, settings=st, hp_before=hp_now, roller=a.id,
                             label=say("{attack} damage (hit {n})", attack=label, n=i + 1) if landed > 1 else say("{attack} damage", attack=label))
        ctx.rolls += res.pop("rolls")
        ctx.effects += res.pop("effects")
        hp_now = res["hp_after"]
        out["injury"] += res["injury"]
        out["damage"].append(res)
    out["hp_after"] = hp_now
    return out


def _disarm(ctx: _Ctx, dice: DiceSource, weapon: dict) -> dict:
    """Disarm ("Attacking"): after the hit, a quick contest of combat skills (ST-based if chosen)."""
    req = ctx.request
    opts = req.options or {}
    a, t = req.attacker, req.target
    twname = opts.get("target_weapon")
    tws = weapons(t.sheet)
    if twname not in tws:
        raise RuleError(say("a disarm names the target's weapon (option target_weapon)"))
    tw = tws[twname]

    def level(sheet: dict, w: dict, st_based: bool) -> tuple[int, list[Modifier], str]:
        lvl, lab = skill_level(sheet, w.get("skill"))
        mods = []
        if st_based:
            mods.append(Modifier(say("ST-based"), int_of(sheet.get("ST"), 10) - int_of(sheet.get("DX"), 10), S_ATTACK))
        return lvl, mods, lab

    b1, m1, l1 = level(a.sheet, weapon, bool(opts.get("disarm_st_based")))
    t_st = bool(opts.get("defender_st_based")) and weapon_kind(tw) != "ranged"
    b2, m2, l2 = level(t.sheet, tw, t_st)
    c1 = check(dice, say("disarm contest (attacker)"), b1, m1, l1, roller=a.id,
               then=say("in a quick contest with {name} the better margin disarms", name=t.name))
    c2 = check(dice, say("disarm contest (defender)"), b2, m2, l2, roller=t.id,
               then=say("in a quick contest with {name} the better margin keeps the weapon", name=a.name))
    ctx.rolls += [c1.roll, c2.roll]
    if c1.result == "critical failure":
        outcome = say("attacker disarmed")
        ctx.effects.append(Effect("disarmed", a.id, {"weapon": req.weapon, "says": say("disarmed: drops {weapon}", weapon=req.weapon)}))
    elif contest_key(c1) > contest_key(c2):
        outcome = say("weapon flung 1 yard")
        ctx.effects.append(Effect("disarmed", t.id, {"weapon": twname, "yards": 1,
                                                     "says": say("disarmed: {weapon} flung a yard away", weapon=twname)}))
    elif c2.margin - c1.margin <= 3:
        outcome = say("weapon unreadied")
        ctx.effects.append(Effect("unreadied", t.id, {"weapon": twname, "says": say("{weapon} unreadied", weapon=twname)}))
    else:
        outcome = say("no effect")
    return {"outcome": outcome, "attacker": c1.to_dict(), "defender": c2.to_dict()}


def rapid_strike_penalty(sheet: dict, levels: int, ranged: bool) -> list[Modifier]:
    """The to-hit penalty of each attack of a Rapid Strike ("Attacking": -6 per split, halved by Trained
    By A Master or Weapon Master; Quick Shot buys it off for a ranged weapon)."""
    per = -3 if (has_trait(sheet, "trained_by_a_master") or has_trait(sheet, "weapon_master")) else -6
    mods = [Modifier(say("Rapid Strike x{n}", n=2 ** levels), per * levels, S_ATTACK)]
    if ranged:
        qs = int_of((sheet.get("techniques") or {}).get("Quick Shot"))
        if qs:
            mods.append(Modifier(say("Quick Shot technique"), min(qs, -per * levels), S_ATTACK))
    return mods


def attack(request: AttackRequest, dice: DiceSource, settings: dict | None = None) -> AttackResult:
    """Resolve an attack: to-hit, the target's defense, location, damage, injury and its
    consequences ("Attacking", "Hit Locations", "Ranged Attacks", "Area of Effects", "Defending",
    "Maneuvers", "Damage", "Injury").

    ``request.options``: ``maneuver`` and ``variant``, ``moved`` (yards),
    ``location`` (a key of LOCATIONS or ``random``), ``from_behind``,
    ``rapid_strike`` (levels), ``dual_weapon`` (second weapon name),
    ``tip_slash``, ``braced``, ``aim_turns``, ``shots`` (for a ranged Rapid
    Strike: the total the attacks split, or a list per attack; never more
    than the RoF, see :func:`rapid_strike_shots`), ``target_speed``,
    ``disarm`` with ``target_weapon``, ``defense`` (``best``, ``none``, a
    type or a dict for :func:`defense_level`), ``second_defense``,
    ``modifier``, ``settings``.
    """
    opts = request.options or {}
    st = settings_of(settings or opts.get("settings"))
    request = own_copy(request)
    a, t = request.attacker, request.target
    wname, weapon = attack_weapon(a.sheet, request.weapon, a.state)
    ctx = _Ctx(request, st)
    attack_still_open(a)
    if weapon.get("area"):
        return _area_attack(ctx, dice, wname, weapon)
    maneuver, variant, _moved = chosen_maneuver(opts, a.state)
    if maneuver == "feint":
        fr = feint(a, t, dice, wname, opts.get("target_weapon"))
        return AttackResult(
            hit=False,
            summary=(say("{attacker} feints {target}: -{n} to {target}'s defense against the next attack", attacker=a.name,
                         target=t.name, n=fr["margin"]) if fr["margin"] else
                     say("{attacker} feints {target}: no effect", attacker=a.name, target=t.name)),
            rolls=fr["rolls"], modifiers=[], effects=fr["effects"],
            details={"target": t.id, "attacker": a.id, "maneuver": maneuver, "variant": variant,
                     "feint": {k: fr[k] for k in ("margin", "attacker", "defender")}})
    if len(request.targets) > 1:
        return _multi_attack(ctx, dice, wname, weapon, maneuver, variant)
    plan = attack_plan(request, wname, weapon)
    spent = shots_to_spend(request, plan)
    if maneuver == "all_out_attack" and variant == "feint":
        fr = feint(a, t, dice, wname)
        ctx.rolls += fr["rolls"]
        if fr["margin"] > 0:
            t.state["feint_penalty"] = fr["margin"]
    results, hp_now = _resolve(ctx, dice, plan)
    total = sum(r["injury"] for r in results)
    landed = sum(r["landed"] for r in results)
    summary = say("{attacker} attacks {target}: {parts}", attacker=a.name, target=t.name, parts=joined(_parts(results)))
    for wn, n in spent.items():
        ctx.effects.append(Effect("shots_spent", a.id, {"weapon": wn, "spent": n, "says": shots_words(wn, n)}))
    details = {"target": t.id, "attacker": a.id, "maneuver": maneuver, "variant": variant,
               "attacks": results, "injury": total, "hp_after": hp_now, "settings": st}
    if is_suppression(maneuver, variant) and not a.state.get("suppressing"):
        details["suppressing"] = suppression_at(a, t, wname, weapon)
    return AttackResult(hit=landed > 0, summary=summary, rolls=[r for r in ctx.rolls if r is not None],
                        modifiers=_modifiers(results), effects=ctx.effects, details=details)


def suppression_at(a: Combatant, t: Combatant, wname: str, weapon: dict) -> dict:
    """The area a Suppression Fire shot from the attack card keeps under fire ("Maneuvers", All Out Attack
    (Ranged), Suppression Fire: "a 2 yard wide area ... (4 yard wide if ROF is 10+)"): a square that wide
    on the target's square (reading: the target, caught in it when the fire starts, is attacked at once;
    whoever enters it later, until the shooter's next turn, is attacked too)."""
    from .ranged import suppression_area_width, suppression_fire_skill

    rof = int_of(weapon.get("rof"), 1)
    width = suppression_area_width(rof)
    cells = []
    if t.position is not None:
        x0, y0 = int(t.position[0]) - (width - 1) // 2, int(t.position[1]) - (width - 1) // 2
        cells = [[x, y] for y in range(y0, y0 + width) for x in range(x0, x0 + width)]
    return {"weapon": wname, "cells": cells, "width": width, "skill": suppression_fire_skill(rof)}


def _resolve(ctx: _Ctx, dice: DiceSource, plan: list) -> tuple[list[dict], int]:
    """Roll the attacks of a plan at the context's target in turn, the defenses it used lowering its next."""
    t = ctx.request.target
    ctx.defender_start = dict(t.state or {})
    results = []
    hp_now = current_hp(t.sheet)
    for i, (wn, w, extra, shots) in enumerate(plan):
        label = say("attack") if len(plan) == 1 else say("attack {n}", n=i + 1)
        res = _single_attack(ctx, dice, wn, w, extra, label, hp_now, shots)
        hp_now = res.get("hp_after", hp_now)
        results.append(res)
        used = (res.get("defense") or {}).get("defense")
        if used:  # later attacks of the same turn see the defenses already used
            t.state = record_defense(t.state, used)
    return results, hp_now


def _modifiers(results: list[dict], prefix: str = "") -> list[Modifier]:
    mods: list[Modifier] = []
    for i, r in enumerate(results):
        for m in r["check"]["modifiers"]:
            label = m["label"] if len(results) == 1 else say("attack {n}: {modifier}", n=i + 1, modifier=m["label"])
            if prefix:
                label = say("{target}: {modifier}", target=prefix, modifier=label)
            mods.append(Modifier(label, m["value"], m["source"]))
    return mods


def _parts(results: list[dict]) -> list[str]:
    parts = []
    for r in results:
        c = r["check"]
        bits = [say("{weapon}: {roll} vs {skill} ({result})", weapon=r["weapon"], roll=c["roll"], skill=c["effective"],
                    result=RESULT_WORDS.get(c["result"], c["result"]))]
        if r.get("note") and r["note"] != c["result"]:
            bits.append(r["note"])
        if r["hits"]:
            dfn = r.get("defense") or {}
            if dfn.get("defense"):
                kind = flank_said(dfn, DEFENSE_WORDS.get(dfn["defense"]["type"], dfn["defense"]["type"]))
                bits.append(say("{defense} succeeds", defense=kind) if dfn.get("success") else
                            say("{defense} fails", defense=kind))
            if r["landed"]:
                bits.append(say_n("{n} hit, {injury} injury", "{n} hits, {injury} injury", r["landed"], injury=r["injury"]))
            if r.get("disarm"):
                bits.append(r["disarm"]["outcome"])
        parts.append(joined(bits, ", "))
    return parts


#: a success roll's result and a defense's kind, in the reader's words (GURPS Lite's terms)
RESULT_WORDS = {"critical success": say("critical success"), "critical failure": say("critical failure"),
                "success": say("success"), "failure": say("failure")}
DEFENSE_WORDS = {"dodge": say("dodge"), "parry": say("parry"), "block": say("block")}


def _multi_attack(ctx: _Ctx, dice: DiceSource, wname: str, weapon: dict, maneuver: str, variant: str) -> AttackResult:
    """A Rapid Strike at several targets or Spraying Fire (see :mod:`rules.gurps_lite.multi`): each target's
    attacks rolled in turn, each target defending for itself; one ``details["targets"]`` entry each."""
    from .multi import multi_plan, subrequests

    req = ctx.request
    a = req.attacker
    mp = multi_plan(req, wname, weapon, rapid_strike_penalty)
    check_shots_left(wname, weapon, mp["fired"])
    entries, everything, mods, lines = [], [], [], []
    for sub, plan in zip(subrequests(req), mp["per_target"]):
        sub = own_copy(sub)
        sctx = _Ctx(sub, ctx.settings, ctx.rolls, ctx.effects)
        results, hp_now = _resolve(sctx, dice, plan)
        t = sub.target
        landed = sum(r["landed"] for r in results)
        entries.append({"target": t.id, "name": t.name, "hit": landed > 0, "attacks": results,
                        "injury": sum(r["injury"] for r in results), "hp_after": hp_now,
                        "roll": results[0]["check"]["roll"], "skill": results[0]["check"]["effective"]})
        everything += results
        mods += _modifiers(results, t.name)
        lines.append(say("{target}: {parts}", target=t.name, parts=joined(_parts(results))))
    if mp["fired"] and shots_left(weapon) is not None:
        ctx.effects.append(Effect("shots_spent", a.id, {"weapon": wname, "spent": mp["fired"],
                                                        "says": shots_words(wname, mp["fired"])}))
    names = ", ".join(e["name"] for e in entries)
    if mp["mode"] != "spraying":
        summary = say("{attacker} attacks {targets} (Rapid Strike): {parts}", attacker=a.name, targets=names,
                      parts=joined(lines, " | "))
    elif mp["wasted"]:
        summary = say_n("{attacker} attacks {targets} (Spraying Fire) ({n} shot wasted sweeping): {parts}",
                        "{attacker} attacks {targets} (Spraying Fire) ({n} shots wasted sweeping): {parts}", mp["wasted"],
                        attacker=a.name, targets=names, parts=joined(lines, " | "))
    else:
        summary = say("{attacker} attacks {targets} (Spraying Fire): {parts}", attacker=a.name, targets=names,
                      parts=joined(lines, " | "))
    return AttackResult(hit=any(e["hit"] for e in entries), summary=summary,
                        rolls=[r for r in ctx.rolls if r is not None], modifiers=mods, effects=ctx.effects,
                        details={"target": req.target.id, "attacker": a.id, "maneuver": maneuver, "variant": variant,
                                 "mode": mp["mode"], "targets": entries, "attacks": everything,
                                 "injury": sum(e["injury"] for e in entries), "wasted": mp["wasted"],
                                 "settings": ctx.settings})


def defense_words(chosen: dict, success: bool) -> str:
    """A defense as the result card says it: "dodges with a dive (fails)", "parries with Sword" (words)."""
    verb = {"dodge": say("dodges"), "parry": say("parries"), "block": say("blocks")}[chosen["type"]]
    bits = [say("with {weapon}", weapon=chosen["weapon"])] if chosen.get("weapon") else []
    bits += [w for k, w in (("dive", say("with a dive")), ("retreat", say("and retreats")),
                            ("acrobatic", say("acrobatically")), ("supported", say("supported")),
                            ("riposte", say("with a riposte"))) if chosen.get(k)]
    if chosen.get("cross"):
        bits.append(say("crossing {weapon}", weapon=chosen["cross"]))
    line = joined([verb, *bits], " ")
    return line if success else say("{defense} (fails)", defense=line)


def shots_words(weapon: str, n: int) -> str:
    return say_n("fires {n} shot of the {weapon}", "fires {n} shots of the {weapon}", n, weapon=weapon)


def attack_plan(request: AttackRequest, wname: str, weapon: dict) -> list[tuple[str, dict, list[Modifier], int | None]]:
    """The attacks one request makes, each (weapon name, weapon, extra modifiers, shots or None):
    a Suppression Fire attack with the whole RoF, the attacks of a Rapid Strike (a ranged one splitting
    its RoF), the two of a Dual Weapon Attack or an All-Out Attack (Double), else one ("Attacking",
    "Maneuvers")."""
    opts = request.options or {}
    a = request.attacker
    maneuver, variant, _ = chosen_maneuver(opts, a.state)
    ranged = weapon_kind(weapon) in ("ranged", "thrown")
    if is_suppression(maneuver, variant):
        return [(wname, weapon, [], int_of(weapon.get("rof"), 1))]
    if opts.get("rapid_strike"):
        levels = int_of(opts["rapid_strike"])
        shots: list[int | None] = [None] * (2 ** levels)
        if ranged:
            shots = list(rapid_strike_shots(int_of(weapon.get("rof"), 1), 2 ** levels, opts.get("shots")))
        pen = rapid_strike_penalty(a.sheet, levels, ranged)
        return [(wname, weapon, list(pen), s) for s in shots]
    if opts.get("dual_weapon"):
        w2name, w2 = attack_weapon(a.sheet, opts["dual_weapon"], a.state)
        if w2name == wname:
            raise RuleError(say("a Dual Weapon Attack uses two different weapons"))
        pen = [Modifier(say("Dual Weapon Attack"), -4, S_ATTACK)]
        return [(wname, weapon, list(pen), None), (w2name, w2, list(pen), None)]
    if maneuver == "all_out_attack" and variant == "double":
        return [(wname, weapon, [], None), (wname, weapon, [], None)]
    return [(wname, weapon, [], None)]


def shots_to_spend(request: AttackRequest, plan: list[tuple[str, dict, list[Modifier], int | None]]) -> dict[str, int]:
    """The shots each weapon that keeps count fires in this plan, refused when it has too few left
    ("Ranged Attacks"; the Shots of a weapon, reloaded with a Ready maneuver). The attacks of a
    Suppression Fire already laid down on an area fire nothing more: its RoF was spent laying it."""
    opts = request.options or {}
    a = request.attacker
    maneuver, variant, _ = chosen_maneuver(opts, a.state)
    if is_suppression(maneuver, variant) and a.state.get("suppressing"):
        return {}
    fired: dict[str, int] = {}
    weapons_of: dict[str, dict] = {}
    for wn, w, _extra, shots in plan:
        if weapon_kind(w) not in ("ranged", "thrown") or shots_left(w) is None:
            continue
        fired[wn] = fired.get(wn, 0) + (shots if shots is not None else max(1, int_of(opts.get("shots", 1))))
        weapons_of[wn] = w
    for wn, n in fired.items():
        check_shots_left(wn, weapons_of[wn], n)
    return fired


def check_shots_left(wname: str, weapon: dict, fired: int) -> None:
    """RuleError when a weapon that keeps count has fewer than ``fired`` shots left."""
    left = shots_left(weapon)
    if left is None or not fired:
        return
    if not left:
        raise RuleError(say("{weapon} is out of shots: reload it first (a Ready maneuver; 3d6 Combat, 'Maneuvers', Ready)",
                            weapon=wname))
    if fired > left:
        raise RuleError(say_n("{weapon} has {n} shot left, not the {fired} this attack fires (3d6 Combat, 'Ranged Attacks')",
                              "{weapon} has {n} shots left, not the {fired} this attack fires (3d6 Combat, 'Ranged Attacks')",
                              left, weapon=wname, fired=fired))


def feint(attacker: Combatant, target: Combatant, dice: DiceSource, weapon: str | None = None,
          target_weapon: str | None = None) -> dict:
    """Feint ("Maneuvers"): quick contest of weapon skills; the winner's margin comes off the target's
    defense against the attacker's next attack."""
    _, w = attack_weapon(attacker.sheet, weapon, attacker.state)
    tws = weapons(target.sheet)
    tw = tws.get(target_weapon or "") or next(iter(tws.values()), {})
    b1, l1 = skill_level(attacker.sheet, w.get("skill"))
    b2, l2 = skill_level(target.sheet, tw.get("skill"))
    c1 = check(dice, say("feint (attacker)"), b1, [], l1, roller=attacker.id,
               then=say("in a quick contest with {name} the margin won comes off {name}'s defense", name=target.name))
    c2 = check(dice, say("feint (defender)"), b2, [], l2, roller=target.id,
               then=say("in a quick contest with {name} the better margin sees through the feint", name=attacker.name))
    won = contest_key(c1) > contest_key(c2)
    margin = (c1.margin - c2.margin) if won and c1.success else 0
    return {"margin": max(0, margin), "attacker": c1.to_dict(), "defender": c2.to_dict(),
            "rolls": [c1.roll, c2.roll],
            "effects": [Effect("feint_penalty", target.id, {"against": attacker.id, "value": max(0, margin),
                                                            "says": say("-{n} to defend against {name}'s next attack (feint)",
                                                                        n=max(0, margin), name=attacker.name)})]}


_DIRECTIONS = ((0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1))


def _area_attack(ctx: _Ctx, dice: DiceSource, wname: str, weapon: dict) -> AttackResult:
    """An area attack ("Area of Effects"): no active defense but a dive, damage divided by the distance
    from the centre, scatter by the margin of a miss or of the dive."""
    req = ctx.request
    a, t = req.attacker, req.target
    opts = req.options or {}
    laid = opts.get("template") is not None
    if laid:
        if opts.get("template") != "sphere" or not is_square(opts.get("centre")):
            raise RuleError(say("a 3d6 area attack lays the sphere template on a square (3d6 Combat, 'Area of Effects')"))
        req = replace(req, options={**opts, "aim_at_ground": True})
        ctx.request = req
    elif t.position is None:
        raise RuleError(say("an area attack needs the tokens' positions"))
    radius = num_of(weapon.get("area"))
    base, blabel, mods, cap, facts = attack_modifiers(req, wname, weapon, ctx.settings)
    chk = check(dice, say("area attack: {weapon}", weapon=wname), base, mods, blabel, cap, roller=a.id,
                then=say("a miss scatters by the margin"))
    ctx.rolls.append(chk.roll)
    centre = tuple(int(v) for v in opts["centre"][:2]) if laid else tuple(t.position)
    scatter = 0
    dived: set[str] = set()
    notes = []
    info = attack_info(req, weapon, weapon.get("type", "cr"))
    if not chk.success:
        scatter = -chk.margin
    elif laid:
        pass  # aimed at the ground: no target to dodge it; who is under it may dive, below
    else:
        dfn = (req.options or {}).get("defense", "best")
        if dfn not in (None, "none") and not (chk.result == "critical success" and ctx.settings["critical_hit_no_defense"]):
            try:
                base_d, mods_d, label_d = defense_level(t.sheet, t.state, {"type": "dodge", "dive": True}, info,
                                                        ctx.settings)
            except RuleError as exc:
                notes.append(exc.args[0] if exc.args else str(exc))
            else:
                d = check(dice, say("dive away from the area"), base_d, mods_d, label_d, roller=t.id,
                          then=say("a success dives clear, prone either way"))
                ctx.rolls.append(d.roll)
                ctx.effects.append(Effect("condition", t.id, {"condition": "prone"}))
                if d.success:
                    dived.add(t.id)
                    scatter = d.margin
    if scatter:
        drec = dice.roll("1d8", say("scatter direction (1 = north, clockwise)"), roller=a.id,
                         needs=say("roll 1d8: where the area scatters {n} yd, 1 north, then clockwise", n=scatter))
        ctx.rolls.append(drec)
        dx, dy = _DIRECTIONS[drec.total - 1]
        centre = (centre[0] + dx * scatter, centre[1] + dy * scatter)
        notes.append(say("scatters {n} yd to {square}", n=scatter, square=str(centre)))
    pool = [*req.others, t] if laid else [t, *req.others]
    victims = [c for c in pool if c.position is not None and c.id not in dived
               and distance_yards(centre, c.position) <= radius]
    if laid:
        victims = _dive_clear(ctx, dice, victims, info, notes)
    total = 0
    per_target = []
    for v in victims:
        dist = int(distance_yards(centre, v.position))
        res = resolve_damage(v, weapon, weapon.get("type", "cr"), "torso", dice, int_of(a.sheet.get("ST"), 10),
                             dr_override=average_dr(v.sheet), divide_by=max(1, dist), settings=ctx.settings,
                             label=say("area damage to {name}", name=v.name), vitals_roll=False, roller=a.id)
        ctx.rolls += res.pop("rolls")
        ctx.effects += res.pop("effects")
        res["target"] = v.id
        res["distance"] = dist
        total += res["injury"]
        per_target.append(res)
    names = {c.id: c.name for c in [t, *req.others]}
    injuries = [say("{name}: {n} injury", name=names.get(r["target"], r["target"]), n=r["injury"]) for r in per_target]
    roll, result = chk.roll.total if chk.roll else "?", RESULT_WORDS.get(chk.result, chk.result)
    parts = joined(notes + injuries)
    summary = (say("{attacker} attacks the square {square}: {roll} vs {skill} ({result}); {parts}", attacker=a.name,
                   square=str(list(centre)), roll=roll, skill=chk.effective, result=result, parts=parts) if laid else
               say("{attacker} attacks an area around {target}: {roll} vs {skill} ({result}); {parts}", attacker=a.name,
                   target=t.name, roll=roll, skill=chk.effective, result=result, parts=parts))
    if laid:
        for r in per_target:
            r["hit"] = True
        caught = {r["target"] for r in per_target}
        per_target += [{"target": cid, "hit": False, "note": say("dives clear")} for cid in ctx.clear
                       if cid not in caught]
    return AttackResult(hit=bool(per_target), summary=summary, rolls=ctx.rolls, modifiers=mods, effects=ctx.effects,
                        details={"target": t.id, "attacker": a.id, "maneuver": facts["maneuver"],
                                 "variant": facts["variant"], "check": chk.to_dict(), "centre": centre,
                                 "scatter": scatter, "damage": per_target, "injury": total, "settings": ctx.settings,
                                 **({"targets": per_target} if laid else {})})


def _dive_clear(ctx: _Ctx, dice: DiceSource, victims: list[Combatant], info: AttackInfo, notes: list) -> list:
    """Each token under a laid area attack may dive out of it ("Area of Effects": "Active defenses can't be
    used against them but you can use a dive as a defense to move out of the way of the AoE"): a Dodge at
    +3 that leaves it prone; a success takes it out of the area. ``options["defense"]`` "none": no one dives."""
    if (ctx.request.options or {}).get("defense") in ("none",):
        return victims
    caught, clear = [], []
    for v in victims:
        try:
            base, mods, label = defense_level(v.sheet, v.state or {}, {"type": "dodge", "dive": True}, info, ctx.settings)
        except RuleError as exc:
            notes.append(say("{name} cannot dive: {reason}", name=v.name, reason=exc.args[0] if exc.args else str(exc)))
            caught.append(v)
            continue
        d = check(dice, say("{name} dives away from the area", name=v.name), base, mods, label, roller=v.id,
                  then=say("a success dives clear, prone either way"))
        ctx.rolls.append(d.roll)
        ctx.effects.append(Effect("condition", v.id, {"condition": "prone"}))
        if d.success:
            clear.append(v.id)
            notes.append(say("{name} dives clear (prone)", name=v.name))
        else:
            caught.append(v)
    ctx.clear = clear
    return caught
