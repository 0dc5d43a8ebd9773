"""What the attack card offers a Tesseris attacker and defender, from the rules (*Tesseris Combat*,
"Melee Attack Actions", "Ranged Attack Actions", "Defensive Actions", "Common Physical Combat
Modifiers", "Mayhem Points", "Swordpoint & Gunpoint").

``attack_options`` lists every key ``plan_attack`` reads from a client: the attack action (the fire
modes are actions: Straight Shot single, Burst Fire, Full-Auto, Spray 'n Pray), each action's own
choices (a Called Shot's location, a Disarm's weapon, a Break Pin's pinned ally, a Multi-Strike's
secondary weapon, a Charge's run), the circumstances the map cannot see (unaware, higher ground,
mounted, firing blind...), Mayhem and the GM's modifiers. ``defense_choices`` lists the defenses
the document lets the target answer this action with, and the reactions that modify them.
"""

from __future__ import annotations

from dataclasses import replace

from ..system import AttackRequest, RuleError, RuleNotImplemented
from .cover import cover_effect
from .data import ACTION_LIST, ACTIONS, DEFAULT_SETTINGS
from .sheet import UNARMED, num, speed, weapon as sheet_weapon, weapon_list
from .status import names as status_names
from .ticks import cost, refusal, state_of
from ..text import Say, joined, say, say_n
from .attack import across_cover, melee_partners, outnumbers, plan_attack
# what an attack's options name, read the same by the attack itself (picks.py): here for the callers of old
from .picks import CALLED_SHOT_LOCATIONS, DEFENSE_REACTIONS, check_location, default_action, split_defense, spray_most  # noqa: F401
from .spray import covering_fire_refusal

#: attacks that use no weapon's damage: a Melee test with any weapon in hand ("Melee Attack Actions")
MANEUVERS = ("grapple", "pin", "choke_out", "break_pin", "trip", "disarm")
#: where a Called Shot may aim: "the head or similarly vital area" ("Ranged Attack Actions", Called Shot)
LOCATION_LABELS = {"head": say("Head"), "arms": say("Arms"), "torso": say("Torso"), "legs": say("Legs")}
#: the defenses of "Defending" and the opposed tests the actions name, in the card's words
DEFENSE_LABELS = {
    "duck": say("Duck (free)"),
    "dodge": say("Dodge (1 tick)"),
    "block": say("Block (1 tick)"),
    "parry": say("Parry (1 tick)"),
    "grapple_defense": say("Grapple Defense: Melee or Athletics (1 tick)"),
    "athletics": say("Athletics test (1 tick)"),
    "scrutiny": say("Scrutiny test (free)"),
    "melee_or_acrobatics": say("Melee or Acrobatics test (free)"),
    "none": say("No defense"),
}
#: a defense's name before a reaction ("Dodge, dropping prone first")
DEFENSE_NAMES = {"duck": say("Duck"), "dodge": say("Dodge"), "block": say("Block")}
#: reactions that change a defense against a ranged attack ("Movement Actions" Drop Prone; "Taking Cover")
TWO_WEAPONS = (("no", say("One weapon")), ("primary", say("Two weapons: this is the primary hand (-1)")),
               ("off_hand", say("Two weapons: this is the off hand (-3)")))


def _weapon(request: AttackRequest) -> dict:
    try:
        return sheet_weapon(request.attacker.sheet, request.weapon)
    except RuleError:
        return {}


def candidate_actions(weapon: dict) -> list:
    """The attack actions of the weapon's kind (the melee ones for a melee weapon, the ranged
    ones for a ranged or thrown one, the reactions among them: a Reaction Strike, an Overwatch
    attack) and the maneuvers any hand can try."""
    mode = "melee" if weapon.get("kind", "melee") == "melee" else "ranged"
    out = []
    for a in ACTION_LIST:
        if not a.is_attack or not a.automated:
            continue
        if a.mode == mode or a.key in MANEUVERS:
            out.append(a)
    if mode == "ranged":  # a defensive action, aimed at the opponents it pins down
        out.append(ACTIONS["covering_fire"])
    return out


