"""The X-card's commands in the command table (webapp/game/tableside/safety.py): a pause with no one's name, kept in
the state through a snapshot and a replay, only the GM resumes, a second tap records nothing."""

from __future__ import annotations

import pytest

from webapp.game.core.model import Actor, Game, Rejected
from webapp.game.table import decide, evolve, new_game_events, parse_command, replay
from rules.board import Board


def fresh() -> tuple[Game, list]:
    events = new_game_events("Mill", "plain_grid", Board(8, 8))
    return replay("g1", events), list(events)


def test_a_tap_pauses_with_no_name_and_only_the_gm_resumes():
    game, log = fresh()
    mira = Actor("player", "p1")
    events = decide(game, parse_command({"type": "x_card"}), mira)
    assert [(e.type, e.data) for e in events] == [("scene_paused", {})]
    lines = len(game.log)
    for e in events:
        evolve(game, e)
    log += events
    assert game.paused and len(game.log) == lines, "paused, and the game's log has no line of it"
    assert decide(game, parse_command({"type": "x_card"}), Actor("player", "p2")) == []  # paused already
    with pytest.raises(Rejected):
        decide(game, parse_command({"type": "resume_scene"}), mira)
    with pytest.raises(Rejected):
        decide(game, parse_command({"type": "x_card"}), Actor("screen"))
    # a restart: the snapshot and the replayed log agree that the scene is paused
    assert Game.from_dict(game.to_dict()).paused
    assert replay("g1", log).paused
    resumed = decide(game, parse_command({"type": "resume_scene"}), Actor("gm"))
    assert [(e.type, e.data) for e in resumed] == [("scene_resumed", {})]
    evolve(game, resumed[0])
    assert not game.paused
    with pytest.raises(Rejected, match="not paused"):
        decide(game, parse_command({"type": "resume_scene"}), Actor("gm"))


def test_the_x_card_takes_no_fields():
    with pytest.raises(Rejected):
        parse_command({"type": "x_card", "by": "p1"})
