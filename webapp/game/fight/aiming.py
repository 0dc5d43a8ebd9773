"""Aiming an attack: who may, at whom, with what weapon and options, over what distance, line of fire and cover.

``plan`` is everything the table knows about an attack before the rules judge it (``attacks.decide`` rolls it);
``preview`` answers what it would be (line of fire, cover, range, every modifier, the exact odds of each
outcome) and stores nothing. On a grid the squares and walls are measured, on a zone map the zones.
"""

from __future__ import annotations

import dataclasses
import math
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

import rules
from rules import los, movement
from rules.system import AttackRequest, BaseSystem, RuleError, RuleNotImplemented

from ..bridge import fighting, fog, zonelayout
from ..core import text
from ..core.text import rules_words
from ..bridge.fighting import aim_squares, combatant, combatants, not_automated, position_of, settings_of
from .defenses import defense_choices
from ..core.model import Rejected
from ..core.text import N_

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

Id = text.Id


class AttackCommand(BaseModel):
    """What an attack names (an attack, or its preview): who, at whom, with what, how."""

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


def _visible_token(game: "Game", actor: "Actor", token_id: str) -> "Token":
    token = game.tokens.get(token_id)
    if token is None or not fog.may_see(game, actor, token):
        raise Rejected(N_("no token %(id)s in this game"), id=repr(token_id))
    return token


def _authorize(game: "Game", cmd: AttackCommand, actor: "Actor", attacker: "Token") -> None:
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


