"""Attacks: the game's rule system decides; the app brings the board, the sheets and the dice.

``preview`` answers what an attack would be (line of fire, cover, range,
every modifier, the exact odds of each outcome) and stores nothing.
``decide`` rolls it: the event carries the system's whole result and the
sheets as the system left them, so ``evolve`` applies it without calling the
rules again.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import replace

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules import los, movement
from rules.dice import DiceSource
from rules.system import NO_DEFENSE, AttackRequest, AttackResult, BaseSystem, RuleError, RuleNotImplemented

from . import characters, fog, text, zonelayout
from .combat import aim_squares, combatant, not_automated, position_of, rules_call, rules_words, settings_of
from .feature import Feature
from .model import Actor, Event, Rejected
from .text import N_
from rules.text import joined, say, say_n

if TYPE_CHECKING:
    from .model import Game, Token

Id = text.Id


class _AttackCommand(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    attacker: Id
    target: Id
    weapon: Annotated[text.Line, StringConstraints(max_length=80)] | None = None
    options: dict[str, Any] = {}
    force: bool = False  # GM only: past the table's checks (turn, line of fire); logged as a GM ruling
    template: Id | None = None  # a template on the map: an area attack where the system has them
    defense: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None  # a key of defenses()
    # a multi-target attack where the rules have them (``target`` first, then these): see attack_options
    targets: Annotated[list[Id], Field(max_length=12)] = []


class PreviewAttack(_AttackCommand):
    type: Literal["preview_attack"]


class Attack(_AttackCommand):
    type: Literal["attack"]


class ChooseDefense(BaseModel):
    """The defender's answer to an attack that waits on it (or the GM's, for anyone; ``cancel``: the GM drops it)."""

    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    type: Literal["choose_defense"]
    defense: Annotated[str, StringConstraints(min_length=1, max_length=80)] | None = None
    cancel: bool = False


COMMANDS = (PreviewAttack, Attack, ChooseDefense)
EVENTS = ("attack_resolved", "defense_asked", "defense_dropped")


def _visible_token(game: "Game", actor: "Actor", token_id: str) -> "Token":
    token = game.tokens.get(token_id)
    if token is None or not fog.may_see(game, actor, token):
        raise Rejected(N_("no token %(id)s in this game"), id=repr(token_id))
    return token


def _authorize(game: "Game", cmd: _AttackCommand, actor: "Actor", attacker: "Token") -> None:
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
    if cmd.force and actor.role != "gm":
        raise Rejected(N_("only the GM can force a ruling"))
    if actor.role == "player" and attacker.owner != actor.player_id:
        raise Rejected(N_("%(name)s is not yours"), name=attacker.name)
    current = game.combat.get("current") if game.combat else None
    if game.combat and attacker.id != current and not cmd.force and actor.role != "gm" and not _owed(game, cmd):
        raise Rejected(N_("it is not %(name)s's turn"), name=attacker.name)


def _weapon(system, attacker_sheet: dict, key: str | None, name: str) -> dict | None:
    if key is None:
        return None
    for w in system.weapons(attacker_sheet):
        if w["key"] == key:
            return w
    raise Rejected(N_("%(name)s has no weapon %(weapon)s"), name=name, weapon=repr(key))


def _request(game: "Game", cmd: _AttackCommand, system, attacker: "Token", target: "Token", distance: float,
             cover, board, fraction: float | None):
    """The rules' request for this attack, with the range band and the cover as the preview shows them."""
    fighter = combatant(game, attacker)
    weapon = _weapon(system, fighter.sheet, cmd.weapon, attacker.name)
    request = AttackRequest(
        attacker=fighter, target=combatant(game, target), weapon=cmd.weapon, distance=distance, cover=cover,
        options={**cmd.options, "settings": settings_of(game)}, board=board,
        others=[combatant(game, t) for t in game.tokens.values() if t.id not in (attacker.id, target.id)],
    )
    band = None
    if weapon is not None:
        try:
            band = system.range_band(distance, weapon.get("data") or {})
        except (RuleNotImplemented, RuleError, TypeError, ValueError):
            band = None
    try:
        effect = system.cover_effect(cover)
        cover_view = {"fraction": fraction, "level": effect.level, "modifier": effect.modifier, "label": effect.label}
    except (RuleNotImplemented, RuleError):
        cover_view = {"fraction": fraction, "level": "", "modifier": 0, "label": "not automated"}
    return request, band, cover_view


