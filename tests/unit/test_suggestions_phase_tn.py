"""The GM's foes (#60) in the phase/TN system: a foe's plans at its time to declare, on scripted boards where the
best is known by construction (the target in the open with the lower trauma roll, the way round a wall, the weapon
that does more, a careful foe taking cover, a cowardly hurt foe withdrawing). Every plan's steps are accepted as the
GM's own commands, and its ``hit`` is what the attack's preview says for the shot the plan leads to, once the phase
is played on to it (the declared shot when it comes due; next phase's shot after a Targeting or a Move)."""

from __future__ import annotations

import copy

import pytest

import rules
from rules import los, movement
from rules.board import Board
from rules.dice import SeededDice
from webapp.game.fight import aiming
from webapp.game.planning import suggestions
from webapp.game.core.model import GM

from tabledice import play
from test_suggestions import fight

SYSTEM = "phase_tn"
PISTOL = {"name": "Pistol", "skill": "handguns", "damage": "2d6", "mode": "single"}


def _shot_view(g, orc: str, p: dict) -> dict:
    """The preview of the shot the plan leads to: the declared shot once the books say it is due, else the shot
    at its target once the phase has resolved (a Targeting, a Move)."""
    due = [d for d in g.combat.get("due", []) if d["attacker"] == orc and d["target"] == p["target"]]
    cmd = due[0] if due else {"attacker": orc, "target": p["target"], "weapon": p["weapon"], "options": p["options"]}
    return cmd


def played(game, ids, found: dict) -> dict:
    """Every plan's steps accepted as the GM's commands, played on a copy in order; a plan with a shot is played
    on (the others declaring nothing new) until its shot comes: its preview's hit is the plan's ``hit``, from the
    plan's square, and the due shot is accepted as the GM's roll."""
    assert found["plans"], "no plan"
    orc = ids["Orc"]
    for p in found["plans"]:
        g = copy.deepcopy(game)
        phase = g.combat["state"]["combat"]["phase"]
        for step in p["steps"]:
            play(g, step, dice=SeededDice(1))
        assert (g.tokens[orc].x, g.tokens[orc].y) == tuple(p["to"])
        if p["target"] is None:
            continue
        declared = p["steps"][-1]
        shoots = declared["type"] == "act" and declared["action"].split(":")[1] in ("fire", "three_round_burst",
                                                                                   "target_and_fire")
        for seed in range(12):
            due = [d for d in g.combat.get("due", []) if d["attacker"] == orc]
            if due or (not shoots and g.combat["state"]["combat"]["phase"] > phase):
                break
            play(g, {"type": "next_turn"}, dice=SeededDice(seed))
        cmd = _shot_view(g, orc, p)
        if shoots:
            assert cmd.get("options", {}).get("due"), (p["summary"], "the declared shot never came due")
        view = aiming.preview(g, aiming.AttackCommand(**cmd), GM)
        assert view["odds"]["hit"] == p["hit"], (str(p["summary"]), view["odds"]["hit"], p["hit"])
        assert tuple(view["from"]) == tuple(p["to"])
        if shoots:
            play(g, {"type": "attack", **cmd}, dice=SeededDice(2))  # the due shot, rolled as the GM would
    return found


def _sheet(**over) -> dict:
    return {"weapons": [dict(PISTOL)], **over}


def _con(n: int) -> dict:
    return {"attributes": {**rules.get(SYSTEM).default_sheet()["attributes"], "constitution": n}}


def test_plans_are_what_the_foe_declares_at_its_time_to_declare():
    game, ids = fight(SYSTEM, Board(16, 8), (10, 3), [("Ann", 4, 3)], foe_sheet=_sheet())
    assert game.combat["current"] == ids["Orc"] and ids["Orc"] not in game.combat["state"]["combat"]["declared"]
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["steps"] == [{"type": "act", "token_id": ids["Orc"], "action": "declare:fire",
                              "options": {"target": ids["Ann"], "weapon": "Pistol"}}]
    assert best["to"] == [10, 3] and best["effect_unit"]
    assert best["hit"] == pytest.approx(0.9)  # a wild shot (no Targeting held): d10 + 5 + 3 - 2 against TN 8


