"""The GM's copy of a token (``duplicate_token``, webapp/game/board/tokens.py) at the game layer: a token with a character
is copied with a copy of its character, in the token's own event; an older log's copy replays as it did (#70)."""

from __future__ import annotations

from rules.board import Board
from webapp.game import table
from webapp.game.core.model import Event

from tabledice import play, seated


def test_a_copy_of_a_token_with_a_character_gets_its_own_copy_of_the_character():
    game, ids = seated("g-copy", "Copies", "gurps_lite", Board(12, 8), [("Ghoul", 2, None)])
    play(game, {"type": "add_character", "name": "Ghoul", "token_id": ids["Ghoul"]})
    ghoul = next(iter(game.characters.values()))
    play(game, {"type": "update_sheet", "character_id": ghoul.id, "changes": {"ST": 14, "hp_current": 6}})

    events = play(game, {"type": "duplicate_token", "token_id": ids["Ghoul"]})
    assert [e.type for e in events] == ["token_added"]  # one event: one line in the log, one step to undo
    twin = events[0].data["token"]
    its = events[0].data["character"]
    assert its["token_id"] == twin["id"] and its["name"] == twin["name"] == "Ghoul 2" and its["id"] != ghoul.id
    assert its["sheet"] == {**ghoul.sheet, "name": "Ghoul 2"}
    assert game.characters[its["id"]].sheet["ST"] == 14 and game.characters[its["id"]].sheet["hp_current"] == 6
    # its sheet is not the original's: a change to the one leaves the other
    game.characters[its["id"]].sheet["hp_current"] = 2
    assert ghoul.sheet["hp_current"] == 6 and events[0].data["character"]["sheet"]["hp_current"] == 6

    # a token without a character is copied as before: no character made for it
    bare = play(game, {"type": "add_token", "name": "Rat", "x": 8, "y": 5})[0].data["token"]["id"]
    assert "character" not in play(game, {"type": "duplicate_token", "token_id": bare})[0].data


def test_an_older_logs_copy_without_a_character_replays_as_it_did():
    game, ids = seated("g-old", "Old copies", "gurps_lite", Board(12, 8), [("Ghoul", 2, None)])
    before = len(game.characters)
    token = dict(game.tokens[ids["Ghoul"]].to_dict(), id="t-00c0ffee", name="Ghoul 2", x=3)
    table.evolve(game, Event("token_added", {"token": token}))
    assert "t-00c0ffee" in game.tokens and len(game.characters) == before
