"""Initiative, surprise, delaying, rounds and the fight lifecycle of Tesseris
(*Tesseris Combat*, "Combat Order", "Initiative", "Rounds", "Delaying",
"Overspending or Borrowing Ticks", "Action Types").

The fight's state is plain JSON-able data::

    {"round": 1, "phase": "surprise" | "", "order": [ids], "initiative": [rows],
     "current": id | None, "acted": [ids], "started": [ids],
     "combatants": {id: a combatant's tick state (``ticks.fresh_state``)}}

``begin_fight``, ``next_turn``, ``actions`` and ``act`` at the bottom run it.
"""

from __future__ import annotations


from ..copying import copied
from ..dice import DiceSource, RollRecord
from ..grid import grid_of
from ..system import ActionOption, Combatant, Modifier, RuleError, RuleNotImplemented, TurnUpdate
from . import actions as own_actions
from . import cover as cover_mod
from .checks import dt_needs, roll_test, successes_to
from .data import FEAT_WORDS, LOCATION_WORDS, STATUS_WORDS, status_words
from .data import ACTION_LIST, ACTIONS, DEFAULT_SETTINGS, FREE_REACTIONS, SURPRISE_REACTION_TICKS, USUAL_ACTIONS
from .health import consciousness_check, end_of_combat, start_of_round_damage
from .movement import MOVE_KEYS, grant, move_allowance, movement_left, reactive_attackers
from .sheet import char, num, speed, stamina, test_pool
from .status import add_status, names as status_names, start_of_round
from .ticks import BORROWABLE_ACTIONS, BORROWABLE_CATEGORIES, TURN_STANCES, cost, refusal, spend, state_of, ticks_per_round
from ..text import joined, say, say_n


def new_round(state: dict, sheet: dict) -> dict:
    """The state at the start of a new round ("Rounds", "Overspending or Borrowing Ticks"):
    fresh ticks less the ticks borrowed last round and those statuses take (Dazed,
    Stunned), the free Reaction back, attack and defense counts reset, the round's
    Guarded Attack penalty and Aim ended; cover taken as a reaction moves from head and
    arms to legs and torso ("Taking Cover"); statuses run down (returned in
    ``status_update``: the app writes them to the sheet).
    """
    s = state_of(state, sheet)
    borrowed = max(0, -num(s["ticks"]))
    per_round = ticks_per_round(sheet)
    st = start_of_round(sheet.get("statuses"))
    cover_locations = list(s["cover_locations"])
    if s["in_cover"] and s.get("cover_taken_as_reaction"):
        cover_locations = list(cover_mod.after_reaction_cover())
    s = {k: v for k, v in s.items() if k not in MOVE_KEYS and k != "provoked"}
    return {
        **s,
        "ticks": per_round - borrowed - st["ticks_lost"] - num(s.get("distracted")),  # a Distracting Shot's 2
        "distracted": 0,
        "borrowed_last_round": borrowed,
        "free_reaction": FREE_REACTIONS > 0,
        "attacks": 0,
        "defenses": 0,
        "delays": 0,
        "surprised": False,
        "aimed_this_round": False,
        "quick_step": False,
        "moved": False,
        "cover_locations": cover_locations,
        "cover_taken_as_reaction": False,
        "guarded_round": False,
        "multi_strike_defense": None,
        "round": num(s.get("round"), 1) + 1,
        "status_update": {"statuses": st["statuses"], "damage": st["damage"], "ticks_lost": st["ticks_lost"]},
    }


def start_turn(state: dict) -> dict:
    """Stances that last until the start of the character's next turn end ("Attack Actions",
    "Defensive Actions", "Movement Actions")."""
    s = state_of(state)
    out = {**s, "stances": [x for x in s["stances"] if x not in TURN_STANCES], "quick_step": False, "moved": False,
           "overwatch_attacks": 0}
    return {k: v for k, v in out.items() if k not in MOVE_KEYS and k != "provoked"}


