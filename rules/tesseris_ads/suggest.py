"""What a foe's plans weigh in Tesseris (#60): an attack's expected Wounds (Stamina lost counted a fifth of a
Wound), the ways a turn spends its ticks on moving then attacking, and whether a character is hurt.

The GM's suggestions (``webapp/game/suggestions.py``) rank a foe's plans by these; the odds are the rules'
own (:func:`rules.tesseris_ads.odds.attack_odds`, its mean Stamina and Wounds), nothing is estimated here.
A Tesseris turn is a budget of ticks (*Tesseris Combat*, "Ticks": 5 a round): each way names its attack
action, whose ticks are kept back from the move (``move_most``: a Move is 1 tick for Speed squares,
"Movement Actions"), so the attack is still paid for once the foe has moved.
"""

from __future__ import annotations

import dataclasses

from ..copying import copied
from ..system import AttackRequest, Combatant
from ..text import say, say_n
from .attack import DEFENSE_WORDS, melee_partners
from .data import ACTIONS, STAMINA_PER_WOUND
from .movement import move_allowance
from .odds import attack_odds
from .sheet import num, skill, weapon_list
from .status import names as status_names
from .ticks import refusal, state_of

#: what a point of Stamina lost is worth beside a Wound: five of them from one hit make a Wound ("Taking
#: Wounds"), and a character out of Stamina takes every further point as a Wound ("Damage, Stamina, and Wounds")
STAMINA_WORTH = 1.0 / STAMINA_PER_WOUND

#: the attack actions a foe's turn weighs: (action, melee, risky, aimed). Melee Strike (2 ticks) and All-Out
#: Attack (3 ticks, +2, -2 to its defenses until its next turn: risky) ("Melee Attack Actions"); Straight Shot
#: (2 ticks), Aim (1 tick, +1) then a Calculated Shot (3 ticks, +1), Burst Fire (3 ticks, -1, the weapon's burst
#: rate) ("Ranged Attack Actions", "Miscellaneous Actions"). A weapon without the fire mode is refused by the
#: rules. Left out, as the bench's time allows: Precision Strike (+1, 3 ticks: All-Out's +2 costs the same), a
#: Calculated Shot without Aim (the aimed one is better whenever the ticks pay it), Full-Auto (5 ticks).
ATTACKS = (("melee_strike", True, False, False), ("all_out_attack", True, True, False),
           ("straight_shot", False, False, False), ("calculated_shot", False, False, True),
           ("burst_fire", False, False, False))
AIM = "aim"  #: Aim or Focus: 1 tick, +1 to the next roll, once a round ("Miscellaneous Actions")


def attack_effect(request: AttackRequest, odds: dict) -> dict:
    """The expected Wounds of the attack ("Damage, Stamina, and Wounds", "Taking Wounds"): the odds' mean
    Wounds (misses, the defense, armour and cover soak counted), and the mean Stamina lost at a fifth of a
    Wound each. The defense: the one the target makes against it ("Defending": the best, as the odds have it)."""
    effect = float(odds.get("mean_wounds") or 0.0) + STAMINA_WORTH * float(odds.get("mean_stamina") or 0.0)
    kind = odds.get("defense_kind")
    defense = (say("defends with {defense}", defense=DEFENSE_WORDS[kind]) if kind in DEFENSE_WORDS
               else say("no defense") if kind == "none" else "")
    # the chance it goes down at once (dead at its Wound limit: the odds' exact enumeration, #67); a foe put down is
    # worth the Wounds that limit is. (Out of Stamina it falls unconscious only if its Resolve fails at its next turn:
    # not counted.)
    limit = float(odds.get("down_limit") or 0.0)
    return {"effect": effect, "unit": say("Wounds (5 Stamina count as one)"), "defense": defense,
            "down": float(odds.get("down") or 0.0), "down_worth": limit}


