"""Section "ACTION ECONOMY" of *Atomic Tomorrow Combat*: what a character has spent this round.

Each round a character can take one significant action, one move and one
quick action. The per-round record also counts the defenses made
("DEFENSE LIMITATIONS"). It is plain data kept under
``state["combatants"][id]["round"]``; these functions return a new copy.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..system import RuleError
from ..text import say
from .data import ACTIONS

#: an action spent twice in a round, one whole sentence each
_ALREADY_SPENT = {"significant": say("the significant action of this round is already spent"),
                  "move": say("the move action of this round is already spent"),
                  "quick": say("the quick action of this round is already spent")}


def new_round() -> dict:
    """The per-round record of a character: nothing spent, no defense made yet.

    Section "ACTION ECONOMY" (one significant action, one move, one quick
    action a round) and "DEFENSE LIMITATIONS" (counted per turn; reading:
    a turn is the round, so everything resets together).
    """
    return {
        "significant": False,
        "move": False,
        "quick": False,
        "defenses": 0,
        "melee_blocks": 0,
        "two_fisted_used": False,
    }


def round_state(state: Mapping | None) -> dict:
    """A round record completed with the fields of :func:`new_round` (a copy)."""
    out = new_round()
    if state:
        for key in out:
            if key in state:
                out[key] = state[key]
    return out


def reset_round(state: Mapping | None = None) -> dict:
    """A fresh round record (the argument is ignored; kept for symmetry with :func:`spend_action`)."""
    return new_round()


def spend_action(state: Mapping | None, action: str) -> dict:
    """Spend one of the round's actions; RuleError when it is already spent.

    Section "ACTION ECONOMY". Reading: the document gives no trading of a
    significant action for a second move or quick action, so none is
    allowed.
    """
    if action not in ACTIONS:
        raise RuleError(say("an action is one of {actions}, not {value}", actions=", ".join(ACTIONS), value=repr(action)))
    out = round_state(state)
    if out[action]:
        raise RuleError(_ALREADY_SPENT[action])
    out[action] = True
    return out


def pending_check(state: Mapping | None, action: str) -> dict | None:
    """A GRIT x 1 success already rolled for this kind of action and not used yet, or None.

    Section "INCAPACITATION": a new roll for each action attempted, so a
    check serves the one action it was rolled for.
    """
    check = (state or {}).get("act_check") or {}
    if check.get("may_act") and not check.get("used") and check.get("for") == action:
        return dict(check)
    return None