def surprise(unaware: list[Combatant], hidden: list[Combatant], dice: DiceSource) -> dict:
    """The surprise round ("Combat Order" 1): "each unaware character rolls an Awareness against
    Stealth of their hidden foes"; who fails "may only take reactions during the surprise round, up
    to three ticks worth". Each hidden character rolls Stealth once; each unaware one rolls
    Awareness against the best Stealth of its hidden foes (those of another side; everyone hidden
    when nobody has a side). Reading: ties go to the one who notices (as ties go to defenders).
    Returns per id ``{"aware", "awareness", "stealth", "state"}`` and the rolls; an unaware
    character with no hidden foe is left out (it has nobody to notice)."""
    rolls = []
    stealth = {}
    for h in hidden:
        test = roll_test(dice, *test_pool(h.sheet, "stealth"), say("{name}: Stealth (ambush)", name=h.name), roller=h.id)
        stealth[h.id] = test.total
        rolls += test.records
    out: dict = {"stealth": stealth, "rolls": rolls, "combatants": {}}
    for u in unaware:
        foes = [h.id for h in hidden if h.id != u.id and (not (h.side and u.side) or h.side != u.side)]
        if not foes:
            continue
        best = max(stealth[f] for f in foes)
        pool, mods = test_pool(u.sheet, "awareness")
        flat = sum(m.value for m in mods)
        goal = say_n("{n} success notices the ambush (Stealth {stealth})", "{n} successes notice the ambush (Stealth {stealth})",
                     successes_to(best, flat), stealth=best)
        test = roll_test(dice, pool, mods, say("{name}: Awareness (surprise)", name=u.name), roller=u.id,
                         needs=dt_needs(pool, flat, goal))
        total = test.total
        rolls += test.records
        aware = total >= best
        st = state_of(u)
        if not aware:
            st = {**st, "surprised": True, "ticks": SURPRISE_REACTION_TICKS, "free_reaction": False}
        out["combatants"][u.id] = {"aware": aware, "awareness": total, "against": best, "state": st}
    return out


def initiative(combatants: list[Combatant], dice: DiceSource) -> list[dict]:
    """Initiative order ("Initiative"): 1d10 + Agility + Speed + misc; ties by higher
    Agility, then players before NPCs; what is still tied is flagged for the GM."""
    rows = []
    # "Combat Order" 2, "Initiative": "All characters engaging in combat will roll initiative": at once (#70)
    with dice.together():
        for c in combatants:
            mods = [
                Modifier(say("Agility"), char(c.sheet, "agility"), "Initiative"),
                Modifier(say("Speed"), speed(c.sheet), "Initiative"),
            ]
            misc = num(c.sheet.get("initiative_bonus"))
            if misc:
                mods.append(Modifier(say("Misc."), misc, "sheet"))
            rec = dice.roll("1d10", say("{name}: initiative", name=c.name), roller=c.id,
                            needs=say("roll d10 for initiative; {flat} is added (Agility, Speed and the rest)",
                                      flat=f"{sum(m.value for m in mods):+g}"))
            rows.append({"id": c.id, "name": c.name, "total": rec.total + sum(m.value for m in mods),
                         "agility": char(c.sheet, "agility"),
                         "is_player": bool(c.is_player),  # the app knows who plays whom
                         "roll": rec, "modifiers": mods})
    rows.sort(key=lambda r: (-r["total"], -r["agility"], not r["is_player"]))
    for i, r in enumerate(rows):
        r["order"] = i + 1
        r["tied_with"] = [
            o["id"] for o in rows if o is not r and (o["total"], o["agility"], o["is_player"]) == (r["total"], r["agility"], r["is_player"])
        ]
        r["gm_decides"] = bool(r["tied_with"])
    return rows


def delay(order: list[dict], who: str) -> list[dict]:
    """Delay ("Miscellaneous Actions", "Delaying"): the character's initiative becomes one
    less than the next character's, for this round, and moves after them."""
    ids = [r["id"] for r in order]
    if who not in ids:
        raise RuleError(say("{value} is not in the initiative order", value=repr(who)))
    i = ids.index(who)
    if i == len(order) - 1:
        raise RuleError(say("the last character in the order has nobody to delay behind"))
    me = dict(order[i])
    nxt = order[i + 1]
    me["total"] = nxt["total"] - 1
    me["delays"] = num(me.get("delays")) + 1
    out = [dict(r) for r in order[:i]] + [dict(nxt), me] + [dict(r) for r in order[i + 2 :]]
    for n, r in enumerate(out):
        r["order"] = n + 1
    return out


def delay_forfeits(order: list[dict], still_to_act: list[str], after: int = 2) -> list[str]:
    """Who forfeits the rest of the round ("Delaying"): when only characters who keep
    delaying are left to act and each has delayed ``after`` times, all of them forfeit
    their remaining actions (ticks kept for reactions) and the next round starts."""
    left = [r for r in order if r["id"] in still_to_act]
    if len(left) >= 2 and all(num(r.get("delays")) >= after for r in left):
        return [r["id"] for r in left]
    return []


# -- the fight lifecycle ------------------------------------------------------------------

#: actions that move the character: ``act`` pays their ticks and checks the path
MOVE_ACTIONS = ("move", "quick_step", "follow_step", "run", "sprint", "dive_for_cover")
#: defenses are rolled inside ``attack()``, against the attack they answer
ROLLED_DEFENSES = ("duck", "dodge", "block", "parry", "grapple_defense", "defend_ally")


