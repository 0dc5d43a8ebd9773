"""What a foe's plans weigh in *Atomic Tomorrow Combat* (#60): an attack's expected wounds with the target
defending as well as it can, the ways a turn moves then attacks on the zone map, and whether a character is hurt.

The GM's suggestions (``webapp/game/suggestions.py``, on a zone map ``webapp/game/suggestions_zones.py``) rank a
foe's plans by these; the odds are the rules' own (:func:`rules.atomic_tomorrow.odds.attack_odds`), nothing is
estimated here.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache

from ..copying import copied
from ..system import AttackRequest, Combatant, RuleError
from ..text import say
from .attack import attack_skill, prepare
from .economy import new_round
from .data import DEFENSE_WORDS, MAX_WOUNDS
from .defense import defense_skill
from .health import wounds_of
from .odds import attack_odds, request_odds
from .options import zone_targets
from .sheet import with_defaults

#: the defenses a target may make ("DEFENSE OPTION"), the one it makes picked by its skill
DEFENSES = ("parry", "block", "dodge")


@lru_cache(maxsize=1024)
def _odds(skill: int, wound_rating: int, cover: str, defense_skill_value: int | None, armour: str,
          armour_piercing: int, grit: int, critical_ignores_armour: bool, critical_special_stacks: bool
          ) -> tuple[float, tuple]:
    """The expected wounds of :func:`attack_odds` (a pure function of these) and its distribution of wounds taken:
    kept, as a foe's plans ask the same attack from several zones."""
    found = attack_odds(skill, wound_rating, cover=cover, defense_skill_value=defense_skill_value, armour=armour,
                        armour_piercing=armour_piercing, grit=grit, critical_ignores_armour=critical_ignores_armour,
                        critical_special_stacks=critical_special_stacks)
    return found["expected_wounds"], tuple(sorted(found["wounds"].items()))


def _expected(request: AttackRequest) -> tuple[float, dict]:
    """The expected wounds the attack deals as ``request`` has it (its defense in its options), and the chance of
    each number of wounds taken: "WOUND DETERMINATION" to "DAMAGE SOAKING", through the odds' own enumeration."""
    prep = prepare(request)
    if prep["wound_state"] != "fighting":  # a GRIT x 1 check or the Last Stand's penalty: the odds fold them in
        found = request_odds(request, prep)
        return float(found["expected_wounds"]), dict(found["wounds"])
    skill, _ = attack_skill(prep, 0)
    settings = prep["settings"]
    mean, wounds = _odds(skill, prep["weapon"]["wound_rating"], prep["cover"], prep["defense_skill"],
                         str(prep["target"].get("armour", "none")), prep["weapon"]["armour_piercing"],
                         int(prep["target"]["grit"]), bool(settings["critical_ignores_armour"]),
                         bool(settings["critical_special_stacks"]))
    return mean, dict(wounds)


def _down(sheet: dict, wounds: dict) -> float:
    """The chance wounds taken as ``wounds`` put a target with ``sheet``'s wounds out of the fight: at 4 wounds it is
    incapacitated, at 5 dying ("WOUND EFFECTS", "INCAPACITATION": the turn order's out of the fight,
    ``turns.out_of_fight``)."""
    had = wounds_of(with_defaults(sheet))
    return sum(float(p) for w, p in wounds.items() if had + int(w) >= MAX_WOUNDS - 1 > had)


def _best_defense(request: AttackRequest, prep: dict) -> tuple[str, int | None]:
    """The defense the target makes against this attack ("DEFENSE OPTION", "DEFENSE LIMITATIONS"): of those the
    rules allow it here (Parry only against melee, Block with a shield, Dodge at -20% against melee, -20% for each
    defense after the first this round), the one at the highest skill; ``("none", None)`` when none is allowed.
    ``prep``: the attack's ``prepare``."""
    best: tuple[str, int | None] = ("none", None)
    kind = "melee" if prep["weapon"]["skill"] in ("melee", "unarmed") else "ranged"
    target = with_defaults(request.target.sheet)
    for key in DEFENSES:
        try:
            skill, _mods, _round = defense_skill(target, key, kind, request.target.state.get("round"))
        except RuleError:
            continue
        if best[1] is None or skill > best[1]:
            best = (key, skill)
    return best