def _why(action, exc: Exception) -> str:
    """The refusal with the action's name before it ("Grapple: the target is 5 squares away, not adjacent"),
    in words; a refusal that names the action first already is kept as it is."""
    text = exc.args[0] if exc.args and isinstance(exc.args[0], str) else str(exc)
    if str(text).startswith(str(action.name)):
        return text
    return say("{action}: {why}", action=action.name, why=text)


#: the options an action's refusal reads (``action_refusal``): the others are the attack's own choices
REFUSAL_OPTIONS = ("settings", "target_weapon", "free", "gm_allows_borrowing", "across_cover")


def action_refusal(request: AttackRequest, key: str) -> str:
    """Why the rules refuse this attack action now ("" when they allow it): what ``plan_attack``
    refuses (weapon kind, range, reach, grapple, jam, ammunition, surprise...) and the ticks it
    costs ("Ticks", "Overspending or Borrowing Ticks": an attack is not paid with borrowed ticks
    unless the GM allows it)."""
    action = ACTIONS[key]
    opts = request.options or {}
    if key == "covering_fire":
        why = covering_fire_refusal(request) or refusal(state_of(request.attacker), key, statuses=request.attacker.sheet.get("statuses"))
        if why:
            return _why(action, RuleError(why))
    else:
        keep = {k: opts[k] for k in REFUSAL_OPTIONS if k in opts}
        try:
            plan_attack(replace(request, options={**keep, "action": key, "defense": "none"}, targets=[]))
        except (RuleError, RuleNotImplemented) as exc:
            return _why(action, exc)
    st = state_of(request.attacker)
    paid, _ = cost(st, key, False, {**DEFAULT_SETTINGS, **(opts.get("settings") or {})})
    if paid > max(0, num(st["ticks"])) and not opts.get("gm_allows_borrowing"):
        return say("{action}: needs {paid} ticks, {left} left (Overspending or Borrowing Ticks: only the GM lets an attack "
                   "borrow)", action=action.name, paid=paid, left=max(0, num(st["ticks"])))
    return ""


def grouped(reasons: list[str]) -> list[str]:
    """Refusals that say the same of several actions, said once: "Grapple, Disarm, Trip: the target is
    5 squares away, not adjacent" (words: the actions' names and the reason each translated in its place)."""
    by_reason: dict[str, tuple[str, list]] = {}
    known = {str(a.name): a.name for a in ACTION_LIST}
    for r in reasons:
        if isinstance(r, Say) and r.msg == "{action}: {why}" and str(r.args.get("action")) in known:
            name, why = r.args["action"], r.args["why"]
        else:
            name, sep, why = str(r).partition(": ")
            if not (sep and name in known and not isinstance(r, Say)):
                by_reason.setdefault(str(r), (r, []))
                continue
            name = known[name]
        by_reason.setdefault(str(why), (why, []))[1].append(name)
    return [say("{actions}: {why}", actions=joined(names, ", "), why=why) if names else why
            for why, names in by_reason.values()]


def _opt(key, label, kind, default, available=True, reason="", help_="", **more) -> dict:
    out = {"key": key, "label": label, "kind": kind, "default": default, "available": available,
           "reason": reason if not available else ""}
    if help_:
        out["help"] = help_
    out.update(more)
    return out


#: the refusals of the attack actions (``_refusals``) judged on a request, by the request's values; emptied when full
_REFUSED: dict[bytes, tuple] = {}
REFUSED_KEPT = 512
#: the "Not now: ..." help of the refusals, by the refusals' identities (``_not_now``)
_NOT_NOW: dict[tuple, tuple] = {}
#: the attack actions' labels on the card ("Aim (1 tick, +1)"), by action: the same words every time
_LABELS: dict[str, str] = {}




