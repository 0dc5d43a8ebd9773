"""Time in *Phase/TN Combat Sequence*: surprise, phases, declarations and resolution.

"Combat Sequence": the surprised cannot react for a round, then roll
Reflexes (TN 8, +1 per failed phase) at the start of each phase.
"Initiative and Actions": at the start of each phase everyone who may
declare a new action rolls initiative; declarations go from the lowest
total to the highest; one new action a phase, not while waiting on one;
actions resolve at the end of the time they take, shorter first, the same
length together. "Combined Actions": round and turn actions keep their
target and can only be cancelled.

The combat state (the phase clock, initiative, declarations, pending
actions, targeting) is plain JSON-able data; every function that changes
it returns a new dict.
"""

from __future__ import annotations

from ..copying import copied
from ..dice import DiceSource
from ..grid import grid_of
from ..system import ActionOption, Combatant, Modifier, RuleError, RuleNotImplemented, TurnUpdate
from .attack import weapon_of
from .checks import attr, attribute_roll, wound_modifiers
from .health import flesh_capacity, incapacitated
from .data import ACTIONS, GROUP_LINES, LENGTH_WORDS, LOCATION_WORDS, MODE_WORDS, attribute_words, LENGTHS, LOCATIONS, RANK, SHOOTING, SRC_SEQUENCE, resolve_settings
from .targeting import unknown_location, is_targeted, lose_targeting
from ..text import Say, joined, say, say_n


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
        raise _unknown_length(length) from None


def _unknown_length(length) -> RuleError:
    """The refusal of an action length the document does not have (the lengths as a client sends them)."""
    return RuleError(say("unknown action length {length}; lengths are {lengths}", length=repr(length),
                         lengths=", ".join(LENGTHS)))


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
        if length not in RANK:
            raise _unknown_length(length)
        buckets.setdefault(length, set()).add(who)
    return [buckets[length] for length in LENGTHS if length in buckets]


def declaration_order(initiatives: dict[str, int]) -> list[str]:
    """Who declares first: lowest initiative to highest ("Initiative and Actions").

    Ties are not covered by the document; they go in name order so the
    order is the same every time.
    """
    return sorted(initiatives, key=lambda who: (initiatives[who], who))


def roll_initiative(sheet: dict, dice: DiceSource, settings: dict | None = None, roller: str | None = None) -> dict:
    """Initiative for one phase: the dice + the initiative attributes + bonus.

    "Combat Sequence": rolled at the start of each phase in which the
    character declares. Which attributes are added is a setting; the
    traumatic-wound penalty applies as to every roll (``trauma_roll_penalty``). ``roller``: whose dice, the
    character's own (the table's, #59).
    """
    s = resolve_settings(settings)
    mods = [Modifier(attribute_words(a), attr(sheet, a), "sheet") for a in s["initiative_attributes"]]
    bonus = sheet.get("initiative_bonus", 0)
    if bonus:
        mods.append(Modifier(say("initiative bonus"), bonus, "sheet"))
    mods += wound_modifiers(sheet, s)
    adds = int(sum(m.value for m in mods))
    record = dice.roll(s["roll_dice"], say("initiative"), roller=roller,
                       needs=say("roll {dice} for initiative, {adds} added: the lowest total declares first",
                                 dice=s["roll_dice"], adds=f"{adds:+d}"))
    return {"total": record.total + sum(m.value for m in mods), "roll": record, "modifiers": mods}


def initiative_list(combatants: list, dice: DiceSource, settings: dict | None = None) -> list[dict]:
    """Everyone's initiative for one phase, in declaration order, lowest first ("Initiative and Actions")."""
    rolled = {}
    entries = {}
    # everyone rolls at once: the document is silent, and no one's roll hangs on another's (#70)
    with dice.together():
        for c in combatants:
            result = roll_initiative(c.sheet, dice, settings, roller=c.id)
            rolled[c.id] = result["total"]
            entries[c.id] = {"id": c.id, "name": c.name, "total": result["total"], "rolls": [result["roll"]],
                             "modifiers": result["modifiers"]}
    return [{**entries[w], "declares": i + 1} for i, w in enumerate(declaration_order(rolled))]


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
        raise RuleError(say("surprised but not in the combat: {names}", names=", ".join(sorted(unknown))))
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
    entry: dict, sheet: dict, dice: DiceSource, settings: dict | None = None, roller: str | None = None
) -> tuple[dict | None, dict]:
    """One start-of-phase Reflexes roll to shake off surprise ("Combat Sequence").

    TN 8, +1 for every phase already failed. Returns the new surprise
    entry (None once the character may declare) and the roll. ``roller``: whose dice, the surprised character's
    (the table's own, #59).
    """
    s = resolve_settings(settings)
    failures = entry.get("failures", 0)
    mods = [Modifier(say("phases failed"), failures, SRC_SEQUENCE)] if failures else []
    result = attribute_roll(sheet, "reflexes", s["surprise_tn"], dice, s, modifiers=mods, purpose=say("surprise: Reflexes roll"),
                            roller=roller)
    if result["success"]:
        return None, result
    return {**entry, "failures": failures + 1}, result


def is_waiting(state: dict, who: str) -> bool:
    """True while ``who`` has a non-free action that has not yet resolved."""
    return any(a["who"] == who and a["length"] != "free" and a["resolves_phase"] >= state["phase"] for a in state["pending"])


