"""Fights and dice: the commands that ask a game's rule system for turns and rolls.

Pure like ``table``: ``decide`` checks a command and returns events, every
die already rolled (from the dice source the hub hands in) and every rule
outcome already in the event; ``evolve`` applies an event without calling the
rules again, so replaying the log after a rule fix gives the same game.

The system's own combat state (cards, ticks, phases...) is stored as the
system returned it and handed back on the next call; this module never reads
inside it.
"""

from __future__ import annotations

import re

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules import movement
from rules.dice import DiceError, DiceSource, RandomDice, parse
from rules.system import RuleError

from . import characters, free_attacks, waiting
from ..bridge import fighting, fog, zonelayout
from ..core import text
from ..core.feature import Feature, Follows
from ..bridge.fighting import (combatant, current_token, fighters_of, in_fight, named, path_and_cost, position_of,
                               rules_call, settings_of)
from ..core.text import N_
from ..core.model import Event, Rejected
from rules.text import Say, said, say

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

Id = text.Id
MAX_ROLL_DICE = 100


class _Command(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True, strict=True)


class Roll(_Command):
    type: Literal["roll"]
    expr: Annotated[text.Line, StringConstraints(min_length=1, max_length=60)]
    secret: bool = False


class SetSettings(_Command):
    type: Literal["set_settings"]
    settings: dict[str, Any]


class StartCombat(_Command):
    type: Literal["start_combat"]
    token_ids: Annotated[list[Id], Field(min_length=1, max_length=100)]
    surprised: Annotated[list[Id], Field(max_length=100)] = []  # the tokens caught unaware: the rules' surprise


class NextTurn(_Command):
    type: Literal["next_turn"]


class SetOrder(_Command):
    type: Literal["set_order"]
    order: Annotated[list[Id], Field(min_length=1, max_length=100)]


class EndCombat(_Command):
    type: Literal["end_combat"]


class Act(_Command):
    """A turn action the system offers that is neither a move nor an attack (hold, a maneuver, aim...)."""

    type: Literal["act"]
    token_id: Id
    action: Annotated[text.Line, StringConstraints(min_length=1, max_length=80)]
    options: dict[str, Any] = {}


class Reach(_Command):
    """Where a token can go now, with the cost of each square: a question, nothing is stored."""

    type: Literal["reach"]
    token_id: Id


COMMANDS = (Roll, SetSettings, StartCombat, NextTurn, SetOrder, EndCombat, Act)
QUERIES = (Reach,)
EVENTS = ("dice_rolled", "settings_set", "combat_started", "turn_started", "order_set", "combat_ended", "acted")


# --- who may ------------------------------------------------------------------


def authorize(game: "Game", cmd: Any, actor: "Actor") -> None:
    if actor.role == "gm":
        return
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    if isinstance(cmd, Roll):
        return
    if isinstance(cmd, Act):
        token = game.tokens.get(cmd.token_id)
        if token is None or not fog.may_see(game, actor, token) or token.owner != actor.player_id:
            raise Rejected(N_("no token %(id)s of yours in this game"), id=repr(cmd.token_id))
        return
    if isinstance(cmd, NextTurn):
        current = current_token(game)
        if current is not None and current.owner == actor.player_id:
            return  # a player ends their own turn
        raise Rejected(N_("only the GM, or the player whose turn it is, can end the turn"))
    raise Rejected(N_("only the GM can do that"))


# --- deciding -----------------------------------------------------------------


def _check_roll(expr: str) -> None:
    try:
        terms = parse(expr)
    except DiceError as exc:
        raise Rejected(N_("expr: %(error)s"), error=said(exc)) from None  # the rules' words: in the sender's language
    dice = sum(t.count for t in terms)
    if dice > MAX_ROLL_DICE:
        raise Rejected(N_("expr: a roll has %(n)s dice at most"), n=MAX_ROLL_DICE)


