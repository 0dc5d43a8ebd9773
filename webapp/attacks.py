"""Attacks: the game's rule system decides; the app brings the board, the sheets and the dice.

``preview`` answers what an attack would be (line of fire, cover, range,
every modifier, the exact odds of each outcome) and stores nothing.
``decide`` rolls it: the event carries the system's whole result and the
sheets as the system left them, so ``evolve`` applies it without calling the
rules again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, StringConstraints

import rules
from rules import los
from rules.dice import DiceSource
from rules.system import AttackRequest, AttackResult, RuleError, RuleNotImplemented

from . import characters
from . import zonelayout
from .combat import aim_squares, combatant, position_of, rules_call, settings_of
from .facts import Event, Rejected

if TYPE_CHECKING:
    from .table import Actor, Game, Token

Id = Annotated[str, StringConstraints(min_length=1, max_length=64)]


class _AttackCommand(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True, str_strip_whitespace=True)
    attacker: Id
    target: Id
    weapon: Annotated[str, StringConstraints(max_length=80)] | None = None
    options: dict[str, Any] = {}
    force: bool = False  # GM only: past the table's checks (turn, line of fire); logged as a GM ruling


class PreviewAttack(_AttackCommand):
    type: Literal["preview_attack"]


class Attack(_AttackCommand):
    type: Literal["attack"]


COMMANDS = (PreviewAttack, Attack)
EVENTS = ("attack_resolved",)


def _visible_token(game: "Game", actor: "Actor", token_id: str) -> "Token":
    token = game.tokens.get(token_id)
    if token is None or not game.may_see(actor, token):
        raise Rejected(f"no token {token_id!r} in this game")
    return token


def _authorize(game: "Game", cmd: _AttackCommand, actor: "Actor", attacker: "Token") -> None:
    if actor.role == "screen":
        raise Rejected("the table screen only shows the map")
    if cmd.force and actor.role != "gm":
        raise Rejected("only the GM can force a ruling")
    if actor.role == "player" and attacker.owner != actor.player_id:
        raise Rejected(f"{attacker.name} is not yours")
    current = game.combat.get("current") if game.combat else None
    if game.combat and attacker.id != current and not cmd.force and actor.role != "gm" and not _owed(game, cmd):
        raise Rejected(f"it is not {attacker.name}'s turn")


def _weapon(system, attacker_sheet: dict, key: str | None, name: str) -> dict | None:
    if key is None:
        return None
    for w in system.weapons(attacker_sheet):
        if w["key"] == key:
            return w
    raise Rejected(f"{name} has no weapon {key!r}")


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


def plan(game: "Game", cmd: _AttackCommand, actor: "Actor") -> dict:
    """Everything the table knows about an attack before the rules judge it; Rejected when it cannot happen."""
    system = rules.get(game.system)
    attacker = _visible_token(game, actor, cmd.attacker)
    target = _visible_token(game, actor, cmd.target)
    _authorize(game, cmd, actor, attacker)
    if attacker.id == target.id:
        raise Rejected("a token cannot attack itself")
    if game.zones is not None:
        return _plan_in_zones(game, cmd, actor, system, attacker, target)
    if system.board != "grid":
        raise Rejected(f"{system.name} plays on zone maps; this game has a square grid")
    a, b, distance = aim_squares(game, attacker, target)  # big tokens: from their best squares
    line = los.line_of_fire(game.board, a, b)
    if not line.clear and not cmd.force:
        raise Rejected(f"{attacker.name} has no line of fire to {target.name}: a wall or door is in the way")
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
            "forced": cmd.force,
        },
    }


def _plan_in_zones(game: "Game", cmd: _AttackCommand, actor: "Actor", system, attacker: "Token", target: "Token") -> dict:
    """On a zone map: the distance is zone steps, the cover is the target's zone's, and no wall stands between."""
    if system.board != "zones":
        raise Rejected(f"{system.name} plays on a square grid; this game has a zone map")
    za, zb = position_of(game, attacker), position_of(game, target)
    way = zonelayout.path(game.zones, za, zb) if za and zb else None
    if way is None:
        raise Rejected(f"{attacker.name} cannot reach {target.name}: no way leads between their zones")
    distance = len(way) - 1
    cover = next(z for z in game.zones if z["id"] == zb).get("cover") or "none"
    request, band, cover_view = _request(game, cmd, system, attacker, target, distance, cover, None, None)
    return {
        "system": system, "request": request, "attacker": attacker, "target": target,
        "view": {
            "attacker": attacker.id, "target": target.id, "weapon": cmd.weapon,
            "from": [attacker.x, attacker.y], "to": [target.x, target.y], "line": {"clear": True, "blocked_by": 0},
            "cover": cover_view, "distance": distance, "unit": "zone step", "band": band, "forced": cmd.force,
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
    except RuleNotImplemented as exc:
        view["odds"] = None
        view["odds_missing"] = f"not automated: {exc}"
    except RuleError as exc:
        raise Rejected(str(exc)) from None
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
    effects = [e for e in result.effects if e.target == token_id]
    return AttackResult(result.hit, result.summary, result.rolls, result.modifiers, effects, result.details)


def decide(game: "Game", cmd: Attack, actor: "Actor", dice: DiceSource) -> list[Event]:
    p = plan(game, cmd, actor)
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
    return [Event("attack_resolved", data)]


def evolve(game: "Game", event: Event, log) -> None:
    d = event.data
    for token_id, sheet in d["sheets"].items():
        characters.set_sheet(game, token_id, sheet)
    if game.combat and "fight_state" in d:
        game.combat["state"] = d["fight_state"]
        game.combat["due"] = d.get("due", game.combat.get("due", []))
    attacker, target = game.tokens.get(d["attacker"]), game.tokens.get(d["target"])
    secret = bool((attacker and attacker.hidden) or (target and target.hidden))
    ruling = " (GM ruling)" if d.get("forced") else ""
    log(d["result"]["summary"] + ruling, "gm" if secret else "all", {"attack": d["result"]})
