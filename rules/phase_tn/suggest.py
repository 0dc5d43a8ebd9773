"""What a foe's plans weigh in *Phase/TN Combat Sequence* (#60): a shot's expected wounds, the declarations a
foe may make at its time to declare, and whether a character is hurt.

A phase/TN foe does not move and then attack in one turn: each phase it declares one new action ("Initiative
and Actions"), lowest initiative first, and its shots resolve at the end of the time they take. So its plans
are reckoned when it is its time to declare (``combat.current`` is the next declarer), and a plan is what it
declares now: a Fire, a Three-round burst or a Target and fire at a target in its line of fire from where it
stands (the steps: the declaration, ``act`` ``declare:<action>``; the shot is rolled when the books say it is
due), a Targeting for next phase's shot, a Move (moving declares it: the step is the move) to a square from
where it shoots next phase, or a Move alone (taking cover, withdrawing). A plan's ``hit`` is the chance of the
shot it leads to, read on the books as they will stand when that shot is rolled (the Targeting its own
Targeting action or the move leave it, a wild shot at -2 without one: "Ranged Attacks"), so it is what the
attack's preview says for that shot once it comes; its ``effect`` is per phase of the plan (a shot next
phase counts half, Target and fire's two shots over a round count one each a phase).

The GM's suggestions (``webapp/game/suggestions.py``) rank a foe's plans by these; the odds are the rules'
own (:func:`rules.phase_tn.odds.odds`), nothing is estimated here. The document gives no ranges and no cover
modifier (the GM sets the TN and lists the areas cover hides): a target behind cover is as easy to hit by the
rules, and the why line says the cover.
"""

from __future__ import annotations

import functools

from ..copying import copied
from .. import odds as _odds
from ..system import AttackRequest, Combatant
from ..text import say
from .attack import attack_setup, hits_for, landing, weapon_of
from .checks import attr, wound_modifiers
from .data import ACTIONS, attribute_words, resolve_settings
from .health import OUT_OF_FIGHT, flesh_capacity, incapacitated
from .odds import _table_landing
from .targeting import called_shot_drift_with

#: what a traumatic wound that does not take the target out (a useless limb, a roll penalty) is worth beside
#: one that does (unconscious, dying): half of the flesh wounds the target has left (a reading: the document
#: says traumatic wounds cripple or kill, "Damage and Wounds")
CRIPPLING_WORTH = 0.5


@functools.lru_cache(maxsize=64)
def _mean(expr: str) -> float:
    return sum(total * p for total, p in _odds.distribution(expr).items())


@functools.lru_cache(maxsize=256)
def _trauma_chance(roll_dice: str, bonus: int, damage: str, extra: int) -> float:
    """The chance that one hit of ``damage`` is a traumatic wound: the target's trauma check (``roll_dice`` +
    ``bonus``, its ``trauma_attribute`` and wound modifiers, against the damage plus the location's modifier
    ``extra``) fails. Settings: the document stops short ("Damage and Wounds")."""
    rolled = _odds.distribution(roll_dice)
    return sum(p * (1.0 - _odds.at_least(rolled, d + extra - bonus))
               for d, p in _odds.distribution(damage).items() if d > 0)


@functools.lru_cache(maxsize=256)
def _per_hit(damage: str, stun: bool, roll_dice: str, bonus: int, extra: int, checked: bool, takes_out: bool
             ) -> tuple[tuple[int, float, float], ...]:
    """One hit at an area: (flesh, chance, chance its trauma takes the target out) by the damage rolled ("Damage and
    Wounds": flesh as the damage, none for a stunning weapon; a trauma check when the damage is above 0, failed
    below the damage plus the area's modifier ``extra``, which takes the target out where ``takes_out``)."""
    rolled = _odds.distribution(roll_dice)
    out = []
    for d, p in _odds.distribution(damage).items():
        fails = 1.0 - _odds.at_least(rolled, d + extra - bonus) if checked and not stun and d > 0 and takes_out else 0.0
        out.append((0 if stun else max(0, d), p, fails))
    return tuple(out)