def _check_settings(game: "Game", changes: dict) -> dict:
    defaults = settings_of(game)
    system = rules.get(game.system)
    if not defaults:
        raise Rejected(N_("%(system)s has no settings"), system=system.name)
    for key, value in changes.items():
        if key not in defaults:
            raise Rejected(N_("settings: %(system)s has no setting %(key)s; it has %(keys)s"), system=system.name,
                           key=repr(key), keys=", ".join(sorted(defaults)))
        want = defaults[key]
        same = type(value) is type(want) or (isinstance(want, float) and type(value) is int)
        if not same:
            raise Rejected(_MUST_BE.get(type(want), N_("settings.%(key)s: must be like the default %(default)s")),
                           key=key, default=repr(want))
    changed = {k: v for k, v in changes.items() if game.settings.get(k, defaults[k]) != v}
    if not changed:
        raise Rejected(N_("nothing to change"))
    validate = getattr(system, "validate_settings", None)
    if validate is not None:
        try:
            validate({**defaults, **changed})
        except (RuleError, ValueError) as exc:
            raise Rejected(N_("settings: %(error)s"), error=said(exc)) from None
    return changed


#: a setting of the wrong kind, said whole for each kind of default
_MUST_BE = {bool: N_("settings.%(key)s: must be yes or no (true/false), like the default %(default)s"),
            int: N_("settings.%(key)s: must be a whole number, like the default %(default)s"),
            float: N_("settings.%(key)s: must be a number, like the default %(default)s"),
            str: N_("settings.%(key)s: must be text, like the default %(default)s"),
            list: N_("settings.%(key)s: must be a list, like the default %(default)s"),
            dict: N_("settings.%(key)s: must be a table of values, like the default %(default)s")}


def decide(game: "Game", cmd: Any, actor: "Actor", dice: DiceSource) -> list[Event]:
    authorize(game, cmd, actor)
    system = rules.get(game.system)
    if isinstance(cmd, Roll):
        _check_roll(cmd.expr)
        record = dice.roll(cmd.expr, say("roll"))  # the purpose is words: "roll", "Wurf", "jet"
        return [Event("dice_rolled", {"by": actor.audience, "expr": cmd.expr, "secret": cmd.secret,
                                      "roll": record.to_dict()})]
    if isinstance(cmd, SetSettings):
        return [Event("settings_set", {"changes": _check_settings(game, cmd.settings)})]
    if isinstance(cmd, StartCombat):
        if game.combat:
            raise Rejected(N_("a fight is on already; end it first"))
        ids = list(dict.fromkeys(cmd.token_ids))
        missing = [i for i in ids if i not in game.tokens]
        if missing:
            raise Rejected(N_("no token %(id)s in this game"), id=repr(missing[0]))
        caught = list(dict.fromkeys(cmd.surprised))
        stray = [i for i in caught if i not in ids]
        if stray:
            name = game.tokens[stray[0]].name if stray[0] in game.tokens else repr(stray[0])
            raise Rejected(N_("%(name)s is surprised but not in the fight"), name=name)
        fighters = [combatant(game, game.tokens[i]) for i in ids]
        for fighter in fighters:
            if fighter.id in caught:
                fighter.state["surprised"] = True
        update = rules_call(lambda: system.begin_fight(fighters, dice, settings_of(game)), game, actor)
        return [Event("combat_started", {"token_ids": ids, "surprised": caught, "update": update.to_dict()})]
    if not game.combat:
        raise Rejected(N_("there is no fight on"))
    if isinstance(cmd, EndCombat):
        waiting.held(game, actor, "fight_end")
    if isinstance(cmd, NextTurn):
        waiting.held(game, actor, "turn")
        update = rules_call(lambda: system.next_turn(game.combat["state"], fighters_of(game), dice, settings_of(game)),
                            game, actor)
        return [Event("turn_started", {"update": update.to_dict()})]
    if isinstance(cmd, SetOrder):
        order = list(dict.fromkeys(cmd.order))
        if sorted(order) != sorted(game.combat["order"]):
            raise Rejected(N_("a new order lists every token in the fight once"))
        if order == game.combat["order"]:
            raise Rejected(N_("that is the order already"))
        state = rules_call(lambda: system.reorder(game.combat["state"], order, game.combat["current"],
                                                  settings_of(game)), game, actor)
        return [Event("order_set", {"order": order, "state": state})]
    if isinstance(cmd, EndCombat):  # the rules' end-of-fight recovery, as a fact in the event
        end = rules_call(lambda: system.end_fight(game.combat["state"], fighters_of(game), dice, settings_of(game)),
                         game, actor) if hasattr(system, "end_fight") else None
        return [Event("combat_ended", {"round": game.combat["round"], **(
            {"sheet_changes": end.sheet_changes, "log": end.log, "rolls": [r.to_dict() for r in end.rolls]}
            if end is not None else {})})]
    if isinstance(cmd, Act):
        if cmd.token_id not in game.tokens:
            raise Rejected(N_("no token %(id)s in this game"), id=repr(cmd.token_id))
        if cmd.token_id not in game.combat["order"]:
            raise Rejected(N_("%(name)s is not in the fight"), name=game.tokens[cmd.token_id].name)
        actor_c = combatant(game, game.tokens[cmd.token_id])
        update = rules_call(lambda: system.act(game.combat["state"], actor_c, cmd.action, fighters_of(game), dice,
                                                settings_of(game), cmd.options), game, actor)
        if (update.current, update.round) != (game.combat["current"], game.combat["round"]):
            waiting.held(game, actor, "turn")  # an action that ends the turn (Hold...) waits as Next turn does
        return [Event("acted", {"token_id": cmd.token_id, "action": cmd.action, "update": update.to_dict()})]
    raise Rejected(f"unhandled command {type(cmd).__name__}")  # pragma: no cover


