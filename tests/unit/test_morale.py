"""A side that has lost most of its number falls back or surrenders (#67, webapp/game/planning/morale.py): the GM's
setting, off by default. Off, nothing changes; on, once more than half the foes the fight began with are down, each
standing foe's plans are withdrawals (fall back) or one surrender, whose step marks it as having yielded: out of the
fight, shown so, undone like any step."""

from __future__ import annotations

import pytest

import rules
from rules import movement
from rules.board import Board
from webapp.game.bridge import fighting
from webapp.game.core.model import Actor, Rejected
from webapp.game.planning import foeplay, morale, suggestions

from tabledice import MIRA, play
from test_suggestions_approach import _melee
from test_suggestions_side import _two_foes
import test_suggestions_atomic as atomic

ANN = (10, 5)


def _game(down: int = 2, system: str = "gurps_lite"):
    """Three foes with swords against Ann; the Orc two squares west of her, the room behind it open; ``down`` of the
    Gob and the Imp put out of the fight (unconscious) once it began."""
    sword = _melee(system)
    game, ids = _two_foes(system, Board(20, 12), {"Orc": (8, 5), "Gob": (3, 1), "Imp": (3, 9)}, {"Ann": ANN},
                          foe_sheets={"Orc": sword, "Gob": sword, "Imp": sword})
    for name in ("Gob", "Imp")[:down]:
        character = next(c for c in game.characters.values() if c.token_id == ids[name])
        play(game, {"type": "update_sheet", "character_id": character.id, "changes": {"conditions": ["unconscious"]}})
        assert not fighting.stands(game, game.tokens[ids[name]])
    return game, ids


def _plain(found: dict) -> list:
    return [(str(p["summary"]), p["kind"], str(p["why"]), p["steps"]) for p in found["plans"]]


def test_the_setting_is_off_by_default_and_off_changes_nothing():
    game, ids = _game()
    assert morale.setting(game) == "off"
    before = suggestions.reckon(game, ids["Orc"])
    assert any(p["kind"] in ("attack", "approach") for p in before["plans"])
    play(game, {"type": "set_morale", "morale": "surrender"})
    play(game, {"type": "set_morale", "morale": "off"})
    assert _plain(suggestions.reckon(game, ids["Orc"])) == _plain(before)


def test_on_with_half_or_fewer_down_the_foes_fight_on():
    game, ids = _game(down=1)  # 1 of 3: not most of them
    before = _plain(suggestions.reckon(game, ids["Orc"]))
    for setting in ("fall_back", "surrender"):
        play(game, {"type": "set_morale", "morale": setting})
        assert _plain(suggestions.reckon(game, ids["Orc"])) == before


def test_falling_back_the_plans_are_withdrawals_away_from_every_enemy():
    game, ids = _game()
    play(game, {"type": "set_morale", "morale": "fall_back"})
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"]
    start, diagonal = (8, 5), rules.get(game.system).diagonal
    for p in found["plans"]:
        assert p["kind"] == "withdraw" and p["target"] is None and p["hit"] is None
        assert movement.distance(tuple(p["to"]), ANN, diagonal) > movement.distance(start, ANN, diagonal), p["to"]
        assert str(p["why"]).startswith("the foes have lost 2 of 3: it falls back"), str(p["why"])


def test_falling_back_with_nowhere_to_go_says_so():
    game, ids = _game()
    play(game, {"type": "set_morale", "morale": "fall_back"})
    for x, y in [(7, 4), (7, 5), (7, 6), (8, 4), (8, 6), (9, 4), (9, 5), (9, 6)]:  # walled in where it stands
        play(game, {"type": "block_cell", "x": x, "y": y})
    found = suggestions.reckon(game, ids["Orc"])
    assert found["plans"] == [] and "nowhere to fall back to" in str(found["none"])


