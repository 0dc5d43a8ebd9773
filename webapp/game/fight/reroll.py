"""Benny rerolls: a Wild Card whose attack missed may spend a Benny to reroll it (Savage Worlds).

The rules say when it is offered and which roll counts (``reroll_offer``, ``reroll_kept`` and
``spend_benny`` of a system that has them). ``with_offer`` adds the offer to an attack's event when it
is decided (the attack as sent, the fight's books before it, the attack's view), so the log carries it
as a fact; the offer lasts until the next thing happens in the game (another attack, a move, a turn, an
action) or its player (the GM, who answers for anyone) takes it or lets it go. The reroll is decided
here: the attack is planned again as it was and rolled with new dice; the event carries the new roll
and the sheets after it, and ``evolve`` applies them, never calling the rules again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

import rules
from rules.dice import DiceSource

from . import aiming, attacks, characters, soak
from ..bridge import fighting, fog
from ..bridge.fighting import rules_call
from ..core.feature import Feature, Follows
from ..core.model import Actor, Event, Rejected
from ..core.text import N_
from rules.text import say

if TYPE_CHECKING:
    from ..core.model import Game


class BennyReroll(BaseModel):
    """The answer to a reroll offer: ``accept`` spends a Benny and rolls the attack again."""

    model_config = ConfigDict(extra="forbid", strict=True)
    type: Literal["benny_reroll"]
    accept: bool


COMMANDS = (BennyReroll,)
EVENTS = ("benny_rerolled", "reroll_declined")
#: what ends the offer besides its answer and the next attack: the game moved on (``_offer_ends`` clears it
#: before they are applied; the prompt is drawn again on these)
ENDS_OFFER = frozenset({"defense_asked", "defense_dropped", "turn_started", "acted", "combat_started", "combat_ended",
                        "token_moved", "token_removed", "soak_rolled", "soak_declined"})
#: the attack event's keys that are its view (who, whom, with what), kept for the reroll's own event
_NOT_VIEW = ("result", "sheets", "fight_state", "due", "soak", "turn", "reroll", "defense")


def with_offer(game: "Game", cmd, actor: Actor, events: list[Event]) -> list[Event]:
    """An attack's events with the reroll the rules offer its attacker (``data["reroll"]``); the events
    as they were for a system without Benny rerolls, or when the attack was not one the rules reroll."""
    system = rules.get(game.system)
    offer = getattr(system, "reroll_offer", None)
    if not callable(offer) or not isinstance(cmd, attacks.Attack):
        return events
    for event in events:
        if event.type != "attack_resolved" or event.data.get("template"):
            continue
        token = game.tokens.get(event.data.get("attacker", ""))
        if token is None:
            continue
        found = offer(fighting.sheet_of(game, token), soak._result(event.data), token.id)
        if found:
            event.data["reroll"] = {
                "attacker": token.id, **found, "attack": cmd.model_dump(exclude_none=True),
                "sender": {"role": actor.role, "player_id": actor.player_id},
                "fight_state": game.combat["state"] if game.combat else None,
                "view": {k: v for k, v in event.data.items() if k not in _NOT_VIEW}}
    return events


def _offered(game: "Game", cmd, actor: Actor, events: list[Event], dice) -> list[Event]:
    return with_offer(game, cmd, actor, events)


def _offer_ends(game: "Game", event: Event, log) -> None:
    game.pending_reroll = None


def _answerable(game: "Game", actor: Actor, offer: dict) -> bool:
    token = game.tokens.get(offer["attacker"])
    return actor.role == "gm" or (actor.role == "player" and token is not None and token.owner == actor.player_id)


def decide(game: "Game", cmd: BennyReroll, actor: Actor, dice: DiceSource) -> list[Event]:
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    offer = game.pending_reroll
    if not offer:
        raise Rejected(N_("no reroll is offered: a Benny rerolls an attack right after it missed"))
    if not _answerable(game, actor, offer):
        raise Rejected(N_("only the attacker's player (or the GM) may spend its Benny"))
    token = game.tokens.get(offer["attacker"])
    if token is None:
        raise Rejected(N_("the attacker is gone"))
    if not cmd.accept:
        return [Event("reroll_declined", {"attacker": token.id})]
    system = rules.get(game.system)
    sheet = rules_call(lambda: system.spend_benny(fighting.sheet_of(game, token), "a reroll", token.name))
    attack = attacks.Attack(**offer["attack"])
    sender = Actor(offer["sender"]["role"], offer["sender"].get("player_id"))
    # planned as it was: the fight's books before the attack (the reroll is the same action, not another)
    saved = game.combat["state"] if game.combat else None
    try:
        if game.combat and offer.get("fight_state") is not None:
            game.combat["state"] = offer["fight_state"]
        p = aiming.plan(game, attack, sender)
    finally:
        if game.combat:
            game.combat["state"] = saved
    result = rules_call(lambda: system.attack(p["request"], dice))
    kept = rules_call(lambda: system.reroll_kept(int(offer["best"]), result))
    sheets = {}
    if kept["reroll_counts"]:
        for token_id in dict.fromkeys(e.target for e in result.effects):
            other = game.tokens.get(token_id)
            if other is not None:
                start = sheet if token_id == token.id else fighting.sheet_of(game, other)
                sheets[token_id] = rules_call(lambda: system.apply(start, attacks._only(result, token_id)))
    sheets.setdefault(token.id, sheet)
    return [Event("benny_rerolled", {**offer["view"], "result": result.to_dict(), "sheets": sheets,
                                     "first_best": offer["best"], "best": kept["best"],
                                     "counts": "reroll" if kept["reroll_counts"] else "first",
                                     "by": actor.role})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    if event.type == "attack_resolved":
        game.pending_reroll = dict(d["reroll"]) if d.get("reroll") else None
        return
    game.pending_reroll = None
    token = game.tokens.get(d["attacker"])
    name = token.name if token else "?"
    secret = "gm" if token is not None and token.hidden else "all"
    if event.type == "reroll_declined":
        log(say("{name} keeps the roll (no Benny spent)", name=name), secret, None)
        return
    verdict = (say("the reroll counts") if d["counts"] == "reroll"
               else say("the first roll stands (the better total counts)"))
    log(say("{name} spends a Benny to reroll the attack: best {first}, then {best}: {verdict}", name=name,
            first=d["first_best"], best=d["best"], verdict=verdict), secret, None)
    if d["counts"] == "reroll":  # the reroll is the attack now: its line, its card, its sheets
        attacks.evolve(game, Event("attack_resolved", {k: v for k, v in d.items()
                                                         if k not in ("first_best", "best", "counts", "by")}), log)
    else:
        characters.set_sheet(game, d["attacker"], d["sheets"][d["attacker"]])
        log(say("{line} (the reroll; not counted)", line=d["result"]["summary"]), secret, None)


#: follows an attack (after its Soak offers): the reroll it offers, decided with it, kept when it is applied; and
#: the offer ends when the game moves on
FEATURE = Feature("reroll", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), dice=True, events=EVENTS, evolve=evolve,
                  follows=(Follows(commands=("attack", "choose_defense"), decided=_offered,
                                   events=("attack_resolved",), evolved=evolve),
                           Follows(events=ENDS_OFFER, evolved=_offer_ends, first=True)))


def pending_view(game: "Game", actor: Actor) -> dict | None:
    """The reroll this audience may take (the attacker's player; the GM, for anyone), with the name,
    the first roll's best total and the Bennies left; None when there is none, or when the reroll was taken and
    waits for the table's dice (#59: the roll's own prompt asks for the faces)."""
    o = game.pending_reroll
    if not o or ((game.pending_roll or {}).get("command") or {}).get("type") == "benny_reroll":
        return None
    token = game.tokens.get(o["attacker"])
    if token is None or not fog.may_see(game, actor, token) or not _answerable(game, actor, o):
        return None
    sheet = fighting.sheet_of(game, token)
    bennies = sheet.get("bennies", o.get("bennies"))
    return {"attacker_id": token.id, "attacker": token.name, "best": o["best"], "bennies": bennies,
            "npc": not token.owner, "gm": actor.role == "gm"}
