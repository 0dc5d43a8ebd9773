"""The untitled phase / target-number system (seed document 002).

The document (sections "Combat Sequence", "Initiative and Actions",
"Combined Actions", "Ranged Attacks", "Special Ranged Attacks", "Damage
and Wounds") states how time runs in phases, how actions are declared and
resolved, and how targeting, called shots and wild shots work. It never
names its dice, cuts off its hit-location table and its special ranged
attacks, and stops its wounds section after naming flesh and traumatic
wounds. Every one of those gaps is a per-game setting here (see
:func:`default_settings`), listed on the help page.

The phase clock, the declarations, the pending actions and the targeting
of each shooter are plain JSON-able data (a "combat state" dict) that the
app stores; every function that changes it returns a new dict.
"""

from __future__ import annotations

import copy
from typing import Any

from .. import odds as _odds
from ..dice import DiceError, DiceSource, RollRecord, parse
from ..system import (
    AttackRequest,
    AttackResult,
    BaseSystem,
    Combatant,
    CoverEffect,
    Effect,
    Modifier,
    RuleError,
    RuleNotImplemented,
    SheetField,
)

SRC_SEQUENCE = "Combat Sequence"
SRC_INITIATIVE = "Initiative and Actions"
SRC_COMBINED = "Combined Actions"
SRC_RANGED = "Ranged Attacks"
SRC_SPECIAL = "Special Ranged Attacks"
SRC_WOUNDS = "Damage and Wounds"
SRC_SETTING = "game setting (the document is silent)"

#: action lengths, shortest first: shorter actions resolve first
LENGTHS: tuple[str, ...] = ("free", "phase", "round", "turn", "minute")
_RANK = {name: i for i, name in enumerate(LENGTHS)}

LOCATIONS: tuple[str, ...] = (
    "head",
    "chest",
    "abdomen",
    "left arm",
    "right arm",
    "left leg",
    "right leg",
)

ATTRIBUTES: tuple[str, ...] = (
    "strength",
    "reflexes",
    "intelligence",
    "perception",
    "constitution",
    "willpower",
)

#: the document's own numbers (sections "Combat Sequence" and "Ranged Attacks")
SURPRISE_TN = 8
WILD_SHOT_MODIFIER = -2
BURST_BULLETS = 3

#: actions the module knows by name; any other name is a GM-described action
#: whose length the declarer gives.
ACTIONS: dict[str, dict] = {
    "target": {"length": "phase", "targets": True, "label": "Targeting"},
    "fire": {"length": "phase", "targets": True, "shots": 1, "label": "Fire"},
    "three_round_burst": {"length": "phase", "targets": True, "burst": BURST_BULLETS, "label": "Three-round burst"},
    "full_auto": {"length": "round", "targets": True, "auto": True, "label": "Full auto"},
    # "Combined Actions": a round action whose first phase is a Targeting
    # action and whose last phase fires two shots instead of one.
    "target_and_fire": {
        "length": "round",
        "targets": True,
        "combined": True,
        "label": "Target and fire",
        "steps": [{"at": "first", "kind": "target"}, {"at": "last", "kind": "fire", "shots": 2}],
    },
}
_SHOOTING = {"fire", "three_round_burst", "full_auto", "target_and_fire"}


# ---------------------------------------------------------------- settings


def default_settings() -> dict:
    """Per-game choices for everything document 002 leaves open.

    Dice: the document gives "a Reflexes roll (TN 8)" and initiative
    totals of 16 and 21. One d10 plus an attribute rated 1-10 (5 is
    average) makes TN 8 a real test (an average Reflexes 5 needs 3+ on
    the d10, 80%; Reflexes 2 needs 6+, 50%), which the +1 per failed phase
    then eases; initiative as d10 + Reflexes + Intelligence averages 15.5,
    so 16 is an ordinary total and 21 a quick one. With 2d10 + attribute
    the TN 8 check would almost never fail (99% at Reflexes 5).
    """
    return {
        "roll_dice": "d10",
        "initiative_attributes": ["reflexes", "intelligence"],
        "initiative_ties": "name",
        "phases_per_round": 2,
        "rounds_per_turn": 5,
        "turns_per_minute": 6,
        "free_actions_per_phase": 1,
        "free_while_waiting": False,
        "surprise_tn": SURPRISE_TN,
        "surprise_rounds": 1,
        "ranged_attribute": "reflexes",
        "ranged_tn": 8,
        "called_shot_tn": {
            "head": 4,
            "chest": 1,
            "abdomen": 2,
            "left arm": 3,
            "right arm": 3,
            "left leg": 2,
            "right leg": 2,
        },
        "drift_first_arm": "right",
        "hit_location_dice": "d10",
        "hit_location_table": [
            [1, 1, "head"],
            [2, 3, "chest"],
            [4, 4, "abdomen"],
            [5, 5, "right arm"],
            [6, 6, "left arm"],
            [7, 8, "right leg"],
            [9, 10, "left leg"],
        ],
        "burst_margin_per_extra_hit": 3,
        "full_auto_bullets": 10,
        "flesh_per_constitution": 3,
        "trauma_check": True,
        "trauma_attribute": "constitution",
        "trauma_location_modifier": {
            "head": 2,
            "chest": 1,
            "abdomen": 1,
            "left arm": 0,
            "right arm": 0,
            "left leg": 0,
            "right leg": 0,
        },
        "trauma_roll_penalty": 2,
        "trauma_effects": {
            "head": "unconscious",
            "chest": "dying",
            "abdomen": "dying",
            "left arm": "left arm useless",
            "right arm": "right arm useless",
            "left leg": "left leg useless, falls prone",
            "right leg": "right leg useless, falls prone",
        },
    }


