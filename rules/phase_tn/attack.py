"""The ranged attack of *Phase/TN Combat Sequence*, "Ranged Attacks" and "Special Ranged Attacks".

One roll of the game's dice + Reflexes + the weapon's skill + modifiers
against the TN (8 unless the GM sets another; the document gives no
ranges). A shot without Targeting is a wild shot: -2, never called or
aimed. A hit lands on the called area, or drifts from it on a partial
success, or on the random table; then damage, flesh and trauma
(:mod:`.health`). Melee and suppressive fire are empty sections in the
document and are not automated.
"""

from __future__ import annotations

from ..dice import DiceSource
from ..system import AttackRequest, AttackResult, Effect, Modifier, RuleError, RuleNotImplemented
from .checks import attr, needed, tn_chance, wound_modifiers
from .data import BURST_BULLETS, LOCATION_TITLES, LOCATION_WORDS, LOCATIONS, SRC_RANGED, TRAUMA_EFFECT_WORDS, attribute_words, resolve_settings
from .health import trauma_check
from .targeting import called_shot_drift_with, first_possible_location, hit_location, is_targeted, wild_shot_modifier
from ..text import joined, say


def range_band(distance: float, weapon: dict) -> str | None:
    """Not automated: the document gives no weapon ranges; the GM sets the TN."""
    raise RuleNotImplemented(say("Phase/TN: the document gives no weapon ranges; the GM sets the TN"))


def weapon_of(sheet: dict, name: str | None) -> dict:
    """The named weapon of a sheet (the first one when no name is given)."""
    weapons = sheet.get("weapons") or []
    if not weapons:
        raise RuleError(say("no weapon on the sheet"))
    if name is None:
        return weapons[0]
    for w in weapons:
        if w.get("name") == name:
            return w
    raise RuleError(say("no weapon named {weapon} on the sheet", weapon=repr(name)))


def _with_books(request: AttackRequest) -> dict:
    """The request's options, checked against the fight's books (``Combatant.state``) when
    there are some: a shot the books owe (``options["due"]``) is fired as the books say (its
    target, weapon, mode, Targeting, called area and aim as they stood when it resolved); any
    other shot in a fight is targeted only if the shooter holds the Targeting on its target
    (a request may waive the Targeting, not claim it)."""
    opts = dict(request.options or {})
    books = request.attacker.state or {}
    due = opts.get("due")
    if due and "due" in books:
        owed = books["due"].get(due) if isinstance(books["due"], dict) else None
        if owed is None:
            raise RuleError(say("shot {due} is not due now: already rolled, or a shorter action's shots come first", due=due))
        if owed["target"] != request.target.id or (request.weapon or owed.get("weapon")) != owed.get("weapon"):
            raise RuleError(say("shot {due} is at {target} with {weapon}: it was declared so", due=due, target=owed["target"],
                                weapon=owed.get("weapon")))
        for key in ("mode", "targeted", "called", "aim"):
            opts.pop(key, None)
        opts.update(owed["options"])
    elif "targeting" in books and opts.get("targeted"):
        opts["targeted"] = is_targeted(books["targeting"], request.attacker.id, request.target.id)
    return opts