def _settings(settings: dict | None) -> dict:
    return {**DEFAULT_SETTINGS, **(settings or {})}


def _clean(state: dict) -> dict:
    """A combatant's state as stored: the transient keys of one step dropped."""
    return {k: v for k, v in state.items() if k not in ("status_update", "last_action", "last_cost")}


def _row(r: dict) -> dict:
    return {"id": r["id"], "name": r["name"], "total": r["total"], "agility": r["agility"], "is_player": r["is_player"],
            "delays": 0, "gm_decides": r["gm_decides"], "tied_with": list(r["tied_with"])}


class _Step:
    """What one lifecycle call accumulates: rolls, log lines, sheet changes (and the sheets as changed)."""

    def __init__(self, state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None):
        self.dice = dice
        self.settings = _settings(settings)
        self.state = copied(state)
        self.by_id = {c.id: c for c in combatants}
        self.sheets = {c.id: copied(c.sheet) for c in combatants}
        self.rolls: list[RollRecord] = []
        self.log: list[str] = []
        self.changes: dict[str, dict] = {}

    def change(self, cid: str, fields: dict) -> None:
        self.sheets.setdefault(cid, {}).update(copied(fields))
        self.changes.setdefault(cid, {}).update(copied(fields))

    def fighter(self, cid: str) -> Combatant:
        """The combatant as it stands in this step: its sheet as changed, its state from the fight."""
        c = self.by_id[cid]
        return Combatant(c.id, c.name, self.sheets[cid], c.position, c.side, c.is_player, self.state["combatants"].get(cid, c.state))

    def name(self, cid: str) -> str:
        c = self.by_id.get(cid)
        return c.name if c else cid

    def can_act(self, cid: str) -> bool:
        """In the fight, conscious, and not surprised in the surprise round ("Combat Order" 1)."""
        if cid not in self.by_id:
            return False
        if "Unconscious" in status_names(self.sheets[cid].get("statuses")):
            return False
        return not self.state["combatants"].get(cid, {}).get("surprised")

    def update(self) -> TurnUpdate:
        s = self.state
        return TurnUpdate(state=s, round=s["round"], order=list(s["order"]), current=s["current"], phase=s.get("phase", ""),
                          rolls=self.rolls, log=self.log, sheet_changes=self.changes)


def _roll_initiative(step: _Step) -> None:
    """Every character in the fight rolls ("Combat Order" 2, "Initiative"); ties the rules
    leave to the GM are logged."""
    rows = initiative([step.fighter(cid) for cid in step.by_id if cid in step.state["combatants"]], step.dice)
    step.rolls += [r["roll"] for r in rows]
    step.state["initiative"] = [_row(r) for r in rows]
    step.state["order"] = [r["id"] for r in rows]
    step.log.append(say("Initiative: {order}", order=", ".join(f"{r['name']} {r['total']}" for r in rows)))
    tied = [r for r in rows if r["gm_decides"]]
    if tied:
        step.log.append(say("Tied for the GM to order: {names}", names=", ".join(r["name"] for r in tied)))


def _start_turn(step: _Step, cid: str) -> bool:
    """The start of a character's turn: stances that last "until the start of the character's
    next turn" end (All-Out, Guarded, Sprint, Run, Total Defense, Overwatch, and the
    Covering Fire this character gave its allies); a character out of Stamina makes the
    Resolve test against its Wounds ("Unconsciousness, Crippling, and Death").
    False when the character falls unconscious and loses the turn."""
    cs = step.state["combatants"]
    cs[cid] = _clean(start_turn(cs.get(cid, {})))
    for other, st in cs.items():
        if cid in (st.get("covered_by") or []):
            left = [x for x in st["covered_by"] if x != cid]
            stances = st.get("stances", []) if left else [x for x in st.get("stances", []) if x != "covered_by_fire"]
            cs[other] = {**st, "covered_by": left, "stances": stances}
    step.state["started"] = sorted(set(step.state.get("started", [])) | {cid})
    sheet = step.sheets[cid]
    if stamina(sheet) <= 0 and "Unconscious" not in status_names(sheet.get("statuses")):
        check = consciousness_check(sheet, step.dice, step.settings, roller=cid)
        step.rolls.append(check["roll"])
        if check["passed"]:
            step.log.append(say("{name} stays conscious: Resolve {total} against {difficulty}", name=step.name(cid), total=check["total"],
                                difficulty=check["difficulty"]))
        else:
            step.change(cid, {"statuses": check["sheet"]["statuses"], "dying": True})
            step.log.append(say("{name} falls unconscious and begins dying: Resolve {total} against {difficulty}", name=step.name(cid),
                                total=check["total"], difficulty=check["difficulty"]))
            return False
    step.log.append(say("{name}'s turn: {ticks} ticks", name=step.name(cid), ticks=num(cs[cid]["ticks"])))
    return True


