"""The attack pipeline of *Atomic Tomorrow Combat*, from the attack roll to the wounds taken.

Sections "ATTACK SEQUENCE", "DEFENSE OPTION", "OPPOSED RESOLUTION",
"WEAPON DAMAGE", "WOUND DETERMINATION", "COVER PROTECTION", "ARMOR
PROTECTION" and "DAMAGE SOAKING", in that order; and the area weapons of
the core facts (a grenade launcher hits everyone in the target zone).

The attacker's and target's per-combatant state (``Combatant.state``: the
round record, a Last Stand, a GRIT x 1 check already made) is read from
the request; the changes come back as effects of kind ``round``,
``last_stand`` and ``act_check`` (``turns.record_attack`` stores them).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..dice import DiceSource, RollRecord
from ..system import AttackRequest, AttackResult, Combatant, Effect, Modifier, RuleError
from .checks import (
    as_modifier,
    ends_in_0_or_5,
    is_doubles,
    is_success,
    opposed_winner,
    quality_label,
    roll_d100,
    situational_modifier,
    success_quality,
    tens_digit,
)
from .cover import cover_reduction, resolve_cover
from .data import (
    ARMOUR_GRADE_WORDS,
    COVER_LEVELS,
    COVER_WORDS,
    DEFENSE_WORDS,
    DEFENSES,
    SKILL_WORDS,
    weapon_words,
    MAX_WOUNDS,
    QUALITY_LABELS,
    WOUND_STATE_WORDS,
    RANGES,
    SPECIAL_BONUS,
    SUCCESSES,
    check_wound_rating,
    settings_with_defaults,
)
from .defense import defense_skill
from .economy import pending_check, round_state
from .health import armour_reduction, grit_needs, incapacitated_check, soak_reduction, wound_state, wounds_of, wounds_taken
from .ranges import check_weapon_range, weapon_band
from .sheet import find_weapon, with_defaults
from ..text import say, say_n


def critical_bonus(roll: int) -> int:
    """Section "WOUND DETERMINATION": a critical adds half the tens digit, rounded down.

    22 adds 1, 55 adds 2, 88 adds 4 (and 11 adds nothing). This is the
    critical bonus alone; :func:`attack_wounds` adds the special bonus too.
    """
    return tens_digit(roll) // 2 if is_doubles(roll) else 0


def attack_wounds(
    wound_rating: int,
    roll: int,
    skill: int,
    cover: str = "none",
    *,
    critical_special_stacks: bool = True,
) -> int:
    """Wounds an attack deals before armour and soak (0 when it fails).

    Sections "WEAPON DAMAGE", "WOUND DETERMINATION", "COVER PROTECTION".
    Cover reduces the Wound Rating (not below 0) before the quality bonuses
    are added: +1 for a roll ending in 0 or 5, half the tens digit for
    doubles. The two stack, so a 55 adds 3 (setting
    ``critical_special_stacks``; off, a 55 adds only its critical 2).
    """
    check_wound_rating(wound_rating)
    reduction = cover_reduction(cover)
    if not is_success(roll, skill):
        return 0
    wounds = max(0, wound_rating - reduction)
    if is_doubles(roll):
        wounds += critical_bonus(roll)
        if ends_in_0_or_5(roll) and critical_special_stacks:
            wounds += SPECIAL_BONUS
    elif ends_in_0_or_5(roll):
        wounds += SPECIAL_BONUS
    return wounds


#: the situational steps an attack card offers (core facts: steps of 20, +40 down to -80)
BONUS_STEPS = (0, 20, 40)
PENALTY_STEPS = (0, -20, -40, -60, -80)


def picked_situation(options: Mapping, prefix: str) -> list[Modifier]:
    """The situational bonus and penalty picked on the attack card (``bonus``, ``penalty``; for the
    defender ``defense_bonus``, ``defense_penalty``): core facts, steps of 20, only the largest applies."""
    out = []
    for key, steps, label in (("bonus", BONUS_STEPS, say("situation in the defender's favour") if prefix
                               else say("situation in the attacker's favour")),
                              ("penalty", PENALTY_STEPS, say("situation against the defender") if prefix
                               else say("situation against the attacker"))):
        value = options.get(prefix + key, 0)
        if isinstance(value, str) and value.lstrip("+-").isdigit():  # the attack card's choice: "-40"
            value = int(value)
        if isinstance(value, bool) or value not in steps:
            raise RuleError(say("{key}: one of {values}, not {value} (situational modifiers come in steps of 20)",
                                key=prefix + key, values=", ".join(f"{s:+d}" for s in steps), value=repr(value)))
        if value:
            out.append(Modifier(label, value, "core facts: situational modifiers"))
    return out


def prepare(request: AttackRequest) -> dict:
    """Everything an attack is decided by that is known before any roll."""
    options = request.options or {}
    settings = settings_with_defaults(options.get("settings"))
    att = with_defaults(request.attacker.sheet)
    tgt = with_defaults(request.target.sheet)
    weapon = find_weapon(att, request.weapon, settings)
    kind = "melee" if weapon["skill"] in ("melee", "unarmed") else "ranged"
    if options.get("range", "auto") != "auto":
        band = str(options["range"]).lower()
        if band not in RANGES:
            raise RuleError(say("range band is one of {bands}, not {value}", bands=", ".join(RANGES), value=repr(options["range"])))
    else:
        engaged = options.get("engaged")
        band = weapon_band(int(request.distance or 0), weapon, None if engaged is None else bool(engaged))
    check_weapon_range(weapon, band)
    cover = resolve_cover(request.cover, settings)
    if cover == "total":
        raise RuleError(say("no line of fire reaches the target"))

    rnd = round_state(request.attacker.state.get("round"))
    if rnd["significant"]:
        raise RuleError(say("{name} has already taken this round's significant action", name=request.attacker.name))

    state = wound_state(wounds_of(att))
    if state == "dying":
        stand = request.attacker.state.get("last_stand") or {}
        if not stand.get("may_act") or stand.get("used"):
            raise RuleError(say("{name} is dying: a Last Stand success is needed to act", name=request.attacker.name))

    given = options.get("modifiers") or []
    if not isinstance(given, list):
        raise RuleError(say("{key}: a list of modifiers (steps of 20 from +40 to -80)", key="modifiers"))
    mods = [as_modifier(m) for m in given] + picked_situation(options, "")
    if band == "distant" and settings["distant_penalty"]:
        mods.append(Modifier(say("Distant: a difficult shot"), settings["distant_penalty"],
                             "POSITIONING (setting distant_penalty)"))
    defense = str(options.get("defense") or "none").lower()
    if defense not in DEFENSES:
        raise RuleError(say("a defense is one of {defenses}, not {value}", defenses=", ".join(DEFENSES), value=repr(defense)))
    d_skill = d_mods = d_round = None
    if defense != "none":
        d_skill, d_mods, d_round = defense_skill(tgt, defense, kind, request.target.state.get("round"))
        d_sit, d_chosen = situational_modifier([*(options.get("defense_modifiers") or []),
                                                *picked_situation(options, "defense_")], settings["modifier_rule"])
        d_skill += d_sit
        d_mods = [*d_mods, *d_chosen]
    skill_base = int(att[weapon["skill"]])
    return {
        "settings": settings,
        "attacker": att,
        "target": tgt,
        "weapon": weapon,
        "kind": kind,
        "band": band,
        "cover": cover,
        "round": rnd,
        "wound_state": state,
        "situational": mods,
        "defense": defense,
        "defense_skill": d_skill,
        "defense_modifiers": d_mods or [],
        "defense_round": d_round,
        "skill_base": skill_base,
        "armour": armour_reduction(tgt.get("armour", "none"), weapon["armour_piercing"]),
    }


def attack_skill(prep: dict, wound_penalty: int) -> tuple[int, list[Modifier]]:
    """The attack skill after the single largest situational modifier (the wounded-action penalty is one),
    and the modifiers that made it: the skill itself is the base (``skill_line``), not a modifier (#33: the
    card listed "Ranged +46")."""
    mods = list(prep["situational"])
    if wound_penalty:
        mods.append(Modifier(say("acting while wounded"), wound_penalty, "INCAPACITATION / LAST STAND"))
    total, chosen = situational_modifier(mods, prep["settings"]["modifier_rule"])
    return prep["skill_base"] + total, list(chosen)


def skill_line(prep: dict, skill: int) -> str:
    """The attack's skill in words: "Ranged 46%", and what the modifiers make of it."""
    name = SKILL_WORDS.get(prep["weapon"]["skill"], prep["weapon"]["skill"].capitalize())
    base = prep["skill_base"]
    if skill != base:
        return say("{skill} {base}%, {total}% with the modifiers", skill=name, base=base, total=skill)
    return say("{skill} {base}%", skill=name, base=base)


