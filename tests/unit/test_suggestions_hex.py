"""Plans on hex maps (#67): every system that plays on hexes reckons its foes there as on squares: a foe no attack
reaches closes in hex by hex, along the way round the walls, then attacks; a foe in reach attacks; the words count
hexes. Scripted boards where the answer is known by construction."""

from __future__ import annotations

import pytest

from rules.board import Board
from rules.grid import Grid
from webapp.game.planning import suggestions

from test_suggestions import checked, fight
from test_suggestions_approach import PISTOL_TN, _closes_in_then_attacks, _melee, _way

HEX = Grid("hex", "pointy")
KINDS = {"attack", "approach", "move", "cover", "withdraw", "ready"}


@pytest.mark.parametrize("system, ann", [("tesseris_ads", (34, 4)), ("gurps_lite", (15, 4)),
                                         ("savage_worlds", (20, 4))])
def test_on_hexes_a_melee_foe_closes_in_then_attacks(system, ann):
    game, ids = fight(system, Board(40, 9, HEX), (2, 4), [("Ann", *ann)], foe_sheet=_melee(system))
    assert suggestions.reckoned(game)
    seen = _closes_in_then_attacks(game, ids, _way)
    assert [p["kind"] for p in seen[:-1]] == ["approach"] * (len(seen) - 1) and len(seen) >= 2, \
        [str(p["summary"]) for p in seen]
    assert "hex" in str(seen[0]["why"]) and "square" not in str(seen[0]["why"])
    assert seen[-1]["kind"] == "attack"


@pytest.mark.parametrize("system", ("tesseris_ads", "gurps_lite", "savage_worlds", "phase_tn"))
def test_on_hexes_a_foe_in_reach_attacks_and_every_step_is_accepted(system):
    game, ids = fight(system, Board(20, 10, HEX), (6, 5), [("Ann", 9, 5), ("Bob", 9, 8)])
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] and all(p["kind"] in KINDS for p in found["plans"])
    assert found["plans"][0]["kind"] == "attack" and found["plans"][0]["hit"] > 0
    if system != "phase_tn":  # (phase/TN's shot comes due a phase later: its steps end with the declaration)
        checked(game, ids, found)


def test_on_hexes_a_phase_tn_gunman_moves_round_the_wall_until_it_has_a_line_of_fire():
    board = Board(40, 12, HEX)
    board.add_wall((20, 0), (20, 6))  # Ann behind a wall (in drawing units), open below it
    game, ids = fight("phase_tn", board, (2, 2), [("Ann", 22, 2)], foe_sheet={"weapons": [dict(PISTOL_TN)]})
    seen = _closes_in_then_attacks(game, ids, _way, most=10, declares=True)
    assert len(seen) >= 2 and seen[-1]["kind"] == "attack"
