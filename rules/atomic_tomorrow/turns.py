"""Initiative, the turn sequence and the fight lifecycle of *Atomic Tomorrow Combat*.

Section "INITIATIVE AND TURN SEQUENCE": percentile dice against INIT
(REFLEX x 5); successes act first, highest roll first, then failures,
highest first; ties go to the higher REFLEX. Section "ACTION ECONOMY":
each round one significant action, one move and one quick action. The
roll a wounded character makes to act ("INCAPACITATION", "LAST STAND") is
made on its turn, before the action.

The fight state is plain JSON-able data::

    {"round": 1, "order": [ids], "index": 0, "current": id,
     "initiative": {id: {"roll", "value", "reflex", "success"}},
     "combatants": {id: {"round": <economy record>, "act_check": <GRIT x1
                         success for one action> | None, "last_stand":
                         <outcome> | None, "status": "acting" | "conscious"
                         | "collapsed", "conscious_rounds": int | None}}}

``state["combatants"][id]`` is what ``attack`` reads as ``Combatant.state``.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..copying import copied
from ..dice import DiceSource
from ..system import ActionOption, AttackResult, Combatant, RuleError, RuleNotImplemented, TurnUpdate
from .checks import is_success, quality_label, roll_d100, success_quality
from .data import ACTIONS, DEFENSE_WORDS, MOVE_ZONES, WOUND_STATE_TITLES, settings_with_defaults, weapon_words
from .defense import defense_skill
from .economy import new_round, pending_check, round_state, spend_action
from .health import grit_needs, incapacitated_check, last_stand_needs, last_stand_outcome, wound_state, wounds_of
from .movement import check_move, move_allowance
from .sheet import find_weapon, with_defaults
from ..text import Say, joined, say, say_n


def initiative_order(entries: list[tuple[str, int, int, int]]) -> list[str]:
    """Acting order from ``(name, roll, initiative_value, reflex)`` entries.

    Section "INITIATIVE AND TURN SEQUENCE": successful rolls act first,
    highest roll first; failed rolls after, highest first; ties go to the
    higher REFLEX. Reading: entries still tied keep the order given.
    """
    keyed = []
    for index, (name, roll, value, reflex) in enumerate(entries):
        keyed.append((not is_success(roll, value), -roll, -reflex, index, name))
    return [k[-1] for k in sorted(keyed)]


def initiative(combatants: list[Combatant], dice: DiceSource) -> list[dict]:
    """Section "INITIATIVE AND TURN SEQUENCE": d100 against REFLEX x 5, in acting order."""
    state: dict = {"initiative": {}}
    rolls: list = []
    _roll_initiative(state, combatants, dice, rolls, [])
    by_id = {c.id: (c, rec) for c, rec in zip(combatants, rolls)}
    rows = []
    for i, cid in enumerate(_order(state, [c.id for c in combatants])):
        c, rec = by_id[cid]
        ini = state["initiative"][cid]
        rows.append({"id": cid, "name": c.name, "roll": rec.to_dict(), "value": ini["value"], "reflex": ini["reflex"],
                     "success": ini["success"], "quality": success_quality(rec.total, ini["value"]), "order": i + 1})
    return rows


def act_check(combatant: Combatant, dice: DiceSource, settings: Mapping | None = None) -> dict:
    """The roll a wounded character makes to act: GRIT x 1 at 4 wounds,
    the Last Stand (NERVE x 5) at 5. Sections "INCAPACITATION", "LAST STAND"."""
    settings = settings_with_defaults(settings)
    s = with_defaults(combatant.sheet)
    state = wound_state(wounds_of(s))
    penalty = settings["wounded_action_penalty"]
    if state == "fighting":
        return {"check": None, "may_act": True, "penalty": 0, "rolls": []}
    if state == "incapacitated":
        rec = roll_d100(dice, say("{name}: GRIT x1 to act while incapacitated", name=combatant.name),
                        roller=combatant.id, needs=grit_needs(int(s["grit"])), skill=int(s["grit"]))
        return {**incapacitated_check(rec.total, int(s["grit"]), penalty), "rolls": [rec.to_dict()]}
    if (combatant.state.get("last_stand") or {}).get("check") == "last_stand":
        raise RuleError(say("{name} has already made the Last Stand", name=combatant.name))
    rec = roll_d100(dice, say("{name}: Last Stand (NERVE x5)", name=combatant.name), roller=combatant.id,
                    needs=last_stand_needs(int(s["nerve"])), skill=int(s["nerve"]) * 5)
    out = last_stand_outcome(rec.total, int(s["nerve"]), penalty)
    return {**out, "rolls": [rec.to_dict()]}


# ---------------------------------------------------------------------------
# The fight lifecycle: begin_fight, next_turn, actions, act (rules.system)
# ---------------------------------------------------------------------------

#: what a combatant's turn status means for the turn order
ACTING, CONSCIOUS, COLLAPSED = "acting", "conscious", "collapsed"


def fresh_combatant_state() -> dict:
    """A combatant's state at the start of a fight: nothing spent, no check pending."""
    return {"round": new_round(), "act_check": None, "last_stand": None, "status": ACTING,
            "conscious_rounds": None}


