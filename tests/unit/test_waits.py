"""What the table waits for, one list (#66, webapp/game/core/waits.py): only that module writes it, the state's
``pending_defense``, ``pending_soak`` and ``pending_roll`` are read from it as the protocol has them, and its
readers (the refusals, the foes' plans' "waiting", Play the foes) read it in one order."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from webapp.game.core import waits
from webapp.game.core.model import Actor, Game, Rejected, Token
from webapp.game.fight import table_dice, waiting
from webapp.game.planning import foeplay
from rules.board import Board

WEBAPP = Path(__file__).resolve().parents[2] / "webapp"
FIELDS = {"waits", "pending_defense", "pending_soak", "pending_roll"}


def _writes(tree: ast.AST) -> list[int]:
    """The lines that assign (or augment, or append to) a game's list of waits or its pending fields."""
    lines = []
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(
            node, (ast.AugAssign, ast.AnnAssign)) else []
        for t in targets:
            for part in ast.walk(t):
                if isinstance(part, ast.Attribute) and part.attr in FIELDS:
                    lines.append(node.lineno)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in (
                "append", "extend", "insert", "remove", "pop", "clear") and isinstance(node.func.value, ast.Attribute) \
                and node.func.value.attr in FIELDS:
            lines.append(node.lineno)
    return lines


def test_only_the_waits_module_writes_what_the_table_waits_for():
    found = {str(p.relative_to(WEBAPP)): _writes(ast.parse(p.read_text(encoding="utf-8")))
             for p in WEBAPP.rglob("*.py")}
    assert {k: v for k, v in found.items() if v and k != "game/core/waits.py"} == {}
    assert found["game/core/waits.py"], "the waits module writes the list"


def test_the_write_check_sees_an_assignment_and_an_append():
    assert _writes(ast.parse("game.pending_roll = None\n")) == [1]
    assert _writes(ast.parse("x = 1\ngame.waits.append(y)\n")) == [2]
    assert _writes(ast.parse("pending = game.pending_roll\n")) == []


def _game() -> Game:
    game = Game(id="g", name="g", system="savage_worlds", board=Board(8, 8))
    game.tokens = {"t1": Token(id="t1", name="Ann", x=0, y=0), "t2": Token(id="t2", name="Orc", x=1, y=0, hidden=True),
                   "t3": Token(id="t3", name="Bea", x=2, y=0)}
    return game


def test_the_pending_fields_are_read_from_the_list_and_saved_as_the_protocol_has_them():
    game = _game()
    assert (game.pending_defense, game.pending_soak, game.pending_roll) == (None, [], None)
    waits.ask(game, "soak", {"target": "t1"})
    waits.ask(game, "defense", {"id": "a1", "attacker": "t2", "target": "t3"})
    waits.ask(game, "soak", {"target": "t3"})
    waits.ask(game, "defense", {"id": "a2", "attacker": "t2", "target": "t1"})  # one at a time: it takes the place
    assert game.pending_defense["id"] == "a2" and [o["target"] for o in game.pending_soak] == ["t1", "t3"]
    restored = Game.from_dict(game.to_dict())
    assert (restored.pending_defense, restored.pending_soak) == (game.pending_defense, game.pending_soak)
    gone = waits.keep(game, "soak", lambda o: o["target"] != "t1")
    assert gone == [{"target": "t1"}] and game.pending_soak == [{"target": "t3"}]
    saved = waits.saved(game)
    waits.keep(game, "defense")
    waits.keep(game, "soak")
    waits.restore(game, {"pending_soak": saved["pending_soak"]})  # only the kinds it names
    assert game.pending_defense is None and game.pending_soak == [{"target": "t3"}]


def test_the_refusals_and_the_plans_read_the_list_in_one_order_naming_only_what_the_sender_sees():
    game = _game()
    player = Actor("player", "p1")
    waits.ask(game, "soak", {"target": "t3"})
    waits.ask(game, "defense", {"id": "a1", "attacker": "t3", "target": "t2"})  # the defender is hidden
    with pytest.raises(Rejected) as told:
        waiting.held(game, player, "turn")  # a defense first, whoever was asked first; its hidden defender unnamed
    assert "Orc" not in str(told.value) and "a defense has not been chosen" in str(told.value)
    with pytest.raises(Rejected) as told:
        waiting.held(game, Actor("gm"), "turn")
    assert "Orc has not chosen a defense" in str(told.value)
    assert str(waiting.plans_wait(game)) == "Bea's attack waits for Orc's defense"
    assert foeplay.next_step(game) == ("answer", None)
    waits.keep(game, "defense")
    waiting.held(game, player, "fight_end")  # a Soak roll does not hold the fight's end
    with pytest.raises(Rejected) as told:
        waiting.held(game, player, "turn")
    assert "Bea has not answered the Soak roll" in str(told.value)
    waits.keep(game, "soak")
    waiting.held(game, player, "turn")
    assert waiting.plans_wait(game) is None


def test_a_roll_made_at_the_table_holds_every_command_but_those_it_lets_through():
    game = _game()
    waits.ask(game, "roll", {"id": "r1", "roll": {"roller": "t1", "dice": "2d6", "purpose": None}, "made": []})
    table_dice.waiting(game, "enter_dice", Actor("player", "p1"))
    table_dice.waiting(game, "x_card", Actor("player", "p1"))
    with pytest.raises(Rejected) as told:
        table_dice.waiting(game, "move_token", Actor("player", "p1"))
    assert "Ann is rolling" in str(told.value)
    assert waiting.plans_wait(game) is not None and foeplay.next_step(game) == ("answer", None)
    waiting.held(game, Actor("gm"), "turn")  # the roll holds commands, through the table's guard, not a moment
