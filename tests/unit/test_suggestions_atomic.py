"""The GM's foes (#60) on a zone map, in Atomic Tomorrow Adventures: a foe's best plans on scripted zone maps where
the best is known by construction (the target in the open zone with the lower defense, a target reached through
the zone between, the weapon that does more, a careful foe taking cover, a cowardly hurt foe withdrawing to the
farthest zone, a guarding foe keeping near its post); every plan's ``hit`` is what ``preview_attack`` says once its
move is played (from the plan's zone), and every step is accepted as the GM's own command."""

from __future__ import annotations

import copy

import rules
from rules.dice import SeededDice
from webapp.game.fight import aiming
from webapp.game.board import mapdata
from webapp.game.planning import suggestions, suggestions_zones
from webapp.game.bridge import zonelayout
from webapp.game.bridge.fighting import position_of, settings_of
from webapp.game.core.model import GM

from tabledice import play, seated
from test_suggestions import to_the_orcs_turn

SYSTEM = "atomic_tomorrow"


def _sheet(name: str, **over) -> dict:
    return {**rules.get(SYSTEM).default_sheet(), "name": name, **over}


def _weapon(name: str, skill: str, wound_rating: int, ranges: list[str]) -> dict:
    return {"name": name, "skill": skill, "wound_rating": wound_rating, "armour_piercing": 0, "ranges": ranges,
            "area": False}


PISTOL = _weapon("Blast pistol", "ranged", 2, ["near", "far"])
RIFLE = _weapon("Blast rifle", "ranged", 3, ["near", "far"])
STUNNER = _weapon("Stunner", "ranged", 1, ["near", "far"])
KNIFE = _weapon("Vibro-knife", "melee", 1, ["engaged"])


def fight(zones: list[dict], foe: str, heroes: list[tuple], foe_sheet: dict | None = None,
          hero_sheets: dict | None = None, tactic: str | None = None):
    """A fight on a zone map of ``zones``: the GM's Orc in zone ``foe`` and the heroes ``(name, zone)`` (Mira's),
    each with the sample sheet and the changes given; played on until it is the Orc's turn."""
    board, laid = mapdata.zone_map({"zones": zones})
    names = [("Orc", foe, None)] + [(h[0], h[1], "p-mira") for h in heroes]
    game, ids = seated("g-z", "Rocket-port", SYSTEM, board, names, laid)
    for name, _zone, owner in names:
        sheet = (foe_sheet if name == "Orc" else (hero_sheets or {}).get(name)) or {}
        play(game, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": _sheet(name, **sheet),
                    **({"owner": owner} if owner else {})})
    return to_the_orcs_turn(game, ids, tactic)


def checked(game, ids, found: dict) -> dict:
    """Every plan's steps accepted, played on a copy in order (a move names the zone, as the GM's zone move does);
    its ``hit`` the preview's of the same attack once the move is played, from the plan's zone."""
    assert found["plans"], "no plan"
    for p in found["plans"]:
        g = copy.deepcopy(game)
        *before, last = p["steps"]
        for step in before:
            assert step["type"] == "move_token" and step["zone"] == p["to"]
            play(g, step, dice=SeededDice(1))
        orc = g.tokens[ids["Orc"]]
        if last["type"] == "attack":
            assert position_of(g, orc) == p["to"]
            view = aiming.preview(g, aiming.AttackCommand(**{k: v for k, v in last.items() if k != "type"}), GM)
            assert view["odds"]["hit"] == p["hit"], (p["summary"], view["odds"]["hit"], p["hit"])
            assert tuple(view["from"]) == (orc.x, orc.y)
            play(g, last, dice=SeededDice(2))  # accepted as the GM's own attack
        else:
            assert last == {"type": "move_token", "token_id": ids["Orc"], "zone": p["to"]}
            play(g, last, dice=SeededDice(1))
            assert position_of(g, g.tokens[ids["Orc"]]) == p["to"]
    return found


def test_zone_maps_are_reckoned_for_atomic_tomorrow():
    game, ids = fight([{"id": "a", "name": "Hangar", "adjacent": ["b"]}, {"id": "b", "name": "Pad"}], "a",
                      [("Ann", "b")])
    assert suggestions.reckoned(game)
    assert rules.get(SYSTEM).planner is not None
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert all(isinstance(p["to"], str) and p["to"] in ("a", "b") for p in found["plans"])