@functools.lru_cache(maxsize=512)
def _after(areas: tuple, k: int, need: int) -> float:
    """The chance ``k`` hits put the target down, each landing as ``areas`` says ((chance, the hit there:
    :func:`_per_hit`, or None where no area can be hit)), ``need`` flesh wounds from its capacity (0: no capacity)."""
    states = {(0, False): 1.0}  # (flesh so far, up to what it needs; out by a trauma) -> chance
    for _ in range(k):
        nxt: dict = {}
        for (flesh, out), p in states.items():
            for pa, hit in areas:
                if hit is None:  # blocked: no area can be hit
                    nxt[(flesh, out)] = nxt.get((flesh, out), 0.0) + p * pa
                    continue
                for d, pd, fails in hit:
                    f = min(need, flesh + d) if need > 0 else 0
                    for gone, pg in ((True, fails), (False, 1.0 - fails)):
                        if pg:
                            key = (f, out or gone)
                            nxt[key] = nxt.get(key, 0.0) + p * pa * pd * pg
        states = nxt
    return sum(p for (flesh, out), p in states.items() if out or (need > 0 and flesh >= need))


def _down(request: AttackRequest, setup: dict, s: dict, expr: str, stun: bool) -> float:
    """The chance the shot puts the target out of the fight ("Damage and Wounds", ``health.incapacitated``): its flesh
    wounds reach capacity, or a traumatic wound whose effect is unconscious, dying or dead. Exact, as
    :func:`rules.phase_tn.attack.attack` resolves it: the total of the game's dice and the modifiers, the hits it
    scores, where each lands (the called area and its drift, or the hit-location table for each hit, impossible
    areas skipped), each hit's damage and the target's trauma check (its dice, attribute and wound penalty)."""
    target = request.target.sheet or {}
    need = flesh_capacity(target, s) - int(target.get("flesh", 0) or 0)
    if (flesh_capacity(target, s) and need <= 0) or incapacitated(target, s):
        return 0.0  # down already
    bonus = attr(target, s["trauma_attribute"]) + sum(m.value for m in wound_modifiers(target, s))
    impossible = set((request.options or {}).get("impossible_locations", ()))

    def hit_at(area: str) -> tuple:
        effect = str(s["trauma_effects"].get(area, ""))
        return _per_hit(expr, stun, str(s["roll_dice"]), int(bonus), int(s["trauma_location_modifier"].get(area, 0)),
                        bool(s["trauma_check"]), any(word in effect for word in OUT_OF_FIGHT))

    called, first_arm = setup["called"], s["drift_first_arm"]
    bonus_roll = sum(m.value for m in setup["modifiers"])
    table = tuple(_table_landing(s, impossible).items())
    down, known = 0.0, {}  # (where the hits land, how many) -> the chance they put it down: totals share them
    for total, p in _odds.convolve(_odds.distribution(s["roll_dice"]), {bonus_roll: 1.0}).items():
        k = hits_for(total, setup)
        if not k:
            continue
        if called:  # every hit of a called shot lands where it drifts to
            areas = ((landing(called_shot_drift_with(called, max(0, setup["called_tn"] - total), first_arm),
                              impossible, first_arm), 1.0),)
        else:
            areas = table
        if (areas, k) not in known:
            known[(areas, k)] = _after(tuple((pa, None if a is None else hit_at(a)) for a, pa in areas), k, need)
        down += p * known[(areas, k)]
    return down