def attack_setup(request: AttackRequest, settings: dict | None = None) -> dict:
    """Everything an attack and its odds share: settings, weapon, mode, targeting, TNs and modifiers.

    The game's settings come from ``settings`` or ``request.options["settings"]``
    (the first wins where both set a key), over :func:`.data.default_settings`.
    """
    opts = _with_books(request)
    s = resolve_settings({**(opts.get("settings") or {}), **(settings or {})})
    weapon = weapon_of(request.attacker.sheet, request.weapon)
    if weapon.get("melee"):
        raise RuleNotImplemented(say("Phase/TN: the document's Melee Attacks section is empty"))
    mode = opts.get("mode", "single")
    if mode == "suppressive":
        raise RuleNotImplemented(say("Phase/TN: the document's Suppressive Fire entry is empty"))
    if mode not in ("single", "burst", "full_auto"):
        raise RuleError(say("unknown fire mode {mode}", mode=repr(mode)))
    if mode != "single" and weapon.get("mode") != "auto":
        raise RuleError(say("{weapon} is not an automatic weapon", weapon=weapon.get("name")))
    if "targeted" in opts:
        targeted = bool(opts["targeted"])
    else:
        targeted = is_targeted(request.attacker.state.get("targeting", {}), request.attacker.id, request.target.id)
    called = opts.get("called")
    if called == "none":
        called = None
    aim = opts.get("aim", 0)
    top = s["aim_max"] * s["aim_bonus"]
    if isinstance(aim, bool) or not isinstance(aim, int) or not 0 <= aim <= top:
        raise RuleError(say("Aim: a bonus from 0 to {top} ({n} Aim actions at +{bonus}), not {value} (Ranged Attacks, "
                            "the Aim action)", top=top, n=s["aim_max"], bonus=s["aim_bonus"], value=repr(aim)))
    if not targeted and (called or aim):
        raise RuleError(say("a wild shot (no Targeting) cannot be called or aimed"))
    if called and mode != "single":
        raise RuleError(say("bursts and full auto are not called shots (game setting reading)"))
    if called and called not in LOCATIONS:
        raise RuleError(say("unknown location {location}", location=repr(called)))
    tn = opts.get("tn", s["ranged_tn"])
    if isinstance(tn, bool) or not isinstance(tn, int) or not 1 <= tn <= 40:
        raise RuleError(say("the TN is a whole number from 1 to 40, not {value} (the GM sets it: Ranged Attacks)", value=repr(tn)))
    sheet = request.attacker.sheet
    mods = [Modifier(attribute_words(s["ranged_attribute"]), attr(sheet, s["ranged_attribute"]), "sheet")]
    skill = weapon.get("skill")
    if skill:
        mods.append(Modifier(say("skill {skill}", skill=skill), (sheet.get("skills") or {}).get(skill, 0), "sheet"))
    if not targeted:
        mods.append(Modifier(say("wild shot"), wild_shot_modifier(False), SRC_RANGED))
    if aim:
        mods.append(Modifier(say("aim"), aim, SRC_RANGED))
    for label, value in (opts.get("modifiers") or {}).items():
        mods.append(Modifier(str(label), int(value), "GM"))
    other = opts.get("modifier", 0)
    if isinstance(other, bool) or not isinstance(other, int) or not -10 <= other <= 10:
        raise RuleError(say("the GM's modifier is a whole number from -10 to +10, not {value}", value=repr(other)))
    if other:
        mods.append(Modifier(say("GM's modifier"), other, "GM"))
    mods += wound_modifiers(sheet, s)
    called_tn = tn + s["called_shot_tn"][called] if called else None
    bullets = {"single": 1, "burst": BURST_BULLETS, "full_auto": s["full_auto_bullets"]}[mode]
    return {
        "settings": s,
        "weapon": weapon,
        "mode": mode,
        "targeted": targeted,
        "called": called,
        "tn": tn,
        "called_tn": called_tn,
        "modifiers": mods,
        "bullets": bullets,
    }


def hits_for(total: int, setup: dict) -> int:
    """How many hits a total scores: one for a hit; a burst or full auto adds one per
    ``burst_margin_per_extra_hit`` points over the TN, up to the bullets fired (a setting)."""
    if total < setup["tn"]:
        return 0
    if setup["mode"] == "single":
        return 1
    extra = (total - setup["tn"]) // setup["settings"]["burst_margin_per_extra_hit"]
    return min(setup["bullets"], 1 + extra)


def landing(location: str | None, impossible: set[str], first_arm: str) -> str | None:
    """Where a hit on ``location`` lands when some areas cannot be hit ("Ranged Attacks":
    the drift order "can also be used if an impossible location is rolled"); None if none can."""
    if location in impossible:
        return first_possible_location(location, impossible, first_arm)
    return location


def hit_needs(setup: dict) -> str:
    """What the shooter's dice must show to hit, in words (the table's dice, #59): the TN less the modifiers,
    and a called shot's called TN or a burst's extra hits; what the modifiers add to the dice said too (#70: "4 or
    more hits (TN 10)" alone hid the +6 that makes a 4 hit)."""
    s, tn, dice = setup["settings"], setup["tn"], setup["settings"]["roll_dice"]
    bonus = int(sum(m.value for m in setup["modifiers"]))
    line = _hit_words(setup, s, tn, dice, bonus)
    return say("{line}; {flat} is added", line=line, flat=f"{bonus:+d}") if bonus else line