def _refusals(request: AttackRequest, weapon: dict) -> tuple[tuple[object, str], ...]:
    """Each attack action the weapon may take (``candidate_actions``) with why the rules refuse it now ("" when they
    allow it: ``action_refusal``). Kept for the next request of the same values: the foes' plans (#60) have the
    options listed for every square, way, target and weapon they weigh, many of them alike. The key is the request
    itself written out (``repr``: its dataclasses' fields and plain values) as the refusals read it (the attacker,
    the target and the others with their sheets, books and places, the weapon, distance and cover,
    ``REFUSAL_OPTIONS``): the same words, the same values, the same refusals. Never kept with a board (a map is
    read where it is, not copied) or a value written as its address."""
    key = None
    if request.board is None:
        opts = request.options or {}
        key = repr((request.attacker, request.target, request.weapon, request.distance, request.cover,
                    {k: opts[k] for k in REFUSAL_OPTIONS if k in opts}, request.others))
        if " at 0x" in key:  # an object of no value's repr (its address): not kept
            key = None
        found = _REFUSED.get(key) if key is not None else None
        if found is not None:
            return found
    judged = tuple((a, action_refusal(request, a.key)) for a in candidate_actions(weapon))
    if key is not None:
        if len(_REFUSED) >= REFUSED_KEPT:
            _REFUSED.clear()
        _REFUSED[key] = judged
    return judged


def _action_label(a) -> str:
    label = _LABELS.get(a.key)
    if label is None or ACTIONS.get(a.key) is not a:
        ticks = say_n("{n} tick", "{n} ticks", a.ticks) if a.ticks is not None else \
            say_n("reaction, {n} tick", "reaction, {n} ticks", a.reaction_ticks)
        label = say("{action} ({ticks}, {modifier})", action=a.name, ticks=ticks, modifier=f"{a.attack:+d}") \
            if a.attack else say("{action} ({ticks})", action=a.name, ticks=ticks)
        if ACTIONS.get(a.key) is a:
            _LABELS[a.key] = label
    return label


