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
from functools import lru_cache

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules import los, movement
from rules.dice import DiceError, DiceSource, RandomDice, parse
from rules.grid import SQUARE, Grid, Place
from rules.system import Combatant, RuleError, RuleNotImplemented

from . import characters, fog, free_attacks, text, waiting, zonelayout
from .feature import Feature, Follows
from .text import N_, rules_words
from .model import Event, Rejected, cells_at
from rules.text import Say, said, say

if TYPE_CHECKING:
    from .model import Actor, Game, Token

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
        current = _current_token(game)
        if current is not None and current.owner == actor.player_id:
            return  # a player ends their own turn
        raise Rejected(N_("only the GM, or the player whose turn it is, can end the turn"))
    raise Rejected(N_("only the GM can do that"))


# --- deciding -----------------------------------------------------------------


def settings_of(game: "Game") -> dict:
    """The system's defaults with this game's choices over them: what every rule call gets."""
    system = rules.get(game.system)
    defaults = system.default_settings() if hasattr(system, "default_settings") else {}
    return {**defaults, **game.settings}


def combatant(game: "Game", token: "Token") -> Combatant:
    state = (game.combat or {}).get("state", {}).get("combatants", {}) if game.combat else {}
    return Combatant(
        id=token.id, name=token.name, sheet=characters.sheet_of(game, token),
        position=position_of(game, token), side=token.kind, is_player=token.kind == "pc",
        state=dict(state.get(token.id, {})) if isinstance(state, dict) else {},
    )


def position_of(game: "Game", token: "Token"):
    """Where the rules see a token: its square, or on a zone map its zone's id; on a hex map its hex
    as a ``rules.grid.Place``, so the rules count hexes."""
    if game.zones is not None:
        zone = zonelayout.zone_at(game.zones, token.x, token.y)
        return zone["id"] if zone else None
    if game.board.grid.hex:
        return Place((token.x, token.y), game.board.grid)
    return (token.x, token.y)


def first_foe(game: "Game", who: "Token", candidates, seen=None, standing=None) -> "Token | None":
    """The target every list of targets for ``who`` starts on (the phone's turn bar, the fight card's
    declarations, the attack card, in every system): a foe, never ``who`` nor an ally. A foe is a token of
    another side (``kind``: pc or npc, the side the rules are given) that stands (:func:`stands`); then the
    nearest to ``who`` on the map, then the list's order. None when no foe stands (the last one is down: a tap
    must not shoot an ally, nor a downed foe by default, #58), and when there is no other token. When the
    tokens the reader sees (``seen``, else ``candidates``) hold no foe at all (every token on one side, as a GM
    who made them all NPCs has it), the first other token. ``standing``: :func:`stands` for this game, kept."""
    others = [t for t in candidates if t.id != who.id]
    foes = [t for t in others if t.kind != who.kind and (standing or (lambda t: stands(game, t)))(t)]
    if not foes:
        if any(t.kind != who.kind for t in (candidates if seen is None else seen)):
            return None  # foes there are, none standing
        return others[0] if others else None

    def key(item):
        i, t = item
        return ((t.x - who.x) ** 2 + (t.y - who.y) ** 2, i)

    return min(enumerate(foes), key=key)[1]


#: for a system that does not say who is out of the fight (``out_of_fight``, a third party's): a condition or wound
#: badge with one of these words says its token is out of the fight
FALLEN_WORDS = ("incapacitated", "unconscious", "dead", "dying", "down", "collapsed", "destroyed",
                "mortally wounded", "out of the fight", "defeated")


