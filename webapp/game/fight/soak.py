"""Soak rolls: a Wild Card that takes Wounds may spend a Benny to soak them (Savage Worlds); a Soak roll that left
Wounds may be rerolled with another Benny, the better roll counting (#70: the rules' ``again``, offered the same way).

The rules say who may soak and how the roll goes (``soak_offer`` and ``soak`` of a system that has
them); the table keeps the offer until the token's player (or the GM, who answers for anyone) takes
it or lets it go, in the turn the Wounds are taken (Next turn waits for it, as for a waiting defense: the
rules roll Soak right when the Wounds come), and the fight's end withdraws it. ``with_offers`` adds the rules' offers to an attack's event when it is decided, so
the log carries them as facts; ``evolve`` keeps them in ``game.pending_soak`` and applies the roll's
sheet as the event says, never calling the rules again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict

import rules
from rules.dice import DiceSource
from rules.system import AttackResult, Effect

from . import characters
from ..bridge import fighting, fog
from ..core import waits
from ..core import text
from ..bridge.fighting import rules_call
from ..core.feature import Feature, Follows
from ..core.model import Actor, Event, Rejected
from ..core.text import N_
from rules.text import say

if TYPE_CHECKING:
    from ..core.model import Game


class Soak(BaseModel):
    """The answer to a Soak offer: ``accept`` spends a Benny and rolls; no lets the Wounds stand.
    ``token_id``: whose offer, when several wait (by default the first the sender may answer)."""

    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    type: Literal["soak"]
    accept: bool
    token_id: text.Id | None = None


COMMANDS = (Soak,)
EVENTS = ("soak_rolled", "soak_declined")


def _result(data: dict) -> AttackResult:
    r = data["result"]
    return AttackResult(bool(r.get("hit")), str(r.get("summary", "")), [], [],
                        [Effect(e["kind"], e["target"], dict(e.get("data") or {})) for e in r.get("effects", [])],
                        dict(r.get("details") or {}))


def with_offers(game: "Game", events: list[Event]) -> list[Event]:
    """An attack's events with the Soak rolls the rules offer its wounded targets (``data["soak"]``:
    ``[{"target", "wounds", "before"}]``); the events as they were for a system without Soak rolls."""
    system = rules.get(game.system)
    offer = getattr(system, "soak_offer", None)
    if not callable(offer):
        return events
    for event in events:
        if event.type != "attack_resolved":
            continue
        result = _result(event.data)
        offers = []
        for token_id, after in event.data.get("sheets", {}).items():
            token = game.tokens.get(token_id)
            if token is None:
                continue
            found = offer(fighting.sheet_of(game, token), after, result, token_id)
            if found:
                offers.append({"target": token_id, **found})
        if offers:
            event.data["soak"] = offers
    return events


def _offered(game: "Game", cmd, actor: Actor, events: list[Event], dice) -> list[Event]:
    return with_offers(game, events)


def _answerable(game: "Game", actor: Actor, offer: dict) -> bool:
    token = game.tokens.get(offer["target"])
    return actor.role == "gm" or (actor.role == "player" and token is not None and token.owner == actor.player_id)


def decide(game: "Game", cmd: Soak, actor: Actor, dice: DiceSource) -> list[Event]:
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    waiting = [o for o in game.pending_soak if cmd.token_id in (None, o["target"])]
    if not waiting:  # answered already, or the fight ended (a Soak roll is made when the Wounds are taken)
        token = game.tokens.get(cmd.token_id or "")
        if token is not None and fog.may_see(game, actor, token):
            raise Rejected(N_("no Soak roll is waiting for %(name)s: it was answered, or the fight ended"),
                           name=token.name)
        raise Rejected(N_("no Soak roll is waiting: it was answered, or the fight ended"))
    mine = [o for o in waiting if _answerable(game, actor, o)]
    if not mine:
        raise Rejected(N_("only the wounded token's player (or the GM) answers its Soak roll"))
    offer = mine[0]
    token = game.tokens[offer["target"]]
    if not cmd.accept:
        return [Event("soak_declined", {"target": token.id, **({"reroll": True} if "soaked" in offer else {})})]
    system = rules.get(game.system)
    out = rules_call(lambda: system.soak(fighting.sheet_of(game, token), offer, dice, token.name))
    again = out.get("again")  # a Soak roll that left Wounds: a Benny may reroll it, the better roll counts (#70)
    return [Event("soak_rolled", {"target": token.id, "sheet": out["sheet"], "soaked": out["soaked"],
                                  "roll": out["roll"], "rolls": [r.to_dict() for r in out["rolls"]],
                                  "summary": out["log"], "by": actor.role,
                                  **({"again": {**again, "target": token.id}} if again else {})})]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    token = game.tokens.get(d.get("target", ""))
    secret = "gm" if token is not None and token.hidden else "all"
    if event.type == "attack_resolved":  # the offers an attack leaves: a newer one replaces a token's older one
        fresh = d.get("soak") or []
        ids = {o["target"] for o in fresh} | set(d.get("sheets", {}))
        # (no log line of its own: the attack's is the newest, and the prompt asks)
        waits.keep(game, "soak", lambda o: o["target"] not in ids)
        for o in fresh:
            waits.ask(game, "soak", dict(o))
        return
    waits.keep(game, "soak", lambda o: o["target"] != d["target"])
    if event.type == "soak_declined":
        log(say("{name} keeps the Soak roll (no reroll)", name=token.name if token else "?") if d.get("reroll") else
            say("{name} takes the Wounds (no Soak roll)", name=token.name if token else "?"), secret, None)
        return
    if d.get("again"):  # the reroll offered (#70): answered like the Soak offer (Next turn waits for it too)
        waits.ask(game, "soak", dict(d["again"]))
    characters.set_sheet(game, d["target"], d["sheet"])
    log(d["summary"], secret, None)
    for roll in d["rolls"]:
        log(roll["text"], secret, {"roll": roll})


def _fight_ends(game: "Game", event: Event, log) -> None:
    """The fight is over: a Soak roll not made is not made (the Wounds stand, #58), each said in the log."""
    for o in game.pending_soak:
        token = game.tokens.get(o["target"])
        if token is not None:
            log(say("{name} takes the Wounds (no Soak roll: the fight ended)", name=token.name),
                "gm" if token.hidden else "all", None)
    waits.keep(game, "soak")


#: follows an attack: the Soak rolls it offers, decided with it, kept when it is applied; the fight's end withdraws
#: them (Next turn waits for them: webapp/game/fight/combat.py)
FEATURE = Feature("soak", COMMANDS, decide=dict.fromkeys(COMMANDS, decide), dice=True, events=EVENTS, evolve=evolve,
                  follows=(Follows(commands=("attack", "choose_defense"), decided=_offered,
                                   events=("attack_resolved",), evolved=evolve),
                           Follows(events=("combat_ended",), evolved=_fight_ends, first=True)))


def pending_view(game: "Game", actor: Actor) -> dict | None:
    """The Soak offers this audience answers (the wounded token's player; the GM, every one), each with
    the token's name, the Wounds and the Bennies left; None when there is none to answer. An offer taken whose
    Vigor roll waits for the table's dice (#59) is answered: the roll's own prompt asks for the faces (on a phone
    both prompts sit at the bottom of the screen, one over the other)."""
    rolling = (game.pending_roll or {}).get("command") or {}
    offers = []
    for o in game.pending_soak:
        token = game.tokens.get(o["target"])
        if token is None or not fog.may_see(game, actor, token) or not _answerable(game, actor, o):
            continue
        if rolling.get("type") == "soak" and rolling.get("token_id") in (None, o["target"]):
            continue
        sheet = fighting.sheet_of(game, token)
        offers.append({"target_id": token.id, "target": token.name, "wounds": o["wounds"],
                       "bennies": sheet.get("bennies"), "npc": not token.owner,
                       # a reroll of a Soak roll that left Wounds (#70): what the roll soaked, the better counts
                       **({"soaked": o["soaked"]} if "soaked" in o else {})})
    return {"offers": offers, "gm": actor.role == "gm"} if offers else None