def can_declare(state: dict, who: str, settings: dict | None = None) -> tuple[bool, str]:
    """Whether ``who`` may declare this phase, with the reason if not."""
    s = resolve_settings(settings)
    if who not in state["combatants"]:
        return False, say("{name} is not in the combat", name=who)
    entry = state["surprise"].get(who)
    if entry is not None:
        return False, say("{name} is surprised", name=who)
    if is_waiting(state, who) and not s["free_while_waiting"]:
        return False, say("{name} is waiting for an action to resolve", name=who)
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
        raise RuleError(say("no sheet for {names}", names=", ".join(missing)))
    new = copied(state)
    rolls: list[dict] = []
    for who in sorted(new["surprise"]):
        entry = new["surprise"][who]
        if new["phase"] < entry["from_phase"]:
            continue
        after, result = surprise_check(entry, sheets[who], dice, s, roller=who)
        rolls.append({"who": who, "kind": "surprise", **result})
        if after is None:
            del new["surprise"][who]
        else:
            new["surprise"][who] = after
    initiative: dict[str, int] = {}
    # "Combat Sequence": who declares rolls at the phase's start, in no order said, none hanging on another: at once (#70)
    with dice.together():
        for who in new["combatants"]:
            if not can_declare(new, who, s)[0]:
                continue
            result = roll_initiative(sheets[who], dice, s, roller=who)
            initiative[who] = result["total"]
            rolls.append({"who": who, "kind": "initiative", **result})
    new["initiative"] = initiative
    order = declaration_order(initiative)
    if s["initiative_ties"] == "reflexes":
        order = sorted(order, key=lambda w: (initiative[w], attr(sheets[w], "reflexes"), w))
    new["order"] = order
    new["declared"] = []
    return new, rolls


def next_declarer(state: dict) -> str | None:
    """Who declares next this phase (lowest initiative first), or None."""
    for who in state["order"]:
        if who not in state["declared"]:
            return who
    return None


def _check_weapon(name: str, spec: dict, sheet: dict | None) -> str | None:
    """The weapon a shooting action fires, checked against the modes that can fire it."""
    known = ACTIONS.get(name, {})
    if "mode" not in known or sheet is None:
        return spec.get("weapon")
    weapon = weapon_of(sheet, spec.get("weapon"))
    modes = known.get("weapon_modes")
    if modes and weapon.get("mode") not in modes:
        said = dict(action=known["label"], weapon=weapon.get("name"),
                    mode=MODE_WORDS.get(weapon.get("mode", "single"), weapon.get("mode")))
        if "semi" in modes and len(modes) > 1:
            raise RuleError(say("{action} needs a semi-automatic or automatic weapon; {weapon} is {mode}", **said))
        if "semi" in modes:
            raise RuleError(say("{action} needs a semi-automatic weapon; {weapon} is {mode}", **said))
        raise RuleError(say("{action} needs an automatic weapon; {weapon} is {mode}", **said))
    return weapon.get("name")


def _build_action(state: dict, who: str, spec: dict, s: dict, sheet: dict | None = None) -> dict:
    name = spec.get("name")
    if not name:
        raise RuleError(say("an action needs a name"))
    known = ACTIONS.get(name, {})
    length = spec.get("length", known.get("length"))
    if spec.get("free"):
        length = "free"
    if length not in RANK:
        raise RuleError(say("action {action} needs a length: one of {lengths}", action=repr(name), lengths=", ".join(LENGTHS)))
    if known.get("combined") and length != known["length"]:
        raise RuleError(say("{action} is a {length}", action=known["label"], length=LENGTH_WORDS[known["length"]]))
    target = spec.get("target")
    if known.get("targets") and not target:
        raise RuleError(say("{action} needs a target", action=known["label"]))
    held = state["targeting"].get(who)
    holds = bool(held and held["target"] == target)
    if known.get("needs_targeting") and not holds:
        raise RuleError(say("{action} needs Targeting on {target}: a wild shot cannot be aimed", action=known["label"], target=target))
    called = spec.get("called")
    if called:
        if called not in LOCATIONS:
            raise unknown_location(called)
        if known.get("mode") in ("burst", "full_auto"):
            raise RuleError(say("bursts and full auto are not called shots (game setting reading)"))
        if name == "fire" and not holds:
            raise RuleError(say("a wild shot cannot be called: {name} has no Targeting on {target}", name=who, target=target))
    weapon = _check_weapon(name, spec, sheet)
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
    if called:
        action["called"] = called
    if weapon:
        action["weapon"] = weapon
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