# --- applying -------------------------------------------------------------------


def _apply_changes(game: "Game", update: dict, log) -> list:
    """The sheets the rules changed, and their lines and rolls in the log; the lines as logged (ids named)."""
    for token_id, changes in update.get("sheet_changes", {}).items():
        token = game.tokens.get(token_id)
        if token is not None:
            characters.set_sheet(game, token_id, {**fighting.sheet_of(game, token), **changes})
    lines = [named(game, line) for line in update.get("log", [])]
    for line in lines:
        log(line, _audience_of(game, line), None)
    for roll in update.get("rolls", []):
        text = named(game, roll["text"])
        log(text, _audience_of(game, text), {"roll": roll})
    return lines


def _apply_update(game: "Game", update: dict, log, announce: bool = True) -> None:
    game.combat = {"state": update["state"], "round": update["round"], "order": list(update["order"]),
                   "current": update["current"], "phase": update.get("phase", ""), "due": update.get("due", [])}
    lines = _apply_changes(game, update, log)  # named once (a log's fold names thousands of lines)
    current = game.tokens.get(update["current"]) if update["current"] else None
    said = any(line.startswith(f"{current.name}'s turn") for line in lines) if current else False
    if current is not None and announce and not said:  # the rules' own line ("Mira's turn (KH)") says it already
        log(say("{name}'s turn", name=current.name), "gm" if current.hidden else "all", None)


def _audience_of(game: "Game", line: str) -> str:
    """The rules write their lines in plain words: one that names a hidden token is the GM's alone."""
    for token in game.tokens.values():
        if token.hidden and re.search(rf"(?<!\w){re.escape(token.name)}(?!\w)", line):
            return "gm"
    return "all"


def _dice_words(roll: dict) -> str:
    """A roll's dice and total without its purpose: "roll: 1d20[12] = 12" is said "1d20[12] = 12" (the log's
    "Mira rolled 1d20: ...", as ``ack``'s flash)."""
    text = roll["text"]
    if isinstance(text, Say) and {"dice", "total"} <= text.args.keys():
        return f"{text.args['dice']} = {text.args['total']}"
    return text


