"""A combatant's ticks: the budget of a round, paying for actions and reactions,
the free Reaction, borrowing from the next round (*Tesseris Combat*, "Ticks",
"Action Types", "Overspending or Borrowing Ticks").

A combatant's per-combat state is a plain dict the app stores
(``state["combatants"][id]``, handed back as ``Combatant.state``); every
function returns a new dict.
"""

from __future__ import annotations

from ..system import Combatant, RuleError
from ..text import say
from .data import ACTIONS, BASE_TICKS, FREE_REACTIONS, WHILE_GRAPPLED, WHILE_PINNED, Action
from .sheet import num

#: stances that last "until the start of the character's next turn"
TURN_STANCES = ("all_out", "guarded", "sprint", "ran", "total_defense", "overwatch")
#: what may be paid for with borrowed ticks ("Overspending or Borrowing Ticks")
BORROWABLE_CATEGORIES = ("defense",)
BORROWABLE_ACTIONS = ("reload", "clear_jam", "take_cover", "drop_prone")
#: "Quick Step": "May not also move, run, or sprint in the same turn"
QUICK_STEP_EXCLUDES = ("move", "run", "sprint")


def ticks_per_round(sheet: dict) -> int:
    """5 ticks a round plus bonuses ("Ticks")."""
    return BASE_TICKS + num(sheet.get("tick_bonus"))


