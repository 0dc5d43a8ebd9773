"""What a foe's plans weigh in Savage Worlds (#60): an attack's expected wounds (Shaken counted as half a
wound), the ways a turn moves then attacks, and whether a character is hurt.

The GM's suggestions (``webapp/game/suggestions.py``) rank a foe's plans by these; the odds are the rules'
own (:func:`rules.savage_worlds.odds.odds`), nothing is estimated here.
"""

from __future__ import annotations

from ..copying import copied
from ..system import AttackRequest, Combatant
from .. import odds as _dice
from .attack import effective_toughness, gang_up_bonus, no_attack, plan_of, target_toughness
from .checks import parse_die
from .health import TargetState, active
from .movement import adjacent
from ..text import say
from .data import MAX_WOUNDS, STAND_COST, merged_settings
from .sheet import derived_values
from .odds import BROKEN, SHAKEN, _damage, _incapacitated, _wound_label
from .turns import _TURN_FRESH, _fresh_state

#: what a Shaken-only outcome is worth beside a Wound: it costs the target its next action or a Benny,
#: not a wound (Savage Worlds core facts, "Damage Resolution")
SHAKEN_WORTH = 0.5


def attack_effect(request: AttackRequest, odds: dict) -> dict:
    """The expected wounds of the attack ("Damage Resolution"), from the odds' outcomes: each wound
    counts 1; Incapacitated counts the wounds it takes past what the target has left (an Extra: 1);
    Shaken alone counts half; an object broken counts 1. The defense: the target number of the roll
    (Parry in melee, 4 at range), with its modifiers in the odds; ``notes``: Gang Up's bonus when it helps
    ("Melee Attacks", Gang Up: +1 for each other foe beside the target, less its allies beside it); ``down``: the
    chance the target is Incapacitated by it, and ``down_worth``, what that is worth in the same wounds."""
    sheet = request.target.sheet or {}
    wild = bool(sheet.get("wild_card", True))
    room = max(0, MAX_WOUNDS - int(sheet.get("wounds", 0) or 0)) if wild else 0
    worth = {str(SHAKEN): SHAKEN_WORTH, str(BROKEN): 1.0,
             str(_incapacitated(False)): room + 1.0, str(_incapacitated(True)): room + 1.0}
    worth.update({str(_wound_label(n)): float(n) for n in range(1, MAX_WOUNDS + 1)})
    effect = sum(float(o.get("p") or 0.0) * worth.get(str(o.get("label")), 0.0) for o in odds.get("outcomes") or [])
    tn = odds.get("tn")
    defense = say("TN {tn}", tn=tn) if isinstance(tn, int) else ""
    gang = sum(int(m.get("value") or 0) for m in odds.get("modifiers") or [] if _gang_up(m.get("label")))
    notes = [say("Gang Up +{n}", n=gang)] if gang > 0 else []
    # the chance it goes down ("Incapacitation"): the odds' Incapacitated outcomes, exact (#67); a foe put down is
    # worth the wounds that put a fresh Wild Card down (its last Wound and one more)
    down_labels = {str(_incapacitated(False)), str(_incapacitated(True))}
    down = sum(float(o.get("p") or 0.0) for o in odds.get("outcomes") or [] if str(o.get("label")) in down_labels)
    return {"effect": effect, "unit": say("wounds (Shaken counts half)"), "defense": defense, "notes": notes,
            "down": down, "down_worth": float(MAX_WOUNDS + 1)}


def side_notes(cell, me: dict, allies: list[dict], enemies: list[dict], adjacent, settings: dict | None = None
               ) -> tuple[int, list]:
    """What the foe standing on ``cell`` gives its side (#67: the foes as a side): Gang Up ("Melee Attacks": +1 for
    each other foe beside the defender, at most +4, less the defender's allies beside it) for each ally beside an
    enemy it would stand beside, on that ally's attacks at that enemy. ``me``, ``allies`` and ``enemies``: ``name``,
    ``at`` (its square) and ``sheet``; ``adjacent(a, b)``: two squares touch. The points of Gang Up it adds in all,
    and the words ("Gang Up +1 with the Gob against Ann")."""
    if (me.get("sheet") or {}).get("stunned"):  # "each adjacent enemy (not Stunned)"
        return 0, []
    counts_attacker = 1 if merged_settings(settings)["gang_up_counts_attacker"] else 0
    gained, notes = 0, []
    for enemy in enemies:
        if not adjacent(cell, enemy["at"]):
            continue
        guards = sum(1 for o in enemies if o is not enemy and adjacent(o["at"], enemy["at"]))
        for ally in allies:
            if not adjacent(ally["at"], enemy["at"]):
                continue
            others = sum(1 for o in allies if o is not ally and adjacent(o["at"], enemy["at"])
                         and not (o.get("sheet") or {}).get("stunned")) + counts_attacker
            more = gang_up_bonus(others + 1, guards) - gang_up_bonus(others, guards)
            if more > 0:
                gained += more
                notes.append(say("Gang Up +{n} with {ally} against {target}", n=more, ally=ally["name"],
                                 target=enemy["name"]))
    return gained, notes


def _gang_up(label) -> bool:
    """Whether an attack's modifier is Gang Up's (``rules.savage_worlds.attack``: "Melee Attacks", Gang Up)."""
    return getattr(label, "msg", None) == "Gang up ({foes}, {allies})"