def evolve(game: "Game", event: Event, log) -> None:
    """Apply a fight or dice event; ``log(text, audience, detail)`` writes the game log."""
    d = event.data
    if event.type == "dice_rolled":
        who = _who(game, d["by"])
        audience = "gm" if d["secret"] else "all"
        detail = {"roll": d["roll"], "by": d["by"]}
        rolled = _dice_words(d["roll"])  # "Mira rolled 1d20: 1d20[12] = 12", not "1d20: roll: 1d20[12] = 12" (#58)
        log(say("{who} rolled {dice}: {roll} (secret)", who=who, dice=d["expr"], roll=rolled) if d["secret"]
            else say("{who} rolled {dice}: {roll}", who=who, dice=d["expr"], roll=rolled), audience, detail)
    elif event.type == "settings_set":
        game.settings.update(d["changes"])
        log(say("the GM changed the rules settings: {changes}",  # the settings' names and values: data
                changes=", ".join(f"{k} = {v}" for k, v in d["changes"].items())), "all", None)
    elif event.type == "combat_started":
        log(say("A fight begins"), "all", None)
        caught = [game.tokens[i] for i in d.get("surprised", []) if i in game.tokens]
        if caught:
            seen = [t.name for t in caught if not t.hidden]
            if seen:
                log(say("Caught by surprise: {names}", names=", ".join(seen)), "all", None)
            if len(seen) < len(caught):
                log(say("Caught by surprise (with the hidden): {names}", names=", ".join(t.name for t in caught)), "gm", None)
        _apply_update(game, d["update"], log)
    elif event.type == "turn_started":
        _apply_update(game, d["update"], log)
    elif event.type == "order_set":
        game.combat["order"] = list(d["order"])
        if "state" in d:
            game.combat["state"] = d["state"]
        tokens = [game.tokens[i] for i in d["order"] if i in game.tokens]
        seen = [t.name for t in tokens if not t.hidden]
        log(say("the GM changed the turn order: {names}", names=", ".join(seen)), "all", None)
        if len(seen) < len(tokens):
            log(say("(with the hidden: {names})", names=", ".join(t.name for t in tokens)), "gm", None)
    elif event.type == "acted":
        _apply_update(game, d["update"], log, announce=False)
    elif event.type == "combat_ended":
        game.combat = None
        log(say("The fight is over"), "all", None)
        _apply_changes(game, d, log)
    else:  # pragma: no cover - table.evolve routes only EVENTS here
        raise ValueError(f"unknown event type {event.type!r}")


def _who(game: "Game", audience: str) -> str:
    if audience.startswith("player:"):
        player = game.players.get(audience.split(":", 1)[1])
        return player.name if player else say("a player")
    return say("the GM") if audience == "gm" else say("the table")


def judge_move(game: "Game", events: list[Event], dice: DiceSource) -> list[Event]:
    """A move of a token in the fight, judged by the rules (allowance, turn); the books go in the event."""
    event = events[0]
    token = game.tokens[event.data["token_id"]]
    if not in_fight(game, token.id):
        return events
    system = rules.get(game.system)
    if game.zones is not None:
        if "zone" not in event.data:
            return events  # a step inside its zone: the rules count zones, not squares
        path = event.data["zone_path"]
        cost = len(path) - 1
    else:
        path, cost = path_and_cost(game, token, (event.data["x"], event.data["y"]))
    mover = combatant(game, token)
    result = rules_call(lambda: system.move(game.combat["state"], mover, path, cost, fighters_of(game), game.board,
                                             dice, settings_of(game)), game)
    fight = result.to_dict()
    fight["due"] = [free_attacks.owed(game, system, p, token) for p in result.provokes if p in game.tokens]
    return [Event(event.type, {**event.data, "fight": fight})]


def judged_move(game: "Game", cmd: Any, actor, events: list[Event], dice: DiceSource | None) -> list[Event]:
    """What follows a token's move (``tokens``' decide): in a fight the rules count it, unless the GM forced it."""
    if not events or cmd.force:
        return events
    try:
        return judge_move(game, events, dice or RandomDice())
    except Rejected as exc:
        if actor.role == "gm" and exc.code is None:
            # not its turn, past its allowance: the GM may rule otherwise, as with walls ("Move anyway")
            exc.code = "fight_rules"
        raise


