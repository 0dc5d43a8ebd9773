"""The GM's foes (#60): a foe's best plans on scripted boards where the best is known by construction, in the 3d6
system and in Savage Worlds: the target in the open with the lower defense, the way round a wall, the weapon that
does more, a careful foe taking cover, a cowardly hurt foe withdrawing; every plan's ``hit`` is what
``preview_attack`` says once its steps before the attack are played, and every step is accepted."""

from __future__ import annotations

import copy

import pytest

import rules
from rules import movement
from rules.board import Board
from rules.dice import SeededDice
from rules.grid import HEX_POINTY
from webapp.game.fight import aiming
from webapp.game.planning import suggestions
from webapp.game import table
from webapp.game.core.model import GM, Rejected

from tabledice import play, seated

SYSTEMS = ("gurps_lite", "savage_worlds")


def _sheet(system: str, name: str, **over) -> dict:
    return {**rules.get(system).default_sheet(), "name": name, **over}


def _weapons(system: str, *keys: str) -> dict:
    every = rules.get(system).default_sheet()["weapons"]
    return {k: every[k] for k in keys}


def fight(system: str, board: Board, foe: tuple, heroes: list[tuple], foe_sheet: dict | None = None,
          hero_sheets: dict | None = None, tactic: str | None = None):
    """A fight on ``board``: the GM's Orc at ``foe`` (x, y) and the heroes ``(name, x, y)`` (Mira's), each with the
    system's sample sheet and the changes given; played on until it is the Orc's turn."""
    names = [("Orc", None)] + [(h[0], "p-mira") for h in heroes]
    game, ids = seated("g-s", "Foes", system, board, [(n, 0 if n == "Orc" else 1 + i, owner)
                                                      for i, (n, owner) in enumerate(names)])
    where = {"Orc": foe, **{h[0]: (h[1], h[2]) for h in heroes}}
    for name, _owner in names:  # out of the way first, then each to its square
        play(game, {"type": "move_token", "token_id": ids[name], "x": board.width - 1 - list(ids).index(name),
                    "y": board.height - 1, "force": True})
    for name, _owner in names:
        play(game, {"type": "move_token", "token_id": ids[name], "x": where[name][0], "y": where[name][1], "force": True})
        sheet = (foe_sheet if name == "Orc" else (hero_sheets or {}).get(name)) or {}
        play(game, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": _sheet(system, name, **sheet)})
    return to_the_orcs_turn(game, ids, tactic)


def to_the_orcs_turn(game, ids: dict, tactic: str | None = None):
    """The Orc's tactic set (if given), the fight started among ``ids`` and played on to the Orc's turn."""
    if tactic:
        play(game, {"type": "set_tactic", "token_id": ids["Orc"], "tactic": tactic})
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(3))
    for seed in range(40):
        if game.combat["current"] == ids["Orc"]:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    assert game.combat["current"] == ids["Orc"]
    return game, ids


def checked(game, ids, found: dict) -> dict:
    """Every plan's steps accepted, played on a copy in order, and its ``hit`` the preview's of the same attack
    once the steps before it are played."""
    assert found["plans"], "no plan"
    for p in found["plans"]:
        g = copy.deepcopy(game)
        *before, last = p["steps"]
        for step in before:
            play(g, step, dice=SeededDice(1))
        if last["type"] == "attack":
            view = aiming.preview(g, aiming.AttackCommand(**{k: v for k, v in last.items() if k != "type"}), GM)
            assert view["odds"]["hit"] == p["hit"], (p["summary"], view["odds"]["hit"], p["hit"])
            assert tuple(view["from"]) == tuple(p["to"])
            play(g, last, dice=SeededDice(2))  # accepted as the GM's own attack
        else:
            play(g, last, dice=SeededDice(1))
            assert (g.tokens[ids["Orc"]].x, g.tokens[ids["Orc"]].y) == tuple(p["to"])
    return found