def test_of_two_targets_the_one_in_the_open_zone_with_the_lower_defense_is_chosen():
    zones = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay", "depot"]},
             {"id": "bay", "name": "Cargo Bay", "cover": "good"},
             {"id": "depot", "name": "Fuel Depot"}]
    strong = {"reflex": 18}  # Dodge higher, and behind good cover
    weak = {"reflex": 8}
    game, ids = fight(zones, "pad", [("Ann", "bay"), ("Bob", "depot")], foe_sheet={"weapons": [PISTOL]},
                      hero_sheets={"Ann": strong, "Bob": weak})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Bob"]
    assert "in the open" in str(best["why"]) and "Dodge" in str(best["why"])
    ann = [p for p in found["plans"] if p["target"] == ids["Ann"]]
    assert ann and all(p["effect"] < best["effect"] for p in ann)
    assert "behind cover" in str(ann[0]["why"])


def test_a_target_reached_only_through_another_zone_is_reached_by_the_way_through_it():
    # a knife needs the same zone; Ann stands two zones off, through the corridor: this turn it moves into the
    # corridor (the one step the rules allow), the way to her
    zones = [{"id": "hall", "name": "Hall", "adjacent": ["corridor", "closet"]},
             {"id": "corridor", "name": "Corridor", "adjacent": ["vault"]},
             {"id": "closet", "name": "Closet"},
             {"id": "vault", "name": "Vault"}]
    game, ids = fight(zones, "hall", [("Ann", "corridor")], foe_sheet={"weapons": [KNIFE]})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    best = found["plans"][0]
    assert best["target"] == ids["Ann"] and best["weapon"] in ("Vibro-knife", "Unarmed")  # hand to hand: Engaged
    assert best["to"] == "corridor"
    assert best["steps"][0] == {"type": "move_token", "token_id": ids["Orc"], "zone": "corridor"}
    far, ids2 = fight(zones, "closet", [("Ann", "corridor")], foe_sheet={"weapons": [PISTOL]})
    best = checked(far, ids2, suggestions.reckon(far, ids2["Orc"]))["plans"][0]
    # from the closet Ann is two zones off (Distant: the pistol reaches Near and Far): through the hall she is Far
    assert zonelayout.path(far.zones, "closet", "corridor") == ["closet", "hall", "corridor"]
    assert best["target"] == ids2["Ann"] and best["to"] == "hall"


def test_the_weapon_with_the_larger_expected_effect_is_chosen():
    zones = [{"id": "a", "name": "Hangar", "adjacent": ["b"]}, {"id": "b", "name": "Pad"}]
    game, ids = fight(zones, "a", [("Ann", "b")], foe_sheet={"weapons": [STUNNER, RIFLE]})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"][0]["weapon"] == "Blast rifle"
    others = [p for p in found["plans"] if p["weapon"] == "Stunner"]
    assert others and others[0]["effect"] < found["plans"][0]["effect"]
    assert found["plans"][0]["hit"] == others[0]["hit"]  # the same skill: the Wound Rating makes the difference


def test_a_careful_foe_in_reach_of_three_enemies_takes_cover_first():
    zones = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay", "depot"]},
             {"id": "bay", "name": "Cargo Bay", "cover": "excellent"},
             {"id": "depot", "name": "Fuel Depot"}]
    heroes = [("Ann", "pad"), ("Bob", "pad"), ("Cid", "pad")]
    game, ids = fight(zones, "pad", heroes, tactic="careful")
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["tactic"] == "careful"
    best = found["plans"][0]
    assert best["to"] == "bay"
    assert best["steps"][0] == {"type": "move_token", "token_id": ids["Orc"], "zone": "bay"}
    assert "careful" in str(best["why"])
    fierce, ids2 = fight(zones, "pad", heroes)  # the same foe, fierce: it stays and shoots (no move to pay for)
    assert checked(fierce, ids2, suggestions.reckon(fierce, ids2["Orc"]))["plans"][0]["to"] == "pad"


def test_a_cowardly_wounded_foe_withdraws_to_the_farthest_zone():
    zones = [{"id": "a", "name": "Airlock", "adjacent": ["b", "c"]},
             {"id": "b", "name": "Bridge", "adjacent": ["a"]},
             {"id": "c", "name": "Cargo", "adjacent": ["a", "d"]},
             {"id": "d", "name": "Dock", "adjacent": ["c"]}]
    # Ann on the Bridge; from the Airlock the Orc reaches the Bridge (0 from her) or Cargo (2 from her)
    game, ids = fight(zones, "a", [("Ann", "b")], foe_sheet={"wounds": 1}, tactic="cowardly")
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["tactic"] == "cowardly"
    for p in found["plans"]:
        assert p["target"] is None and p["hit"] is None
        assert not any(s["type"] == "attack" for s in p["steps"])
    assert found["plans"][0]["to"] == "c"
    assert "withdraws" in str(found["plans"][0]["why"])
    unhurt, ids2 = fight(zones, "a", [("Ann", "b")], tactic="cowardly")
    assert suggestions.reckon(unhurt, ids2["Orc"])["plans"][0]["target"] == ids2["Ann"]  # not hurt: it fights


