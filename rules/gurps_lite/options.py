"""The attacker's choices, as the attack card draws them (*3d6 Combat*, "Attacking", "Hit Locations",
"Ranged Attacks", "Area of Effects", "Maneuvers").

:func:`attack_options` lists every option :func:`rules.gurps_lite.attack.attack` and the odds read from
``request.options``, each with the values the rules allow now for this attacker, weapon and target;
:func:`checked_options` refuses a picked value they do not allow, with the rule that refuses it.
"""

from __future__ import annotations

import math

from ..system import AttackRequest, RuleError
from .data import LOCATIONS, MANEUVERS
from .locations import ONLY_TYPES
from .maneuvers import chosen_maneuver
from .movement import maneuver_movement
from .sheet import (
    current_move,
    int_of,
    num_of,
    reach_of,
    ready_weapons,
    skill_level,
    weapon_kind,
    weapons,
)
from ..text import say
from .badges import location_name, maneuver_name

# Each reason names the rule it comes from: (3d6 Combat, 'Section', 'Name'), written out in its message.

#: the attacking maneuvers, melee and ranged, in the card's order, with what each costs in a word
_MANEUVER_LABELS = {
    "attack": say("Attack"),
    "move_and_attack": say("Move and Attack (-4 melee, -2 or Bulk ranged, skill 9 at most)"),
    "all_out_attack": say("All-Out Attack (no defense)"),
    "all_out_attack_ranged": say("All-Out Attack (no defense)"),
    "committed_attack": say("Committed Attack (defense -2, no retreat)"),
    "defensive_attack": say("Defensive Attack (defense +1, damage -2)"),
    "feint": say("Feint (a quick contest, no attack)"),
}
_VARIANT_LABELS = {
    ("all_out_attack", "determined"): say("Determined (+4 to hit)"),
    ("all_out_attack", "double"): say("Double (two attacks)"),
    ("all_out_attack", "long"): say("Long (+1 yard reach)"),
    ("all_out_attack", "strong"): say("Strong (+2 damage)"),
    ("all_out_attack", "feint"): say("Feint (feint, then attack)"),
    ("all_out_attack_ranged", "determined"): say("Determined (+1 to hit)"),
    ("all_out_attack_ranged", "suppression_fire"): say("Suppression Fire (an area, skill 8 + rapid fire)"),
    ("committed_attack", "determined"): say("Determined (+2 to hit)"),
    ("committed_attack", "strong"): say("Strong (+1 damage)"),
}


def _location_label(key: str, from_behind: bool, reach) -> str:
    loc = LOCATIONS[key]
    if key == "weapon":
        r = reach_of({"reach": reach})
        return say("Weapon, to disarm ({penalty})", penalty=-5 if r < 1 else -4 if r < 2 else -3)
    pen = loc.to_hit_back if (from_behind and loc.to_hit_back is not None) else loc.to_hit
    return say("{location} ({penalty})", location=location_name(key), penalty=f"{pen:+d}" if pen else "0")


def _weapon_of(request: AttackRequest) -> tuple[str | None, dict]:
    a = request.attacker
    ready = ready_weapons(a.sheet, a.state)
    if request.weapon is None:
        name = next(iter(ready), None) if ready else None
    else:
        name = request.weapon if request.weapon in ready else None
    return name, (ready.get(name) if name else None) or {}


def _opt(key: str, label: str, kind: str, default, available: bool = True, reason: str = "", **more) -> dict:
    out = {"key": key, "label": label, "kind": kind, "default": default, "available": available,
           "reason": "" if available else reason}
    out.update(more)
    return out


def _choice(key: str, label: str, values: list[dict], default, reason: str = "", **more) -> dict:
    available = bool(values) and not reason and len(values) > 1
    return _opt(key, label, "choice", default, available, reason or say("no other choice here"), values=values, **more)


#: the options whose value is one of a list of names: another kind of value is ignored when listing them
_CHOICES = ("maneuver", "variant", "location", "dual_weapon", "target_weapon")


