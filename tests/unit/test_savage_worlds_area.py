"""Savage Worlds area effects on the board: blasts, cone, line, deviation, cover."""

import math

import pytest

from rules import savage_worlds as sw
from rules.board import Board
from rules.dice import ScriptedDice
from rules.system import AttackRequest, Combatant, RuleError

S = sw.SYSTEM


def test_blast_sizes_touched_reading():
    small = sw.blast_cells((10, 10), "small")
    assert small == {(x, y) for x in range(9, 12) for y in range(9, 12)}
    medium = sw.blast_cells((10, 10), "medium")
    assert len(medium) == 21 and (12, 11) in medium and (12, 12) not in medium
    large = sw.blast_cells((10, 10), "large")
    assert len(large) == 45 and (13, 12) in large and (13, 13) not in large


def test_blast_centre_reading_and_board_edges():
    assert sw.blast_cells((5, 5), "small", coverage="centre") == {(5, 5), (4, 5), (6, 5), (5, 4), (5, 6)}
    assert sw.blast_cells((0, 0), "small", width=10, height=10) == {(0, 0), (1, 0), (0, 1), (1, 1)}
    with pytest.raises(RuleError):
        sw.blast_cells((0, 0), "huge")


def test_blasts_nest():
    for c in [(3, 4), (10, 2)]:
        assert sw.blast_cells(c, "small") <= sw.blast_cells(c, "medium") <= sw.blast_cells(c, "large")


def test_line_is_12_by_1():
    cells = sw.template_cells("line", (0, 0), (5, 0))
    assert cells == {(x, 0) for x in range(1, 13)}
    diag = sw.template_cells("line", (0, 0), (5, 5))
    assert (0, 0) not in diag and (8, 8) in diag and (9, 0) not in diag


def test_cone_narrow_at_the_attacker_and_9_long():
    cells = sw.template_cells("cone", (0, 5), (5, 5))
    assert (0, 5) not in cells
    assert {(x, 5) for x in range(1, 10)} <= cells
    assert (10, 5) not in cells
    assert (1, 4) not in cells and (9, 4) in cells and (9, 3) not in cells
    wider = sw.template_cells("cone", (0, 5), (5, 5), {"cone_width": 5})
    assert cells < wider


def test_template_needs_a_direction_and_a_known_name():
    with pytest.raises(RuleError):
        sw.template_cells("cone", (1, 1), (1, 1))
    with pytest.raises(RuleError):
        sw.template_cells("square", (1, 1), (2, 2))


def test_deviation_thrown_at_medium_range():
    # d6 = 3, x2 at Medium = 6", capped at half of 20 = 10; d12 = 12: straight on, away from the thrower
    out = sw.deviation((20, 0), 20, "medium", False, ScriptedDice([3, 12]), attacker_cell=(0, 0))
    assert out["inches"] == 6 and out["clock"] == 12 and out["cell"] == (26, 0)
    # 3 o'clock: a quarter turn clockwise on the map (y down): from +x that is +y
    out = sw.deviation((20, 0), 20, "short", False, ScriptedDice([2, 3]), attacker_cell=(0, 0))
    assert out["cell"] == (20, 2)
    out = sw.deviation((20, 0), 20, "short", False, ScriptedDice([2, 6]), attacker_cell=(0, 0))
    assert out["cell"] == (18, 0)


def test_deviation_launched_and_capped_at_half_the_distance():
    out = sw.deviation((8, 0), 8, "extreme", True, ScriptedDice([5, 6, 12]), attacker_cell=(0, 0))
    assert out["rolled_inches"] == 44 and out["inches"] == 4 and out["capped"] and out["cell"] == (12, 0)
    assert [r.expr for r in out["rolls"]] == ["2d6", "d12"]


def tok(id, side, pos, **kw):
    s = S.default_sheet()
    s["edges"] = []
    s.update(kw)
    return Combatant(id, id, s, pos, side)


def grenade_thrower():
    a = tok("ann", "pc", (0, 5))
    a.sheet["weapons"]["Grenade"] = {"damage": "3d6", "range": "5/10/20", "thrown": True, "ap": 0}
    a.sheet["weapons"]["Flamethrower"] = {"damage": "2d10", "range": "", "two_handed": True}
    return a


def test_blast_hits_everyone_under_it_damage_per_target():
    a = grenade_thrower()
    b1 = tok("b1", "npc", (5, 5))
    b2 = tok("b2", "npc", (6, 6), prone=True)
    far = tok("far", "npc", (8, 5))
    friend = tok("friend", "pc", (4, 4))
    req = AttackRequest(a, b1, "Grenade", options={"template": "medium", "centre": (5, 5)},
                        others=[b2, far, friend], board=Board(20, 20))
    # Athletics d6 4, Wild 1: a hit; damage per target in token order b1, b2, friend
    dice = ScriptedDice([4, 1, 5, 5, 5, 4, 4, 4, 1, 1, 1])
    r = S.attack(req, dice)
    assert dice.remaining == []
    assert r.hit and r.details["kind"] == "area"
    hit = {t["target"]: t for t in r.details["targets"]}
    assert set(hit) == {"b1", "b2", "friend"}
    assert hit["b1"]["damage"] == 15 and hit["b1"]["wounds"] == 2  # 15 vs 7
    assert hit["b2"]["damage"] == 12 - 4 and hit["b2"]["wounds"] == 0  # prone: 4 less
    assert hit["friend"]["damage"] == 3
    assert ("wounds", "b1") in [(e.kind, e.target) for e in r.effects]