def attack(request: AttackRequest, dice: DiceSource) -> AttackResult:
    """Sections "ATTACK SEQUENCE" to "ARMOR PROTECTION", in order.

    Rolls, in this order: the GRIT x 1 check when the attacker has 4
    wounds, the attack, the defense (when ``options["defense"]`` is
    parry, block or dodge and the attack succeeded), the soak (when any
    wound gets past armour). Options: ``engaged`` or ``range``,
    ``defense``, ``modifiers`` and ``defense_modifiers`` (situational,
    steps of 20), ``settings`` (the game's settings).
    """
    return resolve(request, dice, prepare(request), None)


def attack_zone(request: AttackRequest, targets: list[Combatant], dice: DiceSource,
                defenses: Mapping[str, str] | None = None) -> list[AttackResult]:
    """An area weapon (a grenade launcher) hits everyone in the target zone.

    Core facts. One attack roll for the zone; each target defends
    (``defenses`` by token id) and soaks on its own.
    """
    if not targets:
        raise RuleError(say("nobody stands in the target zone"))
    first = prepare(AttackRequest(**{**request.__dict__, "target": targets[0]}))
    if not first["weapon"]["area"]:
        raise RuleError(say("{weapon} is not an area weapon", weapon=weapon_words(first["weapon"])))
    shared: dict = {}
    results = []
    for t in targets:
        opts = {**request.options, "defense": (defenses or {}).get(t.id, "none")}
        req = AttackRequest(**{**request.__dict__, "target": t, "options": opts})
        result = resolve(req, dice, prepare(req), shared)
        results.append(result)
        if "attack" not in shared:  # the attacker could not act at all
            break
    return results


