"""Foes that fight like a good GM (#67): tactics that mean what they say, and the foes as a side. Scripted boards
where the GM's choice is known by construction."""

from __future__ import annotations

import pytest

import rules
from rules import los
from rules.board import Board
from webapp.game import suggestions

from test_suggestions import fight
from test_suggestions_approach import _melee

GRID_SYSTEMS = ("gurps_lite", "savage_worlds", "tesseris_ads")


def _sheltered(system: str, board, cell, heroes) -> bool:
    """The rules give ``cell`` cover from every hero: no line of fire, or a level of cover by the system's own."""
    rule = rules.get(system)
    for x, y in heroes:
        if not los.line_of_fire(board, (x, y), cell).clear:
            continue
        cover = los.cover(board, (x, y), cell)
        try:
            level = rule.cover_effect(cover, {}).level
        except TypeError:
            level = rule.cover_effect(cover).level
        if level == "none":
            return False
    return True


@pytest.mark.parametrize("system", GRID_SYSTEMS)
def test_careful_says_cover_only_of_a_square_the_rules_give_cover(system):
    heroes = [(25, 3), (25, 8)]
    # the open board: no square has cover, so no plan says it takes cover
    game, ids = fight(system, Board(30, 12), (6, 5), [("Ann", *heroes[0]), ("Bob", *heroes[1])],
                      foe_sheet=_melee(system), tactic="careful")
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    assert plans
    assert all(p["kind"] != "cover" and "takes cover" not in str(p["why"]) for p in plans), \
        [(p["kind"], str(p["why"])) for p in plans]
    # a wall to shelter behind: what it calls cover, the rules do
    board = Board(30, 12)
    board.add_wall((8, 2), (8, 9))
    game, ids = fight(system, board, (10, 5), [("Ann", *heroes[0]), ("Bob", *heroes[1])], foe_sheet=_melee(system),
                      tactic="careful")
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    covers = [p for p in plans if p["kind"] == "cover" or "takes cover" in str(p["why"])]
    assert all(_sheltered(system, board, tuple(p["to"]), heroes) for p in covers), [p["to"] for p in covers]
    if system != "gurps_lite":
        assert covers