def _per(state: dict, cid: str) -> dict:
    per = state.setdefault("combatants", {}).setdefault(cid, fresh_combatant_state())
    for key, value in fresh_combatant_state().items():
        per.setdefault(key, value)
    return per


def _update(state: dict, rolls: list, log: list, changes: dict | None = None) -> TurnUpdate:
    return TurnUpdate(state=state, round=state["round"], order=list(state["order"]), current=state["current"],
                      rolls=rolls, log=log, sheet_changes=changes or {})


def _roll_initiative(state: dict, combatants: list[Combatant], dice: DiceSource, rolls: list, log: list) -> None:
    """Section "INITIATIVE AND TURN SEQUENCE": a percentile roll against INIT (REFLEX x 5) each."""
    # "INITIATIVE AND TURN SEQUENCE" says each rolls, not in what order; no one's roll hangs on another's: at once (#70)
    with dice.together():
        for c in combatants:
            reflex = int(with_defaults(c.sheet)["reflex"])
            value = reflex * 5
            rec = roll_d100(dice, say("initiative ({name})", name=c.name), roller=c.id,
                            needs=say("roll d100, {target} or less (REFLEX x5): successes act first, the highest roll "
                                      "first", target=value))
            rolls.append(rec)
            state["initiative"][c.id] = {"roll": rec.total, "value": value, "reflex": reflex,
                                         "success": is_success(rec.total, value)}
            log.append(say("{name}: initiative {roll} against {value}%, {quality}", name=c.name, roll=rec.total, value=value,
                           quality=quality_label(rec.total, value)))


def _order(state: dict, ids: list[str]) -> list[str]:
    entries = [(cid, state["initiative"][cid]["roll"], state["initiative"][cid]["value"],
                state["initiative"][cid]["reflex"]) for cid in ids]
    return initiative_order(entries)


def _names(ids: list[str], by_id: Mapping[str, Combatant]) -> str:
    return ", ".join(by_id[i].name if i in by_id else i for i in ids) or "nobody"


def _start_turn(state: dict, cid: str, actor: Combatant | None, log: list) -> None:
    """Whose turn it is, and what a wounded character must roll to act ("INCAPACITATION", "LAST STAND")."""
    name = actor.name if actor else cid
    log.append(say("{name}'s turn", name=name))
    if actor is None:
        return
    s = with_defaults(actor.sheet)
    condition = wound_state(wounds_of(s))
    per = _per(state, cid)
    if condition == "incapacitated":
        log.append(say("{name} is incapacitated: each action needs a GRIT x1 roll ({n}%)", name=name, n=int(s["grit"])))
    elif condition == "dying" and not per["last_stand"]:
        log.append(say("{name} is dying: one final act needs a Last Stand, NERVE x5 ({n}%)", name=name, n=int(s["nerve"]) * 5))


