"""The GM's foes (#60) on a zone map: the plans for a foe's turn where the rules count zones, not squares.

:func:`webapp.game.planning.suggestions.reckon` hands a zone map's turn here, with the ways the system's ``plan_turns``
gives, the foe's tactic and its foes; the ranking (``_best``) is the grid's. What is weighed: every zone the foe
can reach within what the rules leave it (``movement_left``, the way along the zones' links), each judged by the
rules' own ``move`` as ``move_token`` in a fight judges it; from each (its own zone too), each foe of its standing
and each weapon the rules let reach it from there, with the rules' odds on the state the move leaves and the
system's ``attack_effect``. A plan's ``to`` is the zone's id, and its move step names the zone
(``{"type": "move_token", "token_id", "zone"}``: the server picks a free square of it, the same one reckoned here).

What the rules read of a zone is its distance in zone steps and its cover (the target's zone's cover cuts the
wounds): so zones alike on both are alike, and of those the cheapest to reach is judged. A zone's danger for the
foe (careful) is the count of its foes standing in it plus those whose weapons reach it while it has no cover;
withdrawing (cowardly and hurt), the zones farthest in zone steps from its nearest foe, of those no nearer to any foe
and farther from one (#67: none where there is no such zone); careful, "cover" said only of a zone with cover; guarding, the zones within
``GUARD_ZONES`` steps of its post's zone.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from rules.dice import SeededDice
from rules.system import RuleError, RuleNotImplemented
from rules.text import say, say_n

from ..bridge import zonelayout
from ..fight.aiming import AttackCommand
from ..bridge.fighting import combatant, fighters_of, position_of
from .foe_sandbox import finishing, is_melee as _is_melee, sandbox as _sandbox, weapons_of as _weapons, weighed

if TYPE_CHECKING:
    from ..core.model import Game, Token

GUARD_ZONES = 1  #: zone steps a guarding foe keeps within from its post's zone
FAR = 99  #: the distance of a zone no way leads to from any foe


class _Zones:
    """The zone map as the reckoning reads it: zones by id, each foe's zone steps to every zone, free squares."""

    def __init__(self, game: "Game", system, me: "Token", foes: list["Token"]) -> None:
        self.by_id = {z["id"]: z for z in game.zones}
        self.system = system
        self.taken = {(t.x, t.y) for t in game.tokens.values()}
        self.steps = {}
        self.reach: dict[str, list[dict]] = {}
        for f in foes:
            here = position_of(game, f)
            self.steps[f.id] = zonelayout.within(game.zones, here, None) if here else {}
            self.reach[f.id] = _weapon_data(system, combatant(game, f).sheet)
        self.foes = foes

    def open(self, zone_id: str) -> bool:
        return (self.by_id[zone_id].get("cover") or "none") == "none"

    def cell(self, zone_id: str) -> tuple[int, int] | None:
        """The square ``move_token`` puts the foe on in that zone: its first free one (``tokens._place_of``)."""
        return next((c for c in zonelayout.cells_of(self.by_id[zone_id]) if c not in self.taken), None)

    def threat(self, zone_id: str) -> int:
        """Foes standing in the zone, and foes whose weapons reach it while it has no cover."""
        n = 0
        for f in self.foes:
            d = self.steps[f.id].get(zone_id)
            if d is None:
                continue
            n += (d == 0) + (self.open(zone_id) and any(_band(self.system, d, w) for w in self.reach[f.id]))
        return n

    def away(self, zone_id: str, here: str) -> bool:
        """Whether ``zone_id`` is a way out from ``here`` (#67): no nearer to any foe in zone steps, and farther from
        one at least."""
        pairs = [(self.steps[f.id].get(zone_id, FAR), self.steps[f.id].get(here, FAR)) for f in self.foes]
        return all(a >= b for a, b in pairs) and any(a > b for a, b in pairs)

    def far(self, zone_id: str) -> int:
        return min((self.steps[f.id].get(zone_id, FAR) for f in self.foes), default=FAR)


