"""Damage against Toughness, Shaken and Wounds, Incapacitation, the penalties
of wounds and Fatigue, and applying an attack's result to a sheet.

Sources: *Savage Worlds Combat System Reference*, "Damage Resolution" and
"Nonlethal Damage"; the Savage Worlds core facts (Wounds, Incapacitated).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..dice import DiceSource, RollRecord
from ..system import AttackResult, Combatant, Effect, Modifier, RuleError
from .checks import trait_roll
from .data import CORE, MAX_WOUNDS, RAISE
from .sheet import bennies_of
from ..text import say, say_n


def damage_result(damage: int, toughness: int, shaken: bool = False) -> tuple[bool, int]:
    """Damage Resolution: (ends Shaken, Wounds taken).

    Below Toughness: nothing changes. Equal or over: Shaken, and a target
    already Shaken takes a Wound instead. Each raise (full 4 over Toughness)
    is a Wound, and a wounded target is Shaken too.
    """
    if damage < toughness:
        return shaken, 0
    raises = (damage - toughness) // RAISE
    if raises == 0:
        return True, 1 if shaken else 0
    return True, raises


@dataclass
class TargetState:
    shaken: bool
    wounds: int
    wild: bool
    incapacitated: bool = False
    new_wounds: int = 0
    became_shaken: bool = False
    history: list = field(default_factory=list)

    def take(self, damage: int, toughness: int) -> dict:
        was_shaken = self.shaken
        ends_shaken, wounds = damage_result(damage, toughness, self.shaken)
        self.became_shaken = self.became_shaken or (ends_shaken and not was_shaken)
        self.shaken = ends_shaken
        self.new_wounds += wounds
        self.wounds += wounds
        if wounds and (not self.wild or self.wounds > MAX_WOUNDS):
            self.incapacitated = True
        out = {"damage": damage, "toughness": toughness, "shaken": ends_shaken, "wounds": wounds,
               "incapacitated": self.incapacitated}
        self.history.append(out)
        return out


def active(c: Combatant) -> bool:
    return not (c.sheet or {}).get("incapacitated")


def condition_modifiers(sheet: dict) -> list[Modifier]:
    mods = []
    wounds = min(MAX_WOUNDS, int(sheet.get("wounds", 0) or 0))
    if wounds:
        mods.append(Modifier(say("Wounds ({n})", n=wounds), -wounds, CORE))
    fatigue = min(2, int(sheet.get("fatigue", 0) or 0))
    if fatigue:
        mods.append(Modifier(say("Fatigue ({n})", n=fatigue), -fatigue, "Fatigue (reading)"))
    return mods


def state_effects(target_id: str, state: TargetState, nonlethal: bool, dice: DiceSource,
                  rolls: list[RollRecord]) -> list[Effect]:
    """The effects of what a target took: Shaken, Wounds, Incapacitated (and,
    for nonlethal damage, unconscious for d6 hours: "Nonlethal Damage")."""
    effects = []
    if state.became_shaken:
        effects.append(Effect("shaken", target_id, {}))
    if state.new_wounds:
        effects.append(Effect("wounds", target_id, {"wounds": state.new_wounds}))
    if state.incapacitated:
        if nonlethal:
            # no roller: how long a knocked-out character sleeps is no roll a character makes, nor one that changes
            # the fight (it is over for them); the app rolls it even at a table rolling its own dice (#59)
            hours = dice.roll("d6", say("unconscious (hours)"))
            rolls.append(hours)
            effects.append(Effect("unconscious", target_id, {"hours": hours.total}))
        effects.append(Effect("incapacitated", target_id, {"nonlethal": bool(nonlethal)}))
    return effects


def apply(sheet: dict, result: AttackResult, target_id: str | None = None) -> dict:
    """A copy of ``sheet`` with the result's effects on ``target_id`` (by
    default the attack's target) applied: Shaken, Wounds (at most 3 on a
    Wild Card), Incapacitated, Vulnerable, Bennies."""
    tid = target_id or result.details.get("target")
    out = dict(sheet)
    for e in result.effects:
        if e.target != tid:
            continue
        if e.kind == "shaken":
            out["shaken"] = True
        elif e.kind == "wounds":
            cap = MAX_WOUNDS if out.get("wild_card", True) else 1
            out["wounds"] = min(cap, int(out.get("wounds", 0) or 0) + int(e.data["wounds"]))
            out["shaken"] = True
        elif e.kind == "incapacitated":
            out["incapacitated"] = True
        elif e.kind == "vulnerable":
            out["vulnerable"] = True
        elif e.kind == "benny":
            out["bennies"] = int(out.get("bennies", 0) or 0) + int(e.data.get("amount", 1))
    return out



FATIGUE_LABELS = {1: say("Fatigued"), 2: say("Exhausted")}


def badges(sheet: dict, state: dict | None = None) -> list[dict]:
    """What a token shows on every screen: Wounds, Incapacitated, Shaken, Stunned, Prone,
    Vulnerable, Fatigue, a Wild Card's Bennies; from the fight's per-combatant state (the
    ``Combatant.state``), the Joker, Hold and a failed Notice on Surprise."""
    s = sheet or {}
    per = state or {}
    out = []
    if s.get("incapacitated"):
        out.append({"label": say("Incapacitated"), "kind": "condition"})
    wounds = int(s.get("wounds", 0) or 0)
    if wounds:
        out.append({"label": say_n("{n} wound", "{n} wounds", wounds), "kind": "wound"})
    for key, label in (("shaken", say("Shaken")), ("stunned", say("Stunned")), ("prone", say("Prone")),
                       ("vulnerable", say("Vulnerable"))):
        if s.get(key):
            out.append({"label": label, "kind": "condition"})
    if per.get("surprised"):
        out.append({"label": say("Surprised"), "kind": "condition"})
    if per.get("on_hold"):
        out.append({"label": say("On Hold"), "kind": "condition"})
    fatigue = int(s.get("fatigue", 0) or 0)
    if fatigue:
        out.append({"label": FATIGUE_LABELS.get(fatigue, say("Fatigue {n}", n=fatigue)), "kind": "resource"})
    if s.get("wild_card", True):
        b = bennies_of(s)
        out.append({"label": say_n("{n} Benny", "{n} Bennies", b), "kind": "resource"})
    if per.get("joker"):
        out.append({"label": say("Joker (+2)"), "kind": "resource"})
    return out


# ---- Bennies: the Soak roll (Savage Worlds core rules, "Bennies": Soak rolls)

def soak_offer(before: dict, after: dict, result: AttackResult, target_id: str) -> dict | None:
    """A Soak roll the target may make after this result: a Wild Card that took Wounds and holds a
    Benny. The offer keeps what the sheet was before the attack (Wounds, Shaken, Incapacitated) and
    the Wounds taken, so the roll can take them back. None: no Soak to offer."""
    if not after.get("wild_card", True) or bennies_of(after) < 1:
        return None
    taken = sum(int(e.data.get("wounds", 0) or 0) for e in result.effects
                if e.target == target_id and e.kind == "wounds")
    if taken < 1:
        return None
    return {"wounds": taken, "before": {"wounds": int(before.get("wounds", 0) or 0),
                                        "shaken": bool(before.get("shaken")),
                                        "incapacitated": bool(before.get("incapacitated"))}}


def soak(sheet: dict, offer: dict, dice: DiceSource, name: str = "") -> dict:
    """Savage Worlds core rules, Bennies: spend a Benny for a Vigor roll; a success takes back one of
    the attack's Wounds and each raise one more. The roll carries the Wound penalties the character
    had before the attack (not the new ones) and its Fatigue. All Wounds soaked: the attack's Shaken
    goes too (a character Shaken before stays Shaken). Returns the sheet after, the roll, the Wounds
    soaked and a line for the log; RuleError when there is no Benny to spend.

    A reroll (``offer["soaked"]``: what the Soak roll before it soaked, #70): a Benny spent to reroll a Soak roll
    that did not soak every Wound (Bennies: "a Benny may be spent to reroll any Trait roll", the Soak roll among
    them); the better roll counts. ``again`` in what it returns: the reroll the player may still take (a Benny
    left and Wounds not soaked), or None."""
    who = name or say("the character")
    bennies = bennies_of(sheet)
    if bennies < 1:
        raise RuleError(say("{name} has no Benny left to spend on a Soak roll (Bennies)", name=who))
    before = offer["before"]
    taken = int(offer["wounds"])
    vigor = (sheet.get("attributes") or {}).get("vigor", "d6")
    mods = []
    if before["wounds"]:
        mods.append(Modifier(say("Wounds before the attack ({n})", n=before["wounds"]), -min(MAX_WOUNDS, before["wounds"]),
                             CORE))
    fatigue = int(sheet.get("fatigue", 0) or 0)
    if fatigue:
        mods.append(Modifier(say("Fatigue"), -min(2, fatigue), CORE))
    tr = trait_roll(vigor, dice, wild_card=True, modifiers=mods, name=say("Vigor (Soak)"), roller=offer.get("target"))
    rolled = min(taken, 1 + tr.raises) if tr.success and not tr.critical_failure else 0
    earlier = offer.get("soaked")  # a reroll: the better roll counts
    soaked = rolled if earlier is None else max(rolled, int(earlier))
    left = before["wounds"] + taken - soaked
    out = dict(sheet)
    out["bennies"] = bennies - 1
    out["wounds"] = min(MAX_WOUNDS, left)
    out["incapacitated"] = before["incapacitated"] or left > MAX_WOUNDS
    if soaked == taken:
        out["shaken"] = before["shaken"]
    what = (say_n("soaks {soaked} of {n} Wound", "soaks {soaked} of {n} Wounds", taken, soaked=soaked) if soaked else
            say_n("soaks none of the {n} Wound", "soaks none of the {n} Wounds", taken))
    roll = (say("Vigor {total} (critical failure)", total=tr.total) if tr.critical_failure else
            say_n("Vigor {total} ({n} raise)", "Vigor {total} ({n} raises)", tr.raises, total=tr.total) if tr.raises
            else say("Vigor {total}", total=tr.total))
    now = say_n("{n} Wound now", "{n} Wounds now", out["wounds"])
    state = (say("Incapacitated") if out["incapacitated"] else say("not Shaken") if not out.get("shaken") else None)
    if earlier is None:
        line = (say("{name} spends a Benny on a Soak roll: {roll}, {what}; {now}, {state}", name=who, roll=roll,
                    what=what, now=now, state=state) if state is not None else
                say("{name} spends a Benny on a Soak roll: {roll}, {what}; {now}", name=who, roll=roll, what=what,
                    now=now))
    else:
        line = (say("{name} spends a Benny to reroll the Soak roll: {roll}; the better roll {what}; {now}, {state}",
                    name=who, roll=roll, what=what, now=now, state=state) if state is not None else
                say("{name} spends a Benny to reroll the Soak roll: {roll}; the better roll {what}; {now}", name=who,
                    roll=roll, what=what, now=now))
    again = {**offer, "soaked": soaked} if soaked < taken and out["bennies"] >= 1 else None
    return {"sheet": out, "rolls": [r for r in (tr.trait, tr.wild) if r], "roll": tr.to_dict(), "soaked": soaked,
            "log": line, "again": again}


def reroll_offer(sheet: dict, result: AttackResult, attacker_id: str) -> dict | None:
    """Savage Worlds core rules, Bennies: a Wild Card may spend a Benny to reroll a trait roll, and
    the better total counts; a Critical Failure cannot be rerolled. The app offers it after a missed
    attack at one target that touched nobody (a reading: the reroll comes before damage, so after a
    miss; a stray hit on a bystander has happened). Returns ``{"best", "bennies"}`` (the best total of
    the first roll), or None: nothing to offer."""
    d = result.details or {}
    if result.hit or d.get("critical_failure") or d.get("targets") or d.get("template") or not d.get("shots"):
        return None
    if any(e.target != attacker_id for e in result.effects):
        return None
    bennies = bennies_of(sheet)
    if bennies < 1:
        return None
    return {"best": max(int(s["total"]) for s in d["shots"]), "bennies": bennies}


def reroll_kept(first_best: int, second: AttackResult) -> dict:
    """Which roll counts after a Benny's reroll (Bennies: the better total): the reroll's result
    when its best total is higher than the first's, else the first (a miss) stands."""
    shots = (second.details or {}).get("shots") or []
    best = max((int(s["total"]) for s in shots), default=first_best)
    if (second.details or {}).get("critical_failure"):
        best = min(best, first_best)
    return {"best": best, "reroll_counts": best > first_best}


def spend_benny(sheet: dict, why: str, name: str = "") -> dict:
    """The sheet with one Benny spent; RuleError when none is left (Bennies)."""
    left = bennies_of(sheet)
    if left < 1:
        raise RuleError(say("{name} has no Benny left to spend on {why} (Bennies)", name=name or say("the character"), why=why))
    return {**sheet, "bennies": left - 1}
