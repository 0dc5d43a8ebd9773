"""The attack pipeline: which skill and TN, range, cover, melee and ranged
modifiers, Rate of Fire with one Wild Die, damage against Toughness, random
targets on a miss.

Sources: *Savage Worlds Combat System Reference*, "Melee Attacks", "Ranged
Attacks", "Rate of Fire", "Damage Resolution", "Shotguns", "Improvised
Weapons", "Mounted Combat", "Prone Targets", "Ranged in Melee", "Nonlethal
Damage", "Two Weapons", "Random Targets" and "Object Toughness".
"""

from __future__ import annotations

import math

from ..dice import DiceSource, RollRecord
from ..system import AttackRequest, AttackResult, Combatant, Effect, Modifier, RuleError
from .checks import (damage_expression, parse_die, trait_chance, trait_dice, trait_die_modifiers, trait_needs,
                     trait_result)
from .cover import cover_effect, cover_level, pieces_only
from .data import (AIM_BONUS, BLAST_RADIUS, CALLED_SHOTS, CORE, EXTREME_FACTOR, JOKER_BONUS, OBJECT_TOUGHNESS,
                   RANGE_MODIFIERS, RAPID_ATTACK, RAPID_MAX, SHOTGUN_DAMAGE, TN, UNARMED_DEFENDER, WILD_ATTACK,
                   merged_settings)
from .health import TargetState, active, condition_modifiers, state_effects
from .movement import adjacent, distance as square_distance
from .sheet import derived_values, ready_melee, skill_die, weapon_stats
from .data import SKILL_WORDS
from .turns import multi_action_penalty
from ..text import joined, say, say_n, say_p

def skill_words(skill: str):
    return SKILL_WORDS.get(skill, skill.title())


#: a Called Shot's part of the body, as the breakdown and the option name it
CALLED_WORDS = {"limb": say("Limb"), "hand": say("Hand"), "head": say("Head"), "vitals": say("Vitals")}

#: a range band's modifier as the breakdown names it (Ranged Attacks)
RANGE_WORDS = {"short": say("Short range"), "medium": say("Medium range"), "long": say("Long range"),
               "extreme": say("Extreme range")}


def on_damage(mods: list[Modifier]) -> list[Modifier]:
    """The damage roll's modifiers as a list of every modifier shows them: each says it is the damage's,
    so a Joker or a Called Shot that counts on both rolls reads "Joker +2 / Joker (damage) +2" (#33)."""
    return [Modifier(say("{modifier} (damage)", modifier=m.label), m.value, m.source) for m in mods]

def range_modifier(distance: int, short: int, medium: int, long: int) -> int | None:
    """Ranged Attacks table: 0 Short, -2 Medium, -4 Long, -8 Extreme (up to 4x Long).

    ``None`` beyond Extreme: the target cannot be shot.
    """
    if distance < 0:
        raise RuleError(say("a distance cannot be negative"))
    for band, limit in (("short", short), ("medium", medium), ("long", long), ("extreme", EXTREME_FACTOR * long)):
        if distance <= limit:
            return RANGE_MODIFIERS[band]
    return None


def _booked(key: str, book, name: str):
    """Why an option the fight itself keeps (``actions``, ``running``, ``joker``) cannot be given another value
    in an attack: one whole sentence each."""
    if key == "actions":
        return say_n("{name} declared {n} action this turn (Actions Per Turn)",
                     "{name} declared {n} actions this turn (Actions Per Turn)", book, name=name)
    if key == "running":
        return (say("{name} has run this turn: the turn's moves say so (Running)", name=name) if book
                else say("{name} has not run this turn: the turn's moves say so (Running)", name=name))
    return (say("{name} holds the Joker: the card dealt says so (Initiative)", name=name) if book
            else say("{name} does not hold the Joker: the card dealt says so (Initiative)", name=name))


def gang_up_bonus(other_adjacent_foes: int, adjacent_allies: int) -> int:
    """Melee Attacks, Gang Up: +1 per other adjacent foe, at most +4; each adjacent
    ally of the defender cancels one point of that (capped) bonus."""
    if other_adjacent_foes < 0 or adjacent_allies < 0:
        raise RuleError(say("counts of adjacent tokens cannot be negative"))
    return max(0, min(4, other_adjacent_foes) - adjacent_allies)