def fresh_state(sheet: dict) -> dict:
    """The state of a combatant at the start of a combat ("Ticks")."""
    return {
        "ticks": ticks_per_round(sheet),
        "free_reaction": FREE_REACTIONS > 0,
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


def reaction_cost(action: Action, state: dict, settings: dict | None = None) -> tuple[int, bool]:
    """Ticks a reaction costs and whether it uses the free Reaction ("Ticks": one free
    Reaction that takes no ticks). Reading: the free Reaction pays one tick of one reaction."""
    ticks = action.reaction_ticks
    if action.key == "take_cover":
        ticks = num((settings or {}).get("take_cover_reaction_ticks"), ticks)
    if ticks is None:
        raise RuleError(say("{action} cannot be taken as a reaction", action=action.name))
    if state.get("free_reaction") and ticks >= 1 and not state.get("surprised"):
        return ticks - 1, True
    return ticks, False


def refusal(state: dict, action_key: str, reaction: bool = False, statuses: list | None = None) -> str | None:
    """Why the rules forbid this action now, or None when they allow it (the tick cost
    aside). Sections of *Tesseris Combat*: "Combat Order" 1 (the surprised only react),
    "Physical Status Effects" (Unconscious, Pinned, Grappled), "Defensive Actions"
    (Total Defense: "may not take any attack actions this turn", only before an attack,
    not hunkered down; Hunker Down needs cover), "Ranged Attack Actions" (an Overwatch
    attack needs the Overwatch stance, one free and a second for a Reaction),
    "Movement Actions" (Run: no attacks until the next turn; Quick Step: once a turn,
    not with a Move, Run or Sprint), "Miscellaneous Actions" (Aim once a round).
    """
    action = ACTIONS.get(action_key)
    if action is None:
        return say("unknown action {value}", value=repr(action_key))
    s = state_of(state)
    have = {x["name"] if isinstance(x, dict) else str(x) for x in (statuses or [])}
    stances = s["stances"]
    if "Unconscious" in have:
        return say("an unconscious character takes no actions")
    if "Pinned" in have and action_key not in WHILE_PINNED:
        return say("a pinned character may only Break Pin or use Grapple Defense")
    if "Grappled" in have and action_key not in WHILE_GRAPPLED:
        return say("a grappled character may only take grappling actions")
    if s.get("surprised") and not reaction:
        return say("a surprised character may only take reactions this round")
    if reaction and (action.reaction_ticks is None):
        return say("{action} cannot be taken as a reaction", action=action.name)
    if not reaction and action.ticks is None:
        return say("{action} is only taken as a reaction", action=action.name)
    if action.is_attack and not reaction:
        if "total_defense" in stances:
            return say("no attack actions in a turn with Total Defense")
        if "ran" in stances:
            return say("no attack actions after a Run until the start of the next turn")
    if action.extra.get("needs_stance") and action.extra["needs_stance"] not in stances:
        return say("{action} needs the Overwatch stance (Overwatch, 4 ticks)", action=action.name)
    if action_key == "overwatch_attack" and num(s.get("overwatch_attacks")) >= action.extra["most"]:
        return say("one free Overwatch attack and a second for a Reaction; no third")
    if action.extra.get("once_per_round") and s.get("aimed_this_round"):
        return say("{action} may only be taken once per round", action=action.name)
    if action.extra.get("once_per_turn") and s.get("quick_step"):
        return say("{action} may only be taken once per turn", action=action.name)
    if action_key == "quick_step" and s.get("moved"):
        return say("no Quick Step in a turn with a Move, Run or Sprint")
    if action_key in QUICK_STEP_EXCLUDES and s.get("quick_step"):
        return say("no {action} in a turn with a Quick Step", action=action.name)
    if action_key == "hunker_down" and not s.get("in_cover"):
        return say("Hunker Down needs the character to be in cover")
    if action_key == "total_defense":
        if num(s["attacks"]) > 0:
            return say("Total Defense is only possible before any attack action this turn")
        if "hunkered" in stances:
            return say("Total Defense cannot be used while hunkered down")
    return None


def cost(state: dict, action_key: str, reaction: bool = False, settings: dict | None = None) -> tuple[int, bool]:
    """Ticks an action costs now and whether the free Reaction pays for it ("Ticks",
    "Action Types"; an Overwatch attack: the first free, the second a Reaction)."""
    action = ACTIONS[action_key]
    s = state_of(state)
    if action_key == "overwatch_attack":
        if num(s.get("overwatch_attacks")) < action.extra["free"]:
            return 0, False
        if s.get("free_reaction") and not s.get("surprised"):
            return 0, True
        return 1, False
    if reaction:
        return reaction_cost(action, s, settings)
    return action.ticks or 0, False


def spend(
    state: dict,
    action_key: str,
    reaction: bool = False,
    settings: dict | None = None,
    gm_allows_borrowing: bool = False,
    extra_ticks: int = 0,
    statuses: list | None = None,
) -> dict:
    """The state after taking an action: its ticks paid ("Ticks", "Action Types",
    "Overspending or Borrowing Ticks", "Combat Order" 1 for the surprised).

    Without enough ticks, defensive reactions, reloading and clearing a jam
    borrow from the next round (ticks go below zero); anything else is
    refused unless the GM allows it. A surprised character may only react,
    with 3 ticks at most. What the rules forbid now (``refusal``) is refused.
    """
    action = ACTIONS.get(action_key)
    if action is None:
        raise RuleError(say("unknown action {value}", value=repr(action_key)))
    s = state_of(state)
    reason = refusal(s, action_key, reaction, statuses)
    if reason:
        raise RuleError(reason)
    paid, free = cost(s, action_key, reaction, settings)
    paid += extra_ticks
    borrow = paid > max(0, num(s["ticks"]))
    if borrow:
        if s.get("surprised"):
            raise RuleError(say("a surprised character has no more ticks for reactions this round"))
        allowed = action.category in BORROWABLE_CATEGORIES or action_key in BORROWABLE_ACTIONS or gm_allows_borrowing
        if not allowed:
            raise RuleError(say("{action} needs {paid} ticks and {left} are left; the GM may allow borrowing", action=action.name,
                                    paid=paid, left=max(0, num(s["ticks"]))))
    out = {**s, "ticks": num(s["ticks"]) - paid, "last_action": action_key, "last_cost": paid}
    if free:
        out["free_reaction"] = False
    if action.is_attack:
        out["attacks"] = num(s["attacks"]) + 1
    if action.stance and action.stance not in out["stances"]:
        out["stances"] = [*out["stances"], action.stance]
    if action_key == "guarded_attack":
        out["guarded_round"] = True
    if action_key == "overwatch":
        out["overwatch_attacks"] = 0
    if action_key == "overwatch_attack":
        out["overwatch_attacks"] = num(s.get("overwatch_attacks")) + 1
    if action_key == "aim":
        out["aimed_this_round"] = True
        out["aim"] = num(s.get("aim")) + 1
    if action_key == "quick_step":
        out["quick_step"] = True
    if action_key in QUICK_STEP_EXCLUDES:
        out["moved"] = True
    if action_key in ("drop_prone", "dive_for_cover"):
        out["prone"] = True
    if action_key == "stand_up":
        out["prone"] = False
        out["stances"] = [x for x in out["stances"] if x != "hunkered"]
    return out


def can_react(state: dict, ticks: int = 1) -> bool:
    """Whether a combatant can pay a reaction of ``ticks`` without borrowing ("Ticks")."""
    s = state_of(state)
    need = ticks
    if s.get("free_reaction") and not s.get("surprised") and ticks >= 1:
        need -= 1
    return num(s["ticks"]) >= need