def test_a_guarding_foe_keeps_near_its_posts_zone():
    zones = [{"id": "a", "name": "Airlock", "adjacent": ["b"]},
             {"id": "b", "name": "Bridge", "adjacent": ["c"]},
             {"id": "c", "name": "Cargo"}]
    game, ids = fight(zones, "a", [("Ann", "c")], foe_sheet={"weapons": [KNIFE, PISTOL]}, tactic="guarding")
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    assert found["plans"] and all(p["to"] in ("a", "b") for p in found["plans"])
    assert all("guarding" in str(p["why"]) for p in found["plans"])


def test_an_area_weapon_is_fired_at_the_zone_with_more_foes_and_none_of_its_own_side():
    zones = [{"id": "a", "name": "Airlock", "adjacent": ["b", "c", "d"]},
             {"id": "b", "name": "Bridge"}, {"id": "c", "name": "Cargo"}, {"id": "d", "name": "Dock"}]
    launcher = {**_weapon("Grenade launcher", "ranged", 2, ["far"]), "area": True}
    game, ids = fight(zones, "a", [("Ann", "b"), ("Bob", "c"), ("Cid", "c"), ("Dan", "d")],
                      foe_sheet={"weapons": [launcher]})
    play(game, {"type": "add_token", "name": "Imp", "zone": "d"})  # the Orc's own side, beside Dan
    imp = next(t.id for t in game.tokens.values() if t.name == "Imp")
    play(game, {"type": "add_character", "name": "Imp", "token_id": imp, "sheet": _sheet("Imp")})
    found = checked(game, ids, suggestions.reckon(game, ids["Orc"]))
    by_target = {p["target"]: p for p in found["plans"] if p["weapon"] == "Grenade launcher"}
    assert found["plans"][0]["weapon"] == "Grenade launcher"
    assert found["plans"][0]["target"] in (ids["Bob"], ids["Cid"])  # two heroes in the Cargo hold
    assert by_target[found["plans"][0]["target"]]["effect"] > by_target.get(ids["Ann"], {"effect": 0})["effect"]
    # every plan weighed, before the three best are kept: Dan alone in the Dock, as Ann on the Bridge, but the Imp
    orc = game.tokens[ids["Orc"]]
    system = rules.get(SYSTEM)
    raw = suggestions_zones.plans_on_zones(game, orc, system, system.plan_turns(game.combat["state"], None, {}),
                                           "fierce", False, [game.tokens[ids[n]] for n in ("Ann", "Bob", "Cid", "Dan")],
                                           settings_of(game), (orc.x, orc.y))
    ann = next(p for p in raw if p["target"] == ids["Ann"] and p["weapon"] == "Grenade launcher")
    dan = next(p for p in raw if p["target"] == ids["Dan"] and p["weapon"] == "Grenade launcher")
    assert dan["effect"] < ann["effect"]  # the blast at Dan catches the Imp too
    assert "own side" in str(dan["why"])


def test_an_incapacitated_foes_plans_fold_in_its_grit_roll_and_the_rules_keep_it_from_moving():
    # at 4 wounds each action needs a GRIT x1 success first ("INCAPACITATION"): the rules refuse the move until it
    # is rolled, so no plan moves; the attack's odds fold the roll in, as the attack card's do
    zones = [{"id": "a", "name": "Hangar", "adjacent": ["b"]}, {"id": "b", "name": "Pad"}]
    fit, ids = fight(zones, "a", [("Ann", "b")])
    hurt, ids2 = fight(zones, "a", [("Ann", "b")], foe_sheet={"wounds": 4})
    well = checked(fit, ids, suggestions.reckon(fit, ids["Orc"]))["plans"]
    found = checked(hurt, ids2, suggestions.reckon(hurt, ids2["Orc"]))["plans"]
    assert any(p["to"] == "b" for p in well)  # unhurt, it may close in
    assert found and all(p["to"] == "a" and len(p["steps"]) == 1 for p in found)
    assert found[0]["hit"] < well[0]["hit"] / 2
