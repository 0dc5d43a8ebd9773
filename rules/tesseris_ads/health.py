"""Damage, Stamina, Wounds, Ego and what follows them: a hit's damage split,
applying effects to a sheet, Resolve tests, staying conscious, bleeding out,
death and crippling, the end of a combat (*Tesseris Combat*, "Damage,
Stamina, and Wounds", "Stamina", "Regaining Stamina", "Wounds",
"Unconsciousness, Crippling, and Death", "Bleeding Out", "Crippling and
Death", "Mayhem Points", "Status Effects").

Every function returns a new sheet; the one given is left as it was.
"""

from __future__ import annotations

import functools

from ..copying import copied
from ..dice import DiceSource
from ..text import say, say_n
from ..system import AttackResult, Effect, Modifier, RuleError
from .checks import TestRoll, dt_needs, roll_test, successes_to, wound_penalty
from .data import STAMINA_PER_WOUND
from .sheet import current_max_stamina, full_max_stamina, max_wounds, num, stamina, test_pool
from .status import add_status, end_of_scene, names, remove_status, status_modifiers


@functools.lru_cache(maxsize=4096)  # (the exact odds split every hit of every attack they weigh, #68)
def damage_split(damage: int, stamina: int) -> tuple[int, int]:
    """Stamina lost and Wounds gained from one hit after soak (*Tesseris Combat*, "Damage,
    Stamina, and Wounds", "Taking Wounds").

    Damage goes to Stamina until it is gone, then each further point is a
    Wound; every full 5 points of Stamina lost to the one hit is a Wound too.
    """
    damage = max(0, int(damage))
    stamina = max(0, int(stamina))
    lost = min(damage, stamina)
    overflow = damage - lost
    return lost, overflow + lost // STAMINA_PER_WOUND


def resolve_test(sheet: dict, dice: DiceSource, purpose: str, wounds_apply: bool = True, settings: dict | None = None,
                 roller: str | None = None, difficulty: int | None = None) -> TestRoll:
    """A Resolve test: Willpower dT + Resolve rank, status effects (Dejected's penalty to
    Willpower tests among them) and, unless this is the test to stay conscious, the
    wound penalty (*Tesseris Combat*, "Effects of Wounds", "Status Effects"). ``roller``: whose test (the
    table's own dice, #59); ``difficulty``: what it must reach, for what the dice must show."""
    pool, mods = test_pool(sheet, "resolve", "willpower")
    if wounds_apply:
        wp = wound_penalty(num(sheet.get("wounds")), stamina(sheet))
        if wp:
            mods.append(Modifier(say("Wounds, out of Stamina"), wp, "Effects of Wounds"))
    mods += status_modifiers(sheet.get("statuses"), "test", characteristic="willpower",
                             willpower_penalty=(settings or {}).get("dejected_willpower", "table"))
    flat = sum(m.value for m in mods)
    goal = None if difficulty is None else say_n(
        "{n} success reaches the difficulty {difficulty}", "{n} successes reach the difficulty {difficulty}",
        successes_to(difficulty, flat), difficulty=difficulty)
    return roll_test(dice, pool, mods, purpose, roller=roller, needs=dt_needs(pool, flat, goal), reach=difficulty)


def is_dead(sheet: dict) -> bool:
    """Dead at the maximum Wounds (typically 10), or as many Wounds as full Stamina ("Crippling and Death")."""
    w = num(sheet.get("wounds"))
    return w >= max_wounds(sheet) or w >= full_max_stamina(sheet)


def take_damage(sheet: dict, damage: int, no_wounds: bool = False) -> tuple[dict, dict]:
    """One hit's damage after soak ("Damage, Stamina, and Wounds", "Taking Wounds"):
    Stamina first, a Wound per 5 Stamina lost, the rest as Wounds; each Wound costs
    one Ego and one point of maximum Stamina; out of Stamina means Bloodied."""
    st = stamina(sheet)
    if no_wounds:
        lost, wounds = min(max(0, damage), st), 0
    else:
        lost, wounds = damage_split(damage, st)
    out = apply_effects(sheet, [Effect("damage", "", {"stamina": lost, "wounds": wounds, "ego": wounds})])
    return out, {"stamina": lost, "wounds": wounds}


