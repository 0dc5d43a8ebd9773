"""Status effects: adding, escalating, their modifiers, round and scene steps
(*Tesseris Combat*, "Status Effects", "Physical Status Effects", "Social
Status Effects").

A character's statuses are a list of plain dicts ``{"name", "rounds",
"source"}`` kept on the sheet; every function returns a new list.
"""

from __future__ import annotations

from ..system import Modifier, RuleError
from ..text import say
from .data import STATUS_ALIASES, STATUS_EFFECTS, StatusEffect, status_words

SECTION = "Status Effects"


def effect_of(name: str) -> StatusEffect:
    """The table entry for a status name (aliases such as Staggered resolved)."""
    key = STATUS_ALIASES.get(name, name)
    try:
        return STATUS_EFFECTS[key]
    except KeyError:
        raise RuleError(say("unknown status effect {value}", value=repr(name))) from None


def names(statuses: list | None) -> set[str]:
    return {s["name"] if isinstance(s, dict) else str(s) for s in (statuses or [])}


def _entry(name: str, source: str | None = None) -> dict:
    eff = effect_of(name)
    return {"name": eff.name, "rounds": eff.rounds, "source": source}


def _normalised(statuses: list | None) -> list[dict]:
    out = []
    for s in statuses or []:
        out.append(dict(s) if isinstance(s, dict) else _entry(str(s)))
    return out


def add_status(statuses: list | None, name: str, source: str | None = None) -> list[dict]:
    """The statuses with ``name`` added (its duration restarted if already there) ("Gaining Status Effects")."""
    entry = _entry(name, source)
    out = [s for s in _normalised(statuses) if s["name"] != entry["name"]]
    out.append(entry)
    return out


def remove_status(statuses: list | None, name: str) -> list[dict]:
    key = effect_of(name).name
    return [s for s in _normalised(statuses) if s["name"] != key]


def escalate(statuses: list | None, chain: tuple[str, ...], source: str | None = None) -> tuple[list[dict], str]:
    """Apply the first effect of ``chain`` the character lacks, replacing the one before it
    (Knockout Blow: Dazed, then Staggered, then Unconscious; Called Shot: Dazed, then Stunned).
    """
    have = names(statuses)
    resolved = [effect_of(n).name for n in chain]
    step = 0
    for i, n in enumerate(resolved):
        if n in have:
            step = min(i + 1, len(resolved) - 1)
    new = resolved[step]
    out = _normalised(statuses)
    if step > 0 and resolved[step - 1] != new:
        out = remove_status(out, resolved[step - 1])
    return add_status(out, new, source), new


def reduce_status(statuses: list | None, name: str) -> list[dict]:
    """Lower one status by a level, as Rally does: a level 2 effect to its level 1
    counterpart, anything else removed ("Social Combat Actions", Rally)."""
    eff = effect_of(name)
    out = remove_status(statuses, eff.name)
    if eff.steps_down_to:
        out = add_status(out, eff.steps_down_to)
    return out


def status_modifiers(statuses: list | None, roll: str, characteristic: str | None = None,
                     willpower_penalty: str = "table") -> list[Modifier]:
    """Modifiers statuses give a roll: ``roll`` is "melee_attack", "ranged_attack",
    "defense" (physical), "social_defense" or "test" (any other skill test);
    ``characteristic`` is the one the test rolls.

    A status that names a penalty for Willpower tests (Dejected: "All actions take a
    -1 penalty, and a -2 penalty to all Willpower related tests") gives a Willpower
    test that penalty ("Social Status Effects"): with ``willpower_penalty`` "table"
    (the default setting ``dejected_willpower``) the -2 in place of the -1, with
    "stacked" both (-3).
    """
    mods = []
    for s in _normalised(statuses):
        eff = effect_of(s["name"])
        value = eff.all_tests
        if roll == "test" and characteristic == "willpower" and eff.willpower_tests:
            value = eff.willpower_tests + (eff.all_tests if willpower_penalty == "stacked" else 0)
        if roll in ("melee_attack", "ranged_attack"):
            value += eff.attack + (eff.melee_attack if roll == "melee_attack" else eff.ranged_attack)
        elif roll == "defense":
            value += eff.defense
        elif roll == "social_defense":
            value += eff.social_defense
        if value:
            mods.append(Modifier(status_words(eff.name), value, f"{SECTION}: {eff.name}"))
    return mods


def start_of_round(statuses: list | None) -> dict:
    """What statuses do when a new round begins: ticks lost, damage taken and the
    statuses after their durations run down (Dazed, Stunned, Bleeding)."""
    ticks_lost = 0
    damage = 0
    out: list[dict] = []
    for s in _normalised(statuses):
        eff = effect_of(s["name"])
        ticks_lost += eff.ticks_lost
        damage += eff.damage_per_round
        if s.get("rounds") is None:
            out.append(s)
            continue
        left = s["rounds"] - 1
        if left > 0:
            out.append({**s, "rounds": left})
        elif eff.then:
            out = add_status(out, eff.then, s.get("source"))
    return {"ticks_lost": ticks_lost, "damage": damage, "statuses": out}


def end_of_scene(statuses: list | None) -> list[dict]:
    """Level 1 effects end, level 2 effects drop to their level 1 counterpart (or end
    when there is none), level 3 effects stay ("Status Effects")."""
    out: list[dict] = []
    for s in _normalised(statuses):
        eff = effect_of(s["name"])
        if eff.level >= 3:
            out.append(s)
        elif eff.level == 2 and eff.steps_down_to:
            out.append(_entry(eff.steps_down_to, s.get("source")))
    return out
