"""Active defenses (*3d6 Combat*, "Defending"): Dodge, Parry and Block with their options, the
defender's maneuver, feints and ripostes; the levels each defense has against an attack.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..grid import cell_steps
from ..system import AttackRequest, Modifier, RuleError
from ..text import say, say_n
from .badges import maneuver_name
from .checks import effective_skill, is_success
from .movement import flanks
from .data import MANEUVERS, RETREAT_PLUS3_SKILLS, S_DEFEND, S_GM, S_MANEUVER, S_READING, settings_of
from .sheet import (
    block_base,
    conditions_of,
    dodge_breakdown,
    has_trait,
    int_of,
    parry_base,
    reach_of,
    ready_weapons,
    weapon_kind,
    weapons,
)


@dataclass
class AttackInfo:
    """What the defender needs to know about the attack."""

    ranged: bool = False
    thrown: bool = False
    bullet: bool = False  # a high-speed missile: cannot be blocked
    area: bool = False
    flail: bool = False
    thrust: bool = False
    armed: bool = True
    distance: float = 1
    attacker_id: str = ""
    flanked: bool = False  # the attacker flanks the defender (:func:`flanked`; -2 with the setting "flanking")


#: the conditions in which a token neither defends nor flanks anyone ("Injury")
DOWN = frozenset({"unconscious", "dead", "destroyed", "mortally wounded"})
#: the defense against a flanking attacker, as against an attack from the side (the readings' "Flanking")
FLANKED = -2
#: the modifier's words, on the defense's roll, the odds and the result
FLANKED_WORDS = say("flanked: attacked from the side")


def flank_said(defended: dict, words):
    """A defense's words in an attack's result, "(flanked, -2)" after them when its roll had the defender flanked
    (``defended``: the result's ``defense``, its rolls' ``checks``), as the odds name it."""
    checks = defended.get("checks") or [{}]
    if any(getattr(m.get("label"), "msg", None) == FLANKED_WORDS.msg for m in checks[0].get("modifiers") or []):
        return say("{defense} (flanked, {n})", defense=words, n=FLANKED)
    return words


def flanked(request: AttackRequest) -> bool:
    """Whether the attacker flanks the target (the readings' "Flanking"; the document keeps no facing): another
    token of the attacker's side, not down, stands beside the target, and the attacker on the far side of it
    (:func:`rules.gurps_lite.movement.flanks`). False where a position is unknown."""
    a, t = request.attacker, request.target
    if a.position is None or t.position is None or isinstance(t.position, str):
        return False
    return any(o.side == a.side and o.id not in (a.id, t.id) and o.position is not None
               and not isinstance(o.position, str) and cell_steps(o.position, t.position) == 1
               and not conditions_of(o.sheet or {}, o.state) & DOWN and flanks(t.position, a.position, o.position)
               for o in request.others)


def feint_penalty(state: dict, attacker_id: str) -> int:
    """The penalty a feint by ``attacker_id`` puts on this defender ("Maneuvers", Feint)."""
    fp = state.get("feint_penalty")
    if isinstance(fp, dict):
        return int_of(fp.get(attacker_id))
    return int_of(fp)


#: per-round defense bookkeeping in a combatant's fight state ("Defending")
ROUND_COUNTERS = ("dodges", "parries", "blocked", "limbs_used")
FREE_HAND = "free hand"
_COUNTER = {"dodge": "dodges", "parry": "parries", "block": "blocked"}


def parry_limbs(defense: dict) -> list[str]:
    """The limbs a Cross or Supported parry ties up for the rest of the round ("Defending": "you can't
    parry any more attacks in the round with the limbs you just used"): both weapons of a Cross, the
    weapon and the free hand of a Supported parry; none for any other defense."""
    if defense.get("type") != "parry":
        return []
    if defense.get("cross"):
        return [str(defense.get("weapon")), str(defense["cross"])]
    if defense.get("supported"):
        return [str(defense.get("weapon")), FREE_HAND]
    return []


def record_defense(state: dict, defense: dict, limbs: list[str] | None = None) -> dict:
    """A combatant's state after it used ``defense`` (a new dict): one more dodge or parry this round,
    its block spent, the limbs of a Cross or Supported parry (or ``limbs``, as an attack's "defended"
    effect names them) out of parrying ("Defending")."""
    out = dict(state or {})
    key = _COUNTER.get(defense.get("type") or "")
    if key == "blocked":
        out["blocked"] = True
    elif key:
        out[key] = int_of(out.get(key)) + 1
    limbs = parry_limbs(defense) if limbs is None else limbs
    if limbs:
        out["limbs_used"] = sorted(set(out.get("limbs_used") or []) | set(limbs))
    return out


def new_round_defenses(state: dict) -> dict:
    """A combatant's state at the start of a round: no dodges, parries or block used yet, every limb
    free to parry again ("Defending": the limits of Block, Parry and Cross are per round)."""
    return {k: v for k, v in (state or {}).items() if k not in ROUND_COUNTERS}


def defense_level(target: dict, state: dict, defense: dict, attack: AttackInfo,
                  settings: dict | None = None) -> tuple[int, list[Modifier], str]:
    """Effective level of one active defense and its modifiers ("Defending").

    ``defense``: ``type`` (dodge / parry / block), ``weapon`` (for a parry),
    ``retreat``, ``dive``, ``acrobatic`` (+2 / -2 from a roll made by the
    caller: pass ``acrobatic_result``), ``cross`` (second weapon) or
    ``supported``, ``riposte`` (points taken off the parry).
    ``state`` is the target's fight state: the defender's maneuver, its
    defenses used this round (``dodges``, ``parries``, ``blocked``, and
    ``limbs_used`` by a Cross or Supported parry, which cannot parry again this
    round), feints and ripostes against it.
    Returns (level, modifiers, base label); raises RuleError if it cannot be used.
    """
    st = settings_of(settings)
    kind = defense.get("type")
    maneuver = MANEUVERS.get(state.get("maneuver") or "")
    conds = conditions_of(target, state)
    if conds & DOWN:
        raise RuleError(say("an unconscious token cannot defend"))
    if maneuver and maneuver.no_defense and not state.get("stunned_turn"):
        raise RuleError(say("no active defense after {maneuver}", maneuver=maneuver_name(maneuver.key)))
    if attack.area and not (kind == "dodge" and defense.get("dive")):
        raise RuleError(say("only a Dive helps against an area attack (3d6 Combat, 'Area of Effects')"))
    mods: list[Modifier] = []
    if kind == "dodge":
        base, mods = dodge_breakdown(target)
        label = say("Dodge (Basic Speed + 3)")
        n = int_of(state.get("dodges"))
        if n:
            mods.append(Modifier(say_n("{n} earlier dodge this round", "{n} earlier dodges this round", n), -n, S_DEFEND))
        if defense.get("dive"):
            if not (attack.ranged or attack.area):
                raise RuleError(say("Dive only against ranged attacks (3d6 Combat, 'Defending', 'Dive')"))
            mods.append(Modifier(say("dive (go prone)"), 3, S_DEFEND))
        if defense.get("acrobatic"):
            res = defense.get("acrobatic_result")
            if res is None:
                raise RuleError(say("an Acrobatic Dodge needs its Acrobatics roll (3d6 Combat, 'Defending', 'Acrobatic Dodge')"))
            mods.append(Modifier(say("acrobatic dodge"), 2 if is_success(res) else -2, S_DEFEND))
        if feint_penalty(state, attack.attacker_id) and st["feint_affects"] in ("dodge", "all"):
            mods.append(Modifier(say("feinted"), -feint_penalty(state, attack.attacker_id), S_MANEUVER))
    elif kind == "parry":
        ws = ready_weapons(target, state)
        wname = defense.get("weapon")
        if wname not in ws:
            raise RuleError(say("{weapon} is not a ready weapon to parry with", weapon=repr(wname)))
        w = ws[wname]
        if weapon_kind(w) == "ranged" or not w.get("can_parry", True):
            raise RuleError(say("{weapon} cannot parry", weapon=wname))
        used = set(state.get("limbs_used") or [])
        if wname in used:
            raise RuleError(say("{weapon} was used in a Cross or Supported parry this round: it cannot parry again", weapon=wname))
        if w.get("unarmed") and FREE_HAND in used:
            raise RuleError(say("the free hand supported a parry this round: it cannot parry again"))
        attacked_with = state.get("attacked_with") or []
        attacked_with = [attacked_with] if isinstance(attacked_with, str) else attacked_with
        if maneuver and maneuver.no_parry_with_attack_weapon and wname in attacked_with:
            raise RuleError(say("cannot parry with {weapon}: it attacked under {maneuver}", weapon=wname, maneuver=maneuver_name(maneuver.key)))
        if attack.area:
            raise RuleError(say("an area attack cannot be parried"))
        if attack.ranged and not attack.thrown and attack.distance > max(1.0, reach_of(w)):
            raise RuleError(say("a missile can only be parried within the weapon's reach of the attacker"))
        base, label = parry_base(target, w)
        label = say("Parry ({skill}/2 + 3)", skill=label)
        fencing = bool(w.get("fencing"))
        trained = has_trait(target, "trained_by_a_master") or has_trait(target, "weapon_master")
        n = int_of(state.get("parries"))
        if n:
            per = -1 if fencing and trained else -2 if fencing or trained else -4
            mods.append(Modifier(say_n("{n} earlier parry this round", "{n} earlier parries this round", n), per * n, S_DEFEND))
        if w.get("unarmed") and attack.armed and not attack.thrust:
            skills = target.get("skills") or {}
            if not any(s in skills for s in ("Judo", "Karate")):
                mods.append(Modifier(say("unarmed parry against a weapon"), -3, S_DEFEND))
        if attack.flail:
            if fencing and not defense.get("supported"):
                raise RuleError(say("a fencing weapon cannot parry a flail unless supported"))
            mods.append(Modifier(say("parrying a flail"), -4, S_DEFEND))
        if defense.get("cross") and defense.get("supported"):
            raise RuleError(say("cross or supported, not both"))
        if defense.get("cross"):
            if defense["cross"] not in ws or defense["cross"] == wname:
                raise RuleError(say("a Cross parry needs a second ready weapon (3d6 Combat, 'Defending', 'Cross')"))
            if defense["cross"] in used:
                raise RuleError(say("{weapon} was used in a Cross or Supported parry this round", weapon=defense["cross"]))
            mods.append(Modifier(say("cross parry"), 2, S_DEFEND))
        if defense.get("supported"):
            if FREE_HAND in used:
                raise RuleError(say("the free hand already supported a parry this round"))
            mods.append(Modifier(say("supported parry"), 2, S_DEFEND))
        rip = int_of(defense.get("riposte"))
        if rip:
            current = effective_skill(base, mods)
            if current - rip < 8:
                raise RuleError(say("a Riposte cannot take the parry below 8 (3d6 Combat, 'Defending', 'Riposte')"))
            mods.append(Modifier(say("riposte"), -rip, S_DEFEND))
        if feint_penalty(state, attack.attacker_id) and st["feint_affects"] == "all":
            mods.append(Modifier(say("feinted"), -feint_penalty(state, attack.attacker_id), S_MANEUVER))
    elif kind == "block":
        base = block_base(target)
        if base is None:
            raise RuleError(say("no shield to block with"))
        label = say("Block (Shield/2 + 3)")
        if state.get("blocked"):
            raise RuleError(say("one Block per round (3d6 Combat, 'Defending', 'Block')"))
        if attack.bullet:
            raise RuleError(say("high-speed missiles (bullets) cannot be blocked (3d6 Combat, 'Defending', 'Block')"))
        if attack.area:
            raise RuleError(say("an area attack cannot be blocked"))
        if feint_penalty(state, attack.attacker_id) and st["feint_affects"] == "all":
            mods.append(Modifier(say("feinted"), -feint_penalty(state, attack.attacker_id), S_MANEUVER))
    else:
        raise RuleError(say("unknown defense {value}", value=repr(kind)))
    if defense.get("retreat"):
        if attack.ranged:
            raise RuleError(say("Retreat only against melee attacks (3d6 Combat, 'Defending', 'Retreat')"))
        if maneuver and maneuver.no_retreat:
            raise RuleError(say("no retreat after {maneuver}", maneuver=maneuver_name(maneuver.key)))
        big = kind == "dodge"
        if kind == "parry":
            w = weapons(target)[defense["weapon"]]
            skill = w.get("skill")
            big = bool(w.get("fencing")) or (w.get("unarmed") and any(
                s in (target.get("skills") or {}) for s in RETREAT_PLUS3_SKILLS)) or skill in RETREAT_PLUS3_SKILLS
        mods.append(Modifier(say("retreat"), 3 if big else 1, S_DEFEND))
    if maneuver and maneuver.defense_mod:
        if not (maneuver.key == "defensive_attack" and kind == "parry"
                and weapons(target)[defense["weapon"]].get("unbalanced")):
            mods.append(Modifier(maneuver_name(maneuver.key), maneuver.defense_mod, S_MANEUVER))
    if maneuver and maneuver.key == "all_out_defense" and state.get("variant") == f"enhanced_{kind}":
        mods.append(Modifier(say("All-Out Defense (enhanced)"), 2, S_MANEUVER))
    if "stunned" in conds:
        mods.append(Modifier(say("stunned"), -4, S_READING))
    if st["flanking"] and attack.flanked:
        mods.append(Modifier(FLANKED_WORDS, FLANKED, S_READING))
    if st["combat_reflexes_defense_bonus"] and has_trait(target, "combat_reflexes"):
        mods.append(Modifier(say("Combat Reflexes"), 1, S_READING))
    pen = state.get("defense_penalty") or {}
    riposted = int_of(pen.get(attack.attacker_id)) if isinstance(pen, dict) and attack.attacker_id else 0
    deceptive = int_of(state.get("deceptive"))
    if deceptive > riposted:  # "Riposte: ... (Doesn't stack with Deceptive Attack)": the larger counts
        mods.append(Modifier(say("Deceptive Attack"), -deceptive, S_READING))
    elif riposted:
        mods.append(Modifier(say("riposted by the attacker"), -riposted, S_DEFEND))
    if defense.get("modifier"):
        mods.append(Modifier(say("GM modifier"), int_of(defense["modifier"]), S_GM))
    return base, mods, label


def available_defenses(target: dict, state: dict, attack: AttackInfo, settings: dict | None = None) -> list[dict]:
    """Every defense the target may use against this attack, with its level, best first ("Defending")."""
    out = []
    candidates: list[dict] = [{"type": "dodge", "dive": attack.area}]
    for name, w in ready_weapons(target, state).items():
        if weapon_kind(w) != "ranged" and w.get("can_parry", True):
            candidates.append({"type": "parry", "weapon": name})
    candidates.append({"type": "block"})
    for d in candidates:
        try:
            base, mods, label = defense_level(target, state, d, attack, settings)
        except RuleError:
            continue
        out.append({**d, "level": effective_skill(base, mods), "base": base, "label": label,
                    "modifiers": [m.to_dict() for m in mods]})
    out.sort(key=lambda d: -d["level"])
    return out


def picked_or_best(target: dict, state: dict, start: dict, choice: dict, attack: AttackInfo,
                   settings: dict | None = None) -> dict | None:
    """The defense the defender picked, or, when an earlier attack of the same request took it away (one
    Block per round; the limbs of a Cross or Supported parry), the best one still open (None: none is).
    ``start`` is the defender's state before the request's first attack; a choice the rules refuse even
    then is refused with their reason."""
    try:
        defense_level(target, state, {**choice, "acrobatic_result": "success"} if choice.get("acrobatic") else choice,
                      attack, settings)
        return dict(choice)
    except RuleError:
        probe = {**choice, "acrobatic_result": "success"} if choice.get("acrobatic") else choice
        defense_level(target, start, probe, attack, settings)  # refused from the start: its own reason
    avail = available_defenses(target, state, attack, settings)
    return {k: v for k, v in avail[0].items() if k in ("type", "weapon", "dive")} if avail else None
