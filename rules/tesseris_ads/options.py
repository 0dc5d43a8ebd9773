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

import pickle
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
#: the attack actions' labels on the card ("Aim (1 tick, +1)"), by action: the same words every time
_LABELS: dict[str, str] = {}


def _refusals(request: AttackRequest, weapon: dict) -> tuple[tuple[object, str], ...]:
    """Each attack action the weapon may take (``candidate_actions``) with why the rules refuse it now ("" when they
    allow it: ``action_refusal``). Kept for the next request of the same values: the foes' plans (#60) have the
    options listed for every square, way, target and weapon they weigh, many of them alike. The key is the request
    itself, pickled, as the refusals read it (the attacker, the target and the others with their sheets, books and
    places, the weapon, distance and cover, ``REFUSAL_OPTIONS``): the same bytes, the same values, the same refusals.
    Never kept with a board (a map is read where it is, not copied) or what pickle cannot write."""
    key = None
    if request.board is None:
        opts = request.options or {}
        try:
            key = pickle.dumps((request.attacker, request.target, request.weapon, request.distance, request.cover,
                                {k: opts[k] for k in REFUSAL_OPTIONS if k in opts}, request.others),
                               pickle.HIGHEST_PROTOCOL)
        except (pickle.PicklingError, TypeError, AttributeError, ValueError):
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
    help_ = say("Not now: {reasons}", reasons=joined(grouped(refused), "; ")) if refused else ""
    return _opt("action", say("Attack action"), "choice", default, bool(allowed),
                refused[0] if refused and not allowed else say("no attack action is possible now"), help_,
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
    out.append(_opt("called_at", say("Called Shot aimed at"), "choice", "head", called,
                    say("only with a Called Shot (Ranged Attack Actions)"),
                    say("Called Shot: \"in the head or similarly vital area\""),
                    values=[{"key": "head", "label": say("Head or neck")}, {"key": "torso", "label": say("A vital area of the torso")}]))
    out.append(_opt("location", say("Where it hits"), "choice", settings["default_hit_location"], not called,
                    say("a Called Shot says where it aims"),
                    say("the rules roll no hit location: the attacker's aim (a Disabling Shot's part) or the GM's call; "
                        "armour (a cloak covers torso and legs) and cover depend on it"),
                    values=[{"key": k, "label": v} for k, v in LOCATION_LABELS.items()]))
    held = [w for w in weapon_list(tgt.sheet) if w["key"] != UNARMED]
    disarm = picked == "disarm"
    out.append(_opt("target_weapon", say("Weapon to knock away"), "choice", held[0]["key"] if held else None,
                    disarm and bool(held),
                    say("Disarm: the target holds no weapon to knock away") if disarm else
                    say("only with a Disarm (Melee Attack Actions)"),
                    values=[{"key": w["key"], "label": w["label"]} for w in held]))
    out.append(_opt("take", say("Take it when beating the roll by 3 or more"), "bool", True, disarm,
                    say("only with a Disarm (Melee Attack Actions)"),
                    say("Disarm: \"they may take immediate possession of the weapon\"")))
    pinned = [c for c in (att, *request.others) if c.side == att.side and "Pinned" in status_names(c.sheet.get("statuses"))]
    out.append(_opt("free", say("Free from the pin"), "choice", att.id, picked == "break_pin" and bool(pinned),
                    say("Break Pin: nobody on this side is Pinned") if picked == "break_pin" else
                    say("only with a Break Pin (Melee Attack Actions)"),
                    values=[{"key": c.id, "label": c.name if c.id != att.id else say("{name} (self)", name=c.name)} for c in pinned]
                    or [{"key": att.id, "label": att.name}]))
    out.append(_opt("secondary", say("Secondary weapon (same roll, -3)"), "bool", False,
                    picked in ("multi_strike", "multi_strike_ranged"), say("only with a Multi-Strike (Attack Actions)"),
                    say("Multi-Strike: the secondary weapons use the primary's roll and meet its one defense")))
    out.append(_opt("charge_distance", say("Squares run before the attack"), "int", None, picked == "charge",
                    say("only with a Charge (Melee Attack Actions)"), say("Charge: up to 2x movement, at least 2 squares"),
                    min=0, max=2 * speed(att.sheet)))

    # the circumstances ("Common Physical Combat Modifiers") the map cannot see
    unaware_now = bool(t_state.get("surprised")) and att.id not in (t_state.get("unaware_spent") or [])
    out.append(_opt("unaware", say("The target is unaware of the attacker"), "bool", unaware_now,
                    help_=say("Attacking Unaware Opponent: +2 melee, +1 ranged, the first attack; no Charge")))
    out.append(_opt("higher_ground", say("Attacking from higher ground (+1)"), "bool", False))
    out.append(_opt("mounted", say("Attacking from a mount"), "bool", False, help_=say("+1 to Melee, -2 to Ballistic Skill rolls")))
    out.append(_opt("outnumber", say("Outnumbering the opponent (+1)"), "bool", outnumbers(att, tgt, request.others or []),
                    melee, say("{action} is no melee attack (Common Physical Combat Modifiers: Outnumber Opponent)", action=name),
                    say("Outnumber Opponent: found on the map; change it if the map is wrong")))
    out.append(_opt("target_higher_ground", say("The target is on higher ground (-1 to its defense)"), "bool", False,
                    not melee, say("only against ranged attacks (Common Physical Combat Modifiers: Higher Ground)")))
    out.append(_opt("firing_blind", say("Firing blind from cover (-3, no range bonus)"), "bool", False,
                    not melee, say("{action} is no shot (Common Physical Combat Modifiers: Firing Blind)", action=name)))
    out.append(_opt("into_melee", say("Firing into melee (-2; a miss by it strays)"), "bool",
                    bool(melee_partners(tgt, att, request.others or [])), not melee,
                    say("{action} is no shot (Common Physical Combat Modifiers: Firing into Melee)", action=name),
                    say("found on the map; change it if the map is wrong")))
    out.append(_opt("two_weapons", say("Weapons in hand"), "choice", "no",
                    help_=say("Wielding Two (or more) Weapons; Ambidexterity reduces the off hand's penalty by 2"),
                    values=[{"key": k, "label": v} for k, v in TWO_WEAPONS]))
    mayhem = num(att.sheet.get("mayhem"))
    out.append(_opt("mayhem", say("Mayhem points spent"), "int", 0, mayhem > 0,
                    say("Mayhem Points: none to spend (the GM grants them for inspired actions)"), min=0, max=mayhem))
    out.append(_opt("swordpoint", say("From sword- or gunpoint (+2, a critical at the head)"), "bool",
                    a_state.get("swordpoint") == tgt.id,
                    help_=say("Swordpoint & Gunpoint: after Initiate Sword/Gun-point (3 ticks) on this target")))
    hunkered = "hunkered" in a_state["stances"]
    out.append(_opt("across_cover", say("The target is across the cover"), "bool",
                    across_cover(request, settings) if hunkered else False, hunkered,
                    say("only for a character hunkered down (Defensive Actions: Hunker Down)"),
                    say("Hunker Down: no attack on opponents across the cover before standing up; found on the map")))
    out.append(_opt("in_cover", say("The target has taken cover"), "bool", bool(t_state.get("in_cover"))))
    out.append(_opt("covering_fire", say("An ally's Covering Fire protects the target (+1)"), "bool",
                    "covered_by_fire" in t_state["stances"]))
    out.append(_opt("modifier", say("GM modifier to the attack"), "int", 0, min=-10, max=10))
    out.append(_opt("defense_modifier", say("GM modifier to the defense"), "int", 0, min=-10, max=10))
    out.append(_opt("gm_allows_borrowing", say("The GM lets this attack borrow ticks"), "bool", False,
                    help_=say("Overspending or Borrowing Ticks")))
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