def test_blast_raise_adds_d6_to_everyone():
    a = grenade_thrower()
    b1 = tok("b1", "npc", (5, 5))
    b2 = tok("b2", "npc", (5, 6))
    req = AttackRequest(a, b1, "Grenade", options={"template": "small"}, others=[b2])
    r = S.attack(req, ScriptedDice([6, 2, 1, 1, 1, 1, 6, 1, 1, 1, 1, 2]))
    assert [t["bonus"] for t in r.details["targets"]] == [7, 2]  # the bonus d6 aces too


def test_cover_between_the_centre_and_a_target_is_armour():
    board = Board(20, 20)
    board.add_wall((6, 0), (6, 20))  # a wall between x=5 and x=6
    board.add_cover((5, 6), "sandbags")
    a = grenade_thrower()
    centre = tok("c", "npc", (5, 5))
    behind_wall = tok("w", "npc", (6, 5))
    behind_bags = tok("s", "npc", (5, 7))
    settings = {"template_coverage": "touched"}
    req = AttackRequest(a, centre, "Grenade", board=board, others=[behind_wall, behind_bags],
                        options={"template": "medium", "centre": (5, 5), "settings": settings})
    r = S.attack(req, ScriptedDice([4, 1] + [3, 3, 3] * 3))
    hit = {t["target"]: t for t in r.details["targets"]}
    assert hit["w"]["protected"]  # a wall stands between: no damage
    assert hit["c"]["damage"] == 9
    # the sandbags hide all of the target but never block: Near Total, 8 points of armour
    assert hit["s"]["damage"] == 1 and hit["s"]["reductions"][0]["value"] == -8


def test_cover_armour_values_are_a_setting():
    board = Board(20, 20)
    board.add_cover((5, 6), "sandbags")
    a = grenade_thrower()
    s = tok("s", "npc", (5, 7))
    settings = {"area_cover_armor": {"light": 1, "medium": 2, "heavy": 3, "near_total": 4}}
    req = AttackRequest(a, s, "Grenade", board=board,
                        options={"template": "medium", "centre": (5, 5), "settings": settings})
    r = S.attack(req, ScriptedDice([4, 1, 3, 3, 3]))
    assert r.details["targets"][0]["damage"] == 9 - 4


def test_pieces_of_cover_do_not_stop_a_shot():
    board = Board(20, 20)
    board.add_cover((3, 0), "crate")
    a = tok("ann", "pc", (0, 0))
    b = tok("bob", "npc", (5, 0))
    from rules import los

    cov = los.cover(board, (0, 0), (5, 0))
    r = S.attack(AttackRequest(a, b, "Colt Peacemaker", cover=cov, board=board), ScriptedDice([6, 6, 1, 1, 1, 1]))
    assert {m.label: m.value for m in r.modifiers}["Near Total cover"] == -8
    board.add_wall((3, 0), (3, 1))
    cov = los.cover(board, (0, 0), (5, 0))
    with pytest.raises(RuleError, match="line of fire"):
        S.attack(AttackRequest(a, b, "Colt Peacemaker", cover=cov, board=board), ScriptedDice([]))


def test_failed_blast_deviates_and_hits_where_it_lands():
    a = grenade_thrower()
    b1 = tok("b1", "npc", (5, 5))
    b2 = tok("b2", "npc", (8, 5))
    req = AttackRequest(a, b1, "Grenade", options={"template": "small", "centre": (5, 5)}, others=[b2])
    # Athletics 2, Wild 3: a miss. Deviation d6 2 (Short, x1; the cap is 5/2 = 2.5"); d12 12: straight on
    r = S.attack(req, ScriptedDice([2, 3, 2, 12, 2, 2, 2]))
    assert not r.hit and r.details["deviation"]["inches"] == 2
    assert r.details["centre"] == (7, 5)
    assert [t["target"] for t in r.details["targets"]] == ["b2"]
    assert "deviates" in r.summary


def test_failed_cone_misses_everyone():
    a = grenade_thrower()
    b1 = tok("b1", "npc", (4, 5))
    req = AttackRequest(a, b1, "Flamethrower", options={"template": "cone"})
    dice = ScriptedDice([2, 3])
    r = S.attack(req, dice)
    assert not r.hit and r.details["targets"] == [] and dice.remaining == []


def test_cone_hit_from_the_attacker():
    a = grenade_thrower()
    b1 = tok("b1", "npc", (4, 5))
    b2 = tok("b2", "npc", (3, 9))
    req = AttackRequest(a, b1, "Flamethrower", options={"template": "cone"}, others=[b2])
    r = S.attack(req, ScriptedDice([5, 1, 3, 3]))
    assert [t["target"] for t in r.details["targets"]] == ["b1"]


def test_area_odds_count_the_roll_and_each_token_under_it_but_not_where_a_miss_deviates():
    a = grenade_thrower()
    odds = S.odds(AttackRequest(a, tok("b", "npc", (5, 5)), "Grenade", options={"template": "small"}))
    assert [t["id"] for t in odds["targets"]] == ["b"] and "deviates" in odds["note"]


def test_blast_needs_a_ranged_weapon():
    a = grenade_thrower()
    with pytest.raises(RuleError):
        S.attack(AttackRequest(a, tok("b", "npc", (5, 5)), "Long sword", options={"template": "small"}),
                 ScriptedDice([]))


def test_move_cost_difficult_terrain_and_standing():
    board = Board(10, 10)
    board.set_terrain((2, 0), 2)
    path = [(0, 0), (1, 0), (2, 0), (3, 1)]
    assert S.move_cost(board, path) == 4
    assert S.move_cost(board, path, prone=True) == 6
    board.block((1, 0))
    with pytest.raises(RuleError):
        S.move_cost(board, path)


def test_cell_unit_is_inches_two_yards():
    assert S.cell_size == 1.0 and S.yards_per_square == 2 and math.isclose(S.move_allowance(S.default_sheet()), 6)