def _end_turn(state: dict, cid: str, actor: Combatant | None, log: list, changes: dict) -> None:
    """After the actor's turn: a pending GRIT check lapses; a successful Last Stand ends as the document says.

    Section "LAST STAND": success, one final action "before collapsing";
    special, "conscious for tens die more rounds"; critical, "stabilizes at
    4 Wounds". Reading: the final action is taken in the turn of the roll.
    """
    per = _per(state, cid)
    per["act_check"] = None
    stand = per["last_stand"]
    if not stand or not stand.get("may_act") or stand.get("resolved"):
        return
    name = actor.name if actor else cid
    stand["resolved"] = True
    if stand.get("stabilise_at") is not None:
        changes.setdefault(cid, {})["wounds"] = int(stand["stabilise_at"])
        per["last_stand"] = None
        log.append(say("{name} stabilises at {n} wounds", name=name, n=stand["stabilise_at"]))
    elif stand.get("conscious_rounds"):
        per["status"] = CONSCIOUS
        per["conscious_rounds"] = int(stand["conscious_rounds"])
        log.append(say("{name} stays conscious for {n} more round(s)", name=name, n=stand["conscious_rounds"]))
    else:
        per["status"] = COLLAPSED
        log.append(say("{name} collapses", name=name))


def _new_round(state: dict, present: list[Combatant], dice: DiceSource, settings: dict, rolls: list,
               log: list, by_id: Mapping[str, Combatant]) -> None:
    state["round"] += 1
    log.append(say("Round {n}", n=state["round"]))
    for cid in list(state["combatants"]):
        per = _per(state, cid)
        per["round"] = new_round()
        if per["status"] == CONSCIOUS:
            if not per["conscious_rounds"]:
                per["status"] = COLLAPSED
                log.append(say("{name} collapses: the Last Stand's rounds are over", name=by_id[cid].name if cid in by_id else cid))
            else:
                per["conscious_rounds"] -= 1
    acting = [c for c in present if _per(state, c.id)["status"] == ACTING]
    if settings["initiative_each_round"]:
        _roll_initiative(state, acting, dice, rolls, log)
    else:
        _roll_initiative(state, [c for c in acting if c.id not in state["initiative"]], dice, rolls, log)
    state["order"] = _order(state, [c.id for c in acting])
    state["index"] = 0
    log.append(say("Order: {names}", names=_names(state["order"], by_id)))


def begin_fight(combatants: list[Combatant], dice: DiceSource, settings: Mapping | None = None) -> TurnUpdate:
    """Section "INITIATIVE AND TURN SEQUENCE": everyone rolls, the first in the order acts.

    The document has no surprise round; the GM may leave a surprised side
    out of ``combatants`` until it joins (it rolls at the next round).
    """
    caught = [c.name for c in combatants if (c.state or {}).get("surprised")]
    if caught:
        raise RuleError(say_n("Atomic Tomorrow Combat has no surprise rule: every fight opens with everyone rolling "
                              "initiative (INITIATIVE AND TURN SEQUENCE), so {names} cannot be surprised; leave them "
                              "out of the fight until they join",
                              "Atomic Tomorrow Combat has no surprise rule: every fight opens with everyone rolling "
                              "initiative (INITIATIVE AND TURN SEQUENCE), so {names} cannot be surprised; leave them "
                              "out of the fight until they join", len(caught), names=", ".join(caught)))
    settings = settings_with_defaults(settings)
    rolls: list = []
    log = [say("Round {n}", n=1)]
    state = {"round": 1, "order": [], "index": 0, "current": None, "initiative": {},
             "combatants": {c.id: fresh_combatant_state() for c in combatants}}
    by_id = {c.id: c for c in combatants}
    _roll_initiative(state, combatants, dice, rolls, log)
    state["order"] = _order(state, [c.id for c in combatants])
    log.append(say("Order: {names}", names=_names(state["order"], by_id)))
    if state["order"]:
        state["current"] = state["order"][0]
        _start_turn(state, state["current"], by_id[state["current"]], log)
    return _update(state, rolls, log)


