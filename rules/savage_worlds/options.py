"""The choices an attacker has, for the attack card: every option key :func:`attack.plan_of` reads
from the table, each with its kind, its default and, where the rules do not offer it now, why.

Sources: *Savage Worlds Combat System Reference*, "Melee Attacks" (Unarmed Defender), "Rate of Fire",
"Shotguns", "Mounted Combat", "Nonlethal Damage", "Two Weapons", "Actions Per Turn", "Object
Toughness", "Area Effect Attacks"; and the Savage Worlds core rules' maneuvers the reference assumes
(Called Shot, Wild Attack, Aim, Rapid Attack).
"""

from __future__ import annotations

from ..system import AttackRequest, SheetError
from .attack import CALLED_WORDS, defender_armed, settings_of
from . import rapid
from .data import BLAST_RADIUS, CALLED_SHOTS, OBJECT_TOUGHNESS, RAPID_MAX
from .sheet import weapon_stats
from ..text import say


def _weapon(request: AttackRequest) -> dict | None:
    weapons = (request.attacker.sheet or {}).get("weapons") or {}
    if request.weapon is None:
        return {**weapon_stats({"damage": "Str", "natural": True}), "unarmed": True}
    if request.weapon not in weapons:
        return None
    try:
        return {**weapon_stats(weapons[request.weapon]), "unarmed": False}
    except SheetError:
        return None


def _opt(key, label, kind, default, why="", **more) -> dict:
    return {"key": key, "label": label, "kind": kind, "default": default, "available": not why, "reason": why,
            **more}


#: the objects of Object Toughness by name, as the option lists them
OBJECT_WORDS = {"light door": say("Light door"), "heavy door": say("Heavy door"), "lock": say("Lock"),
                "firearm": say("Firearm"), "handcuffs": say("Handcuffs"), "knife": say("Knife"), "sword": say("Sword"),
                "medieval shield": say("Medieval shield"), "modern shield": say("Modern shield"), "rope": say("Rope")}

EVEN = [{"key": "even", "label": say("As even as they go")}]


def _split_option(request: AttackRequest, melee: bool) -> dict:
    """Rapid Attack divided among targets: how many attacks (shots) go at each, in the targets' order."""
    n = (request.options or {}).get("rapid_attack", 1)
    k = len(request.targets)
    label = say("Rapid Attack: attacks at each target") if melee else say("Rapid Attack: shots at each target")
    if not isinstance(n, int) or isinstance(n, bool) or n < 2 or k < 2:
        return _opt("rapid_split", label, "choice", "even",
                    say("Rapid Attack: pick 2 or more attacks and a second target to divide them (Rapid Attack)"),
                    values=EVEN)
    if k > n:
        return _opt("rapid_split", label, "choice", "even",
                    say("Rapid Attack: {n} attacks reach at most {n} targets (Rapid Attack)", n=n) if melee else
                    say("Rapid Attack: {n} shots reach at most {n} targets (Rapid Attack)", n=n), values=EVEN)
    return _opt("rapid_split", label, "choice", rapid.key_of(rapid.even(n, k)),
                values=rapid.split_values(request, n))