def resolve(request: AttackRequest, dice: DiceSource, prep: dict, shared: dict | None) -> AttackResult:
    """Roll and read one attack on one target; ``shared`` carries an area weapon's one roll across targets."""
    att_c, tgt_c = request.attacker, request.target
    settings = prep["settings"]
    rolls: list[RollRecord] = []
    effects: list[Effect] = []
    details: dict = {"range": prep["band"], "cover": prep["cover"], "weapon": prep["weapon"]["name"],
                     "defense": prep["defense"]}
    new_round_state = dict(prep["round"], significant=True)
    first = shared is None or "attack" not in shared

    # Acting at 4 wounds needs the GRIT x 1 check; at 5 the Last Stand already granted it.
    penalty = 0
    pending = pending_check(att_c.state, "significant")
    if first and prep["wound_state"] == "incapacitated" and pending:
        details["act_check"] = pending
        effects.append(Effect("act_check", att_c.id, {"act_check": {**pending, "used": True}}))
        penalty = int(pending["penalty"])
    elif first and prep["wound_state"] == "incapacitated":
        rec = roll_d100(dice, say("{name}: GRIT x1 to act while incapacitated", name=att_c.name), roller=att_c.id,
                        needs=grit_needs(int(prep["attacker"]["grit"])), skill=int(prep["attacker"]["grit"]))
        rolls.append(rec)
        check = incapacitated_check(rec.total, int(prep["attacker"]["grit"]), settings["wounded_action_penalty"])
        details["act_check"] = check
        if not check["may_act"]:
            effects.append(Effect("round", att_c.id, {"round": new_round_state}))
            summary = say("{name} is incapacitated and fails the GRIT check ({total} vs {target})", name=att_c.name,
                          total=rec.total, target=check["target"])
            return AttackResult(False, summary, rolls, [], effects, details)
        penalty = check["penalty"]
    elif prep["wound_state"] == "dying":
        stand = att_c.state.get("last_stand") or {}
        penalty = int(stand.get("penalty", 0))
        if first:
            effects.append(Effect("last_stand", att_c.id, {"last_stand": {**stand, "used": True}}))

    if first:
        skill, mods = attack_skill(prep, penalty)
        rec = roll_d100(dice, say("{name}: attack ({skill} {percent}%)", name=att_c.name, percent=skill,
                                  skill=SKILL_WORDS.get(prep["weapon"]["skill"], prep["weapon"]["skill"].capitalize())),
                        roller=att_c.id, skill=skill,
                        needs=say("roll d100, {skill} or less hits; doubles are criticals, a 0 or 5 special", skill=skill))
        rolls.append(rec)
        effects.append(Effect("round", att_c.id, {"round": new_round_state}))
        if shared is not None:
            shared["attack"] = (rec, skill, mods, penalty)
    else:
        rec, skill, mods, penalty = shared["attack"]
        details["shared_attack_roll"] = True
    roll = rec.total
    quality = success_quality(roll, skill)
    details.update(attack_roll=roll, attack_skill=skill, attack_quality=quality)
    head = say("{attacker} attacks {target} with {weapon} ({skill}%): {roll}, {quality}", attacker=att_c.name,
               target=tgt_c.name, weapon=weapon_words(prep["weapon"]), skill=skill, roll=roll, quality=QUALITY_LABELS[quality])
    if quality not in SUCCESSES:
        return AttackResult(False, say("{head}; no effect", head=head), rolls, mods, effects, details)

    all_mods = list(mods)
    if prep["defense"] != "none":
        d_skill = prep["defense_skill"]
        d_rec = roll_d100(dice, say("{name}: {defense} ({percent}%)", name=tgt_c.name, percent=d_skill,
                                    defense=DEFENSE_WORDS.get(prep["defense"], prep["defense"])), roller=tgt_c.id, skill=d_skill,
                          needs=say("roll d100, {skill} or less defends; the better success wins, then the higher roll",
                                    skill=d_skill))
        rolls.append(d_rec)
        effects.append(Effect("round", tgt_c.id, {"round": prep["defense_round"]}))
        all_mods += [Modifier(say("defense: {modifier}", modifier=m.label), m.value, m.source) for m in prep["defense_modifiers"]]
        winner = opposed_winner(roll, skill, d_rec.total, d_skill)
        details.update(defense_roll=d_rec.total, defense_skill=d_skill,
                       defense_quality=success_quality(d_rec.total, d_skill), winner=winner)
        head = say("{head}; {defense} ({skill}%): {roll}, {quality}", head=head, defense=prep["defense"], skill=d_skill,
                   roll=d_rec.total, quality=quality_label(d_rec.total, d_skill))
        if winner == "defender":
            return AttackResult(False, say("{head}; {name} defends", head=head, name=tgt_c.name), rolls, all_mods,
                                effects, details)

    wr = prep["weapon"]["wound_rating"]
    dealt = attack_wounds(wr, roll, skill, prep["cover"],
                          critical_special_stacks=settings["critical_special_stacks"])
    all_mods.append(Modifier(say("Wound Rating"), wr, "WEAPON DAMAGE"))
    if COVER_LEVELS[prep["cover"]]:
        all_mods.append(Modifier(say("{level} cover", level=COVER_WORDS.get(prep["cover"], prep["cover"])), -COVER_LEVELS[prep["cover"]], "COVER PROTECTION"))
    if is_doubles(roll):
        all_mods.append(
            Modifier(say("critical {roll}: half the tens digit", roll=roll), critical_bonus(roll), "WOUND DETERMINATION")
        )
    if ends_in_0_or_5(roll) and (not is_doubles(roll) or settings["critical_special_stacks"]):
        all_mods.append(Modifier(say("special: +1"), SPECIAL_BONUS, "WOUND DETERMINATION"))
    armour = prep["armour"]
    if quality == "critical" and settings["critical_ignores_armour"]:
        armour = 0
        details["armour_ignored"] = True
    if armour:
        all_mods.append(Modifier(say("{armour} armour", armour=ARMOUR_GRADE_WORDS.get(prep["target"].get("armour"), prep["target"].get("armour"))), -armour, "ARMOR PROTECTION"))
    after_armour = max(0, dealt - armour)
    soak = 0
    if after_armour:
        grit = int(prep["target"]["grit"])
        s_rec = roll_d100(dice, say("{name}: soak (GRIT x5 {percent}%)", name=tgt_c.name, percent=grit * 5),
                          roller=tgt_c.id, skill=grit * 5,
                          needs=say("roll d100, {target} or less (GRIT x5) soaks a wound; a double soaks 3, a 0 or 5 "
                                    "soaks 2", target=grit * 5))
        rolls.append(s_rec)
        soak = soak_reduction(s_rec.total, grit)
        details.update(soak_roll=s_rec.total, soak_quality=success_quality(s_rec.total, grit * 5))
        if soak:
            all_mods.append(Modifier(say("soak"), -soak, "DAMAGE SOAKING"))
    taken = wounds_taken(dealt, armour, soak)
    before = min(max(int(prep["target"].get("wounds", 0)), 0), MAX_WOUNDS)
    after = min(MAX_WOUNDS, before + taken)
    details.update(wounds_dealt=dealt, armour=armour, soak=soak, wounds_taken=taken,
                   wounds_before=before, wounds_after=after, wound_state=wound_state(after))
    state = wound_state(after)
    if state == "fighting":
        says = (say_n("{n} wound ({after} in all)", "{n} wounds ({after} in all)", taken, after=after) if taken else
                say("no wound ({after} so far)", after=after))
    else:
        says = (say_n("{n} wound ({after} in all: {state})", "{n} wounds ({after} in all: {state})", taken, after=after,
                      state=WOUND_STATE_WORDS[state]) if taken else
                say("no wound ({after} so far: {state})", after=after, state=WOUND_STATE_WORDS[state]))
    effects.append(Effect("wounds", tgt_c.id, {"wounds": taken, "total": after, "state": state, "says": says}))
    summary = say("{head}; hit: {dealt}, {armour} armour, {soak} soaked: {taken}", head=head,
                  dealt=say_n("{n} wound dealt", "{n} wounds dealt", dealt), armour=armour, soak=soak, taken=says)
    return AttackResult(True, summary, rolls, all_mods, effects, details)
