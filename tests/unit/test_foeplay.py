"""Play the foes' table side (#67): what the runner does next in a phase/TN round (``foeplay.next_step``: play a
foe's declaration, wait for a player's, roll a foe's shot that came due, wait for a player's shot before the phase
resolves, Next turn where the round waits for the GM), a plan's step refused once the game changed since it was
reckoned (``fresh``, ``reckoned_at``), and why a game's foes have no plans (``missing``)."""

from __future__ import annotations

import pytest

from rules.board import Board
from rules.dice import SeededDice
from rules.grid import HEX_POINTY
from webapp.game.bridge import fighting
from webapp.game.planning import foeplay
from webapp.game.core.model import Rejected

from tabledice import MIRA, play
from test_suggestions import fight


def _phase_tn():
    return fight("phase_tn", Board(16, 10), (9, 4), [("Ann", 3, 4)])


def test_in_phase_tn_the_runner_declares_waits_for_the_player_resolves_and_rolls_the_foes_shots():
    game, ids = _phase_tn()
    assert foeplay.next_step(game) == ("turn", ids["Orc"])  # the Orc's time to declare
    play(game, {"type": "act", "token_id": ids["Orc"], "action": "declare:fire", "options": {"target": ids["Ann"]}})
    seen = []
    for seed in range(12):  # on through the phase: Ann's declaration is Mira's; then the round waits for the GM
        kind, what = foeplay.next_step(game)
        seen.append(kind)
        if kind == "player":
            assert foeplay.waits_for(game) == "player"
            play(game, {"type": "next_turn"}, actor=MIRA, dice=SeededDice(seed))  # Ann declares no new action
        elif kind == "resolve":
            assert game.combat["current"] is None and foeplay.waits_for(game) is None
            play(game, {"type": "next_turn"}, dice=SeededDice(seed))  # the phase resolves: the Orc's shot comes due
        elif kind == "shot":
            assert what["attacker"] == ids["Orc"] and what["target"] == ids["Ann"]
            break
        else:
            play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    assert "resolve" in seen and seen[-1:] == ["shot"], seen


def test_a_players_shot_due_is_waited_for_before_the_phase_resolves():
    game, ids = _phase_tn()
    play(game, {"type": "next_turn"}, dice=SeededDice(1))  # the Orc declares nothing
    for seed in range(8):
        if game.combat["current"] == ids["Ann"]:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    play(game, {"type": "act", "token_id": ids["Ann"], "action": "declare:fire", "options": {"target": ids["Orc"]}},
         actor=MIRA)
    for seed in range(8):  # to the phase's end: Ann's shot comes due
        if any(d["attacker"] == ids["Ann"] for d in game.combat.get("due") or []):
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    owed = [d for d in game.combat["due"] if d["attacker"] == ids["Ann"]]
    assert owed
    for seed in range(8):  # every declaration of the new phase made: the round would wait for the GM, but Ann's shot
        if game.combat["current"] is None:
            break
        play(game, {"type": "next_turn"}, dice=SeededDice(seed))
    assert foeplay.next_step(game) == ("player", None)


def _shot(game, due: dict, actor=None, seed: int = 0):
    play(game, {"type": "attack", "attacker": due["attacker"], "target": due["target"], "weapon": due.get("weapon"),
                "options": due["options"]}, **({"actor": actor} if actor else {}), dice=SeededDice(seed))