def _hit_words(setup: dict, s: dict, tn: int, dice: str, bonus: int) -> str:
    need = needed(dice, tn, bonus)
    if need is None:
        return say("roll {dice}: no roll reaches TN {tn}", dice=dice, tn=tn)
    if setup["called"]:
        full = needed(dice, setup["called_tn"], bonus)
        where = LOCATION_WORDS.get(setup["called"], setup["called"])
        if full is None:
            return say("roll {dice}: {need} or more hits, drifting from the {location} (TN {tn}; no roll reaches the "
                       "called TN {called})", dice=dice, need=need, location=where, tn=tn, called=setup["called_tn"])
        return say("roll {dice}: {need} or more hits, {full} or more hits the {location} (TN {tn}, called TN {called})",
                   dice=dice, need=need, full=full, location=where, tn=tn, called=setup["called_tn"])
    if setup["mode"] != "single":
        return say("roll {dice}: {need} or more hits, one hit more for every {margin} over that ({bullets} at most; "
                   "TN {tn})", dice=dice, need=need, margin=s["burst_margin_per_extra_hit"], bullets=setup["bullets"],
                   tn=tn)
    return say("roll {dice}: {need} or more hits (TN {tn})", dice=dice, need=need, tn=tn)


def attack(request: AttackRequest, dice: DiceSource, settings: dict | None = None) -> AttackResult:
    """A ranged shot: dice + Reflexes + skill + modifiers against the TN ("Ranged Attacks").

    A called shot needs the TN plus the location's ``called_shot_tn``;
    reaching the plain TN but not that is a partial success that drifts
    one area per point short. Bursts and full auto ("Special Ranged
    Attacks") hit once plus once per ``burst_margin_per_extra_hit``
    points over the TN, up to the bullets fired (a setting). A shot that
    reaches the TN but finds no area it can hit is blocked: not a hit.
    """
    setup = attack_setup(request, settings)
    s, weapon, mode, called = setup["settings"], setup["weapon"], setup["mode"], setup["called"]
    tn, called_tn, mods = setup["tn"], setup["called_tn"], setup["modifiers"]
    by = request.attacker.id  # the shooter's dice (the table's own, #59): to hit, where it lands, its damage
    record = dice.roll(s["roll_dice"], say("{weapon} to hit", weapon=weapon.get("name") or say("weapon")),
                       roller=by, needs=hit_needs(setup), chance=tn_chance(s["roll_dice"], tn, int(sum(m.value for m in mods))))
    rolls = [record]
    total = record.total + sum(m.value for m in mods)
    record.settle(total >= tn)  # the shot's luck: it reached the TN (#59)
    details: dict = {"tn": tn, "total": total, "targeted": setup["targeted"], "mode": mode, "called": called,
                     "attacker": request.attacker.id, "target": request.target.id, "weapon": weapon.get("name")}
    if (request.options or {}).get("due"):
        details["due"] = request.options["due"]  # the shot of the fight's books this roll answers
    who = say("{attacker} shoots {target}", attacker=request.attacker.name, target=request.target.name)
    if total < tn:
        return AttackResult(False, say("{who}: miss ({total} vs TN {tn})", who=who, total=total, tn=tn), rolls, mods, [],
                            details)
    hits = hits_for(total, setup)
    impossible = set((request.options or {}).get("impossible_locations", ()))
    effects: list[Effect] = []
    locations = []
    for _ in range(hits):
        if called:
            steps = max(0, called_tn - total)
            loc = called_shot_drift_with(called, steps, s["drift_first_arm"])
            details["called_tn"] = called_tn
            details["drift"] = steps
        else:
            loc, loc_roll = hit_location(dice, s, roller=by)
            rolls.append(loc_roll)
        loc = landing(loc, impossible, s["drift_first_arm"])
        if loc is None:
            details["blocked"] = True
            continue
        locations.append(loc)
        dmg = dice.roll(weapon.get("damage", "2d6"), say("damage ({location})", location=LOCATION_WORDS.get(loc, loc)),
                        roller=by, needs=say("roll {dice} for damage", dice=weapon.get("damage", "2d6")))
        rolls.append(dmg)
        stun = bool(weapon.get("stun"))
        data = {"location": loc, "damage": dmg.total, "stun": stun}
        where = LOCATION_WORDS.get(loc, loc)
        amount = 0 if stun else dmg.total
        effects.append(Effect("flesh", request.target.id, {"amount": amount, "location": loc,
                                                           "says": say("flesh {amount} ({location})", amount=amount, location=where)}))
        if s["trauma_check"] and not stun and dmg.total > 0:
            check = trauma_check(request.target.sheet, loc, dmg.total, dice, s, roller=request.target.id)
            rolls.append(check["roll"])
            data["trauma_check"] = {"tn": check["tn"], "total": check["total"]}
            if not check["success"]:
                effect = s["trauma_effects"].get(loc, "")
                effects.append(
                    Effect("trauma", request.target.id, {"location": loc, "effect": effect, "says": say(
                        "trauma ({location}): {effect}", location=where, effect=TRAUMA_EFFECT_WORDS.get(effect, effect))
                        if effect else say("trauma ({location})", location=where)})
                )
        details.setdefault("hits", []).append(data)
    details["locations"] = locations
    if not locations:
        return AttackResult(False, say("{who}: blocked ({total} vs TN {tn}): no area can be hit", who=who, total=total, tn=tn),
                            rolls, mods, effects, details)
    summary = say("{who}: hit ({total} vs TN {tn}): {locations}", who=who, total=total, tn=tn, locations=joined([LOCATION_WORDS.get(x, x) for x in locations], ", "))
    if called and called_tn is not None and total < called_tn:
        summary = say("{line} (partial success, {short} short of the called TN {called})", line=summary,
                      short=called_tn - total, called=called_tn)
    return AttackResult(True, summary, rolls, mods, effects, details)