def band_label(system, band: str | None):
    """A range band as the preview names it: the system's words for its bands (``band_words``, Atomic Tomorrow's
    Engaged, Near, Far, Distant) where it has them, else the band as the rules gave it."""
    return (getattr(system, "band_words", None) or {}).get(band, band)


#: the keys of ``options`` the app sets itself: a sender never does
APP_OPTIONS = ("settings", "defense", "template", "centre")


def plan(game: "Game", cmd: _AttackCommand, actor: "Actor") -> dict:
    """Everything the table knows about an attack before the rules judge it; Rejected when it cannot happen.
    A multi-target attack has one request per target in ``request.targets``, the first its own."""
    cmd = _checked_options(game, cmd, actor)
    p = _plan_one(game, cmd, actor)
    ids = list(dict.fromkeys([cmd.target, *cmd.targets]))
    if len(ids) > 1:
        if cmd.template is not None:
            raise Rejected(N_("an area attack takes its targets from the template, not a list"))
        if cmd.attacker in ids:
            raise Rejected(N_("a token cannot attack itself"))
        most = most_targets(attack_options(p["system"], p["request"]), cmd.options)
        if len(ids) > most and not _lists_options(p["system"]):  # a system that lists them refuses in its words
            raise Rejected(N_("this attack takes %(most)s target at most: %(system)s attacks several only with an "
                              "option that says so") if most == 1 else
                           N_("this attack takes %(most)s targets at most: %(system)s attacks several only with an "
                              "option that says so"), most=most, system=p["system"].name)
        others = [_plan_one(game, cmd.model_copy(update={"target": t, "targets": []}), actor) for t in ids[1:]]
        p["request"].targets = [p["request"], *(o["request"] for o in others)]
        p["view"]["targets"] = ids
        p["view"]["aims"] = [{"target": o["target"].id, "to": o["view"]["to"], "clear": o["view"]["line"]["clear"],
                              "distance": o["view"]["distance"]} for o in others]
    return p


def _checked_options(game: "Game", cmd: _AttackCommand, actor: "Actor") -> _AttackCommand:
    """The sender's ``options`` as the rules may read them: never the app's own keys; an attack the rules
    owe now takes the options the rules gave it; where the system lists its options, only those, and
    the GM's own (``"gm": True``, a GM's modifier) from the GM alone."""
    sent = dict(cmd.options)
    reserved = sorted(k for k in sent if k in APP_OPTIONS)
    if reserved:
        raise Rejected(N_("options may not set %(keys)s: the table sets it"), keys=", ".join(reserved))
    owed = next((e for e in (game.combat or {}).get("due", [])
                 if e.get("attacker") == cmd.attacker and e.get("target") == cmd.target), None)
    given = dict((owed or {}).get("options") or {})
    system = rules.get(game.system)
    if _lists_options(system):
        offered = {o.get("key"): o for o in _listed(system, game, cmd)}
        unknown = sorted(k for k in sent if k not in offered and k not in given)
        if unknown:
            raise Rejected(N_("%(system)s has no attack option %(option)s"), system=system.name, option=repr(unknown[0]))
        ruled = sorted(k for k in sent if actor.role != "gm" and offered.get(k, {}).get("gm")
                       and sent[k] != offered[k].get("default"))
        if ruled:
            raise Rejected(N_("only the GM sets %(option)s"), option=offered[ruled[0]].get("label") or ruled[0])
    return cmd.model_copy(update={"options": {**sent, **given}})


def _lists_options(system) -> bool:
    """Whether the system lists its attack options (and so judges the options and targets sent itself)."""
    return isinstance(system, BaseSystem) and type(system).attack_options is not BaseSystem.attack_options


def _listed(system, game: "Game", cmd: _AttackCommand) -> list[dict]:
    """The option keys the system lists for this attacker and weapon (before the table's checks: only the
    keys matter here; ``preview`` asks again with the whole request for the values and availability)."""
    attacker, target = game.tokens.get(cmd.attacker), game.tokens.get(cmd.target)
    if attacker is None or target is None:
        return []
    request = AttackRequest(attacker=combatant(game, attacker), target=combatant(game, target), weapon=cmd.weapon,
                            options={**cmd.options, "settings": settings_of(game)})
    return attack_options(system, request)