#: a band as the attack card names it ("range: short"): words equal to the band's key, so code reads it as before;
#: a range band's own words (a context), apart from a cover or armour grade's "medium" (Spanish *medio*, *media*)
BAND_WORDS = {"melee": say_p("range band", "melee"), "short": say_p("range band", "short"),
              "medium": say_p("range band", "medium"), "long": say_p("range band", "long"),
              "extreme": say_p("range band", "extreme")}


def range_band(distance: float, weapon: dict) -> str | None:
    """Ranged Attacks: the band of a distance for a weapon; melee weapons
    answer ``"melee"`` within reach (adjacent plus Reach) and None beyond."""
    w = weapon_stats(weapon)
    if not w["ranged"]:
        return "melee" if distance <= 1 + int(w["reach"]) else None
    short, medium, long = w["ranges"]
    mod = range_modifier(int(math.ceil(distance)), short, medium, long)
    if mod is None:
        return None
    band = {v: k for k, v in RANGE_MODIFIERS.items()}[mod]
    if w["shotgun"] and band == "extreme":
        return None
    return band


def settings_of(request: AttackRequest) -> dict:
    """The game's settings an attack carries in ``options["settings"]``, over the defaults."""
    return merged_settings(request.options.get("settings"))


def no_attack(a: Combatant):
    """Why ``a`` makes no attack now, whatever its weapon and target (the words :func:`plan_of` refuses it with);
    None when it may: Incapacitated, Shaken or Stunned (they take no actions: core rules, reading), or recovered
    from Shaken this turn with only free actions left (its per-combatant state, turns.py)."""
    asheet = a.sheet or {}
    if asheet.get("incapacitated"):
        return say("{name} is Incapacitated", name=a.name)
    if asheet.get("shaken") or asheet.get("stunned"):
        return say("{name} is Shaken and cannot attack", name=a.name) if asheet.get("shaken") \
            else say("{name} is Stunned and cannot attack", name=a.name)
    if (a.state or {}).get("free_only"):
        return say("{name} recovered from Shaken this turn but has only free actions left", name=a.name)
    return None