def book_move(game: "Game", token: "Token", fight: dict, log) -> None:
    if not game.combat:
        return
    due = list(game.combat.get("due", []))
    game.combat["state"] = fight["state"]
    for line in fight.get("log", []):
        line = named(game, line)
        log(line, "gm" if token.hidden else _audience_of(game, line), None)
    for roll in fight.get("rolls", []):
        text = named(game, roll["text"])
        log(text, "gm" if token.hidden else _audience_of(game, text), {"roll": roll})
    if fight.get("turn"):  # the move was the turn's action (phase/TN's Move): the turn passes
        _apply_update(game, fight["turn"], log)
        due = list(game.combat.get("due", []))
    game.combat["due"] = due + fight.get("due", [])
    for attack in fight.get("due", []):
        foe = game.tokens.get(attack["attacker"])
        if foe is not None:
            log(say("{name}'s move gives {foe} a free attack", name=token.name, foe=foe.name), "gm" if (token.hidden or foe.hidden) else "all", None)


def reach(game: "Game", cmd: Reach, actor: "Actor") -> dict:
    """The squares a token can reach now with their cost (in a fight, within what the rules leave it)."""
    token = game.tokens.get(cmd.token_id)
    if token is None or not fog.may_see(game, actor, token):
        raise Rejected(N_("no token %(id)s in this game"), id=repr(cmd.token_id))
    if actor.role == "screen" and not game.screen_touch:  # the touch table asks (webapp/game/tableside/touch.py)
        raise Rejected(N_("the table screen only shows the map"))
    system = rules.get(game.system)
    left = None
    if in_fight(game, token.id):
        left = system.movement_left(game.combat["state"], combatant(game, token), settings_of(game))
    if game.zones is not None:
        here = position_of(game, token)
        steps = zonelayout.within(game.zones, here, left) if here else {}
        cells = [[x, y, d] for z in game.zones if z["id"] in steps for (x, y), d in
                 ((c, steps[z["id"]]) for c in zonelayout.cells_of(z))]
        return {"token_id": token.id, "left": left, "unit": system.cell_unit, "cell_size": 1, "cells": cells,
                "zones": steps}
    budget = left
    if budget is None and game.board.width * game.board.height > 4000:
        budget = 30  # a ruler on a big board: the squares around, not the whole board on every pick-up
    size = getattr(token, "size", 1)
    # with fog, the map as this audience knows it: the squares it never saw are not reached (their walls,
    # holes and costs are the fog's), and no way is found through them
    board = fog.known_board(game, actor)
    if size == 1:
        cells = movement.reachable(board, (token.x, token.y), budget, system.diagonal)
    else:  # where its top-left square can go with the whole footprint (reach.js shades the footprints)
        cells, _ = movement.footprint_search(board, (token.x, token.y), size, system.diagonal, budget)
    return {"token_id": token.id, "left": left, "unit": system.cell_unit, "cell_size": system.cell_size,
            "size": size, "cells": [[x, y, round(c, 3)] for (x, y), c in cells.items()]}


def ack(events: list[Event], actor: "Actor") -> dict:
    """What the sender hears back besides ok and seq: a roll's result (a player's secret roll stays with the GM)."""
    for event in events:
        if event.type == "dice_rolled" and (not event.data["secret"] or actor.role == "gm"):
            roll = event.data["roll"]
            text = roll["text"]  # "roll: 1d20[12] = 12": the flash says "You rolled 1d20[12] = 12", not "You rolled roll:"
            if isinstance(text, Say) and {"dice", "total"} <= text.args.keys():
                text = f"{text.args['dice']} = {text.args['total']}"
            return {"total": roll["total"], "dice": roll["dice"], "text": text}
    return {}


#: the questions (``reach``) are answered by the hub, never decided; a token's move is judged here once decided
FEATURE = Feature("combat", COMMANDS + QUERIES, decide=dict.fromkeys(COMMANDS, decide), dice=True, events=EVENTS,
                  evolve=evolve, follows=(Follows(commands=("move_token",), decided=judged_move),), ack=ack,
                  routes={Reach: "question"}, answers={Reach: reach})