def apply_effects(sheet: dict, effects: list[Effect], token_id: str | None = None) -> dict:
    """The sheet after the effects aimed at ``token_id`` (all of them when None):
    damage (Stamina, Wounds, Ego), statuses added or removed, Mayhem spent, ammunition."""
    out = copied(sheet)
    for e in effects:
        if token_id is not None and e.target != token_id:
            continue
        d = e.data
        if e.kind == "damage":
            st = stamina(out) - num(d.get("stamina"))
            out["wounds"] = num(out.get("wounds")) + num(d.get("wounds"))
            out["ego"] = num(out.get("ego")) - num(d.get("ego", d.get("wounds")))
            out["stamina"] = max(0, min(st, current_max_stamina(out)))
            if out["stamina"] <= 0 and "Bloodied" not in names(out.get("statuses")):
                out["statuses"] = add_status(out.get("statuses"), "Bloodied")
        elif e.kind == "status":
            if d.get("add"):
                chain = d.get("chain") or []
                current = out.get("statuses")
                for earlier in chain:
                    if earlier != d["add"] and earlier in names(current):
                        current = remove_status(current, earlier)
                out["statuses"] = add_status(current, d["add"], d.get("source"))
            if d.get("remove"):
                out["statuses"] = remove_status(out.get("statuses"), d["remove"])
        elif e.kind == "mayhem":
            out["mayhem"] = max(0, num(out.get("mayhem")) - num(d.get("spent")))
        elif e.kind in ("disarm", "take_weapon"):  # a Disarm: the weapon leaves one sheet, maybe for another
            weapons = out.get("weapons") or {}
            if isinstance(weapons, list):
                weapons = {str(w.get("key") or w.get("name") or i): w for i, w in enumerate(weapons) if isinstance(w, dict)}
            weapons = dict(weapons)
            if e.kind == "disarm":
                weapons.pop(d.get("weapon"), None)
            else:
                key = d.get("weapon") or "weapon"
                while key in weapons:
                    key += "_taken"
                weapons[key] = dict(d.get("item") or {})
            out["weapons"] = weapons
        elif e.kind == "ammo":
            weapons = out.get("weapons") or {}
            w = weapons.get(d.get("weapon")) if isinstance(weapons, dict) else None
            if w is not None and w.get("ammo") is not None:
                w["ammo"] = max(0, num(w["ammo"]) - num(d.get("spent")))
    return out


def apply_result(sheet: dict, result: AttackResult, token_id: str | None = None) -> dict:
    """The target's sheet after an attack result (or ``token_id``'s, e.g. the attacker's)."""
    who = token_id if token_id is not None else result.details.get("target")
    return apply_effects(sheet, result.effects, who)


def consciousness_check(sheet: dict, dice: DiceSource, settings: dict | None = None, roller: str | None = None) -> dict:
    """At the start of the turn of a character out of Stamina: Resolve against the current
    Wounds; failing it, they fall unconscious and begin dying; wound penalties do not
    apply ("Unconsciousness, Crippling, and Death")."""
    if stamina(sheet) > 0:
        return {"needed": False, "sheet": sheet}
    difficulty = num(sheet.get("wounds"))
    test = resolve_test(sheet, dice, say("Resolve to stay conscious (difficulty {difficulty})", difficulty=difficulty), wounds_apply=False, settings=settings,
                        roller=roller, difficulty=difficulty)
    total, rec, mods = test.total, test.records[0], test.modifiers
    passed = total >= difficulty
    out = copied(sheet)
    if not passed:
        out["statuses"] = add_status(out.get("statuses"), "Unconscious")
        out["dying"] = True
    return {"needed": True, "passed": passed, "total": total, "difficulty": difficulty, "roll": rec, "modifiers": mods, "sheet": out}


def bleed_out(sheet: dict, minutes: int) -> dict:
    """A Wound per minute unconscious and dying without medical help ("Bleeding Out")."""
    if not sheet.get("dying") or minutes <= 0:
        return copied(sheet)
    out = copied(sheet)
    out["wounds"] = num(out.get("wounds")) + minutes
    out["ego"] = num(out.get("ego")) - minutes
    return out


def regain_stamina(sheet: dict, points: int) -> dict:
    """Stamina regained (first aid, ...): any point wakes a dying character ("Bleeding Out")."""
    out = copied(sheet)
    out["stamina"] = min(current_max_stamina(out), stamina(out) + max(0, points))
    if out["stamina"] > 0 and out.get("dying"):
        out["dying"] = False
        out["statuses"] = remove_status(out.get("statuses"), "Unconscious")
    if out["stamina"] > 0:
        out["statuses"] = remove_status(out.get("statuses"), "Bloodied")
    return out


def burn_fate_point(sheet: dict, crippling: str) -> dict:
    """Burn a Fate point to survive death with a permanent Crippling the GM describes
    ("Crippling and Death"). Reading: the character stays at one Wound below death."""
    if not is_dead(sheet):
        raise RuleError(say("a Fate point is burnt to survive death; this character is not dead"))
    if num(sheet.get("fate_points")) < 1:
        raise RuleError(say("no Fate point left to burn"))
    out = copied(sheet)
    out["fate_points"] = num(out.get("fate_points")) - 1
    out["wounds"] = min(max_wounds(out), full_max_stamina(out)) - 1
    out["crippling"] = [*(out.get("crippling") or []), str(crippling)]
    return out


def end_of_combat(sheet: dict) -> dict:
    """After a combat: Stamina back to the current maximum if conscious ("Regaining
    Stamina"), unspent Mayhem lost ("Mayhem Points"), statuses step down at the end
    of the scene ("Status Effects")."""
    out = copied(sheet)
    conscious = "Unconscious" not in names(out.get("statuses"))
    out["statuses"] = end_of_scene(out.get("statuses"))
    if conscious:
        out["stamina"] = current_max_stamina(out)
    out["mayhem"] = 0
    return out


def start_of_round_damage(sheet: dict, damage: int) -> dict:
    """Damage statuses deal each round (Bleeding), taken as a hit of that much."""
    if damage <= 0:
        return copied(sheet)
    return take_damage(sheet, damage)[0]
