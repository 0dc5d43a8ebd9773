"""The GM's foes in Tesseris (#60): a foe's best plans on scripted boards where the best is known by construction
(the target in the open with the lower defense, the way round a wall, the weapon that does more, a careful foe
taking cover; a cowardly hurt foe withdrawing is test_suggestions.py's, with the 3d6 and SW cases); each plan's attack paid by the ticks its move leaves, its ``hit``
the preview's once its steps before the attack are played, and every step accepted (``checked``)."""

from __future__ import annotations

import rules
from rules import movement
from rules.board import Board
from webapp.game.planning import suggestions

from test_suggestions import checked, fight

SYSTEM = "tesseris_ads"
SAMPLE = rules.get(SYSTEM).default_sheet()
SWORD = {"name": "Sword", "kind": "melee", "skill": "melee", "damage": 6, "ap": 1}
MAUL = {"name": "Maul", "kind": "melee", "skill": "melee", "damage": 7, "impact": True}


def _weapons(*keys: str, **more: dict) -> dict:
    return {**{k: SAMPLE["weapons"][k] for k in keys}, **more}


def _attack(plan: dict) -> dict:
    return next(s for s in plan["steps"] if s["type"] == "attack")


def test_the_attack_is_paid_by_the_ticks_the_move_leaves():
    board = Board(30, 8)
    game, ids = fight(SYSTEM, board, (2, 3), [("Ann", 12, 3)], foe_sheet={"weapons": {"sword": SWORD}})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Ann"] and best["effect"] > 0
    # beside Ann is 9 squares off: three Moves (3 ticks), then a Melee Strike (2 ticks); an All-Out Attack (3 ticks,
    # +2) would leave two Moves (6 squares), short of her
    d = rules.get(SYSTEM).diagonal
    assert movement.distance(tuple(best["to"]), (12, 3), d) == 1 and movement.distance((2, 3), tuple(best["to"]), d) == 9
    assert _attack(best)["options"]["action"] == "melee_strike"
    assert all(_attack(p)["options"]["action"] == "melee_strike" for p in found["plans"])


def test_of_two_targets_the_one_in_the_open_with_the_lower_defense_is_chosen():
    board = Board(24, 12)
    for cell in ((5, 4), (5, 5), (5, 6), (4, 4), (4, 6), (3, 4), (3, 6)):
        board.add_cover(cell, "sandbag")
    strong = {"agility": 6, "perception": 6, "acrobatics": 4}
    weak = {"agility": 1, "perception": 1, "acrobatics": 0}
    game, ids = fight(SYSTEM, board, (14, 5), [("Ann", 4, 5), ("Bob", 4, 9)],
                      foe_sheet={"weapons": _weapons("pistol")}, hero_sheets={"Ann": strong, "Bob": weak})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Bob"]
    assert "in the open" in str(best["why"])
    ann = [p for p in found["plans"] if p["target"] == ids["Ann"]]
    assert all(p["effect"] < best["effect"] for p in ann)


def test_a_target_behind_a_wall_is_reached_by_the_way_round():
    board = Board(16, 12)
    board.add_wall((7, 0), (7, 5))  # a wall between the Orc and Ann, open below y = 5
    game, ids = fight(SYSTEM, board, (8, 3), [("Ann", 5, 3)], foe_sheet={"weapons": {"sword": SWORD}})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Ann"] and best["weapon"] == "sword"
    to = tuple(best["to"])
    assert to[0] <= 6 and max(abs(to[0] - 5), abs(to[1] - 3)) == 1  # beside Ann, on her side of the wall
    diagonal = rules.get(SYSTEM).diagonal
    cost, path = movement.shortest_path(board, (8, 3), to, diagonal)
    assert cost > movement.distance((8, 3), to, diagonal) and any(c[1] >= 5 for c in path)  # round the wall's end


def test_the_weapon_with_the_larger_expected_effect_is_chosen():
    board = Board(12, 8)
    # a Maul's 7 damage adds half the net successes (Impact), a Knife's 2 all of them: neither beats the other on
    # every count, and the Maul does more
    game, ids = fight(SYSTEM, board, (5, 3), [("Ann", 4, 3)], foe_sheet={"weapons": _weapons("knife", maul=MAUL)})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"][0]["weapon"] == "maul"
    knife = [p for p in found["plans"] if p["weapon"] == "knife"]
    assert knife and knife[0]["effect"] < found["plans"][0]["effect"]


def test_a_careful_foe_in_reach_of_three_enemies_takes_cover_first():
    board = Board(16, 12)
    board.add_wall((8, 4), (8, 7))  # a screen a few steps to the Orc's right: cover from the three behind it
    board.add_cover((10, 4), "sandbag")  # and sandbags behind it to take cover at
    game, ids = fight(SYSTEM, board, (6, 5), [("Ann", 5, 4), ("Bob", 5, 5), ("Cid", 5, 6)], tactic="careful")
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["tactic"] == "careful"
    best = found["plans"][0]
    geo = suggestions._Geometry(game, rules.get(SYSTEM))
    foes = [game.tokens[ids[n]] for n in ("Ann", "Bob", "Cid")]
    assert geo.threat((6, 5), foes) >= 3
    assert tuple(best["to"])[0] >= 8 and geo.threat(tuple(best["to"]), foes) == 0  # behind the screen
    assert best["target"] is None
    covered = [p for p in found["plans"] if p["steps"][-1].get("action") == "take_cover"]
    assert covered and all(max(abs(p["to"][0] - 10), abs(p["to"][1] - 4)) <= 1 for p in covered)


def test_a_weapon_another_beats_on_every_count_is_not_weighed():
    board = Board(12, 8)
    game, ids = fight(SYSTEM, board, (5, 3), [("Ann", 4, 3)], foe_sheet={"weapons": _weapons("knife", sword=SWORD)})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"] and {p["weapon"] for p in found["plans"] if p["target"]} == {"sword"}  # nor Unarmed


def test_a_ranged_weapon_the_foe_is_better_with_is_weighed_beside_the_one_that_hits_harder():
    board = Board(24, 8)
    rifle_only, ids = fight(SYSTEM, board, (2, 3), [("Ann", 12, 3)], foe_sheet={"weapons": _weapons("rifle", "pistol")})
    weighed = {p["weapon"] for p in suggestions.reckon(rifle_only, ids["Orc"])["plans"]}
    assert "pistol" not in weighed  # the rifle beats it on every count, the sample's ranks among them
    sharp, ids2 = fight(SYSTEM, board, (2, 3), [("Ann", 12, 3)],
                        foe_sheet={"weapons": _weapons("rifle", "pistol"), "pistols": 5})
    found = checked(sharp, ids2, suggestions.reckon(sharp, ids2["Orc"]))
    assert "pistol" in {p["weapon"] for p in found["plans"]}  # a Pistols rank of 5 against Rifles 2: weighed