def attack_effect(request: AttackRequest, odds: dict) -> dict:
    """The expected wounds of a shot ("Damage and Wounds", with the game's settings): each landed hit's mean
    damage in flesh wounds (none for a stunning weapon), and each traumatic wound (the target's trauma check
    failed, for the area the hit lands on) counted as the flesh wounds the target has left before it goes
    down when its effect takes the target out (unconscious, dying), ``CRIPPLING_WORTH`` of that otherwise.
    The defense: the TN the shot is rolled against, and the target's trauma roll. ``down`` (#67): the exact chance
    the shot puts the target out of the fight (:func:`_down`), and ``down_worth``, what that is worth in flesh
    wounds: the target's capacity, the flesh wounds that put it down fresh."""
    s = resolve_settings({**((request.options or {}).get("settings") or {})})
    weapon = weapon_of(request.attacker.sheet, request.weapon)
    target = request.target.sheet or {}
    hit = float(odds.get("hit") or 0.0)
    if (request.options or {}).get("mode", "single") == "single":
        landed = hit  # one hit a shot
    else:  # a burst: each hit scored lands where the table finds an area that can be hit
        impossible = set((request.options or {}).get("impossible_locations", ()))
        lands = 1.0 - _table_landing(s, impossible).get(None, 0.0)
        landed = sum(int(k) * float(p) for k, p in (odds.get("hits") or {}).items()) * lands
    stun = bool(weapon.get("stun"))
    expr = str(weapon.get("damage", "2d6"))
    flesh = 0.0 if stun else _mean(expr) * landed
    left = max(0, attr(target, "constitution") * s["flesh_per_constitution"] - int(target.get("flesh", 0) or 0))
    trauma = 0.0
    if not stun and hit > 0 and s["trauma_check"]:
        bonus = attr(target, s["trauma_attribute"]) + sum(m.value for m in wound_modifiers(target, s))
        for area, p in (odds.get("locations") or {}).items():
            effect = str(s["trauma_effects"].get(area, ""))
            worth = left if any(word in effect for word in OUT_OF_FIGHT) else left * CRIPPLING_WORTH
            chance = _trauma_chance(str(s["roll_dice"]), int(bonus), expr,
                                    int(s["trauma_location_modifier"].get(area, 0)))
            trauma += (p / hit) * landed * chance * worth
    setup = attack_setup(request, s)
    shot = say("a targeted shot at TN {tn}", tn=odds.get("tn")) if setup["targeted"] else \
        say("a wild shot (no Targeting, -2) at TN {tn}", tn=odds.get("tn"))
    defense = say("{shot}; its trauma roll: {attribute} {value}", shot=shot,
                  attribute=attribute_words(s["trauma_attribute"]), value=attr(target, s["trauma_attribute"]))
    return {"effect": flesh + trauma, "unit": say("flesh wounds (trauma counted)"),
            "defense": defense, "down": _down(request, setup, s, expr, stun),
            "down_worth": float(flesh_capacity(target, s))}


def _ranged(weapon: dict) -> bool:
    return not (weapon.get("data") or {}).get("melee")  # "Melee Attacks" is empty: not automated


def _modes(*modes: str):
    return lambda weapon: _ranged(weapon) and (weapon.get("data") or {}).get("mode", "single") in modes


def _targeting(state: dict, shooter: str, target: str) -> dict:
    """The books once ``shooter`` holds the Targeting on ``target`` (a Targeting action resolved: "Ranged
    Attacks"), with no aim yet."""
    new = copied(state)
    combat = new.get("combat") or {}
    keep = {"target": target, "acquired_phase": combat.get("phase", 1)}  # a Targeting resolved: no aim yet
    combat.setdefault("targeting", {})[shooter] = keep
    mine = new.setdefault("combatants", {}).setdefault(shooter, {})
    mine["targeting"] = {shooter: dict(keep)}
    mine["aims"] = 0
    return new


def _aim(state: dict, mover: Combatant, settings: dict | None) -> list[dict]:
    """The Aim way when the mover holds a Targeting: its shot next phase with one aim more."""
    held = ((state.get("combat") or {}).get("targeting") or {}).get(mover.id)
    if not held:
        return []
    s = resolve_settings(settings)
    aims = min(s["aim_max"], held.get("aims", 0) + 1)
    return [{"declare": "aim", "still": True, "later": True, "options": {"aim": aims * s["aim_bonus"]},
             "worth": 0.5, "fits": _ranged, "label": say("Aim (the shot next phase)")}]