def is_down(game: "Game", token: "Token") -> bool:
    """Whether the token is out of the fight by its system's rules (``out_of_fight``: each system's own reading of
    its rule document). Its badges' words were read before, condition badges alone: a 3d6 token dead, whose "dead"
    is a wound badge, stood (#70), and one knocked down was down."""
    system = rules.get(game.system)
    out = getattr(system, "out_of_fight", None)
    if out is not None:
        books = (game.combat or {}).get("state", {}).get("combatants", {}).get(token.id) if in_fight(game, token.id) else None
        try:
            return bool(out(characters.sheet_of(game, token), books, settings_of(game)))
        except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
            return False
    for badge in badges(game, token):
        label = str(badge.get("label", "")).casefold()
        if badge.get("kind") in ("condition", "wound") and any(w in label for w in FALLEN_WORDS):
            return True
    return False


def stands(game: "Game", token: "Token") -> bool:
    """Whether a token still stands in the fight: in its turn order (phase/TN takes the fallen out of it) and not
    down by its system's rules (its badges say Incapacitated, unconscious, Dying...: ``is_down``, #58)."""
    return (not game.combat or token.id in game.combat["order"]) and not is_down(game, token)


def no_foe_standing(game: "Game") -> bool:
    """One side alone stands in the fight while the map holds the other: the GM is told the fight can end."""
    sides = {t.kind for t in (game.tokens.get(i) for i in (game.combat or {}).get("order", [])) if t and stands(game, t)}
    return len(sides) == 1 and any(t.kind not in sides for t in game.tokens.values())


def _current_token(game: "Game") -> "Token | None":
    if not game.combat or not game.combat.get("current"):
        return None
    return game.tokens.get(game.combat["current"])


def _fighters(game: "Game") -> list[Combatant]:
    order = game.combat["order"] if game.combat else []
    return [combatant(game, game.tokens[i]) for i in order if i in game.tokens]


def rules_call(call, game: "Game | None" = None, actor: "Actor | None" = None):
    """A rule call whose refusal goes back to the sender in the rules' own words (with ``game``,
    any token id in them put as its name: see :func:`named`)."""
    try:
        return call()
    except RuleNotImplemented as exc:
        raise Rejected(named(game, not_automated(exc), actor, hidden_as=say("someone"))) from None
    except RuleError as exc:
        raise Rejected(named(game, rules_words(exc), actor, hidden_as=say("someone"))) from None


def not_automated(exc: RuleNotImplemented) -> Say:
    """What the rules leave to the GM, as words: ``not automated: `` and the rules' own reason, each in the
    reader's language (any system's ``RuleNotImplemented``; a reason raised as plain text stays as written)."""
    return say("not automated: {reason}", reason=rules_words(exc))


@lru_cache(maxsize=64)
def _ids_pattern(ids: tuple[str, ...]) -> re.Pattern:
    """Any of these token ids as a whole word, the longest first (``named``; a log folds thousands of lines
    over the same few tokens: the pattern is made once per set of tokens)."""
    ordered = sorted(ids, key=len, reverse=True)
    return re.compile(r"(?<![\w-])(" + "|".join(map(re.escape, ordered)) + r")(?![\w-])")


