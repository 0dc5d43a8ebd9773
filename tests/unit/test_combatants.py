"""What the rules are told of the tokens (``webapp.game.bridge.fighting.combatants``, #68: an attack's others and the
fight's fighters built with the game's characters and fight read once): each token's sheet as ``sheet_of`` finds it
(its first character's, its own, the system's sample named for it), its square, side and a fight state of its own."""

from __future__ import annotations

import dataclasses

from rules.board import Board
from rules.system import Combatant
from webapp.game.bridge import fighting
from webapp.game.core.model import Character, Token

from test_suggestions_side import _two_foes


def test_each_token_is_told_with_its_first_characters_sheet_its_own_or_the_sample_and_a_state_of_its_own():
    game, ids = _two_foes("gurps_lite", Board(20, 12), {"Orc": (6, 5), "Gob": (6, 7)}, {"Ann": (9, 4)})
    orc = game.tokens[ids["Orc"]]
    first = next(c for c in game.characters.values() if c.token_id == orc.id)
    game.characters["c-later"] = Character("c-later", "Orc again", token_id=orc.id, sheet={"name": "not this one"})
    game.tokens["t-own"] = Token("t-own", "Crate", 1, 1, kind="npc", sheet={"name": "its own", "ST": 9})
    game.tokens["t-none"] = Token("t-none", "Rat", 2, 2, kind="npc")
    tokens = list(game.tokens.values())
    told = fighting.combatants(game, tokens)
    assert [c.id for c in told] == [t.id for t in tokens]
    by = {c.id: c for c in told}
    assert by[orc.id].sheet is first.sheet and by["t-own"].sheet == {"name": "its own", "ST": 9}
    assert by["t-none"].sheet == fighting.sheet_of(game, game.tokens["t-none"]) and by["t-none"].sheet["name"] == "Rat"
    states = game.combat["state"]["combatants"]
    for token, c in zip(tokens, told):
        assert c == Combatant(id=token.id, name=token.name, sheet=c.sheet, position=(token.x, token.y),
                              side=token.kind, is_player=token.kind == "pc", state=states.get(token.id, {}))
        assert c == fighting.combatant(game, token)
    by[orc.id].state["marked"] = True  # a request's state is its own: the fight's is not changed
    assert "marked" not in states[orc.id] and "marked" not in fighting.combatant(game, orc).state
    assert dataclasses.replace(by[orc.id], state={}) != by[orc.id]
