"""Every foe has a plan (#67): a foe no attack reaches this turn closes in, by the system's own movement (a 3d6 Move,
a Savage Worlds run, Tesseris ticks spent on moving, phase/TN's Move declaration, an Atomic Tomorrow zone move),
along the way to its foe on the whole board (round a wall), and attacks once it arrives; a foe with nothing at all
to do says why; every plan has a ``kind``, and three plans are three different choices. Scripted boards where the
answer is known by construction; each turn played as the GM would (the plan's steps as commands, the turn ended,
the hero passing)."""

from __future__ import annotations

import pytest

import rules
from rules import los, movement
from rules.board import Board
from rules.dice import SeededDice
from webapp.game.planning import suggestions
from webapp.game.bridge.fighting import position_of

from tabledice import play
from test_suggestions import _weapons, fight
import test_suggestions_atomic as atomic

KINDS = {"attack", "approach", "move", "cover", "withdraw", "ready"}
TESSERIS_SWORD = {"name": "Sword", "kind": "melee", "skill": "melee", "damage": 6, "ap": 1}
PISTOL_TN = {"name": "Pistol", "skill": "handguns", "damage": "2d6", "mode": "single"}


def _melee(system: str) -> dict:
    """A sheet whose one weapon is a sword: no attack reaches from afar."""
    if system == "tesseris_ads":
        return {"weapons": {"sword": TESSERIS_SWORD}}
    return {"weapons": _weapons(system, "Broadsword" if system == "gurps_lite" else "Long sword")}


def _way(game, ids) -> float:
    """The length of the way from the Orc to Ann on the board (round the walls), by the system's movement."""
    orc, ann = game.tokens[ids["Orc"]], game.tokens[ids["Ann"]]
    return movement.shortest_path(game.board, (orc.x, orc.y), (ann.x, ann.y), rules.get(game.system).diagonal)[0]


def _back_to_the_orc(game, ids, declares: bool = False) -> None:
    """The Orc's turn ended (unless its plan ended it), the hero passing, until the Orc's turn (phase/TN: its next
    time to declare) comes again."""
    orc = ids["Orc"]

    def its_turn():
        return game.combat["current"] == orc and not (declares and orc in game.combat["state"]["combat"]["declared"])
    if its_turn():
        play(game, {"type": "next_turn"}, dice=SeededDice(1))
    for seed in range(40):
        if its_turn():
            return
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    raise AssertionError("the Orc's turn never came again")


def _closes_in_then_attacks(game, ids, far, most: int = 8, declares: bool = False) -> list[dict]:
    """Each of the Orc's turns played by its best plan: closing in on Ann (no hit, no weapon), strictly nearer by
    ``far`` each turn, until its plan is an attack on her. The best plans of each turn."""
    seen, before = [], far(game, ids)
    for _turn in range(most):
        found = suggestions.reckon(game, ids["Orc"])
        assert found["plans"], found.get("none")
        assert "none" not in found
        best = found["plans"][0]
        seen.append(best)
        assert all(p["kind"] in KINDS for p in found["plans"])
        if best["kind"] == "attack":
            assert best["target"] == ids["Ann"] and best["hit"] is not None and best["hit"] > 0
            return seen
        assert best["kind"] == "approach" and best["target"] == ids["Ann"], best
        assert best["hit"] is None and best["weapon"] is None
        for step in best["steps"]:
            play(game, step, dice=SeededDice(4))
        orc = game.tokens[ids["Orc"]]
        assert position_of(game, orc) == (best["to"] if game.zones is not None else tuple(best["to"]))
        now = far(game, ids)
        assert now < before, (best["summary"], before, now)
        before = now
        _back_to_the_orc(game, ids, declares)
    raise AssertionError(f"no attack after {most} turns: {[str(p['summary']) for p in seen]}")


@pytest.mark.parametrize("system, ann", [("gurps_lite", (15, 3)), ("savage_worlds", (20, 3)),
                                         ("tesseris_ads", (38, 3))])
def test_a_melee_foe_three_turns_away_closes_in_each_turn_then_attacks(system, ann):
    game, ids = fight(system, Board(44, 8), (2, 3), [("Ann", *ann)], foe_sheet=_melee(system))
    seen = _closes_in_then_attacks(game, ids, _way)
    assert [p["kind"] for p in seen[:-1]] == ["approach"] * (len(seen) - 1) and len(seen) >= 3, \
        [str(p["summary"]) for p in seen]
    if system == "savage_worlds":  # the run: Pace and the least the running die gives
        assert seen[0]["steps"][0] == {"type": "act", "token_id": ids["Orc"], "action": "run", "options": {}}
    if system == "gurps_lite":  # the Move maneuver, then the move
        assert seen[0]["steps"][0]["action"] == "move"


