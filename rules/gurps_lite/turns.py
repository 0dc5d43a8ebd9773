"""Turn order, surprise and the fight lifecycle (*3d6 Combat*, "Turn Order", "Maneuvers", "Injury").

A fight's state is plain JSON-able data: the acting order, the round, whose
turn it is, and under ``state["combatants"][id]`` each combatant's fight state
(the maneuver chosen this turn and its bookkeeping, the defenses used this
round, surprise stun, feints and ripostes against it), which is what the
attack and defense functions read as ``Combatant.state``.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from ..copying import copied
from ..dice import DiceSource, RollRecord
from ..system import ActionOption, Combatant, Modifier, MoveResult, RuleError, RuleNotImplemented, TurnUpdate
from .badges import CONDITION_WORDS, MANEUVER_WORDS, VARIANT_WORDS, maneuver_name
from .checks import Check, check, contest_key, effective_skill
from .data import MANEUVERS, S_TURN, settings_of
from .defenses import AttackInfo, defense_level, new_round_defenses, record_defense
from .health import collapse, shock_after_turn
from .maneuvers import allowed_maneuvers
from .movement import maneuver_movement
from .ranged import suppression_area_width, suppression_fire_skill
from .sheet import (
    conditions_of,
    current_hp,
    has_trait,
    int_of,
    num_of,
    ready_weapons,
    shots_left,
    skill_level,
    weapon_kind,
    weapons,
    with_loaded,
)
from ..text import joined, say

#: a side's name in a turn-order line (a side the GM named otherwise is shown as named)
SIDE_WORDS = {"pc": say("pc"), "npc": say("npc")}  # the usual short words: SC/NSC, PJ/PNJ, PJ/PNJ
#: the skill a turn-order contest rolls
SKILL_WORDS = {"Tactics": say("Tactics"), "IQ": say("IQ")}
#: a success roll's result (GURPS Lite's terms)
RESULT_WORDS = {"critical success": say("critical success"), "critical failure": say("critical failure"),
                "success": say("success"), "failure": say("failure")}


_INIT_SKILLS = {"tactics": ("Tactics",), "primal": ("Tactics", "Survival"), "thuggish": ("Tactics", "Streetwise")}
_SKILL_ATTR = {"Tactics": "IQ", "Streetwise": "IQ", "Survival": "Per"}


def initiative_skill(sheet: dict) -> tuple[int, str]:
    """The skill a side's leader rolls ("Turn Order"): Tactics, or Survival / Streetwise if better."""
    style = sheet.get("initiative_style") or "tactics"
    best = None
    for skill in _INIT_SKILLS.get(style, ("Tactics",)):
        attr = _SKILL_ATTR[skill]
        if attr == "Per" and "Per" not in sheet:
            attr = "IQ"
        level, label = skill_level(sheet, skill, attr)
        if best is None or level > best[0]:
            best = (level, label)
    assert best is not None
    return best


def surprise_level(sheet: dict, kind: str) -> str:
    """Total Surprise becomes Partial for Combat Reflexes ("Turn Order")."""
    if kind == "total" and has_trait(sheet, "combat_reflexes"):
        return "partial"
    return kind


def initiative(combatants: list[Combatant], dice: DiceSource) -> list[dict]:
    """Turn order ("Turn Order"): the sides' leaders roll a quick contest of Tactics.

    A side with no token marked ``leader`` (state or sheet) is leaderless and
    rolls at -2. Sides whose every token is surprised (``state['surprise']``)
    act after the others.
    """
    return _initiative(combatants, dice)[0]


def _initiative(combatants: list[Combatant], dice: DiceSource) -> tuple[list[dict], dict[str, Check]]:
    """The order, and each side's Tactics check by side (a side that rolled none is not in it).

    "Turn Order": "If one managed to Totally Suprise a group of defenders ... the attackers go first in
    initiative": a side with a token caught off guard (``state['surprise']``) is a defending group and acts
    after every side that surprised it, whatever a contest would say; the quick contest of Tactics orders
    only sides of the same group (the attackers among themselves, the defenders among themselves), so a
    side alone in its group rolls nothing."""
    sides: dict[str, list[Combatant]] = defaultdict(list)
    for c in combatants:
        sides[c.side or c.id].append(c)
    caught = {side: any(c.state.get("surprise") in ("total", "partial") for c in members)
              for side, members in sides.items()}
    any_caught = any(caught.values())
    rolls: dict[str, tuple[Check | None, Combatant]] = {}
    # "Turn Order": the leaders roll a quick contest, each side's roll its own, at once (#70)
    with dice.together():
        for side, members in sides.items():
            leaders = [c for c in members if c.state.get("leader") or c.sheet.get("leader")]
            pool = leaders or members
            roller = max(pool, key=lambda c: (initiative_skill(c.sheet)[0], c.name))
            group = [s for s in sides if caught[s] == caught[side]]
            if any_caught and len(group) == 1:  # the surprise alone orders it
                rolls[side] = (None, roller)
                continue
            level, label = initiative_skill(roller.sheet)
            mods = [] if leaders else [Modifier(say("leaderless side"), -2, S_TURN)]
            what = say("turn order: {name} for the players' side", name=roller.name) if side == "pc" else \
                say("turn order: {name} for the GM's side", name=roller.name)
            chk = check(dice, what, level, mods, label, roller=roller.id,
                        then=say("in a quick contest the side with the better margin acts first"))
            rolls[side] = (chk, roller)

    def key(side: str) -> tuple:
        chk = rolls[side][0]
        return (0 if caught[side] else 1,) + ((contest_key(chk), chk.effective) if chk else ())

    order = sorted(sorted(rolls), key=key, reverse=True)
    out = []
    for rank, side in enumerate(order):
        chk, roller = rolls[side]
        members = sorted(sides[side], key=lambda c: (-num_of(c.sheet.get("basic_speed"), 5),
                                                       -int_of(c.sheet.get("DX"), 10), c.name))
        for c in members:
            out.append({
                "id": c.id, "name": c.name, "side": side, "side_rank": rank, "order": len(out),
                "leader": roller.id, "roll": chk.roll.to_dict() if chk and chk.roll else None,
                "check": chk.to_dict() if chk else None, "surprised": caught[side],
                "surprise": surprise_level(c.sheet, c.state["surprise"]) if c.state.get("surprise") else None,
            })
    return out, {side: chk for side, (chk, _) in rolls.items() if chk is not None}