def declare(
    state: dict, who: str, actions: list[dict], settings: dict | None = None, sheet: dict | None = None
) -> dict:
    """Record what ``who`` declares this phase (an empty list passes).

    "Initiative and Actions": declarations go from the lowest initiative
    to the highest; one new action per phase, only when not waiting on
    one; free actions besides it (``free_actions_per_phase``). Each action
    is ``{"name", "length"?, "target"?, "free"?, "called"?, "weapon"?,
    "note"?}``; the lengths of the known actions (:data:`ACTIONS`) are
    filled in.

    "Ranged Attacks": declaring a shot, a Targeting or an Aim at another
    target than the one held loses the targeting; a wild shot cannot be
    called or aimed, so Aim and a called "fire" need the Targeting held.
    "Combined Actions" and "Special Ranged Attacks": with the declarer's
    ``sheet``, "target and fire" needs a semi-automatic weapon (a reading:
    an automatic one too), bursts and full auto an automatic one.
    """
    s = resolve_settings(settings)
    if who not in state["order"]:
        ok, why = can_declare(state, who, s)
        raise RuleError(why or say("{name} rolled no initiative this phase", name=who))
    if who in state["declared"]:
        raise RuleError(say("{name} has already declared this phase", name=who))
    first = next_declarer(state)
    if first != who:
        raise RuleError(say("{first} declares before {name} (lower initiative declares first)", first=first, name=who))
    new = copied(state)
    built = []
    for spec in actions:
        built.append(_build_action(new, who, spec, s, sheet))
        new["next_action"] += 1
    free = [a for a in built if a["length"] == "free"]
    timed = [a for a in built if a["length"] != "free"]
    if len(timed) > 1:
        raise RuleError(say("only one new action a phase (besides free actions)"))
    if len(free) > s["free_actions_per_phase"]:
        raise RuleError(say_n("at most {n} free action a phase", "at most {n} free actions a phase", s["free_actions_per_phase"]))
    if timed and is_waiting(state, who):
        raise RuleError(say("{name} is waiting for an action to resolve; cancel it first", name=who))
    for action in built:
        if action["name"] in SHOOTING or action["name"] in ("target", "aim"):
            held = new["targeting"].get(who)
            if held and held["target"] != action["target"]:
                del new["targeting"][who]
    new["pending"].extend(built)
    new["declared"].append(who)
    return new


def _no_pending(action_id) -> RuleError:
    return RuleError(say("no pending action {action} (it has resolved, or was cancelled)", action=repr(action_id)))


def cancel_action(state: dict, action_id: str) -> dict:
    """Cancel a pending action; the only change a locked action allows ("Combined Actions")."""
    if not any(a["id"] == action_id for a in state["pending"]):
        raise _no_pending(action_id)
    new = copied(state)
    new["pending"] = [a for a in new["pending"] if a["id"] != action_id]
    return new


def change_target(state: dict, action_id: str, target: str) -> dict:
    """Retarget a pending action: only a one-phase action still in its phase may be.

    "Combined Actions": round and turn actions (combined ones included)
    cannot change target or otherwise change; they can only be cancelled.
    """
    found = [a for a in state["pending"] if a["id"] == action_id]
    if not found:
        raise _no_pending(action_id)
    action = found[0]
    if action["length"] not in ("free", "phase"):
        raise RuleError(say("{action} is a {length}: it keeps its target; cancel it instead",
                            action=ACTIONS.get(action["name"], {}).get("label", action["name"]),
                            length=LENGTH_WORDS.get(action["length"], action["length"])))
    new = copied(state)
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
    target, and an Aim adds to the aim held on it ("Ranged Attacks").

    Returns the new state and the groups ``[{"length", "actions": [...]}]``
    in order. An action that fires carries ``"attack"``: the shot for
    :func:`.attack.attack` (``attacker``, ``target``, ``weapon``,
    ``shots``, and ``options`` with ``mode``, ``targeted``, ``called``,
    ``aim``), read when its group resolves; a shot uses up the aim.
    """
    s = resolve_settings(settings)
    new = copied(state)
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
        if not members:
            continue
        targeting = new["targeting"]  # all of a group resolve at once: shots read the targeting before it
        fired = set()
        for e in members:
            if e.get("step") is None and "mode" in ACTIONS.get(e["name"], {}):
                e["attack"] = _shot(e, targeting, s)
                fired.add(e["who"])
        after = copied(targeting)
        for who in fired:
            if who in after:
                after[who]["aims"] = 0
        for e in members:
            if e["name"] == "target" or e.get("step", {}).get("kind") == "target":
                after[e["who"]] = {"target": e["target"], "acquired_phase": phase}
            elif e["name"] == "aim" and is_targeted(targeting, e["who"], e["target"]):
                held = after[e["who"]]
                held["aims"] = min(s["aim_max"], held.get("aims", 0) + 1)
        new["targeting"] = after
        groups.append({"length": length, "actions": members})
    new["pending"] = [a for a in new["pending"] if a["resolves_phase"] > phase]
    new["phase"] = phase + 1
    new["initiative"] = {}
    new["order"] = []
    new["declared"] = []
    return new, groups


def _shot(action: dict, targeting: dict, s: dict) -> dict:
    """The attack a resolving shooting action makes, with what the shooter holds now."""
    known = ACTIONS[action["name"]]
    targeted = is_targeted(targeting, action["who"], action["target"])
    options: dict = {"mode": known["mode"], "targeted": targeted}
    if targeted and action.get("called"):
        options["called"] = action["called"]
    aims = targeting.get(action["who"], {}).get("aims", 0) if targeted else 0
    if aims and s["aim_bonus"]:
        options["aim"] = aims * s["aim_bonus"]
    return {
        "action": action["id"],
        "attacker": action["who"],
        "target": action["target"],
        "weapon": action.get("weapon"),
        "shots": action.get("shots", 1),
        "options": options,
    }


# ---------------------------------------------------------------- the fight lifecycle
#
# The lifecycle state wraps the combat state above:
#   {"combat": <new_combat / begin_phase / declare / end_phase state>,
#    "combatants": {id: per-combatant view, what the app puts in Combatant.state},
#    "names": {id: display name, for the log},
#    "due": [attacks resolved at the last phase's end, for the app to roll],
#    "resolved": [what resolved at the last phase's end, by length],
#    "stage": "declare" (someone must declare) or "resolve" (next_turn resolves the phase)}


def _names(combatants: list[Combatant], state: dict | None = None) -> dict[str, str]:
    """Display names for the log: the ones seen before (who left) and the ones given now."""
    return {**((state or {}).get("names") or {}), **{c.id: c.name or c.id for c in combatants}}


def _view(combat: dict, names: dict | None = None, due: list[dict] | None = None) -> dict:
    """The per-combatant state: its Targeting (read by :func:`.attack.attack`) and on whom,
    its initiative this phase, whether it declared, is surprised or waits (and on what), its
    actions, the shots it has to roll now (``due``), and its movement this phase."""
    names = names or {}
    now = {d["options"]["due"] for d in due_now(due or [])}
    out = {}
    for who in combat["combatants"]:
        held = combat["targeting"].get(who)
        mine = [a for a in combat["pending"] if a["who"] == who]
        moved = combat.get("moves", {}).get(who, {})
        out[who] = {
            "targeting": {who: dict(held)} if held else {},
            "targeting_name": names.get(held["target"], held["target"]) if held else None,
            "aims": held.get("aims", 0) if held else 0,
            "initiative": combat["initiative"].get(who),
            "declared": who in combat["declared"],
            "surprised": who in combat["surprise"],
            "waiting": is_waiting(combat, who),
            "waiting_on": [_describe(a, names, who=False) for a in mine
                           if a["length"] != "free" and a["resolves_phase"] >= combat["phase"]],
            "pending": [a["id"] for a in mine],
            "due": {d["id"]: {"target": d["target"], "weapon": d.get("weapon"), "options": d["options"]}
                    for d in (due or []) if d["attacker"] == who and d["id"] in now},
            "moved": moved.get("spent", 0) if moved.get("phase") == combat["phase"] else 0,
        }
    return out


def _named_rolls(rolled: list[dict], names: dict) -> list:
    """The phase's rolls, each saying whose it is ("Leroy's initiative", "Earl's Reflexes against
    surprise"): the log shows them one after another."""
    import dataclasses

    return [dataclasses.replace(r["roll"], purpose=say("{name}'s Reflexes against surprise", name=names.get(r["who"], r["who"]))
                                if r.get("kind") == "surprise" else
                                say("{name}'s {roll}", name=names.get(r["who"], r["who"]), roll=r["roll"].purpose))
            for r in rolled]