def next_turn(state: Mapping, combatants: list[Combatant], dice: DiceSource,
              settings: Mapping | None = None) -> TurnUpdate:
    """End the current turn and start the next; a new round when the order is done.

    Sections "ACTION ECONOMY" (the round's actions and defenses start
    afresh each round), "INITIATIVE AND TURN SEQUENCE" (setting
    ``initiative_each_round``: roll again each round, or keep the rolls and
    roll only for newcomers) and "LAST STAND" (see :func:`_end_turn`).
    Combatants missing from ``combatants`` or collapsed are skipped.
    """
    settings = settings_with_defaults(settings)
    state = copied(dict(state))
    by_id = {c.id: c for c in combatants}
    rolls: list = []
    log: list = []
    changes: dict = {}
    if state.get("current") is not None:
        _end_turn(state, state["current"], by_id.get(state["current"]), log, changes)

    def may_take_turn(cid: str) -> bool:
        return cid in by_id and _per(state, cid)["status"] == ACTING

    index = state.get("index", 0) + 1
    while index < len(state["order"]) and not may_take_turn(state["order"][index]):
        index += 1
    if index >= len(state["order"]):
        _new_round(state, combatants, dice, settings, rolls, log, by_id)
        index = 0
    state["index"] = index
    state["current"] = state["order"][index] if index < len(state["order"]) else None
    if state["current"] is None:
        log.append(say("Nobody is left to act"))
    else:
        _start_turn(state, state["current"], by_id[state["current"]], log)
    return _update(state, rolls, log, changes)


# ---- what an actor may do now -----------------------------------------------

#: the round's actions as the action list names them (their cost), and why a spent one is not open
ACTION_WORDS = {"significant": say("significant action"), "move": say("move"), "quick": say("quick action")}
COST_WORDS = {**ACTION_WORDS, "move": say("move action")}
_SPENT = {"significant": say("the significant action of this round is spent"), "move": say("the move of this round is spent"),
          "quick": say("the quick action of this round is spent")}



def _blocker(state: Mapping, actor: Combatant, action: str, rolls_own_check: bool = False) -> str:
    """Why ``actor`` may not take ``action`` (significant, move, quick) now; "" when it may.

    ``rolls_own_check``: the action rolls the GRIT x 1 check itself (an attack does).
    """
    if state.get("current") != actor.id:
        return say("it is not {name}'s turn", name=actor.name)
    per = (state.get("combatants") or {}).get(actor.id) or actor.state or {}
    status = per.get("status", ACTING)
    if status == COLLAPSED:
        return say("{name} has collapsed", name=actor.name)
    if status == CONSCIOUS:
        return say("the Last Stand's one final action is spent")
    if round_state(per.get("round"))[action]:
        return _SPENT[action]
    condition = wound_state(wounds_of(with_defaults(actor.sheet)))
    if condition == "dying":
        stand = per.get("last_stand") or {}
        if not stand:
            return say("dying: a Last Stand success is needed to act")
        if not stand.get("may_act"):
            return say("the Last Stand failed")
        if stand.get("used"):
            return say("the Last Stand's one final action is spent")
    if condition == "incapacitated" and not rolls_own_check and not pending_check(per, action):
        return say("incapacitated: roll GRIT x1 for this action first")
    return ""


def _defense_option(sheet: Mapping, defense: str, rnd: Mapping, collapsed: bool) -> ActionOption:
    skills: dict = {}
    reasons = []
    for kind in ("melee", "ranged"):
        try:
            skills[kind] = defense_skill(sheet, defense, kind, rnd)[0]
        except RuleError as e:
            skills[kind] = None
            said = e.args[0] if e.args and isinstance(e.args[0], Say) else str(e)  # the rules' words, kept
            if said not in reasons:
                reasons.append(said)
    open_ = any(v is not None for v in skills.values()) and not collapsed
    if collapsed:
        reasons = [say("collapsed")]
    made = int(rnd.get("defenses", 0))
    return ActionOption(defense, DEFENSE_WORDS.get(defense, defense.capitalize()), "defense",
                        cost=say("free; each defense after the first this round -20%"),
                        available=open_, reason="" if open_ else joined(reasons),
                        data={"skill_vs_melee": skills["melee"], "skill_vs_ranged": skills["ranged"],
                              "defenses_made": made})