def plan_turns(state: dict, mover: Combatant, settings: dict | None = None) -> list[dict]:
    """The ways a foe's turn may move then attack ("Movement" is not an action): a plain attack, a Wild
    Attack in melee (+2 Fighting and damage, Vulnerable after: "Wild Attack"), and a move alone (taking
    cover, withdrawing); and, for closing in on a foe no attack reaches this turn (``approach``), a run ("Running":
    Pace plus the running die) that moves no farther than the least the die gives (Pace + 1, less what it moved
    already), so the move stays within whatever the die rolls when it is sent. No attack where the rules refuse
    every one (Shaken, Stunned...: :func:`rules.savage_worlds.attack.no_attack`)."""
    per = (state.get("combatants") or {}).get(mover.id) or {}
    run = []
    if not per.get("ran"):
        most = derived_values(mover.sheet or {})["pace"] + 1 - (STAND_COST if per.get("stood") else 0) \
            - float(per.get("moved", 0) or 0)
        if most > 0:
            run = [{"action": "run", "action_options": {}, "attack": False, "approach": True, "options": {},
                    "melee": None, "move_most": float(most), "label": say("Run")}]
    attacks = [] if no_attack(mover) is not None else [  # (none where the rules refuse every attack: Shaken...)
        {"action": None, "action_options": {}, "attack": True, "options": {}, "melee": None, "label": say("Attack")},
        {"action": None, "action_options": {}, "attack": True, "options": {"wild_attack": True}, "melee": True,
         "risky": True,
         "label": say("Wild Attack")}]
    return run + attacks + [
        {"action": None, "action_options": {}, "attack": False, "options": {}, "melee": None, "label": say("Move")},
    ]


def turn_begun(state: dict, mover: Combatant, settings: dict | None = None) -> dict:
    """The fight's state (a copy) as if ``mover``'s turn began now, for its plans asked off its turn: the
    current fighter, its turn's counters fresh as a turn starts ("Movement", "Multi-Actions": nothing moved,
    no action taken yet), off Hold. The Spirit roll a Shaken fighter makes as its turn starts is not made:
    it plans as it stands."""
    state = copied(state)
    per = state.setdefault("combatants", {}).setdefault(mover.id, _fresh_state())
    per.update(_TURN_FRESH)
    per["on_hold"] = False
    state["current"] = mover.id
    return state


def wounded(sheet: dict) -> bool:
    """Hurt: a Wound or more, or Shaken ("Damage Resolution")."""
    return int(sheet.get("wounds", 0) or 0) > 0 or bool(sheet.get("shaken"))


def in_the_way(shot: AttackRequest, at_me: AttackRequest | None, me: str, ally: str) -> tuple[float, list]:
    """What the foe ``me`` standing where ``shot`` finds it (beside its target) costs its side (#67: the foes as a
    side), by "Random Targets": ``shot`` is its ally's (named ``ally``) Shooting or Athletics roll at that target; a
    miss whose die shows 1 (1 or 2 with RoF over 1 or a shotgun; a Wild Card's single shot: only a critical failure,
    its trait die and Wild Die both 1) hits a token beside the target at random, its damage rolled without a raise.
    The cost, in the wounds :func:`attack_effect` counts: the exact chance of such a hit (the dice's faces, the Wild
    Die's acing distribution), shared among the tokens beside the target, times the damage's expected worth against
    ``me`` (its Toughness less the shot's AP, its Shaken and wounds: ``TargetState.take`` on each total). Only a
    shot of RoF 1 is weighed; ``at_me`` is not read (the random target's damage is the shot's own). The words."""
    plan = plan_of(shot)
    if plan["kind"] == "melee" or plan["toughness"]["object"] or int(plan["rof"]) != 1:
        return 0.0, []
    t = shot.target
    beside = [o for o in shot.others or [] if o.id not in (shot.attacker.id, t.id) and active(o)
              and adjacent(o.position, t.position)]
    mine = next((o for o in beside if o.id == me), None)
    if mine is None:
        return 0.0, []
    chance = random_target_chance(plan) / len(beside)
    vs = mine.sheet or {}
    tough, _ = effective_toughness(target_toughness(vs, None), plan["ap"])
    dist, _ = _damage(str(plan["damage_expr"]), int(sum(m.value for m in plan["damage_modifiers"])), False)
    wild = bool(vs.get("wild_card", True))
    room = max(0, MAX_WOUNDS - int(vs.get("wounds", 0) or 0)) if wild else 0
    harm = 0.0
    for total, p in dist:
        state = TargetState(bool(vs.get("shaken")), int(vs.get("wounds", 0) or 0), wild)
        got = state.take(total, tough)
        harm += p * (room + 1.0 if got["incapacitated"] else float(got["wounds"]) if got["wounds"]
                     else SHAKEN_WORTH if got["shaken"] and not vs.get("shaken") else 0.0)
    if chance * harm <= 0:
        return 0.0, []
    return chance * harm, [say("{ally}'s miss may hit it", ally=ally)]


def random_target_chance(plan: dict) -> float:
    """The exact chance a single shot (RoF 1) hits a random target ("Random Targets"): a Wild Card's roll without a
    shotgun, only on a critical failure (its trait die and Wild Die both show 1: 1/sides x 1/6); else a miss whose
    trait die shows one of the plan's ``random_target_faces``, the Wild Die (acing) kept where it is higher."""
    die = parse_die(plan["die"])
    if plan["wild"] and not plan["weapon"]["shotgun"]:
        return 1.0 / die.sides / 6.0
    mod, tn = int(sum(m.value for m in plan["modifiers"])) + die.bonus, plan["tn"]
    wild = _dice.die_distribution(6, explode=True) if plan["wild"] else {0: 1.0}
    out = 0.0
    for face in plan["random_target_faces"]:
        if face < die.sides:  # a face below the top: no ace, the total is the face
            out += sum(q for w, q in wild.items() if (face == 1 and w == 1) or max(face, w) + mod < tn) / die.sides
    return out