def resolve_settings(settings: dict | None = None) -> dict:
    """The defaults overlaid with the game's settings, checked."""
    out = default_settings()
    for key, value in (settings or {}).items():
        if key not in out:
            raise RuleError(f"unknown phase_tn setting {key!r}")
        out[key] = value
    for key in ("roll_dice", "hit_location_dice"):
        try:
            parse(out[key])
        except DiceError as exc:
            raise RuleError(f"setting {key}: {exc}") from None
    for key in ("phases_per_round", "rounds_per_turn", "turns_per_minute"):
        if not isinstance(out[key], int) or out[key] < 1:
            raise RuleError(f"setting {key} must be a whole number of at least 1")
    for attr in out["initiative_attributes"]:
        if attr not in ATTRIBUTES:
            raise RuleError(f"setting initiative_attributes: unknown attribute {attr!r}")
    if out["drift_first_arm"] not in ("right", "left"):
        raise RuleError("setting drift_first_arm must be 'right' or 'left'")
    if out["initiative_ties"] not in ("name", "reflexes"):
        raise RuleError("setting initiative_ties must be 'name' or 'reflexes'")
    return out


# ---------------------------------------------------------------- time


def length_in_phases(length: str, settings: dict | None = None) -> int:
    """How many phases an action of this length takes ("Initiative and Actions").

    A free action takes none of the phase's time and resolves at its end,
    like a phase action, but before it.
    """
    s = resolve_settings(settings)
    per_round = s["phases_per_round"]
    per_turn = per_round * s["rounds_per_turn"]
    table = {
        "free": 1,
        "phase": 1,
        "round": per_round,
        "turn": per_turn,
        "minute": per_turn * s["turns_per_minute"],
    }
    try:
        return table[length]
    except KeyError:
        raise RuleError(f"unknown action length {length!r}; lengths are {', '.join(LENGTHS)}") from None


def resolves_at(declared_phase: int, length: str, settings: dict | None = None) -> int:
    """The phase at whose end an action declared in ``declared_phase`` resolves.

    "Initiative and Actions": actions resolve at the end of the time they
    take, counted from the phase they were declared in.
    """
    return declared_phase + length_in_phases(length, settings) - 1


def clock(phase: int, settings: dict | None = None) -> dict:
    """Where an absolute phase number (1 = the encounter's first) falls."""
    s = resolve_settings(settings)
    per_round = s["phases_per_round"]
    rnd = (phase - 1) // per_round + 1
    turn = (rnd - 1) // s["rounds_per_turn"] + 1
    return {
        "phase": phase,
        "round": rnd,
        "phase_in_round": (phase - 1) % per_round + 1,
        "turn": turn,
        "minute": (turn - 1) // s["turns_per_minute"] + 1,
    }


def resolution_groups(actions: list[tuple[str, str]]) -> list[set[str]]:
    """Who resolves together, in order, among actions ending in one phase.

    "Initiative and Actions": shorter actions resolve before longer ones
    (free, phase, round, turn, minute) and all actions of one length
    resolve simultaneously. ``actions`` are ``(who, length)`` pairs.
    """
    buckets: dict[str, set[str]] = {}
    for who, length in actions:
        if length not in _RANK:
            raise RuleError(f"unknown action length {length!r}; lengths are {', '.join(LENGTHS)}")
        buckets.setdefault(length, set()).add(who)
    return [buckets[length] for length in LENGTHS if length in buckets]


def declaration_order(initiatives: dict[str, int]) -> list[str]:
    """Who declares first: lowest initiative to highest ("Initiative and Actions").

    Ties are not covered by the document; they go in name order so the
    order is the same every time.
    """
    return sorted(initiatives, key=lambda who: (initiatives[who], who))


# ---------------------------------------------------------------- rolls


def _attr(sheet: dict, name: str) -> int:
    value = (sheet.get("attributes") or {}).get(name, 0)
    if not isinstance(value, int):
        raise RuleError(f"attribute {name} must be a whole number")
    return value