def actions(state: Mapping, actor: Combatant, settings: Mapping | None = None) -> list[ActionOption]:
    """What ``actor`` may do now, with the reason for what it may not.

    Section "ACTION ECONOMY": each round one significant action (an attack,
    using a device...), one move (``MOVE_ZONES`` zone: within the zone or to
    an adjacent one) and one quick action (draw a weapon, flip a switch).
    Defenses ("DEFENSE OPTION") are open on anyone's turn. At 4 wounds
    every action needs a GRIT x 1 success first ("INCAPACITATION"; an attack
    rolls it itself when none is pending); at 5 only the Last Stand opens
    one final action ("LAST STAND").
    """
    settings = settings_with_defaults(settings)
    s = with_defaults(actor.sheet)
    per = (state.get("combatants") or {}).get(actor.id) or actor.state or {}
    rnd = round_state(per.get("round"))
    condition = wound_state(wounds_of(s))
    out: list[ActionOption] = []

    def option(key, label, kind, action, cost, data=None):
        reason = _blocker(state, actor, action, rolls_own_check=kind == "attack")
        # the move and the attacks are what a round most often holds (ActionOption.usual)
        out.append(ActionOption(key, label, kind, cost, not reason, reason, data or {}, usual=kind in ("move", "attack")))

    option("move", say("Move (within the zone or to an adjacent zone)"), "move", "move", COST_WORDS["move"],
           {"allowance": move_allowance(s), "zones": move_allowance(s), "unit": "zone",
            "left": movement_left(state, actor)})
    weapons = [find_weapon(s, None, settings)]
    for index, _ in enumerate(s.get("weapons") or []):
        try:
            weapons.append(find_weapon(s, str(index), settings))
        except RuleError:
            continue  # a broken weapon entry: the sheet check names it
    for w in weapons:
        data = {"weapon": None if w["skill"] == "unarmed" and w["name"] == "Unarmed" else w["name"],
                "skill": w["skill"], "percent": int(s[w["skill"]]), "ranges": w["ranges"],
                "wound_rating": w["wound_rating"], "area": w["area"]}
        if condition == "incapacitated" and not pending_check(per, "significant"):
            data["check"] = say("GRIT x1 ({n}%), rolled with the attack", n=int(s["grit"]))
        option(f"attack:{w['name']}", say("Attack with {weapon}", weapon=weapon_words(w)),
               "attack", "significant", ACTION_WORDS["significant"], data)
    option("significant", say("Another significant action (use a device...)"), "other", "significant",
           ACTION_WORDS["significant"])
    option("quick", say("Quick action (draw a weapon, flip a switch...)"), "other", "quick", ACTION_WORDS["quick"])
    for defense in ("parry", "block", "dodge"):
        out.append(_defense_option(s, defense, rnd, per.get("status") == COLLAPSED))
    if condition == "incapacitated":
        on_turn = state.get("current") == actor.id
        out.append(ActionOption("grit_check", say("GRIT x1 roll to act while incapacitated"), "turn", "",
                                on_turn, "" if on_turn else say("it is not {name}'s turn", name=actor.name),
                                {"target": int(s["grit"]), "for": list(ACTIONS)}, usual=True))
    if condition == "dying":
        reason = ""
        if state.get("current") != actor.id:
            reason = say("it is not {name}'s turn", name=actor.name)
        elif per.get("last_stand") or per.get("status", ACTING) != ACTING:
            reason = say("the Last Stand is made once")
        out.append(ActionOption("last_stand", say("Last Stand: NERVE x5 for one final heroic act"), "turn", "",
                                not reason, reason, {"target": int(s["nerve"]) * 5}, usual=True))
    return out


# ---- turn actions that are not a move or an attack ----------------------------


def _spend_wounded(per: dict, actor: Combatant) -> None:
    """A pending GRIT x 1 success (4 wounds) or the Last Stand's final action (5) serves one action only."""
    condition = wound_state(wounds_of(with_defaults(actor.sheet)))
    if condition == "incapacitated" and per.get("act_check"):
        per["act_check"] = {**per["act_check"], "used": True}
    elif condition == "dying" and per.get("last_stand"):
        per["last_stand"] = {**per["last_stand"], "used": True}


