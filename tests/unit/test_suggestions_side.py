"""Foes that fight like a good GM (#67): tactics that mean what they say, and the foes as a side. Scripted boards
where the GM's choice is known by construction."""

from __future__ import annotations

import pytest

import rules
from rules import los, movement
from rules.board import Board
from rules.dice import SeededDice
from webapp.game.planning import suggestions

from tabledice import play, seated
from test_suggestions import _sheet, fight
from test_suggestions_approach import _melee
import test_suggestions_atomic as atomic

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


def _zone_steps(game, a: str, b: str) -> int:
    return len(atomic.zonelayout.path(game.zones, a, b)) - 1


def test_a_cowardly_hurt_foe_on_zones_ends_no_closer_to_any_enemy():
    """The Orc in the Hall, Ann in the Armoury and Bob in the Barracks, both beside the Hall; the Crossing is beside
    all three, the Depot a step past the Hall from both. Withdrawing is to the Depot, never into the Crossing."""
    zones = [{"id": "hall", "name": "Hall", "adjacent": ["armoury", "barracks", "crossing", "depot"]},
             {"id": "armoury", "name": "Armoury", "adjacent": ["crossing"]},
             {"id": "barracks", "name": "Barracks", "adjacent": ["crossing"]},
             {"id": "crossing", "name": "Crossing"},
             {"id": "depot", "name": "Depot"}]
    game, ids = atomic.fight(zones, "hall", [("Ann", "armoury"), ("Bob", "barracks")], foe_sheet={"wounds": 1},
                             tactic="cowardly")
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"]
    for p in found["plans"]:
        assert p["kind"] == "withdraw"
        for hero in ("armoury", "barracks"):
            assert _zone_steps(game, p["to"], hero) >= _zone_steps(game, "hall", hero), p["to"]
    assert [p["to"] for p in found["plans"]] == ["depot"]
    # no zone away from them: no plan, and the words why
    del zones[-1]
    zones[0]["adjacent"].remove("depot")
    game, ids = atomic.fight(zones, "hall", [("Ann", "armoury"), ("Bob", "barracks")], foe_sheet={"wounds": 1},
                             tactic="cowardly")
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == [] and "nowhere to withdraw" in str(found["none"])


@pytest.mark.parametrize("system", GRID_SYSTEMS)
def test_a_cowardly_hurt_foe_on_a_grid_ends_no_closer_to_any_enemy(system):
    hurt = {"gurps_lite": {"hp_current": 3}, "savage_worlds": {"wounds": 1}, "tesseris_ads": {"wounds": 1}}[system]
    d = rules.get(system).diagonal
    for board, start, heroes in ((Board(10, 11), (4, 5), [(3, 2), (3, 8)]),  # room behind it
                                 (Board(4, 4), (0, 0), [(3, 0), (0, 3)])):  # in a corner: nowhere farther
        game, ids = fight(system, board, start, [("Ann", *heroes[0]), ("Bob", *heroes[1])], foe_sheet=hurt,
                          tactic="cowardly")
        found = suggestions.reckon(game, ids["Orc"])
        for p in found["plans"]:
            assert p["kind"] == "withdraw"
            for h in heroes:
                assert movement.distance(tuple(p["to"]), h, d) >= movement.distance(start, h, d), (start, p["to"])
        if board.width == 10:
            assert found["plans"]


#: a hero one blow from going down, per system where the rules' odds say the chance of it (#67): Savage Worlds' Wild
#: Card on its last Wound (Incapacitated by the next), Tesseris at one Wound from its limit (dead at it); the 3d6
#: system, phase/TN and Atomic Tomorrow: test_suggestions_finish.py
LAST_WOUND = {"savage_worlds": {"wounds": 3}, "tesseris_ads": {"wounds": 9}}


def _two_foes(system: str, board, foes: dict, heroes: dict, hero_sheets: dict | None = None,
              foe_sheets: dict | None = None):
    """A fight of the GM's ``foes`` and Mira's ``heroes`` (name -> square), each with the system's sample sheet and
    the changes given, played on until the first foe's turn."""
    names = [(n, None) for n in foes] + [(n, "p-mira") for n in heroes]
    where = {**foes, **heroes}
    game, ids = seated("g-s", "Foes", system, board, [(n, 1 + i, owner) for i, (n, owner) in enumerate(names)])
    for i, (name, _owner) in enumerate(names):
        play(game, {"type": "move_token", "token_id": ids[name], "x": board.width - 1 - i, "y": board.height - 1,
                    "force": True})
    for name, _owner in names:
        play(game, {"type": "move_token", "token_id": ids[name], "x": where[name][0], "y": where[name][1],
                    "force": True})
        sheet = {**((foe_sheets or {}).get(name) or {}), **((hero_sheets or {}).get(name) or {})}
        play(game, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": _sheet(system, name, **sheet)})
    first = next(iter(foes))
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(3))
    for seed in range(40):
        if game.combat["current"] in {ids[n] for n in foes}:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    assert game.combat["current"] in {ids[n] for n in foes}, first
    return game, ids


