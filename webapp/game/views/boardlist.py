"""A player's board as a list (#61): what a screen reader reads in order, and what a fight is played with from the
keyboard, beside the map.

``view`` gives, for one player, the tokens their tokens see (``fog.visible_tokens``: never one they cannot see),
nearest first, each with its square as the map names it ("G7", ``describe.square_name``; on a zone map its zone's
name), its distance from the player's token in the system's unit, for a foe whether it is in reach, in line of fire
and its cover (``aiming.sized_up``: the rules' answers), and its badges; and the places the player's token may move
to now (the rules' reachable squares, ``rules.movement.reachable`` within what the fight leaves it; on a zone map the
zones within its moves), each with its cost. Plain data with the rules' words (``Say``), said in the reader's
language where it is drawn (``templates/_board_list.html``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import rules
from rules import movement
from rules.system import RuleError, RuleNotImplemented

from ..fight import aiming
from ..bridge import fighting, fog, zonelayout
from ..bridge.describe import square_name
from ..core.model import cells_at
from ..core.text import measure, on_grid

if TYPE_CHECKING:
    from ..core.model import Actor, Game, Token

#: how far a token may go from the list outside a fight, where the rules give no move allowance
ROAM = 6
#: the most destinations offered (a very fast token on an open board: the nearest ones)
MOST_PLACES = 200
#: the nearest foes whose line of fire, cover and reach the list asks the rules (each costs a line of fire, its cover
#: and the odds: on a big walled map with dozens of foes in sight, all of them held the server's loop for ~50 ms)
MOST_AIMED = 8
#: the badges a row reads (as a token's accessible name does, ``describe.token_name``): not resources
SHOWN_BADGES = ("wound", "condition")


def me_of(game: "Game", actor: "Actor", seen: list["Token"]) -> "Token | None":
    """The player's token the list measures from: the one whose turn it is when it is theirs, else their first."""
    mine = [t for t in seen if actor.player_id and t.owner == actor.player_id]
    current = (game.combat or {}).get("current")
    return next((t for t in mine if t.id == current), mine[0] if mine else None)


def place_of(game: "Game", token: "Token") -> str:
    """Where a token stands as the map names it: its square ("G7", the top-left one of a big token; on hexes the
    hex's) or on a zone map its zone's name."""
    if game.zones is not None:
        zone = zonelayout.zone_at(game.zones, token.x, token.y)
        if zone is not None:
            return zone.get("name") or zone["id"]
    return square_name(token.x, token.y)


def _unit(game: "Game", system) -> str:
    return "zone" if game.zones is not None else on_grid(system.cell_unit, game.board.grid.hex)


def distance(game: "Game", system, a: "Token", b: "Token") -> float | None:
    """``a`` to ``b`` as the rules count range: squares (the closest squares of big tokens, ``fighting.aim_squares``)
    or zone steps; None where no way leads between their zones."""
    if game.zones is not None:
        za, zb = fighting.position_of(game, a), fighting.position_of(game, b)
        way = zonelayout.path(game.zones, za, zb) if za and zb else None
        return None if way is None else len(way) - 1
    return fighting.aim_squares(game, a, b)[2] * system.cell_size


def _side(me: "Token", token: "Token", actor: "Actor") -> str:
    if actor.player_id and token.owner == actor.player_id:
        return "yours"
    return "ally" if token.kind == me.kind else "foe"


def _badges(game: "Game", token: "Token") -> list[dict]:
    return [b for b in fighting.badges(game, token) if b.get("kind") in SHOWN_BADGES and b.get("label")]


def rows(game: "Game", actor: "Actor", me: "Token | None", seen: list["Token"]) -> list[dict]:
    """Each token ``seen`` but ``me``, nearest first, then by name. The ``MOST_AIMED`` nearest foes' rows say what
    an attack from ``me`` would meet (``aiming.sized_up``)."""
    system = rules.get(game.system)
    unit = _unit(game, system)
    in_a_fight = bool(game.combat)
    out = []
    for t in seen:
        if me is not None and t.id == me.id:
            continue
        d = distance(game, system, me, t) if me is not None else None
        side = _side(me, t, actor) if me is not None else ("yours" if t.owner == actor.player_id else "other")
        row = {"token": t, "side": side, "place": place_of(game, t), "distance": d,
               "far": measure(d, unit) if d is not None else None, "badges": _badges(game, t),
               "out": in_a_fight and not fighting.stands(game, t), "aim": None}
        out.append(row)
    out.sort(key=lambda r: (r["distance"] if r["distance"] is not None else float("inf"), r["token"].name.casefold()))
    for row in [r for r in out if r["side"] == "foe"][:MOST_AIMED]:
        row["aim"] = aiming.sized_up(game, me, row["token"])
    return out


