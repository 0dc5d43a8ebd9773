"""What a foe's plans weigh in Savage Worlds (#60): an attack's expected wounds (Shaken counted as half a
wound), the ways a turn moves then attacks, and whether a character is hurt.

The GM's suggestions (``webapp/game/suggestions.py``) rank a foe's plans by these; the odds are the rules'
own (:func:`rules.savage_worlds.odds.odds`), nothing is estimated here.
"""

from __future__ import annotations

from ..system import AttackRequest, Combatant
from ..text import say
from .data import MAX_WOUNDS
from .odds import BROKEN, SHAKEN, _incapacitated, _wound_label

#: what a Shaken-only outcome is worth beside a Wound: it costs the target its next action or a Benny,
#: not a wound (Savage Worlds core facts, "Damage Resolution")
SHAKEN_WORTH = 0.5


def attack_effect(request: AttackRequest, odds: dict) -> dict:
    """The expected wounds of the attack ("Damage Resolution"), from the odds' outcomes: each wound
    counts 1; Incapacitated counts the wounds it takes past what the target has left (an Extra: 1);
    Shaken alone counts half; an object broken counts 1. The defense: the target number of the roll
    (Parry in melee, 4 at range), with its modifiers in the odds."""
    sheet = request.target.sheet or {}
    wild = bool(sheet.get("wild_card", True))
    room = max(0, MAX_WOUNDS - int(sheet.get("wounds", 0) or 0)) if wild else 0
    worth = {str(SHAKEN): SHAKEN_WORTH, str(BROKEN): 1.0,
             str(_incapacitated(False)): room + 1.0, str(_incapacitated(True)): room + 1.0}
    worth.update({str(_wound_label(n)): float(n) for n in range(1, MAX_WOUNDS + 1)})
    effect = sum(float(o.get("p") or 0.0) * worth.get(str(o.get("label")), 0.0) for o in odds.get("outcomes") or [])
    tn = odds.get("tn")
    defense = say("TN {tn}", tn=tn) if isinstance(tn, int) else ""
    return {"effect": effect, "unit": say("wounds (Shaken counts half)"), "defense": defense}


def plan_turns(state: dict, mover: Combatant, settings: dict | None = None) -> list[dict]:
    """The ways a foe's turn may move then attack ("Movement" is not an action): a plain attack, a Wild
    Attack in melee (+2 Fighting and damage, Vulnerable after: "Wild Attack"), and a move alone (taking
    cover, withdrawing)."""
    return [
        {"action": None, "action_options": {}, "attack": True, "options": {}, "melee": None, "label": say("Attack")},
        {"action": None, "action_options": {}, "attack": True, "options": {"wild_attack": True}, "melee": True,
         "risky": True,
         "label": say("Wild Attack")},
        {"action": None, "action_options": {}, "attack": False, "options": {}, "melee": None, "label": say("Move")},
    ]


def wounded(sheet: dict) -> bool:
    """Hurt: a Wound or more, or Shaken ("Damage Resolution")."""
    return int(sheet.get("wounds", 0) or 0) > 0 or bool(sheet.get("shaken"))
