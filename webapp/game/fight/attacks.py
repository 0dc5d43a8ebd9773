"""Attacks: the game's rule system decides; the app brings the board, the sheets and the dice.

``decide`` rolls an attack (or asks the defender's player first): the event
carries the system's whole result and the sheets as the system left them, so
``evolve`` applies it without calling the rules again. How an attack is aimed
and previewed is :mod:`webapp.game.fight.aiming`; the defender's choices and prompt
:mod:`webapp.game.fight.defenses`; the result card :mod:`webapp.game.fight.result_card`.
"""

from __future__ import annotations

import json
import re
import secrets
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

from rules.dice import DiceSource
from rules.system import NO_DEFENSE, AttackResult, RuleNotImplemented

from . import characters, result_card
from ..bridge import fighting, fog
from .aiming import AttackCommand, defense_choices, plan, preview, reachable  # noqa: F401 - preview: the hub's
from ..bridge.fighting import rules_call, settings_of
from .defenses import chosen, unseen_result
from ..core import waits
from ..core.feature import Feature
from ..core.model import Actor, Event, Rejected
from ..core.text import N_
from rules.text import say

if TYPE_CHECKING:
    from ..core.model import Game


class PreviewAttack(AttackCommand):
    type: Literal["preview_attack"]


class Attack(AttackCommand):
    type: Literal["attack"]


class ChooseDefense(BaseModel):
    """The defender's answer to an attack that waits on it (or the GM's, for anyone; ``cancel``: the GM drops it)."""

    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    type: Literal["choose_defense"]
    defense: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None
    cancel: bool = False
    #: the waiting attack answered (``pending_defense.id``): an answer to one called off or undone is refused
    attack: Annotated[str, StringConstraints(min_length=1, max_length=40)] | None = None


COMMANDS = (PreviewAttack, Attack, ChooseDefense)
EVENTS = ("attack_resolved", "defense_asked", "defense_dropped")


def _due_after(game: "Game", system, state: dict, cmd: AttackCommand) -> list[dict]:
    """The attacks still due once this one is rolled: the rules' own list where they keep one,
    and the free attacks moves gave, less the one just made."""
    due = list(game.combat.get("due", []))
    for i, entry in enumerate(due):
        if entry.get("attacker") == cmd.attacker and entry.get("target") == cmd.target:
            del due[i]
            break
    fresh = system.due_attacks(state)
    if fresh is None:
        return due
    return [e for e in due if e.get("options", {}).get("free_attack")] + fresh


def _only(result: AttackResult, token_id: str) -> AttackResult:
    """The result as one token takes it: its effects alone, and it named as the target (an ``apply``
    that reads ``details["target"]`` would otherwise look for the aimed-at token's effects on every
    sheet an area attack or a stray shot touched)."""
    effects = [e for e in result.effects if e.target == token_id]
    return AttackResult(result.hit, result.summary, result.rolls, result.modifiers, effects,
                        {**result.details, "target": token_id})


def decide(game: "Game", cmd, actor: "Actor", dice: DiceSource) -> list[Event]:
    if isinstance(cmd, ChooseDefense):
        return _choose_defense(game, cmd, actor, dice)
    if game.pending_defense:
        waiting = game.tokens.get(game.pending_defense["target"])
        if waiting is None or not fog.may_see(game, actor, waiting):  # an unseen defender is not named (#58)
            raise Rejected(N_("an attack is waiting for a defender's defense: it goes first"))
        raise Rejected(N_("an attack is waiting for %(name)s's defense: it goes first"), name=waiting.name)
    p = plan(game, cmd, actor)
    system = p["system"]
    target = p["target"]
    if cmd.defense is not None:
        if actor.role == "player" and target.owner != actor.player_id:
            raise Rejected(N_("%(name)s's player (or the GM) chooses %(name)s's defense"), name=target.name)
        p["request"].options["defense"] = chosen(system, p["request"], cmd.defense, target)
    elif target.owner and not (actor.role == "player" and actor.player_id == target.owner) and cmd.template is None:
        reachable(p)  # an attack the rules refuse is refused to its sender, never put to the defender
        choices = defense_choices(system, p["request"])
        open_ = [c for c in choices if c["available"]]
        if any(c["key"] != NO_DEFENSE for c in open_):  # a player's token: its player chooses, before the roll
            return [Event("defense_asked", {
                "id": secrets.token_hex(4), "attack": cmd.model_dump(exclude_none=True), "sender": {"role": actor.role, "player_id": actor.player_id},
                "attacker": p["attacker"].id, "target": target.id, "weapon": cmd.weapon, "choices": choices})]
        if open_:  # "No defense" is all the rules leave: nothing to ask, it is rolled with that
            p["request"].options["defense"] = chosen(system, p["request"], NO_DEFENSE, target)
    return _roll(game, cmd, p, dice)


