"""The foes as a side (#67) in the 3d6 system, phase/TN and Atomic Tomorrow: a hero about to go down is worth
finishing (the plan's ``down`` is the rules' exact chance, checked here against the same chance worked out from the
rules' own distributions), and two foes spread over two heroes when the first is likely to put one down before the
second acts. Scripted boards where the GM's choice is known by construction."""

from __future__ import annotations

import copy
import dataclasses

import pytest

from rules import odds as dice_odds
from rules.atomic_tomorrow.odds import request_odds
from rules.board import Board
from rules.dice import SeededDice
from rules.phase_tn.data import resolve_settings
from webapp.game.board import mapdata
from webapp.game.core.model import GM
from webapp.game.fight import aiming
from webapp.game.planning import suggestions

from tabledice import play, seated
from test_suggestions_approach import _melee
from test_suggestions_side import _two_foes
import test_suggestions_atomic as atomic

SWORD = _melee("gurps_lite")  # a cutting blow at the torso: no vitals roll, no knockdown for a 30 HP hero


def _request(game, plan):
    """The plan's attack as the rules are asked it once its steps before are played: (request, the rules' odds)."""
    g = copy.deepcopy(game)
    *before, last = plan["steps"]
    for step in before:
        play(g, step, dice=SeededDice(1))
    if last["type"] == "act":  # phase/TN: the declaration names the shot; its odds are read on the plan's books
        return None, None
    p = aiming.plan(g, aiming.AttackCommand(**{k: v for k, v in last.items() if k != "type"}), GM)
    return p["request"], p["system"].odds(p["request"])


def _whose_turn(game, ids, names) -> str:
    return next(n for n in names if ids[n] == game.combat["current"])


def _on_to(game, ids, name: str) -> None:
    """Turns passed (nothing done) until ``name``'s turn (phase/TN: its time to declare)."""
    for seed in range(40):
        if game.combat["current"] == ids[name]:
            return
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    raise AssertionError(f"{name}'s turn never came")


def _both_aim_at(game, ids, hurt: str, expected) -> None:
    """The foe whose turn it is aims first at ``hurt``, its ``down`` the test's own figure; then, ``hurt`` still
    standing, the other foe's turn comes and it does the same."""
    first = _whose_turn(game, ids, ("Orc", "Gob"))
    for foe in (first, "Gob" if first == "Orc" else "Orc"):
        _on_to(game, ids, foe)
        best = suggestions.reckon(game, ids[foe])["plans"][0]
        assert best["kind"] == "attack" and best["target"] == ids[hurt], (foe, str(best["summary"]))
        assert best["down"] == pytest.approx(expected(game, best), abs=1e-4), (foe, str(best["summary"]))
        assert best["down"] > 0.01 and f"finishes {hurt}" in str(best["why"])


def _success(level: int) -> float:
    """A 3d6 roll at ``level`` succeeds (3d6 core facts: 17 and 18 never do, 3 and 4 always), worked out here."""
    return sum(p for r, p in dice_odds.distribution("3d6").items() if r <= 4 or (r <= level and r <= 16))


@pytest.mark.parametrize("hurt", ("Ann", "Bob"))
def test_3d6_both_foes_aim_at_the_hero_about_to_go_down_and_down_is_the_rules_chance(hurt):
    """Two sword foes, two 30 HP heroes, one at 1 HP: the injury that takes it below 0 is the odds' own
    distribution of total injury; below 0 it falls at its next turn when its HT roll against collapse fails. No
    death check (none before -30 HP) and no knockdown (no major wound under 16 HP, a cut at the torso)."""
    big = {"HP": 30, "hp_current": 30}
    game, ids = _two_foes("gurps_lite", Board(20, 12), {"Orc": (6, 5), "Gob": (6, 7)}, {"Ann": (9, 4), "Bob": (9, 7)},
                          hero_sheets={"Ann": big, "Bob": big, hurt: {**big, "hp_current": 1}},
                          foe_sheets={"Orc": SWORD, "Gob": SWORD})

    def expected(g, plan):
        request, odds = _request(g, plan)
        collapse = 1 - _success(int(request.target.sheet["HT"]))
        assert max(odds["injury"]) < 16  # no major wound: no knockdown roll
        return sum(p for injury, p in odds["injury"].items() if 1 - injury < 0) * collapse

    _both_aim_at(game, ids, hurt, expected)


def _phase_down(game, plan, need: int) -> float:
    """One shot of a 2d6 sidearm at a hero ``need`` flesh wounds from capacity, worked out from the game's settings:
    the plan's chance to hit, where the hit lands by the hit-location table, the damage, and the hero's trauma roll
    (d10 + Constitution 5 against the damage plus the area's modifier) where a trauma there takes it out."""
    s = resolve_settings({})
    table: dict = {}
    for roll, p in dice_odds.distribution(s["hit_location_dice"]).items():
        area = next(a for low, high, a in s["hit_location_table"] if low <= roll <= high)
        table[area] = table.get(area, 0.0) + p
    down = 0.0
    for area, pa in table.items():
        out = s["trauma_effects"][area] in ("unconscious", "dying", "dead")
        for d, pd in dice_odds.distribution("2d6").items():
            fails = sum(pr for r, pr in dice_odds.distribution(s["roll_dice"]).items()
                        if r + 5 < d + s["trauma_location_modifier"][area])
            down += pa * pd * (1.0 if d >= need else fails if out else 0.0)
    return plan["hit"] * down