def attack_options(system, request: AttackRequest) -> list[dict]:
    """The rules' choices for the attacker (``[]`` when the system has none, or refuses to list them now)."""
    offered = getattr(system, "attack_options", None)
    if not callable(offered):
        return []
    try:
        return [o for o in offered(request) if isinstance(o, dict) and o.get("key") not in APP_OPTIONS]
    except (RuleNotImplemented, RuleError):
        return []


def most_targets(offered: list[dict], picked: dict) -> int:
    """How many targets the attack may take with the options as picked: 1, or the most any picked
    option value (or a bool option picked yes) allows; an int option with ``"targets": "per_attack"``
    allows as many targets as its value."""
    most = 1
    for o in offered:
        if not o.get("available", True):
            continue
        now = picked.get(o.get("key"), o.get("default"))
        if o.get("kind") == "bool" and now is True and isinstance(o.get("targets"), int):
            most = max(most, o["targets"])
        if o.get("kind") == "int" and o.get("targets") == "per_attack" and isinstance(now, int) \
                and not isinstance(now, bool):  # one target more for each attack (a Rapid Attack divided)
            most = max(most, min(now, 12))
        for v in o.get("values") or []:
            if isinstance(v, dict) and v.get("key") == now and isinstance(v.get("targets"), int):
                most = max(most, v["targets"])
    return most


def _plan_one(game: "Game", cmd: _AttackCommand, actor: "Actor") -> dict:
    """One attacker at one target (or at a template)."""
    system = rules.get(game.system)
    attacker = _visible_token(game, actor, cmd.attacker)
    target = _visible_token(game, actor, cmd.target)
    _authorize(game, cmd, actor, attacker)
    if attacker.id == target.id:
        raise Rejected(N_("a token cannot attack itself"))
    if game.zones is not None:
        laid = _zone_template(game, cmd, system, attacker, target)
        p = _plan_in_zones(game, cmd, actor, system, attacker, target)
        if laid is not None:
            p["view"]["template"] = laid
        return p
    if system.board != "grid":
        raise Rejected(N_("%(system)s plays on zone maps; this game has a square grid"), system=system.name)
    a, b, distance = aim_squares(game, attacker, target)  # big tokens: from their best squares
    area = _area(game, cmd, system, attacker)
    if area is not None:  # at the template's aim point, from the attacker's own square
        a, b = (attacker.x, attacker.y), tuple(area["aim"])
        distance = movement.distance(a, b, system.diagonal, game.board.grid)
        cmd = cmd.model_copy(update={"options": {**cmd.options, **area["options"]}})
    line = los.line_of_fire(game.board, a, b)
    if not line.clear and not cmd.force:
        if area is not None:
            raise Rejected(N_("%(name)s has no line of fire to the template: a wall or door is in the way"),
                           name=attacker.name)
        raise Rejected(N_("%(name)s has no line of fire to %(target)s: a wall or door is in the way"), name=attacker.name,
                       target=target.name)
    cover = los.cover(game.board, a, b)
    board = game.board
    if not line.clear:  # forced: the GM rules the line clear, so the rules are not shown the wall either
        cover, board = los.Cover(0.0, []), None
    request, band, cover_view = _request(game, cmd, system, attacker, target, distance, cover, board, cover.fraction)
    return {
        "system": system, "request": request, "attacker": attacker, "target": target,
        "view": {
            "attacker": attacker.id, "target": target.id, "weapon": cmd.weapon,
            "from": list(a), "to": list(b), "line": {"clear": line.clear, "blocked_by": len(line.blockers)},
            "cover": cover_view, "distance": distance, "unit": system.cell_unit, "band": band,
            "band_label": band_label(system, band), "forced": cmd.force,
            **({"template": area["view"]} if area is not None else {}),
        },
    }