def named(text: str, names: dict) -> str:
    """``text`` with each combatant id in it put as the combatant's name: the reference functions
    speak of ids, a person reads names."""
    import re

    ids = sorted((i for i in names if i and names[i] != i), key=len, reverse=True)
    if not text or not ids:
        return text
    if isinstance(text, Say):  # words: the ids are among their parameters
        return text.map_args(lambda value: named(value, names))
    return re.sub(r"(?<![\w-])(" + "|".join(map(re.escape, ids)) + r")(?![\w-])", lambda m: names[m.group(1)], text)


def _label(combat: dict, s: dict) -> str:
    """The tracker's words for where the fight is: the phase of the round and what happens in it now."""
    where = clock(combat["phase"], s)
    if next_declarer(combat):
        return say("phase {n} of {of} · declarations", n=where["phase_in_round"], of=s["phases_per_round"])
    return say("phase {n} of {of} · declarations done: Next turn resolves the phase", n=where["phase_in_round"],
               of=s["phases_per_round"])


def due_now(due: list[dict]) -> list[dict]:
    """The shots the app rolls now, as an ``attack`` command takes them: those of the shortest
    action length still to roll ("Initiative and Actions": shorter actions resolve first)."""
    if not due:
        return []
    first = min(d["group"] for d in due)
    return [{"attacker": d["attacker"], "target": d["target"], "weapon": d.get("weapon"),
             "options": {**d["options"], "due": d["id"]}} for d in due if d["group"] == first]


def _dropped(state: dict, names: dict) -> list[str]:
    """Log lines for the shots :func:`.books.after_attack` struck off: their shooter fell
    to a shorter action that resolved first."""
    return [say("{name} does not fire at {target}: {why} before the shot resolved.", name=names.get(d["attacker"], d["attacker"]),
                target=names.get(d["target"], d["target"]), why=d["why"]) for d in state.get("dropped") or []]


def _update(combat: dict, s: dict, names: dict, rolls: list, log: list[str], due=None, resolved=None,
            struck=None) -> TurnUpdate:
    current = next_declarer(combat)
    if current is not None:
        log = [*log, say("{name}'s turn to declare (lowest initiative first).", name=names.get(current, current))]
    started = set((struck or {}).get("groups", []))
    # a shot whose action had not begun to resolve when its shooter left the fight is not fired
    due = [d for d in (due or []) if d["attacker"] in combat["combatants"] or d["group"] in started]
    state = {
        "combat": combat,
        "names": dict(names),
        "combatants": _view(combat, names, due),
        "shots": due,
        "due": due_now(due),
        "resolved": list(resolved or []),
        "struck": dict(struck or {}),
        "stage": "declare" if current else "resolve",
    }
    return TurnUpdate(
        due=due_now(due),
        state=state,
        round=clock(combat["phase"], s)["round"],
        # everyone in the fight (the app hands these back as the combatants of the next call):
        # this phase's declarers, lowest initiative first, then who does not declare this
        # phase (waiting on an action, surprised)
        order=turn_now({"combat": combat})["order"],
        current=current,
        phase=_label(combat, s),
        rolls=rolls,
        log=log,
    )