def wound_modifiers(sheet: dict, settings: dict | None = None) -> list[Modifier]:
    """The roll penalty traumatic wounds give (a setting: the document stops short)."""
    s = resolve_settings(settings)
    count = sum((sheet.get("trauma") or {}).values())
    if count and s["trauma_roll_penalty"]:
        return [Modifier(f"traumatic wounds x{count}", -s["trauma_roll_penalty"] * count, SRC_WOUNDS)]
    return []


def attribute_roll(
    sheet: dict,
    attribute: str,
    tn: int,
    dice: DiceSource,
    settings: dict | None = None,
    skill: str | None = None,
    modifiers: list[Modifier] | tuple = (),
    purpose: str = "",
) -> dict:
    """A roll of the game's dice + attribute (+ skill) + modifiers against a TN.

    The document gives its checks as "<attribute> roll (TN n)" ("Combat
    Sequence"); the dice are the ``roll_dice`` setting.
    """
    s = resolve_settings(settings)
    if attribute not in ATTRIBUTES:
        raise RuleError(f"unknown attribute {attribute!r}")
    mods = [Modifier(attribute.capitalize(), _attr(sheet, attribute), "sheet")]
    if skill:
        rank = (sheet.get("skills") or {}).get(skill, 0)
        mods.append(Modifier(f"skill {skill}", rank, "sheet"))
    mods += list(modifiers) + wound_modifiers(sheet, s)
    record = dice.roll(s["roll_dice"], purpose or f"{attribute} roll (TN {tn})")
    total = record.total + sum(m.value for m in mods)
    return {
        "success": total >= tn,
        "total": total,
        "tn": tn,
        "margin": total - tn,
        "roll": record,
        "modifiers": mods,
    }


def roll_initiative(sheet: dict, dice: DiceSource, settings: dict | None = None) -> dict:
    """Initiative for one phase: the dice + the initiative attributes + bonus.

    "Combat Sequence": rolled at the start of each phase in which the
    character declares. Which attributes are added is a setting.
    """
    s = resolve_settings(settings)
    mods = [Modifier(a.capitalize(), _attr(sheet, a), "sheet") for a in s["initiative_attributes"]]
    bonus = sheet.get("initiative_bonus", 0)
    if bonus:
        mods.append(Modifier("initiative bonus", bonus, "sheet"))
    record = dice.roll(s["roll_dice"], "initiative")
    return {"total": record.total + sum(m.value for m in mods), "roll": record, "modifiers": mods}


# ---------------------------------------------------------------- awareness


def surprised(aware: dict[str, list[str]], overt: list[tuple[str, str]]) -> set[str]:
    """Who is surprised when the encounter opens ("Combat Sequence").

    ``aware[x]`` lists whom x is aware of (the GM decides that);
    ``overt`` lists ``(actor, target)`` overt actions such as attacks.
    A target not aware of the actor of an overt action against it is
    surprised.
    """
    return {target for actor, target in overt if actor not in set(aware.get(target, ()))}


def new_combat(
    combatants: list[str],
    surprised_ids: set[str] | list[str] = (),
    phase: int = 1,
    settings: dict | None = None,
) -> dict:
    """A fresh combat state: the phase clock, nobody declared, nothing pending.

    "Combat Sequence": the surprised cannot react for at least one round
    (``surprise_rounds``); from the phase after that they roll Reflexes
    at the start of each phase.
    """
    s = resolve_settings(settings)
    ids = list(dict.fromkeys(combatants))
    wait = s["surprise_rounds"] * s["phases_per_round"]
    unknown = set(surprised_ids) - set(ids)
    if unknown:
        raise RuleError(f"surprised but not in the combat: {', '.join(sorted(unknown))}")
    return {
        "phase": phase,
        "combatants": ids,
        "surprise": {who: {"from_phase": phase + wait, "failures": 0} for who in sorted(set(surprised_ids))},
        "initiative": {},
        "order": [],
        "declared": [],
        "pending": [],
        "next_action": 1,
        "targeting": {},
    }


def surprise_check(
    entry: dict, sheet: dict, dice: DiceSource, settings: dict | None = None
) -> tuple[dict | None, dict]:
    """One start-of-phase Reflexes roll to shake off surprise ("Combat Sequence").

    TN 8, +1 for every phase already failed. Returns the new surprise
    entry (None once the character may declare) and the roll.
    """
    s = resolve_settings(settings)
    failures = entry.get("failures", 0)
    mods = [Modifier("phases failed", failures, SRC_SEQUENCE)] if failures else []
    result = attribute_roll(sheet, "reflexes", s["surprise_tn"], dice, s, modifiers=mods, purpose="surprise: Reflexes roll")
    if result["success"]:
        return None, result
    return {**entry, "failures": failures + 1}, result


# ---------------------------------------------------------------- phase state


def is_waiting(state: dict, who: str) -> bool:
    """True while ``who`` has a non-free action that has not yet resolved."""
    return any(a["who"] == who and a["length"] != "free" and a["resolves_phase"] >= state["phase"] for a in state["pending"])


