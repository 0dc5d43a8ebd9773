"""Every feature of the game, in one list: the command table builds its dispatch from it.

A new feature is a module that ends with its ``FEATURE`` (:class:`webapp.game.core.feature.Feature`: its commands,
events, decide, evolve and what it follows) and a line here. tests/unit/test_feature_registry.py then says what
else it needs: each command's row in the access matrix, its audience rule and its undo rule, each event's
screen parts. The order is the order of the table's command union (``table.COMMAND_TYPES``, as the refusal of
an unknown type lists them), of the steps features add to another's (Soak's offers before the reroll's), and of
what features do around every command (#66): the guards run in it, the wraps nest in it, the first outermost
(Play the foes' "the GM's hand turns it off" around the table's dice, which decide a command again from its faces).

What the command table and the hub read of the list is gathered below, once, at import: they name no feature.
"""

from __future__ import annotations

import rules
from rules.board import Board

from .fight import attacks, characters, combat, free_attacks, reroll, soak, table_dice
from .board import editor, handouts, lighting, maps, templates, tokens
from .planning import foeplay, morale, suggestions
from .tableside import keys, safety, screenview, seats, touch, undo
from .views import recap, replay_view
from .core.feature import Feature, type_of
from .board import mapdata
from .bridge import zonelayout
from .core.model import Event, Game


def _created(game: Game, event: Event, log) -> None:
    d = event.data
    game.name, game.system = d["name"], d["system"]
    game.board = Board.from_dict(d["board"])
    game.zones = d.get("zones")
    maps.first_map(game)


#: the game itself: its first event (``new_game_events``)
GAME = Feature("game", events=("game_created",), evolve=_created)


def new_game_events(name: str, system: str, board: Board | None = None, zones: list[dict] | None = None,
                    made_by: str | None = None) -> list[Event]:
    """The first event of a game. A zone system without a map of its own gets a small default zone map, any other
    system without a board a 24 x 16 one; an unknown system is a KeyError. ``made_by``: "device" for a game made by
    another device than the server's own machine (not the room's organiser either: webapp/web/lobby.py), which room
    mode never offers as a template (#57)."""
    if rules.get(system).board == "zones" and zones is None:
        board, zones = mapdata.zone_map({"zones": zonelayout.DEFAULT_ZONES})
    data = {"name": name, "system": system, "board": (board or Board(24, 16)).to_dict()}
    if zones is not None:
        data["zones"] = zones
    if made_by is not None:
        data["made_by"] = made_by
    return [Event("game_created", data)]

FEATURES: tuple[Feature, ...] = (
    tokens.FEATURE, seats.FEATURE, undo.FEATURE, combat.FEATURE, attacks.FEATURE, free_attacks.FEATURE, soak.FEATURE, reroll.FEATURE,
    characters.FEATURE, templates.FEATURE, editor.FEATURE, maps.FEATURE, touch.FEATURE, screenview.FEATURE,
    recap.FEATURE, lighting.FEATURE, handouts.FEATURE, safety.FEATURE, foeplay.FEATURE, table_dice.FEATURE,
    suggestions.FEATURE, morale.FEATURE, keys.FEATURE, replay_view.FEATURE, GAME,
)

#: before every command the table decides, after the access matrix: what refuses while it holds
GUARDS = tuple(f.guard for f in FEATURES if f.guard is not None)
#: payload fields taken off every command before it is parsed, handed to the guards
ASIDES = tuple(f.aside for f in FEATURES if f.aside is not None)
#: a command decided its own way, the first outermost
WRAPS = tuple(f.wrap for f in FEATURES if f.wrap is not None)
#: what the sender hears back from its events
ACKS = tuple(f.ack for f in FEATURES if f.ack is not None)
#: after every event applied
AFTER_EVENT = tuple(f.after_event for f in FEATURES if f.after_event is not None)


#: command type -> (its route, its feature), for the commands the hub serves on a path of its own (``Feature.routes``)
ROUTES = {type_of(model): (route, f) for f in FEATURES for model, route in f.routes.items()}
#: command type -> (times, seconds, refusal): how often a player's seat may send it
RATES = {type_of(m): rate for f in FEATURES for m, rate in f.rates.items()}
#: command types whose command id is dropped, never stored beside its seat
ANONYMOUS = frozenset().union(*(f.anonymous for f in FEATURES))
#: command types that redraw every screen's whole map: one at a time per game
HEAVY = frozenset().union(*(f.heavy for f in FEATURES))
#: the live side's runners told of every commit (``webapp.live.foes.RUNNERS``)
STARTS = tuple(f.starts for f in FEATURES if f.starts is not None)