def test_a_phase_tn_gunman_with_no_line_of_fire_declares_moves_round_the_wall_until_it_has_one():
    board = Board(40, 12)
    board.add_wall((20, 0), (20, 10))  # Ann behind a long wall, open below y = 10
    game, ids = fight("phase_tn", board, (2, 2), [("Ann", 22, 2)], foe_sheet={"weapons": [dict(PISTOL_TN)]})
    seen = _closes_in_then_attacks(game, ids, _way, most=10, declares=True)
    assert len(seen) >= 3
    assert all(p["steps"] == [{"type": "move_token", "token_id": ids["Orc"], "x": p["to"][0], "y": p["to"][1]}]
               for p in seen[:-1])  # its Move declaration: the move ends its declaring


def test_an_atomic_tomorrow_knife_fighter_moves_zone_by_zone_then_strikes():
    names = "abcde"
    zones = [{"id": z, "name": f"Zone {z.upper()}", "adjacent": [names[i + 1]] if i + 1 < len(names) else []}
             for i, z in enumerate(names)]
    game, ids = atomic.fight(zones, "a", [("Ann", "e")], foe_sheet={"weapons": [atomic.KNIFE]})

    def steps(game, ids):
        return len(atomic.zonelayout.path(game.zones, position_of(game, game.tokens[ids["Orc"]]), "e")) - 1
    seen = _closes_in_then_attacks(game, ids, steps)
    assert [p["to"] for p in seen[:-1]] == ["b", "c", "d", "e"][:len(seen) - 1] and len(seen) >= 3


@pytest.mark.parametrize("system", ("gurps_lite", "savage_worlds"))
def test_the_way_round_a_wall_when_the_straight_way_is_shut(system):
    board = Board(20, 16)
    board.add_wall((10, 0), (10, 13))  # between the Orc and Ann, open below y = 13
    game, ids = fight(system, board, (8, 2), [("Ann", 12, 2)], foe_sheet=_melee(system))
    before = _way(game, ids)
    found = suggestions.reckon(game, ids["Orc"])
    best = found["plans"][0]
    assert best["kind"] == "approach" and best["target"] == ids["Ann"] and best["hit"] is None
    assert best["to"][1] > 2  # down towards the wall's open end, not at the wall
    straight = movement.distance((8, 2), (12, 2), rules.get(system).diagonal)
    for step in best["steps"]:
        play(game, step, dice=SeededDice(4))
    assert _way(game, ids) < before
    orc = game.tokens[ids["Orc"]]
    assert movement.distance((orc.x, orc.y), (12, 2), rules.get(system).diagonal) >= straight  # no nearer as the crow flies


@pytest.mark.parametrize("system", ("gurps_lite", "savage_worlds"))
def test_a_guarding_foe_far_from_everyone_goes_to_the_edge_of_its_post_then_says_why_it_waits(system):
    game, ids = fight(system, Board(40, 8), (2, 3), [("Ann", 34, 3)], foe_sheet=_melee(system), tactic="guarding")
    found = suggestions.reckon(game, ids["Orc"])
    d = rules.get(system).diagonal
    if found["plans"]:  # as far as its post lets it, on the way to Ann
        best = found["plans"][0]
        assert best["kind"] == "approach" and movement.distance(tuple(best["to"]), (2, 3), d) <= suggestions.GUARD_RADIUS
        for step in best["steps"]:
            play(game, step, dice=SeededDice(4))
        _back_to_the_orc(game, ids)
        found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == []
    assert "guarding" in str(found["none"]) and "post" in str(found["none"])


def test_a_foe_walled_in_says_no_way_leads_to_its_foes():
    board = Board(20, 10)
    for a, b in (((1, 1), (5, 1)), ((5, 1), (5, 5)), ((5, 5), (1, 5)), ((1, 5), (1, 1))):
        board.add_wall(a, b)
    game, ids = fight("gurps_lite", board, (3, 3), [("Ann", 15, 3)], foe_sheet=_melee("gurps_lite"))
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == [] and str(found["none"]) == "no way leads to any of its foes"


def _choice(p: dict) -> tuple:
    return p["target"], p["weapon"], str(p["to"]), next((s.get("action") for s in p["steps"] if s["type"] == "act"), None)


