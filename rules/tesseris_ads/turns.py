"""Initiative, surprise, delaying, rounds and the fight lifecycle of Tesseris
(*Tesseris Combat*, "Combat Order", "Initiative", "Rounds", "Delaying",
"Overspending or Borrowing Ticks").
"""

from __future__ import annotations

from ..dice import DiceSource
from ..system import Combatant, Modifier, RuleError
from .checks import roll_test
from .data import FREE_REACTIONS, SURPRISE_REACTION_TICKS
from .sheet import char, num, speed, test_pool
from .cover import after_reaction_cover
from .status import start_of_round
from .ticks import TURN_STANCES, state_of, ticks_per_round


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
        cover_locations = list(after_reaction_cover())
    return {
        **s,
        "ticks": per_round - borrowed - st["ticks_lost"],
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
    return {**s, "stances": [x for x in s["stances"] if x not in TURN_STANCES], "quick_step": False, "moved": False,
            "overwatch_attacks": 0}


def surprise(unaware: list[Combatant], hidden: list[Combatant], dice: DiceSource) -> dict:
    """The surprise round ("Combat Order" 1): each hidden character rolls Stealth, each
    unaware one rolls Awareness against the best of them; who fails may only react,
    with 3 ticks. Reading: ties go to the one who notices (as ties go to defenders).
    Returns per id ``{"aware", "awareness", "stealth", "state"}`` and the rolls."""
    rolls = []
    stealth = {}
    for h in hidden:
        test = roll_test(dice, *test_pool(h.sheet, "stealth"), f"{h.name}: Stealth (ambush)")
        stealth[h.id] = test.total
        rolls += test.records
    best = max(stealth.values()) if stealth else 0
    out: dict = {"stealth": stealth, "rolls": rolls, "combatants": {}}
    for u in unaware:
        test = roll_test(dice, *test_pool(u.sheet, "awareness"), f"{u.name}: Awareness (surprise)")
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
