"""Every feature of the game, in one list: the command table builds its dispatch from it.

A new feature is a module that ends with its ``FEATURE`` (:class:`webapp.game.core.feature.Feature`: its commands,
events, decide, evolve and what it follows) and a line here. tests/unit/test_feature_registry.py then says what
else it needs: each command's row in the access matrix, its audience rule and its undo rule, each event's
screen parts. The order is the order of the table's command union (``table.COMMAND_TYPES``, as the refusal of
an unknown type lists them) and of the steps features add to another's (Soak's offers before the reroll's).
"""

from __future__ import annotations

from rules.board import Board

from .fight import attacks, characters, combat, free_attacks, reroll, soak, table_dice
from .board import editor, handouts, lighting, maps, templates, tokens
from .planning import foeplay, suggestions
from .tableside import keys, safety, screenview, seats, touch, undo
from .views import recap, replay_view
from .core.feature import Feature
from .core.model import Event, Game


def _created(game: Game, event: Event, log) -> None:
    d = event.data
    game.name, game.system = d["name"], d["system"]
    game.board = Board.from_dict(d["board"])
    game.zones = d.get("zones")
    maps.first_map(game)


#: the game itself: its first event (``table.new_game_events``)
GAME = Feature("game", events=("game_created",), evolve=_created)

FEATURES: tuple[Feature, ...] = (
    tokens.FEATURE, seats.FEATURE, undo.FEATURE, combat.FEATURE, attacks.FEATURE, free_attacks.FEATURE, soak.FEATURE, reroll.FEATURE,
    characters.FEATURE, templates.FEATURE, editor.FEATURE, maps.FEATURE, touch.FEATURE, screenview.FEATURE,
    recap.FEATURE, lighting.FEATURE, handouts.FEATURE, safety.FEATURE, table_dice.FEATURE,
    suggestions.FEATURE, foeplay.FEATURE, keys.FEATURE, replay_view.FEATURE, GAME,
)
