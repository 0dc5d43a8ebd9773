"""The fight's books after a shot (*Phase/TN Combat Sequence*, "Initiative and Actions", "Ranged Attacks").

The shots that resolve at a phase's end are listed in ``state["shots"]`` (see
:func:`.turns.next_turn`), one entry a shot, with the group of its action's
length; ``state["due"]`` is :func:`.turns.due_now` of them, the list the app
rolls from, as an ``attack`` command takes them. :func:`after_attack` strikes the rolled shot off. Shorter actions
resolve before longer ones, so when the last shot of one length is rolled
the next length's shots come due, without those whose shooter that volley
took out of the fight; shots of one length are simultaneous, so a shooter
who falls to a shot of its own length still fires. Targeting: it holds on
the target fired at; a shot at someone else switches targets and loses it.
"""

from __future__ import annotations

from ..copying import copied
from ..system import AttackResult
from ..text import say
from .health import OUT_OF_FIGHT, WORDS
from .turns import _view, due_now


def _strike(struck: dict, result: AttackResult) -> dict:
    """Add a result's wounds to the volley's tally: flesh per target, and a traumatic
    wound whose effect takes the target out (unconscious, dying...)."""
    hurt = struck.setdefault("hurt", {})
    for e in result.effects:
        entry = hurt.setdefault(e.target, {"flesh": 0, "out": ""})
        if e.kind == "flesh":
            entry["flesh"] += int(e.data.get("amount", 0))
        elif e.kind == "trauma" and any(word in str(e.data.get("effect", "")) for word in OUT_OF_FIGHT):
            effect = str(e.data.get("effect"))
            entry["out"] = entry["out"] or WORDS.get(effect, effect)  # a default effect in words, a GM's own as written
    return struck


def fallen(combat: dict, struck: dict) -> dict[str, str]:
    """Who this volley took out of the fight, with why: flesh wounds at capacity
    (``combat["flesh_left"]``) or a traumatic wound that takes them out."""
    out = {}
    for who, entry in (struck.get("hurt") or {}).items():
        left = (combat.get("flesh_left") or {}).get(who)
        if entry["out"]:
            out[who] = entry["out"]
        elif left is not None and entry["flesh"] >= left:
            out[who] = say("down (flesh wounds at capacity)")
    return out


def after_attack(state: dict, result: AttackResult, settings: dict | None = None) -> dict:
    """The fight's state after a shot was rolled: the due shot struck off, the next
    length's shots due once this length is done, the shooter's Targeting kept on the
    target fired at and lost on a switch ("Ranged Attacks"), its aim used up."""
    if "combat" not in state:
        return state
    attacker, target = result.details.get("attacker"), result.details.get("target")
    if attacker is None:
        return state
    new = copied(state)
    combat = new["combat"]
    struck = _strike(new.get("struck") or {}, result)
    due = new.get("shots") or []
    now = {d["options"]["due"] for d in due_now(due)}
    wanted = result.details.get("due")
    shot = next((d for d in due if d["id"] == wanted and d["id"] in now), None)
    if shot is None:  # the first shot due now of this shooter at this target (a roll not named by the app)
        shot = next((d for d in due if d["id"] in now and d["attacker"] == attacker and d["target"] == target), None)
    if shot is not None:
        due = [d for d in due if d["id"] != shot["id"]]
        struck.setdefault("groups", [])
        if shot["group"] not in struck["groups"]:
            struck["groups"].append(shot["group"])
        if not any(d["group"] == shot["group"] for d in due):
            down = fallen(combat, struck)
            later = [d for d in due if d["attacker"] in down]
            due = [d for d in due if d["attacker"] not in down]
            new.setdefault("dropped", []).extend(
                {"attacker": d["attacker"], "target": d["target"], "why": down[d["attacker"]]} for d in later)
    out = [w for w in fallen(combat, struck) if w in combat["combatants"]]
    if out:  # the fallen declare nothing more: out of this phase's order, never the one to declare
        combat["out"] = sorted(set(combat.get("out") or []) | set(out))  # until the next call drops them
        combat["order"] = [w for w in combat["order"] if w not in out]
        combat["declared"] = [w for w in combat["declared"] if w not in out]
        for who in out:
            combat["initiative"].pop(who, None)
    held = combat["targeting"].get(attacker)
    if held is not None:
        if held["target"] != target:
            del combat["targeting"][attacker]  # switching targets loses the Targeting
        else:
            held["aims"] = 0  # the shot uses up the aim
    new["shots"] = due
    new["due"] = due_now(due)
    new["struck"] = struck
    new["combatants"] = _view(combat, new.get("names") or {}, due)
    return new
