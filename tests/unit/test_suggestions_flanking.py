"""A 3d6 foe flanks a defender its ally stands beside (#67: the foes as a side), with the setting ``flanking`` on:
the planner values the square on the far side of the defender (the rules' ``side_notes``) and the why line says so
(the odds of the attack from there are the rules' own, the -2 counted: test_gurps_lite_flanking.py). Scripted boards
where the GM's choice is known by construction."""

from __future__ import annotations

from rules.board import Board
from rules.grid import Grid, Place
from rules.gurps_lite.movement import flanks
from webapp.game.planning import suggestions

from tabledice import play
from test_suggestions_approach import _melee
from test_suggestions_side import _two_foes

ANN = (10, 5)
GOB = (9, 5)  # the Orc's ally, beside Ann on her west


def _game(flanking: bool):
    """The Orc three squares north of Ann, a sword alone; the Gob beside her on her west. The squares beside Ann
    nearest the Orc (north of her) do not flank her; those east of her do."""
    sword = _melee("gurps_lite")
    game, ids = _two_foes("gurps_lite", Board(20, 12), {"Orc": (10, 2), "Gob": GOB}, {"Ann": ANN},
                          foe_sheets={"Orc": sword, "Gob": sword})
    if flanking:
        play(game, {"type": "set_settings", "settings": {"flanking": True}})
    return game, ids


def _attacks_on_ann(game, ids) -> list[dict]:
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    return [p for p in plans if p["kind"] == "attack" and p["target"] == ids["Ann"]]


def test_a_3d6_foe_takes_the_flanking_square_when_the_setting_is_on():
    game, ids = _game(True)
    at_ann = _attacks_on_ann(game, ids)
    assert at_ann
    best = at_ann[0]
    assert flanks(ANN, tuple(best["to"]), GOB), best["to"]
    assert "flanks Ann with Gob: -2 to Ann's defense" in str(best["why"])


def test_off_no_square_is_valued_for_flanking_and_nothing_says_it():
    game, ids = _game(False)
    at_ann = _attacks_on_ann(game, ids)
    assert at_ann
    assert not any("flanks" in str(p["why"]) for p in at_ann)
    assert not flanks(ANN, tuple(at_ann[0]["to"]), GOB), at_ann[0]["to"]  # the nearest square, north of Ann


def test_on_hexes_the_flanking_hex_is_the_one_opposite_the_ally():
    """The Orc a step from (11, 4) beside Ann and two from (11, 5): only (11, 5), across her from the Gob's hex, flanks
    her (on hexes, the opposite hex alone). Off, it strikes from the nearer hex; on, from the one that flanks."""
    hexes = Grid("hex", "pointy")
    sword = _melee("gurps_lite")
    for on in (False, True):
        game, ids = _two_foes("gurps_lite", Board(20, 12, hexes), {"Orc": (11, 3), "Gob": GOB}, {"Ann": ANN},
                              foe_sheets={"Orc": sword, "Gob": sword})
        if on:
            play(game, {"type": "set_settings", "settings": {"flanking": True}})
        best = _attacks_on_ann(game, ids)[0]
        assert tuple(best["to"]) == ((11, 5) if on else (11, 4)), (on, best["to"])
        assert flanks(Place(ANN, hexes), Place(tuple(best["to"]), hexes), Place(GOB, hexes)) is on
        assert ("flanks Ann with Gob" in str(best["why"])) is on