def can_declare(state: dict, who: str, settings: dict | None = None) -> tuple[bool, str]:
    """Whether ``who`` may declare this phase, with the reason if not."""
    s = resolve_settings(settings)
    if who not in state["combatants"]:
        return False, f"{who} is not in the combat"
    entry = state["surprise"].get(who)
    if entry is not None:
        return False, f"{who} is surprised"
    if is_waiting(state, who) and not s["free_while_waiting"]:
        return False, f"{who} is waiting for an action to resolve"
    return True, ""


def begin_phase(
    state: dict, sheets: dict[str, dict], dice: DiceSource, settings: dict | None = None
) -> tuple[dict, list[dict]]:
    """Start-of-phase rolls: surprise checks, then initiative for the declarers.

    "Combat Sequence" and "Initiative and Actions". Returns the new state
    (with this phase's initiative and declaration order) and the rolls,
    each ``{"who", "kind", ...result}``.
    """
    s = resolve_settings(settings)
    missing = [who for who in state["combatants"] if who not in sheets]
    if missing:
        raise RuleError(f"no sheet for {', '.join(missing)}")
    new = copy.deepcopy(state)
    rolls: list[dict] = []
    for who in sorted(new["surprise"]):
        entry = new["surprise"][who]
        if new["phase"] < entry["from_phase"]:
            continue
        after, result = surprise_check(entry, sheets[who], dice, s)
        rolls.append({"who": who, "kind": "surprise", **result})
        if after is None:
            del new["surprise"][who]
        else:
            new["surprise"][who] = after
    initiative: dict[str, int] = {}
    for who in new["combatants"]:
        if not can_declare(new, who, s)[0]:
            continue
        result = roll_initiative(sheets[who], dice, s)
        initiative[who] = result["total"]
        rolls.append({"who": who, "kind": "initiative", **result})
    new["initiative"] = initiative
    order = declaration_order(initiative)
    if s["initiative_ties"] == "reflexes":
        order = sorted(order, key=lambda w: (initiative[w], _attr(sheets[w], "reflexes"), w))
    new["order"] = order
    new["declared"] = []
    return new, rolls


def next_declarer(state: dict) -> str | None:
    """Who declares next this phase (lowest initiative first), or None."""
    for who in state["order"]:
        if who not in state["declared"]:
            return who
    return None


def _build_action(state: dict, who: str, spec: dict, s: dict) -> dict:
    name = spec.get("name")
    if not name:
        raise RuleError("an action needs a name")
    known = ACTIONS.get(name, {})
    length = spec.get("length", known.get("length"))
    if spec.get("free"):
        length = "free"
    if length not in _RANK:
        raise RuleError(f"action {name!r} needs a length: one of {', '.join(LENGTHS)}")
    if known.get("combined") and length != known["length"]:
        raise RuleError(f"{known['label']} is a {known['length']} action")
    target = spec.get("target")
    if known.get("targets") and not target:
        raise RuleError(f"{known['label']} needs a target")
    phase = state["phase"]
    end = resolves_at(phase, length, s)
    action = {
        "id": f"a{state['next_action']}",
        "who": who,
        "name": name,
        "length": length,
        "declared_phase": phase,
        "resolves_phase": end,
        "target": target,
        "combined": bool(known.get("combined")),
        "note": str(spec.get("note", "")),
    }
    if "shots" in known:
        action["shots"] = known["shots"]
    if "burst" in known:
        action["bullets"] = known["burst"]
    if known.get("steps"):
        action["shots"] = next(st.get("shots", 1) for st in known["steps"] if st["kind"] == "fire")
        action["steps"] = [
            {**{k: v for k, v in st.items() if k != "at"}, "phase": phase if st["at"] == "first" else end}
            for st in known["steps"]
        ]
    return action


def declare(state: dict, who: str, actions: list[dict], settings: dict | None = None) -> dict:
    """Record what ``who`` declares this phase (an empty list passes).

    "Initiative and Actions": declarations go from the lowest initiative
    to the highest; one new action per phase, only when not waiting on
    one; free actions besides it (``free_actions_per_phase``). Each action
    is ``{"name", "length"?, "target"?, "free"?, "note"?}``; the lengths of
    the known actions (:data:`ACTIONS`) are filled in. Declaring a shot or
    a Targeting action at another target than the one held loses the
    targeting ("Ranged Attacks").
    """
    s = resolve_settings(settings)
    if who not in state["order"]:
        ok, why = can_declare(state, who, s)
        raise RuleError(why or f"{who} rolled no initiative this phase")
    if who in state["declared"]:
        raise RuleError(f"{who} has already declared this phase")
    first = next_declarer(state)
    if first != who:
        raise RuleError(f"{first} declares before {who} (lower initiative declares first)")
    new = copy.deepcopy(state)
    built = []
    for spec in actions:
        built.append(_build_action(new, who, spec, s))
        new["next_action"] += 1
    free = [a for a in built if a["length"] == "free"]
    timed = [a for a in built if a["length"] != "free"]
    if len(timed) > 1:
        raise RuleError("only one new action a phase (besides free actions)")
    if len(free) > s["free_actions_per_phase"]:
        raise RuleError(f"at most {s['free_actions_per_phase']} free action(s) a phase")
    if timed and is_waiting(state, who):
        raise RuleError(f"{who} is waiting for an action to resolve; cancel it first")
    for action in built:
        if action["name"] in _SHOOTING or action["name"] == "target":
            held = new["targeting"].get(who)
            if held and held["target"] != action["target"]:
                del new["targeting"][who]
    new["pending"].extend(built)
    new["declared"].append(who)
    return new


