"""What a Tesseris token shows on every screen (*Tesseris Combat*, "Stamina", "Wounds",
"Ticks", "Status Effects", "Attack Actions", "Defensive Actions", "Movement Actions",
"Weapon Jams", "Cover").

``state`` is the combatant's own fight state (``state["combatants"][id]``, what the app
puts in ``Combatant.state``); a whole fight state is not read.
"""

from __future__ import annotations

from ..text import say, say_n
from .data import STATUS_WORDS
from .health import is_dead
from .sheet import current_max_stamina, num, stamina, weapon_list
from .ticks import ticks_per_round

#: stances as the table calls them
STANCE_LABELS = {
    "all_out": say("All-Out Attack"),
    "guarded": say("Guarded"),
    "sprint": say("Sprinting"),
    "ran": say("Ran"),
    "total_defense": say("Total Defense"),
    "overwatch": say("Overwatch"),
    "hunkered": say("Hunkered down"),
    "covered_by_fire": say("Covering fire"),
}


def _b(label: str, kind: str) -> dict:
    return {"label": label, "kind": kind}


def badges(sheet: dict, state: dict | None = None) -> list[dict]:
    """Wounds and Stamina; Dead, Dying and each status effect (with the rounds it has left);
    in a fight the ticks left (borrowed ones shown as such), what is left of a paid move,
    prone, in cover, surprised, stances, Aim and a jammed weapon."""
    out: list[dict] = []
    wounds = num(sheet.get("wounds"))
    if is_dead(sheet):
        out.append(_b(say("Dead"), "condition"))
    if wounds:
        out.append(_b(say_n("{n} wound", "{n} wounds", wounds), "wound"))
    out.append(_b(say("Stamina {current}/{most}", current=stamina(sheet), most=current_max_stamina(sheet)), "resource"))
    if sheet.get("dying"):
        out.append(_b(say("Dying"), "condition"))
    for s in sheet.get("statuses") or []:
        name = s.get("name") if isinstance(s, dict) else str(s)
        rounds = s.get("rounds") if isinstance(s, dict) else None
        if name:
            words = STATUS_WORDS.get(name, str(name))
            out.append(_b(say("{status} ({rounds} rd)", status=words, rounds=rounds)
                          if isinstance(rounds, int) and rounds > 0 else words, "condition"))
    if not state:
        return out
    if "ticks" in state:
        ticks = num(state.get("ticks"), ticks_per_round(sheet))
        if ticks < 0:
            out.append(_b(say_n("{n} tick borrowed", "{n} ticks borrowed", -ticks), "resource"))
        else:
            out.append(_b(say_n("{n} tick", "{n} ticks", ticks), "resource"))
    if state.get("free_reaction") is False and not state.get("surprised"):
        out.append(_b(say("Reaction used"), "resource"))
    if num(state.get("move_left")):
        left = num(state["move_left"])
        out.append(_b((say_n("{n} hex to move", "{n} hexes to move", 1 if left == 1 else 2, n=left)
                       if state.get("move_hexes") else  # paid for on a hex map (#58)
                       say("{squares} sq. to move", squares=left)), "resource"))
    if state.get("surprised"):
        out.append(_b(say("Surprised"), "condition"))
    if state.get("prone"):
        out.append(_b(say("Prone"), "condition"))
    if state.get("in_cover"):
        out.append(_b(say("In cover"), "condition"))
    for st in state.get("stances") or []:
        out.append(_b(STANCE_LABELS.get(st, str(st).replace("_", " ").title()), "condition"))
    if num(state.get("aim")):
        out.append(_b(say("Aim +{aim}", aim=num(state["aim"])), "condition"))
    names = {w["key"]: w["label"] for w in weapon_list(sheet)}
    for key in state.get("jammed") or []:
        out.append(_b(say("{weapon} jammed", weapon=names.get(key, key)), "condition"))
    return out
