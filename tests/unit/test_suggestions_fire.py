"""The foes as a side (#67): a move that puts a foe in melee with the hero an ally shoots at is worth less, by what
the ally loses there: Tesseris' "Firing into Melee" (the -2 and the stray miss) and Savage Worlds' "Random Targets"
(a missed shot's 1s hit a token beside the target). Scripted boards: a melee Orc with two equally good heroes to
strike, the archer Gob able to shoot only one of them (blocking squares hide the other); the loss is worked out here
from the rules' own odds and dice."""

from __future__ import annotations

import copy
import dataclasses

import pytest

import rules
from rules import odds as dice_odds
from rules.board import Board
from rules.dice import SeededDice
from rules.savage_worlds.sheet import derived_values
from rules.savage_worlds.suggest import random_target_chance
from rules.system import Modifier
from rules.tesseris_ads.data import STAMINA_PER_WOUND
from rules.tesseris_ads.odds import attack_odds as tesseris_odds
from webapp.game.core.model import GM
from webapp.game.fight import aiming
from webapp.game.planning import suggestions, suggestions_side

from tabledice import play
from test_suggestions_approach import _melee
from test_suggestions_finish import _on_to
from test_suggestions_side import _two_foes

BOW = {"tesseris_ads": "rifle", "savage_worlds": "Colt Peacemaker"}


def _board_and_squares(shot: str):
    """Gob at (16, 4) sees Ann at (9, 4) and not Bob at (9, 8) (blocking squares between); mirrored when Gob is to
    shoot Bob. The Orc at (6, 6), as near the one as the other."""
    flip = (lambda y: y) if shot == "Ann" else (lambda y: 12 - y)
    board = Board(20, 13)
    for x, y in ((14, 5), (14, 6), (14, 7), (15, 5), (15, 6)):
        board.block((x, flip(y)))
    return board, {"Orc": (6, 6), "Gob": (16, flip(4))}


def _fight(system: str, shot: str, turn: str = "Orc"):
    """The fight on to ``turn``'s turn (the Orc's own: the Gob shoots after it, from where it stands)."""
    board, foes = _board_and_squares(shot)
    archer = {"weapons": {BOW[system]: rules.get(system).default_sheet()["weapons"][BOW[system]]}}
    game, ids = _two_foes(system, board, foes, {"Ann": (9, 4), "Bob": (9, 8)},
                          foe_sheets={"Orc": _melee(system), "Gob": archer})
    _on_to(game, ids, turn)
    return game, ids


def _moved(game, ids, cell):
    g = copy.deepcopy(game)
    play(g, {"type": "move_token", "token_id": ids["Orc"], "x": cell[0], "y": cell[1], "force": True},
         dice=SeededDice(1))
    return g


def _request(g, ids, attacker: str, target: str, weapon: str):
    return aiming.plan(g, aiming.AttackCommand(attacker=ids[attacker], target=ids[target], weapon=weapon),
                       GM)["request"]


def _tesseris_loss(game, ids, cell, shot: str) -> float:
    """Firing into Melee, worked out from the rules' odds: the Gob's expected Wounds (a Stamina point a fifth of one)
    at ``shot`` with and without the -2, plus the chance the -2 turns a hit into a miss (the Orc the only other in
    the melee) times what a hit of the Gob's rifle does to the Orc on average."""
    g = _moved(game, ids, cell)
    req = _request(g, ids, "Gob", shot, "rifle")

    def effect(o):
        return float(o["mean_wounds"]) + float(o["mean_stamina"]) / STAMINA_PER_WOUND
    clear = tesseris_odds(dataclasses.replace(req, options={**req.options, "into_melee": False}))
    close = tesseris_odds(dataclasses.replace(req, options={**req.options, "into_melee": True}))
    at_orc = tesseris_odds(_request(g, ids, "Gob", "Orc", "rifle"))
    drop, stray = effect(clear) - effect(close), clear["hit"] - close["hit"]
    assert drop > 0 and stray > 0
    return drop + stray * effect(at_orc) / at_orc["hit"]


def _savage_loss() -> float:
    """Random Targets, worked out from the dice: the Gob, a Wild Card shooting d6 with RoF 1, hits a random target
    only on a critical failure (both dice 1: 1/6 x 1/6); the Orc is the only token beside the hero; the Colt's
    2d6+1 (the dice acing, AP 1) against the Orc's Toughness 7 (armour 1): Shaken (half a wound) from 6, a wound from
    10 and one more each 4, past its 3 wounds Incapacitated (worth 4)."""
    toughness = derived_values(rules.get("savage_worlds").default_sheet())["toughness"] - 1
    assert toughness == 6

    def worth(total: int) -> float:
        if total < toughness:
            return 0.0
        wounds = (total - toughness) // 4
        return 0.5 if wounds == 0 else float(wounds) if wounds <= 3 else 4.0
    harm = sum(p * worth(v + 1) for v, p in dice_odds.distribution("2d6!").items())
    return (1 / 6) * (1 / 6) * harm


