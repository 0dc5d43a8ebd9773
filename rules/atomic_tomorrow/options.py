"""The attacker's choices in *Atomic Tomorrow Combat*, for the attack card, and area weapons.

The document's own modifiers are situational steps of 20 (core facts: +40 down to -80, only the
single largest applies): a bonus and a penalty for the attacker, and for the defender's roll; the
range band where the map does not settle it (Engaged or not in the same zone, or the GM's band).
An area weapon (a grenade launcher) hits everyone in the target zone (core facts): its targets
are the tokens standing in the target's zone.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..dice import DiceSource
from ..system import AttackRequest, AttackResult, RuleError
from .attack import BONUS_STEPS, PENALTY_STEPS, attack_zone
from .data import RANGE_LABELS, RANGES, settings_with_defaults
from .ranges import weapon_ranges
from .sheet import find_weapon, with_defaults
from ..text import say


def _steps(steps, good: str) -> list[dict]:
    return [{"key": str(s), "label": say("{step} ({what})", step=f"{s:+d}", what=good) if s else say("{step} (none)", step=f"{s:+d}")}
            for s in steps]


def attack_options(request: AttackRequest) -> list[dict]:
    """Every option the attack reads, each available or with the rule that says no."""
    opts = request.options or {}
    try:
        settings = settings_with_defaults(opts.get("settings"))
        weapon = find_weapon(with_defaults(request.attacker.sheet), request.weapon, settings)
        reach = weapon_ranges(weapon)
    except RuleError:
        weapon, reach = {}, list(RANGES)
    same_zone = int(request.distance or 0) == 0

    def opt(key, label, kind, default, why="", **more):
        return {"key": key, "label": label, "kind": kind, "default": default, "available": not why,
                "reason": why, **more}

    return [
        opt("bonus", say("Situation in the attacker's favour"), "choice", "0", values=_steps(BONUS_STEPS, say("favourable")),
            help=say("Only the single largest situational modifier applies.")),
        opt("penalty", say("Situation against the attacker"), "choice", "0", values=_steps(PENALTY_STEPS, say("difficult"))),
        opt("defense_bonus", say("Situation in the defender's favour"), "choice", "0",
            values=_steps(BONUS_STEPS, say("favourable")), help=say("On the defender's Parry, Block or Dodge.")),
        opt("defense_penalty", say("Situation against the defender"), "choice", "0",
            values=_steps(PENALTY_STEPS, say("difficult"))),
        opt("engaged", say("Engaged (hand-to-hand in the same zone)"), "bool",
            same_zone and "engaged" in reach and "near" not in reach,
            "" if same_zone else say("POSITIONING: Engaged is hand-to-hand distance, in the same zone")),
        opt("range", say("Range band (the GM's call)"), "choice", "auto", gm=True,
            values=[{"key": "auto", "label": say("From the map")}] + [
                {"key": r, "label": RANGE_LABELS[r] if r in reach else say("{band} (out of reach)", band=RANGE_LABELS[r])}
                for r in RANGES]),
    ]


def zone_targets(request: AttackRequest) -> list:
    """Core facts: an area weapon hits everyone in the target zone (the target first; the attacker
    is never its own target)."""
    zone = request.target.position
    others = [o for o in request.others if o.id not in (request.attacker.id, request.target.id)
              and zone is not None and o.position == zone]
    return [request.target, *others]


def area_attack(request: AttackRequest, dice: DiceSource) -> AttackResult:
    """One attack roll for the target zone (core facts), each token in it defending (the target as
    picked; the others take no defense) and soaking on its own: one result, the target's hit, and
    one ``details["targets"]`` entry per token."""
    targets = zone_targets(request)
    defenses: Mapping[str, str] = {request.target.id: str((request.options or {}).get("defense") or "none")}
    results = attack_zone(request, targets, dice, defenses)
    first = results[0]
    effects = [e for r in results for e in r.effects]
    rolls = [rec for r in results for rec in r.rolls]
    per = [{"target": t.id, "hit": r.hit, **{k: r.details[k] for k in ("wounds_taken", "wounds_after", "soak")
                                                if k in r.details}}
           for t, r in zip(targets, results)]
    names = {t.id: t.name for t in targets}
    struck = [names[p["target"]] for p in per if p["hit"]]
    summary = first.summary
    if len(targets) > 1:
        summary = (say("{line} | the blast fills the zone: it hits {names}", line=summary, names=", ".join(struck))
                   if struck else say("{line} | the blast fills the zone: it hits nobody", line=summary))
    return AttackResult(first.hit, summary, rolls, first.modifiers, effects,
                        {**first.details, "area": True, "targets": per, "target": request.target.id})