def plan_of(request: AttackRequest) -> dict:
    """Everything about an attack that is known before rolling: the trait,
    TN, modifiers, damage expressions, RoF. Shared by attack and odds."""
    a, t, opts = request.attacker, request.target, request.options
    settings = settings_of(request)
    asheet, tsheet = a.sheet or {}, t.sheet or {}
    why = no_attack(a)
    if why is not None:
        raise RuleError(why)
    turn = a.state or {}  # the lifecycle's per-combatant state (turns.py): declared actions, running, Joker
    weapons = asheet.get("weapons") or {}
    if request.weapon is None:
        wname, w = say("Unarmed"), weapon_stats({"damage": "Str", "natural": True})
        w["unarmed"] = True
    else:
        if request.weapon not in weapons:
            raise RuleError(say("{name} has no weapon {weapon}", name=a.name, weapon=repr(request.weapon)))
        wname, w = request.weapon, weapon_stats(weapons[request.weapon])
        w["unarmed"] = False
    attrs = asheet.get("attributes") or {}
    strength = attrs.get("strength", "d6")
    wild = bool(asheet.get("wild_card", True))
    mods: list[Modifier] = []
    dmg_mods: list[Modifier] = []
    distance = request.distance
    if request.attacker.position is not None and request.target.position is not None and not distance:
        distance = square_distance(request.attacker.position, request.target.position)
    target_adjacent = distance <= 1
    target_obj = opts.get("object")
    if target_obj == "none":
        target_obj = None
    toughness_info = target_toughness(tsheet, target_obj)
    area = opts.get("template")

    # which skill
    thrown = w["thrown"] and (w["ranged"] or area)
    if area in BLAST_RADIUS and opts.get("centre") is not None and a.position is not None:
        distance = square_distance(a.position, opts["centre"])
    if area:
        kind, skill = ("thrown", "athletics") if thrown else ("ranged", "shooting")
    elif not w["ranged"]:
        kind, skill = "melee", "fighting"
        if distance > 1 + int(w["reach"]):
            raise RuleError(say("{name} is {distance}\" away, beyond the reach of {weapon}", name=t.name, distance=distance,
                                    weapon=wname))
    else:
        kind, skill = ("thrown", "athletics") if thrown else ("ranged", "shooting")
    die, unskilled = skill_die(asheet, skill)
    mods += unskilled
    if kind == "melee" and opts.get("mounted"):
        riding, r_mods = skill_die(asheet, "riding")
        if (parse_die(riding).step - 2 * len(r_mods)) < (parse_die(die).step - 2 * len(unskilled)):
            die, mods = riding, r_mods + [Modifier(say("Mounted: Riding is lower than Fighting"), 0, "Mounted Combat")]

    # the TN
    foes_adjacent_to_attacker = [o for o in request.others + [t] if o.side != a.side and active(o)
                                 and adjacent(o.position, a.position)]
    in_melee = bool(foes_adjacent_to_attacker)
    tderived = derived_values(tsheet)
    vulnerable_after = False
    if kind == "melee":
        tn = tderived["parry"]
        tn_label = say("Parry {tn}", tn=tn)
        if tsheet.get("prone") and not target_obj:
            tn, tn_label = tn - 2, say("Parry {tn} (prone -2)", tn=tn - 2)
    else:
        tn, tn_label = TN, say("TN {tn}", tn=TN)
        if in_melee and area is None:
            if w["two_handed"]:
                raise RuleError(say("in melee only one-handed ranged weapons can be used, not {weapon}", weapon=wname))
            if target_adjacent and not opts.get("target_is_object"):
                tn, tn_label = tderived["parry"], say("Parry {tn} (ranged in melee)", tn=tderived["parry"])
            else:
                vulnerable_after = True
    if target_obj:
        tn, tn_label = TN, say("TN {tn} (object)", tn=TN)

    # range
    band = None
    if area in ("cone", "line"):
        band = "short"  # the template is the reach: no range modifier
    elif area and not w["ranged"]:
        raise RuleError(say("{weapon} has no range to throw or fire a blast", weapon=wname))
    elif kind != "melee":
        if target_adjacent and tn != TN:
            band = "short"
        else:
            band = range_band(distance, w)
            if band is None:
                raise RuleError(say("{name} is beyond {weapon}'s range (shotguns have no Extreme range)", name=t.name,
                                    weapon=wname) if w["shotgun"] else
                                say("{name} is beyond {weapon}'s range", name=t.name, weapon=wname))
        if band == "extreme" and settings["extreme_requires_aim"] and not opts.get("aim"):
            raise RuleError(say("Extreme range needs the Aim action first"))
        rm = RANGE_MODIFIERS[band]
        if rm:
            mods.append(Modifier(RANGE_WORDS[band], rm, "Ranged Attacks"))

    # cover and prone (ranged), not for area templates (they use cover as armour)
    cover = cover_effect(request.cover, settings) if (request.cover is not None and kind != "melee") else cover_level(0.0)
    if cover.level == "total" and request.board is not None and a.position is not None and t.position is not None:
        cover = pieces_only(request.board, a.position, t.position, cover)
    if cover.level == "total" and area is None:
        raise RuleError(say("no line of fire to {name}", name=t.name))
    if tsheet.get("vulnerable") and not target_obj and area is None:
        mods.append(Modifier(say("Vulnerable target"), 2, "core rules (reading)"))
    if kind != "melee" and area is None:
        prone_mod = -4 if tsheet.get("prone") and distance >= 3 else 0
        if prone_mod < cover.modifier:
            mods.append(Modifier(say("Prone target (3\" or more)"), -4, "Prone Targets"))
            if cover.modifier:
                mods.append(Modifier(say("{cover} (does not stack with prone)", cover=cover.label), 0, "Prone Targets"))
        elif cover.modifier:
            mods.append(Modifier(cover.label, cover.modifier, "Ranged Attacks / cover"))

    # melee modifiers
    if kind == "melee":
        # Melee Attacks, Unarmed Defender: natural weapons arm an attacker as they arm a defender;
        # the option ``unarmed_defender`` is the GM's word where the sheet is not (a dropped sword)
        unarmed_defender = opts.get("unarmed_defender")
        if unarmed_defender is None:
            unarmed_defender = not defender_armed(tsheet)
        if unarmed_defender and w["unarmed"] and "unarmed_defender" in opts:
            raise RuleError(say("Unarmed Defender: only an armed attacker gets +2 (Melee Attacks, 'Unarmed Defender')"))
        if unarmed_defender and not w["unarmed"] and not target_obj:
            mods.append(Modifier(say("Unarmed defender"), UNARMED_DEFENDER, "Melee Attacks"))
        others_foes = [o for o in request.others if o.id not in (a.id, t.id) and o.side != t.side and active(o)
                       and not (o.sheet or {}).get("stunned") and adjacent(o.position, t.position)]
        allies = [o for o in request.others if o.id not in (a.id, t.id) and o.side == t.side and active(o)
                  and adjacent(o.position, t.position)]
        # Gang Up: "Each adjacent enemy (not Stunned) gives +1": the attacker counted too when the
        # game's setting ``gang_up_counts_attacker`` says so (the document does not)
        foes = len(others_foes) + (1 if settings["gang_up_counts_attacker"] else 0)
        g = gang_up_bonus(foes, len(allies))
        if g and not target_obj:
            mods.append(Modifier(say("Gang up ({foes}, {allies})", foes=say_n("{n} foe", "{n} foes", foes),
                                     allies=say_n("{n} ally", "{n} allies", len(allies))), g, "Melee Attacks"))
        if asheet.get("prone"):
            mods.append(Modifier(say("Attacking while prone"), -2, "Prone Targets"))
        if opts.get("two_weapons"):
            t_weapons = [x for x in ready_melee(tsheet)]
            natural = any(x["natural"] for x in t_weapons)
            if len(t_weapons) <= 1 and not int(tsheet.get("shield", 0) or 0) and not natural:
                mods.append(Modifier(say("Two weapons"), 1, "Two Weapons"))
        if opts.get("nonlethal") and w["edged"]:
            mods.append(Modifier(say("Edged weapon used flat (nonlethal)"), -1, "Nonlethal Damage"))

    # the attacker's own state and choices
    if w["shotgun"]:
        mods.append(Modifier(say("Shotgun"), 2, "Shotguns"))
    if w["improvised"]:
        mods.append(Modifier(say("Improvised weapon"), -2, "Improvised Weapons"))
    if w["min_str"] and settings["min_str_penalty"]:
        short = parse_die(w["min_str"]).step - parse_die(strength).step
        if short > 0:
            mods.append(Modifier(say("Strength below Min Str {die}", die=w["min_str"]), -short, "Improvised Weapons (reading)"))
    if "card" in turn:  # in a fight the books say how many actions, whether it ran, whether it holds the Joker
        for key, book in (("actions", int(turn.get("actions", 1) or 1)), ("running", bool(turn.get("ran"))),
                          ("joker", bool(turn.get("joker")))):
            if key in opts and opts[key] != book:
                raise RuleError(_booked(key, book, a.name))
    actions = int(opts.get("actions", turn.get("actions", 1)) or 1)
    if actions > settings["max_actions"]:
        raise RuleError(say("at most {n} actions in a turn", n=settings["max_actions"]))
    used = int(turn.get("used", 0) or 0)
    if used >= actions and not opts.get("free_attack"):
        raise RuleError(say("{name} has taken the 1 action declared this turn (declare 2 or 3 actions before the "
                            "first: Actions Per Turn)", name=a.name) if actions == 1 else
                        say("{name} has taken the {n} actions declared this turn", name=a.name, n=actions))
    map_ = multi_action_penalty(actions)
    if map_:
        mods.append(Modifier(say("Multi-action ({n} actions)", n=actions), map_, "Actions Per Turn"))
    if opts.get("running", turn.get("ran")):
        mods.append(Modifier(say("Running"), -2, CORE))
    joker = bool(opts.get("joker", turn.get("joker", False)))
    if joker:
        mods.append(Modifier(say("Joker"), JOKER_BONUS, "Initiative (Action Cards)"))
        dmg_mods.append(Modifier(say("Joker"), JOKER_BONUS, "Initiative (Action Cards)"))
    mods += condition_modifiers(asheet)
    for label, value in opts.get("modifiers", []) or []:
        mods.append(Modifier(str(label), int(value), "GM"))
    other = opts.get("modifier", 0)
    if isinstance(other, bool) or not isinstance(other, int) or not -8 <= other <= 8:
        raise RuleError(say("the GM's modifier is a whole number from -8 to +8, not {value}", value=repr(other)))
    if other:
        mods.append(Modifier(say("GM's modifier"), other, "GM"))

    # RoF
    rof = int(opts.get("rof", w["rof"]) or 1)
    if rof < 1 or rof > int(w["rof"]):
        raise RuleError(say("{weapon} fires 1 to {most} shots an action, not {n}", weapon=wname, most=w["rof"], n=rof))
    if rof > 1:
        mods.append(Modifier(say("Recoil"), -2, "Rate of Fire"))

    # the maneuvers the attacker picks (attack_options lists them)
    picked = maneuvers(opts, kind, w, wname, area)
    mods += picked["modifiers"]
    dmg_mods += picked["damage_modifiers"]
    if picked["rapid"] > 1:
        rof = picked["rapid"]
    vulnerable_why = (say("made a Wild Attack") if picked["vulnerable"] else
                      say("shot a non-adjacent target while in melee") if vulnerable_after else "")
    vulnerable_after = vulnerable_after or picked["vulnerable"]

    # damage
    explode = not target_obj
    dmg_text = w["damage"]
    if w["shotgun"]:
        dmg_text = SHOTGUN_DAMAGE[band]
    if w["double_barrel"] and opts.get("both_barrels"):
        dmg_mods.append(Modifier(say("Both barrels"), 4, "Shotguns"))
    if opts.get("charge"):
        dmg_mods.append(Modifier(say("Mounted charge"), 4, "Mounted Combat"))
    if kind == "melee" or "str" in str(dmg_text).lower():
        dmg_expr, _ = damage_expression(dmg_text, strength, explode=explode)
    else:
        dmg_expr, _ = damage_expression(dmg_text, None, explode=explode)
    raise_bonus = explode  # objects take no bonus damage from raises
    return {
        "kind": kind, "skill": skill, "die": die, "wild": wild, "tn": tn, "tn_label": tn_label,
        "modifiers": mods, "damage_expr": dmg_expr, "damage_modifiers": dmg_mods, "rof": rof,
        "ap": int(w["ap"]), "toughness": toughness_info, "raise_bonus": raise_bonus, "explode": explode,
        "band": band, "weapon_name": wname, "weapon": w, "vulnerable_after": vulnerable_after,
        "vulnerable_why": vulnerable_why,
        "distance": distance, "random_target_faces": (1, 2) if (rof > 1 or w["shotgun"]) else (1,),
        "settings": settings, "cover": cover,
    }