@pytest.mark.parametrize("system", ("gurps_lite", "savage_worlds", "tesseris_ads"))
@pytest.mark.parametrize("scene", ("two targets", "careful", "cowardly", "far"))
def test_every_plan_has_a_kind_and_three_plans_are_three_different_choices(system, scene):
    board = Board(24, 12)
    board.add_wall((8, 4), (8, 7))
    sheet, heroes, tactic = None, [("Ann", 4, 5), ("Bob", 4, 9)], None
    if scene == "careful":
        tactic, heroes = "careful", [("Ann", 5, 4), ("Bob", 5, 5), ("Cid", 5, 6)]
    elif scene == "cowardly":
        tactic, heroes = "cowardly", [("Ann", 5, 4), ("Bob", 5, 6)]
        hurt = {"gurps_lite": {"hp_current": 3}, "savage_worlds": {"wounds": 1},
                "tesseris_ads": {"wounds": 1}}[system]
        sheet = hurt
    elif scene == "far":
        sheet, heroes = _melee(system), [("Ann", 22, 2), ("Bob", 22, 10)]
    game, ids = fight(system, board, (6, 5) if scene != "two targets" else (14, 5), heroes, foe_sheet=sheet,
                      tactic=tactic)
    found = suggestions.reckon(game, ids["Orc"])
    plans = found["plans"]
    assert plans and all(p["kind"] in KINDS for p in plans)
    if scene == "far":
        assert {p["kind"] for p in plans} == {"approach"} and {p["target"] for p in plans} == {ids["Ann"], ids["Bob"]}
    assert len({_choice(p) for p in plans}) == len(plans)
    moves = [p["to"] for p in plans if p["kind"] in ("move", "cover", "withdraw")]
    assert all(max(abs(a[0] - b[0]), abs(a[1] - b[1])) > 1 for i, a in enumerate(moves) for b in moves[i + 1:]), moves
    for p in plans:
        if p["kind"] == "attack":
            assert p["target"] and p["hit"] is not None
        else:
            assert p["hit"] is None


@pytest.mark.parametrize("system", ("gurps_lite", "savage_worlds"))
def test_a_careful_foe_closes_in_behind_cover_where_a_fierce_one_takes_the_open(system):
    def board():
        b = Board(44, 12)
        b.add_wall((6, 7), (6, 11))  # a screen off the straight way: behind it, no line of fire from Ann
        return b
    plans = {}
    for tactic in ("fierce", "careful"):
        game, ids = fight(system, board(), (2, 5), [("Ann", 36, 5)], foe_sheet=_melee(system), tactic=tactic)
        best = suggestions.reckon(game, ids["Orc"])["plans"][0]
        assert best["kind"] == "approach" and best["target"] == ids["Ann"]
        assert tuple(best["to"]) != (2, 5)
        plans[tactic] = best
    ann, d = (36, 5), rules.get(system).diagonal
    assert los.line_of_fire(board(), tuple(plans["careful"]["to"]), ann).clear is False  # in the screen's shelter
    assert los.line_of_fire(board(), tuple(plans["fierce"]["to"]), ann).clear is True  # the nearest by the way
    assert movement.distance(tuple(plans["careful"]["to"]), ann, d) < movement.distance((2, 5), ann, d)


def test_on_a_zone_map_two_foes_the_same_way_are_one_move():
    zones = [{"id": "a", "name": "Airlock", "adjacent": ["b"]}, {"id": "b", "name": "Bridge", "adjacent": ["c"]},
             {"id": "c", "name": "Cargo", "adjacent": ["d"]}, {"id": "d", "name": "Dock"}]
    game, ids = atomic.fight(zones, "a", [("Ann", "d"), ("Bob", "d")], foe_sheet={"weapons": [atomic.KNIFE]})
    found = suggestions.reckon(game, ids["Orc"])
    assert [(p["kind"], p["to"]) for p in found["plans"]] == [("approach", "b")]


def test_a_stunned_3d6_foe_has_no_plan_and_says_the_rules_words_why():
    # "Stun": a stunned fighter may only Do Nothing; every maneuver of its turn is refused, and the words say so
    game, ids = fight("gurps_lite", Board(12, 8), (6, 3), [("Ann", 3, 3)])
    game.combat["state"]["combatants"][ids["Orc"]]["stunned"] = True  # as a major wound leaves it
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == []
    assert str(found["none"]) == "the rules leave it no action this turn: Attack: stunned: Do Nothing only"