def _sync(combat: dict, combatants: list[Combatant], s: dict, names: dict) -> tuple[dict, list[str]]:
    """Drop who left the fight or can no longer act (their actions, their Targeting,
    Targeting on them: "the target remains in view"), add who joined."""
    able = {}
    log = []
    for c in combatants:
        why = incapacitated(c.sheet, s)
        if why:
            if c.id in combat["combatants"]:
                log.append(say("{name} is out of the fight ({why}).", name=names.get(c.id, c.id), why=why))
        else:
            able[c.id] = c
    gone = [w for w in combat["combatants"] if w not in able]
    log += [say("{name} has left the fight.", name=names.get(who, who)) for who in gone if not any(c.id == who for c in combatants)]
    new, lost = leave(combat, gone, names)
    new.pop("out", None)  # who a shot took out (after_attack) is gone now, by its sheet
    log += lost
    for who in able:
        if who not in new["combatants"]:
            new["combatants"].append(who)
    # how many more flesh wounds put each one down: after_attack reads it to know who falls
    # while the shots of one phase's end are rolled (it sees results, not sheets)
    new["flesh_left"] = flesh_left(list(able.values()), s)
    return new, log


def leave(combat: dict, gone, names: dict) -> tuple[dict, list[str]]:
    """The combat without ``gone`` (who left the fight or can no longer act): out of this phase's
    declaration order, so never the one to declare, their actions and Targeting dropped, and
    Targeting on them lost ("the target remains in view"). Returns the new combat and its log lines."""
    gone = [w for w in gone if w in combat["combatants"]]
    new = copied(combat)
    log: list[str] = []
    for who in gone:
        new["combatants"].remove(who)
        new["order"] = [w for w in new["order"] if w != who]
        new["declared"] = [w for w in new["declared"] if w != who]
        new["initiative"].pop(who, None)
        new["surprise"].pop(who, None)
        new["pending"] = [a for a in new["pending"] if a["who"] != who]
        new["targeting"].pop(who, None)
    for shooter, held in list(new["targeting"].items()):
        if held["target"] in gone:
            del new["targeting"][shooter]
            log.append(say("{name} loses the Targeting: the target left view.", name=names.get(shooter, shooter)))
    return new, log


def turn_now(state: dict) -> dict:
    """Who declares now and the whole order, as :class:`TurnUpdate` gives them, read from the books
    (after a shot took someone out of the fight: the fallen are in neither)."""
    combat = state["combat"]
    out = set(combat.get("out") or [])
    return {"current": next_declarer(combat),
            "order": list(combat["order"]) + [w for w in combat["combatants"] if w not in combat["order"] and w not in out]}


def flesh_left(combatants: list[Combatant], s: dict) -> dict[str, int | None]:
    """Flesh wounds each combatant can still take before going down (None: no capacity set)."""
    out: dict[str, int | None] = {}
    for c in combatants:
        capacity = flesh_capacity(c.sheet, s)
        out[c.id] = capacity - int(c.sheet.get("flesh", 0) or 0) if capacity else None
    return out


def _phase_log(combat: dict, rolls: list[dict], s: dict, names: dict) -> list[str]:
    where = clock(combat["phase"], s)
    log = []
    if where["phase_in_round"] == 1:
        log.append(say("Round {n}", n=where["round"]))
    log.append(say("Phase {n} of {phases} (phase {encounter} of the encounter)", n=where["phase_in_round"],
                   phases=s["phases_per_round"], encounter=combat["phase"]))
    for r in rolls:
        name = names.get(r["who"], r["who"])
        if r["kind"] == "surprise":
            verdict = say("may declare") if r["success"] else say("still surprised")
            log.append(say("{name}: Reflexes roll against surprise {total} vs TN {tn}, {verdict}.", name=name,
                           total=r["total"], tn=r["tn"], verdict=verdict))
        else:
            log.append(say("{name}: initiative {total}.", name=name, total=r["total"]))
    if combat["order"]:
        log.append(say("Declarations, lowest initiative first: {names}.", names=", ".join(names.get(w, w) for w in combat["order"])))
    else:
        log.append(say("Nobody declares this phase."))
    return log


def _describe(action: dict, names: dict, who: bool = True) -> str:
    text = ACTIONS.get(action["name"], {}).get("label", action["name"])
    base, _, step = str(action["name"]).partition(": ")
    if step == "targeting" and base in ACTIONS:  # a combined action's Targeting step (end_phase names it so)
        text = say("{action}: its Targeting", action=ACTIONS[base]["label"])
    if who:
        text = say("{name}: {action}", name=names.get(action["who"], action["who"]), action=text)
    if action.get("target"):
        text = say("{action} at {target}", action=text, target=names.get(action["target"], action["target"]))
    if action.get("called"):
        text = say("{action} ({called})", action=text, called=LOCATION_WORDS.get(action["called"], action["called"]))
    if action.get("note"):
        text = say("{action} [{note}]", action=text, note=action["note"])
    return text


