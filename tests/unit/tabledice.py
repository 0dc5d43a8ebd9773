"""What the table's own dice tests share (#59): a game built at the game layer (no server), a command played on it,
and the facts of its events to compare with the same command on the app's dice."""

from __future__ import annotations

from rules.text import plain
from webapp.game import table
from webapp.game.model import GM, Actor, Event

MIRA = Actor("player", "p-mira")


def play(game, payload, actor=GM, dice=None):
    """The events of ``payload`` decided as ``actor`` (the GM by default) and applied to ``game``."""
    events = table.decide(game, table.parse_command(payload), actor, dice)
    for event in events:
        table.evolve(game, event)
    return events


def facts(events):
    """What the events say, less the ids drawn afresh each time a command is decided."""
    out = []
    for e in events:
        data = plain(e.data)
        data.pop("id", None)
        out.append((e.type, data))
    return out


def seated(game_id: str, name: str, system: str, board, tokens, zones=None):
    """A game of ``system`` with Mira seated and ``tokens`` placed: ``(name, where, owner)`` each, ``where`` a
    square's x on row 2 or a zone's id, ``owner`` Mira's player id for hers, None for the GM's foes. Gives the
    game and the tokens' ids by name."""
    game = table.empty_game(game_id)
    for event in table.new_game_events(name, system, board, zones):
        table.evolve(game, event)
    table.evolve(game, Event("player_joined", {"player_id": MIRA.player_id, "name": "Mira", "key_hash": "x" * 64}))
    ids = {}
    for token, where, owner in tokens:
        place = {"zone": where} if isinstance(where, str) else {"x": where, "y": 2}
        ev = play(game, {"type": "add_token", "name": token, **place, **({"owner": owner, "kind": "pc"} if owner else {})})
        ids[token] = ev[0].data["token"]["id"]
    return game, ids