def _area(game: "Game", cmd: _AttackCommand, system, attacker: "Token") -> dict | None:
    """An attack with a template on the map: the system's own template of that shape and size, aimed
    where the map's template lies (a blast centred on its centre's square; a cone or a line starts at
    the attacker and points the template's way). None for an attack without one."""
    if cmd.template is None:
        return None
    template = game.templates.get(cmd.template)
    if template is None:
        raise Rejected(N_("no template %(id)s on this map"), id=repr(cmd.template))
    offered = area_templates(system)
    if not offered:
        raise Rejected(N_("%(system)s has no area templates for attacks: the table's templates only show who is under"),
                       system=system.name)
    same = [o for o in offered if o["shape"] == template["shape"]]
    match = next((o for o in same if o.get("size") is None or abs(o["size"] - template["size"]) < 1e-9), None)
    if match is None:
        sizes = ", ".join(f"{o['label']}" for o in offered)
        raise Rejected(N_("%(system)s has no %(shape)s template of %(size)s: it has %(sizes)s"), system=system.name,
                       shape=template["shape"], size=f"{template['size']:g}", sizes=sizes)
    if template["shape"] == "circle":
        aim = (math.floor(template["x"]), math.floor(template["y"]))
    else:
        angle = math.radians(template.get("direction", 0))
        aim = (min(max(attacker.x + round(3 * math.cos(angle)), 0), game.board.width - 1),
               min(max(attacker.y + round(3 * math.sin(angle)), 0), game.board.height - 1))
    if not game.board.in_bounds(aim) and template["shape"] == "circle":
        raise Rejected(N_("the template's centre is off the map"))
    return {"aim": aim, "options": {"template": match["key"], "centre": list(aim)},
            "view": {"id": template["id"], "key": match["key"], "label": match["label"], "aim": list(aim)}}


def _zone_template(game: "Game", cmd: _AttackCommand, system, attacker: "Token", target: "Token") -> dict | None:
    """On a zone map a laid template covers a zone: an area weapon (one the sheet marks ``area``) fired
    with it hits that zone as the rules' area weapons do (everyone in it), so the target is picked in it.
    None for an attack without a template."""
    if cmd.template is None:
        return None
    template = game.templates.get(cmd.template)
    if template is None:
        raise Rejected(N_("no template %(id)s on this map"), id=repr(cmd.template))
    weapon = _weapon(system, characters.sheet_of(game, attacker), cmd.weapon, attacker.name)
    if weapon is None or not (weapon.get("data") or {}).get("area"):
        if weapon is None:
            raise Rejected(N_("an attack without a weapon is not an area weapon: only an area weapon fires at a "
                              "template's zone"))
        raise Rejected(N_("%(weapon)s is not an area weapon: only an area weapon fires at a template's zone"),
                       weapon=weapon["label"])
    zone = next((z for z in game.zones if z["id"] == template.get("zone")), None)
    if zone is None:
        raise Rejected(N_("the template covers no zone of this map"))
    if position_of(game, target) != zone["id"]:
        raise Rejected(N_("the template covers %(zone)s: pick a target in it"), zone=zone.get("name") or zone["id"])
    return {"id": template["id"], "key": "zone", "label": template.get("label") or zone.get("name") or "Area",
            "zone": zone["id"]}


def area_templates(system) -> list[dict]:
    """The system's templates for area attacks (``[]`` for a system without, or an older one)."""
    offered = getattr(system, "area_templates", None)
    return list(offered()) if callable(offered) else []


def _plan_in_zones(game: "Game", cmd: _AttackCommand, actor: "Actor", system, attacker: "Token", target: "Token") -> dict:
    """On a zone map: the distance is zone steps, the cover is the target's zone's, and no wall stands between."""
    if system.board != "zones":
        raise Rejected(N_("%(system)s plays on a square grid; this game has a zone map"), system=system.name)
    za, zb = position_of(game, attacker), position_of(game, target)
    way = zonelayout.path(game.zones, za, zb) if za and zb else None
    if way is None:
        raise Rejected(N_("%(name)s cannot reach %(target)s: no way leads between their zones"), name=attacker.name,
                       target=target.name)
    distance = len(way) - 1
    cover = next(z for z in game.zones if z["id"] == zb).get("cover") or "none"
    request, band, cover_view = _request(game, cmd, system, attacker, target, distance, cover, None, None)
    return {
        "system": system, "request": request, "attacker": attacker, "target": target,
        "view": {
            "attacker": attacker.id, "target": target.id, "weapon": cmd.weapon,
            "from": [attacker.x, attacker.y], "to": [target.x, target.y], "line": {"clear": True, "blocked_by": 0},
            "cover": cover_view, "distance": distance, "unit": "zone step", "band": band,
            "band_label": band_label(system, band), "forced": cmd.force,
            "zones": way,
        },
    }