def test_of_two_targets_the_one_in_the_open_with_the_lower_trauma_roll_is_chosen():
    board = Board(24, 12)
    for cell in ((5, 4), (5, 5), (5, 6), (4, 4), (4, 6), (3, 4), (3, 6)):
        board.add_cover(cell, "crate")
    game, ids = fight(SYSTEM, board, (14, 5), [("Ann", 4, 5), ("Bob", 4, 9)], foe_sheet=_sheet(),
                      hero_sheets={"Ann": _con(8), "Bob": _con(3)})
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Bob"]
    assert "Bob in the open" in str(best["why"])
    ann = [p for p in found["plans"] if p["target"] == ids["Ann"]]
    assert ann and all(p["effect"] < best["effect"] for p in ann)
    assert all("behind cover" in str(p["why"]) for p in ann)


def test_a_target_behind_a_wall_is_reached_by_the_way_round():
    board = Board(16, 12)
    board.add_wall((7, 0), (7, 5))  # a wall between the Orc and Ann, open below y = 5
    game, ids = fight(SYSTEM, board, (8, 3), [("Ann", 5, 2)], foe_sheet=_sheet())
    assert not los.line_of_fire(board, (8, 3), (5, 2)).clear
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Ann"] and best["steps"][-1]["type"] == "move_token"
    to = tuple(best["to"])
    assert los.line_of_fire(board, to, (5, 2)).clear and to[1] >= 5  # past the wall's end, Ann in its sights
    cost, path = movement.shortest_path(board, (8, 3), to, rules.get(SYSTEM).diagonal)
    assert cost <= 3 and any(c[1] >= 5 for c in path)  # the way round the wall's end, within a phase's Move


def test_the_weapon_with_the_larger_expected_effect_is_chosen():
    rifle = {"name": "Rifle", "skill": "rifles", "damage": "3d6", "mode": "single"}
    holdout = {"name": "Holdout", "skill": "handguns", "damage": "1d6", "mode": "single"}
    game, ids = fight(SYSTEM, Board(16, 8), (10, 3), [("Ann", 4, 3)], foe_sheet={"weapons": [holdout, rifle]})
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"][0]["weapon"] == "Rifle"
    others = [p for p in found["plans"] if p["weapon"] == "Holdout"]
    assert others and others[0]["effect"] < found["plans"][0]["effect"]


def test_a_careful_foe_in_reach_of_three_enemies_takes_cover_first():
    board = Board(16, 12)
    board.add_wall((7, 3), (7, 8))  # a screen at the Orc's right, its end within a phase's Move: cover behind it
    game, ids = fight(SYSTEM, board, (6, 3), [("Ann", 5, 2), ("Bob", 5, 3), ("Cid", 5, 4)], foe_sheet=_sheet(),
                      tactic="careful")
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["tactic"] == "careful"
    best = found["plans"][0]
    geo = suggestions._Geometry(game, rules.get(SYSTEM))
    foes = [game.tokens[ids[n]] for n in ("Ann", "Bob", "Cid")]
    assert geo.threat((6, 3), foes) >= 3
    assert best["steps"][-1]["type"] == "move_token"  # the Move is its declaration this phase
    assert tuple(best["to"])[0] >= 7 and geo.threat(tuple(best["to"]), foes) == 0  # behind the screen
    fierce, ids2 = fight(SYSTEM, board, (6, 3), [("Ann", 5, 2), ("Bob", 5, 3), ("Cid", 5, 4)], foe_sheet=_sheet())
    assert suggestions.reckon(fierce, ids2["Orc"])["plans"][0]["target"] is not None  # a fierce one shoots