def _spend(state: dict, actor: Combatant, action: str, dice: DiceSource, settings: dict, options: dict) -> tuple:
    """Section "ACTION ECONOMY": a quick action or a significant action other than an attack
    (``options["what"]``), each once a round. (A move goes through :func:`move`.)"""
    reason = _blocker(state, actor, action)
    if reason:
        raise RuleError(reason)
    per = _per(state, actor.id)
    per["round"] = spend_action(per["round"], action)
    what = str(options.get("what") or "").strip()
    line = (say("{name} takes a {action}: {what}", name=actor.name, action=ACTION_WORDS[action], what=what) if what
            else say("{name} takes a {action}", name=actor.name, action=ACTION_WORDS[action]))
    _spend_wounded(per, actor)
    return [], [line]


def _grit_check(state: dict, actor: Combatant, action: str, dice: DiceSource, settings: dict,
                options: dict) -> tuple:
    """Section "INCAPACITATION": the GRIT x 1 roll for one action (``options["for"]``) at 4 wounds.

    A success opens that action this turn (a critical with no penalty); a
    failure loses it, since the roll is "to perform a single action".
    """
    s = with_defaults(actor.sheet)
    if wound_state(wounds_of(s)) != "incapacitated":
        raise RuleError(say("{name} is not incapacitated (4 wounds); no GRIT x1 roll is needed", name=actor.name))
    per = _per(state, actor.id)
    for_ = str(options.get("for") or "significant")
    if for_ not in ACTIONS:
        raise RuleError(say("a GRIT x1 roll is for one action: {actions}, not {value}", actions=", ".join(ACTIONS),
                            value=repr(for_)))
    if round_state(per["round"])[for_]:
        raise RuleError(_SPENT[for_])
    rec = roll_d100(dice, say("{name}: GRIT x1 to act while incapacitated ({action})", name=actor.name, action=ACTION_WORDS[for_]),
                    roller=actor.id, needs=grit_needs(int(s["grit"])), skill=int(s["grit"]))
    check = incapacitated_check(rec.total, int(s["grit"]), settings["wounded_action_penalty"])
    said = dict(name=actor.name, roll=rec.total, target=check["target"], action=ACTION_WORDS[for_])
    if not check["may_act"]:
        per["act_check"] = None
        per["round"] = spend_action(per["round"], for_)
        return [rec], [say("{name} rolls {roll} against GRIT {target}%: the {action} is lost", **said)]
    per["act_check"] = {**check, "for": for_, "used": False}
    if check["penalty"]:
        return [rec], [say("{name} rolls {roll} against GRIT {target}%: may take the {action}, at {penalty}%", **said,
                           penalty=f"{check['penalty']:+d}")]
    return [rec], [say("{name} rolls {roll} against GRIT {target}%: may take the {action}, with no penalty", **said)]


def _last_stand(state: dict, actor: Combatant, action: str, dice: DiceSource, settings: dict,
                options: dict) -> tuple:
    """Section "LAST STAND": the dying character's NERVE x 5 roll, once; a failure collapses at once."""
    s = with_defaults(actor.sheet)
    if wound_state(wounds_of(s)) != "dying":
        raise RuleError(say("{name} is not dying (5 wounds); there is no Last Stand to make", name=actor.name))
    per = _per(state, actor.id)
    if per["last_stand"] or per["status"] != ACTING:
        raise RuleError(say("{name} has already made the Last Stand", name=actor.name))
    rec = roll_d100(dice, say("{name}: Last Stand (NERVE x5)", name=actor.name), roller=actor.id,
                    needs=last_stand_needs(int(s["nerve"])), skill=int(s["nerve"]) * 5)
    outcome = last_stand_outcome(rec.total, int(s["nerve"]), settings["wounded_action_penalty"])
    per["last_stand"] = {**outcome, "used": False}
    said = dict(name=actor.name, roll=rec.total, target=outcome["target"], quality=quality_label(rec.total, outcome["target"]))
    if not outcome["may_act"]:
        per["status"] = COLLAPSED
        return [rec], [say("{name}'s Last Stand: {roll} against {target}%, {quality}: {name} collapses", **said)]
    if outcome["penalty"]:
        return [rec], [say("{name}'s Last Stand: {roll} against {target}%, {quality}: one final action at {penalty}%",
                           **said, penalty=f"{outcome['penalty']:+d}")]
    return [rec], [say("{name}'s Last Stand: {roll} against {target}%, {quality}: one final action", **said)]