#: the attack card's fixed words (labels, reasons, help), made once: ``attack_options`` is asked for every square,
#: way and weapon the foes' plans weigh (#60)
_SAY_ATTACK_ACTION = say("Attack action")
_SAY_NO_ATTACK_ACTION = say("no attack action is possible now")
_SAY_CALLED_SHOT_AIMED_AT = say("Called Shot aimed at")
_SAY_ONLY_WITH_A_CALLED_SHOT_RANGED = say("only with a Called Shot (Ranged Attack Actions)")
_SAY_CALLED_SHOT_IN_THE_HEAD_OR = say("Called Shot: \"in the head or similarly vital area\"")
_SAY_HEAD_OR_NECK = say("Head or neck")
_SAY_A_VITAL_AREA_OF_THE_TORSO = say("A vital area of the torso")
_SAY_WHERE_IT_HITS = say("Where it hits")
_SAY_A_CALLED_SHOT_SAYS_WHERE_IT = say("a Called Shot says where it aims")
_SAY_THE_RULES_ROLL_NO_HIT_LOCATION = say("the rules roll no hit location: the attacker's aim (a Disabling Shot's part) or the GM's call; armour (a cloak covers torso and legs) and cover depend on it")
_SAY_WEAPON_TO_KNOCK_AWAY = say("Weapon to knock away")
_SAY_DISARM_THE_TARGET_HOLDS_NO_WEAPON = say("Disarm: the target holds no weapon to knock away")
_SAY_ONLY_WITH_A_DISARM_MELEE_ATTACK = say("only with a Disarm (Melee Attack Actions)")
_SAY_TAKE_IT_WHEN_BEATING_THE_ROLL = say("Take it when beating the roll by 3 or more")
_SAY_DISARM_THEY_MAY_TAKE_IMMEDIATE_POSSESSION = say("Disarm: \"they may take immediate possession of the weapon\"")
_SAY_FREE_FROM_THE_PIN = say("Free from the pin")
_SAY_BREAK_PIN_NOBODY_ON_THIS_SIDE = say("Break Pin: nobody on this side is Pinned")
_SAY_ONLY_WITH_A_BREAK_PIN_MELEE = say("only with a Break Pin (Melee Attack Actions)")
_SAY_SECONDARY_WEAPON_SAME_ROLL_3 = say("Secondary weapon (same roll, -3)")
_SAY_ONLY_WITH_A_MULTI_STRIKE_ATTACK = say("only with a Multi-Strike (Attack Actions)")
_SAY_MULTI_STRIKE_THE_SECONDARY_WEAPONS_USE = say("Multi-Strike: the secondary weapons use the primary's roll and meet its one defense")
_SAY_SQUARES_RUN_BEFORE_THE_ATTACK = say("Squares run before the attack")
_SAY_ONLY_WITH_A_CHARGE_MELEE_ATTACK = say("only with a Charge (Melee Attack Actions)")
_SAY_CHARGE_UP_TO_2X_MOVEMENT_AT = say("Charge: up to 2x movement, at least 2 squares")
_SAY_THE_TARGET_IS_UNAWARE_OF_THE = say("The target is unaware of the attacker")
_SAY_ATTACKING_UNAWARE_OPPONENT_2_MELEE_1 = say("Attacking Unaware Opponent: +2 melee, +1 ranged, the first attack; no Charge")
_SAY_ATTACKING_FROM_HIGHER_GROUND_1 = say("Attacking from higher ground (+1)")
_SAY_ATTACKING_FROM_A_MOUNT = say("Attacking from a mount")
_SAY_1_TO_MELEE_2_TO_BALLISTIC = say("+1 to Melee, -2 to Ballistic Skill rolls")
_SAY_OUTNUMBERING_THE_OPPONENT_1 = say("Outnumbering the opponent (+1)")
_SAY_OUTNUMBER_OPPONENT_FOUND_ON_THE_MAP = say("Outnumber Opponent: found on the map; change it if the map is wrong")
_SAY_THE_TARGET_IS_ON_HIGHER_GROUND = say("The target is on higher ground (-1 to its defense)")
_SAY_ONLY_AGAINST_RANGED_ATTACKS_COMMON_PHYSICAL = say("only against ranged attacks (Common Physical Combat Modifiers: Higher Ground)")
_SAY_FIRING_BLIND_FROM_COVER_3_NO = say("Firing blind from cover (-3, no range bonus)")
_SAY_FIRING_INTO_MELEE_2_A_MISS = say("Firing into melee (-2; a miss by it strays)")
_SAY_FOUND_ON_THE_MAP_CHANGE_IT = say("found on the map; change it if the map is wrong")
_SAY_WEAPONS_IN_HAND = say("Weapons in hand")
_SAY_WIELDING_TWO_OR_MORE_WEAPONS_AMBIDEXTERITY = say("Wielding Two (or more) Weapons; Ambidexterity reduces the off hand's penalty by 2")
_SAY_MAYHEM_POINTS_SPENT = say("Mayhem points spent")
_SAY_MAYHEM_POINTS_NONE_TO_SPEND_THE = say("Mayhem Points: none to spend (the GM grants them for inspired actions)")
_SAY_FROM_SWORD_OR_GUNPOINT_2_A = say("From sword- or gunpoint (+2, a critical at the head)")
_SAY_SWORDPOINT_GUNPOINT_AFTER_INITIATE_SWORD_GUN = say("Swordpoint & Gunpoint: after Initiate Sword/Gun-point (3 ticks) on this target")
_SAY_THE_TARGET_IS_ACROSS_THE_COVER = say("The target is across the cover")
_SAY_ONLY_FOR_A_CHARACTER_HUNKERED_DOWN = say("only for a character hunkered down (Defensive Actions: Hunker Down)")
_SAY_HUNKER_DOWN_NO_ATTACK_ON_OPPONENTS = say("Hunker Down: no attack on opponents across the cover before standing up; found on the map")
_SAY_THE_TARGET_HAS_TAKEN_COVER = say("The target has taken cover")
_SAY_AN_ALLY_S_COVERING_FIRE_PROTECTS = say("An ally's Covering Fire protects the target (+1)")
_SAY_GM_MODIFIER_TO_THE_ATTACK = say("GM modifier to the attack")
_SAY_GM_MODIFIER_TO_THE_DEFENSE = say("GM modifier to the defense")
_SAY_THE_GM_LETS_THIS_ATTACK_BORROW = say("The GM lets this attack borrow ticks")
_SAY_OVERSPENDING_OR_BORROWING_TICKS = say("Overspending or Borrowing Ticks")