@pytest.mark.parametrize("system", SYSTEMS)
def test_of_two_targets_the_one_in_the_open_with_the_lower_defense_is_chosen(system):
    board = Board(24, 12)
    for cell in ((5, 4), (5, 5), (5, 6), (4, 4), (4, 6), (3, 4), (3, 6)):
        board.add_cover(cell, "crate")
    gun = "Pistol" if system == "gurps_lite" else "Colt Peacemaker"
    if system == "gurps_lite":
        strong = {"basic_speed": 7.0}  # Dodge 10 and a shield
        weak = {"basic_speed": 4.0, "shield": None}  # Dodge 7, no shield
    else:
        strong = {"skills": {**rules.get(system).default_sheet()["skills"], "fighting": "d12"}}
        weak = {"skills": {**rules.get(system).default_sheet()["skills"], "fighting": "d4"}}
    game, ids = fight(system, board, (14, 5), [("Ann", 4, 5), ("Bob", 4, 9)],
                      foe_sheet={"weapons": _weapons(system, gun)}, hero_sheets={"Ann": strong, "Bob": weak})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Bob"]
    assert "in the open" in str(best["why"])
    ann = [p for p in found["plans"] if p["target"] == ids["Ann"]]
    assert all(p["effect"] < best["effect"] for p in ann)


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_target_behind_a_wall_is_reached_by_the_way_round(system):
    board = Board(16, 12)
    board.add_wall((7, 0), (7, 5))  # a wall between the Orc and Ann, open below y = 5
    sword = "Broadsword" if system == "gurps_lite" else "Long sword"
    game, ids = fight(system, board, (8, 3), [("Ann", 5, 3)], foe_sheet={"weapons": _weapons(system, sword)})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Ann"] and best["weapon"] == sword
    to = tuple(best["to"])
    assert to[0] <= 6 and max(abs(to[0] - 5), abs(to[1] - 3)) == 1  # beside Ann, on her side of the wall
    straight = movement.distance((8, 3), to, rules.get(system).diagonal)
    cost, path = movement.shortest_path(board, (8, 3), to, rules.get(system).diagonal)
    assert cost > straight and any(c[1] >= 5 for c in path)  # the way round the wall's end