def test_a_foe_declares_only_once_the_players_shots_due_this_phase_are_fired():
    # "Initiative and Actions": what ends a phase resolves (its shots rolled) before the next phase's declarations
    game, ids = _phase_tn()
    play(game, {"type": "next_turn"}, dice=SeededDice(1))  # the Orc declares nothing
    play(game, {"type": "act", "token_id": ids["Ann"], "action": "declare:fire", "options": {"target": ids["Orc"]}},
         actor=MIRA)
    play(game, {"type": "next_turn"}, dice=SeededDice(3))  # the phase resolves: Ann's shot is due, the Orc declares
    assert game.combat["current"] == ids["Orc"]
    owed = [d for d in game.combat["due"] if d["attacker"] == ids["Ann"]]
    assert owed
    assert foeplay.next_step(game) == ("player", None)  # her shot first: the Orc's declaration waits for it
    assert foeplay.waits_for(game) == "player"
    for d in owed:
        _shot(game, d, MIRA, seed=4)
        while game.pending_defense:
            p = game.pending_defense
            play(game, {"type": "choose_defense", "defense": p["choices"][0]["key"], "attack": p["id"]})
    assert foeplay.stands(game, ids["Orc"]) and game.combat["current"] == ids["Orc"], "(seeds: the Orc still stands)"
    assert not game.combat.get("due") and foeplay.next_step(game) == ("turn", ids["Orc"])  # fired: now it declares


def test_the_fight_is_not_over_while_the_shots_of_its_last_volley_are_owed():
    # shots of one length are simultaneous: the Orc, down to Ann's shot, still fires its own at her
    game, ids = fight("phase_tn", Board(16, 10), (9, 4), [("Ann", 3, 4)], foe_sheet={"flesh": 14})
    play(game, {"type": "act", "token_id": ids["Orc"], "action": "declare:fire", "options": {"target": ids["Ann"]}})
    play(game, {"type": "act", "token_id": ids["Ann"], "action": "declare:fire", "options": {"target": ids["Orc"]}},
         actor=MIRA)
    play(game, {"type": "next_turn"}, dice=SeededDice(1))  # the phase resolves: both shots are due
    _shot(game, next(d for d in game.combat["due"] if d["attacker"] == ids["Ann"]), MIRA, seed=0)
    assert not foeplay.stands(game, ids["Orc"])  # her shot put the Orc down: she alone stands
    kind, due = foeplay.next_step(game)
    assert (kind, due["attacker"], due["target"]) == ("shot", ids["Orc"], ids["Ann"])
    assert not foeplay.over(game)  # the runner rolls the Orc's shot before it stops
    _shot(game, due, seed=2)
    while game.pending_defense:
        p = game.pending_defense
        play(game, {"type": "choose_defense", "defense": p["choices"][0]["key"], "attack": p["id"]}, actor=MIRA)
    assert not game.combat.get("due") and foeplay.over(game)


def test_a_volley_that_put_both_sides_down_ends_the_fight_for_the_runner():
    game, ids = _phase_tn()
    assert not foeplay.over(game)
    for token_id in ids.values():  # both down from flesh wounds at capacity, as one simultaneous volley leaves them
        fighting.sheet_of(game, game.tokens[token_id])["flesh"] = 15
    assert not game.combat.get("due") and foeplay.over(game)


def test_a_step_is_refused_once_the_game_changed_since_its_plan_was_reckoned():
    game, ids = _phase_tn()
    foeplay.fresh(game, None)  # no seq: judged as ever
    foeplay.fresh(game, game.seq)
    with pytest.raises(Rejected, match="out of date") as refused:
        foeplay.fresh(game, game.seq - 1)
    assert refused.value.code == "stale"
    assert foeplay.reckoned_at({"type": "next_turn", "reckoned_at": 4}) == ({"type": "next_turn"}, 4)
    assert foeplay.reckoned_at({"type": "next_turn"}) == ({"type": "next_turn"}, None)
    for bad in (-1, "4", True, 1.5, None):
        with pytest.raises(Rejected, match="reckoned_at"):
            foeplay.reckoned_at({"type": "next_turn", "reckoned_at": bad})


def test_why_a_games_foes_have_no_plans(monkeypatch):
    import rules
    from tabledice import seated
    game, _ = _phase_tn()
    assert foeplay.missing(game) is None
    hexes, _ = seated("g-h", "Hex", "gurps_lite", Board(8, 6, grid=HEX_POINTY), [("Orc", 1, None)])
    assert foeplay.missing(hexes) is None  # the foes are planned on hexes too
    monkeypatch.setattr(type(rules.get("phase_tn")), "planner", None)
    assert foeplay.missing(game) == "system"