def _advance(step: _Step) -> None:
    """The next character in the order who has not acted takes a turn; when nobody is
    left, a new round starts ("Combat Order" 3-5)."""
    s = step.state
    for attempt in range(2):
        for cid in s["order"]:
            if cid in s["acted"]:
                continue
            if not step.can_act(cid):
                s["acted"].append(cid)
                if cid in step.by_id and s["combatants"].get(cid, {}).get("surprised"):
                    step.log.append(say("{name} is surprised: reactions only this round", name=step.name(cid)))
                continue
            s["current"] = cid
            if cid in s.get("started", []):
                step.log.append(say("{name} acts after delaying", name=step.name(cid)))
                return
            if _start_turn(step, cid):
                return
            s["acted"].append(cid)
        if attempt == 0:
            _new_round(step)
    s["current"] = None  # nobody can act (all down or surprised)


def _new_round(step: _Step) -> None:
    """A new round ("Rounds", "Combat Order" 5): fresh ticks less those overspent and those
    statuses take, the free Reaction back, the round's limits ended (Aim, Guarded Attack's
    penalty, defense counts, cover taken as a reaction now on legs and torso), status
    durations run down and Bleeding bleeds, and initiative is rolled again."""
    s = step.state
    s["round"] = num(s.get("round"), 1) + 1
    s["phase"] = ""
    s["acted"], s["started"], s["current"] = [], [], None
    step.log.append(say("Round {n}", n=s["round"]))
    for cid in list(s["combatants"]):
        if cid not in step.by_id:
            continue
        sheet = step.sheets[cid]
        fresh = new_round(s["combatants"][cid], sheet)
        update = fresh["status_update"]
        if update["statuses"] != (sheet.get("statuses") or []):
            step.change(cid, {"statuses": update["statuses"]})
        if update["ticks_lost"]:
            step.log.append(say("{name} loses {n} tick(s) to status effects", name=step.name(cid), n=update["ticks_lost"]))
        if update["damage"]:
            hurt = start_of_round_damage(step.sheets[cid], update["damage"])
            step.change(cid, {k: hurt.get(k) for k in ("stamina", "wounds", "ego", "statuses")})
            step.log.append(say("{name} bleeds: {damage} damage", name=step.name(cid), damage=update["damage"]))
        s["combatants"][cid] = _clean(fresh)
    _roll_initiative(step)