def attack_effect(request: AttackRequest, odds: dict) -> dict:
    """The expected wounds the attack deals ("WOUND DETERMINATION", "COVER PROTECTION", "ARMOR PROTECTION",
    "DAMAGE SOAKING"), the target defending with its best defense ("DEFENSE OPTION": it may defend once the
    attack succeeds, and its player picks; a target that cannot defend takes the hit). ``odds`` (the chance to
    hit as the attack card shows it, before the defense is picked) is the caller's; the effect is the
    rules' enumeration with the defense made. An area weapon hits everyone in the target's zone (core facts),
    the others taking no defense: their expected wounds count too, those of the attacker's own side against it.
    The defense: which one and at what skill, or none. ``down`` (#67): the chance the target is out of the fight
    after it (its wounds reach 4, incapacitated: the odds' distribution of wounds taken, the defense made), and
    ``down_worth``, what that is worth in wounds: the 4 that incapacitate a fresh character."""
    prep = prepare(request)  # (once: the weapon read for the defense and for the blast)
    defense, skill = _best_defense(request, prep)
    defended = dataclasses.replace(request, options={**(request.options or {}), "defense": defense})
    effect, wounds = _expected(defended)
    down = _down(request.target.sheet or {}, wounds)
    words = (say("{defense} at {skill}%", defense=DEFENSE_WORDS[defense], skill=skill) if skill is not None
             else say("no defense"))
    if prep["weapon"]["area"]:  # the blast fills the zone: each other token in it, undefended
        caught = zone_targets(request)[1:]
        for other in caught:
            worth = _expected(dataclasses.replace(request, target=other,
                                                  options={**(request.options or {}), "defense": "none"}))[0]
            effect += -worth if other.side == request.attacker.side else worth
        if any(o.side == request.attacker.side for o in caught):
            words = say("{defense}; the blast catches its own side too", defense=words)
    return {"effect": effect, "unit": say("wounds (after soak)"), "defense": words, "down": down,
            "down_worth": float(MAX_WOUNDS - 1)}


def plan_turns(state: dict, mover: Combatant, settings: dict | None = None) -> list[dict]:
    """The ways a foe's turn may go on the zone map ("ACTION ECONOMY": one move, to the same or an adjacent zone,
    and one significant action): the move then a shot or a blow (the attack is the significant action; the
    situational bonus and penalty and the GM's range band are the GM's call, not the planner's), and a move
    alone (taking cover, withdrawing)."""
    return [
        {"action": None, "action_options": {}, "attack": True, "options": {}, "melee": None,
         "label": say("Attack")},
        {"action": None, "action_options": {}, "attack": False, "options": {}, "melee": None, "label": say("Move")},
    ]


def turn_begun(state: dict, mover: Combatant, settings: dict | None = None) -> dict:
    """The fight's state (a copy) as if ``mover``'s turn began now, for its plans asked off its turn
    ("INITIATIVE AND TURN SEQUENCE", "ACTION ECONOMY"): the current fighter, at its place in the order; its turn
    this round over (at or before the one acting now), its next turn is in a new round: its round's actions and
    defenses afresh. A GRIT check passed for one action lapses with the turn it was rolled in. No dice rolled (the
    GRIT or Last Stand roll a wounded character makes to act is not made): it plans as it stands."""
    state = copied(dict(state))
    order = list(state.get("order") or [])
    per = state.setdefault("combatants", {}).setdefault(mover.id, {})
    if mover.id in order:
        if order.index(mover.id) <= int(state.get("index", 0) or 0):
            per["round"] = new_round()
        state["index"] = order.index(mover.id)
    per["act_check"] = None
    state["current"] = mover.id
    return state


def wounded(sheet: dict) -> bool:
    """Hurt: a wound or more ("WOUND EFFECTS")."""
    try:
        return wounds_of(with_defaults(sheet)) > 0
    except (RuleError, ValueError, TypeError):
        return False