@pytest.mark.parametrize("system", SYSTEMS)
def test_the_weapon_with_the_larger_expected_effect_is_chosen(system):
    board = Board(12, 8)
    weapons = ("Broadsword", "Punch") if system == "gurps_lite" else ("Long sword", "Throwing knife")
    game, ids = fight(system, board, (5, 3), [("Ann", 4, 3)], foe_sheet={"weapons": _weapons(system, *weapons)})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"][0]["weapon"] == weapons[0]
    others = [p for p in found["plans"] if p["weapon"] == weapons[1]]
    assert others and others[0]["effect"] < found["plans"][0]["effect"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_careful_foe_in_reach_of_three_enemies_takes_cover_first(system):
    board = Board(16, 12)
    board.add_wall((8, 4), (8, 7))  # a screen a few steps to the Orc's right: cover from the three behind it
    game, ids = fight(system, board, (6, 5), [("Ann", 5, 4), ("Bob", 5, 5), ("Cid", 5, 6)], tactic="careful")
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["tactic"] == "careful"
    best = found["plans"][0]
    system_ = rules.get(system)
    geo = suggestions._Geometry(game, system_)
    foes = [game.tokens[ids[n]] for n in ("Ann", "Bob", "Cid")]
    assert geo.threat((6, 5), foes) >= 3
    assert geo.threat(tuple(best["to"]), foes) < geo.threat((6, 5), foes)
    assert tuple(best["to"])[0] >= 8 and geo.threat(tuple(best["to"]), foes) == 0  # behind the screen


@pytest.mark.parametrize("system", [*SYSTEMS, "tesseris_ads"])
def test_a_cowardly_wounded_foe_withdraws(system):
    board = Board(16, 10)
    hurt = {"hp_current": 5} if system == "gurps_lite" else {"wounds": 1}
    game, ids = fight(system, board, (6, 5), [("Ann", 5, 5)], foe_sheet=hurt, tactic="cowardly")
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["tactic"] == "cowardly"
    for p in found["plans"]:
        assert p["target"] is None and p["hit"] is None
        assert not any(s["type"] == "attack" for s in p["steps"])
    d = rules.get(system).diagonal
    assert movement.distance(tuple(found["plans"][0]["to"]), (5, 5), d) > movement.distance((6, 5), (5, 5), d) + 1
    unhurt, ids2 = fight(system, board, (6, 5), [("Ann", 5, 5)], tactic="cowardly")
    assert suggestions.reckon(unhurt, ids2["Orc"])["plans"][0]["target"] == ids2["Ann"]  # not hurt: it fights


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_guarding_foe_keeps_near_its_post(system):
    board = Board(20, 8)
    game, ids = fight(system, board, (2, 3), [("Ann", 10, 3)], tactic="guarding")
    found = suggestions.reckon(game, ids["Orc"])
    d = rules.get(system).diagonal
    for p in found["plans"]:
        assert movement.distance(tuple(p["to"]), (2, 3), d) <= suggestions.GUARD_RADIUS
    assert found["plans"]
    checked(game, ids, found)


def test_a_system_without_a_planner_says_so():
    """The plain grid (no rules) has no planner: its foes are not reckoned, on squares or on hexes (#67: the built-in
    systems reckon hexes too)."""
    for board in (Board(10, 6), Board(10, 6, HEX_POINTY)):
        game, ids = seated("g-p", "F", "plain_grid", board, (("Orc", 2, None), ("Ann", 5, "p-mira")))
        game.combat = {"state": {}, "round": 1, "order": list(ids.values()), "current": ids["Orc"], "phase": "",
                       "due": []}
        assert not suggestions.reckoned(game)
        with pytest.raises(suggestions.NotReckoned):
            suggestions.reckon(game, ids["Orc"])


def test_the_tactic_is_the_gms_and_a_players_token_has_none():
    game, ids = seated("g-t", "F", "gurps_lite", Board(10, 6), (("Orc", 2, None), ("Ann", 5, "p-mira")))
    with pytest.raises(Rejected):
        play(game, {"type": "set_tactic", "token_id": ids["Ann"], "tactic": "careful"})
    with pytest.raises(Exception):
        table.parse_command({"type": "set_tactic", "token_id": ids["Orc"], "tactic": "reckless"})
    play(game, {"type": "set_tactic", "token_id": ids["Orc"], "tactic": "guarding"})
    assert game.tactics[ids["Orc"]] == {"tactic": "guarding", "anchor": [2, 2]}
    assert [e.audience for e in game.log if "guarding" in e.text] == ["gm"]


@pytest.mark.parametrize("system", SYSTEMS)
def test_a_careful_foe_keeps_its_defense_where_a_fierce_one_goes_all_out(system):
    board = Board(12, 8)
    sword = "Broadsword" if system == "gurps_lite" else "Long sword"
    risky = ("all_out_attack", "wild_attack")
    fierce, ids = fight(system, board, (5, 3), [("Ann", 4, 3)], foe_sheet={"weapons": _weapons(system, sword)})
    careful, ids2 = fight(system, board, (5, 3), [("Ann", 4, 3)], foe_sheet={"weapons": _weapons(system, sword)},
                          tactic="careful")

    def bold(found):
        steps = found["plans"][0]["steps"]
        return any(s.get("action") in risky or s.get("options", {}).get("wild_attack") for s in steps)

    assert bold(checked(fierce, ids, suggestions.reckon(fierce, ids["Orc"])))  # +4 / +2: the most expected harm
    assert not bold(checked(careful, ids2, suggestions.reckon(careful, ids2["Orc"])))
