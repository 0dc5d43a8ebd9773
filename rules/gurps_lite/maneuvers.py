"""Maneuvers (*3d6 Combat*, "Maneuvers"): which ones a token may choose in its situation, and the
damage adjustments of the attacking ones.
"""

from __future__ import annotations

import math

from ..system import Combatant, Modifier, RuleError
from .data import MANEUVERS, S_MANEUVER
from .movement import maneuver_movement
from .sheet import conditions_of, current_move, int_of, num_of, ready_weapons, weapon_kind
from ..text import say
from .badges import VARIANT_WORDS, maneuver_name


def allowed_maneuvers(sheet: dict, state: dict | None = None, moved: float = 0) -> list[dict]:
    """The maneuvers a token may choose now ("Maneuvers"), each with its defense and movement.

    ``state`` may hold ``conditions`` (or ``stunned`` etc.), ``unready``
    (weapon names not ready); ``moved`` is how far the token already moved
    this turn: a maneuver whose movement is shorter is not offered.
    """
    conds = conditions_of(sheet, state)
    if conds & {"unconscious", "dead", "destroyed", "mortally wounded"}:
        return []
    keys = list(MANEUVERS)
    if "stunned" in conds:
        keys = ["do_nothing"]
    ready = ready_weapons(sheet, state)
    move = current_move(sheet)  # (once: each maneuver's movement is a part of it)
    melee = {k: w for k, w in ready.items() if weapon_kind(w) != "ranged"}
    ranged = {k: w for k, w in ready.items() if weapon_kind(w) in ("ranged", "thrown")}
    out = []
    for key in keys:
        m = MANEUVERS[key]
        if m.attack == "melee" and not melee:
            continue
        if m.attack == "ranged" and not ranged:
            continue
        if m.attack == "any" and not ready:
            continue
        if key == "aim" and not ranged:
            continue
        variants = list(m.variants)
        if key == "all_out_attack_ranged" and not any(int_of(w.get("rof"), 1) >= 5 for w in ranged.values()):
            variants = [v for v in variants if v != "suppression_fire"]
        movement = maneuver_movement(sheet, key, move=move)
        if key == "all_out_defense":
            movement = maneuver_movement(sheet, key, "enhanced_dodge", move)
        if moved > movement + 1e-9:
            continue
        if key == "all_out_defense" and moved > maneuver_movement(sheet, key, move=move) + 1e-9:
            variants = ["enhanced_dodge"]
        out.append({
            "key": key,
            "name": m.name,
            "defense": m.defense,
            "movement": movement,
            "variants": variants,
            "attack": m.attack,
            "notes": m.notes,
        })
    return out


def damage_adjustments(n_dice: int, maneuver: str, variant: str, weapon: dict) -> list[Modifier]:
    """Damage modifiers of the attacking maneuvers ("Maneuvers": All-Out Strong and Long, Committed
    Strong, Defensive Attack), per die where that is greater."""
    mods = []
    if maneuver == "all_out_attack" and variant == "strong":
        mods.append(Modifier(say("All-Out Attack (Strong)"), max(2, n_dice), S_MANEUVER))
    if maneuver == "all_out_attack" and variant == "long" and weapon.get("attack", "swing") == "swing":
        mods.append(Modifier(say("All-Out Attack (Long), swing"), -max(2, n_dice), S_MANEUVER))
    if maneuver == "committed_attack" and variant == "strong":
        mods.append(Modifier(say("Committed Attack (Strong)"), max(1, n_dice // 2), S_MANEUVER))
    if maneuver == "defensive_attack":
        mods.append(Modifier(say("Defensive Attack"), -max(2, n_dice), S_MANEUVER))
    return mods


def chosen_maneuver(options: dict | None, state: dict | None) -> tuple[str, str, float]:
    """The maneuver, variant and yards moved an attack is made under: the request's options, else what
    the attacker chose this turn (its fight state), else a plain Attack with no movement."""
    opts, st = options or {}, state or {}
    if opts.get("maneuver"):
        maneuver, variant = opts["maneuver"], opts.get("variant") or ""
    else:
        maneuver, variant = st.get("maneuver") or "attack", (st.get("variant") or "") if st.get("maneuver") else ""
        if opts.get("variant"):  # the option picked on the attack card, under the turn's maneuver
            variant = opts["variant"]
    if (st.get("maneuver") and maneuver == st["maneuver"] and st.get("variant") and isinstance(variant, str)
            and variant != st["variant"]):
        chosen = st["variant"].replace("_", " ")
        raise RuleError(say("the turn's option is {option}: one maneuver a turn", option=VARIANT_WORDS.get(chosen, chosen)))
    moved = opts["moved"] if "moved" in opts else st.get("moved", 0)
    if not isinstance(maneuver, str) or not isinstance(variant, str):
        raise RuleError(say("a maneuver and its option are names"))
    moved = num_of(moved)
    return maneuver, variant, moved if math.isfinite(moved) else 0.0


def is_suppression(maneuver: str, variant: str) -> bool:
    """An All-Out Attack (ranged) keeping an area under Suppression Fire ("Maneuvers")."""
    return maneuver == "all_out_attack_ranged" and variant == "suppression_fire"


def attack_still_open(attacker: Combatant) -> None:
    """RuleError once the attack of the turn's maneuver is made ("Maneuvers": one maneuver a turn, its
    attack once), and for a stunned attacker, who may only Do Nothing ("Maneuvers"; stunned by a failed knockdown
    roll, "Injury", or by a Total Surprise, "Turn Order"), whether or not a maneuver was chosen; the attacks of a
    Suppression Fire on whoever enters its area are neither counted nor refused."""
    st = attacker.state or {}
    maneuver = st.get("maneuver")
    suppressing = is_suppression(maneuver, st.get("variant") or "")
    if "stunned" in conditions_of(attacker.sheet, st) and not suppressing:
        raise RuleError(say("{name} is stunned: Do Nothing only", name=attacker.name))
    made = maneuver in MANEUVERS and int_of(st.get("attacks")) > 0
    if made and not suppressing:
        raise RuleError(say("{name} has made the attack of {maneuver} this turn", name=attacker.name,
                            maneuver=maneuver_name(maneuver)))