def _request(game: "Game", cmd: AttackCommand, system, attacker: "Token", target: "Token", distance: float,
             cover, board, fraction: float | None):
    """The rules' request for this attack, with the range band and the cover as the preview shows them."""
    fighter, aimed, *others = combatants(game, [attacker, target, *(t for t in game.tokens.values()
                                                                     if t.id not in (attacker.id, target.id))])
    weapon = _weapon(system, fighter.sheet, cmd.weapon, attacker.name)
    request = AttackRequest(
        attacker=fighter, target=aimed, weapon=cmd.weapon, distance=distance, cover=cover,
        options={**cmd.options, "settings": settings_of(game)}, board=board, others=others,
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


def plan(game: "Game", cmd: AttackCommand, actor: "Actor", listed: bool = True) -> dict:
    """Everything the table knows about an attack before the rules judge it; Rejected when it cannot happen.
    A multi-target attack has one request per target in ``request.targets``, the first its own. ``listed`` False: the
    options are the rules' own (a way of the foes' planner, ``plan_turns``: the GM's attack), not held to the
    system's listing of them here (``_checked_options``; tests/unit/test_bench_forecast_runs.py plays a fight in
    each system with the listing asked all the same, and none refuses); the table holds the attack to it when sent."""
    cmd = _checked_options(game, cmd, actor, listed)
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


def _checked_options(game: "Game", cmd: AttackCommand, actor: "Actor", listed: bool = True) -> AttackCommand:
    """The sender's ``options`` as the rules may read them: never the app's own keys; an attack the rules
    owe now takes the options the rules gave it; where the system lists its options, only those, and
    the GM's own (``"gm": True``, a GM's modifier) from the GM alone."""
    sent = dict(cmd.options)
    reserved = sorted(k for k in sent if k in APP_OPTIONS)
    if reserved:
        raise Rejected(N_("options may not set %(keys)s: the table sets it"), keys=", ".join(reserved))
    owed = _owed_entry(game, cmd)
    given = dict((owed or {}).get("options") or {})
    system = rules.get(game.system)
    if sent and listed and _lists_options(system):  # nothing sent: nothing to check
        offered = {o.get("key"): o for o in _listed(system, game, cmd)}
        unknown = sorted(k for k in sent if k not in offered and k not in given)
        if unknown:
            raise Rejected(N_("%(system)s has no attack option %(option)s"), system=system.name, option=repr(unknown[0]))
        ruled = sorted(k for k in sent if actor.role != "gm" and offered.get(k, {}).get("gm")
                       and sent[k] != offered[k].get("default"))
        if ruled:
            raise Rejected(N_("only the GM sets %(option)s"), option=offered[ruled[0]].get("label") or ruled[0])
    update: dict = {"options": {**sent, **given}}
    if cmd.weapon is None and (owed or {}).get("weapon"):  # a free attack: with the weapon the rules armed it with
        update["weapon"] = owed["weapon"]
    return cmd.model_copy(update=update)


def _lists_options(system) -> bool:
    """Whether the system lists its attack options (and so judges the options and targets sent itself)."""
    return isinstance(system, BaseSystem) and type(system).attack_options is not BaseSystem.attack_options


def _listed(system, game: "Game", cmd: AttackCommand) -> list[dict]:
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


def _plan_one(game: "Game", cmd: AttackCommand, actor: "Actor") -> dict:
    """One attacker at one target (or at a template)."""
    system = rules.get(game.system)
    attacker = _visible_token(game, actor, cmd.attacker)
    target = _visible_token(game, actor, cmd.target)
    _authorize(game, cmd, actor, attacker)
    left = (_owed_entry(game, cmd) or {}).get("from")
    if left is not None:  # a free attack on a withdrawing token (#58): at the square it left, as it left it
        target = dataclasses.replace(target, x=int(left[0]), y=int(left[1]))
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
    line = _sighted(game.board, "line", a, b, los.line_of_fire)
    if not line.clear and not cmd.force:
        if area is not None:
            raise Rejected(N_("%(name)s has no line of fire to the template: a wall or door is in the way"),
                           name=attacker.name)
        raise Rejected(N_("%(name)s has no line of fire to %(target)s: a wall or door is in the way"), name=attacker.name,
                       target=target.name)
    cover = _sighted(game.board, "cover", a, b, los.cover)
    board = game.board
    if not line.clear:  # forced: the GM rules the line clear, so the rules are not shown the wall either
        cover, board = los.Cover(0.0, []), None
    request, band, cover_view = _request(game, cmd, system, attacker, target, distance, cover, board, cover.fraction)
    return {
        "system": system, "request": request, "attacker": attacker, "target": target,
        "view": {
            "attacker": attacker.id, "target": target.id, "weapon": cmd.weapon,
            "from": list(a), "to": list(b), "line": {"clear": line.clear, "blocked_by": len(line.blockers)},
            "cover": cover_view, "distance": distance, "unit": text.on_grid(system.cell_unit, game.board.grid.hex), "band": band,
            "band_label": band_label(system, band), "forced": cmd.force,
            **({"template": area["view"]} if area is not None else {}),
        },
    }


#: lines of fire and covers an attack's plan keeps on the board as it is (``_sighted``), at most
SIGHTS_KEPT = 4096


def _sighted(board, kind: str, a, b, measure):
    """``measure(board, a, b)`` (``los.line_of_fire``, ``los.cover``: pure functions of the board as it is), kept on
    the board (``Board.cached``: emptied by any change to it) for the next attack between the same cells: the foes'
    planner weighs the same shot from the same square for every way of the turn and every weapon, a forecast for every
    run (#68). The answers are read, never changed."""
    kept = board.cached("attack_sights", dict)
    key = (kind, tuple(a), tuple(b))
    found = kept.get(key)
    if found is None:
        if len(kept) >= SIGHTS_KEPT:
            kept.clear()
        found = kept[key] = measure(board, a, b)
    return found


def _area(game: "Game", cmd: AttackCommand, system, attacker: "Token") -> dict | None:
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


def _zone_template(game: "Game", cmd: AttackCommand, system, attacker: "Token", target: "Token") -> dict | None:
    """On a zone map a laid template covers a zone: an area weapon (one the sheet marks ``area``) fired
    with it hits that zone as the rules' area weapons do (everyone in it), so the target is picked in it.
    None for an attack without a template."""
    if cmd.template is None:
        return None
    template = game.templates.get(cmd.template)
    if template is None:
        raise Rejected(N_("no template %(id)s on this map"), id=repr(cmd.template))
    weapon = _weapon(system, fighting.sheet_of(game, attacker), cmd.weapon, attacker.name)
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


def _plan_in_zones(game: "Game", cmd: AttackCommand, actor: "Actor", system, attacker: "Token", target: "Token") -> dict:
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


def reachable(p: dict) -> None:
    """Rejected, in the preview's words, when the rules refuse the attack as aimed (out of the weapon's reach or
    range): checked before a defender is asked to defend against an attack that cannot be rolled (#58).
    Where the rules leave the odds to the GM, the roll judges it."""
    try:
        p["system"].odds(p["request"])
    except RuleNotImplemented:
        pass
    except RuleError as exc:
        raise Rejected(rules_words(exc)) from None


def preview(game: "Game", cmd: AttackCommand, actor: "Actor") -> dict:
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


def _owed(game: "Game", cmd: AttackCommand) -> bool:
    """The rules (or a move) say this attack happens now."""
    return _owed_entry(game, cmd) is not None


def _owed_entry(game: "Game", cmd: AttackCommand) -> dict | None:
    """The attack the rules (or a move) owe now from this attacker at this target (``combat.due``), if any."""
    return next((e for e in (game.combat or {}).get("due", [])
                 if e.get("attacker") == cmd.attacker and e.get("target") == cmd.target), None)


def sized_up(game: "Game", attacker: "Token", target: "Token") -> dict:
    """What a player's list of the board says of a foe before any attack is aimed (#61): the distance as the rules
    count it, whether a line of fire is clear, the cover the rules give it and whether ``attacker``'s first weapon
    (the one the attack card starts on) reaches it: ``reach`` True, False (``why``: the rules' words) or None (the
    rules leave it to the GM). Not the turn's checks: a foe out of turn is still in reach. Stores nothing."""
    system = rules.get(game.system)
    try:
        weapons = system.weapons(fighting.sheet_of(game, attacker))
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        weapons = []
    weapon = weapons[0] if weapons else None
    cmd = AttackCommand(attacker=attacker.id, target=target.id, weapon=weapon["key"] if weapon else None)
    if game.zones is not None:
        za, zb = position_of(game, attacker), position_of(game, target)
        way = zonelayout.path(game.zones, za, zb) if za and zb else None
        if way is None or system.board != "zones":
            return {"clear": False, "cover": None, "reach": False, "why": None, "weapon": None}
        cover = next(z for z in game.zones if z["id"] == zb).get("cover") or "none"
        clear, distance, board, fraction = True, len(way) - 1, None, None
    else:
        if system.board != "grid":
            return {"clear": False, "cover": None, "reach": False, "why": None, "weapon": None}
        a, b, distance = aim_squares(game, attacker, target)
        clear = los.line_of_fire(game.board, a, b).clear
        cover = los.cover(game.board, a, b) if clear else los.Cover(0.0, [])
        board, fraction = game.board, cover.fraction
    try:
        request, _band, cover_view = _request(game, cmd, system, attacker, target, distance, cover, board, fraction)
    except Rejected:
        return {"clear": clear, "cover": None, "reach": None, "why": None, "weapon": None}
    out = {"clear": clear, "cover": cover_view if clear else None, "reach": None, "why": None,
           "weapon": weapon["label"] if weapon else None}
    if not clear:
        out["reach"] = False
        return out
    try:
        system.odds(request)
        out["reach"] = True
    except RuleNotImplemented:
        pass
    except (RuleError, ValueError, TypeError, KeyError) as exc:
        out["reach"], out["why"] = False, rules_words(exc) if isinstance(exc, RuleError) else None
    return out
