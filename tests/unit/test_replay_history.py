"""The replay's folded log (webapp/game/views/replay_view.py), pure: the state at any event is the log folded up to
it (checkpoints change nothing), the timeline's moments, a player's timeline and banner tell nothing of a
token that player may not have seen, and the replay commands' bad input is refused with a reason."""

from __future__ import annotations

import pytest
from hypothesis import given, settings, strategies as st

from rules.board import Board
from rules.dice import SeededDice
from webapp.game.views import replay_view
from webapp.game.core.model import GM, SCREEN, Actor, Event, Rejected
from webapp.game.tableside.seats import player_joined
from webapp.game.table import decide, empty_game, evolve, new_game_events, parse_command, replay


def play_a_fight(rounds: int = 110) -> tuple[list[Event], dict]:
    """A fogged 20 x 12 game: Mira's Aria and an Ogre fight for ``rounds`` rounds behind a wall that
    comes down in round 3; a Spy stays hidden all along. The whole log and the tokens' ids."""
    events = list(new_game_events("Replay unit", "plain_grid", Board(20, 12)))
    game = replay("g1", events)

    def run(payload: dict, actor=GM) -> list[Event]:
        out = decide(game, parse_command(payload), actor, SeededDice(f"unit:{game.seq}"))
        for event in out:
            evolve(game, event)
        events.extend(out)
        return out

    joined = player_joined(game, "Mira", "mira-key")
    evolve(game, joined)
    events.append(joined)
    mira = next(iter(game.players))
    ids = {}
    for name, x, owner, hidden in (("Aria", 2, mira, False), ("Ogre", 15, None, False), ("Spy", 17, None, True)):
        added = run({"type": "add_token", "name": name, "x": x, "y": 3, "owner": owner, "hidden": hidden})
        ids[name] = added[0].data["token"]["id"]
    run({"type": "add_wall", "a": [10, 0], "b": [10, 12]})
    wall = next(iter(game.board.walls))
    run({"type": "set_fog", "enabled": True})
    run({"type": "start_combat", "token_ids": [ids["Aria"], ids["Ogre"]]})
    while game.combat["round"] <= rounds:
        current = game.tokens[game.combat["current"]]
        x = current.x + (1 if game.combat["round"] % 2 else -1)  # each to and fro, on its side of the wall
        run({"type": "move_token", "token_id": current.id, "x": x, "y": current.y, "force": True})
        run({"type": "next_turn"})
        if game.combat["round"] == 3 and any(w for w in game.board.walls):
            run({"type": "remove_wall", "wall_id": wall if isinstance(wall, str) else wall["id"]})
    run({"type": "end_combat"})
    return events, ids | {"mira": mira}


@pytest.fixture(scope="module")
def fight():
    events, ids = play_a_fight()
    history = replay_view.History("g1", evolve, empty_game)
    history.extend(events[:100])
    history.extend(events[100:])  # the log as it grows: the same as folded at once
    return events, ids, history


def test_the_log_is_long_enough_to_cross_checkpoints(fight):
    events, _, history = fight
    assert history.head == len(events) > 2 * replay_view.CHECKPOINT_EVERY + 10


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_the_state_at_any_event_is_the_log_folded_up_to_it(fight, data):
    events, _, history = fight
    seq = data.draw(st.integers(min_value=1, max_value=len(events)))
    assert history.state_at(seq).to_dict() == replay("g1", events[:seq]).to_dict()


def test_checkpoints_and_jumps_at_their_edges(fight):
    events, _, history = fight
    for seq in (replay_view.CHECKPOINT_EVERY - 1, replay_view.CHECKPOINT_EVERY, replay_view.CHECKPOINT_EVERY + 1,
                len(events)):
        assert history.state_at(seq).to_dict() == replay("g1", events[:seq]).to_dict(), seq
    a, b = history.state_at(len(events)), history.state_at(len(events))
    assert a is not b and a.tokens is not b.tokens  # each jump a fresh state: a render may keep it
    with pytest.raises(Rejected, match="the log goes from 0"):
        history.state_at(len(events) + 1)