def cancel_action(state: dict, action_id: str) -> dict:
    """Cancel a pending action; the only change a locked action allows ("Combined Actions")."""
    if not any(a["id"] == action_id for a in state["pending"]):
        raise RuleError(f"no pending action {action_id}")
    new = copy.deepcopy(state)
    new["pending"] = [a for a in new["pending"] if a["id"] != action_id]
    return new


def change_target(state: dict, action_id: str, target: str) -> dict:
    """Retarget a pending action: only a one-phase action still in its phase may be.

    "Combined Actions": round and turn actions (combined ones included)
    cannot change target or otherwise change; they can only be cancelled.
    """
    found = [a for a in state["pending"] if a["id"] == action_id]
    if not found:
        raise RuleError(f"no pending action {action_id}")
    action = found[0]
    if action["length"] not in ("free", "phase"):
        raise RuleError(f"{action['name']} is a {action['length']} action: it keeps its target; cancel it instead")
    new = copy.deepcopy(state)
    for a in new["pending"]:
        if a["id"] == action_id:
            a["target"] = target
    held = new["targeting"].get(action["who"])
    if held and held["target"] != target:
        del new["targeting"][action["who"]]
    return new


def end_phase(state: dict, settings: dict | None = None) -> tuple[dict, list[dict]]:
    """Resolve what ends this phase, then advance the clock.

    "Initiative and Actions": shorter first, same lengths together. Steps
    of combined actions that fall in this phase (the Targeting step of
    "target and fire") resolve with the phase actions ("Combined
    Actions"). Targeting actions that resolve give their shooter the
    target ("Ranged Attacks"). Returns the new state and the groups
    ``[{"length", "actions": [...]}]`` in order.
    """
    resolve_settings(settings)
    new = copy.deepcopy(state)
    phase = new["phase"]
    ending = [a for a in new["pending"] if a["resolves_phase"] <= phase]
    entries: list[dict] = list(ending)
    for a in new["pending"]:
        for i, step in enumerate(a.get("steps", [])):
            if step["phase"] == phase and step["kind"] == "target":
                entries.append({**a, "id": f"{a['id']}.{i + 1}", "length": "phase", "step": step, "name": f"{a['name']}: targeting"})
    groups = []
    for length in LENGTHS:
        members = [e for e in entries if e["length"] == length]
        if members:
            groups.append({"length": length, "actions": members})
    for e in entries:
        if e["name"] == "target" or e.get("step", {}).get("kind") == "target":
            new["targeting"][e["who"]] = {"target": e["target"], "acquired_phase": phase}
    new["pending"] = [a for a in new["pending"] if a["resolves_phase"] > phase]
    new["phase"] = phase + 1
    new["initiative"] = {}
    new["order"] = []
    new["declared"] = []
    return new, groups


# ---------------------------------------------------------------- targeting


def acquire_target(targeting: dict, shooter: str, target: str, phase: int) -> dict:
    """The shooter now holds ``target`` (a completed Targeting action)."""
    return {**copy.deepcopy(targeting), shooter: {"target": target, "acquired_phase": phase}}


def is_targeted(targeting: dict, shooter: str, target: str) -> bool:
    held = targeting.get(shooter)
    return bool(held and held["target"] == target)


def lose_targeting(targeting: dict, shooter: str) -> dict:
    """Drop a shooter's targeting (a switch of target or a distracting event)."""
    new = copy.deepcopy(targeting)
    new.pop(shooter, None)
    return new


def check_targeting(
    targeting: dict,
    positions: dict[str, Any],
    board: Any = None,
    in_view: dict[str, set] | None = None,
) -> tuple[dict, list[dict]]:
    """Targeting that still holds, and what was lost with the reason.

    "Ranged Attacks": targeting holds while the target stays in view and
    nothing breaks the line. A target with no position (gone, hidden) or
    missing from ``in_view[shooter]`` (the ids the shooter can see) has
    left view; with a board, :func:`rules.los.line_of_fire` decides
    whether the line is broken.
    """
    kept: dict = {}
    lost: list[dict] = []
    los = None
    if board is not None:
        from .. import los  # written beside this module; imported only when a board is given
    for shooter, held in targeting.items():
        target = held["target"]
        reason = ""
        if positions.get(target) is None or (in_view is not None and target not in in_view.get(shooter, ())):
            reason = "target left view"
        elif los is not None and positions.get(shooter) is not None:
            a, b = tuple(positions[shooter]), tuple(positions[target])
            if not los.line_of_fire(board, a, b).clear:
                reason = "line of fire broken"
        if reason:
            lost.append({"shooter": shooter, "target": target, "reason": reason})
        else:
            kept[shooter] = dict(held)
    return kept, lost