def _fitting(sheet: dict, state: dict) -> dict[str, list[str]]:
    """The weapons each kind of attack may take: "melee" and "ranged" those not beaten on every count the odds
    read by another of the same kind ("Attacking": the attacker's rank in the weapon's skill; the damage, an
    Impact weapon adding only half the net successes, "Damage"; AP; the reach or the listed range; the burst and
    full-auto rates, "Rate of Fire (RoF)"), the ranged ones not jammed ("Weapon Jams") nor empty; "burst" those
    of them with a burst rate."""
    jammed = set(state.get("jammed") or [])
    weapons = [(w["key"], w["data"]) for w in weapon_list(sheet)
               if w["key"] not in jammed and (w["data"].get("ammo") is None or num(w["data"].get("ammo")) > 0)]

    def kind(w: dict) -> str:
        return w.get("kind", "melee")

    def marks(w: dict) -> tuple:
        rof = list(w.get("rof") or [1]) + [0, 0]
        far = num(w.get("reach"), 1) or 1 if kind(w) == "melee" else num(w.get("range"))
        return (skill(sheet, w.get("skill") or ("melee" if kind(w) == "melee" else "rifles")), num(w.get("damage")),
                num(w.get("ap")), far, not w.get("impact"), num(rof[1]), num(rof[2]))

    def beaten(key: str, w: dict) -> bool:
        mine = marks(w)
        return any(k != key and kind(o) == kind(w) and all(a >= b for a, b in zip(marks(o), mine))
                   and (marks(o) != mine or k < key) for k, o in weapons)

    kept = [(k, w) for k, w in weapons if not beaten(k, w)]
    ranged = [(k, w) for k, w in kept if kind(w) in ("ranged", "thrown")]
    return {"melee": [k for k, w in kept if kind(w) == "melee"], "ranged": [k for k, _w in ranged],
            "burst": [k for k, w in ranged if num((list(w.get("rof") or [1]) + [0])[1]) > 0]}


def _ticks_label(action: str, ticks: int):
    return say("{action} ({ticks})", action=ACTIONS[action].name, ticks=say_n("{n} tick", "{n} ticks", ticks))


def plan_turns(state: dict, mover: Combatant, settings: dict | None = None) -> list[dict]:
    """The ways a foe's turn may spend its ticks ("Ticks", "Action Types"): each attack of ``ATTACKS`` (Aim
    before it when it is aimed) the rules allow now (``ticks.refusal``) and its ticks can pay, after a move of
    what the rest pays for (``move_most``: the squares already paid, and Speed squares a tick left), with the
    weapons that fit it (``weapons``: ``_fitting``); a move then Take Cover (free on its turn: "Taking Cover"), unless it is in cover already; a move
    alone (withdrawing)."""
    s = state_of((state.get("combatants") or {}).get(mover.id, mover.state), mover.sheet)
    statuses = mover.sheet.get("statuses")
    ticks = max(0, num(s.get("ticks")))
    paid = max(0, num(s.get("move_left")))
    speed = move_allowance(mover.sheet, "move") if refusal(s, "move", statuses=statuses) is None else 0

    def most(spent: int) -> float:
        return float(paid + max(0, ticks - spent) * speed)

    fitting = _fitting(mover.sheet, s)

    ways: list[dict] = []
    for key, melee, risky, aimed in ATTACKS:
        cost = ACTIONS[key].ticks or 0
        weapons = fitting["melee" if melee else "burst" if ACTIONS[key].fire_mode == "burst" else "ranged"]
        if refusal(s, key, statuses=statuses) is not None or not weapons:
            continue
        if aimed:
            aim = ACTIONS[AIM].ticks or 0
            if cost + aim <= ticks and refusal(s, AIM, statuses=statuses) is None:
                ways.append({"action": AIM, "action_options": {}, "attack": True, "options": {"action": key},
                             "melee": melee, "risky": risky, "move_most": most(cost + aim), "weapons": weapons,
                             "label": say("{aim}, then {attack}", aim=_ticks_label(AIM, aim),
                                          attack=_ticks_label(key, cost))})
        elif cost <= ticks:
            ways.append({"action": None, "action_options": {}, "attack": True, "options": {"action": key},
                         "melee": melee, "risky": risky, "move_most": most(cost), "weapons": weapons,
                         "label": _ticks_label(key, cost)})
    if not s.get("in_cover") and refusal(s, "take_cover", statuses=statuses) is None:
        ways.append({"action": None, "action_options": {}, "attack": False, "options": {}, "melee": None,
                     "then": "take_cover", "label": say("Move, then Take Cover")})
    ways.append({"action": None, "action_options": {}, "attack": False, "options": {}, "melee": None,
                 "label": ACTIONS["move"].name})
    return ways