@pytest.mark.parametrize("system", ("tesseris_ads", "savage_worlds"))
@pytest.mark.parametrize("shot", ("Ann", "Bob"))
def test_a_melee_foe_strikes_the_hero_its_ally_does_not_shoot_at(system, shot):
    game, ids = _fight(system, shot)
    other = "Bob" if shot == "Ann" else "Ann"
    orc = game.tokens[ids["Orc"]]
    heroes = [game.tokens[ids["Ann"]], game.tokens[ids["Bob"]]]
    fire = suggestions_side.shooters(game, orc, heroes, rules.get(system))
    assert [(a.name, h.name) for a, h, _w, _at in fire] == [("Gob", shot)]
    # alone, the two heroes are as good as each other to the Orc
    alone = suggestions.reckon(game, ids["Orc"], side=False)["plans"]
    best = {n: max((p for p in alone if p["target"] == ids[n]), key=lambda p: p["effect"]) for n in ("Ann", "Bob")}
    assert best["Ann"]["effect"] == pytest.approx(best["Bob"]["effect"])
    # as a side, it takes the other
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    assert plans[0]["kind"] == "attack" and plans[0]["target"] == ids[other], str(plans[0]["summary"])
    assert "Gob" not in str(plans[0]["why"])
    said = [p for p in plans if p["target"] == ids[shot]]
    assert said and "Gob's miss may hit it" in str(said[0]["why"])
    if system == "tesseris_ads":
        assert "in Gob's line of fire: -2 to its shot" in str(said[0]["why"])
    # the plan's score falls by the loss worked out here
    cell = tuple(best[shot]["to"])
    plan = {"to": list(cell), "effect": 0.0, "_score": 0.0, "why": []}
    suggestions_side.in_the_way(game, orc, [plan], heroes, rules.get(system))
    loss = _tesseris_loss(game, ids, cell, shot) if system == "tesseris_ads" else _savage_loss()
    assert loss > 0 and -plan["_score"] == pytest.approx(loss, rel=1e-9)


@pytest.mark.parametrize("system", ("tesseris_ads", "savage_worlds"))
def test_asked_before_its_turn_the_foe_weighs_the_melee_its_ally_plans_to_shoot_into(system):
    """The Gob acts first: the hero its best plan shoots at (from the square it moves to) is the one whose melee costs
    it, whichever hero the Gob could shoot from where it stands now."""
    game, ids = _fight(system, "Ann", turn="Gob")
    lead = suggestions.reckon(game, ids["Gob"])["plans"][0]
    assert lead["kind"] == "attack" and lead["weapon"] == BOW[system]
    shot = next(n for n in ("Ann", "Bob") if ids[n] == lead["target"])
    other = "Bob" if shot == "Ann" else "Ann"
    plans = suggestions.reckon(game, ids["Orc"])["plans"]
    assert plans[0]["target"] == ids[other], str(plans[0]["summary"])
    at_shot = [p for p in plans if p["target"] == ids[shot]]
    assert at_shot and "Gob's miss may hit it" in str(at_shot[0]["why"])
    assert all("Gob's miss" not in str(p["why"]) for p in plans if p["target"] == ids[other])


def _shot(wild: bool, shotgun: bool, modifier: int) -> dict:
    return {"die": "d6", "wild": wild, "weapon": {"shotgun": shotgun}, "tn": 4,
            "modifiers": [Modifier("GM", modifier, "test")] if modifier else [],
            "random_target_faces": (1, 2) if shotgun else (1,)}


@pytest.mark.parametrize(("wild", "shotgun", "modifier", "chance"), [
    (True, False, 0, 1 / 36),  # a Wild Card: only both dice 1 (a critical failure)
    (False, False, 0, 1 / 6),  # an Extra: its die's 1 always misses at TN 4
    (False, False, 3, 0.0),  # ... but 1 + 3 hits TN 4: no miss, no random target
    (True, True, 0, 1 / 6 * 3 / 6 + 1 / 6 * 3 / 6),  # a shotgun: a 1 or a 2 missing (the Wild Die 1 to 3 kept)
])
def test_savage_worlds_random_target_chance_is_the_dice(wild, shotgun, modifier, chance):
    assert random_target_chance(_shot(wild, shotgun, modifier)) == pytest.approx(chance)