def test_surrendering_the_plan_is_one_surrender_and_its_step_yields_the_foe():
    game, ids = _game()
    play(game, {"type": "set_morale", "morale": "surrender"})
    found = suggestions.reckon(game, ids["Orc"])
    assert [p["kind"] for p in found["plans"]] == ["surrender"]
    plan = found["plans"][0]
    assert plan["steps"] == [{"type": "surrender", "token_id": ids["Orc"]}]
    assert str(plan["why"]) == "the foes have lost 2 of 3: it surrenders"
    seq = game.seq
    for step in plan["steps"]:
        play(game, step)
    orc = game.tokens[ids["Orc"]]
    assert orc.yielded and not fighting.stands(game, orc)
    assert [str(b["label"]) for b in fighting.badges(game, orc)][:1] == ["yielded"]
    assert any(str(e.text) == "Orc yields" and e.audience == "all" for e in game.log)
    assert fighting.no_foe_standing(game) and foeplay.over(game)  # the fight can end: no foe stands
    # a yielded foe has no plan, and says why; nor does it yield twice
    again = suggestions.reckon(game, ids["Orc"])
    assert again["plans"] == [] and str(again["none"]) == "Orc has yielded"
    with pytest.raises(Rejected):
        play(game, {"type": "surrender", "token_id": ids["Orc"]})
    assert game.seq > seq


def test_a_yield_is_an_event_and_the_fight_s_end_or_a_new_fight_clears_it():
    game, ids = _game()
    events = []
    for payload in ({"type": "set_morale", "morale": "surrender"}, {"type": "surrender", "token_id": ids["Orc"]}):
        events += play(game, payload)
    assert [(e.type, e.data) for e in events] == [("morale_set", {"morale": "surrender"}),
                                                  ("surrendered", {"token_id": ids["Orc"]})]
    assert game.morale["started"] == [ids["Orc"], ids["Gob"], ids["Imp"]]
    play(game, {"type": "end_combat"})
    assert not game.tokens[ids["Orc"]].yielded and morale.setting(game) == "surrender"  # the setting stays


def test_only_the_gms_foes_surrender_and_only_the_gm_sets_it():
    game, ids = _game()
    with pytest.raises(Rejected):
        play(game, {"type": "surrender", "token_id": ids["Ann"]})
    with pytest.raises(Rejected):
        play(game, {"type": "set_morale", "morale": "fall_back"}, actor=MIRA)
    with pytest.raises(Rejected):
        play(game, {"type": "surrender", "token_id": ids["Orc"]}, actor=MIRA)


def test_the_runners_step_of_the_surrender_is_played_as_the_gms():
    """Play the foes plays a plan's steps as the GM's commands with the runner's id (webapp/live/foes/foeplay.py):
    the surrender's step is judged so, and the runner sees the fight over."""
    game, ids = _game()
    play(game, {"type": "set_morale", "morale": "surrender"})
    play(game, {"type": "play_foes", "on": True})
    runner = foeplay.playing(game)
    step = suggestions.reckon(game, ids["Orc"])["plans"][0]["steps"][0]
    play(game, step, actor=Actor("gm", by=runner))
    assert game.tokens[ids["Orc"]].yielded and foeplay.playing(game) == runner  # not the GM's hand: still on
    assert foeplay.over(game)


def test_on_zones_falling_back_is_to_a_zone_farther_from_every_enemy_or_none():
    """The zones of the cowardly test (test_suggestions_side): from the Hall, only the Depot is farther from both Ann
    and Bob; the Crossing, beside them both, never. Without the Depot, nowhere."""
    zones = [{"id": "hall", "name": "Hall", "adjacent": ["armoury", "barracks", "crossing", "depot"]},
             {"id": "armoury", "name": "Armoury", "adjacent": ["crossing"]},
             {"id": "barracks", "name": "Barracks", "adjacent": ["crossing"]},
             {"id": "crossing", "name": "Crossing"},
             {"id": "depot", "name": "Depot"}]
    for with_depot in (True, False):
        if not with_depot:
            del zones[-1]
            zones[0]["adjacent"].remove("depot")
        game, ids = atomic.fight(zones, "hall", [("Ann", "armoury"), ("Bob", "barracks")],
                                 foe_sheet={"weapons": [atomic.KNIFE]})
        assert any(p["kind"] == "attack" for p in suggestions.reckon(game, ids["Orc"])["plans"])  # it fights on
        # the side began with the Orc and two foes taken off the map since (a foe gone counts as lost)
        game.morale = {**game.morale, "started": [ids["Orc"], "t-gone-1", "t-gone-2"]}
        play(game, {"type": "set_morale", "morale": "fall_back"})
        found = suggestions.reckon(game, ids["Orc"])
        if with_depot:
            assert [(p["kind"], p["to"]) for p in found["plans"]] == [("withdraw", "depot")]
            assert str(found["plans"][0]["why"]).startswith("the foes have lost 2 of 3: it falls back")
        else:
            assert found["plans"] == [] and "nowhere to fall back to" in str(found["none"])