def defender_armed(tsheet: dict) -> bool:
    """Melee Attacks, Unarmed Defender: a weapon ready (natural weapons too) or a shield."""
    return bool(ready_melee(tsheet)) or int(tsheet.get("shield", 0) or 0) > 0


def maneuvers(opts: dict, kind: str, w: dict, wname: str, area) -> dict:
    """The Savage Worlds core rules' attack maneuvers the attacker picks: Called Shot (``called``: limb
    -2, hand -4, head or vitals -4 and +4 damage), Wild Attack (``wild_attack``: melee, +2 Fighting and
    +2 damage, Vulnerable after), Aim (``aim``: +2 Shooting or Athletics; Extreme range needs it) and
    Rapid Attack (``rapid_attack``: up to 3 melee attacks or 6 shots of a RoF 1 weapon, each at -4,
    rolled as RoF dice with one Wild Die). A pick the rules do not allow here is refused, naming the rule."""
    mods: list[Modifier] = []
    dmg: list[Modifier] = []
    called = opts.get("called") or "none"
    if called != "none":
        if called not in CALLED_SHOTS:
            raise RuleError(say("Called Shot: a limb, hand, head or vitals, not {value} (Called Shot)", value=repr(called)))
        if area:
            raise RuleError(say("Called Shot: not with an area template (Called Shot)"))
        label, mod, bonus = CALLED_SHOTS[called]
        mods.append(Modifier(say("Called Shot: {part}", part=CALLED_WORDS.get(called, label)), mod, "Called Shot"))
        if bonus:
            dmg.append(Modifier(say("Called Shot: {part}", part=CALLED_WORDS.get(called, label)), bonus, "Called Shot"))
    wild = bool(opts.get("wild_attack"))
    if wild:
        if kind != "melee":
            raise RuleError(say("Wild Attack: melee attacks only (Wild Attack)"))
        mods.append(Modifier(say("Wild Attack"), WILD_ATTACK, "Wild Attack"))
        dmg.append(Modifier(say("Wild Attack"), WILD_ATTACK, "Wild Attack"))
    if opts.get("aim"):
        if kind == "melee":
            raise RuleError(say("Aim: Shooting or Athletics only, not Fighting (Aim)"))
        mods.append(Modifier(say("Aim"), AIM_BONUS, "Aim"))
    rapid = opts.get("rapid_attack", 1)
    if isinstance(rapid, bool) or not isinstance(rapid, int):
        raise RuleError(say("Rapid Attack: a number of attacks, not {value} (Rapid Attack)", value=repr(rapid)))
    if rapid != 1:
        most = RAPID_MAX["melee" if kind == "melee" else "ranged"]
        if not 1 <= rapid <= most:
            raise RuleError(say("Rapid Attack: 1 to {most} attacks, not {n} (Rapid Attack)", most=most, n=rapid)
                            if kind == "melee" else
                            say("Rapid Attack: 1 to {most} shots, not {n} (Rapid Attack)", most=most, n=rapid))
        if int(w["rof"]) > 1 or area:
            raise RuleError(say("Rapid Attack: a weapon of RoF 1 only, not {weapon} (Rapid Attack)", weapon=wname))
        mods.append(Modifier(say("Rapid Attack ({n} attacks)", n=rapid) if kind == "melee" else
                             say("Rapid Attack ({n} shots)", n=rapid), RAPID_ATTACK, "Rapid Attack"))
    return {"modifiers": mods, "damage_modifiers": dmg, "rapid": rapid, "vulnerable": wild}


