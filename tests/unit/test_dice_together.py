"""Rolls made together (#70): in a :meth:`DiceSource.together` block the table's dice ask every roll the table makes
at once, at the block's end (one :class:`NeedDice` naming each by its index among the command's rolls), the rolls
the app makes keep their faces, and given every face the block is decided from them; any other source rolls as ever."""

from __future__ import annotations

import pytest

from rules.dice import NeedDice, ScriptedDice, SeededDice, TableDice


def block(dice):
    """Ann's d10, the app's d6 for nobody, Bob's 2d6: made together; then Ann's d4, alone."""
    with dice.together():
        rolls = [dice.roll("1d10", "initiative", roller="ann", needs="high"), dice.roll("1d6", "wind"),
                 dice.roll("2d6", "initiative", roller="bob")]
    return [r.faces for r in rolls] + [dice.roll("1d4", "after", roller="ann").faces]


def test_a_source_that_rolls_itself_rolls_a_together_block_as_ever():
    assert block(ScriptedDice([7, 3, 2, 5, 4])) == [[7], [3], [2, 5], [4]]
    assert block(SeededDice(3)) == block(SeededDice(3))


def test_the_table_is_asked_every_roll_of_the_block_at_once_at_its_end():
    table = TableDice([], lambda roller: roller is not None, ScriptedDice([6, 1, 1, 1]))
    with pytest.raises(NeedDice) as need:
        block(table)
    asked = need.value.asked
    assert [(a.at, a.expr, a.roller) for a in asked] == [(0, "1d10", "ann"), (2, "2d6", "bob")]
    assert asked[0].needs == "high" and need.value.roller == "ann"  # the first is the one named, as before
    assert need.value.made == [None, [1], None]  # the app's d6 kept at its place; the asked ones' places empty


def test_given_every_face_of_the_block_the_command_goes_on_to_the_next_roll_alone():
    table = TableDice([[9], [1], [3, 4]], lambda roller: roller is not None, ScriptedDice([]))
    with pytest.raises(NeedDice) as need:
        block(table)
    assert [(a.at, a.expr) for a in need.value.asked] == [(3, "1d4")] and need.value.made == [[9], [1], [3, 4]]
    assert block(TableDice([[9], [1], [3, 4], [2]], lambda roller: True, ScriptedDice([]))) == [[9], [1], [3, 4], [2]]


def test_a_block_the_table_makes_nothing_of_asks_nothing_and_a_block_within_it_is_one_batch():
    table = TableDice([], lambda roller: False, ScriptedDice([5, 2, 2, 3, 1]))
    assert block(table) == [[5], [2], [2, 3], [1]]
    table = TableDice([], lambda roller: True, ScriptedDice([1, 1]))
    with pytest.raises(NeedDice) as need:
        with table.together():
            table.roll("1d6", roller="a")
            with table.together():
                table.roll("1d6", roller="b")
    assert [a.roller for a in need.value.asked] == ["a", "b"]
