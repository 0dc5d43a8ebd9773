"""Turn order and surprise (*3d6 Combat*, "Turn Order").
"""

from __future__ import annotations

from collections import defaultdict

from ..dice import DiceSource
from ..system import Combatant, Modifier, RuleError
from .checks import Check, check, contest_key
from .data import S_TURN
from .sheet import has_trait, int_of, num_of, skill_level


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
    sides: dict[str, list[Combatant]] = defaultdict(list)
    for c in combatants:
        sides[c.side or c.id].append(c)
    rolls = {}
    for side, members in sides.items():
        leaders = [c for c in members if c.state.get("leader") or c.sheet.get("leader")]
        pool = leaders or members
        roller = max(pool, key=lambda c: (initiative_skill(c.sheet)[0], c.name))
        level, label = initiative_skill(roller.sheet)
        mods = []
        if not leaders:
            mods.append(Modifier("leaderless side", -2, S_TURN))
        surprised = all(c.state.get("surprise") in ("total", "partial") for c in members)
        chk = check(dice, f"turn order: {side} ({roller.name})", level, mods, label)
        rolls[side] = (surprised, chk, roller)
    order = sorted(sorted(rolls), key=lambda s: (0 if rolls[s][0] else 1, contest_key(rolls[s][1]),
                                                 rolls[s][1].effective), reverse=True)
    out = []
    for rank, side in enumerate(order):
        surprised, chk, roller = rolls[side]
        members = sorted(sides[side], key=lambda c: (-num_of(c.sheet.get("basic_speed"), 5),
                                                       -int_of(c.sheet.get("DX"), 10), c.name))
        for c in members:
            out.append({
                "id": c.id, "name": c.name, "side": side, "side_rank": rank, "order": len(out),
                "leader": roller.id, "roll": chk.roll.to_dict() if chk.roll else None,
                "check": chk.to_dict(), "surprised": bool(surprised),
                "surprise": surprise_level(c.sheet, c.state["surprise"]) if c.state.get("surprise") else None,
            })
    return out


def surprise(sheet: dict, kind: str, dice: DiceSource) -> dict:
    """Start of a surprise ("Turn Order"): Total Surprise stuns for 1d seconds before IQ rolls may end it."""
    if kind not in ("total", "partial"):
        raise RuleError("surprise is 'total' or 'partial'")
    level = surprise_level(sheet, kind)
    rolls = []
    seconds = 0
    if level == "total":
        rec = dice.roll("1d6", "total surprise: seconds of mental stun")
        rolls.append(rec)
        seconds = rec.total
    return {"level": level, "stunned": True, "stun_seconds": seconds, "rolls": rolls,
            "modifiers": [Modifier("Combat Reflexes: partial, not total", 0, S_TURN)] if level != kind else []}


def surprise_recovery(sheet: dict, attempt: int, dice: DiceSource) -> Check:
    """IQ roll to shake off surprise stun ("Turn Order"); each later second is 1 easier (attempt 0, 1, ...)."""
    mods = [Modifier("seconds since stun ended", attempt, S_TURN)] if attempt else []
    return check(dice, "recover from surprise (IQ)", int_of(sheet.get("IQ"), 10), mods, "IQ")
