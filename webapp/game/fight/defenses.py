"""A defense the rules ask for: the defender's choices with the attacker's odds against each, the value the rules
take for the one chosen, and the prompt each audience sees while an attack waits for it.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from rules.system import AttackRequest, RuleError, RuleNotImplemented
from rules.text import joined, say

from . import characters
from ..bridge import fog
from ..bridge.fighting import rules_call
from ..core.model import Actor, Rejected
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Game, Token


def defense_choices(system, request: AttackRequest) -> list[dict]:
    """The rules' choices for the defender, each with the attacker's chance to hit against it."""
    try:
        choices = system.defenses(request) if hasattr(system, "defenses") else []
    except (RuleNotImplemented, RuleError):
        return []
    out = []
    for c in choices:
        entry = {k: c.get(k) for k in ("key", "label", "available", "reason", "group")} | {"hit": None}
        if c.get("available"):
            try:
                odds = system.odds(replace(request, options={**request.options, "defense": c.get("value")}))
                entry["hit"] = odds.get("hit")
            except (RuleNotImplemented, RuleError):
                pass
        out.append(entry)
    return out


def chosen(system, request: AttackRequest, key: str, target: "Token") -> Any:
    """The value the rules take for the defense ``key``; Rejected when the rules do not offer it now."""
    choices = rules_call(lambda: system.defenses(request)) if hasattr(system, "defenses") else []
    found = next((c for c in choices if c.get("key") == key), None)
    if found is None:
        offered = ", ".join(c["key"] for c in choices if c.get("available"))
        if not offered:
            raise Rejected(N_("%(name)s has no defense %(key)s here; the choices are: none: the rules give no choice "
                              "here"), name=target.name, key=repr(key))
        raise Rejected(N_("%(name)s has no defense %(key)s here; the choices are: %(choices)s"), name=target.name,
                       key=repr(key), choices=offered)
    if not found.get("available"):
        if found.get("reason"):  # the rules' words (their own domain)
            raise Rejected(N_("%(name)s cannot %(defense)s: %(reason)s"), name=target.name, defense=found["label"],
                           reason=found["reason"])
        raise Rejected(N_("%(name)s cannot %(defense)s: the rules say no"), name=target.name, defense=found["label"])
    return found.get("value")


def pending_view(game: "Game", actor: "Actor") -> dict | None:
    """The attack waiting for a defense, as this audience may see it: the defender's player and the GM
    get the choices; the player who attacked and the table screen, that it waits (and for whom: an attacker the
    screen may not see is "someone out of sight", never named nor placed, #70); the other players, nothing."""
    pending = game.pending_defense
    if not pending:
        return None
    if (game.pending_roll or {}).get("command", {}).get("type") == "choose_defense":
        return None  # chosen: the defense waits for the dice rolled at the table (#59: the roll's prompt says so)
    attacker, target = game.tokens.get(pending["attacker"]), game.tokens.get(pending["target"])
    if target is None or not fog.may_see(game, actor, target):
        return None
    chooser = actor.role == "gm" or (actor.role == "player" and target.owner == actor.player_id)
    sender = pending["sender"]
    # the table screen shows the wait too when it may not see the attacker, who is then "someone out of sight" (#70)
    waiting = actor.role == "screen" or (actor.role == "player" and sender.get("role") == "player"
                                         and sender.get("player_id") == actor.player_id)
    if not chooser and not waiting:
        return None
    player = game.players.get(target.owner) if target.owner else None
    seen = attacker is not None and fog.may_see(game, actor, attacker)
    return {"attacker": attacker.name if seen else say("an unseen foe") if chooser else say("someone out of sight"),
            "target": target.name, "target_id": target.id, "id": pending.get("id"),
            "weapon": pending.get("weapon") if seen or chooser else None,  # an unseen foe's weapon: its sheet
            "player": player.name if player is not None else None,
            "choices": pending["choices"] if chooser else [], "chooser": chooser, "gm": actor.role == "gm"}


def unseen_result(game: "Game", d: dict, card: dict) -> tuple | None:
    """An attack's result for the defender who chose a defense against an attacker they could not see (#58): the
    line for that player alone (``(text, "player:<id>", detail)``, ``attacks.evolve`` logs it): whether it hit and
    what their token took, the attacker never named nor placed (the table's line is the GM's, or names a token out
    of their view). None for any other attack."""
    attacker, target = game.tokens.get(d.get("attacker")), game.tokens.get(d.get("target"))
    if "defense" not in d or attacker is None or target is None or not target.owner or target.hidden:
        return None
    defender = Actor("player", target.owner)
    if fog.may_see(game, defender, attacker):
        return None
    named = re.compile(rf"(?<!\w){re.escape(attacker.name)}(?!\w)")
    entry = next((t for t in card["targets"] if t["id"] == target.id), None)
    hit = bool(entry["hit"]) if entry is not None else bool(d["result"]["hit"])
    took = [w for w in (entry or {}).get("effects", []) if not named.search(str(w))]  # "1 HP injury", "dodges"
    if hit:
        text = (say("An unseen foe's attack hits {target}: {took}", target=target.name, took=joined(took)) if took
                else say("An unseen foe's attack hits {target}", target=target.name))
    else:
        text = (say("An unseen foe's attack misses {target}: {took}", target=target.name, took=joined(took)) if took
                else say("An unseen foe's attack misses {target}", target=target.name))
    told = {"attacker": say("an unseen foe"), "attacker_id": None, "hit": hit, "verdict": say("HIT") if hit else say("MISS"),
            "area": None, "targets": [{"id": target.id, "name": target.name, "hit": hit, "effects": took, "detail": ""}],
            "spent": []}
    return text, defender.audience, {"attack": {"hit": hit, "summary": "", "rolls": [], "modifiers": [], "details": {},
                                                "effects": []}, "card": told}


def told_the_table(game: "Game", actor: "Actor", card: dict) -> dict | None:
    """An attack's result card for the table screen when it may not see the attacker (#70): the card of any attack,
    the attacker "someone out of sight" (never named, its id never sent), the targets the screen sees with what each
    took (words naming a token it may not see left out), what the attack cost the attacker left out; with its summary
    (``text``). None when the screen sees the attacker (the card as it is) or none of the targets (nothing to show)."""
    attacker = game.tokens.get(card.get("attacker_id") or "")
    if attacker is not None and fog.may_see(game, actor, attacker):
        return None
    seen = [t for t in card.get("targets") or [] if (token := game.tokens.get(t["id"])) is not None
            and fog.may_see(game, actor, token)]
    if not seen:
        return None
    unseen = characters.unseen_names(game, actor)
    named = characters.naming(unseen) if unseen else None
    targets = [{**t, "effects": [w for w in t.get("effects") or [] if not (named and named.search(str(w)))],
                "detail": "" if named and named.search(str(t.get("detail") or "")) else t.get("detail") or ""}
               for t in seen]
    hits = sum(1 for t in targets if t.get("hit"))
    names = ", ".join(t["name"] for t in targets)
    if len(targets) > 1:
        verdict = say("HIT {n} OF {total}", n=hits, total=len(targets)) if hits else say("MISS")
    else:
        verdict = say("HIT") if hits else say("MISS")
    text = (say("Someone out of sight hits {targets}", targets=names) if hits
            else say("Someone out of sight misses {targets}", targets=names))
    area = card.get("area")
    return {"text": text, "attacker": say("someone out of sight"), "attacker_id": None, "hit": bool(hits),
            "verdict": verdict, "area": None if area and named and named.search(str(area)) else area,
            "targets": targets, "spent": []}