def target_toughness(tsheet: dict, obj: str | None) -> dict:
    if obj:
        key = str(obj).lower()
        if key not in OBJECT_TOUGHNESS:
            try:
                value = int(obj)
            except ValueError:
                raise RuleError(say("unknown object {value}; known: {known}", value=repr(obj),
                                    known=", ".join(OBJECT_TOUGHNESS))) from None
        else:
            value = OBJECT_TOUGHNESS[key]
        return {"base": value, "armor": 0, "object": key}
    d = derived_values(tsheet)
    return {"base": d["toughness_base"], "armor": d["armor"], "object": None}


def damage_needs(expr: str, toughness: int, added: int = 0, name: str | None = None) -> str:
    """What a damage roll is asked for (the table's dice, #59): its dice, what is added to them and the Toughness
    the total meets (#70). The Toughness is the table's to know: the attack's line says it as the damage lands
    ("9 damage vs Toughness 7"), and a foe's whole ask is the GM's alone (``table_dice.pending_view``)."""
    line = (say("roll {dice} for damage to {name} (the dice ace) vs Toughness {toughness}", dice=expr, name=name,
                toughness=toughness) if name else
            say("roll {dice} for damage (the dice ace) vs Toughness {toughness}", dice=expr, toughness=toughness))
    return say("{line}; {flat} is added", line=line, flat=f"{added:+d}") if added else line