def preview(game: "Game", cmd: PreviewAttack, actor: "Actor") -> dict:
    """What the attack would be, with its exact odds: nothing is rolled or stored."""
    p = plan(game, cmd, actor)
    view = dict(p["view"])
    try:
        odds = p["system"].odds(p["request"])
        view["odds"] = {"hit": odds.get("hit"), "outcomes": odds.get("outcomes") or [],
                        "modifiers": odds.get("modifiers") if isinstance(odds.get("modifiers"), list) else []}
        if isinstance(odds.get("skill_line"), str):  # the skill the roll is made at, in words (not a modifier)
            view["odds"]["skill_line"] = odds["skill_line"]
        if isinstance(odds.get("targets"), list):  # an area attack: each token under it, the ones this audience sees
            shown = {t.id for t in fog.visible_tokens(game, actor)}
            view["odds"]["targets"] = [t for t in odds["targets"] if isinstance(t, dict) and t.get("id") in shown]
            note = odds.get("note")  # the rules' words (a Say): put in the asker's language when the card is drawn
            view["odds"]["note"] = note if isinstance(note, str) else ""
            if "template" in view and isinstance(odds.get("cells"), list):
                view["template"]["cells"] = [list(c) for c in odds["cells"]]
    except RuleNotImplemented as exc:
        view["odds"] = None
        view["odds_missing"] = not_automated(exc)
    except RuleError as exc:
        raise Rejected(rules_words(exc)) from None
    if cmd.template is None and not p["request"].targets:
        view["defenses"] = defense_choices(p["system"], p["request"])
    view["options"] = attack_options(p["system"], p["request"])
    view["picked"] = {k: v for k, v in cmd.options.items() if k not in APP_OPTIONS}
    view["most_targets"] = most_targets(view["options"], view["picked"])
    return view


def _due_after(game: "Game", system, state: dict, cmd: _AttackCommand) -> list[dict]:
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


def _owed(game: "Game", cmd: _AttackCommand) -> bool:
    """The rules (or a move) say this attack happens now."""
    return any(e.get("attacker") == cmd.attacker and e.get("target") == cmd.target
               for e in (game.combat or {}).get("due", []))


def _only(result: AttackResult, token_id: str) -> AttackResult:
    """The result as one token takes it: its effects alone, and it named as the target (an ``apply``
    that reads ``details["target"]`` would otherwise look for the aimed-at token's effects on every
    sheet an area attack or a stray shot touched)."""
    effects = [e for e in result.effects if e.target == token_id]
    return AttackResult(result.hit, result.summary, result.rolls, result.modifiers, effects,
                        {**result.details, "target": token_id})


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


def _chosen(system, request: AttackRequest, key: str, target: "Token") -> Any:
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


def decide(game: "Game", cmd, actor: "Actor", dice: DiceSource) -> list[Event]:
    if isinstance(cmd, ChooseDefense):
        return _choose_defense(game, cmd, actor, dice)
    if game.pending_defense:
        waiting = game.tokens.get(game.pending_defense["target"])
        name = waiting.name if waiting is not None and fog.may_see(game, actor, waiting) else "a defender"
        raise Rejected(N_("an attack is waiting for %(name)s's defense: it goes first"), name=name)
    p = plan(game, cmd, actor)
    system = p["system"]
    target = p["target"]
    if cmd.defense is not None:
        if actor.role == "player" and target.owner != actor.player_id:
            raise Rejected(N_("%(name)s's player (or the GM) chooses %(name)s's defense"), name=target.name)
        p["request"].options["defense"] = _chosen(system, p["request"], cmd.defense, target)
    elif target.owner and not (actor.role == "player" and actor.player_id == target.owner) and cmd.template is None:
        choices = defense_choices(system, p["request"])
        open_ = [c for c in choices if c["available"]]
        if any(c["key"] != NO_DEFENSE for c in open_):  # a player's token: its player chooses, before the roll
            return [Event("defense_asked", {
                "attack": cmd.model_dump(exclude_none=True), "sender": {"role": actor.role, "player_id": actor.player_id},
                "attacker": p["attacker"].id, "target": target.id, "weapon": cmd.weapon, "choices": choices})]
        if open_:  # "No defense" is all the rules leave: nothing to ask, it is rolled with that
            p["request"].options["defense"] = _chosen(system, p["request"], NO_DEFENSE, target)
    return _roll(game, cmd, p, dice)


