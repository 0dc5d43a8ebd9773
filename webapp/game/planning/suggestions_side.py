"""The foes as a side (#67): what the attacks of a foe's allies that come before its own this round will have done,
so that two foes spread over their targets when that helps, and only then.

A foe's plans asked off its turn are those of its turn were it to begin now; the allies whose turns come before it
(from the one acting now, in the fight's order, up to it; to the round's end when its own turn is in the next
round) act first. Each such ally's best plan (its own plans, reckoned as the GM's card would show them, without
this weighing: one level, no more) says whom it attacks and the rules' exact chance it puts that target down
(``down``, where the system gives it). A target put down before the foe's attack takes nothing from it: the foe's
attack at a target the allies before it may put down is worth its own expected effect and chance to finish times the
chance the target still stands (the allies' chances taken as independent), and the why line says so ("Orc may put
Ann down first: 72%"). What the allies' attacks take from a target that stays up is not counted, nor what allies
after it will do. On its own turn every ally before it has acted already: the game's state says what they did.
At most ``MOST_ALLIES`` allies are weighed, the first to act. Not weighed: phase/TN shots declared already and not yet
due, at a foe's own time to declare.

A move into an ally's line of fire is worth no less, in any system: the rules' line of fire and cover
(``rules.los``) read walls, doors, blocking squares and cover pieces, never tokens, and none of the five rule
documents makes a body in the way block a shot or give cover (the 3d6 system, Savage Worlds, Tesseris, phase/TN; on
Atomic Tomorrow's zone maps the cover is the zone's). What two of them say of a fighter beside an ally's target is
not weighed yet: Tesseris' "Firing into Melee" (-2, and a miss the -2 caused strikes another in the melee) and
Savage Worlds' "Random Targets" (a missed shot's 1s hit a token beside the target).

Pure: no I/O; the caller (``suggestions.reckon``) gives the reckoning of an ally's plans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rules.text import say

from ..bridge.fighting import stands

if TYPE_CHECKING:
    from ..core.model import Game, Token

MOST_ALLIES = 3  #: allies acting before the foe whose plans are weighed (each is one more reckoning)


def allies_before(game: "Game", token: "Token") -> list["Token"]:
    """The foe's allies (its side, still standing) whose turns come before its own, from the one acting now, first
    to act first; none on its own turn or outside the fight's order."""
    combat = game.combat or {}
    order, current = list(combat.get("order") or []), combat.get("current")
    if current == token.id or current not in order or token.id not in order:
        return []
    i, j = order.index(current), order.index(token.id)
    ids = order[i:j] if i < j else order[i:]
    out = [t for k in ids if (t := game.tokens.get(k)) is not None and t.id != token.id and t.kind == token.kind
           and stands(game, t)]
    return out[:MOST_ALLIES]


def claims(game: "Game", token: "Token", reckon: Callable, refused: tuple) -> dict[str, tuple[float, list]]:
    """Target id -> (the chance the allies before the foe put it down first, their names), from each ally's best
    plan (``reckon(game, ally_id, side=False)``, its first plan; none where it raises one of ``refused``) when it is
    an attack whose ``down`` the system gives."""
    standing: dict[str, tuple[float, list]] = {}
    for ally in allies_before(game, token):
        try:
            plan = (reckon(game, ally.id, side=False).get("plans") or [None])[0]
        except refused:
            continue
        if not plan or plan.get("kind") != "attack" or not isinstance(plan.get("down"), (int, float)):
            continue
        still, names = standing.get(plan["target"], (1.0, []))
        standing[plan["target"]] = (still * (1.0 - float(plan["down"])), [*names, ally.name])
    return {t: (1.0 - still, names) for t, (still, names) in standing.items() if still < 1.0}


def weigh(found: list[dict], taken: dict[str, tuple[float, list]], foes: list["Token"]) -> None:
    """Each attack plan at a target the allies before may put down first: its score times the chance the target
    still stands, and the why says it (from 1%). Its ``effect`` and ``down`` stay the attack's own (the preview's)."""
    names = {f.id: f.name for f in foes}
    for p in found:
        if p.get("kind") != "attack" or p.get("target") not in taken:
            continue
        chance, allies = taken[p["target"]]
        p["_score"] = float(p.get("_score", p["effect"])) * (1.0 - chance)
        if chance >= 0.005:
            p["why"] = [*p["why"], say("{allies} may put {target} down first: {percent}", allies=", ".join(allies),
                                       target=names.get(p["target"], p["target"]), percent=f"{chance:.0%}")]
