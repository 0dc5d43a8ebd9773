"""Damage and injury (*3d6 Combat*, "Damage", "Injury"): penetration and wounding, shock, major
wounds and knockdown, collapse and death checks, mortal wounds, and applying a result to a sheet.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict

from .. import odds as _odds
from ..dice import DiceSource, RollRecord
from ..system import AttackResult, Combatant, Effect, Modifier, RuleError
from ..text import say
from .badges import LOCATION_WORDS
from .checks import Check, RESULT_RANK, THREE_D6, check, roll_result, success_chance
from .data import LOCATIONS, PIERCING, S_AOE, S_INJURY, S_LOC, S_READING, WOUNDING, settings_of
from .locations import dr_at, location_mixture, wounding_multiplier
from .sheet import current_hp, int_of, max_hp, num_of, parse_damage, shots_left, weapons, with_loaded


def _where(location: str) -> str:
    """A hit location as people read it (the rules' words: "right arm", "skull")."""
    key = str(location).replace("_", " ")
    return LOCATION_WORDS.get(key, key)


def effective_dr(dr: int, armor_divisor: float = 1) -> int:
    """DR after an armour divisor ("Damage"), rounded down."""
    if armor_divisor <= 0:
        raise RuleError(say("an armour divisor must be positive"))
    return int(math.floor(max(0, dr) / armor_divisor + 1e-9))


def injury(damage: int, dr: int, damage_type: str, armor_divisor: float = 1) -> int:
    """Injury from basic damage against DR ("Damage"): (damage - DR/divisor) x wounding, round down.

    Cutting damage less than twice the (effective) DR of armour wounds as crushing.
    A torso hit; see :func:`location_injury` for the other locations.
    """
    return location_injury(damage, dr, damage_type, "torso", armor_divisor)["injury"]


def location_injury(damage: int, dr: int, damage_type: str, location: str = "torso",
                    armor_divisor: float = 1, flexible: bool = False, hp: int | None = None,
                    male: bool = False) -> dict:
    """Penetration, wounding and injury of one hit ("Damage", "Hit Locations" notes).

    Returns a dict: ``dr`` (effective), ``penetrating``, ``wound_type``,
    ``multiplier``, ``injury`` (after the cripple cap), ``blunt_trauma``,
    ``crippled``.
    """
    if damage_type not in WOUNDING:
        raise RuleError(say("unknown damage type {value}; known: {known}", value=repr(damage_type), known=", ".join(WOUNDING)))
    damage = max(0, int(damage))
    eff = effective_dr(dr, armor_divisor)
    pen = max(0, damage - eff)
    wound_type = damage_type
    if damage_type == "cut" and eff > 0 and damage < 2 * eff:
        wound_type = "cr"  # Damage table: cut against armour
    mult = wounding_multiplier(wound_type, location, male)
    inj = int(math.floor(pen * mult + 1e-9))
    blunt = 0
    if pen == 0 and flexible and eff > 0 and damage > 0:
        per = 5 if damage_type == "cr" else 10 if damage_type in (*PIERCING, "cut", "imp") else 0
        if per:
            blunt = damage // per
            inj = blunt
    crippled = False
    loc = LOCATIONS[location]
    if hp is not None and loc.cripple is not None and inj > 0:
        threshold = hp * loc.cripple
        if inj > threshold:
            crippled = True
            inj = min(inj, int(math.floor(threshold)) + 1)
    return {"dr": eff, "penetrating": pen, "wound_type": wound_type, "multiplier": mult,
            "injury": inj, "blunt_trauma": blunt, "crippled": crippled}


def shock(injury_points: int, double: bool = False) -> int:
    """Shock from one turn's injury ("Injury": one per point, at most 4; groin cr on a male doubles)."""
    if double:
        return min(8, 2 * max(0, injury_points))
    return min(4, max(0, injury_points))


def is_major_wound(injury_points: int, hp: int, crippled: bool = False) -> bool:
    """Major wound: more than half HP from one injury, or any crippling injury ("Injury")."""
    return crippled or injury_points * 2 > hp


def knockdown(sheet: dict, dice: DiceSource, modifiers: list[Modifier] | None = None,
              roller: str | None = None) -> tuple[Check, list[str]]:
    """HT roll against knockdown ("Injury"): failure drops held items, prone, stunned; a critical
    failure or failure by 5+ knocks out instead of stunning. ``roller``: the wounded one's token (#59)."""
    chk = check(dice, say("knockdown (HT)"), int_of(sheet.get("HT"), 10), modifiers, "HT", roller=roller,
                then=say("a failure falls prone and stunned, a failure by 5 or more unconscious"))
    if chk.success:
        return chk, []
    conds = ["dropped held items", "prone"]
    if chk.result == "critical failure" or chk.margin <= -5:
        conds.append("unconscious")
    else:
        conds.append("stunned")
    return chk, conds


def collapse_check(sheet: dict, dice: DiceSource, maneuver: str | None = None,
                   roller: str | None = None) -> Check | None:
    """Start-of-turn HT roll below 0 HP ("Injury"); none under Do Nothing or at 0 HP or more. ``roller``: the
    token below 0 HP (#59)."""
    if current_hp(sheet) >= 0 or maneuver == "do_nothing":
        return None
    return check(dice, say("collapse below 0 HP (HT)"), int_of(sheet.get("HT"), 10), [], "HT", roller=roller,
                 then=say("a failure falls unconscious"))


def collapse(sheet: dict, dice: DiceSource, maneuver: str | None = None, roller: str | None = None) -> dict:
    """The collapse roll and what it does ("Injury": "Below 0 HP you are at risk of collapse, at the
    start of your turn roll HT on a failure you fall unconscious"; "Do Nothing": "You won't fall
    unconscious due to low HP"). Returns ``check`` (None when no roll is due) and ``conditions``
    (``["unconscious"]`` on a failure)."""
    if "unconscious" in (sheet.get("conditions") or []):
        return {"check": None, "conditions": []}
    chk = collapse_check(sheet, dice, maneuver, roller)
    return {"check": chk, "conditions": ["unconscious"] if chk is not None and not chk.success else []}


def shock_after_turn(shock_now: int, shock_at_start: int) -> int:
    """Shock left when the victim's turn ends ("Injury": shock gives its penalties "on your next turn").

    The shock the victim carried into its turn has been that next turn and clears; shock from
    injury taken during the turn itself (the sheet shows more than at the start) is kept for
    the victim's next turn.
    """
    return max(0, int(shock_now) - max(0, int(shock_at_start)))


def hp_loss_checks(sheet: dict, hp_before: int, hp_after: int, dice: DiceSource,
                   roller: str | None = None) -> tuple[list[Check], list[str]]:
    """Death checks for each multiple of -HP passed, death at -5xHP, destruction at -10xHP ("Injury");
    ``roller``: the wounded one's token (#59)."""
    hp = max_hp(sheet)
    checks, conds = [], []
    if hp_after <= -10 * hp:
        return checks, ["dead", "destroyed"]
    if hp_after <= -5 * hp:
        return checks, ["dead"]
    for k in range(1, 5):
        line = -k * hp
        if hp_before > line >= hp_after:
            chk = check(dice, say("death check at {hp} HP (HT)", hp=line), int_of(sheet.get("HT"), 10), [], "HT",
                        roller=roller, then=say("a failure by 1 or 2 is a mortal wound, by more death"))
            checks.append(chk)
            if not chk.success:
                if chk.margin >= -2:
                    if "mortally wounded" not in conds:
                        conds += ["mortally wounded", "unconscious"]
                else:
                    return checks, ["dead"]
    return checks, conds


def mortal_wound_check(sheet: dict, dice: DiceSource, physician_skill: int | None = None,
                       roller: str | None = None, physician: str | None = None) -> dict:
    """The half-hourly HT roll of a mortal wound, or the hourly HT and Physician rolls keeping
    the better ("Injury"): failure is death, a critical success heals the mortal wound. ``roller``: the
    mortally wounded one's token, ``physician``: the token of whoever tends them, or the wounded one's (#59)."""
    then = (say("a failure is death, a critical success heals the mortal wound") if physician_skill is None else
            say("the better of the HT and Physician rolls counts: a failure is death, a critical success heals"))
    checks = [check(dice, say("mortal wound (HT)"), int_of(sheet.get("HT"), 10), [], "HT", roller=roller, then=then)]
    if physician_skill is not None:
        checks.append(check(dice, say("mortal wound (Physician)"), int(physician_skill), [], "Physician",
                            roller=physician or roller, then=then))
    best = max(checks, key=lambda c: (RESULT_RANK[c.result], c.margin))
    outcome = "healed" if best.result == "critical success" else "holds" if best.success else "dead"
    return {"outcome": outcome, "checks": [c.to_dict() for c in checks], "rolls": [c.roll for c in checks]}


def surgery_modifiers(hp_current: int, hp: int, attempt: int = 0) -> list[Modifier]:
    """Modifiers to the Surgery roll that stabilizes a mortal wound ("Injury")."""
    mods = []
    if hp_current < -4 * hp:
        mods.append(Modifier(say("below -4 x HP"), -4, S_INJURY))
    elif hp_current < -3 * hp:
        mods.append(Modifier(say("below -3 x HP"), -2, S_INJURY))
    if attempt:
        mods.append(Modifier(say("repeat attempt x{n}", n=attempt), -2 * attempt, S_INJURY))
    return mods


def stabilize(surgery_skill: int, hp_current: int, hp: int, dice: DiceSource, attempt: int = 0,
              roller: str | None = None) -> Check:
    """Surgery roll to stabilize a mortal wound ("Injury"); ``roller``: the surgeon's token (#59)."""
    return check(dice, say("stabilize mortal wound (Surgery)"), surgery_skill,
                 surgery_modifiers(hp_current, hp, attempt), "Surgery", roller=roller,
                 then=say("a success stabilizes the mortal wound"))


def resolve_damage(target: Combatant, weapon: dict, damage_type: str, location: str, dice: DiceSource,
                   attacker_st: int = 10, damage_mods: list[Modifier] | None = None, half_damage: bool = False,
                   shotgun_multiplier: int = 1, dr_override: int | None = None, divide_by: int = 1,
                   settings: dict | None = None, hp_before: int | None = None,
                   label: str = say("damage"), vitals_roll: bool = True, roller: str | None = None) -> dict:
    """Roll one hit's damage and turn it into injury and its consequences ("Damage", "Injury",
    "Hit Locations"). Returns rolls, effects, injury, the breakdown and the new HP."""
    st = settings_of(settings)
    rolls: list[RollRecord] = []
    effects: list[Effect] = []
    sheet = target.sheet
    expr, n_dice, _adds = parse_damage(weapon.get("damage", "1d"), attacker_st)
    rec = dice.roll(expr, say("{purpose} ({damage} {type})", purpose=label, damage=weapon.get("damage"), type=damage_type),
                    roller=roller, needs=say("roll {dice} for damage", dice=expr))
    rolls.append(rec)
    mods = list(damage_mods or [])
    basic = rec.total + int(sum(m.value for m in mods))
    if half_damage:
        basic = basic // 2
        mods.append(Modifier(say("at or beyond 1/2D: half damage"), 0, S_READING))
    if divide_by > 1:
        basic = basic // divide_by
        mods.append(Modifier(say("area effect: divided by distance {n}", n=divide_by), 0, S_AOE))
    basic = max(0 if damage_type == "cr" else 1, basic)
    if shotgun_multiplier > 1:
        basic *= shotgun_multiplier
    # torso -> vitals (note 11)
    if location == "torso" and vitals_roll and st["torso_vitals_roll"] and damage_type in ("imp", *PIERCING, "cr", "tbb"):
        v = dice.roll("1d6", say("torso hit: vitals on a 1"), roller=roller, needs=say("roll 1d6: the vitals on a 1"))
        rolls.append(v)
        if v.total == 1:
            location = "vitals"
    wound_loc = "torso" if location in ("chinks_torso", "armour_gap", "groin") else location
    dr, flexible = dr_at(sheet, "torso" if location in ("chinks_torso", "armour_gap") else location)
    if location == "chinks_torso":
        dr //= 2
    elif location == "armour_gap":
        dr = 0
    elif location == "skull":
        dr += 2  # note 3
    elif location == "eye":
        dr = 0  # note 2: as skull without DR
    if dr_override is not None:
        dr = dr_override
    if shotgun_multiplier > 1:
        dr *= shotgun_multiplier
    hp = max_hp(sheet)
    male = bool(sheet.get("male"))
    info = location_injury(basic, dr, damage_type, wound_loc, num_of(weapon.get("armor_divisor"), 1) or 1,
                           flexible, hp, male)
    inj = info["injury"]
    before = current_hp(sheet) if hp_before is None else hp_before
    conds: list[str] = []
    checks: list[Check] = []
    if damage_type == "fat":
        if inj:
            effects.append(Effect("fatigue", target.id, {"fp": inj, "location": location,
                                                            "says": say("{n} FP ({location})", n=inj, location=_where(location))}))
        after = before
    else:
        after = before - inj
        if inj:
            effects.append(Effect("injury", target.id, {"injury": inj, "location": location,
                                                           "says": say("{n} HP injury ({location})", n=inj, location=_where(location))}))
            double = location == "groin" and damage_type == "cr" and male
            effects.append(Effect("shock", target.id, {"shock": shock(inj, double), "cap": 8 if double else 4,
                                                          "says": say("shock -{shock}", shock=shock(inj, double))}))
        if damage_type == "cor" and basic >= 5:
            effects.append(Effect("dr_reduced", target.id, {"location": location, "by": basic // 5,
                                                               "says": say("DR -{n} ({location})", n=basic // 5, location=_where(location))}))
        if info["crippled"]:
            effects.append(Effect("crippled", target.id, {"location": location, "says": say("crippled {location}", location=_where(location))}))
        major = inj > 0 and is_major_wound(inj, hp, info["crippled"])
        if major:
            conds.append("major wound")
        kd_mods: list[Modifier] = []
        needs_kd = major
        if inj > 0 and location in ("skull", "eye") and damage_type != "tox":
            needs_kd = True
            if major:
                kd_mods.append(Modifier(say("major wound to the skull"), -10, S_LOC))
        if inj > 0 and location in ("face", "vitals"):
            needs_kd = True
            if major:
                kd_mods.append(Modifier(say("major wound to the face") if location == "face" else
                                        say("major wound to the vitals"), -5, S_LOC))
        if location == "groin" and male and needs_kd:
            kd_mods.append(Modifier(say("groin hit (male)"), -5, S_LOC))
        if location == "face" and damage_type == "cor":
            if inj > hp:
                conds.append("blinded (both eyes)")
            elif major:
                conds.append("blinded (one eye)")
        if needs_kd:
            kd, kd_conds = knockdown(sheet, dice, kd_mods, roller=target.id)
            checks.append(kd)
            rolls.append(kd.roll)
            conds += kd_conds
        if after < before:
            hp_checks, hp_conds = hp_loss_checks(sheet, before, after, dice, roller=target.id)
            checks += hp_checks
            rolls += [c.roll for c in hp_checks]
            conds += hp_conds
            if after * 3 <= hp < before * 3:
                conds.append("reeling")
    for cond in dict.fromkeys(conds):
        effects.append(Effect("condition", target.id, {"condition": cond, "says": cond}))
    return {
        "rolls": rolls, "effects": effects, "injury": inj, "location": location, "basic_damage": basic,
        "damage_modifiers": [m.to_dict() for m in mods], "wound": info, "hp_before": before, "hp_after": after,
        "checks": [c.to_dict() for c in checks],
    }


def apply_result(sheet: dict, result: AttackResult, target: str | None = None) -> dict:
    """A new sheet with the result's effects on ``target`` (default: the attack's target) applied:
    HP, FP, shock, conditions, crippled locations, DR lost to corrosion ("Damage", "Injury")."""
    target = target or result.details.get("target")
    out = {**sheet}
    out["conditions"] = list(sheet.get("conditions") or [])
    out["crippled"] = list(sheet.get("crippled") or [])
    out["dr"] = dict(sheet.get("dr") or {})
    hp = current_hp(sheet)
    fp = int_of(sheet.get("fp_current", sheet.get("FP") or sheet.get("HT")), 10)
    shock_pts = int_of(sheet.get("shock"))
    for e in result.effects:
        if e.target != target:
            continue
        if e.kind == "injury":
            hp -= int_of(e.data.get("injury"))
        elif e.kind == "fatigue":
            fp -= int_of(e.data.get("fp"))
        elif e.kind == "shock":
            shock_pts = min(int_of(e.data.get("cap"), 4), shock_pts + int_of(e.data.get("shock")))
        elif e.kind == "condition":
            c = e.data.get("condition")
            if c and c not in out["conditions"]:
                out["conditions"].append(c)
        elif e.kind == "crippled":
            loc = e.data.get("location")
            if loc and loc not in out["crippled"]:
                out["crippled"].append(loc)
        elif e.kind == "shots_spent":  # the attacker's weapon ("Ranged Attacks": the shots fired)
            w = weapons(out).get(e.data.get("weapon") or "")
            left = shots_left(w) if w else None
            if left is not None:
                out["weapons"] = with_loaded(out, e.data["weapon"], max(0, left - int_of(e.data.get("spent"))))
        elif e.kind == "dr_reduced":
            loc = e.data.get("location")
            cur, _ = dr_at(sheet, loc)
            out["dr"][loc] = max(0, cur - int_of(e.data.get("by")))
    out["hp_current"] = hp
    out["fp_current"] = fp
    out["shock"] = shock_pts
    if "reeling" in out["conditions"] and hp * 3 > max_hp(out):
        out["conditions"].remove("reeling")
    return out



def _places(target: dict, damage_type: str, location: str | None, st: dict, shotgun_multiplier: int) -> list[tuple]:
    """Where a hit may land ("Hit Locations", the settings' mixture of them) and what stops it there: each
    ``(location, where its wound counts, chance, DR, flexible)``, DR as the armour gives it there (half through the
    chinks of the torso's, none through a gap or to the eye, +2 for the skull), times a close shotgun's multiplier."""
    places = []
    for loc, pl in location_mixture(damage_type, location, st).items():
        wound_loc = "torso" if loc in ("chinks_torso", "armour_gap", "groin") else loc
        dr, flex = dr_at(target, "torso" if loc in ("chinks_torso", "armour_gap") else loc)
        if loc == "chinks_torso":
            dr //= 2
        elif loc == "armour_gap" or loc == "eye":
            dr = 0
        elif loc == "skull":
            dr += 2
        places.append((loc, wound_loc, pl, dr * shotgun_multiplier, flex))
    return places

def hit_outcomes(target: dict, weapon: dict, damage_type: str, location: str = "torso",
                 attacker_st: int = 10, damage_bonus: int = 0, half_damage: bool = False,
                 shotgun_multiplier: int = 1, settings: dict | None = None) -> dict[tuple[int, bool], float]:
    """Exact distribution of one hit's (injury, major wound) ("Damage", "Hit Locations", "Injury":
    a major wound is more than half the HP from one injury, or any crippling one; fatigue damage
    wounds no one)."""
    st = settings_of(settings)
    expr, _n, _adds = parse_damage(weapon.get("damage", "1d"), attacker_st)
    hp = max_hp(target)
    places = _places(target, damage_type, location, st, shotgun_multiplier)
    return dict(_hit_table(expr, tuple(places), hp, damage_type, damage_bonus, half_damage, shotgun_multiplier,
                           num_of(weapon.get("armor_divisor"), 1) or 1))


@functools.lru_cache(maxsize=4096)
def _hit_table(expr: str, places: tuple, hp: int, damage_type: str, damage_bonus: int, half_damage: bool,
               shotgun_multiplier: int, divisor: float) -> dict[tuple[int, bool], float]:
    """:func:`hit_outcomes` once the target's HP and DR where the hit may land are read: a pure function of these
    numbers, kept (the foes' plans ask it for many squares, #60; callers get a copy)."""
    out: dict[tuple[int, bool], float] = defaultdict(float)
    for _loc, p, info in _injuries(expr, places, hp, damage_type, damage_bonus, half_damage, shotgun_multiplier,
                                   divisor):
        inj = info["injury"]
        major = damage_type != "fat" and inj > 0 and is_major_wound(inj, hp, info["crippled"])
        out[(inj, major)] += p
    return dict(out)


def _injuries(expr: str, places: tuple, hp: int, damage_type: str, damage_bonus: int, half_damage: bool,
              shotgun_multiplier: int, divisor: float):
    """Each way one hit may go ("Damage", "Injury"): ``(location, chance, location_injury's reading)`` for each
    place it may land (:func:`_places`) and each damage rolled."""
    dmg = _odds.distribution(expr)
    for loc, wound_loc, pl, dr, flex in places:
        for d, pd in dmg.items():
            basic = d + damage_bonus
            if half_damage:
                basic //= 2
            basic = max(0 if damage_type == "cr" else 1, basic) * shotgun_multiplier
            yield loc, pl * pd, location_injury(basic, dr, damage_type, wound_loc, divisor, flex, hp)


def injury_distribution(target: dict, weapon: dict, damage_type: str, location: str = "torso",
                        attacker_st: int = 10, damage_bonus: int = 0, half_damage: bool = False,
                        shotgun_multiplier: int = 1, settings: dict | None = None) -> dict[int, float]:
    """Exact distribution of one hit's injury (damage dice, minimum, DR and divisor, wounding,
    cripple cap; "Damage", "Hit Locations")."""
    out: dict[int, float] = defaultdict(float)
    for (inj, _major), p in hit_outcomes(target, weapon, damage_type, location, attacker_st, damage_bonus,
                                         half_damage, shotgun_multiplier, settings).items():
        out[inj] += p
    return dict(sorted(out.items()))


@functools.lru_cache(maxsize=64)
def _knockout(level: int) -> float:
    """The chance a knockdown roll (HT at ``level``) knocks out ("Injury": a critical failure or a failure by 5
    or more is unconscious)."""
    return sum(p for r, p in THREE_D6.items()
               if (res := roll_result(r, level)) == "critical failure" or (res == "failure" and level - r <= -5))


def hit_knockouts(target: dict, weapon: dict, damage_type: str, location: str = "torso", attacker_st: int = 10,
                  damage_bonus: int = 0, half_damage: bool = False, shotgun_multiplier: int = 1,
                  settings: dict | None = None) -> dict[tuple[int, bool], float]:
    """Exact distribution of one hit's (injury, knocked out), as :func:`resolve_damage` rolls it ("Injury": a
    major wound, or any injury to the skull, eye, face or vitals, calls for a knockdown roll, HT at -10 for a major
    wound to the skull or eye, -5 to the face or vitals, -5 more to a male's groin; a critical failure or a failure
    by 5 or more is unconscious). Fatigue damage knocks no one out here."""
    st = settings_of(settings)
    expr, _n, _adds = parse_damage(weapon.get("damage", "1d"), attacker_st)
    places = _places(target, damage_type, location, st, shotgun_multiplier)
    return dict(_knockout_table(expr, tuple(places), max_hp(target), int_of(target.get("HT"), 10),
                                bool(target.get("male")), damage_type, damage_bonus, half_damage, shotgun_multiplier,
                                num_of(weapon.get("armor_divisor"), 1) or 1))


@functools.lru_cache(maxsize=4096)
def _knockout_table(expr: str, places: tuple, hp: int, ht: int, male: bool, damage_type: str, damage_bonus: int,
                    half_damage: bool, shotgun_multiplier: int, divisor: float) -> dict[tuple[int, bool], float]:
    """:func:`hit_knockouts` once the target's HP, HT and DR where the hit may land are read (kept)."""
    out: dict[tuple[int, bool], float] = defaultdict(float)
    for loc, p, info in _injuries(expr, places, hp, damage_type, damage_bonus, half_damage, shotgun_multiplier,
                                  divisor):
        inj = info["injury"]
        ko = 0.0
        if damage_type != "fat" and inj > 0:  # as resolve_damage decides the knockdown roll and its modifiers
            major = is_major_wound(inj, hp, info["crippled"])
            needs, mod = major, 0
            if loc in ("skull", "eye") and damage_type != "tox":
                needs, mod = True, (-10 if major else 0)
            if loc in ("face", "vitals"):
                needs, mod = True, (-5 if major else 0)
            if loc == "groin" and male and needs:
                mod -= 5
            ko = _knockout(ht + mod) if needs else 0.0
        out[(inj, True)] += p * ko
        out[(inj, False)] += p * (1 - ko)
    return {k: q for k, q in out.items() if q > 0}


def hits_knockouts(per_hit: dict[tuple[int, bool], float], n: int, cap: int | None = None
                   ) -> dict[tuple[int, bool], float]:
    """(total injury, whether any hit's flag was set) of ``n`` hits, each as ``per_hit`` (:func:`hit_knockouts`: any
    knocked out; :func:`hit_outcomes`: any major wound); ``cap``: the total counted at most that."""
    out: dict[tuple[int, bool], float] = {(0, False): 1.0}
    for _ in range(n):
        nxt: dict[tuple[int, bool], float] = defaultdict(float)
        for (i1, k1), p1 in out.items():
            for (i2, k2), p2 in per_hit.items():
                total = i1 + i2 if cap is None else min(cap, i1 + i2)
                nxt[(total, k1 or k2)] += p1 * p2
        out = nxt
    return out


def down_chance(sheet: dict, outcomes: dict[tuple[int, bool], float]) -> float:
    """The chance an attack whose (total injury, knocked out) is ``outcomes`` puts the target out of the fight
    (unconscious, mortally wounded, dead: "Injury") before it acts again, beyond what would have come without it: a
    knockdown roll failed by 5 or more, a death check failed at each multiple of -HP passed, -5 x HP; or, left
    below 0 HP, the HT roll against collapse at the start of its next turn failed (a fighter that Does Nothing makes
    none, and does nothing). Less the chance that roll fails anyway, for a target already below 0 HP."""
    hp, now = max_hp(sheet), current_hp(sheet)
    holds = success_chance(int_of(sheet.get("HT"), 10))  # the death checks' and the collapse roll's HT
    down = 0.0
    for (inj, ko), p in outcomes.items():
        after = now - inj
        if ko or after <= -5 * hp:
            down += p
            continue
        lines = sum(1 for k in range(1, 5) if now > -k * hp >= after)
        stands = holds ** lines
        down += p * ((1 - stands) + (stands * (1 - holds) if after < 0 else 0.0))
    return max(0.0, down - ((1 - holds) if now < 0 else 0.0))