def _weapon_data(system, sheet: dict) -> list[dict]:
    try:
        return [w["data"] for w in system.weapons(sheet)]
    except (RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        return []


def _band(system, distance: int, weapon: dict):
    """The range band a weapon reaches at ``distance`` zone steps, by the rules; None out of its reach."""
    try:
        return system.range_band(distance, weapon)
    except (RuleError, RuleNotImplemented, ValueError, TypeError, KeyError):
        return None


def _moved(view: "Game", me: "Token", zone_id: str, cell: tuple[int, int], system, settings: dict,
           fighters: list | None = None) -> "Game | None":
    """``view`` after the foe's move to ``zone_id`` (on ``cell``), as ``move_token`` in a fight leaves it: the
    rules' ``move`` books the zone steps along the links; None when they refuse it or it ends the turn.
    ``fighters``: the fight's combatants in ``view``, when the caller has them."""
    here = position_of(view, me)
    if zone_id == here:
        return view
    path = zonelayout.path(view.zones, here, zone_id)
    if path is None:
        return None
    try:
        result = system.move(view.combat["state"], combatant(view, me), path, len(path) - 1,
                             fighters_of(view) if fighters is None else fighters, view.board, SeededDice(0), settings)
    except (RuleError, RuleNotImplemented):
        return None
    if result.turn is not None or result.provokes:
        return None
    return dataclasses.replace(view, tokens={**view.tokens, me.id: dataclasses.replace(me, x=cell[0], y=cell[1])},
                               combat={**view.combat, "state": result.state})


class _Moves:
    """:func:`_moved` of the foe on one ``view``, each zone judged once (every target, weapon and way of the turn
    weighs the same move to it: the rules' ``move`` is pure, and nothing weighed changes the game it leaves)."""

    def __init__(self, view: "Game", me: "Token", system, settings: dict) -> None:
        self.view, self.me, self.system, self.settings = view, me, system, settings
        self._kept: dict = {}
        self._fighters: list | None = None

    def __call__(self, zone_id: str, cell: tuple[int, int]) -> "Game | None":
        key = (zone_id, cell)
        if key not in self._kept:
            if self._fighters is None:
                self._fighters = fighters_of(self.view)
            self._kept[key] = _moved(self.view, self.me, zone_id, cell, self.system, self.settings, self._fighters)
        return self._kept[key]


def plans_on_zones(game: "Game", token: "Token", system, ways: list[dict], tactic: str, withdraw: bool,
                   foes: list["Token"], settings: dict, anchor) -> list[dict]:
    """Every plan worth ranking for the GM's foe ``token`` on its turn on a zone map (``_best`` ranks them)."""

    view = _sandbox(game)
    me = view.tokens[token.id]
    here = position_of(view, me)
    if here is None:
        return []
    zones = _Zones(view, system, me, foes)
    left = system.movement_left(view.combat["state"], combatant(view, me), settings)
    reachable = zonelayout.within(view.zones, here, left)
    if tactic == "guarding":
        post = zonelayout.zone_at(view.zones, int(anchor[0]), int(anchor[1]))
        near = zonelayout.within(view.zones, post["id"], GUARD_ZONES) if post else {here: 0}
        reachable = {z: d for z, d in reachable.items() if z in near}
    # the zone the foe ends on: its own square where it stands, else the square the server gives it there
    cells = {z: ((me.x, me.y) if z == here else zones.cell(z)) for z in reachable}
    cells = {z: c for z, c in cells.items() if c is not None}
    found: list[dict] = []
    careful = tactic == "careful"
    moves = _Moves(view, me, system, settings)
    for way in ways:
        if withdraw and way["attack"]:
            continue
        if not way["attack"]:
            if way.get("approach"):  # a way for closing in only
                continue
            found += _moves(view, me, way, cells, reachable, zones, moves, careful, withdraw)
            continue
        for target in foes:
            aim = position_of(view, target)
            if aim is None:
                continue
            for weapon in _weapons(system, combatant(view, me).sheet):
                melee = _is_melee(weapon)
                if way.get("melee") is not None and melee is not None and way["melee"] != melee:
                    continue
                # zones alike on what the rules read (the distance to the target; careful: the danger) are one
                alike: dict = {}
                for z in sorted(cells, key=lambda z: (reachable[z], z != here, z)):
                    d = zones.steps[target.id].get(z) if target.id in zones.steps else None
                    if d is None or _band(system, d, weapon["data"]) is None:
                        continue
                    alike.setdefault((d, zones.threat(z) if careful else 0), z)
                for z in alike.values():
                    p = _attack_plan(moves, me, z, cells[z], reachable[z], target, weapon, way, system, zones)
                    if p is not None:
                        found.append(p)
    if not withdraw and not any(p["kind"] == "attack" for p in found):  # no attack reaches: closing in (#67)
        for way in ways:
            if not way["attack"] and not way.get("then"):
                found += _approach(view, me, way, cells, reachable, zones, moves, careful)
    if tactic == "guarding":
        for p in found:
            p["why"].append(say_n("guarding: it keeps within {n} zone of its post",
                                  "guarding: it keeps within {n} zones of its post", GUARD_ZONES))
    return found


def _attack_plan(moves: _Moves, me, zone_id, cell, cost, target, weapon, way, system, zones: _Zones) -> dict | None:
    moved = moves(zone_id, cell)
    if moved is None:
        return None
    options = dict(way["options"])
    cmd = AttackCommand(attacker=me.id, target=target.id, weapon=weapon["key"], options=options)
    found = weighed(moved, cmd, system)
    if found is None:
        return None
    p, odds, worth = found
    hit = odds["hit"]
    steps = []
    name = zones.by_id[zone_id]["name"]
    if cost:
        steps.append({"type": "move_token", "token_id": me.id, "zone": zone_id})
        summary = say("{way}: to {zone}, then {weapon} at {target}", way=way["label"], zone=name,
                      weapon=weapon["label"], target=target.name)
    else:
        summary = say("{way}: {weapon} at {target} from {zone}", way=way["label"], weapon=weapon["label"],
                      target=target.name, zone=name)
    steps.append({"type": "attack", "attacker": me.id, "target": target.id, "weapon": weapon["key"],
                  "options": options})
    down, finish = finishing(worth, target)
    cover = p["view"]["cover"]
    where = say("{target} in the open", target=target.name) if cover.get("level") in (None, "", "none") else \
        say("{target} behind cover ({cover})", target=target.name, cover=cover.get("label") or "")
    return {"summary": summary, "steps": steps, "target": target.id, "weapon": weapon["key"], "options": options,
            "to": zone_id, "hit": float(hit), "effect": round(float(worth["effect"]), 4),
            "effect_unit": worth["unit"], "down": down,
            "why": finish + [where] + ([worth["defense"]] if worth.get("defense") else []),
            "kind": "attack", "_cost": cost, "_threat": zones.threat(zone_id), "_risky": bool(way.get("risky")),
            "_score": float(worth["effect"]) + (down or 0.0) * float(worth.get("down_worth") or 0.0)}


def _moves(view, me, way, cells, reachable, zones: _Zones, moves: _Moves, careful, withdraw) -> list[dict]:
    """A move alone: careful, to the zones fewest foes stand in or can shoot into; cowardly and hurt, to the
    zones farthest from its foes (then the least dangerous)."""
    if not (careful or withdraw) or not zones.foes:
        return []
    here = position_of(view, me)
    if withdraw:
        order = sorted(cells, key=lambda z: (-zones.far(z), zones.threat(z), reachable[z], z))
    else:
        order = sorted(cells, key=lambda z: (zones.threat(z), zones.open(z), reachable[z], z))
    out = []
    for z in order:
        if withdraw and not zones.away(z, here):
            continue  # cowardly and hurt: only away from every foe, or nowhere (#67)
        if z == here or moves(z, cells[z]) is None:
            continue
        threat = zones.threat(z)
        if not withdraw and zones.open(z) and threat >= zones.threat(here):
            continue  # careful: a zone with no cover and no fewer foes is no move (#67)
        covered = not withdraw and not zones.open(z)  # "cover" only of a zone that gives it (#67)
        why = [say("cowardly and hurt: it withdraws") if withdraw else say("careful: it takes cover") if covered
               else say("careful: it moves where fewer foes can reach it"),
               say_n("{n} foe can shoot into that zone or stands in it",
                     "{n} foes can shoot into that zone or stand in it", threat)]
        if not zones.open(z):
            why.append(say("{zone} gives cover", zone=zones.by_id[z]["name"]))
        out.append({"summary": say("{way}: to {zone}", way=way["label"], zone=zones.by_id[z]["name"]),
                    "steps": [{"type": "move_token", "token_id": me.id, "zone": z}],
                    "target": None, "weapon": None, "options": {}, "to": z, "hit": None, "effect": 0.0, "down": None,
                    "effect_unit": None, "why": why, "kind": "withdraw" if withdraw else "cover" if covered else "move",
                    "_cost": reachable[z],
                    "_threat": threat, "_far": zones.far(z)})
    return out


def _approach(view, me, way, cells, reachable, zones: _Zones, moves: _Moves, careful) -> list[dict]:
    """Closing in (#67), when no attack reaches a foe this turn: for each foe, the fewest zone steps to its zone
    (``zonelayout.path``), followed as far as the move allowance goes (``cells``: the zones within it with a free
    square) to a zone the rules' ``move`` accepts; careful, of the zones along it, the least dangerous first, then
    the farthest. One plan per foe: the move, then its attack next turn."""
    here = position_of(view, me)
    out = []
    for target in zones.foes:
        aim = position_of(view, target)
        path = zonelayout.path(view.zones, here, aim) if aim is not None else None
        if path is None:
            continue
        along = [(i, z) for i, z in enumerate(path) if i and z in cells][::-1]  # farthest first
        if careful:
            along.sort(key=lambda iz: zones.threat(iz[1]))
        for i, z in along:
            if moves(z, cells[z]) is None:
                continue
            rest = len(path) - 1 - i
            name = zones.by_id[z]["name"]
            why = [say_n("no attack reaches {target} this turn: {n} zone step left on the way to it",
                         "no attack reaches {target} this turn: {n} zone steps left on the way to it", rest,
                         target=target.name)] if rest else [say("no attack reaches {target} this turn: it closes in",
                                                                target=target.name)]
            out.append({"summary": say("{way}: to {zone}, closing in on {target}", way=way["label"], zone=name,
                                       target=target.name),
                        "steps": [{"type": "move_token", "token_id": me.id, "zone": z}],
                        "target": target.id, "weapon": None, "options": {}, "to": z, "hit": None, "effect": 0.0, "down": None,
                        "effect_unit": None, "why": why, "kind": "approach", "_cost": reachable[z],
                        "_threat": zones.threat(z), "_rest": rest})
            break
    return out


def leads_anywhere(game: "Game", token: "Token", foes: list["Token"]) -> bool:
    """Whether the zones' links lead from ``token``'s zone to any of its ``foes``' zones."""
    here = position_of(game, token)
    return here is not None and any(
        (aim := position_of(game, f)) is not None and zonelayout.path(game.zones, here, aim) is not None for f in foes)