def turn_begun(state: dict, mover: Combatant, settings: dict | None = None) -> dict:
    """The fight's state (a copy) as if ``mover``'s turn began now, for its plans asked off its turn ("Combat
    Order", "Rounds"): the current fighter, its books as its next turn starts them. Its turn this round done,
    its next one is in a new round: its ticks as a new round gives them (less those it borrowed and those its
    statuses take), the round's limits ended (``turns.new_round``); then the stances that last until its next
    turn end (``turns.start_turn``). No dice rolled (the Resolve test of a character out of Stamina is not
    made, nor is initiative): it plans as it stands."""
    from .turns import new_round, start_turn  # the lifecycle's own books (imported here: turns is the larger module)
    state = copied(state)
    books = state.setdefault("combatants", {})
    mine = books.get(mover.id, mover.state or {})
    if mover.id in (state.get("acted") or []):
        mine = new_round(mine, mover.sheet)
    mine = start_turn(mine)
    books[mover.id] = {k: v for k, v in mine.items() if k not in ("status_update", "last_action", "last_cost")}
    state["current"] = mover.id
    return state


def wounded(sheet: dict) -> bool:
    """Hurt: a Wound or more, or Bloodied (out of Stamina) ("Damage, Stamina, and Wounds")."""
    return num(sheet.get("wounds")) > 0 or "Bloodied" in status_names(sheet.get("statuses"))


def in_the_way(shot: AttackRequest, at_me: AttackRequest | None, me: str, ally: str) -> tuple[float, list]:
    """What the foe ``me`` standing where ``shot`` finds it costs its side (#67: the foes as a side), by Tesseris'
    "Firing into Melee" (Common Physical Combat Modifiers): ``shot`` is its ally's (named ``ally``) ranged attack at a
    target ``me`` would stand in melee with. A ranged attack at a target in melee with another character is at -2,
    and a miss the -2 caused strikes one of those in the melee. The cost, in the Wounds :func:`attack_effect`
    counts: the drop in the shot's expected Wounds from the -2 (none when another already stands in melee with the
    target: the -2 is there without ``me``), plus the chance the stray strikes ``me`` (the chance the -2 turns a hit
    into a miss, the rules' own odds with and without it, shared among those in the melee) times what a hit of
    ``at_me`` (the ally's attack at ``me``; None where it has none) does on average. The words for the why line."""
    partners = melee_partners(shot.target, shot.attacker, shot.others or [])
    if me not in partners:
        return 0.0, []
    clear = attack_odds(dataclasses.replace(shot, options={**shot.options, "into_melee": False}))
    close = attack_odds(dataclasses.replace(shot, options={**shot.options, "into_melee": True}))
    drop = 0.0 if len(partners) > 1 else max(0.0, attack_effect(shot, clear)["effect"] - attack_effect(shot, close)["effect"])
    stray = max(0.0, float(clear.get("hit") or 0.0) - float(close.get("hit") or 0.0)) / len(partners)
    harm = 0.0
    if at_me is not None and stray > 0:
        mine = attack_odds(at_me)
        hit = float(mine.get("hit") or 0.0)
        harm = attack_effect(at_me, mine)["effect"] / hit if hit > 0 else 0.0
    words = [say("in {ally}'s line of fire: -2 to its shot", ally=ally)] if drop > 0 else []
    if stray * harm > 0:
        words.append(say("{ally}'s miss may hit it", ally=ally))
    return drop + stray * harm, words