@pytest.mark.parametrize("system", sorted(LAST_WOUND))
@pytest.mark.parametrize("hurt", ("Ann", "Bob"))
def test_two_fierce_foes_both_aim_first_at_the_hero_about_to_go_down(system, hurt):
    game, ids = _two_foes(system, Board(20, 12), {"Orc": (6, 5), "Gob": (6, 7)}, {"Ann": (9, 4), "Bob": (9, 7)},
                          hero_sheets={hurt: LAST_WOUND[system]})
    # each on its own turn, the hurt one still standing (asked before its turn, the second foe counts the chance the
    # first puts the hero down first: test_suggestions_finish.py)
    first = "Orc" if game.combat["current"] == ids["Orc"] else "Gob"
    for foe in (first, "Gob" if first == "Orc" else "Orc"):
        for seed in range(40):
            if game.combat["current"] == ids[foe]:
                break
            play(game, {"type": "next_turn"}, dice=SeededDice(seed))
        best = suggestions.reckon(game, ids[foe])["plans"][0]
        assert best["kind"] == "attack" and best["target"] == ids[hurt], (foe, str(best["summary"]))
        assert 0 < best["down"] <= 1
        assert f"finishes {hurt}" in str(best["why"]) and f"{best['down']:.0%}" in str(best["why"])
    # the fresh hero's plans give a smaller chance to finish it (a Wild Card's four Wounds in one blow are rare, not
    # impossible: aces), and say no more than that chance
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    hurt_down = max(p["down"] for p in plans if p["target"] == ids[hurt])
    for p in plans:
        if p["target"] != ids[hurt]:
            assert p["down"] < hurt_down
            assert "finishes" not in str(p["why"]) or f"{p['down']:.0%}" in str(p["why"])


def test_a_savage_worlds_foe_stands_where_its_ally_gets_gang_up():
    """The Orc, a sword alone, strikes Ann; of the squares beside her, those also beside Bob (whom the Gob is beside)
    give the Gob Gang Up against Bob: it takes one of them, though the nearest beside Ann are not, and says so."""
    sword = _melee("savage_worlds")
    game, ids = _two_foes("savage_worlds", Board(20, 12), {"Orc": (6, 2), "Gob": (11, 8)},
                          {"Ann": (10, 5), "Bob": (10, 7)}, foe_sheets={"Orc": sword, "Gob": sword})
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    at_ann = [p for p in plans if p["kind"] == "attack" and p["target"] == ids["Ann"]]
    assert at_ann, [str(p["summary"]) for p in plans]
    grid = game.board.grid
    for p in at_ann:
        assert grid.steps(tuple(p["to"]), (10, 5)) == 1 and grid.steps(tuple(p["to"]), (10, 7)) == 1, p["to"]
        assert "Gang Up +1 with Gob against Bob" in str(p["why"])


def test_on_zones_careful_says_cover_only_of_a_zone_with_cover():
    """The same pad and its three heroes; the Cargo Bay gives cover, the Fuel Depot none: a move to the bay is cover,
    one to the depot (fewer heroes stand in it) is a move, and no plan says the depot gives cover."""
    zones = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay", "depot"]},
             {"id": "bay", "name": "Cargo Bay", "cover": "excellent"},
             {"id": "depot", "name": "Fuel Depot"}]
    game, ids = atomic.fight(zones, "pad", [("Ann", "pad"), ("Bob", "pad"), ("Cid", "pad")],
                             foe_sheet={"weapons": [atomic.KNIFE]}, tactic="careful")
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    by_zone = {p["to"]: p for p in plans if p["kind"] in ("cover", "move")}
    assert by_zone["bay"]["kind"] == "cover" and "takes cover" in str(by_zone["bay"]["why"])
    assert by_zone["depot"]["kind"] == "move" and "takes cover" not in str(by_zone["depot"]["why"])