def test_a_cowardly_wounded_foe_withdraws():
    board = Board(16, 10)
    game, ids = fight(SYSTEM, board, (6, 5), [("Ann", 5, 5)], foe_sheet=_sheet(flesh=4), tactic="cowardly")
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["tactic"] == "cowardly"
    for p in found["plans"]:
        assert p["target"] is None and p["hit"] is None
        assert [s["type"] for s in p["steps"]] == ["move_token"]
    d = rules.get(SYSTEM).diagonal
    assert movement.distance(tuple(found["plans"][0]["to"]), (5, 5), d) > movement.distance((6, 5), (5, 5), d) + 1
    unhurt, ids2 = fight(SYSTEM, board, (6, 5), [("Ann", 5, 5)], foe_sheet=_sheet(), tactic="cowardly")
    assert suggestions.reckon(unhurt, ids2["Orc"])["plans"][0]["target"] == ids2["Ann"]  # not hurt: it fights


def test_a_semi_automatic_foe_targets_and_fires_its_two_targeted_shots():
    sidearm = {"name": "Sidearm", "skill": "handguns", "damage": "2d6", "mode": "semi"}
    game, ids = fight(SYSTEM, Board(16, 8), (10, 3), [("Ann", 4, 3)], foe_sheet={"weapons": [sidearm]})
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))  # its two shots come due targeted
    best = found["plans"][0]
    assert best["steps"][-1]["action"] == "declare:target_and_fire"
    assert best["hit"] == pytest.approx(1.0)  # targeted: d10 + 5 + 3 against TN 8, no -2
    single, ids2 = fight(SYSTEM, Board(16, 8), (10, 3), [("Ann", 4, 3)], foe_sheet=_sheet())
    fire = suggestions.reckon(single, ids2["Orc"])["plans"][0]  # a single-shot pistol: a wild Fire now
    assert fire["steps"][-1]["action"] == "declare:fire" and fire["effect"] < best["effect"]


def _declare_then_wait(game, ids, action: str, target: str) -> None:
    """The Orc declares ``action`` at ``target``; the fight is played on (the others declaring nothing new, the
    phase resolving) until it is the Orc's time to declare again."""
    play(game, {"type": "act", "token_id": ids["Orc"], "action": f"declare:{action}",
                "options": {"target": ids[target], "weapon": "Pistol"}})
    phase = game.combat["state"]["combat"]["phase"]
    for seed in range(20):
        if game.combat["state"]["combat"]["phase"] > phase and game.combat["current"] == ids["Orc"]:
            return
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    raise AssertionError("never the Orc's time to declare again")


def test_a_foe_that_targeted_and_aimed_fires_with_its_aim_at_the_target_it_holds():
    unskilled = _sheet(skills={"handguns": 0})  # d10 + 5 against TN 8: wild 60%, targeted 80%, aimed once 90%
    game, ids = fight(SYSTEM, Board(16, 10), (10, 3), [("Ann", 4, 3), ("Bob", 4, 7)], foe_sheet=unskilled)
    _declare_then_wait(game, ids, "target", "Ann")
    before = played(game, ids, suggestions.reckon(game, ids["Orc"]))
    aim = [p for p in before["plans"] if p["steps"][-1].get("action") == "declare:aim"]
    fire = before["plans"][0]
    assert fire["target"] == ids["Ann"] and fire["steps"][-1]["action"] == "declare:fire"
    assert fire["hit"] == pytest.approx(0.8) and not aim  # Aim's +1 next phase is worth less than the shot now
    _declare_then_wait(game, ids, "aim", "Ann")
    assert game.combat["state"]["combatants"][ids["Orc"]]["aims"] == 1
    found = played(game, ids, suggestions.reckon(game, ids["Orc"]))  # the due shot carries the aim: hit equal
    best = found["plans"][0]
    assert best["target"] == ids["Ann"] and best["options"] == {"aim": 1}
    assert best["hit"] == pytest.approx(0.9)
    bob = [p for p in found["plans"] if p["target"] == ids["Bob"]]
    assert all(p["hit"] <= 0.6 + 1e-9 for p in bob)  # a wild shot at the one not held