def begin_fight(combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """Open an encounter on phase 1: surprise, then initiative and declarations.

    "Combat Sequence": a combatant whose ``Combatant.state["surprised"]`` is
    true (the GM decides who was unaware of an overt act) cannot act for
    ``surprise_rounds`` round(s), then rolls Reflexes (TN 8, +1 per failed
    phase) at the start of each phase. "Initiative and Actions": everyone
    who may declare rolls initiative; the lowest declares first, so
    ``current`` is the lowest total.
    """
    s = resolve_settings(settings)
    names = _names(combatants)
    able = [c for c in combatants if not incapacitated(c.sheet, s)]
    combat = new_combat([c.id for c in able], [c.id for c in able if c.state.get("surprised")], settings=s)
    combat["flesh_left"] = flesh_left(able, s)
    combat, rolled = begin_phase(combat, {c.id: c.sheet for c in able}, dice, s)
    log = [say_n("{name} is surprised: cannot react for {n} round, then rolls Reflexes (TN {tn}, +1 for each phase "
                 "failed) at the start of each phase to act.",
                 "{name} is surprised: cannot react for {n} rounds, then rolls Reflexes (TN {tn}, +1 for each phase "
                 "failed) at the start of each phase to act.", s["surprise_rounds"], name=names[w], tn=s["surprise_tn"])
           for w in sorted(combat["surprise"])]
    return _update(combat, s, names, _named_rolls(rolled, names), log + _phase_log(combat, rolled, s, names))


def next_turn(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """End the current declarer's turn, or, declarations done, resolve the phase and open the next.

    While someone must still declare, that declarer declares nothing new and
    the next one is current. Then ("Initiative and Actions") what ends this
    phase resolves, free before phase before round before turn before
    minute, the same length together: the non-attacks go to ``log``, the
    shots to ``state["shots"]``, one entry a shot (``id``, attacker, target,
    weapon, ``shot`` of ``shots``, ``group`` and ``length``, the
    :class:`AttackRequest` options); ``state["due"]`` and ``TurnUpdate.due``
    are those of the shortest length still to roll, as ``attack`` takes them
    (see :mod:`.books`); shots of the same length are simultaneous. The clock
    advances a phase (a new round when the round's phases are done), the
    surprised roll, and initiative is rolled for the new declarations.
    """
    s = resolve_settings(settings)
    names = _names(combatants, state)
    combat, log = _sync(state["combat"], combatants, s, names)
    log = _dropped(state, names) + log
    current = next_declarer(combat)
    if current is not None:
        combat = declare(combat, current, [], s)
        log.append(say("{name} declares no new action.", name=names.get(current, current)))
        if next_declarer(combat) is None:
            log.append(say("Declarations are done: the phase resolves next."))
        return _update(combat, s, names, [], log, state.get("shots", []), state.get("resolved", []),
                       state.get("struck"))
    unrolled = state.get("shots") or []
    if unrolled:
        shots = joined([say("{name} at {target}", name=names.get(d["attacker"], d["attacker"]),
                            target=names.get(d["target"], d["target"])) for d in unrolled])
        log.append(say_n("{n} shot of the last phase was not rolled: {shots} (the GM's call).",
                         "{n} shots of the last phase were not rolled: {shots} (the GM's call).", len(unrolled), shots=shots))
    where = clock(combat["phase"], s)
    combat, groups = end_phase(combat, s)
    due: list[dict] = []
    resolved: list[dict] = []
    log.append(say("End of phase {n} of {phases}: actions resolve, shortest first.", n=where["phase_in_round"],
                   phases=s["phases_per_round"]))
    for i, group in enumerate(groups):
        resolved.append({"length": group["length"], "actions": [
            {k: a[k] for k in ("id", "who", "name", "target", "called", "note") if k in a} for a in group["actions"]
        ]})
        log.append(GROUP_LINES[group["length"]](joined([_describe(a, names) for a in group["actions"]])))
        for a in group["actions"]:
            if "attack" in a:
                shot = a["attack"]
                for n in range(1, shot["shots"] + 1):
                    due.append({**shot, "id": f"{shot['action']}.{n}" if shot["shots"] > 1 else shot["action"],
                                "shot": n, "group": i, "length": group["length"]})
    if not groups:
        log.append(say("Nothing resolves this phase."))
    if due:
        log.append(say_n("{n} shot to roll, shorter actions first; those of one length are simultaneous.",
                         "{n} shots to roll, shorter actions first; those of one length are simultaneous.", len(due)))
    sheets = {c.id: c.sheet for c in combatants}
    combat, rolled = begin_phase(combat, sheets, dice, s)
    log += _phase_log(combat, rolled, s, names)
    return _update(combat, s, names, _named_rolls(rolled, names), log, due, resolved)


def _own_pending(combat: dict, who: str, action_id: str | None) -> dict:
    found = [a for a in combat["pending"] if a["id"] == action_id]
    if not found:
        raise _no_pending(action_id)
    if found[0]["who"] != who:
        raise RuleError(say("that action is not {name}'s: {action}", name=who, action=_describe(found[0], {})))
    return found[0]


def _free_rolls(specs: list[dict], sheet: dict, dice: DiceSource, s: dict, name: str,
                roller: str | None = None) -> tuple[list[dict], list, list[str]]:
    """Roll the skill that would make an action free (Earl's fastdraw, "Initiative and
    Actions"): a success makes it free, a failure leaves it its length, so the
    declarer has no other new action left this phase. ``roller``: the declarer (the table's dice, #59)."""
    out, rolls, log = [], [], []
    failed = False
    for spec in specs:
        spec = dict(spec)
        check = spec.pop("free_roll", None)
        if check:
            if "tn" not in check:
                raise RuleError(say("a {field} needs the GM's TN", field="free_roll"))
            result = attribute_roll(
                sheet, check.get("attribute", "reflexes"), int(check["tn"]), dice, s,
                skill=check.get("skill"), purpose=say("{skill} to make {action} free", skill=check["skill"], action=spec.get("name"))
                if check.get("skill") else say("roll to make {action} free", action=spec.get("name")), roller=roller,
            )
            rolls.append(result["roll"])
            spec["free"] = result["success"]
            failed = failed or not result["success"]
            verdict = say("succeeds: a free action") if result["success"] else say("fails: it takes its time")
            log.append(say("{name}: {skill} {total} vs TN {tn}, {verdict}.", name=name, skill=check.get("skill") or say("roll"),
                           total=result["total"], tn=result["tn"], verdict=verdict))
        out.append(spec)
    timed = [sp for sp in out if not sp.get("free") and sp.get("length", ACTIONS.get(sp.get("name"), {}).get("length")) != "free"]
    if failed and len(timed) > 1:
        for extra in timed[1:]:
            out.remove(extra)
            log.append(say("{name} has no new action left for {action} this phase.", name=name, action=extra.get("name")))
    return out, rolls, log


def act(
    state: dict,
    actor: Combatant,
    action: str,
    combatants: list[Combatant],
    dice: DiceSource,
    settings: dict | None = None,
    options: dict | None = None,
) -> TurnUpdate:
    """A declaration-time action ("Initiative and Actions", "Combined Actions", "Ranged Attacks").

    - ``declare``: ``options["actions"]`` is the list of actions (see
      :func:`declare`); an action may carry ``free_roll`` ``{"skill",
      "attribute", "tn"}``, the roll that would make it a free action.
    - ``wait``: the declarer declares no new action this phase.
    - ``cancel``: ``options["action"]``, one of the actor's pending actions
      (the only change a round or turn action allows); the actor declares
      again from the next phase (a reading: this phase's initiative is rolled).
    - ``change_target``: ``options["action"]`` and ``options["target"]``,
      only for a free or phase action.
    - ``lose_targeting``: a distracting event costs the actor its Targeting.
    """
    s = resolve_settings(settings)
    opts = dict(options or {})
    action, _, arg = action.partition(":")  # the keys actions() lists: "declare:fire", "cancel:a3"...
    if action == "declare" and arg and not opts.get("actions"):
        spec = {k: opts[k] for k in ("name", "target", "called", "weapon", "note", "length", "free", "free_roll")
                if k in opts}
        if arg != "other":
            spec["name"] = arg
        opts["actions"] = [spec]
    elif action in ("cancel", "change_target") and arg:
        opts["action"] = arg
    names = _names(combatants, state)
    combat, log = _sync(state["combat"], combatants, s, names)
    log = _dropped(state, names) + log
    who = actor.id
    name = names.get(who, actor.name or who)
    rolls: list = []
    if who not in combat["combatants"]:
        raise RuleError(say("{name} is not in the fight", name=name))
    if action == "declare":
        specs, rolls, more = _free_rolls(list(opts.get("actions") or []), actor.sheet, dice, s, name, roller=actor.id)
        log += more
        before = {a["id"] for a in combat["pending"]}
        combat = declare(combat, who, specs, s, sheet=actor.sheet)
        mine = [a for a in combat["pending"] if a["id"] not in before]
        declared = [say("{action} ({length}, resolves at the end of phase {n})", action=_describe(a, names, who=False),
                        length=LENGTH_WORDS.get(a["length"], a["length"]), n=a["resolves_phase"]) for a in mine]
        log.append(say("{name} declares {actions}.", name=name, actions=joined(declared)) if mine
                   else say("{name} declares no new action.", name=name))
    elif action == "wait":
        combat = declare(combat, who, [], s)
        log.append(say("{name} declares no new action.", name=name))
    elif action == "cancel":
        pending = _own_pending(combat, who, opts.get("action"))
        combat = cancel_action(combat, pending["id"])
        log.append(say("{name} cancels {action}.", name=name, action=_describe(pending, names, who=False)))
    elif action == "change_target":
        pending = _own_pending(combat, who, opts.get("action"))
        target = opts.get("target")
        if not target:
            raise RuleError(say("{action} needs a target", action="change_target"))
        combat = change_target(combat, pending["id"], target)
        log.append(say("{name} switches {action} to {target}.", name=name, target=names.get(target, target),
                       action=ACTIONS.get(pending["name"], {}).get("label", pending["name"])))
    elif action == "lose_targeting":
        if who not in combat["targeting"]:
            raise RuleError(say("{name} holds no Targeting", name=name))
        combat = {**combat, "targeting": lose_targeting(combat["targeting"], who)}
        log.append(say("{name} loses the Targeting (a distracting event).", name=name))
    else:
        raise RuleNotImplemented(say("Phase/TN: the action {action} is not automated", action=repr(action)))
    if next_declarer(combat) is None:
        log.append(say("Declarations are done: the phase resolves next."))
    return _update(combat, s, names, rolls, log, state.get("shots", []), state.get("resolved", []),
                   state.get("struck"))


def _has_weapon(sheet: dict, modes) -> bool:
    return any((w.get("mode") or "single") in modes and not w.get("melee") for w in sheet.get("weapons") or [])


#: the declarations a phase most often holds, listed first (``ActionOption.usual``)
USUAL_DECLARATIONS = frozenset({"target", "fire", "move"})


# --- a Move's allowance this phase (rules.phase_tn.movement builds on it; here so the turn's actions read it)

def _moving(combat: dict, who: str) -> bool:
    """Whether ``who`` declared a Move this phase."""
    return any(a["who"] == who and a["name"] == "move" and a["declared_phase"] == combat["phase"]
               for a in combat["pending"])


def _spent(combat: dict, who: str) -> float:
    entry = combat.get("moves", {}).get(who, {})
    return entry.get("spent", 0) if entry.get("phase") == combat["phase"] else 0


def allowance_now(combat: dict, who: str, s: dict, names: dict | None = None) -> tuple[float, str]:
    """Squares ``who`` may still move this phase, and why not when none (``names``: id -> name)."""
    names = names or {}
    name = names.get(who, who)
    if who not in combat["combatants"]:
        return 0, say("{name} is not in the fight", name=name)
    per_phase = s["move_per_phase"]
    if _moving(combat, who):
        left = max(0, per_phase - _spent(combat, who))
        return left, "" if left else say("the Move of this phase is used up")
    if who in combat["declared"]:
        return 0, say("{name} declared another action this phase: one new action a phase", name=name)
    ok, why = can_declare(combat, who, s)
    if not ok:
        return 0, why
    if who not in combat["order"]:
        return 0, say("{name} rolled no initiative this phase", name=name)
    first = next_declarer(combat)
    if first != who:
        return 0, say("{first} declares before {name} (lowest initiative first): a Move is declared in turn",
                      first=names.get(first, first), name=name)
    return per_phase, ""


def actions(state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
    """What the actor may do now: declare (each known action, a described one, or no
    new action) when it is its turn to declare, cancel or retarget its pending
    actions, drop its Targeting; with the reason where the rules forbid it."""
    s = resolve_settings(settings)
    combat = state["combat"]
    names = {**(state.get("names") or {}), actor.id: actor.name or actor.id}
    who = actor.id
    down = incapacitated(actor.sheet, s)
    down = down or (say("taken out by a shot") if who in (combat.get("out") or []) else "")
    if who not in combat["combatants"] or down:
        return [ActionOption("declare", say("Declare"), "turn", available=False,
                             reason=say("not in the fight ({why})", why=down) if down else say("not in the fight"))]
    current = next_declarer(combat)
    ok, why = can_declare(combat, who, s)
    why = named(why, names)
    if ok and who not in combat["order"]:
        ok, why = False, say("rolled no initiative this phase (declares from the next phase)")
    elif ok and who in combat["declared"]:
        ok, why = False, say("has declared this phase")
    elif ok and current != who:
        ok, why = False, say("{name} declares first (lowest initiative first)", name=names.get(current, current))
    held = combat["targeting"].get(who)
    out: list[ActionOption] = []
    for key, known in ACTIONS.items():
        reason = why
        if ok and known.get("weapon_modes") and not _has_weapon(actor.sheet, known["weapon_modes"]):
            modes = set(known["weapon_modes"])
            reason = (say("needs a semi-automatic or automatic weapon") if "semi" in modes and len(modes) > 1
                      else say("needs a semi-automatic weapon") if "semi" in modes else say("needs an automatic weapon"))
        elif ok and "mode" in known and not _has_weapon(actor.sheet, ("single", "semi", "auto")):
            reason = say("no ranged weapon on the sheet")
        elif ok and known.get("needs_targeting") and not held:
            reason = say("no Targeting held: a wild shot cannot be aimed")
        data: dict = {"action": {"name": key, "length": known["length"]}, "needs_target": bool(known.get("targets"))}
        if held:
            data["targeted"] = held["target"]
        if "mode" in known:
            data["wild"] = say("a shot at a target without Targeting is a wild shot: -2, not called, not aimed")
        kind = "attack" if "mode" in known else "move" if known.get("moves") else "turn"
        if known.get("moves"):
            data["allowance"] = s["move_per_phase"]
        label = say("Declare a Move (then move the token)") if known.get("moves") else known["label"]
        out.append(ActionOption(f"declare:{key}", label, kind, LENGTH_WORDS[known["length"]], not reason,
                                reason, data, usual=key in USUAL_DECLARATIONS))
    out.append(ActionOption("declare:other", say("Other action (describe it, give its length)"), "other", say("any length, free action to minute action"),
                            ok, "" if ok else why, {"action": {"name": "", "length": "phase"}, "lengths": list(LENGTHS)}))
    out.append(ActionOption("wait", say("No new action this phase"), "turn", "", ok, "" if ok else why, usual=True))
    left, stop = allowance_now(combat, who, s, names)
    out.append(ActionOption("move", say("Move ({left} of {most} hexes left)", left=f"{left:g}", most=f"{s['move_per_phase']:g}")
                            if grid_of(actor.position).hex else  # a hex map's moves are hexes (#58)
                            say("Move ({left} of {most} squares left)", left=f"{left:g}", most=f"{s['move_per_phase']:g}"),
                            "move", LENGTH_WORDS["phase"], bool(left), "" if left else stop, {"allowance": left}, usual=True))
    for a in combat["pending"]:
        if a["who"] != who:
            continue
        label = _describe(a, names, who=False)
        out.append(ActionOption(f"cancel:{a['id']}", say("Cancel {action}", action=label), "turn", "", True, "", {"action": a["id"]}))
        locked = a["length"] not in ("free", "phase")
        out.append(ActionOption(f"change_target:{a['id']}", say("Change the target of {action}", action=label), "turn", "", not locked,
                                say("a {length} keeps its target: cancel it instead", length=LENGTH_WORDS.get(a["length"], a["length"])) if locked else "",
                                {"action": a["id"]}))
    if held:
        out.append(ActionOption("lose_targeting", say("Lose the Targeting (a distracting event)"), "other", "", True, "",
                                {"target": held["target"]}))
    return out