_TURN_ACTIONS = {"significant": _spend, "quick": _spend, "grit_check": _grit_check,
                 "last_stand": _last_stand}


def act(state: Mapping, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
        settings: Mapping | None = None, options: Mapping | None = None) -> TurnUpdate:
    """One turn action of ``actor``, on its turn; RuleError when the rules forbid it now.

    ``significant`` and ``quick`` (``options["what"]``, free text) spend
    the round's action ("ACTION ECONOMY"); a move goes through :func:`move`. ``grit_check`` (``options["for"]``: significant, move
    or quick) is the GRIT x 1 roll at 4 wounds ("INCAPACITATION").
    ``last_stand`` is the dying character's NERVE x 5 roll ("LAST STAND").
    Attacks go through ``attack`` and :func:`after_attack`; holding or
    delaying a turn is not in the document (RuleNotImplemented).
    """
    if action == "attack" or action.startswith("attack:"):
        raise RuleNotImplemented(say("an attack is resolved by attack(); its books are kept by after_attack()"))
    if action == "move" or action.startswith("move:"):
        raise RuleNotImplemented(say("a move is judged by move() with its path and cost in zone steps"))
    step = _TURN_ACTIONS.get(action)
    if step is None:
        raise RuleNotImplemented(say("Atomic Tomorrow Adventures: the action {action} is not in the rules", action=repr(action)))
    if state.get("current") != actor.id:
        raise RuleError(say("it is not {name}'s turn", name=actor.name))
    state = copied(dict(state))
    rolls, log = step(state, actor, action, dice, settings_with_defaults(settings), dict(options or {}))
    return _update(state, rolls, log)


def after_attack(state: Mapping, result: AttackResult) -> dict:
    """The fight state after an attack: the attacker's spent action, the defender's defense count,
    a Last Stand or GRIT x 1 check used (the ``round``, ``last_stand`` and ``act_check`` effects)."""
    state = copied(dict(state))
    for effect in result.effects:
        if effect.kind in ("round", "last_stand", "act_check"):
            _per(state, effect.target)[effect.kind] = copied(effect.data[effect.kind])
    return state


def record_attack(state: Mapping, result: AttackResult) -> dict:
    """The wave-1 name of :func:`after_attack`."""
    return after_attack(state, result)


# ---- moves on the zone map ------------------------------------------------------


def movement_left(state: Mapping, mover: Combatant) -> int:
    """Zone steps ``mover`` may still move this round: ``MOVE_ZONES`` until the round's move is spent, 0 after.

    Section "ACTION ECONOMY": one move a round, within the zone or to an
    adjacent zone. 0 too for a character who has collapsed, whose Last Stand
    failed or whose one final action is spent ("LAST STAND"). Whether it is
    the mover's turn, and the GRIT x 1 roll at 4 wounds, are for
    :func:`move` to judge: the allowance is still there once they allow it.
    """
    per = ((state or {}).get("combatants") or {}).get(mover.id) or mover.state or {}
    if per.get("status", ACTING) != ACTING or round_state(per.get("round"))["move"]:
        return 0
    if wound_state(wounds_of(with_defaults(mover.sheet))) == "dying":
        stand = per.get("last_stand") or {}
        if stand and (not stand.get("may_act") or stand.get("used")):
            return 0
    return MOVE_ZONES


def _whole_steps(cost) -> int:
    if isinstance(cost, bool) or not isinstance(cost, (int, float)) or cost != int(cost):
        raise RuleError(say("a move's cost is a whole number of zone steps, not {value}", value=repr(cost)))
    return int(cost)