def wild_shot_modifier(targeted: bool) -> int:
    """-2 to hit for a wild shot, one without Targeting ("Ranged Attacks")."""
    return 0 if targeted else WILD_SHOT_MODIFIER


# ---------------------------------------------------------------- locations


def _drift_pattern(location: str, first_arm: str = "right") -> list[str]:
    """The document's partial-success order from a called location ("Ranged Attacks").

    "One arm, then the other" starts with ``first_arm``; "near" means the
    same side; "arms" after abdomen is one arm then the other.
    """
    if location not in LOCATIONS:
        raise RuleError(f"unknown location {location!r}; locations are {', '.join(LOCATIONS)}")
    other = {"right": "left", "left": "right"}
    arm1, arm2 = f"{first_arm} arm", f"{other[first_arm]} arm"
    if location == "head":
        return ["chest", arm1, arm2, "abdomen"]
    if location == "chest":
        return ["abdomen", arm1, arm2, "head"]
    if location == "abdomen":
        return ["chest", f"{first_arm} leg", f"{other[first_arm]} leg", arm1, arm2]
    side, limb = location.split()
    if limb == "arm":
        return ["chest", "abdomen", f"{side} leg", f"{other[side]} arm", "head"]
    return [f"{other[side]} leg", "abdomen", f"{side} arm", f"{other[side]} arm", "chest"]


def called_shot_drift(location: str, steps: int) -> str:
    """Where a called shot lands ``steps`` points short of its TN ("Ranged Attacks").

    Zero steps is the called location; each point moves one area along
    the document's order; past the end of the order it stays on the last
    area (the document does not go further).
    """
    if steps < 0:
        raise RuleError("drift steps cannot be negative")
    if steps == 0:
        if location not in LOCATIONS:
            raise RuleError(f"unknown location {location!r}; locations are {', '.join(LOCATIONS)}")
        return location
    pattern = _drift_pattern(location)
    return pattern[min(steps, len(pattern)) - 1]


def first_possible_location(location: str, impossible: set[str] | list[str], first_arm: str = "right") -> str | None:
    """Walk the drift order past locations that cannot be hit ("Ranged Attacks").

    None when every location in the order is impossible.
    """
    bad = set(impossible)
    for loc in [location] + _drift_pattern(location, first_arm):
        if loc not in bad:
            return loc
    return None


def hit_location(dice: DiceSource, settings: dict | None = None) -> tuple[str, RollRecord]:
    """A random hit location from the game's table (a setting: the document's table
    is cut off after "1 | Head", which the default keeps)."""
    s = resolve_settings(settings)
    record = dice.roll(s["hit_location_dice"], "hit location")
    for low, high, loc in s["hit_location_table"]:
        if low <= record.total <= high:
            return loc, record
    raise RuleError(f"the hit-location table has no entry for {record.total}")


# ---------------------------------------------------------------- the system


def _weapon(sheet: dict, name: str | None) -> dict:
    weapons = sheet.get("weapons") or []
    if not weapons:
        raise RuleError("no weapon on the sheet")
    if name is None:
        return weapons[0]
    for w in weapons:
        if w.get("name") == name:
            return w
    raise RuleError(f"no weapon named {name!r} on the sheet")