def begin_fight(combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """Start a fight ("Combat Order"): the surprise round when some combatants are caught unaware
    (``Combatant.state["surprised"]``, what ``start_combat``'s ``surprised`` gives; the older
    ``state["unaware"]`` too) by foes hidden from them (``state["hidden"]``, else every combatant
    of another side who is not caught unaware): Awareness against Stealth, who fails only reacts,
    with 3 ticks; then initiative and the first character's turn. The log says who was surprised
    and what it cost them."""
    step = _Step({"round": 1, "phase": "", "order": [], "initiative": [], "current": None, "acted": [], "started": [],
                  "combatants": {}}, combatants, dice, settings)
    marks = ("hidden", "unaware", "surprised")
    for c in combatants:
        step.state["combatants"][c.id] = _clean(state_of({k: v for k, v in (c.state or {}).items() if k not in marks}, c.sheet))
    unaware = [c for c in combatants if (c.state or {}).get("unaware") or (c.state or {}).get("surprised")]
    hidden = [c for c in combatants if (c.state or {}).get("hidden")] or \
        [c for c in combatants if c not in unaware and any(not (c.side and u.side) or c.side != u.side for u in unaware)]
    step.log.append(say("Round {n}", n=1))
    if unaware:
        out = surprise(unaware, hidden, dice)
        step.rolls += out["rolls"]
        for u in unaware:
            if u.id not in out["combatants"]:
                step.log.append(say("{name} was caught unaware, but no foe is hidden from them: no surprise round for them", name=u.name))
        if out["combatants"]:
            step.state["phase"] = "surprise"
            step.log[-1] = say("Round 1: the surprise round")
        for cid, r in out["combatants"].items():
            if r["aware"]:
                step.log.append(say("{name} notices the ambush (Awareness {awareness} against Stealth {stealth}): all ticks in "
                                    "the surprise round", name=step.name(cid), awareness=r["awareness"], stealth=r["against"]))
            else:
                step.state["combatants"][cid] = {**step.state["combatants"][cid], "surprised": True,
                                                 "ticks": SURPRISE_REACTION_TICKS, "free_reaction": False}
                step.log.append(say("{name} is surprised (Awareness {awareness} against Stealth {stealth}): no turn in the "
                                    "surprise round, reactions only, up to {ticks} ticks", name=step.name(cid),
                                    awareness=r["awareness"], stealth=r["against"], ticks=SURPRISE_REACTION_TICKS))
    _roll_initiative(step)
    _advance(step)
    return step.update()


def end_fight(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """The end of a combat ("Combat Order" 6 "End Combat", "Regaining Stamina", "Mayhem Points",
    "Status Effects"): "After each combat, assuming they are still conscious, a character will regain
    an amount of Stamina equal to their current maximum (Full Max - Wounds)"; "Unspent Mayhem Points
    at the end of a combat are lost"; level 1 status effects "are typically removed after the current
    combat", level 2 ones "reduced ... to an appropriate Level 1 effect", level 3 ones persist; the
    unconscious stay so ("until they have received medical treatment"), out of Stamina and Bloodied."""
    changes: dict[str, dict] = {}
    log: list[str] = []  # (the table says "The fight is over" itself: webapp/game/combat.py)
    for c in combatants:
        before = c.sheet
        after = end_of_combat(before)
        conscious = "Unconscious" not in status_names(before.get("statuses"))
        if not conscious and "Bloodied" in status_names(before.get("statuses")):
            after["statuses"] = add_status(after["statuses"], "Bloodied")
        said, fields = [], {}
        if conscious and stamina(after) != stamina(before):
            fields["stamina"] = after["stamina"]
            said.append(say("Stamina back to {stamina} (the current maximum, less {wounds} for Wounds)", stamina=after["stamina"],
                            wounds=num(before.get("wounds")))
                        if num(before.get("wounds")) else say("Stamina back to {stamina}", stamina=after["stamina"]))
        elif not conscious:
            said.append(say("stays unconscious: no Stamina back until treated"))
        if num(before.get("mayhem")):
            fields["mayhem"] = 0
            said.append(say_n("{n} unspent Mayhem point lost", "{n} unspent Mayhem points lost", num(before.get("mayhem"))))
        old, new = status_names(before.get("statuses")), status_names(after["statuses"])
        if old != new or len(before.get("statuses") or []) != len(after["statuses"]):
            fields["statuses"] = after["statuses"]
            if old - new:
                said.append(say("{statuses} ended", statuses=joined([status_words(n) for n in sorted(old - new)], ", ")))
            if new - old:
                said.append(say("now {statuses}", statuses=joined([status_words(n) for n in sorted(new - old)], ", ")))
        if fields:
            changes[c.id] = fields
            log.append(say("{name}: {changes}", name=c.name, changes=joined(said, "; ")))
        elif said:
            log.append(say("{name}: {changes}", name=c.name, changes=joined(said, "; ")))
    return TurnUpdate(state={}, round=0, log=log, sheet_changes=changes)


def next_turn(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """End the current character's turn (its unspent ticks stay for reactions, "Ticks"; what is
    left of a move paid in this turn, its own or a reaction's, ends) and start the next one's; a new round when everyone has gone. A combatant missing from
    ``combatants`` has left the fight; an unconscious one is skipped."""
    step = _Step(state, combatants, dice, settings)
    s = step.state
    for c in combatants:
        if c.id not in s["combatants"]:  # joined the fight: acts from the next round
            s["combatants"][c.id] = _clean(state_of({}, c.sheet))
            s["acted"].append(c.id)
            s["order"].append(c.id)
    cur = s.get("current")
    for cid, st in list(s["combatants"].items()):  # what is left of a move ends with the turn it was paid in
        s["combatants"][cid] = {k: v for k, v in st.items() if k not in MOVE_KEYS}
    if cur is not None and cur not in s["acted"]:
        s["acted"].append(cur)
        step.log.append(say("{name} ends the turn with {ticks} ticks for reactions", name=step.name(cur),
                            ticks=num(s["combatants"].get(cur, {}).get("ticks"))))
    s["current"] = None
    _advance(step)
    return step.update()


def _cost_text(ticks: int | None, reaction: bool) -> str:
    if ticks is None:
        return ""
    text = say("free") if ticks == 0 else say_n("{n} tick", "{n} ticks", ticks)
    return say("{cost} (reaction)", cost=text) if reaction else text


def _kind(key: str) -> str:
    a = ACTIONS[key]
    if a.is_attack:
        return "attack"
    if key in MOVE_ACTIONS:
        return "move"
    if a.category == "defense":
        return "defense"
    if key == "delay":
        return "turn"
    return "other"


def actions(state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
    """What ``actor`` may do now by *Tesseris Combat*'s action tables: on its own turn the
    actions with a tick cost, else the reactions; each with its cost, and ``available``
    False with the reason where the rules forbid it (``ticks.refusal``: surprised,
    Grappled, Pinned, Total Defense, Run, Quick Step, Aim once a round, Overwatch...) or
    the ticks are gone (defensive reactions, reloading and clearing a jam may borrow)."""
    settings = _settings(settings)
    own = state.get("current") == actor.id
    st = state_of(state.get("combatants", {}).get(actor.id, actor.state), actor.sheet)
    statuses = actor.sheet.get("statuses")
    out = [ActionOption("end_turn", say("End turn"), "turn", say("free"), own,
                        "" if own else say("not this character's turn"))]
    for a in ACTION_LIST:
        reaction = not own
        if own and a.ticks is None:
            continue  # reaction-only: listed on other characters' turns
        if reaction and a.reaction_ticks is None:
            continue
        reason = refusal(st, a.key, reaction, statuses) or ""
        paid = None
        if not reason:
            paid, _free = cost(st, a.key, reaction, settings)
            short = paid > max(0, num(st["ticks"]))
            if short and not (a.category in BORROWABLE_CATEGORIES or a.key in BORROWABLE_ACTIONS):
                reason = say("needs {paid} ticks, {left} left", paid=paid, left=max(0, num(st["ticks"])))
            elif short:
                reason = ""
        if a.extra.get("feat") and "multi-weapon fighting" not in " ".join(actor.sheet.get("feats") or []).lower():
            reason = reason or say("needs the {feat} feat", feat=FEAT_WORDS.get(a.extra["feat"], a.extra["feat"]))
        if a.extra.get("requires_status") and a.extra["requires_status"] not in status_names(statuses):
            reason = reason or say("only while {status}", status=STATUS_WORDS.get(a.extra["requires_status"], a.extra["requires_status"]))
        if a.key == "clear_jam" and not st.get("jammed"):
            reason = reason or say("no jammed weapon")
        if a.key == "take_cover" and st.get("in_cover"):
            reason = reason or say("already in cover")
        if a.key == "leave_cover" and not st.get("in_cover"):
            reason = reason or say("not in cover")
        if a.key == "stand_up" and not (st.get("prone") or "hunkered" in st["stances"]):
            reason = reason or say("not prone or hunkered down")
        waiting = [i for i in state.get("order", []) if i not in state.get("acted", [])]
        if a.key == "delay" and own and waiting and waiting[-1] == actor.id:
            reason = reason or say("nobody left to delay behind")
        data: dict = {"ticks": paid if paid is not None else (a.reaction_ticks if reaction else a.ticks), "automated": a.automated}
        if a.varies:
            data["varies"] = True
        if a.key in MOVE_ACTIONS or a.move_multiple:
            data["allowance"] = move_allowance(actor.sheet, a.key)
        if a.key == "move":
            data["left"] = movement_left(state, actor, settings)  # squares the map may still move this turn
        if a.is_attack:
            data["attack_modifier"] = a.attack
            data["mode"] = a.mode
        cost_ticks = paid if paid is not None else (a.reaction_ticks if reaction else a.ticks)
        out.append(ActionOption(a.key, a.name, _kind(a.key), _cost_text(cost_ticks, reaction), not reason, reason, data,
                                usual=a.key in USUAL_ACTIONS))
    return out


def act(state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
        settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
    """Take an action that is not an attack (attacks go through ``attack()``, defenses are
    rolled there): pay its ticks and do what it does (*Tesseris Combat*, "Miscellaneous
    Actions", "Defensive Actions", "Movement Actions", "Delaying", "Taking Cover").

    A moving action (Move, Run, Sprint, Quick Step, Dive for Cover, Take Cover as a
    reaction) is paid here and its squares granted; ``move`` spends them along the path the
    app found, and buys plain Move actions by itself.

    ``options``: ``reaction`` (taken on another's turn; the default when it is not the
    actor's turn), ``weapon`` (Clear Jam, Reload, Covering Fire), ``ammo`` (Reload: the
    rounds loaded), ``ticks`` (an action whose cost varies, as the GM rules), ``gm_allows_borrowing``.
    """
    settings = _settings(settings)
    options = dict(options or {})
    if action not in ACTIONS and action != "end_turn":
        raise RuleError(say("unknown action {value}", value=repr(action)))
    if action == "end_turn":
        return next_turn(state, combatants, dice, settings)
    a = ACTIONS[action]
    if a.is_attack:
        raise RuleError(say("{action} is an attack: resolve it with attack()", action=a.name))
    if action in ROLLED_DEFENSES:
        raise RuleError(say("{action} is rolled against the attack it answers, in attack()", action=a.name))
    if not a.automated:
        raise RuleNotImplemented(say("Tesseris: {action} is not automated; the GM adjudicates it", action=a.name))
    everyone = list(combatants)
    if actor.id not in {c.id for c in everyone}:
        everyone.append(actor)
    step = _Step(state, everyone, dice, settings)
    s = step.state
    if actor.id not in s["combatants"]:
        raise RuleError(say("{name} is not in this fight", name=actor.name))
    own = s.get("current") == actor.id
    reaction = bool(options.get("reaction", not own))
    if action == "delay":
        return _delay(step, actor, settings)
    me = state_of(s["combatants"][actor.id], actor.sheet)
    statuses = step.sheets[actor.id].get("statuses")
    extra = 0
    if a.varies and options.get("ticks") is not None:
        extra = num(options["ticks"]) - num(a.ticks)
    paid_state = spend(me, action, reaction=reaction, settings=settings, extra_ticks=extra,
                       gm_allows_borrowing=bool(options.get("gm_allows_borrowing")), statuses=statuses)
    paid = num(me["ticks"]) - num(paid_state["ticks"])
    new = _clean(paid_state)
    line = (say_n("{name}: {action} (reaction), {n} tick", "{name}: {action} (reaction), {n} ticks", paid, name=actor.name, action=a.name)
            if reaction else say_n("{name}: {action}, {n} tick", "{name}: {action}, {n} ticks", paid, name=actor.name, action=a.name))
    others = [step.fighter(c.id) for c in everyone if c.id != actor.id and c.id in s["combatants"]]
    me_now = step.fighter(actor.id)

    if action in MOVE_ACTIONS:
        new = grant(new, step.sheets[actor.id], action, reaction)
        if new.get("move_left") and grid_of(actor.position).hex:
            new["move_hexes"] = True  # the badge says hexes (#58)
        if new.get("move_left"):
            line = (say("{line}: {n} hexes to move (moves on the map spend them)", line=line, n=num(new["move_left"]))
                    if grid_of(actor.position).hex else  # a hex map's moves are hexes (#58)
                    say("{line}: {n} squares to move (moves on the map spend them)", line=line, n=num(new["move_left"])))
    elif action in ("drop_prone", "stand_up", "leave_cover"):
        if action == "leave_cover":
            new = _clean(cover_mod.leave_cover(new))
        foes = reactive_attackers(action, me_now, others)
        if foes:
            line = say("{line}; Reaction Strike possible for {names}", line=line, names=", ".join(step.name(f) for f in foes))
            new["provoked"] = foes
    elif action == "clear_jam":
        new = own_actions.clear_jam(new, options.get("weapon"))
        line = (say("{line}: {weapon} fires again", line=line, weapon=options["weapon"]) if options.get("weapon")
                else say("{line}: the weapon fires again", line=line))
    elif action == "take_cover":
        new = _clean(grant(cover_mod.take_cover(new, on_turn=not reaction), step.sheets[actor.id], action, reaction))
        line = say("{line}: {locations} in cover", line=line, locations=joined(
            [LOCATION_WORDS.get(w, w) for w in cover_mod.covered_locations(new)], ", "))
        if new.get("move_left") and grid_of(actor.position).hex:
            new["move_hexes"] = True  # the badge says hexes (#58)
        if new.get("move_left"):
            line = (say("{line}, up to {n} hexes to reach it", line=line, n=num(new["move_left"])) if grid_of(actor.position).hex
                    else say("{line}, up to {n} squares to reach it", line=line, n=num(new["move_left"])))
    elif action == "covering_fire":
        weapon_key = options.get("weapon")
        weapon = (step.sheets[actor.id].get("weapons") or {}).get(weapon_key) if weapon_key else None
        rof = (weapon or {}).get("rof") or []
        if not weapon or len(rof) < 3 or num(rof[2]) <= 0:
            raise RuleError(say("Covering Fire needs a weapon with a Full Auto rate of fire"))
        if weapon.get("ammo") is not None:
            if num(weapon["ammo"]) <= 0:
                raise RuleError(say("{weapon} is out of ammunition: reload", weapon=weapon.get("name")))
            weapons = copied(step.sheets[actor.id].get("weapons"))
            weapons[weapon_key]["ammo"] = max(0, num(weapon["ammo"]) - num(rof[2]))
            step.change(actor.id, {"weapons": weapons})
        allies = [c.id for c in everyone if c.id != actor.id and c.side == actor.side and c.id in s["combatants"]]
        for ally in allies:
            st = s["combatants"][ally]
            stances = list(st.get("stances", []))
            if "covered_by_fire" not in stances:
                stances.append("covered_by_fire")
            s["combatants"][ally] = {**st, "stances": stances, "covered_by": sorted(set(st.get("covered_by") or []) | {actor.id})}
        line = (say("{line}: +1 to the defense rolls of {names} until {name}'s next turn", line=line,
                    names=", ".join(step.name(x) for x in allies), name=actor.name) if allies
                else say("{line}: no ally to cover", line=line))
    elif action == "join_grapple":
        target = step.by_id.get(options.get("target"))
        if target is None or "Grappled" not in status_names(step.sheets[target.id].get("statuses")):
            raise RuleError(say("a grapple is joined on an opponent already grappled (options target)"))
        step.change(actor.id, {"statuses": add_status(statuses, "Grappled", target.id)})
        line = say("{line} on {target}: Grappled", line=line, target=target.name)
    elif action == "reload":
        weapon_key = options.get("weapon")
        weapons = copied(step.sheets[actor.id].get("weapons") or {})
        if weapon_key not in weapons:
            raise RuleError(say("which weapon is reloaded?"))
        loaded = options.get("ammo", weapons[weapon_key].get("capacity"))
        if loaded is None:
            raise RuleError(say("how many rounds are loaded? (options ammo, or the weapon's capacity)"))
        weapons[weapon_key]["ammo"] = num(loaded)
        step.change(actor.id, {"weapons": weapons})
        line = say("{line}: {weapon} holds {n}", line=line, weapon=weapons[weapon_key].get("name", weapon_key), n=num(loaded))
    elif action == "initiate_swordpoint":
        target = step.by_id.get(options.get("target"))
        if target is None:
            raise RuleError(say("whom is the sword or gun pointed at? (options target)"))
        own_actions.can_initiate_swordpoint(actor, target, list(options.get("conditions") or []), options.get("weapon"))
        new["swordpoint"] = target.id
        line = say("{line} on {target}", line=line, target=target.name)
    if action not in MOVE_ACTIONS and action != "take_cover" and settings.get("move_remainder") == "action":
        new = {k: v for k, v in new.items() if k not in ("move_left", "move_action")}
    s["combatants"][actor.id] = new
    step.log.append(line)
    return step.update()


def after_attack(state: dict, result, settings: dict | None = None) -> dict:
    """The fight's books after an attack (*Tesseris Combat*, "Ticks", "Action Types",
    "Weapon Jams", "Defending"): the attacker's and the defender's tick states the attack
    returned (ticks paid, the free Reaction used, attack and defense counts, stances, a
    jammed weapon, Aim spent) written back. With the ``move_remainder`` setting "action",
    what was left of the attacker's Move is lost."""
    details = result.details if hasattr(result, "details") else dict(result or {})
    out = record_attack(state, details)
    attacker = details.get("attacker")
    if _settings(settings).get("move_remainder") == "action" and attacker in out.get("combatants", {}):
        out["combatants"][attacker] = {k: v for k, v in out["combatants"][attacker].items() if k not in ("move_left", "move_action")}
    return out


def record_attack(state: dict, result_details: dict) -> dict:
    """The fight's state after an attack: the attacker's and defender's tick states the
    attack returned (``AttackResult.details["states"]``: ticks paid, reactions used,
    jams, stances) written back under ``state["combatants"]``."""
    out = copied(state)
    for cid, st in (result_details.get("states") or {}).items():
        if cid in out.get("combatants", {}):
            out["combatants"][cid] = _clean(st)
    return out


def _delay(step: _Step, actor: Combatant, settings: dict) -> TurnUpdate:
    """Delay ("Miscellaneous Actions", "Delaying"): free; the character's initiative becomes
    one less than the next character's for this round and the next character acts. When
    the only characters left keep delaying (each ``delay_forfeit_after`` times), they
    forfeit their remaining actions (the ticks stay for reactions) and the next round starts."""
    s = step.state
    if s.get("current") != actor.id:
        raise RuleError(say("only the character whose turn it is may delay"))
    rows = [r for r in s["initiative"] if r["id"] not in s["acted"] or r["id"] == actor.id]
    done = [r for r in s["initiative"] if r not in rows]
    rows = delay(rows, actor.id)
    s["initiative"] = done + rows
    s["order"] = [r["id"] for r in s["initiative"]]
    me = next(r for r in rows if r["id"] == actor.id)
    step.log.append(say("{name} delays to initiative {n}", name=actor.name, n=me["total"]))
    left = [r["id"] for r in rows if step.can_act(r["id"])]
    forfeit = delay_forfeits(rows, left, num(settings.get("delay_forfeit_after"), 2))
    s["current"] = None
    if forfeit:
        step.log.append(say("{names} kept delaying: they forfeit the rest of the round", names=", ".join(step.name(f) for f in forfeit)))
        s["acted"] += [f for f in forfeit if f not in s["acted"]]
    _advance(step)
    return step.update()