def attack_options(request: AttackRequest) -> list[dict]:
    """Every choice of the attacker now, each naming the rule it comes from (see the module)."""
    opts = {k: v for k, v in (request.options or {}).items() if k not in _CHOICES or isinstance(v, str)}
    a, t = request.attacker, request.target
    state = a.state or {}
    wname, weapon = _weapon_of(request)
    kind = weapon_kind(weapon) if weapon else "melee"
    ranged = kind in ("ranged", "thrown")
    rof = int_of(weapon.get("rof"), 1)
    in_fight = "attacks" in state  # the fight's books are kept for this attacker
    maneuver, variant, moved = chosen_maneuver(opts, state)
    chosen = state.get("maneuver") if in_fight else None
    out: list[dict] = []

    # Maneuvers: the attacking ones for this weapon; once the turn's maneuver is chosen, that one
    keys = ["attack", "move_and_attack"] + (["all_out_attack_ranged"] if ranged else
                                            ["all_out_attack", "committed_attack", "defensive_attack", "feint"])
    reason = ""
    if chosen in MANEUVERS and MANEUVERS[chosen].attack:
        keys = [chosen]
        reason = say("one maneuver a turn: {maneuver} is chosen (3d6 Combat, 'Maneuvers')", maneuver=maneuver_name(chosen))
    elif chosen:
        keys = []
        reason = say("{maneuver} makes no attack (3d6 Combat, 'Maneuvers')", maneuver=maneuver_name(chosen))
    out.append(_choice("maneuver", say("Maneuver"), [{"key": k, "label": _MANEUVER_LABELS[k]} for k in keys],
                       chosen if chosen in keys else "attack", reason,
                       help=say("the turn's maneuver: its defense and movement limits follow it")))
    m = MANEUVERS.get(maneuver)
    variants = list(m.variants) if m else []
    if maneuver == "all_out_attack_ranged" and rof < 5:
        variants = [v for v in variants if v != "suppression_fire"]
    vreason = "" if variants else say("{maneuver} has no options (3d6 Combat, 'Maneuvers')", maneuver=maneuver_name(maneuver))
    fixed = state.get("variant") if in_fight and chosen == maneuver else ""
    if fixed:  # the option was chosen with the turn's maneuver: it stands
        variants, vreason = [fixed], say("chosen with the maneuver (3d6 Combat, 'Maneuvers')")
    out.append(_choice("variant", say("All-Out / Committed option"),
                       ([] if fixed else [{"key": "", "label": say("plain")}])
                       + [{"key": v, "label": _VARIANT_LABELS.get((maneuver, v), v)} for v in variants],
                       fixed or "", vreason))
    allow = maneuver_movement(a.sheet, maneuver, variant or None) if m else 0
    out.append(_opt("moved", say("Yards moved this turn"), "int", int(num_of(state.get("moved"))), not in_fight,
                    say("the fight counts the yards moved (3d6 Combat, 'Maneuvers')"), min=0, max=max(allow, current_move(a.sheet))))

    # Hit Locations
    damage_type = "cut" if opts.get("tip_slash") else weapon.get("type", "cr")
    tw = weapons(t.sheet).get(opts.get("target_weapon") or "", {})
    behind = bool(opts.get("from_behind"))
    locs = [{"key": "torso", "label": say("Torso (0)")}, {"key": "random", "label": say("Random (3d6 table, no penalty)")}]
    for key in LOCATIONS:
        if key == "torso" or (key in ONLY_TYPES and damage_type not in ONLY_TYPES[key]):
            continue
        if key == "weapon" and not weapons(t.sheet):
            continue
        locs.append({"key": key, "label": _location_label(key, behind, tw.get("reach", 1))})
    out.append(_choice("location", say("Hit location"), locs, "torso", help=say("the penalty is in each label")))
    out.append(_opt("from_behind", say("From behind (skull -5, face -7)"), "bool", False))

    # Attacking: Rapid Strike, Dual Weapon Attack, Tip Slash, Disarm; Deceptive Attack (named by Riposte)
    rs = ""
    if maneuver == "feint":
        rs = say("a Feint makes no attack (3d6 Combat, 'Maneuvers')")
    elif ranged and rof <= 1:
        rs = say("Rapid Strike with a ranged weapon needs RoF above 1 (3d6 Combat, 'Attacking', 'Rapid Strike')")
    elif opts.get("dual_weapon"):
        rs = say("a Dual Weapon Attack is already two attacks (3d6 Combat, 'Attacking', 'Dual Weapon Attack')")
    out.append(_opt("rapid_strike", say("Rapid Strike (two attacks at -6; may take two targets)"), "bool", False,
                    not rs, rs, targets=2))
    others = [k for k in ready_weapons(a.sheet, state) if k != wname]
    dreason = "" if others else say("needs a second ready weapon (3d6 Combat, 'Attacking', 'Dual Weapon Attack')")
    if ranged:  # reading: a weapon in each hand strikes; a bow or a rifle takes both hands (#33)
        dreason = say("melee weapons only (reading) (3d6 Combat, 'Attacking', 'Dual Weapon Attack')")
    if opts.get("rapid_strike"):
        dreason = say("not with a Rapid Strike (3d6 Combat, 'Attacking', 'Dual Weapon Attack')")
    seconds = [{"key": k, "label": say("and {weapon}", weapon=k)} for k in others]
    out.append(_choice("dual_weapon", say("Dual Weapon Attack (-4 each)"),
                       [{"key": "", "label": say("no")}] + seconds, "", dreason))
    ts = weapon.get("type") == "imp" and weapon.get("attack") == "thrust"
    out.append(_opt("tip_slash", say("Tip Slash (impaling to cutting)"), "bool", False, ts,
                    say("needs a thrusting impaling weapon (3d6 Combat, 'Attacking', 'Tip Slash')")))
    skill = skill_level(a.sheet, weapon.get("skill"))[0]
    top = max(0, (skill - 10) // 2)
    dcreason = (say("melee attacks only (reading: it is named with the Riposte, a melee defense) (3d6 Combat, 'Defending', "
                    "'Riposte')")
                if ranged else "" if top > 0 and maneuver != "feint"
                else say("skill may not go below 10 (skill {skill}) (3d6 Combat, 'Defending', 'Riposte')", skill=skill))
    out.append(_opt("deceptive", say("Deceptive Attack (-2 to hit per -1 to the defense)"), "int", 0, not dcreason,
                    dcreason, min=0, max=top))
    tws = list(weapons(t.sheet))
    disarm_ok = bool(tws) and not ranged
    out.append(_opt("disarm", say("Disarm (strike the weapon, then a quick contest)"), "bool", False, disarm_ok,
                    say("a melee strike at a weapon the target holds (3d6 Combat, 'Attacking', 'Disarm')")))
    disarming = bool(opts.get("disarm")) or opts.get("location") == "weapon"
    twreason = "" if tws else say("the target holds no weapon (3d6 Combat, 'Attacking', 'Disarm')")
    if tws and not (disarming or maneuver == "feint"):
        twreason = say("for a Disarm or a Feint (3d6 Combat, 'Attacking', 'Disarm')")
    out.append(_choice("target_weapon", say("Target's weapon"), [{"key": k, "label": k} for k in tws],
                       tws[0] if tws else "", twreason))
    streason = say("for a Disarm (3d6 Combat, 'Attacking', 'Disarm')")
    out.append(_opt("disarm_st_based", say("Disarm contest on ST"), "bool", False, disarm_ok and disarming, streason))
    out.append(_opt("defender_st_based", say("Defender's contest on ST"), "bool", False, disarm_ok and disarming,
                    streason))
    out.append(_opt("slam", say("Slam (no skill 9 cap)"), "bool", False, maneuver == "move_and_attack",
                    say("Move and Attack only (3d6 Combat, 'Maneuvers', 'Move and Attack')")))

    # Ranged Attacks, Aim, Brace
    aimed = int_of(state.get("aim_turns"))
    areason = "" if ranged else say("for ranged weapons (3d6 Combat, 'Maneuvers', 'Aim')")
    amax = 3
    if ranged and in_fight:
        amax = aimed
        if not aimed:
            areason = say("take the Aim maneuver first (3d6 Combat, 'Maneuvers', 'Aim')")
    out.append(_opt("aim_turns", say("Seconds aimed (Acc, +1, +2)"), "int", aimed, not areason, areason, min=0, max=amax))
    out.append(_opt("braced", say("Braced (+1 Acc when aiming)"), "bool", False, ranged and not moved,
                    say("a ranged weapon, not moved (3d6 Combat, 'Attacking', 'Brace')")))
    sreason = "" if ranged and rof > 1 else say("needs RoF 2 or more (3d6 Combat, 'Ranged Attacks', 'Rapid Fire')")
    if opts.get("spraying_fire") and not sreason:
        sreason = say("Spraying Fire splits the whole RoF (3d6 Combat, 'Ranged Attacks', 'Spraying Fire')")
    out.append(_opt("shots", say("Shots fired (rapid fire bonus)"), "int", 1, not sreason, sreason, min=1, max=max(1, rof)))
    spr = "" if ranged and rof >= 5 else say("needs RoF 5 or more (3d6 Combat, 'Ranged Attacks', 'Spraying Fire')")
    out.append(_opt("spraying_fire", say("Spraying Fire (RoF split across a 30 degree arc)"), "bool", False, not spr, spr,
                    targets=max(2, min(rof, 12))))
    out.append(_opt("target_speed", say("Target's speed (yd/s)"), "int", int(num_of(t.state.get("last_move"))), ranged,
                    say("for ranged attacks (3d6 Combat, 'Ranged Attacks')"), min=0, max=1000))
    out.append(_opt("aim_at_ground", say("Aim at the ground (+4)"), "bool", False, bool(weapon.get("area")),
                    say("a spherical area attack (3d6 Combat, 'Area of Effects')")))
    out.append(_opt("modifier", say("GM modifier"), "int", 0, min=-20, max=20, gm=True))
    return out


#: the keys of a request's options the table sets itself (its settings, the defense asked, an area's template):
#: never one of the attacker's choices that :func:`attack_options` lists
_NOT_OPTIONS = frozenset(("settings", "defense", "template", "centre"))


def checked_options(request: AttackRequest) -> None:
    """RuleError naming the rule when a picked option is not one the rules offer now, or its value is not
    one of the option's (a choice's values, a bool, a whole number from min to max)."""
    opts = request.options or {}
    if all(v is None or k in _NOT_OPTIONS for k, v in opts.items()):  # nothing picked: nothing to check
        return
    for o in attack_options(request):
        key = o["key"]
        if key not in opts or opts[key] is None:
            continue
        value = opts[key]
        if value == o["default"] or (o["kind"] == "bool" and value is False) or (o["kind"] == "choice" and value == ""):
            continue
        if o["kind"] == "int" and value == 0:
            continue
        if not o["available"]:
            raise RuleError(say("{option}: {reason}", option=o["label"], reason=o["reason"]))
        if o["kind"] == "choice":
            if not isinstance(value, str) or value not in [v["key"] for v in o["values"]]:
                keys = [str(v["key"]) for v in o["values"] if v["key"]]
                raise RuleError(say("{option}: {value} is not one of {choices}", option=o["label"], value=repr(value),
                                    choices=", ".join(keys)) if keys else
                                say("{option}: {value} is not one of the choices", option=o["label"], value=repr(value)))
        elif o["kind"] == "bool":
            if key == "rapid_strike" and isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 2:
                continue  # a Rapid Strike split again: 4 attacks at -12 ("Attacking", Rapid Strike)
            if not isinstance(value, bool):
                raise RuleError(say("{option}: yes or no, not {value}", option=o["label"], value=repr(value)))
        elif o["kind"] == "int":
            values = value if isinstance(value, list) and key == "shots" else [value]
            for v in values:
                if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v) or int(v) != v:
                    raise RuleError(say("{option}: a whole number, not {value}", option=o["label"], value=repr(v)))
                if not o["min"] <= v <= o["max"]:
                    raise RuleError(say("{option}: {value} is not from {least} to {most}", option=o["label"], value=v,
                                        least=o["min"], most=o["max"]))



