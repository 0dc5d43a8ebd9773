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

A move into an ally's line of fire (#67): the rules' line of fire and cover (``rules.los``) read walls, doors,
blocking squares and cover pieces, never tokens, and none of the five rule documents makes a body in the way block a
shot or give cover. What two of them say of a fighter beside an ally's target is weighed (:func:`in_the_way`): each
ally with a ranged weapon (its side, standing, in the fight; the first ``MOST_ALLIES``) shoots, this round or its
next, the hero its best plan shoots from its plan's square (an ally acting before it, its plan reckoned as above),
else the hero its best ranged attack from where it stands is worth the most against (the rules' exact odds and the
system's ``attack_effect``); a plan that ends beside that hero is worth what the system's ``in_the_way`` says the ally
loses there, in the plan's own unit: Tesseris' "Firing into Melee" (the drop in the shot's expected Wounds from the
-2, and the chance the miss it causes strays to this foe times what a hit of the ally's does to it), Savage Worlds'
"Random Targets" (the exact chance a missed shot's 1s hit this foe, times its damage's expected wounds). The why line
says it ("in Gob's line of fire: -2 to its shot", "Gob's miss may hit it"). The 3d6 system, phase/TN and Atomic
Tomorrow have no such rule: nothing is weighed there. Not weighed: a shot of RoF over 1 in Savage Worlds, large
tokens' own squares (a plan's square is its corner).

Pure: no I/O; the caller (``suggestions.reckon``) gives the reckoning of an ally's plans.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from rules.system import RuleError, RuleNotImplemented
from rules.text import say

from ..bridge import heavy
from ..bridge.fighting import combatant, stands
from ..core.model import GM, Rejected
from ..fight.aiming import AttackCommand, plan as aim_plan
from .foe_sandbox import is_melee, sandbox, weapons_of, weighed

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


def claims(game: "Game", token: "Token", reckon: Callable, refused: tuple,
           seen: dict | None = None) -> dict[str, tuple[float, list]]:
    """Target id -> (the chance the allies before the foe put it down first, their names), from each ally's best
    plan (``reckon(game, ally_id, side=False)``, its first plan; none where it raises one of ``refused``) when it is
    an attack whose ``down`` the system gives. ``seen``: ally id -> its best plan (or None), filled."""
    standing: dict[str, tuple[float, list]] = {}
    for ally in allies_before(game, token):
        try:
            plan = (reckon(game, ally.id, side=False).get("plans") or [None])[0]
        except refused:
            continue
        if seen is not None:
            seen[ally.id] = plan
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


def shooters(game: "Game", token: "Token", foes: list["Token"], system, seen: dict | None = None) -> list[tuple]:
    """The foe's allies that shoot (its side, standing, in the fight, the first ``MOST_ALLIES`` with a ranged weapon):
    ``(ally, hero, weapon key, its square)``: an ally whose best plan was reckoned (``seen``, by :func:`claims`), the
    hero and weapon of that plan, from its square, when it is a ranged attack (else it shoots no one); any other, the
    hero its best ranged attack from where it stands is worth the most against (the rules' odds, the system's
    ``attack_effect``). None where the system has no ``in_the_way``."""
    if getattr(getattr(system, "planner", None), "in_the_way", None) is None:
        return []
    out: list[tuple] = []
    for i in (game.combat or {}).get("order") or []:
        ally = game.tokens.get(i)
        if ally is None or ally.id == token.id or ally.kind != token.kind or not stands(game, ally):
            continue
        best, ranged = None, {w["key"] for w in weapons_of(system, combatant(game, ally).sheet) if is_melee(w) is False}
        if seen is not None and ally.id in seen:
            plan = seen[ally.id]
            if plan and plan.get("kind") == "attack" and plan.get("weapon") in ranged and plan.get("target") in {
                    h.id for h in foes} and isinstance(plan.get("to"), list):
                out.append((ally, next(h for h in foes if h.id == plan["target"]), plan["weapon"], tuple(plan["to"])))
        for weapon in weapons_of(system, combatant(game, ally).sheet) if seen is None or ally.id not in seen else []:
            if weapon["key"] not in ranged:
                continue
            for hero in foes:
                heavy.breathe()  # an attack judged by the rules' odds: the loop's thread may go first (#72)
                found = weighed(game, AttackCommand(attacker=ally.id, target=hero.id, weapon=weapon["key"]), system)
                if found is not None and (best is None or float(found[2]["effect"]) > best[0]):
                    best = (float(found[2]["effect"]), hero, weapon["key"])
        if best is not None:
            out.append((ally, best[1], best[2], (ally.x, ally.y)))
        if len(out) == MOST_ALLIES:
            break
    return out


def in_the_way(game: "Game", token: "Token", found: list[dict], foes: list["Token"], system,
               seen: dict | None = None) -> None:
    """Each plan that ends beside a hero an ally shoots at (:func:`shooters`): its score less what the system's
    ``in_the_way`` says the ally loses for it standing there, and the why says it. Squares only (not zones). The
    shooters are looked for only when a plan ends beside a hero (the allies' odds cost the most of it, #68)."""
    grid = game.board.grid
    heroes = [(h.x, h.y) for h in foes]
    if not any(isinstance(p.get("to"), list) and any(tuple(p["to"]) != h and grid.steps(tuple(p["to"]), h) <= 1
                                                     for h in heroes) for p in found):
        return  # no plan ends beside a hero: none is in an ally's way
    fire = shooters(game, token, foes, system, seen)
    if not fire:
        return
    hook, costs = system.planner.in_the_way, {}
    for p in found:
        if not isinstance(p.get("to"), list):
            continue
        cell = tuple(p["to"])
        loss, words = 0.0, []
        for ally, hero, weapon, at in fire:
            if cell in ((hero.x, hero.y), at) or grid.steps(cell, (hero.x, hero.y)) > 1:
                continue
            if (cell, ally.id) not in costs:
                heavy.breathe()
                costs[(cell, ally.id)] = _cost(game, token, cell, (ally, at), hero, weapon, hook)
            more, said = costs[(cell, ally.id)]
            loss, words = loss + more, words + said
        if loss > 0:
            p["_score"] = float(p.get("_score", p["effect"])) - loss
            p["why"] = [*p["why"], *words]


def _cost(game: "Game", token: "Token", cell: tuple, shooter: tuple, hero: "Token", weapon: str, hook) -> tuple:
    """What the ally (``shooter``: it and the square it shoots from) loses with the foe on ``cell`` (the system's
    ``in_the_way`` on the requests the rules would be asked there: its shot at the hero, and at the foe); nothing
    where the table refuses the shot."""
    ally, at = shooter
    view = sandbox(game)
    me = view.tokens[token.id]
    me.x, me.y = cell
    view.tokens[ally.id].x, view.tokens[ally.id].y = at
    try:
        shot = aim_plan(view, AttackCommand(attacker=ally.id, target=hero.id, weapon=weapon), GM)["request"]
    except (Rejected, RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        return 0.0, []
    try:
        at_me = aim_plan(view, AttackCommand(attacker=ally.id, target=token.id, weapon=weapon), GM)["request"]
    except (Rejected, RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        at_me = None
    try:
        return hook(shot, at_me, token.id, ally.name)
    except (RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        return 0.0, []
