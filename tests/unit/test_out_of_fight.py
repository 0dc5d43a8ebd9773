"""Who is out of the fight, by each system's rules (``out_of_fight``, read by ``webapp.game.fight.combat.is_down``: the
attack card's first foe, "no foe is left standing", the recap): what each rule document's chapter takes out of the
fight, and what it does not. Issue #70: a 3d6 token dead (a "wound" badge) stood, the fight's is_down reading
condition badges alone."""

from __future__ import annotations

import pytest

import rules
from rules.board import Board
from webapp.game.bridge import fighting

from tabledice import seated

#: per system: sheet changes that take a character out of the fight by its rules, and ones that leave it in
OUT = {
    "gurps_lite": [{"conditions": ["dead"]}, {"conditions": ["destroyed"]}, {"conditions": ["mortally wounded"]},
                   {"conditions": ["unconscious"]}, {"hp_current": -60, "conditions": ["dead"]}],
    "savage_worlds": [{"incapacitated": True}],
    "tesseris_ads": [{"dying": True}, {"wounds": 10}, {"statuses": [{"name": "Unconscious", "rounds": 0}]}],
    "phase_tn": [{"flesh": 999}, {"trauma": {"head": 1}}],
    "atomic_tomorrow": [{"wounds": 4}, {"wounds": 5}],
}
IN = {
    "gurps_lite": [{}, {"conditions": ["knocked down"]}, {"conditions": ["stunned", "prone"]}, {"hp_current": -3},
                   {"conditions": ["major wound"]}],
    "savage_worlds": [{}, {"shaken": True, "wounds": 3}, {"stunned": True, "prone": True}],
    "tesseris_ads": [{}, {"wounds": 2}, {"statuses": [{"name": "Stunned", "rounds": 1}]}],
    "phase_tn": [{}, {"flesh": 1}, {"trauma": {"left leg": 1}}],
    "atomic_tomorrow": [{}, {"wounds": 3}],
}


def sheet_with(system_id: str, changes: dict) -> dict:
    return {**rules.get(system_id).default_sheet(), **changes}


@pytest.mark.parametrize("system_id", list(OUT))
def test_each_system_says_who_its_rules_take_out_of_the_fight(system_id):
    system = rules.get(system_id)
    for changes in OUT[system_id]:
        assert system.out_of_fight(sheet_with(system_id, changes)), changes
    for changes in IN[system_id]:
        assert not system.out_of_fight(sheet_with(system_id, changes)), changes


def test_a_3d6_foe_in_a_fight_is_collapsed_by_the_fights_books_too():
    assert rules.get("gurps_lite").out_of_fight(rules.get("gurps_lite").default_sheet(), {"unconscious": True})
    assert rules.get("atomic_tomorrow").out_of_fight(rules.get("atomic_tomorrow").default_sheet(), {"status": "collapsed"})


@pytest.mark.parametrize("condition", ["dead", "destroyed", "mortally wounded"])
def test_a_dead_3d6_token_is_down_in_the_fight_and_a_knocked_down_one_is_not(condition):
    game, ids = seated("g-down", "Down", "gurps_lite", Board(12, 8), [("Aria", 2, "p-mira"), ("Ghoul", 4, None)])
    ghoul = game.tokens[ids["Ghoul"]]
    ghoul.sheet = sheet_with("gurps_lite", {"hp_current": -20, "conditions": [condition]})
    badge = next(b for b in fighting.badges(game, ghoul) if b["label"] == condition)
    assert badge["kind"] == "wound"  # what the fight's check did not read
    assert fighting.is_down(game, ghoul) and not fighting.stands(game, ghoul)
    assert fighting.first_foe(game, game.tokens[ids["Aria"]], list(game.tokens.values())) is None
    ghoul.sheet = sheet_with("gurps_lite", {"conditions": ["knocked down"]})
    assert not fighting.is_down(game, ghoul)


def test_a_system_without_its_own_say_is_read_by_its_badges_words_wounds_too(monkeypatch):
    game, ids = seated("g-words", "Words", "plain_grid", Board(12, 8), [("Ghoul", 4, None)])
    ghoul = game.tokens[ids["Ghoul"]]
    assert not fighting.is_down(game, ghoul)
    monkeypatch.setattr(fighting, "badges", lambda game, token: [{"label": "Dead", "kind": "wound"}])
    assert fighting.is_down(game, ghoul)