def surprise(sheet: dict, kind: str, dice: DiceSource, roller: str | None = None) -> dict:
    """Start of a surprise ("Turn Order"): Total Surprise stuns for 1d seconds before IQ rolls may end it.
    ``roller``: the surprised token, whose die the seconds are (#59)."""
    if kind not in ("total", "partial"):
        raise RuleError(say("surprise is 'total' or 'partial'"))
    level = surprise_level(sheet, kind)
    rolls = []
    seconds = 0
    if level == "total":
        rec = dice.roll("1d6", say("total surprise: seconds of mental stun"), roller=roller,
                        needs=say("roll 1d6: the seconds of mental stun before the IQ rolls to recover"))
        rolls.append(rec)
        seconds = rec.total
    return {"level": level, "stunned": True, "stun_seconds": seconds, "rolls": rolls,
            "modifiers": [Modifier(say("Combat Reflexes: partial, not total"), 0, S_TURN)] if level != kind else []}


def surprise_recovery(sheet: dict, attempt: int, dice: DiceSource, roller: str | None = None) -> Check:
    """IQ roll to shake off surprise stun ("Turn Order"); each later second is 1 easier (attempt 0, 1, ...).
    ``roller``: the stunned token (#59)."""
    mods = [Modifier(say("seconds since stun ended"), attempt, S_TURN)] if attempt else []
    return check(dice, say("recover from surprise (IQ)"), int_of(sheet.get("IQ"), 10), mods, "IQ", roller=roller,
                 then=say("a success shakes off the surprise"))


# ---------------------------------------------------------------------------
# The fight lifecycle: begin_fight, next_turn, actions, act
# ---------------------------------------------------------------------------

#: conditions that take a combatant out of the turn order
OUT_OF_FIGHT = ("unconscious", "dead", "destroyed", "mortally wounded")


@dataclass
class _Steps:
    """What the steps of one lifecycle call rolled, logged and changed on sheets."""

    rolls: list[RollRecord] = field(default_factory=list)
    log: list[str] = field(default_factory=list)
    sheet_changes: dict[str, dict] = field(default_factory=dict)

    def change(self, c: Combatant, **fields: Any) -> None:
        self.sheet_changes.setdefault(c.id, {}).update(fields)

    def sheet(self, c: Combatant) -> dict:
        """The combatant's sheet with the changes of this call so far."""
        return {**c.sheet, **self.sheet_changes.get(c.id, {})}


def fresh_state(c: Combatant) -> dict:
    """A combatant's fight state when it enters the fight."""
    return {
        "side": c.side or c.id,
        "leader": bool(c.state.get("leader") or c.sheet.get("leader")),
        "maneuver": None, "variant": "", "moved": 0, "last_move": 0, "attacks": 0, "attacked_with": [],
        "aim_turns": 0, "aim_target": None, "evaluate": None, "wait": None, "concentrating": None,
        "suppressing": None,
        "unready": list(c.state.get("unready") or []), "readied": [],
        "dodges": 0, "parries": 0, "blocked": False, "limbs_used": [],
        "feint_penalty": {}, "defense_penalty": {},
        "surprise": None, "stunned": False, "stun_seconds": 0, "recovery_attempt": 0,
        "shock_at_start": 0, "collapse_pending": False, "collapsed": False, "stunned_turn": False,
    }


def _able(c: Combatant | None, cs: dict | None) -> bool:
    if c is None or cs is None or cs.get("collapsed"):
        return False
    return not (set(c.sheet.get("conditions") or []) & set(OUT_OF_FIGHT))


def _books_of(state: dict, cid: str) -> dict:
    """A new fight state whose combatant ``cid``'s books are a copy of their own, to be booked on: the rest of it
    shared with ``state``, as a step that books nothing else leaves it (every step of these rules books on a copy: none
    changes a state it is given). Copying the whole state for a maneuver or a move was most of their time (the foes'
    plans and a forecast's runs take them thousands of times, #68)."""
    return {**state, "combatants": {**state["combatants"], cid: copied(state["combatants"][cid])}}


def _update(state: dict, steps: _Steps, present: set[str] | None = None) -> TurnUpdate:
    order = [i for i in state["order"] if present is None or i in present]
    return TurnUpdate(state=state, round=state["round"], order=order, current=state.get("current"),
                      rolls=steps.rolls, log=steps.log, sheet_changes=steps.sheet_changes)