def plan_turns(state: dict, mover: Combatant, settings: dict | None = None) -> list[dict]:
    """The declarations a foe may make at its time to declare ("Initiative and Actions": one new action a
    phase), each a way of the turn with the generic planner's fields (``declare``: sent as that declaration;
    ``still``: from where it stands; ``later``: the shot comes a phase later; ``ends_turn``: the move is the
    declaration; ``books``: the books when the shot is rolled; ``worth``: the shot's share a phase; ``fits``:
    the weapons that can):

    - Fire ("Ranged Attacks": a phase action; a wild shot at -2 unless it holds the Targeting on the target);
    - Three-round burst with an automatic weapon ("Special Ranged Attacks");
    - Target and fire with a semi-automatic or automatic weapon ("Combined Actions": a round action, the first
      phase a Targeting, then two shots);
    - Targeting (a phase action; next phase's shot is not wild);
    - Aim, while it holds the Targeting (next phase's shot at the aim it will hold then: "Ranged Attacks", the
      bonus a reading, ``aim_bonus`` an Aim up to ``aim_max``);
    - Move, then fire next phase (the document gives no movement rates: ``move_per_phase`` squares);
    - Move alone (taking cover, withdrawing)."""
    held = ((state.get("combat") or {}).get("targeting") or {}).get(mover.id) or {}
    s = resolve_settings(settings)
    aimed = held.get("aims", 0) * s["aim_bonus"]

    def now(target: str, **more) -> dict:  # a shot at the target held fires with the aim held on it
        return {**more, **({"aim": aimed} if aimed and held.get("target") == target else {})}

    ways = [{"declare": "fire", "still": True, "options": now, "fits": _ranged, "label": ACTIONS["fire"]["label"]},
            {"declare": "three_round_burst", "still": True, "options": lambda t: now(t, mode="burst"),
             "fits": _modes("auto"),
             "label": ACTIONS["three_round_burst"]["label"]},
            {"declare": "target_and_fire", "still": True, "options": {}, "books": _targeting, "worth": 1.0,
             "fits": _modes("semi", "auto"), "label": say("Target and fire (two shots at the end of the next phase)")},
            {"declare": "target", "still": True, "later": True, "options": {}, "books": _targeting, "worth": 0.5,
             "fits": _ranged, "label": say("Targeting (the shot next phase)")},
            *_aim(state, mover, settings),
            {"later": True, "ends_turn": True, "options": {}, "worth": 0.5, "fits": _ranged,
             "label": say("Move, then fire next phase")},
            {"attack": False, "ends_turn": True, "options": {}, "label": ACTIONS["move"]["label"]}]
    return [{"action": None, "action_options": {}, "attack": True, "melee": None, **way} for way in ways]


def turn_begun(state: dict, mover: Combatant, settings: dict | None = None) -> dict:
    """The fight's state (a copy) as if it were ``mover``'s time to declare now, for its plans asked off it
    ("Initiative and Actions": declarations go lowest initiative first, one new action a phase): the next
    declarer this phase, its declaration not made yet. Declared already this phase, its next time to declare is
    in a phase to come: the phase and free actions it declared this phase have resolved by then (left out, its
    Move's squares with them), a longer one still holds it (it waits: the rules refuse a new one). No dice rolled
    (its initiative is not rolled: it is put first to declare)."""
    state = copied(state)
    combat = state.get("combat")
    if not combat or mover.id not in combat.get("combatants", []):
        return state
    if mover.id in combat.get("declared", []):
        combat["pending"] = [a for a in combat.get("pending", []) if not (
            a.get("who") == mover.id and a.get("declared_phase") == combat.get("phase")
            and a.get("length") in ("free", "phase"))]
        combat.get("moves", {}).pop(mover.id, None)
    combat["declared"] = [w for w in combat.get("declared", []) if w != mover.id]
    combat["order"] = [mover.id] + [w for w in combat.get("order", []) if w != mover.id]
    return state


def wounded(sheet: dict) -> bool:
    """Hurt: a flesh wound or a traumatic wound ("Damage and Wounds")."""
    return int(sheet.get("flesh", 0) or 0) > 0 or any((sheet.get("trauma") or {}).values())
