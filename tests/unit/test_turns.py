"""The turn lifecycle every system shares, as the plain grid runs it: the GM's order, round after round."""

from rules import get
from rules.dice import SeededDice
from rules.system import Combatant


def fighters(*ids):
    return [Combatant(id=i, name=i.upper()) for i in ids]


def test_plain_grid_goes_round_in_the_listed_order_and_counts_rounds():
    system = get("plain_grid")
    dice = SeededDice(1)
    update = system.begin_fight(fighters("a", "b", "c"), dice)
    seen = [(update.round, update.current)]
    for _ in range(4):
        update = system.next_turn(update.state, fighters("a", "b", "c"), dice)
        seen.append((update.round, update.current))
    assert seen == [(1, "a"), (1, "b"), (1, "c"), (2, "a"), (2, "b")]
    assert update.order == ["a", "b", "c"]


def test_plain_grid_skips_a_combatant_that_left_the_fight():
    system = get("plain_grid")
    dice = SeededDice(1)
    update = system.begin_fight(fighters("a", "b", "c"), dice)
    update = system.next_turn(update.state, fighters("a", "c"), dice)
    assert update.order == ["a", "c"]
    assert update.current == "c"


def test_a_system_without_turn_rules_says_so():
    from rules.system import BaseSystem, RuleNotImplemented
    import pytest

    with pytest.raises(RuleNotImplemented):
        BaseSystem().begin_fight(fighters("a"), SeededDice(1))