def _not_now(refused: tuple) -> str:
    """The refusals said once each (``grouped``), kept for the same refusals (the same objects: ``_refusals`` keeps
    them) in the same order."""
    key = tuple(id(r) for r in refused)
    found = _NOT_NOW.get(key)
    if found is None or found[0] != refused or any(a is not b for a, b in zip(found[0], refused)):
        found = (refused, say("Not now: {reasons}", reasons=joined(grouped(list(refused)), "; ")))
        if len(_NOT_NOW) >= REFUSED_KEPT:
            _NOT_NOW.clear()
        _NOT_NOW[key] = found
    return found[1]


def _action_option(request: AttackRequest, weapon: dict, explicit: str | None) -> dict:
    """The attack action: the ones the rules allow now (the one picked kept, marked, when they do
    not), the refused ones with their reasons in ``help`` and ``unavailable``; the default the
    weapon's plain attack, or the first one allowed when that is refused."""
    values, refused = [], []
    for a, why in _refusals(request, weapon):
        label = _action_label(a)
        value = {"key": a.key, "label": label}
        if a.key == "spray_n_pray":
            value["targets"] = spray_most(weapon)
        if why:
            refused.append(why)
            if a.key != explicit:
                continue
            value["label"], value["refused"] = say("{option} - not now", option=label), True
        values.append(value)
    allowed = [v["key"] for v in values if not v.pop("refused", False)]
    default = default_action(weapon, request.options)
    if default not in allowed and allowed:
        default = allowed[0]
    help_ = _not_now(tuple(refused)) if refused else ""
    return _opt("action", _SAY_ATTACK_ACTION, "choice", default, bool(allowed),
                refused[0] if refused and not allowed else _SAY_NO_ATTACK_ACTION, help_,
                values=values, unavailable=refused)