def effective_toughness(tough: dict, ap: int) -> tuple[int, list[Modifier]]:
    pierced = min(ap, tough["armor"])
    notes = [Modifier(say("AP {ap} against armour {armor}", ap=ap, armor=tough["armor"]), -pierced, "Damage Resolution")] if pierced else []
    return tough["base"] + tough["armor"] - pierced, notes


def attack(request: AttackRequest, dice: DiceSource) -> AttackResult:
    """Resolve an attack: the trait roll(s), the damage of each hit, and
    what it does to the target. Options: ``actions``, ``running``,
    ``rof``, ``aim``, ``joker``, ``two_weapons``, ``nonlethal``,
    ``both_barrels``, ``mounted``, ``charge``, ``object`` (Object
    Toughness), ``modifiers`` ([label, value] from the GM), ``template``
    (area templates are resolved by ``templates.area_attack``)."""
    plan = plan_of(request)
    rolls: list[RollRecord] = []
    mods = trait_die_modifiers(parse_die(plan["die"]), skill_words(plan["skill"])) + plan["modifiers"]
    # the trait dice and the Wild Die are rolled together: one roll the attacker makes at the table (#59)
    sides = parse_die(plan["die"]).sides
    needs = trait_needs(plan["tn"], int(sum(m.value for m in mods)), plan["wild"], sides, plan["rof"])
    # the chance to hit at least once, as the attack card's odds give it (#59)
    chance = trait_chance(sides, plan["wild"], int(sum(m.value for m in mods)), plan["tn"], plan["rof"])
    # RoF: one trait die per shot, one Wild Die that may replace the worst
    trait_rolls, wild = trait_dice(
        dice, sides, [say("{skill} die {n}", skill=skill_words(plan["skill"]), n=i + 1) if plan["rof"] > 1
                      else say("{skill} die", skill=skill_words(plan["skill"])) for i in range(plan["rof"])],
        plan["wild"], purpose=skill_words(plan["skill"]), roller=request.attacker.id, needs=needs, chance=chance)
    rolls += trait_rolls + ([wild] if wild else [])
    kept = [r.total for r in trait_rolls]
    replaced = None
    if wild is not None:
        worst = min(range(len(kept)), key=lambda i: kept[i])
        if wild.total > kept[worst]:
            kept[worst] = wild.total
            replaced = worst
    ones = sum(1 for r in trait_rolls if r.first_faces[0] == 1)
    critical = wild is not None and wild.first_faces[0] == 1 and 2 * ones >= len(trait_rolls)
    modsum = int(sum(m.value for m in mods))  # its luck, on the first trait die's record: hit at least once (#59)
    trait_rolls[0].settle(not critical and any(trait_result(k + modsum, plan["tn"])[0] for k in kept))
    return resolve(request, plan, trait_rolls, kept, replaced, critical, wild, dice, rolls, mods)