def named(game: "Game | None", text: str, actor: "Actor | None" = None, hidden_as: str | None = None) -> str:
    """The rules' words with any token id they let through put as the token's name: people read
    names, never ids. With ``hidden_as``, a token this ``actor`` may not see (any hidden token
    when no actor is given) is put as those words instead, so a refusal names no hidden token."""
    if game is None or not game.tokens or not text:
        return text
    if isinstance(text, Say):  # the rules' words: the ids among their parameters
        return text.map_args(lambda value: named(game, value, actor, hidden_as))
    pattern = _ids_pattern(tuple(game.tokens))

    def name(match: re.Match) -> str:
        token = game.tokens[match.group(1)]
        if hidden_as is not None and (not fog.may_see(game, actor, token) if actor is not None else token.hidden):
            return hidden_as
        return token.name

    return pattern.sub(name, text)


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
    if isinstance(cmd, (NextTurn, EndCombat)):
        waiting.no_defense_waiting(game, actor)
    if isinstance(cmd, NextTurn):
        waiting.no_soak_waiting(game, actor)
        update = rules_call(lambda: system.next_turn(game.combat["state"], _fighters(game), dice, settings_of(game)),
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
        end = rules_call(lambda: system.end_fight(game.combat["state"], _fighters(game), dice, settings_of(game)),
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
        update = rules_call(lambda: system.act(game.combat["state"], actor_c, cmd.action, _fighters(game), dice,
                                                settings_of(game), cmd.options), game, actor)
        if (update.current, update.round) != (game.combat["current"], game.combat["round"]):
            waiting.no_defense_waiting(game, actor)  # an action that ends the turn (Hold...) waits as Next turn does
            waiting.no_soak_waiting(game, actor)
        return [Event("acted", {"token_id": cmd.token_id, "action": cmd.action, "update": update.to_dict()})]
    raise Rejected(f"unhandled command {type(cmd).__name__}")  # pragma: no cover


# --- applying -------------------------------------------------------------------


def _apply_changes(game: "Game", update: dict, log) -> list:
    """The sheets the rules changed, and their lines and rolls in the log; the lines as logged (ids named)."""
    for token_id, changes in update.get("sheet_changes", {}).items():
        token = game.tokens.get(token_id)
        if token is not None:
            characters.set_sheet(game, token_id, {**characters.sheet_of(game, token), **changes})
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


def in_fight(game: "Game", token_id: str) -> bool:
    return bool(game.combat) and token_id in game.combat["order"]


def path_and_cost(game: "Game", token: "Token", goal: tuple[int, int]) -> tuple[list, float]:
    """The cheapest way on the board and its cost by the system's diagonal policy and terrain."""
    system = rules.get(game.system)
    start = (token.x, token.y)
    size = getattr(token, "size", 1)
    if size == 1:
        found = movement.shortest_path(game.board, start, goal, system.diagonal)
        if found is not None:
            cost, path = found
            return [list(c) for c in path], cost
    else:  # a big token: the way its whole footprint can take, counted from its top-left square
        costs, path = movement.footprint_search(game.board, start, size, system.diagonal, goal=goal)
        if path is not None:
            return [list(c) for c in path], costs[goal]
    # no way (a forced move): the squares (hexes) as the crow flies
    return [list(start), list(goal)], movement.distance(start, goal, system.diagonal, game.board.grid)


def squares_of(token: "Token", grid: Grid = SQUARE) -> list[tuple[int, int]]:
    """Every square (hex, on a hex ``grid``) a token covers (its top-left square first)."""
    return cells_at(token.x, token.y, getattr(token, "size", 1), grid)


def aim_squares(game: "Game", attacker: "Token", target: "Token") -> tuple[tuple[int, int], tuple[int, int], float]:
    """The squares an attack is judged between, and its range, for tokens of any size (docs/RULES.md,
    "Big tokens"): the range is counted between the closest pair of squares, one of each token; the
    line of fire and the cover are those of the best pair (a clear line first, then the least cover,
    then the closest), as a shooter leans out from whichever part of its space sees best. One square
    each: their squares."""
    system = rules.get(game.system)
    if getattr(attacker, "size", 1) == 1 and getattr(target, "size", 1) == 1:
        a, b = (attacker.x, attacker.y), (target.x, target.y)
        return a, b, movement.distance(a, b, system.diagonal, game.board.grid)
    grid = game.board.grid
    pairs = sorted(((movement.distance(a, b, system.diagonal, grid), a, b) for a in squares_of(attacker, grid)
                    for b in squares_of(target, grid)), key=lambda p: p[0])
    nearest = pairs[0][0]
    best = None
    for d, a, b in pairs:
        if not los.line_of_fire(game.board, a, b).clear:
            continue
        fraction = los.cover(game.board, a, b).fraction
        if best is None or fraction < best[0]:
            best = (fraction, a, b)
            if fraction == 0:
                break
    a, b = (best[1], best[2]) if best else (pairs[0][1], pairs[0][2])
    return a, b, nearest


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
    result = rules_call(lambda: system.move(game.combat["state"], mover, path, cost, _fighters(game), game.board,
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
    if actor.role == "screen" and not game.screen_touch:  # the touch table asks (webapp/game/touch.py)
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


def badges(game: "Game", token: "Token") -> list[dict]:
    """What every screen shows on a token: the system's badges from its sheet and its books in the fight."""
    system = rules.get(game.system)
    books = (game.combat or {}).get("state", {}).get("combatants", {}).get(token.id) if in_fight(game, token.id) else None
    try:
        return system.badges(characters.sheet_of(game, token), books)[:6]
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        return []


def actions_now(game: "Game", token: "Token") -> list[dict]:
    """What the token may do now by the rules (for its turn's panel), with the reasons for what it may not."""
    if not in_fight(game, token.id):
        return []
    system = rules.get(game.system)
    try:
        offered = [o.to_dict() for o in system.actions(game.combat["state"], combatant(game, token), settings_of(game))]
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        return []
    for o in offered:  # a reason or a label the rules wrote with an id reads with the name
        o["label"], o["reason"] = named(game, o["label"], hidden_as="someone"), named(game, o.get("reason") or "", hidden_as="someone")
    return offered


#: the groups a long list of actions is shown in, by the ``kind`` every system gives its actions
#: (``rules.system.ActionOption``), after the turn's usual ones
ACTION_GROUPS = (("move", N_("Move")), ("attack", N_("Attack")), ("defense", N_("Defend")), ("turn", N_("Turn")),
                 ("other", N_("Other")))  # the titles said in the reader's language where shown (_combat.html)
#: a list this long or shorter is shown with every group open; a longer one with its usual actions
#: open and the other groups folded
SHORT_LIST = 10


def action_groups(offered: list[dict]) -> list[dict]:
    """The actions ``actions_now`` gave, in groups for the turn panel: the rules' usual ones that may be
    taken now first (``usual`` and ``available``), then one group per kind (move, attack, defend, turn,
    other; a kind the app does not know goes with "other"), each keeping the rules' order. Each group:
    ``{"key", "title", "options", "open"}``; empty groups are left out, and a long list (past
    ``SHORT_LIST``) opens only its usual group, so the panel stays short on a phone."""
    known = {key for key, _ in ACTION_GROUPS}
    first = [o.get("usual") and o.get("available", True) for o in offered]
    usual = [o for o, up in zip(offered, first) if up]
    by_kind: dict[str, list[dict]] = {key: [] for key, _ in ACTION_GROUPS}
    for o, up in zip(offered, first):
        if not up:
            by_kind[o.get("kind") if o.get("kind") in known else "other"].append(o)
    short = len(offered) <= SHORT_LIST
    groups = [{"key": "usual", "title": N_("Usual"), "options": usual, "open": True}] if usual else []
    groups += [{"key": key, "title": title, "options": by_kind[key], "open": short}
               for key, title in ACTION_GROUPS if by_kind[key]]
    return groups


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


def combat_view(game: "Game", actor: "Actor") -> dict | None:
    """The fight as this audience may see it: hidden tokens are left out of the order."""
    if not game.combat:
        return None
    visible = {t.id for t in fog.visible_tokens(game, actor)}
    current = game.combat["current"]
    due = [a for a in game.combat.get("due", []) if a.get("attacker") in visible and a.get("target") in visible]
    return {"round": game.combat["round"], "phase": game.combat.get("phase", ""),
            "order": [i for i in game.combat["order"] if i in visible],
            "current": current if current in visible else None, "due": due}


#: the questions (``reach``) are answered by the hub, never decided; a token's move is judged here once decided
FEATURE = Feature("combat", COMMANDS + QUERIES, decide=dict.fromkeys(COMMANDS, decide), dice=True, events=EVENTS,
                  evolve=evolve, follows=(Follows(commands=("move_token",), decided=judged_move),))
