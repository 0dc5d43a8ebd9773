"""Ticks, rounds, surprise, initiative and delaying ("Ticks", "Overspending or
Borrowing Ticks", "Combat Order", "Initiative", "Rounds", "Delaying").

A combatant's per-combat state is a plain dict the app stores
(``Combatant.state``); every function returns a new dict.
"""

from __future__ import annotations

from ..dice import DiceSource
from ..system import Combatant, Modifier, RuleError
from . import core
from .data import ACTIONS, Action
from .sheet import char, num, skill, skill_characteristic, speed
from .status import start_of_round

#: stances that last "until the start of the character's next turn"
TURN_STANCES = ("all_out", "guarded", "sprint", "ran", "total_defense", "overwatch")
#: what may be paid for with borrowed ticks ("Overspending or Borrowing Ticks")
BORROWABLE_CATEGORIES = ("defense",)
BORROWABLE_ACTIONS = ("reload", "clear_jam", "take_cover", "drop_prone")
SURPRISE_REACTION_TICKS = 3


def fresh_state(sheet: dict) -> dict:
    """The state of a combatant at the start of a combat ("Ticks")."""
    per_round = core.BASE_TICKS + num(sheet.get("tick_bonus"))
    return {
        "ticks": per_round,
        "free_reaction": core.FREE_REACTIONS > 0,
        "attacks": 0,
        "defenses": 0,
        "delays": 0,
        "surprised": False,
        "stances": [],
        "prone": False,
        "in_cover": False,
        "cover_locations": [],
        "aim": 0,
        "aimed_this_round": False,
        "quick_step": False,
        "moved": False,
        "jammed": [],
        "round": 1,
    }


def state_of(combatant_or_state, sheet: dict | None = None) -> dict:
    """A full state dict: the stored one completed with fresh values."""
    if isinstance(combatant_or_state, Combatant):
        sheet = combatant_or_state.sheet
        stored = combatant_or_state.state or {}
    else:
        stored = combatant_or_state or {}
    return {**fresh_state(sheet or {}), **stored}


def new_round(state: dict, sheet: dict) -> dict:
    """The state at the start of a new round ("Rounds", "Overspending or Borrowing Ticks"):
    fresh ticks less the ticks borrowed last round and those statuses take (Dazed,
    Stunned), the free Reaction back, attack and defense counts reset; statuses run
    down (returned in ``status_update``: the app writes them to the sheet).
    """
    s = state_of(state, sheet)
    borrowed = max(0, -num(s["ticks"]))
    per_round = core.BASE_TICKS + num(sheet.get("tick_bonus"))
    st = start_of_round(sheet.get("statuses"))
    cover_locations = list(s["cover_locations"])
    if s["in_cover"] and s.get("cover_taken_as_reaction"):
        # "Taking Cover": from the next round on, legs and torso count as in cover
        cover_locations = sorted(set(cover_locations) | {"legs", "torso"})
    return {
        **s,
        "ticks": per_round - borrowed - st["ticks_lost"],
        "borrowed_last_round": borrowed,
        "free_reaction": core.FREE_REACTIONS > 0,
        "attacks": 0,
        "defenses": 0,
        "delays": 0,
        "surprised": False,
        "aimed_this_round": False,
        "quick_step": False,
        "moved": False,
        "cover_locations": cover_locations,
        "cover_taken_as_reaction": False,
        "round": num(s.get("round"), 1) + 1,
        "status_update": {"statuses": st["statuses"], "damage": st["damage"], "ticks_lost": st["ticks_lost"]},
    }


def start_turn(state: dict) -> dict:
    """Stances that last until the start of the character's next turn end ("Attack Actions",
    "Defensive Actions", "Movement Actions")."""
    s = state_of(state)
    return {**s, "stances": [x for x in s["stances"] if x not in TURN_STANCES], "quick_step": False, "moved": False}


def reaction_cost(action: Action, state: dict, settings: dict | None = None) -> tuple[int, bool]:
    """Ticks a reaction costs and whether it uses the free Reaction ("Ticks": one free
    Reaction that takes no ticks). Reading: the free Reaction pays one tick of one reaction."""
    ticks = action.reaction_ticks
    if action.key == "take_cover":
        ticks = num((settings or {}).get("take_cover_reaction_ticks"), ticks)
    if ticks is None:
        raise RuleError(f"{action.name} cannot be taken as a reaction")
    if state.get("free_reaction") and ticks >= 1 and not state.get("surprised"):
        return ticks - 1, True
    return ticks, False