def resolve(request: AttackRequest, plan: dict, trait_rolls: list, kept: list[int], replaced: int | None,
            critical: bool, wild, dice: DiceSource, rolls: list, mods: list[Modifier]) -> AttackResult:
    """The rolled trait dice (``kept``: each die's total, the Wild Die's where it replaced one) against
    the target: each shot's hit and raises, the damage of each hit, random targets on a miss, and what
    it does to the target. ``rolls`` (the dice already rolled) gets the damage rolls."""
    a, t = request.attacker, request.target
    modsum = int(sum(m.value for m in mods))
    shots = []
    for i, k in enumerate(kept):
        total = k + modsum
        ok, raises = trait_result(total, plan["tn"])
        if critical:
            ok, raises = False, 0
        shots.append({"total": total, "hit": ok, "raises": raises, "wild_die": i == replaced})
    hits = [s for s in shots if s["hit"]]

    effects: list[Effect] = []
    tsheet = request.target.sheet or {}
    state = TargetState(bool(tsheet.get("shaken")), int(tsheet.get("wounds", 0) or 0),
                         bool(tsheet.get("wild_card", True)))
    toughness, t_notes = effective_toughness(plan["toughness"], plan["ap"])
    dmg_mod = int(sum(m.value for m in plan["damage_modifiers"]))
    damages = []
    for n, s in enumerate(hits):
        droll = dice.roll(plan["damage_expr"], say("damage") if len(hits) == 1 else say("damage (hit {n})", n=n + 1),
                          roller=a.id, needs=damage_needs(plan["damage_expr"], toughness, dmg_mod))
        rolls.append(droll)
        total = droll.total + dmg_mod
        bonus = None
        if s["raises"] and plan["raise_bonus"]:
            bonus = dice.roll("d6!", say("raise: bonus damage"), roller=a.id, needs=say("roll d6 more for the raise (it aces)"))
            rolls.append(bonus)
            total += bonus.total
        if plan["toughness"]["object"]:
            outcome = {"damage": total, "toughness": toughness, "broken": total >= toughness}
        else:
            outcome = state.take(total, toughness)
        damages.append({"roll": droll.total, "bonus": bonus.total if bonus else 0, **outcome})

    # random targets on a miss (the 1s rule)
    stray = []
    if plan["kind"] != "melee" and not plan["toughness"]["object"]:
        faces = plan["random_target_faces"]
        if plan["rof"] == 1 and plan["wild"] and not plan["weapon"]["shotgun"]:
            count = 1 if (not hits and trait_rolls[0].first_faces[0] == 1 and wild.first_faces[0] == 1) else 0
        else:
            count = sum(1 for r, s in zip(trait_rolls, shots) if not s["hit"] and r.first_faces[0] in faces)
        if count:
            stray = random_targets(request, plan, count, dice, rolls, effects)

    summary = summary_of(request, plan, shots, damages, critical, state)
    if plan["toughness"]["object"] is None:
        effects += state_effects(t.id, state, bool(request.options.get("nonlethal")), dice, rolls)
    elif any(d.get("broken") for d in damages):
        effects.append(Effect("object_broken", t.id, {"object": plan["toughness"]["object"]}))
    if plan["vulnerable_after"]:
        effects.append(Effect("vulnerable", a.id, {"reason": plan["vulnerable_why"]}))
    return AttackResult(
        hit=bool(hits),
        summary=summary,
        rolls=rolls,
        modifiers=mods + on_damage(plan["damage_modifiers"]) + t_notes,
        effects=effects,
        details={
            "kind": plan["kind"], "skill": plan["skill"], "die": plan["die"], "tn": plan["tn"],
            "tn_label": plan["tn_label"], "band": plan["band"], "shots": shots, "critical_failure": critical,
            "damage": damages, "toughness": toughness, "damage_expr": plan["damage_expr"],
            "target": t.id, "attacker": a.id, "stray_hits": stray,
            "free_attack": bool(request.options.get("free_attack")),
        },
    )