def _choose_defense(game: "Game", cmd: ChooseDefense, actor: "Actor", dice: DiceSource) -> list[Event]:
    pending = game.pending_defense
    if actor.role == "screen":
        raise Rejected(N_("the table screen only shows the map"))
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
    p["request"].options["defense"] = _chosen(p["system"], p["request"], cmd.defense, p["target"])
    events = _roll(game, attack, p, dice)
    for event in events:
        event.data["defense"] = {"key": cmd.defense, "by": "gm" if actor.role == "gm" else "player"}
    return events


def _roll(game: "Game", cmd: _AttackCommand, p: dict, dice: DiceSource) -> list[Event]:
    system = p["system"]
    result = rules_call(lambda: system.attack(p["request"], dice))
    sheets = {}
    for token_id in dict.fromkeys(e.target for e in result.effects):
        token = game.tokens.get(token_id)
        if token is None:
            continue
        sheet = characters.sheet_of(game, token)
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
        game.pending_defense = dict(d)
        attacker, target = game.tokens.get(d["attacker"]), game.tokens.get(d["target"])
        secret = bool((attacker and attacker.hidden) or (target and target.hidden))
        log(say("{attacker} attacks {target}: waiting for {target}'s defense", attacker=attacker.name if attacker else "?",
                target=target.name if target else "?"), "gm" if secret else "all", None)
        return
    if event.type == "defense_dropped":
        game.pending_defense = None
        log(say("the GM called the attack off"), "all", None)
        return
    game.pending_defense = None
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

    card = _card(game, d)
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
FEATURE = Feature("attacks", COMMANDS, decide={Attack: decide, ChooseDefense: decide}, dice=True, events=EVENTS,
                  evolve=evolve)


def _card(game: "Game", d: dict) -> dict:
    """What the table screen's result card says: who attacked whom (each target once, the attacker never
    among them), hit or miss for each, what each target took (the wound state is read from the sheets
    when the card is drawn), and what the attack cost the attacker, in words."""
    result = d["result"]
    per_target = {t.get("target"): t for t in (result.get("details") or {}).get("targets") or []
                  if isinstance(t, dict)}
    named_ids = [] if d.get("template") else list(d.get("targets") or [d["target"]])
    ids = [i for i in dict.fromkeys([*named_ids, *per_target, *(e["target"] for e in result["effects"])])
           if i != d["attacker"]]
    attacker = game.tokens.get(d["attacker"])
    targets = []
    for tid in ids:
        token = game.tokens.get(tid)
        if token is None:
            continue
        effects = [e for e in result["effects"] if e["target"] == tid]
        own = per_target.get(tid) or {}
        hit = own.get("hit") if isinstance(own.get("hit"), bool) else (bool(effects) if per_target else result["hit"])
        targets.append({"id": tid, "name": token.name, "hit": hit,
                        "effects": [w for w in (_effect_words(e) for e in effects) if w],
                        "detail": _target_words(per_target.get(tid))})
    spent = [w for w in (_effect_words(e) for e in result["effects"] if e["target"] == d["attacker"]) if w]
    hits = sum(1 for t in targets if t["hit"])
    if d.get("template") or len(targets) > 1:
        verdict = say("{n} HIT", n=hits) if hits else say("NO ONE HIT")
        if len(targets) > 1 and not d.get("template"):
            verdict = say("HIT {n} OF {total}", n=hits, total=len(targets)) if hits else say("MISS")
    else:
        verdict = say("HIT") if result["hit"] else say("MISS")
    return {"attacker": attacker.name if attacker else "?", "attacker_id": d["attacker"], "hit": bool(result["hit"] or hits),
            "verdict": verdict, "area": (d.get("template") or {}).get("label"), "targets": targets, "spent": spent}