def attack_options(request: AttackRequest, settings: dict | None = None) -> list[dict]:
    """The shooter's choices, "Ranged Attacks" and "Special Ranged Attacks": whether the shot is
    targeted (a Targeting action held; without it a wild shot at -2), a called area (its TN step a
    setting), the Aim bonus, the fire mode of an automatic weapon, the TN the GM sets (the document
    gives no ranges) and the GM's modifier. A targeted shot in a fight is the books' to say (a shot
    may waive its Targeting, not claim one); wild shots cannot be called or aimed."""
    opts = dict(request.options or {})
    try:
        s = resolve_settings({**(opts.get("settings") or {}), **(settings or {})})
    except RuleError:
        s = resolve_settings()
    try:
        weapon = weapon_of(request.attacker.sheet, request.weapon)
    except RuleError:
        weapon = {}
    books = request.attacker.state or {}
    held = is_targeted(books.get("targeting", {}), request.attacker.id, request.target.id)
    in_fight = "targeting" in books
    targeted = bool(opts.get("targeted", held)) and (held or not in_fight)
    auto = weapon.get("mode") == "auto"
    mode = opts.get("mode", "single")
    wild = "" if targeted else say("Ranged Attacks: a wild shot (no Targeting) cannot be called or aimed")
    top = s["aim_max"] * s["aim_bonus"]

    def opt(key, label, kind, default, why="", **more):
        return {"key": key, "label": label, "kind": kind, "default": default, "available": not why,
                "reason": why, **more}

    return [
        opt("targeted", say("Targeted (a Targeting action held; else a wild shot, -2)"), "bool", held,
            "" if held or not in_fight else
            say("Ranged Attacks: {name} holds no Targeting on {target}: a wild shot", name=request.attacker.name,
                target=request.target.name)),
        opt("called", say("Called shot"), "choice", "none",
            wild or ("" if mode == "single" else say("Special Ranged Attacks: bursts and full auto are not called shots")),
            values=[{"key": "none", "label": say("No: the hit location table")}] + [
                {"key": loc, "label": say("{location} (TN +{n})", location=LOCATION_TITLES.get(loc, loc.capitalize()), n=s["called_shot_tn"][loc])}
                for loc in LOCATIONS]),
        opt("aim", say("Aim (+{n} per Aim action)", n=s["aim_bonus"]), "int", 0, wild, min=0, max=top),
        opt("mode", say("Fire mode"), "choice", "single",
            "" if auto else say("Special Ranged Attacks: {weapon} is not automatic", weapon=weapon.get("name") or say("this weapon")),
            values=[{"key": "single", "label": say("Single shot")},
                    {"key": "burst", "label": say("Three-round burst")},
                    {"key": "full_auto", "label": say("Full auto")}]),
        opt("tn", say("TN (the GM sets it)"), "int", s["ranged_tn"], min=1, max=40, gm=True),
        opt("modifier", say("Other modifier (the GM's call)"), "int", 0, min=-10, max=10, gm=True),
    ]
