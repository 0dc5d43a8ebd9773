"""What a foe's plans weigh in the 3d6 system (#60): an attack's expected injury, the ways a turn moves
then attacks (the maneuvers), and whether a character is hurt.

The GM's suggestions (``webapp/game/suggestions.py``) rank a foe's plans by these; the odds are the rules'
own (:func:`rules.gurps_lite.odds.attack_odds`), nothing is estimated here.
"""

from __future__ import annotations

from ..copying import copied
from ..system import AttackRequest, Combatant, RuleError
from ..text import say
from .attack import melee_reach
from .badges import maneuver_name
from .data import MANEUVERS, settings_of
from .defenses import FLANKED
from .maneuvers import chosen_maneuver
from .movement import flanks
from .sheet import int_of, max_hp, num_of, shots_left, weapon_kind, weapons
from .turns import fresh_state, fresh_turn


def attack_effect(request: AttackRequest, odds: dict) -> dict:
    """The expected injury of the attack ("Damage": the odds' distribution of total injury, misses,
    defenses and DR counted), in HP; the defense the target makes against it ("Defending": its best
    active defense, at the level the odds use), or none. ``down`` (#67): the odds' exact chance the target is out of
    the fight before it acts again ("Injury": unconscious from a knockdown roll, a death check failed, -5 x HP, or
    the HT roll against collapse below 0 HP at its next turn; :func:`rules.gurps_lite.health.down_chance`), None
    where the odds do not give it (a feint, several targets, an area); ``down_worth``: what that is worth in HP, the
    injury that takes the target from full HP below 0, where its collapse rolls begin (its HP + 1)."""
    level = odds.get("defense_level")
    defense = say("defends at {level}", level=level) if isinstance(level, int) else say("no defense")
    down = odds.get("down")
    return {"effect": float(odds.get("mean_injury") or 0.0), "unit": say("HP of injury"), "defense": defense,
            "down": float(down) if isinstance(down, (int, float)) else None,
            "down_worth": float(max_hp(request.target.sheet or {}) + 1)}


def reach(weapon: dict, state: dict, options: dict | None = None) -> float | None:
    """The farthest a fighter's melee ``weapon`` (its sheet's) strikes under its turn's maneuver (``state``, the
    attack's ``options``), in yards (a square each): the foes' planner judges no square farther (#68), from which
    the rules refuse the attack (:func:`rules.gurps_lite.attack.melee_reach`). None where no maneuver is read (the
    rules refuse the attack in their own words)."""
    try:
        maneuver, variant, _moved = chosen_maneuver(options, state)
    except RuleError:
        return None
    return melee_reach(weapon, maneuver, variant)


def side_notes(cell, me: dict, allies: list[dict], enemies: list[dict], adjacent, settings: dict | None = None
               ) -> tuple[int, list]:
    """What the foe standing on ``cell`` gives its side (#67: the foes as a side), with the setting ``flanking`` on:
    for each enemy an ally stands beside, a ``cell`` on the far side of it from that ally flanks it (the readings'
    "Flanking", :func:`rules.gurps_lite.movement.flanks`): the enemy defends at -2 against the foe's attacks, and
    against the ally's if the foe stands beside it. ``me``, ``allies`` and ``enemies``: ``name``, ``at`` (its square,
    a ``rules.grid.Place`` on hexes) and ``sheet``; ``adjacent(a, b)``: two squares touch. The points off the
    enemies' defenses in all, and the words ("flanks Ann with Gob: -2 to Ann's defense")."""
    if not settings_of(settings)["flanking"]:
        return 0, []
    gained, notes = 0, []
    for enemy in enemies:
        ally = next((a for a in allies if adjacent(a["at"], enemy["at"]) and flanks(enemy["at"], cell, a["at"])), None)
        if ally is not None:
            gained -= FLANKED
            notes.append(say("flanks {target} with {ally}: {n} to {target}'s defense", target=enemy["name"],
                             ally=ally["name"], n=FLANKED))
    return gained, notes


def plan_turns(state: dict, mover: Combatant, settings: dict | None = None) -> list[dict]:
    """The maneuvers a foe's turn may take to move and attack ("Maneuvers"): Attack (a step, then the
    attack), Move and Attack (Move, then the attack at its penalty), All-Out Attack (Determined: half Move,
    +4 in melee, +1 ranged, no defense after) and Move (Move, no attack: taking cover, withdrawing); for each
    ranged weapon whose Shots are spent, Ready to reload it ("Ranged Attacks": a weapon's Shots, reloaded with a
    Ready maneuver). When the turn's maneuver is chosen already, only that one (its own movement and attack)."""
    cs = {**fresh_state(mover), **(state.get("combatants", {}).get(mover.id) or {})}
    chosen = cs.get("maneuver")
    if chosen:
        m = MANEUVERS.get(chosen)
        attack = bool(m and m.attack)
        return [{"action": None, "action_options": {}, "attack": attack, "options": {},
                 "melee": {"melee": True, "ranged": False}.get(m.attack) if m else None,
                 "label": maneuver_name(chosen)}]
    reloads = [  # an empty gun: the Ready maneuver reloads it ("Maneuvers", Ready; the Shots, "Ranged Attacks")
        {"action": f"reload:{name}", "action_options": {}, "attack": False, "alone": True, "options": {},
         "melee": None, "weapon": name, "label": maneuver_name("ready"),
         "why": say("{weapon} is empty: it reloads (Ready)", weapon=name)}
        for name, w in weapons(mover.sheet).items()
        if weapon_kind(w) in ("ranged", "thrown") and shots_left(w) == 0]
    return reloads + [
        {"action": "attack", "action_options": {}, "attack": True, "options": {}, "melee": None,
         "label": maneuver_name("attack")},
        {"action": "move_and_attack", "action_options": {}, "attack": True, "options": {}, "melee": None,
         "label": maneuver_name("move_and_attack")},
        {"action": "all_out_attack", "action_options": {"variant": "determined"}, "attack": True, "options": {},
         "melee": True, "risky": True, "label": maneuver_name("all_out_attack")},
        {"action": "all_out_attack_ranged", "action_options": {"variant": "determined"}, "attack": True,
         "options": {}, "melee": False, "risky": True, "label": maneuver_name("all_out_attack_ranged")},
        {"action": "move", "action_options": {}, "attack": False, "options": {}, "melee": None, "label": maneuver_name("move")},
    ]


def turn_begun(state: dict, mover: Combatant, settings: dict | None = None) -> dict:
    """The fight's state (a copy) as if ``mover``'s turn began now, for its plans asked off its turn: the
    current fighter, its books fresh as a turn starts ("Maneuvers": no maneuver chosen, nothing moved or
    attacked yet; Aim kept after an Aim). The rolls a turn may start with (stun recovery) are not made: it
    plans as it stands."""
    state = copied(state)
    cs = state.setdefault("combatants", {}).setdefault(mover.id, fresh_state(mover))
    fresh_turn(cs, mover)
    order = state.get("order") or []
    state["current"] = mover.id
    if mover.id in order:
        state["index"] = order.index(mover.id)
    return state


def wounded(sheet: dict) -> bool:
    """Hurt: fewer HP than its full HP ("Damage": injury comes off HP)."""
    full = max(1, int_of(sheet.get("HP") or sheet.get("ST"), 10))
    return num_of(sheet.get("hp_current", full)) < full
