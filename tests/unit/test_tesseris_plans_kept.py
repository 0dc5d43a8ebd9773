"""Tesseris (ADS), issue #60: what the foes' plans ask of the rules again and again is judged once and kept,
never stale: an attack action's refusals (the attack card's options, listed for every square, way, target and
weapon the plans weigh) by the request's values, the exact odds' table by the numbers it reads."""

import copy

from rules import board as board_mod
from rules.tesseris_ads import SYSTEM, odds, options
from test_tesseris_ads_choices import by_key, fighter, request


def _judged(monkeypatch) -> list:
    """Each action the rules judge (``plan_attack``, through ``action_refusal``), counted."""
    seen: list = []
    real = options.plan_attack

    def counted(req, *args, **kwargs):
        seen.append((req.options or {}).get("action"))
        return real(req, *args, **kwargs)

    monkeypatch.setattr(options, "plan_attack", counted)
    return seen


def test_the_actions_refusals_are_judged_once_for_the_same_request_and_again_when_it_changes(monkeypatch):
    """The same request (another copy of it) is answered from what was judged: the same options, no action
    judged again. Ticks spent ("Ticks": a Called Shot costs 4), a move nearer, a board: judged anew."""
    options._REFUSED.clear()
    seen = _judged(monkeypatch)
    a, t = fighter("a", (0, 0), "pc", {"ticks": 5}), fighter("t", (5, 0))
    first = SYSTEM.attack_options(request(a, t, "rifle"))
    per_request = judged = len(seen)
    assert per_request > 10, "the first request is judged, action by action"
    again = SYSTEM.attack_options(copy.deepcopy(request(a, t, "rifle")))
    assert len(seen) == judged and again == first

    spent = fighter("a", (0, 0), "pc", {"ticks": 2})
    action = by_key(SYSTEM.attack_options(request(spent, t, "rifle")))["action"]
    assert len(seen) > judged
    assert "Called Shot: needs 4 ticks, 2 left" in action["help"]
    assert "Called Shot" not in by_key(first)["action"]["help"]

    judged = len(seen)
    near = fighter("t", (1, 0))
    knife = by_key(SYSTEM.attack_options(request(a, near, "knife")))["action"]
    far = by_key(SYSTEM.attack_options(request(a, t, "knife")))["action"]
    assert len(seen) > judged
    assert "grapple" in {v["key"] for v in knife["values"]}
    assert "Grapple: the target is 5 squares away, not adjacent" in far["help"]

    judged = len(seen)
    on_board = request(a, t, "rifle")
    on_board.board = board_mod.Board(10, 3)
    assert by_key(SYSTEM.attack_options(on_board))["action"] == by_key(first)["action"]
    SYSTEM.attack_options(on_board)
    assert len(seen) - judged == 2 * per_request, "with a board (read where it is), judged every time"


def test_the_exact_odds_table_is_reckoned_once_for_the_same_numbers_and_gives_the_same_odds(monkeypatch):
    """Two shots alike from two squares in the same range band read the same numbers (pools, defense, damage,
    soak): the table of outcomes is reckoned for the first and kept for the second, with the very odds a fresh
    reckoning gives; another target's armour (another soak) is reckoned anew."""
    odds._outcome_table.cache_clear()
    tables: list = []
    real = odds._table

    def counted(*args):
        tables.append(args[0].key)
        return real(*args)

    monkeypatch.setattr(odds, "_table", counted)
    a, t = fighter("a", (0, 0), "pc"), fighter("t", (4, 0))
    first = SYSTEM.odds(request(a, t, "rifle", action="straight_shot"))
    second = SYSTEM.odds(request(fighter("a", (0, 1), "pc"), t, "rifle", action="straight_shot"))
    assert tables == ["straight_shot"]
    assert second["outcomes"] == first["outcomes"] and second["mean_wounds"] == first["mean_wounds"]

    odds._outcome_table.cache_clear()
    fresh = SYSTEM.odds(request(fighter("a", (0, 1), "pc"), t, "rifle", action="straight_shot"))
    assert fresh["outcomes"] == second["outcomes"] and fresh["hit"] == second["hit"]
    assert fresh["mean_stamina"] == second["mean_stamina"] and fresh["mean_wounds"] == second["mean_wounds"]

    tables.clear()
    armoured = fighter("t", (4, 0), armour={"name": "Plate", "ap": 6, "bulk": 0})
    heavy = SYSTEM.odds(request(a, armoured, "rifle", action="straight_shot"))
    assert tables == ["straight_shot"] and heavy["mean_wounds"] < first["mean_wounds"]