def _left(game: "Game", system, token: "Token") -> float | None:
    """What the rules leave the token to move this turn (in squares or zone steps); None: no limit they say."""
    if fighting.in_fight(game, token.id):
        try:
            return system.movement_left(game.combat["state"], fighting.combatant(game, token), fighting.settings_of(game))
        except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
            return None
    try:
        return float(system.move_allowance(fighting.sheet_of(game, token)))
    except (RuleNotImplemented, RuleError, ValueError, TypeError, KeyError):
        return None


def places(game: "Game", actor: "Actor", me: "Token", seen: list["Token"]) -> list[dict]:
    """Where ``me`` may go now: ``{"x", "y"}`` or ``{"zone"}``, with ``name`` (its square or zone) and ``far`` (its
    cost in the system's unit), cheapest first. The squares are the rules' reachable ones within what the fight
    leaves the token (outside a fight, its move allowance, or ``ROAM``), on the map as this player knows it (fog:
    ``fog.known_board``), less the squares the tokens they see stand on; on a zone map the zones within its moves
    (one step outside a fight)."""
    system = rules.get(game.system)
    left = _left(game, system, me)
    if game.zones is not None:
        here = fighting.position_of(game, me)
        steps = zonelayout.within(game.zones, here, 1 if left is None else left) if here else {}
        return [{"zone": z["id"], "name": z.get("name") or z["id"], "far": measure(steps[z["id"]], "zone")}
                for z in sorted(game.zones, key=lambda z: (steps.get(z["id"], 0), z.get("name") or ""))
                if z["id"] in steps and z["id"] != here]
    budget = (left if left is not None else ROAM) / (system.cell_size or 1)
    board = fog.known_board(game, actor)
    size = me.size or 1
    grid = game.board.grid
    if size == 1:
        cells = movement.reachable(board, (me.x, me.y), budget, system.diagonal)
    else:
        cells, _ = movement.footprint_search(board, (me.x, me.y), size, system.diagonal, budget)
    mine = set(cells_at(me.x, me.y, size, grid))
    taken = {c for t in seen if t.id != me.id for c in cells_at(t.x, t.y, t.size or 1, grid)}
    unit = on_grid(system.cell_unit, grid.hex)
    found = sorted(((cost, y, x) for (x, y), cost in cells.items() if (x, y) != (me.x, me.y)
                    and not (set(cells_at(x, y, size, grid)) - mine) & taken))[:MOST_PLACES]
    return [{"x": x, "y": y, "name": square_name(x, y), "far": measure(cost * system.cell_size, unit)}
            for cost, y, x in found]


def choices_first(game: "Game", me: "Token") -> list[dict]:
    """The turn's choices the rules want before a move (#70: the 3d6 system's maneuver, which says how far the token
    may move, "choose a maneuver first"), as the turn bar offers them (the usual ones open now, ``fighting.actions_now``):
    on the token's turn, when the rules offer no move yet but choices of the turn that each allow a movement
    (``data.allowance``). Empty otherwise (a move is the rules' own action, or the choice is made)."""
    if (game.combat or {}).get("current") != me.id:
        return []
    offered = fighting.actions_now(game, me)
    if any(o.get("kind") == "move" for o in offered):
        return []
    return [o for o in offered if o.get("kind") == "turn" and o.get("available") and o.get("usual")
            and "allowance" in (o.get("data") or {})]


def view(game: "Game", actor: "Actor") -> dict | None:
    """The list of the board for this player (None for the GM and the table screen). ``choose``: the turn's choices
    the rules want before a move (:func:`choices_first`): no place is offered until one is made."""
    if actor.role != "player":
        return None
    seen = fog.visible_tokens(game, actor)
    me = me_of(game, actor, seen)
    system = rules.get(game.system)
    choose = choices_first(game, me) if me is not None else []
    return {"me": me, "place": place_of(game, me) if me is not None else None, "rows": rows(game, actor, me, seen),
            "places": places(game, actor, me, seen) if me is not None and not choose else [],
            "choose": choose, "zones": game.zones is not None, "unit": _unit(game, system),
            "turn": me is not None and (game.combat or {}).get("current") == me.id}