def defense_choices(request: AttackRequest) -> list[dict]:
    """*3d6 Combat*, "Defending": the defender's choices before the roll, each combination its own:
    Dodge, with a Retreat (melee), a Dive (+3, prone; ranged attacks only) or Acrobatic Dodge (an
    Acrobatics roll: +2 or -2); a Parry with each ready weapon, with a Retreat, a Riposte (-2 or -4 off
    the parry, half of it off the attacker's next defense), a Cross (a second ready weapon, +2) or
    Supported (a free hand, +2); Block, with a Retreat; or no defense. ``group`` is the defense a
    choice modifies; one the rules refuse now is listed unavailable with the rule's reason."""
    from .attack import attack_info, own_copy
    from .checks import effective_skill
    from .defenses import defense_level
    from .sheet import attack_weapon

    st = (request.options or {}).get("settings")
    request = own_copy(request)
    a, t = request.attacker, request.target
    try:
        _, weapon = attack_weapon(a.sheet, request.weapon, a.state)
    except RuleError:
        weapon = weapons(a.sheet).get(request.weapon or "", {})
    info = attack_info(request, weapon, weapon.get("type", "cr"))
    state = dict(t.state or {})
    out: list[dict] = []

    def add(key: str, label: str, value: dict, group: str) -> None:
        probe = {**value, "acrobatic_result": "success"} if value.get("acrobatic") else value
        try:
            base, mods, _ = defense_level(t.sheet, state, probe, info, st)
        except RuleError as exc:
            out.append({"key": key, "label": label, "value": value, "available": False,
                        "reason": exc.args[0] if exc.args else str(exc),
                        "group": group})
            return
        if value.get("acrobatic"):
            hi = effective_skill(*defense_level(t.sheet, state, {**value, "acrobatic_result": "success"}, info, st)[:2])
            lo = effective_skill(*defense_level(t.sheet, state, {**value, "acrobatic_result": "failure"}, info, st)[:2])
            level = say("{high} or {low}", high=hi, low=lo)
        else:
            level = str(effective_skill(base, mods))
        out.append({"key": key, "label": say("{defense} ({level})", defense=label, level=level), "value": value,
                    "available": True, "reason": "",
                    "group": group})

    if info.area:
        add("dodge+dive", say("Dive away (+3, prone)"), {"type": "dodge", "dive": True}, say("Dodge"))
    else:
        add("dodge", say("Dodge"), {"type": "dodge"}, say("Dodge"))
        add("dodge+retreat", say("Dodge and retreat"), {"type": "dodge", "retreat": True}, say("Dodge"))
        add("dodge+dive", say("Dodge with a dive (+3, prone)"), {"type": "dodge", "dive": True}, say("Dodge"))
        add("dodge+acrobatic", say("Acrobatic Dodge"), {"type": "dodge", "acrobatic": True}, say("Dodge"))
        ready = {k: w for k, w in ready_weapons(t.sheet, state).items()
                 if weapon_kind(w) != "ranged" and w.get("can_parry", True)}
        for name, w in ready.items():
            group = say("Parry ({weapon})", weapon=name)
            key = f"parry:{name}"
            add(key, say("Parry with {weapon}", weapon=name), {"type": "parry", "weapon": name}, group)
            add(key + "+retreat", say("Parry with {weapon} and retreat", weapon=name),
                {"type": "parry", "weapon": name, "retreat": True}, group)
            for rip in (2, 4):
                add(f"{key}+riposte{rip}", say("Parry with {weapon}, Riposte -{riposte} (attacker -{attacker})", weapon=name,
                                               riposte=rip, attacker=rip // 2),
                    {"type": "parry", "weapon": name, "riposte": rip}, group)
            for second in ready:
                if second != name and not w.get("unarmed") and not ready[second].get("unarmed"):
                    add(f"{key}+cross:{second}", say("Cross parry with {weapon} and {other} (+2)", weapon=name, other=second),
                        {"type": "parry", "weapon": name, "cross": second}, group)
            if not w.get("unarmed"):
                if t.sheet.get("shield"):
                    out.append({"key": key + "+supported", "label": say("Supported parry with {weapon} (+2)", weapon=name),
                                "value": {"type": "parry", "weapon": name, "supported": True}, "available": False,
                                "reason": say("the shield hand is not free (3d6 Combat, 'Defending', 'Supported')"),
                                "group": group})
                else:
                    add(key + "+supported", say("Supported parry with {weapon} (+2)", weapon=name),
                        {"type": "parry", "weapon": name, "supported": True}, group)
        if t.sheet.get("shield"):
            add("block", say("Block"), {"type": "block"}, say("Block"))
            add("block+retreat", say("Block and retreat"), {"type": "block", "retreat": True}, say("Block"))
    out.append({"key": "none", "label": say("No defense"), "value": "none", "available": True, "reason": ""})
    return out