def random_targets(request, plan, count, dice, rolls, effects) -> list[dict]:
    """Random Targets: each qualifying die of a missed shot hits a random
    token adjacent to the intended target; damage is rolled without raise."""
    t = request.target
    candidates = [o for o in request.others if o.id not in (request.attacker.id, t.id) and active(o)
                  and adjacent(o.position, t.position)]
    out = []
    for _ in range(count):
        if not candidates:
            out.append({"target": None, "note": say("no token next to the target")})
            continue
        # the attacker's dice pick the token and roll its damage (the table's own, #59)
        by = request.attacker.id
        pick = dice.roll(f"d{len(candidates)}", say("random target"), roller=by, needs=say(
            "roll a d{n}: it picks who is hit instead, {names}", n=len(candidates),
            names=joined([f"{i + 1}: {o.name}" for i, o in enumerate(candidates)], ", "))
        ) if len(candidates) > 1 else None
        if pick:
            rolls.append(pick)
        victim = candidates[(pick.total - 1) if pick else 0]
        vs = victim.sheet or {}
        tough, _ = effective_toughness(target_toughness(vs, None), plan["ap"])
        added = int(sum(m.value for m in plan["damage_modifiers"]))
        droll = dice.roll(plan["damage_expr"], say("damage to {name} (random target)", name=victim.name), roller=by,
                          needs=damage_needs(plan["damage_expr"], tough, added, victim.name))
        rolls.append(droll)
        st = TargetState(bool(vs.get("shaken")), int(vs.get("wounds", 0) or 0), bool(vs.get("wild_card", True)))
        dmg = droll.total + added
        res = st.take(dmg, tough)
        out.append({"target": victim.id, **res})
        effects += state_effects(victim.id, st, bool(request.options.get("nonlethal")), dice, rolls)
    return out


def summary_of(request, plan, shots, damages, critical, state) -> str:
    a, t = request.attacker.name, request.target.name
    if critical:
        return say("{attacker}: critical failure ({skill} vs {tn})", attacker=a, skill=skill_words(plan["skill"]),
                   tn=plan["tn_label"])
    hits = [s for s in shots if s["hit"]]
    if not hits:
        best = max(s["total"] for s in shots)
        return say("{attacker} misses {target} ({total} vs {tn})", attacker=a, target=t, total=best, tn=plan["tn_label"])
    parts = []
    for s, d in zip(hits, damages):
        hit = say_n("hit with {n} raise", "hit with {n} raises", s["raises"]) if s["raises"] else say("hit")
        if "broken" in d:
            parts.append(say("{hit}: {damage} damage vs Toughness {toughness} (broken)", hit=hit, damage=d["damage"],
                             toughness=d["toughness"]) if d["broken"] else
                         say("{hit}: {damage} damage vs Toughness {toughness} (holds)", hit=hit, damage=d["damage"],
                             toughness=d["toughness"]))
        else:
            what = (say_n("{n} Wound", "{n} Wounds", d["wounds"]) if d["wounds"]
                    else say("Shaken") if d["shaken"] and d["damage"] >= d["toughness"] else say("no effect"))
            parts.append(say("{hit}: {damage} damage vs Toughness {toughness}, {what}", hit=hit, damage=d["damage"],
                             toughness=d["toughness"], what=what))
    if state.incapacitated:
        return say("{attacker} hits {target}: {parts} - Incapacitated", attacker=a, target=t, parts=joined(parts))
    return say("{attacker} hits {target}: {parts}", attacker=a, target=t, parts=joined(parts))

# -- area effects ----------------------------------------------------------