def attack_options(request: AttackRequest) -> list[dict]:
    """Every choice the attacker has for this attack, available or not (with the rule that says no)."""
    w = _weapon(request)
    opts = request.options or {}
    settings = settings_of(request)
    turn = request.attacker.state or {}
    tsheet = request.target.sheet or {}
    area = opts.get("template")
    if w is None:
        melee, rof, armed = True, 1, True
        shotgun = double = False
    else:
        melee, rof, armed = not w["ranged"] and not area, int(w["rof"] or 1), not w["unarmed"]
        shotgun, double = bool(w["shotgun"]), bool(w["double_barrel"])
    name = request.weapon or say("bare hands")
    in_fight = "card" in turn
    most = RAPID_MAX["melee" if melee else "ranged"]
    return [
        _opt("called", say("Called Shot"), "choice", "none",
             say("Called Shot: not with an area template (Called Shot)") if area else "",
             values=[{"key": "none", "label": say("None")}] + [
                 {"key": k, "label": say("{part} ({modifier}, +{bonus} damage)", part=CALLED_WORDS[k], modifier=f"{mod:+d}",
                                          bonus=bonus)
                  if bonus else say("{part} ({modifier})", part=CALLED_WORDS[k], modifier=f"{mod:+d}")}
                 for k, (label, mod, bonus) in CALLED_SHOTS.items()],
             help=say("Limb -2, hand -4, head or vitals -4 with +4 damage.")),
        _opt("wild_attack", say("Wild Attack (+2 Fighting and damage, Vulnerable after)"), "bool", False,
             "" if melee else say("Wild Attack: melee attacks only (Wild Attack)")),
        _opt("aim", say("Aimed last turn (+2; Extreme range needs it)"), "bool", False,
             say("Aim: Shooting or Athletics only, not Fighting (Aim)") if melee else ""),
        _opt("rapid_attack", say("Rapid Attack (each at -4)"), "int", 1,
             say("Rapid Attack: not with an area template (Rapid Attack)") if area else
             "" if rof == 1 else say("Rapid Attack: a weapon of RoF 1 only, not {weapon} (Rapid Attack)", weapon=name),
             min=1, max=most, targets="per_attack",
             help=say("Up to {n} attacks, one Wild Die; they may be divided among targets (one target more for each).", n=most)
             if melee else
             say("Up to {n} shots, one Wild Die; they may be divided among targets (one target more for each).", n=most)),
        _split_option(request, melee),
        _opt("unarmed_defender", say("Unarmed defender (+2)"), "bool", not defender_armed(tsheet),
             "" if melee and armed else say("Unarmed Defender: an armed attacker in melee only (Melee Attacks)")),
        _opt("two_weapons", say("Two weapons (+1)"), "bool", False,
             "" if melee else say("Two Weapons: melee only (Two Weapons)")),
        _opt("nonlethal", say("Nonlethal (edged weapons -1)"), "bool", False),
        _opt("rof", say("Shots (Rate of Fire)"), "int", rof,
             "" if rof > 1 else say("Rate of Fire: {weapon} fires one shot (Rate of Fire)", weapon=name), min=1, max=rof),
        _opt("both_barrels", say("Both barrels (+4 damage)"), "bool", False,
             "" if double else say("Shotguns: a double-barrelled shotgun only (Shotguns)") if shotgun
             else say("Shotguns: both barrels of a double-barrelled shotgun only (Shotguns)")),
        _opt("actions", say("Actions this turn"), "int", int(turn.get("actions", 1) or 1),
             say("Actions Per Turn: declared on the turn, before the first action") if in_fight else "",
             min=1, max=int(settings["max_actions"])),
        _opt("running", say("Running (-2)"), "bool", bool(turn.get("ran")),
             say("Running: the fight's books say whether this turn ran") if in_fight else ""),
        _opt("joker", say("Joker (+2 to hit and damage)"), "bool", bool(turn.get("joker")),
             say("Initiative: the Joker comes from the action card dealt") if in_fight else ""),
        _opt("mounted", say("Mounted (the lower of Riding and Fighting)"), "bool", False,
             "" if melee else say("Mounted Combat: the rider's melee attacks (Mounted Combat)")),
        _opt("charge", say("Mounted charge (+4 damage)"), "bool", False,
             "" if melee else say("Mounted Combat: a charge is a melee attack (Mounted Combat)")),
        _opt("object", say("Attack an object (Object Toughness)"), "choice", "none",
             say("Object Toughness: not with an area template") if area else "",
             values=[{"key": "none", "label": say("No: the token")}] + [
                 {"key": k, "label": say("{object} (Toughness {toughness})", object=OBJECT_WORDS.get(k, k.title()), toughness=v)}
                 for k, v in OBJECT_TOUGHNESS.items()]),
        # unticked where it is not open (a ticked, greyed box under "Not now" read as chosen: #33)
        _opt("launched", say("Launched (deviates 2d6\", not d6\")"), "bool", area in BLAST_RADIUS
             and (w or {}).get("launched") is not False and not (w or {}).get("thrown"),
             "" if area in BLAST_RADIUS else say("Area Effect Attacks: only a blast deviates")),
        _opt("modifier", say("Other modifier (the GM's call)"), "int", 0, min=-8, max=8, gm=True),
    ]