#: effects the rules keep for their own books (a turn's state carried in a result): not news for the table
BOOKKEEPING = frozenset({"round", "none"})
#: effect kinds in plain words, where the kind's own name reads badly
EFFECT_WORDS = {
    "ammo": lambda d: (say_n("{n} shot spent ({weapon})", "{n} shots spent ({weapon})", d.get("spent", 1), weapon=d["weapon"])
                       if d.get("weapon") else say_n("{n} shot spent", "{n} shots spent", d.get("spent", 1))),
}
#: an effect's kind as the card reads it (the rest read as their own name: "jam", "mayhem")
KIND_WORDS = {"shaken": say("shaken"), "wounds": say("wounds"), "incapacitated": say("incapacitated"),
              "unconscious": say("unconscious"), "vulnerable": say("vulnerable"), "damage": say("damage"),
              "stunned": say("stunned"), "dead": say("dead"), "benny": say("benny"), "condition": say("condition"),
              "status": say("status"), "object_broken": say("object broken"), "shots_spent": say("shots spent"),
              "hours": say("hours"), "nonlethal": say("nonlethal"), "location": say("location"),
              "reason": say("reason"), "object": say("object")}


def _effect_words(effect: dict) -> str:
    """An effect as the card reads it: "shaken", "wounds 3", "damage 5 (location torso)"; a rules'
    own ``says`` is taken as it is; bookkeeping reads as nothing."""
    data = dict(effect.get("data") or {})
    kind = effect["kind"]
    if kind in BOOKKEEPING:
        return ""
    if isinstance(data.get("says"), str):
        return data["says"]

    def words(key: str):
        return KIND_WORDS.get(key) or key.replace("_", " ")

    if kind in EFFECT_WORDS:
        try:
            return EFFECT_WORDS[kind](data)
        except (TypeError, ValueError):
            pass
    head = words(kind)
    own = data.pop(kind, None)  # {"kind": "wounds", "data": {"wounds": 3}} reads "wounds 3"
    if isinstance(own, (int, float, str)) and not isinstance(own, bool):
        head = joined([head, own], " ")
    bits = [joined([words(k), v], " ") for k, v in data.items()
            if isinstance(v, (int, float, str)) and not isinstance(v, bool)]
    flags = [words(k) for k, v in data.items() if v is True]
    return say("{effect} ({details})", effect=head, details=joined(bits + flags, ", ")) if bits or flags else head


def _target_words(entry: dict | None) -> str:
    """One target's line of an area attack's breakdown, from the rules' own per-target record."""
    if not entry:
        return ""
    if entry.get("protected"):
        return entry.get("note") or say("protected")
    bits = []
    for key in ("roll", "bonus", "damage", "toughness", "wounds"):
        if isinstance(entry.get(key), (int, float)) and not isinstance(entry.get(key), bool) \
                and not (key == "bonus" and not entry[key]):
            bits.append(joined([TARGET_WORDS[key], f"{entry[key]:g}"], " "))
    bits += [joined([r["label"], f"{r['value']:+g}"], " ") for r in entry.get("reductions") or [] if isinstance(r, dict)]
    return joined(bits, ", ")


TARGET_WORDS = {"roll": say("roll"), "bonus": say("bonus"), "damage": say("damage"), "toughness": say("toughness"),
                "wounds": say("wounds")}


def pending_view(game: "Game", actor: "Actor") -> dict | None:
    """The attack waiting for a defense, as this audience may see it: the defender's player and the GM
    get the choices; the player who attacked and the table screen, that it waits (and for whom);
    the other players, nothing."""
    pending = game.pending_defense
    if not pending:
        return None
    attacker, target = game.tokens.get(pending["attacker"]), game.tokens.get(pending["target"])
    if target is None or not fog.may_see(game, actor, target):
        return None
    chooser = actor.role == "gm" or (actor.role == "player" and target.owner == actor.player_id)
    sender = pending["sender"]
    # the table screen shows a wait it may see whole: a hidden attacker's attack is the defender's to know
    seen_whole = attacker is not None and fog.may_see(game, actor, attacker)
    waiting = (actor.role == "screen" and seen_whole) or (actor.role == "player" and sender.get("role") == "player"
                                                            and sender.get("player_id") == actor.player_id)
    if not chooser and not waiting:
        return None
    player = game.players.get(target.owner) if target.owner else None
    return {"attacker": attacker.name if attacker is not None and fog.may_see(game, actor, attacker) else "an unseen foe",
            "target": target.name, "target_id": target.id, "weapon": pending.get("weapon"),
            "player": player.name if player is not None else None,
            "choices": pending["choices"] if chooser else [], "chooser": chooser, "gm": actor.role == "gm"}