def attack_options(request: AttackRequest) -> list[dict]:
    """The attacker's choices for this attack now, each with why not when the rules refuse it:
    the action first, then what an action asks (a Called Shot's aim, the weapon to knock away, the
    pinned ally to free...), the circumstances of "Common Physical Combat Modifiers" the map cannot
    see, Mayhem points, sword- or gunpoint and the GM's modifiers.

    Every key is listed whatever the action (greyed, with the reason, where the action picked does
    not ask it): the card sends what it showed before the action changed, and the rules ignore a key
    the picked action does not read."""
    opts = request.options or {}
    att, tgt = request.attacker, request.target
    weapon = _weapon(request)
    picked = opts.get("action") or default_action(weapon, opts)
    action = ACTIONS.get(picked)
    name = action.name if action else picked
    melee = (action.mode == "melee") if action and action.mode else weapon.get("kind", "melee") == "melee"
    a_state, t_state = state_of(att), state_of(tgt)
    settings = {**DEFAULT_SETTINGS, **(opts.get("settings") or {})}
    out = [_action_option(request, weapon, opts.get("action"))]

    # what an action asks
    called = picked == "called_shot"
    out.append(_opt("called_at", _SAY_CALLED_SHOT_AIMED_AT, "choice", "head", called,
                    _SAY_ONLY_WITH_A_CALLED_SHOT_RANGED,
                    _SAY_CALLED_SHOT_IN_THE_HEAD_OR,
                    values=[{"key": "head", "label": _SAY_HEAD_OR_NECK}, {"key": "torso", "label": _SAY_A_VITAL_AREA_OF_THE_TORSO}]))
    out.append(_opt("location", _SAY_WHERE_IT_HITS, "choice", settings["default_hit_location"], not called,
                    _SAY_A_CALLED_SHOT_SAYS_WHERE_IT,
                    _SAY_THE_RULES_ROLL_NO_HIT_LOCATION,
                    values=[{"key": k, "label": v} for k, v in LOCATION_LABELS.items()]))
    held = [w for w in weapon_list(tgt.sheet) if w["key"] != UNARMED]
    disarm = picked == "disarm"
    out.append(_opt("target_weapon", _SAY_WEAPON_TO_KNOCK_AWAY, "choice", held[0]["key"] if held else None,
                    disarm and bool(held),
                    _SAY_DISARM_THE_TARGET_HOLDS_NO_WEAPON if disarm else
                    _SAY_ONLY_WITH_A_DISARM_MELEE_ATTACK,
                    values=[{"key": w["key"], "label": w["label"]} for w in held]))
    out.append(_opt("take", _SAY_TAKE_IT_WHEN_BEATING_THE_ROLL, "bool", True, disarm,
                    _SAY_ONLY_WITH_A_DISARM_MELEE_ATTACK,
                    _SAY_DISARM_THEY_MAY_TAKE_IMMEDIATE_POSSESSION))
    pinned = [c for c in (att, *request.others) if c.side == att.side and "Pinned" in status_names(c.sheet.get("statuses"))]
    out.append(_opt("free", _SAY_FREE_FROM_THE_PIN, "choice", att.id, picked == "break_pin" and bool(pinned),
                    _SAY_BREAK_PIN_NOBODY_ON_THIS_SIDE if picked == "break_pin" else
                    _SAY_ONLY_WITH_A_BREAK_PIN_MELEE,
                    values=[{"key": c.id, "label": c.name if c.id != att.id else say("{name} (self)", name=c.name)} for c in pinned]
                    or [{"key": att.id, "label": att.name}]))
    out.append(_opt("secondary", _SAY_SECONDARY_WEAPON_SAME_ROLL_3, "bool", False,
                    picked in ("multi_strike", "multi_strike_ranged"), _SAY_ONLY_WITH_A_MULTI_STRIKE_ATTACK,
                    _SAY_MULTI_STRIKE_THE_SECONDARY_WEAPONS_USE))
    out.append(_opt("charge_distance", _SAY_SQUARES_RUN_BEFORE_THE_ATTACK, "int", None, picked == "charge",
                    _SAY_ONLY_WITH_A_CHARGE_MELEE_ATTACK, _SAY_CHARGE_UP_TO_2X_MOVEMENT_AT,
                    min=0, max=2 * speed(att.sheet)))

    # the circumstances ("Common Physical Combat Modifiers") the map cannot see
    unaware_now = bool(t_state.get("surprised")) and att.id not in (t_state.get("unaware_spent") or [])
    out.append(_opt("unaware", _SAY_THE_TARGET_IS_UNAWARE_OF_THE, "bool", unaware_now,
                    help_=_SAY_ATTACKING_UNAWARE_OPPONENT_2_MELEE_1))
    out.append(_opt("higher_ground", _SAY_ATTACKING_FROM_HIGHER_GROUND_1, "bool", False))
    out.append(_opt("mounted", _SAY_ATTACKING_FROM_A_MOUNT, "bool", False, help_=_SAY_1_TO_MELEE_2_TO_BALLISTIC))
    out.append(_opt("outnumber", _SAY_OUTNUMBERING_THE_OPPONENT_1, "bool", outnumbers(att, tgt, request.others or []),
                    melee, say("{action} is no melee attack (Common Physical Combat Modifiers: Outnumber Opponent)", action=name),
                    _SAY_OUTNUMBER_OPPONENT_FOUND_ON_THE_MAP))
    out.append(_opt("target_higher_ground", _SAY_THE_TARGET_IS_ON_HIGHER_GROUND, "bool", False,
                    not melee, _SAY_ONLY_AGAINST_RANGED_ATTACKS_COMMON_PHYSICAL))
    out.append(_opt("firing_blind", _SAY_FIRING_BLIND_FROM_COVER_3_NO, "bool", False,
                    not melee, say("{action} is no shot (Common Physical Combat Modifiers: Firing Blind)", action=name)))
    out.append(_opt("into_melee", _SAY_FIRING_INTO_MELEE_2_A_MISS, "bool",
                    bool(melee_partners(tgt, att, request.others or [])), not melee,
                    say("{action} is no shot (Common Physical Combat Modifiers: Firing into Melee)", action=name),
                    _SAY_FOUND_ON_THE_MAP_CHANGE_IT))
    out.append(_opt("two_weapons", _SAY_WEAPONS_IN_HAND, "choice", "no",
                    help_=_SAY_WIELDING_TWO_OR_MORE_WEAPONS_AMBIDEXTERITY,
                    values=[{"key": k, "label": v} for k, v in TWO_WEAPONS]))
    mayhem = num(att.sheet.get("mayhem"))
    out.append(_opt("mayhem", _SAY_MAYHEM_POINTS_SPENT, "int", 0, mayhem > 0,
                    _SAY_MAYHEM_POINTS_NONE_TO_SPEND_THE, min=0, max=mayhem))
    out.append(_opt("swordpoint", _SAY_FROM_SWORD_OR_GUNPOINT_2_A, "bool",
                    a_state.get("swordpoint") == tgt.id,
                    help_=_SAY_SWORDPOINT_GUNPOINT_AFTER_INITIATE_SWORD_GUN))
    hunkered = "hunkered" in a_state["stances"]
    out.append(_opt("across_cover", _SAY_THE_TARGET_IS_ACROSS_THE_COVER, "bool",
                    across_cover(request, settings) if hunkered else False, hunkered,
                    _SAY_ONLY_FOR_A_CHARACTER_HUNKERED_DOWN,
                    _SAY_HUNKER_DOWN_NO_ATTACK_ON_OPPONENTS))
    out.append(_opt("in_cover", _SAY_THE_TARGET_HAS_TAKEN_COVER, "bool", bool(t_state.get("in_cover"))))
    out.append(_opt("covering_fire", _SAY_AN_ALLY_S_COVERING_FIRE_PROTECTS, "bool",
                    "covered_by_fire" in t_state["stances"]))
    out.append(_opt("modifier", _SAY_GM_MODIFIER_TO_THE_ATTACK, "int", 0, min=-10, max=10))
    out.append(_opt("defense_modifier", _SAY_GM_MODIFIER_TO_THE_DEFENSE, "int", 0, min=-10, max=10))
    out.append(_opt("gm_allows_borrowing", _SAY_THE_GM_LETS_THIS_ATTACK_BORROW, "bool", False,
                    help_=_SAY_OVERSPENDING_OR_BORROWING_TICKS))
    return out