class PhaseTNSystem(BaseSystem):
    id = "phase_tn"
    name = "Phase / target-number system"
    board = "grid"
    diagonal = "chebyshev"
    sheet_template = "sheets/_phase_tn.html"
    help_template = "help/phase_tn.html"

    ACTIONS = ACTIONS
    LENGTHS = LENGTHS
    LOCATIONS = LOCATIONS

    def default_settings(self) -> dict:
        return default_settings()

    def sheet_fields(self) -> list[SheetField]:
        attrs = [
            SheetField(f"attributes.{a}", a.capitalize(), "int", 5, group="Attributes", help="1-10, 5 is average")
            for a in ATTRIBUTES
        ]
        return attrs + [
            SheetField("skills", "Skills", "dict", {"handguns": 3, "fastdraw": 2, "rifles": 1, "brawling": 2}, group="Skills"),
            SheetField("initiative_bonus", "Initiative bonus", "int", 0, group="Combat"),
            SheetField(
                "weapons",
                "Weapons",
                "list",
                [{"name": "Sidearm", "skill": "handguns", "damage": "2d6", "mode": "semi"}],
                group="Combat",
                help="mode: single, semi or auto",
            ),
            SheetField("flesh", "Flesh wounds", "int", 0, group="Wounds"),
            SheetField("trauma", "Traumatic wounds", "dict", {}, group="Wounds", help="location: count"),
        ]

    def default_sheet(self) -> dict:
        return {
            "attributes": {a: 5 for a in ATTRIBUTES},
            "skills": {"handguns": 3, "fastdraw": 2, "rifles": 1, "brawling": 2},
            "initiative_bonus": 0,
            "weapons": [{"name": "Sidearm", "skill": "handguns", "damage": "2d6", "mode": "semi"}],
            "flesh": 0,
            "trauma": {},
        }

    def derived(self, sheet: dict, settings: dict | None = None) -> dict:
        s = resolve_settings(settings)
        capacity = _attr(sheet, "constitution") * s["flesh_per_constitution"]
        flesh = sheet.get("flesh", 0)
        trauma = {loc: n for loc, n in (sheet.get("trauma") or {}).items() if n}
        conditions = [s["trauma_effects"].get(loc, loc) for loc in trauma]
        if capacity and flesh >= capacity:
            conditions.insert(0, "down (flesh wounds at capacity)")
        return {
            "initiative_base": sum(_attr(sheet, a) for a in s["initiative_attributes"]) + sheet.get("initiative_bonus", 0),
            "roll_dice": s["roll_dice"],
            "flesh_capacity": capacity,
            "flesh": flesh,
            "trauma_count": sum(trauma.values()),
            "roll_penalty": sum(m.value for m in wound_modifiers(sheet, s)),
            "conditions": conditions,
        }

    def initiative(self, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> list[dict]:
        """Initiative of one phase, in declaration order (lowest first), "Initiative and Actions"."""
        rolled = {}
        entries = {}
        for c in combatants:
            result = roll_initiative(c.sheet, dice, settings)
            rolled[c.id] = result["total"]
            entries[c.id] = {
                "id": c.id,
                "name": c.name,
                "total": result["total"],
                "rolls": [result["roll"]],
                "modifiers": result["modifiers"],
            }
        return [{**entries[w], "declares": i + 1} for i, w in enumerate(declaration_order(rolled))]

    def move_allowance(self, sheet: dict, action: str = "move") -> float:
        raise RuleNotImplemented("phase_tn: the document gives no movement rates; the GM moves tokens")

    def range_band(self, distance: float, weapon: dict) -> str | None:
        raise RuleNotImplemented("phase_tn: the document gives no weapon ranges; the GM sets the TN")

    def cover_effect(self, cover: Any) -> CoverEffect:
        raise RuleNotImplemented(
            "phase_tn: the document gives no cover modifier; list covered locations as impossible_locations"
        )

    # -- attacks

    def _attack_setup(self, request: AttackRequest, settings: dict | None):
        s = resolve_settings(settings)
        opts = request.options or {}
        weapon = _weapon(request.attacker.sheet, request.weapon)
        if weapon.get("melee"):
            raise RuleNotImplemented("phase_tn: the document's Melee Attacks section is empty")
        mode = opts.get("mode", "single")
        if mode == "suppressive":
            raise RuleNotImplemented("phase_tn: the document's Suppressive Fire entry is empty")
        if mode not in ("single", "burst", "full_auto"):
            raise RuleError(f"unknown fire mode {mode!r}")
        if mode != "single" and weapon.get("mode") != "auto":
            raise RuleError(f"{weapon.get('name')} is not an automatic weapon")
        if "targeted" in opts:
            targeted = bool(opts["targeted"])
        else:
            targeted = is_targeted(request.attacker.state.get("targeting", {}), request.attacker.id, request.target.id)
        called = opts.get("called")
        aim = int(opts.get("aim", 0))
        if not targeted and (called or aim):
            raise RuleError("a wild shot (no Targeting) cannot be called or aimed")
        if called and mode != "single":
            raise RuleError("bursts and full auto are not called shots (game setting reading)")
        if called and called not in LOCATIONS:
            raise RuleError(f"unknown location {called!r}")
        tn = int(opts.get("tn", s["ranged_tn"]))
        mods = [Modifier(s["ranged_attribute"].capitalize(), _attr(request.attacker.sheet, s["ranged_attribute"]), "sheet")]
        skill = weapon.get("skill")
        if skill:
            mods.append(Modifier(f"skill {skill}", (request.attacker.sheet.get("skills") or {}).get(skill, 0), "sheet"))
        if not targeted:
            mods.append(Modifier("wild shot", wild_shot_modifier(False), SRC_RANGED))
        if aim:
            mods.append(Modifier("aim", aim, SRC_RANGED))
        for label, value in (opts.get("modifiers") or {}).items():
            mods.append(Modifier(str(label), int(value), "GM"))
        mods += wound_modifiers(request.attacker.sheet, s)
        called_tn = tn + s["called_shot_tn"][called] if called else None
        return s, weapon, mode, targeted, called, tn, called_tn, mods

    def attack(self, request: AttackRequest, dice: DiceSource, settings: dict | None = None) -> AttackResult:
        """A ranged shot: dice + Reflexes + skill + modifiers against the TN ("Ranged Attacks").

        A called shot needs the TN plus the location's ``called_shot_tn``;
        reaching the plain TN but not that is a partial success that drifts
        one area per point short. Bursts and full auto ("Special Ranged
        Attacks") hit once plus once per ``burst_margin_per_extra_hit``
        points over the TN, up to the bullets fired (a setting).
        """
        s, weapon, mode, targeted, called, tn, called_tn, mods = self._attack_setup(request, settings)
        record = dice.roll(s["roll_dice"], f"{weapon.get('name', 'weapon')} to hit")
        rolls = [record]
        total = record.total + sum(m.value for m in mods)
        details: dict = {"tn": tn, "total": total, "targeted": targeted, "mode": mode, "called": called}
        if total < tn:
            return AttackResult(False, f"miss ({total} vs TN {tn})", rolls, mods, [], details)
        bullets = {"single": 1, "burst": BURST_BULLETS, "full_auto": s["full_auto_bullets"]}[mode]
        hits = 1 if mode == "single" else min(bullets, 1 + (total - tn) // s["burst_margin_per_extra_hit"])
        impossible = set((request.options or {}).get("impossible_locations", ()))
        effects: list[Effect] = []
        locations = []
        for n in range(hits):
            if called:
                steps = max(0, called_tn - total)
                loc = called_shot_drift_with(called, steps, s["drift_first_arm"])
                details["called_tn"] = called_tn
                details["drift"] = steps
            else:
                loc, loc_roll = hit_location(dice, s)
                rolls.append(loc_roll)
            if loc in impossible:
                loc = first_possible_location(loc, impossible, s["drift_first_arm"])
                if loc is None:
                    details["blocked"] = True
                    continue
            locations.append(loc)
            dmg = dice.roll(weapon.get("damage", "2d6"), f"damage ({loc})")
            rolls.append(dmg)
            stun = bool(weapon.get("stun"))
            data = {"location": loc, "damage": dmg.total, "stun": stun}
            effects.append(Effect("flesh", request.target.id, {"amount": 0 if stun else dmg.total, "location": loc}))
            if s["trauma_check"] and not stun and dmg.total > 0:
                trauma_tn = dmg.total + s["trauma_location_modifier"].get(loc, 0)
                check = attribute_roll(
                    request.target.sheet, s["trauma_attribute"], trauma_tn, dice, s, purpose=f"trauma check ({loc})"
                )
                rolls.append(check["roll"])
                data["trauma_check"] = {"tn": trauma_tn, "total": check["total"]}
                if not check["success"]:
                    effects.append(
                        Effect("trauma", request.target.id, {"location": loc, "effect": s["trauma_effects"].get(loc, "")})
                    )
            details.setdefault("hits", []).append(data)
        details["locations"] = locations
        summary = f"hit ({total} vs TN {tn})"
        if locations:
            summary += ": " + ", ".join(locations)
        if called and called_tn is not None and total < called_tn:
            summary += f" (partial success, {called_tn - total} short of the called TN {called_tn})"
        return AttackResult(True, summary, rolls, mods, effects, details)

    def odds(self, request: AttackRequest, settings: dict | None = None) -> dict:
        """Exact chance to hit, and for a called shot to hit the called area."""
        s, weapon, mode, targeted, called, tn, called_tn, mods = self._attack_setup(request, settings)
        bonus = sum(m.value for m in mods)
        dist = _odds.convolve(_odds.distribution(s["roll_dice"]), {bonus: 1.0})
        out = {"hit": _odds.at_least(dist, tn), "tn": tn, "modifiers": [m.to_dict() for m in mods]}
        if called:
            out["called_location"] = _odds.at_least(dist, called_tn)
            out["partial"] = out["hit"] - out["called_location"]
        return out

    def apply(self, sheet: dict, result: AttackResult, target_id: str | None = None) -> dict:
        """Add the flesh and traumatic wounds of a result to a sheet ("Damage and Wounds")."""
        new = copy.deepcopy(sheet)
        new.setdefault("flesh", 0)
        new.setdefault("trauma", {})
        for e in result.effects:
            if target_id is not None and e.target != target_id:
                continue
            if e.kind == "flesh":
                new["flesh"] += int(e.data.get("amount", 0))
            elif e.kind == "trauma":
                loc = e.data["location"]
                new["trauma"][loc] = new["trauma"].get(loc, 0) + 1
        return new


def called_shot_drift_with(location: str, steps: int, first_arm: str) -> str:
    """:func:`called_shot_drift` with the ``drift_first_arm`` setting."""
    if steps == 0:
        return called_shot_drift(location, 0)
    pattern = _drift_pattern(location, first_arm)
    return pattern[min(steps, len(pattern)) - 1]


SYSTEM = PhaseTNSystem()
