"""The attack pipeline of Tesseris: range bands, the attack's modifiers, the
to-hit roll, the defense, bullets, jams, damage and the cover it hits
(*Tesseris Combat*, "Attacking", "Rate of Fire (RoF)", "Ranged Weapons and
Multiple Shots in a Round", "Weapon Jams", "Defending", "Armor", "Armor
Penetration", "Bulk", "Damage, Stamina, and Wounds", "Common Physical Combat
Modifiers", "Destroying Cover", "Swordpoint & Gunpoint").

``plan_attack`` works out every pool and modifier without rolling (the
odds use it too); ``resolve_attack`` rolls the plan through the dice source.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import los
from ..dice import DiceSource, RollRecord
from ..grid import cell_steps, grid_of
from ..system import AttackRequest, AttackResult, Combatant, Effect, Modifier, RuleError, RuleNotImplemented
from . import cover as cover_mod
from .checks import (dt_needs, mean_successes, pool_roller, quick_recover_roll, roll_defense_pool, successes_to,
                     wound_penalty)
from .data import (
    ACTIONS,
    FEAT_WORDS,
    LOCATION_WORDS,
    rank_words,
    status_words,
    BULLET_STEP,
    CLOAK_LOCATIONS,
    CRITICAL_SUCCESSES,
    DEFAULT_SETTINGS,
    DEFENSES,
    FIRE_MODE_SLOT,
    RANGE_BAND_LABELS,
    RANGE_BAND_LABELS_HEX,
    RANGE_BAND_MODIFIERS,
    Action,
)
from .health import damage_split, resolve_test
from .movement import grant, grid_distance
from .sheet import UNARMED, bulk, char, max_stamina, max_wounds, num, skill, stamina, weapon as sheet_weapon, weapon_list
from .status import escalate, names as status_names, status_modifiers
from .picks import check_location, default_action, split_defense
from .ticks import can_react, refusal, spend, state_of
from ..text import joined, say, say_n, whole


def range_band_name(distance: int, weapon_range: int) -> str | None:
    """The range band of a shot (*Tesseris Combat*, "Common Physical Combat Modifiers", Range rows).

    Beyond the listed range the Long/Far/Extreme bands apply even within 4
    squares (a short-ranged weapon is no better there); within the listed
    range, 2 squares or less is Point Blank and 4 or less Short; the rest
    (including the unnamed band between 4 squares and half the listed
    range) is Medium. None beyond three times the listed range.
    """
    if distance < 0:
        raise ValueError("distance cannot be negative")
    if weapon_range <= 0:
        raise ValueError("a ranged weapon needs a listed range of 1 or more")
    if distance > weapon_range:
        if 2 * distance <= 3 * weapon_range:
            return "long"
        if distance <= 2 * weapon_range:
            return "far"
        if distance <= 3 * weapon_range:
            return "extreme"
        return None
    if distance <= 2:
        return "point_blank"
    if distance <= 4:
        return "short"
    return "medium"


def range_modifier(distance: int, weapon_range: int, gap_modifier: int = 0) -> int | None:
    """Attack modifier of the range bands (*Tesseris Combat*, "Common Physical Combat Modifiers", Range rows).

    +2 point blank (<= 2), +1 short (<= 4), +0 medium (<= listed range),
    -1 long (<= 1.5x), -2 far (<= 2x), -4 extreme (<= 3x), None beyond.
    ``gap_modifier`` is the reading for the unnamed band from 5 squares to
    half the listed range (default +0, as Medium).
    """
    band = range_band_name(distance, weapon_range)
    if band is None:
        return None
    if band == "medium" and 4 < distance <= weapon_range / 2:
        return gap_modifier
    return RANGE_BAND_MODIFIERS[band]


def bullet_totals(attack_total: int, bullets: int) -> list[int]:
    """Effective attack total of each bullet (*Tesseris Combat*, "Ranged Weapons and Multiple Shots in a Round")."""
    if bullets < 1:
        raise ValueError("a shot fires at least one bullet")
    return [attack_total - BULLET_STEP * i for i in range(bullets)]


def burst_hits(attack_successes: int, defense_successes: int, bullets: int) -> int:
    """Hits of a multi-bullet attack against one defense roll
    (*Tesseris Combat*, "Ranged Weapons and Multiple Shots in a Round").

    ``attack_successes`` already includes the fire mode's own penalty;
    each bullet after the first is 2 lower, cumulative, and hits when it
    beats the defense by at least one (ties go to the defender).
    """
    return sum(1 for t in bullet_totals(attack_successes, bullets) if t - defense_successes >= 1)


def hit_nets_of(action: Action, nets: list[int]) -> list[int]:
    """The net successes of each hit: every bullet that beats the defense by one or more
    ("Ranged Weapons and Multiple Shots in a Round"); a Pummel that hits strikes once more
    per 2 net successes past the first ("Pummel")."""
    if action.key == "pummel" and nets and nets[0] >= 1:
        return [nets[0]] * (1 + (nets[0] - 1) // action.extra["extra_hits_every"])
    return [n for n in nets if n >= 1]


def rof_bullets(weapon: dict, fire_mode: str) -> int:
    """Bullets a fire mode spends, and so the most hits it can make (*Tesseris Combat*,
    "Rate of Fire (RoF)": the rates are listed single/burst/auto, "the number listed
    in each rate denotes the number of bullets ... expended in that fire mode"; the
    first is the single shot, "most weapons typically only fire 1 round in this
    mode"). A weapon without a listed rate fires one bullet a single shot."""
    rof = weapon.get("rof") or [1]
    slot = FIRE_MODE_SLOT[fire_mode]
    if len(rof) <= slot or num(rof[slot]) <= 0:
        name = weapon.get("name")
        raise RuleError(say("{weapon} has no burst fire mode", weapon=name) if fire_mode == "burst" else
                        say("{weapon} has no auto fire mode", weapon=name) if fire_mode == "auto" else
                        say("{weapon} has no single fire mode", weapon=name))
    return num(rof[slot])


def settings_of(request_or_settings=None) -> dict:
    if isinstance(request_or_settings, AttackRequest):
        given = (request_or_settings.options or {}).get("settings") or {}
    else:
        given = request_or_settings or {}
    return {**DEFAULT_SETTINGS, **given}


def _mod(label: str, value: int, source: str) -> Modifier:
    return Modifier(label, value, source)


def _pos(c: Combatant):
    p = c.position
    if isinstance(p, tuple) and len(p) == 2:
        return p  # a rules.grid.Place keeps its grid
    return tuple(p) if isinstance(p, list) and len(p) == 2 else None


def _adjacent(a, b) -> bool:
    return a is not None and b is not None and cell_steps(a, b) == 1


def is_firearm(weapon: dict) -> bool:
    if "firearm" in weapon:
        return bool(weapon["firearm"])
    return bool(weapon.get("jams", False))


def outnumbers(attacker: Combatant, target: Combatant, others: list[Combatant]) -> bool:
    """"Outnumber Opponent": the attacker and allies next to the target outnumber the
    target and its allies next to the attacker by at least one."""
    a, t = _pos(attacker), _pos(target)
    if a is None or t is None:
        return False
    friends = 1 + sum(1 for o in others if o.side == attacker.side and o.id != attacker.id and _adjacent(_pos(o), t))
    foes = 1 + sum(1 for o in others if o.side == target.side and o.id != target.id and _adjacent(_pos(o), a))
    return friends >= 2 and friends - foes >= 1


def melee_partners(target: Combatant, attacker: Combatant, others: list[Combatant]) -> list[str]:
    """Other characters in melee with the target ("Firing into Melee"): foes of the
    target next to it, not the shooter."""
    t = _pos(target)
    return sorted(o.id for o in others if o.id not in (attacker.id, target.id) and o.side != target.side and _adjacent(_pos(o), t))


@dataclass
class AttackPlan:
    action: Action
    weapon: dict
    mode: str
    attack_pool: int
    attack_mods: list[Modifier]
    bullets: int
    defense: str  # duck, dodge, block, parry, grapple_defense, none
    defense_pool: int = 0
    defense_rerolls: int = 0
    defense_mods: list[Modifier] = field(default_factory=list)
    cover_bonus: int = 0
    into_melee_penalty: int = 0
    cover_piece: str | None = None
    cover_material: str | None = None
    location: str = "torso"
    notes: list[str] = field(default_factory=list)
    reactions: list[str] = field(default_factory=list)  # Drop Prone / Take Cover taken before the defense
    defender_state: dict = field(default_factory=dict)  # the target's books with those reactions in them
    unaware: bool = False

    @property
    def attack_flat(self) -> int:
        return sum(m.value for m in self.attack_mods)

    @property
    def defense_flat(self) -> int:
        return sum(m.value for m in self.defense_mods)


def _defense_pool(sheet: dict, kind: str, mode: str, settings: dict) -> tuple[int, int, list[Modifier]]:
    """Pool, re-rolls and flat modifiers of one defense ("Defending", "Bulk")."""
    if kind == "melee_or_acrobatics":  # the opposed test of a Break Pin: Agility (dT) + the better rank
        best = max(("melee", "acrobatics"), key=lambda k: skill(sheet, k))
        return max(0, char(sheet, "agility")), 0, [_mod(rank_words(best), skill(sheet, best), "Break Pin")]
    if kind == "scrutiny":  # against a Distracting Shot: a Scrutiny test, Perception (dT) + Scrutiny
        return max(0, char(sheet, "perception")), 0, [_mod(rank_words("scrutiny"), skill(sheet, "scrutiny"), "Distracting Shot")]
    if kind == "athletics":  # resisting a Trip or a Disarm: an Athletics test, Strength (dT) + Athletics
        return max(0, char(sheet, "strength")), 0, [_mod(rank_words("athletics"), skill(sheet, "athletics"), "Trip")]
    if kind == "grapple_defense":
        melee = char(sheet, "agility") + skill(sheet, "melee")
        ath = char(sheet, "strength") + skill(sheet, "athletics")
        if melee >= ath:
            return char(sheet, "agility"), 0, [_mod(rank_words("melee"), skill(sheet, "melee"), "Grapple Defense")]
        return char(sheet, "strength"), 0, [_mod(rank_words("athletics"), skill(sheet, "athletics"), "Grapple Defense")]
    spec = DEFENSES[kind]
    pool = sum(max(0, char(sheet, c)) for c in spec["pools"])
    mods = []
    if spec["skill"]:
        mods.append(_mod(rank_words(spec["skill"]), skill(sheet, spec["skill"]), "Defending"))
    b = bulk(sheet)
    if b and (settings["bulk_applies_to"] == "all" or kind in ("duck", "dodge")):
        mods.append(_mod(say("Armour Bulk"), -b, "Bulk"))
    rerolls = max(0, char(sheet, spec["reroll"])) if spec["reroll"] else 0
    return pool, rerolls, mods


def across_cover(request: AttackRequest, settings: dict) -> bool:
    """Whether the target is on the far side of the cover the hunkered-down attacker is
    behind (*Tesseris Combat*, "Hunker Down": no offensive actions against "those
    opponents" on the opposite side of the cover; opponents on the same side are not
    shielded from). ``options["across_cover"]`` says so outright; otherwise, with a
    board, the attacker counts as across the cover from the target when the target
    would see the attacker in cover (the cover fraction from the target's side,
    ``cover_min_fraction``). Without either it is assumed, as hunkering is done
    against the foes one hides from.
    """
    given = (request.options or {}).get("across_cover")
    if given is not None:
        return bool(given)
    a, t = _pos(request.attacker), _pos(request.target)
    if request.board is None or a is None or t is None:
        return True
    seen = los.cover(request.board, t, a)
    return cover_mod.cover_effect(seen, settings).level == "cover"


def plan_attack(request: AttackRequest, settings: dict | None = None) -> AttackPlan:
    """Every pool and modifier of an attack and its defense, before any roll."""
    settings = settings_of(settings if settings is not None else request)
    opts = request.options or {}
    att, tgt = request.attacker, request.target
    a_state, t_state = state_of(att), state_of(tgt)
    weapon = sheet_weapon(att.sheet, request.weapon)
    kind = weapon.get("kind", "melee")
    action_key = opts.get("action") or default_action(weapon, opts)
    action = ACTIONS.get(action_key)
    if action is None:
        raise RuleError(say("unknown action {value}", value=repr(action_key)))
    opts = own_options(opts, action_key)
    if not action.is_attack or not action.automated:
        if action.category in ("melee", "ranged", "attack_misc", "social"):
            raise RuleNotImplemented(say("Tesseris: {action} is not resolved by the app; the GM adjudicates it", action=action.name))
        raise RuleError(say("{action} is not an attack", action=action.name))
    if action_key == "break_pin":
        freed = opts.get("free") or att.id
        pinned = [c for c in (att, *request.others) if c.id == freed]
        if not pinned or "Pinned" not in status_names(pinned[0].sheet.get("statuses")):
            raise RuleError(say("Break Pin frees a Pinned character: yourself, or an ally in the same grapple"))
        if "Grappled" not in status_names(tgt.sheet.get("statuses")):
            raise RuleError(say("Break Pin is taken against the opponent in the grapple"))
    if action_key in ("pin", "choke_out") and not all("Grappled" in status_names(c.sheet.get("statuses")) for c in (att, tgt)):
        raise RuleError(say("{action} needs the attacker and the target grappled (Grapple first)", action=action.name))
    if action_key in ("grapple", "trip", "disarm", "pin", "choke_out", "break_pin"):  # a Melee test, no weapon's damage
        weapon = {"key": None, "name": action.name, "kind": "melee", "damage": 0, "skill": "melee", "reach": 1}
        kind = "melee"
    mode = action.mode
    if mode == "melee" and kind != "melee":
        said = dict(action=action.name, weapon=weapon.get("name"))
        raise RuleError(say("{action} needs a melee weapon; {weapon} is thrown", **said) if kind == "thrown" else
                        say("{action} needs a melee weapon; {weapon} is ranged", **said))
    if mode == "ranged" and kind not in ("ranged", "thrown"):
        raise RuleError(say("{action} needs a ranged or thrown weapon", action=action.name))
    if weapon.get("key") in (a_state.get("jammed") or []):
        raise RuleError(say("{weapon} is jammed: Clear Jam (2 ticks) first", weapon=weapon.get("name")))
    if not opts.get("secondary"):
        reason = refusal(a_state, action_key, reaction=action.ticks is None, statuses=att.sheet.get("statuses"))
        if reason:
            raise RuleError(reason)
    if "hunkered" in a_state["stances"] and across_cover(request, settings):
        raise RuleError(say("a hunkered-down character must Stand Up (1 tick) before attacking an opponent across the cover"))
    sec_melee, sec_ranged = "Melee Attack Actions", "Ranged Attack Actions"
    section = sec_melee if mode == "melee" else sec_ranged
    mods: list[Modifier] = []
    notes: list[str] = []

    # the skill and the pool ("Attacking")
    skill_name = weapon.get("skill") or ("melee" if mode == "melee" else "rifles")
    if mode == "melee":
        pool_char = "agility"
    else:
        pool_char = "perception"
    if action_key == "distracting_shot":
        skill_name = "melee"
    if action_key == "choke_out":  # "an opposed Athletics": Strength (dT) + Athletics, as Block's pool
        skill_name, pool_char = "athletics", "strength"
    if action_key == "break_pin":  # "an opposed Melee or Acrobatics test": Agility (dT) + the better rank
        skill_name = max(("melee", "acrobatics"), key=lambda k: skill(att.sheet, k))
    mods.append(_mod(rank_words(skill_name), skill(att.sheet, skill_name), "Attacking"))
    pool = max(0, char(att.sheet, pool_char))

    # the action's own modifier
    secondary = bool(opts.get("secondary"))
    if action.key in ("multi_strike", "multi_strike_ranged"):
        feats = " ".join(att.sheet.get("feats") or []).lower()
        if "multi-weapon fighting" not in feats:
            raise RuleError(say("{action} needs the {feat} feat", action=action.name,
                                feat=FEAT_WORDS.get(action.extra["feat"], action.extra["feat"])))
        mods.append(_mod(say("{action} (secondary)", action=action.name) if secondary else say("{action} (primary)", action=action.name), action.extra["secondary"] if secondary else action.attack, section))
    elif action.attack:
        value = action.attack
        talents = " ".join(att.sheet.get("talents") or []).lower()
        if action.extra.get("ambidextrous_ignores") and "ambidext" in talents:
            value = 0
            notes.append(say("Ambidextrous: no off-hand penalty"))
        if value:
            mods.append(_mod(action.name, value, section))
    if action.key == "pummel" and "Pinned" not in status_names(tgt.sheet.get("statuses")):
        raise RuleError(say("Pummel needs a pinned opponent"))
    if action.key == "grapple_strike":
        if "Grappled" not in status_names(att.sheet.get("statuses")):
            raise RuleError(say("Grapple Strike needs the attacker to be grappled"))
        if not (weapon.get("light") or weapon.get("name", "").lower() == "unarmed"):
            raise RuleError(say("only unarmed strikes and light weapons may be used while grappling"))
    if action.key == "charge":
        moved = num(opts.get("charge_distance"), -1)
        if moved >= 0 and moved < action.extra["min_move"]:
            raise RuleError(say("a Charge must move at least 2 hexes before the attack") if grid_of(_pos(att)).hex else
                            say("a Charge must move at least 2 squares before the attack"))
        if opts.get("unaware"):
            raise RuleError(say("no Charge against an unaware opponent (Attacking Unaware Opponent)"))


    # two weapons (not with a Multi-Strike, whose penalty replaces it)
    tw = opts.get("two_weapons")
    if tw in ("no", "", "none"):
        tw = None
    if tw and action.key not in ("multi_strike", "multi_strike_ranged"):
        value = -1 if tw == "primary" else -3
        if tw != "primary" and "ambidext" in " ".join(att.sheet.get("talents") or []).lower():
            value += 2
        mods.append(_mod(say("Wielding two weapons (primary)") if tw == "primary" else say("Wielding two weapons ({hand})", hand=tw), value, "Common Physical Combat Modifiers"))

    # distance and range
    distance = request.distance
    a_pos, t_pos = _pos(att), _pos(tgt)
    if (not distance) and a_pos is not None and t_pos is not None:
        distance = grid_distance(a_pos, t_pos)
    distance = int(round(distance or 0))
    hexes = grid_of(a_pos, t_pos).hex  # a hex map's distances are hexes, said so (#58)
    if mode == "melee":
        reach = num(weapon.get("reach"), 1) or 1
        if distance > reach:
            if weapon.get("key") is None:  # a maneuver: a Melee test at an adjacent opponent
                raise RuleError(say_n("{action}: the target is {n} hex away, not adjacent",
                                      "{action}: the target is {n} hexes away, not adjacent", distance, action=action.name)
                                if hexes else
                                say("{action}: the target is {distance} squares away, not adjacent", action=action.name, distance=distance))
            if hexes:
                raise RuleError(say_n("the target is {n} hex away; {weapon} reaches {reach}",
                                      "the target is {n} hexes away; {weapon} reaches {reach}", distance,
                                      weapon=weapon.get("name") or say("the weapon"), reach=reach))
            raise RuleError(say("the target is {distance} squares away; {weapon} reaches {reach}", distance=distance,
                                weapon=weapon["name"], reach=reach) if weapon.get("name") else
                            say("the target is {distance} squares away; the weapon reaches {reach}", distance=distance, reach=reach))
    else:
        wrange = num(weapon.get("range"))
        if wrange <= 0:
            raise RuleError(say("{weapon} has no listed range", weapon=weapon.get("name")))
        rmod = range_modifier(distance, wrange, num(settings["range_gap_modifier"]))
        if rmod is None:
            raise RuleError(say_n("the target is {n} hex away, beyond 3x the listed range ({most})",
                                  "the target is {n} hexes away, beyond 3x the listed range ({most})", distance, most=3 * wrange)
                            if hexes else
                            say("the target is {distance} squares away, beyond 3x the listed range ({most})", distance=distance,
                                most=3 * wrange))
        band = range_band_name(distance, wrange)
        if action.key == "spray_n_pray" and 2 * distance > wrange and hexes:
            raise RuleError(say("Spray 'n Pray reaches half the listed range ({half} hexes): {name} is {distance} away "
                                "(Ranged Attack Actions, 'Spray 'n Pray')", half=whole(wrange / 2),
                                name=tgt.name, distance=distance))
        if action.key == "spray_n_pray" and 2 * distance > wrange:
            raise RuleError(say("Spray 'n Pray reaches half the listed range ({half} squares): {name} is {distance} away "
                                "(Ranged Attack Actions, 'Spray 'n Pray')", half=whole(wrange / 2),
                                name=tgt.name, distance=distance))
        if opts.get("firing_blind"):
            mods.append(_mod(say("Firing blind"), -3, "Common Physical Combat Modifiers"))
            rmod = min(0, rmod)
        if rmod:
            mods.append(_mod(say("Range: {band}", band=(RANGE_BAND_LABELS_HEX if hexes else RANGE_BAND_LABELS)[band]), rmod, "Common Physical Combat Modifiers"))

    # fire mode and bullets ("Rate of Fire (RoF)")
    bullets = 1
    if mode == "ranged":
        bullets = rof_bullets(weapon, action.fire_mode)
        ammo = weapon.get("ammo")
        if ammo is not None and num(ammo) <= 0:
            raise RuleError(say("{weapon} is out of ammunition: reload", weapon=weapon.get("name")))
        if ammo is not None:
            bullets = min(bullets, num(ammo))

    common = "Common Physical Combat Modifiers"
    unaware = opts.get("unaware")
    if unaware is None:  # a surprised target is unaware of its foes until each one's first attack
        unaware = bool(t_state.get("surprised")) and att.id not in (t_state.get("unaware_spent") or [])
    if unaware:
        mods.append(_mod(say("Attacking an unaware opponent"), 2 if mode == "melee" else 1, common))
    if mode == "melee":
        out = opts.get("outnumber")
        if out is None:
            out = outnumbers(att, tgt, request.others or [])
        if out:
            mods.append(_mod(say("Outnumbering the opponent"), 1, common))
    if opts.get("higher_ground"):
        mods.append(_mod(say("Higher ground"), 1, common))
    if opts.get("mounted"):
        mods.append(_mod(say("Attacking from a mount"), 1 if mode == "melee" else -2, common))
    if mode == "ranged" and a_state.get("prone") and is_firearm(weapon):
        mods.append(_mod(say("Prone, bracing a firearm"), num(settings["prone_modifier"]), common))
    into_melee = 0
    if mode == "ranged":
        engaged = opts.get("into_melee")
        if engaged is None:
            engaged = bool(melee_partners(tgt, att, request.others or []))
        if engaged:
            into_melee = -2
            mods.append(_mod(say("Firing into melee"), -2, common))
    if a_state.get("guarded_round") and action.key != "guarded_attack":
        mods.append(_mod(say("Guarded Attack this round"), ACTIONS["guarded_attack"].attack, sec_melee))
    earlier = num(a_state.get("attacks"))
    if opts.get("secondary"):
        earlier = max(0, earlier - 1)  # the secondary weapon shares the Multi-Strike's roll
    if earlier > 0:
        mods.append(_mod(say("Attack action no. {n} this round", n=earlier + 1), -earlier, common))
    if "Grappled" in status_names(att.sheet.get("statuses")) and "Grappled" in status_names(tgt.sheet.get("statuses")):
        mods.append(_mod(say("Grappled, against a grappled opponent"), 1, "Physical Status Effects: Grappled"))
    mods += status_modifiers(att.sheet.get("statuses"), "melee_attack" if mode == "melee" else "ranged_attack")
    wp = wound_penalty(num(att.sheet.get("wounds")), stamina(att.sheet))
    if wp:
        mods.append(_mod(say("Wounds, out of Stamina"), wp, "Effects of Wounds"))
    if num(a_state.get("aim")):
        mods.append(_mod(say("Aim or Focus"), num(a_state["aim"]), "Miscellaneous Actions"))
    mayhem = num(opts.get("mayhem"))
    if mayhem:
        if mayhem > num(att.sheet.get("mayhem")):
            raise RuleError(say("{name} has {have} Mayhem points, not {n}", name=att.name, have=num(att.sheet.get("mayhem")), n=mayhem))
        mods.append(_mod(say("Mayhem points spent"), mayhem, "Mayhem Points"))
    if opts.get("swordpoint"):
        if mode != "melee" and distance > 1:
            raise RuleError(say("sword- or gunpoint needs the initiator next to the defender"))
        mods.append(_mod(say("Attack from sword/gunpoint"), 2, "Swordpoint & Gunpoint"))
    if num(opts.get("modifier")):
        mods.append(_mod(opts.get("modifier_label") or say("GM modifier"), num(opts["modifier"]), "GM"))

    # the defense
    t_sheet = tgt.sheet
    t_status = status_names(t_sheet.get("statuses"))
    choice, reactions = split_defense(opts.get("defense") or settings["default_defense"])
    if "Unconscious" in t_status:
        choice = "none"
    elif "Pinned" in t_status and "grapple_defense" in (action.extra.get("defenses") or ("grapple_defense",)):
        choice = "grapple_defense" if choice != "none" else "none"
    elif choice == "best":
        candidates = list(action.extra.get("defenses") or ["duck", "dodge", "block"] + (["parry"] if mode == "melee" else []))
        best, best_mean = "duck", -1e9
        for c in candidates:
            p, r, m = _defense_pool(t_sheet, c, mode, settings)
            mean = mean_successes(p, r) + sum(x.value for x in m)
            if mean > best_mean + 1e-9:
                best, best_mean = c, mean
        choice = best
    if choice not in ("duck", "dodge", "block", "parry", "grapple_defense", "athletics", "scrutiny", "melee_or_acrobatics", "none"):
        raise RuleError(say("unknown defense {value}", value=repr(choice)))
    if choice == "scrutiny" and "scrutiny" not in (action.extra.get("defenses") or ()):
        raise RuleError(say("a Scrutiny test resists a Distracting Shot, not a {action}", action=action.name))
    if choice == "athletics" and "athletics" not in (action.extra.get("defenses") or ()):
        raise RuleError(say("an Athletics test resists a Trip, a Disarm or a Choke Out, not a {action}", action=action.name))
    if action_key == "disarm":
        disarm_weapon(tgt.sheet, opts.get("target_weapon"))  # refused now when there is nothing to knock away
    if choice in ("dodge", "block", "parry", "grapple_defense", "athletics") and t_state.get("surprised") and not can_react(t_state, 1):
        if opts.get("defense"):
            raise RuleError(say("{name} is surprised and has no ticks left for a {defense}", name=tgt.name,
                                    defense=DEFENSE_WORDS.get(choice, choice)))
        choice = "duck"
    if choice == "parry" and mode != "melee":
        raise RuleError(say("Parry only defends against melee attacks"))
    if action.extra.get("defenses") and choice not in (*action.extra["defenses"], "none"):
        raise RuleError(resisted_with(action))
    d_pool, d_rerolls, d_mods = (0, 0, []) if choice == "none" else _defense_pool(t_sheet, choice, mode, settings)
    t_state = defense_reactions(request, t_state, choice, reactions, mode, action, settings)

    # cover from this direction, for a defender who took cover ("Cover", "Cover Bonuses")
    covered = False
    cover_bonus = 0
    piece, material = None, None
    if t_state.get("in_cover") or opts.get("in_cover"):
        if request.cover is None:
            covered = True
        else:
            covered = cover_mod.cover_effect(request.cover, settings).level == "cover"
        if covered:
            cover_bonus = cover_mod.defense_bonus({**t_state, "in_cover": True})
            label = say("Hunkered down in cover") if cover_bonus == cover_mod.HUNKERED_BONUS else say("In cover")
            d_mods.append(_mod(label, cover_bonus, "Cover Bonuses"))
            piece, material = cover_mod.section_for(request.board, request.cover, _pos(tgt))
        else:
            notes.append(say("the target's cover does not face this attacker (directional cover)"))
    stances = t_state["stances"]
    prone_like = t_state.get("prone") or ("hunkered" in stances and not covered)
    pm = num(settings["prone_modifier"])
    if prone_like and choice != "none":
        d_mods.append(_mod(say("Prone"), pm if mode == "ranged" else -pm, common))
    if choice != "none":
        if "all_out" in stances:
            d_mods.append(_mod(say("All-Out Attack"), -2, sec_melee))
        if "guarded" in stances and choice in ("block", "dodge"):
            d_mods.append(_mod(say("Guarded Attack"), 1, sec_melee))
        if "sprint" in stances:
            d_mods.append(_mod(say("Sprinting"), -3 if mode == "melee" else 1, "Movement Actions"))
        if "total_defense" in stances:
            d_mods.append(_mod(say("Total Defense"), 2, "Defensive Actions"))
        if opts.get("covering_fire") or "covered_by_fire" in stances:
            d_mods.append(_mod(say("Covering fire from an ally"), 1, "Defensive Actions"))
        if opts.get("target_higher_ground") and mode == "ranged" and not covered:
            d_mods.append(_mod(say("On higher ground, against a ranged attack"), -1, common))
        nth = num(t_state.get("defenses")) + 1
        if nth > 3:
            d_mods.append(_mod(say("Defense no. {n} this round", n=nth), -(nth - 3), common))
        if "Grappled" in t_status and "Grappled" not in status_names(att.sheet.get("statuses")):
            d_mods.append(_mod(say("Grappled, against a non-grappled foe"), -3, "Physical Status Effects: Grappled"))
        d_mods += status_modifiers(t_sheet.get("statuses"), "defense")
        twp = wound_penalty(num(t_sheet.get("wounds")), stamina(t_sheet))
        if twp:
            d_mods.append(_mod(say("Wounds, out of Stamina"), twp, "Effects of Wounds"))
        if num(opts.get("defense_modifier")):
            d_mods.append(_mod(say("GM modifier (defense)"), num(opts["defense_modifier"]), "GM"))

    if action.extra.get("test_only"):  # an opposed test, not a defense: no cover, stance or prone modifiers
        d_mods = [] if choice == "none" else _defense_pool(t_sheet, choice, mode, settings)[2]
        if num(opts.get("defense_modifier")):
            d_mods.append(_mod(say("GM modifier (defense)"), num(opts["defense_modifier"]), "GM"))
        cover_bonus, piece, material = 0, None, None
    if action.key == "called_shot":  # "in the head or similarly vital area": its own choice, not a stale location
        location = opts.get("called_at") or action.extra["location"]
    else:
        location = opts.get("location") or settings["default_hit_location"]
    if opts.get("swordpoint"):
        location = "head"
    if location not in cover_mod.ALL_LOCATIONS:
        raise RuleError(say("unknown body location {value}", value=repr(location)))
    check_location(action, location)
    return AttackPlan(
        action=action,
        weapon=weapon,
        mode=mode,
        attack_pool=pool,
        attack_mods=mods,
        bullets=bullets,
        defense=choice,
        defense_pool=d_pool,
        defense_rerolls=d_rerolls,
        defense_mods=d_mods,
        cover_bonus=cover_bonus,
        into_melee_penalty=into_melee,
        cover_piece=piece,
        cover_material=material,
        location=location,
        notes=notes,
        reactions=reactions,
        defender_state=t_state,
        unaware=bool(unaware),
    )


def defense_reactions(request: AttackRequest, t_state: dict, choice: str, reactions: list[str], mode: str,
                      action: Action, settings: dict) -> dict:
    """The target's books with the reactions it takes before its defense roll against a ranged
    attack: Drop Prone ("Movement Actions": 1 tick or a reaction; prone, +1 or +2 by the
    ``prone_modifier`` setting to defensive rolls against ranged attacks) and Take Cover ("Taking
    Cover": "requires 2 ticks (reaction)"; head and arms in cover for the round, +2 to defense),
    the latter only with cover between the target and this attacker. Each is refused with its
    rule when it cannot be taken."""
    if not reactions:
        return t_state
    if mode != "ranged" or action.extra.get("test_only"):
        raise RuleError(say("Drop Prone and Take Cover answer ranged attacks here (Dive for Cover, 'Defensive Actions')"))
    if choice == "none":
        raise RuleError(say("a reaction before the defense goes with a defense roll"))
    need = 0
    for r in reactions:
        if r == "prone":
            if t_state.get("prone"):
                raise RuleError(say("Drop Prone: the target is prone already"))
            need += ACTIONS["drop_prone"].reaction_ticks
            t_state = {**t_state, "prone": True}
        elif r == "cover":
            if t_state.get("in_cover"):
                raise RuleError(say("Take Cover: the target is in cover already"))
            faces = request.cover is not None and cover_mod.cover_effect(request.cover, settings).level == "cover"
            if not faces:
                raise RuleError(say("Take Cover: no cover between the target and this attacker within reach "
                                    "('Taking Cover': a viable piece of terrain in or next to the square)"))
            need += num(settings.get("take_cover_reaction_ticks"), 2)
            t_state = cover_mod.take_cover(t_state, on_turn=False)
    if t_state.get("surprised") and need + 1 > num(t_state.get("ticks")):
        raise RuleError(say("{name} is surprised: up to three ticks of reactions this round (Combat Order, 'Surprise Round')",
                            name=request.target.name))
    return t_state


def resisted_with(action: Action) -> str:
    """The refusal of a defense the action's own words do not give: "Trip is resisted with Duck or Dodge or Athletics"."""
    d = [DEFENSE_WORDS.get(x) or x.title() for x in action.extra["defenses"]]
    if len(d) == 1:
        return say("{action} is resisted with {first}", action=action.name, first=d[0])
    if len(d) == 2:
        return say("{action} is resisted with {first} or {second}", action=action.name, first=d[0], second=d[1])
    return say("{action} is resisted with {first} or {second} or {third}", action=action.name, first=d[0], second=d[1],
               third=joined(d[2:], " / "))


def soak_for(sheet: dict, location: str, state: dict, cover_ap: int, ap_penetration: int) -> tuple[int, list[Modifier]]:
    """Armour Points stacked for a location, less Armour Penetration, plus misc. soak
    ("Armor", "Armor Penetration", "Damage Soak", "Cover Bonuses", Total Defense)."""
    parts = []
    armour = num((sheet.get("armour") or {}).get("ap"))
    if armour:
        parts.append(_mod((sheet.get("armour") or {}).get("name") or say("Armour"), armour, "Armor"))
    if location in CLOAK_LOCATIONS:
        cloak = num((sheet.get("cloak") or {}).get("ap"))
        if cloak:
            parts.append(_mod((sheet.get("cloak") or {}).get("name") or say("Cloak"), cloak, "Armor"))
    if cover_ap:
        parts.append(_mod(say("Cover"), cover_ap, "Cover Bonuses"))
    if "total_defense" in (state.get("stances") or []):
        parts.append(_mod(say("Total Defense"), 2, "Defensive Actions"))
    ap_total = sum(p.value for p in parts)
    pen = min(ap_total, max(0, ap_penetration))
    if pen:
        parts.append(_mod(say("Armour Penetration"), -pen, "Armor Penetration"))
    misc = num(sheet.get("soak_bonus"))
    if misc:
        parts.append(_mod(say("Soak misc."), misc, "Damage Soak"))
    return max(0, ap_total - pen) + misc, parts


def quick_recover(weapon: dict, dice: DiceSource, roller: str | None = None) -> tuple[bool, RollRecord | None]:
    """Quick recovery from a jam, a free action ("Weapon Jams"): 1dT (2dT reliable),
    any success clears it, explosions ignored, so a plain d10 of 6+ per die;
    unreliable weapons cannot. ``roller``: the weapon's wielder (the table's own dice, #59)."""
    rel = weapon.get("reliability", "normal")
    if rel == "unreliable":
        return False, None
    return quick_recover_roll(dice, 2 if rel == "reliable" else 1, say("quick-recover {weapon}", weapon=weapon.get("name") or say("weapon")),
                              roller=roller)


MULTI_STRIKES = ("multi_strike", "multi_strike_ranged")


def multi_strike_defense(request: AttackRequest, target_state: dict) -> dict | None:
    """The defense a Multi-Strike's secondary weapon meets: the one the defender rolled
    against the primary (*Tesseris Combat*, "Multi-Strike": "The defender only rolls
    once to defend with the result applying to all attacks from the Multi-Strike").

    ``options["defense_roll"]`` (the primary's ``details["defense_roll"]``) gives it,
    else the defender's state keeps it from the primary attack of the same attacker.
    None for the primary, or for a secondary weapon aimed at another opponent, who
    then rolls their one defense.
    """
    opts = request.options or {}
    if (opts.get("action") not in MULTI_STRIKES) or not opts.get("secondary"):
        return None
    given = opts.get("defense_roll") or target_state.get("multi_strike_defense")
    if not given or given.get("attacker") not in (None, request.attacker.id):
        return None
    return given


def join_grapple(request: AttackRequest, a_state: dict, settings: dict) -> AttackResult:
    """Joining a grapple already under way: a free action, no roll (*Tesseris Combat*,
    "Grapple": "If an opponent is already grappled, you may join the grapple as a free
    action"); the one who joins is Grappled too."""
    att, tgt = request.attacker, request.target
    if settings.get("spend_ticks", True):
        a_state = spend(a_state, "join_grapple", settings=settings, statuses=att.sheet.get("statuses"))
    effects = [Effect("status", att.id, {"add": "Grappled", "reason": say("joined the grapple on {target}", target=tgt.name)})]
    details = {"action": "join_grapple", "attacker": att.id, "target": tgt.id, "grappled": [att.id],
               "states": {att.id: a_state, tgt.id: state_of(tgt)}}
    return AttackResult(hit=True, summary=say("{name} joins the grapple on {target} (free action)", name=att.name, target=tgt.name), effects=effects, details=details)


def _contest_details(action: str, request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
                     successes: int, a_state: dict, t_state: dict, **own) -> dict:
    """The breakdown every opposed maneuver (Grapple, Trip, Pin, Disarm...) shares, with its own keys;
    none does damage."""
    att, tgt = request.attacker, request.target
    return {"action": action, "attacker": att.id, "target": tgt.id, "attack_successes": successes,
            "attack_total": attack_total, "defense": plan.defense, "defense_total": defense_total, **own,
            "hits": 0, "states": {att.id: a_state, tgt.id: t_state}}


def _resisted(plan: AttackPlan, defense_total: int, skill: str | None = None) -> str:
    """How the opponent resisted, as a summary reads it: "Dodge 3", "Scrutiny 2", "no resistance"."""
    if plan.defense == "none":
        return say("no resistance")
    return joined([skill or DEFENSE_WORDS.get(plan.defense) or plan.defense.replace("_", " ").title(), defense_total], " ")


def grapple_result(request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
                   rolls: list[RollRecord], a_state: dict, t_state: dict, successes: int) -> AttackResult:
    """A Grapple: a Melee test the opponent may resist with a Duck or Dodge; no damage.
    When it holds, everyone in the grapple gains the Grappled status (*Tesseris Combat*,
    "Grapple"; "Grappled": two-handed weapons held are dropped)."""
    att, tgt = request.attacker, request.target
    held = attack_total - defense_total >= 1  # ties go to the defender ("Defending")
    effects = []
    if held:
        for who in (att, tgt):
            if "Grappled" not in status_names(who.sheet.get("statuses")):
                effects.append(Effect("status", who.id, {"add": "Grappled", "reason": ACTIONS["grapple"].name, "drops_two_handed": True}))
    details = _contest_details("grapple", request, plan, attack_total, defense_total, successes, a_state, t_state,
                               grappled=[att.id, tgt.id] if held else [])
    said = dict(name=att.name, target=tgt.name, total=attack_total, resisted=_resisted(plan, defense_total))
    summary = (say("{name} grapples {target}: {total} vs {resisted}", **said) if held
               else say("{name} fails to grapple {target}: {total} vs {resisted}", **said))
    return AttackResult(hit=held, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=effects, details=details)


def trip_result(request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
                rolls: list[RollRecord], a_state: dict, t_state: dict, successes: int) -> AttackResult:
    """A Trip (*Tesseris Combat*, "Melee Attack Actions", Trip: 3 ticks, -2 to the attack roll):
    "Trip an opponent with a successful Melee test. Opponent may resist [...] with a successful
    Duck, Dodge, or Athletics test. If the opponent fails their roll, they immediately fall
    Prone." No damage; ties go to the defender ("Defending")."""
    att, tgt = request.attacker, request.target
    down = attack_total - defense_total >= 1  # as for every attack: beat the defense by one
    if down:
        t_state = {**t_state, "prone": True}
    details = _contest_details("trip", request, plan, attack_total, defense_total, successes, a_state, t_state,
                               prone=down)
    resisted = _resisted(plan, defense_total)
    said = dict(name=att.name, target=tgt.name, total=attack_total, resisted=resisted)
    summary = (say("{name} trips {target}: Prone ({total} vs {resisted})", **said) if down else
               say("{name} fails to trip {target}: {total} vs {resisted}", **said))
    return AttackResult(hit=down, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=[], details=details)


def pin_result(request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
               rolls: list[RollRecord], a_state: dict, t_state: dict, successes: int) -> AttackResult:
    """A Pin (*Tesseris Combat*, "Melee Attack Actions", Pin (Grapple): 3 ticks): "Pin a grappled
    opponent with a successful opposed Melee or Athletics test. Opponent may oppose with either
    Melee or Athletics" (its Grapple Defense, the better of the two). The attacker rolls Melee
    (reading: an Athletics roll for the attacker is the GM's call). Beaten, the opponent is Pinned
    ("Pinned": only Break Pin and Grapple Defense); no damage; ties go to the defender."""
    att, tgt = request.attacker, request.target
    held = attack_total - defense_total >= 1
    effects = [Effect("status", tgt.id, {"add": "Pinned", "reason": ACTIONS["pin"].name})] if held else []
    details = _contest_details("pin", request, plan, attack_total, defense_total, successes, a_state, t_state,
                               pinned=held)
    resisted = _resisted(plan, defense_total)
    said = dict(name=att.name, target=tgt.name, total=attack_total, resisted=resisted)
    summary = (say("{name} pins {target} ({total} vs {resisted})", **said) if held else
               say("{name} fails to pin {target}: {total} vs {resisted}", **said))
    return AttackResult(hit=held, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=effects, details=details)


def break_pin_result(request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
                     rolls: list[RollRecord], a_state: dict, t_state: dict, successes: int) -> AttackResult:
    """Break Pin (*Tesseris Combat*, "Melee Attack Actions", Break Pin (Grapple): 4 ticks): "Break an
    opponent's Pin against yourself or an ally in the same Grapple with an opposed Melee or Acrobatics
    test." Each side rolls Agility dT plus its better rank of the two (reading); the opponent's test
    costs it nothing; ties go to the opponent. Won, the freed one is no longer Pinned (still Grappled)."""
    att, tgt = request.attacker, request.target
    freed = (request.options or {}).get("free") or att.id
    broke = attack_total - defense_total >= 1
    effects = [Effect("status", freed, {"remove": "Pinned", "reason": ACTIONS["break_pin"].name})] if broke else []
    names = {c.id: c.name for c in (att, tgt, *request.others)}
    details = _contest_details("break_pin", request, plan, attack_total, defense_total, successes, a_state, t_state,
                               freed=freed if broke else None)
    said = dict(name=att.name, total=attack_total, resisted=defense_total)
    if freed == att.id:
        summary = (say("{name} breaks the pin ({total} vs {resisted})", **said) if broke else
                   say("{name} fails to break the pin: {total} vs {resisted}", **said))
    else:
        said.update(target=tgt.name, freed=names.get(freed, freed))
        summary = (say("{name} breaks {target}'s pin on {freed} ({total} vs {resisted})", **said) if broke else
                   say("{name} fails to break {target}'s pin on {freed}: {total} vs {resisted}", **said))
    return AttackResult(hit=broke, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=effects, details=details)


def distract_result(request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
                    rolls: list[RollRecord], a_state: dict, t_state: dict, successes: int) -> AttackResult:
    """A Distracting Shot (*Tesseris Combat*, "Ranged Attack Actions": 3 ticks, -2): "Fire a single
    shot past an opponent's head [...]. Roll a Melee skill test at a -2 penalty opposed by opponent's
    Scrutiny. If the opponent fails, they lose 2 Ticks on their next turn." The bullet is spent; no
    damage; ties go to the opponent. Reading: the ticks come off the opponent's next round (the
    books keep ``distracted``; the new round takes them)."""
    att, tgt = request.attacker, request.target
    lost = attack_total - defense_total >= 1
    if lost:
        t_state = {**t_state, "distracted": num(t_state.get("distracted")) + plan.action.extra["distract_ticks"]}
    effects = []
    if plan.weapon.get("ammo") is not None:
        effects.append(Effect("ammo", att.id, {"weapon": plan.weapon.get("key"), "spent": 1, "says": rounds_words(1, plan.weapon)}))
    details = _contest_details("distracting_shot", request, plan, attack_total, defense_total, successes, a_state, t_state,
                               distracted=lost)
    resisted = _resisted(plan, defense_total, DEFENSE_WORDS["scrutiny"])
    said = dict(name=att.name, target=tgt.name, total=attack_total, resisted=resisted)
    summary = (say("{name} distracts {target}: 2 ticks lost next round ({total} vs {resisted})", **said) if lost else
               say("{name} fails to distract {target}: {total} vs {resisted}", **said))
    return AttackResult(hit=lost, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=effects, details=details)


def choke_result(request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
                 rolls: list[RollRecord], a_state: dict, t_state: dict, successes: int) -> AttackResult:
    """Choke Out (*Tesseris Combat*, "Melee Attack Actions", Choke Out (Grapple): 4 ticks): "Take an
    opposed Athletics to choke out an opponent. If opponent fails their Athletics test (free), they
    immediately fall Unconscious." Both grappled; the opponent's test costs it no tick; ties go to
    the defender. "Only usable against biological humanoid opponents" is the GM's to say."""
    att, tgt = request.attacker, request.target
    out = attack_total - defense_total >= 1
    effects = [Effect("status", tgt.id, {"add": "Unconscious", "reason": ACTIONS["choke_out"].name})] if out else []
    details = _contest_details("choke_out", request, plan, attack_total, defense_total, successes, a_state, t_state,
                               unconscious=out)
    resisted = _resisted(plan, defense_total, DEFENSE_WORDS["athletics"])
    said = dict(name=att.name, target=tgt.name, total=attack_total, resisted=resisted)
    summary = (say("{name} chokes {target} out: Unconscious ({total} vs {resisted})", **said) if out else
               say("{name} fails to choke {target} out: {total} vs {resisted}", **said))
    return AttackResult(hit=out, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=effects, details=details)


def disarm_weapon(sheet: dict, key: str | None) -> dict:
    """The weapon a Disarm knocks away: the one named, else the first the sheet lists (not the
    unarmed strike, which cannot be knocked away)."""
    held = [w for w in weapon_list(sheet) if w["key"] != UNARMED]
    if key:
        found = next((w for w in held if w["key"] == key), None)
        if found is None:
            raise (RuleError(say("the target holds no weapon {value} to knock away; it has: {weapons}", value=repr(key),
                                 weapons=joined([w["label"] for w in held], ", "))) if held else
                   RuleError(say("the target holds no weapon {value} to knock away; it has: none", value=repr(key))))
        return found
    if not held:
        raise RuleError(say("the target holds no weapon to knock away"))
    return held[0]


def disarm_result(request: AttackRequest, plan: AttackPlan, attack_total: int, defense_total: int,
                  rolls: list[RollRecord], a_state: dict, t_state: dict, successes: int) -> AttackResult:
    """A Disarm (*Tesseris Combat*, "Melee Attack Actions", Disarm: 3 ticks, -1 to the attack
    roll): "Knock away an opponent's weapon with a Melee test. Opponent may resist [...] with a
    successful Duck, Dodge, or Athletics test. If the attacker beats the opponent's roll by 3 or
    more successes, they may take immediate possession of the weapon." No damage; ties go to the
    defender. The weapon leaves the target's sheet; beaten by 3 or more, it goes to the attacker's
    (``options["take"]`` false leaves it on the ground)."""
    att, tgt = request.attacker, request.target
    opts = request.options or {}
    lost = disarm_weapon(tgt.sheet, opts.get("target_weapon"))
    margin = attack_total - defense_total
    knocked = margin >= 1
    taken = knocked and margin >= plan.action.extra["take_margin"] and opts.get("take", True) is not False
    effects = []
    if knocked:
        effects.append(Effect("disarm", tgt.id, {"weapon": lost["key"], "taken_by": att.id if taken else None}))
    if taken:
        effects.append(Effect("take_weapon", att.id, {"weapon": lost["key"], "item": dict(lost["data"]), "from": tgt.id}))
    details = _contest_details("disarm", request, plan, attack_total, defense_total, successes, a_state, t_state,
                               weapon_lost=lost["key"] if knocked else None, taken=taken)
    resisted = _resisted(plan, defense_total)
    if taken:
        summary = say("{name} disarms {target} and takes the {weapon} ({total} vs {resisted})", name=att.name, target=tgt.name,
                      weapon=lost["label"], total=attack_total, resisted=resisted)
    elif knocked:
        summary = say("{name} knocks {target}'s {weapon} away ({total} vs {resisted})", name=att.name, target=tgt.name,
                      weapon=lost["label"], total=attack_total, resisted=resisted)
    else:
        summary = say("{name} fails to disarm {target}: {total} vs {resisted}", name=att.name, target=tgt.name,
                      total=attack_total, resisted=resisted)
    return AttackResult(hit=knocked, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=effects,
                        details=details)


def resolve_attack(request: AttackRequest, dice: DiceSource, settings: dict | None = None, part: bool = False) -> AttackResult:
    """Roll an attack, its defense, the hits, jams, damage and cover damage (a Spray 'n Pray and a Covering
    Fire go through ``spray.resolve_action``). ``part``: one target of a Spray 'n Pray (``spray.resolve_spray``),
    which pays the ticks, the bullets and the jam."""
    settings = settings_of(settings if settings is not None else request)
    opts = own_options(request.options or {}, (request.options or {}).get("action"))
    if not part:
        check_one_target(request)
    plan = plan_attack(request, settings)
    if part:
        plan.bullets = 1  # "Each opponent may only be hit once"
    att, tgt = request.attacker, request.target
    sheet_a, sheet_t = att.sheet, tgt.sheet
    a_state, t_state = state_of(att), state_of(tgt)
    if plan.unaware:  # "your first attack roll against that opponent gains" the bonus
        t_state = {**t_state, "unaware_spent": sorted(set(t_state.get("unaware_spent") or []) | {att.id})}
    rolls: list[RollRecord] = []
    effects: list[Effect] = []
    weapon, action = plan.weapon, plan.action

    if action.key == "grapple" and "Grappled" in status_names(sheet_t.get("statuses")):
        return join_grapple(request, a_state, settings)

    # ticks: the attacker pays the action, the defender its reaction ("Ticks")
    if settings.get("spend_ticks", True) and not opts.get("secondary") and not part:
        a_state = spend(a_state, action.key, reaction=action.ticks is None, settings=settings,
                        gm_allows_borrowing=bool(opts.get("gm_allows_borrowing")), statuses=sheet_a.get("statuses"))
    a_state = {**a_state, "aim": 0}
    if action.key == "hip_fire":  # "Move up to 2x normal movement speed while firing": squares for the map's moves
        a_state = grant(a_state, sheet_a, "hip_fire")
    if action.stance in ("all_out", "guarded") and action.stance not in a_state["stances"]:
        a_state["stances"] = [*a_state["stances"], action.stance]
    if action.key == "guarded_attack":
        a_state["guarded_round"] = True

    # the attack roll
    if opts.get("dt_successes") is not None:
        successes = num(opts["dt_successes"])
        reused = True
    else:
        rec = dice.roll(f"{plan.attack_pool}dT", say("{name}: {action} with {weapon}", name=att.name, action=action.name, weapon=weapon.get("name") or say("weapon")),
                        roller=pool_roller(plan.attack_pool, att.id), needs=dt_needs(plan.attack_pool, plan.attack_flat))
        rolls.append(rec)
        successes = rec.total
        reused = False
    attack_total = successes + plan.attack_flat

    # the defense roll; a Multi-Strike's secondary weapons meet the defense rolled against the primary
    defense_total = 0
    d_mods = plan.defense_mods
    shared = multi_strike_defense(request, t_state)
    if shared is not None:
        plan.defense = shared["defense"]
        defense_total = num(shared["total"])
    elif plan.defense != "none":
        d_succ, d_recs = roll_defense_pool(dice, plan.defense_pool, plan.defense_rerolls, say("{name}: {defense}", name=tgt.name, defense=DEFENSE_WORDS.get(plan.defense) or plan.defense.replace("_", " ").title()),
                                           roller=tgt.id, flat=plan.defense_flat, attack=attack_total)
        rolls += d_recs
        defense_total = d_succ + plan.defense_flat
        if settings.get("spend_ticks", True):
            for reaction in plan.reactions:  # Drop Prone, Take Cover: paid before the defense roll
                t_state = spend(t_state, "drop_prone" if reaction == "prone" else "take_cover", reaction=True, settings=settings)
            spec_ticks = 0 if action.extra.get("free_defense") else DEFENSES.get(plan.defense, {}).get("ticks", 1)
            if spec_ticks:  # an Athletics test against a Trip is a reaction like a Dodge (reading)
                t_state = spend(t_state, plan.defense if plan.defense in ("dodge", "block", "parry", "grapple_defense") else "dodge", reaction=True, settings=settings)
        t_state = {**t_state, "defenses": num(t_state.get("defenses")) + 1}
        if plan.reactions:
            keep = ("prone", "in_cover", "cover_pieces", "cover_locations", "cover_taken_as_reaction")
            t_state = {**t_state, **{k: plan.defender_state[k] for k in keep if k in plan.defender_state}}
    else:
        defense_total = plan.cover_bonus  # reading: cover still stands in the way of a target that does not defend
        d_mods = [m for m in plan.defense_mods if m.source == "Cover Bonuses"]

    if action.key in MULTI_STRIKES and not opts.get("secondary"):
        t_state = {**t_state, "multi_strike_defense": {"attacker": att.id, "defense": plan.defense, "total": defense_total}}
    if action.key == "grapple":
        return grapple_result(request, plan, attack_total, defense_total, rolls, a_state, t_state, successes)
    if action.key == "trip":
        return trip_result(request, plan, attack_total, defense_total, rolls, a_state, t_state, successes)
    if action.key == "break_pin":
        return break_pin_result(request, plan, attack_total, defense_total, rolls, a_state, t_state, successes)
    if action.key == "distracting_shot":
        return distract_result(request, plan, attack_total, defense_total, rolls, a_state, t_state, successes)
    if action.key == "choke_out":
        return choke_result(request, plan, attack_total, defense_total, rolls, a_state, t_state, successes)
    if action.key == "pin":
        return pin_result(request, plan, attack_total, defense_total, rolls, a_state, t_state, successes)
    if action.key == "disarm":
        return disarm_result(request, plan, attack_total, defense_total, rolls, a_state, t_state, successes)

    totals = bullet_totals(attack_total, plan.bullets)
    nets = [t - defense_total for t in totals]
    hit_nets = hit_nets_of(action, nets)
    hit = bool(hit_nets)
    details: dict = {
        "action": action.key,
        "target": tgt.id,
        "attacker": att.id,
        "weapon": weapon.get("key"),
        "attack_successes": successes,
        "attack_total": attack_total,
        "attack_reused": reused,
        "defense": plan.defense,
        "defense_total": defense_total,
        "defense_shared": shared is not None,
        "defense_modifiers": [m.to_dict() for m in d_mods],
        "bullets": plan.bullets,
        "bullet_totals": totals,
        "nets": nets,
        "hits": len(hit_nets),
        "location": plan.location,
        "notes": list(plan.notes),
    }

    # ammunition and jams ("Rate of Fire (RoF)", "Weapon Jams")
    if part:
        pass  # the Spray 'n Pray's bullets and jam are the whole burst's
    elif plan.mode == "ranged" and weapon.get("ammo") is not None:
        effects.append(Effect("ammo", att.id, {"weapon": weapon.get("key"), "spent": plan.bullets,
                                               "says": rounds_words(plan.bullets, weapon)}))
    if plan.mode == "ranged" and not hit and not part:
        a_state = jam_check(weapon, attack_total, successes, settings, dice, rolls, effects, details, a_state)

    # a shot into melee that the -2 made miss strays to another character ("Firing into Melee")
    if plan.into_melee_penalty and not hit and totals[0] - plan.into_melee_penalty - defense_total >= 1:
        partners = melee_partners(tgt, att, request.others or [])
        if partners:
            pick = dice.roll(f"1d{len(partners)}", say("stray shot: who in the melee"), roller=att.id,
                             needs=say("roll d{n}: it picks which of the {n} in the melee the stray shot hits",
                                       n=len(partners))) if len(partners) > 1 else None
            if pick:
                rolls.append(pick)
            chosen = partners[(pick.total - 1) if pick else 0]
            effects.append(Effect("stray_attack", chosen, {"dt_successes": successes, "attack_total": attack_total, "from": att.id, "weapon": weapon.get("key")}))
            details["stray_to"] = chosen

    # damage ("Damage, Stamina, and Wounds")
    strength = char(sheet_a, "strength") if (plan.mode == "melee" or weapon.get("kind") == "thrown") else 0
    cover_locs = cover_mod.covered_locations({**t_state, "in_cover": plan.cover_bonus > 0})
    in_cover_loc = plan.cover_bonus > 0 and plan.location in cover_locs
    cov_ap = cover_mod.cover_ap(plan.cover_material, settings) if in_cover_loc else 0
    ap_pen = num(weapon.get("ap")) + num(action.extra.get("ap"))
    st_left = stamina(sheet_t)
    wounds_now = num(sheet_t.get("wounds"))
    cover_taken = num((opts.get("cover_damage") or {}).get(plan.cover_piece)) if plan.cover_piece else 0
    total_after = 0
    swordpoint = bool(opts.get("swordpoint"))

    def raw_damage(net: int, crit: bool, label: str) -> tuple[int, list[Modifier]]:
        parts = [_mod(say("{weapon} damage", weapon=weapon.get("name") or say("Weapon")), num(weapon.get("damage")), "weapon")]
        if strength:
            parts.append(_mod(say("Strength"), strength, "Melee Damage" if plan.mode == "melee" else "Ranged Damage (thrown)"))
        if weapon.get("impact"):
            parts.append(_mod(say("Net successes (impact: 1 per 2)"), net // 2, "Damage, Stamina, and Wounds"))
        else:
            parts.append(_mod(say("Net successes"), net, "Damage, Stamina, and Wounds"))
        if action.extra.get("damage"):
            parts.append(_mod(action.name, action.extra["damage"], "Ranged Attack Actions"))
        if crit and (swordpoint or settings["critical_hit"] == "plus_d10"):
            crit_roll = dice.roll("1d10", say("critical hit {label}", label=label), roller=att.id,
                                  needs=say("roll d10: it adds to the damage of the critical hit"))
            rolls.append(crit_roll)
            parts.append(_mod(say("Critical hit (1d10)"), crit_roll.total, "Swordpoint & Gunpoint" if swordpoint else "Defending (reading)"))
        return sum(p.value for p in parts), parts

    hit_reports = []
    for n_i, net in enumerate(hit_nets):
        basis = net if settings["critical_basis"] == "net" else net + defense_total
        crit = swordpoint or basis >= CRITICAL_SUCCESSES
        raw, parts = raw_damage(net, crit, say("hit {n}", n=n_i + 1))
        if swordpoint:
            soak, soak_parts = 0, [_mod(say("Head or neck, armour bypassed"), 0, "Swordpoint & Gunpoint")]
        else:
            soak, soak_parts = soak_for(sheet_t, plan.location, t_state, cov_ap, ap_pen)
        after = max(0, raw - soak)
        total_after += after
        if action.extra.get("no_wounds"):
            lost, wounds = min(after, st_left), 0
        else:
            lost, wounds = damage_split(after, st_left)
        wounds += num(action.extra.get("wounds"))
        st_left -= lost
        wounds_now += wounds
        report = {
            "hit": n_i + 1,
            "net": net,
            "critical": crit,
            "damage": raw,
            "damage_parts": [p.to_dict() for p in parts],
            "soak": soak,
            "soak_parts": [p.to_dict() for p in soak_parts],
            "after_soak": after,
            "stamina_lost": lost,
            "wounds": wounds,
        }
        hit_reports.append(report)
        effects.append(Effect("damage", tgt.id, {"stamina": lost, "wounds": wounds, "ego": wounds, "location": plan.location, "critical": crit, "after_soak": after,
                                                 "says": damage_words(after, lost, wounds, plan.location, crit)}))
        if in_cover_loc and plan.cover_piece and plan.cover_material:
            share = cover_mod.excess_over_ap(raw, plan.cover_material, ap_pen) // 2
            new = cover_mod.damage_section(plan.cover_piece, plan.cover_material, share, cover_taken, reason=say("hit a defender behind it: half the damage"))
            cover_taken += share
            effects += new
    details["hit_reports"] = hit_reports

    # bullets the cover bonus turned into misses still hit the cover ("Destroying Cover")
    if plan.cover_bonus and plan.cover_piece and plan.cover_material and not swordpoint:
        for i, net in enumerate(nets):
            if net < 1 and net + plan.cover_bonus >= 1:
                raw, _ = raw_damage(net + plan.cover_bonus, False, say("bullet {n} into the cover", n=i + 1))
                dmg = cover_mod.excess_over_ap(raw, plan.cover_material, ap_pen)
                effects += cover_mod.damage_section(plan.cover_piece, plan.cover_material, dmg, cover_taken, reason=say("the cover bonus made the attack miss"))
                cover_taken += dmg
    destroyed = any(e.kind == "cover_destroyed" for e in effects)
    if destroyed:
        details["cover_destroyed"] = plan.cover_piece

    # status effects from the hit
    statuses = list(sheet_t.get("statuses") or [])
    if hit_nets:
        if stamina(sheet_t) > 0 and st_left <= 0 and "Bloodied" not in status_names(statuses):
            effects.append(Effect("status", tgt.id, {"add": "Bloodied", "reason": say("out of Stamina")}))
        chain = action.extra.get("resolve_chain")
        if chain:
            difficulty = max(r["after_soak"] for r in hit_reports)
            test = resolve_test(sheet_t, dice, say("{name}: Resolve against {action} (difficulty {difficulty})", name=tgt.name, action=action.name, difficulty=difficulty), settings=settings,
                                roller=tgt.id, difficulty=difficulty)
            passed, total = test.total >= difficulty, test.total
            rolls += test.records
            details["resolve"] = {"difficulty": difficulty, "total": total, "passed": passed}
            if not passed:
                _, applied = escalate(statuses, tuple(chain), att.id)
                effects.append(Effect("status", tgt.id, {"add": applied, "chain": list(chain), "reason": action.name}))
        if wounds_now >= min(max_wounds(sheet_t), max_stamina(char(sheet_t, "strength"), char(sheet_t, "willpower"), 0, num(sheet_t.get("stamina_bonus")))):
            effects.append(Effect("dead", tgt.id, {"wounds": wounds_now, "fate_points": num(sheet_t.get("fate_points"))}))
    if mayhem := num(opts.get("mayhem")):
        effects.append(Effect("mayhem", att.id, {"spent": mayhem}))

    if action.key in MULTI_STRIKES:
        details["defense_roll"] = {"attacker": att.id, "defense": plan.defense, "total": defense_total}
    details["states"] = {att.id: a_state, tgt.id: t_state}
    details["damage_after_soak"] = total_after
    summary = attack_words(att.name, tgt.name, action, weapon, plan, attack_total, defense_total, len(hit_nets), hit_reports)
    if "jam" in details:
        summary = (say("{line}; the weapon jams (cleared at once)", line=summary) if details["jam"]["recovered"] else
                   say("{line}; the weapon jams: Clear Jam (2 ticks)", line=summary))
    return AttackResult(hit=hit, summary=summary, rolls=rolls, modifiers=plan.attack_mods, effects=effects, details=details)


def rounds_words(n: int, weapon: dict) -> str:
    return say_n("{n} round from the {weapon}", "{n} rounds from the {weapon}", n, weapon=weapon.get("name") or weapon.get("key"))




def damage_words(after: int, lost: int, wounds: int, location: str, critical: bool) -> str:
    """One hit on the target's sheet: "7 damage to the torso: 7 Stamina, 1 Wound" (words)."""
    taken = [say("{n} Stamina", n=lost)] if lost else []
    if wounds:
        taken.append(say_n("{n} Wound", "{n} Wounds", wounds))
    where = LOCATION_WORDS.get(location, location)
    head = (say("critical hit, {damage} damage to the {location}", damage=after, location=where) if critical
            else say("{damage} damage to the {location}", damage=after, location=where))
    if taken:
        return say("{hit}: {taken}", hit=head, taken=joined(taken, ", "))
    return say("{hit}: the armour soaks it", hit=head)


def effect_words(effect: Effect, names: dict[str, str]) -> str:
    """An effect in the game's words, for the card (``data["says"]``, what the card shows, filled where the effect has none)."""
    d = effect.data
    if d.get("says"):
        return d["says"]
    kind = effect.kind
    if kind == "status":
        if d.get("add"):
            status = status_words(d["add"])
            if d.get("reason") and d["reason"] != d["add"]:
                return say("{status} ({reason})", status=status, reason=d["reason"])
            return status
        return say("no longer {status}", status=status_words(d.get("remove")))
    if kind == "disarm":
        if d.get("taken_by"):
            return say("{weapon} knocked away, taken by {name}", weapon=d.get("weapon"), name=names.get(d["taken_by"], d["taken_by"]))
        return say("{weapon} knocked away", weapon=d.get("weapon"))
    if kind == "take_weapon":
        return say("takes the {weapon}", weapon=(d.get("item") or {}).get("name") or d.get("weapon"))
    if kind == "mayhem":
        return say_n("{n} Mayhem point spent", "{n} Mayhem points spent", num(d.get("spent")))
    if kind == "cover_damage":
        return say("the cover takes {damage} damage ({remaining} of {structure} Structure Points left)", damage=d.get("damage"),
                   remaining=d.get("remaining"), structure=d.get("structure"))
    if kind == "cover_destroyed":
        return say("the cover breaks: difficult terrain now")
    if kind == "dead":
        return say("dead: a Fate point may be burnt") if num(d.get("fate_points")) else say("dead")
    if kind == "stray_attack":
        return say("a stray shot from {name}", name=names.get(d.get("from"), d.get("from")))
    return kind.replace("_", " ")


def attack_words(attacker: str, target: str, action: Action, weapon: dict, plan: AttackPlan, attack_total: int,
                 defense_total: int, hits: int, reports: list[dict]) -> str:
    """An attack's result in the game's words: "Ann: Burst Fire at Tom with the Assault rifle, 5 against
    Dodge 3: 2 of 3 bullets hit (torso), 12 damage after soak: 10 Stamina, 3 Wounds"."""
    name = weapon.get("name") or say("weapon")
    defense = DEFENSE_WORDS.get(plan.defense) or plan.defense.replace("_", " ").title()
    head = (say("{attacker}: {action} at {target} with the {weapon}, {total} with no defense", attacker=attacker,
                action=action.name, target=target, weapon=name, total=attack_total) if plan.defense == "none" else
            say("{attacker}: {action} at {target} with the {weapon}, {total} against {defense} {defense_total}",
                attacker=attacker, action=action.name, target=target, weapon=name, total=attack_total, defense=defense,
                defense_total=defense_total))
    if not hits:
        if attack_total < 1:
            return say("{head}: miss", head=head)
        return (say("{head}: the cover stops it", head=head) if plan.defense == "none" else
                say("{head}: {defense} avoids it", head=head, defense=defense))
    what = (say("{n} of {bullets} bullets hit", n=hits, bullets=plan.bullets) if plan.bullets > 1 else
            say("{n} hits", n=hits) if hits > 1 else say("hit"))
    after = sum(r["after_soak"] for r in reports)
    lost, wounds = sum(r["stamina_lost"] for r in reports), sum(r["wounds"] for r in reports)
    if any(r["critical"] for r in reports):
        what = say("{what} (critical)", what=what)
    taken = [say("{n} Stamina", n=lost)] if lost else []
    if wounds:
        taken.append(say_n("{n} Wound", "{n} Wounds", wounds))
    if taken:
        return say("{head}: {what} ({location}), {damage} damage after soak: {taken}", head=head, what=what,
                   location=LOCATION_WORDS.get(plan.location, plan.location), damage=after, taken=joined(taken, ", "))
    return say("{head}: {what} ({location}), {damage} damage after soak: the armour soaks it", head=head, what=what,
               location=LOCATION_WORDS.get(plan.location, plan.location), damage=after)


#: a defense as an attack's line names it (Tesseris "Combat": Dodge, Block, Parry...)
DEFENSE_WORDS = {"dodge": say("Dodge"), "block": say("Block"), "parry": say("Parry"), "scrutiny": say("Scrutiny"),
                 "duck": say("Duck"), "athletics": say("Athletics"), "grapple_defense": say("Grapple Defense"),
                 "melee_or_acrobatics": say("Melee or Acrobatics")}


def jam_check(weapon: dict, attack_total: int, successes: int, settings: dict, dice: DiceSource, rolls: list,
              effects: list, details: dict, a_state: dict) -> dict:
    """"Weapons jam on a miss for an attack roll that is an even number": the quick recovery
    rolled, the round in the chamber lost, the weapon jammed until cleared ("Weapon Jams").
    Appends to ``rolls``, ``effects`` and ``details``; returns the attacker's books."""
    if not weapon.get("jams"):
        return a_state
    basis = attack_total if settings["jam_basis"] == "total" else successes
    if basis % 2:
        return a_state
    name = weapon.get("name") or weapon.get("key")
    recovered, rec = quick_recover(weapon, dice, roller=details.get("attacker"))
    if rec:
        rolls.append(rec)
    effects.append(Effect("jam", details["attacker"], {
        "weapon": weapon.get("key"), "recovered": recovered, "round_lost": True,
        "says": say("{weapon} jams, cleared at once", weapon=name) if recovered else
                say("{weapon} jams: Clear Jam (2 ticks)", weapon=name)}))
    if weapon.get("ammo") is not None:
        effects.append(Effect("ammo", details["attacker"], {
            "weapon": weapon.get("key"), "spent": 1, "reason": say("round lost to the jam"),
            "says": say("the round in {weapon}'s chamber is lost", weapon=name)}))
    details["jam"] = {"recovered": recovered}
    if recovered:
        return a_state
    return {**a_state, "jammed": sorted(set(a_state.get("jammed") or []) | {weapon.get("key")})}


def own_options(opts: dict, action_key: str | None) -> dict:
    """The options as the action reads them: a Multi-Strike's ``secondary`` left over from an earlier
    pick on the card means nothing to another action."""
    if opts.get("secondary") and action_key not in MULTI_STRIKES:
        return {k: v for k, v in opts.items() if k != "secondary"}
    return opts


def check_one_target(request: AttackRequest) -> None:
    """Only a Spray 'n Pray attacks several opponents ("Ranged Attack Actions")."""
    if len(request.targets or []) > 1 and (request.options or {}).get("action") != "spray_n_pray":
        action = ACTIONS.get((request.options or {}).get("action") or "") or ACTIONS["straight_shot"]
        raise RuleError(say("{action} attacks one opponent; a Spray 'n Pray fires at several "
                            "(Ranged Attack Actions, 'Spray 'n Pray')", action=action.name))


def attack_cover_piece(
    attacker: Combatant,
    weapon_key: str | None,
    piece_id: str,
    material: str,
    distance: int,
    dice: DiceSource,
    taken_before: int = 0,
    modifiers: list[Modifier] | None = None,
) -> AttackResult:
    """Shoot or strike a cover section directly, like an unattended object ("Destroying
    Cover"). Reading: an object does not defend, so every success is net; damage past
    the section's Armour Points (less Armour Penetration) goes to its Structure Points."""
    w = sheet_weapon(attacker.sheet, weapon_key)
    melee = w.get("kind", "melee") == "melee"
    mods = [Modifier(rank_words(w.get("skill") or "melee"), skill(attacker.sheet, w.get("skill") or "melee"), "Attacking")]
    if not melee:
        rm = range_modifier(distance, num(w.get("range")) or 1)
        if rm is None:
            raise RuleError(say("the cover is beyond 3x the weapon's listed range"))
        if rm:
            mods.append(Modifier(say("Range"), rm, "Common Physical Combat Modifiers"))
    elif distance > (num(w.get("reach"), 1) or 1):
        raise RuleError(say("the cover is out of reach"))
    mods += list(modifiers or [])
    action_key = "melee_strike" if melee else "straight_shot"
    a_state = spend(state_of(attacker), action_key, statuses=attacker.sheet.get("statuses"))  # "Ticks": an attack's ticks
    pool, flat = max(0, char(attacker.sheet, 'agility' if melee else 'perception')), sum(m.value for m in mods)
    goal = say_n("{n} success hits it", "{n} successes hit it", successes_to(1, flat))
    rec = dice.roll(f"{pool}dT", say("{name}: attack {piece}", name=attacker.name, piece=piece_id),
                    roller=pool_roller(pool, attacker.id), needs=dt_needs(pool, flat, goal))
    total = rec.total + flat
    hit = total >= 1
    effects: list[Effect] = []
    dmg = 0
    if hit:
        raw = num(w.get("damage")) + (char(attacker.sheet, "strength") if melee or w.get("kind") == "thrown" else 0) + (total // 2 if w.get("impact") else total)
        dmg = cover_mod.excess_over_ap(raw, material, num(w.get("ap")))
        effects = cover_mod.damage_section(piece_id, material, dmg, taken_before, reason=say("targeted directly"))
    summary = (say("{name} attacks {piece}: {total}, {damage} structure damage", name=attacker.name, piece=piece_id, total=total,
                   damage=dmg) if hit else
               say("{name} attacks {piece}: {total}, miss", name=attacker.name, piece=piece_id, total=total))
    details = {"attack_total": total, "structure_damage": dmg, "piece": piece_id, "action": action_key,
               "attacker": attacker.id, "states": {attacker.id: a_state}}
    return AttackResult(hit=hit, summary=summary, rolls=[rec], modifiers=mods, effects=effects, details=details)