def defense_choices(system, request: AttackRequest) -> list[dict]:
    """"Defending" and the action's own words: the defenses the target may answer this action
    with (a Trip or a Disarm: Duck, Dodge or Athletics; a Grapple: Duck or Dodge; a Pin: Grapple
    Defense; a Choke Out: Athletics; a Distracting Shot: Scrutiny; anything else Duck, Dodge,
    Block, Parry against melee), or none; and against a ranged attack each of Duck, Dodge and
    Block with a reaction before it: Drop Prone ("+1 [or +2, the prone setting] to Defensive rolls
    against Ranged attacks", 1 tick) or, when cover stands between the target and the attacker, Take
    Cover ("requires 2 ticks (reaction)", +2 in cover). Each refused one says why."""
    weapon = _weapon(request)
    opts = request.options or {}
    key = opts.get("action") or default_action(weapon, opts)
    action = ACTIONS.get(key)
    if action is None or not action.is_attack:
        return []
    own = action.extra.get("defenses")
    bases = list(own) if own else ["duck", "dodge", "block", "parry"]
    out = []

    def add(value: str, label: str, group: str | None = None) -> None:
        entry = {"key": value, "label": label, "value": value}
        try:
            system.odds(replace(request, options={**opts, "defense": value}, targets=[]))
            entry.update(available=True, reason="")
        except (RuleError, RuleNotImplemented) as exc:
            entry.update(available=False, reason=exc.args[0] if exc.args else str(exc))
        if group:
            entry["group"] = group
        out.append(entry)

    ranged = action.mode == "ranged" and not action.extra.get("test_only")
    t_state = state_of(request.target)
    settings = {**DEFAULT_SETTINGS, **(opts.get("settings") or {})}
    faces_cover = request.cover is not None and cover_effect(request.cover, settings).level == "cover"
    for b in bases:  # each defense, then the reactions that may come before it, as one group
        variants = []
        if ranged and b in ("duck", "dodge", "block"):
            name = DEFENSE_NAMES[b]
            if not t_state.get("prone"):
                variants.append((f"{b}+prone", say("{defense}, dropping prone first (1 more tick)", defense=name)))
            if not t_state.get("in_cover") and faces_cover:
                variants.append((f"{b}+cover", say("{defense}, taking cover first (2 more ticks)", defense=name)))
        add(b, DEFENSE_LABELS.get(b, b.title()), b if variants else None)
        for key, label in variants:
            add(key, label, b)
    add("none", DEFENSE_LABELS["none"])
    return out