def spend(
    state: dict,
    action_key: str,
    reaction: bool = False,
    settings: dict | None = None,
    gm_allows_borrowing: bool = False,
    extra_ticks: int = 0,
) -> dict:
    """The state after taking an action: its ticks paid ("Ticks", "Action Types",
    "Overspending or Borrowing Ticks", "Combat Order" 1 for the surprised).

    Without enough ticks, defensive reactions, reloading and clearing a jam
    borrow from the next round (ticks go below zero); anything else is
    refused unless the GM allows it. A surprised character may only react,
    with 3 ticks at most.
    """
    action = ACTIONS.get(action_key)
    if action is None:
        raise RuleError(f"unknown action {action_key!r}")
    s = state_of(state)
    if s.get("surprised") and not reaction:
        raise RuleError("a surprised character may only take reactions this round")
    if reaction:
        cost, free = reaction_cost(action, s, settings)
    else:
        if action.ticks is None:
            raise RuleError(f"{action.name} is only taken as a reaction")
        cost, free = action.ticks, False
    cost += extra_ticks
    if action.extra.get("once_per_round") and s.get("aimed_this_round"):
        raise RuleError(f"{action.name} may only be taken once per round")
    if action.extra.get("once_per_turn") and s.get("quick_step"):
        raise RuleError(f"{action.name} may only be taken once per turn")
    if action_key == "quick_step" and s.get("moved"):
        raise RuleError("no Quick Step in a turn with another move")
    if action.mode and not reaction and "ran" in s["stances"]:
        raise RuleError("no attack actions after a Run until the start of the next turn")
    borrow = cost > max(0, num(s["ticks"]))
    if borrow:
        if s.get("surprised"):
            raise RuleError("a surprised character has no more ticks for reactions this round")
        allowed = action.category in BORROWABLE_CATEGORIES or action_key in BORROWABLE_ACTIONS or gm_allows_borrowing
        if not allowed:
            raise RuleError(f"{action.name} needs {cost} ticks and {max(0, num(s['ticks']))} are left; the GM may allow borrowing")
    out = {**s, "ticks": num(s["ticks"]) - cost, "last_action": action_key, "last_cost": cost}
    if free:
        out["free_reaction"] = False
    if action.mode:
        out["attacks"] = num(s["attacks"]) + 1
    if action.stance and action.stance not in out["stances"]:
        out["stances"] = [*out["stances"], action.stance]
    if action_key == "aim":
        out["aimed_this_round"] = True
        out["aim"] = num(s.get("aim")) + 1
    if action_key == "quick_step":
        out["quick_step"] = True
    if action.category == "movement" and action_key in ("move", "run", "sprint", "charge", "hip_fire"):
        out["moved"] = True
    if action_key in ("drop_prone", "dive_for_cover"):
        out["prone"] = True
    if action_key == "stand_up":
        out["prone"] = False
        out["stances"] = [x for x in out["stances"] if x != "hunkered"]
    if action_key == "hunker_down" and not s.get("in_cover"):
        raise RuleError("Hunker Down needs the character to be in cover")
    if action_key == "total_defense":
        if num(s["attacks"]) > 0:
            raise RuleError("Total Defense is only possible before any attack action this turn")
        if "hunkered" in s["stances"]:
            raise RuleError("Total Defense cannot be used while hunkered down")
    return out


def can_react(state: dict, ticks: int = 1) -> bool:
    """Whether a combatant can pay a reaction of ``ticks`` without borrowing ("Ticks")."""
    s = state_of(state)
    need = ticks
    if s.get("free_reaction") and not s.get("surprised") and ticks >= 1:
        need -= 1
    return num(s["ticks"]) >= need


def skill_test(sheet: dict, skill_name: str, dice: DiceSource, purpose: str, modifiers: list[Modifier] | None = None, characteristic: str | None = None):
    """Roll a skill: the characteristic's dT successes plus the skill rank plus modifiers
    (seeds README, "Tesseris dT"). Returns (total, roll record, modifiers)."""
    ch = characteristic or skill_characteristic(sheet, skill_name)
    pool = max(0, char(sheet, ch))
    mods = [Modifier(f"{skill_name.replace('_', ' ').title()} rank", skill(sheet, skill_name), "sheet")]
    mods += list(modifiers or [])
    record = dice.roll(f"{pool}dT", purpose)
    return record.total + sum(m.value for m in mods), record, mods


def surprise(unaware: list[Combatant], hidden: list[Combatant], dice: DiceSource) -> dict:
    """The surprise round ("Combat Order" 1): each hidden character rolls Stealth, each
    unaware one rolls Awareness against the best of them; who fails may only react,
    with 3 ticks. Reading: ties go to the one who notices (as ties go to defenders).
    Returns per id ``{"aware", "awareness", "stealth", "state"}`` and the rolls."""
    rolls = []
    stealth = {}
    for h in hidden:
        total, rec, _ = skill_test(h.sheet, "stealth", dice, f"{h.name}: Stealth (ambush)")
        stealth[h.id] = total
        rolls.append(rec)
    best = max(stealth.values()) if stealth else 0
    out: dict = {"stealth": stealth, "rolls": rolls, "combatants": {}}
    for u in unaware:
        total, rec, _ = skill_test(u.sheet, "awareness", dice, f"{u.name}: Awareness (surprise)")
        rolls.append(rec)
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
    for c in combatants:
        rec = dice.roll("1d10", f"{c.name}: initiative")
        mods = [
            Modifier("Agility", char(c.sheet, "agility"), "Initiative"),
            Modifier("Speed", speed(c.sheet), "Initiative"),
        ]
        misc = num(c.sheet.get("initiative_bonus"))
        if misc:
            mods.append(Modifier("Misc.", misc, "sheet"))
        rows.append(
            {
                "id": c.id,
                "name": c.name,
                "total": rec.total + sum(m.value for m in mods),
                "agility": char(c.sheet, "agility"),
                "is_player": bool(c.is_player),  # the app knows who plays whom
                "roll": rec,
                "modifiers": mods,
            }
        )
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
        raise RuleError(f"{who!r} is not in the initiative order")
    i = ids.index(who)
    if i == len(order) - 1:
        raise RuleError("the last character in the order has nobody to delay behind")
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