def move(state: Mapping, mover: Combatant, path: list, cost, combatants: list[Combatant],
         settings: Mapping | None = None) -> dict:
    """Judge a move of ``cost`` zone steps along ``path`` (zone ids, start to end), on the mover's turn.

    Section "ACTION ECONOMY": the round's one move reaches the same zone or
    an adjacent one (``MOVE_ZONES``); at 4 wounds it needs a GRIT x 1
    success rolled for it first, at 5 it is the Last Stand's one final
    action. The document has no attack for leaving a fight, so a move
    provokes nobody. Returns ``{"state", "cost", "left", "provokes", "log"}``.
    """
    steps = _whole_steps(cost)
    if path and len(path) - 1 > steps:
        steps = len(path) - 1  # a path of zone ids is one step from each zone to the next
    reason = _blocker(state, mover, "move")
    if reason:
        raise RuleError(reason)
    check_move(steps)
    state = copied(dict(state))
    per = _per(state, mover.id)
    per["round"] = spend_action(per["round"], "move")
    _spend_wounded(per, mover)
    where = (say("to the next zone") if steps == 1 else say("across zones")) if steps else say("within the zone")  # the zone's name is the app's line
    spent = round_state(per["round"])
    after = _MOVE_LEFT[(not spent["significant"], not spent["quick"])]
    return {"state": state, "cost": steps, "left": movement_left(state, mover), "provokes": [],
            "log": [say("{name} moves {where} ({after})", name=mover.name, where=where, after=after)]}


#: what is left of the round after its move, by (significant action left, quick action left): one phrase each
_MOVE_LEFT = {(True, True): say("the round's move is spent; the significant action and the quick action left"),
              (True, False): say("the round's move is spent; the significant action left"),
              (False, True): say("the round's move is spent; the quick action left"),
              (False, False): say("the round's move is spent: nothing left; End turn")}


# ---- what a token shows -------------------------------------------------------------


def out_of_fight(sheet: Mapping, per: Mapping | None = None) -> bool:
    """Incapacitated or dying by its wounds, or collapsed (``per``: the combatant's own books): the states its
    badges show as Incapacitated, Dying and Collapsed, which the app counts as down (#58)."""
    try:
        condition = wound_state(wounds_of(with_defaults(sheet)))
    except RuleError:
        condition = "fighting"
    per = per or {}
    if "order" in per or "combatants" in per:  # a whole fight's state: whose books are not known here
        per = {}
    return condition in ("incapacitated", "dying") or per.get("status") == COLLAPSED


_STATE_LABELS = {"incapacitated": WOUND_STATE_TITLES["incapacitated"], "dying": WOUND_STATE_TITLES["dying"]}


def badges(sheet: Mapping, per: Mapping | None = None) -> list[dict]:
    """``{"label", "kind"}`` for the token: wounds, the wound state, and from the fight's books
    (``per``: the combatant's own state, ``state["combatants"][id]``) a collapse, the rounds a Last
    Stand keeps the character conscious, its final action still open, a GRIT x 1 roll still needed
    or a success waiting for its action. Sections "WOUND EFFECTS", "INCAPACITATION", "LAST STAND"."""
    s = with_defaults(sheet)
    wounds = wounds_of(s)
    out: list[dict] = []
    if wounds:
        out.append({"label": say_n("{n} wound", "{n} wounds", wounds), "kind": "wound"})
    condition = wound_state(wounds)
    per = per or {}
    if "order" in per or "combatants" in per:  # a whole fight's state: whose books are not known here
        per = {}
    status = per.get("status", ACTING)
    if status == COLLAPSED:
        out.append({"label": say("Collapsed"), "kind": "condition"})
        return out
    if condition in _STATE_LABELS:
        out.append({"label": _STATE_LABELS[condition], "kind": "condition"})
    if status == CONSCIOUS:
        rounds = int(per.get("conscious_rounds") or 0)
        out.append({"label": say_n("Conscious {n} more round", "Conscious {n} more rounds", rounds), "kind": "condition"})
        return out
    stand = per.get("last_stand") or {}
    if condition == "dying":
        if stand.get("may_act") and not stand.get("used"):
            out.append({"label": say("Last Stand: final action"), "kind": "resource"})
        elif not stand:
            out.append({"label": say("Last Stand to roll"), "kind": "condition"})
    if condition == "incapacitated":
        check = per.get("act_check") or {}
        if check.get("may_act") and not check.get("used"):
            passed = ACTION_WORDS.get(check.get("for")) or say("action")
            out.append({"label": say("GRIT passed: {action}", action=passed),
                        "kind": "resource"})
        else:
            out.append({"label": say("GRIT x1 to act"), "kind": "condition"})
    return out