def test_the_gms_timeline_has_the_fight_its_rounds_turns_and_moves(fight):
    _, ids, history = fight
    kinds = [m.kind for m in history.timeline(GM)]
    assert kinds.count("fight") == 1 and kinds.count("fight_end") == 1
    rounds = [m for m in history.timeline(GM) if m.kind == "round"]
    assert [m.round for m in rounds[:3]] == [1, 2, 3] and rounds[-1].round == 111  # the last "next turn" opened round 111
    turn2 = [m for m in history.timeline(GM) if m.kind == "turn" and m.round == 1][1]
    assert turn2.text == "Round 1: Ogre's turn"
    assert any(m.kind == "move" and m.text == "Ogre moves" for m in history.timeline(GM))
    assert history.moment_at(turn2.seq, GM) == turn2


def test_a_players_timeline_and_banner_name_no_token_they_may_not_have_seen(fight):
    events, ids, history = fight
    mira = Actor("player", ids["mira"])
    mine = history.timeline(mira)
    assert mine and {m.kind for m in mine} <= {"fight", "round", "turn", "move", "attack", "fight_end"}
    said = " ".join(m.to_dict(mira)["text"] for m in mine)
    assert "Aria" in said and "Ogre" not in said and "Spy" not in said
    ogre_turn = next(m for m in history.timeline(GM) if m.kind == "turn" and "Ogre" in m.text)
    assert "Ogre" not in replay_view.banner(history, ogre_turn.seq, mira)
    assert "Ogre" not in replay_view.banner(history, ogre_turn.seq, SCREEN)
    assert "Ogre" in replay_view.banner(history, ogre_turn.seq, GM)
    assert history.timeline(SCREEN) == []


def test_a_player_replays_the_fights_they_were_in_only(fight):
    events, ids, history = fight
    mira = Actor("player", ids["mira"])
    fight_start = next(m.seq for m in history.moments if m.kind == "fight")
    history.may_replay(mira, fight_start + 3)
    history.may_replay(GM, 1)
    with pytest.raises(Rejected, match="fights you were in"):
        history.may_replay(mira, fight_start - 1)
    with pytest.raises(Rejected, match="fights you were in"):
        history.may_replay(mira, len(events))  # the fight has ended
    with pytest.raises(Rejected):
        history.may_replay(SCREEN, fight_start + 3)


@pytest.mark.parametrize("payload, error", [
    ({"type": "replay"}, "at: Field required"),
    ({"type": "replay", "at": -1}, "at: Input should be greater than or equal to 0"),
    ({"type": "replay", "at": "12"}, "at: Input should be a valid integer"),
    ({"type": "replay", "at": True}, "at: Input should be a valid integer"),
    ({"type": "replay", "at": 3, "on": ["tv"]}, "on.0: Input should be 'gm' or 'screen'"),
    ({"type": "replay", "at": 3, "on": ["gm", "screen", "gm"]}, "on: List should have at most 2 items"),
    ({"type": "replay", "at": 3, "extra": 1}, "extra: Extra inputs are not permitted"),
    ({"type": "replay_end", "at": 3}, "at: Extra inputs are not permitted"),
])
def test_bad_replay_commands_are_refused_with_the_reason(payload, error):
    with pytest.raises(Rejected) as refused:
        replay_view.parse(payload)
    assert str(refused.value).startswith(error), str(refused.value)


def test_the_gms_replay_goes_to_the_gms_page_always_and_a_players_to_their_own_screens():
    assert replay_view.screens(replay_view.parse({"type": "replay", "at": 1}), GM) == ["gm"]
    assert replay_view.screens(replay_view.parse({"type": "replay", "at": 1, "on": ["screen"]}), GM) == ["gm", "screen"]
    mira = Actor("player", "p-1")
    assert replay_view.screens(replay_view.parse({"type": "replay", "at": 1}), mira) == ["player:p-1"]
    with pytest.raises(Rejected, match="own screens"):
        replay_view.screens(replay_view.parse({"type": "replay", "at": 1, "on": ["gm"]}), mira)