def begin_fight(combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """Start a fight ("Turn Order"): one leader of each side rolls Tactics in a quick contest (a
    leaderless side at -2; Survival or Streetwise for primal or thuggish sides); the winners act
    first, a surprised side last. Total Surprise stuns for 1d seconds before IQ rolls may end it;
    Partial Surprise stuns with an IQ roll from the first turn; Combat Reflexes turns Total into
    Partial. Tokens carry ``state["surprise"]`` (``"total"`` or ``"partial"``) and ``state["leader"]``.
    """
    st = settings_of(settings)
    if not combatants:
        raise RuleError(say("a fight needs at least one combatant"))
    # the table's "surprised" tick: caught off guard, as the settings read it (copies: the caller's are its own)
    combatants = [replace(c, state={**c.state, "surprise": st["surprise_kind"]})
                  if c.state.get("surprised") and c.state.get("surprise") not in ("total", "partial") else c
                  for c in combatants]
    rows, checks = _initiative(combatants, dice)
    by_id = {c.id: c for c in combatants}
    first_of_side: dict[str, dict] = {}
    for row in rows:
        first_of_side.setdefault(row["side"], row)
    steps = _Steps(rolls=[checks[side].roll for side in first_of_side if side in checks and checks[side].roll])
    for side, row in first_of_side.items():
        chk = checks.get(side)
        if chk is None:
            continue
        leader = by_id[row["leader"]]
        steps.log.append(say("Turn order: {side} ({leader}, {skill} {level}) rolls {roll}: {result}, margin {margin}",
                             side=SIDE_WORDS.get(side, side), leader=leader.name,
                             skill=SKILL_WORDS.get(chk.base_label, chk.base_label), level=chk.effective,
                             roll=chk.roll.total if chk.roll else "?", result=RESULT_WORDS.get(chk.result, chk.result),
                             margin=f"{chk.margin:+d}"))
    if any(r["surprised"] for r in rows):
        attackers = joined([SIDE_WORDS.get(s, s) for s, r in first_of_side.items() if not r["surprised"]], ", ")
        caught_sides = [s for s, r in first_of_side.items() if r["surprised"]]
        caught = joined([SIDE_WORDS.get(s, s) for s in caught_sides], ", ")
        contest = len(attackers.args) > 1 or len(caught_sides) > 1
        if attackers.args and contest:
            line = say("Surprise: the attackers ({attackers}) go first, then the sides caught off guard ({caught})",
                       attackers=attackers, caught=caught) if len(caught_sides) > 1 else \
                say("Surprise: the attackers ({attackers}) go first, then the side caught off guard ({caught})",
                    attackers=attackers, caught=caught)
        elif attackers.args:
            line = say("Surprise: the attackers ({attackers}) go first, then the side caught off guard ({caught}); "
                       "no Tactics contest", attackers=attackers, caught=caught)
        elif len(caught_sides) > 1:
            line = say("Surprise: then the sides caught off guard ({caught})", caught=caught)
        else:
            line = say("Surprise: then the side caught off guard ({caught}); no Tactics contest", caught=caught)
        steps.log.append(line)
    state = {"round": 1, "order": [r["id"] for r in rows], "index": 0, "current": None,
             "combatants": {c.id: fresh_state(c) for c in combatants}}
    for c in combatants:
        kind = c.state.get("surprise")
        if kind not in ("total", "partial"):
            continue
        s = surprise(c.sheet, kind, dice, roller=c.id)
        steps.rolls += s["rolls"]
        cs = state["combatants"][c.id]
        cs.update(surprise=s["level"], stunned=True, stun_seconds=s["stun_seconds"], recovery_attempt=0)
        last = all(r["surprised"] for r in rows if r["id"] == c.id)  # and acts after the attackers
        if s["level"] == "total":
            steps.log.append(
                say("{name} is totally surprised and acts after the attackers: mentally stunned for {n} second(s) (1d), "
                    "then an IQ roll each turn to recover, 1 easier each time", name=c.name, n=s["stun_seconds"]) if last
                else say("{name} is totally surprised: mentally stunned for {n} second(s) (1d), then an IQ roll each turn "
                         "to recover, 1 easier each time", name=c.name, n=s["stun_seconds"]))
        else:
            reflexes = kind == "total"  # Combat Reflexes made a total surprise partial
            steps.log.append(
                (say("{name} is partially surprised (Combat Reflexes) and acts after the attackers: mentally stunned, an "
                     "IQ roll each turn to recover, 1 easier each time", name=c.name) if reflexes
                 else say("{name} is partially surprised and acts after the attackers: mentally stunned, an IQ roll each "
                          "turn to recover, 1 easier each time", name=c.name)) if last
                else (say("{name} is partially surprised (Combat Reflexes): mentally stunned, an IQ roll each turn to "
                          "recover, 1 easier each time", name=c.name) if reflexes
                      else say("{name} is partially surprised: mentally stunned, an IQ roll each turn to recover, 1 easier "
                               "each time", name=c.name)))
    steps.log.append(say("Round {n}", n=1))
    _advance(state, by_id, dice, st, steps, 0)
    return _update(state, steps, set(by_id))


def end_fight(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """The end of a fight: *3d6 Combat* says nothing of it, so HP, FP, wounds and conditions stay as
    they are (healing is the GM's). Shock alone goes: it penalises "your next turn" ("Injury"), and a
    fight that is over has none; a surprise stun is fight state and ends with it."""
    steps = _Steps()
    for c in combatants:
        if int_of(c.sheet.get("shock")):
            steps.change(c, shock=0)
            steps.log.append(say("{name}'s shock clears: the fight is over", name=c.name))
    steps.log.append(say("The fight is over: injuries, FP and conditions stay until the GM heals them "
                         "(3d6 Combat says nothing of the end of a fight)"))
    return TurnUpdate(state={}, round=0, log=steps.log, sheet_changes=steps.sheet_changes)


def next_turn(state: dict, combatants: list[Combatant], dice: DiceSource, settings: dict | None = None) -> TurnUpdate:
    """End the current actor's turn and start the next one's ("Turn Order", "Maneuvers", "Injury").

    End of turn: shock from before the turn clears (it penalised this turn, the victim's next);
    stun recovery rolls; a feint or riposte of this actor's previous turn expires. A new round
    resets every combatant's defenses (dodges, parries, block, Cross and Supported limbs). Start
    of turn: last turn's maneuver ends (All-Out Defense and the like last until now); a token
    below 0 HP owes a collapse roll when it chooses a maneuver other than Do Nothing.
    """
    st = settings_of(settings)
    state = copied(state)
    by_id = {c.id: c for c in combatants}
    steps = _Steps()
    for c in combatants:  # a token that joins the fight acts last
        if c.id not in state["combatants"]:
            state["combatants"][c.id] = fresh_state(c)
            state["order"].append(c.id)
            steps.log.append(say("{name} joins the fight and acts last", name=c.name))
    current = state.get("current")
    if current in by_id and current in state["combatants"]:
        _end_turn(state, by_id[current], dice, st, steps)
    _advance(state, by_id, dice, st, steps, state["index"] + 1)
    return _update(state, steps, set(by_id))


def _advance(state: dict, by_id: dict[str, Combatant], dice: DiceSource, st: dict, steps: _Steps,
             index: int) -> None:
    order = state["order"]
    if not any(_able(by_id.get(i), state["combatants"].get(i)) for i in order):
        state["current"] = None
        steps.log.append(say("No one is left who can act"))
        return
    while True:
        if index >= len(order):
            index = 0
            state["round"] += 1
            for cid, cs in state["combatants"].items():
                state["combatants"][cid] = {**new_round_defenses(cs), "dodges": 0, "parries": 0, "blocked": False,
                                            "limbs_used": []}
            steps.log.append(say("Round {n}", n=state["round"]))
        cid = order[index]
        if _able(by_id.get(cid), state["combatants"].get(cid)):
            state["index"], state["current"] = index, cid
            _start_turn(state, by_id[cid], dice, st, steps)
            return
        index += 1


def fresh_turn(cs: dict, c: Combatant) -> None:
    """A combatant's books as its turn starts ("Maneuvers": last turn's maneuver ends, Aim and Evaluate
    go on only after an Aim or an Evaluate; "Injury": shock from before, a collapse roll owed below 0 HP)."""
    previous = cs.get("maneuver")
    if previous != "aim":
        cs.update(aim_turns=0, aim_target=None)
    if previous != "evaluate":
        cs["evaluate"] = None
    cs.update(maneuver=None, variant="", moved=0, attacks=0, attacked_with=[], wait=None, concentrating=None,
              suppressing=None,
              stunned_turn=False,
              shock_at_start=int_of(c.sheet.get("shock")), collapse_pending=current_hp(c.sheet) < 0)


def _start_turn(state: dict, c: Combatant, dice: DiceSource, st: dict, steps: _Steps) -> None:
    cs = state["combatants"][c.id]
    fresh_turn(cs, c)
    steps.log.append(say("{name}'s turn", name=c.name))
    if st["stun_recovery_roll"] == "start_of_turn":
        _stun_recovery(cs, c, dice, steps)
    if cs["stunned"]:
        steps.log.append(say("{name} is mentally stunned (surprise): Do Nothing", name=c.name))
    elif "stunned" in (steps.sheet(c).get("conditions") or []):
        steps.log.append(say("{name} is stunned: Do Nothing", name=c.name))
    if cs["collapse_pending"]:
        steps.log.append(say("{name} is below 0 HP: a HT roll against collapse unless {name} does nothing", name=c.name))


def _stun_recovery(cs: dict, c: Combatant, dice: DiceSource, steps: _Steps, surprise_roll: bool = True) -> None:
    """The stun recovery rolls of one turn ("Turn Order": after the stun period an IQ roll, 1 easier
    each second after; the stun of a knockdown: a HT roll, published)."""
    if surprise_roll and cs["stunned"] and cs["stun_seconds"] <= 0:
        chk = surprise_recovery(c.sheet, cs["recovery_attempt"], dice, roller=c.id)
        steps.rolls.append(chk.roll)
        if chk.success:
            cs.update(stunned=False, surprise=None)
            steps.log.append(say("{name} shakes off the surprise (IQ {skill}: {roll})", name=c.name, skill=chk.effective,
                                 roll=chk.roll.total))
        else:
            cs["recovery_attempt"] += 1
            steps.log.append(say("{name} is still stunned by the surprise (IQ {skill}: {roll})", name=c.name,
                                 skill=chk.effective, roll=chk.roll.total))
    conditions = list(steps.sheet(c).get("conditions") or [])
    if "stunned" in conditions:
        chk = check(dice, say("recover from stun (HT)"), int_of(c.sheet.get("HT"), 10), [], "HT", roller=c.id,
                    then=say("a success recovers from the stun"))
        steps.rolls.append(chk.roll)
        if chk.success:
            steps.change(c, conditions=[x for x in conditions if x != "stunned"])
            steps.log.append(say("{name} recovers from the stun (HT {skill}: {roll})", name=c.name, skill=chk.effective,
                                 roll=chk.roll.total))
        else:
            steps.log.append(say("{name} is still stunned (HT {skill}: {roll})", name=c.name, skill=chk.effective,
                                 roll=chk.roll.total))


def _end_turn(state: dict, c: Combatant, dice: DiceSource, st: dict, steps: _Steps) -> None:
    cs = state["combatants"][c.id]
    shock_now = int_of(c.sheet.get("shock"))
    left = shock_after_turn(shock_now, cs.get("shock_at_start", 0))
    if left != shock_now:
        steps.change(c, shock=left)
        steps.log.append(say("{name}'s shock clears", name=c.name) if not left else
                         say("{name}'s shock: {shock} for the next turn", name=c.name, shock=left))
    cs["last_move"] = cs.get("moved", 0)
    stun_period = cs["stunned"] and cs["stun_seconds"] > 0
    if stun_period:  # one of the 1d seconds of Total Surprise has passed
        cs["stun_seconds"] -= 1
    if st["stun_recovery_roll"] == "end_of_turn":
        _stun_recovery(cs, c, dice, steps, surprise_roll=not stun_period)
    for other in state["combatants"].values():
        if cs.get("maneuver") != "feint":
            (other.get("feint_penalty") or {}).pop(c.id, None)
        (other.get("defense_penalty") or {}).pop(c.id, None)


def _why_not(sheet: dict, cs: dict, key: str) -> str:
    """Why the rules do not offer a maneuver now."""
    conds = conditions_of(sheet, cs)
    if conds & set(OUT_OF_FIGHT):
        out = [CONDITION_WORDS.get(c, c) for c in sorted(conds & set(OUT_OF_FIGHT))]
        return say("out of the fight ({conditions})", conditions=joined(out, ", "))
    if "stunned" in conds:
        return say("stunned: Do Nothing only")
    m = MANEUVERS[key]
    ready = ready_weapons(sheet, cs)
    if key == "aim" or m.attack == "ranged":
        if not any(weapon_kind(w) in ("ranged", "thrown") for w in ready.values()):
            return say("no ready ranged weapon")
    if m.attack == "melee" and not any(weapon_kind(w) != "ranged" for w in ready.values()):
        return say("no ready melee weapon")
    if m.attack == "any" and not ready:
        return say("no ready weapon")
    moved = num_of(cs.get("moved"))
    if moved:
        return say("already moved {moved} yards; {maneuver} allows {allowed}", moved=f"{moved:g}", maneuver=maneuver_name(key),
                   allowed=f"{maneuver_movement(sheet, key):g}")
    return say("not allowed now")


#: the maneuvers a turn most often takes, listed first (``ActionOption.usual``); once one is chosen,
#: the move and the attack it allows are the turn's usual actions
USUAL_MANEUVERS = frozenset({"attack", "move_and_attack", "move", "aim", "all_out_defense"})


def actions(state: dict, actor: Combatant, settings: dict | None = None) -> list[ActionOption]:
    """What ``actor`` may do now ("Maneuvers", "Defending"): on its turn, one maneuver from the table
    (key: the maneuver's, kind ``turn``, with the movement it allows and its defense limits), then the
    move and attack that maneuver allows (``move:<maneuver>`` with the yards left, ``attack:<maneuver>``);
    at any time, the active defenses it still has this round (``dodge``, ``parry:<weapon>``, ``block``)."""
    st = settings_of(settings)
    cs = {**fresh_state(actor), **(state.get("combatants", {}).get(actor.id) or {})}
    its_turn = state.get("current") == actor.id
    chosen = cs.get("maneuver")
    allowed = {m["key"]: m for m in allowed_maneuvers(actor.sheet, cs, num_of(cs.get("moved")))}
    out: list[ActionOption] = []
    for key, m in MANEUVERS.items():
        reason = ""
        if not its_turn:
            reason = say("not {name}'s turn", name=actor.name)
        elif cs.get("collapsed"):
            reason = CONDITION_WORDS["unconscious"]
        elif chosen:
            reason = say("one maneuver a turn: {maneuver} is chosen", maneuver=maneuver_name(chosen))
        elif key not in allowed:
            reason = _why_not(actor.sheet, cs, key)
        info = allowed.get(key) or {}
        out.append(ActionOption(
            key=key, label=MANEUVER_WORDS.get(key, m.name), kind="turn", cost=say("the turn's maneuver"),
            available=not reason, reason=reason,
            usual=key in USUAL_MANEUVERS,
            data={"allowance": info.get("movement", maneuver_movement(actor.sheet, key)), "defense": m.defense,
                  "attack": m.attack, "variants": list(info.get("variants", m.variants)), "notes": m.notes}))
    if its_turn and chosen:
        m = MANEUVERS[chosen]
        allowance = maneuver_movement(actor.sheet, chosen, cs.get("variant") or None)
        left = max(0.0, allowance - num_of(cs.get("moved")))
        name = MANEUVER_WORDS.get(chosen, m.name)
        out.append(ActionOption(f"move:{chosen}", say("Move ({maneuver})", maneuver=name), "move", available=left > 0,
                                usual=True, reason="" if left > 0 else say("{maneuver}: no movement left", maneuver=name),
                                data={"allowance": left, "moved": num_of(cs.get("moved")), "on_map": True}))
        if m.attack:
            done = int_of(cs.get("attacks")) > 0
            out.append(ActionOption(f"attack:{chosen}", say("Attack ({maneuver})", maneuver=name), "attack",
                                    available=not done, usual=True,
                                    reason=say("the maneuver's attack is made") if done else "",
                                    data={"maneuver": chosen, "variant": cs.get("variant") or ""}))
    ready_open = next((o for o in out if o.key == "ready"), None)
    for name in _to_reload(actor.sheet):
        w = weapons(actor.sheet)[name]
        out.append(ActionOption(f"reload:{name}", say("Reload {weapon} ({left}/{shots} shots)", weapon=name,
                                                      left=shots_left(w), shots=int_of(w["shots"])), "turn",
                                cost=say("the turn's maneuver (Ready)"), available=bool(ready_open and ready_open.available),
                                reason=ready_open.reason if ready_open else "", usual=shots_left(w) == 0,
                                data={"weapon": name, "maneuver": "ready"}))
    out += _defense_options(actor, cs, st)
    return out


def _defense_options(actor: Combatant, cs: dict, st: dict) -> list[ActionOption]:
    """The active defenses left this round, at their level against a plain melee attack ("Defending")."""
    candidates: list[tuple[str, str, dict]] = [("dodge", say("Dodge"), {"type": "dodge"})]
    for name, w in weapons(actor.sheet).items():
        if weapon_kind(w) != "ranged" and w.get("can_parry", True):
            candidates.append((f"parry:{name}", say("Parry ({weapon})", weapon=name), {"type": "parry", "weapon": name}))
    if actor.sheet.get("shield"):
        candidates.append(("block", say("Block"), {"type": "block"}))
    out = []
    for key, label, d in candidates:
        try:
            base, mods, _ = defense_level(actor.sheet, cs, d, AttackInfo(), st)
        except RuleError as exc:
            out.append(ActionOption(key, label, "defense", available=False, reason=str(exc)))
            continue
        out.append(ActionOption(key, label, "defense", data={"level": effective_skill(base, mods)}))
    return out


def act(state: dict, actor: Combatant, action: str, combatants: list[Combatant], dice: DiceSource,
        settings: dict | None = None, options: dict | None = None) -> TurnUpdate:
    """A turn action of ``actor`` ("Maneuvers"): choose the turn's maneuver (a key of the maneuver
    table, ``options["variant"]``, ``options["target"]`` for Aim, Evaluate and Feint,
    ``options["weapon"]`` for Aim and Ready, ``options["trigger"]`` for Wait). ``"record_attack"``
    (``options["result"]``) is :func:`after_attack` as an action; moves go through :func:`move`.
    """
    st = settings_of(settings)
    steps = _Steps()
    opts = options or {}
    present = {c.id for c in combatants} | {actor.id}
    if actor.id not in state.get("combatants", {}):
        raise RuleError(say("{name} is not in this fight", name=actor.name))
    if action == "record_attack":
        return _update(after_attack(state, opts.get("result"), st), steps, present)
    state = _books_of(state, actor.id)  # (a maneuver and a reload book the actor's own books alone)
    cs = state["combatants"][actor.id]
    if state.get("current") != actor.id:
        raise RuleError(say("it is not {name}'s turn", name=actor.name))
    if action == "reload" or action.startswith("reload:"):
        _reload(cs, actor, action.partition(":")[2] or opts.get("weapon"), dice, st, steps)
        return _update(state, steps, present)
    if action not in MANEUVERS:
        raise RuleNotImplemented(say("the action {action} is not automated (the GM adjudicates it)", action=repr(action)))
    _choose_maneuver(cs, actor, action, dice, st, steps, opts)
    return _update(state, steps, present)


def _choose_maneuver(cs: dict, actor: Combatant, key: str, dice: DiceSource, st: dict, steps: _Steps,
                     opts: dict) -> None:
    """One maneuver a turn, from those the situation allows ("Maneuvers"), with its bookkeeping."""
    if cs.get("collapsed"):
        raise RuleError(say("{name} has collapsed", name=actor.name))
    if cs.get("maneuver"):
        raise RuleError(say("one maneuver a turn: {maneuver} is chosen", maneuver=maneuver_name(cs["maneuver"])))
    allowed = {m["key"]: m for m in allowed_maneuvers(actor.sheet, cs, num_of(cs.get("moved")))}
    if key not in allowed:
        raise RuleError(say("{maneuver}: {reason}", maneuver=maneuver_name(key), reason=_why_not(actor.sheet, cs, key)))
    m = MANEUVERS[key]
    variant = opts.get("variant") or ""
    if variant and variant not in allowed[key]["variants"]:
        raise RuleError(say("{maneuver} has no {option} option here; options: {options}", maneuver=maneuver_name(key),
                            option=repr(variant), options=", ".join(allowed[key]["variants"])))
    if key == "all_out_defense" and not variant:
        raise RuleError(say("All-Out Defense: choose one of {options}", options=", ".join(m.variants)))
    if cs.get("collapse_pending"):
        cs["collapse_pending"] = False
        res = collapse(actor.sheet, dice, key, roller=actor.id)
        if res["check"] is not None:
            chk = res["check"]
            steps.rolls.append(chk.roll)
            steps.log.append(say("{name} rolls against collapse (HT {level}): {roll}, {result}", name=actor.name,
                                 level=chk.effective, roll=chk.roll.total, result=RESULT_WORDS.get(chk.result, chk.result)))
        if res["conditions"]:
            conditions = list(actor.sheet.get("conditions") or [])
            steps.change(actor, conditions=conditions + [c for c in res["conditions"] if c not in conditions])
            cs.update(collapsed=True, maneuver=None)
            steps.log.append(say("{name} collapses, unconscious", name=actor.name))
            return
    target = opts.get("target")
    if key == "aim":
        weapon = opts.get("weapon")
        ready = ready_weapons(actor.sheet, cs)
        if weapon is not None and (weapon not in ready or weapon_kind(ready[weapon]) not in ("ranged", "thrown")):
            raise RuleError(say("{weapon} is not a ready ranged weapon", weapon=repr(weapon)))
        same = cs.get("aim_turns") and cs.get("aim_target") == target
        cs.update(aim_turns=int_of(cs.get("aim_turns")) + 1 if same else 1, aim_target=target)
    elif key == "evaluate":
        if not target:
            raise RuleError(say("Evaluate names the enemy evaluated (option target)"))
        ev = cs.get("evaluate") or {}
        turns = int_of(ev.get("turns")) + 1 if ev.get("target") == target else 1
        cs["evaluate"] = {"target": target, "turns": min(3, turns)}
    elif key == "ready":
        weapon = opts.get("weapon")
        if weapon not in weapons(actor.sheet):
            raise RuleError(say("no weapon {weapon} on the sheet to ready", weapon=repr(weapon)))
        cs["unready"] = [w for w in cs.get("unready") or [] if w != weapon]
        cs["readied"] = sorted(set(cs.get("readied") or []) | {weapon})
    elif key == "wait":
        cs["wait"] = {"trigger": str(opts.get("trigger") or "")}
    elif key == "concentrate":
        cs["concentrating"] = str(opts.get("task") or "a mental task")
    elif key == "all_out_attack_ranged" and variant == "suppression_fire":
        cs["suppressing"] = _suppression_area(actor, cs, opts)
        if not cs["suppressing"]["cells"]:
            steps.log.append(say("{name}'s Suppression Fire names no squares: the GM calls its attacks", name=actor.name))
    # a stunned token's Do Nothing is forced on it: it keeps its (stunned) defenses
    forced = key == "do_nothing" and "stunned" in conditions_of(actor.sheet, cs)
    cs.update(maneuver=key, variant=variant, stunned_turn=forced)
    line = say("{name}: {maneuver}", name=actor.name, maneuver=MANEUVER_WORDS.get(key, m.name))
    if variant:
        line = say("{line} ({variant})", line=line, variant=VARIANT_WORDS.get(variant.replace("_", " "), variant.replace("_", " ")))
    if target and key in ("aim", "evaluate", "feint"):
        line = say("{line} on {target}", line=line, target=target)
    steps.log.append(line)


def _to_reload(sheet: dict) -> list[str]:
    """The weapons that keep count of their shots and are not full."""
    return [k for k, w in weapons(sheet).items() if shots_left(w) is not None and shots_left(w) < int_of(w["shots"])]


def _reload(cs: dict, actor: Combatant, name: str | None, dice: DiceSource, st: dict, steps: _Steps) -> None:
    """Reload a weapon: the turn's Ready maneuver ("Maneuvers", Ready: "Prepare an item or do anything not
    covered by other maneuvers"), which fills it to its Shots. The document gives no reload times: one
    Ready maneuver reloads (a reading)."""
    ws = weapons(actor.sheet)
    if not name:
        short = _to_reload(actor.sheet)
        name = short[0] if short else next((k for k, w in ws.items() if shots_left(w) is not None), None)
    if name not in ws:
        raise RuleError(say("no weapon {weapon} on the sheet to reload", weapon=repr(name)) if name else
                        say("no weapon with Shots to reload"))
    if shots_left(ws[name]) is None:
        raise RuleError(say("{weapon} has no Shots to reload (3d6 Combat, 'Ranged Attacks')", weapon=name))
    _choose_maneuver(cs, actor, "ready", dice, st, steps, {"weapon": name})
    full = int_of(ws[name]["shots"])
    steps.change(actor, weapons=with_loaded(steps.sheet(actor), name, full))
    steps.log.append(say("{name} reloads {weapon}: {n} shot(s)", name=actor.name, weapon=name, n=full))


def _suppression_area(actor: Combatant, cs: dict, opts: dict) -> dict:
    """The area a Suppression Fire keeps under fire until the shooter's next turn ("Maneuvers": a
    weapon of RoF 5+, "a 2 yard wide area ... (4 yard wide if ROF is 10+)"; whoever enters it is
    attacked at 8 + the rapid fire bonus). ``options["weapon"]``, ``options["cells"]``: the squares
    (none named: no move provokes it, the GM calls the attacks)."""
    ready = ready_weapons(actor.sheet, cs)
    name = opts.get("weapon") or next((k for k, w in ready.items() if int_of(w.get("rof"), 1) >= 5), None)
    weapon = ready.get(name or "")
    if weapon is None or int_of(weapon.get("rof"), 1) < 5:
        raise RuleError(say("Suppression Fire needs a ready weapon of RoF 5 or more (option weapon)"))
    cells = [list(c)[:2] for c in opts.get("cells") or [] if isinstance(c, (list, tuple)) and len(c) >= 2]
    rof = int_of(weapon.get("rof"), 1)
    return {"weapon": name, "cells": cells, "width": suppression_area_width(rof),
            "skill": suppression_fire_skill(rof)}


def record_attack(state: dict, result: Any) -> dict:
    """Fold an attack's result into the fight state (in place; returned for convenience): the
    attacker's attack made with its weapons (a Committed Attack or Move and Attack cannot parry with
    them), its aim and evaluation spent; each defense used (dodges, parries, block, the limbs of a
    Cross or Supported parry, "Defending"); feints and ripostes; aim lost by defending; weapons
    unreadied or flung by a disarm ("Attacking")."""
    if result is None:
        raise RuleError(say("record_attack needs the attack's result (option result)"))
    r = result if isinstance(result, dict) else result.to_dict()
    details = r.get("details") or {}
    people = state["combatants"]
    attacker = people.get(details.get("attacker"))
    if attacker is not None:
        used = [a.get("weapon") for a in details.get("attacks") or [] if a.get("weapon")]
        attacker["attacked_with"] = sorted(set(attacker.get("attacked_with") or []) | set(used))
        attacker["attacks"] = int_of(attacker.get("attacks")) + 1
        if details.get("attacks"):
            attacker.update(aim_turns=0, aim_target=None, evaluate=None)
    for e in r.get("effects") or []:
        who = people.get(e.get("target"))
        if who is None:
            continue
        kind, data = e.get("kind"), e.get("data") or {}
        if kind == "defended":
            people[e["target"]] = who = {**who, **record_defense(who, {"type": data.get("defense")},
                                                                 list(data.get("limbs") or []))}
        elif kind == "feint_penalty":
            who.setdefault("feint_penalty", {})[data.get("against")] = int_of(data.get("value"))
        elif kind == "defense_penalty":
            who.setdefault("defense_penalty", {})[data.get("against")] = int_of(data.get("value"))
        elif kind == "aim_lost":
            who.update(aim_turns=0, aim_target=None)
        elif kind == "concentration_lost":
            who["concentrating"] = None
        elif kind in ("unreadied", "disarmed") and data.get("weapon"):
            who["unready"] = sorted(set(who.get("unready") or []) | {data["weapon"]})
    return state


def after_attack(state: dict, result: Any, settings: dict | None = None) -> dict:
    """The fight's state after an attack (a new dict): :func:`record_attack`, and the maneuver the
    attack was made under booked as the attacker's maneuver of the turn when it had chosen none
    ("Maneuvers": one maneuver a turn; an attack is made under one of the attacking maneuvers, so a
    token that attacks without choosing has chosen the plain Attack, or the maneuver the attack
    names, with its movement and defense limits)."""
    state = copied(state)
    record_attack(state, result)
    r = result if isinstance(result, dict) else result.to_dict()
    details = r.get("details") or {}
    who = details.get("attacker")
    cs = state.get("combatants", {}).get(who)
    maneuver = details.get("maneuver")
    if cs is not None and not cs.get("maneuver") and maneuver in MANEUVERS and state.get("current") == who:
        cs.update(maneuver=maneuver, variant=details.get("variant") or "")
    if cs is not None and details.get("suppressing") and state.get("current") == who:
        cs["suppressing"] = details["suppressing"]  # the area laid down from the attack card
    return state


def movement_left(state: dict, mover: Combatant, settings: dict | None = None) -> float:
    """Yards the mover may still move this turn ("Maneuvers", Movement column): the chosen maneuver's
    movement (a step for Attack, Aim, Ready...; two steps for Committed Attack; half Move for All-Out
    Attack; Move for Move and Move and Attack; none for Wait and Do Nothing) less the yards moved;
    before a maneuver is chosen, the most any maneuver open to it would allow (Move for a token that
    may move at all). 0 when it is not the mover's turn, or it is out of the fight."""
    cs = {**fresh_state(mover), **(state.get("combatants", {}).get(mover.id) or {})}
    if state.get("current") != mover.id or not _able(mover, cs):
        return 0.0
    moved = num_of(cs.get("moved"))
    if cs.get("maneuver"):
        allowance = maneuver_movement(mover.sheet, cs["maneuver"], cs.get("variant") or None)
    else:
        allowance = max((m["movement"] for m in allowed_maneuvers(mover.sheet, cs, moved)), default=0)
    return float(max(0.0, allowance - moved))


def move(state: dict, mover: Combatant, path: list, cost: float, combatants: list[Combatant], board: Any,
         dice: DiceSource, settings: dict | None = None) -> MoveResult:
    """Judge a move of ``cost`` yards along ``path`` ("Maneuvers", Movement column): only on the
    mover's turn, after it chose the turn's maneuver (the document ties every movement to a maneuver:
    a step, two steps, half Move or Move, and says nothing of a move choosing one), within what that
    maneuver allows less what it moved already. Books the yards moved (the target's speed for a
    ranged attack next turn is read from them). ``provokes``: the document gives no free attack for
    moving; a token entering an area under Suppression Fire is attacked (see :func:`suppression_targets`)."""
    if mover.id not in state.get("combatants", {}):
        raise RuleError(say("{name} is not in this fight", name=mover.name))
    if state.get("current") != mover.id:
        raise RuleError(say("it is not {name}'s turn", name=mover.name))
    state = _books_of(state, mover.id)  # (a move books the mover's yards alone)
    cs = state["combatants"][mover.id]
    if not _able(mover, cs):
        raise RuleError(say("{name} is out of the fight", name=mover.name))
    if not cs.get("maneuver"):
        raise RuleError(say("choose a maneuver first: each maneuver allows its own movement "
                            "(a step for Attack, half Move for All-Out Attack, Move for Move)"))
    cost = float(cost)
    if cost < 0:
        raise RuleError(say("a move cannot cost less than nothing"))
    m = MANEUVERS[cs["maneuver"]]
    allowance = maneuver_movement(mover.sheet, cs["maneuver"], cs.get("variant") or None)
    moved = num_of(cs.get("moved"))
    left = max(0.0, allowance - moved)
    if cost > left + 1e-9:
        raise RuleError(say("{maneuver} allows {allowed} yards a turn; {moved} moved, {left} left: {cost} is too far",
                            maneuver=maneuver_name(cs["maneuver"]), allowed=f"{allowance:g}", moved=f"{moved:g}",
                            left=f"{left:g}", cost=f"{cost:g}"))
    cs["moved"] = moved + cost
    provokes = suppression_targets(state, mover, path)
    log = [say("{name} moves {cost} yard(s) ({maneuver}: {left} left)", name=mover.name, cost=f"{cost:g}", maneuver=MANEUVER_WORDS.get(cs["maneuver"], m.name),
               left=f"{left - cost:g}")]
    by_id = {c.id: c for c in combatants}
    for cid in provokes:
        log.append(say("{name} enters the area {shooter} keeps under Suppression Fire", name=mover.name,
                       shooter=by_id[cid].name if cid in by_id else cid))
    return MoveResult(state=state, cost=cost, left=float(left - cost), provokes=provokes, log=log)


def suppression_targets(state: dict, mover: Combatant, path: list) -> list[str]:
    """The combatants whose Suppression Fire area the path enters ("Maneuvers", All Out Attack
    (Ranged), Suppression Fire: "When anyone enters this area you attack them")."""
    cells = {tuple(c) for c in (path or [])[1:] if isinstance(c, (list, tuple))}
    out = []
    for cid, cs in state.get("combatants", {}).items():
        area = (cs.get("suppressing") or {}).get("cells") or []
        if cid != mover.id and cells & {tuple(c) for c in area}:
            out.append(cid)
    return out