def _choose_defense(game: "Game", cmd: ChooseDefense, actor: "Actor", dice: DiceSource) -> list[Event]:
    pending = game.pending_defense
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    if cmd.attack is not None and (not pending or pending.get("id", cmd.attack) != cmd.attack):
        raise Rejected(N_("that attack no longer waits for a defense: it was called off or taken back"))
    if not pending:
        raise Rejected(N_("no attack is waiting for a defense"))
    target = game.tokens.get(pending["target"])
    if actor.role != "gm" and (target is None or target.owner != actor.player_id):
        raise Rejected(N_("only the defender's player or the GM chooses this defense"))
    if cmd.cancel:
        if actor.role != "gm":
            raise Rejected(N_("only the GM can call an attack off"))
        return [Event("defense_dropped", {"target": pending["target"]})]
    if cmd.defense is None:
        raise Rejected(N_("pick a defense"))
    sender = Actor(pending["sender"]["role"], pending["sender"].get("player_id"))
    attack = Attack(**pending["attack"])
    p = plan(game, attack, sender)
    p["request"].options["defense"] = chosen(p["system"], p["request"], cmd.defense, p["target"])
    events = _roll(game, attack, p, dice)
    for event in events:
        event.data["defense"] = {"key": cmd.defense, "by": "gm" if actor.role == "gm" else "player"}
    return events


def _roll(game: "Game", cmd: AttackCommand, p: dict, dice: DiceSource) -> list[Event]:
    system = p["system"]
    result = rules_call(lambda: system.attack(p["request"], dice))
    sheets = {}
    for token_id in dict.fromkeys(e.target for e in result.effects):
        token = game.tokens.get(token_id)
        if token is None:
            continue
        sheet = fighting.sheet_of(game, token)
        try:
            sheets[token_id] = system.apply(sheet, _only(result, token_id))
        except RuleNotImplemented:
            pass  # the result is in the log; the GM applies it by hand
    data = {**p["view"], "result": result.to_dict(), "sheets": sheets}
    if game.combat:  # the rules keep the books of the fight: actions, ticks or shots spent
        data["fight_state"] = system.after_attack(game.combat["state"], result, settings_of(game))
        data["due"] = _due_after(game, system, data["fight_state"], cmd)
        turn = system.turn_now(data["fight_state"])
        if turn is not None:
            data["turn"] = turn
    return [Event("attack_resolved", data)]


def _names_hidden(game: "Game", data: dict) -> bool:
    """Whether an attack's result touches or names a hidden token (a bystander hit, a template's victim):
    then its log line is the GM's alone."""
    hidden = [t for t in game.tokens.values() if t.hidden]
    if not hidden:
        return False
    if any(game.tokens[i].hidden for i in data.get("sheets", {}) if i in game.tokens):
        return True
    said = json.dumps(data.get("result"), default=str)
    return any(json.dumps(t.id) in said or re.search(rf"(?<!\w){re.escape(t.name)}(?!\w)", said) for t in hidden)


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    if event.type == "defense_asked":
        waits.ask(game, "defense", dict(d))
        attacker, target = game.tokens.get(d["attacker"]), game.tokens.get(d["target"])
        secret = bool((attacker and attacker.hidden) or (target and target.hidden))
        log(say("{attacker} attacks {target}: waiting for {target}'s defense", attacker=attacker.name if attacker else "?",
                target=target.name if target else "?"), "gm" if secret else "all", None)
        return
    if event.type == "defense_dropped":
        waits.keep(game, "defense")
        log(say("the GM called the attack off"), "all", None)
        return
    waits.keep(game, "defense")
    for token_id, sheet in d["sheets"].items():
        characters.set_sheet(game, token_id, sheet)
    if game.combat and "fight_state" in d:
        game.combat["state"] = d["fight_state"]
        game.combat["due"] = d.get("due", game.combat.get("due", []))
        if "turn" in d:  # the shot took the one to act out of the fight: the rules name who acts now
            game.combat["current"] = d["turn"]["current"]
            game.combat["order"] = list(d["turn"]["order"])
    attacker, target = game.tokens.get(d["attacker"]), game.tokens.get(d["target"])
    forced = bool(d.get("forced"))

    def ruled(line):
        return say("{line} (GM ruling)", line=line) if forced else line

    card = result_card.card(game, d)
    told = unseen_result(game, d, card)
    if told is not None:  # the defender who could not see who attacked learns how it went, alone (#58)
        log(*told)
    if (attacker and attacker.hidden) or (target and target.hidden) or \
            (not d.get("template") and _names_hidden(game, d)):  # a bystander hit by a miss, say
        log(ruled(d["result"]["summary"]), "gm", {"attack": d["result"], "card": card})
        return
    hidden = {t["id"] for t in card["targets"] if game.tokens[t["id"]].hidden}
    if not hidden:
        log(ruled(d["result"]["summary"]), "all", {"attack": d["result"], "card": card})
        return
    # an area attack that caught a hidden token: the GM reads it all; the table, who it can see was hit
    log(ruled(d["result"]["summary"]), "gm", {"attack": d["result"], "card": card})
    seen = {**card, "targets": [t for t in card["targets"] if t["id"] not in hidden]}
    names = ", ".join(t["name"] for t in seen["targets"]) or say("nobody the table can see")
    told = {"hit": d["result"]["hit"], "summary": "", "rolls": [], "modifiers": [], "details": {},
            "effects": [e for e in d["result"]["effects"] if e["target"] not in hidden]}
    who = attacker.name if attacker else "?"
    log(ruled(say("{name}'s area attack hits: {names}", name=who, names=names) if d["result"]["hit"] else
              say("{name}'s area attack goes off: {names}", name=who, names=names)), "all",
        {"attack": told, "card": seen})


#: a preview is a question the hub answers (nothing stored); what follows an attack (Soak, a reroll) says so itself
#: an attack's odds before it is made are relayed, never stored (webapp/live/relays.py)
FEATURE = Feature("attacks", COMMANDS, decide={Attack: decide, ChooseDefense: decide}, dice=True, events=EVENTS,
                  evolve=evolve, routes={PreviewAttack: "preview"})