@pytest.mark.parametrize("hurt", ("Ann", "Bob"))
def test_phase_tn_both_foes_aim_at_the_hero_about_to_go_down_and_down_is_the_rules_chance(hurt):
    """A hero 2 flesh wounds from capacity (15: Constitution 5 x 3) beside a fresh one: each foe's first declaration
    is a shot at it, and its ``down`` is the chance worked out here for that shot."""
    game, ids = _two_foes("phase_tn", Board(20, 12), {"Orc": (6, 5), "Gob": (6, 7)}, {"Ann": (12, 4), "Bob": (12, 7)},
                          hero_sheets={hurt: {"flesh": 13}})

    def expected(g, plan):
        declared = plan["steps"][-1]
        assert declared["action"] in ("declare:fire", "declare:target_and_fire"), declared  # a shot a phase
        return _phase_down(g, plan, 2)

    _both_aim_at(game, ids, hurt, expected)


def _zone_fight(zones: list[dict], foes: dict, heroes: dict, hero_sheets: dict, foe_sheet: dict):
    """Two foes and two heroes on a zone map, each in its zone, played on until a foe's turn."""
    board, laid = mapdata.zone_map({"zones": zones})
    names = [(n, z, None) for n, z in foes.items()] + [(n, z, "p-mira") for n, z in heroes.items()]
    game, ids = seated("g-z", "Rocket-port", "atomic_tomorrow", board, names, laid)
    for name, _zone, owner in names:
        sheet = {**atomic._sheet(name), **(foe_sheet if owner is None else hero_sheets.get(name) or {})}
        play(game, {"type": "add_character", "name": name, "token_id": ids[name], "sheet": sheet,
                    **({"owner": owner} if owner else {})})
    play(game, {"type": "start_combat", "token_ids": list(ids.values())}, dice=SeededDice(3))
    for seed in range(40):
        if game.combat["current"] in {ids[n] for n in foes}:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    return game, ids


@pytest.mark.parametrize("hurt", ("Ann", "Bob"))
def test_atomic_tomorrow_both_foes_aim_at_the_hero_about_to_go_down_and_down_is_the_rules_chance(hurt):
    """A hero at 3 wounds (the next incapacitates it: "WOUND EFFECTS") beside a fresh one in the Cargo Bay: each
    pistol foe's first plan shoots it, and its ``down`` is the rules' chance of a wound or more, the hero dodging."""
    zones = [{"id": "pad", "name": "Landing Pad", "adjacent": ["bay"]}, {"id": "bay", "name": "Cargo Bay"}]
    game, ids = _zone_fight(zones, {"Orc": "pad", "Gob": "pad"}, {"Ann": "bay", "Bob": "bay"},
                            {hurt: {"wounds": 3}}, {"weapons": [atomic.PISTOL]})

    def expected(g, plan):
        assert "Dodge" in str(plan["why"])
        request, _odds = _request(g, plan)
        dodged = request_odds(dataclasses.replace(request, options={**(request.options or {}), "defense": "dodge"}))
        return sum(p for w, p in dodged["wounds"].items() if w >= 1)

    _both_aim_at(game, ids, hurt, expected)


def test_the_second_foe_goes_for_the_other_hero_when_the_first_will_likely_finish_the_hurt_one():
    """Phase/TN: Ann 2 flesh wounds from capacity, Bob fresh. The foe declaring first shoots Ann (a good chance to put
    her down); the other, asked before its time, counts that chance against her (a hero down is worth nothing to its
    shot) and goes for Bob, and says why of its plan at Ann. With the first foe's chance small it would not."""
    game, ids = _two_foes("phase_tn", Board(20, 12), {"Orc": (6, 5), "Gob": (6, 7)}, {"Ann": (12, 4), "Bob": (12, 7)},
                          hero_sheets={"Ann": {"flesh": 13}})
    first = _whose_turn(game, ids, ("Orc", "Gob"))
    second = "Gob" if first == "Orc" else "Orc"
    lead = suggestions.reckon(game, ids[first])["plans"][0]
    assert lead["target"] == ids["Ann"] and lead["down"] > 0.5
    plans = suggestions.reckon(game, ids[second])["plans"]
    assert plans[0]["kind"] == "attack" and plans[0]["target"] == ids["Bob"], str(plans[0]["summary"])
    at_ann = [p for p in plans if p["target"] == ids["Ann"]]
    assert at_ann and all(f"{first} may put Ann down first: {lead['down']:.0%}" in str(p["why"]) for p in at_ann)
    # its own figures stay the attack's: on its own turn (the first foe passing) it goes for Ann again
    assert at_ann[0]["down"] == pytest.approx(_phase_down(game, at_ann[0], 2), abs=1e-4)
    alone = suggestions.reckon(game, ids[second], side=False)["plans"][0]
    assert alone["target"] == ids["Ann"], str(alone["summary"])


def test_3d6_a_small_chance_the_first_foe_finishes_her_does_not_send_the_second_elsewhere():
    """The 3d6 system: Ann at 1 HP, the first foe's chance to put her down small; the second foe, asked before its
    turn, still goes for her and says the first may put her down first."""
    big = {"HP": 30, "hp_current": 30}
    game, ids = _two_foes("gurps_lite", Board(20, 12), {"Orc": (6, 5), "Gob": (6, 7)}, {"Ann": (9, 4), "Bob": (9, 7)},
                          hero_sheets={"Ann": {**big, "hp_current": 1}, "Bob": big},
                          foe_sheets={"Orc": SWORD, "Gob": SWORD})
    first = _whose_turn(game, ids, ("Orc", "Gob"))
    second = "Gob" if first == "Orc" else "Orc"
    lead = suggestions.reckon(game, ids[first])["plans"][0]
    assert lead["target"] == ids["Ann"] and 0.01 < lead["down"] < 0.5
    best = suggestions.reckon(game, ids[second])["plans"][0]
    assert best["target"] == ids["Ann"] and f"{first} may put Ann down first" in str(best["why"])
